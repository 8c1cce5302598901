"""DC operating points and frequency responses against circuit theory and a hand-written
nodal analysis."""

import numpy as np
import pytest

import vecnet as vn
from vecnet.numerics.analysis import NoOperatingPoint, frequency_response, operating_point


def rc_lowpass(R=1e3, C=1e-6):
    net = vn.Network("rc")
    net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=R),
            vn.Capacitor("C", "g", "b", C=C))
    return net


def test_rc_lowpass_magnitude_and_phase():
    R, C = 2.2e3, 47e-9
    f = np.logspace(0, 6, 61)
    res = rc_lowpass(R, C).frequency_response(f, outputs=["C.across"])
    w = 2 * np.pi * f
    assert res.H.shape == (61, 1, 1)
    np.testing.assert_allclose(np.abs(res["C.across"]), 1 / np.sqrt(1 + (w * R * C) ** 2),
                               rtol=1e-10)
    np.testing.assert_allclose(res.phase_deg("C.across"), -np.degrees(np.arctan(w * R * C)),
                               atol=1e-8)
    np.testing.assert_allclose(res.magnitude_db("C.across"),
                               -10 * np.log10(1 + (w * R * C) ** 2), atol=1e-9)


def test_series_rlc_resonance():
    R, L, C = 10.0, 1e-3, 1e-6
    f0 = 1 / (2 * np.pi * np.sqrt(L * C))
    net = vn.Network("rlc")
    net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Inductor("L", "a", "b", L=L),
            vn.Capacitor("C", "b", "c", C=C), vn.Resistor("R", "g", "c", R=R))
    grid = np.concatenate([np.linspace(0.5 * f0, 2 * f0, 301), [f0]])
    res = frequency_response(net, grid, outputs=["R.across"])
    vr = res["R.across"]
    # at resonance the reactances cancel: all of the source's voltage is across R, in phase
    assert abs(vr[-1] - 1) < 1e-9
    assert abs(grid[np.argmax(np.abs(vr[:-1]))] - f0) <= 1.5 * f0 / 200
    # the half-power bandwidth of a series RLC is R / (2 pi L)
    above = grid[:-1][np.abs(vr[:-1]) >= 1 / np.sqrt(2)]
    assert abs((above.max() - above.min()) - R / (2 * np.pi * L)) < 2 * 1.5 * f0 / 300


def test_capacitor_across_a_source_is_its_admittance():
    # a capacitor right across a voltage source is a dependent store: its current is C dV/dt
    C = 3e-6
    net = vn.Network("c")
    net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Capacitor("C", "g", "a", C=C),
            vn.Resistor("R", "g", "a", R=5.0))
    f = np.array([0.0, 10.0, 1e3])
    res = frequency_response(net, f, outputs=["C.through", "R.through"])
    np.testing.assert_allclose(res["C.through"], 2j * np.pi * f * C, atol=1e-15)
    np.testing.assert_allclose(res["R.through"], np.full(3, 1 / 5.0))


def test_sources_driven_together_superpose():
    net = rc_lowpass()
    net.add(vn.CurrentSource("I", "g", "b", I=0.0))
    f = np.logspace(1, 4, 7)
    each = frequency_response(net, f, outputs=["C.across"])
    together = frequency_response(net, f, inputs={"V.across": 2.0, "I.through": 1e-3j},
                                  outputs=["C.across"])
    assert together.inputs == ("ac",)
    expected = 2.0 * each["C.across", "V.across"] + 1e-3j * each["C.across", "I.through"]
    np.testing.assert_allclose(together["C.across"], expected, rtol=1e-12)


