"""Controlled sources and operational amplifiers against textbook transfer functions, an
independent modified nodal analysis written here, and ngspice when it is installed."""

import os
import subprocess

import numpy as np
import pytest
import sympy

import vecnet as vn
from vecnet.errors import FormulationError

s = vn.s
R, R1, R2, C, C1, C2, A = (vn.Symbol(n) for n in ("R", "R1", "R2", "C", "C1", "C2", "A"))
NGSPICE = "/usr/bin/ngspice"


def sallen_key(**opamp):
    """Unity-gain Sallen–Key low-pass: R1, R2 in series to the + input, C1 from their
    junction to the output, C2 from the + input to ground, output fed back to the - input."""
    net = vn.Network("sallen-key")
    net.add(vn.VoltageSource("V", "g", "i", V=vn.Symbol("V")), vn.Resistor("R1", "i", "m", R=R1),
            vn.Resistor("R2", "m", "p", R=R2), vn.Capacitor("C1", "m", "o", C=C1),
            vn.Capacitor("C2", "g", "p", C=C2), vn.OpAmp("U", "o", "p", "o", "g", **opamp))
    return net


def integrator(**opamp):
    net = vn.Network("integrator")
    net.add(vn.VoltageSource("V", "g", "i", V=vn.Symbol("V")), vn.Resistor("R", "i", "n", R=R),
            vn.Capacitor("C", "n", "o", C=C), vn.OpAmp("U", "n", "g", "o", "g", **opamp))
    return net


def gain(net):
    ss = net.state_space(outputs=["U.out.across"])
    return ss, ss.transfer_function()[0, 0]


SALLEN_KEY = 1 / (R1 * R2 * C1 * C2 * s**2 + C2 * (R1 + R2) * s + 1)


def test_sallen_key_ideal_is_the_textbook_low_pass_of_order_two():
    ss, H = gain(sallen_key())
    assert len(ss.states) == 2
    assert sympy.simplify(H - SALLEN_KEY) == 0


def test_inverting_integrator_ideal():
    ss, H = gain(integrator())
    assert len(ss.states) == 1
    assert sympy.simplify(H + 1 / (R * C * s)) == 0


@pytest.mark.parametrize("circuit, ideal", [(integrator, -1 / (R * C * s)),
                                            (sallen_key, SALLEN_KEY)])
def test_finite_gain_tends_to_the_ideal(circuit, ideal):
    ss, H = gain(circuit(gain=A))
    assert sympy.simplify(sympy.limit(H, A, sympy.oo) - ideal) == 0
    assert sympy.simplify(H - ideal) != 0  # a finite gain is not ideal


def test_sparse_formulation_matches_the_textbook_sallen_key():
    values = {R1: 1e3, R2: 2.2e3, C1: 1e-6, C2: 3.3e-7}
    net = vn.Network("sk")
    net.add(vn.VoltageSource("V", "g", "i", V=1.0), vn.Resistor("R1", "i", "m", R=values[R1]),
            vn.Resistor("R2", "m", "p", R=values[R2]), vn.Capacitor("C1", "m", "o", C=values[C1]),
            vn.Capacitor("C2", "g", "p", C=values[C2]), vn.OpAmp("U", "o", "p", "o", "g"))
    points = [50j, 300j + 20, 2000j]
    got = net.sparse_state_space(outputs=["U.out.across"]).transfer_function_at(points)[:, 0, 0]
    want = [complex(SALLEN_KEY.subs(values).subs(s, p)) for p in points]
    assert np.allclose(got, want, rtol=1e-10)


# -- the controlled sources of a netlist against modified nodal analysis ------------------

