"""Inputs at the ends of double precision get an answer or a refusal in words, never an
internal error: spans and sweeps from 1e-300 to 1e300, a source at 1e308 Hz, a report of a
network that stores no energy."""

import csv
import json
import sys
from pathlib import Path

import pytest

from vecnet.cli import main

sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
from _large_inputs import RC  # noqa: E402 - the same RC netlist as the hostile corpus's


def _run(capsys, tmp_path, name, text, *argv):
    model = tmp_path / name
    model.write_text(text, encoding="utf-8")
    status = main([argv[0], str(model), *argv[1:]])
    err = capsys.readouterr().err
    assert "internal error" not in err
    return status, err


def test_a_transient_from_1e_300_to_1e300_is_answered(capsys, tmp_path):
    out = tmp_path / "out.csv"
    status, err = _run(capsys, tmp_path, "tran.cir", RC.format(source="1", card=".tran 1e-300 1e300"),
                       "simulate", "-o", str(out))
    assert status == 0, err
    rows = list(csv.DictReader(out.open()))
    assert float(rows[-1]["t"]) == 1e300                       # the card's stop time
    assert float(rows[-1]["C1.across"]) == pytest.approx(1.0)  # charged to the source


def test_an_ac_sweep_of_1e308_points_per_decade_is_refused_by_max_points(capsys, tmp_path):
    status, err = _run(capsys, tmp_path, "ac.cir",
                       RC.format(source="AC 1", card=".ac dec 1e308 1e-300 1e300"), "ac", "-o",
                       str(tmp_path / "out.csv"))
    assert status == 2 and "max_points" in err


def test_an_ac_sweep_from_1e_300_to_1e300_hz_reaches_its_stop(capsys, tmp_path):
    out = tmp_path / "out.csv"
    status, err = _run(capsys, tmp_path, "ac.cir",
                       RC.format(source="AC 1", card=".ac dec 10 1e-300 1e300"), "ac", "-o",
                       str(out))
    assert status == 0, err
    rows = list(csv.reader(out.open()))[1:]
    assert len(rows) == 6001                             # 600 decades, 10 points each, and 1
    assert float(rows[0][0]) == 1e-300 and float(rows[-1][0]) == pytest.approx(1e300)


def test_a_source_at_1e308_hz_is_refused_by_max_cycles(capsys, tmp_path):
    status, err = _run(capsys, tmp_path, "sin.cir",
                       RC.format(source="SIN(0 1 1e308)", card=".tran 1e-3 1e-2"), "simulate",
                       "-o", str(tmp_path / "out.csv"))
    assert status == 2 and "max_cycles" in err


@pytest.mark.parametrize("elements", [
    [{"type": "Resistor", "name": "R1", "nodes": ["a", "b"], "parameters": {"R": 1.0}}],
    [{"type": "VoltageSource", "name": "V", "nodes": ["g", "a"], "parameters": {"V": 1.0}},
     {"type": "Resistor", "name": "R1", "nodes": ["a", "g"], "parameters": {"R": 1.0}},
     {"type": "Resistor", "name": "R2", "nodes": ["a", "b"], "parameters": {"R": 1.0}}],
], ids=["only a dangling element", "a source, a load and a dangling element"])
def test_the_report_of_a_network_without_states_says_there_is_nothing_to_plot(
        capsys, tmp_path, elements):
    doc = {"vecnet": "1", "kind": "network", "name": "d", "elements": elements}
    page = tmp_path / "d.html"
    status, err = _run(capsys, tmp_path, "d.json", json.dumps(doc), "report", "-o", str(page))
    assert status == 0, err
    assert "Nothing to plot: the network stores no energy" in page.read_text(encoding="utf-8")
