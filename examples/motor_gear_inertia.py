"""DC motor driving a load inertia through a reduction gear, with bearing friction.

Armature: source V, resistance R, inductance L, motor constant K (back-emf
K w_m, torque K i). The rotor (inertia Jm) drives a gear pair with speed
ratio N (w_load = N w_m; N = 0.1 is a 10:1 reduction); the load inertia J
turns in bearings with viscous friction b.

The rigid gear ties the rotor speed to the load speed, so the rotor inertia
is a dependent energy store: the normal tree keeps J and one gear edge, the
rotor inertia goes to the cotree and appears reflected to the load side as
J + Jm/N^2. Two states remain, the armature current and the load speed, and

    w_load / V = (K/N) / ((L s + R)((J + Jm/N^2) s + b) + K^2/N^2)

(Rowell & Wormley's K/((Ls+R)(Js+b)+K^2) with the gear folded in). At steady
state V = R i + K w_load/N and K i/N = b w_load. The step response is
computed from the linear model exported to python-control (ss.to_control()).

Run with ``python examples/motor_gear_inertia.py [--plot out.png]``.
"""

import argparse

import control
import numpy as np
import sympy

import vecnet as vn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--plot", metavar="PNG", help="save a plot of the response")
args = parser.parse_args()

V, R, L, K = 24.0, 1.0, 5e-3, 0.05       # V, ohm, H, N m/A (= V s/rad)
Jm, N, J, b = 1e-5, 0.1, 0.01, 1e-3      # kg m^2, -, kg m^2, N m s/rad

net = vn.Network("motor, gear and load")
net.add(
    vn.VoltageSource("Vs", "g", "a", V=V),
    vn.Resistor("R", "b", "a", R=R),
    vn.Inductor("L", "c", "b", L=L),
    # port m: stator (ref) -> rotor (w1); port e: armature, current in at c, out at g
    vn.DCMotor("motor", "ref", "w1", "g", "c", K=K),
    vn.Inertia("Jm", "ref", "w1", J=Jm),
    vn.GearPair("gear", "ref", "w1", "ref", "w2", N=N),
    vn.Inertia("J", "ref", "w2", J=J),
    vn.RotaryDamper("bearing", "ref", "w2", b=b),
)
ss = net.state_space(outputs=["J.across", "L.through", "motor.m.across"], symbolic=True)
print(ss.diagnosis())
print("\nstate equations:")
for eq in ss.state_equations():
    print(f"  {eq.lhs} = {eq.rhs}")

s = sympy.Symbol("s")
# the parameters' symbols, as the elements name them
Ks, Ls, Rs, Ns, Js, Jms, bs = (net.element(e).symbol(p) for e, p in [
    ("motor", "K"), ("L", "L"), ("R", "R"), ("gear", "N"), ("J", "J"), ("Jm", "J"),
    ("bearing", "b")])
H = ss.transfer_function()
print("\nw_load / V =", sympy.factor(H[0, 0]))
J_eff = Js + Jms / Ns**2
expected = (Ks / Ns) / ((Ls * s + Rs) * (J_eff * s + bs) + Ks**2 / Ns**2)
assert sympy.simplify(H[0, 0] - expected) == 0

num = ss.subs()
print("A =", num.A.tolist())
print("B =", num.B.tolist())
print("C =", num.C.tolist())
print("D =", num.D.tolist())
poles = np.linalg.eigvals(np.array(num.A.tolist(), dtype=float))
print("poles:", np.round(np.sort(poles), 3), "1/s")

w_ss = V / (R * b * N / K + K / N)              # hand steady state of the load speed
i_ss = b * w_ss * N / K

# step response of the linear model, integrated by python-control
sys = ss.to_control()
times = np.linspace(0, 0.5, 501)
resp = control.forced_response(sys, T=times, U=V * np.ones_like(times))
w_load, i_arm, w_motor = resp.outputs
print(f"\n{'t [s]':>6} {'w_load':>10} {'w_motor':>10} {'i [A]':>9}")
for k in range(0, len(times), 100):
    print(f"{times[k]:6.2f} {w_load[k]:10.4f} {w_motor[k]:10.3f} {i_arm[k]:9.4f}")
print(f"steady state by hand: w_load = {w_ss:.4f} rad/s, w_motor = {w_ss / N:.3f} rad/s, "
      f"i = {i_ss:.4f} A")
print(f"peak current {i_arm.max():.3f} A (stall current V/R = {V / R:g} A)")
assert abs(w_load[-1] - w_ss) < 1e-3 * w_ss
assert abs(i_arm[-1] - i_ss) < 1e-3 * i_ss
assert np.allclose(w_motor, w_load / N)                     # the rigid gear
assert np.allclose(control.dcgain(sys).ravel() * V, [w_ss, i_ss, w_ss / N])

if args.plot:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    ax.plot(times, w_load, label="J.across (load speed)")
    ax.plot(times, i_arm, label="L.through (current)")
    ax.set_xlabel("t [s]")
    ax.legend()
    fig.savefig(args.plot)
    print(f"plot saved to {args.plot}")
