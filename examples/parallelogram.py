"""Parallelogram linkage with a redundant fifth link: counting says 0, the rank says 1.

Three equal cranks (length l) hang from ground pins G1, G2, G3 at (0, 0),
(d, 0), (2d, 0); their ends carry pins C1, C2, C3 to a coupler of length 2d.
Ground, two cranks and the coupler form a parallelogram four-bar; the third
crank is parallel to the other two and adds a loop without taking any
motion away. Grübler's count for 4 moving bodies and 6 pins,
3 * 4 - 2 * 6 = 0, says the linkage is locked; the rank of the constraint
Jacobian, which vecnet uses, finds the one degree of freedom. The same count
shows up in both coordinate choices: as many coordinates as constraints.

The coupler only translates and every crank turns by the same angle theta,
so the linkage is a pendulum with

    I theta'' = -(3 m_c l/2 + m_p l) g cos(theta),   I = 3 (J_c + m_c l^2/4) + m_p l^2

(theta from the ground's x axis; m_c, J_c a crank, m_p the coupler). The
script checks the linearized frequency about the hanging position and a
released swing against this equation, and the total ground reaction at the
release against Newton's law for the whole linkage. How that total is shared
among the three ground pins is statically indeterminate: the two coordinate
choices share it differently, both correctly.

Run with ``python examples/parallelogram.py [--plot out.png]``.
"""

import argparse
import math

import numpy as np
from scipy.integrate import solve_ivp

import vecnet as vn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--plot", metavar="PNG", help="save a plot of the crank angles")
args = parser.parse_args()

l, d, g = 0.5, 0.4, 9.81
m_c, m_p = 0.5, 2.0
J_c, J_p = m_c * l**2 / 12, m_p * (2 * d) ** 2 / 12
theta0 = math.radians(-30)             # released from rest, 60 degrees from hanging
e = np.array([math.cos(theta0), math.sin(theta0)])

mech = vn.planar.Mechanism("parallelogram with a fifth link", gravity=(0, -g))
cranks = [mech.body(f"crank{i + 1}", mass=m_c, inertia=J_c, position=(i * d, 0) + l / 2 * e,
                    angle=theta0) for i in range(3)]
coupler = mech.body("coupler", mass=m_p, inertia=J_p, position=(d, 0) + l * e, angle=0.0)
for i, crank in enumerate(cranks):
    mech.revolute(f"G{i + 1}", mech.ground.point(i * d, 0), crank.point(-l / 2, 0))
    mech.revolute(f"C{i + 1}", crank.point(l / 2, 0), coupler.point((i - 1) * d, 0))

bodies, pins = len(mech.bodies), 6
grubler = 3 * bodies - 2 * pins
print(f"Grübler: 3 x {bodies} bodies - 2 x {pins} pins = {grubler}")
assert grubler == 0

I = 3 * (J_c + m_c * l**2 / 4) + m_p * l**2
G = (3 * m_c * l / 2 + m_p * l) * g


def pendulum(_, y):
    return [y[1], -G * math.cos(y[0]) / I]


times = np.linspace(0, 2, 201)
ref = solve_ivp(pendulum, (0, 2), [theta0, 0.0], t_eval=times, rtol=1e-12, atol=1e-12)
# at the release (at rest): crank centres accelerate by (l/2) theta'' and the coupler by l theta''
#   along (-sin, cos); the ground pins carry sum m (a - g)
alpha0 = pendulum(0, [theta0, 0.0])[1]
tangent = np.array([-math.sin(theta0), math.cos(theta0)])
ground_force = ((3 * m_c * l / 2 + m_p * l) * alpha0 * tangent
                + (3 * m_c + m_p) * g * np.array([0, 1]))

runs = {}
for coordinates in ("joint", "absolute"):
    eom = mech.formulate(coordinates=coordinates)
    n, m = len(eom.q), len(eom.constraint_names)
    dof = eom.degrees_of_freedom()
    print(f"\n{coordinates} coordinates: {n} coordinates, {m} constraints "
          f"({', '.join(eom.constraint_names)}); n - m = {n - m}, "
          f"degrees of freedom (rank) = {dof}")
    assert n - m == 0 and dof == 1
    res = eom.simulate(2.0, t_eval=times)
    angles = np.array([res[f"crank{i + 1}.angle"] for i in range(3)])
    print(f"  theta(2 s) = {math.degrees(angles[0, -1]):.6f} deg "
          f"(the pendulum equation: {math.degrees(ref.y[0, -1]):.6f} deg); coupler angle stays "
          f"within {np.abs(res['coupler.angle']).max():.1e} rad; energy drift "
          f"{np.abs(res['energy'] - res['energy'][0]).max():.1e} J")
    assert np.abs(angles - ref.y[0]).max() < 1e-6        # all three cranks turn together
    assert np.abs(res["coupler.angle"]).max() < 1e-9     # the coupler translates
    assert np.abs(res["energy"] - res["energy"][0]).max() < 1e-5
    assert res["constraint residual"].max() < 1e-9
    shares = np.array([res[f"G{i + 1}.reaction"][0] for i in range(3)])
    print("  ground pin reactions at the release [N]:",
          "  ".join(f"G{i + 1} ({x + 0:+.4f}, {y + 0:+.4f})" for i, (x, y) in enumerate(shares)))
    print(f"  their sum ({shares.sum(0)[0]:+.4f}, {shares.sum(0)[1]:+.4f}); "
          f"Newton for the whole linkage ({ground_force[0]:+.4f}, {ground_force[1]:+.4f})")
    assert np.allclose(shares.sum(axis=0), ground_force, atol=1e-9)
    runs[coordinates] = res

# the linear model about the hanging position (joint coordinates)
eom = mech.formulate(coordinates="joint")
op = eom.equilibrium()
lin = eom.linearize(op)
omega = math.sqrt(G / I)
print(f"\nhanging equilibrium: {op}")
print(f"linearized frequency {lin.natural_frequencies()[0]:.6f} rad/s "
      f"(pendulum equation {omega:.6f})")
assert np.allclose([op[f"G{i}.angle"] for i in (1, 2, 3)], -math.pi / 2)
assert abs(lin.natural_frequencies()[0] - omega) < 1e-6

if args.plot:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    for coordinates, res in runs.items():
        ax.plot(res.t, np.degrees(res["crank1.angle"]), label=f"crank 1, {coordinates}")
    ax.plot(ref.t, np.degrees(ref.y[0]), ":", label="pendulum equation")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("crank angle [deg]")
    ax.legend()
    fig.savefig(args.plot)
    print(f"plot saved to {args.plot}")
