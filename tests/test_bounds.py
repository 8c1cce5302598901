"""Bounded work: simulations check their time grid first and stop, saying how far they got,
when they exceed their evaluation or time budget or their state overflows."""

import math
import threading

import numpy as np
import pytest
import sympy

import vecnet as vn


def rc(C=1e-3, **capacitor):
    net = vn.Network("rc")
    net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
            vn.Capacitor("C", "g", "b", C=C, **capacitor))
    return net


def pendulum():
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -9.81))
    bob = mech.body("bob", mass=1.0, inertia=0.01, position=(0.0, -0.5))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, 0.5))
    return mech.formulate()


@pytest.mark.parametrize("t_span, words", [
    ((0, float("nan")), "finite"), ((0, float("inf")), "finite"), ((1, 0), "after it starts"),
    ((0, 0), "after it starts"), ((0,), "(t0, t1)"), ("01", "(t0, t1)"),
    ((1e9, 1e9 + 1e-7), "too short")])
def test_bad_spans_are_refused_before_any_work(t_span, words):
    with pytest.raises(vn.ModelError, match=words.replace("(", r"\(").replace(")", r"\)")):
        rc().simulate(t_span)


@pytest.mark.parametrize("t_eval, words", [([0.5, 0.2], "increasing"), ([0.0, 2.0], "outside"),
                                           ([0.0, float("nan")], "not finite")])
def test_bad_output_times_are_refused(t_eval, words):
    with pytest.raises(vn.ModelError, match=words):
        rc().simulate((0, 1), t_eval=t_eval)
    with pytest.raises(vn.ModelError, match=words):
        pendulum().simulate(1.0, t_eval=t_eval)


def test_an_unstable_network_stops_where_its_exponential_overflows():
    # R = 1, C = -1e-3: v grows as e^(1000 t) and leaves double precision at ln(1.8e308)/1000
    overflow = math.log(np.finfo(float).max) / 1000
    with pytest.raises(vn.SimulationError, match="became infinite") as info:
        rc(C=-1e-3, allow_negative=True).simulate((0, 1))
    reached = float(str(info.value).split("at t = ")[1].split()[0])
    assert 0.9 * overflow < reached <= overflow + 1e-3
    assert "C.across" in str(info.value)


def test_a_mechanism_over_a_billion_seconds_stops_at_its_evaluation_budget():
    eom = pendulum()
    with vn.limits(max_evaluations=2000):
        with pytest.raises(vn.SimulationError, match="after 2000 evaluations") as info:
            eom.simulate(1e9, t_eval=[0.0, 1e9], velocities={"pin.angle": 2.0})
    reached = float(str(info.value).split("at t = ")[1].split()[0])
    assert 0 < reached < 1e9


def test_the_wall_clock_budget():
    eom = pendulum()
    eom.compile()
    with vn.limits(max_seconds=0.2), pytest.raises(vn.SimulationError, match="max_seconds"):
        eom.simulate(1e9, t_eval=[0.0, 1e9], velocities={"pin.angle": 2.0})


def test_limits_hold_inside_their_block_and_thread_only():
    default = vn.get_limits()
    seen = {}
    with vn.limits(max_points=7) as inside:
        assert inside.max_points == 7 == vn.get_limits().max_points
        worker = threading.Thread(target=lambda: seen.update(points=vn.get_limits().max_points))
        worker.start()
        worker.join()
        with pytest.raises(vn.ModelError, match="max_points"):
            rc().simulate((0, 1), t_eval=np.linspace(0, 1, 8))
    assert seen["points"] == default.max_points
    assert vn.get_limits() == default


def test_oscillations_are_counted_from_the_signal():
    t = vn.t
    # 10 kHz for 1 s is 10^4 periods: within the default bound, refused under a bound of 10^3
    signal = 2 * sympy.sin(2 * sympy.pi * 1e4 * t + 0.3)
    vn.bounds.check_oscillation("V.across", signal, 1.0)
    with vn.limits(max_cycles=1e3), pytest.raises(vn.ModelError, match="10000 periods"):
        vn.bounds.check_oscillation("V.across", signal, 1.0)
    # a periodic pulse counts its periods too
    pulse = vn.io.spice.pulse(0, 1, 0, 1e-9, 1e-9, 1e-6, 2e-6)
    with pytest.raises(vn.ModelError, match="500000 periods"):
        vn.bounds.check_oscillation("V.across", pulse, 1.0)
