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
    """Electrical capacitor, ``i = C dv/dt``."""


@electrical("L")
class Inductor(_Inductive):
    """Electrical inductor, ``v = L di/dt``."""


@electrical("V")
class VoltageSource(_AcrossSource):
    """Ideal voltage source: the head is ``V`` above the tail."""


@electrical("I")
class CurrentSource(_ThroughSource):
    """Ideal current source delivering ``I`` into its head node (``i = -I``)."""


@translational("m")
class Mass(_Capacitive):
    """Translational mass, an edge from the inertial reference to the mass: ``F = m dv/dt``."""


@translational("k")
class Spring(_Stiffness):
    """Translational spring, ``dF/dt = k v``."""


@translational("b")
class Damper(_Viscous):
    """Translational viscous damper, ``F = b v``."""


@translational("F")
class ForceSource(_ThroughSource):
    """Ideal force source pushing its head node with ``F``."""


@translational("v")
class VelocitySource(_AcrossSource):
    """Ideal velocity source: the head moves at ``v`` relative to the tail."""


@rotational("J")
class Inertia(_Capacitive):
    """Rotational inertia, an edge from the inertial reference: ``T = J dw/dt``."""


@rotational("k")
class TorsionSpring(_Stiffness):
    """Torsion spring (shaft compliance), ``dT/dt = k w``."""


@rotational("b")
class RotaryDamper(_Viscous):
    """Rotational viscous damper (bearing friction), ``T = b w``."""


@rotational("T")
class TorqueSource(_ThroughSource):
    """Ideal torque source driving its head node with ``T``."""


@rotational("w")
class AngularVelocitySource(_AcrossSource):
    """Ideal angular velocity source."""


@fluid("C")
class FluidCapacitance(_Capacitive):
    """Fluid capacitance (tank, accumulator), ``Q = C dP/dt``."""


@fluid("I")
class FluidInertance(_Inductive):
    """Fluid inertance of a pipe, ``P = I dQ/dt``."""


@fluid("R")
class FluidResistance(_Resistive):
    """Linear fluid resistance, ``P = R Q``."""


@fluid("P")
class PressureSource(_AcrossSource):
    """Ideal pressure source."""


@fluid("Q")
class FlowSource(_ThroughSource):
    """Ideal volume flow source delivering ``Q`` into its head node."""


@thermal("C")
class ThermalCapacitance(_Capacitive):
    """Thermal capacitance, ``q = C dT/dt``."""


@thermal("R")
class ThermalResistance(_Resistive):
    """Thermal resistance, ``dT = R q``."""


@thermal("T")
class TemperatureSource(_AcrossSource):
    """Ideal temperature source."""


@thermal("q")
class HeatFlowSource(_ThroughSource):
    """Ideal heat flow source delivering ``q`` into its head node."""
