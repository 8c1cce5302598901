"""Simulating lumped state-space models: compiled once, integrated with scipy or IDA.

Linear models with numeric values (a :class:`~vecnet.formulation.numeric.SparseStateSpace`,
or a symbolic :class:`~vecnet.formulation.lumped.StateSpace` whose equations turn out linear)
are integrated as ``x' = A x + B u + E u'`` with sparse matrices: the exact Jacobian ``A`` goes
to the implicit integrators, and the integration restarts at the switching times of the
sources (steps and the corners of ramps and pulses) so that no step straddles one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import scipy.sparse as sp
import sympy

from ..core.bounds import Watch, check_oscillation, finite_number, time_grid
from ..elements.base import t
from ..errors import ModelError, SimulationError, UnknownNameError
from .integrators import ARITHMETIC, evaluation_failure, solve_ida, solve_ivp
from .result import Event, Outcome, Result

if TYPE_CHECKING:
    from ..formulation.lumped import StateSpace
    from ..formulation.numeric import SparseStateSpace

__all__ = ["integrate", "integrate_sparse", "switching_times"]

#: above this many switching times in the span, the integration runs through them
MAX_RESTARTS = 10_000
#: the stiff integrators that take a sparse Jacobian
_SPARSE_JACOBIAN = ("BDF", "Radau")


def integrate(model: StateSpace, t_span: Sequence[float],
              inputs: Mapping[str, Any] | None = None,
              initial: Mapping[str, float] | None = None, t_eval: Sequence[float] | None = None,
              method: str | None = None, rtol: float = 1e-8, atol: float = 1e-10,
              parameters: Mapping[Any, float] | None = None, max_steps: int = 100_000,
              progress: Callable[[float], None] | bool | None = None) -> Result:
    """Integrate a state-space model in time; :func:`vecnet.simulate` does it for a
    :class:`~vecnet.formulation.lumped.StateSpace`.

    Parameters
    ----------
    model : StateSpace
    t_span : (t0, t1)
    inputs : mapping, optional
        Input name -> a number, an expression in ``vn.t`` or a function of ``t``.
        Inputs not named use the value given to their source.
    initial : mapping, optional
        State name -> initial value (default 0). For models with algebraic loops,
        algebraic variables (``model.z_names``) may be named too, as starting guesses
        for the consistent initial values.
    t_eval : sequence, optional
        Output times (default: 501 evenly spaced).
    method, rtol, atol
        Passed to :func:`scipy.integrate.solve_ivp` (default ``"LSODA"``; for linear models
        with more than 64 states ``"BDF"`` with the sparse Jacobian); models with algebraic
        loops are integrated with IDA (scikit-sundae) at the same tolerances.
    parameters : mapping, optional
        Values for parameters that have none (by symbol or name).
    max_steps : int
        Step limit of the IDA integrator.
    progress : callable or True, optional
        Called with the model time as the integration advances; ``True`` draws a ``tqdm``
        progress bar (a widget in notebooks).

    Returns
    -------
    Result
        Every state and edge variable of the model by name; a run that stopped early (a
        limit, a failed step) holds the samples it reached, its status -1 (the error is
        raised by :meth:`~vecnet.numerics.result.Result.check`).

    Raises
    ------
    ModelError
        Unknown inputs or states, an input without a value, a bad time grid.

    Examples
    --------
    >>> import vecnet as vn
    >>> net = vn.Network()
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
    ...             vn.Capacitor("C", "g", "b", C=1.0))
    >>> res = integrate(net.state_space(), (0, 1), t_eval=[1.0])
    >>> round(float(res["C.across"][-1]), 6), res.solver   # 1 - exp(-1)
    (0.632121, 'LSODA')
    """
    model = numeric_model(model, parameters)
    linear = None if model.z else _sparse_linear(model)
    if linear is not None:
        A, B, E, variables = linear
        return _integrate_linear(_Linear(A, B, E, variables, model.states, model.inputs,
                                         model.variable_names, model.signals, model.outputs),
                                 t_span, inputs, initial, t_eval, method, rtol, atol, progress)
    method = method or "LSODA"
    _check_names(inputs, initial, model.inputs, [*model.states, *model.z_names])
    guesses = _initial_values(initial, model.z_names)
    x0 = _initial_values(initial, model.states)
    t0, t1, times = time_grid(t_span, t_eval)
    signals = _signals(model.inputs, model.signals, inputs, (t0, t1))
    u_fn, du_fn = _input_functions(model.inputs, signals)
    args = (t, model.x, model.z, model.u, model.du)
    f = _compile(args, list(model.f))
    watch = Watch(t0, t1, progress, names=[*model.states, *model.z_names])
    outcome = Outcome("IDA" if model.z else _name(method))
    # an overflow is reported by the watch, which names the state, not warned about
    with np.errstate(over="ignore", invalid="ignore"):
        try:
            if model.z:
                g = _compile(args, list(model.g))
                ts, xs, zs = _integrate_dae(f, g, model, u_fn, du_fn, x0, t0, times, rtol, atol,
                                            guesses, max_steps, watch, outcome)
            else:
                def rhs(time, x):
                    watch(time, x)
                    return f(time, x, (), u_fn(time), du_fn(time))

                sol = solve_ivp(rhs, (t0, t1), x0, method, outcome, t_eval=times, rtol=rtol,
                                atol=atol)
                ts, xs, zs = sol.t, sol.y, np.zeros((0, len(sol.t)))
        except ARITHMETIC as exc:   # in finding consistent initial values
            raise evaluation_failure(exc) from None
    if len(ts):
        watch.reach(float(ts[-1]))
    outcome.nfev = watch.evaluations
    outcome.events = _reached(_switches(signals, t0, t1), ts, t1, outcome)
    return _result(model, args, ts, xs, zs, u_fn, du_fn, outcome)


def integrate_sparse(model: SparseStateSpace, t_span: Sequence[float],
                     inputs: Mapping[str, Any] | None = None,
                     initial: Mapping[str, float] | None = None,
                     t_eval: Sequence[float] | None = None, method: str | None = None,
                     rtol: float = 1e-8, atol: float = 1e-10,
                     progress: Callable[[float], None] | bool | None = None) -> Result:
    """Integrate a sparse linear model in time (the options are those of :func:`integrate`);
    :func:`vecnet.simulate` does it for a
    :class:`~vecnet.formulation.numeric.SparseStateSpace` (and for a network where its
    numeric formulation applies).

    The default integrator is ``"LSODA"`` up to 64 states and ``"BDF"`` above; both get
    the exact Jacobian ``A`` (sparse for BDF and Radau). With input derivatives
    (``E != 0``, dependent stores driven by a source) the integrated states are
    ``w = x - E u``, so a step of the source makes the states jump as the stores share
    its charge or momentum. The result holds the states and the model's outputs; every
    other edge variable is computed when first asked for.

    Raises
    ------
    ModelError
        Unknown inputs or states, an input without a value, a bad time grid.

    Examples
    --------
    >>> import sympy, vecnet as vn
    >>> net = vn.Network()
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=sympy.Heaviside(vn.t - 1)),
    ...             vn.Resistor("R", "a", "b", R=1.0), vn.Capacitor("C", "g", "b", C=1.0))
    >>> res = integrate_sparse(net.sparse_state_space(), (0, 2), t_eval=[1.0, 2.0])
    >>> [round(float(v), 6) + 0.0 for v in res["C.across"]]   # 1 - exp(-(t - 1))
    [0.0, 0.632121]
    >>> res.events
    (Event(t=1.0, name='V.across', kind='switch', before='', after=''),)
    """
    linear = _Linear(model.A, model.B, model.E, model.variable_map, model.states, model.inputs,
                     model.variable_names, model.signals, model.outputs, model.variable_rows,
                     model.nonlinear)
    return _integrate_linear(linear, t_span, inputs, initial, t_eval, method, rtol, atol,
                             progress)


def switching_times(signal: Any, t0: float, t1: float) -> list[float]:
    """The times in ``(t0, t1)`` where ``signal`` (an expression in ``t``, or a function with
    the expression it evaluates as its ``expression`` attribute) steps or bends: the zeros
    of the arguments of its ``Heaviside`` functions, with arguments linear in ``t`` or in
    one ``Mod`` of a linear argument (the periodic pulses of SPICE netlists). Numbers, other
    functions and other expressions give none.

    >>> import sympy, vecnet as vn
    >>> from vecnet.io.spice import pulse
    >>> switching_times(sympy.Heaviside(vn.t - 0.5), 0, 1)
    [0.5]
    >>> [round(x, 9) for x in switching_times(pulse(0, 1, 1e-3, 1e-4, 1e-4, 5e-4, 2e-3), 0, 4e-3)]
    [0.001, 0.0011, 0.0016, 0.0017, 0.003, 0.0031, 0.0036, 0.0037]
    """
    signal = getattr(signal, "expression", signal)
    if not isinstance(signal, sympy.Basic):
        return []
    found: set[float] = set()
    for step in signal.atoms(sympy.Heaviside):
        found.update(_zeros(step.args[0], t0, t1))
    return sorted(x for x in found if t0 < x < t1)


def _zeros(arg: sympy.Expr, t0: float, t1: float) -> list[float]:
    mods = arg.atoms(sympy.Mod)
    if not mods:
        return [_root(arg, t)] if _linear_in(arg, t) else []
    if len(mods) != 1:
        return []
    mod = next(iter(mods))
    inner, period = mod.args
    if not (period.is_number and float(period) > 0 and _linear_in(inner, t)):
        return []
    level = sympy.Dummy("m")
    outer = arg.xreplace({mod: level})
    if outer.has(t) or not _linear_in(outer, level):
        return []
    period = float(period)
    rate, offset = float(sympy.diff(inner, t)), float(inner.subs(t, 0))
    # the pulse switches where the wrapped argument crosses the level, and where it wraps
    crossing = _root(outer, level)
    times: list[float] = []
    for target in {crossing % period, 0.0}:
        # inner(t) = target + j period, t = (target + j period - offset) / rate
        ends = sorted((edge * rate + offset - target) / period for edge in (t0, t1))
        count = int(np.floor(ends[1])) - int(np.ceil(ends[0])) + 1
        if count > MAX_RESTARTS:
            return []
        times.extend((target + j * period - offset) / rate
                     for j in range(int(np.ceil(ends[0])), int(np.floor(ends[1])) + 1))
    return times


def _name(method: str | type) -> str:
    """An integrator's name: a scipy method's, or an ``OdeSolver`` class's."""
    return method if isinstance(method, str) else method.__name__


