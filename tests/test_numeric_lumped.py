"""The sparse numeric formulation of linear networks against the exact symbolic one, nodal
analysis written here, closed forms, and the bounds on a simulation's work."""

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sp
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import solve_ivp
from scipy.optimize import linear_sum_assignment

import vecnet as vn
from test_lumped_properties import build, mna_across, rlc_networks
from vecnet.errors import SimulationError
from vecnet.formulation.numeric import solve_blockwise

ROOT = Path(__file__).resolve().parents[1]


def symbolic_matrices(ss):
    """A, B, C, D, E, F of a numeric symbolic model as float arrays."""
    return [np.array(m.tolist(), dtype=float).reshape(m.shape)
            for m in (ss.A, ss.B, ss.C, ss.D, ss.E, ss.F)]


def response(A, B, C, D, E, F, s):
    n = A.shape[0]
    inner = np.linalg.solve(s * np.eye(n) - A, B + s * E) if n else np.zeros((0, B.shape[1]))
    return C @ inner + D + s * F


def outputs_of(elements):
    return [f"{name}.{kind}" for name, *_ in elements for kind in ("across", "through")]


@settings(max_examples=40, deadline=None)
@given(rlc_networks(), st.booleans())
def test_numeric_and_symbolic_models_agree_on_random_networks(elements, current_source):
    net = build(elements)
    if current_source:
        net.add(vn.CurrentSource("I", 0, elements[-1][2] or 1, I=1.0))
    outputs = outputs_of(elements)
    numeric = net.sparse_state_space(outputs=outputs)
    symbolic = net.state_space(outputs=outputs)
    assert set(numeric.states) == set(symbolic.states)        # same normal tree, same states
    assert numeric.dependent_stores == symbolic.dependent_stores
    A, *_ = matrices = symbolic_matrices(symbolic)
    eig_sym = np.linalg.eigvals(A)
    eig_num = np.linalg.eigvals(numeric.A.toarray())
    # paired by nearness (a sort by real part swaps eigenvalues whose real parts tie)
    rows, cols = linear_sum_assignment(np.abs(eig_sym[:, None] - eig_num[None, :]))
    eig_sym, eig_num = eig_sym[rows], eig_num[cols]
    assert np.allclose(eig_sym, eig_num, rtol=1e-10, atol=1e-10)
    for s in (0.3 + 1.1j, -0.4 + 0.6j, 2.0 + 0.0j):
        expected = response(*matrices, s)
        got = numeric.transfer_function_at([s])[0]
        assert np.allclose(got, expected, rtol=1e-10, atol=1e-10)


@settings(max_examples=25, deadline=None)
@given(rlc_networks())
def test_numeric_transfer_functions_match_nodal_analysis(elements):
    net = build(elements)
    names = [name for name, *_ in elements]
    numeric = net.sparse_state_space(outputs=[f"{n}.across" for n in names])
    for s in (0.5 + 1j, -0.3 + 0.8j):
        expected = mna_across(elements, s)
        got = numeric.transfer_function_at([s])[0][:, 0]
        for name, value in zip(names, got):
            assert abs(value - expected[name]) < 1e-9 * (1 + abs(expected[name])), name


@settings(max_examples=10, deadline=None)
@given(rlc_networks(max_nodes=4))
def test_numeric_and_symbolic_simulations_agree(elements):
    net = build(elements, source=sympy.sin(2 * vn.t) + 0.5)
    ts = np.linspace(0, 2, 21)
    options = dict(t_eval=ts, rtol=1e-12, atol=1e-14)
    numeric = net.simulate((0, 2), formulation="numeric", **options)
    symbolic = net.simulate((0, 2), formulation="symbolic", **options)
    for name in outputs_of(elements):
        scale = 1 + np.max(np.abs(symbolic[name]))
        assert np.max(np.abs(numeric[name] - symbolic[name])) < 1e-8 * scale, name


def rc_ladder(sections, R=1.0, C=1e-3, source=1.0):
    net = vn.Network("ladder")
    net.add(vn.VoltageSource("V", 0, "n0", V=source))
    for k in range(sections):
        net.add(vn.Resistor(f"R{k}", f"n{k}", f"n{k + 1}", R=R),
                vn.Capacitor(f"C{k}", 0, f"n{k + 1}", C=C))
    return net


