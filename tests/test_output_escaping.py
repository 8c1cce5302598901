"""Outputs escape what they embed, whatever the names hold (issue 10, no browser needed).

The name policy (:mod:`vecnet.core.names`) refuses such names at input; these tests
switch it off (:func:`allow_any_name`) because every output must be safe on its
own. The facts are checked from outside the code: the SVG that Graphviz writes is
parsed as XML and its elements and attributes listed, the LaTeX is split into
TeX tokens, and the report's formula elements are parsed as XML.
"""

from __future__ import annotations

import shutil
import sys
import xml.etree.ElementTree as ET

import pytest
import sympy

import vecnet as vn
from vecnet.builders.model import Model
from vecnet.elements.base import Symbol
from vecnet.output.draw import svg, to_dot
from vecnet.output.html_pieces import math_block as _math
from vecnet.output.report import report
from vecnet.output.teaching import latex

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' not installed")

#: Names that mean something to DOT, Graphviz's HTML labels, XML, LaTeX or a terminal.
#: None holds a dot (the separator of port and point names).
HOSTILE = [
    "<b>bold</b>",
    '<<TABLE><TR><TD><IMG SRC="/etc/passwd"/></TD></TR></TABLE>>',
    "<<FONT POINT-SIZE='99'>x</FONT>>",
    'q"] [image="/etc/passwd" shapefile="/etc/passwd',
    "trailing\\",
    "\\N\\G\\E\\T\\H\\L\\l",
    "a:b:n",
    "&lt;amp&gt;&amp;",
    "line\nbreak\r\ttab",
    "lone\ud800surrogate",
    "\\input{/etc/passwd}",
    "$x$ {y} %z #w ^v ~u _t",
    "}\\end{aligned}\\def\\x{1}\\begin{aligned}{",
    "<svg/onload=alert(1)>",
    "--><!-- ]]> <![CDATA[",
    "node",
]
#: Those a model can be formulated with: sympy cannot make a function of time (an edge
#: variable) whose name holds a lone surrogate; the name policy refuses such names.
FORMULABLE = [n for n in HOSTILE if not any(0xD800 <= ord(c) <= 0xDFFF for c in n)]


