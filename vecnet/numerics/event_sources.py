"""The event sources of a mechanism run: what ends a stretch of integration, and what
happens where it ends.

:func:`vecnet.numerics.multibody.integrate_partitioned` integrates a mechanism from event
to event. Each :class:`EventSource` gives the terminal event functions it watches over
the next stretch (:meth:`EventSource.events`) and, when the first event reached is one
of its own, says what happens there (:meth:`EventSource.fire`): a joint strikes its stop
(:class:`JointStops`), the modes of set-valued friction or of contacts switch
(:class:`ModeSwitches`), the partition of the coordinates nears a singular choice
(:class:`SingularPartition`). The run then goes on from the state the source leaves, or
ends with the error it tells.

The sources refuse to follow what could not end in time: a stop struck again within a
negligible time of its last strike (bounces shrinking toward rest, Zeno's), more than
:data:`MAX_IMPACTS` strikes, and modes that switch more than :data:`MAX_SWITCHES` times in
a row, each close on the change before (chatter).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import numpy as np

from ..errors import SimulationError
from .result import Event

if TYPE_CHECKING:
    from .multibody import Partition, Stop

__all__ = ["EventFunction", "Change", "Firing", "EventSource", "SingularPartition",
           "JointStops", "Modes", "ModeSwitches", "segment_events", "MAX_IMPACTS",
           "MAX_SWITCHES"]

#: an event function of the integrator's state, ``f(t, y)``, whose root is the event (it
#: carries scipy's ``terminal`` and ``direction`` attributes)
EventFunction = Callable[[float, np.ndarray], float]

#: more impacts than this in one run are refused (a run that cannot end in time)
MAX_IMPACTS = 10_000
#: more mode switches than this in a row, each close on the last, are refused (chatter)
MAX_SWITCHES = 50


class Change(NamedTuple):
    """The last firing that changed the state: its ``cause`` (the
    :class:`~vecnet.numerics.multibody.Stop` struck, the :class:`ModeSwitches` that
    switched) and its ``time``."""

    cause: object
    time: float


class Firing(NamedTuple):
    """What a source's event did: the speeds ``u`` after it, the ``events`` to record
    (:class:`~vecnet.numerics.result.Event`), the ``error`` that ends the run (``None``:
    it goes on), the ``cause`` of a change of state that the next firings are checked
    against and whose next stretch starts with a short step (``None``: nothing changed,
    as at a new partition), whether it was an ``impact`` (a jump of the speeds that
    the other sources answer, :meth:`EventSource.struck`), and the ``first_step`` of
    that stretch where a longer one than the run's settling time is safe (``None``: that
    time; ``math.inf``: the integrator's own choice, where nothing can leap past the
    next event within its first step)."""

    u: np.ndarray
    events: Sequence[Event] = ()
    error: SimulationError | None = None
    cause: object = None
    impact: bool = False
    first_step: float | None = None


class EventSource(ABC):
    """Something that ends a stretch of a mechanism's integration at its events and acts
    there. The integrator's state ``y`` holds the coordinates first (``n`` of them), then
    the speeds."""

    @abstractmethod
    def events(self, n: int) -> list[EventFunction]:
        """The terminal event functions of ``(t, y)`` this source watches over the next
        stretch, in the order :meth:`fire` numbers them."""

    @abstractmethod
    def fire(self, index: int, time: float, q: np.ndarray, u: np.ndarray,
             last: Change | None) -> Firing:
        """Event ``index`` of the last :meth:`events` was reached at ``(time, q, u)``
        (consistent coordinates and speeds), ``last`` the change before it (``None``:
        none yet): what happens there."""

    def struck(self, time: float, q: np.ndarray, u: np.ndarray
               ) -> tuple[np.ndarray, list[Event]]:
        """Another source's impact just changed the speeds to ``u``: the speeds after this
        source has decided anew what depends on them, and the events of that (by
        default nothing depends on them)."""
        return u, []

    def sampled(self, count: int) -> None:
        """The stretch just integrated gave ``count`` output samples in this source's
        present state (by default nothing is kept of it)."""

    def longest_step(self, q: np.ndarray, u: np.ndarray) -> float:
        """The longest step the integrator may take over the stretch that starts at
        ``(q, u)`` for this source's events to be seen (by default no bound)."""
        return np.inf


class SingularPartition(EventSource):
    """A stretch's coordinate partition (:class:`~vecnet.numerics.multibody.Partition`),
    whose projections lose accuracy as its dependent block nears singularity: its event
    is the block's conditioning falling through ``threshold``. Nothing happens at it but
    the end of the stretch, as every stretch starts with a partition chosen at its start."""

    def __init__(self, partition: Partition, threshold: float) -> None:
        self.partition, self.threshold = partition, threshold

    def events(self, n: int) -> list[EventFunction]:
        part, threshold = self.partition, self.threshold

        def singular(tt, y):
            return part.conditioning(tt, y[:n]) - threshold

        event: Any = singular   # solve_ivp reads these attributes of an event function
        event.terminal, event.direction = True, -1
        return [event]

    def fire(self, index: int, time: float, q: np.ndarray, u: np.ndarray,
             last: Change | None) -> Firing:
        return Firing(u)


