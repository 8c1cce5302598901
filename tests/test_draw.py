"""Diagrams (vecnet.output.draw) and teaching output (vecnet.output.teaching).

The pictures are checked by parsing the SVG that Graphviz writes: every edge
is a ``<g class="edge">`` holding a ``<title>`` ("tail->head"), the path (with
``stroke-dasharray`` when dashed or dotted) and the label in ``<text>``
elements. Matrix and equation listings are checked against the values of
REFERENCE case E1 (McPhee's electrical network).
"""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import sympy

import vecnet as vn
from vecnet.elements.planar import Arm
from vecnet.output.draw import DOMAIN_COLOURS, GraphvizError, OutputError, svg

SVG = "{http://www.w3.org/2000/svg}"
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' not installed")

# REFERENCE case E1: edges tail -> head, the tree, and [CU] for that tree
E1_EDGES = {"L1": ("a", "b"), "L2": ("e", "d"), "R3": ("c", "b"), "R4": ("e", "b"),
            "R5": ("f", "e"), "C6": ("c", "d"), "V7": ("f", "a")}
E1_TREE = ["L1", "L2", "R3", "R4", "R5"]
E1_CUTSET = {  # row: entries in the columns L1 L2 R3 R4 R5 | C6 V7
    "L1": [1, 0, 0, 0, 0, 0, -1],
    "L2": [0, 1, 0, 0, 0, 1, 0],
    "R3": [0, 0, 1, 0, 0, 1, 0],
    "R4": [0, 0, 0, 1, 0, -1, 1],
    "R5": [0, 0, 0, 0, 1, 0, 1],
}
E1_COLUMNS = ["L1", "L2", "R3", "R4", "R5", "C6", "V7"]


def e1() -> vn.Network:
    net = vn.Network("E1")
    net.add(vn.Inductor("L1", "a", "b", L=2.0), vn.Inductor("L2", "e", "d", L=1.0),
            vn.Resistor("R3", "c", "b", R=1.0), vn.Resistor("R4", "e", "b", R=2.0),
            vn.Resistor("R5", "f", "e", R=3.0), vn.Capacitor("C6", "c", "d", C=0.5),
            vn.VoltageSource("V7", "f", "a", V=1.0))
    return net


def four_bar() -> vn.planar.Mechanism:
    """Ground pins at (0, 0) and (2, 0); crank, coupler and rocker as slender links."""
    mech = vn.planar.Mechanism("four-bar", gravity=(0, -9.81))
    pins = [np.array(p) for p in ((0.0, 0.0), (0.5, 0.866), (2.3, 1.4), (2.0, 0.0))]
    ends = []
    for name, mass, P, R in zip(("crank", "coupler", "rocker"), (1.0, 2.0, 1.5), pins, pins[1:]):
        d = R - P
        length = float(np.hypot(*d))
        body = mech.body(name, mass=mass, inertia=mass * length**2 / 12, position=(P + R) / 2,
                         angle=float(np.arctan2(d[1], d[0])))
        ends.append((body.point(-length / 2, 0), body.point(length / 2, 0)))
    (c0, c1), (k0, k1), (r0, r1) = ends
    mech.revolute("P1", mech.ground.point(0, 0), c0)
    mech.revolute("P2", c1, k0)
    mech.revolute("P3", k1, r0)
    mech.revolute("P4", r1, mech.ground.point(2, 0))
    mech.torque("T", mech.bodies["crank"], 0.5)
    return mech


def motor_network() -> vn.Network:
    net = vn.Network("motor")
    net.add(vn.VoltageSource("Vs", "g", "a", V=24.0), vn.Resistor("R", "a", "c", R=0.5),
            vn.DCMotor("motor", "ref", "w", "g", "c", K=0.05),
            vn.Inertia("J", "ref", "w", J=0.01), vn.RotaryDamper("b", "w", "ref", b=1e-3))
    return net


