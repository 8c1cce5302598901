"""Connectivity checks that teach: a mistyped node name is caught and the likely intended
node named; an island names its nodes; sound models, numbered ladders and the bundled
examples raise nothing."""

import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import vecnet as vn
from vecnet.builders.network import connectivity_problems, warn_connectivity
from vecnet.errors import VecnetWarning

ROOT = Path(__file__).parent.parent
MODELS = ROOT / "examples" / "models"


def warned(load) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load()
    return [str(w.message) for w in caught if issubclass(w.category, VecnetWarning)]


def rc_with_typo() -> dict:
    """An RC filter whose load resistor was meant for node 'out' but was typed 'otu'."""
    def element(kind, name, nodes, **parameters):
        return {"type": kind, "name": name, "nodes": nodes, "parameters": parameters}
    return {"vecnet": "1", "kind": "network", "name": "rc",
            "elements": [element("VoltageSource", "Vs", ["g", "in"], V=1.0),
                         element("Resistor", "R1", ["in", "out"], R=1e3),
                         element("Capacitor", "C1", ["out", "g"], C=1e-6),
                         element("Resistor", "Rload", ["otu", "g"], R=1e4)]}


NETLIST_WITH_TYPO = "rc\nV1 in 0 1\nR1 in out 1k\nC1 out 0 1u\nRload otu 0 10k\n.end\n"


def assert_did_you_mean(messages, typed, meant):
    (message,) = [m for m in messages if "did you mean" in m]
    assert f"'{typed}'" in message and f"'{meant}'" in message


def test_a_misspelt_node_in_a_model_file_names_both_nodes():
    assert_did_you_mean(warned(lambda: vn.load_model(rc_with_typo())), "otu", "out")


def test_a_misspelt_node_in_a_netlist_names_both_nodes():
    assert_did_you_mean(warned(lambda: vn.load_netlist(NETLIST_WITH_TYPO)), "otu", "out")


@pytest.mark.parametrize("typed, meant", [("uot", "out"), ("outpt", "output"), ("oout", "out"),
                                          ("oUt", "out"), ("OUT", "out"), ("ouy", "out")])
def test_each_kind_of_single_typo_is_caught(typed, meant):
    net = vn.Network("rc")
    net.add(vn.VoltageSource("V", "g", "in", V=1.0), vn.Resistor("R", "in", meant, R=1.0),
            vn.Capacitor("C", meant, "g", C=1.0), vn.Resistor("Rl", typed, "g", R=1.0))
    assert_did_you_mean(warned(lambda: warn_connectivity(net)), typed, meant)


def test_the_ground_typed_as_the_letter_o_is_caught():
    messages = warned(lambda: vn.load_netlist("t\nV1 a 0 1\nR1 a b 1k\nC1 b 0 1u\nR2 b O 1k\n"))
    assert_did_you_mean(messages, "O", "0")


@pytest.mark.parametrize("cli_input", ["json", "cir"])
def test_the_command_line_prints_the_typo_as_one_warning_line(tmp_path, cli_input):
    path = tmp_path / f"rc.{cli_input}"
    path.write_text(json.dumps(rc_with_typo()) if cli_input == "json" else NETLIST_WITH_TYPO)
    run = subprocess.run([sys.executable, "-m", "vecnet.cli", "matrices", str(path)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    lines = [line for line in run.stderr.splitlines() if "did you mean" in line]
    assert len(lines) == 1 and lines[0].startswith("vecnet: warning:")
    assert "'otu'" in lines[0] and "'out'" in lines[0]


def test_an_island_names_its_nodes_up_to_eight():
    net = vn.Network("island")
    net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "g", R=1.0))
    ring = [f"k{j}" for j in range(12)]
    for j, node in enumerate(ring):
        net.add(vn.Capacitor(f"C{j}", node, ring[(j + 1) % len(ring)], C=1.0))
    (message,) = connectivity_problems(net)
    assert "not connected to the rest" in message
    assert all(f"'k{j}'" in message for j in range(8))
    assert "'k8'" not in message and "and 4 more" in message


def ladder(sections: int) -> vn.Network:
    """An RC ladder: nodes n0..n<sections>, numbered the way people number them."""
    net = vn.Network("ladder")
    net.add(vn.VoltageSource("V", "0", "n0", V=1.0))
    for k in range(1, sections + 1):
        net.add(vn.Resistor(f"R{k}", f"n{k - 1}", f"n{k}", R=1.0),
                vn.Capacitor(f"C{k}", f"n{k}", "0", C=1.0))
    return net


def test_a_numbered_ladder_raises_nothing():
    assert connectivity_problems(ladder(50)) == []


def test_a_numbered_node_left_open_is_dangling_but_not_a_typo():
    net = ladder(12)
    net.add(vn.Resistor("Rx", "n12", "n13", R=1.0))   # n13 is open; n12/n13 is a numbering
    (message,) = connectivity_problems(net)
    assert "'n13'" in message and "did you mean" not in message


@pytest.mark.parametrize("path", sorted(MODELS.glob("*.json")) + sorted(MODELS.glob("*.cir")),
                         ids=lambda p: p.name)
def test_the_bundled_models_raise_nothing(path):
    load = (lambda: vn.load_netlist(path)) if path.suffix == ".cir" else lambda: vn.load_model(path)
    assert warned(load) == []


def test_e1_raises_nothing():
    assert connectivity_problems(vn.load_model(MODELS / "e1.json").system) == []
