"""A first run: no compiled kernel cached, as after a ``pip install`` without ``make``."""

import csv
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_a_cold_numba_cache_does_not_stop_the_first_simulation(tmp_path):
    # every kernel the four-bar needs compiles during this run; nothing bounds the run by
    # time, so it reaches the end of the file's span however long the compiles take
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    out = tmp_path / "fourbar.csv"
    run = subprocess.run([sys.executable, "-m", "vecnet.cli", "simulate",
                          str(ROOT / "examples" / "models" / "fourbar.json"), "-o", str(out)],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=900)
    assert run.returncode == 0, run.stderr
    assert any((tmp_path / "cache").rglob("*.nbi"))         # it did compile, into the cache
    with out.open() as f:
        rows = list(csv.reader(f))
    assert float(rows[-1][0]) == 1.0                         # the file's span is [0, 1]
