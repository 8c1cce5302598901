"""Every file of the hostile corpus through ``vecnet report``, ``simulate`` and ``equations``.

The corpus: ``tests/data/bad_models`` (files that must be refused when read),
``tests/data/bad_runs`` (files that load, and must be refused before a run that would not
end, or hold names that try to leave the LaTeX and the HTML) and the large inputs of
``_large_inputs.py`` (under the 10 MB size limit but with 10^5 elements, cards, outputs
or parameters, thousands of bodies, hundreds of coupled windings or amplifiers, written
into a temporary folder when the corpus runs). Each file and command runs
in a process of its own (``python -m vecnet.cli COMMAND FILE --output OUT``) with the
command line's default bounds, and must answer within ``--budget`` seconds (30) with

* exit status 0 and its output file written, or
* exit status 2, exactly one line on standard error (warnings aside) that starts with
  ``vecnet: error: FILE`` (the file and, where known, the place in it), and no output
  file or temporary file left behind.

Anything else (another status, several lines, a traceback, a file left, a run over the
budget or killed at ``--timeout``) is a failure, listed after the table. Printed: per
folder and command, the files, how many were done and how many refused, the longest run
of each kind and its file, and the failures; beside them, what a process that refuses a
file at once costs (starting Python and vecnet), which every refusal pays.

Usage: ``python benchmarks/hostile_corpus.py [--jobs 2] [--budget 30] [--timeout 120]``;
about ten minutes on one core (the imports of a fresh process take most of it).
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _large_inputs import write_large  # noqa: E402
from _table import format_row, format_time, print_header  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CORPUS = [ROOT / "tests" / "data" / "bad_models", ROOT / "tests" / "data" / "bad_runs"]
COMMANDS = {"report": "html", "simulate": "csv", "equations": "txt"}


def run(path: Path, command: str, budget: float, timeout: float) -> tuple[float, str, str]:
    """Seconds, ``"done"`` or ``"refused"`` (or ``"failed"``) and what went wrong."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    with tempfile.TemporaryDirectory() as folder:
        output = Path(folder, f"out.{COMMANDS[command]}")
        start = time.perf_counter()
        try:
            done = subprocess.run([sys.executable, "-m", "vecnet.cli", command, str(path),
                                   "--output", str(output)], env=env, capture_output=True,
                                  text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return time.perf_counter() - start, "failed", f"killed after {timeout:g} s"
        seconds = time.perf_counter() - start
        left = sorted(p.name for p in Path(folder).iterdir())
    errors = [line for line in done.stderr.splitlines()
              if not line.startswith("vecnet: warning: ")]
    if done.returncode == 0 and not errors and left == [output.name]:
        problem, outcome = "", "done"
    elif done.returncode == 2 and len(errors) == 1 and \
            errors[0].startswith(f"vecnet: error: {path}") and not left:
        problem, outcome = "", "refused"
    else:
        problem, outcome = (f"exit {done.returncode}, {len(errors)} error line(s), files left "
                            f"{left}: {' | '.join(errors)[:200]}"), "failed"
    if not problem and seconds > budget:
        problem, outcome = f"{seconds:.1f} s, over the budget of {budget:g} s", "failed"
    return seconds, outcome, problem


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=1, help="processes at once (default 1)")
    parser.add_argument("--budget", type=float, default=30.0, help="seconds a run may take")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds before a kill")
    parser.add_argument("--only", choices=["stored", "large"], default=None,
                        help="only the stored files, or only the large ones made here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as made:
        files = [] if args.only == "large" else \
            sorted(p for folder in CORPUS for p in folder.iterdir() if p.is_file())
        if args.only != "stored":
            files += write_large(Path(made, "large"))
        # what refusing at once costs: starting Python and vecnet, reading a file of "[]"
        empty = Path(made, "empty.json")
        empty.write_text("[]")
        baseline = min(run(empty, "equations", math.inf, args.timeout)[0] for _ in range(3))
        cases = [(path, command) for path in files for command in COMMANDS]
        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(lambda case: run(*case, args.budget, args.timeout), cases))
        wall = time.perf_counter() - start
    columns = [("files", 11, "<"), ("command", 10, "<"), ("files", 6, ">"), ("done", 5, ">"),
               ("refused", 8, ">"), ("failed", 7, ">"), ("longest done", 13, ">"),
               ("longest refusal", 16, ">"), ("its file", 0, "<")]
    print_header(f"The hostile corpus ({len(files)} files: {', '.join(p.name for p in CORPUS)} "
                 f"and the large inputs), {args.jobs} process(es) at once, budget "
                 f"{args.budget:g} s; a process that refuses at once takes "
                 f"{format_time(baseline)} (starting Python and vecnet)", columns)
    failures = []
    for folder in dict.fromkeys(path.parent.name for path in files):
        for command in COMMANDS:
            rows = [(path, *result) for (path, c), result in zip(cases, results)
                    if c == command and path.parent.name == folder]
            outcomes = [outcome for _, _, outcome, _ in rows]
            failures += [(path, command, problem) for path, _, _, problem in rows if problem]
            done = [row for row in rows if row[2] == "done"]
            refused = [row for row in rows if row[2] == "refused"]
            slow_done = max(done, key=lambda row: row[1]) if done else None
            slow_refusal = max(refused, key=lambda row: row[1]) if refused else None
            print(format_row([folder, command, str(len(rows)), str(len(done)),
                              str(len(refused)), str(outcomes.count("failed")),
                              format_time(slow_done[1]) if slow_done else "",
                              format_time(slow_refusal[1]) if slow_refusal else "",
                              ", ".join(row[0].name for row in (slow_done, slow_refusal)
                                        if row)], columns))
    longest = max(results, key=lambda result: result[0])[0]
    print(f"\n{len(cases)} runs in {format_time(wall)}; the longest took {format_time(longest)}; "
          f"{len(failures)} failure(s)")
    for path, command, problem in failures:
        print(f"  {path.name} {command}: {problem}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
