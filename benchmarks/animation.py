"""Benchmark writing animations of simple mechanisms to GIF (``vn.animate(...).save``).

The mechanisms:

* ``pendulum``: one body of 1 kg (moment of inertia 0.01 kg m^2 about its mass centre)
  pinned to the ground at (0, 0) by its point 1 m from the mass centre, released at rest
  level with the pin (mass centre at (1, 0)); gravity 9.81 m/s^2 along -y; 2 s simulated.
* ``fourbar``: ``examples/models/fourbar.json`` with the span and samples of its file
  (1 s, 201 samples).

Timed, for each: ``vn.animate(mech, res, frames=N)`` (default N = 200, on the default
6 x 6 inch figure at 100 dpi: 600 x 600 pixel frames) and its ``.save("m.gif")``,
together, wall time (``time.perf_counter``) and CPU time of this process
(``time.process_time``), each the best of ``--runs`` runs (3). The baseline, run once
(``--baseline-runs``), saves the same animation through matplotlib's own
``Animation.save`` with a ``PillowWriter``: the whole figure drawn twice a frame and a
palette chosen per frame (what ``save`` did before).

Checks: each GIF has N frames of ``interval`` (50) ms each, read back with Pillow; the
fast GIF's frames agree with the baseline's (mean absolute difference per colour channel
below 0.05 of 255 over all frames; the two quantize colours differently, so a few pixels
of anti-aliased edges differ). The target (a 200-frame GIF of a simple mechanism in
under 10 s on 2 cores) is reported, not checked. The load average is printed before and
after: other work on the machine lengthens the wall times, not the CPU times.

Usage: ``python benchmarks/animation.py [--frames 200] [--runs 3] [--baseline-runs 1]``
(``--baseline-runs 0`` skips the baseline). The script exits with status 1 if a check
fails.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import PIL  # noqa: E402
from _table import Checks, format_ratio, format_row, format_time, print_header  # noqa: E402
from matplotlib.animation import FuncAnimation, PillowWriter  # noqa: E402
from PIL import Image  # noqa: E402

import vecnet as vn  # noqa: E402

FOURBAR = Path(__file__).resolve().parent.parent / "examples" / "models" / "fourbar.json"
INTERVAL = 50.0          # ms between frames: 20 frames a second
TARGET = 10.0            # seconds for a 200-frame GIF
AGREEMENT = 0.05         # mean absolute difference per channel, fast GIF against baseline


def pendulum():
    mech = vn.planar.Mechanism("pendulum", gravity=(0, -9.81))
    bob = mech.body("bob", 1.0, 0.01, position=(1, 0))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
    return mech, mech.formulate().simulate(2.0)


def fourbar():
    model = vn.load_model(FOURBAR)
    return model, vn.simulate(model)


def write(mechanism, res, frames: int, path: Path, baseline: bool) -> None:
    movie = vn.animate(mechanism, res, frames=frames, interval=INTERVAL)
    if baseline:
        FuncAnimation.save(movie, path, writer=PillowWriter(fps=1000 / INTERVAL))
    else:
        movie.save(path)
    plt.close("all")


def timed(mechanism, res, frames: int, path: Path, baseline: bool, runs: int):
    """Best wall and CPU seconds over ``runs`` writes of the GIF."""
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        write(mechanism, res, frames, path, baseline)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def read_gif(path: Path) -> tuple[list[np.ndarray], list[int]]:
    """The frames (RGB) of a GIF and their durations (ms)."""
    frames, durations = [], []
    with Image.open(path) as gif:
        for k in range(gif.n_frames):
            gif.seek(k)
            durations.append(int(gif.info.get("duration", 0)))
            frames.append(np.asarray(gif.convert("RGB"), dtype=np.int16))
    return frames, durations


def load() -> str:
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "not available"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline-runs", type=int, default=1)
    options = parser.parse_args()
    if options.frames < 1 or options.runs < 1 or options.baseline_runs < 0:
        parser.error("--frames and --runs are at least 1, --baseline-runs at least 0")
    print(f"Python {sys.version.split()[0]}, matplotlib {matplotlib.__version__}, "
          f"Pillow {PIL.__version__}, numpy {np.__version__}, vecnet {vn.__version__} "
          f"({Path(vn.__file__).parent})")
    print(f"{platform.platform()}, {os.cpu_count()} CPUs; load average (1, 5, 15 min) "
          f"at the start: {load()}")
    checks = Checks()
    frames = options.frames
    columns = [("mechanism", 10, "<"), ("save", 26, "<"), ("wall", 9, ">"), ("CPU", 9, ">"),
               ("wall/frame", 10, ">"), ("GIF", 9, ">"), ("vs baseline", 11, ">"),
               ("check", 5, "<")]
    print_header(f"{frames}-frame GIF, 600 x 600 pixels, {INTERVAL:g} ms a frame: "
                 f"vn.animate + save, best of {options.runs} (baseline: of "
                 f"{options.baseline_runs})", columns)
    slowest = 0.0
    with tempfile.TemporaryDirectory() as folder:
        for name, build in (("pendulum", pendulum), ("fourbar", fourbar)):
            mechanism, res = build()
            write(mechanism, res, 2, Path(folder) / "warm.gif", False)   # imports, fonts
            fast_path, base_path = Path(folder) / f"{name}.gif", Path(folder) / f"{name}-mpl.gif"
            fast = timed(mechanism, res, frames, fast_path, False, options.runs)
            slowest = max(slowest, fast[0])
            base = (timed(mechanism, res, frames, base_path, True, options.baseline_runs)
                    if options.baseline_runs else None)
            got, durations = read_gif(fast_path)
            ok = len(got) == frames and all(d == int(INTERVAL) for d in durations)
            agree = None
            if base is not None:
                reference, _ = read_gif(base_path)
                if len(reference) == len(got):
                    agree = float(np.mean([np.abs(a - b).mean()
                                           for a, b in zip(got, reference)]))
                ok = ok and agree is not None and agree < AGREEMENT
            rows = [("vn: drawn once a frame", fast, fast_path)]
            if base is not None:
                rows.append(("matplotlib Animation.save", base, base_path))
            for label, (wall, cpu), path in rows:
                size = f"{path.stat().st_size / 1e3:.0f} kB"
                ratio = format_ratio(base[0] / wall) if base is not None else ""
                note = (checks.note(ok, "ok", "FAIL") if path == fast_path else "")
                print(format_row([name if path == fast_path else "", label, format_time(wall),
                                  format_time(cpu), format_time(wall / frames), size, ratio,
                                  note], columns))
            if agree is not None:
                print(f"{'':12}frames against the baseline's: mean |difference| "
                      f"{agree:.4f} of 255 per channel")
    print(f"\nTarget: a {frames}-frame GIF of a simple mechanism in under {TARGET:g} s: "
          f"slowest here {format_time(slowest)} "
          f"({'met' if slowest < TARGET else 'NOT met'}; a target, not a check)")
    print(f"Load average at the end: {load()}")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
