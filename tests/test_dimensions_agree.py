"""A planar mechanism is a spatial one whose bodies move in the plane z = 0 and turn about
z. Built once with each builder, the two must report the same motion, reactions and
applied loads: every named result of the planar run equals the spatial result of the
same name restricted to the plane (x, y components of a vector, the z component of a
torque or angular velocity), signs included (docs/conventions.md).

Joint friction, joint limits, gears and racks are compared too: a slider-crank with
friction in two joints (one of them cut) and a stop that the crank strikes, and a gear
pair driving a rack.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from scipy.spatial.transform import Rotation

import vecnet as vn

G = 9.81
T_END, SAMPLES = 0.5, 11
TOL = 1e-7


class Twin:
    """One mechanism built twice, with the planar and with the spatial builder: planar
    body coordinates (x, y) and angles become points (x, y, 0) and turns about z."""

    def __init__(self, name: str) -> None:
        self.flat = vn.planar.Mechanism(name, gravity=(0, -G))
        self.space = vn.spatial.Mechanism(name, gravity=(0, -G, 0))
        self.grounds = (self.flat.ground, self.space.ground)

    def body(self, name, mass, inertia, position, angle):
        """A lamina in the plane: its polar moment ``inertia`` about z is the sum of the
        two in-plane ones."""
        return (self.flat.body(name, mass=mass, inertia=inertia, position=position, angle=angle),
                self.space.body(name, mass, (inertia / 2, inertia / 2, inertia),
                                position=(*position, 0.0),
                                orientation=Rotation.from_euler("z", angle)))

    @staticmethod
    def point(body, x, y):
        flat, space = body
        return flat.point(x, y), space.point(x, y, 0.0)

    def ground(self, x, y):
        return self.point(self.grounds, x, y)

    def revolute(self, name, a, b):
        self.flat.revolute(name, a[0], b[0])
        self.space.revolute(name, a[1], b[1], axis=(0, 0, 1))

    def prismatic(self, name, a, b, axis):
        """``axis`` in the tail body's coordinates (the planar builder's way); the spatial
        builder takes it in world axes at the initial pose."""
        self.flat.prismatic(name, a[0], b[0], axis=axis)
        world = Rotation.from_euler("z", float(a[0].body.angle)).apply((*axis, 0.0))
        self.space.prismatic(name, a[1], b[1], axis=tuple(world))

    def spring(self, name, a, b, **law):
        self.flat.spring(name, a[0], b[0], **law)
        self.space.spring(name, a[1], b[1], **law)

    def damper(self, name, a, b, c):
        self.flat.damper(name, a[0], b[0], c=c)
        self.space.damper(name, a[1], b[1], c=c)

    def rotary_spring(self, name, joint, tail, head, k, c):
        """Across revolute ``joint`` from body ``tail`` to body ``head``, free at the
        initial pose."""
        self.flat.rotary_spring(name, tail[0], head[0], k=k, c=c)
        self.space.rotary_spring(name, joint, k=k, c=c)

    def joint_friction(self, name, joint, **law):
        self.flat.joint_friction(name, joint, **law)
        self.space.joint_friction(name, joint, **law)

    def joint_limit(self, name, joint, **stops):
        self.flat.joint_limit(name, joint, **stops)
        self.space.joint_limit(name, joint, **stops)

    def gear(self, name, a, b, ratio, internal=False):
        """Between bodies on pins about z (the spatial gear turns them on those pins)."""
        self.flat.gear(name, a[0], b[0], ratio, internal=internal)
        self.space.gear(name, a[1], b[1], ratio, internal=internal)

    def rack_and_pinion(self, name, pinion, rack, radius, axis):
        """``axis`` in ground coordinates, along the rack's prismatic joint."""
        self.flat.rack_and_pinion(name, pinion[0], rack[0], radius, axis=axis)
        self.space.rack_and_pinion(name, pinion[1], rack[1], radius, axis=(*axis, 0.0))

    def force(self, name, point, force):
        self.flat.force(name, point[0], force)
        self.space.force(name, point[1], (*force, 0))

    def torque(self, name, body, torque):
        self.flat.torque(name, body[0], torque)
        self.space.torque(name, body[1], (0, 0, torque))


