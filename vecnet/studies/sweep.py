"""Parameter studies: formulate a model once, evaluate it for many parameter sets.

A network's state equations are derived once with the swept parameters kept as symbols
(:mod:`vecnet.studies.networks`), a mechanism's or a system's equations formulated and
compiled once with them as arguments (:mod:`vecnet.studies.mechanisms`). Each case then only
evaluates with numbers. Cases run in this process, in local worker processes
(``workers=``), or on a Dask cluster (``client=``), in batches; a case that fails leaves
its message in the ``error`` column and never stops the study.

pandas is imported when a study runs, and Dask only when a client is given: importing
vecnet imports neither.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any

import numpy as np

from ..builders.network import Network
from ..errors import ModelError, StudyInterrupted
from ..io import load_model
from .mechanisms import compile_multibody_study
from .networks import compile_network_study
from .study import TRACES, BaseStudy, cases_of

if TYPE_CHECKING:
    import pandas
    import xarray

__all__ = ["compile_study", "sweep"]


def compile_study(model: Any, names: Iterable[str], analysis: str | Callable = "simulate",
                  **options: Any) -> BaseStudy:
    """Formulate ``model`` once, its parameters ``names`` kept as symbols, and compile it.

    Parameters
    ----------
    model
        A :class:`~vecnet.Network`; a planar or spatial mechanism
        (:class:`vecnet.planar.Mechanism`, :class:`vecnet.spatial.Mechanism`) or its
        equations (``mech.formulate()``); a :class:`~vecnet.System` (or its
        ``formulate()``); a loaded model file or the path of one (a network or a
        mechanism), whose settings are the defaults.
    names : iterable of str
        The swept parameters. A network's: symbol names (``"R"`` of ``R=vn.Symbol("R")``,
        ``"R1"`` for the value of resistor ``R1``, ``"R_load"`` for resistor ``load``, a
        model file's declared parameters), ``"<element>.<parameter>"`` (``"R1.R"``), or
        input symbols (``"V1"``), whose values drive the sources when simulating. A
        mechanism's or a system's: any free symbol of it (``"k"``, ``"m_link"``, a
        controller gain, a network element's value as above).
    analysis : str or callable
        ``"simulate"``, ``"eigenvalues"``, ``"frequency_response"``, ``"equilibrium"``,
        or ``f(model, values) -> dict of floats`` (a network's state space; a mechanism's
        equations, a system's formulated model: see :func:`sweep`).
    **options
        Of the analysis: ``t_span`` or ``t_end``, ``t_eval``, ``outputs``, ``inputs``,
        ``initial``, ``rtol``, ``atol``, ``method``, ``traces`` (keep each output's samples),
        ``settle`` (a band such as 0.02: add each output's settling time) (simulate);
        ``frequencies`` in hertz and ``outputs`` (frequency_response); ``outputs`` and
        ``inputs`` (equilibrium). With ``traces`` or ``settle`` and no ``t_eval``, every
        case is sampled at :data:`TRACE_POINTS` equally spaced times. ``parameters``
        (name -> number) gives symbols that are not swept their values (a source's symbol:
        its input). Mechanisms and systems also take ``velocities`` and, simulating,
        ``initial`` (held coordinates; a system's lumped and block states); see
        :mod:`vecnet.studies.mechanisms`.

    Returns
    -------
    BaseStudy
        A :class:`Study` of a network, or a
        :class:`~vecnet.studies.mechanisms.MechanismStudy` or
        :class:`~vecnet.studies.mechanisms.SystemStudy`.

    Raises
    ------
    UnknownNameError
        A name that is no parameter of the model.
    ModelError
        An unknown analysis, a missing or unknown option, a ``settle`` band outside (0, 1),
        a model of another kind, a symbol left without a value, or the equilibrium of a
        nonlinear network.

    Examples
    --------
    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
    ...             vn.Capacitor("C", "g", "b", C=1.0))
    >>> study = compile_study(net, ["R"], "eigenvalues")
    >>> study.run({"R": 0.5})["eig0.real"]
    -2.0
    """
    if isinstance(model, (str, os.PathLike)):
        model = load_model(model)
    if not isinstance(model, Network) and not isinstance(getattr(model, "system", None),
                                                          Network):
        return compile_multibody_study(model, names, analysis, **options)
    return compile_network_study(model, names, analysis, **options)


def sweep(model: Any, samples: Mapping[str, Sequence[float]] | pandas.DataFrame,
          analysis: str | Callable = "simulate", *, client: Any = None, workers: int = 1,
          batch_size: int | None = None, progress: bool = False, **options: Any
          ) -> pandas.DataFrame | tuple[pandas.DataFrame, xarray.Dataset]:
    """Evaluate ``analysis`` for every parameter set of ``samples``, formulating once.

    Parameters
    ----------
    model : Network or vecnet.io.Model or str or path
        A network or a network model file.
    samples : dict or pandas.DataFrame
        Parameter name -> sequence of values (every combination is a case), or one row per
        case (e.g. from :mod:`vecnet.studies.samples`, whose ``attrs`` such as the seed are kept).
    analysis : str or callable
        ``"simulate"`` (columns ``<output>.final`` and ``<output>.peak``, the value of
        largest magnitude; ``<output>.settling`` with ``settle=``), ``"eigenvalues"``
        (``eig<k>.real``, ``eig<k>.imag`` in order of real part), ``"frequency_response"``
        (``<output>/<input>@<f>Hz.dB`` and ``.deg``), ``"equilibrium"`` (the DC operating
        point: a column per output), or ``f(state_space, values) -> dict of floats``, given
        the formulated network (the swept parameters as symbols) and the case's values by
        name.
    client : dask.distributed.Client, optional
        Run on this Dask cluster: the compiled study is sent once, as the result of one
        task, and the cases are submitted in batches; work lost with a worker (the study's
        copy too) is run again.
    workers : int
        Without a client, the number of local processes (``concurrent.futures``; 1: this
        process, no pickling, the default).
    batch_size : int, optional
        Cases per task (default: about four tasks per worker, at most 1,000 cases each).
    progress : bool
        Draw a ``tqdm`` progress bar over the cases (advanced per case in this process,
        per batch elsewhere).
    **options
        Of the analysis: see :func:`compile_study`. ``traces=True`` (simulate) makes the
        result a pair ``(frame, traces)``.

    Returns
    -------
    pandas.DataFrame
        One row per case, in the order of ``samples``: the parameters, the results,
        ``time`` (seconds the case took) and ``error`` (the message of a failed case, else
        ``None``). ``attrs`` holds the samples' ``attrs``, the analysis and the
        formulation time.
    (pandas.DataFrame, xarray.Dataset)
        With ``traces=True``: the frame, and a variable per output over the dimensions
        ``("case", "time")`` (``case`` the frame's index, the swept parameters as
        coordinates along it; a failed case's samples are NaN).

    Raises
    ------
    UnknownNameError, ModelError
        See :func:`compile_study`; a failing case raises nothing.
    StudyInterrupted
        On Ctrl-C (a ``KeyboardInterrupt``): its ``frame`` holds the rows of the cases that
        finished.

    Examples
    --------
    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
    ...             vn.Capacitor("C", "g", "b", C=1.0))
    >>> df = vn.sweep(net, {"R": [1.0, -1.0]}, "simulate", t_end=1.0, outputs=["C.across"])
    >>> round(float(df["C.across.final"][0]), 6), df["error"][1][:13]
    (0.632121, "Resistor 'R':")
    >>> df, traces = vn.sweep(net, {"R": [1.0, 2.0]}, t_end=1.0, outputs=["C.across"],
    ...                       traces=True)
    >>> traces["C.across"].dims, traces.sizes["time"]
    (('case', 'time'), 501)
    """
    cases = cases_of(samples)
    names = list(cases[0]) if cases else list(getattr(samples, "columns", samples))
    start = time.perf_counter()
    study = compile_study(model, names, analysis, **options)
    formulated = time.perf_counter() - start
    count = _worker_count(client) if client is not None else max(1, int(workers))
    size = batch_size or max(1, min(1000, math.ceil(len(cases) / (4 * count))))
    batches = [cases[k:k + size] for k in range(0, len(cases), size)]
    done: dict[int, list[dict]] = {}   # batch index -> its rows, as batches finish
    try:
        with _case_counter(len(cases), progress) as advance:
            if client is not None:
                _run_dask(client, study, batches, advance, done)
            elif count > 1:
                _run_processes(study, batches, count, advance, done)
            else:
                for k, batch in enumerate(batches):
                    done[k] = []
                    for case in batch:
                        done[k].append(study.run(case))
                        advance(1)
    except KeyboardInterrupt:
        rows = [row for k in sorted(done) for row in done[k]]
        for row in rows:
            row.pop(TRACES, None)
        raise StudyInterrupted(_frame(rows, samples, analysis, formulated, names), len(rows),
                               len(cases)) from None
    rows = [row for k in sorted(done) for row in done[k]]
    traces = [row.pop(TRACES, None) for row in rows]
    frame = _frame(rows, samples, analysis, formulated)
    if study.analysis == "simulate" and study.options.get("traces"):
        return frame, _trace_dataset(frame, names, traces, study)
    return frame


def _frame(rows: list[dict], samples: Any, analysis: str | Callable,
           formulated: float, names: Sequence[str] = ()) -> pandas.DataFrame:
    import pandas

    frame = pandas.DataFrame(rows) if rows else \
        pandas.DataFrame(columns=[*names, "error", "time"])
    # a failed case lacks the result columns, which would turn the other cases' None into NaN
    frame["error"] = frame["error"].astype(object).where(frame["error"].notna(), None)
    frame = frame[[c for c in frame.columns if c not in ("error", "time")] + ["error", "time"]]
    frame.attrs.update(getattr(samples, "attrs", {}))
    frame.attrs.update(analysis=getattr(analysis, "__name__", analysis),
                       formulation_time=formulated)
    return frame


def _trace_dataset(frame: pandas.DataFrame, names: Sequence[str],
                   traces: Sequence[Mapping[str, np.ndarray] | None], study: BaseStudy
                   ) -> xarray.Dataset:
    """The cases' traces over ``(case, time)``: every case shares the grid of ``t_eval``."""
    import xarray

    grid = study.trace_grid()
    data = {}
    for output in study.outputs:
        samples = np.full((len(frame), len(grid)), np.nan)
        for k, trace in enumerate(traces):
            if trace is not None:
                samples[k] = trace[output]
        data[output] = (("case", "time"), samples)
    coords = {"case": frame.index.to_numpy(), "time": grid,
              **{name: ("case", frame[name].to_numpy()) for name in names}}
    return xarray.Dataset(data, coords=coords)


@contextlib.contextmanager
def _case_counter(total: int, shown: bool) -> Iterator[Callable[[int], None]]:
    """A function advancing a ``tqdm`` bar by a number of finished cases (a no-op unless
    ``shown``)."""
    if not shown:
        yield lambda done: None
        return
    try:
        from tqdm.auto import tqdm
    except ImportError:
        raise ModelError("progress=True draws a tqdm progress bar: install tqdm "
                         "(pip install tqdm)") from None
    with tqdm(total=total, unit="case") as bar:
        yield bar.update


def _worker_count(client: Any) -> int:
    return max(1, len(client.scheduler_info().get("workers", {})))


def _run_dask(client: Any, study: BaseStudy, batches: list[list[dict]],
              advance: Callable[[int], None], done: dict[int, list[dict]]) -> None:
    from distributed import as_completed

    # the study as the result of a task, not scattered data: a copy lost with its worker is
    # made again from the task, where scattered data would be gone with its dependents
    shipped = client.submit(_shipped, study, pure=False)
    # pure=False: equal batches of two studies are not one result; a batch lost with its
    # worker is rerun by the scheduler (distributed.scheduler.allowed-failures)
    futures = [client.submit(_run_shipped, shipped, batch, pure=False) for batch in batches]
    index = {future.key: k for k, future in enumerate(futures)}
    for future in as_completed(futures):
        k = index[future.key]
        try:
            done[k] = future.result()
        except Exception as exc:  # noqa: BLE001 - its workers died (KilledWorker): alone
            done[k] = _one_by_one(client, shipped, batches[k], exc)
        advance(len(batches[k]))


def _one_by_one(client: Any, shipped: Any, batch: list[dict], lost: Exception) -> list[dict]:
    """The rows of a batch whose workers died: each case a task of its own, so that the
    good ones are kept; a case whose task fails too (its worker died, or one beside it did
    while it was assigned there) runs once more, alone, and where that fails, its row
    tells the case killed its worker."""
    if len(batch) == 1:
        return [_lost_row(batch[0], lost)]
    futures = [client.submit(_run_shipped, shipped, [case], pure=False) for case in batch]
    rows: list[dict | None] = []
    for future in futures:
        try:
            rows.extend(future.result())
        except Exception:  # noqa: BLE001 - this case's worker died: run it alone below
            rows.append(None)
    for k, row in enumerate(rows):
        if row is None:
            try:   # alone: no other case of its batch beside it to take its worker down
                rows[k] = client.submit(_run_shipped, shipped, [batch[k]], pure=False
                                        ).result()[0]
            except Exception as exc:  # noqa: BLE001 - it kills its worker
                rows[k] = _lost_row(batch[k], exc)
    return [row for row in rows if row is not None]


def _lost_row(case: dict, lost: BaseException) -> dict:
    """The row of a case whose process died while running it (a crash in compiled code,
    the memory exhausted): no results, the error saying so."""
    why = f"{type(lost).__name__}: {lost}".strip().rstrip(":")
    return {**case, "error": f"the process running this case died ({_first_line(why)}); "
            "the case crashes or exhausts memory where it runs", "time": float("nan")}


def _first_line(text: str, size: int = 200) -> str:
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= size else line[:size] + "..."


def _shipped(study: BaseStudy) -> BaseStudy:
    return study


def _run_shipped(study: BaseStudy, batch: list[dict]) -> list[dict]:
    return study.run_batch(batch)


_installed: BaseStudy | None = None


def _install(study: BaseStudy) -> None:
    """Keep the study in a worker process: pickled once per process, not once per batch."""
    global _installed
    _installed = study


def _run_installed(batch: list[dict]) -> list[dict]:
    assert _installed is not None
    return _installed.run_batch(batch)


def _run_processes(study: BaseStudy, batches: list[list[dict]], count: int,
                   advance: Callable[[int], None], done: dict[int, list[dict]]) -> None:
    with ProcessPoolExecutor(max_workers=count, initializer=_install,
                             initargs=(study,)) as pool:
        futures = {pool.submit(_run_installed, batch): k for k, batch in enumerate(batches)}
        try:
            for future in as_completed(futures):
                done[futures[future]] = future.result()
                advance(len(batches[futures[future]]))
        except BrokenProcessPool:   # a case killed its process: the pool is gone
            for future, k in futures.items():
                if k not in done and future.done() and future.exception() is None:
                    done[k] = future.result()
                    advance(len(batches[k]))
    for k, batch in enumerate(batches):   # the batches lost with a broken pool
        if k not in done:
            done[k] = _isolated(study, batch, advance)


def _isolated(study: BaseStudy, batch: list[dict], advance: Callable[[int], None]
              ) -> list[dict]:
    """The rows of a batch whose process died, run again in a process of its own; where
    that dies too, each half again, down to the case that kills its process, whose row
    tells so (the good cases are kept)."""
    try:
        with ProcessPoolExecutor(max_workers=1, initializer=_install,
                                 initargs=(study,)) as pool:
            rows = pool.submit(_run_installed, batch).result()
    except BrokenProcessPool as exc:
        if len(batch) == 1:
            advance(1)
            return [_lost_row(batch[0], exc)]
        half = len(batch) // 2
        return _isolated(study, batch[:half], advance) + _isolated(study, batch[half:], advance)
    advance(len(rows))
    return rows
