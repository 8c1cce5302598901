"""Coupled inductors: several windings that share one magnetic field, a multiport T-type
store.

Winding ``i`` is the edge ``<name>.<winding>`` from its ``tail`` to its ``head`` (nodes
``tail_1, head_1, tail_2, head_2, ...``), with the terminal equations

    a_i = sum_j L_ij dtau_j/dt,

``L`` the symmetric inductance matrix: self inductances on the diagonal, mutual
inductances ``M_ij = k_ij sqrt(L_i L_j)`` off it. The dot of each winding is at its head
(the ``n+`` end of a SPICE ``L`` card): a current entering one dot induces a positive
voltage at the others when ``M > 0``.

Numbers are checked when given: each ``L_i`` positive, each coupling coefficient
``k_ij = M_ij / sqrt(L_i L_j)`` within ``[-1, 1]`` and the matrix positive semidefinite
(it stores the energy ``tau^T L tau / 2``, never negative). ``|k| = 1`` (perfect coupling)
has a singular ``L``: the windings then have fewer independent currents than edges, and
the formulations refuse it in words; the ideal transformer is its limit ``k -> 1``,
``L -> oo`` (:class:`~vecnet.Transformer`).

In the normal tree every winding is a T-type edge: chords preferred, a winding forced into
the tree is a dependent store.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import sympy

from ..core.bounds import check_count
from ..errors import ModelError
from .base import EdgeVariables, Element, Kind, equation, t

__all__ = ["CoupledInductors"]


class CoupledInductors(Element):
    """Windings coupled by mutual inductance (electrical), ``a_i = sum_j L_ij dtau_j/dt``.

    Parameters
    ----------
    name : str
    *nodes
        ``tail, head`` of each winding, in order (the dot at the head).
    L : square matrix (nested sequences) of numbers or sympy expressions
        The inductance matrix, symmetric.
    windings : sequence of str, optional
        The windings' port names (``"1", "2", ...`` by default): edge ``<name>.<winding>``.

    Raises
    ------
    ModelError
        ``L`` not square or not symmetric, fewer than two windings, a self inductance not
        positive, a coupling coefficient outside ``[-1, 1]``, or a matrix that is not
        positive semidefinite (numbers only; symbols are not checked).

    >>> T = CoupledInductors("T", "0", "a", "0", "b", L=[[1.0, 0.5], [0.5, 4.0]])
    >>> [e.name for e in T.edges], T.coupling_coefficient(0, 1)
    (['T.1', 'T.2'], 0.25)
    """

    kind = Kind.THROUGH_STORE
    domain = "electrical"

    def __init__(self, name: str, *nodes: Hashable, L: Sequence[Sequence[Any]],
                 windings: Sequence[str] | None = None) -> None:
        rows = _square(name, L)
        n = len(rows)
        problem = check_count(n, "max_windings", "windings")
        if problem:
            raise ModelError(f"CoupledInductors {name!r} has {problem}")
        if n < 2:
            raise ModelError(f"CoupledInductors {name!r} needs at least two windings; a single "
                             "one is an Inductor")
        self.ports = tuple(windings) if windings is not None else tuple(
            str(i + 1) for i in range(n))
        if len(self.ports) != n or len(set(self.ports)) != n:
            raise ModelError(f"CoupledInductors {name!r}: give {n} distinct winding names, one "
                             f"per row of L; got {list(self.ports)}")
        pairs = list(itertools.combinations(range(n), 2))
        self.parameter_names = (*(f"L{i + 1}" for i in range(n)),
                                *(f"M{i + 1}{j + 1}" for i, j in pairs))
        for i, j in pairs:
            if sympy.sympify(rows[i][j]) != sympy.sympify(rows[j][i]):
                raise ModelError(f"CoupledInductors {name!r}: L must be symmetric; L[{i}][{j}] = "
                                 f"{rows[i][j]} but L[{j}][{i}] = {rows[j][i]}")
        given = {f"L{i + 1}": rows[i][i] for i in range(n)}
        given.update({f"M{i + 1}{j + 1}": rows[i][j] for i, j in pairs})
        super().__init__(name, *nodes, **given)
        self._check_numbers()

    @classmethod
    def coupled(cls, name: str, *nodes: Hashable, L: Sequence[Any], k: Any,
                windings: Sequence[str] | None = None) -> CoupledInductors:
        """Two windings of self inductances ``L = (L1, L2)`` and coupling coefficient ``k``:
        ``M = k sqrt(L1 L2)``.

        Raises :class:`~vecnet.errors.ModelError` when a number ``k`` is outside ``[-1, 1]``.

        >>> CoupledInductors.coupled("T", "0", "a", "0", "b", L=(1.0, 4.0), k=0.5).values
        {L1_T: 1.0, L2_T: 4.0, M12_T: 1.0}
        """
        if len(L) != 2:
            raise ModelError(f"CoupledInductors {name!r}: coupled() takes the two self "
                             f"inductances L = (L1, L2); got {len(L)} value(s)")
        L1, L2 = L
        if _is_number(k):
            if not -1 <= float(k) <= 1:
                raise ModelError(f"CoupledInductors {name!r}: coupling coefficient k = {k} is "
                                 "outside [-1, 1]; |k| <= 1 for any passive pair of windings")
            if all(map(_is_number, L)):
                M = float(k) * math.sqrt(float(L1) * float(L2))
            else:
                M = sympy.nsimplify(k) * sympy.sqrt(sympy.sympify(L1) * sympy.sympify(L2))
        else:
            M = k * sympy.sqrt(sympy.sympify(L1) * sympy.sympify(L2))
        return cls(name, *nodes, L=[[L1, M], [M, L2]], windings=windings)

    @property
    def inductance(self) -> sympy.Matrix:
        """The inductance matrix in the parameters' symbols."""
        n = len(self.edges)
        return sympy.Matrix(n, n, lambda i, j: self.symbol(self._entry(i, j)))

    def _entry(self, i: int, j: int) -> str:
        """The parameter name of ``L[i][j]``."""
        if i == j:
            return f"L{i + 1}"
        i, j = sorted((i, j))
        return f"M{i + 1}{j + 1}"

    def numeric_inductance(self) -> np.ndarray | None:
        """The inductance matrix as numbers, or ``None`` when an entry is a symbol."""
        n = len(self.edges)
        values = [[self.parameters[self._entry(i, j)].value for j in range(n)] for i in range(n)]
        if any(v is None for row in values for v in row):
            return None
        return np.array(values, dtype=float)

    def coupling_coefficient(self, i: int, j: int) -> float | None:
        """``k_ij = M_ij / sqrt(L_i L_j)`` of windings ``i`` and ``j`` (0-based), or ``None``
        when a value is a symbol."""
        L = self.numeric_inductance()
        return None if L is None else float(L[i, j] / math.sqrt(L[i, i] * L[j, j]))

    def _check_numbers(self) -> None:
        what = f"CoupledInductors {self.name!r}"
        for i in range(len(self.edges)):
            value = self.parameters[f"L{i + 1}"].value
            if value is not None and value <= 0:
                raise ModelError(f"{what}: self inductance L{i + 1} = {value:g} must be positive")
        L = self.numeric_inductance()
        if L is None:
            return
        for i, j in itertools.combinations(range(len(L)), 2):
            k = self.coupling_coefficient(i, j)
            if abs(k) > 1 + 1e-12:
                raise ModelError(
                    f"{what}: coupling coefficient k = M{i + 1}{j + 1}/sqrt(L{i + 1} L{j + 1}) = "
                    f"{k:.6g} of windings {self.ports[i]!r} and {self.ports[j]!r} is outside "
                    "[-1, 1]: no passive windings couple that strongly; lower the mutual "
                    "inductance")
        smallest = float(np.linalg.eigvalsh(L).min())
        if smallest < -1e-12 * float(np.abs(L).max()):
            raise ModelError(f"{what}: the inductance matrix is not positive semidefinite "
                             f"(eigenvalue {smallest:.6g}): some currents would store negative "
                             "energy; lower the mutual inductances")

    def terminal_equations(self, variables: Mapping[str, EdgeVariables]) -> list[sympy.Eq]:
        v = [variables[e.name] for e in self.edges]
        L = self.inductance
        return [equation(v[i].across, sum((L[i, j] * v[j].through.diff(t)
                                           for j in range(len(v))), sympy.Integer(0)))
                for i in range(len(v))]


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _square(name: str, L: Any) -> list[list[Any]]:
    """The rows of ``L``, refused unless it is a square matrix."""
    try:
        rows = [list(row) for row in (L.tolist() if hasattr(L, "tolist") else L)]
    except TypeError:
        raise ModelError(f"CoupledInductors {name!r}: L is the inductance matrix, a list of "
                         f"rows such as [[L1, M], [M, L2]]; got {L!r}") from None
    if any(len(row) != len(rows) for row in rows):
        raise ModelError(f"CoupledInductors {name!r}: L must be square, one row and one column "
                         f"per winding; got rows of lengths {[len(r) for r in rows]}")
    return rows