# -- reading SVG ------------------------------------------------------------------------------
def svg_edges(svg_text: str) -> dict[str, dict]:
    """Edge groups of a Graphviz SVG by their id: title, label lines, style facts."""
    root = ET.fromstring(svg_text)
    edges = {}
    for g in root.iter(f"{SVG}g"):
        if g.get("class") != "edge":
            continue
        path = g.find(f".//{SVG}path")
        edges[g.get("id")] = {
            "title": g.find(f"{SVG}title").text,
            "labels": [t.text for t in g.iter(f"{SVG}text")],
            "dasharray": path.get("stroke-dasharray"),
            "width": float(path.get("stroke-width", "1")),
            "stroke": path.get("stroke"),
            "ellipses": len(list(g.iter(f"{SVG}ellipse"))),
            "ellipse_fill": [e.get("fill") for e in g.iter(f"{SVG}ellipse")],
            "polygon_fill": [p.get("fill") for p in g.iter(f"{SVG}polygon")],
        }
    return edges


def svg_nodes(svg_text: str) -> dict[str, dict]:
    root = ET.fromstring(svg_text)
    nodes = {}
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == "node":
            text = g.find(f".//{SVG}text")
            nodes[g.find(f"{SVG}title").text] = {
                "y": float(text.get("y")) if text is not None else None,
                "box": g.find(f"{SVG}polygon") is not None,
            }
    return nodes


def solid_and_bold(edge: dict) -> bool:
    return edge["dasharray"] is None and edge["width"] == 2


def dashed(edge: dict) -> bool:
    return edge["dasharray"] is not None and edge["width"] == 1


# -- E1 ------------------------------------------------------------------------------------
@needs_dot
def test_e1_svg_has_every_edge_with_its_label_and_tree_style(tmp_path):
    path = tmp_path / "e1.svg"
    dot = vn.draw(e1(), tree=E1_TREE, path=path, labels="both")
    assert path.read_text().lstrip().startswith("<?xml")
    edges = svg_edges(path.read_text())
    assert len([k for k in edges if not k.startswith("legend-")]) == 7   # the legend aside
    assert dot.source == vn.to_dot(e1(), tree=E1_TREE, labels="both")
    for name, (tail, head) in E1_EDGES.items():
        edge = edges[f"edge-{name}"]
        assert edge["title"] == f"{tail}->{head}"                   # direction tail -> head
        assert edge["labels"] == [name, "i, v"]                     # electrical: current, voltage
        assert edge["stroke"] == DOMAIN_COLOURS["electrical"]
        if name in E1_TREE:
            assert solid_and_bold(edge), name
        else:
            assert dashed(edge), name


@needs_dot
def test_label_styles_and_no_tree_styling():
    names = svg_edges(vn.draw(e1()).pipe(format="svg").decode())
    assert names["edge-R3"]["labels"] == ["R3"]
    assert all(e["dasharray"] is None and e["width"] == 1 for e in names.values())
    variables = svg_edges(vn.draw(e1(), labels="variables").pipe(format="svg").decode())
    assert variables["edge-R3"]["labels"] == ["i_R3, v_R3"]
    normal = svg_edges(vn.draw(e1(), tree="normal").pipe(format="svg").decode())
    branches = set(e1().topology(tree="normal").branches)
    for name in E1_EDGES:
        assert solid_and_bold(normal[f"edge-{name}"]) == (name in branches)


@needs_dot
def test_topology_brings_its_tree_and_datum():
    topo = e1().topology(tree=E1_TREE, datum="f")
    picture = svg(topo)
    edges, nodes = svg_edges(picture), svg_nodes(picture)
    assert dashed(edges["edge-C6"]) and solid_and_bold(edges["edge-R5"])
    assert nodes["f"]["box"] and not nodes["a"]["box"]                 # the datum is a box
    assert nodes["f"]["y"] < min(n["y"] for k, n in nodes.items() if k != "f")   # on top
    bare = vn.LinearGraph((name, *ends) for name, ends in E1_EDGES.items())
    plain = svg_edges(vn.draw(bare, tree=E1_TREE).pipe(format="svg").decode())
    assert plain["edge-L1"]["stroke"] == "black" and plain["edge-L1"]["labels"] == ["L1"]


