"""A model as C source: the states, parameters, inputs and outputs it has, by name, and
the C that computes their rates and values, with no Python at run time.

:func:`c_model` takes a loaded :class:`~vecnet.Model`, a network's
:class:`~vecnet.formulation.lumped.StateSpace` or a mechanism's equations and returns a
:class:`CModel`. Its ``source`` implements the interface of ``model.h`` (the ``vn_*``
functions of ``vecnet/output/fmu_runtime/runtime.h``) for the FMI run-time
(:func:`vecnet.export_fmu`):

- a **network**: ``x' = f(x, u, t)`` and ``y = h(x, u, t)``, each written once from the
  symbolic state equations with common subexpressions computed once
  (:func:`vecnet.numerics.c_code.c_function`);
- a **mechanism**: the states are its coordinates and speeds, ``x = (q, u)``;
  ``q' = N(q) u``, and ``u'`` with the multipliers from one solve of
  ``[M  -Phi_u^T; Phi_u  0] [u'; lambda] = [Q; gamma]``, ``gamma = -d/dt(Phi_u u +
  Phi_t)`` at constant ``u`` (the acceleration rows of the cut joints and of the rolling
  contacts, ``A(q) u + b = 0``). ``M`` and ``Q`` are written from the recursive
  Newton–Euler listing of the tree (:meth:`~vecnet.formulation.recursion.NewtonEuler.steps`):
  its kinematics once, its residual ``M u' - Q`` at ``u' = 0`` and at each unit ``u'``,
  so the C grows with the number of bodies; a mechanism coupled by rotors or port loads,
  whose terms the listing does not hold, from its explicit ``M`` and ``Q``. After each
  accepted step the run-time calls the projection, which pulls the coordinates back onto
  ``Phi = 0`` by Newton's method (least-norm steps ``q -= Phi_q^T (Phi_q Phi_q^T)^-1
  Phi``), normalizes every quaternion and the speeds onto ``Phi_u u + Phi_t = 0``, so
  that the drift of an integrator over a long run is removed as vecnet's own
  coordinate partitioning removes it.

- **events** (Model Exchange: the importer finds them; Co-Simulation: the FMU's own
  integrator locates them inside its steps): each side of a joint stop is
  an event indicator, its gap, and a strike Newton's impact (``M du = Phi_u^T L + g^T P``,
  ``g . du = -(1 + e) g . u``); a set-valued joint friction with fixed forces sticks
  (its joint's acceleration a row of the saddle-point system, the holding force its
  multiplier) or slips (``-F_k sign(v)`` along the joint), its indicator the speed in its
  slipping direction or the static limit less the holding force;
- a **coupled system** (:class:`~vecnet.formulation.coupled.CoupledModel`): the network's
  and blocks' states after the speeds, the ports' loads put into ``Q``.

What it cannot write yet is refused in words before anything is written: algebraic loops
kept as residuals, sources given as Python functions, an input whose derivative drives a
dependent store, friction that follows a joint's normal reaction, contacts, loads on
joints, and outputs other than sensors (reactions, energy).
"""

from __future__ import annotations

import functools
import hashlib
import re
import uuid
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from ..builders.model import Model
from ..core.symbols import t
from ..elements.joint_laws import ContactLaw
from ..errors import FormulationError, ModelError, UnsupportedNetwork, VecnetError
from ..formulation.coupled import CoupledModel
from ..formulation.lumped import StateSpace
from ..formulation.multibody import MechanismEquations
from ..formulation.recursion import newton_euler
from .c_code import c_function
from .multibody import stop_sides

__all__ = ["CModel", "Variable", "c_model"]

#: the drift of a constraint row (or of a quaternion's norm) beyond which a step is
#: followed by a projection, and the residual that projection leaves
DRIFT = 1e-7
CLOSED = 1e-13

#: the Co-Simulation integrator's tolerances (the FMU's description states them)
CS_RTOL = 1e-10
CS_ATOL = 1e-12


@dataclass(frozen=True)
class Variable:
    """One Float64 variable of a :class:`CModel`: its name as vecnet gives it, its start
    value (``None`` for one computed from the others), SI unit and description."""

    name: str
    start: float | None = None
    unit: str = ""
    description: str = ""


@dataclass(frozen=True)
class CModel:
    """A model written as C (:func:`c_model`).

    Attributes
    ----------
    name : str
        The model's name; ``identifier`` is a C identifier made of it.
    states, parameters, inputs, outputs : tuple of Variable
        In the order of their value references: the states, their derivatives (named
        ``der(<state>)``), the parameters, the inputs and the outputs; a requested output
        that is a state is not repeated among the outputs but listed in
        ``state_outputs`` (its index among the states).
    source, header : str
        ``model.c`` and ``model.h``.
    description : str
        What the model is and how its C computes, in words.
    token : str
        The instantiation token (FMI 2's GUID): a UUID made of the source, so that the
        same model gives the same token.
    """

    name: str
    states: tuple[Variable, ...]
    parameters: tuple[Variable, ...]
    inputs: tuple[Variable, ...]
    outputs: tuple[Variable, ...]
    state_outputs: tuple[int, ...]
    source: str
    header: str
    description: str
    token: str
    start_time: float = 0.0
    #: the outputs (their indices) that are event indicators: the gaps of joint stops and
    #: the frictions' margins to their next mode change
    indicators: tuple[int, ...] = ()
    stop_time: float | None = None

    @property
    def identifier(self) -> str:
        """A C identifier made of :attr:`name` (the FMU's model identifier)."""
        word = re.sub(r"\W+", "_", self.name, flags=re.ASCII).strip("_") or "model"
        return word if not word[0].isdigit() else f"m_{word}"


