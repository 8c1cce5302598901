"""What the studio page shows of a model document and a choice of tree: every matrix, the
equations and the diagnosis, computed here by vecnet (the page only draws and sends edits).

:func:`studio_view` reads a document of vecnet's model format (a network, or a planar or
spatial mechanism) as :func:`vecnet.load_model` reads a file (checked against the schema
and the bounds of :func:`vecnet.limits`, no text evaluated), takes the tree the page
chose (branch names, or ``"normal"``), and returns plain JSON data: the graph's nodes and
edges with the tree marked, the labelled matrices as numbers, and the steps from the graph
to the state equations (or the equations of motion) as LaTeX, in the order a course
takes them. :func:`steps_latex` writes those steps as a LaTeX document.

>>> view = studio_view({"vecnet": "1", "kind": "network", "name": "rc", "elements": [
...     {"type": "VoltageSource", "name": "V", "nodes": ["g", "a"], "parameters": {"V": 1}},
...     {"type": "Resistor", "name": "R", "nodes": ["a", "b"], "parameters": {"R": 2}},
...     {"type": "Capacitor", "name": "C", "nodes": ["g", "b"], "parameters": {"C": 3}}]})
>>> view["branches"], view["chords"], view["states"]
(['V', 'C'], ['R'], ['C.across'])
>>> view["matrices"]["cutset"]["rows"], view["matrices"]["cutset"]["values"]
(['V', 'C'], [[1, 0, -1], [0, 1, 1]])
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np

from ..errors import ModelError, TreeError, VecnetError, VecnetWarning
from ..formulation.lumped import StateSpace
from ..graph.matrix import LabeledMatrix
from ..io.model import load_model
from ..output.mechanism_report import MechanismListing
from ..output.report import shown_state_space
from ..output.teaching import SUMMARY_STATES, latex, transfer_functions

__all__ = ["studio_view", "steps_latex", "element_catalogue", "layout"]

#: The matrices the page shows, in the order it lists them: key -> (title, topology attribute)
MATRICES = {
    "incidence": ("Incidence matrix [IN]", "incidence"),
    "reduced": ("Reduced incidence matrix", "reduced_incidence"),
    "chord_part": ("[A]: the chord part of the cutset matrix", "chord_part"),
    "cutset": ("Fundamental cutset matrix [CU] = [1 | A]", "cutset"),
    "circuit": ("Fundamental circuit matrix [CI] = [B | 1]", "circuit"),
    "path": ("Path matrix P (node to datum)", "path"),
}


def element_catalogue() -> list[dict[str, Any]]:
    """Every element type a network document takes, with its parameters (and their
    defaults), the entry's other keys it needs (``fields``, with example values), its
    number of nodes (2 a port) and their order, for the page's menu.

    >>> [e for e in element_catalogue() if e["type"] == "Resistor"][0]["parameters"]
    ['R']
    """
    from ..elements.lumped import NonlinearDissipator
    from ..io.network_reader import ELEMENT_TYPES

    out = []
    for name, cls in ELEMENT_TYPES.items():
        two = len(cls.ports) == 1
        # entry keys of its own: a nonlinear dissipator's law, tau = g(a) in its across a
        fields = {"through": "a**3", "domain": "electrical"} if cls is NonlinearDissipator \
            else {}
        out.append({"type": name, "parameters": [] if fields else list(cls.parameter_names),
                    "fields": fields,
                    "defaults": {k: v for k, v in cls.defaults.items()
                                 if isinstance(v, (int, float)) and not isinstance(v, bool)},
                    "nodes": 2 * len(cls.ports),
                    "ends": "tail, head" if two else "port 1's tail and head, then port 2's"})
    # entries of their own in a file: the ideal op-amp (no gain), four nodes in this order;
    # two coupled windings, their inductance matrix given as [[L1, M], [M, L2]]
    out.append({"type": "OpAmp", "parameters": [], "fields": {}, "defaults": {}, "nodes": 4,
                "ends": "in_minus, in_plus, out, ground"})
    out.append({"type": "CoupledInductors", "parameters": ["L"], "fields": {},
                "defaults": {"L": [[1.0, 0.5], [0.5, 1.0]]}, "nodes": 4,
                "ends": "winding 1's tail and head, then winding 2's"})
    return out


def _matrix(m: LabeledMatrix) -> dict[str, Any]:
    """A labelled matrix as JSON: row and column names, integer (or float) entries, and the
    column before which ``[1 | A]``'s bar falls."""
    values = np.asarray(m.toarray())
    rows = [[int(x) if float(x).is_integer() else float(x) for x in line] for line in values]
    return {"rows": [str(r) for r in m.rows], "columns": [str(c) for c in m.columns],
            "values": rows, "split": m.split}