# -- the four-bar vector network ---------------------------------------------------------------
@needs_dot
def test_four_bar_with_joint_tree(tmp_path):
    mech = four_bar()
    path = tmp_path / "fourbar.svg"
    vn.draw(mech, tree="joint", path=path)
    picture = path.read_text()
    edges, nodes = svg_edges(picture), svg_nodes(picture)
    drawn = [k for k in edges if not k.startswith("legend-")]   # the legend aside
    assert len(drawn) == mech.network.graph.number_of_edges() == 15
    for body in ("crank", "coupler", "rocker"):                  # mass elements: chords
        assert dashed(edges[f"edge-{body}"]), body
        assert edges[f"edge-{body}"]["title"] == f"ground->{body}"
        assert edges[f"edge-{body}"]["polygon_fill"] == [DOMAIN_COLOURS["planar"]]  # filled head
    for joint in ("P1", "P2", "P3"):                             # joints: branches
        assert solid_and_bold(edges[f"edge-{joint}"]), joint
    assert dashed(edges["edge-P4"])                               # the cut joint closes the loop
    assert dashed(edges["edge-T"]) and edges["edge-T"]["polygon_fill"] == ["none"]
    for name in ("P1", "P2", "P3", "P4"):                         # joints end in a circle
        assert edges[f"edge-{name}"]["ellipses"] == 1 and edges[f"edge-{name}"]["labels"] == [name]
    arms = [e for e in mech.network.graph.edges if isinstance(mech.network.owner(e), Arm)]
    assert arms and all(solid_and_bold(edges[f"edge-{a}"]) and edges[f"edge-{a}"]["ellipses"] == 0
                        for a in arms)
    # the datum, the ground frame, is a box at the top
    assert nodes["ground"]["box"]
    assert nodes["ground"]["y"] < min(n["y"] for k, n in nodes.items() if k != "ground")


@needs_dot
def test_four_bar_with_absolute_tree_puts_the_masses_in_the_tree():
    mech = four_bar()
    edges = svg_edges(vn.draw(mech, tree="absolute").pipe(format="svg").decode())
    branches = set(mech.formulate(coordinates="absolute").topology.branches)
    assert {"crank", "coupler", "rocker"} <= branches
    for name in mech.network.graph.edges:
        assert solid_and_bold(edges[f"edge-{name}"]) == (name in branches), name


# -- transducers ------------------------------------------------------------------------------
@needs_dot
def test_transducer_ports_are_linked():
    net = motor_network()
    edges = svg_edges(vn.draw(net, tree="normal", labels="both").pipe(format="svg").decode())
    link = edges["link-motor"]
    assert link["dasharray"] is not None and link["labels"] == ["motor", "(transformer)"]
    assert edges["edge-motor.m"]["labels"] == ["motor.m", "T, w"]
    assert edges["edge-motor.m"]["stroke"] == DOMAIN_COLOURS["rotational"]
    assert edges["edge-motor.e"]["labels"] == ["motor.e", "i, v"]
    assert edges["edge-motor.e"]["stroke"] == DOMAIN_COLOURS["electrical"]
    # each port edge still runs from its tail to its head, through one end of the link
    dots = set(link["title"].split("->"))
    for port, tail, head in (("motor.m", "ref", "w"), ("motor.e", "g", "c")):
        first, second = edges[f"edge-{port}-tail"]["title"], edges[f"edge-{port}"]["title"]
        middle = second.split("->")[0]
        assert first == f"{tail}->{middle}" and second == f"{middle}->{head}" and middle in dots
        dots.discard(middle)
    assert not dots


# -- files and formats ---------------------------------------------------------------------
@needs_dot
def test_format_from_suffix(tmp_path):
    net = e1()
    vn.draw(net, path=tmp_path / "e1.png")
    assert (tmp_path / "e1.png").read_bytes().startswith(b"\x89PNG")
    vn.draw(net, path=tmp_path / "e1.pdf")
    assert (tmp_path / "e1.pdf").read_bytes().startswith(b"%PDF")
    vn.draw(net, path=tmp_path / "picture", format="svg")
    assert b"<svg" in (tmp_path / "picture").read_bytes()


