"""The ``op`` and ``ac`` commands, ``.tran`` in ``simulate``, per-command help, ``--version``
and the permissions of the files the command writes."""

import csv
import io
import os
import stat
from pathlib import Path

import numpy as np
import pytest

from vecnet.cli import main

ROOT = Path(__file__).parent.parent
MODELS = ROOT / "examples" / "models"

DIVIDER = """divider with a filter
V1 in 0 DC 12 AC 2 30
R1 in mid 3k
L1 mid out 10m
R2 out 0 1k
C1 out 0 1u
.op
.ac lin 5 0 4k
.tran 1u 1m
.end
"""


def run(capsys, *args):
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def divider(tmp_path):
    path = tmp_path / "divider.cir"
    path.write_text(DIVIDER)
    return path


def table(text: str) -> dict:
    rows = list(csv.reader(io.StringIO(text)))
    return {name: [float(r[k]) for r in rows[1:]] for k, name in enumerate(rows[0])}


def test_op_gives_the_resistive_divider(capsys, divider, tmp_path):
    status, out, err = run(capsys, "op", divider)
    assert status == 0, err
    values = dict(line.split() for line in out.splitlines()[1:])
    # DC: the inductor shorts, the capacitor opens: 12 V over 3k + 1k
    assert float(values["C1.across"]) == pytest.approx(3.0)
    assert float(values["R1.across"]) == pytest.approx(9.0)   # SPICE: V(in) - V(mid)
    target = tmp_path / "op.csv"
    status, out, _ = run(capsys, "op", divider, "--output", target)
    assert status == 0 and out.strip() == str(target)
    rows = dict(csv.reader(io.StringIO(target.read_text())))
    assert rows.pop("variable") == "value" and float(rows["L1.through"]) == pytest.approx(3e-3)


def test_ac_uses_the_netlists_card_and_amplitude(capsys, divider):
    status, out, err = run(capsys, "ac", divider, "--outputs", "C1.across")
    assert status == 0, err
    data = table(out)
    f = np.array(data["f"])
    assert f.tolist() == [0, 1000, 2000, 3000, 4000]          # .ac lin 5 0 4k
    # the divider by hand: Z = R2 || C1, V(out) = 2 e^{j30 deg} Z / (R1 + jwL + Z)
    w = 2 * np.pi * f
    Z = 1 / (1 / 1e3 + 1j * w * 1e-6)
    H = 2 * np.exp(1j * np.pi / 6) * Z / (3e3 + 1j * w * 10e-3 + Z)
    np.testing.assert_allclose(data["C1.across dB"], 20 * np.log10(np.abs(H)), atol=1e-8)
    np.testing.assert_allclose(data["C1.across deg"], np.degrees(np.unwrap(np.angle(H))),
                               atol=1e-7)
    # options override the card
    status, out, _ = run(capsys, "ac", divider, "--start", "10", "--stop", "20", "--points", "3",
                         "--outputs", "C1.across")
    assert status == 0 and table(out)["f"] == [10.0, 15.0, 20.0]


def test_ac_of_a_json_model_and_its_plot(capsys, tmp_path):
    status, out, err = run(capsys, "ac", MODELS / "rlc.json", "--start", "1", "--stop", "1e3",
                           "--points", "5")
    assert status == 0, err
    assert len(table(out)["f"]) == 16       # 5 a decade over three decades, both ends
    for fmt in ("png", "svg"):
        target = tmp_path / f"bode.{fmt}"
        status, _, err = run(capsys, "ac", MODELS / "rlc.json", "--output", target)
        assert status == 0 and target.stat().st_size > 1000, err


@pytest.mark.parametrize("args, words", [
    (["--start", "0"], "--start must be a finite number above 0"),
    (["--stop", "nan"], "--stop must be a finite number above 0"),
    (["--points", "2.5"], "--points must be a finite whole number"),
    (["--start", "10", "--stop", "1"], "start must be below the stop"),
    (["--points", "1000000"], "max_points"),
    (["--outputs", "X.across"], "no variable 'X.across'"),
])
def test_bad_ac_options_are_one_line(capsys, args, words):
    status, out, err = run(capsys, "ac", MODELS / "rlc.json", *args)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err


def test_op_of_a_mechanism_and_of_a_floating_node_say_why(capsys, tmp_path):
    status, _, err = run(capsys, "op", MODELS / "pendulum.json")
    assert status == 2 and "works on networks" in err
    floating = tmp_path / "float.cir"
    floating.write_text("floating\nV1 a 0 1\nR1 a b 1k\nC1 b c 1u\nC2 c 0 1u\nC3 b 0 1u\n")
    status, _, err = run(capsys, "op", floating)
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert "C1.across, C2.across are undetermined at DC" in err


