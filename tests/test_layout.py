"""The package is laid out by pipeline stage, and its imports run one way: down the stages.

A module imports only from its own stage or an earlier one, at module level and inside
functions alike, and the imports form no circle. An earlier stage's convenience methods
that run an algorithm (``net.state_space()``, ``eom.simulate()``) are forwards to a
public function of a later stage named by :func:`vecnet.core.forwards.public`; only
display hooks (``_repr_svg_``, ``_repr_latex_``, ``__str__``) reach a later module by
:func:`vecnet.core.later.later`, and no more of them than counted here.
"""

import ast
from pathlib import Path

import networkx as nx

import vecnet as vn
from vecnet.core.later import LATER

PACKAGE = Path(vn.__file__).parent

#: the stages in the order the data flows; a module belongs to the first prefix it matches
STAGES = (
    ("core", ("vecnet.errors", "vecnet.core")),
    ("graph", ("vecnet.graph",)),
    ("elements", ("vecnet.elements",)),
    ("builders", ("vecnet.builders",)),
    ("formulation", ("vecnet.formulation",)),
    ("numerics", ("vecnet.numerics",)),
    ("io", ("vecnet.io",)),
    ("studies", ("vecnet.studies",)),
    ("output", ("vecnet.output",)),
    ("interface", ("vecnet.planar", "vecnet.spatial", "vecnet.cli", "vecnet")),
)


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def stage(module: str) -> int:
    for number, (_, prefixes) in enumerate(STAGES):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return number
    raise AssertionError(f"{module} belongs to no stage")


def _imports(module: str, path: Path) -> list[tuple[str, int, bool]]:
    """``(imported module, line, at module level)`` for each vecnet import of ``module``
    (``if TYPE_CHECKING:`` blocks left out: they run only for the type checker)."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = []

    def target(base: str, name: str) -> str:
        return f"{base}.{name}" if f"{base}.{name}" in MODULES else base

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.ImportFrom):
                if child.level:
                    base = ".".join(package[:len(package) - child.level + 1]
                                    + ([child.module] if child.module else []))
                else:
                    base = child.module or ""
                if base.split(".")[0] == "vecnet":
                    found.extend((target(base, a.name), child.lineno, top) for a in child.names)
            elif isinstance(child, ast.Import):
                found.extend((a.name, child.lineno, top) for a in child.names
                             if a.name.split(".")[0] == "vecnet")
            else:
                inner = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                visit(child, top and not inner)

    visit(ast.parse(path.read_text(encoding="utf-8")), True)
    return found


def _calls(path: Path, function: str) -> list[tuple[str, int, str]]:
    """``function("name")`` calls in ``path`` (``later``, ``public``): the name given, the
    line and the name of the function the call stands in."""
    found = []

    def visit(node: ast.AST, inside: str) -> None:
        for child in ast.iter_child_nodes(node):
            here = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                else inside
            if (isinstance(child, ast.Call) and getattr(child.func, "id", None) == function
                    and child.args and isinstance(child.args[0], ast.Constant)):
                found.append((child.args[0].value, child.lineno, inside))
            visit(child, here)

    visit(ast.parse(path.read_text(encoding="utf-8")), "")
    return found


def _later_calls(path: Path) -> list[tuple[str, int]]:
    """``later("module")`` calls in ``path``: the module named and the line."""
    return [(name, line) for name, line, _ in _calls(path, "later")]


#: the display hooks a notebook or ``print`` calls, the only places ``later()`` serves
DISPLAY_HOOKS = {"_repr_latex_", "_repr_svg_", "_repr_html_", "__str__"}
#: how many ``later()`` calls remain, all in display hooks: a new one is a forward to a
#: public function (``vecnet.core.forwards.public``), not a reach into a later module
LATER_CALLS = 14


def test_every_module_belongs_to_a_stage_and_every_stage_has_modules():
    counts = [0] * len(STAGES)
    for module in MODULES:
        counts[stage(module)] += 1
    assert all(counts), dict(zip((s for s, _ in STAGES), counts))


def test_no_module_imports_a_later_stage():
    upward = [f"{MODULES[m].relative_to(PACKAGE.parent)}:{line} imports {imported}"
              f"{'' if top else ' (in a function)'}"
              for m, path in MODULES.items() for imported, line, top in _imports(m, path)
              if stage(imported) > stage(m)]
    assert upward == []


def test_the_imports_form_no_circle():
    graph = nx.DiGraph()
    graph.add_nodes_from(MODULES)
    for module, path in MODULES.items():
        graph.add_edges_from((module, imported) for imported, _, _ in _imports(module, path)
                             if imported != module)
    assert list(nx.simple_cycles(graph)) == []


def test_later_reaches_only_later_modules_and_each_named_module_is_used():
    used = set()
    for module, path in MODULES.items():
        for named, line in _later_calls(path):
            where = f"{path.relative_to(PACKAGE.parent)}:{line}"
            assert named in LATER, f"{where}: {named} is not in vecnet.core.later.LATER"
            # a later stage, or a later step of the same one (LinearGraph.topology)
            assert stage(named) >= stage(module) and named != module, f"{where}: import {named}"
            used.add(named)
    assert used == set(LATER)
    assert all(name in MODULES for name in LATER)


def test_the_display_hooks_close_no_circle_either():
    """Counted as imports, the ``later()`` calls of the display hooks form no circle: the
    printers tell the records apart by the names of their classes
    (:func:`vecnet.core.dispatch.class_named`), never importing them."""
    graph = nx.DiGraph()
    graph.add_nodes_from(MODULES)
    for module, path in MODULES.items():
        graph.add_edges_from((module, imported) for imported, _, _ in _imports(module, path)
                             if imported != module)
        graph.add_edges_from((module, named) for named, _ in _later_calls(path))
    assert list(nx.simple_cycles(graph)) == []


def test_later_serves_display_hooks_alone_and_no_more_of_them():
    calls = [(f"{path.relative_to(PACKAGE.parent)}:{line}", inside)
             for path in MODULES.values() for _, line, inside in _calls(path, "later")]
    assert [where for where, inside in calls if inside not in DISPLAY_HOOKS] == []
    assert len(calls) <= LATER_CALLS, calls


def test_every_forward_names_a_public_function_of_a_later_stage():
    seen = set()
    for module, path in MODULES.items():
        for name, line, _ in _calls(path, "public"):
            where = f"{path.relative_to(PACKAGE.parent)}:{line}"
            assert name in dir(vn), f"{where}: vecnet has no public {name!r}"
            home = getattr(vn, name).__module__
            assert stage(home) >= stage(module) and home != module, f"{where}: {name} in {home}"
            seen.add(name)
    # the algorithms the records' methods forward to
    assert {"simulate", "linearize", "equilibrium", "assemble", "forward_dynamics",
            "compile", "formulate", "state_space"} <= seen


def test_the_architecture_page_lists_the_stages_in_their_order():
    page = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    lines = page.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| stage"))
    table = lines[start + 2:]
    table = table[:next((i for i, line in enumerate(table) if not line.startswith("|")),
                        len(table))]
    rows = [line.split("|")[1].strip() for line in table]
    assert rows == [name for name, _ in STAGES]
