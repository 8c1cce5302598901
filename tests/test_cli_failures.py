"""Every failure of the ``vecnet`` command is one line on standard error with exit status 2
(130 when interrupted), and no output file, whole or partial, is left behind.

The cases are the ones a hostile-input review found: bad end times, unphysical or
degenerate values, unwritable outputs, inputs that asked for unbounded work.
"""

import copy
import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import vecnet as vn
from vecnet.cli import main

ROOT = Path(__file__).parent.parent
MODELS = ROOT / "examples" / "models"
RLC = json.loads((MODELS / "rlc.json").read_text())
PENDULUM = json.loads((MODELS / "pendulum.json").read_text())


def run(capsys, *args):
    """The command in this process: (status, standard output, standard error)."""
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("vecnet: error: "), err
    assert "Traceback" not in err
    return lines[0]


def model_file(tmp_path, doc, name="model.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def rlc(**changes):
    doc = copy.deepcopy(RLC)
    for key, value in changes.items():
        doc[key] = {**doc[key], **value} if isinstance(value, dict) else value
    return doc


@pytest.mark.parametrize("t_end, why", [("0", "after the start"), ("-1", "after the start"),
                                        ("nan", "finite"), ("inf", "finite")])
def test_bad_end_times_are_refused(tmp_path, capsys, t_end, why):
    out = tmp_path / "r.csv"
    status, stdout, err = run(capsys, "simulate", MODELS / "rlc.json", "--t-end", t_end,
                              "--output", out)
    assert status == 2 and stdout == ""
    assert f"--t-end {t_end}" in one_error_line(err) and why in err
    assert not out.exists()


@pytest.mark.parametrize("parameters, words", [
    ({"C": 0}, "open circuit"), ({"R": 0}, "short circuit"), ({"C": 1e-310}, "subnormal"),
    ({"C": -1e-5}, "not physical")])
def test_degenerate_values_are_refused_in_words(tmp_path, capsys, parameters, words):
    path = model_file(tmp_path, rlc(parameters=parameters))
    out = tmp_path / "r.csv"
    status, _, err = run(capsys, "simulate", path, "--output", out)
    assert status == 2 and words in one_error_line(err)
    assert str(path) in err and not out.exists()


def test_a_span_too_short_for_double_precision(tmp_path, capsys):
    path = model_file(tmp_path, rlc(simulation={"t_span": [0, 5e-324]}))
    status, _, err = run(capsys, "simulate", path)
    assert status == 2 and "/simulation/t_span/1" in one_error_line(err)
    with pytest.raises(vn.ModelError, match="too short"):
        vn.load_model(MODELS / "rlc.json").simulate(t_span=(1.0, 1.0 + 1e-15))


def test_a_source_far_too_fast_for_the_span(tmp_path, capsys):
    doc = rlc(inputs={"Vs.across": "sin(2*pi*1e15*t)"})
    status, _, err = run(capsys, "simulate", model_file(tmp_path, doc))
    line = one_error_line(err)
    assert status == 2 and "'Vs.across'" in line and "max_cycles" in line
    assert "5e+12 periods" in line                       # 1e15 Hz over the file's 5 ms


def test_a_million_output_points(tmp_path, capsys):
    path = model_file(tmp_path, rlc(simulation={"t_span": [0, 0.005], "points": 1_000_000}))
    status, _, err = run(capsys, "simulate", path)
    assert status == 2 and "max_points" in one_error_line(err)


def test_a_billion_seconds_of_a_mechanism_stop_with_how_far_they_got(tmp_path, capsys):
    doc = copy.deepcopy(PENDULUM)
    doc["simulation"] = {"t_span": [0, 1e9], "points": 11}
    out = tmp_path / "p.csv"
    path = model_file(tmp_path, doc)
    status, _, err = run(capsys, "simulate", path, "--output", out)
    line = one_error_line(err)    # refused before any work: far more periods than max_cycles
    assert status == 2 and "max_cycles" in line and "span of 1e+09 s" in line
    status, _, err = run(capsys, "simulate", path, "--output", out,
                         "--limit", "max_evaluations=5000", "--limit", "max_cycles=1e12")
    line = one_error_line(err)
    assert status == 2 and "stopped at t = " in line and "5000 evaluations" in line
    assert not out.exists()


def test_a_network_too_large_for_the_symbolic_formulation(tmp_path, capsys):
    cards = ["ladder", "V1 n0 0 1"] + [f"R{k} n{k} n{k + 1} 1\nC{k} n{k + 1} 0 1m"
                                       for k in range(30)] + [".end"]
    path = tmp_path / "ladder.cir"
    path.write_text("\n".join(cards) + "\n")
    status, _, err = run(capsys, "equations", path, "--limit", "max_elements=50")
    assert status == 2 and "61 elements" in one_error_line(err) and "max_elements" in err
    status, out, _ = run(capsys, "equations", path)
    assert status == 0 and "C29" in out                    # within the limit it runs
    # a simulation of the linear ladder takes the sparse numeric formulation, unbounded
    status, out, _ = run(capsys, "simulate", path, "--t-end", "1e-3", "--limit",
                         "max_elements=50")
    assert status == 0 and len(out.splitlines()) == 502


def test_limits_must_be_known_positive_numbers(capsys):
    for limit in ("max_points=x", "no_such_limit=3", "max_points=-1", "max_seconds=nan"):
        status, _, err = run(capsys, "simulate", MODELS / "rlc.json", "--limit", limit)
        assert status == 2 and "limit" in one_error_line(err)


def test_unwritable_outputs(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("keep me")
    cases = {tmp_path: "is a directory",                      # a folder as the output
             afile / "r.csv": "is a file, not a folder",      # under an existing file
             Path("/proc/vecnet/r.csv"): ""}                  # a place that cannot be made
    for output, words in cases.items():
        status, stdout, err = run(capsys, "simulate", MODELS / "rlc.json", "--output", output)
        assert status == 2 and stdout == "" and words in one_error_line(err)
    assert afile.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]   # no temporary files


@pytest.mark.parametrize("command", ["matrices", "equations", "draw", "simulate", "report", "op",
                                     "ac", "sweep"])
def test_an_output_in_a_missing_folder_is_refused_not_made(tmp_path, capsys, command):
    output = tmp_path / "missing" / "deeper" / "out.csv"
    extra = ["--param", "R=1,2"] if command == "sweep" else []
    status, stdout, err = run(capsys, command, MODELS / "rlc.json", "--output", output, *extra)
    line = one_error_line(err)
    assert status == 2 and stdout == "" and f"{output}: the folder" in line
    assert "does not exist" in line and list(tmp_path.iterdir()) == []


def test_help_states_where_output_goes(capsys):
    for command, words in (("report", "report.html in the current folder"),
                           ("simulate", "CSV on standard output")):
        assert main([command, "--help"]) == 0
        assert words in " ".join(capsys.readouterr().out.split())


@pytest.mark.skipif(os.geteuid() != 0 and not os.path.exists("/sys"), reason="needs /sys")
def test_a_read_only_place(capsys):
    status, _, err = run(capsys, "report", MODELS / "rlc.json", "--output", "/sys/vecnet.html")
    assert status == 2 and "/sys/vecnet.html: cannot write it" in one_error_line(err)


def test_missing_and_non_file_models(tmp_path, capsys):
    for path, words in ((tmp_path / "none.json", "no such file"), (tmp_path, "not a file")):
        status, _, err = run(capsys, "matrices", path)
        assert status == 2 and words in one_error_line(err)


def test_usage_errors_are_one_line(capsys):
    status, _, err = run(capsys, "explode", MODELS / "rlc.json")
    assert status == 2 and "invalid choice" in one_error_line(err)
    status, _, err = run(capsys, "simulate", MODELS / "rlc.json", "--t-end", "soon")
    assert status == 2 and "--t-end" in one_error_line(err)


def test_spreadsheet_formulas_are_not_written_into_csv_headers(tmp_path, capsys):
    from vecnet.cli import _csv
    from vecnet.numerics.result import Result

    res = Result(np.array([0.0, 1.0]), {"=HYPERLINK(1)": [1.0, -2.0],
                                                    "@SUM(A1)": [3.0, 4.0], "x": [5.0, 6.0]})
    header, *rows = _csv(res, ["=HYPERLINK(1)", "@SUM(A1)", "x"]).splitlines()
    assert header == "t,'=HYPERLINK(1),'@SUM(A1),x"
    assert rows == ["0,1,3,5", "1,-2,4,6"]                  # numbers stay numbers


def test_warnings_are_one_line_each(tmp_path, capsys):
    path = tmp_path / "float.cir"
    path.write_text("float\nV1 a 0 1\nR1 a b 1k\nC1 b 0 1u\nR2 c d 1k\nC2 d 0 1u\n.end\n")
    status, _, err = run(capsys, "matrices", path)
    assert status == 0
    assert err.startswith("vecnet: warning: ") and "R2" in err and "Traceback" not in err
    assert all(line.startswith("vecnet: warning: ") for line in err.strip().splitlines())


def test_ctrl_c_ends_with_one_line_and_status_130(tmp_path):
    doc = copy.deepcopy(PENDULUM)
    doc["simulation"] = {"t_span": [0, 1e6], "points": 11}
    path = model_file(tmp_path, doc)
    out = tmp_path / "p.csv"
    # standard error on a terminal shows the progress bar: its first frame says the
    # simulation runs, and that is when the interrupt is sent
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "vecnet.cli", "simulate", str(path),
                             "--output", str(out), "--limit", "max_cycles=1e9"],
                            stdout=subprocess.PIPE,
                            stderr=follower, text=True)
    os.close(follower)
    seen = b""
    deadline = time.monotonic() + 120
    while b"simulating" not in seen and time.monotonic() < deadline:
        if select.select([leader], [], [], 1.0)[0]:
            seen += os.read(leader, 1024)
    assert b"simulating" in seen, seen
    proc.send_signal(signal.SIGINT)
    stdout, _ = proc.communicate(timeout=60)
    while select.select([leader], [], [], 0.5)[0]:
        try:
            chunk = os.read(leader, 1024)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    assert proc.returncode == 130, seen
    assert seen.decode().splitlines()[-1] == "vecnet: interrupted"
    assert stdout == ""
    assert list(tmp_path.iterdir()) == [path]


