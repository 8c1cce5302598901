"""A mechanism's ``M`` and ``Q`` made readable, within bounds on the work.

The formulations build ``M(q)`` and ``Q(q, u, t)`` as products of the bodies' Jacobians,
unexpanded: correct and quick to compile, but not what a lecturer writes. Three steps
bring them closer, each applied only where it stays cheap:

1. **expand** an entry from the leaves up, like terms combined after every product, as
   long as no product needs more than :data:`ENTRY_TERMS` terms (checked before it is
   formed, so a large entry costs no more than the bound); only products that hold speeds
   or quaternions, what the next steps work on (``k (theta + pi/2)`` stays);
2. take out the **unit norm of every quaternion** ``w^2 + x^2 + y^2 + z^2 = 1`` of the
   coordinates after every product: every even power of ``w`` is replaced
   (``w^2 -> 1 - x^2 - y^2 - z^2``). On the expanded polynomial that is the remainder of
   division by the norm, a canonical form, so that ``R^T R`` of a quaternion's rotation
   comes out as the identity and a top's body-axis mass matrix as ``diag(J1, J2, J3)``;
3. drop what rounding leaves of terms that cancel (``1e-16 m``), **collect** the terms by
   the speeds they multiply (``(J3 - J1) w1 w2``), the speed-free rest with its common
   factors taken out (``g m (...)``), and write floating-point numbers that are whole
   (``1.0``) as integers.

An entry is kept as formulated when its expansion would pass the bound, or when the
tidied form is much larger than the original (more than a quarter and :data:`GROWTH`
nodes larger: a product of short factors multiplied out). In all, at most
:data:`TOTAL_TERMS` terms of an ``M``, ``Q`` and constraints are tidied; beyond that they
stay as formulated. The bounds are counts, never times (:mod:`vecnet.core.bounds`).
Tidying changes how the equations read, never their value on the unit quaternions: the
formulations keep ``M`` and ``Q`` as built, and the listings show the tidied copies.

>>> w, x, y, z = sympy.symbols("w x y z")
>>> R = sympy.Matrix([[w**2 + x**2 - y**2 - z**2, 2*(x*y - w*z), 2*(x*z + w*y)],
...                   [2*(x*y + w*z), w**2 - x**2 + y**2 - z**2, 2*(y*z - w*x)],
...                   [2*(x*z - w*y), 2*(y*z + w*x), w**2 - x**2 - y**2 + z**2]])
>>> (R.T * R).applyfunc(lambda e: tidy(e, [(w, x, y, z)]))
Matrix([
[1, 0, 0],
[0, 1, 0],
[0, 0, 1]])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import sympy

__all__ = ["ENTRY_TERMS", "TOTAL_TERMS", "unit_quaternions", "tidy", "tidy_all",
           "quaternions_of"]

#: Most terms a product may have, as an entry is expanded, for the entry to be expanded.
ENTRY_TERMS = 600
#: A tidied entry is kept when it has at most a quarter more nodes than the original, and
#: this many.
GROWTH = 20
#: Most terms (nodes of the expression trees) of the expressions tidied in one call of
#: :func:`tidy_all`; the others are left as formulated.
TOTAL_TERMS = 20_000


def _nodes(expr: sympy.Basic, cap: int) -> int:
    """The nodes of an expression tree, counted up to just above ``cap``."""
    count, stack = 0, [expr]
    while stack and count <= cap:
        count += 1
        stack.extend(stack.pop().args)
    return count


def quaternions_of(eom: Any) -> list[tuple[sympy.Symbol, ...]]:
    """The unit quaternions ``(w, x, y, z)`` among a mechanism's coordinates (the
    coordinates named ``<branch>.qw ... <branch>.qz``)."""
    names = list(getattr(eom, "coordinates", ()))
    out = []
    for i, name in enumerate(names):
        if name.endswith(".qw") and names[i + 1:i + 4] == [name[:-1] + c for c in "xyz"]:
            out.append(tuple(eom.q[i:i + 4]))
    return out


def unit_quaternions(expr: sympy.Expr, quaternions: Iterable[Sequence[sympy.Symbol]]
                     ) -> sympy.Expr:
    """``expr`` (expanded) with the unit norm of each quaternion ``(w, x, y, z)`` taken out:
    ``w^(2k + e) -> w^e (1 - x^2 - y^2 - z^2)^k``, expanded again; on a polynomial in the
    quaternions that is the remainder of division by ``w^2 + x^2 + y^2 + z^2 - 1``.

    >>> w, x, y, z = sympy.symbols("w x y z")
    >>> unit_quaternions(w**2 + x**2 + y**2 + z**2, [(w, x, y, z)])
    1
    """
    for w, x, y, z in quaternions:
        if not expr.has(w):
            continue
        rest = 1 - x**2 - y**2 - z**2

        def even(power: sympy.Pow, w=w, rest=rest) -> sympy.Expr:
            k, e = divmod(int(power.exp), 2)
            return w**e * rest**k

        swapped = expr.replace(
            lambda e, w=w: isinstance(e, sympy.Pow) and e.base == w and e.exp.is_Integer
            and e.exp >= 2, even)
        if swapped != expr:
            expr = sympy.expand(swapped)
    return expr


class _TooLarge(Exception):
    """An expansion would pass its bound."""


def _expand(expr: sympy.Expr, cap: int, quaternions: Sequence[Sequence[sympy.Symbol]],
            keys: frozenset = frozenset()) -> sympy.Expr:
    """``expr`` expanded from the leaves up, like terms combined and the quaternions' unit
    norm taken out after every product (which keeps the degrees, and so the terms, low);
    the arguments of functions (``cos(a + b)``) are left as they are, and so is a product
    without any of the ``keys`` (the speeds and quaternions, what the terms are collected
    and reduced by: ``k (theta + pi/2)`` stays). Raises :class:`_TooLarge` as soon as a
    product would need more than ``cap`` terms."""
    if keys and not (expr.free_symbols & keys):
        return expr
    if isinstance(expr, sympy.Add):
        out = sympy.Add(*(_expand(a, cap, quaternions, keys) for a in expr.args))
        if len(sympy.Add.make_args(out)) > cap:
            raise _TooLarge
        return out
    if isinstance(expr, sympy.Pow) and expr.exp.is_Integer and 1 < expr.exp <= 16 \
            and isinstance(expr.base, sympy.Add):
        factors = [expr.base] * int(expr.exp)
    elif isinstance(expr, sympy.Mul):
        factors = list(expr.args)
    else:
        return expr
    out: sympy.Expr = sympy.S.One
    for factor in factors:
        part = _expand(factor, cap, quaternions, keys)
        terms, more = sympy.Add.make_args(out), sympy.Add.make_args(part)
        if len(terms) * len(more) > cap:
            raise _TooLarge
        out = sympy.Add(*(a * b for a in terms for b in more)) if len(more) > 1 \
            or len(terms) > 1 else out * part
        present = [p for p in quaternions if out.has(p[0])]
        if present:
            out = unit_quaternions(out, present)
        if len(sympy.Add.make_args(out)) > cap:
            raise _TooLarge
    return out


def _chop(expr: sympy.Expr, relative: float = 1e-12) -> sympy.Expr:
    """A sum without the terms whose floating-point coefficient is below ``relative``
    times the largest one: what rounding leaves of terms that cancel (``0.2^2 - 0.04``)."""
    terms = sympy.Add.make_args(expr)
    if len(terms) < 2 or not expr.has(sympy.Float):
        return expr
    sizes = [abs(float(t.as_coeff_Mul()[0])) for t in terms]
    largest = max(sizes)
    kept = [t for t, size in zip(terms, sizes)
            if not (isinstance(t.as_coeff_Mul()[0], sympy.Float) and size < relative * largest)]
    return sympy.Add(*kept) if len(kept) < len(terms) else expr


def _whole_numbers(expr: sympy.Expr) -> sympy.Expr:
    """Floating-point numbers that are whole (``1.0``, ``-2.0``) as integers."""
    swap = {f: sympy.Integer(int(f)) for f in expr.atoms(sympy.Float)
            if f.is_finite and float(f).is_integer()}
    return expr.xreplace(swap) if swap else expr


def _common_factor(expr: sympy.Expr) -> sympy.Expr:
    """A sum with the factors common to all its terms taken out (``g m a + g m b`` as
    ``g m (a + b)``): the powers of symbols and functions every term holds, each to its
    lowest exponent, and a number when every term has the same one (up to its sign).
    Linear in the terms, unlike ``sympy.factor_terms``."""
    terms = sympy.Add.make_args(expr)
    if len(terms) < 2:
        return expr
    common: dict | None = None
    for term in terms:
        powers = {b: e for b, e in term.as_powers_dict().items()
                  if not b.is_Number and e.is_Integer and e > 0}
        common = powers if common is None else {
            b: min(e, powers[b]) for b, e in common.items() if b in powers}
        if not common:
            return expr
    factor = sympy.Mul(*(b**e for b, e in (common or {}).items()))
    numbers = {abs(t.as_coeff_Mul()[0]) for t in terms}
    if len(numbers) == 1 and numbers != {1}:    # one number in every term: out with it too
        factor *= numbers.pop()
    return sympy.Mul(factor, sympy.Add(*(t / factor for t in terms)), evaluate=False) \
        if factor != 1 else expr


def _collect(expr: sympy.Expr, speeds: Sequence[sympy.Symbol]) -> sympy.Expr:
    """The terms of a sum grouped by the product of speeds each holds (``(a + b) u1 u2``),
    each group's coefficient and the speed-free rest with their common factors out."""
    groups: dict[sympy.Expr, list[sympy.Expr]] = {}
    for term in sympy.Add.make_args(expr):
        coefficient, speed_part = term.as_independent(*speeds, as_Add=False)
        groups.setdefault(speed_part, []).append(coefficient)
    parts = []
    for speed_part, coefficients in groups.items():
        coefficient = _common_factor(sympy.Add(*coefficients))
        parts.append(sympy.Mul(coefficient, speed_part, evaluate=True)
                     if speed_part != 1 else coefficient)
    return sympy.Add(*parts)


