"""The generated C against the numba kernel and Pinocchio's ``aba``, per call, and the time
to export a model as an FMU against its size.

Run with ``python benchmarks/codegen.py [--systems planar,spherical,universal]
[--sizes 2,8,32,96]``. For each chain of ``benchmarks/multibody.py`` (links hanging from a
pin, ball joints or universal joints; the same masses and lengths) at a random state near
hanging:

* **C**: the C an FMU of the chain runs (``vn.compile(eom, backend="c")``: ``M`` and
  ``Q`` from the recursive Newton–Euler listing of the chain, one pass of its residual
  per column of ``M``, one LU solve of ``M u' = Q``), called through ctypes with its
  arrays made once (the ctypes call is part of the time);
* **kernel**: vecnet's compiled numba kernel alone (``tree_kernels.open_chain_rates``,
  the articulated-body passes of the tree);
* **pin**: Pinocchio's ``aba`` (model and data made once), when ``pin`` is installed;
* **agree**: the C's ``u'`` against the kernel's, relative;
* **export**: the CPU time of ``vn.export_fmu`` (formulation excluded, compiler included)
  and the size of the generated C.

The generated C grows linearly with the chain (so does the export time); its call costs
``N`` passes of the residual and a dense ``N^3`` solve, against the articulated-body
recursion's ``N``.
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path

import numpy as np
from multibody import per_call, pinocchio_chain, pinocchio_state, random_state, vecnet_chain

import vecnet as vn
from vecnet.numerics import tree_kernels

try:
    import pinocchio as pin
except ImportError:   # the bench extra
    pin = None

COLUMNS = ("system", "N", "C us", "kernel us", "pin us", "C/pin", "kernel/pin", "C/kernel",
           "agree", "export s", "C chars")


def row(system: str, n: int, rng) -> list[str]:
    eom = vecnet_chain(system, n).formulate()
    model = eom.compile()
    q, u = random_state(system, model, rng)
    y = np.concatenate([q, u])
    packed = tree_kernels.pack(model.kernel_tree, model.n, model.nu)
    kernel_rates = model.open_chain_rates()(y)    # q' and u', as the integrator sees them
    start = time.process_time()
    with tempfile.TemporaryDirectory() as folder:
        done = vn.export_fmu(eom, Path(folder) / "chain.fmu")
    export = time.process_time() - start
    library = vn.compile(eom, backend="c")
    function, arguments, x = library.raw()
    x[:] = y
    c_rates = library.derivatives(0.0, y)
    agree = np.abs(c_rates[model.n:] - kernel_rates[model.n:]).max() / np.abs(
        kernel_rates[model.n:]).max()
    calls = {"C": lambda: function(*arguments),
             "kernel": lambda: tree_kernels.open_chain_rates(*packed, y)}
    pm = pinocchio_chain(system, n)
    if pm is not None:
        pdata, qp, vp, *_ = pm.createData(), *pinocchio_state(system, q, u)
        tau = np.zeros(pm.nv)
        calls["pin"] = lambda: pin.aba(pm, pdata, qp, vp, tau)
    best = {k: math.inf for k in calls}
    for _ in range(3):      # interleaved: each sees the same load
        for k, fn in calls.items():
            best[k] = min(best[k], per_call(fn))
    us = {k: f"{v * 1e6:.2f}" for k, v in best.items()}
    p = best.get("pin")
    return [system, str(n), us["C"], us["kernel"], us.get("pin", ""),
            f"{best['C'] / p:.2f}" if p else "", f"{best['kernel'] / p:.2f}" if p else "",
            f"{best['C'] / best['kernel']:.2f}", f"{agree:.0e}", f"{export:.2f}",
            str(len(done.model.source))]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", default="planar,spherical,universal")
    # the symbolic equations of longer chains take minutes to export (a universal chain
    # of 4: 100 s; of 8: more than 15 minutes)
    parser.add_argument("--sizes", default="2,8,32,96")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(1)
    print(" | ".join(COLUMNS))
    for system in args.systems.split(","):
        for n in map(int, args.sizes.split(",")):
            print(" | ".join(row(system, n, rng)), flush=True)
    print("C = the generated C through ctypes; kernel = vecnet's numba kernel alone; pin = "
          "Pinocchio's aba; agree = |u'_C - u'_kernel| / |u'_kernel|; export = CPU of "
          "vn.export_fmu with the compiler; C chars = the size of model.c")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
