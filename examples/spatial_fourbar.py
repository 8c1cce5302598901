"""The RSSR spatial four-bar: degrees of freedom, a driven crank and its joint reactions.

A crank turns about the vertical z axis at A = 0, its pin at B = (0.5, 0, 0.2); a coupler
joins B to C = (1.5, 1, 0.8) with ball joints at both ends; a rocker turns about the
horizontal x axis through D = (1.5, 1, 0), standing upright from D to C. Each link is a
body at its midpoint with principal moments (0.02, 0.05, 0.06) in world axes; masses 1,
2, 1.5 kg; gravity along -z. The script checks:

* degrees of freedom: Gruebler's count 6 * 3 - 5 - 3 - 3 - 5 = 2, confirmed by the rank of
  the constraint Jacobian: the linkage and the spin of the coupler about the line BC,
  which no joint resists. Driving the crank leaves the spin free, so the driven RSSR is not
  fully prescribed; replacing the ball at C by a universal joint (axes across the
  coupler and along the rocker's pivot) removes the spin and leaves 6 * 3 - 5 - 3 - 4 - 5 = 1;
* the upright pose is an equilibrium: the crank turns about the vertical, so gravity only
  sees the rocker's angle theta, which sets the heights of the rocker's and the coupler's
  mass centres, 0.4 cos theta and 0.1 + 0.4 cos theta; the potential
  (m3 + m2) g 0.4 cos theta has zero slope at theta = 0. At that pose the velocities of B
  and C must agree along BC, which gives theta' = -0.625 phi' for the crank angle phi,
  the coupler translating. Hand-computed in phi:
  M = (J_crank,z + m1 0.25^2) + m2 0.5^2 + (J_rocker,x + m3 0.4^2) 0.625^2,
  K = -(m3 + m2) g 0.4 * 0.625^2, so the linearized motion has eigenvalues
  +- sqrt(-K/M): the rocker falls over. The coupler's spin has no stiffness;
* the RSUR driven at constant crank speed omega by inverse dynamics: the driver's power
  (torque times omega) equals the rate of change of the total energy (a fourth-order
  finite difference), and the crank obeys Newton-Euler with the reported reactions: it
  turns steadily about the z axis, parallel to one of its principal axes, so its
  angular momentum about its mass centre stays constant and
  F_R1 + F_ball + m1 g = -m1 omega^2 rho (rho the horizontal offset of its mass centre
  from the axis), while the moments about its mass centre (the revolute's reaction
  torque, the forces' moments and the driver's torque) cancel; the revolute carries no
  torque about its axis and the ball no torque at all.

Run with ``python examples/spatial_fourbar.py``.
"""

import numpy as np
import scipy.linalg

import vecnet as vn

G = 9.81
A, B = np.zeros(3), np.array([0.5, 0.0, 0.2])
D, C = np.array([1.5, 1.0, 0.0]), np.array([1.5, 1.0, 0.8])
MASSES = {"crank": 1.0, "coupler": 2.0, "rocker": 1.5}
INERTIA = (0.02, 0.05, 0.06)


def fourbar(universal_at_C: bool, crank_speed: float | None = None) -> vn.spatial.Mechanism:
    """The RSSR linkage (or the RSUR), its crank driven at ``crank_speed`` if given."""
    mech = vn.spatial.Mechanism("rsur" if universal_at_C else "rssr", gravity=(0, 0, -G))
    ends = {"crank": (A, B), "coupler": (B, C), "rocker": (D, C)}
    bodies = {name: mech.body(name, MASSES[name], INERTIA, position=(P + R) / 2)
              for name, (P, R) in ends.items()}

    def at(name, X):
        return bodies[name].point(*(X - bodies[name].position))

    mech.revolute("R1", mech.ground.point(*A), at("crank", A), axis=(0, 0, 1))
    mech.spherical("S1", at("crank", B), at("coupler", B))
    if universal_at_C:
        mech.universal("U2", at("coupler", C), at("rocker", C),
                       axes=(np.cross(C - B, (1, 0, 0)), (1, 0, 0)))
    else:
        mech.spherical("S2", at("coupler", C), at("rocker", C))
    mech.revolute("R2", at("rocker", D), mech.ground.point(*D), axis=(1, 0, 0))
    if crank_speed is not None:
        mech.drive("motor", "R1", crank_speed * vn.t)
    return mech


