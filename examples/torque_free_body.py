"""A torque-free rigid body: conservation laws and the tennis-racket theorem.

A single body with principal moments of inertia (7, 5, 3) and no gravity has six degrees
of freedom (its mass centre and its orientation, a unit quaternion). With no force and no
torque acting (Wittenburg, Sec. 4.1):

* the kinetic energy T = (m v.v + omega.J omega) / 2 and the angular momentum about the
  mass centre, in world axes H = A J A^T omega (A the rotation matrix of the body), stay
  constant; the script computes H from the reported angular velocity and orientation and
  the inertia it gave, and the mass centre moves in a straight line at constant speed;
* spun about a principal axis with a small disturbance, the body keeps near the axis of the
  largest (7) and of the smallest (3) moment, wobbling at the rate of the linearized Euler
  equations, omega sqrt((J1 - J2)(J1 - J3) / (J2 J3)) and
  omega sqrt((J1 - J3)(J2 - J3) / (J1 J2)); about the middle (5) axis the disturbance grows
  as exp(lambda t) with lambda = omega sqrt((J1 - J2)(J2 - J3) / (J1 J3)) until the
  body tumbles and turns its spin round (the tennis-racket theorem).

Run with ``python examples/torque_free_body.py``.
"""

import numpy as np

import vecnet as vn

J = np.array([7.0, 5.0, 3.0])
mass, speed, spin, disturbance = 2.0, 2.0, 2.0, 1e-3
t_end = 20.0


def simulate(axis: int):
    """The body spun at ``spin`` about principal ``axis`` (0, 1, 2 for J = 7, 5, 3), the
    other two rates ``disturbance``, its mass centre moving along x and z."""
    free = vn.spatial.Mechanism("free body", gravity=(0, 0, 0))
    free.body("b", mass, tuple(J))
    omega = np.full(3, disturbance)
    omega[axis] = spin
    eom = free.formulate()
    assert len(eom.u) == 6        # three translations, three rotations
    return eom.simulate(t_end, t_eval=np.linspace(0, t_end, 801), rtol=1e-11, atol=1e-12,
                        velocities={"b.omega": tuple(omega),
                                    "b.velocity": (speed, 0.0, 0.5 * speed)})


def body_rates_and_momentum(res):
    """Angular velocity in body axes and angular momentum in world axes, sample by sample."""
    A = np.array([vn.spatial.quaternion_matrix(p) for p in res["b.orientation"]])
    body = np.einsum("nji,nj->ni", A, res["b.omega"])            # A^T omega
    momentum = np.einsum("nij,nj->ni", A, J * body)               # A J A^T omega
    return body, momentum


names = ("largest (7)", "middle (5)", "smallest (3)")
wobble_rates = (spin * np.sqrt((J[0] - J[1]) * (J[0] - J[2]) / (J[1] * J[2])), None,
                spin * np.sqrt((J[0] - J[2]) * (J[1] - J[2]) / (J[0] * J[1])))
growth = spin * np.sqrt((J[0] - J[1]) * (J[1] - J[2]) / (J[0] * J[2]))
for axis, name in enumerate(names):
    res = simulate(axis)
    t = res.t
    body, H = body_rates_and_momentum(res)
    energy = 0.5 * (mass * np.sum(res["b.velocity"] ** 2, axis=1) + body**2 @ J)
    momentum_drift = np.max(np.abs(H - H[0])) / np.linalg.norm(H[0])
    assert np.ptp(energy) < 1e-8 * energy[0] and np.ptp(res["energy"]) < 1e-8 * energy[0]
    assert momentum_drift < 1e-8
    # no force: the mass centre goes straight on at its initial speed
    assert np.allclose(res["b.position"], np.outer(t, [speed, 0.0, 0.5 * speed]), atol=1e-8)
    cross = np.delete(body, axis, axis=1)
    wobble = np.max(np.abs(cross))
    print(f"spin about the {name} axis: |H| drift {momentum_drift:.1e}, "
          f"energy drift {np.ptp(energy) / energy[0]:.1e}, largest cross rate {wobble:.2e} rad/s")
    if axis != 1:
        assert wobble < 10 * disturbance       # stays near the axis
        # the cross rates turn at the wobble rate: half a period between sign changes
        x = cross[:, 0]
        i = np.flatnonzero(np.diff(np.sign(x)))
        zeros = t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])
        measured = np.pi * (len(zeros) - 1) / (zeros[-1] - zeros[0])
        print(f"  wobble rate: linearized Euler equations {wobble_rates[axis]:.4f} rad/s, "
              f"measured {measured:.4f} rad/s")
        assert abs(measured - wobble_rates[axis]) < 0.01 * wobble_rates[axis]
    else:
        # the disturbance grows at the linear rate while it is small ...
        size = np.linalg.norm(cross, axis=1)
        early = (size > 3 * disturbance) & (size < 0.05) & (t < 10)
        rate = np.polyfit(t[early], np.log(size[early]), 1)[0]
        # ... and the body turns over: the spin about the middle axis changes sign
        print(f"  disturbance grows at {rate:.4f} /s (linearized Euler equations "
              f"{growth:.4f} /s); spin about the axis reaches {body[:, 1].min():.3f} rad/s")
        assert abs(rate - growth) < 0.03 * growth
        assert wobble > 0.5 * spin and body[:, 1].min() < -0.9 * spin
