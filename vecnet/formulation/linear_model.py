"""The one numeric linear model: ``x' = A x + B u + E u'``, ``y = C x + D u + F u'``.

Every numeric linear model vecnet gives is this record: a mechanism's first-order model
(:meth:`~vecnet.formulation.multibody.Linearization.linear_model`, the nonholonomic
:class:`~vecnet.formulation.multibody.StateLinearization`), a coupled system's model
about an equilibrium, and a sparse network's linear part
(:meth:`~vecnet.formulation.numeric.SparseStateSpace.linear_model`). Its methods are views
of the matrices (poles, modes, a reduced model, python-control's form); the analyses that
compute over it, the frequency and step responses, are the numerics' functions
:func:`vecnet.frequency_response` and :func:`vecnet.step_response`, which the two methods
of those names forward to.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..core.forwards import public
from ..errors import FormulationError, UnknownNameError
from .lumped import control_state_space

__all__ = ["LinearModel", "kept_states"]


def _dense(matrix: Any) -> np.ndarray:
    """A matrix as a dense float array, whether it came dense or sparse."""
    return matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix, dtype=float)


def _zeros_like(rows: int, columns: int, sparse: bool) -> Any:
    return sp.csr_matrix((rows, columns)) if sparse else np.zeros((rows, columns))


class LinearModel:
    """``x' = A x + B u + E u'``, ``y = C x + D u + F u'``: a linear model with named
    ``states``, ``inputs`` and ``outputs`` (deviations from an operating point for a
    linearization), its matrices dense numpy arrays or scipy.sparse matrices.

    ``E`` is the input-rate term: a network whose source drives an energy store directly
    (a voltage source across a capacitor) has states that jump with the input, ``x'``
    holding ``u'``; ``F`` the outputs' part of the same. Both are zero (the default,
    ``None``) for a mechanism's or a coupled system's model. The proper model in
    ``w = x - E u`` (:meth:`proper`) has none.

    >>> lin = LinearModel(np.array([[0.0, 1.0], [-4.0, -0.4]]), np.array([[0.0], [1.0]]),
    ...                   np.eye(1, 2), np.zeros((1, 1)), ("z", "z'"), ("F",), ("z",))
    >>> np.round(lin.poles(), 6).tolist(), np.round(lin.damping_ratios(), 6).tolist()
    ([(-0.2-1.989975j), (-0.2+1.989975j)], [0.1])
    """

    def __init__(self, A: Any, B: Any, C: Any, D: Any, states: Sequence[str],
                 inputs: Sequence[str], outputs: Sequence[str], *, E: Any = None,
                 F: Any = None) -> None:
        def matrix(m: Any) -> Any:
            return m.tocsr() if sp.issparse(m) else np.asarray(m)

        self.A, self.B, self.C, self.D = matrix(A), matrix(B), matrix(C), matrix(D)
        sparse = sp.issparse(self.A)
        self.E = _zeros_like(*self.B.shape, sparse) if E is None else matrix(E)
        self.F = _zeros_like(*self.D.shape, sparse) if F is None else matrix(F)
        self.states, self.inputs, self.outputs = tuple(states), tuple(inputs), tuple(outputs)

    @property
    def is_sparse(self) -> bool:
        """Whether the matrices are scipy.sparse."""
        return sp.issparse(self.A)

    def state_space(self) -> tuple[Any, Any, Any, Any]:
        """``(A, B, C, D)`` as stored (without ``E`` and ``F``: see :meth:`proper`)."""
        return self.A, self.B, self.C, self.D

    def proper(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(A, B, C, D)`` of the proper model in ``w = x - E u``, dense:
        ``w' = A w + (A E + B) u``, ``y = C w + (C E + D) u``.

        Raises
        ------
        FormulationError
            An output depends on input derivatives (``F`` not zero).
        """
        if np.any(_dense(self.F)):
            raise FormulationError("an output depends on input derivatives: no proper state-"
                                   "space model exists")
        A, E = self.A, self.E
        return tuple(_dense(m) for m in (A, A @ E + self.B, self.C,  # type: ignore[return-value]
                                         self.C @ E + self.D))

    def output_matrices(self, names: Sequence[str]) -> tuple[Any, Any, Any]:
        """``(C, D, F)`` of the outputs ``names``, in their order.

        Raises
        ------
        UnknownNameError
            A name that is no output.
        """
        unknown = [name for name in names if name not in self.outputs]
        if unknown:
            raise UnknownNameError(f"no output {unknown[0]!r}; the outputs are "
                                   f"{', '.join(self.outputs) or 'none'}")
        rows = [self.outputs.index(name) for name in names]
        return self.C[rows], self.D[rows], self.F[rows]

    def poles(self) -> np.ndarray:
        """The eigenvalues of ``A`` (dense), sorted by imaginary, then real part."""
        ev = np.linalg.eigvals(_dense(self.A)) if self.states else np.zeros(0, dtype=complex)
        return ev[np.lexsort((ev.real, ev.imag))]

    eigenvalues = poles

    def natural_frequencies(self) -> np.ndarray:
        """``|s|`` (rad/s) of the oscillatory poles (upper half plane), in the order of
        :meth:`poles`: each mode's undamped natural frequency, ``s = -zeta w_n + j w_d``."""
        ev = self.poles()
        return np.abs(ev[ev.imag > 0])

    def damping_ratios(self) -> np.ndarray:
        """``-Re(s)/|s|`` of the oscillatory poles (upper half plane)."""
        ev = self.poles()
        up = ev[ev.imag > 0]
        return -up.real / np.abs(up)

    def reduce(self, states: Sequence[str], tolerance: float = 1e-9) -> LinearModel:
        """The model of the ``states`` alone, in their order, when nothing dropped acts on
        them (:func:`kept_states`: a structural zero that a linearization's differences
        left at round-off is taken as the zero it is; a real coupling is refused); the
        outputs that read only them stay. The bicycle's lean and steer:
        ``lin.reduce(["lean.angle", "steer.angle", "lean.angle'", "steer.angle'"])``.

        >>> lin = LinearModel(np.array([[-1.0, 0.0], [1.0, -2.0]]), np.ones((2, 1)),
        ...                   np.eye(2), np.zeros((2, 1)), ("a", "b"), ("u",), ("a", "b"))
        >>> lin.reduce(["a"]).A.tolist(), lin.reduce(["a"]).outputs
        ([[-1.0]], ('a',))
        """
        A, C = _dense(self.A), _dense(self.C)
        kept, readable = kept_states(A, C, self.states, self.outputs, states, tolerance)
        reduced = copy.copy(self)
        reduced.A, reduced.C = A[np.ix_(kept, kept)], C[np.ix_(readable, kept)]
        reduced.B, reduced.E = _dense(self.B)[kept], _dense(self.E)[kept]
        reduced.D, reduced.F = _dense(self.D)[readable], _dense(self.F)[readable]
        reduced.states = tuple(self.states[k] for k in kept)
        reduced.outputs = tuple(self.outputs[k] for k in readable)
        return reduced

    def to_control(self):
        """A python-control ``StateSpace`` of :meth:`proper` (``pip install
        vecnet[control]``), its signals named as here with ``:`` for ``.``
        (python-control reserves the dot)."""
        return control_state_space(*self.proper(), self.states, self.inputs, self.outputs)

    def frequency_response(self, frequencies, inputs=None, outputs=None):
        """``vn.frequency_response(model, frequencies, inputs, outputs)``
        (:func:`vecnet.numerics.analysis.frequency_response`)."""
        return public("frequency_response")(self, frequencies, inputs=inputs, outputs=outputs)

    def step_response(self, times=None):
        """``vn.step_response(model, times)`` (:func:`vecnet.numerics.analysis.step_response`)."""
        return public("step_response")(self, times)

    def __repr__(self) -> str:
        return (f"<{type(self).__name__}: {len(self.states)} states, {len(self.inputs)} "
                f"inputs, {len(self.outputs)} outputs>")