# -- degrees of freedom ---------------------------------------------------------------------
rssr = fourbar(universal_at_C=False).formulate()
print(f"RSSR: {len(rssr.u)} joint speeds, {len(rssr.constraint_names)} loop equations, "
      f"{rssr.degrees_of_freedom()} degrees of freedom")
assert rssr.degrees_of_freedom() == 2
driven_rssr = fourbar(universal_at_C=False, crank_speed=2.0).formulate()
assert driven_rssr.degrees_of_freedom() == 1            # the coupler's spin is still free
rsur = fourbar(universal_at_C=True).formulate()
assert rsur.degrees_of_freedom() == 1

# -- the upright equilibrium and its linear model ---------------------------------------------
ratio = 0.625                                  # |theta' / phi'| from v_B . BC = v_C . BC
M_hand = (INERTIA[2] + MASSES["crank"] * 0.25**2 + MASSES["coupler"] * 0.5**2
          + (INERTIA[0] + MASSES["rocker"] * 0.4**2) * ratio**2)
K_hand = -(MASSES["rocker"] + MASSES["coupler"]) * G * 0.4 * ratio**2
s_hand = np.sqrt(-K_hand / M_hand)
for name, eom, zeros in (("RSSR", rssr, 1), ("RSUR", rsur, 0)):
    op = eom.equilibrium()
    assert np.allclose(op.q, eom.assemble(), atol=1e-9)      # the initial pose already is one
    lin = eom.linearize(op)
    squares = np.sort(np.real(scipy.linalg.eigvals(lin.K, lin.M)))
    print(f"{name} upright: eigenvalues {np.round(lin.eigenvalues(), 5).tolist()}; "
          f"by hand +-{s_hand:.5f} 1/s" + (" and the coupler spin (0, 0)" if zeros else ""))
    assert np.allclose(squares, [-s_hand**2] + [0.0] * zeros, atol=1e-6)

# -- the RSUR driven at constant crank speed ----------------------------------------------------
omega = 2.0
driven = fourbar(universal_at_C=True, crank_speed=omega).formulate()
assert driven.degrees_of_freedom() == 0
times = np.linspace(0.0, 0.6, 241)        # the crank turns 1.2 rad (it cannot turn round)
res = driven.inverse_dynamics(times)
torque = res["motor.effort"]
E, h = res["energy"], times[1] - times[0]
energy_rate = (-E[4:] + 8 * E[3:-1] - 8 * E[1:-3] + E[:-4]) / (12 * h)
power = omega * torque[2:-2]
print(f"driver torque from {torque.min():.4f} to {torque.max():.4f} N m; "
      f"largest |P - dE/dt| = {np.max(np.abs(power - energy_rate)):.1e} W")
assert np.max(np.abs(power - energy_rate)) < 1e-6 * np.max(np.abs(power))
assert np.max(res["constraint residual"]) < 1e-10

m1 = MASSES["crank"]
centre = res["crank.position"]
rho = centre * [1, 1, 0]                                # offset from the z axis
F_pivot, F_pin = res["R1.reaction"], -res["S1.reaction"]  # forces on the crank
newton = F_pivot + F_pin + m1 * np.array([0, 0, -G]) + m1 * omega**2 * rho
rotations = [vn.spatial.quaternion_matrix(p) for p in res["crank.orientation"]]
pin = centre + np.array([R @ (B - (A + B) / 2) for R in rotations])
axis = np.array([0.0, 0.0, 1.0])
moments = (res["R1.reaction_torque"] + np.cross(A - centre, F_pivot)
           + np.cross(pin - centre, F_pin) + np.outer(torque, axis))
print(f"crank: largest Newton residual {np.max(np.abs(newton)):.1e} N, Euler residual "
      f"{np.max(np.abs(moments)):.1e} N m; ground revolute force up to "
      f"{np.max(np.linalg.norm(F_pivot, axis=1)):.3f} N, torque across the axis up to "
      f"{np.max(np.linalg.norm(res['R1.reaction_torque'], axis=1)):.3f} N m")
assert np.max(np.abs(newton)) < 1e-8 and np.max(np.abs(moments)) < 1e-8
assert np.max(np.abs(res["R1.reaction_torque"] @ axis)) < 1e-9
assert np.max(np.abs(res["S1.reaction_torque"])) < 1e-9
