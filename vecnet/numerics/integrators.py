"""What the integrators share: scipy's ``solve_ivp`` and IDA driven so that a failure ends
the run with the samples it reached (in an :class:`~vecnet.numerics.result.Outcome`, with
the count of the work done), and the one message for a value that left double precision.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..errors import SimulationError
from .result import Outcome

__all__ = ["ARITHMETIC", "solve_ivp", "solve_ida", "evaluation_failure", "one_blas_thread"]

#: what evaluating a model raises when a value leaves double precision
ARITHMETIC = (OverflowError, ZeroDivisionError, FloatingPointError)
#: how many times a step is shortened before its state cannot be moved is an error
MOVE_TRIES = 8
#: how many shortened tries in a row may move a step as far as the best try before it
IDLE_TRIES = 3
#: the step-size control of scipy's explicit Runge-Kutta methods (``scipy.integrate._ivp.rk``)
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS and LAPACK on one thread inside the block, as they were after it.

    A mechanism's integration factors and multiplies matrices of tens to a few hundred rows
    thousands of times; a threaded BLAS starts its threads for products of about 100 x 100
    and up, and on a busy machine waking them costs far more than the product (a 100 x 150
    product took 5.8 ms on two threads and 58 us on one; the mechanism with 50 loops of
    ``benchmarks/loops.py`` ran 5-10x slower end to end).

    >>> import numpy as np
    >>> with one_blas_thread():
    ...     float(np.ones((200, 200)) @ np.ones(200) @ np.ones(200))
    40000.0
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield


def evaluation_failure(exc: BaseException) -> SimulationError:
    """``exc`` as the :class:`~vecnet.errors.SimulationError` that stops a run: itself, or
    for an arithmetic error, one saying that a value left double precision."""
    if isinstance(exc, SimulationError):
        return exc
    return SimulationError(f"the model could not be evaluated ({exc}): a value is too large or "
                           "too small for double precision")


#: scipy's explicit Runge-Kutta methods, the ones whose accepted state may be moved
#: between steps (``after_step`` of :func:`solve_ivp`)
EXPLICIT = ("RK23", "RK45", "DOP853")


def solve_ivp(fun: Callable, t_span: tuple[float, float], y0: np.ndarray,
              method: str | type, outcome: Outcome,
              after_step: Callable[[float, np.ndarray], np.ndarray] | None = None,
              land: bool = False, stages: Callable | None = None, **options: Any):
    """:func:`scipy.integrate.solve_ivp`, except that a run that fails ends with the samples
    it reached: a :class:`~vecnet.errors.SimulationError` (or an arithmetic error) raised
    by ``fun``, or a step the solver cannot take, gives ``status`` -1 and the samples of
    the steps before, the error recorded in ``outcome``. ``outcome.njev`` grows by the
    solver's Jacobian evaluations.

    ``after_step(t, y)``, for the explicit methods (:data:`EXPLICIT`), moves the state of
    every accepted step (a projection onto constraints), the rate there evaluated anew; a
    step it cannot move (a :class:`~vecnet.errors.SimulationError` or a singular system),
    or moves by more than the tolerances allow a step's error, is taken again, shorter,
    while shorter steps move less; where they do not, the run ends, the message told by
    ``after_step.explain(t, y)`` if the function has that attribute.

    With ``land``, the explicit methods step onto every output time (``t_eval``), so that
    the values there are the steps' own: an interpolant between steps is less accurate
    than the steps (DOP853's is of order 7 against the steps' 8; and where a decayed fast
    mode sits near the edge of the stability region as the steps grow, the interpolant
    amplifies what is left of it — a motor's current read between steps at rtol 1e-11 was
    4600 times the tolerance off). A step cut short to land keeps the size allowed before.

    ``stages(t, y, f, h, K, A, B, C, E3, E5, rtol, atol)``, for DOP853 without
    ``after_step``, takes each attempted step in one call: it fills the stages ``K`` and
    returns ``(y_new, f_new, error_norm)`` as scipy's ``rk_step`` and error estimate do
    (``fun`` compiled into it), or ``None`` where it cannot (a state not finite), and
    scipy's own step is then taken. Where ``fun`` is one compiled call, the Python
    between the stages costs more than the stages.

    >>> out = Outcome("RK45")
    >>> def decay(t, y):
    ...     if t > 0.5:
    ...         raise SimulationError("stopped")
    ...     return -y
    >>> sol = solve_ivp(decay, (0.0, 1.0), np.ones(1), "RK45", out, t_eval=[0.0, 0.01, 1.0])
    >>> sol.status, sol.t.tolist(), str(out.error)
    (-1, [0.0, 0.01], 'stopped')
    """
    import scipy.integrate
    from scipy.optimize import OptimizeResult

    base: Any = getattr(scipy.integrate, method) if isinstance(method, str) else method
    caught: list[SimulationError] = []
    valid = [np.inf]   # samples after this time came from an interpolant that failed

    if after_step is not None and getattr(base, "__name__", base) not in EXPLICIT:
        raise ValueError(f"after_step needs an explicit method, one of {EXPLICIT}")

    land = land and getattr(base, "__name__", base) in EXPLICIT \
        and options.get("t_eval") is not None
    if after_step is not None or getattr(base, "__name__", base) != "DOP853":
        stages = None
    targets = np.unique(np.asarray(options["t_eval"], dtype=float)) if land else np.zeros(0)

    class Guarded(base):
        def _step_impl(self):
            if caught:
                return False, str(caught[0])
            target = self._target() if land else None
            bound, natural = self.t_bound, getattr(self, "h_abs", None)
            if target is not None:
                # the step ends there if it would pass it (scipy ends a step that passes
                # t_bound exactly on it)
                self.t_bound = target
            try:
                ok, message = (self._moved_step() if after_step is not None
                               else self._compiled_step() if stages is not None
                               else super()._step_impl())
            except (SimulationError, *ARITHMETIC) as exc:
                caught.append(evaluation_failure(exc))
                return False, str(caught[0])
            finally:
                self.t_bound = bound
            if ok and target is not None and self.t == target and self.h_abs < natural:
                # a step cut short to land keeps the size it was allowed before
                self.h_abs = natural
            return ok, message

        def _target(self):
            """The first output time ahead, farther than a few roundoff steps (one nearer
            is read off the interpolant) and before ``t_bound``; ``None`` if there is none."""
            slack = 100 * np.spacing(max(abs(self.t), 1.0))
            if self.direction > 0:
                k = int(np.searchsorted(targets, self.t + slack, side="right"))
                return targets[k] if k < len(targets) and targets[k] < self.t_bound else None
            k = int(np.searchsorted(targets, self.t - slack, side="left")) - 1
            return targets[k] if k >= 0 and targets[k] > self.t_bound else None

        def _compiled_step(self):
            """scipy's ``RungeKutta._step_impl``, each attempt one call of ``stages``."""
            t, y, direction = self.t, self.y, self.direction
            fixed = self.__dict__.get("_stage_tables")
            if fixed is None:   # contiguous, as the compiled call was compiled for them
                fixed = self._stage_tables = (
                    *(np.ascontiguousarray(x, dtype=float)
                      for x in (self.A, self.B, self.C, self.E3, self.E5)),
                    np.broadcast_to(np.asarray(self.atol, dtype=float), y.shape).copy())
            *tables, atol = fixed
            min_step = 10 * np.abs(np.nextafter(t, direction * np.inf) - t)
            h_abs = self.max_step if self.h_abs > self.max_step \
                else min_step if self.h_abs < min_step else self.h_abs
            rejected = False
            while True:
                if h_abs < min_step:
                    return False, self.TOO_SMALL_STEP
                t_new = t + h_abs * direction
                if direction * (t_new - self.t_bound) > 0:
                    t_new = self.t_bound
                h = t_new - t
                h_abs = abs(h)
                taken = stages(t, y, self.f, h, self.K, *tables, self.rtol, atol)
                if taken is None:    # scipy's own step, whose evaluations tell what failed
                    self.h_abs = h_abs
                    return super()._step_impl()
                self.nfev += self.n_stages
                y_new, f_new, error = taken
                if error < 1:
                    factor = MAX_FACTOR if error == 0 \
                        else min(MAX_FACTOR, SAFETY * error ** self.error_exponent)
                    h_abs *= min(1.0, factor) if rejected else factor
                    break
                h_abs *= max(MIN_FACTOR, SAFETY * error ** self.error_exponent)
                rejected = True
            self.h_previous, self.y_old, self.t, self.y = h, y, t_new, y_new
            self.h_abs, self.f = h_abs, f_new
            return True, None

        def _moved_step(self):
            best, idle = np.inf, 0   # the smallest move yet (in tolerances); tries since
            size = np.inf
            explain = getattr(after_step, "explain", None)
            for _ in range(MOVE_TRIES):
                t, y, f, h_abs = self.t, self.y, self.f, self.h_abs
                ok, message = super()._step_impl()
                if not ok:
                    return ok, message
                try:
                    moved = after_step(self.t, self.y)
                except (SimulationError, np.linalg.LinAlgError):
                    # too far from the constraints to come back: the same step, shorter
                    self.t, self.y, self.f, self.h_abs = t, y, f, h_abs / 4
                    continue
                # the move is an error the step made, held to the tolerances like the
                # step's own estimate (it grows where the projection is ill-conditioned)
                scale = self.atol + self.rtol * np.maximum(np.abs(self.y), np.abs(moved))
                size = float(np.sqrt(np.mean(((moved - self.y) / scale) ** 2)))
                if size > 1.0:
                    # shorter steps that move as far do not help: the move is then not the
                    # step's error (at least fourth order in its length) but the
                    # projection's own
                    idle = idle + 1 if size > 0.9 * best else 0
                    best = min(best, size)
                    if idle == IDLE_TRIES:
                        break
                    shrink = max(0.2, 0.9 * size ** self.error_exponent)
                    self.t, self.y, self.f, self.h_abs = t, y, f, h_abs * shrink
                    continue
                self.y = moved
                self.f = self.K[-1] = self.fun(self.t, self.y)
                return ok, message
            if not np.isfinite(size):
                raise SimulationError(f"at t = {self.t:.6g} no step, however short, could "
                                      "be brought back onto the constraints")
            raise SimulationError(
                f"at t = {t:.6g} every step, however short, is moved onto the constraints "
                f"by {size:.3g} times the tolerances"
                + (f"; {explain(t, y)}" if explain is not None else "")
                + "; loosen rtol and atol, or try method='dae'")

        def _dense_output_impl(self):
            if land:   # the outputs are step ends: the interpolant only where asked between
                return _StepEnd(self.t_old, self.t, self.y.copy(), self._interpolant)
            return self._interpolant()

        def _interpolant(self):
            # DOP853 evaluates fun for its interpolant, after the step is accepted
            try:
                return super()._dense_output_impl()
            except (SimulationError, *ARITHMETIC) as exc:
                caught.append(evaluation_failure(exc))
                valid[0] = self.t_old
                return _Chord(self.t_old, self.t, getattr(self, "y_old", self.y), self.y)

    Guarded.__name__ = base.__name__
    try:
        sol = scipy.integrate.solve_ivp(fun, t_span, y0, method=Guarded, **options)
    except (SimulationError, *ARITHMETIC) as exc:   # in the first evaluations, before a step
        caught.append(evaluation_failure(exc))
        sol = OptimizeResult(t=np.zeros(0), y=np.zeros((len(y0), 0)), t_events=None,
                             y_events=None, nfev=0, njev=0, status=-1, message="",
                             success=False)
    # scipy leaves t and y empty lists when no output time was reached
    sol.t = np.asarray(sol.t, dtype=float)
    sol.y = np.asarray(sol.y, dtype=float).reshape(len(y0), len(sol.t))
    outcome.njev += int(sol.njev)
    if caught:
        keep = sol.t <= valid[0]
        sol.t, sol.y = sol.t[keep], sol.y[:, keep]
        sol.status, sol.success, sol.message = -1, False, str(caught[0])
        outcome.fail(caught[0])
    elif sol.status < 0:
        reached = sol.t[-1] if len(sol.t) else t_span[0]
        outcome.fail(SimulationError(f"the integration stopped at t = {reached:.6g}: "
                                     f"{sol.message}"))
    else:
        outcome.message = str(sol.message)
    return sol


