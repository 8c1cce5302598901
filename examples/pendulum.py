"""Pendulum with a hinge spring and damper: linearized frequency and free swing.

A rigid body of mass m and inertia J (about its mass centre) hangs from a pin
at the origin, its centre a distance l below the pin. A rotary spring k and
damper c act between the ground and the body at the hinge, relaxed when the
pendulum hangs straight down. With beta the angle from the downward
vertical (Thompson's planar pendulum):

    (J + m l^2) beta'' + c beta' + k beta + m g l sin beta = 0,

so the linearized undamped frequency is sqrt((k + m g l)/(J + m l^2)) and
the damping ratio c / (2 sqrt((k + m g l)(J + m l^2))).

The body frame's x axis points from the pin to the mass centre, so in joint
coordinates the coordinate is the body angle measured from the ground's x
axis, pin.angle = beta - pi/2. The script checks vecnet's M and Q against
the equation above, the equilibrium, the eigenvalues of the linear model in
joint and in absolute coordinates, and a simulated swing against the same
equation integrated with scipy.

Run with ``python examples/pendulum.py [--plot out.png]``.
"""

import argparse
import math

import numpy as np
import sympy
from scipy.integrate import solve_ivp

import vecnet as vn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--plot", metavar="PNG", help="save a plot of the swing")
args = parser.parse_args()

m, J, l = 2.0, 0.05, 0.4        # kg, kg m^2, m
k, c, g = 3.0, 0.2, 9.81        # N m/rad, N m s/rad, m/s^2

mech = vn.planar.Mechanism("pendulum", gravity=(0, -g))
bob = mech.body("bob", mass=m, inertia=J, position=(0.0, -l), angle=-math.pi / 2)
mech.revolute("pin", mech.ground.point(0, 0), bob.point(-l, 0))   # the pin is l behind the centre
mech.rotary_spring("hinge", mech.ground, bob, k=k, c=c)          # relaxed in the initial pose
eom = mech.formulate(coordinates="joint")
print(eom)

# M and Q against the textbook equation, with beta = phi + pi/2
(phi,), (phi_rate,) = eom.q, eom.u
beta, beta_rate = phi + sympy.pi / 2, phi_rate
M, Q = eom.M[0, 0], eom.Q[0, 0]
print("M =", sympy.simplify(M))
print("Q =", sympy.simplify(Q))
assert abs(float(sympy.simplify(M)) - (J + m * l**2)) < 1e-12
textbook_Q = -(c * beta_rate + k * beta + m * g * l * sympy.sin(beta))
for value, rate in [(-1.2, 0.0), (0.3, -2.0), (2.5, 4.0)]:
    point = {phi: value, phi_rate: rate}
    assert abs(float((Q - textbook_Q).subs(point))) < 1e-9

# equilibrium and linear model
op = eom.equilibrium()
print("\nequilibrium:", op)
assert abs(op["pin.angle"] + math.pi / 2) < 1e-9          # hanging straight down
lin = eom.linearize(op)
print("linear model: M =", lin.M.ravel(), " C =", lin.C.ravel(), " K =", lin.K.ravel())
print("eigenvalues:", lin.eigenvalues())
wn = math.sqrt((k + m * g * l) / (J + m * l**2))
zeta = c / (2 * math.sqrt((k + m * g * l) * (J + m * l**2)))
print(f"natural frequency {lin.natural_frequencies()[0]:.6f} rad/s (theory {wn:.6f}), "
      f"damping ratio {lin.damping_ratios()[0]:.6f} (theory {zeta:.6f})")
assert abs(lin.natural_frequencies()[0] - wn) < 1e-6
assert abs(lin.damping_ratios()[0] - zeta) < 1e-6
s_theory = -zeta * wn + 1j * wn * math.sqrt(1 - zeta**2)
assert abs(lin.eigenvalues()[-1] - s_theory) < 1e-6

# the same from absolute coordinates: 3 coordinates, 2 pin constraints, 1 degree of freedom
eom_abs = mech.formulate(coordinates="absolute")
print("\n" + repr(eom_abs))
lin_abs = eom_abs.linearize(eom_abs.equilibrium())
print("eigenvalues (absolute coordinates):", lin_abs.eigenvalues())
assert eom_abs.degrees_of_freedom() == 1
assert np.allclose(lin_abs.eigenvalues(), lin.eigenvalues(), atol=1e-6)

# a free swing released from 60 degrees, against scipy on the textbook equation
beta0, t_end = math.radians(60), 3.0
times = np.linspace(0, t_end, 301)
res = eom.simulate(t_end, t_eval=times, initial={"pin.angle": beta0 - math.pi / 2})
ref = solve_ivp(lambda _, y: [y[1], -(c * y[1] + k * y[0] + m * g * l * math.sin(y[0]))
                              / (J + m * l**2)],
                (0, t_end), [beta0, 0.0], t_eval=times, rtol=1e-11, atol=1e-12)
beta_vn = res["pin.angle"] + math.pi / 2
print(f"\nswing from 60 deg: beta(t = {t_end:g} s) = {math.degrees(beta_vn[-1]):.6f} deg "
      f"(scipy on the textbook equation: {math.degrees(ref.y[0, -1]):.6f} deg)")
print(f"largest difference over the swing: {np.abs(beta_vn - ref.y[0]).max():.2e} rad")
assert np.abs(beta_vn - ref.y[0]).max() < 1e-6
# the body angle is the pin angle (the pin's tail is the ground frame)
assert np.allclose(res["bob.angle"], res["pin.angle"])
# the damper dissipates: the energy (kinetic + gravity + hinge spring) never rises
print(f"energy: {res['energy'][0]:.6f} J at release, {res['energy'][-1]:.6f} J at t = {t_end:g} s")
E0 = -m * g * l * math.cos(beta0) + k * beta0**2 / 2       # at rest: gravity and the hinge spring
assert abs(res["energy"][0] - E0) < 1e-9
assert np.all(np.diff(res["energy"]) < 1e-9)

if args.plot:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot(res.t, np.degrees(beta_vn), label="vecnet")
    ax.plot(ref.t, np.degrees(ref.y[0]), "--", label="textbook equation")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("beta [deg]")
    ax.legend()
    fig.savefig(args.plot)
    print(f"plot saved to {args.plot}")
