"""Quarter-car suspension driven over a road bump (translational domain).

A sprung mass ms (a quarter of the body) rests on the suspension spring ks
and damper bs, which rest on the unsprung mass mu (wheel, hub), which rests
on the tyre spring kt; the road moves the bottom of the tyre with a
prescribed vertical velocity. Gravity acts on both masses as force sources.
Nodes: ground (the inertial reference), r (road contact), u (wheel), s (body).

Every mass is an edge from the ground to its node, springs and damper point
upwards (tyre r -> u, suspension u -> s), so a spring's through variable is
its tension: under the weights both springs are compressed, with static
forces F_tyre = -(ms + mu) g and F_ks = -ms g. The simulation starts in that
equilibrium, and the road lifts the wheel by h over a raised-cosine bump;
afterwards the car rests h higher with the same spring forces.

Run with ``python examples/quarter_car.py [--plot out.png]``.
"""

import argparse
import math

import numpy as np

import vecnet as vn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--plot", metavar="PNG", help="save a plot of the response")
args = parser.parse_args()

ms, mu = 300.0, 40.0            # kg
ks, bs, kt = 20e3, 1.5e3, 200e3  # N/m, N s/m, N/m
g = 9.81                        # m/s^2
h, T = 0.05, 0.2                # bump height (m) and rise time (s)


def road_velocity(time):
    """Vertical velocity of the road under the tyre: the derivative of a raised-cosine step."""
    if 0.0 < time < T:
        return h * math.pi / (2 * T) * math.sin(math.pi * time / T)
    return 0.0


net = vn.Network("quarter car")
net.add(
    vn.VelocitySource("road", "ground", "r", v=road_velocity),
    vn.Spring("tyre", "r", "u", k=kt),
    vn.Mass("mu", "ground", "u", m=mu),
    vn.Spring("ks", "u", "s", k=ks),
    vn.Damper("bs", "u", "s", b=bs),
    vn.Mass("ms", "ground", "s", m=ms),
    vn.ForceSource("Ws", "ground", "s", F=-ms * g),    # weights push their nodes down
    vn.ForceSource("Wu", "ground", "u", F=-mu * g),
)
ss = net.state_space(outputs=["ms.across", "ks.through", "tyre.through"])
print(ss.diagnosis())
print("\nstate equations:")
for eq in ss.state_equations():
    print(f"  {eq.lhs} = {eq.rhs}")
num = ss.subs()
print("\nstates", num.states, "\ninputs", num.inputs)
print("A =", num.A.tolist())
print("B =", num.B.tolist())

eig = np.linalg.eigvals(np.array(num.A.tolist(), dtype=float))
modes = sorted({(round(abs(l) / (2 * math.pi), 3), round(-l.real / abs(l), 3)) for l in eig})
for f, zeta in modes:
    print(f"mode: natural frequency {f} Hz, damping ratio {zeta}")
# the two modes sit near the decoupled estimates: body bounce on the series springs,
# wheel hop on both springs
body = math.sqrt(ks * kt / (ks + kt) / ms) / (2 * math.pi)
wheel = math.sqrt((ks + kt) / mu) / (2 * math.pi)
print(f"decoupled estimates: body {body:.3f} Hz, wheel {wheel:.3f} Hz")
assert abs(modes[0][0] - body) / body < 0.05 and abs(modes[1][0] - wheel) / wheel < 0.05

static = {"tyre.through": -(ms + mu) * g, "ks.through": -ms * g}
t_end = 5.0
res = net.simulate((0, t_end), initial=static, t_eval=np.linspace(0, t_end, 5001))
x_body = np.concatenate([[0.0], np.cumsum(np.diff(res.t) * (res["ms.across"][1:]
                                                             + res["ms.across"][:-1]) / 2)])
k = int(np.argmax(x_body))
print(f"\nbody rise: peak {x_body[k] * 1e3:.2f} mm at t = {res.t[k]:.3f} s, "
      f"final {x_body[-1] * 1e3:.3f} mm (bump {h * 1e3:g} mm)")
print(f"peak body speed {res['ms.across'].max():.4f} m/s, "
      f"tyre force range {res['tyre.through'].min():.1f} .. {res['tyre.through'].max():.1f} N")
print(f"final spring forces: tyre {res['tyre.through'][-1]:.2f} N, "
      f"suspension {res['ks.through'][-1]:.2f} N (static {static['tyre.through']:.2f}, "
      f"{static['ks.through']:.2f})")
assert abs(res["ms.across"][0]) < 1e-12 and abs(res["ks.through"][0] - static["ks.through"]) < 1e-9
assert abs(x_body[-1] - h) < 1e-4                     # the body ends up h higher
for name, value in static.items():
    assert abs(res[name][-1] - value) < 0.5           # back to the static forces
assert res["tyre.through"].max() < 0                  # the tyre never leaves the road

if args.plot:
    import matplotlib
    matplotlib.use("Agg")
    ax = res.plot(["ms.across", "mu.across", "road.across"])
    ax.set_ylabel("velocity [m/s]")
    ax.figure.savefig(args.plot)
    print(f"plot saved to {args.plot}")
