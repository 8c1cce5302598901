"""What every parameter study shares: the analyses and their options, the study's rows
(:class:`BaseStudy`), the columns of a simulated case and the cases of a sweep.

pandas is imported when a study runs, and Dask only when a client is given: importing
vecnet imports neither.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.bounds import check_count
from ..errors import ModelError

if TYPE_CHECKING:
    import pandas

__all__ = ["BaseStudy", "settling_time", "cases_of", "trace_columns", "eigenvalue_columns",
           "check_analysis", "check_options", "ANALYSES", "OPTIONS", "TRACES", "TRACE_POINTS"]

#: the analyses known by name
ANALYSES = ("simulate", "eigenvalues", "frequency_response", "equilibrium")
#: options each named analysis takes (besides the execution options of :func:`sweep`)
OPTIONS = {
    "simulate": {"t_span", "t_end", "t_eval", "outputs", "inputs", "initial", "rtol", "atol",
                 "method", "traces", "settle"},
    "eigenvalues": set(),
    "frequency_response": {"frequencies", "outputs"},
    "equilibrium": {"outputs", "inputs"},
}
#: samples of the common time grid of traces and settling times when ``t_eval`` is not given
TRACE_POINTS = 501
#: the key of a row that carries its case's traces (output -> samples) to :func:`sweep`
TRACES = "__traces__"


class BaseStudy:
    """What every study shares: one row per case (:meth:`run`, :meth:`run_batch`), the
    time grid of traces and settling times, and the columns of a simulated case. A
    subclass sets ``names``, ``analysis`` and ``options``, and writes :attr:`outputs`,
    :meth:`_evaluate` (a case's values by name -> its columns) and, to refuse values
    before any work, :meth:`_check`."""

    names: tuple[str, ...]
    analysis: str | Callable
    options: dict

    @property
    def outputs(self) -> tuple[str, ...]:
        """The analysed outputs."""
        raise NotImplementedError

    def run_batch(self, cases: Sequence[Mapping[str, float]]) -> list[dict]:
        """One row per case: see :meth:`run`."""
        return [self.run(case) for case in cases]

    def run(self, case: Mapping[str, float]) -> dict:
        """The row of one case: its parameter values, the analysis' scalar results, ``time``
        (seconds) and ``error`` (the message of a failure, else ``None``)."""
        row: dict[str, Any] = dict(case)
        start = time.perf_counter()
        try:
            values = {name: float(case[name]) for name in self.names}
            self._check(values)
            row.update(self._evaluate(values))
            row["error"] = None
        except Exception as exc:  # noqa: BLE001 - a failing case is a result, not the end
            row["error"] = str(exc) or type(exc).__name__
        row["time"] = time.perf_counter() - start
        return row

    def _check(self, values: Mapping[str, float]) -> None:
        """Refuse values the model would refuse, with its message."""

    def _evaluate(self, values: Mapping[str, float]) -> dict[str, Any]:
        raise NotImplementedError

    def _wants_grid(self) -> bool:
        return bool(self.options.get("traces")) or self.options.get("settle") is not None

    def trace_grid(self) -> np.ndarray:
        """The sample times of traces: ``t_eval``, else :data:`TRACE_POINTS` equally spaced
        times over the simulated span."""
        if "t_eval" in self.options:
            return np.asarray(self.options["t_eval"], dtype=float)
        return np.linspace(*(self.options.get("t_span") or (0.0, self.options["t_end"])),
                           TRACE_POINTS)

    def _summaries(self, result) -> dict[str, Any]:
        """The columns of a simulated case, and its traces when they are asked for."""
        outputs = self.outputs
        columns: dict[str, Any] = trace_columns(result, outputs)
        settle = self.options.get("settle")
        if settle is not None:
            columns.update({f"{name}.settling": settling_time(result.t, result[name], settle)
                            for name in outputs})
        if self.options.get("traces"):
            columns[TRACES] = {name: np.asarray(result[name], dtype=float) for name in outputs}
        return columns


def trace_columns(result, outputs: Sequence[str]) -> dict[str, float]:
    """The final value and the peak (the value of largest magnitude) of each output."""
    columns = {}
    for name in outputs:
        trace = np.asarray(result[name], dtype=float)
        if trace.ndim != 1:
            raise ModelError(f"output {name!r} is a vector: name a component of it "
                             f"('{name}.x', ...)")
        columns[f"{name}.final"] = float(trace[-1])
        columns[f"{name}.peak"] = float(trace[np.argmax(np.abs(trace))])
    return columns


def settling_time(t: Sequence[float], trace: Sequence[float], band: float) -> float:
    """The first sample time after which ``trace`` stays within ``band`` (relative, 0.02 for
    2 %) of its last value; exact to the spacing of the samples ``t``.

    >>> settling_time([0, 1, 2, 3], [0.0, 0.5, 0.99, 1.0], 0.02)
    2.0
    """
    t, trace = np.asarray(t, dtype=float), np.asarray(trace, dtype=float)
    final = trace[-1]
    outside = np.flatnonzero(np.abs(trace - final) > band * abs(final))
    return float(t[0] if outside.size == 0 else t[outside[-1] + 1])


def eigenvalue_columns(A: np.ndarray) -> dict[str, float]:
    """``eig<k>.real`` and ``eig<k>.imag``, ordered by real part, then imaginary part."""
    eigenvalues = sorted(np.linalg.eigvals(A), key=lambda z: (z.real, z.imag))
    columns = {}
    for k, z in enumerate(eigenvalues):
        columns[f"eig{k}.real"] = float(z.real)
        columns[f"eig{k}.imag"] = float(z.imag)
    return columns


def check_options(analysis: str | Callable, options: Mapping) -> None:
    """Refuse a simulate analysis without a span, a frequency response without frequencies
    and a settling band outside (0, 1).

    Raises
    ------
    ModelError
        Saying what to give.
    """
    if analysis == "simulate" and "t_span" not in options and "t_end" not in options:
        raise ModelError("the simulate analysis needs t_end=... or t_span=(t0, t1)")
    if analysis == "frequency_response" and "frequencies" not in options:
        raise ModelError("the frequency_response analysis needs frequencies=[...] in hertz")
    settle = options.get("settle")
    if settle is not None and not (isinstance(settle, (int, float)) and 0 < settle < 1):
        raise ModelError(f"settle={settle!r}: the settling band is a fraction of the final "
                         "value between 0 and 1, e.g. settle=0.02 for 2 %")


def check_analysis(analysis: str | Callable, options: Mapping,
                   table: Mapping[str, set] | None = None, kind: str = "network") -> None:
    """Refuse an unknown analysis, or an option the analysis does not take (by ``table``,
    analysis -> its options, default :data:`OPTIONS`; every analysis also takes
    ``parameters``).

    Raises
    ------
    ModelError
        Naming the analyses or the options.
    """
    if callable(analysis):
        return
    table = OPTIONS if table is None else table
    if analysis not in ANALYSES:
        raise ModelError(f"unknown analysis {analysis!r}; use one of {', '.join(ANALYSES)} or a "
                         "function f(model, values) -> dict")
    unknown = set(options) - table[analysis] - {"parameters"}
    if unknown:
        raise ModelError(f"the {analysis} analysis of a {kind} takes no option(s) "
                         f"{', '.join(sorted(unknown))}; its options are "
                         f"{', '.join(sorted(table[analysis] | {'parameters'}))}")


def _refuse_cases(count: int, made_of: str) -> None:
    problem = check_count(count, "max_cases", "cases")
    if problem:
        raise ModelError(f"the study has {count} cases ({made_of}): {problem}")


def cases_of(samples: Mapping[str, Sequence[float]] | pandas.DataFrame) -> list[dict[str, float]]:
    """The cases of ``samples``: the cartesian product of a dict's sequences, or a
    DataFrame's rows.

    >>> cases_of({"R": [1, 2], "C": [3]})
    [{'R': 1, 'C': 3}, {'R': 2, 'C': 3}]

    Raises
    ------
    ModelError
        For more cases than the limit ``max_cases`` (:func:`vecnet.limits`), counted before
        any is made, or samples of another kind.
    """
    if isinstance(samples, Mapping):
        names = list(samples)
        columns = [v if hasattr(v, "__len__") else list(v) for v in samples.values()]
        _refuse_cases(math.prod(len(v) for v in columns),
                      " x ".join(f"{len(v)} {name}" for name, v in zip(names, columns)))
        return [dict(zip(names, combo)) for combo in itertools.product(*columns)]
    if hasattr(samples, "to_dict"):
        _refuse_cases(len(samples), "rows")
        return samples.to_dict(orient="records")
    raise ModelError("samples are a dict name -> sequence of values (every combination is a "
                     f"case) or a pandas DataFrame with one row per case, not {type(samples).__name__}")