def test_an_unreachable_scheduler_is_named_as_such_not_the_output(capsys, tmp_path,
                                                                  monkeypatch):
    import socket

    import vecnet.cli

    monkeypatch.setattr(vecnet.cli, "SCHEDULER_TIMEOUT", 0.5)
    with socket.socket() as probe:           # a port of this machine that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = tmp_path / "o.csv"
    status = main(["sweep", str(MODELS / "rlc.json"), "--param", "R=1,2", "--scheduler",
                   f"tcp://127.0.0.1:{port}", "-o", str(out)])
    err = capsys.readouterr().err
    assert status == 2 and "cannot reach the Dask scheduler" in err
    assert "cannot write" not in err and not out.exists()


def test_a_ctrl_c_while_the_command_starts_or_ends_prints_no_traceback(monkeypatch, capsys):
    """Before main's own handling (parsing the arguments, the first imports) a Ctrl-C is
    one line and status 130, as later; once the command is done it is ignored, so that the
    interpreter's shutdown prints nothing either."""
    import gc

    import vecnet.cli as cli

    def interrupted(argv=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_FREEZE", False)    # as it was, once run() has set it
    monkeypatch.setattr(cli, "main", interrupted)
    assert cli.run() == 130
    assert capsys.readouterr().err == "vecnet: interrupted\n"
    monkeypatch.setattr(cli, "main", lambda argv=None: 0)
    before = signal.getsignal(signal.SIGINT)
    try:
        assert cli.run() == 0
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)
        gc.unfreeze()


@pytest.mark.parametrize("argv, words", [
    (["simulat", "MODEL"], "did you mean 'simulate'?"),
    (["simulate", "MODEL", "--pionts", "5"], "did you mean '--points'?"),
    (["ac", "MODEL", "--format", "pgn"], "did you mean 'png'?"),
])
def test_a_misspelt_command_option_or_choice_gets_the_closest_one(capsys, argv, words):
    path = str(Path(__file__).resolve().parents[1] / "examples" / "models" / "fourbar.json")
    status = main([path if a == "MODEL" else a for a in argv])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and words in err


@pytest.mark.parametrize("field, value, words", [
    ("joint", "revolut", "did you mean 'revolute'?"),
    ("element", "Resistr", "did you mean 'Resistor'?"),
])
def test_a_misspelt_type_in_a_model_file_gets_the_closest_one(tmp_path, field, value, words):
    models = Path(__file__).resolve().parents[1] / "examples" / "models"
    doc = json.loads((models / ("fourbar.json" if field == "joint" else "rlc.json")).read_text())
    (doc["joints"] if field == "joint" else doc["elements"])[0]["type"] = value
    path = tmp_path / "model.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(vn.ModelFileError, match=words.replace("?", r"\?")):
        vn.load_model(path)