class _StepEnd:
    """The solution at the end of a step, which is where the output times lie when the
    steps land on them; the method's interpolant (``make()``, which costs evaluations, three
    for DOP853) is made the first time a value between the ends is asked for (an event's
    root, an output time within roundoff of a step's end). ``make`` reads the solver's
    state, so it is used before the next step, as scipy's ``solve_ivp`` does."""

    def __init__(self, t_old: float, t: float, y: np.ndarray, make: Callable[[], Any]) -> None:
        self.t_old, self.t, self.y, self.make = t_old, t, y, make
        self.interpolant: Any = None

    def __call__(self, t):
        times = np.asarray(t, dtype=float)
        if np.all(times == self.t):
            return self.y.copy() if times.ndim == 0 else np.repeat(self.y[:, None], times.size, 1)
        if self.interpolant is None:
            self.interpolant = self.make()
        return self.interpolant(t)


class _Chord:
    """The straight line between the ends of a step, standing in for an interpolant that
    could not be had (so that event functions still find their roots); its samples are
    dropped."""

    def __init__(self, t_old: float, t: float, y_old: np.ndarray, y: np.ndarray) -> None:
        self.t_old, self.t, self.y_old, self.y = t_old, t, y_old, y

    def __call__(self, t):
        share = (np.asarray(t, dtype=float) - self.t_old) / (self.t - self.t_old)
        if share.ndim == 0:
            return self.y_old + share * (self.y - self.y_old)
        return self.y_old[:, None] + np.outer(self.y - self.y_old, share)


