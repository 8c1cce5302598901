"""PD position control of a pendulum driven by a DC motor.

A pendulum (mass m, inertia Jc about its mass centre, mass centre a
distance l below the pivot) hangs from a revolute joint O; the joint carries
a vn.RotaryPort driven directly by a DC motor (armature R, L, motor constant
K). A PD controller (vn.PID with ki = 0 and a derivative filter tf) sets the
armature voltage from the error e = theta_ref - theta after a step in the
reference angle theta_ref.

Without integral action gravity leaves a steady-state offset. At rest there
is no back-emf and no inductor voltage, so i = V/R = kp e / R and the motor
torque K i holds the pendulum:

    K_total e = m g l sin(theta_ref - e),    K_total = K kp / R,

solved here for e with a scalar root finder and compared with the simulation.

The linearized open loop (the armature shorted: V = 0, pendulum hanging)
comes from vn.System(...).formulate().linearize().eigenvalues() and is
compared with the eigenvalues of the hand-written model in (beta, beta', i):

    Jp beta'' = K i - m g l beta,   L i' = -R i - K beta',   Jp = Jc + m l^2.

The closed loop is linearized about the offset equilibrium too (a PD has no
integral state; the operating point is handed to linearize() explicitly) and
compared with the hand-written model in (beta, beta', i, f).

The derivative filter state starts at the initial error, so the step does
not kick the voltage through the derivative term.

Run with ``python examples/motor_pendulum_pd.py [--plot out.png]``.
"""

import argparse
import math

import numpy as np
from scipy.optimize import brentq

import vecnet as vn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--plot", metavar="PNG", help="save a plot of the step response")
args = parser.parse_args()

R, L, K = 2.0, 0.05, 0.4                 # ohm, H, N m/A
m, l, Jc, g = 0.5, 0.3, 0.004, 9.81      # kg, m, kg m^2, m/s^2
kp, kd, tf = 40.0, 3.0, 0.01             # V/rad, V s/rad, s
theta_ref = 0.6                          # rad, a step at t = 0
Jp = Jc + m * l**2                       # inertia about the pivot


def motor_pendulum(voltage):
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -g))
    bob = mech.body("bob", mass=m, inertia=Jc, position=(0, -l))
    mech.revolute("O", mech.ground.point(0, 0), bob.point(0, l))   # O.angle = 0 hanging
    net = vn.Network("motor")
    net.add(vn.VoltageSource("V", "g", "a", V=voltage),
            vn.Resistor("R", "b", "a", R=R),                     # edges against the current,
            vn.Inductor("L", "c", "b", L=L),                     # so L.through is the current
            vn.DCMotor("motor", "ref", "w", "g", "c", K=K),
            vn.RotaryPort("shaft", "ref", "w", joint="O"))
    return mech, net


# open loop: armature shorted (V = 0), linearized about the hanging pendulum
mech, net = motor_pendulum(0.0)
open_loop = vn.System(mech, net).formulate().linearize()
A_hand = np.array([[0, 1, 0], [-m * g * l / Jp, 0, K / Jp], [0, -K / L, -R / L]])
ev, ev_hand = open_loop.eigenvalues(), np.sort_complex(np.linalg.eigvals(A_hand))
print("open loop, states", open_loop.states)
print("  eigenvalues (vecnet):", np.round(ev, 6))
print("  eigenvalues (hand):  ", np.round(ev_hand, 6))
assert np.allclose(np.sort_complex(ev), ev_hand, rtol=1e-6, atol=1e-6)

