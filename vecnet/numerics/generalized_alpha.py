"""The generalized-alpha method for first-order systems ``y' = f(t, y)`` (Jansen, Whiting
and Hulbert, "A generalized-alpha method for integrating the filtered Navier-Stokes
equations with a stabilized finite element method", CMAME 190, 2000): implicit, of
second order, unconditionally stable on linear systems, with a numerical damping set by
one number, the spectral radius ``rho`` of its amplification at infinitely fast modes.

A flexible body's elastic modes reach frequencies far above its overall motion (an
axial mode of a steel rod near 10^5 rad/s beside a crank at 10^2); an explicit method
steps at the fastest of them, this one at the motion's own scale: modes much faster than
``1 / h`` are damped by ``rho`` a step, modes much slower are integrated to second order
(``rho = 1``: no damping, the trapezoidal rule on a linear system, which keeps its
energy).

One step from ``(t_n, y_n, r_n)``, ``r`` the method's rate (``r_0 = f(t_0, y_0)``), solves
for ``r_{n+1}``

    (1 - a_m) r_n + a_m r_{n+1} = f(t_n + a_f h, y_n + a_f (y_{n+1} - y_n)),
    y_{n+1} = y_n + h ((1 - g) r_n + g r_{n+1}),

with ``a_m = (3 - rho) / (2 (1 + rho))``, ``a_f = 1 / (1 + rho)``, ``g = 1/2 + a_m - a_f``,
by Newton's method on a Jacobian of ``f`` by finite differences, kept from step to step
while the iterations converge quickly (a modified Newton method, as stiff solvers do).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.linalg

from ..errors import FormulationError, SimulationError

__all__ = ["GeneralizedAlpha", "DEFAULT_SPECTRAL_RADIUS"]

#: the spectral radius at infinity unless one is asked for: the fastest modes lose a
#: fifth of their amplitude a step, the slow ones, at 100 steps a period, 0.002 % a period
DEFAULT_SPECTRAL_RADIUS = 0.8


class GeneralizedAlpha:
    """The stepper of the module's docstring for ``fun(t, y) -> y'`` (flat arrays).

    Parameters
    ----------
    fun : callable
    spectral_radius : float
        ``rho`` in [0, 1]: 1 keeps every mode's amplitude, 0 damps the fastest at once.
    rtol, atol : float
        Newton's method stops once a correction moves ``y_{n+1}`` by less than these
        (as a root-mean-square of ``|dy| / (atol + rtol |y|)``); where the corrections
        shrink by less than half an iteration it takes the Jacobian anew, at the
        iterate (three times a step at most).
    iterations : int
        The most Newton iterations of a step.
    frequent : array of int, optional
        The columns of the Jacobian that change quickly (a flexible body's stiffness
        turns with it: the coordinates' columns), the only ones taken anew at the first
        refresh of a step; the others are kept from the last full Jacobian.

    Raises
    ------
    FormulationError
        For a spectral radius outside [0, 1].

    Attributes
    ----------
    jacobians : int
        How many Jacobians it evaluated.

    Examples
    --------
    A stiff oscillator (1000 rad/s) beside a slow one (1 rad/s), stepped at 0.01 s: the
    fast mode is damped away, the slow one kept to second order.

    >>> def f(t, y):
    ...     return np.array([y[1], -y[0], y[3], -1e6 * y[2]])
    >>> stepper = GeneralizedAlpha(f, spectral_radius=0.5, rtol=1e-10, atol=1e-12)
    >>> y = stepper.start(0.0, np.array([1.0, 0.0, 1e-3, 0.0]))
    >>> for k in range(100):
    ...     y = stepper.step(0.01 * k, y, 0.01)
    >>> round(float(y[0]), 4), bool(abs(y[2]) < 1e-9), stepper.jacobians
    (0.5403, True, 1)
    """

    def __init__(self, fun: Callable[[float, np.ndarray], np.ndarray],
                 spectral_radius: float = DEFAULT_SPECTRAL_RADIUS, rtol: float = 1e-8,
                 atol: float = 1e-10, iterations: int = 20,
                 frequent: np.ndarray | None = None) -> None:
        rho = float(spectral_radius)
        if not 0.0 <= rho <= 1.0:
            raise FormulationError(f"spectral_radius is a number from 0 to 1; got {spectral_radius!r}")
        self.fun, self.rho, self.rtol, self.atol = fun, rho, rtol, atol
        self.iterations = iterations
        self.alpha_m = (3.0 - rho) / (2.0 * (1.0 + rho))
        self.alpha_f = 1.0 / (1.0 + rho)
        self.gamma = 0.5 + self.alpha_m - self.alpha_f
        self.rate = np.zeros(0)
        self.jacobians = 0
        self.frequent = frequent
        self._J: np.ndarray | None = None
        self._kept: np.ndarray | None = None
        self._lu: tuple | None = None
        self._h = np.nan

    def start(self, t: float, y: np.ndarray) -> np.ndarray:
        """Begin at ``(t, y)``: the rate is ``f(t, y)``; returns ``y``. Call again where
        the state jumps or its variables change."""
        y = np.asarray(y, dtype=float)
        self.rate = np.asarray(self.fun(t, y), dtype=float)
        self._J, self._lu, self._kept = None, None, None
        return y

    def _jacobian(self, t: float, y: np.ndarray, fy: np.ndarray, columns) -> np.ndarray:
        """``df/dy`` by forward differences, only ``columns`` of it where the last one is
        kept (``None``: all)."""
        self.jacobians += 1
        if columns is None or self._kept is None:
            J, columns = np.empty((len(y), len(y))), range(len(y))
        else:
            J = self._kept.copy()
        for j in columns:
            delta = 1.5e-8 * max(1.0, abs(y[j]))
            moved = y.copy()
            moved[j] += delta
            J[:, j] = (self.fun(t, moved) - fy) / delta
        self._kept = J
        return J

    def step(self, t: float, y: np.ndarray, h: float) -> np.ndarray:
        """``y_{n+1}`` one step ``h`` on from ``(t, y)`` (and its rate in :attr:`rate`).

        Raises
        ------
        SimulationError
            Where Newton's method does not converge within ``iterations``.
        """
        a_m, a_f, g = self.alpha_m, self.alpha_f, self.gamma
        r0 = self.rate
        t_f = t + a_f * h
        x, last, fresh = r0.copy(), np.inf, 0
        for _ in range(self.iterations):
            y_new = y + h * ((1 - g) * r0 + g * x)
            y_f = y + a_f * (y_new - y)
            f = np.asarray(self.fun(t_f, y_f), dtype=float)
            if self._J is None:
                # the quickly changing columns first; all of them if that is not enough
                self._J = self._jacobian(t_f, y_f, f, self.frequent if not fresh else None)
                self._lu, fresh = None, fresh + 1
            if self._lu is None or h != self._h:
                G = a_m * np.eye(len(y)) - a_f * g * h * self._J
                self._lu, self._h = scipy.linalg.lu_factor(G, check_finite=False), h
            dx = -scipy.linalg.lu_solve(self._lu, (1 - a_m) * r0 + a_m * x - f,
                                        check_finite=False)
            x += dx
            scale = self.atol + self.rtol * np.abs(y_new)
            size = float(np.sqrt(np.mean((h * g * dx / scale) ** 2))) if len(y) else 0.0
            if size < 1.0:
                self.rate = x
                return y + h * ((1 - g) * r0 + g * x)
            if not np.isfinite(size) or size > 0.5 * last:
                # slow or diverging: the Jacobian kept from earlier, or taken at the
                # predicted state, is too far from this one; take it anew where the
                # iterations have come
                if fresh >= 3 or not np.isfinite(size):
                    break
                self._J = None
            last = size
        raise SimulationError(
            f"generalized-alpha: Newton's method did not converge in the step from "
            f"t = {t:.6g} (step {h:.3g} s); take a shorter step")
