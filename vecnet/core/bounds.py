"""Bounds on the work one request may cause, so that a small input never runs without end.

A model file of a few lines can ask for a trillion oscillations, a billion seconds of
motion or a million output samples. vecnet checks what it can before it starts (the time
grid, the frequencies of the sources, the size of a network formulated symbolically) and
watches the rest while it runs (evaluations of the right-hand side and the states they
evaluate, values that overflow). Every bound is a count, never a time: a busy machine or a
first compile does not change what a request is allowed to do. Each bound names itself in
its message, and each can be raised:

>>> import vecnet as vn
>>> vn.get_limits().max_points
100000
>>> with vn.limits(max_points=10**6):
...     vn.get_limits().max_points
1000000

The limits live in a :class:`contextvars.ContextVar`, so a change made inside
``with vn.limits(...)`` holds for that block and that thread (or task) only.
"""

from __future__ import annotations

import contextvars
import math
import sys
import time as _clock
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from ..errors import ModelError, SimulationError

__all__ = ["Limits", "get_limits", "limits", "untrusted", "time_grid", "check_oscillation",
           "check_count",
           "Watch", "add_compile_time", "compile_time"]


@dataclass(frozen=True)
class Limits:
    """The bounds in force. Change them with :func:`limits`.

    Attributes
    ----------
    max_points : int
        Output samples of one simulation.
    max_cycles : float
        Periods of a source's oscillation within the simulated span (a 1 MHz sine over
        one second is 10^6 periods, each needing several integration steps).
    max_evaluations : int
        Right-hand-side (or residual) evaluations of one simulation.
    max_seconds : float or None
        Wall-clock seconds of one simulation, for a caller who asks for a clock;
        ``None`` (the default): none.
    file_work : int
        State evaluations (the evaluations times the states each one evaluates) of one
        simulation of untrusted input (a model file or netlist read by
        :func:`vecnet.load_model`, :func:`vecnet.load_netlist` or the ``vecnet``
        command): the work grows with both, and 10^8 of them take about half a minute on
        one core whatever the model's size.
    max_elements : int
        Elements of a network formulated symbolically (the exact formulation's cost
        grows faster than the network: about 25 s for 2,000 elements).
    max_parts : int
        Elements, bodies, joints, forces and blocks of one model file or netlist, counted
        while it is read, before anything is built from it.
    max_outputs : int
        Named outputs of one model file.
    max_parameters : int
        Parameters of one model file or netlist.
    max_windings : int
        Windings of one set of coupled inductors (each pair has a mutual inductance, and
        the formulations' work grows with their number).
    max_cases : int
        Cases of one study (a grid's are the product of its parameters' counts: three
        parameters of 100 values are 10^6 cases, hours of work).

    >>> import vecnet as vn
    >>> vn.get_limits().max_points
    100000
    >>> with vn.limits(max_points=500):
    ...     vn.get_limits().max_points
    500
    """

    max_points: int = 100_000
    max_cycles: float = 100_000.0
    max_evaluations: int = 500_000
    max_seconds: float | None = None
    file_work: int = 100_000_000
    max_elements: int = 2_000
    max_parts: int = 10_000
    max_outputs: int = 1_000
    max_parameters: int = 10_000
    max_windings: int = 24
    max_cases: int = 100_000

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if value is None and field.name == "max_seconds":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not value > 0 or math.isnan(value):
                raise ModelError(f"limit {field.name} must be a positive number; got {value!r}")


_LIMITS: contextvars.ContextVar[Limits] = contextvars.ContextVar("vecnet_limits",
                                                                 default=Limits())


def get_limits() -> Limits:
    """The :class:`Limits` in force (changed within a ``with`` block of :func:`limits`).

    >>> import vecnet as vn
    >>> vn.get_limits().max_windings
    24
    """
    return _LIMITS.get()


