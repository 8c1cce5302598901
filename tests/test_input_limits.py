"""Large inputs are counted while they are read and refused, at their place in the file,
by a limit the message names with the way to raise it; or answered by the cheaper
formulation. Counts, not seconds: nothing here depends on the machine's speed."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import vecnet as vn
from vecnet.cli import main
from vecnet.formulation.numeric import SparseStateSpace
from vecnet.output.report import shown_state_space

sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
from _large_inputs import coupled_inductors, opamp_chain, resistor_network  # noqa: E402


def write(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def refused(capsys, path, limit):
    status = main(["equations", str(path)])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1, err
    assert str(path) in err and limit in err and f"--limit {limit}=" in err
    return err


def test_outputs_beyond_max_outputs_are_refused_before_anything_is_read(capsys, tmp_path):
    doc = resistor_network(3)
    doc["outputs"] = ["R1.through"] * 1001
    err = refused(capsys, write(tmp_path, "m.json", doc), "max_outputs")
    assert "/outputs" in err
    # at the limit the count passes and the file is read: refused then, at the second
    # entry, only for repeating one output
    doc["outputs"] = doc["outputs"][:1000]
    assert main(["equations", str(write(tmp_path, "ok.json", doc))]) == 2
    assert "/outputs/1: output 'R1.through' is listed already" in capsys.readouterr().err


def test_parameters_beyond_max_parameters_are_refused(capsys, tmp_path):
    doc = resistor_network(3)
    doc["parameters"] = {f"p{k}": 1.0 for k in range(10_001)}
    assert "/parameters" in refused(capsys, write(tmp_path, "m.json", doc), "max_parameters")


def test_parts_are_counted_over_a_whole_file(capsys, tmp_path):
    doc = resistor_network(20)                                 # 22 elements
    path = write(tmp_path, "m.json", doc)
    with vn.limits(max_parts=21), pytest.raises(vn.ModelFileError, match="max_parts") as err:
        vn.load_model(path)
    assert err.value.location == "/elements"
    with vn.limits(max_parts=22):
        vn.load_model(path)


def test_a_netlist_is_refused_at_the_first_card_beyond_the_limit(tmp_path):
    cards = "chain\nV1 n0 0 1\n" + "".join(f"R{k} n{k} n{k + 1} 1\n" for k in range(8)) \
        + "Rg n8 0 1\n.op\n.end\n"
    path = write(tmp_path, "c.cir", cards)
    with vn.limits(max_parts=5), pytest.raises(vn.ModelFileError, match="max_parts") as err:
        vn.load_netlist(path)
    assert "line 7" in str(err.value)             # the sixth element card, after the title
    params = "p\n" + "".join(f".param p{k}=1\n" for k in range(4)) + "V1 a 0 1\nR1 a 0 1\n.end\n"
    with vn.limits(max_parameters=3), pytest.raises(vn.ModelFileError, match="max_parameters"):
        vn.load_netlist(write(tmp_path, "p.cir", params))


def test_coupled_windings_beyond_max_windings_are_refused_at_their_k_card(capsys, tmp_path):
    path = write(tmp_path, "k.cir", coupled_inductors(25))
    err = refused(capsys, path, "max_windings")
    assert "netlist line" in err and "'K0'" in err
    with pytest.raises(vn.ModelError, match="max_windings"):
        vn.CoupledInductors("K", *range(50), L=[[1.0 if i == j else 0.1 for j in range(25)]
                                                for i in range(25)])


@pytest.mark.parametrize("text", [coupled_inductors(4), opamp_chain(11).replace(
    ".tran", "Rx n11 x 1k\nCx x 0 1u\n.tran")], ids=["4 coupled windings", "11 amplifiers"])
def test_networks_whose_symbolic_elimination_explodes_are_shown_numerically(text):
    # a few states, but the symbolic state space would need a 4 x 4 symbolic inverse, or
    # would nest the fractions of 11 amplifiers: shown by the sparse numeric formulation
    net = vn.load_netlist(text)
    exact = net.state_space()                  # the parameters' numbers in: cheap, the check
    shown = shown_state_space(net, "normal", len(exact.states))
    assert isinstance(shown, SparseStateSpace)
    at = [list(exact.states).index(name) for name in shown.states]
    A = np.array(exact.A, dtype=float)[np.ix_(at, at)]
    assert np.allclose(shown.A.toarray(), A, rtol=1e-9, atol=1e-9 * np.abs(A).max())
