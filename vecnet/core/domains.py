"""The physical domains: names of their across and through variables, symbols and SI units.

Every edge belongs to one domain. The lumped (scalar) domains share one
formulation; the planar domain carries a displacement vector and a rotation
as across variables and a force vector and a torque as through variables.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UnknownNameError

__all__ = ["Domain", "DOMAINS", "domain", "unit_text"]


@dataclass(frozen=True)
class Domain:
    """One physical domain.

    Attributes
    ----------
    name : str
        ``"electrical"``, ``"translational"``, ...
    across, through : str
        Names of the across and through quantities.
    across_symbol, through_symbol : str
        Short letters used to name edge variables (``v_R1``, ``i_R1``).
    across_unit, through_unit : str
        SI units.
    dimension : str
        ``"scalar"`` for lumped domains, ``"planar"`` for vector networks in the plane.

    >>> import vecnet as vn
    >>> heat = vn.domain("thermal")
    >>> heat.across, heat.through, heat.across_unit, heat.through_unit
    ('temperature', 'heat flow', 'K', 'W')
    """

    name: str
    across: str
    through: str
    across_symbol: str
    through_symbol: str
    across_unit: str
    through_unit: str
    dimension: str = "scalar"


DOMAINS: dict[str, Domain] = {d.name: d for d in (
    Domain("electrical", "voltage", "current", "v", "i", "V", "A"),
    Domain("translational", "velocity", "force", "v", "F", "m/s", "N"),
    Domain("rotational", "angular velocity", "torque", "w", "T", "rad/s", "N*m"),
    Domain("fluid", "pressure", "volume flow rate", "P", "Q", "Pa", "m^3/s"),
    Domain("thermal", "temperature", "heat flow", "theta", "q", "K", "W"),
    Domain("planar", "displacement and rotation", "force and torque", "r", "F",
           "m, rad", "N, N*m", dimension="planar"),
    Domain("spatial", "displacement and rotation", "force and torque", "r", "F",
           "m, rad", "N, N*m", dimension="spatial"),
)}


def domain(name: str | Domain) -> Domain:
    """The :class:`Domain` called ``name``.

    >>> domain("fluid").through_unit
    'm^3/s'
    """
    if isinstance(name, Domain):
        return name
    try:
        return DOMAINS[name]
    except (KeyError, TypeError):
        raise UnknownNameError(f"unknown domain {name!r}; domains are {', '.join(DOMAINS)}") from None


_SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def unit_text(unit: str) -> str:
    """A unit as the domain table writes it (``"m^3/s"``, ``"N m"``) in plain text, with
    raised powers and a middle dot for products: ``"m³/s"``, ``"N·m"``.

    >>> unit_text("m^3/s"), unit_text("kg m^2")
    ('m³/s', 'kg·m²')
    """
    def factor(word: str) -> str:
        base, _, power = word.partition("^")
        return base + power.translate(_SUPERSCRIPTS)

    return "/".join("·".join(factor(w) for w in part.split()) for part in unit.split("/"))
