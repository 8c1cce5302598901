"""A gyroscope on a gimbal: gyroscopic precession under gravity.

The outer ring turns about the vertical z axis (a revolute joint to the ground at the
gimbal centre O); the inner ring turns in it about the horizontal x axis (a revolute
joint at O); the rotor, a symmetric body (moment J_s about its axis y, J_t across it),
spins in the inner ring on a revolute joint about y, its mass centre at distance r from O
along its axis. Gravity (along -z) pulls the rotor's mass centre down, a torque m g r
about the inner ring's axis. The rings' mass centres are at O, their principal axes along
the gimbal axes. The script checks:

(a) the rotor's absolute spin, the component of its angular velocity along its own axis,
    stays constant. Euler's equation about a symmetry axis reads
    J_s d(omega . a)/dt = torque about the axis; the frictionless revolute joint and the
    bearing force (through the axis) exert none. The spin relative to the inner ring,
    the joint's angle rate, is not constant once the ring tilts;
(b) gyroscopic precession. With the rotor axis horizontal and the gimbal turning at
    Omega about z, the angular momentum of inner ring and rotor about O is
    J_s omega_s y + (constant) z; its rate Omega z x J_s omega_s y = -Omega J_s omega_s x
    must equal the gravity moment r y x (-m g z) = -m g r x (the inner revolute exerts no
    moment about x), so Omega = m g r / (J_s omega_s) keeps the axis horizontal exactly:
    started on it, the gimbal precesses at Omega with no nutation. Released with no
    precession rate, the rotor axis nutates: with J_x, J_z the moments of rings and rotor
    about the gimbal axes and H = J_s omega_s, the angular momentum about z,
    J_z psi' + H sin(theta) = 0, and the moments about x, J_x theta'' = H psi' - m g r,
    give for a small tilt theta = -(Omega J_z / H)(1 - cos(w t)) with
    w = H / sqrt(J_x J_z) and psi' = Omega (1 - cos(w t)): the axis dips by up to
    2 Omega J_z / H and the mean precession rate is Omega;
(c) energy is conserved, and so is the angular momentum about the vertical axis (the
    outer revolute and gravity have no moment about z).

Run with ``python examples/gyroscope_gimbal.py``.
"""

import numpy as np

import vecnet as vn

G = 9.81
m, r, J_s, J_t = 1.0, 0.05, 0.004, 0.0025          # rotor
omega_s = 150.0                                     # spin, rad/s
OUTER, INNER = (0.002, 0.002, 0.003), (0.001, 0.0015, 0.001)
precession = m * G * r / (J_s * omega_s)
J_x = INNER[0] + J_t + m * r**2
J_z = OUTER[2] + INNER[2] + J_t + m * r**2
nutation = J_s * omega_s / np.sqrt(J_x * J_z)

mech = vn.spatial.Mechanism("gyroscope", gravity=(0, 0, -G))
outer = mech.body("outer", 0.3, OUTER)
inner = mech.body("inner", 0.2, INNER)
rotor = mech.body("rotor", m, (J_t, J_s, J_t), position=(0, r, 0))
mech.revolute("azimuth", mech.ground.point(0, 0, 0), outer.centre, axis=(0, 0, 1))
mech.revolute("tilt", outer.centre, inner.centre, axis=(1, 0, 0))
mech.revolute("spin", inner.point(0, r, 0), rotor.centre, axis=(0, 1, 0))
eom = mech.formulate()
print(f"coordinates {eom.coordinates}; precession by the gyroscopic formula "
      f"{precession:.6f} rad/s, nutation about {nutation:.1f} rad/s")


def axis_and_spin(res):
    """The rotor's axis in world axes and its absolute and relative spin along it."""
    A = np.array([vn.spatial.quaternion_matrix(p) for p in res["rotor.orientation"]])
    axis = A[:, :, 1]
    absolute = np.sum(res["rotor.omega"] * axis, axis=1)
    relative = np.sum((res["rotor.omega"] - res["inner.omega"]) * axis, axis=1)
    return axis, absolute, relative


def vertical_momentum(res):
    """L_z about O from every body's mass centre motion and angular velocity."""
    total = 0.0
    bodies = (("outer", 0.3, OUTER), ("inner", 0.2, INNER), ("rotor", m, (J_t, J_s, J_t)))
    for name, mass, J in bodies:
        A = np.array([vn.spatial.quaternion_matrix(p)
                      for p in res[f"{name}.orientation"]])
        spin = np.einsum("nij,j,nkj,nk->ni", A, np.asarray(J), A, res[f"{name}.omega"])
        total = total + mass * np.cross(res[f"{name}.position"], res[f"{name}.velocity"])[:, 2] \
            + spin[:, 2]
    return total


def check_conservation(res, label):
    """(a) and (c): the rotor's absolute spin, the energy and L_z stay constant."""
    _, absolute, relative = axis_and_spin(res)
    energy, L = res["energy"], vertical_momentum(res)
    print(f"{label}: absolute spin drift {np.ptp(absolute):.1e} rad/s, relative spin varies "
          f"by {np.ptp(relative):.1e} rad/s; energy drift {np.ptp(energy):.1e} J, "
          f"L_z drift {np.ptp(L):.1e}")
    assert np.ptp(absolute) < 1e-9 * omega_s
    assert np.ptp(energy) < 1e-9 * np.max(res["kinetic"])
    assert np.ptp(L) < 1e-9 * J_s * omega_s


# -- (b) started on the regular precession: the axis stays horizontal --------------------------
T = 2 * np.pi / precession / 4                      # a quarter turn of the gimbal
steady = eom.simulate(T, t_eval=np.linspace(0, T, 101), rtol=1e-11, atol=1e-12,
                      velocities={"azimuth.angle": precession, "spin.angle": omega_s})
rate = (steady["azimuth.angle"][-1] - steady["azimuth.angle"][0]) / T
print(f"started on the precession: azimuth rate {rate:.9f} rad/s, tilt stays within "
      f"{np.max(np.abs(steady['tilt.angle'])):.1e} rad")
assert abs(rate - precession) < 1e-8 * precession
assert np.max(np.abs(steady["tilt.angle"])) < 1e-8
check_conservation(steady, "  conservation")

# -- (b) released with no precession rate: nutation around the same mean precession -----------
t_end = 1.5
released = eom.simulate(t_end, t_eval=np.linspace(0, t_end, 1501), rtol=1e-10, atol=1e-12,
                        velocities={"spin.angle": omega_s})
t, psi = released.t, released["azimuth.angle"]
mean_rate = np.polyfit(t, psi, 1)[0]
axis, _, relative = axis_and_spin(released)
dip, dip_expected = -np.min(np.arcsin(axis[:, 2])), 2 * precession * J_z / (J_s * omega_s)
swings = np.count_nonzero(np.diff(np.sign(np.diff(released["tilt.angle"]))) > 0)   # minima
swings_expected = nutation * t_end / (2 * np.pi)
print(f"released: mean precession {mean_rate:.5f} rad/s ({mean_rate / precession - 1:+.2%} "
      f"from the formula), {swings} nutation swings in {t_end} s ({swings_expected:.1f} "
      f"expected), the axis dips by up to {np.degrees(dip):.3f} deg "
      f"({np.degrees(dip_expected):.3f} deg expected)")
assert abs(mean_rate - precession) < 0.01 * precession
assert abs(swings - swings_expected) <= 1
assert abs(dip - dip_expected) < 0.02 * dip_expected
assert np.ptp(relative) > 1e-3          # the spin relative to the tilting ring changes
check_conservation(released, "  conservation")
