"""Frequency and step responses as plot files (PNG, SVG, PDF): what ``vecnet ac``,
``vecnet bode`` and ``vecnet step`` write, and the figures a report embeds."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["use_agg", "figure_file", "bode_file", "step_file"]


def use_agg() -> None:
    """matplotlib drawing into files, whatever backend a session has chosen."""
    import matplotlib

    matplotlib.use("Agg")


def figure_file(fig: Any, fmt: str) -> bytes:
    """A matplotlib figure as the bytes of a file of format ``fmt`` (``"png"``, ``"svg"``,
    ``"pdf"``), the figure closed."""
    import matplotlib.pyplot as plt

    try:
        buffer = io.BytesIO()
        fig.savefig(buffer, format=fmt, bbox_inches="tight")
    finally:
        plt.close(fig)
    return buffer.getvalue()


def bode_file(response: Any, keys: Sequence[Any], title: str, fmt: str) -> bytes:
    """The Bode plot of :meth:`~vecnet.numerics.analysis.FrequencyResponse.plot` (curves
    ``keys``, ``(output, input)``) as a file of format ``fmt``."""
    use_agg()
    top, _ = response.plot(keys, title=title)
    return figure_file(top.figure, fmt)


def step_file(times: np.ndarray, y: np.ndarray, outputs: Sequence[str],
              inputs: Sequence[str], title: str, fmt: str) -> bytes:
    """The step responses ``y`` (times x outputs x inputs, of
    :func:`vecnet.numerics.analysis.step_response`) against time, one curve per output
    and input (named by the output alone when there is one input), as a file of format
    ``fmt``.

    >>> data = step_file(np.array([0.0, 1.0]), np.zeros((2, 1, 1)), ["y"], ["u"], "", "svg")
    >>> data.startswith(b"<?xml")
    True
    """
    use_agg()
    import matplotlib.pyplot as plt

    single = len(inputs) == 1
    figure, ax = plt.subplots()
    for i, output in enumerate(outputs):
        for j, source in enumerate(inputs):
            ax.plot(times, y[:, i, j], label=output if single else f"{output}/{source}")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("response to a unit step" + (f" of {inputs[0]}" if single else ""))
    ax.set_title(title)
    ax.legend()
    return figure_file(figure, fmt)
