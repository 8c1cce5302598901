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

import sympy

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
    import networkx as nx  # here: a network's numeric commands never need it

    if len(equations) != len(unknowns):
        raise FormulationError(f"{len(equations)} equations for {len(unknowns)} unknowns")
    wanted = set(unknowns)
    incidence = [eq.free_symbols & wanted for eq in equations]
    bipartite = nx.Graph()
    eq_nodes = [("eq", i) for i in range(len(equations))]
    bipartite.add_nodes_from(eq_nodes)
    bipartite.add_nodes_from(("var", u) for u in unknowns)
    bipartite.add_edges_from((("eq", i), ("var", u)) for i, vs in enumerate(incidence) for u in vs)
    matching = nx.bipartite.hopcroft_karp_matching(bipartite, top_nodes=eq_nodes)
    unmatched = [i for i in range(len(equations)) if ("eq", i) not in matching]
    if unmatched:
        free = [u for u in unknowns if ("var", u) not in matching]
        raise FormulationError(
            "the equations of " + ", ".join(sorted({labels[i] for i in unmatched}))
            + " cannot be solved: they over-determine the variables they contain while "
            + ", ".join(map(str, free)) + " stay undetermined (a structurally singular network)")
    solves = {i: matching[("eq", i)][1] for i in range(len(equations))}
    owner = {u: i for i, u in solves.items()}
    derivatives = dict(derivatives or {})
    depends = nx.DiGraph()
    depends.add_nodes_from(range(len(equations)))
    depends.add_edges_from((owner[u], i) for i, vs in enumerate(incidence) for u in vs if owner[u] != i)
    depends.add_edges_from((owner[derivatives[d]], i) for i, eq in enumerate(equations)
                           for d in eq.free_symbols & set(derivatives))
    blocks = nx.condensation(depends)
    result = BlockSolution()
    for block in nx.topological_sort(blocks):
        members = sorted(blocks.nodes[block]["members"])
        block_vars = [solves[i] for i in members]
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