def link(twin, name, P, R, m):
    """A slender link from P to R, its frame along it, with points at both ends."""
    P, R = np.asarray(P, float), np.asarray(R, float)
    L = float(np.hypot(*(R - P)))
    body = twin.body(name, m, m * L**2 / 12, tuple((P + R) / 2),
                     float(np.arctan2(*(R - P)[::-1])))
    return body, twin.point(body, -L / 2, 0), twin.point(body, L / 2, 0)


# every relative angle starts within (-pi, pi]: a rotation matrix does not count turns,
# so only there do the planar theta_head - theta_tail and the spatial turn coincide
def four_bar():
    """Crank, coupler and rocker on pins to the ground at A and D; a force pushes the
    coupler's middle and a torque varying in time drives the crank."""
    twin = Twin("four-bar")
    A, B, C, D = (0.0, 0.0), (0.5, 0.8660254), (2.3, 1.4), (2.0, 0.0)
    crank, a0, a1 = link(twin, "crank", A, B, 1.0)
    coupler, b0, b1 = link(twin, "coupler", B, C, 2.0)
    rocker, c0, c1 = link(twin, "rocker", C, D, 1.5)
    twin.revolute("P1", twin.ground(*A), a0)
    twin.revolute("P2", a1, b0)
    twin.revolute("P3", b1, c0)
    twin.revolute("P4", c1, twin.ground(*D))
    twin.force("push", twin.point(coupler, 0.2, 0.0), (1.5, 2.0))
    twin.torque("motor", crank, 3.0 + 2.0 * sympy.sin(4 * vn.t))
    return twin


def slider_crank():
    """Crank, rod and a slider on a prismatic joint along the ground's x axis; a spring
    from a ground point pulls the rod, a damper slows the slider."""
    twin = Twin("slider-crank")
    r, L, phi = 0.3, 1.0, 0.7
    B = np.array([r * np.cos(phi), r * np.sin(phi)])
    C = np.array([B[0] + np.sqrt(L**2 - B[1] ** 2), 0.0])
    crank, a0, a1 = link(twin, "crank", (0, 0), B, 0.5)
    rod, b0, b1 = link(twin, "rod", B, C, 1.0)
    slider = twin.body("slider", 2.0, 0.01, tuple(C), 0.0)
    twin.revolute("O", twin.ground(0, 0), a0)
    twin.revolute("B", a1, b0)
    twin.revolute("C", b1, twin.point(slider, 0, 0))
    twin.prismatic("S", twin.ground(0, 0), twin.point(slider, 0, 0), axis=(1.0, 0.0))
    twin.spring("k", twin.ground(0.4, 1.2), twin.point(rod, 0.1, 0.0), k=80.0, length=0.6)
    twin.damper("c", twin.ground(2.5, 0.0), twin.point(slider, 0.1, 0.0), c=3.0)
    return twin


def slider_crank_with_friction_and_a_stop():
    """The slider-crank with viscous and Coulomb friction in the crank's pin (in the tree)
    and in the slider (cut), and a stop that the crank's angle strikes on its way up."""
    twin = slider_crank()
    twin.joint_friction("pin_friction", "O", viscous=0.05, coulomb=0.1, smoothing=1e-2)
    twin.joint_friction("slide_friction", "S", viscous=1.0, coulomb=0.5, smoothing=1e-2)
    twin.joint_limit("crank_stop", "O", lower=0.0, upper=1.4, restitution=0.5)
    return twin


def gears_and_rack():
    """Gear ``a`` pinned off its mass centre (gravity turns it) drives gear ``b`` pinned at
    its centre, which drives a rack sliding along x below it; a torque on ``a``."""
    twin = Twin("gears and rack")
    a = twin.body("a", 1.0, 0.02, (0.1, 0.05), 0.3)
    b = twin.body("b", 2.0, 0.05, (0.6, 0.0), -0.2)
    rack = twin.body("rack", 0.5, 0.01, (0.6, -0.2), 0.0)
    twin.revolute("A", twin.ground(0, 0), twin.point(a, -0.1 * np.cos(0.3) - 0.05 * np.sin(0.3),
                                                     0.1 * np.sin(0.3) - 0.05 * np.cos(0.3)))
    twin.revolute("B", twin.ground(0.6, 0), twin.point(b, 0, 0))
    twin.prismatic("S", twin.ground(0.6, -0.2), twin.point(rack, 0, 0), axis=(1.0, 0.0))
    twin.gear("mesh", a, b, ratio=0.4)
    twin.rack_and_pinion("rp", b, rack, radius=0.2, axis=(-1.0, 0.0))
    twin.torque("motor", a, 1.5)
    return twin


