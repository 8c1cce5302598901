"""One-port lumped elements of the five scalar domains.

Every one-port is an edge from ``tail`` to ``head`` with across variable
``a = (head value) - (tail value)`` and through variable ``tau`` in the
passive sign convention (``a * tau`` is the power into the element). The
five families and their terminal equations:

=================  ==================================  ==============================
family             examples                            terminal equation
=================  ==================================  ==============================
across store (A)   capacitor, mass, inertia            ``tau = C da/dt``
through store (T)  inductor, spring, inertance         ``a = L dtau/dt``
dissipator (D)     resistor, damper, orifice           ``a = R tau`` or ``tau = b a``
across source      voltage, velocity, pressure source  ``a = value``
through source     current, force, flow source         ``tau = -value``
=================  ==================================  ==============================

A through source of value ``f`` delivers ``f`` into its head node (a force
source pushes its head point with ``f``), hence ``tau = -f`` in the passive
convention. A mass, inertia or capacitance to ground is an edge from the
ground (datum) node to the node of its across variable.

The stores and dissipators (every family but the sources) must have positive
values: zero is refused with what it means (a zero resistance or inductance
is a short circuit, a zero capacitance or damping an open circuit), and a
negative number unless the element is made with ``allow_negative=True``.
Sources take any sign and no ``allow_negative``.

>>> Capacitor("C1", "a", "b", C=-1e-6, allow_negative=True).parameters["C"].value
-1e-06
"""

from __future__ import annotations

from collections.abc import Mapping

import sympy

from ..errors import ModelError
from .base import EdgeVariables, Element, Kind, equation, t

__all__ = [
    "Resistor", "Capacitor", "Inductor", "VoltageSource", "CurrentSource",
    "Mass", "Spring", "Damper", "ForceSource", "VelocitySource",
    "Inertia", "TorsionSpring", "RotaryDamper", "TorqueSource", "AngularVelocitySource",
    "FluidCapacitance", "FluidInertance", "FluidResistance", "PressureSource", "FlowSource",
    "ThermalCapacitance", "ThermalResistance", "TemperatureSource", "HeatFlowSource",
    "NonlinearDissipator",
]


class OnePort(Element):
    """A single-edge element whose terminal equation is :meth:`law`."""

    def law(self, a: sympy.Expr, tau: sympy.Expr, p: sympy.Expr) -> sympy.Eq:
        raise NotImplementedError

    def terminal_equations(self, variables: Mapping[str, EdgeVariables]) -> list[sympy.Eq]:
        v = variables[self.edges[0].name]
        return [self.law(v.across, v.through, self.symbol(self.parameter_names[0]))]


# what a zero value would make of the element, said in words instead of dividing by it
_NO_STORE = "stores nothing and carries nothing (an open circuit): remove the element instead"
_SHORT = "is a short circuit (no across variable): join its two nodes instead"
_OPEN = "is an open circuit (zero conductance, nothing flows): remove the element instead"


class _Capacitive(OnePort):
    kind = Kind.ACROSS_STORE
    positive = {"*": _NO_STORE}

    def law(self, a, tau, p):
        return equation(tau, p * a.diff(t))


class _Inductive(OnePort):
    kind = Kind.THROUGH_STORE
    positive = {"*": _SHORT}

    def law(self, a, tau, p):
        return equation(a, p * tau.diff(t))


class _Stiffness(OnePort):
    """A through store given by its stiffness k: ``dtau/dt = k a``."""

    kind = Kind.THROUGH_STORE
    positive = {"*": "transmits no force: remove the element (it is an open link)"}

    def law(self, a, tau, p):
        return equation(tau.diff(t), p * a)


class _Resistive(OnePort):
    kind = Kind.DISSIPATOR
    positive = {"*": _SHORT}

    def law(self, a, tau, p):
        return equation(a, p * tau)


class _Viscous(OnePort):
    """A dissipator given by its damping coefficient b: ``tau = b a``."""

    kind = Kind.DISSIPATOR
    positive = {"*": _OPEN}

    def law(self, a, tau, p):
        return equation(tau, p * a)


class _AcrossSource(OnePort):
    kind = Kind.ACROSS_SOURCE
    driven = "across"

    def law(self, a, tau, p):
        return equation(a, p)


class _ThroughSource(OnePort):
    kind = Kind.THROUGH_SOURCE
    driven = "through"

    def law(self, a, tau, p):
        return equation(tau, -p)


