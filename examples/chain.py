"""A hanging chain of N pinned rods in joint coordinates: formulation cost and motion.

N uniform rods (mass m, length l, inertia m l^2/12) hang in a chain from a
pin at the origin, each pinned to the end of the one above. A tree of the
joints and arms makes the coordinates the N relative joint angles; the
graph has no loops, so there are no constraints and the mass matrix is N x N.
The script times the steps (building the graph and the tree, the symbolic
M(q) and Q(q, q'), compiling to numeric code, simulating) and checks:

* the small oscillations about the hanging equilibrium against a linear
  model written by hand in the absolute rod angles phi_i from the vertical:
  the centre of rod i moves sideways by sum_{j<i} l phi_j + (l/2) phi_i, so

      M = sum_i m a_i a_i^T + J 1,    a_i = l (1, ..., 1, 1/2, 0, ..., 0)  (1/2 at i),
      K = diag(m g l (N - i + 1/2)),  i = 1..N,

  whose generalized eigenvalues are the squared natural frequencies;
* conservation of energy when the chain is released from the horizontal.

Run with ``python examples/chain.py [N] [--plot out.png]`` (N defaults to 5;
the symbolic steps grow quickly with N: expect tens of seconds for N = 20).
"""

import argparse
import math
import time

import numpy as np
import scipy.linalg

import vecnet as vn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("n", nargs="?", type=int, default=5, help="number of links (default 5)")
parser.add_argument("--plot", metavar="PNG", help="save a plot of the joint angles")
args = parser.parse_args()
N = args.n
if N < 1:
    parser.error("N must be at least 1")

m, l, g = 1.0, 0.5, 9.81
J = m * l**2 / 12

clock = time.perf_counter()
mech = vn.planar.Mechanism(f"{N}-link chain", gravity=(0, -g))
end = mech.ground.point(0, 0)
for i in range(1, N + 1):            # hanging straight down: body x axes point down
    link = mech.body(f"link{i}", mass=m, inertia=J, position=(0, -l * (i - 0.5)),
                     angle=-math.pi / 2)
    mech.revolute(f"J{i}", end, link.point(-l / 2, 0))
    end = link.point(l / 2, 0)
eom = mech.formulate(coordinates="joint")
times = {"graph, tree and coordinates": time.perf_counter() - clock}
topo = eom.topology
print(eom)
print(f"graph: {len(topo.nodes)} nodes, {len(topo.edges)} edges; the tree: {len(topo.branches)} "
      f"joints and arms; the cotree: the {len(topo.chords)} masses")
assert eom.coordinates == tuple(f"J{i}.angle" for i in range(1, N + 1))
assert len(eom.constraint_names) == 0 and len(topo.edges) == 4 * N   # mass, 2 arms, pin per link

clock = time.perf_counter()
M, Q = eom.M, eom.Q
times["symbolic M and Q"] = time.perf_counter() - clock
clock = time.perf_counter()
model = eom.compile()
times["compiled to numeric code"] = time.perf_counter() - clock

# linear model about the hanging equilibrium
clock = time.perf_counter()
op = eom.equilibrium()
lin = eom.linearize(op)
times["equilibrium and linear model"] = time.perf_counter() - clock
assert np.allclose(op.q, [-math.pi / 2] + [0.0] * (N - 1), atol=1e-9)
a = np.array([[l if j < i else l / 2 if j == i else 0.0 for j in range(N)] for i in range(N)])
M_hand = m * a.T @ a + J * np.eye(N)
K_hand = np.diag([m * g * l * (N - i - 0.5) for i in range(N)])
freq_hand = np.sqrt(np.sort(scipy.linalg.eigvalsh(K_hand, M_hand)))
freq = lin.natural_frequencies()
print("natural frequencies [rad/s]:", np.array2string(freq, precision=5))
print("by hand                    :", np.array2string(freq_hand, precision=5))
assert np.allclose(freq, freq_hand, rtol=1e-6)

# released from rest with the whole chain horizontal
clock = time.perf_counter()
res = eom.simulate(2.0, initial={"J1.angle": 0.0}, t_eval=np.linspace(0, 2, 201))
times["simulation of 2 s"] = time.perf_counter() - clock
energy = res["energy"]
drift = np.abs(energy - energy[0]).max()
print(f"released from the horizontal: tip link angle at 2 s = "
      f"{math.degrees(res[f'link{N}.angle'][-1]):.3f} deg, energy drift {drift:.1e} J")
assert abs(energy[0]) < 1e-12                       # at rest, every mass centre at y = 0
assert drift < 1e-5 * m * g * l * N**2

print(f"\ntimes for N = {N} (compiled expression: {model.operations} operations after CSE):")
for step, seconds in times.items():
    print(f"  {step:30s} {seconds:7.3f} s")

if args.plot:
    import matplotlib
    matplotlib.use("Agg")
    ax = res.plot([f"J{i}.angle" for i in range(1, N + 1)])
    ax.set_ylabel("joint angle [rad]")
    ax.figure.savefig(args.plot)
    print(f"plot saved to {args.plot}")