def double_pendulum():
    """Two bars hanging from a pin, the second on a pin with a torsion spring and damper
    to the first, released away from rest."""
    twin = Twin("double pendulum")
    l1, l2 = 1.0, 0.8
    upper = twin.body("upper", 1.2, 1.2 * l1**2 / 12,
                      (l1 / 2 * np.cos(-1.2), l1 / 2 * np.sin(-1.2)), -1.2)
    end = np.array([l1 * np.cos(-1.2), l1 * np.sin(-1.2)])
    lower = twin.body("lower", 0.7, 0.7 * l2**2 / 12,
                      tuple(end + l2 / 2 * np.array([np.cos(-0.4), np.sin(-0.4)])), -0.4)
    twin.revolute("J1", twin.ground(0, 0), twin.point(upper, -l1 / 2, 0))
    twin.revolute("J2", twin.point(upper, l1 / 2, 0), twin.point(lower, -l2 / 2, 0))
    twin.rotary_spring("hinge", "J2", upper, lower, k=4.0, c=0.3)
    return twin


def restricted(name: str, flat, space, bodies) -> np.ndarray:
    """The spatial result ``name`` restricted to the plane, shaped as the planar one."""
    owner, _, what = name.rpartition(".")
    if owner in bodies and what == "angle":   # a body's turn: the first z-y-x angle
        return space[f"{owner}.euler"][:, 0]
    value = np.asarray(space[name])
    planar = np.asarray(flat[name])
    if planar.ndim == 2:        # a vector in the plane: its x and y components
        return value[:, :2]
    if value.ndim == 2:         # a scalar in the plane: the z component of the vector
        return value[:, 2]
    return value


@pytest.mark.parametrize("build", [four_bar, slider_crank, double_pendulum,
                                   slider_crank_with_friction_and_a_stop, gears_and_rack],
                         ids=lambda f: f.__name__)
def test_planar_results_are_the_spatial_ones_in_the_plane(build):
    twin = build()
    flat_eom, space_eom = twin.flat.formulate(), twin.space.formulate()
    # the same tree, so that coordinates and speeds have the same names
    assert flat_eom.coordinates == space_eom.coordinates
    times = np.linspace(0, T_END, SAMPLES)
    kw = dict(t_eval=times, rtol=1e-10, atol=1e-12)
    flat, space = flat_eom.simulate(T_END, **kw), space_eom.simulate(T_END, **kw)
    bodies = set(twin.flat.bodies)
    for body in bodies:   # the spatial bodies stay in the plane and turn about z only
        assert np.max(np.abs(space[f"{body}.z"])) < TOL
        assert np.max(np.abs(space[f"{body}.omega"][:, :2])) < TOL
    assert max(np.ptp(flat[q]) for q in flat_eom.coordinates) > 0.05   # it moves
    missing = [name for name in flat.names if name not in space
               and not (name.rpartition(".")[0] in bodies and name.endswith(".angle"))]
    assert not missing, f"planar results without a spatial counterpart: {missing}"
    for name in flat.names:
        np.testing.assert_allclose(flat[name], restricted(name, flat, space, bodies),
                                   rtol=TOL, atol=TOL, err_msg=name)


def test_an_applied_force_reports_what_it_applies():
    """A force given as (1.5, 2) is reported as (1.5, 2): what the source applies to the
    body, not its through variable."""
    twin = four_bar()
    times = np.linspace(0, 0.1, 3)
    flat = twin.flat.formulate().simulate(0.1, t_eval=times)
    space = twin.space.formulate().simulate(0.1, t_eval=times)
    assert np.allclose(flat["push.force"], [(1.5, 2.0)] * 3, atol=1e-12)
    assert np.allclose(space["push.force"], [(1.5, 2.0, 0.0)] * 3, atol=1e-12)
    assert np.allclose(flat["motor.torque"], 3.0 + 2.0 * np.sin(4 * times), atol=1e-12)
    assert np.allclose(space["motor.torque"][:, 2], 3.0 + 2.0 * np.sin(4 * times), atol=1e-12)