class JointStops(EventSource):
    """Unilateral stops (:class:`~vecnet.numerics.multibody.Stop`): each one's event is its
    gap falling through zero, where the speeds jump by ``impact(time, q, u, stop)``
    (:func:`~vecnet.numerics.multibody.impact`). A stop struck again within ``settle``
    seconds of its last strike, with no change between, or more than :data:`MAX_IMPACTS`
    strikes in all, end the run: the joint is settling on its stop."""

    def __init__(self, stops: Sequence[Stop],
                 impact: Callable[[float, np.ndarray, np.ndarray, Stop], np.ndarray],
                 settle: float) -> None:
        self.stops, self.impact, self.settle = list(stops), impact, settle
        self.impacts = 0   # strikes so far

    def events(self, n: int) -> list[EventFunction]:
        return [_gap_event(stop, n) for stop in self.stops]

    def fire(self, index: int, time: float, q: np.ndarray, u: np.ndarray,
             last: Change | None) -> Firing:
        stop = self.stops[index]
        self.impacts += 1
        # bounces shrinking geometrically toward rest would never end (Zeno)
        settling = last is not None and last.cause is stop and time - last.time < self.settle
        if settling or self.impacts > MAX_IMPACTS:
            return Firing(u, error=SimulationError(
                f"stop {stop.name!r} was struck {self.impacts} times by t = {time:.6g}, the "
                "last ones ever closer together: the joint is settling on its stop, "
                "which an impact law cannot follow to rest; end the simulation before "
                "it settles, or model the stop as a stiff spring-damper"))
        return Firing(self.impact(time, q, u, stop), [Event(time, stop.name, "impact")],
                      cause=stop, impact=True)


def _gap_event(stop: Stop, n: int) -> EventFunction:
    """The terminal event of ``stop`` on the integration state (coordinates first)."""
    def gap(tt, y):
        return stop.gap(y[:n])

    event: Any = gap   # solve_ivp reads these attributes of an event function
    event.terminal, event.direction = True, -1
    return event


class Modes(Protocol):
    """What :class:`ModeSwitches` asks of a run's set-valued modes
    (:class:`~vecnet.numerics.friction.CoulombModes`,
    :class:`~vecnet.numerics.contact.ContactModes`)."""

    def events(self, n: int) -> list[Callable[[float, np.ndarray], float]]:
        """The terminal events that end the present modes."""

    def switch(self, j: int, time: float, q: np.ndarray, u: np.ndarray
               ) -> tuple[np.ndarray, list[Event]]:
        """Event ``j`` fired: the new modes, the speeds after and the events."""

    def start(self, time: float, q: np.ndarray, u: np.ndarray, first: bool = False
              ) -> tuple[np.ndarray, list[Event]]:
        """Every mode decided from the state: the speeds after and the modes changed."""

    def record(self, count: int) -> None:
        """The present modes for ``count`` more output samples."""

    def accelerations(self, time: float, q: np.ndarray, u: np.ndarray,
                      w_other=None) -> np.ndarray:
        """The accelerations at ``(t, q, u)`` in the present modes, under the loads
        ``w_other`` of anything coupled and the modes' own forces."""

    def idle(self) -> bool:
        """Whether the present modes apply no load."""


class ModeSwitches(EventSource):
    """The modes of set-valued joint friction or of contacts (:class:`Modes`): their events
    switch them (:meth:`Modes.switch`, an impact of a contact among them), and an impact
    elsewhere decides them anew (:meth:`Modes.start`: it may set a stuck joint moving, or
    stop one). More than :data:`MAX_SWITCHES` switches in a row, each within ``settle``
    seconds of the change before, end the run: the modes chatter."""

    def __init__(self, modes: Modes, settle: float) -> None:
        self.modes, self.settle = modes, settle
        self.quick = 0   # switches in a row, each within `settle` of the change before

    def events(self, n: int) -> list[EventFunction]:
        return self.modes.events(n)

    def fire(self, index: int, time: float, q: np.ndarray, u: np.ndarray,
             last: Change | None) -> Firing:
        self.quick = self.quick + 1 if last is not None and time - last.time < self.settle \
            else 0
        if self.quick > MAX_SWITCHES:
            return Firing(u, error=SimulationError(
                f"joint friction or contacts switched mode {self.quick} times in a row "
                f"within {self.settle:.3g} s by t = {time:.6g}: the modes chatter; the "
                "friction or contact problem has no consistent mode there"))
        try:
            u, happened = self.modes.switch(index, time, q, u)
        except SimulationError as exc:
            return Firing(u, error=exc)
        return Firing(u, happened, cause=self, first_step=getattr(self.modes, "restart", None))

    def struck(self, time: float, q: np.ndarray, u: np.ndarray
               ) -> tuple[np.ndarray, list[Event]]:
        return self.modes.start(time, q, u)

    def sampled(self, count: int) -> None:
        self.modes.record(count)

    def longest_step(self, q: np.ndarray, u: np.ndarray) -> float:
        bound = getattr(self.modes, "longest_step", None)
        return np.inf if bound is None else bound(q, u)


def segment_events(sources: Sequence[EventSource], n: int
                   ) -> tuple[list[EventFunction], list[tuple[EventSource, int]]]:
    """Every source's event functions for the next stretch, one list in the sources'
    order, and for each its source and its index among that source's (the ``index`` of
    :meth:`EventSource.fire`)."""
    functions: list[EventFunction] = []
    owners: list[tuple[EventSource, int]] = []
    for source in sources:
        own = source.events(n)
        functions.extend(own)
        owners.extend((source, index) for index in range(len(own)))
    return functions, owners
