"""Fixed-step integration (RK4 and semi-implicit Euler), as game and robotics engines
integrate, against a pendulum's equation written here and solved by scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import vecnet as vn

M, J, L, G = 1.5, 0.02, 0.4, 9.81     # mass, inertia about the centre, pin to centre, gravity


def pendulum():
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -G))
    bob = mech.body("bob", mass=M, inertia=J, position=(L, 0.0))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(-L, 0))
    return mech


def reference(times):
    """(J + m l^2) theta'' = -m g l cos(theta), from the horizontal at rest."""
    sol = solve_ivp(lambda t, y: [y[1], -M * G * L * np.cos(y[0]) / (J + M * L**2)], (0, times[-1]),
                    [0.0, 0.0], t_eval=times, rtol=1e-12, atol=1e-12, method="DOP853")
    return sol.y[0]


def test_rk4_converges_with_order_four():
    times = np.linspace(0, 2.0, 5)
    exact = reference(times)
    eom = pendulum().formulate()
    errors = [np.max(np.abs(eom.simulate(2.0, t_eval=times, method="rk4", step=h)["pin.angle"]
                            - exact)) for h in (0.02, 0.01)]
    assert errors[0] < 1e-5
    assert 14 < errors[0] / errors[1] < 18          # 2^4 = 16


def test_semi_implicit_euler_is_first_order_and_keeps_its_energy():
    times = np.linspace(0, 1.0, 5)
    exact = reference(times)
    eom = pendulum().formulate()
    errors = [np.max(np.abs(eom.simulate(1.0, t_eval=times, method="euler", step=h)["pin.angle"]
                            - exact)) for h in (0.002, 0.001)]
    assert 1.7 < errors[0] / errors[1] < 2.3         # order 1
    # symplectic: over 40 swings the energy error stays bounded, with no drift
    res = eom.simulate(40.0, t_eval=np.linspace(0, 40, 2001), method="euler", step=0.002)
    error = np.abs(res["energy"] - res["energy"][0])
    assert np.max(error) < 0.02 * M * G * L
    assert np.max(error[-400:]) < 1.5 * np.max(error[:400])


def test_a_loop_stays_closed_under_fixed_steps():
    """A spatial four-bar (RSSR) under RK4: the constraints are solved after every step."""
    from test_spatial import rssr

    res = rssr().formulate().simulate(0.5, t_eval=np.linspace(0, 0.5, 6), method="rk4",
                                      step=0.002, velocities={"R1.angle": 2.0})
    assert np.max(res["constraint residual"]) < 1e-10
    assert np.ptp(res["energy"]) < 1e-6


def test_fixed_step_options_are_checked():
    eom = pendulum().formulate()
    with pytest.raises(vn.FormulationError, match="step= goes with"):
        eom.simulate(0.1, method="rk4")
    with pytest.raises(vn.FormulationError, match="step= goes with"):
        eom.simulate(0.1, step=0.01)
    with pytest.raises(vn.FormulationError, match="step > 0"):
        eom.simulate(0.1, method="euler", step=-1.0)