def _switches(signals: Mapping[str, Any], t0: float, t1: float) -> list[Event]:
    """The inputs' :func:`switching_times` in ``(t0, t1)``, as events."""
    return [Event(x, name, "switch") for name, value in signals.items()
            for x in switching_times(value, t0, t1)]


def _reached(events: list[Event], ts: np.ndarray, t1: float, outcome: Outcome) -> list[Event]:
    """The events up to the end of the span, or of a run stopped early to its last sample."""
    end = t1 if outcome.error is None else ts[-1] if len(ts) else -np.inf
    return [event for event in events if event.t <= end]


def _linear_in(expr: sympy.Expr, var: sympy.Symbol) -> bool:
    slope = sympy.diff(expr, var)
    return not (expr.free_symbols - {var}) and slope.is_number and slope != 0


def _root(expr: sympy.Expr, var: sympy.Symbol) -> float:
    return -float(expr.subs(var, 0)) / float(sympy.diff(expr, var))


def _check_names(inputs: Mapping | None, initial: Mapping | None, input_names: Sequence[str],
                 state_names: Sequence[str]) -> None:
    unknown_inputs = set(inputs or {}) - set(input_names)
    if unknown_inputs:
        raise ModelError(f"no input(s) {', '.join(sorted(unknown_inputs))}; inputs are "
                         f"{', '.join(input_names) or 'none'}")
    unknown_states = set(initial or {}) - set(state_names)
    if unknown_states:
        raise ModelError(f"no state(s) {', '.join(sorted(unknown_states))}; states are "
                         f"{', '.join(state_names) or 'none'}")


