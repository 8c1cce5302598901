"""Two-port elements: ideal transformers and gyrators and their named cases.

Each two-port has edges ``<name>.<port>`` and is ideal: ``a1 tau1 + a2 tau2 = 0``
(it neither stores nor dissipates energy). In a linear graph what matters is
the structure of the coupling, which sets the normal-tree rule:

* **transformer** coupling, across to across and through to through:
  ``a2 = N a1``, ``tau1 = -N tau2``. Exactly one of the two edges belongs in a
  normal tree. Gear pair, lever, pulley, rack and pinion, electrical
  transformer and the DC motor (``v = K w``, ``T = K i``).
* **gyrator** coupling, across to through: ``tau1 = G a2``, ``tau2 = -G a1``.
  Both edges or neither belong in a normal tree. Positive-displacement pump or
  motor (``Q = D w``, ``T = D P``) and the hydraulic piston (``Q = A v``,
  ``F = A P``).

With velocity and angular velocity as across variables, the DC motor relates
across to across: it is a gyrator in bond graphs but follows the transformer
rule in a linear graph; the piston is the other way round.
"""

from __future__ import annotations

from collections.abc import Mapping

import sympy

from .base import EdgeVariables, Element, Kind, equation

__all__ = ["Transformer", "Gyrator", "GearPair", "Lever", "Pulley", "RackAndPinion",
           "ElectricalTransformer", "DCMotor", "Pump", "Piston"]


class TwoPort(Element):
    """An ideal two-port; ``coupling`` is ``"transformer"`` or ``"gyrator"``."""

    kind = Kind.TRANSDUCER
    ports = ("1", "2")
    coupling = "transformer"
    parameter_names = ("N",)

    def __init__(self, name: str, *nodes, domains: tuple[str, str] | None = None, **parameters):
        if domains is not None:  # generic two-ports take the domains of their ports
            self.domain = tuple(domains)
        super().__init__(name, *nodes, **parameters)

    def terminal_equations(self, variables: Mapping[str, EdgeVariables]) -> list[sympy.Eq]:
        p1, p2 = (variables[e.name] for e in self.edges)
        k = self.symbol(self.parameter_names[0])
        if self.coupling == "transformer":
            return [equation(p2.across, k * p1.across), equation(p1.through, -k * p2.through)]
        return [equation(p1.through, k * p2.across), equation(p2.through, -k * p1.across)]


class Transformer(TwoPort):
    """Ideal transformer between two edges of any domains: ``a2 = N a1``, ``tau1 = -N tau2``.

    Nodes: ``tail1, head1, tail2, head2``.

    >>> Transformer("T", "g", "a", "g", "b", N=2.0).edges[1].name
    'T.2'

    >>> import vecnet as vn
    >>> print(vn.text(vn.Transformer("X", "a", "0", "b", "0", domains=("rotational",
    ...     "rotational"), N=3)))
    w_X.2 = N_X*w_X.1
    T_X.1 = -N_X*T_X.2
    """

    domain = ("electrical", "electrical")


class Gyrator(TwoPort):
    """Ideal gyrator between two edges of any domains: ``tau1 = G a2``, ``tau2 = -G a1``.

    >>> import vecnet as vn
    >>> print(vn.text(vn.Gyrator("G", "a", "0", "w", "0", domains=("electrical",
    ...     "rotational"), G=0.1)))
    i_G.1 = G*w_G.2
    T_G.2 = -G*v_G.1
    """

    coupling = "gyrator"
    parameter_names = ("G",)
    domain = ("electrical", "electrical")


class GearPair(TwoPort):
    """Gear pair: output speed ``w2 = N w1`` (``N`` = input teeth / output teeth, negative
    for external gears if you track the reversal), torques ``T1 = -N T2``.

    >>> import vecnet as vn
    >>> print(vn.text(vn.GearPair("gears", "w1", "0", "w2", "0", N=-0.5)))
    w_gears.2 = N_gears*w_gears.1
    T_gears.1 = -N_gears*T_gears.2
    """

    domain = ("rotational", "rotational")


