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
"""

from __future__ import annotations

import cmath
import codecs
import math
import os
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import numpy as np
import sympy

from ..bounds import finite_number, get_limits
from ..elements import controlled, lumped
from ..elements.base import number_problem, t
from ..elements.coupled_inductors import CoupledInductors
from ..errors import ModelError, ModelFileError, VecnetError
from ..names import check_name, check_node, shown
from ..network import Network, warn_connectivity
from .expressions import parse_expression

__all__ = ["load_netlist", "write_netlist", "parse_value", "pulse", "sine", "Analyses", "AcSweep",
           "Transient"]

MAX_NETLIST_SIZE = 10_000_000

# scale factor -> power of ten
_SCALE = {"f": -15, "p": -12, "n": -9, "u": -6, "m": -3, "k": 3, "meg": 6, "g": 9, "t": 12}
_UNITS = {"", "f", "h", "v", "a", "ohm", "ohms", "s", "sec", "hz"}
# ASCII only: Python's \d, float() and Decimal() also take Arabic-Indic and other digits
_NUMBER = re.compile(r"([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?)([a-z]*)",
                     re.IGNORECASE | re.ASCII)
#: encodings load_netlist reads: UTF-8 (the default) and, when asked for, Latin-1
ENCODINGS = ("utf-8", "latin-1")
_GROUND = {"0", "gnd"}

_CARDS = {"r": (lumped.Resistor, "R"), "l": (lumped.Inductor, "L"), "c": (lumped.Capacitor, "C"),
          "v": (lumped.VoltageSource, "V"), "i": (lumped.CurrentSource, "I")}
_UNSUPPORTED = {
    "b": "behavioural source", "d": "diode", "j": "JFET",
    "m": "MOSFET", "o": "lossy transmission line", "q": "bipolar transistor",
    "s": "voltage-controlled switch", "t": "transmission line", "u": "uniform RC line",
    "w": "current-controlled switch", "x": "subcircuit instance", "z": "MESFET",
    "a": "code model", "n": "device model", "p": "coupled transmission line",
    "y": "transmission line",
}
#: controlled-source cards: class, parameter, whether a voltage source's current controls
_CONTROLLED = {"e": (controlled.VCVS, "mu", False), "g": (controlled.VCCS, "g", False),
               "f": (controlled.CCCS, "beta", True), "h": (controlled.CCVS, "r", True)}
_READS = "this importer reads R, L, C, V, I, E, F, G, H and K cards"
_SKIPPED = {".dc", ".print", ".plot", ".probe", ".options", ".option",
            ".save", ".temp", ".width", ".meas", ".measure", ".four", ".noise", ".disto",
            ".tf", ".sens", ".pz", ".title"}


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
        if self.variation == "lin":
            count = self.points
        else:
            base = 10.0 if self.variation == "dec" else 2.0
            count = int(math.floor(self.points * math.log(self.stop / self.start, base)
                                   + 1e-9)) + 1
        limit = get_limits().max_points
        if count > limit:
            raise ModelError(f".ac asks for {count} frequencies, more than the limit max_points "
                             f"= {limit}; use fewer points or raise the limit")
        if self.variation == "lin":
            return np.linspace(self.start, self.stop, count)
        base = 10.0 if self.variation == "dec" else 2.0
        return self.start * base ** (np.arange(count) / self.points)


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

    >>> net = load_netlist('''rc
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

        >>> net = load_netlist('''rc
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


def _fail(line: int, message: str) -> ModelFileError:
    return ModelFileError(message, location=f"netlist line {line}")


def parse_value(token: str, line: int = 0) -> float:
    """A SPICE number with an optional scale factor and unit.

    >>> parse_value("4.7k"), parse_value("10uF"), parse_value("1MEG"), parse_value("2m")
    (4700.0, 1e-05, 1000000.0, 0.002)
    """
    match = _NUMBER.fullmatch(token)
    if match is None:
        if not token.isascii() and any(unicodedata.category(c) == "Nd" for c in token):
            raise _fail(line, f"{shown(token)} is not a number: write numbers with the ASCII "
                              "digits 0-9")
        raise _fail(line, f"{shown(token)} is not a number")
    number, suffix = match.group(1), match.group(2).lower()
    scale = 0
    if suffix.startswith("meg"):
        scale, suffix = _SCALE["meg"], suffix[3:]
    elif suffix[:1] in _SCALE and suffix not in _UNITS - {"f"}:
        # a lone "f" is femto, as in SPICE; "h", "a", "s" ... are units, not scale factors
        scale, suffix = _SCALE[suffix[0]], suffix[1:]
    if suffix not in _UNITS:
        raise _fail(line, f"{token!r}: unknown scale factor or unit {match.group(2)!r}; scale "
                          "factors are f p n u m k meg g t")
    # in decimal, so that 10u is the double nearest 1e-5 (10 * 1e-6 is not)
    try:
        value = float(Decimal(number).scaleb(scale))
    except ArithmeticError:
        raise _fail(line, f"{token!r} is out of range") from None
    if value != value or abs(value) == float("inf"):
        raise _fail(line, f"{token!r} is out of range")
    problem = number_problem(value)
    if problem:
        raise _fail(line, f"{token!r} {problem}")
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
    arguments are where :func:`vecnet.numerics.simulate.switching_times` finds the corners.

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


def _times(words: list[str], line: int, card: str, names: str) -> list[float]:
    values = [parse_value(w, line) for w in words]
    if any(v < 0 for v in values):
        raise _fail(line, f"{card}: times must not be negative ({card} {names})")
    return values


def _ac_card(words: list[str], line: int) -> AcSweep:
    """``.ac dec|oct|lin N fstart fstop``."""
    usage = ".ac takes dec|oct|lin N fstart fstop"
    if len(words) != 4 or words[0].lower() not in ("dec", "oct", "lin"):
        raise _fail(line, f"{usage}; got {' '.join(words) or 'nothing'}")
    points = parse_value(words[1], line)
    start, stop = parse_value(words[2], line), parse_value(words[3], line)
    if points != int(points) or points < 1:
        raise _fail(line, f"{usage}: N = {words[1]} must be a whole number of at least 1")
    variation = words[0].lower()
    if not (0 <= start <= stop) or (variation != "lin" and start == 0):
        raise _fail(line, f"{usage}: need 0 < fstart <= fstop (fstart may be 0 with lin)")
    return AcSweep(variation, int(points), start, stop)


def _tran_card(words: list[str], line: int) -> Transient:
    """``.tran tstep tstop [tstart [tmax]] [uic]``."""
    words = [w for w in words if w.lower() != "uic"]   # the initial state is zero anyway
    if not 2 <= len(words) <= 4:
        raise _fail(line, f".tran takes tstep tstop [tstart [tmax]]; got "
                          f"{' '.join(words) or 'nothing'}")
    step, stop, *rest = _times(words, line, ".tran", "tstep tstop [tstart [tmax]]")
    start = rest[0] if rest else 0.0
    max_step = rest[1] if len(rest) > 1 else None
    if step <= 0 or stop <= 0 or start >= stop or (max_step is not None and max_step <= 0):
        raise _fail(line, ".tran needs tstep > 0, tstop > 0, tstart < tstop and tmax > 0")
    return Transient(step, stop, start, max_step)


def _op_card(words: list[str], line: int) -> bool:
    if words:
        raise _fail(line, f".op takes nothing; got {' '.join(words)}")
    return True


_ANALYSES = {".ac": _ac_card, ".tran": _tran_card, ".op": _op_card}


_PARAMETER = re.compile(r"\s*([A-Za-z_]\w*)\s*=\s*(\{[^{}]*\}|[^\s{}=]+)")
_BRACED = re.compile(r"\{([^{}]*)\}")
_INITIAL = re.compile(r"\s*v\s*\(\s*([^()\s]+)\s*\)\s*=\s*(\S+)", re.IGNORECASE)


def _declared(cards: list[tuple[int, str]], given: dict[str, float]) -> dict[str, sympy.Expr]:
    """The ``.param`` values, by name (as written and in lower case: SPICE ignores case),
    those in ``given`` replacing the card's."""
    values: dict[str, sympy.Expr] = {}
    written: list[str] = []
    spelled = {name.lower(): name for name in given}
    for line, card in cards:
        head, _, body = card.strip().partition(" ")
        if head.lower() != ".param":
            continue
        end = 0
        for match in _PARAMETER.finditer(body):
            if match.start() != end:
                break
            end = match.end()
            name = check_name(match.group(1), "parameter name", f"netlist line {line}")
            if name.lower() in spelled:
                value = finite_number(given[spelled.pop(name.lower())], f"parameter {name!r}")
            else:
                value = _value(match.group(2), line, values)
            values[name] = values[name.lower()] = sympy.Float(value)
            written.append(name)
        if body[end:].strip():
            raise _fail(line, f".param: write name=value pairs; cannot read "
                              f"{shown(body[end:].strip())}")
    if spelled:
        raise ModelFileError(f"no parameter {', '.join(map(repr, spelled.values()))} to set; the "
                             f"netlist declares {', '.join(map(repr, written)) or 'none'}",
                             location="netlist line 1")
    return values


