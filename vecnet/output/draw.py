"""Graphviz diagrams of linear graphs, networks and planar and spatial mechanisms.

:func:`draw` turns a :class:`~vecnet.LinearGraph`, a :class:`~vecnet.Network`,
a :class:`~vecnet.planar.Mechanism` (its vector network) or a
:class:`~vecnet.Topology` into a :class:`graphviz.Digraph`, and optionally
writes it to a file. The picture follows the textbook conventions:

* one arrow per edge, from its tail to its head, labelled with its name
  and/or the domain's through and across symbols (``"R3\\ni, v"``);
* tree branches solid and bold, chords dashed (when a tree is given);
* one colour per domain (:data:`DOMAIN_COLOURS`);
* the two port edges of a transducer pass through two small dots joined by
  a dotted line that carries the transducer's name;
* in a vector network the datum (the ground frame) sits at the top, mass
  elements end in a filled arrowhead, rigid arms in an open ``vee``, force
  elements in an empty triangle and motion drivers in a diamond; each joint type
  (revolute, spherical, prismatic, ..., gear and rack meshes) has a colour and an
  arrowhead of its own (:data:`vecnet.output.palette.JOINT_STYLES`, the marks of the
  pictures of :mod:`vecnet.output.picture` too), with one legend entry per type drawn.

Rendering to SVG, PNG or PDF needs the Graphviz ``dot`` program, and so does the TikZ
export (:mod:`vecnet.output.tikz`, a ``.tex`` path), which takes dot's layout; DOT text
(:func:`to_dot`, or a ``.dot`` path) does not.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import graphviz

from ..core.dispatch import class_named
from ..core.files import check_output, write_atomically
from ..core.names import visible
from ..core.symbols import DATUM
from ..elements.base import Element
from ..errors import GraphvizError, GraphvizTimeoutError, OutputError
from .palette import (
    BODY_FILL,
    CHORD_STYLE,
    DATUM_FILL,
    DOMAIN_COLOURS,
    LEGEND_FRAME,
    LINK_COLOUR,
    LINK_STYLE,
    TREE_STYLE,
    joint_style,
    joint_styles,
)
from .tikz import tikz_document

if TYPE_CHECKING:
    from ..builders.network import Network
    from ..graph.graph import LinearGraph
    from ..graph.topology import Topology

__all__ = ["draw", "to_dot", "to_tikz", "svg", "run_dot", "DOMAIN_COLOURS", "OutputError",
           "GraphvizError", "GraphvizTimeoutError", "DOT_TIMEOUT"]

#: Formats written as text without the ``dot`` program.
TEXT_FORMATS = ("dot", "gv")
#: Formats rendered by the ``dot`` program.
RENDERED_FORMATS = ("svg", "png", "pdf")
#: Formats laid out by the ``dot`` program and written as LaTeX (:mod:`vecnet.output.tikz`);
#: a ``.tex`` path means ``tikz``.
TIKZ_FORMATS = ("tikz",)
#: Graphs with more edges than this are not rendered for notebook display.
REPR_EDGE_LIMIT = 400
#: Longest time (seconds) the ``dot`` program may take to render one diagram.
DOT_TIMEOUT = 60.0
#: Graphs with more edges than this get a bounded layout effort (``nslimit``): dot's
#: network simplex grows steeply on ladders with a common node (100 RC stages took
#: minutes with the default effort, 2 s with the bound).
LARGE_GRAPH_EDGES = 40

_LABELS = ("names", "variables", "both")
_EDGE_IDS = ("names", "index")
# arrowheads that tell the planar element families apart (a joint of a known type takes
# the arrowhead of its type instead, see vecnet.output.palette)
_PLANAR_ARROWS = {"mass": "normal", "arm": "vee", "joint": "odot", "force": "empty",
                  "driver": "diamond"}


@dataclass
class _Model:
    """What the drawing needs from the object: the graph and, if known, its elements."""

    graph: LinearGraph
    title: str = ""
    network: Network | None = None
    mechanism: Any = None
    topology: Topology | None = None


def _model(obj: Any) -> _Model:
    kind = class_named(obj, ("Model", "MechanismBuilder", "Network", "LinearGraph", "Topology",
                             "NetworkEquations", "MechanismEquations"))
    if kind == "Model":   # a model file's: with the tree it chooses
        if obj.kind == "network":
            net = obj.system
            return _Model(net.graph, net.name, net, topology=net.topology(tree=obj.tree or "normal"))
        if obj.kind == "mechanism":
            return _model(obj.formulate())
        raise OutputError(f"model {obj.name!r} is a system, a mechanism joined to networks: "
                          "draw its parts, vn.draw(model.system.mechanism) or "
                          "vn.draw(model.system.network)")
    if kind == "MechanismBuilder":
        return _Model(obj.network.graph, obj.name, obj.network, obj)
    if kind == "Network":
        return _Model(obj.graph, obj.name, obj)
    if kind == "LinearGraph":
        return _Model(obj)
    if kind == "Topology":
        return _Model(obj.graph, topology=obj)
    if kind == "NetworkEquations":
        net = obj.network
        return _Model(net.graph, net.name, net, topology=obj.topology)
    if kind == "MechanismEquations":
        mech = obj.mechanism
        return _Model(mech.network.graph, mech.name, mech.network, mech, topology=obj.topology)
    raise OutputError(f"cannot draw a {type(obj).__name__}; draw a Model, LinearGraph, "
                      "Network, planar or spatial Mechanism, Topology, NetworkEquations or "
                      "MultibodyEquations")


def _tree(model: _Model, tree: Any) -> Topology | None:
    """The topology whose tree branches to style (and whose datum to mark), or None for no
    tree styling."""
    if tree is None:
        return model.topology
    if isinstance(tree, str) and tree in ("joint", "absolute"):
        if model.mechanism is None:
            raise OutputError(f"tree={tree!r} chooses the coordinates of a mechanism; draw a "
                              "vn.planar or vn.spatial Mechanism, or give a list of branches")
        return model.mechanism.formulate(coordinates=tree).topology
    if isinstance(tree, str) and tree not in ("normal", "auto"):
        raise OutputError(f"unknown tree rule {tree!r}; give a list of branch names, 'normal', "
                          "'auto', or for a mechanism 'joint' or 'absolute'")
    if model.network is not None:
        return model.network.topology(tree=tree)
    if tree == "normal":
        raise OutputError("tree='normal' needs the element kinds: draw a Network, not a bare "
                          "LinearGraph or Topology")
    return model.graph.topology(tree=tree)  # validates a list of branches


def _datum(model: _Model, datum: Any, topology: Topology | None) -> tuple[Hashable, ...]:
    if datum is not None:
        # the Topology checks the names and fills in a datum for every other component
        return model.graph.topology(datum=datum).datum
    if topology is not None:
        return topology.datum
    if model.mechanism is not None:
        return (DATUM,)
    return ()  # a lumped graph has no preferred reference node until one is named


def _label(text: Any) -> str:
    """User text (a name, a title) as a DOT label that is shown literally: never an
    HTML-like label (``graphviz.nohtml``), backslashes doubled so that no ``\\N``,
    ``\\G`` or ``\\l`` escape applies (``graphviz.escape``; the DOT quoting then escapes
    quotes), and ``&`` written as ``&amp;`` because Graphviz expands entities in labels."""
    return graphviz.escape(visible(text).replace("&", "&amp;"))


def _attr_text(text: Any) -> str:
    """User text inside an attribute that is not a label (``id``): literal, like a label,
    but without the entity step, which Graphviz does not apply there."""
    return graphviz.escape(visible(text))


# names that are used verbatim as DOT node IDs: anything else gets a made-up ID (the
# label keeps the real name), so no name can be read as an HTML-like ID ('<...>'), a port
# (':'), an escape or a broken quoted string ('\\', '"'), or break a line
_UNSAFE_ID_CHARS = frozenset(':\\"<>&')


def _safe_id(name: str) -> bool:
    return bool(name) and name == visible(name) and not _UNSAFE_ID_CHARS.intersection(name)


def _node_ids(graph: LinearGraph) -> dict[Hashable, str]:
    """DOT names of the nodes: their own names when those are unambiguous and plain (see
    :func:`_safe_id`), else ``n0, n1, ...`` for all (the labels keep the real names)."""
    names = [str(n) for n in graph.nodes]
    if len(set(names)) == len(names) and all(_safe_id(n) for n in names):
        return {n: graphviz.nohtml(s) for n, s in zip(graph.nodes, names)}
    return {n: f"n{i}" for i, n in enumerate(graph.nodes)}


def _planar_family(element: Element) -> str:
    """The family of a vector-network element (planar or spatial), for its arrowhead."""
    from ..elements import planar as pe
    from ..elements import spatial as se

    if isinstance(element, (pe.MassElement, se.SpatialMass)):
        return "mass"
    if isinstance(element, (pe.Arm, se.SpatialArm)):
        return "arm"
    if isinstance(element, (pe.MotionDriver, se.SpatialMotionDriver)):
        return "driver"
    if getattr(element, "is_joint", False) or joint_style(element) is not None:
        return "joint"   # gear and rack meshes are joints in the drawings
    return "force"


def _edge_label(name: str, domain: Any, labels: str) -> str:
    if domain is None:
        through, across = "τ", "a"
    else:
        through, across = domain.through_symbol, domain.across_symbol
    # every piece escaped, and the whole marked as no HTML: an f-string of NoHtml parts
    # is a plain str again, which DOT would read as an HTML label if it were '<...>'
    name_text = _label(name)
    if labels == "names":
        return name_text
    if labels == "variables":
        return graphviz.nohtml(f"{_label(through)}_{name_text}, {_label(across)}_{name_text}")
    return graphviz.nohtml(f"{name_text}\\n{_label(through)}, {_label(across)}")


def draw(obj: Any, tree: Sequence[str] | str | Callable[[str], Any] | None = None,
         path: str | os.PathLike | None = None, format: str | None = None,
         labels: str = "names", datum: Hashable | Sequence[Hashable] | None = None,
         datum_position: str = "top", title: str | None = None,
         edge_ids: str = "names") -> graphviz.Digraph:
    """A Graphviz diagram of a linear graph, network, planar or spatial mechanism or topology.

    Parameters
    ----------
    obj : Model, LinearGraph, Network, planar or spatial Mechanism, Topology, or their
          equations
        A mechanism is drawn as its vector network. A Topology (and the equation objects
        that hold one) bring their own tree and datum, and so does a loaded model file
        (:func:`vecnet.load_model`: its tree, or its coordinates' tree).
    tree : list of str, "normal", "auto", "joint", "absolute", callable or None
        Tree branches are drawn solid and bold, chords dashed. A list names the
        branches; ``"normal"`` is the normal tree of a network, ``"auto"`` the
        spanning tree in graph order; ``"joint"`` and ``"absolute"`` are the
        trees of ``mech.formulate(coordinates=...)``. ``None``: no tree styling
        (unless ``obj`` is a Topology).
    path : str or path-like, optional
        Write the diagram here: DOT text for ``.dot``/``.gv``, a picture for
        ``.svg``, ``.png`` or ``.pdf``, a standalone LaTeX document with a TikZ
        picture of the same layout for ``.tex`` or ``.tikz``.
    format : str, optional
        One of ``dot``, ``gv``, ``svg``, ``png``, ``pdf``, ``tikz``; taken from the
        suffix of ``path`` when not given. ``tikz`` writes LaTeX that ``pdflatex``
        compiles (packages ``tikz`` and ``preview``); :func:`vecnet.to_tikz` returns
        that text.
    labels : "names", "variables" or "both"
        Edge labels: the edge name, the through and across variables
        (``"i_R3, v_R3"``), or both (``"R3"`` over ``"i, v"``).
    datum : node or list of nodes, optional
        Reference node(s) to mark (a double-bordered box at the top, labelled
        "datum"). Default: the datum of the tree's topology (a Topology's own, or
        the one the ``tree`` gives), else the ground frame of a mechanism; none for
        a graph drawn without a tree.
    datum_position : "top" or "bottom"
        Where the datum goes; edges then run down (or up) the page.
    title : str, optional
        Caption under the picture; default the network or mechanism name.
    edge_ids : "names" or "index"
        The ``id`` of each edge's group in the SVG: ``edge-<name>``, or
        ``edge-<position>`` with the edge's position in ``graph.edges`` (for
        pages whose scripts address the edges: no name is involved). The two
        halves of a transducer port are ``edge-<id>-tail`` and ``edge-<id>``.

    Returns
    -------
    graphviz.Digraph
        Its ``.source`` is the DOT text; ``.pipe(format="svg")`` renders it.

    Raises
    ------
    OutputError
        Unknown object, label style, edge id rule, tree rule or format, or a file that
        cannot be written.
    GraphvizError
        A rendered format or TikZ was asked for and the ``dot`` program is missing
        or failed. DOT text always works.
    TreeError
        The branches given do not form a spanning tree.

    Examples
    --------
    >>> import vecnet as vn
    >>> g = vn.LinearGraph([("R", "a", "b"), ("C", "b", "g"), ("V", "g", "a")])
    >>> dot = vn.draw(g, tree=["R", "C"])        # V is the chord
    >>> [line.split("[")[0].strip() for line in dot.source.splitlines()
    ...  if "style=dashed" in line and "legend" not in line]
    ['g -> a']

    The same diagram for lecture notes, as LaTeX with a TikZ picture:

    >>> import tempfile, pathlib
    >>> tex = pathlib.Path(tempfile.mkdtemp()) / "g.tex"
    >>> _ = vn.draw(g, tree=["R", "C"], path=tex)
    >>> "vn chord" in tex.read_text()        # the chord V, dashed
    True
    """
    if labels not in _LABELS:
        raise OutputError(f"labels must be one of {', '.join(map(repr, _LABELS))}; got {labels!r}")
    if edge_ids not in _EDGE_IDS:
        raise OutputError(f"edge_ids must be one of {', '.join(map(repr, _EDGE_IDS))}; "
                          f"got {edge_ids!r}")
    if datum_position not in ("top", "bottom"):
        raise OutputError(f"datum_position must be 'top' or 'bottom'; got {datum_position!r}")
    fmt = _format(path, format)
    model = _model(obj)
    topology = _tree(model, tree)
    branches = topology.branches if topology is not None else None
    dot = _build(model, branches, labels, _datum(model, datum, topology), datum_position,
                 model.title if title is None else title, edge_ids == "index")
    if path is not None:
        _write(dot, os.fspath(path), fmt)
    return dot


def to_tikz(obj: Any, tree: Sequence[str] | str | Callable[[str], Any] | None = None,
            labels: str = "names", **options: Any) -> str:
    """The diagram of :func:`~vecnet.output.draw.draw` as a standalone LaTeX document with
    a TikZ picture (needs the Graphviz ``dot`` program for the layout).

    Parameters
    ----------
    obj, tree, labels, **options
        As for :func:`~vecnet.output.draw.draw` (``path`` and ``format`` excepted).

    Returns
    -------
    str
        ASCII LaTeX source; compile it with ``pdflatex``, or copy its ``tikzpicture``
        into a document that loads ``tikz``.

    Raises
    ------
    GraphvizError
        The ``dot`` program is missing or failed.
    OutputError
        As :func:`~vecnet.output.draw.draw` (a ``path`` or ``format`` given here too).

    Examples
    --------
    >>> import vecnet as vn
    >>> g = vn.LinearGraph([("R", "a", "b"), ("C", "b", "g"), ("V", "g", "a")])
    >>> tex = vn.to_tikz(g, tree=["R", "C"])
    >>> [line for line in tex.splitlines() if line.startswith("% edge")]
    ['% edge-R', '% edge-C', '% edge-V']
    """
    if "path" in options or "format" in options:
        raise OutputError("to_tikz returns the LaTeX text; write a file with "
                          "vn.draw(..., path='diagram.tex')")
    dot = draw(obj, tree=tree, labels=labels, **options)
    return tikz_document(dot, run_dot(dot, "json", "TikZ (dot's layout)"))


def to_dot(obj: Any, tree: Sequence[str] | str | Callable[[str], Any] | None = None,
           labels: str = "names", **options: Any) -> str:
    """The DOT text of :func:`draw` (no Graphviz program needed).

    >>> import vecnet as vn
    >>> text = vn.to_dot(vn.LinearGraph([("x", "p", "q")]))
    >>> text.startswith("digraph") and "p -> q" in text
    True
    """
    return draw(obj, tree=tree, labels=labels, **options).source


def svg(obj: Any, **options: Any) -> str:
    """The diagram of :func:`draw` rendered as SVG text (needs the ``dot`` program).

    >>> import vecnet as vn
    >>> svg(vn.LinearGraph([("x", "p", "q")])).lstrip().startswith("<?xml")
    True
    """
    return run_dot(draw(obj, **options), "svg").decode("utf-8")


def repr_svg(obj: Any, tree: Sequence[str] | None = None) -> str | None:
    """SVG for notebook display (with ``tree`` as in :func:`svg`): ``None`` (so the
    notebook shows the text form instead) when the graph is too large to be worth laying
    out or ``dot`` is not installed."""
    model = _model(obj)
    if model.graph.number_of_edges() > REPR_EDGE_LIMIT:
        return None
    try:
        return svg(obj, tree=tree)
    except GraphvizError:
        return None


# -- building the DOT graph ---------------------------------------------------------------
def _build(model: _Model, branches: tuple[str, ...] | None, labels: str,
           datum: tuple[Hashable, ...], datum_position: str, title: str,
           index_ids: bool = False) -> graphviz.Digraph:
    graph, network = model.graph, model.network

    def edge_id(name: str) -> str:
        return str(graph.edge_index(name)) if index_ids else name

    dot = graphviz.Digraph(name=_dot_name(title))
    dot.attr(rankdir="TB" if datum_position == "top" else "BT", newrank="true", pad="0.15")
    if graph.number_of_edges() > LARGE_GRAPH_EDGES:
        dot.attr(nslimit="2", nslimit1="2")
    if title:
        dot.attr(label=_label(title), labelloc="b", fontname="Helvetica", fontsize="14")
    dot.attr("node", fontname="Helvetica", fontsize="11", shape="circle", width="0.3",
             margin="0.02", style="filled", fillcolor="white")
    dot.attr("edge", fontname="Helvetica", fontsize="10", arrowsize="0.8")
    ids = _node_ids(graph)
    datum_set = set(datum)
    planar = model.mechanism is not None
    bodies = set(model.mechanism.bodies) if planar else set()

    # nodes: the datum as a box (ranked first), body frames shaded, points small
    for node in graph.nodes:
        attrs = {"id": _attr_text(f"node-{node}"), "label": _label(node)}
        if node in datum_set:
            # a double-bordered box that says what it is
            attrs.update(label=graphviz.nohtml(f"{_label(node)}\\n(datum)"), shape="box",
                         peripheries="2", style="filled", fillcolor=DATUM_FILL, penwidth="1.5")
        elif node in bodies:
            attrs.update(shape="ellipse", style="filled", fillcolor=BODY_FILL)
        elif planar:
            attrs.update(shape="ellipse", fontsize="9", height="0.25")
        dot.node(ids[node], **attrs)
    if datum_set:
        with dot.subgraph(name="datum") as sub:
            sub.attr(rank="source")
            for node in datum:
                sub.node(ids[node])

    branch_set = set(branches) if branches is not None else None
    taken = set(ids.values())  # DOT names in use, so that port dots get names of their own
    drawn: set[str] = set()
    used: list[dict[str, str]] = []  # the styles drawn, for the legend
    for name in graph.edges:
        if name in drawn:
            continue
        element = network.owner(name) if network is not None else None
        if element is not None and len(element.edges) > 1:
            _draw_multiport(dot, element, ids, taken, branch_set, labels, planar, edge_id)
            drawn.update(e.name for e in element.edges)
            used.append({"link": "transducer"})
            used.extend({"domain": e.domain.name} for e in element.edges)
            continue
        tail, head = graph.ends(name)
        attrs = _edge_style(name, edge_id(name), element, branch_set, labels, planar)
        dot.edge(ids[tail], ids[head], **attrs)
        drawn.add(name)
        if element is not None:
            used.append({"domain": element.edges[0].domain.name})
            if planar:
                style = joint_style(element)
                used.append({"joint": style.name} if style is not None
                             else {"family": _planar_family(element)})
    _legend(dot, _legend_entries(used, branch_set is not None, bool(datum_set)), taken)
    return dot


def _legend_entries(used: list[dict[str, str]], tree: bool, datum: bool
                    ) -> list[tuple[str, str, dict[str, str]]]:
    """(id, text, edge attributes; ``{}`` for the datum box) of each mark the drawing
    uses; the domain colours only when more than one domain is drawn."""
    entries = []
    if tree:
        entries += [("tree", "tree branch", dict(TREE_STYLE)),
                    ("chord", "chord", dict(CHORD_STYLE))]
    if datum:
        entries.append(("datum", "datum", {}))
    kinds = {kind: [u[kind] for u in used if kind in u]
             for kind in ("link", "family", "joint", "domain")}
    if kinds["link"]:
        entries.append(("transducer", "transducer link", dict(LINK_STYLE)))
    for family in _PLANAR_ARROWS:
        if family in kinds["family"]:
            entries.append((family, family, {"arrowhead": _PLANAR_ARROWS[family]}))
    for name, style in joint_styles().items():   # one entry per joint type drawn
        if name in kinds["joint"]:
            text = name if name in ("gear", "rack and pinion") else f"{name} joint"
            entries.append((f"joint-{name.replace(' ', '-')}", text,
                            {"arrowhead": style.arrowhead, "color": style.colour,
                             "fontcolor": style.colour}))
    domains = list(dict.fromkeys(kinds["domain"]))
    if len(domains) > 1:
        entries += [(d, d, {"color": DOMAIN_COLOURS.get(d, "black"),
                            "fontcolor": DOMAIN_COLOURS.get(d, "black")}) for d in domains]
    return entries


def _fresh(stem: str, taken: set[str]) -> str:
    """A DOT name that no node of the drawing has."""
    name = f"{stem}{len(taken)}"
    while name in taken:
        name = "_" + name
    taken.add(name)
    return name


def _legend(dot: graphviz.Digraph, entries: list[tuple[str, str, dict[str, str]]],
            taken: set[str]) -> None:
    """A framed legend: a short sample of each line, arrowhead or node mark with its meaning."""
    if not entries:
        return
    with dot.subgraph(name="cluster_legend") as legend:
        # a cluster would inherit the graph's label (the title) unless given its own
        legend.attr(label="legend", labelloc="t", fontsize="10", style="rounded",
                    color=LEGEND_FRAME, id="legend")
        for key, text, attrs in reversed(entries):  # dot lays a row out right to left
            if not attrs:  # the datum: a node like the datum node
                legend.node(_fresh("_legend", taken), label=text, shape="box", peripheries="2",
                            style="filled", fillcolor=DATUM_FILL, fontsize="9",
                            id=f"legend-{key}")
                continue
            a, b = _fresh("_legend", taken), _fresh("_legend", taken)
            for end in (a, b):
                legend.node(end, label="", shape="point", width="0.02", style="invis")
            legend.edge(a, b, label=f" {text}", fontsize="9", id=f"legend-{key}",
                        **{"arrowhead": "none", **attrs})


def _edge_style(name: str, edge_id: str, element: Element | None,
                branch_set: set[str] | None, labels: str, planar: bool) -> dict[str, str]:
    domain = next((e.domain for e in element.edges if e.name == name), None) if element else None
    colour = DOMAIN_COLOURS.get(domain.name, "black") if domain is not None else "black"
    attrs = {"id": _attr_text(f"edge-{edge_id}"), "label": _edge_label(name, domain, labels),
             "color": colour, "fontcolor": colour}
    if element is not None:
        attrs["tooltip"] = _label(f"{type(element).__name__} {element.name}")
    if branch_set is not None:
        if name in branch_set:
            attrs.update(TREE_STYLE)
        else:
            attrs.update(CHORD_STYLE)
    if planar and element is not None:
        style = joint_style(element)
        if style is None:
            attrs["arrowhead"] = _PLANAR_ARROWS[_planar_family(element)]
        else:
            attrs.update(arrowhead=style.arrowhead, color=style.colour, fontcolor=style.colour)
    return attrs


def _draw_multiport(dot: graphviz.Digraph, element: Element, ids: dict[Hashable, str],
                    taken: set[str], branch_set: set[str] | None, labels: str,
                    planar: bool, edge_id: Callable[[str], str]) -> None:
    """Each port edge runs tail -> dot -> head; a dotted line joins the dots."""
    dots = []
    for edge in element.edges:
        attrs = _edge_style(edge.name, edge_id(edge.name), element, branch_set, labels, planar)
        # a DOT name of its own: edge names may hold ':' (a port in DOT) or clash with nodes
        mid = _fresh("_port", taken)
        dots.append(mid)
        dot.node(mid, label="", shape="point", width="0.06", color=attrs["color"],
                 id=_attr_text(f"port-{edge_id(edge.name)}"))
        first = {k: v for k, v in attrs.items() if k not in ("label", "id")}
        dot.edge(ids[edge.tail], mid, arrowhead="none",
                 id=_attr_text(f"edge-{edge_id(edge.name)}-tail"),
                 **first)
        dot.edge(mid, ids[edge.head], **attrs)
    coupling = getattr(element, "coupling", "")
    text = graphviz.nohtml(f"{_label(element.name)}\\n({_label(coupling)})" if coupling
                           else _label(element.name))
    for a, b in zip(dots, dots[1:]):
        dot.edge(a, b, dir="none", **LINK_STYLE, fontcolor=LINK_COLOUR, xlabel=text,
                 constraint="false",
                 id=_attr_text(f"link-{element.name}") if len(dots) == 2 else f"link-{a}-{b}")


def _dot_name(title: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in title) or "G"


# -- writing ----------------------------------------------------------------------------
def _format(path: str | os.PathLike | None, format: str | None) -> str | None:
    if format is None:
        if path is None:
            return None
        suffix = os.path.splitext(os.fspath(path))[1].lstrip(".").lower()
        if not suffix:
            raise OutputError(f"cannot tell the format of {os.fspath(path)!r}: give format= "
                              f"({', '.join(TEXT_FORMATS + RENDERED_FORMATS + TIKZ_FORMATS)}) "
                              "or a suffix")
        format = suffix
    format = format.lower()
    if format == "tex":
        format = "tikz"     # a .tex path: the only LaTeX written is the TikZ picture
    if format not in TEXT_FORMATS + RENDERED_FORMATS + TIKZ_FORMATS:
        raise OutputError(f"unknown diagram format {format!r}; use one of "
                          f"{', '.join(TEXT_FORMATS + RENDERED_FORMATS + TIKZ_FORMATS)}")
    return format


def run_dot(dot: graphviz.Digraph, fmt: str, what: str | None = None) -> bytes:
    """Render ``dot`` with the ``dot`` program, stopped after :data:`DOT_TIMEOUT` seconds;
    ``what`` names the output in messages (default: the format).

    (``graphviz.Digraph.pipe`` has no time limit, and a ``dot`` left running outlives a
    Python process that is stopped while waiting for it.)
    """
    what = what or fmt.upper()
    source = dot.source.encode("utf-8", "backslashreplace")  # names are already plain
    try:
        run = subprocess.run([dot.engine, f"-T{fmt}"], input=source, capture_output=True,
                             timeout=DOT_TIMEOUT, check=False)
    except FileNotFoundError:
        raise GraphvizError(f"rendering {what} needs the Graphviz 'dot' program, which "
                            "is not on the PATH: install Graphviz (e.g. apt install graphviz), "
                            "or write DOT text with to_dot() or a .dot path") from None
    except subprocess.TimeoutExpired:  # subprocess.run has killed dot
        raise GraphvizTimeoutError(
            f"Graphviz 'dot' took more than {DOT_TIMEOUT:g} s to lay out {what} for "
            f"{dot.source.count(' -> ')} edges and was stopped; write DOT text with to_dot() "
            "or a .dot path instead") from None
    if run.returncode != 0:
        detail = run.stderr.decode(errors="replace").strip() or f"exit status {run.returncode}"
        raise GraphvizError(f"Graphviz 'dot' failed to render {what}: {detail}")
    return run.stdout


def _write(dot: graphviz.Digraph, path: str, fmt: str) -> None:
    check_output(path)   # before dot runs
    if fmt in TIKZ_FORMATS:
        data = tikz_document(dot, run_dot(dot, "json", "TikZ (dot's layout)")).encode("ascii")
    else:
        data = dot.source.encode("utf-8") if fmt in TEXT_FORMATS else run_dot(dot, fmt)
    try:
        write_atomically(path, data)
    except OSError as exc:
        raise OutputError(f"cannot write the diagram to {path!r}: {exc.strerror or exc}") from None