def _signals(names: Sequence[str], defaults: Mapping[str, Any], given: Mapping | None,
             span: tuple[float, float]) -> dict[str, Any]:
    """Each input's value: the one given, else its source's; oscillations checked."""
    signals = {name: (given or {}).get(name, defaults.get(name)) for name in names}
    for name, value in signals.items():
        if isinstance(value, sympy.Basic):
            check_oscillation(name, value, span)
    return signals


def _sparse_linear(model: StateSpace):
    """``(A, B, E, V)`` of a numeric state-space model whose state equations and variables
    are linear in ``x, u, u'`` (``V`` gives every variable in ``[x; u; u']``), read term by
    term without a Jacobian; ``None`` when an expression is not linear (or is affine)."""
    args = [*model.x, *model.u, *model.du]
    index = {a: k for k, a in enumerate(args)}

    def matrix(exprs):
        rows, cols, values = [], [], []
        for i, expr in enumerate(exprs):
            terms = expr.as_coefficients_dict()
            if any(term not in index and not (term == 1 and c == 0) for term, c in terms.items()):
                terms = sympy.expand(expr).as_coefficients_dict()
            for term, c in terms.items():
                if term == 1 and c == 0:
                    continue
                if term not in index or not c.is_number:
                    return None
                rows.append(i)
                cols.append(index[term])
                values.append(float(c))
        return sp.csr_matrix((values, (rows, cols)), shape=(len(exprs), len(args)))

    f = matrix(list(model.f))
    variables = None if f is None else matrix([model.output(n) for n in model.variable_names])
    if variables is None:
        return None
    n, p = len(model.x), len(model.u)
    return f[:, :n], f[:, n:n + p], f[:, n + p:], variables


