"""Every example script runs to its end: each one checks its results against hand
calculations or textbook formulas with asserts, so a run that finishes is a pass. Then
every network, mechanism and system it built is saved, loaded back and found to have the
same equations (``example_runner.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
SCRIPTS = sorted((ROOT / "examples").glob("*.py"))


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_example_runs_and_its_checks_hold(script):
    runner = Path(__file__).parent / "example_runner.py"
    done = subprocess.run([sys.executable, str(runner), str(script)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "MPLBACKEND": "Agg"})
    assert done.returncode == 0, f"{script.name} failed:\n{done.stderr[-3000:]}"
    trips = [line for line in done.stdout.splitlines() if line.startswith("round trip:")]
    # each the same equations, or refused for a Python function naming the element
    assert trips and all("same equations" in line or "a Python function" in line
                         or "does not formulate" in line for line in trips), done.stdout[-2000:]
