"""Slider-crank: a motor drives the crank against a load on the slider.

A crank of length r, with a flywheel, turns about a pin O at the origin; a connecting rod of
length L joins the crank pin A to a pin B on the slider, which moves along
the ground's x axis (a prismatic joint S). Gravity acts in -y. The
mechanism has one degree of freedom; the slider position follows from the
crank angle theta alone:

    x_B = r cos(theta) + sqrt(L^2 - r^2 sin(theta)^2).

1. Forward dynamics. A motor with a straight torque-speed line,
   T = T0 (1 - omega/omega0), turns the crank from rest at the head-end dead
   centre (theta = 0); a constant force F pushes the slider towards the
   crank. The script prints the slider position over time and checks it
   against the formula above, and checks the work-energy balance
   E(t) - E(0) = integral of T omega dt - F (x(t) - x(0)).
2. Inverse dynamics. The crank is driven at a constant speed omega by
   mech.drive (a prescribed joint angle omega t); eom.inverse_dynamics finds
   the driver torque D.effort. Its power balances the rate of change of the
   energy plus the power taken by the load, and at the dead centre, where the
   rod is horizontal, it is just the torque that holds up the crank and half
   of the rod: g r (m_crank + m_rod)/2 (and minus that at the other dead centre).

Run with ``python examples/slider_crank.py [--plot out.png]``.
"""

import argparse
import math

import numpy as np
from scipy.integrate import cumulative_simpson

import vecnet as vn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--plot", metavar="PNG",
                    help="save a plot of the slider position and the driver effort")
args = parser.parse_args()

r, L = 0.1, 0.4                       # crank and rod lengths, m
m_crank, m_rod, m_slider = 0.5, 1.0, 2.0
J_crank = 0.02                        # the crank carries a flywheel, kg m^2
g, F = 9.81, 5.0                      # gravity, m/s^2; load on the slider, N
T0, omega0 = 2.0, 40.0                # stall torque N m, no-load speed rad/s


def slider_crank(theta=0.0):
    """The mechanism with the crank at angle theta (bodies placed in the assembled pose)."""
    mech = vn.planar.Mechanism("slider-crank", gravity=(0, -g))
    A = np.array([r * math.cos(theta), r * math.sin(theta)])
    B = np.array([A[0] + math.sqrt(L**2 - A[1] ** 2), 0.0])
    crank = mech.body("crank", mass=m_crank, inertia=J_crank, position=A / 2,
                      angle=theta)
    rod = mech.body("rod", mass=m_rod, inertia=m_rod * L**2 / 12, position=(A + B) / 2,
                    angle=math.atan2(B[1] - A[1], B[0] - A[0]))
    slider = mech.body("slider", mass=m_slider, inertia=0.01, position=B)
    mech.revolute("O", mech.ground.point(0, 0), crank.point(-r / 2, 0))
    mech.revolute("A", crank.point(r / 2, 0), rod.point(-L / 2, 0))
    mech.revolute("B", rod.point(L / 2, 0), slider.centre)
    mech.prismatic("S", mech.ground.point(0, 0), slider.centre)          # along the x axis
    mech.force("load", slider.centre, (-F, 0.0))
    return mech, crank


def slider_position(theta):
    return r * np.cos(theta) + np.sqrt(L**2 - (r * np.sin(theta)) ** 2)


# 1. forward dynamics under a motor torque
mech, crank = slider_crank()
omega = mech.quantity("crank.omega")
mech.torque("motor", crank, T0 * (1 - omega / omega0))
eom = mech.formulate(coordinates="joint")
print(eom)
print("constraints (the cut slider):", eom.constraint_names)
assert eom.degrees_of_freedom() == 1

t_end = 2.0
res = eom.simulate(t_end, t_eval=np.linspace(0, t_end, 2001))
print("\n   t [s]   crank angle [rev]   slider x [m]   slider v [m/s]")
for i in range(0, len(res.t), 200):
    print(f"  {res.t[i]:6.2f}   {res['crank.angle'][i] / (2 * math.pi):17.4f}"
          f"   {res['slider.x'][i]:12.6f}   {res['slider.vx'][i]:+14.6f}")
x = res["slider.x"]
assert np.abs(x - slider_position(res["crank.angle"])).max() < 1e-9
assert np.abs(res["slider.y"]).max() < 1e-12                 # it stays on its guide
assert x.min() > L - r - 1e-9 and x.max() < L + r + 1e-9     # stroke 2 r
# work-energy balance
motor_power = T0 * (1 - res["crank.omega"] / omega0) * res["crank.omega"]
work = cumulative_simpson(motor_power, x=res.t, initial=0) - F * (x - x[0])
balance = np.abs(res["energy"] - res["energy"][0] - work).max()
print(f"crank speed at t = {t_end:g} s: {res['crank.omega'][-1]:.3f} rad/s "
      f"(motor no-load speed {omega0:g} rad/s)")
print(f"work done on the mechanism by t = {t_end:g} s: {work[-1]:.4f} J; largest error in the "
      f"work-energy balance {balance:.1e} J (the quadrature's)")
assert balance < 1e-5 * np.abs(work).max()

# 2. inverse dynamics: the crank driven at a constant speed
speed = 2 * math.pi                   # one revolution per second
mech2, _ = slider_crank()
mech2.drive("D", "O", speed * vn.t)
eom2 = mech2.formulate(coordinates="joint")
print("\n" + repr(eom2))
times = np.linspace(0, 1, 401)
inv = eom2.inverse_dynamics(times)
print("\n   t [s]   slider x [m]   driver torque D.effort [N m]")
for i in range(0, len(times), 50):
    print(f"  {times[i]:6.3f}   {inv['slider.x'][i]:12.6f}   {inv['D.effort'][i]:+12.6f}")
effort = inv["D.effort"]
assert np.allclose(inv["crank.angle"], speed * times)
assert np.allclose(inv["crank.omega"], speed)
hold = g * r * (m_crank + m_rod) / 2
assert abs(effort[0] - hold) < 1e-9                         # at the dead centre
assert abs(effort[200] + hold) < 1e-9                      # the crank-end dead centre, t = 0.5 s
# work-energy balance: the work of the driver and the load is the change in energy
work = cumulative_simpson(effort * speed - F * inv["slider.vx"], x=times, initial=0)
mismatch = np.abs(inv["energy"] - inv["energy"][0] - work)
print(f"largest error in the work-energy balance: {mismatch.max():.1e} J "
      f"(peak driver power {np.abs(effort * speed).max():.2f} W)")
assert mismatch.max() < 1e-5
# over a full revolution the mechanism comes back and the load's work, -F (x(1) - x(0)), is 0
print(f"driver work over one revolution: {cumulative_simpson(effort * speed, x=times)[-1]:.1e} J")
assert abs(work[-1]) < 1e-6

if args.plot:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1)
    top.plot(res.t, x)
    top.set_xlabel("t [s]")
    top.set_ylabel("slider x [m] (motor)")
    bottom.plot(times, effort)
    bottom.set_xlabel("t [s]")
    bottom.set_ylabel("D.effort [N m] (driven)")
    fig.tight_layout()
    fig.savefig(args.plot)
    print(f"plot saved to {args.plot}")