def kept_states(A: np.ndarray, C: np.ndarray, states: Sequence[str], outputs: Sequence[str],
                keep: Sequence[str], tolerance: float) -> tuple[list[int], list[int]]:
    """The indices of the states ``keep`` and of the outputs they alone give, for a
    first-order model ``x' = A x + ...``, ``y = C x + ...`` reduced to them: the states
    dropped must not act on those kept (their columns of ``A`` in the kept rows zero, to
    ``tolerance`` relative to the largest entry of the kept block: what a linearization's
    differences leave of a structural zero), and an output that reads a dropped state goes
    with it.

    Raises
    ------
    UnknownNameError
        A name that is no state.
    FormulationError
        A dropped state that acts on a kept one (naming both and the entry), or no state
        kept.
    """
    unknown = [name for name in keep if name not in states]
    if unknown:
        raise UnknownNameError(f"no state {unknown[0]!r}; the states are {', '.join(states)}")
    if not keep:
        raise FormulationError("reduce needs at least one state to keep")
    kept = [states.index(name) for name in dict.fromkeys(keep)]
    dropped = [k for k in range(len(states)) if k not in kept]
    A, C = np.asarray(A, dtype=float), np.asarray(C, dtype=float)
    scale = max(float(np.max(np.abs(A[np.ix_(kept, kept)]), initial=0.0)), 1e-300)
    coupling = np.abs(A[np.ix_(kept, dropped)])
    if coupling.size and coupling.max() > tolerance * scale:
        i, j = np.unravel_index(np.argmax(coupling), coupling.shape)
        raise FormulationError(
            f"{states[dropped[j]]} acts on {states[kept[i]]} (A = {A[kept[i], dropped[j]]:.3g}, "
            f"more than {tolerance:g} of the kept block's largest entry): keep it too")
    reads = np.abs(C[:, dropped]).max(axis=1, initial=0.0) if C.size else np.zeros(0)
    readable = [k for k in range(len(outputs))
                if reads[k] <= tolerance * max(float(np.abs(C[k]).max(initial=0.0)), 1e-300)]
    return kept, readable
