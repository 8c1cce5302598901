"""Signal blocks for simple controllers: gains, sums, integrators and PID.

Signals are sympy expressions: sensors of a mechanism (joint angles and
rates, body coordinates), time ``t``, and the outputs of blocks. A block has
states with their rates and an output; a controller acts on the physical
system through the value of an ideal source, e.g.
``vn.VoltageSource("V", "g", "a", V=pid.output)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy

from ..core.names import check_name
from ..errors import ModelError

__all__ = ["Block", "Gain", "Integrator", "PID", "total"]


@dataclass
class Block:
    """A signal block: ``states`` with their ``rates`` and an ``output`` expression.

    A first-order lag ``x' = e - x`` whose output is its state:

    >>> import sympy
    >>> e, x = sympy.symbols("e x")
    >>> Block("lag", x, (x,), (e - x,))
    Block(name='lag', output=x, states=(x,), rates=(e - x,), initial=(0.0,))
    """

    name: str
    output: sympy.Expr
    states: tuple[sympy.Symbol, ...] = ()
    rates: tuple[sympy.Expr, ...] = ()
    initial: tuple[float, ...] = field(default=())

    def __post_init__(self) -> None:
        check_name(self.name, "block name")  # the name policy of vecnet.core.names
        if not self.initial:
            self.initial = (0.0,) * len(self.states)


def _expr(value, what: str) -> sympy.Expr:
    try:
        return sympy.sympify(value, strict=True)
    except (sympy.SympifyError, TypeError):
        raise ModelError(f"{what}: a number or a sympy expression is needed, got {value!r}") from None


def Gain(name: str, signal, k) -> Block:
    """``output = k * signal``.

    >>> import sympy
    >>> Gain("g", sympy.Symbol("e"), 3).output
    3*e
    """
    return Block(name, _expr(k, name) * _expr(signal, name))


def total(*signals) -> sympy.Expr:
    """The sum of signals (a summing junction); subtract with a minus sign.

    >>> import sympy
    >>> r, y = sympy.symbols("r y")
    >>> total(r, -y)
    r - y
    """
    return sympy.Add(*[_expr(s, "sum") for s in signals])


def Integrator(name: str, signal, initial: float = 0.0) -> Block:
    """``output' = signal``: the block's one state is its output.

    >>> import sympy
    >>> block = Integrator("I1", sympy.Symbol("e"))
    >>> block.output, block.rates
    (I1.state, (e,))
    """
    state = sympy.Symbol(f"{name}.state", real=True)
    return Block(name, state, (state,), (_expr(signal, name),), (float(initial),))


def PID(name: str, error, kp=0.0, ki=0.0, kd=0.0, tf=0.01) -> Block:
    """A PID controller with a first-order filter on the derivative:
    ``output = kp e + ki \\int e + kd (e - f)/tf`` with ``f' = (e - f)/tf``, the filtered
    derivative being ``kd s/(tf s + 1)``. Its states are the integral (unless ``ki`` is zero)
    and the filter (unless ``kd`` is zero); a gain given as a symbol keeps its state.
    A PD controller (``ki = 0``, or ``0.0``) has no integral state.

    >>> import sympy
    >>> pid = PID("pid", sympy.Symbol("e"), kp=2, ki=1, kd=0.1, tf=0.01)
    >>> pid.output       # 2 e + integral + 0.1 (e - filter)/0.01
    12.0*e - 10.0*pid.filter + pid.integral
    >>> pid.states
    (pid.integral, pid.filter)
    >>> PID("pd", sympy.Symbol("e"), kp=2, ki=0.0, kd=0.1).states
    (pd.filter,)
    """
    if float(tf) <= 0:
        raise ModelError(f"PID {name!r}: the derivative filter needs tf > 0")
    e = _expr(error, name)
    kp, ki, kd, tf = (_expr(v, name) for v in (kp, ki, kd, tf))
    output, states, rates = kp * e, [], []
    # zero as sympy sees it: a float gain 0.0 is not equal to the integer 0 there
    if not ki.is_zero:  # a PD controller has no integral state (it would never settle under load)
        integral = sympy.Symbol(f"{name}.integral", real=True)
        output += ki * integral
        states.append(integral)
        rates.append(e)
    if not kd.is_zero:
        filtered = sympy.Symbol(f"{name}.filter", real=True)
        derivative = (e - filtered) / tf
        output += kd * derivative
        states.append(filtered)
        rates.append(derivative)
    return Block(name, output, tuple(states), tuple(rates))
