"""A pump, an orifice and a hydraulic cylinder lift a boom.

Mechanism (gravity in -y): a boom of length Lk and mass m_link is pinned to
the ground at O (the origin). A hydraulic cylinder pushes it up: the barrel
is pinned to the ground at B, the rod to the boom at E, a distance d from O,
and barrel and rod slide on each other in a prismatic joint S whose
coordinate s is the pin-to-pin length B-E. The barrel's mass centre is at its
pin B and the rod's at its pin E.

Fluid (pressures relative to the tank): a positive-displacement pump
(vn.Pump, displacement D) turned at a prescribed speed w(t) (an angular
velocity source) delivers the flow D w into the line p1, whose oil and hose
compliance is a fluid capacitance C. An orifice leads to the cylinder
chamber p2, with the laminar plus turbulent law

    p1 - p2 = R_l Q + k_t Q |Q|        (vn.NonlinearDissipator, across = f(through)),

and the piston (vn.Piston, area A) turns the chamber pressure into the force
A p2 on the rod. The piston's translational port is in parallel with a
vn.LinearPort on S, so the force acts along the cylinder and the flow into
the chamber is A s'.

The pump idles for 0.2 s, ramps up to w0, runs for 2 s, and ramps down;
the boom rises and comes to rest (the orifice damps it). The script prints
the boom angle rising and checks by hand:

* static equilibrium. The rod and barrel carry their weights at their pins,
  so the cylinder pushes along B-E only, and moments about O give
      A p2 (E x u) = g cos(phi) (m_link Lk/2 + m_rod d),   u the unit vector B -> E.
  Started with the line at this pressure, the boom stays put while the pump
  idles; at the end it rests at the pressure this formula gives for its new angle.
* conservation of oil volume: D * integral(w dt) = A (s - s0) + C (p1 - p1(0)).
* during the steady lift the cylinder extends at about D w0 / A.

Run with ``python examples/hydraulic_lift.py [--plot out.png]``.
"""

import argparse
import math

import numpy as np
import sympy

import vecnet as vn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--plot", metavar="PNG", help="save a plot of the boom angle and pressures")
args = parser.parse_args()

g = 9.81
Lk, m_link, phi0 = 1.2, 100.0, 0.1        # boom length m, mass kg, initial angle rad
d = 0.5                                   # rod pin E on the boom, from O, m
B = np.array([0.25, -0.35])               # barrel pin on the ground, m
m_barrel, m_rod = 4.0, 2.0                # kg
D, w0 = 2e-6, 100.0                       # pump m^3/rad, rad/s (12 L/min)
A = math.pi * 0.03**2                     # 60 mm bore, m^2
C = 2e-11                                 # line compliance, m^3/Pa
R_l, k_t = 2e9, 1e13                      # orifice: Pa s/m^3, Pa s^2/m^6


def cylinder_line(phi):
    """The rod pin E and the unit vector u from B to E with the boom at angle phi."""
    E = d * np.array([math.cos(phi), math.sin(phi)])
    return E, (E - B) / np.linalg.norm(E - B)


def equilibrium_pressure(phi):
    """The chamber pressure that holds the boom at angle phi (moments about O)."""
    E, u = cylinder_line(phi)
    arm = E[0] * u[1] - E[1] * u[0]       # moment arm of the cylinder force about O
    return g * math.cos(phi) * (m_link * Lk / 2 + m_rod * d) / (A * arm)


E0, u0 = cylinder_line(phi0)
along = math.atan2(u0[1], u0[0])          # the cylinder's direction
mech = vn.planar.Mechanism("boom lift", gravity=(0, -g))
boom = mech.body("boom", mass=m_link, inertia=m_link * Lk**2 / 12,
                 position=Lk / 2 * np.array([math.cos(phi0), math.sin(phi0)]), angle=phi0)
barrel = mech.body("barrel", mass=m_barrel, inertia=0.05, position=B, angle=along)
rod = mech.body("rod", mass=m_rod, inertia=0.03, position=E0, angle=along)
mech.revolute("O", mech.ground.point(0, 0), boom.point(-Lk / 2, 0))
mech.revolute("B", mech.ground.point(*B), barrel.centre)
mech.revolute("E", boom.point(d - Lk / 2, 0), rod.centre)
mech.prismatic("S", barrel.centre, rod.centre)          # along the barrel's x axis: B -> E


def ramp(t0, t1):
    """0 before t0, 1 after t1, linear in between (a sympy expression in vn.t)."""
    return sympy.Min(sympy.Max((vn.t - t0) / (t1 - t0), 0), 1)


speed = w0 * (ramp(0.2, 0.3) - ramp(2.3, 2.4))           # pump speed, rad/s
pumped = D * w0 * 2.1                                    # D * integral of w over the run