class _Linear(NamedTuple):
    """A linear model as the integrator reads it: ``x' = A x + B u + E u'`` and every
    variable ``variables @ [x; u; u' (; n)]`` at its row (``rows``; by default in the order
    of ``names``), ``n`` the primaries of the nonlinear dissipators (``nonlinear``,
    :class:`~vecnet.formulation.numeric.NonlinearLaws`); the inputs with their default
    signals, and the outputs kept at once."""

    A: Any
    B: Any
    E: Any
    variables: Any
    states: Sequence[str]
    inputs: Sequence[str]
    names: Sequence[str]
    signals: Mapping[str, Any]
    outputs: Sequence[str]
    rows: Mapping[str, int] | None = None
    nonlinear: Any = None


def _integrate_linear(model: _Linear, t_span, inputs, initial, t_eval, method, rtol, atol,
                      progress) -> Result:
    """Integrate ``w' = A w + (A E + B) u (+ G n)`` with ``x = w + E u``, restarting at the
    sources' switching times."""
    A, B, E, variables, states, input_names, names, defaults, outputs, rows, nonlinear = model
    _check_names(inputs, initial, input_names, states)
    x0 = _initial_values(initial, states)
    t0, t1, times = time_grid(t_span, t_eval)
    signals = _signals(input_names, defaults, inputs, (t0, t1))
    u_fn, du_fn = _input_functions(input_names, signals)
    n = len(states)
    method = method or ("LSODA" if n <= 64 else "BDF")
    A, E = sp.csr_matrix(A), sp.csr_matrix(E)
    B_w = sp.csr_matrix(A @ E + B)
    switches = _switches(signals, t0, t1)
    stops = sorted({event.t for event in switches})
    edges = [t0, *(stops if len(stops) <= MAX_RESTARTS else ()), t1]
    watch = Watch(t0, t1, progress, names=states)

    if nonlinear is None:
        def rhs(time, w):
            watch(time, w)
            return A @ w + B_w @ u_fn(time)

        jacobian = None
    else:
        # w' = [A | A E + B | G] [w; u; n] and [x; u] = shift [w; u]: two or three products
        # with one sparse matrix each, whose overhead dominates the call
        G = nonlinear.G
        rates = sp.hstack([A, B_w, G]).tocsr()
        shift = sp.bmat([[sp.identity(n), E], [None, sp.identity(len(input_names))]]).tocsr() \
            if E.nnz else None

        def rhs(time, w):
            watch(time, w)
            wu = np.concatenate([w, u_fn(time)])
            xu = wu if shift is None else shift @ wu
            return rates @ np.concatenate([wu, nonlinear.solve(xu, time)])

        def jacobian(time, w):
            wu = np.concatenate([w, u_fn(time)])
            xu = wu if shift is None else shift @ wu
            return A + G @ nonlinear.sensitivity(xu, nonlinear.solve(xu, time), time)

    options: dict[str, Any] = {}
    if method in _SPARSE_JACOBIAN:
        options["jac"] = A.tocsc() if jacobian is None else \
            (lambda time, w: sp.csc_matrix(jacobian(time, w)))
    elif method == "LSODA" and n <= 1000:
        # LSODA takes a function, and dense matrices only
        dense = A.toarray()
        options["jac"] = (lambda time, w: dense) if jacobian is None else \
            (lambda time, w: jacobian(time, w).toarray())

    w = x0 - E @ u_fn(t0)
    pieces = []
    outcome = Outcome(_name(method))
    # an overflow is reported by the watch, which names the state, not warned about
    with np.errstate(over="ignore", invalid="ignore"):
        for k, (a, b) in enumerate(zip(edges, edges[1:])):
            last = k == len(edges) - 2
            inside = times[(times >= a) & ((times <= b) if last else (times < b))]
            sol = solve_ivp(rhs, (a, b), w, method, outcome, t_eval=np.union1d(inside, [b]),
                            rtol=rtol, atol=atol, **options)
            keep = np.isin(sol.t, inside)
            pieces.append((sol.t[keep], sol.y[:, keep]))
            if outcome.error is not None:
                break
            w = sol.y[:, -1]
    ts = np.concatenate([piece[0] for piece in pieces])
    ws = np.concatenate([piece[1] for piece in pieces], axis=1).reshape(n, len(ts))
    if len(ts):
        watch.reach(float(ts[-1]))
    outcome.nfev = watch.evaluations
    outcome.events = _reached(switches, ts, t1, outcome)
    us = np.array([u_fn(time) for time in ts.tolist()]).T.reshape(len(input_names), len(ts))
    # the outputs may hold input rates; taken here, so that an input without one fails now
    dus = np.array([du_fn(time) for time in ts.tolist()]).T.reshape(len(input_names), len(ts))
    xs = ws + E @ us
    rows = rows or {name: k for k, name in enumerate(names)}
    variables = sp.csr_matrix(variables)
    known = [xs, us, dus]
    if nonlinear is not None:
        known.append(nonlinear.evaluate(xs, us, ts))

    def values_of(chosen):
        return variables[[rows[c] for c in chosen]] @ np.vstack(known)

    series = dict(zip(states, xs))
    eager = [name for name in outputs if name not in series]
    series.update(zip(eager, values_of(eager)))

    def derive():
        rest = [name for name in names if name not in series]
        return dict(zip(rest, values_of(rest)))

    return Result(ts, series, outcome, derive)


