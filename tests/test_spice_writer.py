"""Writing networks as SPICE netlists: read -> write -> read keeps the state space, and
ngspice's ``.ac`` analysis of a written netlist agrees with vecnet's frequency response."""

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import sympy

import vecnet as vn
from vecnet.errors import ModelError, ModelFileError

NGSPICE = "/usr/bin/ngspice"
MODELS = Path(__file__).resolve().parent.parent / "examples" / "models"

HEAD = "V1 in 0 DC 0 AC 1\nR1 in a 1k\nC1 a 0 1u\n"
# each controlled source, and coupled inductors (the K card before its L cards), after HEAD;
# the output is V(out), the across variable of C2
NETLISTS = {
    "E": "E1 b 0 a c 3\nR2 b c 2k\nC2 c 0 0.5u\nR3 c 0 4k\n",
    "G": "G1 0 b a 0 2m\nR2 b 0 1k\nC2 b 0 1u\n",
    "F": "Vs a d 0\nR2 d 0 1k\nF1 0 b Vs 2\nR3 b 0 1k\nC2 b 0 1u\n",
    "H": "Vs a d 0\nR2 d 0 1k\nH1 b 0 Vs 500\nR3 b c 1k\nC2 c 0 1u\n",
    "K": "K1 La Lb 0.8\nR2 a d 100\nLa d 0 10m\nLb b 0 40m\nR3 b c 200\nC2 c 0 1u\n",
    "K3": "Ka La Lb 0.5\nKb Lb Lc -0.3\nR2 a d 100\nLa d 0 10m\nLb b 0 40m\nLc e 0 5m\n"
          "R4 e 0 50\nR3 b c 200\nC2 c 0 1u\n",
}


def netlist(card):
    return f"{card}\n{HEAD}{NETLISTS[card]}.end\n"


def matrices(net, outputs):
    ss = net.sparse_state_space(outputs=outputs)
    return ss.states, ss.inputs, [m.toarray() for m in (ss.A, ss.B, ss.C, ss.D)]


def assert_same_state_space(first, second, outputs):
    states, inputs, parts = matrices(first, outputs)
    states2, inputs2, parts2 = matrices(second, outputs)
    assert (states, inputs) == (states2, inputs2)
    for m, m2 in zip(parts, parts2):
        assert np.allclose(m, m2, rtol=1e-12, atol=0)


@pytest.mark.parametrize("card", sorted(NETLISTS))
def test_round_trip_keeps_the_state_space(card):
    net = vn.load_netlist(netlist(card))
    again = vn.load_netlist(vn.write_netlist(net))
    assert [type(el) for el in again.elements] == [type(el) for el in net.elements]
    assert again.analyses.ac_sources == net.analyses.ac_sources
    assert_same_state_space(net, again, ["C2.across", "R1.through"])


def test_round_trip_of_the_bundled_netlist_keeps_its_pulse_and_commands(tmp_path):
    net = vn.load_netlist(MODELS / "rc_filter.cir")
    path = tmp_path / "written.cir"
    text = vn.write_netlist(net, path)
    assert path.read_text() == text and "PULSE(" in text
    again = vn.load_netlist(path)
    assert again.analyses == net.analyses
    assert_same_state_space(net, again, ["C1.across"])
    source, source2 = (n.element("V1").parameters["V"].value for n in (net, again))
    times = np.linspace(0, 1e-2, 97)
    assert [float(source.subs(vn.t, x)) for x in times] == \
        [float(source2.subs(vn.t, x)) for x in times]


def test_network_built_in_python_round_trips_with_card_letters_added():
    net = vn.Network("transformer")
    net.add(vn.VoltageSource("source", "g", "in", V=1.0), vn.Resistor("R1", "in", "a", R=2.0),
            vn.CoupledInductors("T", "g", "a", "g", "b", L=[[1.0, 0.6], [0.6, 0.5]],
                                windings=("p", "s")),
            vn.Resistor("load", "g", "b", R=3.0))
    text = vn.write_netlist(net)
    assert "Lp a 0 1.0" in text.splitlines() and "KT Lp Ls" in text
    again = vn.load_netlist(text)
    points = [0.5j, 2j, 1 + 1j]
    want = net.sparse_state_space(outputs=["load.across"]).transfer_function_at(points)
    got = again.sparse_state_space(outputs=["Rload.across"]).transfer_function_at(points)
    assert np.allclose(got, want, rtol=1e-12)


def test_what_spice_cannot_say_is_refused_in_words():
    net = vn.Network("n")
    net.add(vn.VoltageSource("V1", "g", "a", V=sympy.sin(vn.t)), vn.Resistor("R1", "a", "g", R=1.0))
    with pytest.raises(ModelError, match="no SPICE form"):
        vn.write_netlist(net)
    net = vn.Network("n")
    net.add(vn.VoltageSource("V1", "g", "a", V=1.0), vn.Resistor("R1", "a", "g", R=vn.Symbol("R")))
    with pytest.raises(ModelError, match="has no number"):
        vn.write_netlist(net)
    net = vn.Network("n")
    net.add(vn.VoltageSource("V1", "g", "a", V=1.0), vn.Transformer("T", "g", "a", "g", "b", N=2.0),
            vn.Resistor("R1", "b", "g", R=1.0))
    with pytest.raises(ModelError, match="has no SPICE card"):
        vn.write_netlist(net)


@pytest.mark.parametrize("bad, words", [("K1 La Lb 1.5", r"outside \[-1, 1\]"),
                                        ("K1 La Lx 0.5", "'Lx' is not an inductor")])
def test_k_card_refusals_name_the_line(bad, words):
    text = f"k\n{bad}\nV1 a 0 1\nLa a 0 1m\nLb b 0 1m\nR1 b 0 1\n.end\n"
    with pytest.raises(ModelFileError, match=f"netlist line 2: .*{words}"):
        vn.load_netlist(text)


@pytest.mark.skipif(not os.path.exists(NGSPICE), reason="ngspice is not installed")
@pytest.mark.parametrize("card", ["F", "H", "K", "K3"])
def test_written_netlist_runs_in_ngspice_and_agrees(card, tmp_path):
    net = vn.load_netlist(netlist(card))
    data = tmp_path / "out.txt"
    out = net.element("C2").edges[0].head
    control = f".control\nac lin 7 100 1000\nwrdata {data} v({out})\n.endc\n"
    deck = tmp_path / "deck.cir"
    written = vn.write_netlist(net)
    deck.write_text(written.replace(".end\n", control + ".end\n"))
    subprocess.run([NGSPICE, "-b", str(deck)], capture_output=True, timeout=30)
    assert data.exists(), "ngspice wrote no results"
    table = np.loadtxt(data)
    spice = table[:, 1] + 1j * table[:, 2]
    output = "C2.across"
    response = vn.frequency_response(net, table[:, 0], inputs=["V1.across"], outputs=[output])
    assert np.allclose(response[output], spice, rtol=1e-6)
