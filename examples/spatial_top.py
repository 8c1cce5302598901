"""A spinning top and a torque-free body, built with vecnet.spatial.

1. Lagrange top (Wittenburg 4.31-4.39): a symmetric body on a ball joint at its tip,
   mass centre s up its axis, tilted by theta0 from the vertical. Spun at omega3 about
   its axis and precessing at

       psi' = J3 omega3 / (2 J1 cos theta0) [1 +- sqrt(1 - 4 J1 m g s cos theta0 / (J3 omega3)^2)]

   (J1 about the tip, J3 about the axis), it keeps its tilt: a regular precession.
2. A torque-free body with principal moments 7, 5, 3 spun about each principal axis with a
   1e-3 rad/s disturbance: the spins about the largest and smallest axes stay near the
   axis, the one about the middle axis tumbles (Wittenburg Sec. 4.1).

Run with ``python examples/spatial_top.py``.
"""

import numpy as np
from scipy.spatial.transform import Rotation

import vecnet as vn
from vecnet.core.rotations import quaternion_matrix

G = 9.81

# -- 1. the top ---------------------------------------------------------------------------
m, s, Jt, J3, omega3, theta0 = 1.5, 0.2, 0.02, 0.03, 60.0, 0.4
J1 = Jt + m * s**2
tilt = Rotation.from_euler("x", theta0)
axis0 = tilt.as_matrix()[:, 2]
mech = vn.spatial.Mechanism("top", gravity=(0, 0, -G))
top = mech.body("top", m, (Jt, Jt, J3), position=s * axis0, orientation=tilt)
mech.spherical("tip", mech.ground.point(0, 0, 0), top.point(0, 0, -s))
eom = mech.formulate()
for sign in (+1, -1):
    rate = J3 * omega3 / (2 * J1 * np.cos(theta0)) * (
        1 + sign * np.sqrt(1 - 4 * J1 * m * G * s * np.cos(theta0) / (J3 * omega3) ** 2))
    omega = rate * np.array([0, 0, 1.0]) + (omega3 - rate * np.cos(theta0)) * axis0
    T = 2 * np.pi / rate
    res = eom.simulate(T, t_eval=np.linspace(0, T, 51), rtol=1e-12, atol=1e-13,
                       velocities={"top.omega": tuple(omega)})
    axis = np.array([quaternion_matrix(p)[:, 2] for p in res["top.orientation"]])
    tilt_error = np.max(np.abs(np.arccos(axis[:, 2]) - theta0))
    turned = np.unwrap(np.arctan2(axis[:, 1], axis[:, 0]))
    measured = (turned[-1] - turned[0]) / T
    print(f"precession {'fast' if sign > 0 else 'slow'}: predicted {rate:.9f} rad/s, "
          f"measured {measured:.9f} rad/s, tilt held to {tilt_error:.1e} rad")
    assert abs(measured - rate) < 1e-6 * rate and tilt_error < 1e-6 * theta0
    assert np.ptp(res["energy"]) < 1e-9 * abs(res["energy"]).max()

# -- 2. free rotation about the principal axes ------------------------------------------------
for k, name in enumerate(("largest (7)", "middle (5)", "smallest (3)")):
    free = vn.spatial.Mechanism("free", gravity=(0, 0, 0))
    free.body("b", 1.0, (7.0, 5.0, 3.0))
    spin = np.full(3, 1e-3)
    spin[k] = 2.0
    res = free.formulate().simulate(20.0, t_eval=np.linspace(0, 20, 201), rtol=1e-11,
                                    atol=1e-12, velocities={"b.omega": tuple(spin)})
    body_rates = np.array([quaternion_matrix(p).T @ w
                           for p, w in zip(res["b.orientation"], res["b.omega"])])
    wobble = np.max(np.abs(np.delete(body_rates, k, axis=1)))
    print(f"spin about the {name} axis: largest cross rate {wobble:.2e} rad/s")
    assert (wobble > 0.5) if k == 1 else (wobble < 1e-2)
