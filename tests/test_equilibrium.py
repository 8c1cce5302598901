"""Static equilibria against references computed here, outside vecnet: the minimum of a
potential energy written with our own kinematics (forward kinematics of a spatial chain,
loop closure of a planar four-bar by intersecting two circles), found by scipy's
minimisers; the moment balance of a pendulum under a constant torque."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize, minimize_scalar
from scipy.spatial.transform import Rotation

import vecnet as vn
from vecnet.errors import FormulationError

sys.path.insert(0, str(Path(__file__).parent))
from planar_models import four_bar, pendulum  # noqa: E402

G = 9.81

# -- a hanging chain of four links: spherical, universal, spherical, revolute ---------------
LENGTHS = (0.6, 0.5, 0.45, 0.4)
MASSES = (1.2, 1.0, 0.8, 0.6)
SPINS = (0.004, 0.003, 0.002, 0.002)          # moments about the links' own axes
U_AXIS = np.array([1.0, 0.0, 0.0])            # universal: fixed in link 1
V_AXIS = np.array([0.0, 1.0, 0.0])            # universal: fixed in link 2
R_AXIS = np.array([0.6, 0.8, 0.0])            # revolute: fixed in links 3 and 4


def _turn(axis, angle) -> np.ndarray:
    return Rotation.from_rotvec(np.asarray(axis, float) / np.linalg.norm(axis) * angle).as_matrix()


def chain_pose(angles):
    """Rotations and mass centres of the four links for nine joint angles: the rotation
    vector of the top ball joint (ground axes), the universal's two angles, the rotation
    vector of the second ball joint (link 2's axes), the revolute's angle. All zero is the
    chain hanging straight down from the origin, every link along its own -z axis from
    its upper joint, its mass centre at its middle."""
    a = np.asarray(angles, float)
    relative = [Rotation.from_rotvec(a[0:3]).as_matrix(),
                _turn(U_AXIS, a[3]) @ _turn(V_AXIS, a[4]),
                Rotation.from_rotvec(a[5:8]).as_matrix(),
                _turn(R_AXIS, a[8])]
    R, joint = np.eye(3), np.zeros(3)
    rotations, centres = [], []
    for Rrel, L in zip(relative, LENGTHS):
        R = R @ Rrel
        centres.append(joint + R @ [0.0, 0.0, -L / 2])
        joint = joint + R @ [0.0, 0.0, -L]
        rotations.append(R)
    return rotations, centres


def chain_mechanism(angles, force=None) -> vn.spatial.Mechanism:
    """The chain posed by ``angles`` (its initial pose, where vecnet's joint coordinates
    are zero), with an optional constant force on the lowest link's mass centre."""
    rotations, centres = chain_pose(angles)
    mech = vn.spatial.Mechanism("chain", gravity=(0, 0, -G))
    links = [mech.body(f"link{i + 1}", m, (m * L**2 / 12, m * L**2 / 12, J), position=c,
                       orientation=R)
             for i, (m, L, J, c, R) in enumerate(zip(MASSES, LENGTHS, SPINS, centres, rotations))]
    top = [link.point(0, 0, L / 2) for link, L in zip(links, LENGTHS)]
    bottom = [link.point(0, 0, -L / 2) for link, L in zip(links, LENGTHS)]
    mech.spherical("S1", mech.ground.point(0, 0, 0), top[0])
    mech.universal("U2", bottom[0], top[1], axes=(rotations[0] @ U_AXIS, rotations[1] @ V_AXIS))
    mech.spherical("S3", bottom[1], top[2])
    mech.revolute("R4", bottom[2], top[3], axis=rotations[2] @ R_AXIS)
    if force is not None:
        mech.force("F", links[3].centre, tuple(force))
    return mech


def chain_reference(start) -> np.ndarray:
    """Mass centres at the minimum of gravity's potential over our own joint angles
    (BFGS from ``start``)."""
    def energy(angles):
        return sum(m * G * c[2] for m, c in zip(MASSES, chain_pose(angles)[1]))

    found = minimize(energy, start, method="BFGS", options={"gtol": 1e-11, "maxiter": 2000})
    return np.array(chain_pose(found.x)[1])


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_spatial_chain_hangs_straight_down_from_03_rad_off(coordinates):
    start = np.full(9, 0.3)
    eom = chain_mechanism(start).formulate(coordinates)
    op = eom.equilibrium()
    found = np.array([op[f"link{i}.position"] for i in range(1, 5)])
    np.testing.assert_allclose(found, chain_reference(start), atol=1e-6)
    # hanging straight down: every mass centre on the vertical through the top joint
    depth = np.cumsum(LENGTHS) - np.array(LENGTHS) / 2
    np.testing.assert_allclose(found, np.column_stack([0 * depth, 0 * depth, -depth]), atol=1e-9)
    # the top joint carries the whole weight
    np.testing.assert_allclose(op["S1.reaction"], [0, 0, sum(MASSES) * G], atol=1e-7)


def chain_angles(rotations) -> np.ndarray:
    """Our nine joint angles (as in :func:`chain_pose`) from the links' rotations."""
    R1, R2, R3, R4 = rotations
    M = R1.T @ R2     # Rx(a1) Ry(a2) = [[c2, 0, s2], [s1 s2, c1, -s1 c2], [-c1 s2, s1, c1 c2]]
    a = [np.arctan2(M[2, 1], M[1, 1]), np.arctan2(M[0, 2], M[0, 0])]
    return np.concatenate([Rotation.from_matrix(R1).as_rotvec(), a,
                           Rotation.from_matrix(R2.T @ R3).as_rotvec(),
                           [Rotation.from_matrix(R3.T @ R4).as_rotvec() @ R_AXIS
                            / np.linalg.norm(R_AXIS)]])


def test_spatial_chain_under_a_constant_force_comes_to_a_balanced_pose():
    """A constant force is missing from the potential energy vecnet reports, so the search
    falls back on the force's norm, which leads to an equilibrium, though not necessarily
    a stable one. Checked with our own statics: at the pose found, the slope of gravity's
    potential minus the force's work along every one of our joint angles is zero, and the
    top joint carries the weight and the force."""
    force = np.array([2.0, -1.0, 0.5])
    op = chain_mechanism(np.full(9, 0.3), force).formulate().equilibrium()
    rotations = [Rotation.from_quat(np.roll(op[f"link{i}.orientation"], -1)).as_matrix()
                 for i in range(1, 5)]
    angles = chain_angles(rotations)
    centres = np.array(chain_pose(angles)[1])
    np.testing.assert_allclose(centres, [op[f"link{i}.position"] for i in range(1, 5)],
                               atol=1e-12)

    def energy(angles):
        centres = chain_pose(angles)[1]
        return sum(m * G * c[2] for m, c in zip(MASSES, centres)) - force @ centres[3]

    h = 1e-6
    slope = [(energy(angles + h * e) - energy(angles - h * e)) / (2 * h) for e in np.eye(9)]
    np.testing.assert_allclose(slope, 0.0, atol=1e-7)
    np.testing.assert_allclose(op["S1.reaction"], [0, 0, sum(MASSES) * G] - force, atol=1e-7)


# -- a four-bar with a spring: a closed loop ----------------------------------------------
def four_bar_centres(theta, lengths):
    """Mass centres of crank, coupler and rocker of :func:`planar_models.four_bar` (pins at
    A = (0, 0) and D = (2, 0)) at crank angle ``theta``, the coupler's far pin found as the
    intersection of two circles on the side of the initial pose (left of B -> D)."""
    crank, coupler, rocker = lengths
    D = np.array([2.0, 0.0])
    B = crank * np.array([np.cos(theta), np.sin(theta)])
    gap = D - B
    dist = np.linalg.norm(gap)
    along = (coupler**2 - rocker**2 + dist**2) / (2 * dist)
    C = B + (along * gap + np.sqrt(coupler**2 - along**2) * np.array([-gap[1], gap[0]])) / dist
    return np.array([B / 2, (B + C) / 2, (C + D) / 2])


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_four_bar_with_spring_settles_at_the_minimum_of_its_energy(coordinates):
    """Started with the crank along the ground line, far from where the spring and gravity
    balance: the equilibrium is the minimum of gravity's and the spring's energy along the
    one degree of freedom, which is unique on this assembly branch."""
    theta0 = 0.0
    C0 = np.array([2.3, 1.4])    # the rocker's upper pin in four_bar()
    lengths = (1.0, np.linalg.norm(C0 - [1.0, 0.0]), np.linalg.norm(C0 - [2.0, 0.0]))
    masses, k, free, anchor = (1.0, 2.0, 1.5), 200.0, 0.5, np.array([1.0, 3.0])

    def energy(theta):
        centres = four_bar_centres(theta, lengths)
        stretch = np.linalg.norm(centres[1] - anchor) - free
        return G * np.dot(masses, centres[:, 1]) + 0.5 * k * stretch**2

    grid = np.linspace(-np.pi, np.pi, 3601)
    values = np.array([energy(th) for th in grid])
    assert np.count_nonzero((values < np.roll(values, 1)) & (values < np.roll(values, -1))) == 1
    best = grid[np.argmin(values)]
    theta = minimize_scalar(energy, bracket=(best - 0.01, best, best + 0.01),
                            options={"xtol": 1e-12}).x
    expected = four_bar_centres(theta, lengths)

    op = four_bar(spring=k, crank_angle=theta0).formulate(coordinates).equilibrium()
    found = np.array([[op[f"{name}.x"], op[f"{name}.y"]]
                      for name in ("crank", "coupler", "rocker")])
    np.testing.assert_allclose(found, expected, atol=1e-6)


# -- without a potential, and without an equilibrium -------------------------------------------
@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_pendulum_under_a_constant_torque_balances_its_moment(coordinates):
    """m g l sin(beta) = T at rest (moment balance about the pin)."""
    m, l, T = 2.0, 0.8, 3.0
    mech = pendulum(m=m, J=0.3, l=l, beta0=-1.2)
    mech.torque("T", mech.bodies["bob"], T)
    op = mech.formulate(coordinates).equilibrium()
    assert op["bob.angle"] == pytest.approx(np.arcsin(T / (m * G * l)), abs=1e-9)


def test_no_equilibrium_is_reported():
    """A torque above m g l turns the pendulum round for ever: no pose balances it."""
    mech = pendulum(m=2.0, J=0.3, l=0.8, beta0=0.3)
    mech.torque("T", mech.bodies["bob"], 20.0)
    with pytest.raises(FormulationError, match="no static equilibrium found near the initial "
                                               "pose: forces unbalanced by"):
        mech.formulate().equilibrium()


def test_a_start_that_balances_is_kept_even_when_unstable():
    """The inverted pendulum balances: the search starts there and stays."""
    op = pendulum(beta0=np.pi).formulate("absolute").equilibrium()
    assert op["bob.angle"] == pytest.approx(np.pi, abs=1e-12)
    assert op["bob.y"] == pytest.approx(0.8, abs=1e-12)
