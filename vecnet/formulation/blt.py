"""Solving a square set of equations block by block (block lower triangular order).

Equations are matched to unknowns (a maximum bipartite matching), ordered by
the strongly connected components of their dependencies, and each block is
solved on its own: one linear unknown by division, a linear block by Gaussian
elimination (LU, never an inverse), a nonlinear single unknown by
``sympy.solve`` when it has one solution. What cannot be solved explicitly is
returned as implicit residuals with their unknowns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import sympy
from scipy.sparse import csr_array
from scipy.sparse.csgraph import maximum_bipartite_matching
from sympy.utilities.iterables import strongly_connected_components

from ..errors import FormulationError

__all__ = ["BlockSolution", "solve_blocks"]


@dataclass
class BlockSolution:
    """Explicit solutions, and the residuals ``0 = r(unknowns)`` left implicit."""

    explicit: dict[sympy.Symbol, sympy.Expr] = field(default_factory=dict)
    implicit_unknowns: list[sympy.Symbol] = field(default_factory=list)
    residuals: list[sympy.Expr] = field(default_factory=list)


def solve_blocks(equations: Sequence[sympy.Expr], unknowns: Sequence[sympy.Symbol],
                 labels: Sequence[str],
                 derivatives: Mapping[sympy.Symbol, sympy.Symbol] | None = None,
                 time_derivative: Callable[[sympy.Expr], sympy.Expr] | None = None) -> BlockSolution:
    """Solve ``equations`` (expressions equal to zero) for ``unknowns``.

    ``labels`` name the equations (by element) for error messages.
    ``derivatives`` maps placeholder symbols to the unknowns whose time
    derivatives they stand for (a dependent energy store differentiates an
    algebraic variable); once that unknown is solved, the placeholder becomes
    ``time_derivative(solution)``.

    Raises
    ------
    FormulationError
        The equations are structurally singular: no unknown can be assigned to
        some equations (the message names them).

    Examples
    --------
    >>> x, y = sympy.symbols("x y")
    >>> solve_blocks([x - 2 * y, y - 3], [x, y], ["e1", "e2"]).explicit
    {y: 3, x: 6}
    """
    if len(equations) != len(unknowns):
        raise FormulationError(f"{len(equations)} equations for {len(unknowns)} unknowns")
    column = {u: j for j, u in enumerate(unknowns)}
    incidence = [sorted(column[u] for u in eq.free_symbols if u in column) for eq in equations]
    solves = _matching(incidence, len(unknowns))
    unmatched = [i for i, j in enumerate(solves) if j < 0]
    if unmatched:
        matched = set(solves)
        free = [u for j, u in enumerate(unknowns) if j not in matched]
        raise FormulationError(
            "the equations of " + ", ".join(sorted({labels[i] for i in unmatched}))
            + " cannot be solved: they over-determine the variables they contain while "
            + ", ".join(map(str, free)) + " stay undetermined (a structurally singular network)")
    owner = {j: i for i, j in enumerate(solves)}
    derivatives = dict(derivatives or {})
    needs = [(owner[j], i) for i, js in enumerate(incidence) for j in js if owner[j] != i]
    needs += [(owner[column[derivatives[d]]], i) for i, eq in enumerate(equations)
              for d in eq.free_symbols & set(derivatives)]
    # Tarjan's components come sinks first; an equation's block is solved after the
    # blocks that solve the unknowns it reads.
    blocks = strongly_connected_components((list(range(len(equations))), needs))[::-1]
    result = BlockSolution()
    for block in blocks:
        members = sorted(block)
        block_vars = [unknowns[solves[i]] for i in members]
        rates = {}
        for d in set().union(*(equations[i].free_symbols for i in members)) & set(derivatives):
            base = derivatives[d]
            if base not in result.explicit:
                raise FormulationError(
                    f"the equations of {', '.join(sorted({labels[i] for i in members}))} need the "
                    f"derivative of {base}, which is not known explicitly (a higher-index model)")
            rates[d] = time_derivative(result.explicit[base])
        block_eqs = [equations[i].xreplace(rates).xreplace(result.explicit) for i in members]
        solution = _solve_block(block_eqs, block_vars)
        if solution is None:
            result.implicit_unknowns.extend(block_vars)
            result.residuals.extend(block_eqs)
        else:
            result.explicit.update(solution)
    return result


def _matching(incidence: list[list[int]], columns: int) -> list[int]:
    """The unknown each equation solves (Hopcroft and Karp's maximum matching), -1 where
    none is left for it."""
    rows = np.repeat(np.arange(len(incidence)), [len(js) for js in incidence])
    cols = np.fromiter((j for js in incidence for j in js), dtype=np.int64, count=len(rows))
    graph = csr_array((np.ones(len(rows)), (rows, cols)), shape=(len(incidence), columns))
    return maximum_bipartite_matching(graph, perm_type="column").tolist()


def _solve_block(eqs: list[sympy.Expr], unknowns: list[sympy.Symbol]) -> dict | None:
    if len(eqs) == 1:
        eq, u = eqs[0], unknowns[0]
        slope = eq.diff(u)
        if u not in slope.free_symbols and slope != 0:
            return {u: sympy.expand(-eq.xreplace({u: 0}) / slope) if slope.is_number
                    else -eq.xreplace({u: 0}) / slope}
        try:
            roots = sympy.solve(eq, u, dict=False)
        except (NotImplementedError, ValueError):
            return None
        return {u: roots[0]} if len(roots) == 1 else None
    jacobian = sympy.Matrix(eqs).jacobian(unknowns)
    if jacobian.free_symbols & set(unknowns):
        return None
    rhs = -sympy.Matrix(eqs).xreplace({u: 0 for u in unknowns})
    try:
        values = jacobian.LUsolve(rhs)
    except (ValueError, ZeroDivisionError):
        return None
    return dict(zip(unknowns, values))
