"""TikZ export of diagrams (vecnet.output.tikz): the four-bar and the motor-pump network.

The facts are checked from outside the code: the .tex is read as text (each object of
the drawing follows a comment with its Graphviz id, ``% edge-R3``), the node positions
are compared with those of Graphviz's own plain layout (``dot -Tplain`` run here on the
DOT text), the edges and the tree with the model's graph and topology, the legend with
the SVG's, and the documents are compiled with ``pdflatex`` (three runs in all).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import vecnet as vn
from test_output_escaping import HOSTILE, allow_any_name, hostile_network, tex_tokens
from vecnet.cli import main
from vecnet.output.draw import GraphvizError, OutputError, svg

MODELS = Path(__file__).resolve().parent.parent / "examples" / "models"
#: the two diagrams of the course notes: (model file, tree)
CASES = [("fourbar.json", "joint"), ("motor_pump.json", "normal")]
#: the commands of a TikZ diagram whose names hold LaTeX's special characters, accents and
#: Greek letters: the document's own and the escapes, no \input, \def, \catcode ...
TEX_COMMANDS = {
    r"\RequirePackage", r"\documentclass", r"\usepackage", r"\PreviewEnvironment",
    r"\setlength", r"\PreviewBorder", r"\textwidth", r"\textheight", r"\maxdimen", r"\begin", r"\end", r"\definecolor", r"\tikzset",
    r"\useasboundingbox", r"\path", r"\node", r"\coordinate", r"\fontsize", r"\selectfont",
    r"\sffamily", r"\ttfamily", r"\char", r"\textless", r"\textgreater", r"\textbar",
    r"\textbackslash", r"\textasciicircum", r"\textasciitilde", r"\{", r"\}", r"\_", r"\%",
    r"\#", r"\&", r"\ ", r"\'", r"\ensuremath", r"\theta", r"\Omega"}


def _latex_missing() -> str | None:
    if shutil.which("pdflatex") is None:
        return "pdflatex not installed (`make latex` installs it)"
    found = subprocess.run(["kpsewhich", "tikz.sty", "preview.sty"], capture_output=True,
                           text=True, check=False).stdout.split()
    if len(found) < 2:
        return "pdflatex has no tikz.sty or preview.sty (`make latex` installs them)"
    return None


needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' not installed")
LATEX_MISSING = _latex_missing()
needs_latex = pytest.mark.skipif(LATEX_MISSING is not None, reason=str(LATEX_MISSING))


def compile_tex(tex: str, folder: Path) -> str:
    """Compile ``tex`` with pdflatex in ``folder`` (no shell escape); the log."""
    (folder / "d.tex").write_text(tex, encoding="ascii")
    run = subprocess.run(["pdflatex", "-no-shell-escape", "-interaction=nonstopmode",
                          "-halt-on-error", "d.tex"], cwd=folder, capture_output=True,
                         text=True, errors="replace", timeout=120, check=False)
    log = (folder / "d.log").read_text(errors="replace")
    assert run.returncode == 0, log[-3000:]
    assert (folder / "d.pdf").read_bytes().startswith(b"%PDF")
    assert "Missing character" not in log      # every character had a glyph
    return log


def blocks(tex: str) -> dict[str, list[str]]:
    """The lines after each ``% id`` comment, up to the next comment, by id."""
    out: dict[str, list[str]] = {}
    current = None
    for line in tex.splitlines():
        if line.startswith("% "):
            current = line[2:]
            assert current not in out, f"{current} drawn twice"
            out[current] = []
        elif current is not None:
            out[current].append(line)
    return out


def node_texts(lines: list[str]) -> list[str]:
    """The texts of the ``\\node`` lines, read back from TeX: the escapes of names undone."""
    texts = []
    for line in lines:
        match = re.match(r"\\node\[.*\] at \([-\d.]+,[-\d.]+\) \{(.*)\};$", line)
        if match:
            texts.append(match[1].replace(r"\_", "_").replace("{}", "").replace("\\ ", " "))
    return texts


def shape_centre(line: str) -> tuple[float, float]:
    """The centre of an ellipse, or of the bounding box of a polygon, drawn by ``line``."""
    points = [tuple(map(float, p)) for p in re.findall(r"\(([-\d.]+),([-\d.]+)\)", line)]
    if " ellipse " in line:
        return points[0]
    xs, ys = zip(*points)
    return (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2


def plain_positions(dot_text: str) -> dict[str, tuple[float, float]]:
    """Node name -> (x, y) in points, from Graphviz's plain output (inches)."""
    plain = subprocess.run(["dot", "-Tplain"], input=dot_text, capture_output=True, text=True,
                           check=True).stdout
    positions = {}
    for line in plain.splitlines():
        fields = shlex.split(line)
        if fields and fields[0] == "node":
            positions[fields[1]] = (72 * float(fields[2]), 72 * float(fields[3]))
    return positions