def check_parameter_names(model: StateSpace, parameters: Mapping[Any, float]) -> None:
    """Refuse a name (or symbol) in ``parameters`` that is no parameter of ``model``: none
    of its elements' values and no symbol of its equations but a state or an input.

    Raises
    ------
    UnknownNameError
        Naming the unknown ones and listing the model's parameters.

    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.Resistor("R", "a", "g", R=2.0), vn.Capacitor("C", "g", "a", C=0.5))
    >>> check_parameter_names(net.state_space(symbolic=True), {"Rx": 1.0})
    Traceback (most recent call last):
    ...
    vecnet.errors.UnknownNameError: the model has no parameter(s) 'Rx': its equations hold no such symbol; its parameters are C, R
    """
    exprs = list(model.f) + list(model.g) + [model.output(n) for n in model.variable_names]
    variables = set(model.x) | set(model.u) | set(model.du) | set(model.z) | {t}
    symbols = set().union(*(e.free_symbols for e in exprs)) if exprs else set()
    known = {str(s) for s in symbols - variables} | {str(s) for s in model.values}
    unknown = sorted({str(k) for k in parameters} - known - {str(u) for u in model.u})
    if unknown:
        raise UnknownNameError(
            f"the model has no parameter(s) {', '.join(map(repr, unknown))}: its equations hold "
            "no such symbol" + ("" if known else " (the elements' numbers are in them)")
            + f"; its parameters are {', '.join(sorted(known)) or 'none'}")


