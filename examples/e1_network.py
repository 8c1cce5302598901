"""McPhee's electrical network (REFERENCE case E1) with numbers: state equations and step response.

Two inductors, three resistors, a capacitor and a voltage source on nodes
a-f (edges tail -> head):

    L1: a -> b    L2: e -> d    R3: c -> b    R4: e -> b
    R5: f -> e    C6: c -> d    V7: f -> a

with L1 = 2, L2 = 1, R3 = 1, R4 = 2, R5 = 3, C6 = 0.5 and a unit step V7.
The normal tree {V7, C6, R3, R4, R5} leaves both inductors in the cotree:
three states (i_L1, i_L2, v_C6). At steady state the inductors are shorts
and the capacitor is open, so no current flows in R3 and L2: the source
drives V7/(R4 + R5) = 0.2 round the loop V7-L1-R4-R5 and
v_C6 = v_d - v_c = v_e - v_b = -R4 V7/(R4 + R5) = -0.4.

Through variables follow the passive sign convention: tau is positive from
an element's head to its tail. The source current flows from a to b in L1,
against L1's orientation, so i_L1 settles at -0.2.

Run with ``python examples/e1_network.py [--plot out.png]``.
"""

import argparse

import numpy as np
import sympy

import vecnet as vn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--plot", metavar="PNG", help="save a plot of the step response")
args = parser.parse_args()

net = vn.Network("E1")
net.add(
    vn.Inductor("L1", "a", "b", L=2.0),
    vn.Inductor("L2", "e", "d", L=1.0),
    vn.Resistor("R3", "c", "b", R=1.0),
    vn.Resistor("R4", "e", "b", R=2.0),
    vn.Resistor("R5", "f", "e", R=3.0),
    vn.Capacitor("C6", "c", "d", C=0.5),
    vn.VoltageSource("V7", "f", "a", V=1.0),       # unit step at t = 0
)
ss = net.state_space(outputs=["C6.across", "L1.through"])
print(ss.diagnosis())
print("\nstate equations (symbolic parameters):")
for eq in ss.state_equations():
    print(f"  {eq.lhs} = {eq.rhs}")

num = ss.subs()                                     # the numeric values of the elements
print("\nstates", num.states, "inputs", num.inputs, "outputs", num.outputs)
print("A =", num.A.tolist())
print("B =", num.B.tolist())
print("C =", num.C.tolist())
print("D =", num.D.tolist())
H = num.transfer_function()
print("H(s) =", H.tolist())

s = sympy.Symbol("s")
# mesh analysis by hand gives v_C6/V7 = -R4 / (C6 s * det(Z)) with mesh impedances
# Z = [[L1 s + R4 + R5, -R4], [-R4, R3 + R4 + L2 s + 1/(C6 s)]]
Z = sympy.Matrix([[2 * s + 5, -2], [-2, 3 + s + 1 / (s / 2)]])
assert sympy.simplify(H[0, 0] - (-2) / (s / 2 * Z.det())) == 0
assert H[0, 0].subs(s, 0) == sympy.Rational(-2, 5)          # DC gain -R4/(R4 + R5)

poles = np.roots([float(c) for c in sympy.Poly(sympy.denom(H[0, 0]), s).all_coeffs()])
print("poles:", np.round(np.sort_complex(poles), 4))
t_end = 12 / min(-poles.real)                          # twelve of the slowest time constant
res = net.simulate((0, t_end), t_eval=np.linspace(0, t_end, 7))
print(f"\n{'t':>8} {'v_C6':>10} {'i_L1':>10} {'i_L2':>10}")
for k, time in enumerate(res.t):
    print(f"{time:8.3f} {res['C6.across'][k]:10.6f} {res['L1.through'][k]:10.6f} "
          f"{res['L2.through'][k]:10.6f}")
assert abs(res["C6.across"][-1] - (-0.4)) < 1e-4
assert abs(res["L1.through"][-1] - (-0.2)) < 1e-4
assert abs(res["L2.through"][-1]) < 1e-4

# Tellegen: the power into all the elements adds up to zero at every instant
edges = net.topology().edges
power = sum(res[f"{e}.across"] * res[f"{e}.through"] for e in edges)
assert np.abs(power).max() < 1e-9

if args.plot:
    import matplotlib
    matplotlib.use("Agg")
    dense = net.simulate((0, t_end))
    ax = dense.plot(["C6.across", "L1.through", "L2.through"])
    ax.figure.savefig(args.plot)
    print(f"plot saved to {args.plot}")
