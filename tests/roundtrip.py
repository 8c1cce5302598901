"""Save a network or mechanism, load it back, and check that the equations are the same:
a network's state space (or its equations) symbolically, a mechanism's q, u, Phi, M and Q
numerically at random states and parameter values."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import sympy

import vecnet as vn


def saved_and_loaded(system):
    """``system`` written by ``vn.save_model`` and read back by ``vn.load_model``."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.json"
        vn.save_model(system, path)
        json.loads(path.read_text())  # plain JSON
        return vn.load_model(path).system


def same_network(a, b) -> None:
    try:
        first = a.state_space(symbolic=True)
    except vn.VecnetError:  # no state space (algebraic loops, nonlinear laws): the equations
        ea, eb = a.equations(), b.equations()
        assert [str(e) for e in ea.all] == [str(e) for e in eb.all]
        return
    second = b.state_space(symbolic=True)
    assert [str(x) for x in first.states] == [str(x) for x in second.states]
    difference = sympy.Matrix(first.f) - sympy.Matrix(second.f)  # x' = f(x, u)
    assert difference.applyfunc(sympy.simplify) == sympy.zeros(*difference.shape)


def same_mechanism(a, b, samples: int = 3, seed: int = 0) -> None:
    ea, eb = a.formulate(), b.formulate()
    assert ea.coordinates == eb.coordinates and ea.speed_names == eb.speed_names
    assert ea.constraint_names == eb.constraint_names
    rng = np.random.default_rng(seed)
    # a mechanism with beams has no symbolic M (their inertia is numeric)
    held = set().union(*(m.free_symbols for e in (ea, eb) for m in (
        sympy.zeros(0) if e.mechanism.beams else e.M, e.body_forces, e.applied_forces,
        e.constraints)))
    symbols = sorted(held - {vn.t, *ea.q, *ea.u, *eb.q, *eb.u}, key=str)
    values = {s: float(rng.uniform(0.5, 2.0)) for s in symbols}
    ma, mb = ea.compile_model(values or None), eb.compile_model(values or None)
    for _ in range(samples):
        q = rng.uniform(-1, 1, len(ea.q))
        u = rng.uniform(-1, 1, len(ea.u))
        time = float(rng.uniform(0, 1))
        sa, sb = ma.evaluate(time, q, u), mb.evaluate(time, q, u)
        for name in ("M", "Q", "phi"):
            x, y = np.asarray(getattr(sa, name), float), np.asarray(getattr(sb, name), float)
            assert np.allclose(x, y, rtol=1e-12, atol=1e-12), name


def same_system(a, b, samples: int = 3, seed: int = 0) -> None:
    """Two systems' coupled equations: the mechanism's M, Q and Phi under the loads of the
    network and blocks, and their states' rates, at random states."""
    ca, cb = a.formulate(), b.formulate()
    assert ca.states == cb.states and ca.eom.coordinates == cb.eom.coordinates
    assert ca.eom.speed_names == cb.eom.speed_names
    ma, mb = ca.eom.compile(), cb.eom.compile()
    rng = np.random.default_rng(seed)
    for _ in range(samples):
        q = rng.uniform(-1, 1, len(ca.eom.q))
        u = rng.uniform(-1, 1, len(ca.eom.u))
        states = rng.uniform(-1, 1, len(ca.states))
        time = float(rng.uniform(0, 1))
        (rates_a, loads_a), (rates_b, loads_b) = ca.extra(time, q, u, states), \
            cb.extra(time, q, u, states)
        assert np.allclose(rates_a, rates_b, rtol=1e-12, atol=1e-12)
        assert np.allclose(loads_a, loads_b, rtol=1e-12, atol=1e-12)
        sa, sb = ma.evaluate(time, q, u, loads_a), mb.evaluate(time, q, u, loads_b)
        for name in ("M", "Q", "phi"):
            x, y = np.asarray(getattr(sa, name), float), np.asarray(getattr(sb, name), float)
            assert np.allclose(x, y, rtol=1e-12, atol=1e-12), name


def check_round_trip(system) -> None:
    """The equations of ``system`` equal those of its saved and loaded copy."""
    loaded = saved_and_loaded(system)
    if isinstance(system, vn.Network):
        same_network(system, loaded)
    elif isinstance(system, vn.System):
        same_system(system, loaded)
    else:
        same_mechanism(system, loaded)
