"""The package itself: what ``import vecnet`` loads, its public names, and that its modules
meet through public names only."""

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import vecnet as vn


def test_import_vecnet_loads_no_heavy_dependency():
    # every public name is imported when first used: the command line and a plain import
    # start without sympy, scipy, networkx or matplotlib
    code = ("import sys, vecnet, vecnet.cli; "
            "print(sorted(m for m in ('sympy', 'scipy', 'networkx', 'matplotlib') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_public_names_resolve_and_the_draw_and_report_functions_stay_functions():
    for name in vn.__all__:
        assert getattr(vn, name) is not None, name
    # the modules of the same names, however late they are imported, do not replace them
    assert importlib.import_module("vecnet.output.draw").draw is vn.draw
    assert importlib.import_module("vecnet.output.report").report is vn.report
    assert importlib.import_module("vecnet.output.picture").picture is vn.picture
    assert callable(vn.draw) and callable(vn.report) and callable(vn.picture)
    assert {"Network", "Resistor", "planar", "spatial", "limits"} <= set(dir(vn))


def test_dir_lists_the_public_names_only():
    # not what the package imported for itself, nor its stage packages
    listed = {name for name in dir(vn) if not name.startswith("__")}
    assert not listed & {"sys", "Any", "importlib", "annotations", "core", "numerics"}
    assert listed == set(vn.__all__)


def _private_uses(path: Path) -> list[str]:
    """The private names of other modules that ``path`` imports or reads: ``from .x import
    _name``, or ``obj._name`` where ``obj`` is not ``self``, ``cls`` or ``super()`` and this
    module defines no ``_name`` of its own."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = {node.name for node in ast.walk(tree)
           if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    own |= {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)}
    own |= {node.id for node in ast.walk(tree)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}

    def private(name: str) -> bool:
        return name.startswith("_") and not name.startswith("__")

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith(
                "vecnet")):
            found += [f"{path}:{node.lineno} imports {a.name}" for a in node.names
                      if private(a.name)]
        elif isinstance(node, ast.Attribute) and private(node.attr) and node.attr not in own:
            base = node.value
            if isinstance(base, ast.Name) and base.id in ("self", "cls"):
                continue   # a subclass's own protected members
            if isinstance(base, ast.Call) and getattr(base.func, "id", None) == "super":
                continue
            found.append(f"{path}:{node.lineno} reads {ast.unparse(node)}")
    return found


def test_no_module_imports_or_reads_another_modules_private_names():
    package = Path(vn.__file__).parent
    found = [use for path in sorted(package.rglob("*.py")) for use in _private_uses(path)]
    assert found == []