def _graph(graph, owners: dict[str, Any]) -> tuple[list[str], list[dict[str, Any]]]:
    """The nodes, and the edges with their ends, their element's type and its name (a
    two-port's two edges, ``K.1`` and ``K.2``, are both ``K``'s)."""
    nodes = [str(n) for n in graph.nodes]
    edges = [{"name": str(e), "tail": str(graph.ends(e)[0]), "head": str(graph.ends(e)[1]),
              "type": type(owners[str(e)]).__name__, "element": owners[str(e)].name}
             for e in graph.edges]
    return nodes, edges


def studio_view(document: dict[str, Any], tree: Sequence[str] | str | None = None,
                outputs: Sequence[str] | None = None) -> dict[str, Any]:
    """The studio's view of ``document`` with the tree ``tree``.

    Parameters
    ----------
    document : dict
        A model document (vecnet's JSON model format, as parsed).
    tree : list of str, "normal" or None
        Networks: branch names, ``"normal"`` (default: the document's tree, else normal);
        mechanisms: branch names, or ``None`` for the document's coordinates.
    outputs : list of str, optional
        Network variables for ``H(s)`` (default: the document's outputs).

    Returns
    -------
    dict
        ``kind``, ``name``, ``nodes``, ``edges`` (name, tail, head, type, element),
        ``branches``,
        ``chords``, ``datum``, ``matrices`` (key -> rows, columns, values, split), ``titles``
        (key -> title), ``diagnosis`` (words), ``states`` (networks) or ``coordinates``
        and ``constraints`` (mechanisms; in the plane also ``world``, every node's initial
        position, and ``angles``, the bodies'), ``steps`` (title, LaTeX), ``warnings`` (what
        vecnet noticed: a dangling node, a loose part) and ``error`` (why the tree was
        refused; ``None`` when it was taken).

    Raises
    ------
    ModelFileError
        The document is no valid model (its location said).
    ModelError
        A model of a kind the studio does not show (a system).
    """
    with warnings.catch_warnings(record=True) as said:   # a dangling node, a loose part
        warnings.simplefilter("always", VecnetWarning)
        model = load_model(document)
        if model.kind in ("network", "mechanism"):
            view = (_network_view(model, tree, outputs) if model.kind == "network"
                    else _mechanism_view(model, tree))
            view["warnings"] = list(dict.fromkeys(str(w.message) for w in said
                                                  if issubclass(w.category, VecnetWarning)))
            return view
    raise ModelError(f"the studio shows networks and mechanisms; {model.name!r} is a "
                     f"{model.kind}: open its network or its mechanism on its own")


def _base(model, graph, owners: dict[str, Any]) -> dict[str, Any]:
    nodes, edges = _graph(graph, owners)
    return {"kind": model.kind, "name": model.name, "nodes": nodes, "edges": edges,
            "branches": [], "chords": [], "datum": [], "matrices": {},
            "titles": {k: title for k, (title, _) in MATRICES.items()}, "diagnosis": "",
            "steps": [], "error": None}