@needs_dot
@pytest.mark.parametrize("model_file, tree", CASES)
def test_edges_tree_styles_positions_and_legend_are_the_svgs(model_file, tree):
    system = vn.load_model(MODELS / model_file).system
    tex = vn.to_tikz(system, tree=tree)
    assert tex.isascii() and tex.count(r"\begin{tikzpicture}") == 1
    drawn = blocks(tex)
    if isinstance(system, vn.planar.Mechanism):
        graph, topology = system.network.graph, system.formulate(coordinates=tree).topology
    else:
        graph, topology = system.graph, system.topology(tree=tree)
    branches = set(topology.branches)
    # every edge once, with its label, in the style of its role; an arrowhead at its head
    for name in graph.edges:
        lines = drawn[f"edge-{name}"]
        assert node_texts(lines) == [name]
        style = "vn tree" if name in branches else "vn chord"
        assert style in lines[0] and lines[0].startswith(r"\path[")
        assert sum(line.startswith(r"\path[") for line in lines) >= 2       # and a head
        if f"edge-{name}-tail" in drawn:                 # a transducer port's first half
            assert style in drawn[f"edge-{name}-tail"][0]
    edge_ids = {key for key in drawn if key.startswith("edge-")}
    assert {key.removesuffix("-tail") for key in edge_ids} == {f"edge-{n}" for n in graph.edges}
    # the nodes where Graphviz puts them
    positions = plain_positions(vn.to_dot(system, tree=tree))
    for node in graph.nodes:
        lines = drawn[f"node-{node}"]
        x, y = map(float, re.match(r"\\coordinate \(n\d+\) at \(([-\d.]+),([-\d.]+)\);",
                                   lines[0]).groups())
        assert (x, y) == pytest.approx(positions[str(node)], abs=0.05)
        assert node_texts(lines)[0] == str(node)
        assert shape_centre(lines[1]) == pytest.approx((x, y), abs=0.01)   # its circle or box
    # the legend of the SVG, its samples in the same styles
    svg_ids = {e.get("id") for e in ET.fromstring(svg(system, tree=tree).encode()).iter()}
    svg_legend = {i for i in svg_ids if i and i.startswith("legend-")}
    assert len(svg_legend) >= 4
    assert {key for key in drawn if key.startswith("legend-")} == svg_legend
    assert "vn tree" in drawn["legend-tree"][0] and "vn chord" in drawn["legend-chord"][0]
    assert node_texts(drawn["legend-tree"]) == [" tree branch"]


@needs_dot
@needs_latex
@pytest.mark.parametrize("model_file, tree", CASES)
def test_the_tex_compiles(model_file, tree, tmp_path):
    system = vn.load_model(MODELS / model_file).system
    vn.draw(system, tree=tree, path=tmp_path / "diagram.tex")
    tex = (tmp_path / "diagram.tex").read_text(encoding="ascii")
    log = compile_tex(tex, tmp_path)
    assert "Overfull" not in log


@needs_dot
@needs_latex
def test_hostile_names_are_text_and_compile(monkeypatch, tmp_path):
    allow_any_name(monkeypatch)
    names = HOSTILE + ["^^J\\input{/etc/passwd}", "θ_joint é Ω 日本", "100%_#1 {x} $y$"]
    net, _ = hostile_network(names, name=" | ".join(names[-4:]))
    tex = vn.to_tikz(net, tree="normal")
    assert tex.isascii()
    commands, raw, lowest = tex_tokens("\n".join(line for line in tex.splitlines()
                                                 if not line.startswith("%")))
    assert raw == [] and lowest == 0
    assert commands <= TEX_COMMANDS, commands - TEX_COMMANDS
    log = compile_tex(tex, tmp_path)
    assert "(/etc/passwd" not in log           # the file was never read


@needs_dot
def test_cli_draw_format_tikz(capsys, tmp_path):
    model = MODELS / "motor_pump.json"
    assert main(["draw", str(model), "--format", "tikz"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("% motor, shaft and pump") and r"\end{document}" in out
    assert main(["draw", str(model), "--output", str(tmp_path / "m.tex")]) == 0
    assert (tmp_path / "m.tex").read_text() == out


def test_bad_requests(tmp_path, monkeypatch):
    g = vn.LinearGraph([("R", "a", "b"), ("C", "b", "a")])
    with pytest.raises(OutputError, match="returns the LaTeX text"):
        vn.to_tikz(g, path=tmp_path / "x.tex")
    monkeypatch.setenv("PATH", str(tmp_path))             # no Graphviz programs here
    with pytest.raises(GraphvizError, match=r"TikZ \(dot's layout\) needs the Graphviz 'dot'"):
        vn.draw(g, path=tmp_path / "g.tex")
    assert not (tmp_path / "g.tex").exists()
