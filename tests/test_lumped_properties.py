"""Random RLC networks: vecnet against a modified nodal analysis written here, and energy."""

import numpy as np
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import simpson

import vecnet as vn

VALUES = st.sampled_from([sympy.Rational(1, 2), 1, 2, 3])
KINDS = st.sampled_from(["R", "L", "C"])


@st.composite
def rlc_networks(draw, max_nodes=5):
    """A voltage source from ground 0 to node 1 and random R, L, C elements, connected."""
    n = draw(st.integers(2, max_nodes))
    pairs = [(draw(st.integers(0, v - 1)), v) for v in range(1, n)]
    pairs += draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
                           .filter(lambda p: p[0] != p[1]), max_size=n + 1))
    elements = []
    for k, (u, v) in enumerate(pairs):
        if draw(st.booleans()):
            u, v = v, u
        elements.append((draw(KINDS) + str(k), u, v, draw(VALUES)))
    return elements


def build(elements, source=1):
    net = vn.Network("random")
    net.add(vn.VoltageSource("V", 0, 1, V=source))
    cls = {"R": vn.Resistor, "L": vn.Inductor, "C": vn.Capacitor}
    for name, u, v, value in elements:
        net.add(cls[name[0]](name, u, v, **{name[0]: float(value)}))
    return net


def mna_across(elements, s_value):
    """Across variable of every element per unit source voltage, by nodal analysis."""
    nodes = sorted({0, 1} | {u for _, u, _, _ in elements} | {v for _, _, v, _ in elements})
    index = {n: i for i, n in enumerate(nodes[1:])}  # ground 0 eliminated
    size = len(index) + 1                              # plus the source current
    M = np.zeros((size, size), dtype=complex)
    rhs = np.zeros(size, dtype=complex)
    for name, u, v, value in elements:
        value = float(value)
        y = {"R": 1 / value, "L": 1 / (s_value * value), "C": s_value * value}[name[0]]
        for a, b in ((u, v), (v, u)):
            if a in index:
                M[index[a], index[a]] += y
                if b in index:
                    M[index[a], index[b]] -= y
    M[index[1], -1] = M[-1, index[1]] = 1.0           # v_1 - v_0 = V
    rhs[-1] = 1.0
    sol = np.linalg.solve(M, rhs)
    potential = {0: 0.0, **{n: sol[i] for n, i in index.items()}}
    return {name: potential[v] - potential[u] for name, u, v, _ in elements}


@given(rlc_networks())
def test_transfer_functions_match_nodal_analysis(elements):
    net = build(elements, source=vn.Symbol("V"))
    names = [name for name, *_ in elements]
    ss = net.state_space(outputs=[f"{n}.across" for n in names])
    H = ss.transfer_function()
    rng = np.random.default_rng(len(elements))
    for s_value in rng.normal(size=3) + 1j * rng.uniform(0.5, 2, size=3):
        expected = mna_across(elements, s_value)
        got = [complex(h) for h in H.subs(sympy.Symbol("s"), s_value).evalf()]
        for name, value in zip(names, got):
            assert abs(value - expected[name]) < 1e-9 * (1 + abs(expected[name])), name


@settings(max_examples=12)
@given(rlc_networks(max_nodes=4))
def test_energy_balance(elements):
    """Work of the source = energy stored + energy dissipated."""
    net = build(elements, source=sympy.sin(2 * vn.t) + 0.5)
    ts = np.linspace(0, 3, 6001)
    res = net.simulate((0, 3), t_eval=ts, rtol=1e-11, atol=1e-12)
    assert res.success

    def power(name):
        return res[f"{name}.across"] * res[f"{name}.through"]

    work = -simpson(power("V"), x=ts)                  # the source delivers -a*tau
    stored = np.zeros_like(ts)
    for name, _, _, value in elements:
        if name[0] in "LC":
            stored += 0.5 * float(value) * res[f"{name}.{'across' if name[0] == 'C' else 'through'}"] ** 2
    dissipated = sum(simpson(power(name), x=ts) for name, *_ in elements if name[0] == "R")
    scale = simpson(np.abs(power("V")), x=ts) + 1e-300
    assert abs(work - (stored[-1] - stored[0]) - dissipated) <= 1e-6 * scale