def _topology_part(view: dict[str, Any], topo) -> None:
    view["branches"], view["chords"] = list(topo.branches), list(topo.chords)
    view["datum"] = [str(d) for d in topo.datum]
    view["matrices"] = {key: _matrix(getattr(topo, attribute))
                        for key, (_, attribute) in MATRICES.items()}
    view["steps"] += [{"title": MATRICES[key][0], "latex": latex(getattr(topo, attribute))}
                      for key, (_, attribute) in MATRICES.items()]


def _network_view(model, tree, outputs) -> dict[str, Any]:
    net = model.network
    view = _base(model, net.graph, _owners(net))
    try:
        topo = net.topology(tree=tree or model.tree or "normal")
    except TreeError as exc:   # said, and the normal tree shown meanwhile
        view["error"] = str(exc)
        topo = net.topology(tree="normal")
    _topology_part(view, topo)
    view["steps"].insert(0, {"title": "Tree and cotree", "latex": _tree_latex(topo)})
    eqs = net.equations(tree=list(topo.branches))
    view["steps"].append({"title": "Cutset, circuit and terminal equations",
                          "latex": latex(eqs)})
    wanted = list(outputs or model.outputs)
    try:
        if eqs.order > SUMMARY_STATES:   # a summary from the sparse model, as reports show it
            ss = shown_state_space(net, list(topo.branches), eqs.order, wanted,
                                   model.element_values or None)
        else:   # the values as the page gave them: numbers where numbers, symbols where names
            ss = net.state_space(outputs=wanted, tree=list(topo.branches))
    except VecnetError as exc:   # a higher-index tree, a dependent store ...
        view["diagnosis"] = f"No state equations for this tree: {exc}"
        view["states"] = []
        return view
    view["diagnosis"] = ss.diagnosis() if isinstance(ss, StateSpace) else eqs.diagnosis()
    view["states"] = list(ss.states)
    view["steps"].append({"title": "State equations", "latex": latex(ss)})
    if isinstance(ss, StateSpace) and ss.outputs and ss.inputs and ss.is_linear and not ss.z:
        view["steps"].append({"title": "Transfer functions H(s)",
                              "latex": transfer_functions(ss, "latex", values=model.values)})
    return view


def _owners(net) -> dict[str, Any]:
    """Edge name -> the element it belongs to."""
    return {str(edge): net.owner(edge) for edge in net.graph.edges}


def _tree_latex(topo) -> str:
    from ..output.teaching import name_tex

    def names(items) -> str:
        return r",\ ".join(name_tex(str(x)) for x in items) or r"\varnothing"

    return (r"\begin{aligned}\text{branches: }&" + names(topo.branches) + r"\\"
            r"\text{chords: }&" + names(topo.chords) + r"\\"
            r"\text{datum: }&" + names(topo.datum) + r"\end{aligned}")


def _mechanism_view(model, tree) -> dict[str, Any]:
    mech = model.mechanism
    net = mech.network
    view = _base(model, net.graph, _owners(net))
    try:
        eom = mech.formulate(**model.formulation(model.coordinates, list(tree) if tree
                                                 and tree != "normal" else None))
    except VecnetError as exc:
        view["error"] = str(exc)
        eom = model.formulate()
    topo = eom.topology
    _topology_part(view, topo)
    view["steps"].insert(0, {"title": "Tree and cotree", "latex": _tree_latex(topo)})
    if mech.dimensions == 2:   # where the nodes are, for a drawing to scale and clicks
        from ..output.picture import node_positions

        view["world"] = {str(n): [float(c) for c in xy]
                         for n, xy in node_positions(mech).items()}
        view["angles"] = {str(name): float(body.angle) for name, body in mech.bodies.items()}
    view["coordinates"] = list(eom.coordinates)
    view["constraints"] = list(eom.constraint_names)
    view["diagnosis"] = (f"{len(eom.coordinates)} coordinates from the tree's branches "
                         f"({', '.join(eom.coordinates) or 'none'}); {len(eom.constraint_names)}"
                         f" constraint rows from the cut joints among the chords "
                         f"({', '.join(eom.constraint_names) or 'none'}).")
    shown = MechanismListing(eom, mech.dimensions == 2, model.values, None)
    view["steps"] += [
        {"title": "Cutset equations: the reactions, force and moment balances of each branch",
         "latex": _aligned([row for b in topo.branches for row in shown.cutset_rows(b)])},
        {"title": "Circuit equations: each chord's loop through the tree",
         "latex": _aligned([row for c in topo.chords for row in shown.circuit_rows(c)])},
        {"title": "Equations of motion", "latex": latex(eom)}]
    return view


