"""The element framework: edges, kinds, parameters and terminal equations.

An element is one or more directed edges of a linear graph plus the terminal
equations that relate the across and through variables of those edges. The
formulations never look inside an element beyond :meth:`Element.terminal_equations`
and :attr:`Element.kind`.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar, NamedTuple

import sympy

from ..core.domains import Domain
from ..core.domains import domain as lookup_domain
from ..core.names import check_name
from ..core.symbols import t
from ..errors import ModelError, UnknownNameError

__all__ = ["Kind", "Parameter", "Edge", "EdgeVariables", "Element", "MechanismElement", "Symbol",
           "t", "number_problem"]



class Kind(Enum):
    """What an element does with energy; decides its place in a normal tree.

    A normal tree takes across sources first, then across stores (A-type), transducers,
    dissipators (D-type), through stores (T-type), and through sources last.

    >>> import vecnet as vn
    >>> vn.Capacitor("C1", "a", "0", C=1e-6).kind
    <Kind.ACROSS_STORE: 'A-type'>
    >>> vn.VCVS("E1", "a", "0", "b", "0", mu=10).edge_kinds  # the input an open
    (<Kind.THROUGH_SOURCE: 'through source'>, <Kind.ACROSS_SOURCE: 'across source'>)
    """

    ACROSS_SOURCE = "across source"
    ACROSS_STORE = "A-type"    # capacitor, mass, inertia, fluid and thermal capacitance
    TRANSDUCER = "transducer"  # transformer, gyrator
    DISSIPATOR = "D-type"      # resistor, damper, fluid and thermal resistance
    THROUGH_STORE = "T-type"   # inductor, spring, fluid inertance
    THROUGH_SOURCE = "through source"
    CONSTRAINT = "constraint"  # rigid arms and joints of vector networks

    @property
    def normal_tree_rank(self) -> int | None:
        """Place in the normal-tree order (lower first); ``None``: never a branch."""
        return _NORMAL_RANK[self]


_NORMAL_RANK = {Kind.ACROSS_SOURCE: 0, Kind.ACROSS_STORE: 1, Kind.TRANSDUCER: 2,
                Kind.CONSTRAINT: 2, Kind.DISSIPATOR: 3, Kind.THROUGH_STORE: 4,
                Kind.THROUGH_SOURCE: None}


class Parameter:
    """A named parameter of an element: its sympy symbol and optional numeric value
    (a float; for a source signal also an expression in t or a callable).

    ``symbol`` may be given as the name of a real symbol, made when first asked for: a
    large numeric network then never pays for its sympy symbols.

    >>> Parameter("R", "R1", 2.0).symbol.is_real
    True
    """

    __slots__ = ("name", "_symbol", "value")

    def __init__(self, name: str, symbol: sympy.Expr | str, value: Any = None) -> None:
        self.name, self._symbol, self.value = name, symbol, value

    @property
    def symbol(self) -> sympy.Expr:
        if isinstance(self._symbol, str):
            self._symbol = sympy.Symbol(self._symbol, real=True)
        return self._symbol

    def _key(self):
        return (self.name, self.symbol, self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Parameter) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash((self.name, self.symbol))

    def __repr__(self) -> str:
        return f"Parameter(name={self.name!r}, symbol={self.symbol!r}, value={self.value!r})"


@dataclass(frozen=True)
class Edge:
    """One directed edge of an element: full edge name, tail, head and domain.

    >>> import vecnet as vn
    >>> edge = vn.DCMotor("motor", "w", "0", "a", "0", K=0.05).edge("m")
    >>> edge.name, edge.tail, edge.head, edge.domain.name
    ('motor.m', 'w', '0', 'rotational')
    """

    name: str
    tail: Hashable
    head: Hashable
    domain: Domain


class EdgeVariables(NamedTuple):
    """The across and through variables of one edge, as sympy functions of :data:`t`.

    >>> from vecnet.core.domains import domain
    >>> EdgeVariables.of(Edge("C1", "a", "0", domain("electrical")))
    EdgeVariables(across=v_C1(t), through=i_C1(t))
    """

    across: sympy.Expr
    through: sympy.Expr

    @staticmethod
    def names(edge: Edge) -> tuple[str, str]:
        """The names of the variables of ``edge``: its domain's symbols and the edge's name
        (``("v_R1", "i_R1")``; ``F_k`` is a spring's force)."""
        return (f"{edge.domain.across_symbol}_{edge.name}",
                f"{edge.domain.through_symbol}_{edge.name}")

    @classmethod
    def of(cls, edge: Edge) -> EdgeVariables:
        """The variables of ``edge`` as functions of time, named by :meth:`names`."""
        across, through = cls.names(edge)
        return cls(sympy.Function(across, real=True)(t), sympy.Function(through, real=True)(t))


def equation(lhs: sympy.Expr, rhs: sympy.Expr) -> sympy.Eq:
    """``Eq(lhs, rhs)`` as written: sympy's evaluation of relations costs assumption queries
    that large networks cannot afford, and a terminal equation is never trivially true."""
    return sympy.Eq(lhs, rhs, evaluate=False)


def number_problem(value: float) -> str | None:
    """Why a float cannot be a parameter value (NaN, infinite, subnormal), or ``None``.

    Subnormal numbers (nonzero, below about 2.2e-308 in magnitude) are refused: their
    reciprocals overflow, and no physical constant needs them.

    >>> number_problem(1e-310), number_problem(1e-300) is None
    ('is subnormal (smaller in magnitude than 2.2e-308 but not zero)', True)
    """
    if math.isnan(value):
        return "is not a number (NaN)"
    if math.isinf(value):
        return "is infinite"
    if value != 0 and abs(value) < sys.float_info.min:
        return "is subnormal (smaller in magnitude than 2.2e-308 but not zero)"
    return None


def Symbol(name: str, **assumptions: Any) -> sympy.Symbol:
    """A sympy symbol for a model parameter; real unless told otherwise, like the
    symbols vecnet makes for numeric parameters.

    >>> Symbol("R1").is_real
    True
    """
    assumptions.setdefault("real", True)
    return sympy.Symbol(name, **assumptions)


class Element:
    """Base class of all elements.

    Subclasses declare ``kind``, ``domain`` (one domain, or one per port),
    ``ports`` (one name per edge; a single empty name for one-port elements)
    and ``parameter_names``, and implement :meth:`terminal_equations`.

    A parameter may be given as a number (kept as a value of the element's own
    symbol), as a sympy expression (used as is), or left out when the element
    has a default. The symbol of a numeric parameter ``R`` of element ``R3`` is
    ``R3`` (the element name is the parameter name, or it followed by digits),
    that of parameter ``K`` of element ``motor`` is ``K_motor``, and that of a source's
    value is told apart from the source's own variable: ``Q0_pump`` for the flow ``Q`` of
    flow source ``pump``, whose through variable is ``Q_pump``.

    The name follows the name policy of :mod:`vecnet.core.names`. Numbers must be finite and
    not subnormal; the parameters listed in :attr:`positive` (stores and losses) must be
    above zero, unless ``allow_negative=True`` is given, which accepts negative values
    (an equivalent circuit's negative capacitance, a negative resistance of an active
    device) but still not zero. Symbols are not checked: their values come later.

    >>> import vecnet as vn
    >>> r = vn.Resistor("R3", "a", "b", R=100.0)
    >>> r.parameters["R"].symbol, r.kind, r.edges[0].domain.name
    (R3, <Kind.DISSIPATOR: 'D-type'>, 'electrical')
    >>> vn.Resistor("Rload", "a", "b", R=100.0).parameters["R"].symbol
    R_Rload
    """

    kind: ClassVar[Kind]
    domain: ClassVar[str | tuple[str, ...]] = "electrical"
    ports: ClassVar[tuple[str, ...]] = ("",)
    parameter_names: ClassVar[tuple[str, ...]] = ()
    defaults: ClassVar[Mapping[str, Any]] = {}
    #: parameters that are input signals: always a symbol, with a value that may vary in time
    signals: ClassVar[tuple[str, ...]] = ()
    #: parameters that must be positive (a physical store or loss), with what a value of
    #: zero would mean instead, in words; ``allow_negative=True`` lets them be negative
    positive: ClassVar[Mapping[str, str]] = {}
    #: separators this class's own names may hold (vecnet's arms: ``body-point``)
    name_separators: ClassVar[str] = ""

    def __init__(self, name: str, *nodes: Hashable, allow_negative: bool = False,
                 **parameters: Any) -> None:
        check_name(name, "element name", separators=self.name_separators)
        self.name = name
        if not isinstance(allow_negative, bool):
            raise ModelError(f"{type(self).__name__} {name!r}: allow_negative is True or False, "
                             f"got {allow_negative!r}")
        if allow_negative and not self.positive:
            raise ModelError(f"{type(self).__name__} {name!r} has no value that must be positive; "
                             "allow_negative does not apply to it")
        #: whether negative values of the :attr:`positive` parameters are accepted
        self.allow_negative = allow_negative
        if len(nodes) != 2 * len(self.ports):
            want = "tail, head" if len(self.ports) == 1 else ", ".join(
                f"{p}_tail, {p}_head" for p in self.ports)
            raise ModelError(f"{type(self).__name__} {name!r} takes the nodes ({want}); "
                             f"got {len(nodes)} node(s)")
        domains = self.domain if isinstance(self.domain, tuple) else (self.domain,) * len(self.ports)
        self.edges: tuple[Edge, ...] = tuple(
            Edge(name if port == "" else f"{name}.{port}", nodes[2 * k], nodes[2 * k + 1],
                 lookup_domain(domains[k]))
            for k, port in enumerate(self.ports))
        unknown = sorted(set(parameters) - set(self.parameter_names))
        if unknown:
            raise ModelError(f"{type(self).__name__} {name!r} has no parameter(s) "
                             f"{', '.join(unknown)}; its parameters are "
                             f"{', '.join(self.parameter_names) or 'none'}")
        self.parameters: dict[str, Parameter] = {}
        for pname in self.parameter_names:
            if pname in parameters:
                given = parameters[pname]
            elif pname in self.defaults:
                given = self.defaults[pname]
            else:
                raise ModelError(f"{type(self).__name__} {name!r} needs parameter {pname!r}")
            self.parameters[pname] = self._parameter(pname, given)
            value = self.parameters[pname].value
            if value is None:
                symbol = self.parameters[pname].symbol
                if isinstance(symbol, sympy.Number) and symbol.is_real:
                    value = float(symbol)  # a sympy number given as such: check it alike
            if isinstance(value, float):
                problem = self.value_problem(pname, value, name, allow_negative)
                if problem:
                    raise ModelError(problem)

    @classmethod
    def value_problem(cls, pname: str, value: float, name: str = "",
                      allow_negative: bool = False) -> str | None:
        """Why ``value`` cannot be parameter ``pname`` of element ``name`` of this class
        (made with ``allow_negative`` or not), or ``None``.

        Every number must be finite and not subnormal; the :attr:`positive` parameters
        (capacitance, inductance, resistance, mass, stiffness, ...) must be above zero, or
        may be negative when the element is made with ``allow_negative=True``; zero is
        refused either way, with what it would mean (a short, an open circuit).

        >>> from vecnet import Capacitor
        >>> Capacitor.value_problem("C", -1.0, "C1")
        "Capacitor 'C1': C = -1 is not physical (it must be positive); pass allow_negative=True to the element to accept a negative value"
        >>> Capacitor.value_problem("C", -1.0, "C1", allow_negative=True) is None
        True
        """
        what = f"{cls.__name__} {name!r}"
        problem = number_problem(value)
        if problem:
            return f"{what}: {pname} = {value!r} {problem}"
        zero = cls.positive.get(pname)
        if zero is None:
            return None
        if value == 0:
            return f"{what}: {pname} = 0 {zero}"
        if value < 0 and not allow_negative:
            return (f"{what}: {pname} = {value:g} is not physical (it must be positive); pass "
                    "allow_negative=True to the element to accept a negative value")
        return None

    def _parameter(self, pname: str, given: Any) -> Parameter:
        # textbook names: R3 of resistor R3, but b_bearing of damper "bearing"
        rest = self.name[len(pname):] if self.name.startswith(pname) else None
        plain = rest is not None and (rest == "" or rest.isdigit())
        own = self.name if plain else f"{pname}_{self.name}"  # the symbol's name
        if own in {n for e in self.edges for n in EdgeVariables.names(e)}:
            # flow source "pump": its value Q0_pump, not Q_pump, which is its edge's flow
            own = f"{pname}0_{self.name}"
        number = isinstance(given, numbers.Real) and not isinstance(given, bool)
        if pname in self.signals:
            if isinstance(given, sympy.Symbol):
                return Parameter(pname, given)
            if number or callable(given) or (isinstance(given, sympy.Expr)
                                             and given.free_symbols <= {t}):
                return Parameter(pname, own, float(given) if number else given)
            raise ModelError(f"signal {pname!r} of {self.name!r} must be a number, a symbol, an "
                             f"expression in t or a function of t; got {given!r}")
        if isinstance(given, sympy.Basic):
            return Parameter(pname, given)
        if number:
            try:
                return Parameter(pname, own, float(given))
            except OverflowError:  # an int beyond the doubles
                raise ModelError(f"parameter {pname!r} of {self.name!r}: {given} is out of the "
                                 "range of floating point numbers") from None
        raise ModelError(f"parameter {pname!r} of {self.name!r} must be a number or a sympy "
                         f"expression; got {given!r}")

    def symbol(self, pname: str) -> sympy.Expr:
        """The sympy symbol (or expression) of parameter ``pname``."""
        return self.parameters[pname].symbol

    @property
    def values(self) -> dict[sympy.Expr, float]:
        """Numeric values of the (non-signal) parameters that have one, keyed by symbol."""
        return {p.symbol: p.value for p in self.parameters.values()
                if p.value is not None and p.name not in self.signals}

    @property
    def edge_kinds(self) -> tuple[Kind, ...]:
        """The normal-tree kind of each edge: the element's :attr:`kind`, unless the element
        places its edges one by one (a controlled source's open and short)."""
        return (self.kind,) * len(self.edges)

    def edge(self, port: str = "") -> Edge:
        """The edge of ``port`` (the only edge of a one-port)."""
        for k, p in enumerate(self.ports):
            if p == port:
                return self.edges[k]
        raise UnknownNameError(f"{type(self).__name__} {self.name!r} has no port {port!r}; "
                               f"ports are {', '.join(self.ports)}")

    def terminal_equations(self, variables: Mapping[str, EdgeVariables]) -> list[sympy.Eq]:
        """The element's terminal equations in the edge variables ``variables[edge.name]``."""
        raise NotImplementedError

    def __repr__(self) -> str:
        ends = ", ".join(f"{e.name}: {e.tail!r}->{e.head!r}" for e in self.edges)
        return f"<{type(self).__name__} {self.name} ({ends})>"


class MechanismElement(Element):
    """What the elements of planar and spatial mechanisms share: their coordinates as a tree
    branch, whether they are joints, the frame of an offset, and their place in the tree a
    formulation picks (:meth:`tree_rank`)."""

    coordinates: tuple[str, ...] = ()
    #: a joint: workless, its reaction is found from the cutset equations or multipliers
    is_joint = False
    #: the frame of an offset ``rho``: the tail frame (body-fixed) or the ground frame
    frame = "tail"
    #: the element's role in choosing a tree: ``"arm"``, ``"mass"`` or ``"force"`` (a
    #: joint's role is ``"joint"``)
    tree_role = "force"
    #: a constraint without coordinates of its own (a motion driver, a stop, a gear): never
    #: a tree branch
    cotree_only = False

    #: the parameters a parameter study may vary by ``"<element>.<parameter>"``: name ->
    #: the attribute holding the value (a number or a sympy expression)
    study_attributes: ClassVar[dict[str, str]] = {}

    def study_parameters(self) -> dict[str, Any]:
        """Name -> value of the parameters a parameter study may vary by
        ``"<element>.<parameter>"`` (a body's ``mass``, a spring's ``k``), as
        :func:`vecnet.sweep` addresses them; empty for elements without any.

        >>> MechanismElement("f", "a", "b").study_parameters()
        {}
        """
        return {name: getattr(self, attribute)
                for name, attribute in self.study_attributes.items()}

    def set_study_parameter(self, name: str, value: Any) -> None:
        """Give the parameter ``name`` of :meth:`study_parameters` the value ``value`` (a
        number or a sympy symbol), in place.

        Raises
        ------
        UnknownNameError
            For a name that is none of :meth:`study_parameters`.
        """
        if name not in self.study_parameters():
            raise UnknownNameError(f"element {self.name!r} has no parameter {name!r}; its "
                                   "parameters are "
                                   + (", ".join(self.study_parameters()) or "none"))
        setattr(self, self.study_attributes[name], sympy.sympify(value))

    def cut_equations(self) -> int:
        """How many constraint equations the element brings as a chord (0: not counted)."""
        return 0

    def tree_rank(self, order: Mapping[str, int]) -> tuple[int, int] | None:
        """The element's place in the preferred tree: by the ``order`` of its role, and among
        joints those that bring the most equations first, so that loops are cut where they
        give the fewest; ``None`` for an element that is never a branch.

        >>> MechanismElement("f", "a", "b").tree_rank({"force": 3})
        (3, 0)
        """
        if self.cotree_only:
            return None
        return (order["joint" if self.is_joint else self.tree_role], -self.cut_equations())