def random_grid(rng, nodes=12, extra=14):
    """A connected random resistive network (a spanning tree plus extra edges) with one
    grounded voltage source, current sources, capacitors to ground and inductors in series
    with some resistors; returns the network and its nodal data."""
    net = vn.Network("grid")
    net.add(vn.VoltageSource("V", "0", "n0", V=float(rng.uniform(1, 5))))
    edges = [(int(rng.integers(0, k)), k) for k in range(1, nodes)]
    while len(edges) < nodes - 1 + extra:
        i, j = sorted(rng.choice(nodes, 2, replace=False).tolist())
        edges.append((i, j))
    edges += [(k, -1) for k in rng.choice(nodes, 3, replace=False)]  # -1: ground
    name = lambda k: "0" if k < 0 else f"n{k}"  # noqa: E731
    conductances = []
    for e, (i, j) in enumerate(edges):
        R = float(rng.uniform(0.5, 20))
        conductances.append((i, j, 1 / R))
        if rng.random() < 0.3:   # a short at DC in series with the resistor
            net.add(vn.Resistor(f"R{e}", name(i), f"m{e}", R=R),
                    vn.Inductor(f"L{e}", f"m{e}", name(j), L=float(rng.uniform(1e-3, 1))))
        else:
            net.add(vn.Resistor(f"R{e}", name(i), name(j), R=R))
    injected = {}
    for k in rng.choice(np.arange(1, nodes), 3, replace=False):
        injected[int(k)] = float(rng.uniform(-1, 1))
        net.add(vn.CurrentSource(f"I{k}", "0", f"n{k}", I=injected[int(k)]))
    for k in range(1, nodes):
        net.add(vn.Capacitor(f"C{k}", "0", f"n{k}", C=float(rng.uniform(1e-6, 1e-3))))
    return net, nodes, conductances, injected


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_grid_matches_nodal_analysis(seed):
    rng = np.random.default_rng(seed)
    net, nodes, conductances, injected = random_grid(rng)
    # nodal analysis, G v = i, with node 0 held at the source's value
    G = np.zeros((nodes, nodes))
    for i, j, g in conductances:
        for a, b in ((i, j), (j, i)):
            if a >= 0:
                G[a, a] += g
                if b >= 0:
                    G[a, b] -= g
    i_vec = np.zeros(nodes)
    for k, current in injected.items():
        i_vec[k] += current
    v0 = float(net.element("V").parameters["V"].value)
    free = np.arange(1, nodes)
    v = np.empty(nodes)
    v[0] = v0
    v[free] = np.linalg.solve(G[np.ix_(free, free)], i_vec[free] - G[free, 0] * v0)

    op = net.operating_point()
    for k in free:
        assert op[f"C{k}.across"] == pytest.approx(v[k], abs=1e-9)
    potential = lambda k: 0.0 if k < 0 else v[k]  # noqa: E731
    for e, (i, j, g) in enumerate(conductances):
        # the resistor's edge runs from node i towards node j (through an inductor, a short
        # at DC); passive sign convention: across = R through
        assert op[f"R{e}.through"] == pytest.approx(g * (potential(j) - potential(i)), abs=1e-9)
    # Kirchhoff's current law at the source: it delivers what the resistors draw from node 0
    drawn = sum(g * (v[0] - potential(j if i == 0 else i)) for i, j, g in conductances
                if 0 in (i, j))
    assert -op["V.through"] == pytest.approx(drawn - injected.get(0, 0.0), abs=1e-9)


def test_rlc_ladder_dc_is_the_resistive_divider():
    sections, V, R_load = 40, 12.0, 50.0
    rng = np.random.default_rng(5)
    resistances = rng.uniform(0.1, 2.0, sections)
    net = vn.Network("ladder")
    net.add(vn.VoltageSource("V", "0", "n0", V=V))
    for k in range(1, sections + 1):
        net.add(vn.Resistor(f"R{k}", f"n{k - 1}", f"m{k}", R=float(resistances[k - 1])),
                vn.Inductor(f"L{k}", f"m{k}", f"n{k}", L=1e-3),
                vn.Capacitor(f"C{k}", "0", f"n{k}", C=1e-6))
    net.add(vn.Resistor("Rload", f"n{sections}", "0", R=R_load))
    op = operating_point(net)
    current = V / (resistances.sum() + R_load)
    expected = V - current * np.cumsum(resistances)
    got = np.array([op[f"C{k}.across"] for k in range(1, sections + 1)])
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert op["L1.through"] == pytest.approx(-current, rel=1e-12)   # passive sign convention
    # and the frequency response at 0 Hz is the same divider
    res = frequency_response(net, [0.0], outputs=[f"C{sections}.across"])
    assert res[f"C{sections}.across"][0] == pytest.approx(expected[-1] / V, rel=1e-12)


