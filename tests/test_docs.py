"""Run the Python examples of the documentation.

Every ```python fenced block of every ``*.md`` file under ``docs/`` and of the
top-level ``README.md`` and ``SECURITY.md`` is executed, in the order the blocks appear, in one
fresh namespace per file: later blocks build on earlier ones. Blocks fenced
with any other info string (```text, ```console, ...) are shown to readers but
not run. A failing block is reported with its file and the line of its
opening fence; tracebacks point at the line inside the Markdown file.
"""

from __future__ import annotations

import re
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"

#: An opening fence: up to three spaces of indentation, three or more backticks
#: or tildes, then the info string whose first word names the language.
_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*?)\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced code block: its language, its source and where it starts."""

    language: str
    source: str
    fence_line: int  # 1-based line number of the opening fence
    first_line: int  # 1-based line number of the first line of code


def fenced_blocks(text: str) -> list[Block]:
    """All fenced code blocks of a Markdown text, in order.

    Raises ValueError for a fence that is never closed.
    """
    lines = text.splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        fence, indent = match["fence"], len(match["indent"])
        info = match["info"].split()
        language = info[0].lower() if info else ""
        closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not closing.match(lines[j]):
            line = lines[j]
            # drop up to the opening fence's indentation, as CommonMark does
            strip = len(line) - len(line.lstrip(" "))
            body.append(line[min(indent, strip):])
            j += 1
        if j == len(lines):
            raise ValueError(f"the {fence} fence opened at line {i + 1} is never closed")
        blocks.append(Block(language, "\n".join(body) + "\n", i + 1, i + 2))
        i = j + 1
    return blocks


def python_blocks(path: Path) -> list[Block]:
    """The ```python blocks of the Markdown file ``path``."""
    return [b for b in fenced_blocks(path.read_text(encoding="utf-8")) if b.language == "python"]


def markdown_files() -> list[Path]:
    files = sorted(DOCS.rglob("*.md")) if DOCS.is_dir() else []
    for name in ("README.md", "SECURITY.md"):
        if (ROOT / name).is_file():
            files.append(ROOT / name)
    return files


def _run(block: Block, path: Path, namespace: dict) -> None:
    # pad with blank lines so that line numbers in tracebacks are those of the file
    code = compile("\n" * (block.first_line - 1) + block.source, str(path), "exec")
    exec(code, namespace)


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: p.name)
def test_python_blocks_run(path: Path, tmp_path, monkeypatch) -> None:
    """The python blocks of one Markdown file run in sequence without error."""
    try:
        blocks = python_blocks(path)
    except ValueError as exc:
        pytest.fail(f"{path.relative_to(ROOT)}: {exc}", pytrace=False)
    monkeypatch.chdir(tmp_path)  # files a doc example writes land in a scratch directory
    namespace: dict = {"__name__": "__docs__"}
    for block in blocks:
        failure = None
        try:
            _run(block, path, namespace)
        except Exception as exc:  # noqa: BLE001 - report any failure with its location
            failure = _describe(exc, path)
        if failure is not None:
            pytest.fail(f"{path.relative_to(ROOT)}: python block starting at line "
                        f"{block.fence_line} failed:\n{failure}", pytrace=False)


def _describe(exc: BaseException, path: Path) -> str:
    """The traceback of ``exc`` from the first frame inside the Markdown file on."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != str(path):
        tb = tb.tb_next
    if tb is None:  # e.g. a SyntaxError, which carries its own file and line
        return "".join(traceback.format_exception_only(type(exc), exc))
    return "".join(traceback.format_exception(type(exc), exc, tb))


def test_fence_parser() -> None:
    """The block extraction itself: languages, indentation, line numbers, nesting."""
    text = "\n".join([
        "# title",                 # 1
        "```python",               # 2
        "x = 1",                   # 3
        "```",                     # 4
        "```text",                 # 5
        "x = 2",                   # 6
        "```",                     # 7
        "- item",                  # 8
        "  ```python",             # 9
        "  y = x + 1",             # 10
        "  ```",                   # 11
        "````markdown",            # 12
        "```python",               # 13
        "not run",                 # 14
        "```",                     # 15
        "````",                    # 16
        "``` Python  extra",       # 17
        "z = 3",                   # 18
        "```",                     # 19
    ])
    blocks = fenced_blocks(text)
    assert [(b.language, b.fence_line, b.first_line) for b in blocks] == [
        ("python", 2, 3), ("text", 5, 6), ("python", 9, 10), ("markdown", 12, 13),
        ("python", 17, 18)]
    assert blocks[2].source == "y = x + 1\n"
    assert blocks[3].source.startswith("```python")
    with pytest.raises(ValueError, match="line 2"):
        fenced_blocks("text\n```python\nx = 1\n")
