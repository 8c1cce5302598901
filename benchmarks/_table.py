"""Aligned tables, time and ratio formats and check counting shared by the benchmarks."""

from __future__ import annotations


def format_time(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def format_ratio(ratio: float | None) -> str:
    if ratio is None:
        return ""
    return f"{ratio:.1f}x" if ratio >= 1 else f"{ratio:.2g}x"


def format_row(cells: list[str], columns) -> str:
    """Cells aligned by ``columns``: (name, width, "<" or ">") per column."""
    return "  ".join(f"{cell:{align}{width}}"
                     for cell, (_, width, align) in zip(cells, columns)).rstrip()


def print_header(title: str, columns) -> None:
    print(f"\n{title}")
    line = format_row([name for name, _, _ in columns], columns)
    print(line)
    print("-" * len(line))


class Checks:
    """Counts failed checks and turns each outcome into a table note."""

    def __init__(self) -> None:
        self.failures = 0

    def note(self, ok: bool, passed: str, failed: str) -> str:
        if not ok:
            self.failures += 1
        return passed if ok else failed