def solve_ida(solver, times: np.ndarray, y0: np.ndarray, yp0: np.ndarray,
              outcome: Outcome) -> tuple[np.ndarray, np.ndarray, tuple | None]:
    """Step IDA (a scikit-sundae ``IDA``, set up) from ``(times[0], y0, yp0)`` through the
    output ``times``: ``(t, y, stopped)``, a row of ``y`` for each time reached, and
    ``(t, y, yp)`` where one of the solver's events (its ``eventsfn``) ended the run
    before the last time, else ``None``. A :class:`~vecnet.errors.SimulationError` in the
    residual, or a step IDA cannot take, ends the run with the samples before it, the
    error recorded in ``outcome``; ``outcome.njev`` and ``outcome.message`` are IDA's."""
    ts: list[float] = []
    ys: list[np.ndarray] = []
    stopped = None
    try:
        try:
            reached = solver.init_step(times[0], y0, yp0)
        except RuntimeError as exc:
            if isinstance(exc, SimulationError):
                raise
            raise SimulationError(f"IDA found no consistent initial values: {exc}") from None
        ts.append(float(reached.t))
        ys.append(reached.y)
        for tout in times[1:]:
            reached = solver.step(tout, tstop=times[-1])
            if not reached.success:
                raise SimulationError(f"IDA stopped at t = {reached.t:.6g}: {reached.message}")
            if reached.status == 2 and reached.t < tout:   # an event, before this output
                stopped = (float(reached.t), reached.y.copy(), reached.yp.copy())
                break
            ts.append(float(reached.t))
            ys.append(reached.y)
        outcome.message = str(reached.message)
    except (SimulationError, *ARITHMETIC) as exc:
        outcome.fail(evaluation_failure(exc))
    else:
        outcome.njev += int(reached.njev)
    return np.array(ts), np.array(ys).reshape(len(ts), len(y0)), stopped
