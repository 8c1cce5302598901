"""A DC motor and a reduction gear drive the crank of a slider-crank.

Electrical: a voltage step V across the armature, resistance R, inductance L,
motor constant K (back-emf K w_m, torque K i). Rotational: viscous bearing
friction b on the motor shaft, then a gear pair with speed ratio N
(w_crank = N w_m; N = 0.1 is a 10:1 reduction) whose output shaft is a
vn.RotaryPort on the crank's revolute joint O. Mechanism: a crank of length r
(with a flywheel) turning about O at the origin, a connecting rod of length l
and a slider on a prismatic joint S along the ground's x axis, with viscous
friction c on the slide; gravity acts in -y.

The motor's rotor inertia Jm sits in the lumped network, on the motor shaft:
the port fixes the gear's output speed, so the rotor turns rigidly with the
crank and vn.System makes it a rotor of joint O, its inertia reflected into
the mechanism's mass matrix as Jm / N^2. The network still reports the
rotor's speed and torque.

The motor starts the mechanism from rest at the head-end dead centre. The
script prints crank speed, slider position and motor current, and checks

* kinematics: the slider follows x = r cos(theta) + sqrt(l^2 - r^2 sin(theta)^2);
* the reflected rotor: the same drive with Jm folded into the crank by hand
  (crank inertia J_crank + Jm / N^2, no rotor in the network) turns alike;
* the ideal gear and motor: w_m = w_crank / N, back-emf = K w_m, and the shaft
  torque on the crank (K i - b w_m - Jm w_m') / N;
* the start of the step: before the crank moves, i = (V/R)(1 - exp(-R t/L));
* the energy balance across the three domains,

      integral V i dt = [E_mech + L i^2 / 2]_0^t + integral (R i^2 + b w_m^2 + c v^2) dt,

  to 1e-6 relative (E_mech: kinetic plus gravitational energy).

Run with ``python examples/motor_slider_crank.py [--plot out.png]``.
"""

import argparse
import math

import numpy as np
from scipy.integrate import simpson

import vecnet as vn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--plot", metavar="PNG", help="save a plot of speed, position and current")
args = parser.parse_args()

V, R, L, K = 12.0, 1.0, 2e-3, 0.05        # V, ohm, H, N m/A (= V s/rad)
Jm, b, N = 2e-5, 1e-4, 0.1                # rotor kg m^2, bearing N m s/rad, gear ratio
r, l = 0.1, 0.4                           # crank and rod lengths, m
m_crank, m_rod, m_slider = 0.5, 1.0, 2.0  # kg
J_crank = 0.01                            # crank with flywheel about its centre, kg m^2
c, g = 5.0, 9.81                          # slide friction N s/m, gravity m/s^2



def drive(crank_inertia, rotor):
    """The slider-crank and the motor, with or without the rotor in the network."""
    mech = vn.planar.Mechanism("slider-crank", gravity=(0, -g))
    # the crank lies along +x at the start (head-end dead centre):
    # O at 0, crank pin at r, slider at r + l
    crank = mech.body("crank", mass=m_crank, inertia=crank_inertia, position=(r / 2, 0))
    rod = mech.body("rod", mass=m_rod, inertia=m_rod * l**2 / 12, position=(r + l / 2, 0))
    slider = mech.body("slider", mass=m_slider, inertia=0.01, position=(r + l, 0))
    mech.revolute("O", mech.ground.point(0, 0), crank.point(-r / 2, 0))
    mech.revolute("A", crank.point(r / 2, 0), rod.point(-l / 2, 0))
    mech.revolute("B", rod.point(l / 2, 0), slider.centre)
    mech.prismatic("S", mech.ground.point(0, 0), slider.centre)          # along the x axis
    mech.damper("friction", mech.ground.point(0, 0), slider.centre, c=c)  # tension c d|x|/dt
    net = vn.Network("motor and gear")
    net.add(
        vn.VoltageSource("Vs", "g", "a", V=V),            # a step, applied at t = 0
        vn.Resistor("R", "b", "a", R=R),                  # edges against the current path, so
        vn.Inductor("L", "c", "b", L=L),                  # the armature current is positive
        vn.DCMotor("motor", "ref", "wm", "g", "c", K=K),  # stator -> rotor; armature g -> c
        vn.RotaryDamper("bearing", "ref", "wm", b=b),
        vn.GearPair("gear", "ref", "wm", "ref", "wc", N=N),
        vn.RotaryPort("shaft", "ref", "wc", joint="O"),   # torque across O: ground -> crank
    )
    if rotor:
        net.add(vn.Inertia("Jm", "ref", "wm", J=Jm))
    return vn.System(mech, net).formulate()


