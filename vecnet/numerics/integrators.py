"""What the integrators share: scipy's ``solve_ivp`` and IDA driven so that a failure ends
the run with the samples it reached (in an :class:`~vecnet.numerics.result.Outcome`, with
the count of the work done), and the one message for a value that left double precision.
The steps themselves, which reach into scipy's private methods, are :mod:`.scipy_steppers`'s.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..errors import SimulationError
from .result import Outcome
from .scipy_steppers import IDLE_TRIES, StepGuard, guarded

__all__ = ["ARITHMETIC", "EXPLICIT", "IDLE_TRIES", "solve_ivp", "solve_ida", "evaluation_failure",
           "one_blas_thread"]

#: what evaluating a model raises when a value leaves double precision
ARITHMETIC = (OverflowError, ZeroDivisionError, FloatingPointError)


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
    with _blas_controller().limit(limits=1, user_api="blas"):
        yield


@functools.cache
def _blas_controller():
    """The BLAS libraries loaded (numpy's and scipy's), found once: finding them takes a
    millisecond, a limit within them 10 us."""
    import scipy.linalg  # noqa: F401  (its BLAS is loaded, to be found)
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


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
    if after_step is not None and getattr(base, "__name__", base) not in EXPLICIT:
        raise ValueError(f"after_step needs an explicit method, one of {EXPLICIT}")

    land = land and getattr(base, "__name__", base) in EXPLICIT \
        and options.get("t_eval") is not None
    if after_step is not None or getattr(base, "__name__", base) != "DOP853":
        stages = None
    targets = np.unique(np.asarray(options["t_eval"], dtype=float)) if land else np.zeros(0)

    guard = StepGuard((SimulationError, *ARITHMETIC), evaluation_failure, after_step, land,
                      targets, stages)
    try:
        sol = scipy.integrate.solve_ivp(fun, t_span, y0, method=guarded(base, guard), **options)
    except (SimulationError, *ARITHMETIC) as exc:   # in the first evaluations, before a step
        guard.caught.append(evaluation_failure(exc))
        sol = OptimizeResult(t=np.zeros(0), y=np.zeros((len(y0), 0)), t_events=None,
                             y_events=None, nfev=0, njev=0, status=-1, message="",
                             success=False)
    # scipy leaves t and y empty lists when no output time was reached
    sol.t = np.asarray(sol.t, dtype=float)
    sol.y = np.asarray(sol.y, dtype=float).reshape(len(y0), len(sol.t))
    outcome.njev += int(sol.njev)
    if guard.caught:
        keep = sol.t <= guard.valid
        sol.t, sol.y = sol.t[keep], sol.y[:, keep]
        sol.status, sol.success, sol.message = -1, False, str(guard.caught[0])
        outcome.fail(guard.caught[0])
    elif sol.status < 0:
        reached = sol.t[-1] if len(sol.t) else t_span[0]
        outcome.fail(SimulationError(f"the integration stopped at t = {reached:.6g}: "
                                     f"{sol.message}"))
    else:
        outcome.message = str(sol.message)
    return sol


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
