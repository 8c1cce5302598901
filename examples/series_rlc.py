"""Series RLC circuit driven by a voltage step: the capacitor voltage.

A 1 V source charges a capacitor through a resistor and an inductor in
series. The state variables are the inductor current and the capacitor
voltage; the transfer function from the source to the capacitor voltage is
1/(LCs^2 + RCs + 1), with natural frequency 1/sqrt(LC) and damping ratio
zeta = (R/2) sqrt(C/L). The step response overshoots by
exp(-pi zeta / sqrt(1 - zeta^2)) and settles at 1 V.

Edges point from the low to the high end of the assumed current path
(g -> a -> b -> c -> g), so with the passive sign convention the inductor
current is positive when current flows from the source through R and L into
the capacitor.

Run with ``python examples/series_rlc.py [--plot out.png]``.
"""

import argparse
import math

import numpy as np
import sympy

import vecnet as vn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--plot", metavar="PNG", help="save a plot of the step response")
args = parser.parse_args()

R, L, C = 5.0, 1e-3, 10e-6          # ohm, henry, farad
net = vn.Network("series RLC")
net.add(
    vn.VoltageSource("Vs", "g", "a", V=1.0),     # a unit step, applied at t = 0
    vn.Resistor("R", "b", "a", R=R),
    vn.Inductor("L", "c", "b", L=L),
    vn.Capacitor("C", "g", "c", C=C),
)
ss = net.state_space(outputs=["C.across"], symbolic=True)   # in the symbols R, L, C
print(ss.diagnosis())
print("\nstate equations:")
for eq in ss.state_equations():
    print(f"  {eq.lhs} = {eq.rhs}")
print("\nA =", ss.A, "\nB =", ss.B, "\nC =", ss.C, "\nD =", ss.D)

s = sympy.Symbol("s")                       # the Laplace variable of transfer_function()
Rs, Ls, Cs = (vn.Symbol(n) for n in ("R", "L", "C"))   # the elements' own symbols
H = ss.transfer_function()[0, 0]
print("\nH(s) = v_C / V_s =", H)
assert sympy.simplify(H - 1 / (Ls * Cs * s**2 + Rs * Cs * s + 1)) == 0

wn = 1 / math.sqrt(L * C)
zeta = R / 2 * math.sqrt(C / L)
den = sympy.Poly(sympy.denom(H), s).all_coeffs()          # [LC, RC, 1]
zeta_tf = float((den[1] / (2 * sympy.sqrt(den[0] * den[2]))).subs({Rs: R, Ls: L, Cs: C}))
assert math.isclose(zeta, zeta_tf)
print(f"natural frequency wn = {wn:.6g} rad/s, damping ratio zeta = {zeta:.6g}")

t_end = 10 / (zeta * wn)                    # ten time constants of the envelope
res = net.simulate((0, t_end), t_eval=np.linspace(0, t_end, 4001))
v = res["C.across"]
k = int(np.argmax(v))
overshoot = math.exp(-math.pi * zeta / math.sqrt(1 - zeta**2))
t_peak = math.pi / (wn * math.sqrt(1 - zeta**2))
print(f"\nstep response: peak v_C = {v[k]:.6f} V at t = {res.t[k] * 1e3:.4f} ms "
      f"(theory {1 + overshoot:.6f} V at {t_peak * 1e3:.4f} ms)")
print(f"v_C(t_end = {t_end * 1e3:g} ms) = {v[-1]:.6f} V, i_L(t_end) = {res['L.through'][-1]:.2e} A")
assert abs(v[k] - (1 + overshoot)) < 1e-4
assert abs(res.t[k] - t_peak) < 2 * t_end / 4000
assert abs(v[-1] - 1.0) < 1e-3            # the capacitor charges to the source voltage

if args.plot:
    import matplotlib
    matplotlib.use("Agg")
    ax = res.plot(["C.across"])
    ax.set_ylabel("v_C [V]")
    ax.figure.savefig(args.plot)
    print(f"plot saved to {args.plot}")
