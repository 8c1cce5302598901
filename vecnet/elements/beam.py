"""Beams: flexible bodies as edges of the vector network.

A flexible body is a chain of beam elements between frames, its nodes. Each element is
an edge from one node to the next; its across variables are the two frames' positions
and orientations, its through variables the forces and moments at its ends. The
terminal equations are those of a corotational Euler–Bernoulli element written in the
generalized deformations of Jonker and Meijaard (SPACAR; Meijaard, "Validation of
flexible beam elements in dynamics programs", Nonlinear Dynamics 9, 1996): with ``l``
the distance between the nodes, ``e`` the unit vector from the first to the second, and
``x, y, z`` each node frame's axes (``x`` along the beam, ``y`` and ``z`` the section's
principal axes),

* bending in the ``x-y`` plane (stiffness ``E Iz``): ``b_z = -e . y`` at each end, the
  sine of the end's turn about ``z`` away from the chord;
* bending in the ``x-z`` plane (``E Iy``): ``b_y = e . z`` at each end;
* torsion (``G J``): ``tau = (z_1 . y_2 - y_1 . z_2) / 2``;
* elongation (``E A``): ``eps = l - l0 + l0 (2 b_1^2 - b_1 b_2 + 2 b_2^2) / 30`` summed
  over both planes: the chord's stretch and the bowing of the bent axis, the
  second-order term that carries geometric stiffening (an axial force stiffens bending).

The section turns by the twist along the element, so each plane's curvature gains the
other's times the twist; projected on the element's linear curvatures this shifts both
ends' bendings alike, ``c_z = b_z - tau (b_y1 - b_y2) / 6`` and ``c_y = b_y + tau (b_z1 -
b_z2) / 6`` (Meijaard's second-order terms: they couple an in-plane moment to twist and
lateral bending, which is lateral buckling). The stored energy is

    U = E A eps^2 / (2 l0) + G J tau^2 / (2 l0)
        + 2 E Iz (c_z1^2 + c_z1 c_z2 + c_z2^2) / l0 + 2 E Iy (c_y1^2 + c_y1 c_y2 + c_y2^2) / l0,

exact for any rigid motion of the element (it is a function of invariants), so the same
element serves large overall motion and small elastic vibration. Its inertia is
consistent with the cubic (Hermite) interpolation of the axis between the nodes'
positions and tangents, ``r(s) = H1 r_1 + H2 l0 x_1 + H3 r_2 + H4 l0 x_2``, with the
torsional inertia ``rho (Iy + Iz)`` interpolated linearly; shear and the rotary inertia
of bending are left out (Euler–Bernoulli). The numbers are evaluated by
:mod:`vecnet.numerics.beams`.

>>> steel = Material(E=2.0e11, density=7800.0, nu=0.3)
>>> round(steel.G / 1e9, 3)
76.923
>>> rod = Section.circle(0.01)
>>> round(rod.A * 1e6, 4), round(rod.J / rod.Iy, 12)
(78.5398, 2.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import sympy

from ..errors import ModelError
from .base import number_problem

__all__ = ["Material", "Section", "BeamLaw", "BEAM_SYMBOLS"]

#: what each generalized deformation of :class:`BeamLaw` is called in its equations
BEAM_SYMBOLS = {"elongation": "eps", "torsion": "tau", "bending z": "b_z", "bending y": "b_y"}


def symbolic(value) -> bool:
    """Whether ``value`` is an expression in parameters (a sympy expression with symbols)."""
    return isinstance(value, sympy.Basic) and bool(value.free_symbols)


def _positive(owner: str, **values) -> None:
    for key, value in values.items():
        if symbolic(value):   # a parameter: checked when its value is put in
            continue
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ModelError(f"{owner}: {key} is a number or an expression in parameters; "
                             f"got {value!r}") from None
        problem = number_problem(number)
        if problem or not number > 0:
            raise ModelError(f"{owner}: {key} = {number:g} "
                             + (problem or "is not physical (it must be more than zero)"))


def _kept(value):
    """A number as a float, an expression in parameters as it is."""
    return value if symbolic(value) else float(value)


@dataclass(frozen=True)
class Material:
    """An isotropic elastic material: Young's modulus ``E``, shear modulus ``G`` (or
    Poisson's ratio ``nu``, ``G = E / (2 (1 + nu))``) and ``density``, in SI units; each
    a number or an expression in parameters (a study sweeps them; the values are checked
    when they are put in).

    Raises
    ------
    ModelError
        For a modulus or density that is not a positive finite number, a Poisson's ratio
        outside (-1, 1/2), or both ``G`` and ``nu`` (or neither) given.

    >>> Material(E=6.895e10, density=2766.67, G=2.6e10).G
    26000000000.0
    >>> Material(E=1.0, density=1.0)
    Traceback (most recent call last):
    ...
    vecnet.errors.ModelError: material: give G (shear modulus) or nu (Poisson's ratio)
    """

    E: float
    density: float
    G: float = math.nan
    nu: float | None = None

    def __init__(self, E: float, density: float, G: float | None = None,
                 nu: float | None = None) -> None:
        _positive("material", E=E, density=density)
        if (G is None) == (nu is None):
            raise ModelError("material: give G (shear modulus) or nu (Poisson's ratio)"
                             if G is None else "material: give G or nu, not both")
        if nu is not None:
            if not symbolic(nu) and not -1.0 < float(nu) < 0.5:
                raise ModelError(f"material: Poisson's ratio nu = {float(nu):g} is not "
                                 "physical (it lies between -1 and 1/2)")
            G = _kept(E) / (2 * (1 + _kept(nu)))
        _positive("material", G=G)
        object.__setattr__(self, "E", _kept(E))
        object.__setattr__(self, "density", _kept(density))
        object.__setattr__(self, "G", _kept(G))
        object.__setattr__(self, "nu", None if nu is None else _kept(nu))

    def study_parameters(self) -> dict[str, Any]:
        """The values a study may vary by name: ``E``, ``density`` and ``nu`` or ``G``,
        whichever was given.

        >>> Material(E=2e11, density=7800.0, nu=0.3).study_parameters()
        {'E': 200000000000.0, 'density': 7800.0, 'nu': 0.3}
        """
        return {"E": self.E, "density": self.density,
                **({"G": self.G} if self.nu is None else {"nu": self.nu})}

    def with_parameter(self, name: str, value) -> Material:
        """The same material with its study parameter ``name`` set to ``value``."""
        return Material(**{**self.study_parameters(), name: value})


@dataclass(frozen=True)
class Section:
    """A beam's cross-section: area ``A``, second moments ``Iy`` (about the section's
    ``y`` axis: bending in the ``x-z`` plane) and ``Iz`` (about ``z``: bending in the
    ``x-y`` plane), torsion constant ``J``, and ``size``, its largest dimension (refused
    when a beam is not much longer). Make one by :meth:`circle`, :meth:`rectangle` or
    :meth:`tube`, or give the four constants.

    Raises
    ------
    ModelError
        For a constant or dimension that is not a positive finite number, or a tube
        whose bore is not inside it.

    >>> s = Section.rectangle(width=0.03676, height=0.001986)   # y across, z through
    >>> round(s.Iz / s.Iy)                                      # stiff in x-y bending
    343
    >>> Section(A=1e-4, Iy=1e-9, Iz=2e-9, J=3e-9).size
    0.01
    """

    A: float
    Iy: float
    Iz: float
    J: float
    size: float = math.nan

    def __init__(self, A: float, Iy: float, Iz: float, J: float,
                 size: float | None = None) -> None:
        _positive("section", A=A, Iy=Iy, Iz=Iz, J=J)
        for key, value in (("A", A), ("Iy", Iy), ("Iz", Iz), ("J", J)):
            object.__setattr__(self, key, _kept(value))
        object.__setattr__(self, "size", (sympy.sqrt(self.A) if symbolic(self.A)
                                          else math.sqrt(self.A)) if size is None
                           else _kept(size))
        # how it was made: the shape's maker and its dimensions, what a study may vary
        object.__setattr__(self, "made", (None, {"A": self.A, "Iy": self.Iy, "Iz": self.Iz,
                                                 "J": self.J}))

    def _shaped(self, maker: str, **dimensions) -> Section:
        object.__setattr__(self, "made", (maker, dimensions))
        return self

    def study_parameters(self) -> dict[str, Any]:
        """The values a study may vary by name: the shape's dimensions (a circle's
        ``diameter``, a tube's ``outer`` and ``inner``, a rectangle's ``width`` and
        ``height``), or ``A``, ``Iy``, ``Iz`` and ``J`` where they were given.

        >>> Section.circle(0.01).study_parameters()
        {'diameter': 0.01}
        """
        return dict(self.made[1])

    def with_parameter(self, name: str, value) -> Section:
        """The same section with its study parameter ``name`` set to ``value``."""
        maker, dimensions = self.made
        dimensions = {**dimensions, name: value}
        if maker is None:
            return Section(**dimensions, size=self.size)
        return getattr(Section, maker)(**dimensions)

    @classmethod
    def circle(cls, diameter) -> Section:
        """A solid circle of ``diameter`` (a number or an expression in parameters, to
        study it): ``A = pi d^2/4``, ``Iy = Iz = pi d^4/64``, ``J = pi d^4/32``.

        >>> d = sympy.Symbol("d")
        >>> Section.circle(d).J
        pi*d**4/32
        """
        _positive("circular section", diameter=diameter)
        d = _kept(diameter)
        pi = sympy.pi if symbolic(d) else math.pi
        inertia = pi * d ** 4 / 64
        return cls(pi * d * d / 4, inertia, inertia, 2 * inertia, size=d)._shaped(
            "circle", diameter=d)

    @classmethod
    def tube(cls, outer, inner) -> Section:
        """A circular tube of ``outer`` and ``inner`` diameters (numbers or expressions in
        parameters)."""
        _positive("tube section", outer=outer, inner=inner)
        D, d = _kept(outer), _kept(inner)
        if not (symbolic(D) or symbolic(d)) and not d < D:
            raise ModelError(f"tube section: inner diameter {d:g} must be less than the outer "
                             f"{D:g}")
        pi = sympy.pi if symbolic(D) or symbolic(d) else math.pi
        inertia = pi * (D ** 4 - d ** 4) / 64
        return cls(pi * (D * D - d * d) / 4, inertia, inertia, 2 * inertia, size=D)._shaped(
            "tube", outer=D, inner=d)

    @classmethod
    def rectangle(cls, width, height) -> Section:
        """A solid rectangle ``width`` along the section's ``y`` axis and ``height`` along
        ``z`` (numbers or expressions in parameters): ``Iy = w h^3/12``, ``Iz = h w^3/12``,
        and Saint-Venant's torsion constant ``J = a b^3 (1/3 - 0.21 (b/a) (1 - b^4 / (12
        a^4)))`` (``a >= b`` the sides), within 0.5 % of the series solution for every
        aspect ratio."""
        _positive("rectangular section", width=width, height=height)
        w, h = _kept(width), _kept(height)
        if symbolic(w) or symbolic(h):   # exact constants, sides ordered when put in
            a, b, third, k = sympy.Max(w, h), sympy.Min(w, h), sympy.Rational(1, 3), \
                sympy.Rational(21, 100)
        else:
            a, b, third, k = max(w, h), min(w, h), 1 / 3, 0.21
        J = a * b ** 3 * (third - k * (b / a) * (1 - b ** 4 / (12 * a ** 4)))
        return cls(w * h, w * h ** 3 / 12, h * w ** 3 / 12, J, size=a)._shaped(
            "rectangle", width=w, height=h)


class BeamLaw:
    """The terminal equations of a beam element of reference length ``length`` between
    two node frames (the module's docstring): what the planar and the spatial beam
    elements share. ``material`` and ``section`` give its stiffnesses and inertia.

    Attributes
    ----------
    length : float
        The undeformed length ``l0``.
    material : Material
    section : Section
    beam : str
        The name of the flexible body the element belongs to.
    """

    name: str
    length: float
    material: Material
    section: Section
    beam: str

    def __init__(self, name: str, tail: str, head: str, length: float, material: Material,
                 section: Section, beam: str) -> None:
        super().__init__(name, tail, head)  # type: ignore[call-arg]
        _positive(f"beam {beam!r}", length=length)
        if not isinstance(material, Material):
            raise ModelError(f"beam {beam!r}: material is a vn.Material; got {material!r}")
        if not isinstance(section, Section):
            raise ModelError(f"beam {beam!r}: section is a vn.Section; got {section!r}")
        self.length, self.material, self.section, self.beam = (float(length), material,
                                                               section, beam)

    @property
    def stiffnesses(self) -> tuple[Any, Any, Any, Any]:
        """``(E A, G J, E Iy, E Iz)``: numbers, or expressions in the parameters the
        material or section holds."""
        m, s = self.material, self.section
        return m.E * s.A, m.G * s.J, m.E * s.Iy, m.E * s.Iz

    @property
    def mass(self) -> Any:
        """``rho A l0``, the element's mass (as :attr:`stiffnesses`)."""
        return self.material.density * self.section.A * self.length

    @property
    def polar_inertia(self) -> Any:
        """``rho (Iy + Iz) l0``: the element's moment of inertia about its axis (as
        :attr:`stiffnesses`)."""
        return self.material.density * (self.section.Iy + self.section.Iz) * self.length

    def terminal_equations(self) -> list[str]:
        """The element's constitutive law as text: each end load in its generalized
        deformations (:data:`BEAM_SYMBOLS`), the forms of the module's docstring.

        >>> from vecnet.elements.spatial import SpatialBeamElement
        >>> e = SpatialBeamElement("rod_e1", "rod_0", "rod_1", 1.0, Material(1e9, 1e3, nu=0.3),
        ...                 Section.circle(0.01), "rod")
        >>> e.terminal_equations()[0]
        'N = EA/l0 eps,  eps = l - l0 + l0 (2 b_z1^2 - b_z1 b_z2 + 2 b_z2^2 + 2 b_y1^2 - b_y1 b_y2 + 2 b_y2^2)/30'
        """
        return ["N = EA/l0 eps,  eps = l - l0 + l0 (2 b_z1^2 - b_z1 b_z2 + 2 b_z2^2"
                " + 2 b_y1^2 - b_y1 b_y2 + 2 b_y2^2)/30",
                "c_z = b_z - tau (b_y1 - b_y2)/6,  c_y = b_y + tau (b_z1 - b_z2)/6,  "
                "b_z = -e . y,  b_y = e . z",
                "m_z1 = EIz/l0 (4 c_z1 + 2 c_z2),  m_z2 = EIz/l0 (2 c_z1 + 4 c_z2),  "
                "m_y1 = EIy/l0 (4 c_y1 + 2 c_y2),  m_y2 = EIy/l0 (2 c_y1 + 4 c_y2)",
                "T = GJ/l0 tau - (b_y1 - b_y2)(m_z1 + m_z2)/6 + (b_z1 - b_z2)(m_y1 + m_y2)/6,"
                "  tau = (z_1 . y_2 - y_1 . z_2)/2",
                "M_z1 = m_z1 + tau (m_y1 + m_y2)/6 + N l0 (4 b_z1 - b_z2)/30,  "
                "M_z2 = m_z2 - tau (m_y1 + m_y2)/6 + N l0 (4 b_z2 - b_z1)/30",
                "M_y1 = m_y1 - tau (m_z1 + m_z2)/6 + N l0 (4 b_y1 - b_y2)/30,  "
                "M_y2 = m_y2 + tau (m_z1 + m_z2)/6 + N l0 (4 b_y2 - b_y1)/30"]
