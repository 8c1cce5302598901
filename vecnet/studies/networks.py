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

import contextlib
import itertools
import math
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
import sympy

from ..build.network import Network
from ..elements.base import t
from ..errors import ModelError, UnknownNameError

if TYPE_CHECKING:
    import pandas
    import xarray

__all__ = ["Study", "BaseStudy", "compile_study", "settling_time", "sweep", "cases_of",
           "trace_columns", "eigenvalue_columns", "check_analysis", "check_options"]

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


class Study(BaseStudy):
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
        # swept name -> the input its symbol drives
        self._inputs = {name: source for name, sym in zip(self.names, self._symbols)
                        for u, source in zip(model.u, model.inputs) if sym == u}
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
        outputs = self.outputs
        args = [*self.model.x, *self.model.u, *self.model.du]
        rows = sympy.Matrix([self.model.output(name) for name in outputs])
        exprs = [self.model.A, self.model.B, self.model.E,
                 rows.jacobian(args) if outputs else sympy.zeros(0, len(args))]
        parameters = [s for s in self._symbols if s not in self.model.u]
        self._matrices = sympy.lambdify(parameters, exprs, modules="numpy", cse=True)

    def _repr_html_(self) -> str:
        """A small table for notebooks: the analysis, the swept parameters, the outputs and
        the analysis options, every value as given."""
        from html import escape

        analysis = getattr(self.analysis, "__name__", self.analysis)
        rows = [("analysis", str(analysis)), ("swept parameters", ", ".join(self.names)),
                ("outputs", ", ".join(self.outputs)),
                ("states", str(len(self.model.states)))]
        rows += [(f"option {key}", repr(value)) for key, value in self.options.items()]
        body = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in rows)
        return f"<table><caption>Study</caption>{body}</table>"

    @property
    def outputs(self) -> tuple[str, ...]:
        """The analysed outputs: the ``outputs`` option, the model's, else its states."""
        return tuple(self.options.get("outputs") or self.model.outputs or self.model.states)

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
            return eigenvalue_columns(model.A.toarray())
        if self.analysis == "frequency_response":
            return self._frequency_columns(model)
        if self.analysis == "equilibrium":
            return self._equilibrium_columns(model, values)
        return self._simulate(model, values)

    def _numeric(self, values: Mapping[str, float]):
        from ..formulation.numeric import SparseStateSpace

        parameters = [values[name] for name, sym in zip(self.names, self._symbols)
                      if sym not in self.model.u]
        with np.errstate(divide="raise", invalid="raise"):
            try:
                A, B, E, rows = (np.asarray(m, dtype=float) for m in self._matrices(*parameters))
            except (FloatingPointError, ZeroDivisionError) as exc:
                raise ModelError(f"with these values the state equations are undefined ({exc}): "
                                 "a store, resistance or ratio is zero where the network needs "
                                 "it finite") from None
        outputs = self.outputs
        return SparseStateSpace(A=sp.csr_matrix(A), B=sp.csr_matrix(B), E=sp.csr_matrix(E),
                                states=self.model.states, inputs=self.model.inputs,
                                signals=self.model.signals, variables=sp.csr_matrix(rows),
                                rows={name: k for k, name in enumerate(outputs)},
                                outputs=outputs)

    def _case_inputs(self, values: Mapping[str, float]) -> dict[str, Any]:
        """The sources' values: the ``inputs`` option, then the case's swept source symbols."""
        inputs = dict(self.options.get("inputs") or {})
        inputs.update({self._inputs[name]: v for name, v in values.items() if name in self._inputs})
        return inputs

    def _simulation_options(self, values: Mapping[str, float]) -> tuple[tuple, dict]:
        opts = self.options
        t_span = opts.get("t_span") or (0.0, opts["t_end"])
        chosen = {k: opts[k] for k in ("t_eval", "initial", "rtol", "atol", "method") if k in opts}
        if "t_eval" not in chosen and self._wants_grid():
            # traces of all cases share one time axis, and settling is read off a known grid
            chosen["t_eval"] = self.trace_grid()
        return t_span, {"inputs": self._case_inputs(values), **chosen}

    def _simulate(self, model, values: Mapping[str, float]) -> dict[str, Any]:
        from ..numerics.simulate import simulate_sparse

        t_span, options = self._simulation_options(values)
        return self._summaries(simulate_sparse(model, t_span, **options))

    def _simulate_nonlinear(self, values: Mapping[str, float]) -> dict[str, float]:
        # no linear matrices to compile: the numbers are put into the formulated equations
        # (subs, not simulate(parameters=), which would put the nominal values in first)
        t_span, options = self._simulation_options(values)
        parameters = {sym: values[name] for name, sym in zip(self.names, self._symbols)
                      if sym not in self.model.u}
        model = self.model.subs(parameters).with_outputs(self.outputs)
        return self._summaries(model.simulate(t_span, **options))

    def _equilibrium_columns(self, model, values: Mapping[str, float]) -> dict[str, float]:
        from ..numerics.analysis import operating_point

        point = operating_point(model, inputs=self._case_inputs(values), outputs=self.outputs)
        return dict(point.variables)

    def _frequency_columns(self, model) -> dict[str, float]:
        from ..numerics.analysis import frequency_response

        res = frequency_response(model, self.options["frequencies"], outputs=self.outputs)
        columns = {}
        for out in res.outputs:
            for inp in res.inputs:
                magnitude, phase = res.magnitude_db((out, inp)), res.phase_deg((out, inp))
                for k, f in enumerate(res.frequencies):
                    columns[f"{out}/{inp}@{f:g}Hz.dB"] = float(magnitude[k])
                    columns[f"{out}/{inp}@{f:g}Hz.deg"] = float(phase[k])
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
        from ..io import load_model

        model = load_model(model)
    if not isinstance(model, Network) and not isinstance(getattr(model, "system", None),
                                                          Network):
        from .mechanisms import compile_multibody_study

        return compile_multibody_study(model, names, analysis, **options)
    check_analysis(analysis, options)
    net, defaults, settings = _network_of(model)
    if "t_end" in options or "t_span" in options:   # the caller's span wins over the file's
        settings.pop("t_span", None)
    options = {**settings, **options}
    check_options(analysis, options)
    ss = net.state_space(outputs=options.get("outputs") or settings.get("outputs") or (),
                         tree=settings.pop("tree", None) or "normal", symbolic=True)
    known = {str(sym): sym for sym in (*ss.values, *defaults, *ss.u, *net.parameter_symbols())}
    for element in net.elements:
        for pname, parameter in element.parameters.items():
            if pname not in element.signals:
                known.setdefault(f"{element.name}.{pname}", parameter.symbol)
    names = list(names)
    unknown = [n for n in names if n not in known]
    given = dict(options.pop("parameters", None) or {})
    unknown += [n for n in given if n not in known and n not in unknown]
    if unknown:
        raise UnknownNameError(f"network {net.name!r} has no parameter(s) {', '.join(unknown)}; "
                               f"its parameters are "
                               f"{', '.join(sorted(k for k in known if '.' not in k)) or 'none'}"
                               " (or '<element>.<parameter>')")
    symbols = [known[n] for n in names]
    inputs = {source: given.pop(str(u)) for u, source in zip(ss.u, ss.inputs) if str(u) in given}
    if inputs:
        options["inputs"] = {**inputs, **(options.get("inputs") or {})}
    fixed = {k: v for k, v in {**ss.values, **defaults, **{known[n]: v for n, v in given.items()}}
             .items() if k not in symbols}
    ss = ss.subs(fixed)
    options.pop("tree", None)
    if not callable(analysis):
        inner = {t, *ss.x, *ss.u, *ss.du, *symbols, *getattr(ss, "z", ())}
        exprs = [*ss.f, *getattr(ss, "g", ()), *(ss.output(n) for n in ss.outputs)]
        loose = sorted({str(sym) for e in exprs for sym in sympy.sympify(e).free_symbols
                        if sym not in inner})
        if loose:
            raise ModelError(f"network {net.name!r}: no value for parameter(s) "
                             f"{', '.join(loose)}; sweep them or give parameters={{...}}")
    if analysis == "equilibrium" and not ss.is_linear:
        raise ModelError(f"network {net.name!r} is nonlinear: the equilibrium analysis solves "
                         "the linear equations A x = -B u; simulate it to its steady state "
                         "instead")
    return Study(ss, names, symbols, _element_checks(net, names, symbols), analysis, options)


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