def _value(text: str, line: int, parameters: dict[str, sympy.Expr]) -> float:
    """A number with its scale factor, or ``{expression}`` of numbers and parameters."""
    if not (text.startswith("{") and text.endswith("}")):
        return parse_value(text, line)
    expr = parse_expression(text[1:-1], parameters, f"netlist line {line}", time=False)
    try:
        value = float(expr)
    except (TypeError, ValueError):
        raise _fail(line, f"{shown(text)} is not a number") from None
    if not math.isfinite(value):
        raise _fail(line, f"{shown(text)} is out of range")
    return value


def _substituted(card: str, line: int, parameters: dict[str, sympy.Expr]) -> str:
    """The card with each ``{expression}`` replaced by its value."""
    return _BRACED.sub(lambda m: repr(_value(m.group(0), line, parameters)), card)


def _node_voltages(body: str, line: int, spelling: dict[str, str]) -> dict[str, float]:
    """The ``v(node)=value`` pairs of an ``.ic`` card, by node as first spelled."""
    voltages, end = {}, 0
    for match in _INITIAL.finditer(body):
        if match.start() != end:
            break
        end = match.end()
        key = "0" if match.group(1).lower() in _GROUND else match.group(1).lower()
        if key not in spelling:
            raise _fail(line, f".ic: no node {shown(match.group(1))}")
        voltages[spelling[key]] = parse_value(match.group(2), line)
    if body[end:].strip():
        raise _fail(line, f".ic: write v(node)=value pairs; cannot read {shown(body[end:].strip())}")
    return voltages