def test_dot_text_without_the_dot_program(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))             # no Graphviz programs here
    assert shutil.which("dot") is None
    g = vn.LinearGraph((name, *ends) for name, ends in E1_EDGES.items())
    text = vn.to_dot(g, tree=E1_TREE)
    assert text.startswith("digraph")
    for name, (tail, head) in E1_EDGES.items():
        line = next(x for x in text.splitlines() if f'id="edge-{name}"' in x)
        assert line.strip().startswith(f"{tail} -> {head}")
        assert ("style=dashed" in line) == (name not in E1_TREE)
    vn.draw(g, tree=E1_TREE, path=tmp_path / "e1.dot")
    assert (tmp_path / "e1.dot").read_text() == text
    with pytest.raises(GraphvizError, match="needs the Graphviz 'dot' program") as info:
        vn.draw(g, path=tmp_path / "e1.svg")
    assert isinstance(info.value, vn.VecnetError)
    assert not (tmp_path / "e1.svg").exists()
    assert g._repr_svg_() is None                         # notebooks fall back to the text form


def test_bad_requests_raise_vecnet_errors(tmp_path):
    net = e1()
    g = vn.LinearGraph([("x", "p", "q"), ("y", "q", "r"), ("z", "r", "p")])
    for call, message in [
        (lambda: vn.draw(42), "cannot draw a int"),
        (lambda: vn.draw(net, labels="symbols"), "labels must be one of"),
        (lambda: vn.draw(net, path=tmp_path / "e1.jpg"), "unknown diagram format 'jpg'"),
        (lambda: vn.draw(net, path=tmp_path / "e1"), "cannot tell the format"),
        (lambda: vn.draw(net, tree="joint"), "coordinates of a mechanism"),
        (lambda: vn.draw(net, tree="spanning"), "unknown tree rule"),
        (lambda: vn.draw(g, tree="normal"), "needs the element kinds"),
        (lambda: vn.draw(net, path=tmp_path / "missing" / "e1.dot"), "does not exist"),
        (lambda: vn.latex(object()), "cannot show a object"),
        (lambda: vn.text(net.topology().cutset, digits=0), "digits must be"),
        (lambda: vn.latex(net.topology().cutset, bracket=True), "unknown option"),
    ]:
        with pytest.raises(OutputError, match=message):
            call()
    with pytest.raises(vn.TreeError):
        vn.draw(g, tree=["x", "y", "z"])                  # a circuit, not a tree
    with pytest.raises(vn.UnknownNameError):
        vn.draw(net, datum="zz")


# -- teaching output --------------------------------------------------------------------------
def latex_rows(tex: str) -> tuple[str, list[str], dict[str, list[int]]]:
    """Column spec, column labels and rows of a labelled LaTeX array."""
    spec = re.search(r"\\begin\{array\}\{([^}]*)\}", tex).group(1)
    body = tex.split("\n", 1)[1].rsplit("\\end{array}", 1)[0]
    head, *lines = [x.strip() for x in body.replace(r"\hline", "").split("\\\\") if x.strip()]
    label = re.compile(r"\\mathrm\{(.*)\}")
    columns = [label.fullmatch(c.strip()).group(1) for c in head.split("&")[1:]]
    rows = {}
    for line in lines:
        first, *cells = [c.strip() for c in line.split("&")]
        rows[label.fullmatch(first).group(1)] = [int(c) for c in cells]
    return spec, columns, rows


def test_latex_and_text_of_the_e1_cutset_matrix():
    cutset = e1().topology(tree=E1_TREE).cutset
    spec, columns, rows = latex_rows(vn.latex(cutset))
    assert spec == "r|rrrrr|rr"                           # labels | [1 | A_c]
    assert columns == E1_COLUMNS and rows == E1_CUTSET
    lines = vn.text(cutset).splitlines()
    assert lines[0].split() == E1_COLUMNS[:5] + ["|"] + E1_COLUMNS[5:]
    for line in lines[1:]:
        name, *cells = line.split()
        assert cells[5] == "|"
        assert [int(c) for c in cells[:5] + cells[6:]] == E1_CUTSET[name]
    bare = vn.latex(cutset, labels=False)
    assert bare.startswith(r"\left[\begin{array}{rrrrr|rr}") and bare.endswith(r"\right]")
    assert "mathrm" not in bare
    assert cutset._repr_latex_() == "$$" + vn.latex(cutset) + "$$"


