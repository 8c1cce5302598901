"""Linear models of nonlinear lumped networks about an operating point."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy
from scipy.linalg import LinAlgError, lu_factor, lu_solve

from ..core.numbers import exact_rational
from ..errors import FormulationError, ModelError, UnknownNameError
from .network_integration import numeric_model, solve_algebraic

if TYPE_CHECKING:
    from ..formulation.lumped import StateSpace

__all__ = ["linearize"]


def linearize(model: StateSpace, point: Mapping[str, float],
              parameters: Mapping[Any, float] | None = None) -> StateSpace:
    """The linear model of the deviations of a network from an operating point.

    With ``x = x0 + dx``, ``u = u0 + du`` and the algebraic variables ``z = z0 + dz``
    eliminated through ``g_z dz = -(g_x dx + g_u du + g_u' du')`` (a numeric solve), the
    model is ``dx' = A dx + B du + E du'`` and every variable ``v = v0 + dv`` with ``dv``
    linear in ``dx, du, du'``; the Jacobians are exact derivatives evaluated at the point.

    Parameters
    ----------
    model : StateSpace
    point : mapping
        Every state by name (``"C1.across"``), inputs by name (default: the constant value
        given to the source) and, optionally, starting guesses for the algebraic
        variables (``model.z_names``), which are solved from ``g = 0``. The point should
        be an equilibrium, ``f(x0, u0) = 0``: the linear model leaves out the constant
        rate ``f(x0, u0)``.
    parameters : mapping, optional
        Values for parameters that have none (by symbol or name).

    Returns
    -------
    StateSpace
        Linear, with the same names; its variables, inputs and outputs are deviations
        from the point, its entries the simplest rationals of the numbers, and its inputs
        zero unless given.

    Raises
    ------
    UnknownNameError
        ``point`` names something that is not a state, input or algebraic variable.
    ModelError
        A state, an input's value or a parameter's value is missing.
    FormulationError
        The algebraic loop is singular at the point (``g_z`` has no inverse).
    SimulationError
        No values of the algebraic variables satisfy ``g = 0`` from the guesses.

    Examples
    --------
    A tank (capacitance C) filled at Q0 and drained by an orifice ``P = k Q |Q|``: at
    the steady state ``P0 = k Q0^2`` the orifice acts as a resistance ``dP/dQ = 2 k Q0``.

    >>> import sympy, vecnet as vn
    >>> net = vn.Network("tank")
    >>> _ = net.add(vn.FlowSource("pump", "g", "p", Q=2.0), vn.FluidCapacitance("tank", "g", "p", C=0.5),
    ...             vn.NonlinearDissipator("orifice", "g", "p", domain="fluid",
    ...                                    across=lambda Q: 3 * Q * sympy.Abs(Q)))
    >>> lin = net.state_space().linearize({"tank.across": 12.0})
    >>> lin.A, lin.B          # -1/(C 2 k Q0) = -1/6, 1/C = 2
    (Matrix([[-1/6]]), Matrix([[2]]))
    """
    model = numeric_model(model, parameters)
    point = dict(point)
    unknown = set(point) - set(model.states) - set(model.inputs) - set(model.z_names)
    if unknown:
        raise UnknownNameError(f"no state, input or algebraic variable {', '.join(sorted(unknown))}; "
                               f"states are {', '.join(model.states) or 'none'}")
    missing = [name for name in model.states if name not in point]
    if missing:
        raise ModelError(f"the operating point needs every state; missing: {', '.join(missing)}")
    x0 = np.array([float(point[name]) for name in model.states])
    u0 = np.array([_input_value(point.get(name, model.signals.get(name)), name)
                   for name in model.inputs])
    du0 = np.zeros(len(model.du))
    args = (model.x, model.z, model.u, model.du)
    names = list(model.variable_names)
    if model.z:
        g = sympy.lambdify(args, list(model.g), modules="numpy", cse=True)
        guesses = np.array([float(point.get(name, 0.0)) for name in model.z_names])
        z0 = solve_algebraic(lambda z: np.asarray(g(x0, z, u0, du0), dtype=float), guesses,
                             model.z_names, "point")
    else:
        z0 = np.zeros(0)

    # one compiled Jacobian of f, g and every variable in (x, z, u, u')
    order = [*model.x, *model.z, *model.u, *model.du]
    exprs = sympy.Matrix([*model.f, *model.g, *(model.output(name) for name in names)])
    jacobian = np.asarray(sympy.lambdify(args, exprs.jacobian(order) if len(order) else exprs[:, :0],
                                         modules="numpy", cse=True)(x0, z0, u0, du0),
                          dtype=float).reshape(len(exprs), len(order))
    n, m = len(model.x), len(model.z)
    columns = np.r_[0:n, n + m:len(order)]          # x, u, u'
    rows_f, rows_g, rows_v = np.r_[0:n], np.r_[n:n + m], np.r_[n + m:len(exprs)]
    direct = jacobian[:, columns]
    if m:
        try:
            lu = lu_factor(jacobian[np.ix_(rows_g, np.r_[n:n + m])], check_finite=True)
        except (LinAlgError, ValueError) as exc:
            raise FormulationError(f"the algebraic loop of {', '.join(model.z_names)} cannot be "
                                   f"solved at the operating point: {exc}") from None
        if np.any(np.diag(lu[0]) == 0):
            raise FormulationError(f"the algebraic loop of {', '.join(model.z_names)} is "
                                   "singular at the operating point")
        # dz = -g_z^-1 (g_x dx + g_u du + g_u' du'), solved rather than inverted
        direct = direct - jacobian[:, n:n + m] @ lu_solve(lu, jacobian[rows_g][:, columns])
    symbols = sympy.Matrix([*model.x, *model.u, *model.du])

    def linear(row: np.ndarray) -> sympy.Expr:
        return sympy.Add(*(exact_rational(float(c)) * v for c, v in zip(row, symbols) if c != 0))

    values = {name: linear(row) for name, row in zip(names, direct[rows_v])}
    where = ", ".join(f"{name} = {value:.6g}" for name, value in
                      [*zip(model.states, x0), *zip(model.inputs, u0), *zip(model.z_names, z0)])
    return model.replace(f=[linear(row) for row in direct[rows_f]], z=(), g=(), z_names=(),
                          variables=values, values={}, signals=dict.fromkeys(model.inputs, 0),
                          diagnosis=f"{model.diagnosis()}\nLinearized about {where}.")


def _input_value(value, name: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ModelError(f"input {name!r} has no constant value: give its value at the operating "
                         "point in point={...}") from None


