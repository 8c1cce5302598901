"""The documentation site: the notebooks run and show their objects, the reference covers
every public name with an example, and Sphinx builds the whole site without a warning."""

from __future__ import annotations

import ast
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

import vecnet as vn

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
NOTEBOOKS = sorted((DOCS / "notebooks").glob("*.ipynb"))
REFERENCE = (DOCS / "api" / "index.md").read_text()


def _public(module) -> list[str]:
    names = getattr(module, "__all__", None) or dir(module)
    return [n for n in names if not n.startswith("_")]


def _reference_names() -> set[str]:
    """The names the reference lists in its autosummary tables and ``py:data`` entries."""
    listed = set(re.findall(r"^   ([A-Za-z_][\w.]*)$", REFERENCE, flags=re.M))
    listed |= set(re.findall(r"^\.\. py:data:: (\w+)", REFERENCE, flags=re.M))
    return listed


def test_there_are_seven_notebooks_in_the_course_index():
    index = (DOCS / "notebooks" / "index.md").read_text()
    assert len(NOTEBOOKS) == 7
    for notebook in NOTEBOOKS:
        assert notebook.stem in index


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_and_shows_its_objects(path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    notebook = nbformat.read(path, as_version=4)
    assert not any(cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), \
        f"{path.name} is stored with outputs: clear them before committing"
    nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    for number, cell in enumerate(notebook.cells):
        if cell.cell_type == "code" and _shows_a_value(cell.source):
            assert cell.outputs, f"{path.name}, cell {number}: shows nothing"
            for output in cell.outputs:
                assert not _empty(output), f"{path.name}, cell {number}: an empty {output}"
    shown = {kind for cell in notebook.cells if cell.cell_type == "code"
             for output in cell.outputs for kind in output.get("data", {})}
    # graphs draw themselves as SVG, equations and matrices typeset as LaTeX, results as
    # tables or plots: the objects' own _repr_*_ methods
    assert shown & {"image/svg+xml", "image/png"}, shown
    assert shown & {"text/latex", "text/html"}, shown
    if path.stem == "04-planar-fourbar":   # the animation plays inline, as its GIF
        pages = [output["data"]["text/html"] for cell in notebook.cells
                 if cell.cell_type == "code" for output in cell.outputs
                 if "text/html" in output.get("data", {})]
        assert any('<img src="data:image/gif;base64,' in "".join(p) for p in pages)


def _shows_a_value(source: str) -> bool:
    """Whether a cell ends with an expression whose value Jupyter shows (no ``;``)."""
    body = ast.parse(source).body
    return bool(body) and isinstance(body[-1], ast.Expr) and not source.rstrip().endswith(";")


#: what an output that shows nothing looks like once its ``$`` and ``\displaystyle`` are
#: gone: an empty matrix (as text or typeset), no text, nothing
EMPTY = re.compile(r"|Matrix\((0,\d+|\d+,0),\[\]\)|\\left\[\\begin\{matrix\}\\end\{matrix\}"
                   r"\\right\]|\[\]|None")


def _empty(output: dict) -> bool:
    """Whether an output cell shows nothing (its text, formula or picture empty)."""
    if output.get("output_type") == "stream":
        return not output.get("text", "").strip()
    data = output.get("data", {})
    if not data:
        return output.get("output_type") != "error"
    shown = ("".join(v) if isinstance(v, list) else str(v) for v in data.values())
    return all(EMPTY.fullmatch(re.sub(r"\$|\\displaystyle|\s", "", v)) for v in shown)


def test_an_empty_output_is_caught():
    assert _empty({"output_type": "execute_result",
                   "data": {"text/plain": "Matrix(0, 1, [])",
                            "text/latex": "$\\displaystyle \\left[\\begin{matrix}\\end{matrix}\\right]$"}})
    assert not _empty({"output_type": "execute_result", "data": {"text/plain": "1/(2*s + 1)"}})
    assert _shows_a_value("x = 1\nx") and not _shows_a_value("x = 1") \
        and not _shows_a_value("plot(x);")


def test_every_public_name_is_in_the_reference():
    listed = _reference_names()
    expected = {n for n in _public(vn) if not inspect.ismodule(getattr(vn, n))}
    expected |= {f"planar.{n}" for n in ("Mechanism", "Body", "Point")}
    expected |= {f"spatial.{n}" for n in _public(vn.spatial) if n not in ("Point", "DATUM")}
    expected |= set(_public(vn.samples))
    missing = sorted(expected - listed)
    assert not missing, f"public names missing from docs/api/index.md: {missing}"


def test_every_public_name_has_an_example():
    objects = {n: getattr(vn, n) for n in _public(vn)
               if not inspect.ismodule(getattr(vn, n))}
    objects.update({f"spatial.{n}": getattr(vn.spatial, n) for n in _public(vn.spatial)
                    if n != "DATUM"})
    objects.update({f"planar.{n}": getattr(vn.planar, n) for n in _public(vn.planar)
                    if n != "DATUM"})
    # module constants carry no docstring of their own: the reference writes theirs
    by_hand = set(re.findall(r"^\.\. py:data:: (\w+)", REFERENCE, flags=re.M))
    without = sorted(n for n, obj in objects.items()
                     if n not in by_hand and ">>>" not in (inspect.getdoc(obj) or ""))
    assert not without, f"public names whose docstring has no example: {without}"


def test_the_site_builds_without_a_warning(tmp_path):
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_nb")
    # the notebooks are run by the test above; here the site is built around them
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-E", "-b", "html",
         "-D", "nb_execution_mode=off", str(DOCS), str(tmp_path / "html")],
        capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    page = (tmp_path / "html" / "api" / "generated" / "vecnet.Capacitor.html").read_text()
    assert "C1*v_C1&#39;" in page or "C1*v_C1'" in page   # the docstring's example
    assert (tmp_path / "html" / "notebooks" / "04-planar-fourbar.html").exists()
    assert (tmp_path / "html" / "_static" / "katex" / "katex.min.js").exists()
