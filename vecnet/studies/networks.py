"""Parameter studies: formulate a network once, evaluate it for many parameter sets.

The network's state equations are derived once with the swept parameters kept as
symbols; the matrices ``A, B, E`` and the outputs' rows are compiled once into one
numeric function of those parameters. Each case then only evaluates that function and
integrates (or takes eigenvalues, or a frequency response) with numbers. Cases run in
this process, in local worker processes (``workers=``), or on a Dask cluster
(``client=``), in batches; a case that fails leaves its message in the ``error`` column
and never stops the study.

The cases run as :func:`vecnet.sweep` says (:mod:`vecnet.studies.sweep`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
import sympy

from ..builders.network import Network
from ..elements.base import t
from ..errors import ModelError, UnknownNameError
from .study import (
    BaseStudy,
    check_analysis,
    check_options,
    eigenvalue_columns,
)

if TYPE_CHECKING:
    pass

__all__ = ["Study", "compile_network_study"]


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
        from ..numerics.simulation import simulate

        t_span, options = self._simulation_options(values)
        return self._summaries(simulate(model, t_span, **options))

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


def compile_network_study(model: Any, names: Iterable[str], analysis: str | Callable = "simulate",
                          **options: Any) -> Study:
    """:func:`~vecnet.studies.sweep.compile_study` of a :class:`~vecnet.Network` or a loaded
    network model: its state equations formulated once with ``names`` kept as symbols."""
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