def test_inputs_override_the_sources_values():
    op = operating_point(rc_lowpass(), inputs={"V.across": 3.5 * vn.t + 2.0})
    assert op["C.across"] == pytest.approx(2.0)
    assert op.inputs == {"V.across": 2.0}
    with pytest.raises(vn.errors.UnknownNameError, match="no input 'W.across'"):
        operating_point(rc_lowpass(), inputs={"W.across": 1.0})


def floating_capacitor():
    net = vn.Network("float")
    net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
            vn.Capacitor("C1", "b", "c", C=1e-6), vn.Capacitor("C2", "g", "c", C=2e-6),
            vn.Capacitor("C3", "g", "b", C=1e-6))
    return net


def test_floating_capacitor_node_is_refused_with_its_states():
    with pytest.raises(NoOperatingPoint, match="no DC path") as info:
        operating_point(floating_capacitor())
    assert isinstance(info.value, vn.FormulationError)
    # the charge on node c is free; C3 is fixed by the source through R
    assert set(info.value.states) == {"C1.across", "C2.across"}
    assert "floating capacitor node" in str(info.value)


def test_inductor_loop_and_pure_integrators_are_refused():
    loop = vn.Network("loop")
    loop.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
             vn.Inductor("L1", "b", "c", L=1.0), vn.Inductor("L2", "c", "g", L=2.0),
             vn.Inductor("L3", "b", "g", L=1.0))
    with pytest.raises(NoOperatingPoint, match="inductor loop") as info:
        operating_point(loop)
    assert len(info.value.states) == 2 and all(s.startswith("L") for s in info.value.states)
    charged = vn.Network("integrator")
    charged.add(vn.CurrentSource("I", "g", "a", I=1.0), vn.Capacitor("C", "g", "a", C=1.0))
    with pytest.raises(NoOperatingPoint, match="'?C.across'? is undetermined"):
        operating_point(charged)
    # a frequency of zero asks for the same solve
    with pytest.raises(NoOperatingPoint):
        frequency_response(charged, [0.0, 1.0])
    # away from zero the integrator is 1 / (jwC)
    res = frequency_response(charged, [1.0], outputs=["C.across"])
    assert res["C.across"][0] == pytest.approx(1 / (2j * np.pi))


def test_lossless_resonance_is_refused_at_its_frequency():
    L, C = 1e-3, 1e-6
    net = vn.Network("lc")
    net.add(vn.CurrentSource("I", "g", "a", I=1.0), vn.Resistor("R", "a", "g", R=1.0),
            vn.Capacitor("C", "g", "b", C=C), vn.Inductor("L", "b", "g", L=L))
    with pytest.raises(vn.FormulationError, match="resonates without loss"):
        frequency_response(net, [1 / (2 * np.pi * np.sqrt(L * C))])


def test_bad_frequencies_are_refused():
    for bad in ([-1.0], [np.nan], [np.inf]):
        with pytest.raises(vn.ModelError, match="finite and not negative"):
            frequency_response(rc_lowpass(), bad)
    with vn.limits(max_points=5), pytest.raises(vn.ModelError, match="max_points"):
        frequency_response(rc_lowpass(), np.arange(6.0))
    res = frequency_response(rc_lowpass(), [1.0, 2.0])
    with pytest.raises(vn.errors.UnknownNameError, match="no output 'X.across'"):
        res["X.across"]