def nodal_ladder(sections, R, C):
    """C v' = -G v + b u for the node voltages of the ladder, written by hand."""
    main = np.full(sections, 2.0 / R)
    main[-1] = 1.0 / R
    G = sp.diags([main, np.full(sections - 1, -1 / R), np.full(sections - 1, -1 / R)], [0, 1, -1])
    b = np.zeros(sections)
    b[0] = 1.0 / R
    return (-G / C).toarray(), (b / C)[:, None]


def test_rc_ladder_matches_a_nodal_model():
    sections, R, C = 40, 2.0, 1e-3
    net = rc_ladder(sections, R, C)
    ss = net.sparse_state_space(outputs=[f"C{k}.across" for k in range(sections)])
    A, b = nodal_ladder(sections, R, C)
    for s in (10.0 + 30j, 1.0 + 0.5j):
        expected = np.linalg.solve(s * np.eye(sections) - A, b)
        assert np.allclose(ss.transfer_function_at([s])[0], expected, rtol=1e-10, atol=1e-12)
    # the step response, by the matrix exponential of the nodal model
    ts = np.array([0.0, 0.01, 0.1, 1.0])
    res = net.simulate((0, 1), t_eval=ts, rtol=1e-10, atol=1e-12)
    steady = -np.linalg.solve(A, b)[:, 0]
    for time_, row in zip(ts, np.array([res[f"C{k}.across"] for k in range(sections)]).T):
        exact = steady - scipy.linalg.expm(A * time_) @ steady
        assert np.allclose(row, exact, atol=1e-7)


def test_a_step_source_restarts_the_integration_at_its_edge():
    net = rc_ladder(1, R=1.0, C=1.0, source=sympy.Heaviside(vn.t - 1))
    ts = np.linspace(0, 3, 31)
    res = net.simulate((0, 3), t_eval=ts, formulation="numeric", rtol=1e-10, atol=1e-12)
    exact = np.where(ts > 1, 1 - np.exp(-(ts - 1)), 0.0)
    assert np.max(np.abs(res["C0.across"] - exact)) < 1e-8


def test_the_integrator_gets_the_exact_jacobian_and_the_bounds():
    net = rc_ladder(200, R=1.0, C=1e-3)
    with vn.limits(max_evaluations=20):
        with pytest.raises(SimulationError, match="max_evaluations"):
            net.simulate((0, 1.0), formulation="numeric")
    start = time.perf_counter()
    res = net.simulate((0, 1.0), formulation="numeric", rtol=1e-6, atol=1e-9)
    assert res.success and time.perf_counter() - start < 10   # stiff: BDF with sparse A


def test_a_dependent_capacitor_and_transducers_agree_with_the_symbolic_path():
    net = vn.Network("divider")
    net.add(vn.VoltageSource("V", "g", "a", V=sympy.sin(3 * vn.t)),
            vn.Capacitor("C1", "b", "a", C=1.0), vn.Capacitor("C2", "g", "b", C=3.0),
            vn.Capacitor("C3", "g", "a", C=0.5), vn.Resistor("R", "b", "g", R=2.0),
            vn.Transformer("T", "a", "g", "c", "g", N=2.0), vn.Resistor("R2", "c", "g", R=3.0),
            vn.Inductor("L", "b", "d", L=0.5), vn.Gyrator("G", "d", "g", "e", "g", G=1.5),
            vn.Capacitor("C4", "g", "e", C=2.0), vn.Resistor("R3", "d", "g", R=1.0))
    outputs = [f"{e}.{k}" for e in ("C1", "C2", "C3", "R2", "L", "C4", "T.2", "G.1")
               for k in ("across", "through")]
    numeric = net.sparse_state_space(outputs=outputs)
    symbolic = net.state_space(outputs=outputs)
    assert numeric.dependent_stores == symbolic.dependent_stores != ()
    assert np.any(numeric.E.toarray())                           # the source's rate enters
    for s in (0.2 + 1j, 1.5 - 0.5j):
        assert np.allclose(numeric.transfer_function_at([s])[0],
                           response(*symbolic_matrices(symbolic), s), rtol=1e-10, atol=1e-10)