class NonlinearDissipator(OnePort):
    """A dissipator with a nonlinear law, given as a function that builds a sympy expression:
    ``across=f`` for ``a = f(tau)`` or ``through=g`` for ``tau = g(a)``.

    >>> import sympy
    >>> orifice = NonlinearDissipator("O1", "p", "q", domain="fluid",
    ...                               across=lambda Q: 2 * Q * sympy.Abs(Q))
    >>> orifice.kind.value
    'D-type'
    """

    kind = Kind.DISSIPATOR

    def __init__(self, name: str, tail, head, *, domain: str = "electrical",
                 across=None, through=None) -> None:
        if (across is None) == (through is None):
            raise ModelError(f"NonlinearDissipator {name!r}: give exactly one of across=f(tau) "
                             "or through=g(a)")
        law = across or through
        if not callable(law):
            raise ModelError(f"NonlinearDissipator {name!r}: the law must be a function "
                             f"building a sympy expression, got {law!r}")
        self.domain = domain
        super().__init__(name, tail, head)
        probe = sympy.Dummy("x", real=True)
        try:
            expression = sympy.sympify(law(probe))
        except Exception as exc:
            raise ModelError(f"NonlinearDissipator {name!r}: its law failed on a symbol: {exc}") from None
        if not isinstance(expression, sympy.Expr):
            raise ModelError(f"NonlinearDissipator {name!r}: its law must return an expression")
        #: the variable the law gives, ``"across"`` or ``"through"``; ``law`` builds it from
        #: the other one
        self.output: str = "across" if across else "through"
        self.law = law

    def terminal_equations(self, variables: Mapping[str, EdgeVariables]) -> list[sympy.Eq]:
        v = variables[self.edges[0].name]
        if self.output == "across":
            return [equation(v.across, self.law(v.through))]
        return [equation(v.through, self.law(v.across))]


def _domain(name: str):
    """Class decorator setting the domain and the parameter name."""
    def wrap(parameter: str):
        def apply(cls):
            cls.domain = name
            cls.parameter_names = (parameter,)
            if "*" in cls.positive:  # the family's rule, under the parameter's own name
                cls.positive = {parameter: cls.positive["*"]}
            if issubclass(cls, (_AcrossSource, _ThroughSource)):
                cls.signals = (parameter,)
            return cls
        return apply
    return wrap


electrical, translational, rotational, fluid, thermal = (
    _domain(n) for n in ("electrical", "translational", "rotational", "fluid", "thermal"))


@electrical("R")
class Resistor(_Resistive):
    """Electrical resistor, ``v = R i``.

    >>> Resistor("R1", "a", "b", R=100.0).parameters["R"].value
    100.0
    """


@electrical("C")
class Capacitor(_Capacitive):
    """Electrical capacitor, ``i = C dv/dt``.

    >>> import vecnet as vn
    >>> print(vn.text(vn.Capacitor("C1", "a", "0", C=1e-6)))
    i_C1 = C1*v_C1'
    """


@electrical("L")
class Inductor(_Inductive):
    """Electrical inductor, ``v = L di/dt``.

    >>> import vecnet as vn
    >>> print(vn.text(vn.Inductor("L1", "a", "b", L=0.1)))
    v_L1 = L1*i_L1'
    """


@electrical("V")
class VoltageSource(_AcrossSource):
    """Ideal voltage source: the head is ``V`` above the tail.

    >>> import vecnet as vn
    >>> print(vn.text(vn.VoltageSource("V1", "0", "a", V=5.0)))
    v_V1 = V1
    """


@electrical("I")
class CurrentSource(_ThroughSource):
    """Ideal current source delivering ``I`` into its head node (``i = -I``).

    >>> import vecnet as vn
    >>> print(vn.text(vn.CurrentSource("I1", "0", "a", I=0.2)))
    i_I1 = -I1
    """


@translational("m")
class Mass(_Capacitive):
    """Translational mass, an edge from the inertial reference to the mass: ``F = m dv/dt``.

    >>> import vecnet as vn
    >>> print(vn.text(vn.Mass("m", "g", "x", m=2.0)))
    F_m = m*v_m'
    """


@translational("k")
class Spring(_Stiffness):
    """Translational spring, ``dF/dt = k v``.

    >>> import vecnet as vn
    >>> print(vn.text(vn.Spring("k", "x", "g", k=100.0)))
    F_k' = k*v_k
    """


@translational("b")
class Damper(_Viscous):
    """Translational viscous damper, ``F = b v``.

    >>> import vecnet as vn
    >>> print(vn.text(vn.Damper("b", "x", "g", b=0.5)))
    F_b = b*v_b
    """