def test_equation_listings_of_e1():
    net = e1()
    eqs = net.equations(tree=E1_TREE)
    listing = vn.text(eqs)
    for line in ["i_L1 = i_V7", "i_L2 = -i_C6", "i_R3 = -i_C6", "i_R4 = i_C6 - i_V7",
                 "i_R5 = -i_V7", "v_C6 = v_L2 + v_R3 - v_R4", "v_V7 = -v_L1 + v_R4 + v_R5",
                 "v_L1 = L1*i_L1'", "i_C6 = C6*v_C6'", "v_V7 = V7"]:
        assert line in listing
    equals = {line.index(" = ") for line in listing.splitlines() if line.startswith("  ")}
    assert len(equals) == 1                                  # aligned at the '=' sign
    assert listing.index("Cutset") < listing.index("Circuit") < listing.index("Terminal")
    tex = vn.latex(eqs)
    # element names (several characters) upright, the capacitance C6 a symbol with index 6
    assert r"i_{\mathrm{R4}} &= i_{\mathrm{C6}} - i_{\mathrm{V7}}" in tex
    assert r"i_{\mathrm{C6}} &= C_{6} \dot{v}_{\mathrm{C6}}" in tex
    assert eqs._repr_latex_() == f"$${tex}$$"
    # a plain list of equations
    assert vn.text(eqs.circuit).splitlines() == ["v_C6 = v_L2 + v_R3 - v_R4",
                                                 "v_V7 = -v_L1 + v_R4 + v_R5"]
    assert vn.latex(eqs.circuit[0]) == ("\\begin{aligned}\nv_{\\mathrm{C6}} &= v_{\\mathrm{L2}} "
                                        "+ v_{\\mathrm{R3}} - v_{\\mathrm{R4}}\n\\end{aligned}")


def test_state_space_listing():
    ss = e1().state_space(outputs=["C6.across"], symbolic=True)
    listing = vn.text(ss)
    assert "v_C6' = -i_L2/C6" in listing
    # the state equations, then the outputs; x' = A x + B u with A and B, then y = C x + D u
    assert "Output equations (1 output):\n  C6.across = v_C6" in listing
    order = ["State equations", "Output equations", "x' = A x + B u", "A =", "B =",
             "y = C x + D u", "C =", "D ="]
    places = [listing.index(words) for words in order]
    assert places == sorted(places)
    assert "A =" in listing and "D =" in listing and "E =" not in listing
    tex = vn.latex(ss)
    assert r"\dot{v}_{\mathrm{C6}} &= - \frac{i_{\mathrm{L2}}}{C_{6}}" in tex
    # the matrices bold: never a user's symbol of the same letter
    assert r"\mathbf{A} = \begin{bmatrix}" in tex
    assert r"\mathbf{C} = \begin{bmatrix}0 & 0 & 1\end{bmatrix}" in tex
    assert r"\dot{x} = \mathbf{A} x + \mathbf{B} u" in tex
    assert ss._repr_latex_() == f"$${tex}$$"
    # a dependent store differentiates the input: x' = A x + B u + E u'
    net = vn.Network("divider")
    net.add(vn.VoltageSource("V", "g", "a", V=sympy.sin(3 * vn.t)),
            vn.Capacitor("C1", "b", "a", C=1.0), vn.Capacitor("C2", "g", "b", C=3.0),
            vn.Resistor("R", "b", "g", R=2.0))
    divider = net.state_space(outputs=["C2.across"])
    listing = vn.text(divider)
    assert "State equations (1 state):" in listing
    assert "v_C1' = V/8 + 3*V'/4 - v_C1/8" in listing
    assert "x' = A x + B u + E u'" in listing and "E =" in listing
    assert r"\frac{3 \dot{V}}{4}" in vn.latex(divider)


def test_multibody_listing():
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -9.81))
    bob = mech.body("bob", mass=2.0, inertia=0.0, position=(1, 0))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
    eom = mech.formulate(coordinates="joint")
    small = vn.text(eom, simplify=True)
    assert "q = (pin.angle)" in small and "-19.62*cos(pin.angle)" in small
    tex = vn.latex(eom, simplify=True, matrix_form=True)
    assert r"q = (\theta_{\mathrm{pin}})" in tex
    assert r"\mathbf{M} &= \begin{bmatrix}2\end{bmatrix}" in tex
    # a larger system's full M and Q are listed entry by entry, one row of M at a time
    bar = four_bar().formulate(coordinates="absolute")
    listing = vn.text(bar, matrix_form=True)
    assert "Phi[P4.x] = " in listing and "M[crank.x, crank.x] = 1" in listing
    assert "M[crank.angle, crank.angle] = 0.08333" in listing
    assert "Q[crank.angle] = 0.5" in listing                  # the applied torque
    tex = vn.latex(bar, matrix_form=True)
    assert r"\Phi_{\mathrm{P4.x}} &=" in tex and r"\mathbf{M}_{3,3} &= 0.08333" in tex
    # by default, the recursive form: the torque is a load, the constraints are listed
    assert r"T_{\mathrm{T}} &= -0.5" in vn.latex(bar) and "Phi[P4.x] = " in vn.text(bar)
    assert bar._repr_latex_() == f"$${vn.latex(bar)}$$"


