"""One linear model for networks, mechanisms and coupled systems.

Facts checked from outside the code under test:

* an RC low-pass's linear model has the pole ``-1 / (R C)`` and the frequency response
  ``1 / (1 + j w R C)``, and its step response is ``1 - exp(-t / (R C))``;
* a damped pendulum's linear model has the roots of ``m l^2 s^2 + c s + (m g l + k)``
  (numpy's roots of the polynomial, written here) as its poles;
* every linearization is that one class.
"""

from __future__ import annotations

import numpy as np

import vecnet as vn
from vecnet.formulation.coupled import LinearModel as CoupledLinearModel
from vecnet.formulation.linear_model import LinearModel
from vecnet.formulation.multibody import StateLinearization

R, C = 2.0, 0.25


def rc():
    net = vn.Network("rc")
    net.add(vn.VoltageSource("V", "a", "g", V=1.0), vn.Resistor("R", "a", "b", R=R),
            vn.Capacitor("C", "b", "g", C=C))
    return net


def test_an_rc_low_pass_has_its_pole_response_and_step():
    linear = vn.linear_model(rc(), outputs=["C.across"])
    assert isinstance(linear, LinearModel)
    assert np.allclose(linear.poles(), [-1 / (R * C)])
    f = np.array([0.1, 1.0, 10.0])
    H = vn.frequency_response(linear, f)
    expected = 1 / (1 + 2j * np.pi * f * R * C)
    assert np.allclose(H["C.across", "V.across"], expected, rtol=1e-12)
    times = np.linspace(0.0, 3.0, 31)
    y = vn.step_response(linear, times)
    assert np.allclose(y[:, 0, 0], 1 - np.exp(-times / (R * C)), atol=1e-12)


def test_a_damped_pendulum_has_the_roots_of_its_characteristic_polynomial():
    m, length, g, k, c = 1.5, 0.8, 9.81, 2.0, 0.3
    mech = vn.planar.Mechanism("p", gravity=(0, -g))
    bob = mech.body("bob", mass=m, inertia=0.0, position=(0, -length))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, length))
    mech.rotary_spring("k", mech.ground, bob, k=k, c=c)
    mech.torque("T", bob, 0.0)
    eom = mech.formulate()
    lin = eom.linearize(eom.equilibrium())
    model = lin.linear_model()
    assert isinstance(model, LinearModel) and list(model.inputs) == ["T"]
    expected = np.roots([m * length ** 2, c, m * g * length + k])
    assert np.allclose(np.sort_complex(model.poles()), np.sort_complex(expected), rtol=1e-6)


def test_every_linearization_is_the_one_class():
    assert issubclass(StateLinearization, LinearModel)
    assert CoupledLinearModel is LinearModel