def test_small_models_solve_every_frequency_at_once_as_the_sparse_lu_does(monkeypatch):
    """An RLC ladder of 10 sections (20 states) at 2,000 frequencies through its
    resonances: LAPACK's inverses, many frequencies at once, give the responses of one
    sparse LU a frequency to within roundoff times the conditioning near resonance."""
    import vecnet.numerics.analysis as analysis

    net = vn.Network("ladder")
    net.add(vn.VoltageSource("V", "g", "n0", V=1.0))
    for k in range(10):
        net.add(vn.Resistor(f"R{k}", f"n{k}", f"m{k}", R=0.5),
                vn.Inductor(f"L{k}", f"m{k}", f"n{k + 1}", L=1e-3),
                vn.Capacitor(f"C{k}", "g", f"n{k + 1}", C=1e-6))
    frequencies = np.geomspace(10, 1e5, 2000)
    dense = frequency_response(net, frequencies)
    monkeypatch.setattr(analysis, "DENSE_STATES", 0)
    sparse = frequency_response(net, frequencies)
    assert dense.H.shape == sparse.H.shape == (2000, len(dense.outputs), 1)
    scale = np.abs(sparse.H).max(axis=0)
    assert np.all(np.abs(dense.H - sparse.H) <= 1e-9 * scale)


def _ladder(sections, R=0.1, L=1e-3, C=1e-3):
    net = vn.Network("ladder")
    net.add(vn.VoltageSource("V", "0", "n0", V=1.0))
    for k in range(1, sections + 1):
        net.add(vn.Resistor(f"R{k}", f"n{k - 1}", f"m{k}", R=R),
                vn.Inductor(f"L{k}", f"m{k}", f"n{k}", L=L),
                vn.Capacitor(f"C{k}", "0", f"n{k}", C=C))
    return net


def _mesh_response(sections, s, probe, R=0.1, L=1e-3, C=1e-3):
    """v_probe / V of the ladder from its own mesh and node equations, dense:
    L i_k' = v_{k-1} - R i_k - v_k, C v_k' = i_k - i_{k+1}, v_0 = V."""
    n = sections
    A = np.zeros((2 * n, 2 * n))
    for k in range(n):
        A[k, k], A[k, n + k] = -R / L, -1 / L
        if k:
            A[k, n + k - 1] = 1 / L
        A[n + k, k] = 1 / C
        if k + 1 < n:
            A[n + k, k + 1] = -1 / C
    b = np.zeros(2 * n)
    b[0] = 1 / L
    return np.array([np.linalg.solve(x * np.eye(2 * n) - A, b)[n + probe - 1] for x in s])


@pytest.mark.parametrize("sections", [40, 400])
def test_a_long_ladder_answers_as_its_mesh_equations(sections):
    """A chain-like network beyond the dense path's size is factorised as a band: its
    response equals the one of the ladder's hand-written equations at every frequency,
    through the resonances of its sections."""
    f = np.logspace(0, 4, 31)
    for probe in (1, sections // 2, sections):
        res = frequency_response(_ladder(sections), f, outputs=[f"C{probe}.across"])
        expected = _mesh_response(sections, 2j * np.pi * f, probe)
        assert np.allclose(res.H[:, 0, 0], expected, rtol=1e-9,
                           atol=1e-12 * np.abs(expected).max())


def test_a_lossless_long_ladder_is_refused_at_its_resonance():
    """40 lossless LC sections (80 states: the band path): at the line's lowest
    eigenfrequency sI - A is singular and said to be; 1 % away it is not."""
    net = vn.Network("lc")
    net.add(vn.VoltageSource("V", "0", "n0", V=1.0))
    sections = 40
    for k in range(1, sections + 1):
        net.add(vn.Inductor(f"L{k}", f"n{k - 1}", f"n{k}", L=1.0),
                vn.Capacitor(f"C{k}", "0", f"n{k}", C=1.0))
    # the shorted-open line of N sections (L = C = 1): w_m = 2 sin((2 m - 1) pi / (2 (2 N + 1)))
    w = 2 * np.sin(np.pi / (2 * (2 * sections + 1)))
    with pytest.raises(vn.FormulationError, match="resonates without loss"):
        frequency_response(net, [w / (2 * np.pi)], outputs=[f"C{sections}.across"])
    near = frequency_response(net, [1.01 * w / (2 * np.pi)], outputs=[f"C{sections}.across"])
    assert np.isfinite(near.H).all()
