"""Parameter studies: formulate a network once, evaluate it for many parameter sets.

The network's state equations are derived once with the swept parameters kept as
symbols; the matrices ``A, B, E`` and the outputs' rows are compiled once into one
numeric function of those parameters. Each case then only evaluates that function and
integrates (or takes eigenvalues, or a frequency response) with numbers. Cases run in
this process, in local worker processes (``workers=``), or on a Dask cluster
(``client=``), in batches; a case that fails leaves its message in the ``error`` column
and never stops the study.

pandas is imported when a study runs, and Dask only when a client is given: importing
vecnet imports neither.
"""

from __future__ import annotations

import itertools
import math
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
import sympy

from .errors import ModelError, UnknownNameError
from .network import Network

if TYPE_CHECKING:
    import pandas

__all__ = ["Study", "compile_study", "sweep"]

#: the analyses known by name
ANALYSES = ("simulate", "eigenvalues", "frequency_response")
#: options each named analysis takes (besides the execution options of :func:`sweep`)
_OPTIONS = {
    "simulate": {"t_span", "t_end", "t_eval", "outputs", "inputs", "initial", "rtol", "atol",
                 "method"},
    "eigenvalues": set(),
    "frequency_response": {"frequencies", "outputs"},
}


class Study:
    """A network formulated once for a study: the compiled model of its swept parameters.

    Built by :func:`compile_study`; :meth:`run` evaluates one case and :meth:`run_batch`
    several, each returning one row (a dict) per case. A study pickles as its sympy
    expressions and compiles again, once, in the process that unpickles it: the compiled
    function is generated code, which pickle cannot carry.

    Attributes
    ----------
    names : tuple of str
        The swept parameters, by the names of their symbols (``"R1"``).
    analysis : str or callable
    model : StateSpace
        The formulated network, the swept parameters still symbols, every other
        parameter a number.
    """

    def __init__(self, model, names: Sequence[str], symbols: Sequence[sympy.Symbol],
                 checks: Mapping[str, list], analysis: str | Callable, options: Mapping) -> None:
        self.model = model
        self.names = tuple(names)
        self._symbols = tuple(symbols)
        self._checks = dict(checks)
        self.analysis = analysis
        self.options = dict(options)
        self._inputs = {str(sym): name for sym, name in zip(model.u, model.inputs)}
        self._compile()

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("_matrices", None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._compile()

    def _compile(self) -> None:
        self._matrices = None
        if callable(self.analysis) or not self.model.is_linear:
            return
        outputs = self._outputs()
        args = [*self.model.x, *self.model.u, *self.model.du]
        rows = sympy.Matrix([self.model.output(name) for name in outputs])
        exprs = [self.model.A, self.model.B, self.model.E,
                 rows.jacobian(args) if outputs else sympy.zeros(0, len(args))]
        parameters = [s for s in self._symbols if s not in self.model.u]
        self._matrices = sympy.lambdify(parameters, exprs, modules="numpy", cse=True)

    def _outputs(self) -> tuple[str, ...]:
        return tuple(self.options.get("outputs") or self.model.outputs or self.model.states)

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
        """Refuse what the elements would refuse, with their message."""
        for name, value in values.items():
            for cls, pname, element, allow_negative in self._checks.get(name, ()):
                problem = cls.value_problem(pname, value, element, allow_negative)
                if problem:
                    raise ModelError(problem)

    def _evaluate(self, values: Mapping[str, float]) -> dict[str, float]:
        if callable(self.analysis):
            return dict(self.analysis(self.model, dict(values)))
        if self._matrices is None:
            return self._simulate_nonlinear(values)
        model = self._numeric(values)
        if self.analysis == "eigenvalues":
            return _eigenvalue_columns(model.A.toarray())
        if self.analysis == "frequency_response":
            return self._frequency_columns(model)
        return self._simulate(model, values)

    def _numeric(self, values: Mapping[str, float]):
        from .formulation.numeric import SparseStateSpace

        parameters = [values[name] for name, sym in zip(self.names, self._symbols)
                      if sym not in self.model.u]
        with np.errstate(divide="raise", invalid="raise"):
            try:
                A, B, E, rows = (np.asarray(m, dtype=float) for m in self._matrices(*parameters))
            except (FloatingPointError, ZeroDivisionError) as exc:
                raise ModelError(f"with these values the state equations are undefined ({exc}): "
                                 "a store, resistance or ratio is zero where the network needs "
                                 "it finite") from None
        outputs = self._outputs()
        return SparseStateSpace(A=sp.csr_matrix(A), B=sp.csr_matrix(B), E=sp.csr_matrix(E),
                                states=self.model.states, inputs=self.model.inputs,
                                signals=self.model.signals, variables=sp.csr_matrix(rows),
                                rows={name: k for k, name in enumerate(outputs)},
                                outputs=outputs)

    def _simulation_options(self, values: Mapping[str, float]) -> tuple[tuple, dict]:
        opts = self.options
        t_span = opts.get("t_span") or (0.0, opts["t_end"])
        inputs = dict(opts.get("inputs") or {})
        inputs.update({self._inputs[name]: v for name, v in values.items() if name in self._inputs})
        chosen = {k: opts[k] for k in ("t_eval", "initial", "rtol", "atol", "method") if k in opts}
        return t_span, {"inputs": inputs, **chosen}

    def _simulate(self, model, values: Mapping[str, float]) -> dict[str, float]:
        from .numerics.simulate import simulate_sparse

        t_span, options = self._simulation_options(values)
        return _trace_columns(simulate_sparse(model, t_span, **options), self._outputs())

    def _simulate_nonlinear(self, values: Mapping[str, float]) -> dict[str, float]:
        # no linear matrices to compile: the numbers are put into the formulated equations
        # (subs, not simulate(parameters=), which would put the nominal values in first)
        t_span, options = self._simulation_options(values)
        parameters = {sym: values[name] for name, sym in zip(self.names, self._symbols)
                      if sym not in self.model.u}
        model = self.model.subs(parameters).with_outputs(self._outputs())
        return _trace_columns(model.simulate(t_span, **options), self._outputs())

    def _frequency_columns(self, model) -> dict[str, float]:
        from .numerics.analysis import frequency_response

        res = frequency_response(model, self.options["frequencies"], outputs=self._outputs())
        columns = {}
        for out in res.outputs:
            for inp in res.inputs:
                magnitude, phase = res.magnitude_db((out, inp)), res.phase_deg((out, inp))
                for k, f in enumerate(res.frequencies):
                    columns[f"{out}/{inp}@{f:g}Hz.dB"] = float(magnitude[k])
                    columns[f"{out}/{inp}@{f:g}Hz.deg"] = float(phase[k])
        return columns


def _trace_columns(result, outputs: Sequence[str]) -> dict[str, float]:
    """The final value and the peak (the value of largest magnitude) of each output."""
    columns = {}
    for name in outputs:
        trace = np.asarray(result[name], dtype=float)
        columns[f"{name}.final"] = float(trace[-1])
        columns[f"{name}.peak"] = float(trace[np.argmax(np.abs(trace))])
    return columns


def _eigenvalue_columns(A: np.ndarray) -> dict[str, float]:
    """``eig<k>.real`` and ``eig<k>.imag``, ordered by real part, then imaginary part."""
    eigenvalues = sorted(np.linalg.eigvals(A), key=lambda z: (z.real, z.imag))
    columns = {}
    for k, z in enumerate(eigenvalues):
        columns[f"eig{k}.real"] = float(z.real)
        columns[f"eig{k}.imag"] = float(z.imag)
    return columns


def compile_study(model: Any, names: Iterable[str], analysis: str | Callable = "simulate",
                  **options: Any) -> Study:
    """Formulate ``model`` once, its parameters ``names`` kept as symbols, and compile it.

    Parameters
    ----------
    model : Network or vecnet.io.Model or str or path
        A network, a loaded model file, or the path of a model file.
    names : iterable of str
        The swept parameters: symbol names (``"R1"`` for resistor ``R1``, ``"R_load"``
        for resistor ``load``, a model file's declared parameters), or input symbols
        (``"V1"``), whose values drive the sources when simulating.
    analysis : str or callable
        ``"simulate"``, ``"eigenvalues"``, ``"frequency_response"``, or
        ``f(state_space, values) -> dict of floats``.
    **options
        Of the analysis: ``t_span`` or ``t_end``, ``t_eval``, ``outputs``, ``inputs``,
        ``initial``, ``rtol``, ``atol``, ``method`` (simulate); ``frequencies`` in hertz
        and ``outputs`` (frequency_response).

    Returns
    -------
    Study

    Raises
    ------
    UnknownNameError
        A name that is no parameter of the network.
    ModelError
        An unknown analysis, a missing or unknown option, or a model that is not a network.

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
    _check_analysis(analysis, options)
    net, defaults, settings = _network_of(model)
    options = {**settings, **options}
    if analysis == "simulate" and "t_span" not in options and "t_end" not in options:
        raise ModelError("the simulate analysis needs t_end=... or t_span=(t0, t1)")
    if analysis == "frequency_response" and "frequencies" not in options:
        raise ModelError("the frequency_response analysis needs frequencies=[...] in hertz")
    ss = net.state_space(outputs=options.get("outputs") or settings.get("outputs") or (),
                         tree=settings.pop("tree", None) or "normal", symbolic=True)
    known = {str(sym): sym for sym in (*ss.values, *defaults, *ss.u)}
    names = list(names)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UnknownNameError(f"network {net.name!r} has no parameter(s) {', '.join(unknown)}; "
                               f"its parameters are {', '.join(sorted(known)) or 'none'}")
    symbols = [known[n] for n in names]
    fixed = {k: v for k, v in {**ss.values, **defaults}.items() if k not in symbols}
    ss = ss.subs(fixed)
    options.pop("tree", None)
    return Study(ss, names, symbols, _element_checks(net, symbols), analysis, options)


def _check_analysis(analysis: str | Callable, options: Mapping) -> None:
    if callable(analysis):
        return
    if analysis not in ANALYSES:
        raise ModelError(f"unknown analysis {analysis!r}; use one of {', '.join(ANALYSES)} or a "
                         "function f(state_space, values) -> dict")
    unknown = set(options) - _OPTIONS[analysis]
    if unknown:
        raise ModelError(f"the {analysis} analysis takes no option(s) {', '.join(sorted(unknown))}"
                         f"; its options are {', '.join(sorted(_OPTIONS[analysis])) or 'none'}")


def _network_of(model: Any) -> tuple[Network, dict, dict]:
    """The network, the declared parameter values and the simulation settings of ``model``."""
    if isinstance(model, (str, os.PathLike)):
        from .io import load_model

        model = load_model(model)
    if isinstance(model, Network):
        return model, {}, {}
    system = getattr(model, "system", None)
    if isinstance(system, Network):
        settings: dict[str, Any] = {"outputs": list(model.outputs), "tree": model.tree}
        if model.inputs:
            settings["inputs"] = dict(model.inputs)
        if model.initial:
            settings["initial"] = dict(model.initial)
        if model.t_span:
            settings["t_span"] = tuple(model.t_span)
        return system, dict(model.values), settings
    raise ModelError(f"a study takes a Network or a network model file, not "
                     f"{type(system or model).__name__}")


def _element_checks(net: Network, symbols: Sequence[sympy.Symbol]) -> dict[str, list]:
    """Symbol name -> (element class, parameter, element name, allow_negative) of every
    element parameter that is that symbol, to check each case's numbers as the element would."""
    wanted = set(symbols)
    checks: dict[str, list] = {}
    for element in net.elements:
        for pname, parameter in element.parameters.items():
            if parameter.symbol in wanted and pname not in element.signals:
                checks.setdefault(str(parameter.symbol), []).append(
                    (type(element), pname, element.name, element.allow_negative))
    return checks


def cases_of(samples: Mapping[str, Sequence[float]] | pandas.DataFrame) -> list[dict[str, float]]:
    """The cases of ``samples``: the cartesian product of a dict's sequences, or a
    DataFrame's rows.

    >>> cases_of({"R": [1, 2], "C": [3]})
    [{'R': 1, 'C': 3}, {'R': 2, 'C': 3}]
    """
    if isinstance(samples, Mapping):
        names = list(samples)
        return [dict(zip(names, combo)) for combo in itertools.product(*samples.values())]
    if hasattr(samples, "to_dict"):
        return samples.to_dict(orient="records")
    raise ModelError("samples are a dict name -> sequence of values (every combination is a "
                     f"case) or a pandas DataFrame with one row per case, not {type(samples).__name__}")


def sweep(model: Any, samples: Mapping[str, Sequence[float]] | pandas.DataFrame,
          analysis: str | Callable = "simulate", *, client: Any = None, workers: int = 1,
          batch_size: int | None = None, **options: Any) -> pandas.DataFrame:
    """Evaluate ``analysis`` for every parameter set of ``samples``, formulating once.

    Parameters
    ----------
    model : Network or vecnet.io.Model or str or path
        A network or a network model file.
    samples : dict or pandas.DataFrame
        Parameter name -> sequence of values (every combination is a case), or one row per
        case (e.g. from :mod:`vecnet.samples`, whose ``attrs`` such as the seed are kept).
    analysis : str or callable
        ``"simulate"`` (columns ``<output>.final`` and ``<output>.peak``, the value of
        largest magnitude), ``"eigenvalues"`` (``eig<k>.real``, ``eig<k>.imag`` in order of
        real part), ``"frequency_response"`` (``<output>/<input>@<f>Hz.dB`` and ``.deg``),
        or ``f(state_space, values) -> dict of floats``, given the formulated network (the
        swept parameters as symbols) and the case's values by name.
    client : dask.distributed.Client, optional
        Run on this Dask cluster: the compiled study is scattered once to every worker and
        the cases are submitted in batches; work lost with a worker is run again.
    workers : int
        Without a client, the number of local processes (``concurrent.futures``; 1: this
        process, no pickling, the default).
    batch_size : int, optional
        Cases per task (default: about four tasks per worker, at most 1,000 cases each).
    **options
        Of the analysis: see :func:`compile_study`.

    Returns
    -------
    pandas.DataFrame
        One row per case, in the order of ``samples``: the parameters, the results,
        ``time`` (seconds the case took) and ``error`` (the message of a failed case, else
        ``None``). ``attrs`` holds the samples' ``attrs``, the analysis and the
        formulation time.

    Raises
    ------
    UnknownNameError, ModelError
        See :func:`compile_study`; a failing case raises nothing.

    Examples
    --------
    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
    ...             vn.Capacitor("C", "g", "b", C=1.0))
    >>> df = vn.sweep(net, {"R": [1.0, -1.0]}, "simulate", t_end=1.0, outputs=["C.across"])
    >>> round(float(df["C.across.final"][0]), 6), df["error"][1][:13]
    (0.632121, "Resistor 'R':")
    """
    import pandas

    cases = cases_of(samples)
    names = list(cases[0]) if cases else list(getattr(samples, "columns", samples))
    start = time.perf_counter()
    study = compile_study(model, names, analysis, **options)
    formulated = time.perf_counter() - start
    count = _worker_count(client) if client is not None else max(1, int(workers))
    size = batch_size or max(1, min(1000, math.ceil(len(cases) / (4 * count))))
    batches = [cases[k:k + size] for k in range(0, len(cases), size)]
    if client is not None:
        rows = _run_dask(client, study, batches)
    elif count > 1:
        rows = _run_processes(study, batches, count)
    else:
        rows = study.run_batch(cases)
    frame = pandas.DataFrame(rows)
    # a failed case lacks the result columns, which would turn the other cases' None into NaN
    frame["error"] = frame["error"].astype(object).where(frame["error"].notna(), None)
    frame = frame[[c for c in frame.columns if c not in ("error", "time")] + ["error", "time"]]
    frame.attrs.update(getattr(samples, "attrs", {}))
    frame.attrs.update(analysis=getattr(analysis, "__name__", analysis),
                       formulation_time=formulated)
    return frame


def _worker_count(client: Any) -> int:
    return max(1, len(client.scheduler_info().get("workers", {})))


def _run_dask(client: Any, study: Study, batches: list[list[dict]]) -> list[dict]:
    shipped = client.scatter(study, broadcast=True)
    # pure=False: equal batches of two studies are not one result; a batch lost with its
    # worker is rerun by the scheduler (distributed.scheduler.allowed-failures)
    futures = [client.submit(_run_shipped, shipped, batch, pure=False) for batch in batches]
    return [row for rows in client.gather(futures) for row in rows]


def _run_shipped(study: Study, batch: list[dict]) -> list[dict]:
    return study.run_batch(batch)


_installed: Study | None = None


def _install(study: Study) -> None:
    """Keep the study in a worker process: pickled once per process, not once per batch."""
    global _installed
    _installed = study


def _run_installed(batch: list[dict]) -> list[dict]:
    assert _installed is not None
    return _installed.run_batch(batch)


def _run_processes(study: Study, batches: list[list[dict]], count: int) -> list[dict]:
    with ProcessPoolExecutor(max_workers=count, initializer=_install,
                             initargs=(study,)) as pool:
        return [row for rows in pool.map(_run_installed, batches) for row in rows]