def test_what_the_numeric_path_refuses_falls_back_to_the_symbolic_one():
    # an inductor forced into the tree whose cutset runs through a gyrator
    coupled = vn.Network("coupled")
    coupled.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
                vn.Inductor("L", "b", "d", L=0.5), vn.Gyrator("G", "d", "g", "e", "g", G=1.5),
                vn.Capacitor("C", "g", "e", C=2.0))
    with pytest.raises(vn.UnsupportedNetwork, match="'L' needs the rate"):
        coupled.sparse_state_space()
    assert coupled.simulate((0, 1), t_eval=[1.0]).success
    symbols = rc_ladder(2, R=vn.Symbol("R"))
    with pytest.raises(vn.UnsupportedNetwork, match="no numeric value"):
        symbols.sparse_state_space()
    res = symbols.simulate((0, 1), parameters={"R": 1.0}, t_eval=[1.0], formulation="numeric")
    assert res["C1.across"][-1] > 0


def test_blockwise_solves_match_dense_ones():
    rng = np.random.default_rng(7)
    blocks = [rng.normal(size=(k, k)) + 3 * np.eye(k) for k in (1, 3, 1, 2, 4)]
    K = sp.block_diag(blocks).tocsr()
    perm = rng.permutation(K.shape[0])
    K = K[perm][:, perm]
    R = sp.random(K.shape[0], 9, density=0.3, random_state=3)
    assert np.allclose(solve_blockwise(K, R).toarray(), np.linalg.solve(K.toarray(), R.toarray()))


def test_a_601_element_ladder_model_file_simulates(tmp_path):
    cards = ["ladder", "V1 n0 0 PULSE(0 1 1m 0.1m 0.1m 5m 20m)"] + [
        f"R{k} n{k} n{k + 1} 1k\nC{k} n{k + 1} 0 1u" for k in range(300)] + [".end"]
    path = tmp_path / "ladder.cir"
    path.write_text("\n".join(cards) + "\n")
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "vecnet.cli", "simulate", str(path), "--t-end",
                          "0.02", "--output", str(tmp_path / "out.csv")], capture_output=True,
                         text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    assert time.perf_counter() - start < 30                        # a hang guard only
    assert len((tmp_path / "out.csv").read_text().splitlines()) == 502


# -- nonlinear dissipators ------------------------------------------------------------------

def nonlinear_build(elements, laws):
    """The random network with each resistor replaced by a monotone nonlinear dissipator:
    ``a = R tau + k tau^3`` or ``tau = a / R + k a^3``."""
    net = vn.Network("nonlinear")
    net.add(vn.VoltageSource("V", 0, 1, V=1.0))
    cls = {"L": vn.Inductor, "C": vn.Capacitor}
    for (name, u, v, value), (gives_across, k) in zip(elements, laws):
        value = float(value)
        if name[0] != "R":
            net.add(cls[name[0]](name, u, v, **{name[0]: value}))
        elif gives_across:
            net.add(vn.NonlinearDissipator(name, u, v, across=lambda i, r=value, k=k: r * i + k * i**3))
        else:
            net.add(vn.NonlinearDissipator(name, u, v, through=lambda a, r=value, k=k: a / r + k * a**3))
    return net


@settings(max_examples=30, deadline=None)
@given(rlc_networks(), st.lists(st.tuples(st.booleans(), st.sampled_from([0.0, 0.1, 1.0])),
                                min_size=12, max_size=12), st.integers(0, 2**16))
