"""How floating-point numbers are shown: one rule for text, LaTeX and reports.

Numbers the user wrote exactly (``pi/2``, ``1/3`` in a model file's expression)
are sympy's exact numbers and are shown as they are; a decimal such as ``0.1``
is the double nearest to it, which shows as ``0.1`` again. Floats, which
come from numerics or from JSON numbers, are shown to :data:`DIGITS`
significant digits, and whole floats as integers (``2 m`` reads better than
``2.00000 m``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import sympy

__all__ = ["DIGITS", "format_number", "shown_number", "round_floats", "exact_rational",
           "labelled_table"]

#: Significant digits of a float in every listing, LaTeX formula and report.
DIGITS = 4
#: Whole floats below this size are shown as integers; larger ones keep the float form
#: (``5e+9`` rather than ten digits of ``5000000000``).
_WHOLE_LIMIT = 1e15


def shown_number(x: float, digits: int = DIGITS) -> sympy.Number:
    """The sympy number that shows ``x``: an Integer when whole, else a Float printed with at
    most ``digits`` significant digits (its precision is that of the digits shown, so it
    is for display only).

    >>> shown_number(1.5707963267948966), shown_number(2.0), shown_number(1.234e-7)
    (1.571, 2, 1.234e-7)
    """
    value = float(x)
    if value.is_integer() and abs(value) < _WHOLE_LIMIT:
        return sympy.Integer(int(value))
    return sympy.Float(f"{value:.{digits}g}", "")


def format_number(x: Any, digits: int = DIGITS) -> str:
    """``x`` (an int, float, numpy or sympy number) as text: exact numbers as they are,
    floats rounded by :func:`shown_number`.

    >>> format_number(0.08333333333333333), format_number(3), format_number(sympy.pi / 2)
    ('0.08333', '3', 'pi/2')
    """
    if isinstance(x, sympy.Basic):
        return sympy.sstr(round_floats(x, digits))
    if isinstance(x, (bool, int, np.bool_, np.integer)):
        return str(int(x))
    return sympy.sstr(shown_number(x, digits))


def round_floats(expr: Any, digits: int | None = DIGITS) -> Any:
    """``expr`` with every Float replaced by :func:`shown_number` (``None`` keeps them all).

    >>> m = sympy.Symbol("m")
    >>> round_floats(0.16000000000000003 * m + 3.9240000000000004)
    0.16*m + 3.924
    """
    if digits is None:
        return expr
    floats = {f: shown_number(f, digits) for f in expr.atoms(sympy.Float)}
    return expr.xreplace(floats) if floats else expr


@lru_cache(maxsize=4096)
def exact_rational(value: float) -> sympy.Rational:
    """The simplest rational a float stands for; cached because networks repeat a few values
    many times and the search is slow.

    >>> exact_rational(0.1), exact_rational(1 / 3)
    (1/10, 1/3)
    """
    return sympy.nsimplify(value, rational=True)


def labelled_table(body: Sequence[Sequence[str]], rows: Sequence[str], columns: Sequence[str],
                   split: int | None = None) -> str:
    """A table of text entries, right-aligned in columns of one width, the row labels on
    the left, the column labels above and a ``|`` before column ``split``.

    >>> print(labelled_table([["1", "0"], ["-1", "1"]], ["a", "b"], ["R", "C"], split=1))
       R |  C
    a  1 |  0
    b -1 |  1
    """
    width = max([len(c) for c in columns] + [len(x) for line in body for x in line] + [1])
    head = max([len(r) for r in rows] + [0])

    def line(label: str, items: Sequence[str]) -> str:
        parts = [x.rjust(width) for x in items]
        if split is not None and 0 < split < len(parts):
            parts.insert(split, "|")
        return (label.ljust(head) + " " + " ".join(parts)).rstrip()

    return "\n".join([line("", columns)] + [line(r, b) for r, b in zip(rows, body)])