def numeric_model(model: StateSpace, parameters: Mapping[Any, float] | None = None) -> StateSpace:
    """``model`` with its element values and ``parameters`` substituted; raises
    :class:`~vecnet.errors.ModelError` naming any parameter still without a value, and
    :class:`~vecnet.errors.UnknownNameError` for a parameter the model has not."""
    # the values given here win over the elements' own
    if parameters:
        check_parameter_names(model, parameters)
        model = model.subs(dict(parameters))
    model = model.subs()
    known = set(model.x) | set(model.u) | set(model.du) | set(model.z) | {t}
    exprs = list(model.f) + list(model.g) + [model.output(n) for n in model.variable_names]
    missing = set().union(*(e.free_symbols for e in exprs)) - known if exprs else set()
    if missing:
        raise ModelError("no value for parameter(s) " + ", ".join(sorted(map(str, missing)))
                         + "; give numbers to the elements or pass parameters={...}")
    undefined = [name for name, e in zip([*model.states, *model.z_names], [*model.f, *model.g])
                 if e.has(sympy.zoo, sympy.oo, sympy.nan)]
    if undefined:
        raise ModelError("with these values the equation of " + ", ".join(undefined)
                         + " is infinite or undefined: a store, resistance or ratio is zero "
                           "where the network needs it finite")
    return model


def solve_algebraic(residual: Callable[[np.ndarray], np.ndarray], guesses: np.ndarray,
                    names: Sequence[str], option: str) -> np.ndarray:
    """The algebraic variables ``z`` with ``residual(z) = 0``, from ``guesses``; raises
    :class:`~vecnet.errors.SimulationError` naming them (and the keyword ``option`` that
    takes better guesses) when no start converges."""
    # a zero start can sit where a square law has no slope: try a few starts
    for start in (guesses, guesses + 1.0, guesses - 1.0):
        from scipy.optimize import root as scipy_root  # slow to import: here
        guess = scipy_root(residual, start, tol=1e-12)
        if guess.success and np.max(np.abs(residual(guess.x))) < 1e-9:
            return guess.x
    raise SimulationError(f"no consistent values for {', '.join(names)}: {guess.message}; "
                          f"pass guesses in {option}={{...}}")


def _compile(args, exprs: list[sympy.Expr]) -> Callable[..., np.ndarray]:
    fn = sympy.lambdify(args, exprs, modules="numpy", cse=True)

    def call(*values):
        return np.asarray(fn(*values), dtype=float)

    return call


def _signal(value: Any, name: str) -> tuple[Callable[[float], float], Callable[[float], float]]:
    """A signal and its time derivative as functions of t."""
    if value is None:
        raise ModelError(f"input {name!r} has no value: give it in inputs={{...}}")
    if isinstance(value, sympy.Basic):
        if value.free_symbols - {t}:
            raise ModelError(f"input {name!r}: {value} depends on more than t")
        # a step's derivative is zero wherever it is defined: impulses are dropped
        slope = sympy.diff(value, t).replace(sympy.DiracDelta, lambda *args: sympy.S.Zero)
        function = sympy.lambdify(t, value, modules="numpy")
        if slope.has(sympy.Derivative, sympy.Subs):  # of a Mod (a periodic pulse) or Min/Max
            return function, _central_difference(function)
        return function, sympy.lambdify(t, slope, modules="numpy")
    if callable(value):
        return value, _central_difference(value)
    try:
        constant = float(value)
    except (TypeError, ValueError):
        raise ModelError(f"input {name!r} must be a number, an expression in t or a function "
                         f"of t; got {value!r}") from None
    return (lambda time: constant), (lambda time: 0.0)