HEAD = "V1 in 0 DC 0 AC 1\nR1 in a 1k\nC1 a 0 1u\n"
CARDS = {
    "E": "E1 b 0 a c 3\nR2 b c 2k\nC2 c 0 0.5u\nR3 c 0 4k\n",
    "G": "G1 0 b a 0 2m\nR2 b 0 1k\nC2 b 0 1u\n",
    "F": "Vs a d 0\nR2 d 0 1k\nF1 0 b Vs 2\nR3 b 0 1k\nC2 b 0 1u\n",
    "H": "Vs a d 0\nR2 d 0 1k\nH1 b 0 Vs 500\nR3 b c 1k\nC2 c 0 1u\n",
}
OUT = {"E": "c", "G": "b", "F": "b", "H": "c"}
POINTS = [2j * np.pi * 100, 2j * np.pi * 300, 1000 + 2j * np.pi * 50]


def nodal(text, s_value, node):
    """V(node) by modified nodal analysis: KCL rows (current leaving each node) and one row
    per voltage-defined branch (V, E, H), whose current flows from n+ through it to n-."""
    cards = [line.split() for line in text.strip().splitlines()]
    named = {w for c in cards for w in c[1:3]} | {w for c in cards if c[0][0] in "EG"
                                                  for w in c[3:5]}
    nodes = sorted(named - {"0"})
    branches = [c[0] for c in cards if c[0][0] in "VEH"]
    index = {n: k for k, n in enumerate(nodes)}
    size = len(nodes) + len(branches)
    M = np.zeros((size, size), dtype=complex)
    rhs = np.zeros(size, dtype=complex)

    def add(row, col, value):
        if row is not None and col is not None:
            M[row, col] += value

    def at(n):
        return index.get(n)

    def number(word):
        return float(word.replace("k", "e3").replace("m", "e-3").replace("u", "e-6"))

    for c in cards:
        name, p, n = c[0], at(c[1]), at(c[2])
        kind = name[0]
        if kind in "RC":
            y = 1 / number(c[3]) if kind == "R" else s_value * number(c[3])
            for r, col, sign in ((p, p, 1), (n, n, 1), (p, n, -1), (n, p, -1)):
                add(r, col, sign * y)
        elif kind in "VEH":
            j = len(nodes) + branches.index(name)
            add(p, j, 1), add(n, j, -1), add(j, p, 1), add(j, n, -1)
            if kind == "V":
                rhs[j] = 1.0 if "AC" in c else 0.0
            elif kind == "E":
                add(j, at(c[3]), -number(c[5])), add(j, at(c[4]), number(c[5]))
            else:
                add(j, len(nodes) + branches.index(c[3]), -number(c[4]))
        elif kind == "G":
            for r, sign in ((p, 1), (n, -1)):
                add(r, at(c[3]), sign * number(c[5])), add(r, at(c[4]), -sign * number(c[5]))
        elif kind == "F":
            for r, sign in ((p, 1), (n, -1)):
                add(r, len(nodes) + branches.index(c[3]), sign * number(c[4]))
    return np.linalg.solve(M, rhs)[index[node]]


@pytest.mark.parametrize("card", sorted(CARDS))
def test_netlist_cards_match_nodal_analysis(card):
    text = HEAD + CARDS[card]
    net = vn.load_netlist("controlled " + card + "\n" + text + ".end\n")
    output = "C2.across"  # C2 runs from 0 to the output node: its across is the node voltage
    want = [nodal(text, p, OUT[card]) for p in POINTS]
    H = net.state_space(outputs=[output]).transfer_function()[0, 0]
    symbolic = [complex(H.subs(s, p)) for p in POINTS]
    sparse = net.sparse_state_space(outputs=[output]).transfer_function_at(POINTS)[:, 0, 0]
    assert np.allclose(symbolic, want, rtol=1e-9)
    assert np.allclose(sparse, want, rtol=1e-9)


