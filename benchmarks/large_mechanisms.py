"""Large mechanisms on the recursive scheme: energy and loop closure over long runs.

* a 3-D pendulum of 200 links on spherical joints (the chain of benchmarks/multibody.py:
  link k of length 0.5 + 0.1 (k mod 3) m and mass 1 + 0.25 (k mod 4) kg, hanging along -z),
  its first link set spinning at (1.0, 0.5, 0) rad/s;
* a planar truss of 100 four-bar loops: a hanging ladder whose loop k is the rung above it
  (the ground for the first), a left and a right post and the rung below, pinned at the
  four corners; the rungs' lengths vary (1.0, 1.1, 1.2 m) so no loop is a parallelogram.
  The first post starts turning at 0.5 rad/s. 100 degrees of freedom, 200 loop equations.

Each is simulated for ``--time`` seconds (default 10) with DOP853 at rtol 1e-8, atol 1e-10.
Printed: formulate + compile and simulate times, the energy drift relative to the largest
kinetic energy of the run, and the largest constraint residual. No dissipation, no drivers:
the energy is constant. Usage: ``python benchmarks/large_mechanisms.py [--time T]
[--links N] [--loops N]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import vecnet as vn


def chain(N):
    mech = vn.spatial.Mechanism("chain", gravity=(0, 0, -9.81))
    parent, top = mech.ground, np.zeros(3)
    for k in range(1, N + 1):
        l, m = 0.5 + 0.1 * (k % 3), 1.0 + 0.25 * (k % 4)
        body = mech.body(f"b{k}", m, (m * l**2 / 12, m * l**2 / 12, m * l**2 / 200),
                         position=top - (0, 0, l / 2))
        joint = mech.ground.point(*top) if parent is mech.ground \
            else parent.point(*(top - parent.position))
        mech.spherical(f"J{k}", joint, body.point(0, 0, l / 2))
        parent, top = body, top - (0, 0, l)
    return mech, {"b1.omega": (1.0, 0.5, 0.0)}


def truss(loops):
    mech = vn.planar.Mechanism("truss", gravity=(0, -9.81))
    h = 0.6
    above, above_w = None, 1.0
    for k in range(loops):
        y0, w = -k * h, 1.0 + 0.1 * (k % 3)
        left = mech.body(f"L{k}", mass=0.5, inertia=0.5 * h**2 / 12, position=(0.0, y0 - h / 2),
                         angle=np.pi / 2)
        right = mech.body(f"R{k}", mass=0.5, inertia=0.5 * h**2 / 12,
                          position=(w, y0 - h / 2), angle=np.pi / 2)
        rung = mech.body(f"B{k}", mass=1.0, inertia=w**2 / 12, position=(w / 2, y0 - h))
        if above is None:
            top_l, top_r = mech.ground.point(0.0, y0), mech.ground.point(above_w, y0)
        else:
            top_l, top_r = above.point(-above_w / 2, 0), above.point(above_w / 2, 0)
        mech.revolute(f"PL{k}", top_l, left.point(h / 2, 0))
        mech.revolute(f"PR{k}", top_r, right.point(h / 2, 0))
        mech.revolute(f"QL{k}", left.point(-h / 2, 0), rung.point(-w / 2, 0))
        mech.revolute(f"QR{k}", right.point(-h / 2, 0), rung.point(w / 2, 0))
        above, above_w = rung, w
    return mech, {"PL0.angle": 0.5}


def run(name, mech, velocities, t_end):
    start = time.perf_counter()
    eom = mech.formulate()
    eom.compile()
    compiled = time.perf_counter()
    with vn.limits(max_seconds=24 * 3600.0, max_evaluations=10**9):
        res = eom.simulate(t_end, t_eval=np.linspace(0, t_end, 201), rtol=1e-8, atol=1e-10,
                           velocities=velocities)
    done = time.perf_counter()
    drift = np.ptp(res["energy"]) / np.max(res["kinetic"])
    print(f"{name:<32} {len(eom.u):>5} {compiled - start:>10.2f} {done - compiled:>10.1f} "
          f"{drift:>12.2e} {np.max(res['constraint residual']):>12.2e}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time", type=float, default=10.0)
    parser.add_argument("--links", type=int, default=200)
    parser.add_argument("--loops", type=int, default=100)
    args = parser.parse_args()
    print(f"{'mechanism':<32} {'speeds':>5} {'form+comp':>10} {'simulate':>10} "
          f"{'drift/KEmax':>12} {'residual':>12}")
    run(f"spatial chain, {args.links} links", *chain(args.links), args.time)
    run(f"planar truss, {args.loops} loops", *truss(args.loops), args.time)


if __name__ == "__main__":
    main()
