"""Four-bar linkage held by a spring: equilibrium, linear model and free motion.

A crank-rocker four-bar (REFERENCE case E3): ground pins P1 at the origin and
P4 at (d, 0), crank l1, coupler l2, rocker l3, uniform links, gravity in -y.
A linear spring of stiffness k and free length L0 pulls the coupler's mass
centre towards a fixed point G above the linkage. The linkage has one degree
of freedom; everything is a function of the crank angle theta1, and with the
potential energy V(theta1) (gravity and spring) and the generalized inertia

    m(theta1) = sum_i m_i |d r_i/d theta1|^2 + J_i (d theta_i/d theta1)^2,

the static equilibrium is a minimum of V and the small oscillations about it
have the frequency sqrt(V''/m). The script computes these by hand from the
loop-closure geometry (the intersection of two circles) and checks vecnet's
equilibrium and linearized eigenvalues against them, in joint coordinates
(3 relative angles, the cut pin P4 giving 2 constraints) and in absolute
coordinates (9 body coordinates, 8 pin constraints). It then releases the
linkage from rest away from equilibrium and checks that both coordinate
choices give the same motion and that the energy stays constant.

Run with ``python examples/fourbar_spring.py [--plot out.png]``.
"""

import argparse
import math

import numpy as np
from scipy.optimize import brentq

import vecnet as vn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--plot", metavar="PNG", help="save a plot of the crank angle")
args = parser.parse_args()

l1, l2, l3, d = 0.3, 0.8, 0.6, 0.7    # crank, coupler, rocker, ground, m (a Grashof crank-rocker)
masses = (0.4, 1.0, 0.8)              # kg, uniform links
lengths = (l1, l2, l3)
inertias = tuple(m * l**2 / 12 for m, l in zip(masses, lengths))
k, L0, G = 200.0, 0.3, np.array([0.2, 1.0])   # N/m, m, anchor of the spring
g = 9.81
P4 = np.array([d, 0.0])


def joints(theta1):
    """Crank pin B and rocker pin C for crank angle theta1 (the assembly with C above B-P4)."""
    B = l1 * np.array([math.cos(theta1), math.sin(theta1)])
    gap = P4 - B
    dist = np.linalg.norm(gap)
    along = (l2**2 - l3**2 + dist**2) / (2 * dist)
    across = math.sqrt(l2**2 - along**2)
    C = B + (along * gap + across * np.array([-gap[1], gap[0]])) / dist
    return B, C


def links(theta1):
    """(mass centre, angle) of the three links."""
    B, C = joints(theta1)
    ends = [(np.zeros(2), B), (B, C), (C, P4)]
    return [((a + b) / 2, math.atan2(b[1] - a[1], b[0] - a[0])) for a, b in ends]


mech = vn.planar.Mechanism("four-bar with a spring", gravity=(0, -g))
bodies = []
for i, ((centre, angle), m, J) in enumerate(zip(links(math.radians(60)), masses, inertias)):
    bodies.append(mech.body(f"link{i + 1}", mass=m, inertia=J, position=centre, angle=angle))
link1, link2, link3 = bodies
mech.revolute("P1", mech.ground.point(0, 0), link1.point(-l1 / 2, 0))
mech.revolute("P2", link1.point(l1 / 2, 0), link2.point(-l2 / 2, 0))
mech.revolute("P3", link2.point(l2 / 2, 0), link3.point(-l3 / 2, 0))
mech.revolute("P4", link3.point(l3 / 2, 0), mech.ground.point(d, 0))
mech.spring("k", mech.ground.point(*G), link2.centre, k=k, length=L0)


# by hand: V(theta1), its derivatives and the generalized inertia
def potential(theta1):
    poses = links(theta1)
    gravity = sum(m * g * centre[1] for (centre, _), m in zip(poses, masses))
    stretch = np.linalg.norm(poses[1][0] - G) - L0
    return gravity + k * stretch**2 / 2


def inertia(theta1, h=1e-6):
    plus, minus = links(theta1 + h), links(theta1 - h)
    total = 0.0
    for (rp, ap), (rm, am), m, J in zip(plus, minus, masses, inertias):
        total += m * np.sum(((rp - rm) / (2 * h)) ** 2) + J * ((ap - am) / (2 * h)) ** 2
    return total


h = 1e-4
dV = lambda th: (potential(th + h) - potential(th - h)) / (2 * h)  # noqa: E731
theta_eq = brentq(dV, math.radians(80), math.radians(130))
V2 = (potential(theta_eq + h) - 2 * potential(theta_eq) + potential(theta_eq - h)) / h**2
omega_hand = math.sqrt(V2 / inertia(theta_eq))
print(f"by hand: equilibrium theta1 = {math.degrees(theta_eq):.6f} deg, "
      f"V'' = {V2:.6f} N m, m = {inertia(theta_eq):.6f} kg m^2, omega = {omega_hand:.6f} rad/s")

results = {}
for coordinates in ("joint", "absolute"):
    eom = mech.formulate(coordinates=coordinates)
    print(f"\n{eom}\n  constraints: {', '.join(eom.constraint_names)}")
    assert eom.degrees_of_freedom() == 1
    op = eom.equilibrium()
    lin = eom.linearize(op)
    crank = op["P1.angle"] if coordinates == "joint" else op["link1.angle"]
    print(f"  equilibrium: theta1 = {math.degrees(crank):.6f} deg")
    print("  linearized eigenvalues:", ", ".join(f"{s + 0:.6f}" for s in lin.eigenvalues()))
    assert abs(crank - theta_eq) < 1e-6
    assert np.abs(lin.eigenvalues().real).max() < 1e-9       # no damping
    assert abs(lin.natural_frequencies()[0] - omega_hand) < 1e-4
    res = eom.simulate(2.0, t_eval=np.linspace(0, 2, 201))
    energy = res["energy"]
    print(f"  released at 60 deg: theta1(2 s) = {math.degrees(res['link1.angle'][-1]):.4f} deg, "
          f"energy drift {np.abs(energy - energy[0]).max():.1e} J, "
          f"constraint residual {res['constraint residual'].max():.1e}")
    assert np.abs(energy - energy[0]).max() < 1e-5
    # vecnet's potential energy is V(theta1) up to a constant
    offset = res["potential"] - [potential(th) for th in res["link1.angle"]]
    assert np.ptp(offset) < 1e-9
    results[coordinates] = res

joint, absolute = results["joint"], results["absolute"]
difference = max(np.abs(joint[f"{b}.{q}"] - absolute[f"{b}.{q}"]).max()
                 for b in ("link1", "link2", "link3") for q in ("x", "y", "angle"))
print(f"\njoint and absolute coordinates: largest difference in any body pose {difference:.1e}")
assert difference < 1e-6
# the crank's pose fixes the rest: the rocker pin from the hand-made geometry
for i in range(0, 201, 50):
    _, C = joints(joint["link1.angle"][i])
    centre = np.array([joint["link3.x"][i], joint["link3.y"][i]])
    assert np.allclose(centre, (C + P4) / 2, atol=1e-9)

if args.plot:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot(joint.t, np.degrees(joint["link1.angle"]), label="joint coordinates")
    ax.plot(absolute.t, np.degrees(absolute["link1.angle"]), "--", label="absolute coordinates")
    ax.axhline(math.degrees(theta_eq), color="grey", lw=0.5, label="equilibrium")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("crank angle [deg]")
    ax.legend()
    fig.savefig(args.plot)
    print(f"plot saved to {args.plot}")
