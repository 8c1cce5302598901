"""Every example script runs to its end: each one checks its results against hand
calculations or textbook formulas with asserts, so a run that finishes is a pass."""

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
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "MPLBACKEND": "Agg"})
    assert done.returncode == 0, f"{script.name} failed:\n{done.stderr[-3000:]}"
