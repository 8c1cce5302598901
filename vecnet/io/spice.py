"""Import of a SPICE netlist subset as a :class:`~vecnet.Network`.

Read: ``R``, ``L``, ``C``, ``V`` and ``I`` cards, and the controlled sources ``E``, ``G``,
``F`` and ``H`` (below); values with the scale factors
``f p n u m k meg g t`` (any case; a unit such as ``F``, ``H``, ``V``, ``A``,
``Ohm`` or ``Hz`` may follow, as in ``10uF``); DC sources, ``PULSE(v1 v2 td
tr tf pw [per])`` and ``SIN(vo va freq [td [theta]])``, and the small-signal
``AC mag [phase]`` of a source (magnitude 1 and phase 0 when left out; phase in
degrees); comments (``*`` lines, ``;`` to the end of a line), continuation
lines (``+``), ``.end``. As in SPICE the first line is the title (it names the
network). Node ``0`` (or ``gnd``) is the ground, added first so that it is the
datum.

Parameters: ``.param R0=1k C0={2*R0}`` declares numbers, and ``{expression}``
anywhere in a card stands for its value: an arithmetic expression of numbers (without
scale factors) and parameters, read by :func:`vecnet.io.expressions.parse_expression`
(never evaluated as code). ``load_netlist(..., parameters={"R0": 2e3})`` (``vecnet
--param R0=2e3``) gives declared parameters other values.

The analysis commands ``.op``, ``.ac dec|oct|lin N fstart fstop``, ``.tran
tstep tstop [tstart [tmax]]`` and ``.ic v(node)=value ...`` are read into an
:class:`Analyses` object, kept on the network as ``net.analyses`` (``vecnet op``,
``vecnet ac`` and ``vecnet simulate`` use them); other analysis and output commands (``.dc``, ``.print``,
``.control`` blocks, ...) are skipped; anything else, such as transistors,
diodes, subcircuits or ``.model``, raises :class:`~vecnet.errors.ModelFileError`
naming the line.

Orientation (``docs/conventions.md``): a SPICE element ``X n+ n- ...`` is the
edge from ``n-`` (tail) to ``n+`` (head), so its across variable is
``V(n+) - V(n-)`` and its through variable is the current from ``n+`` through
the element to ``n-``, both as in SPICE. ``Vname n+ n- value`` is a
:class:`~vecnet.VoltageSource` whose head is ``value`` above its tail. A
current source ``Iname n+ n- value`` drives ``value`` from ``n+`` through the
source into ``n-``; a :class:`~vecnet.CurrentSource` delivers its value into
its head, so its edge runs from ``n+`` (tail) to ``n-`` (head).

Controlled sources (:mod:`vecnet.elements.controlled`), oriented as SPICE means them:

* ``Ename n+ n- nc+ nc- gain``: :class:`~vecnet.VCVS`, ``V(n+, n-) = gain V(nc+, nc-)``;
* ``Gname n+ n- nc+ nc- gm``: :class:`~vecnet.VCCS`, ``gm V(nc+, nc-)`` flows from ``n+``
  through the source into ``n-``;
* ``Fname n+ n- Vsense gain``: :class:`~vecnet.CCCS`, ``gain I(Vsense)`` from ``n+``
  through the source into ``n-``;
* ``Hname n+ n- Vsense r``: :class:`~vecnet.CCVS`, ``V(n+, n-) = r I(Vsense)``.

Coupled inductors: ``Kname L1 L2 k`` couples two ``L`` cards (given before or after it)
with ``M = k sqrt(L1 L2)``, ``-1 <= k <= 1``; the inductors that ``K`` cards join become one
:class:`~vecnet.CoupledInductors` named after the first such card, whose windings are named
after the ``L`` cards (edges ``K1.L1``, ``K1.L2``), each dot at its card's ``n+``.

``I(Vsense)`` is SPICE's current through the voltage source ``Vsense`` (from its ``n+``
through it to its ``n-``). The controlling edge of an ``F`` or ``H`` card is a short
``<name>.in`` in series with ``Vsense``, at a new node ``<name>_sense`` between the short
and ``Vsense``'s ``n+`` end; several cards may sense one source (their shorts in series).

A vecnet extension: ``Ename n+ n- nc+ nc- inf`` is the ideal operational amplifier
:class:`~vecnet.OpAmp` (inputs ``nc-``, ``nc+``, output ``n+``, ground ``n-``); SPICE
itself needs a finite gain.

Source waveforms are sympy expressions in :data:`vecnet.t`, built directly
from the numbers of the card (no text is evaluated).

This module holds what reading and writing share (the card table, numbers, waveforms and
analysis commands); :func:`~vecnet.io.netlist_reader.load_netlist` reads and
:func:`~vecnet.io.netlist_writer.write_netlist` writes.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from decimal import Decimal

import numpy as np
import sympy

from ..builders.network import Network
from ..core.bounds import get_limits
from ..core.names import shown
from ..elements import controlled, lumped
from ..elements.base import Element, number_problem, t
from ..errors import ModelError, ModelFileError

__all__ = ["parse_value", "pulse", "sine", "waveform_card", "Analyses", "AcSweep", "Transient",
           "Card", "CARDS", "LETTERS", "GROUND", "MAX_NETLIST_SIZE", "fail"]

MAX_NETLIST_SIZE = 10_000_000

# scale factor -> power of ten
_SCALE = {"f": -15, "p": -12, "n": -9, "u": -6, "m": -3, "k": 3, "meg": 6, "g": 9, "t": 12}
_UNITS = {"", "f", "h", "v", "a", "ohm", "ohms", "s", "sec", "hz"}
# ASCII only: Python's \d, float() and Decimal() also take Arabic-Indic and other digits
NUMBER = re.compile(r"([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?)([a-z]*)",
                    re.IGNORECASE | re.ASCII)
#: the names of the ground node (any case)
GROUND = {"0", "gnd"}


@dataclass(frozen=True)
class Card:
    """An element card: the element class, the parameter its value gives, and whether the
    current of a voltage source controls it (``F``, ``H``) rather than a voltage (``E``,
    ``G``)."""

    cls: type[Element]
    parameter: str
    by_current: bool = False

    @property
    def is_controlled(self) -> bool:
        return issubclass(self.cls, controlled.ControlledSource)


#: card letter -> its element; read and written alike
CARDS = {"r": Card(lumped.Resistor, "R"), "l": Card(lumped.Inductor, "L"),
         "c": Card(lumped.Capacitor, "C"), "v": Card(lumped.VoltageSource, "V"),
         "i": Card(lumped.CurrentSource, "I"), "e": Card(controlled.VCVS, "mu"),
         "g": Card(controlled.VCCS, "g"), "f": Card(controlled.CCCS, "beta", True),
         "h": Card(controlled.CCVS, "r", True)}
#: element class -> the letter of its card (the class itself, not a subclass of another
#: domain); a finite-gain op-amp is the voltage-controlled voltage source it is
LETTERS: dict[type, str] = {card.cls: letter.upper() for letter, card in CARDS.items()} \
    | {controlled.FiniteGainOpAmp: "E"}


def fail(line: int, message: str) -> ModelFileError:
    """An error of the netlist at ``line``."""
    return ModelFileError(message, location=f"netlist line {line}")


@dataclass(frozen=True)
class AcSweep:
    """A ``.ac`` card: ``variation`` (``"dec"``, ``"oct"`` or ``"lin"``), ``points`` (per
    decade, per octave, or in all), ``start`` and ``stop`` in hertz.

    >>> AcSweep("dec", 2, 1.0, 100.0).frequencies().round(3).tolist()
    [1.0, 3.162, 10.0, 31.623, 100.0]
    """

    variation: str
    points: int
    start: float
    stop: float

    def frequencies(self) -> np.ndarray:
        """The grid as SPICE makes it: ``points`` per decade (octave) from ``start``, up to
        ``stop``; or ``points`` evenly spaced from ``start`` to ``stop``.

        Raises
        ------
        ModelError
            More frequencies than ``vn.get_limits().max_points``.
        """
        base = 10.0 if self.variation == "dec" else 2.0
        if self.variation == "lin":
            span = float(self.points) - 1.0
        else:   # points per decade (octave) times the decades, which may leave double precision
            ratio = self.stop / self.start
            decades = math.log(ratio, base) if math.isfinite(ratio) else \
                math.log(self.stop, base) - math.log(self.start, base)
            span = self.points * decades
        limit = get_limits().max_points
        if not span + 1 <= limit:
            raise ModelError(f".ac asks for {span + 1:.6g} frequencies, more than the limit "
                             f"max_points = {limit}; use fewer points or raise the limit")
        if self.variation == "lin":
            return np.linspace(self.start, self.stop, int(self.points))
        steps = np.arange(int(math.floor(span + 1e-9)) + 1) / self.points
        with np.errstate(over="ignore"):
            grid = self.start * base ** steps
        # a grid from 1e-300 Hz: base ** steps overflows long before the frequencies do
        return grid if np.all(np.isfinite(grid)) else base ** (math.log(self.start, base) + steps)


@dataclass(frozen=True)
class Transient:
    """A ``.tran`` card: ``step`` (the printing increment), ``stop``, ``start`` (of the
    printed results) and ``max_step`` (``None``: not given), in seconds."""

    step: float
    stop: float
    start: float = 0.0
    max_step: float | None = None


@dataclass(frozen=True)
class Analyses:
    """The analysis commands of a netlist, kept on the network it was read into as
    ``net.analyses``.

    Attributes
    ----------
    op : bool
        A ``.op`` card is present.
    ac : AcSweep or None
        The last ``.ac`` card.
    tran : Transient or None
        The last ``.tran`` card.
    ac_sources : dict of str to complex
        Input name (``"V1.across"``, ``"I1.through"``) -> its ``AC mag phase`` amplitude
        as a complex number (phase in degrees on the card).

    >>> import vecnet as vn
    >>> net = vn.load_netlist('''rc
    ... V1 in 0 DC 0 AC 1
    ... R1 in out 1k
    ... C1 out 0 1u
    ... .ac dec 10 1 1meg
    ... .op''')
    >>> net.analyses.op, net.analyses.ac, net.analyses.ac_sources
    (True, AcSweep(variation='dec', points=10, start=1.0, stop=1000000.0), {'V1.across': (1+0j)})
    """

    op: bool = False
    ac: AcSweep | None = None
    tran: Transient | None = None
    ac_sources: dict[str, complex] = field(default_factory=dict)
    node_voltages: dict[str, float] = field(default_factory=dict)

    def initial_states(self, net: Network) -> dict[str, float]:
        """The initial across variables (``"C1.across"``) of the capacitors both of whose
        nodes have a voltage on the ``.ic`` card (the ground is 0 V).

        >>> import vecnet as vn
        >>> net = vn.load_netlist('''rc
        ... V1 in 0 DC 1
        ... R1 in out 1k
        ... C1 out 0 1u
        ... .ic v(out)=0.25''')
        >>> net.analyses.initial_states(net)
        {'C1.across': 0.25}
        """
        known = {"0": 0.0, **self.node_voltages}
        return {f"{el.name}.across": known[el.edges[0].head] - known[el.edges[0].tail]
                for el in net.elements if isinstance(el, lumped.Capacitor)
                and el.edges[0].head in known and el.edges[0].tail in known}

def parse_value(token: str, line: int = 0) -> float:
    """A SPICE number with an optional scale factor and unit.

    >>> parse_value("4.7k"), parse_value("10uF"), parse_value("1MEG"), parse_value("2m")
    (4700.0, 1e-05, 1000000.0, 0.002)
    """
    match = NUMBER.fullmatch(token)
    if match is None:
        if not token.isascii() and any(unicodedata.category(c) == "Nd" for c in token):
            raise fail(line, f"{shown(token)} is not a number: write numbers with the ASCII "
                              "digits 0-9")
        raise fail(line, f"{shown(token)} is not a number")
    number, suffix = match.group(1), match.group(2).lower()
    scale = 0
    if suffix.startswith("meg"):
        scale, suffix = _SCALE["meg"], suffix[3:]
    elif suffix[:1] in _SCALE and suffix not in _UNITS - {"f"}:
        # a lone "f" is femto, as in SPICE; "h", "a", "s" ... are units, not scale factors
        scale, suffix = _SCALE[suffix[0]], suffix[1:]
    if suffix not in _UNITS:
        raise fail(line, f"{token!r}: unknown scale factor or unit {match.group(2)!r}; scale "
                          "factors are f p n u m k meg g t")
    # in decimal, so that 10u is the double nearest 1e-5 (10 * 1e-6 is not)
    try:
        value = float(Decimal(number).scaleb(scale))
    except ArithmeticError:
        raise fail(line, f"{token!r} is out of range") from None
    if value != value or abs(value) == float("inf"):
        raise fail(line, f"{token!r} is out of range")
    problem = number_problem(value)
    if problem:
        raise fail(line, f"{token!r} {problem}")
    return value


def _from(x: sympy.Expr) -> sympy.Expr:
    """1 from ``x = 0`` on, 0 before: a step that is right-continuous at its corner, so that
    a piecewise function built from such steps takes the value of the piece that starts
    there, never a mean of two pieces."""
    return sympy.Heaviside(x, 1)


def pulse(v1: float, v2: float, td: float, tr: float, tf: float, pw: float,
          per: float | None = None) -> sympy.Expr:
    """SPICE ``PULSE(v1 v2 td tr tf pw per)`` as an expression in :data:`vecnet.t`:
    ``v1`` until ``td``, a ramp of ``tr`` to ``v2``, ``v2`` for ``pw``, a ramp of ``tf``
    back to ``v1``; repeated every ``per`` (``None``: once).

    Each piece is switched on and off by right-continuous steps of the time within the
    period (``Mod(t - td, per)``), so the value at a corner is the next piece's and the
    ramps are fractions of the time within a piece (no large terms that cancel); rounding
    is clamped, so the value never leaves ``[min(v1, v2), max(v1, v2)]``. The steps'
    arguments are where :func:`vecnet.numerics.network_integration.switching_times` finds the corners.

    >>> import vecnet as vn
    >>> p = pulse(0, 1, 1e-3, 1e-4, 1e-4, 5e-4, 2e-3)
    >>> [round(float(p.subs(vn.t, x)), 9) for x in (0, 1.05e-3, 1.3e-3, 2e-3, 3.3e-3)]
    [0.0, 0.5, 1.0, 0.0, 1.0]
    """
    v1, v2, td, tr, tf, pw = (sympy.Float(float(x)) for x in (v1, v2, td, tr, tf, pw))
    # times within the pulse in units of its period (of 1 s without one): a Mod by 1 is
    # exact in floating point, and every piece reads this one expression
    unit = sympy.Float(float(per)) if per is not None else sympy.Float(1.0)
    local = (t - td) / unit
    if per is not None:
        local = sympy.Mod(local, 1)
    rise, high, fall = tr / unit, pw / unit, tf / unit
    # the pulse's height as a fraction: 0 before it, 1 at v2
    shape = _from(local - rise) - _from(local - rise - high)
    if tr > 0:
        shape += (1 - _from(local - rise)) * local / rise
    if tf > 0:
        shape += (_from(local - rise - high) - _from(local - rise - high - fall)) \
            * (rise + high + fall - local) / fall
    value = v1 + (v2 - v1) * _from(t - td) * shape
    result = sympy.Max(min(v1, v2), sympy.Min(max(v1, v2), value))
    _remember(result, "PULSE", (v1, v2, td, tr, tf, pw) + (() if per is None else (unit,)))
    return result


def sine(vo: float, va: float, freq: float, td: float = 0.0, theta: float = 0.0) -> sympy.Expr:
    """SPICE ``SIN(vo va freq td theta)`` as an expression in :data:`vecnet.t`:
    ``vo`` until ``td``, then ``vo + va exp(-theta (t - td)) sin(2 pi freq (t - td))``.

    Before ``td`` the time since ``td`` is held at zero (a step of it), so the damping
    factor is never evaluated before the wave starts (where it would overflow); with
    ``theta >= 0`` the value stays within ``[vo - |va|, vo + |va|]``.

    >>> import vecnet as vn
    >>> s = sine(1, 2, 50)
    >>> round(float(s.subs(vn.t, 0.005)), 12)
    3.0
    """
    vo, va, freq, td, theta = (sympy.Float(float(x)) for x in (vo, va, freq, td, theta))
    local = t - td if td == 0 else (t - td) * _from(t - td)
    wave = va * sympy.sin(2 * sympy.pi * freq * local)
    if theta != 0:
        wave = wave * sympy.exp(-theta * local)
    result = vo + wave
    _remember(result, "SIN", (vo, va, freq, td, theta))
    return result


#: the card text of each waveform that :func:`pulse` and :func:`sine` built (the newest
#: ones), so that :func:`write_netlist` writes them back as they were read
_WAVEFORMS: dict[sympy.Expr, str] = {}
_MAX_WAVEFORMS = 4096


def _remember(expr: sympy.Expr, kind: str, values: tuple) -> None:
    if len(_WAVEFORMS) >= _MAX_WAVEFORMS:
        del _WAVEFORMS[next(iter(_WAVEFORMS))]
    _WAVEFORMS[expr] = f"{kind}({' '.join(repr(float(v)) for v in values)})"


def waveform_card(expr: object) -> str | None:
    """The card text (``"PULSE(...)"``, ``"SIN(...)"``) of a waveform that :func:`pulse` or
    :func:`sine` built, ``None`` for anything else."""
    try:
        return _WAVEFORMS.get(expr)  # type: ignore[call-overload]
    except TypeError:  # not hashable: not a waveform
        return None
