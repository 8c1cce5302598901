"""Networks from model files: elements with their nodes and parameters, inputs, initial
values, outputs and the tree (``docs/model-format.md``)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

import sympy

from ..builders.model import Model
from ..builders.network import Network, warn_connectivity
from ..core.domains import DOMAINS
from ..core.names import check_name, check_node
from ..elements import controlled, lumped, transducers
from ..elements.base import Element, Kind, Symbol, t
from ..elements.coupled_inductors import CoupledInductors
from ..elements.coupling import LinearPort, RotaryPort
from ..errors import ModelFileError, VecnetError
from .reading import (
    FileLaw,
    Scope,
    as_number,
    read_simulation,
    read_tree,
    suggestion,
    unique_name,
    unique_outputs,
)
from .source import located, pointer

__all__ = ["ELEMENT_TYPES", "OWN_ENTRY_TYPES", "GENERIC_TWO_PORTS", "PORT_TYPES", "read_network",
           "build_network", "source_input"]

#: element type name in a file -> element class
ELEMENT_TYPES: dict[str, type[Element]] = {
    name: getattr(module, name) for module in (lumped, transducers, controlled)
    for name in module.__all__
    if isinstance(getattr(module, name), type) and issubclass(getattr(module, name), Element)
    # an op-amp's nodes are not its edges' ends in order: it has its own entry
    and not issubclass(getattr(module, name), controlled.OpAmp)
    and getattr(module, name) is not controlled.ControlledSource}
#: element types whose entries differ from ``nodes`` + ``parameters`` by port: their number
#: of windings comes from the matrix given, or their nodes are not their edges' ends in order
OWN_ENTRY_TYPES = ("CoupledInductors", "OpAmp")
#: two-ports whose entries may give the domains of their ports
GENERIC_TWO_PORTS = ("Transformer", "Gyrator", "AcrossControlledAcrossSource",
                     "AcrossControlledThroughSource", "ThroughControlledAcrossSource",
                     "ThroughControlledThroughSource")
#: a system's ports: type name in a file -> class
PORT_TYPES: dict[str, type[Element]] = {"RotaryPort": RotaryPort, "LinearPort": LinearPort}
_SOURCES = (Kind.ACROSS_SOURCE, Kind.THROUGH_SOURCE)


def _error(location: str, message: str) -> ModelFileError:
    return ModelFileError(message, location=location)


def _check_nodes(entry: Mapping, loc: str, declared_nodes: Collection[Any] | None, want: int,
                 ends: str) -> list:
    """The ``nodes`` of an element entry: ``want`` of them (``ends`` says which), each a
    valid node (declared, when the file declares nodes), every edge's two ends different."""
    kind, name, nodes = entry["type"], entry["name"], entry["nodes"]
    if len(nodes) != want:
        raise _error(f"{loc}/nodes", f"{kind} {name!r} takes {want} nodes ({ends}); got {len(nodes)}")
    for k, node in enumerate(nodes):
        if isinstance(node, bool):
            raise _error(f"{loc}/nodes/{k}", "a node is a string or an integer")
        check_node(node, f"{loc}/nodes/{k}")
        if declared_nodes is not None and node not in declared_nodes:
            raise _error(f"{loc}/nodes/{k}", f"unknown node {node!r}; the file declares nodes "
                                             f"{', '.join(map(repr, declared_nodes))}")
    return nodes


def _check_ends(entry: Mapping, loc: str, edges: Sequence[tuple[Any, Any]]) -> None:
    for tail, head in edges:
        if tail == head:
            raise _error(f"{loc}/nodes", f"{entry['type']} {entry['name']!r}: tail and head are "
                                         f"both {tail!r}; an edge joins two different nodes")


def _check_keys(entry: Mapping, loc: str, allowed: set[str]) -> None:
    for key in entry:
        if key not in allowed:
            raise _error(f"{loc}/{key}", f"{entry['type']} takes no {key!r}; it takes "
                                         f"{', '.join(sorted(allowed - {'description'}))}")


