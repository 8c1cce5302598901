"""Matrices that carry their row and column labels.

Topology matrices are read by people ("which edge is this column?") as often
as they are computed with. :class:`LabeledMatrix` keeps the labels beside a
dense numpy array or a scipy.sparse matrix, prints as an aligned table and
converts to numpy, scipy.sparse or sympy on request.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
import sympy

from ..core.later import later
from ..core.numbers import labelled_table
from ..errors import UnknownNameError

__all__ = ["LabeledMatrix"]


class LabeledMatrix:
    """A 2-D matrix with row labels and column labels.

    Parameters
    ----------
    values : numpy.ndarray or scipy.sparse matrix
        The entries, ``len(rows)`` by ``len(columns)``.
    rows, columns : sequence of hashable
        Labels, one per row and one per column, each unique.
    split : int, optional
        Column index before which a vertical bar is printed, as in
        ``[1 | A_c]``. Only affects printing.

    Examples
    --------
    >>> import numpy as np
    >>> m = LabeledMatrix(np.array([[1, -1]]), rows=["a"], columns=["x", "y"])
    >>> m["a", "y"]
    -1
    >>> print(m)
       x  y
    a  1 -1
    """

    __slots__ = ("values", "rows", "columns", "split", "_row_index", "_col_index")

    def __init__(self, values: Any, rows: Sequence[Hashable], columns: Sequence[Hashable],
                 split: int | None = None) -> None:
        self.values = values
        self.rows = tuple(rows)
        self.columns = tuple(columns)
        self.split = split
        if values.shape != (len(self.rows), len(self.columns)):
            raise ValueError(f"matrix of shape {values.shape} needs {values.shape[0]} row and "
                             f"{values.shape[1]} column labels, got {len(self.rows)} and {len(self.columns)}")
        self._row_index: dict | None = None  # built on first lookup: large matrices rarely need it
        self._col_index: dict | None = None

    @property
    def shape(self) -> tuple[int, int]:
        return self.values.shape

    @property
    def issparse(self) -> bool:
        """True when the entries are stored as a scipy.sparse matrix."""
        return sp.issparse(self.values)

    def toarray(self) -> np.ndarray:
        """The entries as a dense numpy array."""
        return self.values.toarray() if self.issparse else np.asarray(self.values)

    def tosparse(self) -> sp.csr_matrix:
        """The entries as a scipy.sparse CSR matrix."""
        return sp.csr_matrix(self.values)

    def to_sympy(self) -> sympy.Matrix:
        """The entries as an immutable sympy matrix (exact integers stay integers)."""
        return sympy.ImmutableMatrix(self.toarray().tolist())

    @property
    def T(self) -> LabeledMatrix:
        """The transpose, labels swapped."""
        return LabeledMatrix(self.values.T, self.columns, self.rows)

    def row_index(self, label: Hashable) -> int:
        if self._row_index is None:
            self._row_index = {r: i for i, r in enumerate(self.rows)}
        try:
            return self._row_index[label]
        except KeyError:
            raise UnknownNameError(f"no row labelled {label!r}; rows are {list(self.rows)}") from None

    def column_index(self, label: Hashable) -> int:
        if self._col_index is None:
            self._col_index = {c: j for j, c in enumerate(self.columns)}
        try:
            return self._col_index[label]
        except KeyError:
            raise UnknownNameError(
                f"no column labelled {label!r}; columns are {list(self.columns)}") from None

    def __getitem__(self, key: tuple[Hashable, Hashable]) -> Any:
        """The entry at ``(row label, column label)``."""
        if not (isinstance(key, tuple) and len(key) == 2):
            raise UnknownNameError("index a LabeledMatrix with a (row label, column label) pair")
        i, j = self.row_index(key[0]), self.column_index(key[1])
        value = self.values[i, j]
        return value.item() if hasattr(value, "item") else value

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        array = self.toarray()
        return array if dtype is None else array.astype(dtype)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LabeledMatrix):
            return NotImplemented
        if not (self.rows == other.rows and self.columns == other.columns
                and self.shape == other.shape):
            return False
        if self.issparse and other.issparse:  # without a dense copy of a large matrix
            return (sp.csr_matrix(self.values) != sp.csr_matrix(other.values)).nnz == 0
        return np.array_equal(self.toarray(), other.toarray())

    __hash__ = None  # mutable numpy contents

    def __str__(self) -> str:
        cells = self.toarray()
        rows = [str(r) for r in self.rows]
        cols = [str(c) for c in self.columns]
        body = [[_format_entry(x) for x in line] for line in cells]
        return labelled_table(body, rows, cols, self.split)

    def __repr__(self) -> str:
        kind = "sparse" if self.issparse else "dense"
        return f"<LabeledMatrix {self.shape[0]}x{self.shape[1]} {kind}>\n{self}"

    def _repr_latex_(self) -> str | None:
        """``$$`` + :func:`vecnet.output.teaching.latex` + ``$$``, for notebooks (``None`` when too
        large to typeset)."""
        repr_latex = later("vecnet.output.teaching").repr_latex

        return repr_latex(self)


def _format_entry(x: Any) -> str:
    if isinstance(x, (float, np.floating)) and float(x).is_integer():
        return str(int(x))
    return str(x)