def _aligned(rows: list[str]) -> str:
    return "\\begin{aligned}\n" + " \\\\\n".join(rows) + "\n\\end{aligned}" if rows else ""


#: The drawing area a layout fills (the page's canvas, in its pixels) and its margin.
CANVAS = (600.0, 520.0)
MARGIN = 40.0
#: how much more a layout may be stretched one way than the other to fill the canvas
ASPECT = 3.0


def layout(view: dict[str, Any]) -> dict[str, list[float]]:
    """Places for the view's nodes (canvas pixels, y down), laid out by Graphviz ``dot``
    with the datum on top, for a model opened without places; ``{}`` when ``dot`` is not
    installed (the page then places them on a circle).

    >>> view = {"nodes": ["g", "a"], "datum": ["g"],
    ...         "edges": [{"name": "R", "tail": "a", "head": "g"}]}
    >>> places = layout(view)
    >>> places == {} or places["g"][1] < places["a"][1]      # the datum above
    True
    """
    import graphviz

    index = {node: k for k, node in enumerate(view["nodes"])}
    graph = graphviz.Digraph(graph_attr={"rankdir": "TB"}, node_attr={"shape": "circle"})
    with graph.subgraph() as top:   # the datum on the first rank
        top.attr(rank="source")
        for node in view["datum"]:
            top.node(f"n{index[node]}", label="")
    for node, k in index.items():
        graph.node(f"n{k}", label="")
    for edge in view["edges"]:
        graph.edge(f"n{index[edge['tail']]}", f"n{index[edge['head']]}")
    try:
        plain = graph.pipe(format="plain", engine="dot").decode("ascii")
    except (graphviz.ExecutableNotFound, graphviz.CalledProcessError):
        return {}
    found = {int(parts[1][1:]): (float(parts[2]), float(parts[3]))
             for parts in (line.split() for line in plain.splitlines()) if parts[0] == "node"}
    if not found:
        return {}
    xs, ys = zip(*found.values())
    width, height = max(max(xs) - min(xs), 1e-9), max(max(ys) - min(ys), 1e-9)
    # the canvas filled both ways, stretched by at most ASPECT (a tall tree spreads out)
    sx, sy = (CANVAS[0] - 2 * MARGIN) / width, (CANVAS[1] - 2 * MARGIN) / height
    sx, sy = min(sx, ASPECT * sy), min(sy, ASPECT * sx)
    nodes = view["nodes"]
    return {nodes[k]: [MARGIN + (x - min(xs)) * sx, MARGIN + (max(ys) - y) * sy]
            for k, (x, y) in found.items()}


def steps_latex(view: dict[str, Any]) -> str:
    """The view's steps as a LaTeX document (article, ``amsmath``): a section a step, each
    display breaking across pages.

    >>> doc = steps_latex({"name": "rc", "steps": [{"title": "Tree", "latex": "x = 1"}]})
    >>> "\\\\section*{Tree}" in doc and doc.rstrip().endswith("\\\\end{document}")
    True
    """
    from ..output.teaching import display_math, text_tex

    body = "\n".join(f"\\section*{{{text_tex(step['title'])}}}\n{display_math(step['latex'])}"
                     for step in view["steps"])
    return ("\\documentclass{article}\n\\usepackage{amsmath,amssymb}\n\\allowdisplaybreaks\n"
            f"\\title{{{text_tex(view['name'])}: from the graph to the equations}}\n"
            "\\date{}\n\\begin{document}\n\\maketitle\n" + body + "\n\\end{document}\n")
