"""Three tanks in a row, filled by a pump and drained through an orifice: a nonlinear simulation.

A flow source delivers Qin into tank 1; pipes of linear resistance R join
tank 1 to tank 2 and tank 2 to tank 3; tank 3 drains through an orifice
with the square law P = k Q |Q|. A tank of area A is a fluid capacitance
C = A/(rho g) from the ground (atmospheric pressure) to its bottom node.

The tanks start empty. The orifice is a nonlinear dissipator: its flow cannot be written
explicitly in its pressure, so it stays an algebraic variable and the model
is integrated as a DAE. At steady state all of Qin leaves through the
orifice, so P3 = k Qin^2, P2 = P3 + R Qin and P1 = P2 + R Qin. The script
also linearizes the model about that steady state (ss.linearize), where the
orifice acts as the resistance dP/dQ = 2 k Qin, to find the time constants.

Run with ``python examples/hydraulic_tanks.py [--plot out.png]``.
"""

import argparse

import numpy as np
import sympy

import vecnet as vn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--plot", metavar="PNG", help="save a plot of the tank levels")
args = parser.parse_args()

rho, g = 1000.0, 9.81
area = 0.5                      # m^2, every tank
C = area / (rho * g)            # m^3/Pa
R = 2e6                         # Pa s/m^3: 0.2 m of head at 1 L/s
Qin = 1e-3                      # m^3/s
k = 0.5 * rho * g / Qin**2      # Pa s^2/m^6: 0.5 m of head at 1 L/s

net = vn.Network("three tanks")
net.add(
    vn.FlowSource("pump", "ground", "p1", Q=Qin),
    vn.FluidCapacitance("tank1", "ground", "p1", C=C),
    vn.FluidCapacitance("tank2", "ground", "p2", C=C),
    vn.FluidCapacitance("tank3", "ground", "p3", C=C),
    vn.FluidResistance("pipe12", "p2", "p1", R=R),
    vn.FluidResistance("pipe23", "p3", "p2", R=R),
    vn.NonlinearDissipator("orifice", "ground", "p3", domain="fluid",
                           across=lambda Q: k * Q * sympy.Abs(Q)),
)
ss = net.state_space(outputs=["orifice.through"])
print(ss.diagnosis())
print("linear:", ss.is_linear, " algebraic variables:", ss.z)
print("\nstate equations:")
for eq in ss.state_equations():
    print(f"  {eq.lhs} = {eq.rhs}")
print("algebraic equation: 0 =", ss.g[0])

P3 = k * Qin**2
P2 = P3 + R * Qin
P1 = P2 + R * Qin
print(f"\nsteady state by hand: levels {P1 / (rho * g):.4f}, {P2 / (rho * g):.4f}, "
      f"{P3 / (rho * g):.4f} m")

# the linear model about that steady state: the orifice becomes the resistance 2 k Qin
lin = ss.linearize({"tank1.across": P1, "tank2.across": P2, "tank3.across": P3})
A = np.array(lin.A, dtype=float)
order = [lin.states.index(f"tank{n}.across") for n in (1, 2, 3)]
Ro = 2 * k * Qin
by_hand = np.array([[-1 / R, 1 / R, 0], [1 / R, -2 / R, 1 / R], [0, 1 / R, -1 / R - 1 / Ro]]) / C
assert np.allclose(A[np.ix_(order, order)], by_hand, rtol=1e-12)
time_constants = np.sort(-1 / np.linalg.eigvals(A).real)
print("linearized time constants [s]:", np.round(time_constants, 2))

t_end = 8 * time_constants[-1]
res = net.simulate((0, t_end), t_eval=np.linspace(0, t_end, 801))
print(f"\n{'t [s]':>7} {'h1 [m]':>8} {'h2 [m]':>8} {'h3 [m]':>8} {'Q_out [L/s]':>12}")
for j in range(0, len(res.t), 100):
    time = res.t[j]
    h = [res[f"tank{n}.across"][j] / (rho * g) for n in (1, 2, 3)]
    q_out = res["orifice.through"][j] * 1e3
    print(f"{time:7.0f} {h[0]:8.4f} {h[1]:8.4f} {h[2]:8.4f} {q_out:12.6f}")
assert res.success
for name, P in [("tank1.across", P1), ("tank2.across", P2), ("tank3.across", P3)]:
    assert abs(res[name][-1] - P) < 1e-3 * P
assert abs(res["orifice.through"][-1] - Qin) < 1e-3 * Qin
# the orifice law holds along the whole solution
assert np.allclose(res["tank3.across"], k * res["orifice.through"] * np.abs(res["orifice.through"]))

if args.plot:
    import matplotlib
    matplotlib.use("Agg")
    dense = net.simulate((0, t_end))
    ax = dense.plot(["tank1.across", "tank2.across", "tank3.across"])
    ax.set_ylabel("pressure [Pa]")
    ax.figure.savefig(args.plot)
    print(f"plot saved to {args.plot}")
