"""The event sources of a mechanism run, checked by their events against closed forms: a
block sliding down a frictionless slope into a stop with restitution ``e`` strikes it at
``t1 = sqrt(2 L / a)`` and then after flights ``2 e^k v / a`` that add up to
``t1 (1 + e) / (1 - e)``, before which the run must refuse to follow it (Zeno)."""

import math

import numpy as np
import pytest

import vecnet as vn
from test_friction import G, slope_into_stop
from vecnet.numerics.event_sources import EventSource, Firing, segment_events


@pytest.mark.parametrize("e", [0.3, 0.6])
def test_the_strikes_of_a_stop_come_at_the_bounce_times_and_end_before_they_pile_up(e):
    length, a = 0.5, G * math.sin(math.radians(30))
    v_in = math.sqrt(2 * length * a)
    first = v_in / a
    pile_up = first * (1 + e) / (1 - e)
    res = vn.simulate(slope_into_stop(e, length), (0.0, 2 * pile_up), raise_on_failure=False)
    strikes = [event.t for event in res.events if event.kind == "impact"]
    expected = first + np.concatenate([[0.0], np.cumsum(2 * v_in / a * e ** np.arange(1, 6))])
    assert np.allclose(strikes[:6], expected, rtol=0, atol=1e-8)
    assert res.status == -1 and "settling on its stop" in res.message
    assert max(strikes) < pile_up


class _Numbered(EventSource):
    """A source of ``count`` events that never fire."""

    def __init__(self, count: int) -> None:
        self.count = count

    def events(self, n):
        return [lambda t, y: 1.0 for _ in range(self.count)]

    def fire(self, index, time, q, u, last):
        return Firing(u)


def test_each_event_of_a_stretch_is_traced_to_its_source_and_its_own_number():
    sources = [_Numbered(1), _Numbered(0), _Numbered(3)]
    functions, owners = segment_events(sources, 2)
    assert len(functions) == 4
    assert owners == [(sources[0], 0), (sources[2], 0), (sources[2], 1), (sources[2], 2)]