def test_latex_is_balanced():
    net = e1()
    mech = four_bar()
    for obj in (net.topology(tree=E1_TREE).circuit, net.equations(), net.state_space(),
                mech.formulate(coordinates="joint"), sympy.Eq(sympy.Symbol("x"), 1)):
        tex = vn.latex(obj).replace(r"\{", "").replace(r"\}", "")
        assert tex.count("{") == tex.count("}"), type(obj).__name__
        assert tex.count(r"\begin{") == tex.count(r"\end{"), type(obj).__name__
        assert tex.count(r"\left") == tex.count(r"\right"), type(obj).__name__


def test_latex_escapes_names():
    m = vn.LabeledMatrix(np.array([[1, 0.5]]), rows=["a_b"], columns=["x-1", "y#2"])
    tex = vn.latex(m)
    assert r"\mathrm{a\_b}" in tex and r"\mathrm{x\text{-}1}" in tex and r"\mathrm{y\#2}" in tex
    assert tex.splitlines()[2] == r"\mathrm{a\_b} & 1 & 0.5"


# -- notebook display ---------------------------------------------------------------------------
@needs_dot
def test_rich_display_returns_svg_and_latex():
    net = e1()
    mech = four_bar()
    for obj in (net, net.graph, mech):
        picture = obj._repr_svg_()
        assert isinstance(picture, str) and "<svg" in picture
        ET.fromstring(picture)
    assert "edge-P4" in svg_edges(mech._repr_svg_())
    for obj in (net.topology().cutset, net.equations(), net.state_space(),
                mech.formulate(coordinates="joint")):
        tex = obj._repr_latex_()
        assert isinstance(tex, str) and tex.startswith("$$") and tex.endswith("$$")


# -- bounded rendering (issue 10) ------------------------------------------------------------
def rc_ladder(stages: int) -> vn.Network:
    net = vn.Network("ladder")
    net.add(vn.VoltageSource("Vs", "g", "n0", V=1.0))
    for i in range(stages):
        net.add(vn.Resistor(f"R{i}", f"n{i}", f"n{i + 1}", R=1.0),
                vn.Capacitor(f"C{i}", f"n{i + 1}", "g", C=1.0))
    return net


@needs_dot
def test_a_slow_dot_is_stopped(monkeypatch, tmp_path):
    import importlib

    draw = importlib.import_module("vecnet.output.draw")  # (vecnet.draw is also the function)
    monkeypatch.setattr(draw, "DOT_TIMEOUT", 0.2)
    # a ladder of 60 stages with the default layout effort takes seconds (the bound on the
    # effort for large graphs is what makes it fast, so it is taken off here)
    monkeypatch.setattr(draw, "LARGE_GRAPH_EDGES", 10_000)
    # the error itself says dot was stopped at its time-out, not left to finish (no bound on
    # the wall clock here: a busy machine stretches it)
    with pytest.raises(draw.GraphvizTimeoutError, match=r"more than 0.2 s .* 121 edges"):
        vn.draw(rc_ladder(60), path=tmp_path / "ladder.svg")
    assert not (tmp_path / "ladder.svg").exists()


@needs_dot
def test_large_graphs_get_a_bounded_layout_effort():
    import os

    assert "nslimit" not in vn.to_dot(e1())
    assert "nslimit=2" in vn.to_dot(rc_ladder(75))
    # dot's own processor time (a child's, which load does not stretch as it does the wall
    # clock): about a minute without the bound, a second or two with it
    before = os.times()
    assert svg(rc_ladder(75)).lstrip().startswith("<?xml")
    after = os.times()
    assert (after.children_user + after.children_system
            - before.children_user - before.children_system) < 30