def _coupled_inductors(entry: Mapping, loc: str, scope: Scope,
                       declared_nodes: Collection[Any] | None) -> CoupledInductors:
    """``"parameters": {"L": [[L1, M], [M, L2]]}`` (numbers or expressions), ``nodes`` the
    tail and head of each winding, optional ``windings`` names."""
    name = entry["name"]
    _check_keys(entry, loc, {"type", "name", "nodes", "parameters", "windings", "description"})
    given = entry.get("parameters", {})
    for pname in given:
        if pname != "L":
            raise _error(loc + pointer("parameters", pname),
                         f"CoupledInductors has no parameter {pname!r}; it takes the inductance "
                         "matrix \"L\": [[L1, M], [M, L2]]")
    if "L" not in given:
        raise _error(f"{loc}/parameters", f"CoupledInductors {name!r} needs the inductance "
                                          "matrix \"L\": [[L1, M], [M, L2]]")
    mloc = f"{loc}/parameters/L"
    rows = [[scope.raw(v, f"{mloc}/{i}/{j}") for j, v in enumerate(row)]
            for i, row in enumerate(given["L"])]
    n = len(rows)
    if any(len(row) != n for row in rows):
        raise _error(mloc, f"L must be square, one row and one column per winding; got rows "
                           f"of lengths {[len(r) for r in rows]}")
    nodes = _check_nodes(entry, loc, declared_nodes, 2 * n,
                         "tail and head of each winding, one winding per row of L")
    _check_ends(entry, loc, list(zip(nodes[::2], nodes[1::2])))
    windings: list | None = entry.get("windings")
    if windings is not None and len(windings) != n:
        raise _error(f"{loc}/windings", f"give {n} winding names, one per row of L; got "
                                        f"{len(windings)}")
    for k, winding in enumerate(windings or ()):
        check_name(winding, "winding name", f"{loc}/windings/{k}")
        if winding in (windings or ())[:k]:
            raise _error(f"{loc}/windings/{k}", f"winding {winding!r} is named twice")
    try:
        element = CoupledInductors(name, *nodes, L=rows, windings=windings)
    except VecnetError as exc:
        raise located(mloc, exc) from None
    numbers = [[as_number(v, scope) for v in row] for row in rows]
    if any(isinstance(v, sympy.Expr) for row in rows for v in row) \
            and None not in (v for row in numbers for v in row):
        # the element checks numbers only: check the declared parameters' values too
        try:
            CoupledInductors(name, *nodes, L=numbers, windings=windings)
        except VecnetError as exc:
            raise _error(mloc, f"{exc} (with the values under \"parameters\")") from None
    return element


def _op_amp(entry: Mapping, loc: str, scope: Scope, declared_nodes: Collection[Any] | None) -> Element:
    """``nodes`` ``[in_minus, in_plus, out, ground]`` as :class:`~vecnet.OpAmp` takes them,
    optional open-loop ``gain`` (without it the op-amp is ideal)."""
    _check_keys(entry, loc, {"type", "name", "nodes", "gain", "description"})
    nodes = _check_nodes(entry, loc, declared_nodes, 4, "in_minus, in_plus, out, ground")
    in_minus, in_plus, out, ground = nodes
    _check_ends(entry, loc, [(in_minus, in_plus), (ground, out)])
    gain = scope.raw(entry["gain"], f"{loc}/gain") if "gain" in entry else None
    try:
        return controlled.OpAmp(entry["name"], in_minus, in_plus, out, ground, gain=gain)
    except VecnetError as exc:
        raise located(loc, exc) from None


def _element(entry: Mapping, loc: str, scope: Scope, declared_nodes: Collection[Any] | None) -> Element:
    """The element of an entry of ``elements``."""
    kind = entry["type"]
    if kind == "CoupledInductors":
        return _coupled_inductors(entry, loc, scope, declared_nodes)
    if kind == "OpAmp":
        return _op_amp(entry, loc, scope, declared_nodes)
    cls = _element_class(kind, loc)
    want = 2 * len(cls.ports)
    nodes = _check_nodes(entry, loc, declared_nodes, want,
                         "tail, head" if want == 2 else "tail and head of port 1, then of port 2")
    _check_ends(entry, loc, list(zip(nodes[::2], nodes[1::2])))
    _check_keys(entry, loc, _entry_keys(cls, kind))
    if cls is lumped.NonlinearDissipator:
        kwargs = _nonlinear_law(entry, loc, scope)
    else:
        kwargs = _parameters(entry, loc, scope, cls)
    if entry.get("allow_negative"):
        kwargs["allow_negative"] = True
    _check_positive(cls, kwargs, entry, loc, scope)
    try:
        return cls(entry["name"], *nodes, **kwargs)
    except VecnetError as exc:
        raise located(loc, exc) from None


def _element_class(kind: str, loc: str) -> type[Element]:
    cls = ELEMENT_TYPES.get(kind)
    if cls is None:
        known = (*ELEMENT_TYPES, *OWN_ENTRY_TYPES)
        raise _error(f"{loc}/type", f"unknown element type {kind!r}{suggestion(kind, known)} "
                                    f"(types: {', '.join(known)})")
    return cls


def _entry_keys(cls: type[Element], kind: str) -> set[str]:
    """The keys an entry of this element type may hold."""
    allowed = {"type", "name", "nodes", "description"}
    if cls.positive:
        allowed.add("allow_negative")
    if cls is lumped.NonlinearDissipator:
        return allowed | {"domain", "across", "through"}
    if kind in GENERIC_TWO_PORTS:
        return allowed | {"domains", "parameters"}
    return allowed | {"parameters"}