@contextmanager
def limits(**changes: float) -> Iterator[Limits]:
    """Change limits for the duration of a ``with`` block.

    Raises
    ------
    ModelError
        An unknown limit, or a value that is not a positive number.

    >>> import vecnet as vn
    >>> with vn.limits(max_seconds=10) as bounds:
    ...     bounds.max_seconds
    10
    """
    known = {f.name for f in fields(Limits)}
    unknown = sorted(set(changes) - known)
    if unknown:
        raise ModelError(f"unknown limit(s) {', '.join(unknown)}; the limits are "
                         f"{', '.join(sorted(known))}")
    counts = {f.name for f in fields(Limits) if f.type == "int"}
    for name in counts & set(changes):  # a whole number given as 5000.0 is still a count
        value = changes[name]
        if isinstance(value, float) and value.is_integer():
            changes[name] = int(value)
        elif not isinstance(value, int):
            raise ModelError(f"limit {name} must be a whole number; got {value!r}")
    token = _LIMITS.set(replace(get_limits(), **changes))  # type: ignore[arg-type]
    try:
        yield _LIMITS.get()
    finally:
        _LIMITS.reset(token)


def check_count(count: int, limit: str, what: str) -> str:
    """``""`` when ``count`` is within the limit named ``limit``, else the message that
    refuses it: ``what`` (``"elements"``), the count, the limit and how to raise it.

    >>> check_count(12, "max_outputs", "outputs")
    ''
    >>> check_count(2000, "max_outputs", "outputs")
    'more than 1000 outputs, the limit max_outputs: raise it with vn.limits(max_outputs=...) (--limit max_outputs=... on the command line)'
    """
    bound = getattr(get_limits(), limit)
    if count <= bound:
        return ""
    return (f"more than {bound} {what}, the limit {limit}: raise it with vn.limits({limit}=...) "
            f"(--limit {limit}=... on the command line)")


def finite_number(value: Any, what: str) -> float:
    """``value`` as a finite float; a :class:`~vecnet.errors.ModelError` naming ``what``
    otherwise."""
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ModelError(f"{what} must be a number; got {value!r}") from None
    if not math.isfinite(number):
        raise ModelError(f"{what} must be finite; got {value!r}")
    return number


def time_grid(t_span: Sequence[Any], t_eval: Sequence[float] | None = None,
              points: int = 501) -> tuple[float, float, np.ndarray]:
    """Check a simulation's span and output times; returns ``(t0, t1, times)``.

    ``times`` is ``t_eval`` or, without it, ``points`` evenly spaced times.

    Raises
    ------
    ModelError
        The span is not two finite numbers with ``t0 < t1``, is too short to hold its
        output times as distinct floats, or there are more output times than
        ``max_points``; ``t_eval`` is not finite, increasing and within the span.

    >>> time_grid((0, 1), points=3)[2]
    array([0. , 0.5, 1. ])
    >>> time_grid((0, -1))
    Traceback (most recent call last):
    ...
    vecnet.errors.ModelError: t_span (0, -1) must end after it starts: simulations run forward in time
    """
    if isinstance(t_span, (str, bytes)) or len(t_span) != 2:
        raise ModelError(f"t_span must be (t0, t1); got {t_span!r}")
    t0, t1 = (finite_number(v, "t_span") for v in t_span)
    if not t1 > t0:
        raise ModelError(f"t_span {tuple(t_span)!r} must end after it starts: simulations run "
                         "forward in time")
    bound = get_limits().max_points
    count = points if t_eval is None else len(t_eval)
    if count > bound:
        raise ModelError(f"{count} output points is more than max_points = {bound}; ask for "
                         f"fewer or raise the limit with vn.limits(max_points=...)")
    if t_eval is None:
        times = np.linspace(t0, t1, int(points))
    else:
        times = np.asarray(t_eval, dtype=float).reshape(-1)
        if not np.all(np.isfinite(times)):
            raise ModelError("t_eval holds a value that is not finite")
        if times.size and (times[0] < t0 or times[-1] > t1):
            raise ModelError(f"t_eval runs from {times[0]:.6g} to {times[-1]:.6g}, outside "
                             f"t_span ({t0:.6g}, {t1:.6g})")
    if times.size > 1 and not np.all(np.diff(times) > 0):
        raise ModelError(f"t_span ({t0:.6g}, {t1:.6g}) is too short for {times.size} distinct "
                         "output times (or t_eval is not increasing)" if t_eval is None else
                         "t_eval must be strictly increasing")
    if (t1 - t0) < 64 * sys.float_info.min or t1 - t0 <= 1e-12 * max(abs(t0), abs(t1)):
        raise ModelError(f"t_span ({t0:.6g}, {t1:.6g}) is too short to integrate over in "
                         "double precision")
    return t0, t1, times


