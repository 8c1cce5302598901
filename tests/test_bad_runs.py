"""Hostile files that load, through the command line: done, or refused in one located line.

Each file in ``tests/data/bad_runs/`` is a valid model file or netlist whose simulation
must be refused before any work (a source or load far too fast for the span, a span
far longer than the motion's time scale), or whose names try to leave the LaTeX and
the HTML of the outputs. ``tests/data/bad_runs_expected.json`` records, for each of
``simulate``, ``report`` and ``equations``, ``null`` (done: exit status 0 and the
output file written) or a part of the one error line (exit status 2, nothing
written). The files that fail to load are in ``tests/data/bad_models``
(``tests/test_model_corpus.py``); ``benchmarks/hostile_corpus.py`` times both sets in
processes of their own.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from test_output_escaping import tex_tokens
from test_report_xss import Page, injected
from vecnet.cli import main

DATA = Path(__file__).parent / "data"
RUNS = DATA / "bad_runs"
EXPECTED = json.loads((DATA / "bad_runs_expected.json").read_text(encoding="utf-8"))
FILES = sorted(p.name for p in RUNS.iterdir())
SUFFIX = {"simulate": "csv", "report": "html", "equations": "txt"}
#: LaTeX commands of the attacks in the names; none may reach the output as a command
ATTACKS = {r"\href", r"\input", r"\def", r"\x", r"\htmlClass", r"\url", r"\includegraphics"}


def test_every_file_has_its_expected_outcomes():
    assert FILES == sorted(EXPECTED)
    assert all(set(outcomes) == set(SUFFIX) for outcomes in EXPECTED.values())


def run(command: list[str], capsys) -> tuple[int, str, list[str]]:
    """Exit status, standard output and the lines of standard error that are not
    warnings."""
    capsys.readouterr()
    status = main(command)
    out, err = capsys.readouterr()
    return status, out, [line for line in err.splitlines()
                         if not line.startswith("vecnet: warning: ")]


@pytest.mark.parametrize("name, command", [(n, c) for n in FILES for c in SUFFIX])
def test_a_file_that_loads_is_done_or_refused_in_one_located_line(name, command, tmp_path,
                                                                 capsys):
    path = RUNS / name
    output = tmp_path / f"out.{SUFFIX[command]}"
    status, _, errors = run([command, str(path), "--output", str(output)], capsys)
    says = EXPECTED[name][command]
    if says is None:
        assert (status, errors) == (0, []) and output.stat().st_size > 0
        if command == "report":
            page = output.read_text(encoding="utf-8")
            assert injected(Page(page)) == []
            for block in re.findall(r'<pre class="tex">(.*?)</pre>', page, flags=re.S):
                commands, raw, lowest = tex_tokens(html.unescape(block))
                assert not commands & ATTACKS and raw == [] and lowest == 0, block[:200]
        return
    assert status == 2 and len(errors) == 1, errors
    assert errors[0].startswith(f"vecnet: error: {path}: ") and says in errors[0], errors[0]
    assert list(tmp_path.iterdir()) == []           # no output, no temporary file left


@pytest.mark.parametrize("name", [n for n in FILES if "katex" in n])
def test_names_that_try_latex_are_text_in_the_latex_equations(name, capsys):
    status, out, errors = run(["equations", str(RUNS / name), "--format", "latex"], capsys)
    assert (status, errors) == (0, [])
    commands, raw, lowest = tex_tokens(out)
    assert not commands & ATTACKS and raw == [] and lowest == 0
