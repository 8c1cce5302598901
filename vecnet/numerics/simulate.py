"""Simulating lumped state-space models: compiled once, integrated with scipy or IDA."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy
from scipy.integrate import solve_ivp
from scipy.optimize import root

from ..bounds import Watch, check_oscillation, finite_number, time_grid
from ..elements.base import t
from ..errors import ModelError, SimulationError
from .result import Result

if TYPE_CHECKING:
    from ..formulation.lumped import StateSpace

__all__ = ["simulate"]


def simulate(model: StateSpace, t_span: tuple[float, float], inputs: Mapping[str, Any] | None = None,
             initial: Mapping[str, float] | None = None, t_eval: Sequence[float] | None = None,
             method: str = "LSODA", rtol: float = 1e-8, atol: float = 1e-10,
             parameters: Mapping[Any, float] | None = None, max_steps: int = 100_000,
             progress: Callable[[float], None] | None = None) -> Result:
    """Integrate a state-space model in time.

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
        Passed to :func:`scipy.integrate.solve_ivp`; models with algebraic
        loops are integrated with IDA (scikit-sundae) at the same tolerances.
    parameters : mapping, optional
        Values for parameters that have none (by symbol or name).
    max_steps : int
        Step limit of the IDA integrator.
    progress : callable, optional
        Called with the model time as the integration advances.

    Returns
    -------
    Result
        Every state and edge variable of the model by name.

    Raises
    ------
    SimulationError
        The integrator failed; the message gives its report.

    Examples
    --------
    >>> import vecnet as vn
    >>> net = vn.Network()
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
    ...             vn.Capacitor("C", "g", "b", C=1.0))
    >>> res = net.simulate((0, 1), t_eval=[1.0])
    >>> round(float(res["C.across"][-1]), 6)   # 1 - exp(-1)
    0.632121
    """
    model = numeric_model(model, parameters)
    unknown_inputs = set(inputs or {}) - set(model.inputs)
    if unknown_inputs:
        raise ModelError(f"no input(s) {', '.join(sorted(unknown_inputs))}; inputs are "
                         f"{', '.join(model.inputs) or 'none'}")
    unknown_states = set(initial or {}) - set(model.states) - set(model.z_names)
    if unknown_states:
        raise ModelError(f"no state(s) {', '.join(sorted(unknown_states))}; states are "
                         f"{', '.join(model.states) or 'none'}")
    guesses = _initial_values(initial, model.z_names)
    x0 = _initial_values(initial, model.states)
    t0, t1, times = time_grid(t_span, t_eval)
    signals = {name: (inputs or {}).get(name, model.signals.get(name)) for name in model.inputs}
    for name, value in signals.items():
        if isinstance(value, sympy.Basic):
            check_oscillation(name, value, t1 - t0)
    u_fn, du_fn = _input_functions(model, signals)
    args = (t, model.x, model.z, model.u, model.du)
    f = _compile(args, list(model.f))
    watch = Watch(t0, t1, progress, names=[*model.states, *model.z_names])
    # an overflow is reported by the watch, which names the state, not warned about
    with np.errstate(over="ignore", invalid="ignore"):
        try:
            if model.z:
                g = _compile(args, list(model.g))
                ts, xs, zs, ok, message = _integrate_dae(f, g, model, u_fn, du_fn, x0, t0, times,
                                                         rtol, atol, guesses, max_steps, watch)
            else:
                def rhs(time, x):
                    watch(time, x)
                    return f(time, x, (), u_fn(time), du_fn(time))

                sol = solve_ivp(rhs, (t0, t1), x0, method=method, t_eval=times, rtol=rtol,
                                atol=atol)
                ts, xs, zs, ok, message = (sol.t, sol.y, np.zeros((0, len(sol.t))), sol.success,
                                           sol.message)
        except (OverflowError, ZeroDivisionError, FloatingPointError) as exc:
            raise SimulationError(f"the model could not be evaluated ({exc}): a value is too large "
                                  "or too small for double precision") from None
    if not ok:
        raise SimulationError(f"the integration stopped: {message}")
    return _result(model, args, ts, xs, zs, u_fn, du_fn, ok, message)


def numeric_model(model: StateSpace, parameters: Mapping[Any, float] | None = None) -> StateSpace:
    """``model`` with its element values and ``parameters`` substituted; raises
    :class:`~vecnet.errors.ModelError` naming any parameter still without a value."""
    model = model.subs()
    if parameters:
        model = model.subs(dict(parameters))
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
        guess = root(residual, start, tol=1e-12)
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
        return (sympy.lambdify(t, value, modules="numpy"),
                sympy.lambdify(t, slope, modules="numpy"))
    if callable(value):
        def slope(time: float) -> float:
            h = 1e-6 * (1.0 + abs(time))
            return (value(time + h) - value(time - h)) / (2 * h)

        return value, slope
    try:
        constant = float(value)
    except (TypeError, ValueError):
        raise ModelError(f"input {name!r} must be a number, an expression in t or a function "
                         f"of t; got {value!r}") from None
    return (lambda time: constant), (lambda time: 0.0)


def _initial_values(initial: Mapping[str, Any] | None, names: Sequence[str]) -> np.ndarray:
    return np.array([finite_number((initial or {}).get(name, 0.0), f"initial value of {name!r}")
                     for name in names])


def _input_functions(model: StateSpace, signals: Mapping[str, Any]):
    pairs = [_signal(signals[name], name) for name in model.inputs]
    values = [p[0] for p in pairs]
    slopes = [p[1] for p in pairs]

    def u(time: float) -> np.ndarray:
        return np.array([float(fn(time)) for fn in values])

    def du(time: float) -> np.ndarray:
        return np.array([float(fn(time)) for fn in slopes])

    return u, du


def _integrate_dae(f, g, model, u_fn, du_fn, x0, t0, times, rtol, atol, guesses, max_steps,
                   watch):
    from sksundae.ida import IDA

    n, m = len(model.x), len(model.z)

    z0 = solve_algebraic(lambda z: g(t0, x0, z, u_fn(t0), du_fn(t0)), guesses, model.z_names,
                         "initial")
    y0 = np.concatenate([x0, z0])
    yp0 = np.concatenate([f(t0, x0, z0, u_fn(t0), du_fn(t0)), np.zeros(m)])

    def residual(time, y, yp, res):
        watch(time, y)
        x, z = y[:n], y[n:]
        u, du = u_fn(time), du_fn(time)
        res[:n] = yp[:n] - f(time, x, z, u, du)
        res[n:] = g(time, x, z, u, du)

    solver = IDA(residual, algebraic_idx=list(range(n, n + m)), rtol=rtol, atol=atol,
                 calc_initcond="yp0", calc_init_dt=(times[-1] - t0) * 1e-3 or 1e-6,
                 max_num_steps=max_steps)
    tspan = np.unique(np.concatenate([[t0], times]))
    if len(tspan) == 2:  # IDA reads a two-point span as "report every internal step"
        tspan = np.array([tspan[0], 0.5 * (tspan[0] + tspan[1]), tspan[1]])
    sol = solver.solve(tspan, y0, yp0)
    if not sol.success:
        raise SimulationError(f"IDA stopped at t = {sol.t[-1] if len(sol.t) else t0:.6g}: "
                              f"{sol.message}")
    keep = np.isin(sol.t, times)
    return (sol.t[keep], sol.y[keep, :n].T, sol.y[keep, n:].T, True, str(sol.message))


def _result(model, args, ts, xs, zs, u_fn, du_fn, ok, message) -> Result:
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
    return Result(ts, series, success=ok, message=message)