def check_oscillation(name: str, signal: Any, span: float | Sequence[float]) -> None:
    """Refuse a signal whose sines, cosines or periodic pulses turn more than ``max_cycles``
    times within ``span`` (a length of time from 0, or ``(t0, t1)``).

    The periods are counted from the argument of each ``sin``, ``cos``, ``tan`` or ``Mod``
    (a periodic pulse): how far it moves over the span, sampled at 257 times, divided by
    the period (exact for ``w t + p``, even behind a ``Heaviside`` or a delay; close for a
    chirp). An argument holding other symbols than ``t`` is passed over: the integration
    itself is bounded by :class:`Watch`.

    >>> import sympy, vecnet as vn
    >>> check_oscillation("V.across", sympy.sin(2 * sympy.pi * 1e15 * vn.t), 1e-3)
    Traceback (most recent call last):
    ...
    vecnet.errors.ModelError: input 'V.across' oscillates at 1e+15 Hz: 1e+12 periods in the span of 0.001 s is more than max_cycles = 100000; shorten t_span or raise the limit with vn.limits(max_cycles=...)
    """
    import sympy

    t = sympy.Symbol("t", real=True)   # vn.t: a sympy symbol is its name and assumptions

    t0, t1 = (0.0, float(span)) if isinstance(span, (int, float)) else map(float, span)
    bound = get_limits().max_cycles
    for periodic in signal.atoms(sympy.sin, sympy.cos, sympy.tan, sympy.Mod):
        if periodic.func is sympy.Mod:  # a periodic pulse: Mod(t - td, period)
            arg, period = periodic.args
            if not period.is_number:
                continue
            period = abs(float(period))
        else:
            arg, period = periodic.args[0], 2 * math.pi
        if not arg.has(t) or arg.free_symbols - {t} or not period > 0:
            continue
        cycles = _turns(arg, t, t0, t1) / period
        if cycles > bound:
            raise ModelError(f"input {name!r} oscillates at {cycles / (t1 - t0):.6g} Hz: "
                             f"{cycles:.6g} periods in the span of {t1 - t0:.6g} s is more "
                             f"than max_cycles = {bound:.6g}; shorten t_span or raise the "
                             "limit with vn.limits(max_cycles=...)")


def _turns(arg: Any, t: Any, t0: float, t1: float) -> float:
    """How far ``arg`` moves (its total variation) over ``t0..t1``, from 257 samples;
    infinite when it overflows."""
    import sympy

    times = np.linspace(t0, t1, 257)
    with np.errstate(all="ignore"):
        try:
            values = sympy.lambdify(t, arg, "numpy")(times)
            values = np.broadcast_to(np.asarray(values, dtype=float), times.shape)
        except OverflowError:
            return math.inf   # a coefficient beyond double precision: faster than any bound
        except (TypeError, ValueError, ZeroDivisionError):
            return 0.0  # not a real function of time that numpy evaluates: left to the Watch
        moves = np.abs(np.diff(values))
    moves = moves[~np.isnan(moves)]
    return float(np.sum(moves)) if moves.size else 0.0


_untrusted = contextvars.ContextVar("vecnet_untrusted", default=False)


@contextmanager
def untrusted(flag: bool = True) -> Iterator[None]:
    """Mark the work inside as done on untrusted input (a model file or netlist from
    elsewhere) when ``flag`` is true: its simulations are then bounded by ``file_work``
    state evaluations as well. A false ``flag`` changes nothing (an enclosing mark
    stays)."""
    token = _untrusted.set(_untrusted.get() or bool(flag))
    try:
        yield
    finally:
        _untrusted.reset(token)


_interrupted = contextvars.ContextVar("vecnet_interrupted", default=False)


@contextmanager
def interruptible() -> Iterator[None]:
    """Ctrl-C stops the work inside, and keeps stopping it: after the first
    ``KeyboardInterrupt`` every :class:`Watch` raises another at its next evaluation, so
    an interrupt that compiled code (an integrator's callback) lets pass is not lost, and
    an error raised after an interrupt is the interrupt. Only in the main thread;
    elsewhere it changes nothing."""
    import signal

    def handler(signum, frame):
        _interrupted.set(True)
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread: signals are not ours to handle
        yield
        return
    token = _interrupted.set(False)
    try:
        yield
    except Exception as exc:
        # compiled code (a numba kernel) may wrap the interrupt in an error of its own
        if _interrupted.get():
            raise KeyboardInterrupt from exc
        raise
    finally:
        signal.signal(signal.SIGINT, previous)
        _interrupted.reset(token)