def _tokens(text: str) -> list[str]:
    return text.replace("(", " ( ").replace(")", " ) ").replace(",", " ").split()


def _source(words: list[str], line: int, card: str) -> tuple[float | sympy.Expr, complex | None]:
    """The value of a V or I card from the words after its nodes, and its AC amplitude
    (``None`` without an ``AC`` specification)."""
    value: float | sympy.Expr | None = None
    transient = None
    ac: complex | None = None
    k = 0
    while k < len(words):
        word = words[k].lower()
        if word == "dc":
            if k + 1 >= len(words):
                raise _fail(line, f"{card}: DC needs a value")
            value, k = parse_value(words[k + 1], line), k + 2
        elif word == "ac":
            # small-signal magnitude (default 1) and phase in degrees: not a time signal
            # (SPICE's DC value is then 0)
            k += 1
            numbers = []
            while len(numbers) < 2 and k < len(words) and _NUMBER.fullmatch(words[k]):
                numbers.append(parse_value(words[k], line))
                k += 1
            magnitude, phase = (numbers + [1.0, 0.0][len(numbers):])[:2]
            ac = magnitude * cmath.exp(1j * math.radians(phase))
        elif word in ("pulse", "sin"):
            if transient is not None:
                raise _fail(line, f"{card}: more than one transient function")
            if k + 1 >= len(words) or words[k + 1] != "(" or ")" not in words[k + 1:]:
                raise _fail(line, f"{card}: write {word.upper()}(...) with its values in parentheses")
            end = words.index(")", k + 1)
            args = [parse_value(w, line) for w in words[k + 2:end]]
            transient = _waveform(word, args, line, card)
            k = end + 1
        elif word in ("exp", "pwl", "sffm", "am", "trrandom", "trnoise"):
            raise _fail(line, f"{card}: {word.upper()} sources are not supported; use DC, "
                              "PULSE or SIN")
        elif value is None and transient is None and k == 0 and _NUMBER.fullmatch(words[k]):
            value, k = parse_value(words[k], line), k + 1
        else:
            raise _fail(line, f"{card}: unexpected {words[k]!r}")
    if transient is not None:
        return transient, ac
    if value is None and ac is None:
        raise _fail(line, f"{card}: no value")
    return (0.0 if value is None else value), ac


