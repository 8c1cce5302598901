"""Networks: elements placed on a linear graph."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import scipy.sparse
import scipy.sparse.csgraph
import sympy

from ..core.forwards import public
from ..core.later import later
from ..core.names import shown
from ..elements.base import EdgeVariables, Element, Kind, t
from ..errors import ModelError, TopologyError, UnknownNameError, VecnetWarning
from ..graph.graph import LinearGraph
from ..graph.topology import Topology
from .trees import normal_tree

__all__ = ["Network", "connectivity_problems", "warn_connectivity"]


class Network:
    """A physical system: elements whose edges form a :class:`LinearGraph`.

    Examples
    --------
    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("Vs", "g", "a", V=vn.Symbol("V")))
    >>> _ = net.add(vn.Resistor("R1", "a", "b", R=1e3), vn.Capacitor("C1", "b", "g", C=1e-6))
    >>> topo = net.topology(tree="normal")
    >>> topo.branches, topo.chords
    (('Vs', 'C1'), ('R1',))
    """

    #: The analysis commands of the SPICE netlist the network was read from
    #: (:class:`vecnet.io.spice.Analyses`), ``None`` for a network built otherwise.
    analyses: Any = None
    #: Whether the network was read from a file (a model file or netlist), whose simulations
    #: run under the bound ``file_work`` on state evaluations
    #: (:func:`vecnet.core.bounds.untrusted`).
    untrusted: bool = False

    def __init__(self, name: str = "network") -> None:
        self.name = name
        self.graph = LinearGraph()
        self._elements: dict[str, Element] = {}
        self._edge_owner: dict[str, Element] = {}

    def add(self, *elements: Element) -> Element:
        """Add elements; returns the last one. Nothing is added if any of them is refused.

        Raises
        ------
        ModelError
            Not an :class:`Element`, or an element name already used.
        TopologyError
            An edge that is a self-loop.
        """
        batch: set[str] = set()
        with self.graph.all_or_nothing() as graph:   # nothing of a refused batch stays
            for element in elements:
                if not isinstance(element, Element):
                    raise ModelError(f"network {self.name!r}: can only add elements, got "
                                     f"{element!r}")
                if element.name in self._elements or element.name in batch:
                    raise ModelError(f"network {self.name!r} already has an element named "
                                     f"{element.name!r}; element names must be unique")
                batch.add(element.name)
                for edge in element.edges:
                    try:
                        graph.add_edge(edge.name, edge.tail, edge.head)
                    except TopologyError as exc:
                        raise TopologyError(f"element {element.name!r}: {exc}") from None
        for element in elements:
            self._elements[element.name] = element
            for edge in element.edges:
                self._edge_owner[edge.name] = element
        return elements[-1] if elements else None

    @property
    def elements(self) -> tuple[Element, ...]:
        return tuple(self._elements.values())

    def element(self, name: str) -> Element:
        """The element called ``name``."""
        try:
            return self._elements[name]
        except (KeyError, TypeError):
            raise UnknownNameError(f"network {self.name!r} has no element {name!r}") from None

    def owner(self, edge: str) -> Element:
        """The element that edge ``edge`` belongs to."""
        try:
            return self._edge_owner[edge]
        except (KeyError, TypeError):
            raise UnknownNameError(f"network {self.name!r} has no edge {edge!r}") from None

    def variables(self, edge: str) -> EdgeVariables:
        """The across and through variables of ``edge`` as sympy functions of time,
        named after the domain (``v_R1(t)``, ``i_R1(t)``; ``F_k(t)`` for a spring)."""
        return EdgeVariables.of(next(e for e in self.owner(edge).edges if e.name == edge))

    def topology(self, tree: Sequence[str] | Callable[[str], Any] | str | None = "auto",
                 datum: Hashable | Sequence[Hashable] | None = None,
                 sparse: bool | None = None) -> Topology:
        """The :class:`Topology` of the network's graph for a tree choice.

        ``tree`` is a list of branch names, a priority function (see
        :func:`~vecnet.graph.topology.spanning_forest`), ``"auto"`` or ``"normal"`` (see
        :func:`~vecnet.builders.trees.normal_tree`).
        """
        if tree == "normal":
            tree = normal_tree(self)
        return Topology(self.graph, tree=tree, datum=datum, sparse=sparse)

    def equations(self, tree: Sequence[str] | str = "normal", datum: Hashable | None = None):
        """The cutset, circuit and terminal equations for ``tree``:
        a :class:`~vecnet.formulation.lumped.NetworkEquations`."""
        return public("NetworkEquations")(self, tree=tree, datum=datum)

    def state_space(self, outputs: Sequence[str] = (), tree: Sequence[str] | str = "normal",
                    symbolic: bool = False):
        """State equations and linear model: see :func:`vecnet.formulation.lumped.state_space`
        (the elements' numbers are put in before the elimination unless ``symbolic=True``)."""
        return public("state_space")(self, outputs=outputs, tree=tree, symbolic=symbolic)

    def sparse_state_space(self, outputs: Sequence[str] = (), tree: Sequence[str] | str = "normal",
                           parameters: dict | None = None):
        """The linear state equations as sparse numeric matrices: see
        :func:`vecnet.formulation.numeric.sparse_state_space`."""
        return public("sparse_state_space")(self, outputs=outputs, tree=tree, parameters=parameters)

    def operating_point(self, inputs: dict | None = None, outputs: Sequence[str] | None = None,
                        parameters: dict | None = None):
        """The DC operating point (sources constant, rates zero): see
        :func:`vecnet.numerics.analysis.operating_point`."""
        return public("operating_point")(self, inputs=inputs, outputs=outputs, parameters=parameters)

    def frequency_response(self, frequencies: Sequence[float], inputs: Any = None,
                           outputs: Sequence[str] | None = None, parameters: dict | None = None):
        """``H(j 2 pi f)`` on a grid of frequencies (Hz): see
        :func:`vecnet.numerics.analysis.frequency_response`."""
        return public("frequency_response")(self, frequencies, inputs=inputs, outputs=outputs,
                                  parameters=parameters)

    def parameter_symbols(self) -> set[sympy.Symbol]:
        """The symbols of the network's parameters: those of its elements' parameters and of
        the expressions they hold (time excluded).

        >>> import vecnet as vn
        >>> net = vn.Network()
        >>> _ = net.add(vn.Resistor("R1", "a", "g", R=vn.Symbol("R") * 2))
        >>> sorted(map(str, net.parameter_symbols()))
        ['R']
        """
        from ..elements.lumped import NonlinearDissipator

        found: set[sympy.Symbol] = set()

        def collect(value: Any) -> None:
            if isinstance(value, (sympy.Basic, sympy.MatrixBase)):
                found.update(s for s in value.free_symbols if isinstance(s, sympy.Symbol))
            elif isinstance(value, (list, tuple)):
                for item in value:
                    collect(item)

        for element in self._elements.values():
            for parameter in element.parameters.values():
                collect(parameter.symbol)
                collect(parameter.value)
            for value in vars(element).values():   # gains, matrices, laws' expressions
                collect(value)
            if isinstance(element, NonlinearDissipator):   # its law builds its expression
                collect(sympy.sympify(element.law(sympy.Dummy("x", real=True))))
        return {s for s in found if s != t and not isinstance(s, sympy.Dummy)}

    def check_parameters(self, parameters: Mapping | None) -> None:
        """Refuse a name (or symbol) in ``parameters`` that is no parameter of the network.

        Raises
        ------
        UnknownNameError
            Naming the unknown ones and listing the network's parameters.
        """
        if not parameters:   # nothing to check: the symbols of 10^4 elements cost 0.3 s
            return
        known = {str(s) for s in self.parameter_symbols()}
        unknown = sorted({str(k) for k in parameters} - known)
        if unknown:
            raise UnknownNameError(
                f"network {self.name!r} has no parameter(s) {', '.join(map(repr, unknown))}; "
                f"its parameters are {', '.join(sorted(known)) or 'none'}")

    def simulate(self, t_span: tuple[float, float], tree: Sequence[str] | str = "normal",
                 formulation: str | None = None, **options):
        """Simulate the network: ``vn.simulate(net, t_span, tree=tree,
        formulation=formulation, **options)`` (:func:`vecnet.simulate`, where the options
        are told).

        ``formulation`` chooses how the equations are made: ``"numeric"``, the sparse
        matrices of :meth:`sparse_state_space` (every parameter a number, here or in
        ``parameters``); ``"symbolic"``, the exact :meth:`state_space`; ``None`` (default),
        numeric where it applies and symbolic otherwise (parameters without numbers,
        dependent stores coupled through a transducer).

        Raises
        ------
        ModelError
            ``formulation`` is none of these.
        UnsupportedNetwork
            ``formulation="numeric"`` for a network it does not apply to.
        """
        return public("simulate")(self, t_span, tree=tree, formulation=formulation, **options)

    def __repr__(self) -> str:
        return (f"<Network {self.name!r}: {len(self._elements)} elements, "
                f"{self.graph.number_of_edges()} edges, {self.graph.number_of_nodes()} nodes>")

    def units(self) -> dict[str, tuple[str, str]]:
        """The quantity and unit of every variable of the scalar domains, by name.

        >>> import vecnet as vn
        >>> net = vn.Network()
        >>> _ = net.add(vn.Resistor("R", "a", "g", R=2.0))
        >>> net.units()["R.through"]
        ('current', 'A')
        """
        known = {}
        for element in self._elements.values():
            for edge in element.edges:
                d = edge.domain
                if d.dimension == "scalar":
                    known[f"{edge.name}.across"] = (d.across, d.across_unit)
                    known[f"{edge.name}.through"] = (d.through, d.through_unit)
        return known

    def to_networkx(self):
        """A copy of the network's graph as a ``networkx.MultiDiGraph``: an edge per element
        edge, keyed by its name, with its ``element`` and ``kind`` (``"A-type"``, ...).

        >>> import vecnet as vn
        >>> net = vn.Network()
        >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "g", R=2.0))
        >>> sorted(net.to_networkx().edges(keys=True, data="kind"))
        [('a', 'g', 'R', 'D-type'), ('g', 'a', 'V', 'across source')]
        """
        import networkx as nx

        out = nx.MultiDiGraph(name=self.name)
        out.add_nodes_from(self.graph.nodes)
        for element in self._elements.values():
            for edge in element.edges:
                out.add_edge(edge.tail, edge.head, key=edge.name, element=element.name,
                             kind=element.kind.value)
        return out

    def _repr_svg_(self) -> str | None:
        """The diagram of :func:`vecnet.output.draw.draw` as SVG, for notebooks (``None`` when the
        Graphviz ``dot`` program is missing or the graph is too large to lay out)."""
        repr_svg = later("vecnet.output.draw").repr_svg

        return repr_svg(self)


_SOURCES = (Kind.ACROSS_SOURCE, Kind.THROUGH_SOURCE)


def _listed(items: Sequence[Any], limit: int = 8) -> str:
    shown = ", ".join(ascii(x) if isinstance(x, str) else repr(x) for x in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def connectivity_problems(net: Network) -> list[str]:
    """What looks unintended in how ``net`` is connected, one sentence each:

    * a **floating part**: when the network falls apart into several parts, each part
      that holds no source (nothing drives it; it only moves from its initial values).
      The two sides of a two-port (a transformer, a motor, a pump) count as one part:
      a network joined only through a transducer is a legitimate forest;
    * a **dangling node**: a node that only one edge touches; nothing can flow through
      that edge (an open end). When its name is one typo from another node's (one
      character inserted, deleted, replaced or two neighbours swapped, case ignored:
      ``otu`` for ``out``, ``O`` for the ground ``0``), the sentence asks "did you mean"
      that node. Names that differ only in their numbers (``n1``, ``n2``, ``n10``) are a
      numbering, not a typo.

    >>> import vecnet as vn
    >>> net = Network("two")
    >>> _ = net.add(vn.VoltageSource("V", "g", "out", V=1.0), vn.Resistor("R", "out", "g", R=1.0),
    ...             vn.Capacitor("C", "x", "y", C=1.0), vn.Resistor("R2", "y", "x", R=1.0),
    ...             vn.Resistor("R3", "otu", "g", R=1.0))
    >>> for problem in connectivity_problems(net):
    ...     print(problem)
    network 'two': a part with nodes 'x', 'y' (elements 'C', 'R2') is not connected to the rest and has no source
    network 'two': node 'otu' is touched only by 'R3' (a dangling node: nothing flows through 'R3'); its name is one typo away from node 'out': did you mean 'out'?
    """
    nodes = net.graph.nodes
    index = {node: k for k, node in enumerate(nodes)}
    degree = np.zeros(len(nodes), dtype=int)
    toucher: dict[int, str] = {}
    pairs = []
    for element in net.elements:
        ends = [index[n] for edge in element.edges for n in (edge.tail, edge.head)]
        for edge in element.edges:
            for node in (edge.tail, edge.head):
                degree[index[node]] += 1
                toucher[index[node]] = edge.name
        # all nodes of one element are one part (a two-port's sides too)
        pairs.extend((ends[0], k) for k in ends[1:])
    rows, columns = np.array(pairs, dtype=int).reshape(-1, 2).T
    joined = scipy.sparse.coo_matrix((np.ones(len(rows)), (rows, columns)),
                                     shape=(len(nodes), len(nodes)))
    _, label = scipy.sparse.csgraph.connected_components(joined, directed=False)
    root = label.__getitem__
    parts: dict[int, list[int]] = {}
    for k in range(len(nodes)):
        parts.setdefault(root(k), []).append(k)
    problems = []
    if len(parts) > 1:
        members: dict[int, list[Element]] = {}
        for element in net.elements:
            members.setdefault(root(index[element.edges[0].tail]), []).append(element)
        for key, part in parts.items():
            elements = members.get(key, [])
            if any(e.kind in _SOURCES for e in elements):
                continue
            problems.append(f"network {shown(net.name)}: a part with nodes "
                            f"{_listed([nodes[k] for k in part])} (elements "
                            f"{_listed([e.name for e in elements]) or 'none'}) is not connected "
                            "to the rest and has no source")
    lonely = [k for k, d in enumerate(degree) if d == 1]
    near = _near_names([nodes[k] for k in lonely], nodes)
    for k in lonely:
        guess = near.get(nodes[k])
        problems.append(f"network {shown(net.name)}: node {_listed([nodes[k]])} is touched only by "
                        f"{ascii(toucher[k])} (a dangling node: nothing flows through "
                        f"{ascii(toucher[k])})" + (f"; its name is one typo away from node "
                                                   f"{_listed(guess)}: did you mean "
                                                   f"{_listed(guess[:1])}?" if guess else ""))
    return problems


def _deletions(name: str) -> set[str]:
    return {name[:k] + name[k + 1:] for k in range(len(name))}


def _one_edit_apart(a: str, b: str) -> bool:
    """Whether ``a`` becomes ``b`` by inserting, deleting or replacing one character, or by
    swapping two neighbours (the optimal-string-alignment distance is at most one)."""
    if len(a) > len(b):
        a, b = b, a
    if len(b) - len(a) > 1:
        return False
    k = 0
    while k < len(a) and a[k] == b[k]:
        k += 1
    if len(a) < len(b):
        return a[k:] == b[k + 1:]
    swapped = k + 1 < len(a) and a[k] == b[k + 1] and a[k + 1] == b[k]
    return a[k + 1:] == b[k + 1:] or (swapped and a[k + 2:] == b[k + 2:])


# digits and the letters they are mistaken for: the ground "0" typed as "O"
_LOOK_ALIKE = str.maketrans("oli", "011")


def _typo(a: str, b: str) -> bool:
    """Whether two different (case-folded) node names look like one name mistyped."""
    if re.sub(r"[0-9]+", "", a) == re.sub(r"[0-9]+", "", b):
        return a == b  # n1/n2, n9/n10, 1/2 are a numbering; only a case slip is a typo
    if min(len(a), len(b)) < 3:
        # any two one- or two-letter names are one edit apart; only look-alikes count
        return a.translate(_LOOK_ALIKE) == b.translate(_LOOK_ALIKE)
    return _one_edit_apart(a, b)


def _near_names(names: Sequence[Hashable], among: Sequence[Hashable]) -> dict[Hashable, list[Hashable]]:
    """For each of ``names``, the other node names of ``among`` one typo away from it
    (compared without case), in the order of ``among``; names with none are left out.

    Candidates come from an index of single deletions, so the cost grows with the total
    length of the names, not with the square of their number.
    """
    folded = {node: node.casefold() for node in among if isinstance(node, str)}
    order = {node: k for k, node in enumerate(folded)}
    index: dict[str, list[Hashable]] = {}
    for node, key in folded.items():
        for variant in _deletions(key) | {key}:
            index.setdefault(variant, []).append(node)
    near: dict[Hashable, list[Hashable]] = {}
    for name in names:
        key = folded.get(name)
        if key is None:
            continue
        candidates = {other for variant in _deletions(key) | {key} for other in index.get(variant, ())}
        found = sorted((other for other in candidates if other != name
                        and _typo(key, folded[other])), key=order.__getitem__)
        if found:
            near[name] = found
    return near


def warn_connectivity(net: Network, where: str = "") -> None:
    """Warn (:class:`~vecnet.errors.VecnetWarning`) about each of
    :func:`connectivity_problems`; the readers of model files and netlists call it.
    ``where`` (a file name) leads the message."""
    for problem in connectivity_problems(net):
        warnings.warn(f"{where}: {problem}" if where else problem, VecnetWarning, stacklevel=3)