def progress_bar(t0: float, t1: float, unit: str = "s model time",
                 passed: str = "the model time", whole: bool = False) -> Callable[[float], None]:
    """A ``tqdm`` progress bar over ``t0..t1`` (``tqdm.auto``: a widget in notebooks, text
    elsewhere), as a function of the value reached: the model time of a simulation, or
    whatever ``unit`` counts (``passed`` names it in the error when tqdm is missing);
    ``whole``: a count of whole things, shown as integers (pass it integers)."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        raise ModelError(f"progress=True draws a tqdm progress bar: install tqdm "
                         f"(pip install tqdm), or pass a function of {passed}") from None
    bar = tqdm(total=round(t1 - t0) if whole else float(t1 - t0), unit=unit,
               unit_scale=not whole, leave=True)
    reached = [t0]

    def advance(time: float) -> None:
        if time > reached[0]:
            bar.update(min(time, t1) - reached[0])
            reached[0] = min(time, t1)
            if reached[0] >= t1:
                bar.close()

    return advance


#: wall-clock seconds this process has spent compiling kernels (numba's, on their first
#: use without a cache): no simulation's clock counts them, a compile is not the model's work
_compiling = [0.0]


def add_compile_time(seconds: float) -> None:
    """Record ``seconds`` spent compiling, which :class:`Watch` leaves off every clock.

    >>> before = compile_time()
    >>> add_compile_time(2.5)
    >>> compile_time() - before
    2.5
    """
    _compiling[0] += seconds


def compile_time() -> float:
    """Wall-clock seconds spent compiling so far in this process."""
    return _compiling[0]


class Watch:
    """Counts a simulation's evaluations and the states they evaluate, and watches its
    values.

    Call it with the model time (and, where at hand, the state) at every evaluation of
    the right-hand side. It raises :class:`~vecnet.errors.SimulationError` saying how far
    the integration got when ``max_evaluations`` (or, on untrusted input, ``file_work``)
    is exceeded or the state stops being finite, and passes the time on to ``progress``
    (never a time before one passed already: :meth:`reach`).
    Only when asked (``max_seconds``) does it read a clock, which leaves out the time spent
    compiling kernels meanwhile (:func:`add_compile_time`).

    >>> watch = Watch(0.0, 1.0)
    >>> watch(0.5, [1.0, 2.0])
    >>> watch(0.6, [1.0, float("inf")])
    Traceback (most recent call last):
    ...
    vecnet.errors.SimulationError: the solution became infinite or undefined at t = 0.6 (60% of the span): the model is unstable or a value is unphysical (a negative store or resistance?)
    """

    def __init__(self, t0: float, t1: float,
                 progress: Callable[[float], None] | bool | None = None,
                 names: Sequence[str] = ()) -> None:
        bounds = get_limits()
        if progress is True:
            progress = progress_bar(t0, t1)
        self.t0, self.t1, self.progress, self.names = t0, t1, progress or None, tuple(names)
        self.max_evaluations = bounds.max_evaluations
        self.max_work = bounds.file_work if _untrusted.get() else math.inf
        self.max_seconds = math.inf if bounds.max_seconds is None else bounds.max_seconds
        self.evaluations = 0
        self.reached = -math.inf   # the latest time told to progress
        self.work = 0.0
        #: work each evaluation costs beyond its states (:meth:`weigh`)
        self.weight = 0
        self.started = _clock.monotonic() if self.max_seconds < math.inf else 0.0
        self.compiled = compile_time()

    def seconds(self) -> float:
        """Wall-clock seconds of the simulation so far, less the time spent compiling."""
        return _clock.monotonic() - self.started - (compile_time() - self.compiled)

    def where(self, time: float) -> str:
        share = (time - self.t0) / (self.t1 - self.t0) if self.t1 > self.t0 else 1.0
        return f"t = {time:.6g} ({100 * share:.3g}% of the span)"

    def weigh(self, extra: int) -> None:
        """Count ``extra`` state evaluations' work more for every evaluation: what the
        evaluations cost beyond their states (constraint rows, the geometry of contacts,
        the modes of set-valued friction), so that ``file_work`` bounds the time whatever
        the model."""
        self.weight = int(extra)

    def spend(self, work: float, what: str) -> None:
        """Count ``work`` (state evaluations' worth) of something done besides the
        evaluations, before it is done: ``what`` names it in the refusal.

        >>> import vecnet as vn
        >>> with vn.limits(file_work=1000), untrusted(True):
        ...     watch = Watch(0.0, 1.0)
        >>> watch.spend(2000, "the outputs at 100 samples")
        Traceback (most recent call last):
        ...
        vecnet.errors.SimulationError: the outputs at 100 samples take 2000 state evaluations' work, more than file_work (1000 for a model file or netlist): ask for fewer output points, or raise the limit with vn.limits(file_work=...) (--limit file_work=... on the command line)
        """
        if self.work + work > self.max_work:
            raise SimulationError(
                f"{what} take {work:.6g} state evaluations' work, more than file_work "
                f"({self.max_work:g} for a model file or netlist): ask for fewer output "
                "points, or raise the limit with vn.limits(file_work=...) (--limit "
                "file_work=... on the command line)")
        self.work += work

    def room(self, count: int, size: int) -> bool:
        """Whether ``count`` more evaluations of ``size`` states each stay within the
        bounds (a compiled step that takes them at once asks first, so that a run stops
        at the bound exactly, one evaluation at a time)."""
        return (self.evaluations + count <= self.max_evaluations
                and self.work + count * (size + self.weight) <= self.max_work)

    def __call__(self, time: float, state: Any = None, finite: bool = False,
                 count: int = 1) -> None:
        """Count ``count`` evaluations, the last at ``time`` of ``state`` (``finite``: known
        to be finite, as a compiled right-hand side tells, so not checked again)."""
        if _interrupted.get():
            raise KeyboardInterrupt
        before = self.evaluations
        self.evaluations += count
        self.work += count * (self.weight + (1 if state is None else len(state) if finite
                                             else np.size(state)))
        if state is not None and not finite:
            values = np.asarray(state, dtype=float)
            if not math.isfinite(values.sum()) and not np.isfinite(values).all():
                bad = [n for n, v in zip(self.names, values) if not math.isfinite(v)]
                which = f" ({', '.join(bad[:3])})" if bad else ""
                raise SimulationError(
                    f"the solution became infinite or undefined{which} at {self.where(time)}: "
                    "the model is unstable or a value is unphysical (a negative store or "
                    "resistance?)")
        if self.evaluations > self.max_evaluations:
            raise SimulationError(
                f"the simulation stopped at {self.where(time)} after {self.max_evaluations} "
                "evaluations (max_evaluations): shorten t_span, loosen the tolerances or raise "
                "the limit with vn.limits(max_evaluations=...)")
        if self.work > self.max_work:
            raise SimulationError(
                f"the simulation stopped at {self.where(time)} after {self.evaluations} "
                f"evaluations of {np.size(state)} states each"
                + (f" and the work of its constraints, contacts or friction modes, "
                   f"{self.weight} more" if self.weight else "")
                + f" (file_work: {self.max_work:g} "
                "state evaluations for a model file or netlist): shorten t_span, loosen the "
                "tolerances or raise the limit with vn.limits(file_work=...) (--limit "
                "file_work=... on the command line)")
        if self.max_seconds < math.inf and self.evaluations // 64 > before // 64 \
                and self.seconds() > self.max_seconds:
            raise SimulationError(
                f"the simulation stopped at {self.where(time)} after {self.max_seconds:g} s "
                "(max_seconds): shorten t_span or raise the limit with "
                "vn.limits(max_seconds=...) (--limit max_seconds=... on the command line)")
        self.reach(time)

    def reach(self, time: float) -> None:
        """Tell ``progress`` the model time reached, if later than any told before: the
        evaluations of a step go back and forth within it (a Runge-Kutta method's stages,
        a step retried shorter), the progress never goes back. A run calls it with its
        last time once it is done, so that a bar ends at 100 %."""
        if self.progress is not None and time > self.reached:
            self.reached = float(time)
            self.progress(self.reached)