def test_nonlinear_numeric_and_symbolic_models_agree_on_random_networks(elements, laws, seed):
    """At random states, the sparse model's rates and every edge variable equal those of the
    exact symbolic elimination (whose algebraic loops are checked to be solved)."""
    net = nonlinear_build(elements, laws)
    numeric = net.sparse_state_space()
    symbolic = net.state_space()
    assert set(numeric.states) == set(symbolic.states)
    order = [numeric.states.index(name) for name in symbolic.states]
    rng = np.random.default_rng(seed)
    for _ in range(3):
        x = rng.normal(scale=0.7, size=len(numeric.states))
        rates, values = numeric.evaluate(x, [1.0])
        args = (symbolic.x, symbolic.u, symbolic.du, symbolic.z)
        point = (x[order], [1.0], [0.0], [values[name] for name in symbolic.z_names])
        residual = np.asarray(sympy.lambdify(args, list(symbolic.g))(*point), dtype=float)
        assert np.all(np.abs(residual) < 1e-10 * (1 + np.max(np.abs(x), initial=0.0)))
        f = np.asarray(sympy.lambdify(args, list(symbolic.f))(*point), dtype=float).ravel()
        assert np.allclose(rates[order], f, rtol=1e-10, atol=1e-10)
        outputs = sympy.lambdify(args, [symbolic.output(name) for name in values])(*point)
        for name, expected in zip(values, outputs):
            assert abs(values[name] - float(expected)) < 1e-10 * (1 + abs(float(expected))), name


def nonlinear_ladder_rhs(sections, r, L, C, kappa):
    """The ladder of series (cubic resistor, inductor) and shunt capacitors, written by hand:
    states i_1..i_n, then v_1..v_n."""
    def rhs(time, y):
        i, v = y[:sections], y[sections:]
        upstream = np.concatenate(([np.sin(2 * np.pi * time)], v[:-1]))
        downstream = np.concatenate((i[1:], [0.0]))
        return np.concatenate(((upstream - v - r * i - kappa * i**3) / L, (i - downstream) / C))
    return rhs


def test_a_nonlinear_ladder_matches_a_hand_written_model():
    sections, r, L, C, kappa = 30, 0.3, 0.01, 0.02, 0.5
    net = vn.Network("ladder")
    net.add(vn.VoltageSource("V", 0, "n0", V=sympy.sin(2 * sympy.pi * vn.t)))
    for k in range(1, sections + 1):
        net.add(vn.NonlinearDissipator(f"R{k}", f"m{k}", f"n{k - 1}",
                                       across=lambda i: r * i + kappa * i**3),
                vn.Inductor(f"L{k}", f"n{k}", f"m{k}", L=L),
                vn.Capacitor(f"C{k}", 0, f"n{k}", C=C))
    model = net.sparse_state_space()
    assert model.nonlinear.explicit and len(model.nonlinear.names) == sections
    ts = np.linspace(0, 1, 11)
    res = net.simulate((0, 1), t_eval=ts, rtol=1e-10, atol=1e-12)       # numeric, chosen
    ref = solve_ivp(nonlinear_ladder_rhs(sections, r, L, C, kappa), (0, 1),
                    np.zeros(2 * sections), t_eval=ts, rtol=1e-11, atol=1e-13, method="LSODA")
    ours = np.array([res[f"L{k}.through"] for k in range(1, sections + 1)]
                    + [res[f"C{k}.across"] for k in range(1, sections + 1)])
    assert np.max(np.abs(ours - ref.y)) < 1e-7
    # the resistor's law holds on the result: its across variable from its through variable
    i1 = res["R1.through"]
    assert np.allclose(res["R1.across"], r * i1 + kappa * i1**3, atol=1e-12)


def test_nonlinear_loops_are_solved_and_simulate_like_the_symbolic_model():
    net = vn.Network("loop")
    net.add(vn.VoltageSource("V", "g", "a", V=sympy.sin(2 * sympy.pi * vn.t)),
            vn.NonlinearDissipator("R", "a", "b", across=lambda i: i + i**3 / 10),
            vn.NonlinearDissipator("R2", "b", "c", across=lambda i: 2 * i + sympy.sinh(i)),
            vn.Resistor("R3", "b", "g", R=2.0),
            vn.NonlinearDissipator("G", "g", "c", through=lambda v: v / 4 + v**3),
            vn.Capacitor("C", "g", "c", C=0.2))
    model = net.sparse_state_space()
    assert not model.nonlinear.explicit                       # R and R2 are chords: a loop
    ts = np.linspace(0, 2, 9)
    numeric = net.simulate((0, 2), t_eval=ts, formulation="numeric", rtol=1e-10, atol=1e-12)
    symbolic = net.simulate((0, 2), t_eval=ts, formulation="symbolic", rtol=1e-10, atol=1e-12)
    for name in ("C.across", "R.through", "R2.across", "G.through", "R3.through"):
        assert np.max(np.abs(numeric[name] - symbolic[name])) < 1e-8, name
    # Kirchhoff's current law at node b, and each law, on the numeric result
    assert np.allclose(numeric["R.through"], numeric["R2.through"] + numeric["R3.through"],
                       atol=1e-12)
    i2 = numeric["R2.through"]
    assert np.allclose(numeric["R2.across"], 2 * i2 + np.sinh(i2), atol=1e-10)


