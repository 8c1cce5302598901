"""Assembly moves only the dependent coordinates: what the user placed independently (a
crank at 60 degrees) stays where it was put, and the loop closes around it.

Facts from outside the code: the loop closure of a four-bar with ground pins P1, P4 and
links l1, l2, l3, written by hand in the pins' relative angles,
l1 e(p1) + l2 e(p1 + p2) + l3 e(p1 + p2 + p3) = P4 - P1 with e(a) = (cos a, sin a); and in
the bodies' poses, each pin's two points at the same place.
"""

import math

import numpy as np
import pytest

import vecnet as vn

L1, L2, L3 = 0.3, 0.8, 0.6
P1, P4 = np.array([-0.35, 0.0]), np.array([0.35, 0.0])
CRANK = math.radians(60)


def e(angle: float) -> np.ndarray:
    return np.array([math.cos(angle), math.sin(angle)])


def four_bar(crank: float = CRANK, guess=(0.5, 0.6), drive=None) -> vn.planar.Mechanism:
    """The planar tutorial's four-bar, the crank placed exactly at ``crank`` and the coupler
    and rocker only roughly, from a guess of the rocker pin."""
    B, D = P1 + L1 * e(crank), np.array(guess)
    mech = vn.planar.Mechanism("four-bar", gravity=(0, -9.81))
    bodies = []
    for name, (start, end), length in zip(("link1", "link2", "link3"),
                                          [(P1, B), (B, D), (D, P4)], (L1, L2, L3)):
        bodies.append(mech.body(name, mass=1.0, inertia=length**2 / 12,
                                position=(start + end) / 2,
                                angle=math.atan2(*(end - start)[::-1])))
    link1, link2, link3 = bodies
    mech.revolute("P1", mech.ground.point(*P1), link1.point(-L1 / 2, 0))
    mech.revolute("P2", link1.point(L1 / 2, 0), link2.point(-L2 / 2, 0))
    mech.revolute("P3", link2.point(L2 / 2, 0), link3.point(-L3 / 2, 0))
    mech.revolute("P4", link3.point(L3 / 2, 0), mech.ground.point(*P4))
    if drive is not None:
        mech.drive("D", "P1", drive)
    return mech


def loop_gap(p1: float, p2: float, p3: float) -> np.ndarray:
    """What is left of the loop closure written by hand (zero when the loop closes)."""
    return L1 * e(p1) + L2 * e(p1 + p2) + L3 * e(p1 + p2 + p3) - (P4 - P1)


def test_joint_coordinates_hold_the_placed_crank_and_close_the_loop():
    mech = four_bar()
    # the rough placement leaves the loop open by centimetres
    assert np.abs(loop_gap(*mech.formulate().initial_guess())).max() > 1e-2
    q = mech.formulate().assemble()
    assert q[0] == pytest.approx(CRANK, abs=1e-12)
    assert np.abs(loop_gap(*q)).max() < 1e-10
    # the upper branch, which the guess was near: the rocker pin above the ground line
    assert (P1 + L1 * e(q[0]) + L2 * e(q[0] + q[1]))[1] > 0


def test_absolute_coordinates_hold_the_placed_crank_and_join_every_pin():
    mech = four_bar()
    eom = mech.formulate("absolute")
    pose = dict(zip(eom.coordinates, eom.assemble()))
    assert pose["link1.angle"] == pytest.approx(CRANK, abs=1e-12)

    def end(name: str, length: float, side: int) -> np.ndarray:
        centre = np.array([pose[f"{name}.x"], pose[f"{name}.y"]])
        return centre + side * length / 2 * e(pose[f"{name}.angle"])

    pins = [(P1, end("link1", L1, -1)), (end("link1", L1, 1), end("link2", L2, -1)),
            (end("link2", L2, 1), end("link3", L3, -1)), (end("link3", L3, 1), P4)]
    for a, b in pins:
        assert np.allclose(a, b, atol=1e-10)
    # and the same pose as the joint coordinates give
    q = mech.formulate().assemble()
    assert pose["link2.angle"] == pytest.approx(q[0] + q[1], abs=1e-9)
    assert pose["link3.angle"] == pytest.approx(q[0] + q[1] + q[2], abs=1e-9)


def test_a_named_coordinate_is_held_instead_and_a_driver_decides_the_crank():
    eom = four_bar().formulate()
    q = eom.assemble(initial={"P1.angle": math.radians(75)})
    assert q[0] == pytest.approx(math.radians(75), abs=1e-12)
    assert np.abs(loop_gap(*q)).max() < 1e-10
    driven = four_bar(drive=math.radians(45)).formulate()
    q = driven.assemble()
    assert q[0] == pytest.approx(math.radians(45), abs=1e-10)
    assert np.abs(loop_gap(*q)).max() < 1e-10


def test_a_crank_placed_where_no_loop_closes_moves_as_little_as_it_must():
    # three links of 0.5 between ground pins 0.7 apart: with the crank placed pointing
    # away (180 degrees) its pin is 1.2 from the far ground pin, out of the reach 1.0 of
    # the other two, so the crank has to turn for the loop to close
    mech = vn.planar.Mechanism("triple rocker")
    a = mech.body("a", 1.0, 0.1, position=(-0.25, 0.0), angle=math.pi)
    b = mech.body("b", 1.0, 0.1, position=(-0.2, 0.3), angle=0.3)
    c = mech.body("c", 1.0, 0.1, position=(0.5, 0.2), angle=-1.2)
    mech.revolute("O", mech.ground.point(0, 0), a.point(-0.25, 0))
    mech.revolute("A", a.point(0.25, 0), b.point(-0.25, 0))
    mech.revolute("B", b.point(0.25, 0), c.point(-0.25, 0))
    mech.revolute("C", c.point(0.25, 0), mech.ground.point(0.7, 0))
    q = mech.formulate().assemble()
    gap = 0.5 * (e(q[0]) + e(q[0] + q[1]) + e(q[0] + q[1] + q[2])) - np.array([0.7, 0.0])
    assert np.abs(gap).max() < 1e-10
    assert abs(q[0] - math.pi) > 0.1
