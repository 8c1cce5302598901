"""Values at the output times (``t_eval``) are as accurate as the integrator's steps.

A DC motor (armature resistance R, inductance L, constant K) turning an inertia J, driven
by a step of V volts from rest: ``L i' = V - R i - K w``, ``J w' = K i``. With
``s1, s2`` the roots of ``L J s^2 + R J s + K^2``,

    i(t) = V / (L (s1 - s2)) (e^{s1 t} - e^{s2 t}),
    w(t) = K V / (L J) (1 / (s1 s2) + e^{s1 t} / (s1 (s1 - s2)) + e^{s2 t} / (s2 (s2 - s1))).

The electrical mode (|s2| ~ 200 1/s) dies out early; then DOP853's steps grow until that
mode sits near the edge of the method's stability region, where its interpolant between
steps amplifies what is left of it: read between steps, the current was off by 1e-6 A at
rtol 1e-11 (4600 times the tolerance). The explicit methods step onto the output times.
"""

import numpy as np
import pytest

import vecnet as vn

R, L, K, J, V = 1.0, 5e-3, 0.05, 1e-3, 24.0
RTOL, ATOL = 1e-11, 1e-12


def closed_form(t):
    a, b, c = L * J, R * J, K * K
    d = np.sqrt(complex(b * b - 4 * a * c))
    s1, s2 = (-b + d) / (2 * a), (-b - d) / (2 * a)
    i = V / (L * (s1 - s2)) * (np.exp(s1 * t) - np.exp(s2 * t))
    w = K * V / (L * J) * (1 / (s1 * s2) + np.exp(s1 * t) / (s1 * (s1 - s2))
                           + np.exp(s2 * t) / (s2 * (s2 - s1)))
    return i.real, w.real


def motor_on_a_rotor():
    mech = vn.planar.Mechanism("rotor", gravity=(0, 0))
    rotor = mech.body("rotor", mass=1.0, inertia=J)
    mech.revolute("O", mech.ground.centre, rotor.centre)
    net = vn.Network("motor")
    # the current flows from c through the motor to g: La.through is -i
    net.add(vn.VoltageSource("V", "g", "a", V=V), vn.Resistor("Ra", "a", "b", R=R),
            vn.Inductor("La", "b", "c", L=L), vn.DCMotor("M", "ref", "w", "g", "c", K=K),
            vn.RotaryPort("shaft", "ref", "w", joint="O"))
    return vn.System(mech, net)


@pytest.mark.parametrize("method", ["partition", "dae"])
def test_motor_transient_at_the_output_times_is_within_the_tolerance(method):
    ts = np.linspace(0.0, 0.5, 501)
    res = motor_on_a_rotor().simulate(0.5, t_eval=ts, rtol=RTOL, atol=ATOL, method=method)
    i, w = closed_form(ts)
    # the default method within 10 times the tolerance; IDA (variable order, its own
    # interpolation) within 100 times
    factor = 10 if method == "partition" else 100
    assert np.abs(-res["La.through"] - i).max() <= factor * (RTOL * np.abs(i).max() + ATOL)
    assert np.abs(res["O.angle'"] - w).max() <= factor * (RTOL * np.abs(w).max() + ATOL)


def test_outputs_off_the_steps_come_from_the_steps_and_agree_with_one_run_to_each():
    """Output times landing on the steps give the values a run ending there gives."""
    system = motor_on_a_rotor()
    many = system.simulate(0.2, t_eval=np.linspace(0.0, 0.2, 41), rtol=1e-9, atol=1e-12)
    for k in (7, 23, 40):
        t = 0.2 * k / 40
        one = system.simulate(t, t_eval=[0.0, t], rtol=1e-9, atol=1e-12)
        i, _ = closed_form(np.array([t]))
        assert abs(many["La.through"][k] - one["La.through"][-1]) <= 20 * (1e-9 * 25 + 1e-12)
        assert abs(-many["La.through"][k] - i[0]) <= 10 * (1e-9 * 25 + 1e-12)
