"""Spatial mechanisms against facts from outside the code: conservation laws, Euler's
stability of free rotation, the Lagrange top's regular precession, Wittenburg's six-pin
loop, the planar four-bar, a hanging pendulum's reaction, and bad input."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import sympy
from scipy.spatial.transform import Rotation

import vecnet as vn
from vecnet.core.rotations import quaternion_matrix

sys.path.insert(0, str(Path(__file__).parent))
from planar_models import four_bar  # noqa: E402

G = 9.81


def _frames(orientations: np.ndarray) -> np.ndarray:
    return np.array([quaternion_matrix(p) for p in orientations])


# -- torque-free rigid body (Wittenburg Sec. 4.1) ---------------------------------------
def _free_body(omega, t_end=20.0):
    mech = vn.spatial.Mechanism("free", gravity=(0, 0, 0))
    mech.body("b", 2.0, (7.0, 5.0, 3.0), orientation=Rotation.from_euler("zyx", [0.3, -0.2, 0.5]))
    return mech.formulate().simulate(t_end, t_eval=np.linspace(0, t_end, 201), rtol=1e-12,
                                     atol=1e-13, velocities={"b.omega": omega})


def test_torque_free_body_conserves_energy_and_angular_momentum():
    res = _free_body((0.9, -0.4, 1.3))
    R = _frames(res["b.orientation"])
    J = np.diag([7.0, 5.0, 3.0])
    L = np.array([Ri @ J @ Ri.T @ w for Ri, w in zip(R, res["b.omega"])])
    energy = res["energy"]
    assert np.max(np.abs(energy - energy[0])) < 1e-9 * abs(energy[0])
    assert np.max(np.linalg.norm(L - L[0], axis=1)) < 1e-9 * np.linalg.norm(L[0])
    assert abs(np.linalg.norm(res["b.orientation"], axis=1) - 1).max() < 1e-12


@pytest.mark.parametrize("axis, stable", [(0, True), (1, False), (2, True)])
def test_rotation_about_principal_axes(axis, stable):
    """About the axes of the largest and smallest moment a 1e-3 rad/s perturbation stays
    small; about the middle one it grows to the order of the spin."""
    C = Rotation.from_euler("zyx", [0.3, -0.2, 0.5]).as_matrix()
    omega_body = np.full(3, 1e-3)
    omega_body[axis] = 2.0
    res = _free_body(tuple(C @ omega_body))
    R = _frames(res["b.orientation"])
    body = np.array([Ri.T @ w for Ri, w in zip(R, res["b.omega"])])
    off_axis = np.max(np.abs(np.delete(body, axis, axis=1)))
    if stable:
        assert off_axis < 1e-2
    else:
        assert off_axis > 0.5


# -- Lagrange top (Wittenburg 4.31-4.39) ------------------------------------------------
@pytest.mark.parametrize("root", [+1, -1])
def test_lagrange_top_regular_precession(root):
    m, s, Jt, J3, omega3, theta0 = 1.5, 0.2, 0.02, 0.03, 60.0, 0.4
    J1 = Jt + m * s**2                      # transverse moment about the fixed point
    disc = 1 - 4 * J1 * m * G * s * np.cos(theta0) / (J3**2 * omega3**2)
    psi_dot = J3 * omega3 / (2 * J1 * np.cos(theta0)) * (1 + root * np.sqrt(disc))
    tilt = Rotation.from_euler("x", theta0).as_matrix()
    e3 = tilt[:, 2]
    mech = vn.spatial.Mechanism("top", gravity=(0, 0, -G))
    top = mech.body("top", m, (Jt, Jt, J3), position=s * e3, orientation=tilt)
    mech.spherical("tip", mech.ground.point(0, 0, 0), top.point(0, 0, -s))
    omega = psi_dot * np.array([0, 0, 1.0]) + (omega3 - psi_dot * np.cos(theta0)) * e3
    T = 2 * np.pi / abs(psi_dot)            # one precession period
    res = mech.formulate().simulate(T, t_eval=np.linspace(0, T, 101), rtol=1e-12, atol=1e-13,
                                    velocities={"top.omega": tuple(omega)})
    axis = _frames(res["top.orientation"])[:, :, 2]
    theta = np.arccos(axis[:, 2])
    azimuth = np.unwrap(np.arctan2(axis[:, 1], axis[:, 0]))
    rate = np.gradient(azimuth, res.t)
    assert np.max(np.abs(theta - theta0)) < 1e-6 * theta0
    assert np.max(np.abs(rate[1:-1] - psi_dot)) < 1e-6 * abs(psi_dot)
    spin = np.einsum("ij,ij->i", axis, res["top.omega"])
    assert np.max(np.abs(spin - omega3)) < 1e-6 * omega3


# -- Wittenburg Example 5.3: six pins, one degree of freedom ------------------------------
def six_pin_loop():
    edges = [(0, -1, 0), (0, 0, -1), (1, 0, 0), (0, 1, 0), (0, 0, 1), (-1, 0, 0)]
    vertices = np.cumsum([(0, 0, 0)] + edges, axis=0)   # V0 .. V6 = V0
    axes = np.eye(3)[[0, 1, 2, 0, 1, 2]]
    mech = vn.spatial.Mechanism("six pins", gravity=(0, 0, -G))
    bodies = [mech.ground]
    for k in range(1, 6):
        centre = (vertices[k] + vertices[k + 1]) / 2
        bodies.append(mech.body(f"b{k}", 1.0, (0.1, 0.1, 0.1), position=centre))
    for k in range(1, 7):   # joint k at V_k joins body k-1 and body k (body 6 = ground)
        a, b = bodies[k - 1], bodies[k % 6]
        V = vertices[k]
        mech.revolute(f"J{k}", a.point(*(V - a.position)), b.point(*(V - b.position)),
                      axis=axes[k - 1])
    return mech


def test_six_pin_loop_moves_with_one_degree_of_freedom():
    mech = six_pin_loop()
    eom = mech.formulate(coordinates="joint", tree=None)
    assert len(eom.u) - len(eom.constraint_names) == 0     # counting says locked
    assert eom.degrees_of_freedom() == 1                    # the rank says one
    res = eom.simulate(2.0, t_eval=np.linspace(0, 2, 41), velocities={"J1.angle": 1.0},
                       rtol=1e-10, atol=1e-12)
    q = [res[f"J{k}.angle"] for k in range(1, 7)]
    assert np.ptp(q[0]) > 0.3                               # it moves
    # Wittenburg's relations, with every pin angle measured about its +e axis
    assert np.max(np.abs(q[2] - q[0])) < 1e-8
    assert np.max(np.abs(q[4] + q[0])) < 1e-8
    assert np.max(np.abs(q[3] + q[1])) < 1e-8
    assert np.max(np.abs(np.sin(q[0]) + np.sin(q[0]) * np.sin(q[1]) - np.sin(q[1]))) < 1e-8
    assert np.max(res["constraint residual"]) < 1e-10


# -- the planar four-bar rebuilt in space -----------------------------------------------
def spatial_four_bar(planar):
    mech = vn.spatial.Mechanism("fourbar", gravity=(0, -9.81, 0))
    for name, body in planar.bodies.items():
        mech.body(name, body.mass, (0.01, body.inertia, body.inertia),
                  position=(*body.position, 0.0),
                  orientation=Rotation.from_euler("z", body.angle))
    for element in planar.network.elements:
        if type(element).__name__ != "Revolute":
            continue
        edge = element.edges[0]
        ends = []
        for node in (edge.tail, edge.head):
            for body in [planar.ground, *planar.bodies.values()]:
                for local, point in body._points.items():
                    if point.node == node:
                        owner = mech.ground if body.mass is None else mech.bodies[body.name]
                        ends.append(owner.point(*local, 0.0))
        mech.revolute(element.name, *ends, axis=(0, 0, 1))
    return mech


def test_planar_four_bar_moves_alike_in_space():
    planar = four_bar()
    kw = dict(t_eval=np.linspace(0, 2, 21), rtol=1e-11, atol=1e-12)
    flat = planar.formulate().simulate(2.0, **kw)
    space = spatial_four_bar(planar).formulate().simulate(2.0, **kw)
    for name in planar.bodies:
        for axis in "xy":
            assert np.max(np.abs(space[f"{name}.{axis}"] - flat[f"{name}.{axis}"])) < 1e-9
        assert np.max(np.abs(space[f"{name}.z"])) < 1e-12
        p = space[f"{name}.orientation"]
        angle = np.unwrap(2 * np.arctan2(p[:, 3], p[:, 0]))
        assert np.max(np.abs(angle - flat[f"{name}.angle"])) < 1e-9
    assert np.max(np.abs(space["energy"] - flat["energy"])) < 1e-8


# -- a spatial four-bar (RSSR) ------------------------------------------------------------
def rssr():
    mech = vn.spatial.Mechanism("rssr", gravity=(0, 0, -G))
    A, B = np.zeros(3), np.array([0.5, 0.0, 0.2])
    D, C = np.array([1.5, 1.0, 0.0]), np.array([1.5, 1.0, 0.8])
    links = {}
    for name, P, R, m in (("crank", A, B, 1.0), ("coupler", B, C, 2.0), ("rocker", D, C, 1.5)):
        links[name] = (mech.body(name, m, (0.02, 0.05, 0.06), position=(P + R) / 2), P, R)

    def at(name, X):
        body = links[name][0]
        return body.point(*(X - body.position))

    mech.revolute("R1", mech.ground.point(*A), at("crank", A), axis=(0, 0, 1))
    mech.spherical("S1", at("crank", B), at("coupler", B))
    mech.spherical("S2", at("coupler", C), at("rocker", C))
    mech.revolute("R2", at("rocker", D), mech.ground.point(*D), axis=(1, 0, 0))
    return mech


@pytest.mark.parametrize("method", ["partition", "dae"])
def test_rssr_conserves_energy_and_closes_its_loop(method):
    eom = rssr().formulate()
    assert eom.degrees_of_freedom() == 2                    # the mechanism and the coupler spin
    res = eom.simulate(10.0, t_eval=np.linspace(0, 10.0, 51), rtol=1e-10, atol=1e-12,
                       velocities={"R1.angle": 2.0}, method=method)
    energy = res["energy"]
    assert np.max(np.abs(energy - energy[0])) < 1e-6
    assert np.max(res["constraint residual"]) < 1e-8
    assert np.ptp(res["R1.angle"]) > 1.0


# -- reactions ------------------------------------------------------------------------------
@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_hanging_spherical_pendulum_carries_its_weight(coordinates):
    m = 2.5
    mech = vn.spatial.Mechanism("pendulum", gravity=(0, 0, -G))
    bob = mech.body("bob", m, (0.1, 0.2, 0.25), position=(0, 0, -1.2))
    mech.spherical("ball", mech.ground.point(0, 0, 0), bob.point(0, 0, 1.2))
    res = mech.formulate(coordinates).simulate(1.0, t_eval=np.linspace(0, 1, 5))
    assert np.allclose(res["ball.reaction"], [[0, 0, m * G]] * 5, rtol=0, atol=1e-9 * m * G)
    assert np.allclose(res["ball.reaction_torque"], 0, atol=1e-9)


def test_reaction_of_a_cut_joint_equals_the_cutset_one():
    """A revolute pendulum swinging: the joint reaction from the multipliers (joint cut,
    absolute coordinates) equals that from the cutset equations (joint in the tree)."""
    mech = vn.spatial.Mechanism("pendulum", gravity=(0, 0, -G))
    bob = mech.body("bob", 1.3, (0.1, 0.2, 0.25), position=(0.6, 0.3, -0.8),
                    orientation=Rotation.from_euler("y", 0.3))
    mech.revolute("pin", mech.ground.point(0, 0, 0), bob.point(*(bob.R.T @ [-0.6, -0.3, 0.8])),
                  axis=(0, 1, 0))
    kw = dict(t_eval=np.linspace(0, 1, 11), rtol=1e-11, atol=1e-12)
    tree = mech.formulate("joint").simulate(1.0, velocities={"pin.angle": 1.0}, **kw)
    omega = tree["bob.omega"][0]
    cut = mech.formulate("absolute").simulate(
        1.0, velocities={"bob.omega": omega, "bob.velocity": tree["bob.velocity"][0]}, **kw)
    for what in ("reaction", "reaction_torque"):
        a, b = tree[f"pin.{what}"], cut[f"pin.{what}"]
        assert np.max(np.abs(a - b)) < 1e-7 * np.max(np.abs(a))


# -- bad input -----------------------------------------------------------------------------
def test_bad_input_names_the_element():
    mech = vn.spatial.Mechanism("bad")
    with pytest.raises(vn.ModelError, match="'b1'.*unit quaternion"):
        mech.body("b1", 1.0, (1, 1, 1), orientation=(1, 0.1, 0, 0))
    with pytest.raises(vn.ModelError, match="'b2'.*not a rotation"):
        mech.body("b2", 1.0, (1, 1, 1), orientation=np.diag([1.0, 1.0, -1.0]))
    with pytest.raises(vn.ModelError, match="'b3'.*triangle inequality"):
        mech.body("b3", 1.0, (1, 1, 3))
    body = mech.body("b4", 1.0, (1, 1, 1), position=(0, 0, -1))
    with pytest.raises(vn.ModelError, match="'J'.*zero length"):
        mech.revolute("J", mech.ground.point(0, 0, 0), body.point(0, 0, 1), axis=(0, 0, 0))
    with pytest.raises(vn.ModelError, match="'k'.*same place"):
        mech.spring("k", mech.ground.point(0, 0, -1), body.centre, k=1.0)
    with pytest.raises(vn.ModelError, match="'U'.*perpendicular"):
        mech.universal("U", mech.ground.point(0, 0, 0), body.point(0, 0, 1),
                       axes=((1, 0, 0), (1, 1, 0)))


def test_a_loop_that_cannot_close_is_reported():
    mech = vn.spatial.Mechanism("open")
    rod = mech.body("rod", 1.0, (0.1, 0.1, 0.01), position=(0, 0, 0))
    mech.spherical("left", mech.ground.point(-2, 0, 0), rod.point(-0.5, 0, 0))
    mech.spherical("right", mech.ground.point(2, 0, 0), rod.point(0.5, 0, 0))
    with pytest.raises(vn.FormulationError, match="cannot be assembled.*(left|right)"):
        mech.formulate().simulate(0.1)


# -- force elements ---------------------------------------------------------------------
def _pendulum_with_springs(c=0.0, c_rot=0.0):
    """A revolute link and a ball-jointed bob, a spring from the bob to the ground and a
    torsion spring on the revolute joint (dampers ``c``, ``c_rot`` in parallel)."""
    mech = vn.spatial.Mechanism("springs", gravity=(0.5, 0, -G))
    link = mech.body("link", 1.0, (0.05, 0.08, 0.04), position=(0.4, 0, 0),
                     orientation=Rotation.from_euler("xz", [0.2, 0.1]))
    bob = mech.body("bob", 0.7, (0.01, 0.012, 0.015), position=(0.8, 0.1, -0.3))
    mech.revolute("hinge", mech.ground.point(0, 0, 0), link.point(*(link.R.T @ [-0.4, 0, 0])),
                  axis=(0, 1, 1))
    mech.spherical("ball", link.point(*(link.R.T @ [0.4, 0, 0])),
                   bob.point(*(np.array([0.8, 0, 0]) - bob.position)))
    mech.spring("k", mech.ground.point(1.0, 0.5, 0.2), bob.centre, k=40.0, length=0.3, c=c)
    mech.rotary_spring("kt", "hinge", k=3.0, c=c_rot, angle=0.2)
    return mech


def test_springs_conserve_energy_and_dampers_dissipate_it():
    kw = dict(t_eval=np.linspace(0, 1.5, 31), rtol=1e-11, atol=1e-12,
              velocities={"hinge.angle": 1.0, "bob.omega": (0, 0, 1.0)})
    res = _pendulum_with_springs().formulate().simulate(1.5, **kw)
    energy = res["energy"]
    assert np.ptp(res["potential"]) > 0.1
    assert np.max(np.abs(energy - energy[0])) < 1e-8 * np.max(np.abs(energy))
    damped = _pendulum_with_springs(c=0.5, c_rot=0.2).formulate().simulate(1.5, **kw)
    assert np.all(np.diff(damped["energy"]) < 1e-10)
    assert damped["energy"][-1] < damped["energy"][0] - 0.05


def test_a_rotary_spring_on_a_cut_joint_acts_alike():
    """The torsion spring reads the joint angle from the frames when the joint is cut."""
    kw = dict(t_eval=np.linspace(0, 0.5, 6), rtol=1e-11, atol=1e-12)
    mech = _pendulum_with_springs(c=0.3, c_rot=0.2)
    tree = mech.formulate("joint").simulate(0.5, **kw)
    cut = mech.formulate("absolute").simulate(0.5, **kw)
    for name in ("link.position", "bob.position", "hinge.angle", "energy"):
        assert np.max(np.abs(tree[name] - cut[name])) < 1e-7


def test_a_cut_joint_turned_near_half_a_turn_reads_its_angle_alike():
    """A bob turned by 3 rad about the hinge starts at hinge angle 3 (its turn relative to
    the ground) and swings past pi: cut, the joint's angle read from the frames must not
    jump there, or its torsion spring would."""
    mech = vn.spatial.Mechanism("turned", gravity=(0, 0, -G))   # along the hinge
    bob = mech.body("bob", 1.0, (0.02, 0.02, 0.04), position=(0.5, 0.2, 0),
                    orientation=Rotation.from_euler("z", 3.0))
    mech.revolute("hinge", mech.ground.point(0, 0, 0),
                  bob.point(*(bob.R.T @ -bob.position)), axis=(0, 0, 1))
    mech.rotary_spring("kt", "hinge", k=2.0, c=0.1)
    kw = dict(t_eval=np.linspace(0, 0.5, 6), rtol=1e-11, atol=1e-12,
              velocities={"bob.omega": (0, 0, 4.0)})
    tree = mech.formulate("joint").simulate(0.5, **kw)
    cut = mech.formulate("absolute").simulate(0.5, **kw)
    assert tree["hinge.angle"][0] == pytest.approx(3.0, abs=1e-12)
    assert tree["hinge.angle"][-1] > np.pi            # it swung past half a turn
    for name in ("hinge.angle", "bob.position", "kt.torque", "energy"):
        assert np.max(np.abs(tree[name] - cut[name])) < 1e-7, name


def test_drivers_change_momentum_as_newton_says():
    """A free body under a constant world force on its mass centre and a constant world
    torque (one component given as a function of t): ``m v = m v0 + F t`` and the angular
    momentum about the mass centre ``L = L0 + tau t``."""
    F, tau, m = np.array([0.3, -0.2, 0.5]), np.array([0.1, 0.4, -0.2]), 2.0
    mech = vn.spatial.Mechanism("pushed", gravity=(0, 0, 0))
    body = mech.body("b", m, (0.3, 0.2, 0.15), orientation=Rotation.from_euler("y", 0.4))
    mech.force("F", body.centre, tuple(F))
    mech.torque("T", body, (lambda t: tau[0], tau[1], tau[2]))
    res = mech.formulate().simulate(2.0, t_eval=np.linspace(0, 2, 21), rtol=1e-12, atol=1e-13,
                                    velocities={"b.omega": (1.0, 0.5, -0.3),
                                                "b.velocity": (0.1, 0, 0)})
    J = np.diag([0.3, 0.2, 0.15])
    R = _frames(res["b.orientation"])
    L = np.array([Ri @ J @ Ri.T @ w for Ri, w in zip(R, res["b.omega"])])
    assert np.allclose(m * res["b.velocity"], m * np.array([0.1, 0, 0]) + np.outer(res.t, F),
                       atol=1e-10)
    assert np.allclose(L, L[0] + np.outer(res.t, tau), atol=1e-9)


# -- statics and linear models -----------------------------------------------------------
@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_compound_spherical_pendulum_frequencies(coordinates):
    """A body on a ball joint, mass centre l below it: equilibrium hanging straight down
    from a tilted start; swinging about each horizontal principal axis at
    sqrt(m g l / (J + m l^2)); free spin about the vertical (frequency 0)."""
    m, l, J = 1.7, 0.9, np.array([0.05, 0.11, 0.08])
    mech = vn.spatial.Mechanism("pendulum", gravity=(0, 0, -G))
    tilt = Rotation.from_euler("xy", [0.4, -0.3])
    bob = mech.body("bob", m, tuple(J), position=tilt.apply([0, 0, -l]), orientation=tilt)
    mech.spherical("ball", mech.ground.point(0, 0, 0), bob.point(0, 0, l))
    eom = mech.formulate(coordinates)
    op = eom.equilibrium()
    assert np.allclose(op["bob.position"], [0, 0, -l], atol=1e-9)
    assert np.allclose(op["ball.reaction"], [0, 0, m * G], atol=1e-8)
    frequencies = eom.linearize(op).natural_frequencies()
    expected = np.sort([0.0, *np.sqrt(m * G * l / (J[:2] + m * l**2))])
    assert np.allclose(frequencies, expected, rtol=1e-6, atol=1e-6)


# -- the joint catalogue: tree branch and cut joint agree ------------------------------------
CATALOGUE = {   # joint -> (builder call, degrees of freedom)
    "revolute": (lambda m, a, b: m.revolute("J", a, b, axis=(0.2, 1, 0.3)), 1),
    "prismatic": (lambda m, a, b: m.prismatic("J", a, b, axis=(1, 0.2, -0.4)), 1),
    "cylindrical": (lambda m, a, b: m.cylindrical("J", a, b, axis=(0.3, 0.1, 1)), 2),
    "universal": (lambda m, a, b: m.universal("J", a, b, axes=((1, 0, 0), (0, 0.6, 0.8))), 2),
    "spherical": (lambda m, a, b: m.spherical("J", a, b), 3),
    "planar": (lambda m, a, b: m.planar_joint("J", a, b, normal=(0.1, 0.2, 1)), 3),
    "weld": (lambda m, a, b: m.weld("J", a, b), 1),   # to a hinged body (below)
    "point on line": (lambda m, a, b: m.point_on_line("J", a, b, axis=(1, 0.5, 0)), 4),
    "point on plane": (lambda m, a, b: m.point_on_plane("J", a, b, normal=(0, 0.3, 1)), 5),
}


def _on_joint(kind):
    mech = vn.spatial.Mechanism(kind, gravity=(1.0, -0.5, -G))
    body = mech.body("b", 1.2, (0.05, 0.07, 0.09), position=(0.3, 0.1, -0.5),
                     orientation=Rotation.from_euler("zx", [0.3, -0.2]))
    base = mech.ground
    if kind == "weld":
        base = mech.body("h", 0.8, (0.02, 0.03, 0.04), position=(0, 0, 0.2))
        mech.revolute("hinge", mech.ground.point(0, 0, 0.4), base.point(0, 0, 0.2),
                      axis=(0.3, 1, 0))
    CATALOGUE[kind][0](mech, base.point(*(base.R.T @ -base.position)),
                       body.point(*(body.R.T @ [-0.3, -0.1, 0.5])))
    mech.spring("k", mech.ground.point(0.5, 0.5, 0.2), body.point(0.1, 0, 0), k=30.0, length=0.2)
    return mech


@pytest.mark.parametrize("kind", list(CATALOGUE))
def test_every_joint_moves_alike_in_the_tree_and_cut(kind):
    mech = _on_joint(kind)
    joint, absolute = mech.formulate("joint"), mech.formulate("absolute")
    assert not joint.constraint_names
    assert len(joint.u) == CATALOGUE[kind][1] == absolute.degrees_of_freedom()
    kw = dict(t_eval=np.linspace(0, 0.5, 6), rtol=1e-11, atol=1e-12)
    rates = {name: 0.7 + 0.1 * i for i, name in enumerate(joint.speed_names)}
    a = joint.simulate(0.5, velocities=rates, **kw)
    b = absolute.simulate(0.5, velocities={"b.omega": a["b.omega"][0],
                                           "b.velocity": a["b.velocity"][0]}, **kw)
    assert np.ptp(a["b.position"], axis=0).max() > 1e-2
    assert np.max(np.abs(a["b.position"] - b["b.position"])) < 1e-8
    assert np.max(np.abs(a["b.orientation"] - b["b.orientation"])) < 1e-8
    assert np.max(np.abs(a["energy"] - a["energy"][0])) < 1e-8
    assert np.max(np.abs(a["J.reaction"] - b["J.reaction"])) < 1e-6
    assert np.max(np.abs(a["J.reaction_torque"] - b["J.reaction_torque"])) < 1e-6


def test_screw_joint_couples_turning_and_advance():
    """A body on a vertical screw of pitch h (per radian) under gravity:
    (J + m h^2) theta'' = -m g h."""
    m, J, h = 2.0, 0.05, 0.1
    mech = vn.spatial.Mechanism("screw", gravity=(0, 0, -G))
    nut = mech.body("nut", m, (0.04, 0.04, J))
    mech.screw("J", mech.ground.point(0, 0, 0), nut.centre, axis=(0, 0, 1), pitch=h)
    res = mech.formulate().simulate(1.0, t_eval=np.linspace(0, 1, 11))
    alpha = -m * G * h / (J + m * h**2)
    assert np.allclose(res["J.angle"], alpha * res.t**2 / 2, atol=1e-9)
    assert np.allclose(res["nut.z"], h * alpha * res.t**2 / 2, atol=1e-9)


# -- prescribed motion and inverse dynamics -------------------------------------------------
def rsur(**drive):
    """A spatial four-bar with a universal joint at the rocker (no idle spin): crank R1
    about z, ball at the crank pin, universal at the rocker pin, rocker R2 about x."""
    mech = vn.spatial.Mechanism("rsur", gravity=(0, 0, -G))
    A, B = np.zeros(3), np.array([0.5, 0.0, 0.2])
    D, C = np.array([1.5, 1.0, 0.0]), np.array([1.5, 1.0, 0.8])
    bodies = {name: mech.body(name, m, (0.02, 0.05, 0.06), position=(P + R) / 2)
              for name, P, R, m in (("crank", A, B, 1.0), ("coupler", B, C, 2.0),
                                    ("rocker", D, C, 1.5))}

    def at(name, X):
        return bodies[name].point(*(X - bodies[name].position))

    mech.revolute("R1", mech.ground.point(*A), at("crank", A), axis=(0, 0, 1))
    mech.spherical("S", at("crank", B), at("coupler", B))
    u = np.cross(C - B, (1, 0, 0))          # across the coupler, so it cannot spin
    mech.universal("U", at("coupler", C), at("rocker", C), axes=(u, (1, 0, 0)))
    mech.revolute("R2", at("rocker", D), mech.ground.point(*D), axis=(1, 0, 0))
    if drive:
        mech.drive("motor", "R1", drive["motion"])
    return mech


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_inverse_dynamics_driver_power_is_the_energy_rate(coordinates):
    mech = rsur(motion=0.4 * sympy.sin(3 * vn.t))   # the crank rocks (it cannot turn round)
    eom = mech.formulate(coordinates)
    assert eom.degrees_of_freedom() == 0
    times = np.linspace(0, 1, 201)
    res = eom.inverse_dynamics(times)
    E, h = res["energy"], times[1] - times[0]
    energy_rate = (-E[4:] + 8 * E[3:-1] - 8 * E[1:-3] + E[:-4]) / (12 * h)   # fourth order
    power = (res["motor.effort"] * 1.2 * np.cos(3 * times))[2:-2]
    assert np.max(np.abs(energy_rate - power)) < 1e-6 * np.max(np.abs(power))
    assert np.max(res["constraint residual"]) < 1e-10


def test_forward_dynamics_with_the_driver_follows_it():
    mech = rsur(motion=0.4 * vn.t**2)
    eom = mech.formulate()
    res = eom.inverse_dynamics(np.linspace(0, 1, 11))
    assert np.allclose(res["R1.angle"], 0.4 * res.t**2, atol=1e-10)


# -- the compiled tree walk against the symbolic formulation ----------------------------------
@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_compiled_tree_walk_equals_the_symbolic_equations(coordinates):
    """The compiled kernels (numbers per branch kind) give the M, Q, constraints and their
    Jacobian of the symbolic tree walk; the recursive (articulated-body) accelerations and
    multipliers equal those of M, Q and the constraints."""
    from vecnet.numerics import multibody as mb

    rng = np.random.default_rng(0)
    for mech in (rssr(), _on_joint("point on line")):
        eom = mech.formulate(coordinates)
        model = eom.compile()
        args = (vn.t, list(eom.q), list(eom.u))
        M = sympy.lambdify(args, eom.M, "numpy")
        Q = sympy.lambdify(args, eom.Q, "numpy")
        phi = sympy.lambdify(args, eom.constraints, "numpy")
        phi_u = sympy.lambdify(args, eom.constraint_jacobian, "numpy")
        for _ in range(3):
            q, u = model.normalize(rng.normal(size=model.n)), rng.normal(size=model.nu)
            snap = model.evaluate(0.3, q, u)
            for mine, theirs in ((snap.M, M(0.3, q, u)), (snap.Q, Q(0.3, q, u).ravel()),
                                 (snap.phi, np.ravel(phi(0.3, q, u))),
                                 (snap.phi_q, np.reshape(phi_u(0.3, q, u), snap.phi_q.shape))):
                scale = max(1.0, np.max(np.abs(theirs), initial=0.0))
                assert np.max(np.abs(mine - theirs), initial=0.0) < 1e-12 * scale
            rows = mb.independent_rows(snap.phi_q)
            a, lam = mb.accelerations(snap, rows)
            b, mu = model.accelerations(0.3, q, u, rows)
            assert np.max(np.abs(a - b)) < 1e-10 * max(1.0, np.max(np.abs(a)))
            assert np.max(np.abs(lam - mu), initial=0.0) < 1e-10 * max(1.0, np.max(np.abs(lam), initial=0.0))


def test_locked_mechanisms_and_forbidden_velocities_are_reported():
    mech = vn.spatial.Mechanism("locked")
    body = mech.body("b", 1.0, (0.1, 0.1, 0.1), position=(0, 0, -1))
    mech.weld("W", mech.ground.point(0, 0, 0), body.point(0, 0, 1))
    with pytest.raises(vn.FormulationError, match="locked.*"):
        mech.formulate("absolute").simulate(0.1)
    mech = vn.spatial.Mechanism("hinged")
    body = mech.body("b", 1.0, (0.1, 0.1, 0.1), position=(0, 0, -1))
    mech.revolute("R", mech.ground.point(0, 0, 0), body.point(0, 0, 1), axis=(0, 1, 0))
    with pytest.raises(vn.ModelError, match="not allowed by the joints"):
        mech.formulate("absolute").simulate(0.1, velocities={"b.omega": (1.0, 0, 0)})
    with pytest.raises(vn.UnknownNameError, match="no speed 'b.spin'"):
        mech.formulate().simulate(0.1, velocities={"b.spin": 1.0})


def test_initial_joint_coordinates_place_the_mechanism():
    """``initial={"R1.angle": a}`` turns the crank of the four-bar by ``a`` about its axis
    and assembles the rest of the loop around it."""
    eom = rsur().formulate()
    res = eom.simulate(0.01, t_eval=[0.0, 0.01], initial={"R1.angle": 0.3})
    crank = rsur().bodies["crank"]
    expected = Rotation.from_euler("z", 0.3).apply(crank.position)
    assert np.allclose(res["crank.position"][0], expected, atol=1e-12)
    assert res["constraint residual"][0] < 1e-12


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_a_driven_slider_needs_newtons_force(coordinates):
    """A block driven along an inclined prismatic joint, s = 0.3 t^2: the driver's force is
    m (s'' - g . e)."""
    m, e = 2.0, np.array([1.0, 0.0, 1.0]) / np.sqrt(2)
    mech = vn.spatial.Mechanism("slider", gravity=(0, 0, -G))
    block = mech.body("block", m, (0.1, 0.2, 0.3), orientation=Rotation.from_euler("z", 0.4))
    mech.prismatic("P", mech.ground.point(0, 0, 0), block.centre, axis=tuple(e))
    mech.drive("push", "P", 0.3 * vn.t**2)
    res = mech.formulate(coordinates).inverse_dynamics(np.linspace(0, 1, 5))
    assert np.allclose(res["push.effort"], m * (0.6 + G * e[2]), rtol=1e-9)
    assert np.allclose(res["block.position"], np.outer(0.3 * res.t**2, e), atol=1e-10)


def test_spinning_rotor_whirl_frequencies_split_with_speed():
    """A disk (transverse J_t, polar J_p) on a gimbal with torsion springs k on both tilt
    axes, spinning at W: linearized about the steady spin, the forward and backward whirl
    frequencies are sqrt(k/J_t + b^2) +- b with b = J_p W / (2 J_t)."""
    k, Jt, Jp = 50.0, 0.02, 0.035
    mech = vn.spatial.Mechanism("rotor", gravity=(0, 0, 0))
    ring = mech.body("ring", 1e-3, (0, 0, 0))
    frame = mech.body("frame", 1e-3, (0, 0, 0))
    disk = mech.body("disk", 1.0, (Jt, Jt, Jp))
    mech.revolute("X", mech.ground.centre, ring.centre, axis=(1, 0, 0))
    mech.revolute("Y", ring.centre, frame.centre, axis=(0, 1, 0))
    mech.revolute("Z", frame.centre, disk.centre, axis=(0, 0, 1))
    mech.rotary_spring("kx", "X", k=k)
    mech.rotary_spring("ky", "Y", k=k)
    eom = mech.formulate()
    for spin in (0.0, 60.0, 150.0):
        op = eom.steady_motion({"Z.angle": spin})
        ev = eom.linearize(op).eigenvalues()
        whirl = np.sort(ev.imag[ev.imag > 1e-6])
        b = Jp * spin / (2 * Jt)
        expected = np.sqrt(k / Jt + b**2) + np.array([-b, b])
        assert np.allclose(whirl, expected, rtol=1e-6)
        assert np.max(np.abs(ev.real)) < 1e-6


def test_linear_model_inputs_give_the_static_deflection_and_the_frequency():
    # a rod on a universal joint at its top: a force F at its centre tilts it by
    # F / (m g), a torque T by T / (m g l) (moment balance), and each swing has the
    # compound-pendulum frequency sqrt(m g l / (m l^2 + J))
    m, l, J = 2.0, 0.8, 0.05
    mech = vn.spatial.Mechanism("rod", gravity=(0, 0, -G))
    rod = mech.body("rod", m, (J, J, 0.01), position=(0, 0, -l))
    mech.universal("U", mech.ground.point(0, 0, 0), rod.point(0, 0, l),
                   axes=((1, 0, 0), (0, 1, 0)))
    mech.force("F", rod.centre, (0, 0, 0))
    mech.torque("T", rod, (0, 0, 0))
    eom = mech.formulate()
    lin = eom.linearize(eom.equilibrium())
    assert lin.inputs == ("F.x", "F.y", "F.z", "T.x", "T.y", "T.z")
    assert lin.outputs == ("U.angle1", "U.angle2")
    omega = np.sqrt(m * G * l / (m * l**2 + J))
    assert np.allclose(lin.natural_frequencies(), [omega, omega], rtol=1e-6)
    gain = np.asarray(lin.to_control().dcgain())
    # angle1 turns about x: the centre at (0, 0, -l) moves along +y; angle2 about y: along -x
    expected = np.array([[0, 1 / (m * G), 0, 1 / (m * G * l), 0, 0],
                         [-1 / (m * G), 0, 0, 0, 1 / (m * G * l), 0]])
    assert np.allclose(gain, expected, rtol=1e-6, atol=1e-9)


def test_conical_pendulum_is_a_steady_motion_with_the_textbook_frequency():
    # a point mass on a rod of length l, turning about the vertical at
    # Omega = sqrt(g / (l cos theta)) at the cone angle theta; small oscillations about this
    # motion have omega^2 = Omega^2 (1 + 3 cos^2 theta) (the spherical pendulum's
    # perturbed circular orbit)
    m, l, theta = 1.3, 0.7, 0.5
    Omega = np.sqrt(G / (l * np.cos(theta)))
    mech = vn.spatial.Mechanism("cone", gravity=(0, 0, -G))
    yoke = mech.body("yoke", 1.0, (0, 0, 0), position=(0, 0, 0))
    bob = mech.body("bob", m, (0, 0, 0), position=(l * np.sin(theta), 0, -l * np.cos(theta)))
    mech.revolute("azimuth", mech.ground.point(0, 0, 0), yoke.point(0, 0, 0), axis=(0, 0, 1))
    mech.revolute("tilt", yoke.point(0, 0, 0), bob.point(*-bob.position), axis=(0, 1, 0))
    eom = mech.formulate()
    motion = eom.steady_motion({"azimuth.angle": Omega})
    assert np.max(np.abs(motion.a)) < 1e-9                   # the cone is kept
    ev = eom.linearize(motion).eigenvalues()
    oscillation = ev[np.abs(ev) > 1e-6]
    omega = Omega * np.sqrt(1 + 3 * np.cos(theta) ** 2)
    assert np.allclose(np.abs(oscillation.imag), omega, rtol=1e-6)
    assert np.allclose(oscillation.real, 0, atol=1e-6)