def _waveform(kind: str, args: list[float], line: int, card: str) -> sympy.Expr:
    if kind == "pulse":
        if not 6 <= len(args) <= 7:
            raise _fail(line, f"{card}: PULSE takes v1 v2 td tr tf pw [per]; got {len(args)} values")
        if min(args[2:]) < 0:
            raise _fail(line, f"{card}: PULSE times must not be negative")
        if len(args) == 7 and args[6] <= 0:
            raise _fail(line, f"{card}: PULSE period must be positive")
        return pulse(*args)
    if not 3 <= len(args) <= 5:
        raise _fail(line, f"{card}: SIN takes vo va freq [td [theta]]; got {len(args)} values")
    return sine(*args)


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """(line number, text) of each card, with continuation lines joined."""
    cards: list[tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if number == 1:
            continue  # the title line
        stripped = raw.split(";", 1)[0].strip()
        if not stripped or stripped.startswith("*"):
            continue
        if stripped.startswith("+"):
            if not cards:
                raise _fail(number, "a continuation line (+) with nothing to continue")
            cards[-1] = (cards[-1][0], cards[-1][1] + " " + stripped[1:])
            continue
        cards.append((number, stripped))
    return cards


def _decode(data: bytes, encoding: str) -> str:
    """The netlist's text: strict UTF-8 (a byte order mark is skipped), or Latin-1 when
    asked for; undecodable bytes are refused with their line, never replaced."""
    if encoding == "latin-1":
        return data.decode("latin-1")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise _fail(line, f"byte {data[exc.start:exc.start + 1]!r} is not UTF-8 text; save the "
                          "netlist as UTF-8, or read it with load_netlist(path, "
                          "encoding='latin-1')") from None


def _encoding(name: object) -> str:
    try:
        normal = codecs.lookup(name).name if isinstance(name, str) else None
    except LookupError:
        normal = None
    if normal in ("utf-8", "iso8859-1"):
        return "utf-8" if normal == "utf-8" else "latin-1"
    raise ModelFileError(f"encoding {name!r} is not read; netlists are 'utf-8' or 'latin-1'",
                         location="netlist line 1")


def _read(source: str | os.PathLike, encoding: str = "utf-8") -> str:
    if isinstance(source, str) and ("\n" in source or "\r" in source):
        text = source
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            with open(path, "rb") as fh:
                data = fh.read(MAX_NETLIST_SIZE + 1)
        except OSError as exc:
            raise ModelFileError(f"cannot read the netlist: {exc.strerror or exc}",
                                 location=str(path)) from None
        if len(data) > MAX_NETLIST_SIZE:
            raise ModelFileError(f"the netlist is larger than {MAX_NETLIST_SIZE} bytes",
                                 location=str(path))
        text = _decode(data, encoding)
    else:
        raise ModelFileError(f"load_netlist takes a file path or netlist text, got "
                             f"{type(source).__name__}", location="netlist line 1")
    if len(text) > MAX_NETLIST_SIZE:
        raise ModelFileError(f"the netlist is larger than {MAX_NETLIST_SIZE} characters",
                             location="netlist line 1")
    return text


def load_netlist(source: str | os.PathLike, encoding: str = "utf-8",
                 parameters: dict[str, float] | None = None) -> Network:
    """The :class:`~vecnet.Network` of a SPICE netlist (a file path, or the text itself
    when it has more than one line).

    A file is read as UTF-8, strictly: an undecodable byte is refused with its line;
    ``encoding="latin-1"`` reads an old 8-bit netlist instead. Numbers are written with
    the ASCII digits ``0-9``; card and node names follow the name policy of
    :mod:`vecnet.names` (letters, digits, ``_``). Values must be finite and not subnormal,
    and positive for R, L and C (``R = 0`` would be a short circuit, ``C = 0`` an open
    one). Parts of the circuit that are cut off from every source, and nodes that only
    one element touches, are reported with a :class:`~vecnet.errors.VecnetWarning`.

    Raises
    ------
    ModelFileError
        An unsupported card, a malformed value or a repeated name; ``location`` is the
        netlist line.

    Examples
    --------
    >>> net = load_netlist('''RC low-pass
    ... V1 in 0 DC 1
    ... R1 in out 1k
    ... C1 out 0 1u
    ... .end''')
    >>> net.state_space(outputs=["C1.across"], symbolic=True).transfer_function()
    Matrix([[1/(C1*R1*s + 1)]])
    >>> net.state_space(outputs=["C1.across"]).transfer_function()
    Matrix([[1000/(s + 1000)]])
    """
    text = _read(source, _encoding(encoding))
    lines = text.splitlines()
    title = lines[0].strip().lstrip("*").strip() if lines else ""
    net = Network(title[:200] or "netlist")
    spelling: dict[str, str] = {}   # SPICE names are case-insensitive: first spelling wins
    seen: dict[str, int] = {}
    elements = []
    uses_ground = False
    in_control = False
    commands: dict[str, object] = {}
    ac_sources: dict[str, complex] = {}
    cards = _logical_lines(text)
    declared = _declared(cards, dict(parameters or {}))
    initial_cards = []
    pending = []  # controlled sources, made once every voltage source is known
    couplings = []  # K cards, read once every inductor is known
    for line, card in cards:
        words = _tokens(_substituted(card, line, declared))
        head = words[0].lower()
        if in_control:
            in_control = head != ".endc"
            continue
        if head == ".end":
            break
        if head.startswith("."):
            if head == ".control":
                in_control = True
            elif head in _ANALYSES:
                commands[head] = _ANALYSES[head](words[1:], line)
            elif head == ".ic":
                initial_cards.append((line, card.strip()[3:]))
            elif head not in _SKIPPED | {".param"}:
                raise _fail(line, f"unsupported command {shown(words[0])}; {_READS}")
            continue
        name = check_name(words[0], "element name", f"netlist line {line}")
        letter = head[0]
        if letter not in _CARDS and letter not in _CONTROLLED and letter != "k":
            what = _UNSUPPORTED.get(letter, "card")
            raise _fail(line, f"unsupported card {name!r} ({what}); {_READS}")
        if head in seen:
            raise _fail(line, f"element {name!r} is defined again (first on line {seen[head]})")
        seen[head] = line
        if letter == "k":
            couplings.append((line, name, words[1:]))
            continue
        if len(words) < 4:
            raise _fail(line, f"{name}: expected '{name} n+ n- value'")
        nodes = []
        for word in words[1:3]:
            if word in ("(", ")"):
                raise _fail(line, f"{name}: expected two node names")
            check_node(word, f"netlist line {line}")
            key = "0" if word.lower() in _GROUND else word.lower()
            uses_ground |= key == "0"
            nodes.append(spelling.setdefault(key, "0" if key == "0" else word))
        plus, minus = nodes
        if plus == minus:
            raise _fail(line, f"{name}: both ends are node {plus!r}")
        if letter in _CONTROLLED:
            pending.append((line, name, letter, plus, minus, words[3:]))
            continue
        cls, pname = _CARDS[letter]
        if letter in "vi":
            value, phasor = _source(words[3:], line, name)
            if phasor is not None:
                ac_sources[f"{name}.{'across' if letter == 'v' else 'through'}"] = phasor
        else:
            if len(words) > 4:
                raise _fail(line, f"{name}: unexpected {words[4]!r} (only '{name} n+ n- value' "
                                  "is read)")
            value = parse_value(words[3], line)
        # a current source delivers into its head, SPICE's I drives into n-: see the module doc
        tail, head_node = (plus, minus) if letter == "i" else (minus, plus)
        try:
            elements.append(cls(name, tail, head_node, **{pname: value}))
        except VecnetError as exc:
            raise _fail(line, str(exc)) from None
    elements = _with_controlled(elements, pending, spelling)
    elements = _with_couplings(elements, couplings)
    if uses_ground or "0" in spelling:
        net.graph.add_node("0")  # first in graph order: the datum
    if not elements:
        raise ModelFileError("the netlist has no R, L, C, V, I, E, F, G, H or K cards (the first "
                             "line is the title)", location="netlist line 1")
    for element in elements:
        try:
            net.add(element)
        except VecnetError as exc:
            raise _fail(seen[element.name.lower()], str(exc)) from None
    # a file's path leads the warning; netlist text given directly has none
    warn_connectivity(net, "" if isinstance(source, str) and ("\n" in source or "\r" in source)
                      else str(source))
    voltages = {}
    for line, body in initial_cards:
        voltages.update(_node_voltages(body, line, spelling))
    net.analyses = Analyses(op=".op" in commands, ac=commands.get(".ac"),
                            tran=commands.get(".tran"), ac_sources=ac_sources,
                            node_voltages=voltages)
    net.untrusted = True  # simulated under the bounds of files (vecnet.bounds)
    return net


def _with_controlled(elements: list, pending: list, spelling: dict[str, str]) -> list:
    """``elements`` with the controlled sources of ``pending`` (line, name, letter, n+, n-,
    the words after the nodes) added; the voltage source that an ``F`` or ``H`` card senses
    is moved to the end of the new short (see the module doc)."""
    sources = {el.name.lower(): k for k, el in enumerate(elements)
               if isinstance(el, lumped.VoltageSource)}
    elements = list(elements)
    for line, name, letter, plus, minus, rest in pending:
        cls, pname, by_current = _CONTROLLED[letter]
        usage = (f"'{name} n+ n- Vsense value'" if by_current
                 else f"'{name} n+ n- nc+ nc- value'")
        if len(rest) != (2 if by_current else 3):
            raise _fail(line, f"{name}: expected {usage}")
        if by_current:
            vsense = rest[0].lower()
            if vsense not in sources:
                raise _fail(line, f"{name}: {rest[0]!r} is not a voltage source of the netlist; "
                                  "the current of a V card controls an F or H card (add a "
                                  "zero-volt V card in series to sense a current)")
            k = sources[vsense]
            source = elements[k]
            edge = source.edges[0]
            middle = f"{name}_sense"
            if middle.lower() in spelling:
                raise _fail(line, f"{name}: node {middle!r} exists already; it is the node this "
                                  "importer makes between the sensing short and the source")
            spelling[middle.lower()] = middle
            # the short takes the source's n+ end; the source keeps the same current
            elements[k] = lumped.VoltageSource(source.name, edge.tail, middle,
                                               V=source.parameters["V"].value)
            control = (middle, edge.head)
        else:
            control = tuple(_card_node(word, line, spelling) for word in rest[1::-1])
        # a through source delivers into its head, SPICE's G and F drive into n-
        out = (plus, minus) if cls in (controlled.VCCS, controlled.CCCS) else (minus, plus)
        try:
            if letter == "e" and rest[2].lower() == "inf":
                elements.append(controlled.OpAmp(name, *control, plus, minus))
            else:
                elements.append(cls(name, *control, *out,
                                    **{pname: parse_value(rest[-1], line)}))
        except VecnetError as exc:
            raise _fail(line, str(exc)) from None
    return elements


def _with_couplings(elements: list, couplings: list) -> list:
    """``elements`` with the inductors that ``K`` cards couple (``couplings``: line, name, the
    words after the name) made into :class:`~vecnet.CoupledInductors`, one per set of
    inductors that the cards join, in the place of its first inductor; see the module doc."""
    if not couplings:
        return elements
    inductors = {el.name.lower(): el for el in elements if isinstance(el, lumped.Inductor)}
    groups: dict[str, list[str]] = {}    # inductor -> the set it belongs to (shared lists)
    k_of: dict[tuple[str, str], float] = {}
    first: dict[int, tuple[int, str]] = {}  # id of a set -> line and name of its first K card
    for line, name, words in couplings:
        if len(words) != 3:
            raise _fail(line, f"{name}: expected '{name} Lname1 Lname2 k'")
        pair = [w.lower() for w in words[:2]]
        for word, key in zip(words[:2], pair):
            if key not in inductors:
                raise _fail(line, f"{name}: {word!r} is not an inductor (L card) of the netlist; "
                                  "a K card couples two L cards")
        if pair[0] == pair[1]:
            raise _fail(line, f"{name}: an inductor cannot be coupled to itself")
        k = parse_value(words[2], line)
        if not -1 <= k <= 1:
            raise _fail(line, f"{name}: coupling coefficient k = {words[2]} is outside [-1, 1]; "
                              "|k| <= 1 for any passive pair of windings")
        key = tuple(sorted(pair))
        if key in k_of:
            raise _fail(line, f"{name}: {words[0]} and {words[1]} are coupled by an earlier K card")
        k_of[key] = k
        a, b = (groups.setdefault(x, [x]) for x in pair)
        if a is not b:
            a.extend(b)
            for x in b:
                groups[x] = a
        first.setdefault(id(a), first.pop(id(b), (line, name)))
    made = {}
    for members in {id(g): g for g in groups.values()}.values():
        line, name = first[id(members)]
        members = sorted(members, key=[el.name.lower() for el in elements].index)
        values = [inductors[m].parameters["L"].value for m in members]
        L = [[values[i] if i == j else k_of.get(tuple(sorted((members[i], members[j]))), 0.0)
              * math.sqrt(values[i] * values[j]) for j in range(len(members))]
             for i in range(len(members))]
        nodes = [n for m in members for n in (inductors[m].edges[0].tail, inductors[m].edges[0].head)]
        try:
            made[members[0]] = CoupledInductors(name, *nodes, L=L,
                                                windings=[inductors[m].name for m in members])
        except VecnetError as exc:
            raise _fail(line, str(exc)) from None
        for m in members[1:]:
            made[m] = None
    return [made.get(el.name.lower(), el) if isinstance(el, lumped.Inductor) else el
            for el in elements if made.get(el.name.lower(), el) is not None]


def _card_node(word: str, line: int, spelling: dict[str, str]) -> str:
    """The node ``word`` names, in its first spelling (node ``0`` for the ground)."""
    check_node(word, f"netlist line {line}")
    key = "0" if word.lower() in _GROUND else word.lower()
    return spelling.setdefault(key, "0" if key == "0" else word)


# -- writing ----------------------------------------------------------------------------------

#: one-port classes and their card letters (the class itself, not a subclass of another domain)
_LETTERS = {lumped.Resistor: "R", lumped.Inductor: "L", lumped.Capacitor: "C",
            lumped.VoltageSource: "V", lumped.CurrentSource: "I"}
_CONTROLLED_LETTERS = {controlled.VCVS: "E", controlled.FiniteGainOpAmp: "E",
                       controlled.VCCS: "G", controlled.CCCS: "F", controlled.CCVS: "H"}


def write_netlist(net: Network, path: str | os.PathLike | None = None) -> str:
    """``net`` as a SPICE netlist that :func:`load_netlist` reads back into the same network
    and ngspice runs: the text, also written to ``path`` when given.

    Written: resistors, inductors, capacitors, voltage and current sources (DC values, and
    the ``PULSE`` and ``SIN`` waveforms of :func:`pulse` and :func:`sine`; the ``AC`` amplitudes
    and the ``.op``, ``.ac``, ``.tran`` and ``.ic`` commands of a network read from a netlist),
    the controlled sources (``E``, ``G``, ``F``, ``H``; the current that controls an ``F``
    or ``H`` card is that of a voltage source in series with its sensing short, or of a
    zero-volt ``V`` card written in place of the short), :class:`~vecnet.OpAmp` as the
    ``E ... inf`` extension (which ngspice does not run) and :class:`~vecnet.CoupledInductors`
    as ``L`` and ``K`` cards. Node names are the network's, the ground (node ``0``, else
    ``gnd``, else the network's first node, its datum) written ``0``. A card's name is the
    element's, with its letter put in front when it does not start with it.

    Raises
    ------
    ModelError
        An element SPICE has no card for (another domain, a transducer, a nonlinear law), a
        parameter without a number, a signal that is neither a number nor a waveform of
        :func:`pulse` or :func:`sine`, or node names that SPICE would not tell apart.

    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("V1", "g", "in", V=1.0), vn.Resistor("R1", "in", "out", R=1e3),
    ...             vn.Capacitor("C1", "out", "g", C=1e-6))
    >>> print(write_netlist(net))
    rc
    V1 in 0 DC 1.0
    R1 out in 1000.0
    C1 0 out 1e-06
    .end
    <BLANKLINE>
    """
    node = _node_names(net)
    analyses = getattr(net, "analyses", None)
    ac = analyses.ac_sources if analyses is not None else {}
    sensed = _sensed_sources(net)
    lines = [_title(net.name)]
    for element in net.elements:
        lines.extend(_cards(element, node, sensed, ac))
    if analyses is not None:
        lines.extend(_commands(analyses, node))
    lines.append(".end")
    text = "\n".join(lines) + "\n"
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text


def _title(name: str) -> str:
    # the first line is always the title: keep it one line, not mistaken for a card
    return " ".join(str(name).split()) or "netlist"


def _node_names(net: Network) -> dict:
    """Each node's name on the cards: the ground ``0``, the others as in the network."""
    nodes = list(net.graph.nodes)
    spelled = {str(n).lower(): n for n in nodes}
    ground = spelled.get("0", spelled.get("gnd", nodes[0] if nodes else None))
    names, seen = {}, {}
    for n in nodes:
        name = "0" if n == ground else str(n)
        key = "0" if name.lower() in _GROUND else name.lower()
        if key in seen:
            raise ModelError(f"network {net.name!r}: nodes {seen[key]!r} and {n!r} are one node "
                             f"to SPICE (node names ignore case, and {_GROUND} name the ground); "
                             "rename one")
        seen[key] = n
        names[n] = name
    return names


def _card_name(letter: str, name: str) -> str:
    return name if name[:1].upper() == letter else f"{letter}{name}"


def _number(element, pname: str) -> str:
    value = element.parameters[pname].value
    if not isinstance(value, float):
        raise ModelError(f"{type(element).__name__} {element.name!r}: parameter {pname} = "
                         f"{element.symbol(pname)} has no number; SPICE cards need numbers "
                         "(give the element a value)")
    return repr(value)


def _signal(element, ac: Mapping[str, complex]) -> str:
    """The value words of a V or I card."""
    pname = element.parameter_names[0]
    value = element.parameters[pname].value
    if isinstance(value, float):
        words = f"DC {value!r}"
    elif isinstance(value, sympy.Expr) and value in _WAVEFORMS:
        words = _WAVEFORMS[value]
    else:
        raise ModelError(f"{type(element).__name__} {element.name!r}: its signal {value!r} has no "
                         "SPICE form this writer knows; it writes numbers and the waveforms of "
                         "vecnet.io.spice.pulse() and sine()")
    phasor = ac.get(f"{element.name}.{element.driven}")
    if phasor is not None:
        words += f" AC {abs(phasor)!r} {math.degrees(cmath.phase(phasor))!r}"
    return words


def _sensed_sources(net: Network) -> dict[str, tuple[str, object]]:
    """Sensing short of an ``F`` or ``H`` element -> the voltage source in series with it and
    the node at the far end of their chain (the source's ``n+`` on the card), as
    :func:`load_netlist` builds them: a source whose head meets only a short that leaves it
    (tail there), and so on along the chain of shorts."""
    touching: dict = {}
    for element in net.elements:
        for edge in element.edges:
            for end in (edge.tail, edge.head):
                touching.setdefault(end, []).append(edge)
    senses = {el.edges[0].name: el for el in net.elements
              if isinstance(el, (controlled.CCCS, controlled.CCVS))}
    sensed = {}
    for source in net.elements:
        if type(source) is not lumped.VoltageSource:
            continue
        end, previous, chain = source.edges[0].head, source.edges[0], []
        while True:
            others = [e for e in touching[end] if e != previous]
            if len(others) != 1 or others[0].name not in senses or others[0].tail != end:
                break
            previous = others[0]
            chain.append(previous.name)
            end = previous.head
        for short in chain:
            sensed[short] = (_card_name("V", source.name), end)
    return sensed


def _cards(element, node: Mapping, sensed: Mapping, ac: Mapping[str, complex]) -> list[str]:
    """The cards of one element."""
    kind = type(element)
    ends = [(node[e.head], node[e.tail]) for e in element.edges]  # (n+, n-) of each edge
    if kind in _LETTERS:
        letter = _LETTERS[kind]
        name = _card_name(letter, element.name)
        plus, minus = ends[0]
        if letter == "V":
            for short, (source, top) in sensed.items():
                if source == name:  # the chain of sensing shorts ends at the card's n+
                    plus = node[top]
            return [f"{name} {plus} {minus} {_signal(element, ac)}"]
        if letter == "I":  # its edge runs from n+ to n-: see the module doc
            return [f"{name} {minus} {plus} {_signal(element, ac)}"]
        return [f"{name} {plus} {minus} {_number(element, element.parameter_names[0])}"]
    if isinstance(element, CoupledInductors):
        return _coupled_cards(element, ends)
    if kind is controlled.OpAmp:
        (minus_in, plus_in), (out, ground) = ends[0][::-1], ends[1]
        return [f"{_card_name('E', element.name)} {out} {ground} {plus_in} {minus_in} inf"]
    if kind in _CONTROLLED_LETTERS:
        letter = _CONTROLLED_LETTERS[kind]
        name = _card_name(letter, element.name)
        (c_plus, c_minus), (plus, minus) = ends
        value = _number(element, element.parameter_names[0])
        if letter in "GF":  # the through source's edge runs from n+ to n-
            plus, minus = minus, plus
        if letter in "EG":
            return [f"{name} {plus} {minus} {c_plus} {c_minus} {value}"]
        short = element.edges[0].name
        if short in sensed:
            return [f"{name} {plus} {minus} {sensed[short][0]} {value}"]
        ammeter = f"V{element.name}_sense"
        return [f"{ammeter} {c_plus} {c_minus} DC 0.0", f"{name} {plus} {minus} {ammeter} {value}"]
    raise ModelError(f"{kind.__name__} {element.name!r} has no SPICE card; write_netlist writes "
                     "R, L, C, V, I, controlled sources, op-amps and coupled inductors")


def _coupled_cards(element: CoupledInductors, ends: list) -> list[str]:
    """An ``L`` card per winding and a ``K`` card per coupled pair."""
    L = element.numeric_inductance()
    if L is None:
        raise ModelError(f"CoupledInductors {element.name!r}: its inductances need numbers for "
                         "SPICE cards")
    names = [_card_name("L", port) for port in element.ports]
    cards = [f"{n} {plus} {minus} {float(L[i, i])!r}" for i, (n, (plus, minus)) in enumerate(zip(names, ends))]
    pairs = [(i, j) for i in range(len(L)) for j in range(i + 1, len(L)) if L[i, j] != 0]
    for number, (i, j) in enumerate(pairs):
        # 15 digits: M = k sqrt(L1 L2) read back gives k to within rounding, not exactly
        k = float(f"{L[i, j] / math.sqrt(L[i, i] * L[j, j]):.15g}")
        # the first card names the element when read back
        name = _card_name("K", element.name) + ("" if number == 0 else f"_{i + 1}_{j + 1}")
        cards.append(f"{name} {names[i]} {names[j]} {min(1.0, max(-1.0, k))!r}")
    return cards


def _commands(analyses: Analyses, node: Mapping) -> list[str]:
    """The analysis commands of a netlist that was read."""
    lines = [".op"] if analyses.op else []
    if analyses.ac is not None:
        sweep = analyses.ac
        lines.append(f".ac {sweep.variation} {sweep.points} {sweep.start!r} {sweep.stop!r}")
    if analyses.tran is not None:
        tran = analyses.tran
        lines.append(f".tran {tran.step!r} {tran.stop!r} {tran.start!r}"
                     + (f" {tran.max_step!r}" if tran.max_step is not None else ""))
    if analyses.node_voltages:
        lines.append(".ic " + " ".join(f"v({node.get(n, n)})={v!r}"
                                       for n, v in analyses.node_voltages.items()))
    return lines
