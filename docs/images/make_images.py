"""Draw the pictures of docs/diagrams.md: McPhee's electrical network (REFERENCE case E1)
with the tree {L1, L2, R3, R4, R5}, and a four-bar mechanism's vector network with joint
coordinates (the joints P1-P3 in the tree, P4 cut).

Run with ``python docs/images/make_images.py``; the SVG files are written next to this
script. Needs the Graphviz ``dot`` program.
"""

from pathlib import Path

import numpy as np

import vecnet as vn

HERE = Path(__file__).parent


def e1() -> vn.Network:
    net = vn.Network("E1")
    net.add(vn.Inductor("L1", "a", "b", L=2.0), vn.Inductor("L2", "e", "d", L=1.0),
            vn.Resistor("R3", "c", "b", R=1.0), vn.Resistor("R4", "e", "b", R=2.0),
            vn.Resistor("R5", "f", "e", R=3.0), vn.Capacitor("C6", "c", "d", C=0.5),
            vn.VoltageSource("V7", "f", "a", V=1.0))
    return net


def four_bar() -> vn.planar.Mechanism:
    mech = vn.planar.Mechanism("four-bar", gravity=(0, -9.81))
    pins = [np.array(p) for p in ((0.0, 0.0), (0.5, 0.866), (2.3, 1.4), (2.0, 0.0))]
    ends = []
    for name, mass, P, R in zip(("crank", "coupler", "rocker"), (1.0, 2.0, 1.5), pins, pins[1:]):
        d = R - P
        length = float(np.hypot(*d))
        body = mech.body(name, mass=mass, inertia=mass * length**2 / 12, position=(P + R) / 2,
                         angle=float(np.arctan2(d[1], d[0])))
        ends.append((body.point(-length / 2, 0), body.point(length / 2, 0)))
    (c0, c1), (k0, k1), (r0, r1) = ends
    mech.revolute("P1", mech.ground.point(0, 0), c0)
    mech.revolute("P2", c1, k0)
    mech.revolute("P3", k1, r0)
    mech.revolute("P4", r1, mech.ground.point(2, 0))
    mech.torque("T", mech.bodies["crank"], 0.5)
    return mech


if __name__ == "__main__":
    vn.draw(e1(), tree=["L1", "L2", "R3", "R4", "R5"], labels="both", path=HERE / "e1.svg")
    vn.draw(four_bar(), tree="joint", path=HERE / "fourbar.svg")
    print(f"wrote {HERE / 'e1.svg'} and {HERE / 'fourbar.svg'}")