def test_reports_of_large_networks_leave_the_diagram_out(monkeypatch):
    import importlib

    report = importlib.import_module("vecnet.output.report")
    monkeypatch.setattr(report, "DIAGRAM_EDGE_LIMIT", 10)
    page = report.report(rc_ladder(6), simulate=False)
    assert "The diagram is left out: 13 edges, more than 10" in page
    graph = page.split("<h2>Linear graph</h2>", 1)[1].split("</section>", 1)[0]
    assert "<svg" not in graph and '<pre class="tex">' in page


# -- legend, datum and title ----------------------------------------------------------------
@needs_dot
def test_e1_diagram_has_a_legend_a_marked_datum_and_one_title():
    net = e1()
    datum = net.topology(tree="normal").datum              # what the equations are written from
    text = vn.draw(net, tree="normal").pipe(format="svg").decode()
    root = ET.fromstring(text)
    texts = [t.text.strip() for t in root.iter(f"{SVG}text") if t.text]
    groups = {g.get("id"): g for g in root.iter(f"{SVG}g")}
    assert "legend-tree" in groups and "legend-chord" in groups and "legend-datum" in groups
    assert {"tree branch", "chord", "datum"} <= set(texts)
    # the legend's samples are drawn as the edges they explain
    edges = svg_edges(text)
    assert solid_and_bold(edges["legend-tree"]) and dashed(edges["legend-chord"])
    (node,) = datum
    marked = groups[f"node-{node}"]
    assert [t.text for t in marked.iter(f"{SVG}text")] == [node, "(datum)"]
    assert len(list(marked.iter(f"{SVG}polygon"))) == 2                # a double border
    assert texts.count(net.name) == 1                                  # the title, once


# -- joint types ----------------------------------------------------------------------------
def rssr_like() -> vn.spatial.Mechanism:
    """A crank on a revolute joint, a coupler on two ball joints, a rocker on a revolute."""
    mech = vn.spatial.Mechanism("rssr", gravity=(0, 0, -9.81))
    crank = mech.body("crank", 1.0, (0.02, 0.05, 0.06), position=(0.25, 0, 0.1))
    coupler = mech.body("coupler", 2.0, (0.02, 0.05, 0.06), position=(1.0, 0.5, 0.5))
    rocker = mech.body("rocker", 1.5, (0.02, 0.05, 0.06), position=(1.5, 1, 0.4))
    mech.revolute("R1", mech.ground.point(0, 0, 0), crank.point(-0.25, 0, -0.1), axis=(0, 0, 1))
    mech.spherical("S1", crank.point(0.25, 0, 0.1), coupler.point(-0.5, -0.5, -0.3))
    mech.spherical("S2", coupler.point(0.5, 0.5, 0.3), rocker.point(0, 0, 0.4))
    mech.revolute("R2", rocker.point(0, 0, -0.4), mech.ground.point(1.5, 1, 0), axis=(1, 0, 0))
    return mech


@needs_dot
def test_revolute_and_spherical_joints_are_drawn_apart_with_a_legend_entry_each():
    text = vn.draw(rssr_like(), tree="joint").pipe(format="svg").decode()
    edges = svg_edges(text)

    def look(edge: dict) -> tuple:
        """Line colour, and the circle of the arrowhead: how many, filled with what."""
        return edge["stroke"], tuple(edge["ellipse_fill"])

    revolute, spherical = look(edges["edge-R1"]), look(edges["edge-S1"])
    assert look(edges["edge-R2"]) == revolute and look(edges["edge-S2"]) == spherical
    assert revolute[0] != spherical[0]                          # another colour
    assert revolute[1] == ("none",) and spherical[1] == (spherical[0],)   # open and filled ball
    legend = {key: edge for key, edge in edges.items() if key.startswith("legend-joint")}
    assert sorted(legend) == ["legend-joint-revolute", "legend-joint-spherical"]
    assert [t.strip() for t in legend["legend-joint-revolute"]["labels"]] == ["revolute joint"]
    assert [t.strip() for t in legend["legend-joint-spherical"]["labels"]] == ["spherical joint"]
    # each legend sample is drawn as the joints it explains
    assert look(legend["legend-joint-revolute"]) == revolute
    assert look(legend["legend-joint-spherical"]) == spherical


