"""A spherical double pendulum: two rods on ball joints, swinging in space.

Rod 1 (mass m1, length l1, mass centre a1 below its pivot) hangs from the ground on a
ball joint at the origin; rod 2 (m2, l2, a2) hangs from the lower end of rod 1 on a second
ball joint. Gravity acts along -z. Released from a tilted pose with an out-of-plane
velocity, the motion is fully three-dimensional. The script checks:

* the energy is conserved (nothing dissipates);
* the vertical component of the angular momentum about the ground pivot,
  L_z = sum over the rods of [m r x v + A J A^T omega]_z, is conserved: gravity is vertical
  and the pivot force passes through the origin, so neither has a moment about the
  vertical axis. L_z is computed here from the reported positions, velocities, angular
  velocities and orientations and the inertias given to the rods;
* joint coordinates (two ball-joint quaternions, no constraint) and absolute coordinates
  (two positions and quaternions, six ball-joint constraint equations) give the same motion;
* linearized about the hanging equilibrium, the pendulum swings in the x-z and the y-z
  plane with the two frequencies of the planar compound double pendulum, from
  det(K - w^2 M) = 0 with
  M = [[J1 + m1 a1^2 + m2 l1^2, m2 l1 a2], [m2 l1 a2, J2 + m2 a2^2]] and
  K = g diag(m1 a1 + m2 l1, m2 a2) (each frequency twice), and the spins of the rods
  about the vertical have no stiffness (frequency zero).

Run with ``python examples/double_pendulum_3d.py``.
"""

import numpy as np
import scipy.linalg
from scipy.spatial.transform import Rotation

import vecnet as vn

G = 9.81
m1, l1, m2, l2 = 1.0, 1.0, 0.7, 0.8
a1, a2 = l1 / 2, l2 / 2
J1, J2 = m1 * l1**2 / 12, m2 * l2**2 / 12          # uniform rods about a transverse axis
Jz1, Jz2 = 0.004, 0.003                            # about their own axes (thick rods)


def pendulum(tilt1: float, tilt2: float) -> vn.spatial.Mechanism:
    """The double pendulum with its rods turned about y by ``tilt1``, ``tilt2`` from
    hanging straight down."""
    mech = vn.spatial.Mechanism("double pendulum", gravity=(0, 0, -G))
    turn1, turn2 = Rotation.from_euler("y", tilt1), Rotation.from_euler("y", tilt2)
    down1, down2 = turn1.apply((0, 0, -1.0)), turn2.apply((0, 0, -1.0))
    rod1 = mech.body("rod1", m1, (J1, J1, Jz1), position=a1 * down1, orientation=turn1)
    rod2 = mech.body("rod2", m2, (J2, J2, Jz2), position=l1 * down1 + a2 * down2,
                     orientation=turn2)
    mech.spherical("shoulder", mech.ground.point(0, 0, 0), rod1.point(0, 0, a1))
    mech.spherical("elbow", rod1.point(0, 0, -(l1 - a1)), rod2.point(0, 0, a2))
    return mech


def vertical_momentum(res) -> np.ndarray:
    """L_z about the origin from positions, velocities and angular velocities."""
    total = 0.0
    for name, m, J in (("rod1", m1, (J1, J1, Jz1)), ("rod2", m2, (J2, J2, Jz2))):
        A = np.array([vn.spatial.quaternion_matrix(p)
                      for p in res[f"{name}.orientation"]])
        spin = np.einsum("nij,j,nkj,nk->ni", A, np.asarray(J), A, res[f"{name}.omega"])
        total = total + m * np.cross(res[f"{name}.position"], res[f"{name}.velocity"])[:, 2] \
            + spin[:, 2]
    return total


# -- motion in space, in joint and in absolute coordinates ------------------------------------
mech = pendulum(0.6, 1.0)
start = {"rod1.omega": (1.5, 0.0, 0.3), "rod2.omega": (-2.0, 0.5, 1.0)}
t_end = 3.0
times = np.linspace(0, t_end, 301)
runs = {}
for coordinates in ("joint", "absolute"):
    eom = mech.formulate(coordinates=coordinates)
    print(f"{coordinates} coordinates: {len(eom.q)} coordinates, {len(eom.u)} speeds, "
          f"{len(eom.constraint_names)} constraint equations")
    res = eom.simulate(t_end, t_eval=times, rtol=1e-10, atol=1e-12, velocities=start)
    energy, L = res["energy"], vertical_momentum(res)
    print(f"  energy drift {np.ptp(energy):.1e} J, vertical angular momentum "
          f"{L[0]:.6f} kg m^2/s (drift {np.ptp(L):.1e})")
    assert np.ptp(energy) < 1e-7 * np.max(np.abs(res["kinetic"]))
    assert np.ptp(L) < 1e-7 * abs(L[0])
    runs[coordinates] = res
# out of the x-z plane: the lower rod swings across y = 0 by tens of centimetres
assert np.ptp(runs["joint"]["rod2.y"]) > 0.3
difference = max(np.max(np.abs(runs["joint"][f"{b}.position"] - runs["absolute"][f"{b}.position"]))
                 for b in ("rod1", "rod2"))
print(f"largest difference of the mass centres, joint vs absolute: {difference:.1e} m")
assert difference < 1e-8

# -- small oscillations about the hanging equilibrium -----------------------------------------
hanging = pendulum(0.0, 0.0).formulate()
lin = hanging.linearize(hanging.equilibrium())
squares = np.sort(np.real(scipy.linalg.eigvals(lin.K, lin.M)))
assert np.all(np.abs(squares[:2]) < 1e-6)          # the rods' spins about the vertical
measured = np.sqrt(squares[2:])
M = np.array([[J1 + m1 * a1**2 + m2 * l1**2, m2 * l1 * a2], [m2 * l1 * a2, J2 + m2 * a2**2]])
K11, K22 = G * (m1 * a1 + m2 * l1), G * m2 * a2
# det(K - w^2 M) = det(M) w^4 - (M11 K22 + M22 K11) w^2 + K11 K22 = 0
a, b, c = np.linalg.det(M), M[0, 0] * K22 + M[1, 1] * K11, K11 * K22
low, high = np.sqrt((b - np.sqrt(b * b - 4 * a * c)) / (2 * a)), \
    np.sqrt((b + np.sqrt(b * b - 4 * a * c)) / (2 * a))
print(f"small oscillations: linearized {np.round(measured, 6).tolist()} rad/s; "
      f"planar compound double pendulum {low:.6f}, {high:.6f} rad/s (each in two planes)")
assert np.allclose(measured, [low, low, high, high], rtol=1e-6)