def _central_difference(function: Callable[[float], float]) -> Callable[[float], float]:
    def slope(time: float) -> float:
        h = 1e-6 * (1.0 + abs(time))
        return (function(time + h) - function(time - h)) / (2 * h)

    return slope


def _initial_values(initial: Mapping[str, Any] | None, names: Sequence[str]) -> np.ndarray:
    return np.array([finite_number((initial or {}).get(name, 0.0), f"initial value of {name!r}")
                     for name in names])


def _input_functions(names: Sequence[str], signals: Mapping[str, Any]):
    pairs = [_signal(signals[name], name) for name in names]
    values = [p[0] for p in pairs]
    slopes = [p[1] for p in pairs]

    def u(time: float) -> np.ndarray:
        return np.array([float(fn(time)) for fn in values])

    def du(time: float) -> np.ndarray:
        return np.array([float(fn(time)) for fn in slopes])

    return u, du


def _integrate_dae(f, g, model, u_fn, du_fn, x0, t0, times, rtol, atol, guesses, max_steps,
                   watch, outcome):
    """``(t, x, z)`` at ``times`` by IDA, from consistent initial values."""
    from sksundae.ida import IDA

    n, m = len(model.x), len(model.z)

    z0 = solve_algebraic(lambda z: g(t0, x0, z, u_fn(t0), du_fn(t0)), guesses, model.z_names,
                         "initial")
    y0 = np.concatenate([x0, z0])
    xp0 = f(t0, x0, z0, u_fn(t0), du_fn(t0))
    # the algebraic variables' rates by a forward difference along the motion: a zero guess
    # there makes IDA's first error tests fail when they move fast
    h = 1e-7 * (1.0 + abs(times[-1] - t0))
    z1 = solve_algebraic(lambda z: g(t0 + h, x0 + h * xp0, z, u_fn(t0 + h), du_fn(t0 + h)),
                         z0, model.z_names, "initial")
    yp0 = np.concatenate([xp0, (z1 - z0) / h])

    def residual(time, y, yp, res):
        watch(time, y)
        x, z = y[:n], y[n:]
        u, du = u_fn(time), du_fn(time)
        res[:n] = yp[:n] - f(time, x, z, u, du)
        res[n:] = g(time, x, z, u, du)

    solver = IDA(residual, algebraic_idx=list(range(n, n + m)), rtol=rtol, atol=atol,
                 calc_initcond="yp0", calc_init_dt=(times[-1] - t0) * 1e-3 or 1e-6,
                 max_num_steps=max_steps)
    ts, ys, _ = solve_ida(solver, np.unique(np.concatenate([[t0], times])), y0, yp0, outcome)
    keep = np.isin(ts, times)
    return ts[keep], ys[keep, :n].T, ys[keep, n:].T


def _result(model, args, ts, xs, zs, u_fn, du_fn, outcome) -> Result:
    """Every state and edge variable at the sample times (a through source's edge variable
    is minus its input, by the passive sign convention)."""
    names = list(model.variable_names)
    us = np.array([u_fn(time) for time in ts]).T.reshape(len(model.u), len(ts))
    dus = np.array([du_fn(time) for time in ts]).T.reshape(len(model.du), len(ts))
    series = dict(zip(model.states, xs))
    if names:
        evaluate = sympy.lambdify(args, [model.output(n) for n in names], modules="numpy", cse=True)
        for name, values in zip(names, evaluate(ts, xs, zs, us, dus)):
            series.setdefault(name, np.broadcast_to(np.asarray(values, dtype=float), ts.shape).copy())
    return Result(ts, series, outcome)