def edge_attributes(source: str, edge_id: str) -> dict[str, str]:
    line = next(line for line in source.splitlines() if f'id="{edge_id}"' in line)
    return dict(re.findall(r'(\w+)=("[^"]*"|\S+?)(?=[ \]])', line.split("[", 1)[1]))


def test_every_joint_type_of_the_catalogues_has_a_style_of_its_own():
    mech = vn.spatial.Mechanism("all joints", gravity=(0, 0, -9.81))
    makers = {"revolute": mech.revolute, "prismatic": mech.prismatic,
              "cylindrical": mech.cylindrical, "screw": mech.screw, "spherical": mech.spherical,
              "universal": mech.universal, "planar": mech.planar_joint, "weld": mech.weld,
              "point on line": mech.point_on_line, "point on plane": mech.point_on_plane}
    for k, (kind, make) in enumerate(makers.items()):
        body = mech.body(f"b{k}", 1.0, (1, 1, 1), position=(k, 0, 0))
        make(f"J{k}", mech.ground.point(k, 0, 0), body.centre)
    planar = vn.planar.Mechanism("planar joints")
    pmakers = {"revolute": planar.revolute, "prismatic": planar.prismatic,
               "weld": planar.weld, "point on line": planar.slot}
    for k, (kind, make) in enumerate(pmakers.items()):
        body = planar.body(f"b{k}", 1.0, 1.0, position=(k, 0))
        make(f"J{k}", planar.ground.point(k, 0), body.centre)
    a, b = planar.body("ga", 1.0, 1.0, position=(0, 5)), planar.body("gb", 1.0, 1.0, (1, 5))
    planar.revolute("GA", planar.ground.point(0, 5), a.centre)
    planar.revolute("GB", planar.ground.point(1, 5), b.centre)
    planar.gear("mesh", a, b, ratio=2)
    spatial_dot, planar_dot = vn.to_dot(mech), vn.to_dot(planar)
    looks = {}
    for k, kind in enumerate(makers):
        attrs = edge_attributes(spatial_dot, f"edge-J{k}")
        looks[kind] = (attrs["color"], attrs["arrowhead"])
        assert f'id="legend-joint-{kind.replace(" ", "-")}"' in spatial_dot
    assert len(set(looks.values())) == len(makers)              # ten types, ten looks
    assert len({colour for colour, _ in looks.values()}) == len(makers)
    # a planar joint looks like the spatial joint of its type
    for k, kind in enumerate(pmakers):
        attrs = edge_attributes(planar_dot, f"edge-J{k}")
        assert (attrs["color"], attrs["arrowhead"]) == looks[kind], kind
    gear = edge_attributes(planar_dot, "edge-mesh")
    assert (gear["color"], gear["arrowhead"]) not in looks.values()
    assert 'id="legend-joint-gear"' in planar_dot
    assert planar_dot.count('id="legend-joint-') == 5       # revolute, prismatic, weld, slot, gear


@needs_dot
def test_a_loaded_model_is_drawn_with_the_tree_it_chooses(tmp_path):
    """vn.draw and vn.to_tikz take a loaded model as vn.simulate and vn.report do: the
    four-bar's joint-coordinate tree (its chords: the one pin that closes the loop, the
    masses and the torque), the RLC's normal tree."""
    from pathlib import Path

    models = Path(__file__).parent.parent / "examples" / "models"
    fourbar = vn.load_model(models / "fourbar.json")
    chords = set(fourbar.formulate().topology.chords)
    def dashed(model) -> int:
        return len([line for line in vn.draw(model).source.splitlines()
                    if "style=dashed" in line and "legend" not in line])

    assert dashed(fourbar) == len(chords)
    tex = vn.to_tikz(fourbar)
    assert "\\begin{tikzpicture}" in tex
    vn.draw(fourbar, path=tmp_path / "fourbar.tex")
    assert (tmp_path / "fourbar.tex").read_text() == tex
    rlc = vn.load_model(models / "rlc.json")
    assert dashed(rlc) == len(rlc.system.topology(tree="normal").chords)