net = vn.Network("hydraulics")
net.add(
    vn.AngularVelocitySource("drive", "ref", "w", w=speed),
    vn.Pump("pump", "ref", "w", "tank", "p1", D=D),       # delivers D w into p1
    vn.FluidCapacitance("C", "tank", "p1", C=C),           # C.across = p1
    # through = the flow from p1 to p2 (head to tail), across = p1 - p2
    vn.NonlinearDissipator("orifice", "p2", "p1", domain="fluid",
                           across=lambda Q: R_l * Q + k_t * Q * sympy.Abs(Q)),
    # port f from the chamber to the tank: the piston draws A v out of p2; cyl.f.across = -p2
    vn.Piston("cyl", "ref", "x", "p2", "tank", A=A),
    vn.LinearPort("ram", "ref", "x", joint="S"),           # ram.through = A p2, along S
)
model = vn.System(mech, net).formulate()
print(model.eom)
print(model.lumped.diagnosis())

P0 = equilibrium_pressure(phi0)
print(f"\nholding pressure at phi = {phi0} rad, by hand: {P0 / 1e5:.4f} bar")
t_end = 4.0
ts = np.linspace(0, t_end, 2001)
res = model.simulate(t_end, t_eval=ts, initial={"C.across": P0})

phi, s = res["O.angle"], res["S.distance"]
p1, p2 = res["C.across"], -res["cyl.f.across"]
Q = res["orifice.through"]
print(f"\n{'t [s]':>5} {'pump [rad/s]':>12} {'boom [deg]':>10} {'s [m]':>9} {'p1 [bar]':>9} "
      f"{'p2 [bar]':>9} {'Q [L/min]':>9}")
for k in range(0, len(ts), 100):
    print(f"{ts[k]:5.2f} {res['drive.across'][k]:12.2f} {math.degrees(phi[k]):10.4f} {s[k]:9.5f} "
          f"{p1[k] / 1e5:9.4f} {p2[k] / 1e5:9.4f} {Q[k] * 6e4:9.4f}")

# the orifice and the piston as oriented above
assert np.allclose(p1 - p2, R_l * Q + k_t * Q * np.abs(Q), rtol=0, atol=1e-3)
assert np.allclose(res["ram.through"], A * p2, rtol=0, atol=1e-6)

# 1. while the pump idles, the hand-calculated pressure holds the boom still
idle = ts <= 0.2
print(f"\nwhile the pump idles: boom moves by {np.abs(phi[idle] - phi0).max():.1e} rad")
assert np.abs(phi[idle] - phi0).max() < 1e-9

# 2. the volume pumped is in the cylinder or compressed into the line
E_now = d * np.column_stack([np.cos(phi), np.sin(phi)])
assert np.allclose(s, np.linalg.norm(E_now - B, axis=1))       # s is the pin distance B-E
volume = A * (s - s[0]) + C * (p1 - p1[0])
print(f"oil pumped {pumped * 1e3:.4f} L = in the cylinder {A * (s[-1] - s[0]) * 1e3:.4f} L "
      f"+ compressed {C * (p1[-1] - p1[0]) * 1e3:.2e} L")
assert abs(volume[-1] - pumped) < 1e-8 * pumped     # to the integration tolerance

# 3. the steady lift: extension rate close to D w0 / A
mid = (ts > 1.0) & (ts < 2.2)
rate = np.gradient(s, ts)[mid]
print(f"extension rate during the lift {rate.min():.5f} .. {rate.max():.5f} m/s "
      f"(D w0 / A = {D * w0 / A:.5f} m/s)")
assert np.all(np.abs(rate - D * w0 / A) < 0.01 * D * w0 / A)

# 4. at rest again, the chamber pressure is the static one for the new angle
P_end = equilibrium_pressure(phi[-1])
print(f"at rest: boom at {math.degrees(phi[-1]):.4f} deg "
      f"(started at {math.degrees(phi0):.4f} deg), "
      f"p2 = {p2[-1] / 1e5:.6f} bar, by hand {P_end / 1e5:.6f} bar")
assert phi[-1] > phi0 + 0.3                                       # it rose
assert abs(res["O.angle'"][-1]) < 1e-8
assert abs(p2[-1] - P_end) < 1e-6 * P_end
assert abs(p1[-1] - p2[-1]) < 1e-6 * P_end                        # no flow, no drop

if args.plot:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, sharex=True)
    top.plot(ts, np.degrees(phi))
    top.set_ylabel("boom angle [deg]")
    bottom.plot(ts, p1 / 1e5, label="p1 (pump line)")
    bottom.plot(ts, p2 / 1e5, label="p2 (cylinder)")
    bottom.set_ylabel("pressure [bar]")
    bottom.set_xlabel("t [s]")
    bottom.legend()
    fig.tight_layout()
    fig.savefig(args.plot)
    print(f"plot saved to {args.plot}")