def _scalar_domain(name: Any, loc: str) -> str:
    if name not in DOMAINS or DOMAINS[name].dimension != "scalar":
        raise _error(loc, f"unknown domain {name!r}; domains are "
                     + ", ".join(d for d, v in DOMAINS.items() if v.dimension == "scalar"))
    return name


def _nonlinear_law(entry: Mapping, loc: str, scope: Scope) -> dict[str, Any]:
    """A nonlinear dissipator's domain and its law, ``across`` (a = f(tau)) or ``through``
    (tau = g(a))."""
    domain = _scalar_domain(entry.get("domain", "electrical"), f"{loc}/domain")
    laws = [key for key in ("across", "through") if key in entry]
    if len(laws) != 1:
        raise _error(loc, f"NonlinearDissipator {entry['name']!r}: give exactly one of "
                          "\"across\" (a = f(tau), in tau) or \"through\" (tau = g(a), in a)")
    key = laws[0]
    var = Symbol("tau" if key == "across" else "a")
    expr = scope.expr(entry[key], f"{loc}/{key}", extra={var.name: var})
    return {"domain": domain, key: FileLaw(expr, var)}


def _parameters(entry: Mapping, loc: str, scope: Scope, cls: type[Element]) -> dict[str, Any]:
    """An element's parameters (a source's value a number, a declared parameter or an
    expression in t alone) and, for a generic two-port, the domains of its ports."""
    kind, given = entry["type"], entry.get("parameters", {})
    for pname in given:
        if pname not in cls.parameter_names:
            raise _error(loc + pointer("parameters", pname),
                         f"{kind} has no parameter {pname!r}{suggestion(pname, cls.parameter_names)}"
                         f"; its parameters are {', '.join(cls.parameter_names) or 'none'}")
    missing = [p for p in cls.parameter_names if p not in given and p not in cls.defaults]
    if missing:
        raise _error(f"{loc}/parameters", f"{kind} {entry['name']!r} needs parameter(s) "
                                          f"{', '.join(missing)}")
    kwargs: dict[str, Any] = {}
    for pname, value in given.items():
        ploc = f"{loc}/parameters/{pname}"
        signal = pname in cls.signals
        value = scope.raw(value, ploc, time=signal)
        if signal and isinstance(value, sympy.Expr) and not isinstance(value, sympy.Symbol) \
                and not value.free_symbols <= {t}:
            raise _error(ploc, "a source value is a number, a declared parameter or an "
                               "expression in t alone; to drive it with a formula in "
                               "parameters, name a parameter here and give the formula "
                               "under \"inputs\"")
        kwargs[pname] = value
    if "domains" in entry:
        kwargs["domains"] = tuple(_scalar_domain(d, f"{loc}/domains/{k}")
                                  for k, d in enumerate(entry["domains"]))
    return kwargs


def _check_positive(cls: type[Element], kwargs: Mapping[str, Any], entry: Mapping, loc: str,
                    scope: Scope) -> None:
    """The parameters that must be positive: a number, or a parameter symbol bound to a
    number under "parameters"."""
    for pname in cls.positive:
        value = kwargs.get(pname)
        given = ""
        if isinstance(value, sympy.Expr):
            bound = value.xreplace(scope.numeric)
            try:
                value = float(bound) if bound.is_number else None
            except (TypeError, ValueError, OverflowError):
                value = None  # not real: the formulation says so
            given = " (with the values under \"parameters\")"
        problem = value is not None and cls.value_problem(pname, value, entry["name"],
                                                          bool(entry.get("allow_negative")))
        if problem:
            raise _error(f"{loc}/parameters/{pname}", problem + given)


def _edge_variable(key: str, loc: str, net: Network) -> str:
    edge, _, what = key.rpartition(".")
    if what not in ("across", "through") or not edge:
        raise _error(loc, f"{key!r} is not a variable name; write '<edge>.across' or "
                          "'<edge>.through'")
    if edge not in net.graph:
        raise _error(loc, f"no edge {edge!r}{suggestion(edge, net.graph.edges)}")
    return edge


def _check_symbols(net: Network, scope: Scope) -> None:
    """Numbers are kept as values of symbols named after the element; two parameters must
    not end up with the same symbol."""
    owners: dict[str, str] = {}
    for i, element in enumerate(net.elements):
        for pname, p in element.parameters.items():
            if p.value is None or not isinstance(p.symbol, sympy.Symbol):
                continue
            loc, sname = f"/elements/{i}/parameters/{pname}", p.symbol.name
            if sname in scope.symbols:
                raise _error(loc, f"this number is kept as the value of symbol {sname!r}, which is "
                                  f"also a declared parameter; write \"{sname}\" to use the "
                                  "parameter, or rename one of them")
            if sname in owners:
                raise _error(loc, f"this number is kept as the value of symbol {sname!r}, as is "
                                  f"the one at {owners[sname]}; rename one of the elements")
            owners[sname] = loc