def allow_any_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch off the name checks at input, so that outputs can be tested with any name.

    The checks of :mod:`vecnet.core.names` are imported by name into the modules that use
    them, so every vecnet module's reference is replaced.
    """
    def accept(name, *args, **kwargs):
        return name

    for module in list(sys.modules.values()):
        if not getattr(module, "__name__", "").startswith("vecnet"):
            continue
        for check in ("check_name", "check_node"):
            if callable(getattr(module, check, None)):
                monkeypatch.setattr(module, check, accept)
        if callable(getattr(module, "name_problem", None)):
            monkeypatch.setattr(module, "name_problem", lambda *args, **kwargs: None)


def hostile_network(names: list[str], name: str = "hostile") -> tuple[vn.Network, dict]:
    """A source and, per name, a resistor ``name`` (resistance a symbol of that name + " R")
    between nodes ``name + " n"`` ... and a capacitor closing the chain; a DC motor named
    after the first name (a transducer: its name labels the link between its ports).
    Returns the network and the parameter values of the symbols."""
    net = vn.Network(name)
    values = {}
    previous = "g"
    elements = [vn.VoltageSource("Vs", "g", "start", V=1.0)]
    previous = "start"
    for i, n in enumerate(names):
        symbol = Symbol(n + " R")
        values[symbol.name] = 1.0 + i
        elements.append(vn.Resistor(n, previous, n + " n", R=symbol))
        previous = n + " n"
    elements.append(vn.Capacitor("C", previous, "g", C=1.0))
    elements += [vn.DCMotor(names[0] + " M", "ref", "w", "g", "start2", K=0.05),
                 vn.Resistor("Rm", "start", "start2", R=1.0),
                 vn.Inertia("J", "ref", "w", J=0.01)]
    net.add(*elements)
    return net, values


def hostile_mechanism(names: list[str], name: str = "hostile",
                      bodies: int = 2) -> tuple[vn.planar.Mechanism, dict]:
    """A pendulum chain of ``bodies`` bodies with hostile body, point, joint and force
    names (five names a body), the torques given by parameter symbols with hostile names.
    Returns it and the parameter values."""
    mech = vn.planar.Mechanism(name, gravity=(0, -9.81))
    k = 0
    values = {}

    def next_name() -> str:
        nonlocal k
        k += 1
        base = names[(k - 1) % len(names)]
        return base if k <= len(names) else f"{base} {k}"  # unique when the names wrap

    previous = mech.ground.point(0, 0)
    for i in range(bodies):
        body = mech.body(next_name() + " body", mass=1.0, inertia=0.1, position=(i + 0.5, 0))
        mech.revolute(next_name() + " joint", previous, body.point(-0.5, 0, name=next_name()))
        previous = body.point(0.5, 0, name=next_name())
        torque = Symbol(next_name() + " T")
        values[torque.name] = 0.1
        mech.torque(next_name() + " torque", body, torque)
    return mech, values


# -- Graphviz ---------------------------------------------------------------------------------
GRAPHVIZ_ELEMENTS = {"svg", "g", "title", "path", "polygon", "ellipse", "text", "polyline"}


def svg_facts(svg_text: str) -> tuple[set[str], list[tuple[str, str]], list[str]]:
    """Element names, (element, attribute) pairs and text contents of an SVG document."""
    root = ET.fromstring(svg_text.encode("utf-8"))
    tags, attributes, texts = set(), [], []
    for element in root.iter():
        tag = element.tag.replace(SVG, "")
        tags.add(tag)
        attributes += [(tag, key) for key in element.attrib]
        if tag == "text":
            texts.append(element.text or "")
    return tags, attributes, texts


def shown(name: str) -> str:
    """How a name is drawn: unencodable and control characters as \\uXXXX text."""
    return "".join(f"\\u{ord(c):04x}" if 0xD800 <= ord(c) <= 0xDFFF or ord(c) < 0x20 else c
                   for c in name)


@needs_dot
def test_hostile_names_are_plain_labels_in_the_diagram(monkeypatch):
    allow_any_name(monkeypatch)
    # every name both as a node and as an edge; the graph is one ring
    edges = [(n + "e", n, HOSTILE[(i + 1) % len(HOSTILE)]) for i, n in enumerate(HOSTILE)]
    graph = vn.LinearGraph(edges)
    tags, attributes, texts = svg_facts(svg(graph, title=HOSTILE[0]))

    assert tags <= GRAPHVIZ_ELEMENTS, tags - GRAPHVIZ_ELEMENTS   # no image, no foreign markup
    assert not [a for a in attributes if "href" in a[1]]
    for name in HOSTILE:
        assert shown(name) in texts, name                           # node label, literally
        assert shown(name) + "e" in texts, name                     # edge label, literally


@needs_dot
def test_hostile_names_in_a_network_and_a_mechanism_diagram(monkeypatch):
    allow_any_name(monkeypatch)
    net, _ = hostile_network(FORMULABLE)
    mech, _ = hostile_mechanism(FORMULABLE)
    for system in (net, mech):
        for labels in ("names", "variables", "both"):
            tags, attributes, texts = svg_facts(svg(system, labels=labels))
            # the tooltips of elements make <a xlink:title=...>, never a link
            assert tags <= GRAPHVIZ_ELEMENTS | {"a"}, tags
            assert {key for tag, key in attributes if tag == "a"} <= {f"{XLINK}title"}
            assert not [a for a in attributes if "href" in a[1]]
    texts = svg_facts(svg(net))[2]
    assert all(shown(n) in texts for n in FORMULABLE)
    assert shown(FORMULABLE[0] + " M") in texts                       # the transducer's link


def test_hostile_dot_source_has_no_html_labels(monkeypatch):
    allow_any_name(monkeypatch)
    graph = vn.LinearGraph([(n + "e", n, "g") for n in HOSTILE])
    net, _ = hostile_network(FORMULABLE)
    source = to_dot(graph, labels="both") + to_dot(net, labels="both")
    for line in source.splitlines():
        # an HTML-like ID or label starts with '<' right after '=' or at a statement's start
        assert "=<" not in line and not line.strip().startswith("<"), line
    assert "\ud800" not in source                                   # encodable
    source.encode("utf-8")


@needs_dot
def test_a_lone_surrogate_in_a_name_renders(monkeypatch, tmp_path):
    allow_any_name(monkeypatch)
    graph = vn.LinearGraph([("R\udcff", "a\ud800", "b")])
    texts = svg_facts(svg(graph))[2]
    assert "R\\udcff" in texts and "a\\ud800" in texts
    vn.draw(graph, path=tmp_path / "g.svg")
    vn.draw(graph, path=tmp_path / "g.dot")
    assert "a\\\\ud800" in (tmp_path / "g.dot").read_text(encoding="utf-8")


# -- LaTeX ------------------------------------------------------------------------------------
def tex_tokens(tex: str) -> tuple[set[str], list[str], int]:
    """TeX's view of ``tex``: control sequences (``\\input``, ``\\{``), the special
    characters that are not escaped (``$ % #``) and the lowest brace depth reached."""
    commands, raw, depth, lowest = set(), [], 0, 0
    i = 0
    while i < len(tex):
        c = tex[i]
        if c == "\\":
            j = i + 1
            while j < len(tex) and tex[j].isalpha():
                j += 1
            j = max(j, i + 2)  # a control symbol: one non-letter
            commands.add(tex[i:j])
            i = j
            continue
        if c in "$%#":
            raw.append(c)
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            lowest = min(lowest, depth)
        i += 1
    assert depth == 0, "unbalanced braces"
    return commands, raw, lowest


def test_hostile_names_are_text_in_latex(monkeypatch):
    allow_any_name(monkeypatch)
    plain = [f"N{i}" for i in range(len(FORMULABLE))]
    baseline: set[str] = set()
    outputs = []
    for names in (plain, FORMULABLE):
        net, values = hostile_network(names, name=names[-1])
        mech, _ = hostile_mechanism(names, name=names[-1])
        eqs = net.equations()
        ss = net.state_space(outputs=[f"{names[1]}.across"])
        texs = [latex(eqs), latex(ss), latex(eqs.topology.cutset), latex(mech.formulate()),
                latex(mech.formulate(), matrix_form=False), latex(eqs, summary=True),
                latex(ss, summary=True), latex(mech.formulate(), summary=True),
                latex(net.sparse_state_space(outputs=ss.outputs, parameters=values))]
        if names is plain:
            for tex in texs:
                baseline |= tex_tokens(tex)[0]
        else:
            outputs = texs
    # the escapes of names: characters, never commands that act
    escapes = {r"\mathrm", r"\backslash", r"\text", r"\textbackslash", r"\ ", r"\{", r"\}",
               r"\$", r"\%", r"\#", r"\&", r"\_", r"\~", r"\^", r"\textasciitilde",
               r"\textasciicircum",
               # the fixed brackets of a long row broken across lines (longer names)
               r"\Bigl", r"\Bigr"}
    for tex in outputs:
        commands, raw, lowest = tex_tokens(tex)
        assert commands <= baseline | escapes, commands - baseline - escapes
        assert raw == [] and lowest == 0
        for forbidden in (r"\input", r"\def", r"\end{aligned}\def"):
            assert forbidden not in commands
        tex.encode("utf-8")


def test_latex_of_an_expression_with_hostile_symbols_and_functions(monkeypatch):
    x = sympy.Symbol("\\input{x}$")
    f = sympy.Function("}\\write18{rm}")(x)
    tex = latex(sympy.Eq(f, x + sympy.Symbol("ok_1")))
    commands, raw, _ = tex_tokens(tex)
    assert r"\input" not in commands and r"\write" not in commands and raw == []
    assert r"\backslash{}input" in tex and r"\backslash{}write18" in tex


# -- the report's formulas and page ------------------------------------------------------------
def test_report_formulas_hold_latex_as_text():
    names = ["<script>alert(1)</script>", "</pre><b>x", "a&b", "v_<b>c</b>", "]]>", "&dd;"]
    symbols = [Symbol(n) for n in names]
    f = sympy.Function("<img src=x onerror=alert(1)>")(Symbol("t"))
    tex = latex(sympy.Eq(sum(symbols) * f, symbols[0] / symbols[1]))
    markup = _math(tex, "listing")
    root = ET.fromstring(markup)                                 # one element, text inside
    assert root.tag == "pre" and root.attrib == {"class": "tex"} and len(root) == 0
    assert root.text == tex                                      # the LaTeX, as text
    assert _math("x" * 100_000, "a < b") == "<pre>a &lt; b</pre>"   # too long: the listing


def test_report_pages_embed_hostile_names_as_text(monkeypatch, tmp_path):
    allow_any_name(monkeypatch)
    net, values = hostile_network(FORMULABLE, name="lone\ud800surrogate " + FORMULABLE[-3])
    model = Model("network", net, parameters=values, description=FORMULABLE[1])
    path = tmp_path / "net.html"
    page = report(model, path, simulate=True)
    assert path.read_bytes().decode("utf-8") == page                # lone surrogates written
    assert "lone\\ud800surrogate" in page
    assert "<svg/onload" not in page and "<b>bold" not in page
