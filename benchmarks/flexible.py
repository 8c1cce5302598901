"""Benchmark vecnet's beams against Exudyn on two published problems of Meijaard,
"Validation of flexible beam elements in dynamics programs", Nonlinear Dynamics 9 (1996):
the flexible slider-crank of Chu and Pan (the first maximum of the rod's mid-point
deflection over its length; published 0.00976 with 4 elements, 0.00973 with 2) and the
spin-up of Kane, Ryan and Banerjee (the tip's extreme lateral deflection; -0.5360 m with
4 elements, -0.5338 m with 2).

Both programs run in this process with the same physics and element counts, each by
generalized-alpha (spectral radius 0.8) at a fixed step at which halving it moves the
value by less than 0.1 %: vecnet's corotational Euler-Bernoulli element
(:mod:`vecnet.elements.beam`), Exudyn's geometrically exact quadratic beam
(``benchmarks/_exudyn_beams.py``). CPU time (``time.process_time``) of the solve alone,
the models built before; the ratio is vecnet's over Exudyn's.

Usage: ``python benchmarks/flexible.py [--elements 2 4]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import sympy as sp
from _table import format_ratio, format_row, format_time, print_header

import vecnet as vn

R_CRANK, L_ROD, W_CRANK = 0.1524, 0.3048, 124.8
PUBLISHED = {("slider-crank", 2): 0.00973, ("slider-crank", 4): 0.00976,
             ("spin-up", 2): -0.5338, ("spin-up", 4): -0.5360}


def slider_crank(elements: int) -> dict:
    """vecnet's slider-crank: the first maximum of the mid-point deflection over L."""
    mech = vn.planar.Mechanism("slider_crank", gravity=(0, 0))
    crank = mech.body("crank", 0.1, 1e-4, position=(R_CRANK / 2, 0))
    mech.revolute("O", mech.ground.point(0, 0), crank.point(-R_CRANK / 2, 0))
    mech.drive("turn", "O", W_CRANK * vn.t)
    rod = mech.beam("rod", (R_CRANK, 0), (R_CRANK + L_ROD, 0),
                    vn.Material(E=2.06843e11, density=7834.56, nu=0.3),
                    vn.Section.circle(0.00635), elements=elements)
    mech.revolute("A", crank.point(R_CRANK / 2, 0), rod.start)
    mech.slot("B", mech.ground.point(R_CRANK + L_ROD, 0), rod.end, axis=(1, 0))
    eom = mech.formulate()
    eom.compile()
    tip, turn = R_CRANK * W_CRANK, -R_CRANK * W_CRANK / L_ROD
    speeds = {"A.angle": turn - W_CRANK, "B.angle": turn, "B.distance": 0.0}
    for i in range(1, elements):   # the rigid field: no deformation rate at the start
        speeds |= {f"rod_{i}.x": 0.0, f"rod_{i}.y": tip * (1 - i / elements),
                   f"rod_{i}.angle": turn}
    end = 8 / W_CRANK
    start = time.process_time()
    res = eom.simulate(end, t_eval=np.linspace(0, end, 801), velocities=speeds, step=1e-4,
                       rtol=1e-6, atol=1e-8)
    cpu = time.process_time() - start
    angle = res["O.angle"]
    a = np.array([R_CRANK * np.cos(angle), R_CRANK * np.sin(angle)])
    b = np.array([R_CRANK + L_ROD + res["B.distance"], 0 * angle])
    mid = np.array([res[f"rod_{elements // 2}.x"], res[f"rod_{elements // 2}.y"]])
    chord = (b - a) / np.hypot(*(b - a))
    series = (chord[0] * (mid - a)[1] - chord[1] * (mid - a)[0]) / L_ROD
    k = next(i for i in range(1, len(series) - 1)
             if series[i - 1] < series[i] >= series[i + 1] and series[i] > 0)
    p, q, r = series[k - 1:k + 2]
    return {"value": float(q + (p - r) ** 2 / (8 * (2 * q - p - r))), "cpu": cpu,
            "steps": 800, "nfev": res.nfev}


def spin_up(elements: int) -> dict:
    """vecnet's spin-up: the tip's extreme lateral deflection in the turning frame."""
    ws, Ts, L = 4.0, 15.0, 8.0
    t = vn.t
    mech = vn.planar.Mechanism("spin_up", gravity=(0, 0))
    hub = mech.body("hub", 1.0, 1.0)
    mech.revolute("shaft", mech.ground.point(0, 0), hub.centre)
    mech.drive("spin", "shaft", sp.Piecewise(
        (ws / Ts * (t ** 2 / 2 + (Ts / (2 * sp.pi)) ** 2 * (sp.cos(2 * sp.pi * t / Ts) - 1)),
         t <= Ts), (ws * (t - Ts / 2), True)))
    beam = mech.beam("beam", (0, 0), (L, 0), vn.Material(E=6.895e10, density=2766.67, nu=0.3),
                     vn.Section.rectangle(width=0.03676, height=0.001986), elements=elements)
    mech.weld("clamp", hub.centre, beam.start)
    eom = mech.formulate()
    eom.compile()
    start = time.process_time()
    res = eom.simulate(20.0, t_eval=np.linspace(0, 20, 2001), rtol=1e-6, atol=1e-8, step=0.01)
    cpu = time.process_time() - start
    angle = res["shaft.angle"]
    lateral = -np.sin(angle) * res[f"beam_{elements}.x"] + np.cos(angle) * res[f"beam_{elements}.y"]
    return {"value": float(lateral.min()), "cpu": cpu, "steps": 2000, "nfev": res.nfev}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, nargs="+", default=[2, 4])
    args = parser.parse_args()
    import _exudyn_beams as exudyn_side

    columns = [("case", 13, "<"), ("elements", 8, ">"), ("published", 9, ">"),
               ("vecnet", 10, ">"), ("Exudyn", 10, ">"), ("vecnet cpu", 10, ">"),
               ("evaluations", 11, ">"), ("Exudyn cpu", 10, ">"), ("ratio", 8, ">")]
    print_header("Meijaard's flexible benchmarks, vecnet and Exudyn (CPU of the solve)", columns)
    for case, ours, theirs in (("slider-crank", slider_crank, exudyn_side.slider_crank),
                               ("spin-up", spin_up, exudyn_side.spin_up)):
        for n in args.elements:
            a, b = ours(n), theirs(n)
            print(format_row([case, str(n), f"{PUBLISHED.get((case, n), float('nan')):.5g}",
                              f"{a['value']:.6g}", f"{b['value']:.6g}", format_time(a["cpu"]),
                              str(a["nfev"]), format_time(b["cpu"]),
                              format_ratio(a["cpu"] / b["cpu"])], columns), flush=True)


if __name__ == "__main__":
    main()
