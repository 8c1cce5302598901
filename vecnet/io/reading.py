"""What the network and mechanism readers of model files share: the declared parameters
and how values that use them are read (:class:`Scope`), names, suggestions, nonlinear
laws, the tree and the simulation settings."""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping
from typing import Any

import sympy

from ..builders.model import Model
from ..core.names import check_name
from ..elements.base import Symbol
from ..errors import ModelFileError
from .expressions import CONSTANTS, FUNCTIONS, parse_expression
from .source import pointer

__all__ = ["Scope", "FileLaw", "as_number", "unique_name", "suggestion", "read_tree",
           "read_simulation"]

_RESERVED = {"t"} | set(CONSTANTS) | set(FUNCTIONS)


def _error(location: str, message: str) -> ModelFileError:
    return ModelFileError(message, location=location)


class Scope:
    """The declared parameters and how to read values that use them."""

    def __init__(self, declared: Mapping[str, float | None]) -> None:
        for name in declared:
            check_name(name, "parameter name", pointer("parameters", name))
            if name in _RESERVED:
                raise _error(pointer("parameters", name),
                             f"{name!r} is a built-in name (t, pi, e and the functions); "
                             "choose another parameter name")
        self.values = {n: (None if v is None else float(v)) for n, v in declared.items()}
        self.symbols = {n: Symbol(n) for n in declared}
        self.numeric = {self.symbols[n]: sympy.Float(v) for n, v in self.values.items()
                        if v is not None}

    def expr(self, value: Any, loc: str, *, time: bool = False,
             extra: Mapping[str, sympy.Expr] | None = None) -> sympy.Expr:
        """A number or an expression over the declared names (and ``extra``)."""
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise _error(loc, f"expected a number or an expression, got {value!r}")
        if isinstance(value, (int, float)):
            return sympy.Float(float(value))
        names = dict(self.symbols)
        for key, symbol in (extra or {}).items():
            if key in names:
                raise _error(loc, f"parameter {key!r} has the name of a variable here; rename it")
            names[key] = symbol
        return parse_expression(value, names, loc, time=time)

    def raw(self, value: Any, loc: str, *, time: bool = False) -> Any:
        """Numbers stay Python floats (an element then keeps them as values of its own
        symbols), text becomes a sympy expression."""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        return self.expr(value, loc, time=time)

    def number(self, value: Any, loc: str, exact: bool = False) -> float | sympy.Expr:
        """A value that must be a number once the declared values are put in (with
        ``exact``, as the sympy number it is: ``pi/2`` stays ``pi/2``)."""
        expr = self.expr(value, loc).xreplace(self.numeric)
        missing = sorted(map(str, expr.free_symbols))
        if missing:
            raise _error(loc, f"needs a number, but parameter(s) {', '.join(missing)} have no "
                              "value; give them one under \"parameters\"")
        try:
            number = float(expr)
        except (TypeError, ValueError, OverflowError):  # sqrt(l - 1) with l = 0.4
            raise _error(loc, f"the value {expr} is not a real number") from None
        if not math.isfinite(number):
            raise _error(loc, "the value is not finite")
        return expr if exact else number

    def vector(self, values: list, loc: str) -> tuple[float, ...]:
        """Numbers (see :meth:`number`) of a list, e.g. a position or an axis."""
        return tuple(self.number(v, f"{loc}/{k}") for k, v in enumerate(values))


def read_simulation(doc: Mapping, model: Model) -> None:
    """The file's ``simulation`` settings (``t_span``, ``points``, ``step``) onto ``model``."""
    sim = doc.get("simulation")
    if sim is None:
        return
    t0, t1 = (float(x) for x in sim["t_span"])
    if not t1 > t0:
        raise _error("/simulation/t_span", f"the end time {t1:g} must come after the start {t0:g}")
    if "step" in sim and model.kind == "network":
        raise _error("/simulation/step", "a step goes with a mechanism's or a system's fixed-step "
                     "methods; a network's integrators choose their own")
    model.t_span, model.points, model.step = (t0, t1), sim.get("points"), sim.get("step")


def unique_outputs(doc: Mapping) -> None:
    """Refuse an output the file's ``outputs`` list twice: each would be computed, drawn and
    written again (a thousand repeats cost a report a minute)."""
    first: dict[str, int] = {}
    for k, name in enumerate(doc.get("outputs", [])):
        if name in first:
            raise _error(f"/outputs/{k}", f"output {name!r} is listed already (at "
                                          f"/outputs/{first[name]}); list each output once")
        first[name] = k


def unique_name(names: dict[str, str], name: str, loc: str) -> None:
    """Check a name of the file (element, body, joint, force, drive) against the name
    policy of :mod:`vecnet.core.names` and against the names already used."""
    check_name(name, "name", loc)
    if name in names:
        raise _error(loc, f"duplicate name {name!r} (also at {names[name]})")
    names[name] = loc


def suggestion(word: str, choices: Iterable[str]) -> str:
    """"; did you mean ...?" with the choice closest to ``word``, or nothing."""
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""



class FileLaw:
    """A nonlinear law read from a file: ``expression`` with ``variable`` replaced by the
    argument (the callable :class:`~vecnet.NonlinearDissipator` wants)."""

    def __init__(self, expression: sympy.Expr, variable: sympy.Symbol) -> None:
        self.expression, self.variable = expression, variable

    def __call__(self, x):
        return self.expression.xreplace({self.variable: x})



def as_number(value: Any, scope: Scope) -> float | None:
    """A number, or an expression whose declared parameters all have values, as a float;
    ``None`` when it still holds a symbol without one."""
    if isinstance(value, float):
        return value
    expr = value.xreplace(scope.numeric)
    return float(expr) if expr.is_number and expr.is_real else None


def read_tree(tree: list, edges: Iterable[str], refused: Mapping[str, str] | None = None
              ) -> list[str]:
    """The branch names of a file's ``tree``: edges of the system, each once; ``refused``
    maps edges that cannot be branches to the reason."""
    known = list(edges)
    seen: set[str] = set()
    for k, edge in enumerate(tree):
        if edge not in known:
            raise _error(f"/tree/{k}", f"no edge {edge!r}{suggestion(edge, known)}")
        if edge in seen:
            raise _error(f"/tree/{k}", f"edge {edge!r} is listed twice")
        if refused and edge in refused:
            raise _error(f"/tree/{k}", refused[edge])
        seen.add(edge)
    return list(tree)