def test_a_nonlinear_law_takes_its_numbers_from_parameters():
    k = vn.Symbol("k")
    net = vn.Network("orifice")
    net.add(vn.PressureSource("P", "g", "a", P=1.0),
            vn.NonlinearDissipator("O", "a", "b", domain="fluid", across=lambda q: k * q * abs(q)),
            vn.FluidCapacitance("tank", "g", "b", C=1.0))
    with pytest.raises(vn.UnsupportedNetwork, match="'O'.*no numeric value for k"):
        net.sparse_state_space()
    res = net.simulate((0, 1), t_eval=[1.0], parameters={"k": 2.0})
    # the tank fills through the orifice: q = sqrt((1 - p) / k), p' = q / C
    p = solve_ivp(lambda time, y: [np.sqrt(max(1 - y[0], 0.0) / 2.0)], (0, 1), [0.0],
                  rtol=1e-10, atol=1e-12).y[0, -1]
    assert abs(res["tank.across"][-1] - p) < 1e-6


def test_a_netlist_pulse_simulates_with_restarts_at_its_corners():
    """The RC filter of examples/models/rc_filter.cir (1 kOhm, 1 uF, a 1 V pulse of 1 ms every
    4 ms, edges of 1 us) against v' = (p(t) - v) / RC integrated here piece by piece between
    the pulse's corners."""
    net = vn.load_netlist(ROOT / "examples" / "models" / "rc_filter.cir")
    ts = np.linspace(0, 0.01, 101)
    res = net.simulate((0, 0.01), t_eval=ts, rtol=1e-10, atol=1e-13)
    tau, rise, width, period = 1e-3, 1e-6, 1e-3, 4e-3

    def pulse(time):
        phase = time % period
        if phase < rise:
            return phase / rise
        if phase < rise + width:
            return 1.0
        if phase < 2 * rise + width:
            return 1.0 - (phase - rise - width) / rise
        return 0.0

    corners = sorted({k * period + c for k in range(3) for c in (0, rise, rise + width,
                                                                    2 * rise + width)} | {0.01})
    v, expected = 0.0, {}
    for a, b in zip(corners, corners[1:]):
        inside = ts[(ts >= a) & (ts <= b)]
        sol = solve_ivp(lambda time, y: [(pulse(time) - y[0]) / tau], (a, b), [v],
                        t_eval=np.union1d(inside, [b]), rtol=1e-11, atol=1e-14)
        expected.update(zip(sol.t, sol.y[0]))
        v = sol.y[0, -1]
    assert np.max(np.abs(res["C1.across"] - [expected[x] for x in ts])) < 1e-8
    assert 0.0 <= res["V1.across"].min() and res["V1.across"].max() <= 1.0


def test_linear_analyses_refuse_a_nonlinear_model():
    net = vn.Network("orifice")
    net.add(vn.PressureSource("P", "g", "a", P=1.0),
            vn.NonlinearDissipator("O", "a", "b", domain="fluid", across=lambda q: q * abs(q)),
            vn.FluidCapacitance("tank", "g", "b", C=1.0))
    with pytest.raises(vn.UnsupportedNetwork, match="nonlinear"):
        net.frequency_response([1.0])
    with pytest.raises(vn.UnsupportedNetwork, match="nonlinear"):
        net.sparse_state_space().to_scipy()