def test_simulate_follows_the_tran_card(capsys, divider):
    status, out, err = run(capsys, "simulate", divider)
    assert status == 0, err
    t = table(out)["t"]
    # .tran 1u 1m: to 1 ms, a point every microsecond
    assert len(t) == 1001 and t[-1] == pytest.approx(1e-3)
    status, out, _ = run(capsys, "simulate", divider, "--points", "11", "--t-end", "2e-3")
    assert table(out)["t"] == pytest.approx(np.linspace(0, 2e-3, 11).tolist())


def test_the_rc_filter_example_runs_to_its_tran_stop(capsys):
    status, out, err = run(capsys, "simulate", MODELS / "rc_filter.cir")
    assert status == 0, err
    data = table(out)
    assert data["t"][-1] == pytest.approx(10e-3) and len(data["t"]) == 1001
    # the pulse never leaves its levels, and the filtered output stays between them too
    assert 0 <= min(data["V1.across"]) and max(data["V1.across"]) <= 1
    assert 0 <= min(data["C1.across"]) and max(data["C1.across"]) <= 1


@pytest.mark.parametrize("value", ["0", "-3", "nan", "inf", "many"])
def test_simulate_points_are_checked(capsys, value):
    status, out, err = run(capsys, "simulate", MODELS / "rlc.json", "--points", value)
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "--points" in err


def test_each_command_has_its_own_help_and_there_is_a_version(capsys):
    status, help_text, _ = run(capsys, "draw", "--help")
    assert status == 0 and "usage: vecnet draw" in help_text
    assert "--tree" in help_text and "--t-end" not in help_text and "--start" not in help_text
    assert "--start" in run(capsys, "ac", "--help")[1]
    from importlib.metadata import version

    status, out, _ = run(capsys, "--version")
    assert status == 0 and out.strip() == f"vecnet {version('vecnet')}"


def test_an_error_states_its_location_once(capsys):
    path = ROOT / "tests" / "data" / "bad_models" / "unknown_element_type.json"
    status, _, err = run(capsys, "matrices", path)
    assert status == 2
    assert err.count("/elements/1/type") == 1, err


def test_written_files_follow_the_umask(capsys, tmp_path):
    previous = os.umask(0o022)
    try:
        targets = [(["matrices", MODELS / "rlc.json"], "m.txt"),
                   (["equations", MODELS / "rlc.json"], "e.txt"),
                   (["draw", MODELS / "rlc.json"], "d.dot"),
                   (["simulate", MODELS / "rc_filter.cir"], "s.csv"),
                   (["op", MODELS / "rc_filter.cir"], "o.csv"),
                   (["ac", MODELS / "rc_filter.cir"], "a.csv"),
                   (["report", MODELS / "rlc.json"], "r.html")]
        for args, name in targets:
            status, _, err = run(capsys, *args, "--output", tmp_path / name)
            assert status == 0, err
            assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o644, name
    finally:
        os.umask(previous)


def test_a_sweep_grid_is_bounded_by_its_total_count_before_any_case_runs(capsys):
    """Each parameter's count is bounded, and so is their product: 1000 x 1000 cases
    (hours of work) are refused at once, naming the limit and how to raise it."""
    code, _, err = run(capsys, "sweep", MODELS / "rlc.json", "--param", "R=1:10:1000",
                       "--param", "C=1e-6:1e-5:1000")
    assert code == 2
    assert "1000000 cases (1000 R x 1000 C)" in err and "--limit max_cases=" in err


def test_a_parameter_given_twice_is_refused_in_words(capsys):
    for command in (["sweep", MODELS / "rlc.json", "--param", "R=1,2"],
                    ["equations", MODELS / "rlc.json", "--param", "R=1"]):
        code, _, err = run(capsys, *command, "--param", "R=2")
        assert code == 2 and "--param R is given 2 times" in err


@pytest.mark.parametrize("command", [["ac"], ["simulate", "--format", "csv"], ["op"],
                                     ["equations"], ["matrices"]])
def test_a_network_command_imports_no_graph_library(command, tmp_path):
    """A network's commands read, formulate and solve it with numpy, scipy and sympy
    alone: networkx (0.1-0.2 s of start-up) is imported by a fresh interpreter only where
    a transducer's tree needs it."""
    import subprocess
    import sys

    code = ("import sys; from vecnet.cli import main; "
            f"code = main({[*command[:1], str(MODELS / 'rlc.json'), *command[1:]]!r}); "
            "print(code, 'networkx' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, check=True)
    assert out.stdout.split()[-2:] == ["0", "False"], out.stdout[-500:] + out.stderr[-500:]
