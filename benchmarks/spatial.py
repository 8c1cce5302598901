"""Benchmark vecnet's spatial formulation against sympy.physics.mechanics (KanesMethod).

The system is a 3-D N-link pendulum with universal joints, N = 2, 4, 8, 16, 24: link k
(1-based) is a rod of length l_k = 0.5 + 0.1 (k mod 3) m and mass m_k = 1 + 0.25 (k mod 4)
kg hanging along -z, inertia (m l^2/12, m l^2/12, m l^2/200) about its centre in its own
axes; a universal joint at its upper end turns it about the parent's x axis, then about its
own y axis. Gravity is 9.81 m/s^2 downwards. It starts hanging straight with the first
joint's rates (1.0, 0.5) rad/s and is simulated for ``--time`` seconds (default 10). Both
formulations use the joint angles as coordinates and their rates as speeds.

* vecnet: building the Mechanism and ``formulate(coordinates="joint")``, then ``compile()``
  and ``simulate(..., rtol=1e-8, atol=1e-10)`` (DOP853).
* KanesMethod: frames, points and rigid bodies per link, ``kanes_equations``,
  ``mass_matrix`` and ``forcing``, ``lambdify((q, u), [M, F], cse=True)``, and
  ``solve_ivp`` (DOP853, same tolerances and output times) solving ``M u' = F`` with
  ``numpy.linalg.solve``. It runs in a forked child process and is stopped after
  ``--limit`` seconds (default 300); larger sizes are then skipped.

Checks: the final joint angles agree to 1e-5 rad when both finish. Usage:
``python benchmarks/spatial.py [--quick] [--time T] [--limit S]`` (``--quick``: N = 2, 4
and 1 s).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time

import numpy as np


def lengths_masses(N):
    return ([0.5 + 0.1 * (k % 3) for k in range(1, N + 1)],
            [1.0 + 0.25 * (k % 4) for k in range(1, N + 1)])


def vecnet_run(N, t_end):
    import vecnet as vn

    start = time.perf_counter()
    L, masses = lengths_masses(N)
    mech = vn.spatial.Mechanism("chain", gravity=(0, 0, -9.81))
    parent, top = mech.ground, np.zeros(3)
    for k, (l, m) in enumerate(zip(L, masses), start=1):
        body = mech.body(f"b{k}", m, (m * l**2 / 12, m * l**2 / 12, m * l**2 / 200),
                         position=top - (0, 0, l / 2))
        joint_on_parent = mech.ground.point(*top) if parent is mech.ground \
            else parent.point(*(top - parent.position))
        mech.universal(f"U{k}", joint_on_parent, body.point(0, 0, l / 2),
                       axes=((1, 0, 0), (0, 1, 0)))
        parent, top = body, top - (0, 0, l)
    eom = mech.formulate(coordinates="joint")
    formulated = time.perf_counter()
    eom.compile()
    compiled = time.perf_counter()
    # the default bound on one simulation's time (120 s) is for interactive use
    with vn.limits(max_seconds=3600.0, max_evaluations=10**8):
        res = eom.simulate(t_end, t_eval=np.linspace(0, t_end, 501), rtol=1e-8, atol=1e-10,
                           velocities={"U1.angle1": 1.0, "U1.angle2": 0.5})
    done = time.perf_counter()
    final = np.array([res[f"U{k}.angle{i}"][-1] for k in range(1, N + 1) for i in (1, 2)])
    return dict(formulate=formulated - start, compile=compiled - formulated,
                simulate=done - compiled, final=final, drift=float(np.ptp(res["energy"])))


def kane_run(N, t_end, out):
    import sympy
    from scipy.integrate import solve_ivp
    from sympy.physics.mechanics import (
        KanesMethod,
        Point,
        ReferenceFrame,
        RigidBody,
        dynamicsymbols,
        inertia,
    )

    start = time.perf_counter()
    L, masses = lengths_masses(N)
    frame = ReferenceFrame("N")
    world = frame
    joint = Point("O")
    joint.set_vel(frame, 0)
    qs, us, kd, bodies, loads = [], [], [], [], []
    for k, (l, m) in enumerate(zip(L, masses), start=1):
        q1, q2 = dynamicsymbols(f"q{k}a q{k}b")
        u1, u2 = dynamicsymbols(f"u{k}a u{k}b")
        mid = ReferenceFrame(f"I{k}")
        mid.orient_axis(frame, frame.x, q1)
        mid.set_ang_vel(frame, u1 * frame.x)
        B = ReferenceFrame(f"B{k}")
        B.orient_axis(mid, mid.y, q2)
        B.set_ang_vel(mid, u2 * mid.y)
        centre = joint.locatenew(f"G{k}", -l / 2 * B.z)
        centre.v2pt_theory(joint, world, B)
        nxt = joint.locatenew(f"P{k}", -l * B.z)
        nxt.v2pt_theory(joint, world, B)
        bodies.append(RigidBody(f"b{k}", centre, B, m,
                                (inertia(B, m * l**2 / 12, m * l**2 / 12, m * l**2 / 200), centre)))
        loads.append((centre, -9.81 * m * world.z))
        qs += [q1, q2]
        us += [u1, u2]
        kd += [q1.diff() - u1, q2.diff() - u2]
        joint, frame = nxt, B
    km = KanesMethod(world, q_ind=qs, u_ind=us, kd_eqs=kd)
    km.kanes_equations(bodies, loads)
    M, F = km.mass_matrix, km.forcing
    formulated = time.perf_counter()
    qsym = [sympy.Symbol(f"q_{i}") for i in range(len(qs))]
    usym = [sympy.Symbol(f"u_{i}") for i in range(len(us))]
    rep = dict(zip(qs, qsym)) | dict(zip(us, usym))
    fn = sympy.lambdify((qsym, usym), [M.xreplace(rep), F.xreplace(rep)], cse=True)
    compiled = time.perf_counter()
    n = len(qs)

    def rhs(t, y):
        Mv, Fv = fn(y[:n], y[n:])
        return np.concatenate([y[n:], np.linalg.solve(np.asarray(Mv, float),
                                                      np.asarray(Fv, float).ravel())])

    y0 = np.zeros(2 * n)
    y0[n], y0[n + 1] = 1.0, 0.5
    sol = solve_ivp(rhs, (0, t_end), y0, method="DOP853", rtol=1e-8, atol=1e-10,
                    t_eval=np.linspace(0, t_end, 501))
    done = time.perf_counter()
    out.put(dict(formulate=formulated - start, compile=compiled - formulated,
                 simulate=done - compiled, final=sol.y[:n, -1]))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--time", type=float, default=None)
    parser.add_argument("--limit", type=float, default=300.0)
    args = parser.parse_args()
    sizes = (2, 4) if args.quick else (2, 4, 8, 16, 24)
    t_end = args.time if args.time is not None else (1.0 if args.quick else 10.0)
    ok, kane_alive = True, True
    print(f"3-D N-link pendulum with universal joints, {t_end:g} s at rtol 1e-8")
    print(f"{'N':>3} | {'vecnet form':>11} {'compile':>8} {'simulate':>9} | "
          f"{'Kane form':>10} {'compile':>8} {'simulate':>9} | {'form x':>7} {'sim x':>6}")
    for N in sizes:
        v = vecnet_run(N, t_end)
        k = None
        if kane_alive:
            queue = mp.get_context("fork").Queue()
            child = mp.get_context("fork").Process(target=kane_run, args=(N, t_end, queue))
            child.start()
            child.join(args.limit)
            if child.is_alive():
                child.terminate()
                child.join()
                kane_alive = False
            elif not queue.empty():
                k = queue.get()
        if k is not None:
            agree = np.max(np.abs(v["final"] - k["final"]))
            ok &= bool(agree < 1e-5)
            print(f"{N:>3} | {v['formulate']:>10.2f}s {v['compile']:>7.2f}s {v['simulate']:>8.2f}s | "
                  f"{k['formulate']:>9.2f}s {k['compile']:>7.2f}s {k['simulate']:>8.2f}s | "
                  f"{k['formulate'] / v['formulate']:>6.1f}x {k['simulate'] / v['simulate']:>5.1f}x"
                  f"   final angles agree to {agree:.1e}")
        else:
            print(f"{N:>3} | {v['formulate']:>10.2f}s {v['compile']:>7.2f}s {v['simulate']:>8.2f}s | "
                  f"{'(stopped after ' + format(args.limit, 'g') + ' s or skipped)':>30}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