def _network_of(model: Any) -> tuple[Network, dict, dict]:
    """The network, the declared parameter values and the simulation settings of ``model``."""
    if isinstance(model, Network):
        return model, {}, {}
    system = model.system
    settings: dict[str, Any] = {"outputs": list(model.outputs), "tree": model.tree}
    if model.inputs:
        settings["inputs"] = dict(model.inputs)
    if model.initial:
        settings["initial"] = dict(model.initial)
    if model.t_span:
        settings["t_span"] = tuple(model.t_span)
    return system, dict(model.values), settings


def _element_checks(net: Network, names: Sequence[str],
                    symbols: Sequence[sympy.Symbol]) -> dict[str, list]:
    """Swept name -> (element class, parameter, element name, allow_negative) of every
    element parameter that is its symbol, to check each case's numbers as the element would."""
    checks: dict[str, list] = {}
    for name, symbol in zip(names, symbols):
        for element in net.elements:
            for pname, parameter in element.parameters.items():
                if parameter.symbol == symbol and pname not in element.signals:
                    checks.setdefault(name, []).append(
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
    with _case_counter(len(cases), progress) as advance:
        if client is not None:
            rows = _run_dask(client, study, batches, advance)
        elif count > 1:
            rows = _run_processes(study, batches, count, advance)
        else:
            rows = []
            for case in cases:
                rows.append(study.run(case))
                advance(1)
    traces = [row.pop(TRACES, None) for row in rows]
    frame = _frame(rows, samples, analysis, formulated)
    if study.analysis == "simulate" and study.options.get("traces"):
        return frame, _trace_dataset(frame, names, traces, study)
    return frame


def _frame(rows: list[dict], samples: Any, analysis: str | Callable,
           formulated: float) -> pandas.DataFrame:
    import pandas

    frame = pandas.DataFrame(rows)
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
              advance: Callable[[int], None]) -> list[dict]:
    from distributed import as_completed

    # the study as the result of a task, not scattered data: a copy lost with its worker is
    # made again from the task, where scattered data would be gone with its dependents
    shipped = client.submit(_shipped, study, pure=False)
    # pure=False: equal batches of two studies are not one result; a batch lost with its
    # worker is rerun by the scheduler (distributed.scheduler.allowed-failures)
    futures = [client.submit(_run_shipped, shipped, batch, pure=False) for batch in batches]
    sizes = {future.key: len(batch) for future, batch in zip(futures, batches)}
    for future in as_completed(futures):
        advance(sizes[future.key])
    return [row for rows in client.gather(futures) for row in rows]


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
                   advance: Callable[[int], None]) -> list[dict]:
    rows = []
    with ProcessPoolExecutor(max_workers=count, initializer=_install,
                             initargs=(study,)) as pool:
        for batch_rows in pool.map(_run_installed, batches):
            rows.extend(batch_rows)
            advance(len(batch_rows))
    return rows