def read_network(doc: Mapping, scope: Scope) -> Model:
    """The network model of a validated model file ``doc`` of kind ``"network"``, its
    values read in ``scope``.

    Raises
    ------
    ModelFileError
        A reference, name, value or element the file gets wrong, at its JSON pointer.
    """
    net = build_network(doc, scope)
    model = Model("network", net, parameters=dict(scope.values),
                  description=doc.get("description", ""))
    for key, value in doc.get("inputs", {}).items():
        model.inputs[key] = source_input(key, value, pointer("inputs", key), net, scope)
    for key, value in doc.get("initial", {}).items():
        loc = pointer("initial", key)
        _edge_variable(key, loc, net)
        model.initial[key] = scope.number(value, loc)
    unique_outputs(doc)
    for k, name in enumerate(doc.get("outputs", [])):
        _edge_variable(name, f"/outputs/{k}", net)
        model.outputs.append(name)
    tree = doc.get("tree")
    model.tree = read_tree(tree, net.graph.edges) if isinstance(tree, list) else tree
    read_simulation(doc, model)
    return model


def build_network(doc: Mapping, scope: Scope, ports: bool = False) -> Network:
    """The network of ``doc``'s ``nodes`` and ``elements`` (with ``ports``, also the
    :class:`~vecnet.RotaryPort` and :class:`~vecnet.LinearPort` entries of a system's
    network), without the file's settings."""
    net = Network(doc.get("name", "network"))
    declared = _declared_nodes(doc, net)
    names: dict[str, str] = {}
    for i, entry in enumerate(doc["elements"]):
        loc = f"/elements/{i}"
        unique_name(names, entry["name"], f"{loc}/name")
        if ports and entry["type"] in PORT_TYPES:
            element = _port(entry, loc, declared)
        else:
            element = _element(entry, loc, scope, declared)
        try:
            net.add(element)
        except VecnetError as exc:
            raise located(loc, exc) from None
    if declared is not None:
        used = {node for el in net.elements for e in el.edges for node in (e.tail, e.head)}
        for node, k in declared.items():
            if node not in used:
                raise _error(f"/nodes/{k}", f"node {node!r} is declared but no element uses it")
    _check_symbols(net, scope)
    warn_connectivity(net)
    return net


def _port(entry: Mapping, loc: str, declared_nodes: Collection[Any] | None) -> Element:
    """A port of a system's network: ``nodes`` tail and head, the ``joint`` it drives or,
    for a linear port, the two ``points`` it pushes apart."""
    kind = entry["type"]
    _check_keys(entry, loc, {"type", "name", "nodes", "joint", "description"}
                | ({"points"} if kind == "LinearPort" else set()))
    nodes = _check_nodes(entry, loc, declared_nodes, 2, "tail, head")
    _check_ends(entry, loc, [tuple(nodes)])
    where = {key: entry[key] for key in ("joint", "points") if key in entry}
    if len(where) != 1:
        raise _error(loc, f"{kind} {entry['name']!r}: give the joint it drives"
                          + (" or the two points it pushes apart" if kind == "LinearPort" else ""))
    try:
        return PORT_TYPES[kind](entry["name"], *nodes, **where)
    except VecnetError as exc:
        raise located(loc, exc) from None


def _declared_nodes(doc: Mapping, net: Network) -> dict[Any, int] | None:
    """The file's ``nodes`` (node -> index), added to the graph in their order; ``None``
    when the file declares none."""
    if "nodes" not in doc:
        return None
    declared: dict[Any, int] = {}
    for k, node in enumerate(doc["nodes"]):
        if isinstance(node, bool):
            raise _error(f"/nodes/{k}", "a node is a string or an integer")
        check_node(node, f"/nodes/{k}")
        if node in declared:
            raise _error(f"/nodes/{k}", f"node {node!r} is declared twice")
        declared[node] = k
        net.graph.add_node(node)
    return declared


def source_input(key: str, value: Any, loc: str, net: Network, scope: Scope,
                 extra: Mapping[str, sympy.Expr] | None = None) -> sympy.Expr:
    """The signal driving the input ``key`` of a source of ``net`` (``"Vs.across"``): an
    expression in t, the declared parameters and ``extra`` names."""
    edge = _edge_variable(key, loc, net)
    element: Any = net.owner(edge)  # a source (checked next) names the variable it drives
    if element.kind not in _SOURCES:
        raise _error(loc, f"{edge!r} is a {type(element).__name__}, not a source; inputs "
                          "are the values of sources")
    if key != f"{edge}.{element.driven}":
        raise _error(loc, f"the input of {type(element).__name__} {edge!r} is "
                          f"'{edge}.{element.driven}'")
    return scope.expr(value, loc, time=True, extra=extra)
