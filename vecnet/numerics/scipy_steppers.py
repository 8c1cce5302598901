"""scipy's explicit Runge-Kutta methods with guarded steps: the one place that reaches into
scipy's private stepping (``RungeKutta._step_impl``, ``_dense_output_impl`` and the
attributes they keep), for :func:`vecnet.numerics.integrators.solve_ivp`.

:func:`guarded` makes a subclass of a scipy method that ends the run, rather than raising,
where the right-hand side fails; moves each accepted step's state (a projection onto
constraints); lands the steps on output times; and takes each attempted DOP853 step in one
compiled call. ``tests/test_scipy_pin.py`` pins the scipy versions and the private names
this was written against.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import SimulationError

__all__ = ["StepGuard", "guarded", "MOVE_TRIES", "IDLE_TRIES", "SAFETY", "MIN_FACTOR",
           "MAX_FACTOR"]
#: how many times a step is shortened before its state cannot be moved is an error
MOVE_TRIES = 8
#: how many shortened tries in a row may move a step as far as the best try before it
IDLE_TRIES = 3
#: the step-size control of scipy's explicit Runge-Kutta methods (``scipy.integrate._ivp.rk``)
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0


@dataclass
class StepGuard:
    """What a :func:`guarded` method is asked to do, and what it found.

    ``ends`` are the errors of the right-hand side that end the run (recorded in
    ``caught`` as ``told(error)``, the first one the run's); ``after_step``, ``land``
    (onto ``targets``, the sorted output times) and ``stages`` are those of
    :func:`~vecnet.numerics.integrators.solve_ivp`. ``valid`` is the time after which the
    samples came from an interpolant that failed (and stand in for none)."""

    ends: tuple[type[BaseException], ...]
    told: Callable[[BaseException], SimulationError]
    after_step: Callable[[float, np.ndarray], np.ndarray] | None = None
    land: bool = False
    targets: np.ndarray = field(default_factory=lambda: np.zeros(0))
    stages: Callable | None = None
    caught: list[SimulationError] = field(default_factory=list)
    valid: float = np.inf


def guarded(base: type, guard: StepGuard) -> type:
    """A subclass of scipy's method ``base`` (an explicit Runge-Kutta one where ``guard``
    moves, lands or compiles its steps) that steps as ``guard`` says and records there what
    ended the run; it takes ``base``'s name."""
    after_step, stages, land, targets = guard.after_step, guard.stages, guard.land, \
        guard.targets
    caught = guard.caught

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
            except guard.ends as exc:
                caught.append(guard.told(exc))
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
            except guard.ends as exc:
                caught.append(guard.told(exc))
                guard.valid = self.t_old
                return _Chord(self.t_old, self.t, getattr(self, "y_old", self.y), self.y)

    Guarded.__name__ = base.__name__
    return Guarded


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