@translational("F")
class ForceSource(_ThroughSource):
    """Ideal force source pushing its head node with ``F``.

    >>> import vecnet as vn
    >>> print(vn.text(vn.ForceSource("F", "g", "x", F=1.0)))
    F_F = -F
    """


@translational("v")
class VelocitySource(_AcrossSource):
    """Ideal velocity source: the head moves at ``v`` relative to the tail.

    >>> import vecnet as vn
    >>> print(vn.text(vn.VelocitySource("v", "g", "x", v=0.3)))
    v_v = v
    """


@rotational("J")
class Inertia(_Capacitive):
    """Rotational inertia, an edge from the inertial reference: ``T = J dw/dt``.

    >>> import vecnet as vn
    >>> print(vn.text(vn.Inertia("J", "g", "w", J=0.01)))
    T_J = J*w_J'
    """


@rotational("k")
class TorsionSpring(_Stiffness):
    """Torsion spring (shaft compliance), ``dT/dt = k w``.

    >>> import vecnet as vn
    >>> print(vn.text(vn.TorsionSpring("shaft", "w1", "w2", k=50.0)))
    T_shaft' = k_shaft*w_shaft
    """


@rotational("b")
class RotaryDamper(_Viscous):
    """Rotational viscous damper (bearing friction), ``T = b w``.

    >>> import vecnet as vn
    >>> print(vn.text(vn.RotaryDamper("bearing", "w", "g", b=1e-3)))
    T_bearing = b_bearing*w_bearing
    """


@rotational("T")
class TorqueSource(_ThroughSource):
    """Ideal torque source driving its head node with ``T``.

    >>> import vecnet as vn
    >>> print(vn.text(vn.TorqueSource("T", "g", "w", T=2.0)))
    T_T = -T
    """


@rotational("w")
class AngularVelocitySource(_AcrossSource):
    """Ideal angular velocity source.

    >>> import vecnet as vn
    >>> print(vn.text(vn.AngularVelocitySource("w1", "g", "w", w=10.0)))
    w_w1 = w1
    """


@fluid("C")
class FluidCapacitance(_Capacitive):
    """Fluid capacitance (tank, accumulator), ``Q = C dP/dt``.

    >>> import vecnet as vn
    >>> print(vn.text(vn.FluidCapacitance("tank", "0", "p", C=1e-8)))
    Q_tank = C_tank*P_tank'
    """


@fluid("I")
class FluidInertance(_Inductive):
    """Fluid inertance of a pipe, ``P = I dQ/dt``.

    >>> import vecnet as vn
    >>> print(vn.text(vn.FluidInertance("pipe", "p1", "p2", I=1e6)))
    P_pipe = I_pipe*Q_pipe'
    """


@fluid("R")
class FluidResistance(_Resistive):
    """Linear fluid resistance, ``P = R Q``.

    >>> import vecnet as vn
    >>> print(vn.text(vn.FluidResistance("valve", "p1", "p2", R=1e8)))
    P_valve = Q_valve*R_valve
    """


@fluid("P")
class PressureSource(_AcrossSource):
    """Ideal pressure source.

    >>> import vecnet as vn
    >>> print(vn.text(vn.PressureSource("P", "0", "p", P=2e5)))
    P_P = P
    """


@fluid("Q")
class FlowSource(_ThroughSource):
    """Ideal volume flow source delivering ``Q`` into its head node.

    >>> import vecnet as vn
    >>> print(vn.text(vn.FlowSource("Q", "0", "p", Q=1e-4)))
    Q_Q = -Q
    """


@thermal("C")
class ThermalCapacitance(_Capacitive):
    """Thermal capacitance, ``q = C dT/dt``.

    >>> import vecnet as vn
    >>> print(vn.text(vn.ThermalCapacitance("wall", "0", "T1", C=900.0)))
    q_wall = C_wall*theta_wall'
    """


@thermal("R")
class ThermalResistance(_Resistive):
    """Thermal resistance, ``dT = R q``.

    >>> import vecnet as vn
    >>> print(vn.text(vn.ThermalResistance("R", "T1", "T2", R=0.05)))
    theta_R = R*q_R
    """


@thermal("T")
class TemperatureSource(_AcrossSource):
    """Ideal temperature source.

    >>> import vecnet as vn
    >>> print(vn.text(vn.TemperatureSource("room", "0", "T", T=293.15)))
    theta_room = T_room
    """


@thermal("q")
class HeatFlowSource(_ThroughSource):
    """Ideal heat flow source delivering ``q`` into its head node.

    >>> import vecnet as vn
    >>> print(vn.text(vn.HeatFlowSource("q1", "0", "T", q=100.0)))
    q_q1 = -q1
    """
