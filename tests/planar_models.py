"""Mechanisms shared by the planar tests."""

import numpy as np

import vecnet as vn


def pendulum(m=2.0, J=0.3, l=0.8, k=0.0, c=0.0, beta0=0.5, g=9.81):
    """A body hanging from a pin at the origin, its centre l below the pin when beta = 0;
    a hinge spring k (free at beta = 0) and damper c."""
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -g))
    bob = mech.body("bob", mass=m, inertia=J, position=(l * np.sin(beta0), -l * np.cos(beta0)),
                    angle=beta0)
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(0, l))
    if k or c:
        mech.rotary_spring("hinge", mech.ground.centre, bob, k=k, c=c, angle=0.0)
    return mech


def link(mech, name, P, R, m):
    """A slender link from P to R with its pins at its ends."""
    P, R = np.asarray(P, float), np.asarray(R, float)
    d = R - P
    L = float(np.hypot(*d))
    body = mech.body(name, mass=m, inertia=m * L**2 / 12, position=(P + R) / 2,
                     angle=float(np.arctan2(d[1], d[0])))
    return body, body.point(-L / 2, 0), body.point(L / 2, 0)


def four_bar(spring=None, gravity=(0, -9.81), crank_angle=np.pi / 3, anchor=(1.0, 3.0)):
    """Ground pins A = (0, 0), D = (2, 0); crank 1, coupler and rocker closed by assembly."""
    mech = vn.planar.Mechanism("fourbar", gravity=gravity)
    A, D = np.array([0.0, 0.0]), np.array([2.0, 0.0])
    B = A + [np.cos(crank_angle), np.sin(crank_angle)]
    C = np.array([2.3, 1.4])
    crank, c0, c1 = link(mech, "crank", A, B, 1.0)
    coupler, k0, k1 = link(mech, "coupler", B, C, 2.0)
    rocker, r0, r1 = link(mech, "rocker", C, D, 1.5)
    mech.revolute("P1", mech.ground.point(*A), c0)
    mech.revolute("P2", c1, k0)
    mech.revolute("P3", k1, r0)
    mech.revolute("P4", r1, mech.ground.point(*D))
    if spring is not None:
        mech.spring("k", coupler.centre, mech.ground.point(*anchor), k=spring, length=0.5)
    return mech


def slider_crank(r=0.3, L=1.0, crank_angle=0.7, torque=None, drive=None):
    """Crank r pinned at the origin, rod L, slider on the x axis (prismatic to ground)."""
    mech = vn.planar.Mechanism("slider-crank", gravity=(0, -9.81))
    B = np.array([r * np.cos(crank_angle), r * np.sin(crank_angle)])
    C = np.array([B[0] + np.sqrt(L**2 - B[1] ** 2), 0.0])
    crank, c0, c1 = link(mech, "crank", (0, 0), B, 0.5)
    rod, r0, r1 = link(mech, "rod", B, C, 1.0)
    slider = mech.body("slider", mass=2.0, inertia=0.01, position=C, angle=0.0)
    mech.revolute("O", mech.ground.point(0, 0), c0)
    mech.revolute("B", c1, r0)
    mech.revolute("C", r1, slider.centre)
    mech.prismatic("S", mech.ground.point(0, 0), slider.centre, axis=(1, 0))
    if torque is not None:
        mech.torque("T", crank, torque)
    if drive is not None:
        mech.drive("D", "O", drive)
    return mech