# closed loop: V = PD(theta_ref - theta)
mech, net = motor_pendulum(vn.Symbol("u"))       # the source's value is set by `connect`
theta = vn.System(mech, net).sensor("O.angle")
pd = vn.PID("pd", theta_ref - theta, kp=kp, ki=0.0, kd=kd, tf=tf)
closed = vn.System(mech, net, blocks=[pd], connect={"V.across": pd.output}).formulate()
print("\nclosed loop, states", closed.states)
t_end = 4.0
ts = np.linspace(0, t_end, 401)
res = closed.simulate(t_end, t_eval=ts, initial={"pd.filter": theta_ref})   # no derivative kick
print(f"\n{'t [s]':>5} {'theta [rad]':>11} {'error [rad]':>11} {'V [V]':>8} {'i [A]':>8}")
for k in list(range(0, 41, 5)) + list(range(50, len(ts), 50)):
    print(f"{ts[k]:5.2f} {res['O.angle'][k]:11.6f} {theta_ref - res['O.angle'][k]:11.6f} "
          f"{res['pd'][k]:8.4f} {res['L.through'][k]:8.4f}")

# steady-state offset by hand
K_total = K * kp / R
e_hand = brentq(lambda e: K_total * e - m * g * l * math.sin(theta_ref - e), 0.0, theta_ref)
e_sim = theta_ref - res["O.angle"][-1]
print(f"\nsteady-state error: simulated {e_sim:.8f} rad, by hand {e_hand:.8f} rad "
      f"(K_total = K kp / R = {K_total:g} N m/rad; without gravity's sine, "
      f"m g l sin(theta_ref) / K_total = {m * g * l * math.sin(theta_ref) / K_total:.6f} rad)")
assert abs(e_sim - e_hand) < 1e-6
assert abs(res["O.angle'"][-1]) < 1e-6
i_ss = kp * e_hand / R
assert abs(res["L.through"][-1] - i_ss) < 1e-5                # no back-emf at rest
assert abs(K * res["L.through"][-1] - res["shaft.through"][-1]) < 1e-9
overshoot = res["O.angle"].max() - res["O.angle"][-1]
print(f"peak angle {res['O.angle'].max():.4f} rad, "
      f"overshoot {overshoot:.4f} rad past the final value")

# linearized closed loop about the offset equilibrium (operating point given explicitly)
theta_ss = theta_ref - e_hand
q_ss = closed.eom.assemble({"O.angle": theta_ss})
s_ss = np.zeros(len(closed.states))
s_ss[closed.states.index("L.through")] = i_ss
s_ss[closed.states.index("pd.filter")] = e_hand               # the filter follows e at rest
loop = closed.linearize(point=(q_ss, s_ss))
# by hand, deviations (beta, beta', i, f), e = -beta
A_cl = np.array([
    [0, 1, 0, 0],
    [-m * g * l * math.cos(theta_ss) / Jp, 0, K / Jp, 0],
    [(-kp - kd / tf) / L, -K / L, -R / L, -kd / (tf * L)],   # V = kp e + kd (e - f) / tf
    [-1 / tf, 0, 0, -1 / tf]])
cl, cl_hand = loop.eigenvalues(), np.sort_complex(np.linalg.eigvals(A_cl))
print("closed loop about theta =", round(theta_ss, 6), "rad, states", loop.states)
print("  eigenvalues (vecnet):", np.round(cl, 4))
print("  eigenvalues (hand):  ", np.round(cl_hand, 4))
assert np.allclose(np.sort_complex(cl), cl_hand, rtol=1e-5, atol=1e-5)
assert np.all(cl.real < 0)                                         # stable

if args.plot:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, sharex=True)
    top.plot(ts, res["O.angle"], label="theta")
    top.axhline(theta_ref, ls="--", color="k", label="reference")
    top.axhline(theta_ref - e_hand, ls=":", color="r", label="hand steady state")
    top.set_ylabel("angle [rad]")
    top.legend()
    bottom.plot(ts, res["pd"], label="V [V]")
    bottom.plot(ts, res["L.through"], label="i [A]")
    bottom.set_xlabel("t [s]")
    bottom.legend()
    fig.tight_layout()
    fig.savefig(args.plot)
    print(f"plot saved to {args.plot}")
