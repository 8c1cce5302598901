"""A voltage source drives a DC motor, a flexible shaft and a pump feeding a pipe.

Electrical: source V, armature resistance R and inductance L, motor
constant K. Rotational: the motor turns one end of a torsion shaft of
stiffness k, whose other end turns a positive-displacement pump of
displacement D. Fluid: the pump delivers Q = D w into a pipe of resistance Rp.
The three domains form three graph components joined by the two transducers.

Neither the motor nor the pump has inertia, so the motor current is fixed by
the shaft torque (i = T/K) and the inductor is a dependent energy store: the
normal tree takes it as a branch and the system has ONE state, the shaft
torque T (Rowell & Wormley). By hand, with w1 the motor and w2 the pump speed,

    V = R i + L di/dt + K w1,   i = T/K,   T = D P = D^2 Rp w2,   dT/dt = k (w1 - w2)

so (1 + k L/K^2) dT/dt = k (V/K - (R/K^2 + 1/(D^2 Rp)) T), and at steady
state T = (V/K) / (R/K^2 + 1/(D^2 Rp)).

The shaft is drawn from the pump end to the motor end, so its through
variable is the torque it transmits from the motor to the pump. The step
response is computed from the linear model exported to python-control
(ss.to_control()).

Run with ``python examples/motor_shaft_pump.py [--plot out.png]``.
"""

import argparse

import control
import numpy as np
import sympy

import vecnet as vn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--plot", metavar="PNG", help="save a plot of the response")
args = parser.parse_args()

V, R, L, K = 24.0, 0.5, 2e-3, 0.05     # V, ohm, H, N m/A
k, D, Rp = 50.0, 1e-6, 5e9             # N m/rad, m^3/rad, Pa s/m^3

net = vn.Network("motor, shaft and pump")
net.add(
    vn.VoltageSource("Vs", "g", "a", V=V),
    vn.Resistor("R", "b", "a", R=R),
    vn.Inductor("L", "c", "b", L=L),
    vn.DCMotor("motor", "ref", "w1", "g", "c", K=K),   # rotor w1; armature current in at c
    vn.TorsionSpring("shaft", "w2", "w1", k=k),
    vn.Pump("pump", "ref", "w2", "p0", "p1", D=D),     # shaft w2; delivers flow into p1
    vn.FluidResistance("pipe", "p0", "p1", R=Rp),
)
topo = net.topology(tree="normal")
print(f"{len(topo.components)} components, branches {topo.branches}, chords {topo.chords}")
ss = net.state_space(outputs=["shaft.through", "L.through", "pump.m.across", "pipe.through"],
                     symbolic=True)
print(ss.diagnosis())
print("\nstate equation:")
(eq,) = ss.state_equations()
print(f"  {eq.lhs} = {eq.rhs}")

sym = {name: net.element(e).symbol(p) for name, e, p in [
    ("V", "Vs", "V"), ("R", "R", "R"), ("L", "L", "L"), ("K", "motor", "K"),
    ("k", "shaft", "k"), ("D", "pump", "D"), ("Rp", "pipe", "R")]}
T = ss.x[0]
Vv, Rv, Lv, Kv, kv, Dv, Rpv = sym.values()
by_hand = kv * (Vv / Kv - (Rv / Kv**2 + 1 / (Dv**2 * Rpv)) * T) / (1 + kv * Lv / Kv**2)
assert ss.states == ("shaft.through",)
assert sympy.simplify(ss.f[0] - by_hand) == 0

H = ss.transfer_function()
print("\nT / V =", sympy.factor(H[0, 0]))
num = ss.subs()
print("A =", num.A.tolist(), " B =", num.B.tolist())
print("C =", num.C.tolist(), " D =", num.D.tolist())

T_ss = (V / K) / (R / K**2 + 1 / (D**2 * Rp))
tau = (1 + k * L / K**2) / (k * (R / K**2 + 1 / (D**2 * Rp)))
print(f"by hand: T_ss = {T_ss:.6g} N m, time constant {tau * 1e3:.6g} ms")
assert abs(float(num.A[0, 0]) + 1 / tau) < 1e-9 / tau

sys = ss.to_control()
times = np.linspace(0, 10 * tau, 501)
resp = control.forced_response(sys, T=times, U=V * np.ones_like(times))
torque, current, speed, flow = resp.outputs
print(f"\n{'t [ms]':>7} {'T [N m]':>9} {'i [A]':>8} {'w [rad/s]':>10} {'Q [L/min]':>10}")
for j in range(0, len(times), 50):
    print(f"{times[j] * 1e3:7.2f} {torque[j]:9.5f} {current[j]:8.4f} {speed[j]:10.4f} "
          f"{flow[j] * 6e4:10.4f}")
assert np.allclose(torque, T_ss * (1 - np.exp(-times / tau)), atol=1e-9)
assert abs(current[-1] - T_ss / K) < 0.01 * T_ss / K
P_el, P_R, P_hyd = V * current[-1], R * current[-1]**2, Rp * flow[-1]**2
print(f"near steady state: pump pressure {flow[-1] * Rp / 1e5:.3f} bar; power from the source "
      f"{P_el:.2f} W = {P_R:.2f} W in R + {P_hyd:.2f} W into the pipe")
assert abs(P_el - P_R - P_hyd) < 1e-3 * P_el        # lossless motor, shaft and pump

if args.plot:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    ax.plot(times * 1e3, torque, label="shaft.through [N m]")
    ax.set_xlabel("t [ms]")
    ax.legend()
    fig.savefig(args.plot)
    print(f"plot saved to {args.plot}")