class Lever(TwoPort):
    """Lever: ``v2 = N v1`` with ``N`` the ratio of arm lengths.

    >>> import vecnet as vn
    >>> print(vn.text(vn.Lever("lever", "x1", "0", "x2", "0", N=2.0)))
    v_lever.2 = N_lever*v_lever.1
    F_lever.1 = -F_lever.2*N_lever
    """

    domain = ("translational", "translational")


class Pulley(TwoPort):
    """Ideal pulley or belt drive between two shafts: ``w2 = N w1``.

    >>> import vecnet as vn
    >>> print(vn.text(vn.Pulley("belt", "w1", "0", "w2", "0", N=0.5)))
    w_belt.2 = N_belt*w_belt.1
    T_belt.1 = -N_belt*T_belt.2
    """

    domain = ("rotational", "rotational")


class RackAndPinion(TwoPort):
    """Rack and pinion of pitch radius ``r``: rack velocity ``v = r w``; port 1 the
    pinion (rotational), port 2 the rack (translational).

    >>> import vecnet as vn
    >>> print(vn.text(vn.RackAndPinion("rack", "w", "0", "x", "0", r=0.02)))
    v_rack.2 = r_rack*w_rack.1
    T_rack.1 = -F_rack.2*r_rack
    """

    domain = ("rotational", "translational")
    parameter_names = ("r",)


class ElectricalTransformer(TwoPort):
    """Ideal electrical transformer with turns ratio ``n``: ``v2 = n v1``, ``i1 = -n i2``.

    >>> import vecnet as vn
    >>> print(vn.text(vn.ElectricalTransformer("T1", "p", "0", "s", "0", n=10)))
    v_T1.2 = n_T1*v_T1.1
    i_T1.1 = -i_T1.2*n_T1
    """

    domain = ("electrical", "electrical")
    parameter_names = ("n",)


class DCMotor(TwoPort):
    """Ideal DC machine with constant ``K`` (V s/rad = N m/A): back-emf ``v = K w`` and
    torque ``T = K i``. Port ``m`` (rotational, from the stator to the rotor) comes first,
    port ``e`` (the armature terminals) second: nodes ``stator, rotor, e_tail, e_head``.
    The winding's resistance and inductance are separate elements in series.

    >>> import vecnet as vn
    >>> print(vn.text(vn.DCMotor("motor", "w", "0", "a", "0", K=0.05)))
    v_motor.e = K_motor*w_motor.m
    T_motor.m = -K_motor*i_motor.e
    """

    domain = ("rotational", "electrical")
    ports = ("m", "e")
    parameter_names = ("K",)


class Pump(TwoPort):
    """Positive-displacement pump or motor with displacement ``D`` (m^3/rad): delivered
    flow ``Q = D w`` into the head of port ``f``, shaft torque ``T = D P``. Port ``m``
    (rotational) first, port ``f`` (fluid) second.

    >>> import vecnet as vn
    >>> print(vn.text(vn.Pump("pump", "w", "0", "p", "0", D=1e-6)))
    T_pump.m = D_pump*P_pump.f
    Q_pump.f = -D_pump*w_pump.m
    """

    coupling = "gyrator"
    domain = ("rotational", "fluid")
    ports = ("m", "f")
    parameter_names = ("D",)


class Piston(TwoPort):
    """Hydraulic piston (ram) of area ``A``: flow ``Q = A v`` into the head of port ``f``,
    force ``F = A P``. Port ``m`` (translational) first, port ``f`` (fluid) second.

    >>> import vecnet as vn
    >>> print(vn.text(vn.Piston("ram", "x", "0", "p", "0", A=1e-3)))
    F_ram.m = A_ram*P_ram.f
    Q_ram.f = -A_ram*v_ram.m
    """

    coupling = "gyrator"
    domain = ("translational", "fluid")
    ports = ("m", "f")
    parameter_names = ("A",)
