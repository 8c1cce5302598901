"""Networks: elements placed on a linear graph."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import sympy

from .elements.base import EdgeVariables, Element, t
from .errors import ModelError, TopologyError, UnknownNameError
from .graph import LinearGraph
from .topology import Topology
from .trees import normal_tree

__all__ = ["Network"]


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
        staged = self.graph.copy()
        names = set(self._elements)
        for element in elements:
            if not isinstance(element, Element):
                raise ModelError(f"network {self.name!r}: can only add elements, got {element!r}")
            if element.name in names:
                raise ModelError(f"network {self.name!r} already has an element named "
                                 f"{element.name!r}; element names must be unique")
            names.add(element.name)
            for edge in element.edges:
                try:
                    staged.add_edge(edge.name, edge.tail, edge.head)
                except TopologyError as exc:
                    raise TopologyError(f"element {element.name!r}: {exc}") from None
        self.graph = staged
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
        dom = next(e.domain for e in self.owner(edge).edges if e.name == edge)
        return EdgeVariables(sympy.Function(f"{dom.across_symbol}_{edge}", real=True)(t),
                             sympy.Function(f"{dom.through_symbol}_{edge}", real=True)(t))

    def topology(self, tree: Sequence[str] | Callable[[str], Any] | str | None = "auto",
                 datum: Hashable | Sequence[Hashable] | None = None,
                 sparse: bool | None = None) -> Topology:
        """The :class:`Topology` of the network's graph for a tree choice.

        ``tree`` is a list of branch names, a priority function (see
        :func:`~vecnet.topology.spanning_forest`), ``"auto"`` or ``"normal"`` (see
        :func:`~vecnet.trees.normal_tree`).
        """
        if tree == "normal":
            tree = normal_tree(self)
        return Topology(self.graph, tree=tree, datum=datum, sparse=sparse)

    def equations(self, tree: Sequence[str] | str = "normal", datum: Hashable | None = None):
        """The cutset, circuit and terminal equations for ``tree``:
        a :class:`~vecnet.formulation.lumped.NetworkEquations`."""
        from .formulation.lumped import NetworkEquations

        return NetworkEquations(self, tree=tree, datum=datum)

    def state_space(self, outputs: Sequence[str] = (), tree: Sequence[str] | str = "normal",
                    numeric: bool = False):
        """State equations and linear model: see :func:`vecnet.formulation.lumped.state_space`."""
        from .formulation.lumped import state_space

        return state_space(self, outputs=outputs, tree=tree, numeric=numeric)

    def simulate(self, t_span: tuple[float, float], tree: Sequence[str] | str = "normal",
                 **options):
        """Simulate the network: its :meth:`state_space` integrated by
        :func:`vecnet.numerics.simulate.simulate`; ``options`` are that function's."""
        return self.state_space(tree=tree).simulate(t_span, **options)

    def __repr__(self) -> str:
        return (f"<Network {self.name!r}: {len(self._elements)} elements, "
                f"{self.graph.number_of_edges()} edges, {self.graph.number_of_nodes()} nodes>")

    def _repr_svg_(self) -> str | None:
        """The diagram of :func:`vecnet.draw.draw` as SVG, for notebooks (``None`` when the
        Graphviz ``dot`` program is missing or the graph is too large to lay out)."""
        from .draw import repr_svg  # drawing depends on this module, not the reverse

        return repr_svg(self)