def tidy(expr: Any, quaternions: Sequence[Sequence[sympy.Symbol]] = (),
         speeds: Sequence[sympy.Symbol] = (), trig: bool = False) -> Any:
    """One expression tidied as the module notes say (expanded while the expansion stays
    within :data:`ENTRY_TERMS` terms, the quaternions' unit norm taken out, the terms that
    rounding leaves of a cancellation dropped, terms collected by the ``speeds``), or as it
    is when that would make it larger; ``trig`` adds ``sympy.trigsimp`` (slow on large
    entries).

    >>> w, x, y, z, u = sympy.symbols("w x y z u")
    >>> tidy(2.0 * (w**2 + x**2 + y**2 + z**2) * u**2 + 3 * u**2, [(w, x, y, z)], [u])
    5*u**2
    """
    expr = sympy.sympify(expr)
    if not isinstance(expr, sympy.Expr) or expr.is_Number:
        return _whole_numbers(expr) if isinstance(expr, sympy.Float) else expr
    before = _nodes(expr, 10 * ENTRY_TERMS)
    keys = frozenset(speeds) | frozenset(x for p in quaternions for x in p)
    try:
        out = _chop(_expand(expr, ENTRY_TERMS, quaternions, keys))
    except _TooLarge:
        out = expr
    else:
        present = [s for s in speeds if out.has(s)]
        out = _collect(out, present) if present else _common_factor(out)
    out = _whole_numbers(out)
    if trig:
        out = sympy.trigsimp(out)
    # collected by the speeds a sum may take a few more nodes and still read better; much
    # larger (a product of short factors multiplied out), it reads worse
    return out if _nodes(out, 2 * before + GROWTH) <= before * 5 // 4 + GROWTH \
        else _whole_numbers(expr)


def tidy_all(expressions: Sequence[Any], quaternions: Sequence[Sequence[sympy.Symbol]] = (),
             speeds: Sequence[sympy.Symbol] = (), trig: bool = False,
             budget: int = TOTAL_TERMS) -> tuple[list[Any], int]:
    """:func:`tidy` applied to each of ``expressions`` while the terms tidied stay within
    ``budget`` (:data:`TOTAL_TERMS`); returns the expressions and how many were left as
    they were because the budget was spent."""
    out, spent, left = [], 0, 0
    for expr in expressions:
        size = _nodes(sympy.sympify(expr), budget)
        if spent + size > budget:
            out.append(expr)
            left += 1
            continue
        spent += size
        out.append(tidy(expr, quaternions, speeds, trig))
    return out, left