def _number(value: Any, what: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ModelError(f"{what} is {value!r}, not a number: give it a numeric value "
                         "to export") from None
    if not np.isfinite(number):
        raise ModelError(f"{what} is {number}, not a finite number")
    return number


def _header(counts: Mapping[str, int], token: str, extra: Sequence[str] = ()) -> str:
    lines = ["/* model.h: the sizes of one model, written by vecnet */",
             "#ifndef VN_MODEL_H", "#define VN_MODEL_H"]
    for key in ("NX", "NP", "NU", "NY", "NW", "NZ"):
        lines.append(f"#define VN_{key} {counts.get(key, 0)}")
    lines += [f'#define VN_TOKEN "{token}"', f"#define VN_CS_RTOL {CS_RTOL!r}",
              f"#define VN_CS_ATOL {CS_ATOL!r}", *extra, _INTERFACE, "#endif"]
    return "\n".join(lines) + "\n"


#: what model.c gives the run-time, and the run-time's solve that model.c calls
_INTERFACE = """\
extern const double vn_x_start[];
extern const double vn_p_start[];
extern const double vn_u_start[];
int vn_initialize(double t, double *x, const double *p, const double *u, double *w);
int vn_derivatives(double t, const double *x, const double *p, const double *u, double *w,
                   double *dx);
int vn_outputs(double t, const double *x, const double *p, const double *u, double *w,
               double *y);
int vn_indicators(double t, const double *x, const double *p, const double *u, double *w,
                  double *z);
int vn_update(double t, double *x, const double *p, const double *u, double *w, int *changed);
int vn_project(double t, double *x, const double *p, const double *u, double *w);
const char *vn_message(int code);
int vn_solve(int n, double *A, double *b);"""


def _array(name: str, values: Sequence[float], kind: str = "const double") -> str:
    """A C array of ``values`` (one zero when there are none: C has no empty arrays)."""
    entries = ", ".join(repr(float(v)) if "double" in kind else str(int(v))
                        for v in values) or "0"
    return f"{kind} {name}[] = {{{entries}}};"


def _finish(name: str, description: str, states, parameters, inputs, outputs,
            state_outputs, functions: str, body: str, extra_header: Sequence[str] = (),
            work: int = 1, stop_time: float | None = None,
            indicators: Sequence[int] = ()) -> CModel:
    counts = {"NX": len(states), "NP": len(parameters), "NU": len(inputs),
              "NY": len(outputs), "NW": max(work, 1), "NZ": len(indicators)}
    source = "\n\n".join([
        "/* model.c: written by vecnet for " + name.replace("*/", "* /") + " */",
        '#include <math.h>\n#include <stddef.h>\n#include "model.h"', _MATH_CONSTANTS,
        _array("vn_x_start", [v.start for v in states]),
        _array("vn_p_start", [v.start for v in parameters]),
        _array("vn_u_start", [v.start for v in inputs]),
        functions, body])
    digest = hashlib.sha256((_header(counts, "", extra_header) + source).encode()).hexdigest()
    token = "{" + str(uuid.UUID(digest[:32])) + "}"
    return CModel(name=name, states=tuple(states),
                  parameters=tuple(parameters), inputs=tuple(inputs), outputs=tuple(outputs),
                  state_outputs=tuple(state_outputs), source=source,
                  header=_header(counts, token, extra_header), description=description,
                  token=token, indicators=tuple(indicators), stop_time=stop_time)


#: the constants sympy's C printer names, which strict C99 leaves to the platform
_MATH_CONSTANTS = "\n".join(
    f"#ifndef {name}\n#define {name} {value}\n#endif" for name, value in (
        ("M_E", "2.718281828459045235360287"), ("M_LOG2E", "1.442695040888963407359925"),
        ("M_LOG10E", "0.434294481903251827651129"), ("M_LN2", "0.693147180559945309417232"),
        ("M_LN10", "2.302585092994045684017991"), ("M_PI", "3.141592653589793238462643"),
        ("M_PI_2", "1.570796326794896619231322"), ("M_PI_4", "0.785398163397448309615661"),
        ("M_1_PI", "0.318309886183790671537768"), ("M_2_PI", "0.636619772367581343075535"),
        ("M_2_SQRTPI", "1.128379167095512573896159"), ("M_SQRT2", "1.414213562373095048801689"),
        ("M_SQRT1_2", "0.707106781186547524400844")))


def _parameters(symbols: Collection[sympy.Symbol], values: Mapping[str, Any],
                names: dict[sympy.Symbol, str]) -> list[Variable]:
    """The parameters ``symbols`` with their ``values``, in the order of ``values`` (a
    file's declared ones first), each given its C name ``p[k]`` in ``names``.

    Raises
    ------
    ModelError
        A parameter without a value.
    """
    order = {name: k for k, name in enumerate(values)}
    parameters: list[Variable] = []
    for symbol in sorted(symbols, key=lambda s: (order.get(str(s), len(order)), str(s))):
        if str(symbol) not in values:
            raise ModelError(f"parameter {symbol} has no value: give parameters="
                             f"{{{str(symbol)!r}: ...}}")
        names[symbol] = f"p[{len(parameters)}]"
        parameters.append(Variable(str(symbol), _number(values[str(symbol)],
                                                        f"parameter {symbol}")))
    return parameters


def _split_outputs(requested: Sequence[str], states: Sequence[str]):
    """Requested outputs that are states (their indices) and the others (names)."""
    seen, state_outputs, others = set(), [], []
    for name in requested:
        if name in seen:
            raise ModelError(f"output {name!r} is requested twice")
        seen.add(name)
        if name in states:
            state_outputs.append(list(states).index(name))
        else:
            others.append(name)
    return state_outputs, others


@functools.singledispatch
def c_model(record: Any, outputs: Iterable[str] | None = None,
            parameters: Mapping | None = None) -> CModel:
    """The :class:`CModel` of a loaded model, a network's state space, a mechanism's
    equations or a coupled system's model, with ``outputs`` (names; by default the model file's) and the
    ``parameters``' values (by name or symbol; by default the model's own values).

    Raises
    ------
    ModelError
        A parameter without a value, an output the C cannot compute, or a feature it
        cannot export yet (named in the message).

    Examples
    --------
    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=2.0),
    ...             vn.Capacitor("C", "b", "g", C=0.5))
    >>> model = c_model(net.state_space(outputs=["C.across"], symbolic=True))
    >>> [v.name for v in model.states], [v.name for v in model.parameters]
    (['C.across'], ['R', 'C'])
    >>> [v.name for v in model.inputs], model.state_outputs
    (['V.across'], (0,))
    """
    raise ModelError(f"cannot write a {type(record).__name__} as C: give a model file's "
                     "Model, a network's StateSpace, a mechanism's equations or a coupled "
                     "system's CoupledModel")


def _values(given: Mapping | None, *own: Mapping) -> dict[str, Any]:
    """Parameter values by name: those ``given``, then each of ``own`` in turn for the
    names not yet valued (a record's or file's own values)."""
    values: dict[str, Any] = {}
    for source in own:
        values.update({str(k): v for k, v in source.items() if str(k) not in values})
    values.update({str(k): v for k, v in (given or {}).items()})
    return values


def _model_file(model, outputs: Iterable[str] | None = None,
                parameters: Mapping | None = None) -> CModel:
    requested = list(model.outputs) if outputs is None else list(outputs)
    if model.kind == "network":
        ss = model.system.state_space(outputs=requested, tree=model.tree or "normal",
                                      symbolic=True)
        # numbers given to elements are parameters too, after the declared ones
        units = {name: unit for name, (_, unit) in model.system.units().items()}
        return _network(ss, _values(parameters, model.values, ss.values), model.name,
                        dict(model.inputs), model.t_span, units)
    formulated = model.formulate()
    coupled = formulated if model.kind == "system" else None
    eom = formulated.eom if coupled is not None else formulated
    return _mechanism(eom, requested, _values(parameters, model.values, eom.parameter_values),
                      model.name, model.initial or None, model.velocities or None,
                      model.t_span, coupled)


def _state_space(record, outputs: Iterable[str] | None = None,
                 parameters: Mapping | None = None) -> CModel:
    ss = record if outputs is None else record.with_outputs(list(outputs))
    return _network(ss, _values(parameters, ss.values), "network", {}, None, {})


def _equations(record, outputs: Iterable[str] | None = None,
               parameters: Mapping | None = None) -> CModel:
    return _mechanism(record, list(outputs or ()), _values(parameters, record.parameter_values),
                      record.mechanism.name, None, None, None)


def _coupled(record, outputs: Iterable[str] | None = None,
             parameters: Mapping | None = None) -> CModel:
    return _mechanism(record.eom, list(outputs or ()),
                      _values(parameters, record.eom.parameter_values),
                      record.eom.mechanism.name, None, None, None, record)


c_model.register(Model, _model_file)
c_model.register(StateSpace, _state_space)
c_model.register(MechanismEquations, _equations)
c_model.register(CoupledModel, _coupled)


# -- networks ------------------------------------------------------------------------------
def _network(ss, values: Mapping[str, Any], name: str, file_inputs: Mapping[str, Any],
             t_span, units: Mapping[str, str]) -> CModel:
    if ss.z:
        raise UnsupportedNetwork(f"the network keeps {len(ss.z)} algebraic variable(s) in an "
                                 "algebraic loop: it cannot be exported yet")
    names: dict[sympy.Symbol, str] = {t: "t"}
    for k, x in enumerate(ss.x):
        names[x] = f"x[{k}]"
    exprs = list(ss.f) + list(ss.h)
    held = set().union(*(e.free_symbols for e in exprs)) if exprs else set()
    inputs: list[Variable] = []
    built_in: dict[sympy.Symbol, sympy.Expr] = {}
    for input_name, u, du in zip(ss.inputs, ss.u, ss.du):
        signal = file_inputs.get(input_name, ss.signals.get(input_name))
        if isinstance(signal, sympy.Basic) and not signal.is_number:
            if {str(s) for s in signal.free_symbols} - {str(t)} - set(values):
                raise ModelError(f"input {input_name!r} is {signal}: only t and declared "
                                 "parameters may appear in it")
            built_in[u] = signal
            built_in[du] = signal.diff(t)
            continue
        if u not in held and du not in held:
            continue   # a source the equations do not hold (its value a parameter)
        if callable(signal) and not isinstance(signal, sympy.Basic):
            raise ModelError(f"input {input_name!r} is a Python function: C cannot call it; "
                             "give it as an expression in t, or a number (an FMU input)")
        if du in held:
            raise ModelError(f"a dependent energy store takes the rate of input "
                             f"{input_name!r}, which an FMU input does not carry: give the "
                             "input as an expression in t")
        start = 0.0 if signal is None else _number(signal, f"input {input_name!r}")
        if str(u) in values:   # a source whose value is a declared parameter
            continue
        names[u] = f"u[{len(inputs)}]"
        inputs.append(Variable(input_name, start, description="a source's value"))
    exprs = [e.xreplace(built_in) for e in exprs]
    held = set().union(*(e.free_symbols for e in exprs)) if exprs else set()
    parameters = _parameters(held - set(names), values, names)
    states = [Variable(n, 0.0, units.get(n, ""), "a state: an energy store's variable")
              for n in ss.states]
    state_outputs, others = _split_outputs(ss.outputs, ss.states)
    outputs = [Variable(n, None, units.get(n, ""), "an output") for n in others]
    nf = len(ss.f)
    h_of = {n: e for n, e in zip(ss.outputs, exprs[nf:])}
    functions = "\n\n".join([c_function("f", exprs[:nf], names),
                             c_function("h", [h_of[n] for n in others], names)])
    description = (f"{name}: the state equations x' = f(x, u, t) of a lumped network, "
                   "written as C by vecnet")
    return _finish(name, description, states, parameters, inputs, outputs, state_outputs,
                   functions, _NETWORK_BODY, stop_time=t_span[1] if t_span else None)


_NETWORK_BODY = """\
int vn_initialize(double t, double *x, const double *p, const double *u, double *w) {
    (void)t; (void)x; (void)p; (void)u; (void)w;
    return 0;
}

int vn_derivatives(double t, const double *x, const double *p, const double *u, double *w,
                   double *dx) {
    (void)w;
    gen_f(t, x, p, u, dx);
    for (int i = 0; i < VN_NX; i++) if (!isfinite(dx[i])) return 2;
    return 0;
}

int vn_outputs(double t, const double *x, const double *p, const double *u, double *w,
               double *y) {
    (void)w;
    gen_h(t, x, p, u, y);
    return 0;
}

int vn_indicators(double t, const double *x, const double *p, const double *u, double *w,
                  double *z) {
    (void)t; (void)x; (void)p; (void)u; (void)w; (void)z;
    return 0;
}

int vn_update(double t, double *x, const double *p, const double *u, double *w, int *changed) {
    (void)t; (void)x; (void)p; (void)u; (void)w;
    *changed = 0;
    return 0;
}

int vn_project(double t, double *x, const double *p, const double *u, double *w) {
    (void)t; (void)x; (void)p; (void)u; (void)w;
    return 0;
}

const char *vn_message(int code) {
    switch (code) {
    case 2: return "a state's rate is not a finite number";
    default: return "the model failed";
    }
}
"""


# -- mechanisms ----------------------------------------------------------------------------
def _refuse_unexportable(eom, coupled_loads: Collection = ()) -> None:
    """Refuse, naming them, the parts of a mechanism whose C is not written yet."""
    what = []
    loose = {k: v for k, v in getattr(eom, "joint_loads", {}).items()
             if v not in coupled_loads}
    if loose:
        what.append("loads on joints (" + ", ".join(map(str, loose)) + ")")
    for element in eom.mechanism.network.elements:
        if isinstance(element, ContactLaw):
            what.append(f"contact {element.name!r}")
    if what:
        raise ModelError("cannot export yet: " + "; ".join(what) + " (their events and set-"
                         "valued laws are not written as C)")


def _mechanism_unit(name: str) -> str:
    what = name.rpartition(".")[2]
    rate = what.endswith("'")
    what = what.rstrip("'")
    unit = {"angle": "rad", "x": "m", "y": "m", "z": "m"}.get(what)
    if what in ("wx", "wy", "wz", "w1", "w2", "w3", "omega"):
        return "rad/s"
    if what in ("vx", "vy", "vz"):
        return "m/s"
    if unit is None:
        return ""
    return f"{unit}/s" if rate else unit


def _mechanism(eom, requested: Sequence[str], values: Mapping[str, Any], name: str,
               initial, velocities, t_span, coupled=None) -> CModel:
    """A mechanism's C; with ``coupled`` (a :class:`~vecnet.formulation.coupled.CoupledModel`
    of ``eom``) also its network's and blocks' states after the speeds, and the ports'
    loads in ``Q``."""
    loads = dict(coupled.loads) if coupled is not None else {}
    _refuse_unexportable(eom, set(loads))
    q, v = list(eom.q), list(eom.u)
    others_x = list(coupled.state_symbols) if coupled is not None else []
    nq, nv = len(q), len(v)
    names: dict[sympy.Symbol, str] = {t: "t"}
    for k, s in enumerate(q + v + others_x):
        names[s] = f"x[{k}]"
    N = getattr(eom, "N", None)
    rates = list(v) if N is None else list(N * sympy.Matrix(v))
    Phi = sympy.Matrix(eom.constraints)
    npos = len(Phi)
    Phi_q = Phi.jacobian(q) if npos else sympy.zeros(0, nq)
    # the velocity rows: the cut joints' Phi_u u + Phi_t = 0, then the rolling contacts'
    # A u + b = 0 (nonholonomic: no position row); each row's rate at constant u is -gamma
    Phi_u = eom.constraint_jacobian if npos else sympy.zeros(0, nv)
    Phi_t = Phi.diff(t) if npos else sympy.zeros(0, 1)
    rolling = sympy.Matrix(eom.velocity_constraints)
    if len(rolling):
        A = rolling.jacobian(v)
        Phi_u = Phi_u.col_join(A)
        Phi_t = Phi_t.col_join(sympy.expand(rolling - A * sympy.Matrix(v)))
    nc = Phi_u.rows
    gamma = [-eom.rate(e) for e in (Phi_u * sympy.Matrix(v) + Phi_t)] if nc else []
    sensors = {}
    for output in requested:
        if output in eom.coordinates or output in eom.speed_names or (
                coupled is not None and output in coupled.states):
            continue
        try:
            sensors[output] = eom.measure(output)
        except VecnetError:
            raise ModelError(f"output {output!r} cannot be exported yet (only coordinates, "
                             "speeds and sensors: a point's position or velocity, a joint's "
                             "angle or rate): leave it out (outputs=[...], or --outputs "
                             "on the command line)") from None
    stops = _stops(eom)
    frictions = _frictions(eom)
    recursive = _recursive(eom) if not loads else None
    if recursive is None:
        pieces = {"mass": list(eom.M), "forces": list(sympy.Matrix(eom.Q).xreplace(loads))}
    else:
        pieces = {}
    pieces |= {"rates": rates, "phi": list(Phi),
              "phi_q": list(Phi_q), "phi_t": list(Phi_t), "phi_u": list(Phi_u),
              "gamma": gamma,
              "others": list(coupled.state_rates) if coupled is not None else [],
              "gaps": [gap for _, gap, _, _ in stops],
              "gap_rows": [g for _, _, row, _ in stops for g in row],
              "friction_rows": [g for _, row, _, _, _ in frictions for g in row],
              "friction_bias": [bias for _, _, bias, _, _ in frictions]}
    held = set().union(*(sympy.sympify(e).free_symbols for part in pieces.values()
                         for e in part), *(e.free_symbols for e in sensors.values()))
    if recursive is not None:
        held |= recursive.symbols
    parameters = _parameters(held - set(names), values, names)
    given: dict[str, Any] = {p.name: p.start for p in parameters}
    # the records' forwards to vn.assemble and vn.initial_speeds
    q0 = eom.assemble(initial, parameters=given or None)
    u0 = eom.initial_speeds(q0, velocities, parameters=given or None)
    states = [Variable(n, float(x0), _mechanism_unit(n),
                       "a coordinate" if k < nq else "a speed")
              for k, (n, x0) in enumerate(zip(eom.coordinates + eom.speed_names,
                                              [*q0, *u0]))]
    if coupled is not None:
        units = {n: unit for n, (_, unit) in coupled.system.network.units().items()}
        states += [Variable(n, float(x0), units.get(n, ""), "a network's or block's state")
                   for n, x0 in zip(coupled.states, coupled.initial_states)]
    state_names = [v.name for v in states]
    state_outputs, others = _split_outputs(requested, state_names)
    outputs = [Variable(n, None, _mechanism_unit(n), "a sensor") for n in others]
    outputs += [Variable(f"{stop}.gap", None, "", f"the gap of stop {stop}, free while "
                         "positive: an event indicator") for stop, *_ in stops]
    outputs += [Variable(f"{name}.mode_margin", None, "", f"friction {name}'s margin to "
                         "its next mode change: an event indicator") for name, *_ in frictions]
    indicators = list(range(len(others), len(outputs)))
    functions = "\n\n".join([c_function(key, part, names) for key, part in pieces.items()]
                            + [c_function("h", [sensors[n] for n in others], names)]
                            + (recursive.functions(names) if recursive is not None else []))
    quaternions = [k for k, n in enumerate(eom.coordinates) if n.endswith(".qw")]
    extra = [f"#define VN_NQ {nq}", f"#define VN_NV {nv}", f"#define VN_NC {nc}",
             f"#define VN_NPHI {npos}",
             f"#define VN_NE {len(others_x)}",
             f"#define VN_NQUAT {len(quaternions)}", f"#define VN_DRIFT {DRIFT!r}",
             f"#define VN_CLOSED {CLOSED!r}", f"#define VN_STOPS {len(stops)}",
             f"#define VN_NF {len(frictions)}",
             f"#define VN_RECURSIVE {int(recursive is not None)}",
             f"#define VN_NKIN {len(recursive.shared) if recursive is not None else 0}"]
    body = "\n".join([
        _array("vn_quaternion_start", quaternions, "static const int"),
        _array("vn_restitution", [e for *_, e in stops], "static const double"),
        _array("vn_kinetic", [f[3] for f in frictions], "static const double"),
        _array("vn_static", [f[4] for f in frictions], "static const double"),
        _MECHANISM_BODY])
    dims = "planar" if eom.mechanism.dimensions == 2 else "spatial"
    description = (f"{name}: a {dims} mechanism's equations of motion M(q) u' = Q(q, u, t) "
                   f"+ Phi_u^T lambda, q' = N(q) u, with {npos} constraint row(s) of its cut "
                   f"joints and {nc - npos} of its rolling contacts solved with the "
                   "accelerations and projected after each step, "
                   "written as C by vecnet")
    if recursive is not None:
        description += ("; M and Q from the recursive Newton-Euler scheme of its tree "
                        "(Q at u' = 0, each column of M at a unit u')")
    if frictions:
        description += (f"; {len(frictions)} set-valued joint friction(s) sticking and "
                        "slipping, their mode changes state events")
    if stops:
        description += (f"; {len(stops)} joint stop(s) struck as state events (Newton's "
                         "restitution, an impulse along the joint)")
    return _finish(name, description, states, parameters, [], outputs, state_outputs,
                   functions, body, extra, work=2 * len(stops) + 1 + len(frictions),
                   stop_time=t_span[1] if t_span else None, indicators=indicators)


@dataclass
class _Recursive:
    """A mechanism's recursive Newton–Euler listing split for C: the ``kinematic`` steps,
    in ``q``, ``u`` and ``t`` only, computed once per call (those the rest needs, ``shared``,
    passed on in an array ``k``), and the ``dynamic`` steps and ``residuals`` ``M u' - Q``,
    linear in the rates ``u'`` (an array ``a``), evaluated once per column of ``M``."""

    kinematic: list
    dynamic: list
    residuals: list
    rates: tuple
    shared: list

    @property
    def symbols(self) -> set:
        """The symbols the steps hold that are not their own (parameters among them)."""
        own = {s for s, _ in self.kinematic + self.dynamic} | set(self.rates)
        held = set().union(*(e.free_symbols for _, e in self.kinematic + self.dynamic),
                           *(sympy.sympify(e).free_symbols for e in self.residuals))
        return held - own

    def functions(self, names: Mapping[sympy.Symbol, str]) -> list[str]:
        """``gen_kinematics(t, x, p, u, k)`` and ``gen_residual(t, x, p, u, k, a, r)``."""
        inner = dict(names) | {s: f"a[{j}]" for j, s in enumerate(self.rates)}
        inner |= {s: f"k[{i}]" for i, s in enumerate(self.shared)}
        return [c_function("kinematics", self.shared, names, steps=self.kinematic),
                c_function("residual", self.residuals, inner, steps=self.dynamic,
                           arguments=("k", "a"))]


def _recursive(eom) -> _Recursive | None:
    """The listing of ``eom``'s recursive scheme (:func:`~vecnet.formulation.recursion.
    newton_euler`) for C, or ``None`` where its terms are in ``M`` and ``Q`` only (a
    mechanism coupled by rotors)."""
    try:
        listing = newton_euler(eom)
    except FormulationError:
        return None
    steps, residuals = listing.steps()
    # only the steps the residuals need (the bodies' momenta, say, are shown, not used)
    needed = set().union(*(sympy.sympify(e).free_symbols for e in residuals))
    kept = []
    for symbol, expr in reversed(steps):
        if symbol in needed:
            kept.append((symbol, expr))
            needed |= expr.free_symbols
    steps = kept[::-1]
    moving = set(listing.rates)
    kinematic, dynamic = [], []
    for symbol, expr in steps:
        if expr.free_symbols & moving:
            moving.add(symbol)
            dynamic.append((symbol, expr))
        else:
            kinematic.append((symbol, expr))
    used = set().union(*(e.free_symbols for _, e in dynamic),
                       *(sympy.sympify(e).free_symbols for e in residuals))
    shared = [s for s, _ in kinematic if s in used]
    return _Recursive(kinematic, dynamic, residuals, listing.rates, shared)


def _frictions(eom) -> list[tuple[str, list, sympy.Expr, float, float]]:
    """``(name, the joint rate per speed, its convective rate, kinetic and static force)``
    of every set-valued joint friction with fixed forces; friction that follows the joint's
    normal reaction is refused."""
    out = []
    for element in eom.mechanism.network.elements:
        if not getattr(element, "set_valued", False):
            continue
        if element.mu_kinetic is not None:
            raise ModelError(f"cannot export yet: friction {element.name!r} follows the "
                             "normal reaction of its joint (mu_kinetic), which the C does "
                             "not compute; give it fixed forces (coulomb, coulomb_static)")
        rate = eom.axial(element.joint, element.quantity)[1]
        kinetic = _number(element.coulomb, f"{element.name}'s coulomb")
        static = kinetic if element.coulomb_static is None else _number(
            element.coulomb_static, f"{element.name}'s coulomb_static")
        out.append((element.name, [rate.diff(ui) for ui in eom.u], eom.rate(rate),
                    kinetic, static))
    return out


def _stops(eom) -> list[tuple[str, sympy.Expr, list, float]]:
    """``(name, gap, gap's rate per speed, restitution)`` of every side of every joint
    stop, as vecnet's own runs strike them (:func:`vecnet.numerics.multibody.stop_sides`)."""
    return [(name, gap, row, _number(element.restitution, f"{element.name}'s restitution"))
            for name, gap, row, element in stop_sides(eom)]


_MECHANISM_BODY = r"""
#define VN_AT_LEAST_1(n) ((n) > 0 ? (n) : 1)
#define VN_NK (VN_NV + VN_NC + VN_NF)

/* a joint's rate g . u from its row g in the speeds */
static double along(const double *g, const double *x) {
    double s = 0.0;
    for (int i = 0; i < VN_NV; i++) s += g[i] * x[VN_NQ + i];
    return s;
}
/* M (row-major) and Q */
static void mass_and_forces(double t, const double *x, const double *p, const double *u,
                            double *M, double *Q) {
#if VN_RECURSIVE
    /* the residual M u' - Q is Q's negative at u' = 0 and M's column j plus it at u' = e_j */
    double k[VN_AT_LEAST_1(VN_NKIN)], a[VN_NV], r[VN_NV];
    gen_kinematics(t, x, p, u, k);
    for (int i = 0; i < VN_NV; i++) a[i] = 0.0;
    gen_residual(t, x, p, u, k, a, r);
    for (int i = 0; i < VN_NV; i++) Q[i] = -r[i];
    for (int j = 0; j < VN_NV; j++) {
        a[j] = 1.0;
        gen_residual(t, x, p, u, k, a, r);
        a[j] = 0.0;
        for (int i = 0; i < VN_NV; i++) M[i * VN_NV + j] = r[i] + Q[i];
    }
#else
    gen_mass(t, x, p, u, M);
    gen_forces(t, x, p, u, Q);
#endif
}

/* where w holds the frictions' modes: 0 sticking, +1 / -1 slipping with that speed sign */
#define VN_FMODE (2 * VN_STOPS + 1)

/* [M -Phi_u^T -G^T; Phi_u 0 0; G 0 0] [u'; lambda; F] = [Q + slipping forces; gamma; -c]:
   the accelerations, the loops' multipliers and the forces F holding the sticking joints
   (rows G: their rates per speed, c: their rates' convective part); a slipping joint's
   Coulomb force -F_k s acts along its row. hold[j] is joint j's holding force. */
static int accelerations(double t, const double *x, const double *p, const double *u,
                         const double *w, double *a, double *hold) {
    double K[VN_NK * VN_NK], b[VN_NK], M[VN_NV * VN_NV];
    double J[VN_AT_LEAST_1(VN_NC * VN_NV)], G[VN_AT_LEAST_1(VN_NF * VN_NV)];
    double c[VN_AT_LEAST_1(VN_NF)];
    int row[VN_AT_LEAST_1(VN_NF)];
    int n = VN_NV + VN_NC;
    if (VN_NF > 0) {
        gen_friction_rows(t, x, p, u, G);
        gen_friction_bias(t, x, p, u, c);
        for (int j = 0; j < VN_NF; j++) row[j] = w[VN_FMODE + j] == 0.0 ? n++ : -1;
    }
    mass_and_forces(t, x, p, u, M, b);
    for (int i = 0; i < n * n; i++) K[i] = 0.0;
    for (int i = VN_NV; i < n; i++) b[i] = 0.0;
    for (int i = 0; i < VN_NV; i++)
        for (int j = 0; j < VN_NV; j++) K[i * n + j] = M[i * VN_NV + j];
    if (VN_NC > 0) {
        gen_phi_u(t, x, p, u, J);
        gen_gamma(t, x, p, u, b + VN_NV);
        for (int k = 0; k < VN_NC; k++)
            for (int j = 0; j < VN_NV; j++) {
                K[(VN_NV + k) * n + j] = J[k * VN_NV + j];
                K[j * n + VN_NV + k] = -J[k * VN_NV + j];
            }
    }
    for (int f = 0; f < VN_NF; f++) {
        const double *g = G + f * VN_NV;
        if (row[f] < 0) {
            for (int i = 0; i < VN_NV; i++) b[i] -= vn_kinetic[f] * w[VN_FMODE + f] * g[i];
            continue;
        }
        for (int i = 0; i < VN_NV; i++) {
            K[row[f] * n + i] = g[i];
            K[i * n + row[f]] = -g[i];
        }
        b[row[f]] = -c[f];
    }
    if (vn_solve(n, K, b)) return 1;
    for (int i = 0; i < VN_NV; i++) a[i] = b[i];
    for (int f = 0; f < VN_NF; f++) hold[f] = row[f] < 0 ? 0.0 : b[row[f]];
    return 0;
}

int vn_derivatives(double t, const double *x, const double *p, const double *u, double *w,
                   double *dx) {
    double hold[VN_AT_LEAST_1(VN_NF)];
    gen_rates(t, x, p, u, dx);
    int failed = accelerations(t, x, p, u, w, dx + VN_NQ, hold);
    if (failed) return failed;
    /* a coupled system's network and block states */
    if (VN_NE > 0) gen_others(t, x, p, u, dx + VN_NQ + VN_NV);
    for (int i = 0; i < VN_NX; i++) if (!isfinite(dx[i])) return 2;
    return 0;
}

/* the sensors, then the event indicators (outputs too, for FMI 3's variables) */
int vn_outputs(double t, const double *x, const double *p, const double *u, double *w,
               double *y) {
    gen_h(t, x, p, u, y);
    return VN_NZ > 0 ? vn_indicators(t, x, p, u, w, y + VN_NY - VN_NZ) : 0;
}

/* the frictions' rows G and the forces holding the sticking ones */
static int friction_state(double t, const double *x, const double *p, const double *u,
                          const double *w, double *G, double *hold) {
    double a[VN_NV];
    gen_friction_rows(t, x, p, u, G);
    return accelerations(t, x, p, u, w, a, hold);
}

/* friction f's speed in its slipping direction, or, sticking, how far its holding force
   is from the static limit: positive while its mode holds */
static double friction_margin(int f, const double *x, const double *w, const double *G,
                              const double *hold) {
    double mode = w[VN_FMODE + f];
    return mode != 0.0 ? mode * along(G + f * VN_NV, x) : vn_static[f] - fabs(hold[f]);
}

/* each stop's gap and each friction's margin */
int vn_indicators(double t, const double *x, const double *p, const double *u, double *w,
                  double *z) {
    if (VN_STOPS > 0) gen_gaps(t, x, p, u, z);
    if (VN_NF > 0) {
        double G[VN_AT_LEAST_1(VN_NF * VN_NV)], hold[VN_AT_LEAST_1(VN_NF)];
        int failed = friction_state(t, x, p, u, w, G, hold);
        if (failed) return failed;
        for (int f = 0; f < VN_NF; f++) z[VN_STOPS + f] = friction_margin(f, x, w, G, hold);
    }
    return 0;
}
/* Newton's impact at a stop: M du = Phi_u^T L + g^T P, Phi_u du = 0,
   g . du = -(1 + e) g . u, so that the gap's speed turns from g . u to -e g . u */
static int strike(double t, double *x, const double *p, const double *u, const double *g,
                  double e) {
    enum { NS = VN_NV + VN_NC + 1 };
    double K[NS * NS], b[NS], M[VN_NV * VN_NV], J[VN_AT_LEAST_1(VN_NC * VN_NV)];
    double *v = x + VN_NQ, speed = along(g, x), Q[VN_NV];
    mass_and_forces(t, x, p, u, M, Q);
    for (int i = 0; i < NS * NS; i++) K[i] = 0.0;
    for (int i = 0; i < NS; i++) b[i] = 0.0;
    for (int i = 0; i < VN_NV; i++) {
        for (int j = 0; j < VN_NV; j++) K[i * NS + j] = M[i * VN_NV + j];
        K[i * NS + NS - 1] = -g[i];
        K[(NS - 1) * NS + i] = g[i];
    }
    if (VN_NC > 0) {
        gen_phi_u(t, x, p, u, J);
        for (int k = 0; k < VN_NC; k++)
            for (int j = 0; j < VN_NV; j++) {
                K[(VN_NV + k) * NS + j] = J[k * VN_NV + j];
                K[j * NS + VN_NV + k] = -J[k * VN_NV + j];
            }
    }
    b[NS - 1] = -(1.0 + e) * speed;
    if (vn_solve(NS, K, b)) return 1;
    for (int i = 0; i < VN_NV; i++) v[i] += b[i];
    return 0;
}

/* w holds each stop's last strike time, whether it was struck, and the strikes in all */
/* a friction's mode decided at rest: sticking if the force holding it fits within the
   static limit, else slipping against that force */
static int settle_friction(double t, const double *x, const double *p, const double *u,
                           double *w, int f) {
    double a[VN_NV], hold[VN_AT_LEAST_1(VN_NF)];
    w[VN_FMODE + f] = 0.0;
    int failed = accelerations(t, x, p, u, w, a, hold);
    if (failed) return failed;
    if (fabs(hold[f]) > vn_static[f]) w[VN_FMODE + f] = hold[f] > 0 ? -1.0 : 1.0;
    return 0;
}

/* at an event: a slipping joint whose speed reached zero is stopped there (an impulse
   along its row, the loops kept) and sticks or slips the other way; a sticking joint
   whose holding force reached the static limit slips against it */
static int update_frictions(double t, double *x, const double *p, const double *u,
                            double *w, int *changed) {
    double G[VN_AT_LEAST_1(VN_NF * VN_NV)], hold[VN_AT_LEAST_1(VN_NF)];
    int failed = friction_state(t, x, p, u, w, G, hold);
    if (failed) return failed;
    for (int f = 0; f < VN_NF; f++) {
        double mode = w[VN_FMODE + f], margin = friction_margin(f, x, w, G, hold);
        if (mode != 0.0 && margin <= 1e-12) {
            if (strike(t, x, p, u, G + f * VN_NV, 0.0)) return 1;
            if ((failed = settle_friction(t, x, p, u, w, f))) return failed;
            *changed = 1;
        } else if (mode == 0.0 && margin <= 0.0) {
            w[VN_FMODE + f] = hold[f] > 0 ? -1.0 : 1.0;
            *changed = 1;
        }
    }
    return 0;
}

int vn_update(double t, double *x, const double *p, const double *u, double *w, int *changed) {
    *changed = 0;
    if (VN_NF > 0) {
        int failed = update_frictions(t, x, p, u, w, changed);
        if (failed) return failed;
    }
    if (VN_STOPS == 0) return 0;
    double z[VN_AT_LEAST_1(VN_STOPS)], G[VN_AT_LEAST_1(VN_STOPS * VN_NV)];
    gen_gaps(t, x, p, u, z);
    gen_gap_rows(t, x, p, u, G);
    for (int k = 0; k < VN_STOPS; k++) {
        double speed = along(G + k * VN_NV, x);
        if (!(z[k] <= 1e-9 && speed < 0.0)) continue;   /* not closing on the stop */
        /* bounces ever closer together never end (Zeno): as vecnet's own run, refuse */
        if (w[VN_STOPS + k] != 0.0 && t - w[k] < 1e-9 * fmax(1.0, fabs(t))) return 3;
        if (++w[2 * VN_STOPS] > 10000) return 3;
        w[k] = t;
        w[VN_STOPS + k] = 1.0;
        if (strike(t, x, p, u, G + k * VN_NV, vn_restitution[k])) return 1;
        *changed = 1;
    }
    return 0;
}

static double largest(const double *r, int n) {
    double m = 0.0;
    for (int i = 0; i < n; i++) if (fabs(r[i]) > m) m = fabs(r[i]);
    return m;
}

/* r -= J^T (J J^T)^-1 e for m rows J (m x n) of a residual e: the least-norm step */
#define VN_NR (VN_NPHI + VN_NQUAT)
static int least_norm_step(const double *J, const double *e, int m, int n, double *r) {
    enum { NMAX = VN_NR > VN_NC ? VN_NR : VN_NC };
    double G[VN_AT_LEAST_1(NMAX * NMAX)], y[VN_AT_LEAST_1(NMAX)];
    for (int i = 0; i < m; i++) {
        y[i] = e[i];
        for (int k = 0; k < m; k++) {
            double s = 0.0;
            for (int j = 0; j < n; j++) s += J[i * n + j] * J[k * n + j];
            G[i * m + k] = s;
        }
    }
    if (vn_solve(m, G, y)) return 1;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) r[j] -= J[i * n + j] * y[i];
    return 0;
}

/* the loops' rows Phi and each quaternion's (|e|^2 - 1) / 2, and their Jacobian in q:
   Newton's method on both closes the loops on unit quaternions (normalizing after a
   step on Phi alone would undo part of each step) */
static void closure(double t, const double *x, const double *p, const double *u,
                    double *e, double *J) {
    if (VN_NPHI > 0) {
        gen_phi(t, x, p, u, e);
        if (J) gen_phi_q(t, x, p, u, J);
    }
    for (int k = 0; k < VN_NQUAT; k++) {
        const int at = vn_quaternion_start[k];
        const double *q = x + at;
        e[VN_NPHI + k] = 0.5 * (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] - 1.0);
        if (J) {
            double *row = J + (VN_NPHI + k) * VN_NQ;
            for (int j = 0; j < VN_NQ; j++) row[j] = 0.0;
            for (int i = 0; i < 4; i++) row[at + i] = q[i];
        }
    }
}

int vn_project(double t, double *x, const double *p, const double *u, double *w) {
    (void)w;
    int changed = 0;
    double e[VN_AT_LEAST_1(VN_NR)], J[VN_AT_LEAST_1(VN_NR * VN_NQ)];
    if (VN_NR > 0) closure(t, x, p, u, e, NULL);
    if (VN_NR > 0 && largest(e, VN_NR) > VN_DRIFT) {
        changed = 1;
        for (int k = 0; k < 30 && largest(e, VN_NR) > VN_CLOSED; k++) {
            closure(t, x, p, u, e, J);
            if (least_norm_step(J, e, VN_NR, VN_NQ, x)) return -1;
            closure(t, x, p, u, e, NULL);
        }
        if (largest(e, VN_NR) > 1e3 * VN_CLOSED) return -2;
    }
    if (VN_NC == 0) return changed;
    double Ju[VN_AT_LEAST_1(VN_NC * VN_NV)], r[VN_AT_LEAST_1(VN_NC)];
    gen_phi_u(t, x, p, u, Ju);
    gen_phi_t(t, x, p, u, r);
    for (int i = 0; i < VN_NC; i++)
        for (int j = 0; j < VN_NV; j++) r[i] += Ju[i * VN_NV + j] * x[VN_NQ + j];
    if (largest(r, VN_NC) > VN_DRIFT) {
        changed = 1;
        if (least_norm_step(Ju, r, VN_NC, VN_NV, x + VN_NQ)) return -1;
    }
    return changed;
}

int vn_initialize(double t, double *x, const double *p, const double *u, double *w) {
    int done = vn_project(t, x, p, u, w);
    if (done < 0) return done;
    if (VN_NF > 0) {   /* each friction's first mode, from the state */
        double G[VN_AT_LEAST_1(VN_NF * VN_NV)];
        gen_friction_rows(t, x, p, u, G);
        for (int f = 0; f < VN_NF; f++) {
            w[VN_FMODE + f] = along(G + f * VN_NV, x) > 0 ? 1.0 : -1.0;
        }
        for (int f = 0; f < VN_NF; f++) {
            if (along(G + f * VN_NV, x) == 0.0 && (done = settle_friction(t, x, p, u, w, f))) return done;
        }
    }
    return 0;
}

const char *vn_message(int code) {
    switch (code) {
    case 1: return "the mass matrix with the constraint rows is singular (a loop at a "
                   "singular pose, or redundant constraint rows)";
    case 2: return "a state's rate is not a finite number";
    case -1: return "the constraint rows are dependent: the loops cannot be closed";
    case -2: return "the loops could not be closed (Newton's method did not converge)";
    case 3: return "a joint is settling on its stop in ever closer strikes, which an "
                   "impact law cannot follow to rest";
    default: return "the model failed";
    }
}
"""
