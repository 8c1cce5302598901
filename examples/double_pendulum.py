"""Double pendulum of two uniform rods: a conservative test of the planar integrators.

Two rods (mass m, length l, inertia m l^2/12 about the centre) hang in a chain
from a pin at the origin. With phi1, phi2 the rod angles from the downward
vertical, a = l/2 and

    A = m a^2 + J + m l^2,   B = m l a,   C = m a^2 + J,

Lagrange's equations are

    A phi1'' + B cos(phi1 - phi2) phi2'' + B sin(phi1 - phi2) phi2'^2 + 3 m a g sin phi1 = 0
    B cos(phi1 - phi2) phi1'' + C phi2'' - B sin(phi1 - phi2) phi1'^2 + m a g sin phi2 = 0.

There is no dissipation and no driver, so the total energy must stay
constant. The script releases the pendulum from rest far from its
equilibrium, checks the first second of motion against these equations
(integrated with scipy; the motion is chaotic, so only a short stretch can
be compared), and prints the energy drift over 10 s for joint and absolute
coordinates and both integrators (coordinate partitioning on DOP853, and
the index-2 DAE on IDA).

Run with ``python examples/double_pendulum.py [--plot out.png]``.
"""

import argparse
import math
import time

import numpy as np
from scipy.integrate import solve_ivp

import vecnet as vn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--plot", metavar="PNG", help="save a plot of the angles and the energy")
args = parser.parse_args()

m, l, g = 1.0, 1.0, 9.81
J, a = m * l**2 / 12, l / 2
phi1, phi2 = math.radians(100), math.radians(160)   # initial angles from the downward vertical


def down(phi):
    """Unit vector along a rod at angle phi from the downward vertical."""
    return np.array([math.sin(phi), -math.cos(phi)])


mech = vn.planar.Mechanism("double pendulum", gravity=(0, -g))
elbow = l * down(phi1)
rod1 = mech.body("rod1", mass=m, inertia=J, position=a * down(phi1), angle=phi1 - math.pi / 2)
rod2 = mech.body("rod2", mass=m, inertia=J, position=elbow + a * down(phi2),
                 angle=phi2 - math.pi / 2)
mech.revolute("P1", mech.ground.point(0, 0), rod1.point(-a, 0))
mech.revolute("P2", rod1.point(a, 0), rod2.point(-a, 0))

# Lagrange's equations by hand
A, B, C = m * a**2 + J + m * l**2, m * l * a, m * a**2 + J


def lagrange(_, y):
    p1, p2, w1, w2 = y
    s, c = math.sin(p1 - p2), math.cos(p1 - p2)
    mass = np.array([[A, B * c], [B * c, C]])
    rhs = -np.array([B * s * w2**2 + 3 * m * a * g * math.sin(p1),
                     -B * s * w1**2 + m * a * g * math.sin(p2)])
    return [w1, w2, *np.linalg.solve(mass, rhs)]


E_hand = -m * g * a * math.cos(phi1) - m * g * (l * math.cos(phi1) + a * math.cos(phi2))
t_short = np.linspace(0, 1, 101)
ref = solve_ivp(lagrange, (0, 1), [phi1, phi2, 0, 0], t_eval=t_short, rtol=1e-12, atol=1e-12)

runs = {}
for coordinates in ("joint", "absolute"):
    eom = mech.formulate(coordinates=coordinates)
    print(eom)
    short = eom.simulate(1.0, t_eval=t_short, rtol=1e-10, atol=1e-12)
    # body angles are measured from the ground's x axis: phi = angle + pi/2
    error = max(np.abs(short["rod1.angle"] + math.pi / 2 - ref.y[0]).max(),
                np.abs(short["rod2.angle"] + math.pi / 2 - ref.y[1]).max())
    print(f"  first second against Lagrange's equations: largest angle error {error:.1e} rad")
    assert error < 1e-6
    for method in ("partition", "dae"):
        start = time.perf_counter()
        res = eom.simulate(10.0, method=method)
        elapsed = time.perf_counter() - start
        energy = res["energy"]
        drift = np.abs(energy - energy[0]).max()
        print(f"  {method:9s}: energy {energy[0]:.6f} J, largest drift over 10 s {drift:.2e} J, "
              f"constraint residual {res['constraint residual'].max():.1e} ({elapsed:.1f} s)")
        assert abs(energy[0] - E_hand) < 1e-9          # released from rest
        assert drift < 1e-3 * abs(energy[0])
        assert res["constraint residual"].max() < 1e-7
        runs[coordinates, method] = res

# joint coordinates are relative angles: P2.angle = rod2.angle - rod1.angle
res = runs["joint", "partition"]
assert np.allclose(res["P2.angle"], res["rod2.angle"] - res["rod1.angle"])
assert np.allclose(res["P1.angle"], res["rod1.angle"])

if args.plot:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, sharex=True)
    for name in ("rod1.angle", "rod2.angle"):
        top.plot(res.t, np.degrees(res[name] + math.pi / 2), label=name)
    top.set_ylabel("angle from vertical [deg]")
    top.legend()
    for (coordinates, method), run in runs.items():
        bottom.plot(run.t, run["energy"] - run["energy"][0], label=f"{coordinates}, {method}")
    bottom.set_ylabel("energy drift [J]")
    bottom.set_xlabel("t [s]")
    bottom.legend()
    fig.savefig(args.plot)
    print(f"plot saved to {args.plot}")
