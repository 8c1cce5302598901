"""Heat flow through a three-layer wall (per square metre) after a drop in outside temperature.

Layers from inside to outside: plaster (15 mm), brick (200 mm), insulation
(100 mm), with surface film resistances on both faces. Each layer is a
thermal capacitance at its middle between two half-layer resistances:

    Tin -Rsi- s1 -Rp/2- n1 -Rp/2- s2 -Rb/2- n2 -Rb/2- s3 -Ri/2- n3 -Ri/2- s4 -Rse- Tout
                        |Cp                 |Cb                 |Ci

Temperatures are measured from a common reference node "amb" (0 degC); the
capacitances are edges from it, the resistances point towards the warm side,
so their through variables are heat flows outwards (W). The wall starts in
equilibrium at 20 degC inside and out; at t = 0 the outside drops to 0 degC.
At steady state the heat flow is 20 K / (sum of the resistances) everywhere.
The transfer function from the outside temperature to the heat flow into the
wall from the room gives the daily attenuation of outside swings.

Run with ``python examples/thermal_wall.py [--plot out.png]``.
"""

import argparse
import math

import numpy as np
import sympy

import vecnet as vn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--plot", metavar="PNG", help="save a plot of the response")
args = parser.parse_args()

# (name, thickness m, conductivity W/(m K), density kg/m^3, specific heat J/(kg K))
layers = [("p", 0.015, 0.5, 1200.0, 1000.0), ("b", 0.2, 0.7, 1800.0, 840.0),
          ("i", 0.1, 0.04, 30.0, 1400.0)]
R_si, R_se = 0.13, 0.04         # surface film resistances, K/W for 1 m^2
T_in, T_out = 20.0, 0.0         # degC

net = vn.Network("wall")
net.add(vn.TemperatureSource("Tin", "amb", "s0", T=T_in),
        vn.TemperatureSource("Tout", "amb", "out", T=T_out),
        vn.ThermalResistance("Rsi", "s1", "s0", R=R_si))
R_total = R_si + R_se
for k, (name, d, cond, rho, c) in enumerate(layers, start=1):
    R = d / cond
    R_total += R
    net.add(vn.ThermalResistance(f"R{name}1", f"n{k}", f"s{k}", R=R / 2),
            vn.ThermalCapacitance(f"C{name}", "amb", f"n{k}", C=rho * c * d),
            vn.ThermalResistance(f"R{name}2", f"s{k + 1}", f"n{k}", R=R / 2))
net.add(vn.ThermalResistance("Rse", "out", f"s{len(layers) + 1}", R=R_se))

ss = net.state_space(outputs=["Rsi.through", "Rse.through"])
print(ss.diagnosis())
print("\nstate equations:")
for eq in ss.state_equations():
    print(f"  {eq.lhs} = {sympy.simplify(eq.rhs)}")

num = ss.subs()
A = np.array(num.A.tolist(), dtype=float)
print("\ninputs", num.inputs, "outputs", num.outputs)
print("A =", np.array2string(A, precision=4))
print("time constants [h]:", np.round(np.sort(-1 / np.linalg.eigvals(A).real) / 3600, 3))

s = sympy.Symbol("s")
H = num.transfer_function()                # rows: outputs, columns: Tin, Tout
dc = H.subs(s, 0)
print("DC gains [W/K]:", dc.tolist(), f" 1/R_total = {1 / R_total:.6f}")
assert all(math.isclose(float(g), sign / R_total) for g, sign in
           zip(dc, [1, -1, 1, -1]))
w_day = 2 * math.pi / 86400
gain = abs(complex(H[0, 1].subs(s, sympy.I * w_day)))
print(f"a 1 K daily swing outside moves the heat flow from the room by {gain:.4f} W "
      f"(steady: {1 / R_total:.4f} W)")

t_end = 10 * 86400.0
res = net.simulate((0, t_end), initial={"Cp.across": T_in, "Cb.across": T_in, "Ci.across": T_in},
                   t_eval=np.linspace(0, t_end, 11))
q_ss = (T_in - T_out) / R_total
print(f"\n{'day':>4} {'q_in [W]':>9} {'q_out [W]':>10} {'T_brick':>8}")
for j, time in enumerate(res.t):
    print(f"{time / 86400:4.0f} {res['Rsi.through'][j]:9.4f} {res['Rse.through'][j]:10.4f} "
          f"{res['Cb.across'][j]:8.3f}")
print(f"steady state by hand: q = {q_ss:.4f} W through every layer")
assert abs(res["Rsi.through"][-1] - q_ss) < 1e-3 and abs(res["Rse.through"][-1] - q_ss) < 1e-3
assert abs(res["Rsi.through"][0]) < 1e-9                     # in equilibrium at t = 0
T_brick = T_in - q_ss * (R_si + layers[0][1] / layers[0][2] + layers[1][1] / layers[1][2] / 2)
assert abs(res["Cb.across"][-1] - T_brick) < 1e-3

if args.plot:
    import matplotlib
    matplotlib.use("Agg")
    dense = net.simulate((0, t_end), initial={"Cp.across": T_in, "Cb.across": T_in,
                                               "Ci.across": T_in})
    ax = dense.plot(["Rsi.through", "Rse.through"])
    ax.set_ylabel("heat flow [W]")
    ax.figure.savefig(args.plot)
    print(f"plot saved to {args.plot}")
