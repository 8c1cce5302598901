"""The vecnet command on good and bad models."""

import subprocess
import sys
from pathlib import Path

import pytest

from vecnet.cli import main

ROOT = Path(__file__).parent.parent
MODELS = ROOT / "examples" / "models"
BAD = sorted((ROOT / "tests" / "data" / "bad_models").iterdir())


def vecnet(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "vecnet.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=300)


def test_matrices_of_e1_are_mcphees():
    run = vecnet("matrices", MODELS / "e1.json", "--tree", "L1,L2,R3,R4,R5")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert "cotree: C6, V7" in lines
    cutset = lines[lines.index(next(l for l in lines if l.startswith("[CU]"))) + 1:][:6]
    assert cutset[4].split() == ["R4", "0", "0", "0", "1", "0", "|", "-1", "1"]


@pytest.mark.parametrize("command, fmt", [("equations", "text"), ("equations", "latex"),
                                          ("draw", "svg"), ("simulate", "csv")])
def test_commands_write_their_outputs(tmp_path, command, fmt):
    out = tmp_path / f"out.{fmt if fmt != 'text' else 'txt'}"
    run = vecnet(command, MODELS / "rlc.json", "--format", fmt, "--output", out)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == str(out.resolve())
    assert out.stat().st_size > 100


def test_report_of_a_mechanism(tmp_path):
    out = tmp_path / "fourbar.html"
    run = vecnet("report", MODELS / "fourbar.json", "--output", out)
    assert run.returncode == 0, run.stderr
    page = out.read_text()
    assert "<svg" in page and '<pre class="tex">' in page


def check_refused(status, stderr, path, out):
    assert status == 2
    message = stderr.strip()
    assert len(message.splitlines()) == 1 and message.startswith("vecnet: error: ")
    assert str(path) in message
    assert not out.exists() and not list(out.parent.iterdir())   # nothing half-written


@pytest.mark.parametrize("path", BAD, ids=[p.name for p in BAD])
def test_bad_models_exit_with_status_2_and_one_line(tmp_path, path, capsys):
    out = tmp_path / "never.html"
    status = main(["report", str(path), "--output", str(out)])
    check_refused(status, capsys.readouterr().err, path, out)


@pytest.mark.parametrize("path", BAD[::20], ids=[p.name for p in BAD[::20]])
def test_bad_models_in_a_process_of_their_own(tmp_path, path):
    # the same through the installed entry point: nothing else reaches standard error
    out = tmp_path / "never.html"
    run = vecnet("report", path, "--output", out)
    check_refused(run.returncode, run.stderr, path, out)


def test_missing_file_and_bad_arguments():
    assert vecnet("report", "no/such/model.json").returncode == 2
    assert vecnet("explode", MODELS / "rlc.json").returncode == 2