@pytest.mark.skipif(not os.path.exists(NGSPICE), reason="ngspice is not installed")
def test_netlist_cards_match_ngspice(tmp_path):
    frequencies = [100.0, 300.0, 1000.0]
    for card in sorted(CARDS):
        text = HEAD + CARDS[card]
        data = tmp_path / f"{card}.txt"
        deck = tmp_path / f"{card}.cir"
        deck.write_text(f"{card}\n{text}.control\nac lin 10 100 1000\n"
                        f"wrdata {data} v({OUT[card]})\n.endc\n.end\n")
        subprocess.run([NGSPICE, "-b", str(deck)], capture_output=True, timeout=30)
        assert data.exists(), f"ngspice wrote no results for the {card} card"
        table = np.loadtxt(data)
        f = table[:, 0]
        spice = table[:, 1] + 1j * table[:, 2]
        pick = [int(np.argmin(abs(f - x))) for x in frequencies]
        net = vn.load_netlist(f"{card}\n{text}.end\n")
        got = net.sparse_state_space(outputs=["C2.across"]).transfer_function_at(
            2j * np.pi * f[pick])[:, 0, 0]
        assert np.allclose(got, spice[pick], rtol=1e-6), card


def test_netlist_ideal_opamp_extension_is_an_integrator():
    net = vn.load_netlist("integrator\nV1 in 0 1\nR1 in n 1k\nC1 n out 1u\nE1 out 0 0 n inf\n.end\n")
    H = net.state_space(outputs=["E1.out.across"]).transfer_function()[0, 0]
    assert sympy.simplify(H + 1 / (sympy.Rational(1, 1000) * s)) == 0


# -- elements and diagnosis -----------------------------------------------------------------

def test_controlled_sources_join_any_domains():
    pump = vn.AcrossControlledThroughSource("P", "g", "w", "g", "q", g=2.0,
                                            domains=("rotational", "fluid"))
    assert [e.domain.name for e in pump.edges] == ["rotational", "fluid"]


def test_loop_of_a_vcvs_and_a_voltage_source_is_refused_in_words():
    net = vn.Network()
    net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "b", "g", R=1.0),
            vn.VCVS("E", "g", "b", "g", "a", mu=2.0), vn.Resistor("R2", "a", "b", R=1.0))
    with pytest.raises(FormulationError, match=r"form a loop.*across source of VCVS 'E'"):
        net.state_space()


def test_cutset_of_a_vccs_and_a_current_source_is_refused_in_words():
    net = vn.Network()
    net.add(vn.VoltageSource("V", "g", "c", V=1.0), vn.Resistor("R", "c", "g", R=1.0),
            vn.CurrentSource("I", "g", "a", I=1.0), vn.VCCS("G", "g", "c", "a", "g", g=2.0))
    with pytest.raises(FormulationError, match=r"form a cutset.*through source of VCCS 'G'"):
        net.state_space()


def test_opamp_without_feedback_is_refused_in_words():
    net = vn.Network()
    net.add(vn.VoltageSource("V", "g", "i", V=1.0), vn.Resistor("R1", "i", "p", R=1.0),
            vn.Resistor("R2", "n", "g", R=1.0), vn.OpAmp("U", "n", "p", "o", "g"),
            vn.Resistor("RL", "o", "g", R=1.0))
    with pytest.raises(FormulationError, match="'U' has no feedback path"):
        net.state_space()


def test_controlled_sources_in_model_files_read_and_write_back(tmp_path):
    from vecnet.io import load_model, save_model

    doc = {"vecnet": "1", "kind": "network", "name": "amp",
           "elements": [
               {"type": "VoltageSource", "name": "V", "nodes": ["g", "a"], "parameters": {"V": 1.0}},
               {"type": "Resistor", "name": "R1", "nodes": ["a", "b"], "parameters": {"R": 1e3}},
               {"type": "Capacitor", "name": "C", "nodes": ["g", "b"], "parameters": {"C": 1e-6}},
               {"type": "VCVS", "name": "E", "nodes": ["g", "b", "g", "c"],
                "parameters": {"mu": 10.0}},
               {"type": "Resistor", "name": "RL", "nodes": ["c", "g"], "parameters": {"R": 100.0}}]}
    path = tmp_path / "amp.json"
    save_model(load_model(doc), path)
    for model in (load_model(doc), load_model(path)):
        ss = model.system.state_space(outputs=["RL.across"])
        # v_c = mu v_b, and RL runs from c to the ground: its across variable is -mu v_C
        assert ss.C.tolist() == [[-10]] and ss.A.tolist() == [[-1000]]   # -1/(R1 C)