model = drive(J_crank, rotor=True)
print(model.eom)
print("lumped states:", model.states)
print(model.lumped.diagnosis())

t_end = 2.0
# dense samples over the electrical transient (L/R = 2 ms), for the quadratures below
ts = np.union1d(np.linspace(0, 0.02, 401), np.linspace(0, t_end, 4001))
res = model.simulate(t_end, t_eval=ts, rtol=1e-10, atol=1e-12)

theta, omega = res["O.angle"], res["O.angle'"]
x, vx = res["slider.x"], res["slider.vx"]
i = res["L.through"]
print(f"\n{'t [s]':>6} {'crank [rev]':>11} {'crank w [rad/s]':>15} {'slider x [m]':>12} "
      f"{'current [A]':>11}")
for tk in np.linspace(0, t_end, 11):
    k = int(np.argmin(np.abs(ts - tk)))
    print(f"{ts[k]:6.2f} {theta[k] / (2 * math.pi):11.4f} {omega[k]:15.4f} {x[k]:12.6f} "
          f"{i[k]:11.4f}")

# kinematics of the slider-crank
x_hand = r * np.cos(theta) + np.sqrt(l**2 - (r * np.sin(theta)) ** 2)
assert np.abs(x - x_hand).max() < 1e-9
assert np.abs(res["slider.y"]).max() < 1e-12
assert theta[-1] > 2 * 2 * math.pi                    # the crank made a few turns

# the ideal motor and gear
w_motor = res["motor.m.across"]
assert np.allclose(w_motor, omega / N, rtol=0, atol=1e-9)
assert np.allclose(res["motor.e.across"], K * w_motor, rtol=0, atol=1e-9)
rotor_torque = res["Jm.through"]
assert np.allclose(res["shaft.through"], (K * i - b * w_motor - rotor_torque) / N, rtol=0,
                   atol=1e-9)

# the rotor reflected by hand: Jm / N^2 folded into the crank, no rotor in the network
folded = drive(J_crank + Jm / N**2, rotor=False).simulate(t_end, t_eval=ts, rtol=1e-10,
                                                          atol=1e-12)
mismatch = np.abs(folded["O.angle"] - theta).max()
print(f"\nrotor in the network vs folded into the crank by hand: crank angles differ by "
      f"{mismatch:.1e} rad at most")
assert mismatch < 1e-7
# in the first instants the back-emf is negligible (the crank, starting to sag under gravity,
# turns at only ~2e-3 rad/s at t = 50 us; its back-emf shifts i by ~5e-5 relative): an R-L circuit
h = ts[1]
i_hand = V / R * (1 - math.exp(-R * h / L))
print(f"\ncurrent at t = {h * 1e6:g} us: {i[1]:.6f} A (R-L step by hand {i_hand:.6f} A)")
assert abs(i[1] - i_hand) < 2e-4 * i_hand
no_load = N * V / K
print(f"crank speed: mean over the last second {np.mean(omega[ts >= t_end - 1]):.3f} rad/s "
      f"(no-load speed of the drive N V / K = {no_load:g} rad/s)")

# energy balance over the three domains
supplied = -simpson(res["Vs.across"] * res["Vs.through"], x=ts)   # a tau: power into the source
assert np.allclose(-res["Vs.through"], i)                            # the source delivers i
resistive = simpson(R * i**2, x=ts)
assert np.allclose(res["R.across"] * res["R.through"], R * i**2)
bearing = simpson(b * w_motor**2, x=ts)
slide = simpson(c * vx**2, x=ts)
E = res["energy"]
magnetic = 0.5 * L * i**2
stored = (E[-1] - E[0]) + (magnetic[-1] - magnetic[0])
error = supplied - stored - resistive - bearing - slide
print(f"\nenergy over {t_end:g} s [J]: supplied {supplied:.6f} = stored {stored:.6f} "
      f"(mechanical {E[-1] - E[0]:.6f}, magnetic {magnetic[-1] - magnetic[0]:.6f})")
print(f"  + resistor {resistive:.6f} + bearing {bearing:.6f} + slide {slide:.6f}; "
      f"mismatch {error:.2e} ({abs(error) / supplied:.1e} relative)")
assert abs(error) < 1e-6 * supplied

if args.plot:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 1, sharex=True)
    for ax, y, label in zip(axes, (omega, x, i), ("crank w [rad/s]", "slider x [m]",
                                                    "current [A]")):
        ax.plot(ts, y)
        ax.set_ylabel(label)
    axes[-1].set_xlabel("t [s]")
    fig.tight_layout()
    fig.savefig(args.plot)
    print(f"plot saved to {args.plot}")
