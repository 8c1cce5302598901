"""SPICE netlists read into networks (the subset :mod:`vecnet.io.spice` describes)."""

from __future__ import annotations

import cmath
import codecs
import math
import os
import re
from typing import Any

import sympy

from ..builders.network import Network, warn_connectivity
from ..core.bounds import check_count, finite_number
from ..core.collection import collector_paused
from ..core.names import check_name, check_node, shown
from ..elements import controlled, lumped
from ..elements.base import Element
from ..elements.coupled_inductors import CoupledInductors
from ..errors import ModelFileError, VecnetError
from .expressions import parse_expression
from .source import decode, read_bounded
from .spice import (
    CARDS,
    GROUND,
    MAX_NETLIST_SIZE,
    NUMBER,
    AcSweep,
    Analyses,
    Transient,
    fail,
    parse_value,
    pulse,
    sine,
)

__all__ = ["load_netlist"]

_UNSUPPORTED = {
    "b": "behavioural source", "d": "diode", "j": "JFET",
    "m": "MOSFET", "o": "lossy transmission line", "q": "bipolar transistor",
    "s": "voltage-controlled switch", "t": "transmission line", "u": "uniform RC line",
    "w": "current-controlled switch", "x": "subcircuit instance", "z": "MESFET",
    "a": "code model", "n": "device model", "p": "coupled transmission line",
    "y": "transmission line",
}
_READS = "this importer reads R, L, C, V, I, E, F, G, H and K cards"
_SKIPPED = {".dc", ".print", ".plot", ".probe", ".options", ".option",
            ".save", ".temp", ".width", ".meas", ".measure", ".four", ".noise", ".disto",
            ".tf", ".sens", ".pz", ".title"}


def load_netlist(source: str | os.PathLike, encoding: str = "utf-8",
                 parameters: dict[str, float] | None = None) -> Network:
    """The :class:`~vecnet.Network` of a SPICE netlist (a file path, or the text itself
    when it has more than one line).

    A file is read as UTF-8, strictly: an undecodable byte is refused with its line;
    ``encoding="latin-1"`` reads an old 8-bit netlist instead. Numbers are written with
    the ASCII digits ``0-9``; card and node names follow the name policy of
    :mod:`vecnet.core.names` (letters, digits, ``_``). Values must be finite and not subnormal,
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
    <TransferMatrix: 1 output(s) x 1 input(s)>
    C1.across/V1.across = 1/(C1*R1*s + 1)
    >>> net.state_space(outputs=["C1.across"]).transfer_function()[0, 0]
    1000/(s + 1000)
    """
    text = _read(source, _encoding(encoding))
    lines = text.splitlines()
    title = lines[0].strip().lstrip("*").strip() if lines else ""
    # a file's path leads the connectivity warning; netlist text given directly has none
    given_text = isinstance(source, str) and ("\n" in source or "\r" in source)
    with collector_paused():
        cards = _logical_lines(text)
        reader = _NetlistReader(_declared(cards, dict(parameters or {})))
        reader.read(cards)
        net = reader.network(title[:200] or "netlist", "" if given_text else str(source))
    net.untrusted = True  # simulated under the bounds of files (vecnet.core.bounds)
    return net


class _NetlistReader:
    """One netlist being read: its names as first spelled (SPICE ignores case), the lines
    of its cards, the elements read so far and its analysis commands."""

    def __init__(self, declared: dict[str, sympy.Expr]) -> None:
        self.declared = declared
        self.spelling: dict[str, str] = {}   # lower-case name -> its first spelling
        self.seen: dict[str, int] = {}       # lower-case card name -> its line
        self.elements: list[Element] = []
        self.pending: list[tuple] = []       # controlled sources, made once every V is known
        self.couplings: list[tuple] = []     # K cards, read once every inductor is known
        self.commands: dict[str, Any] = {}
        self.ac_sources: dict[str, complex] = {}
        self.initial_cards: list[tuple[int, str]] = []

    def read(self, cards: list[tuple[int, str]]) -> None:
        """Read the cards up to ``.end``, skipping ``.control`` blocks."""
        in_control = False
        for line, card in cards:
            words = _tokens(_substituted(card, line, self.declared))
            head = words[0].lower()
            if in_control:
                in_control = head != ".endc"
            elif head == ".end":
                break
            elif head == ".control":
                in_control = True
            elif head.startswith("."):
                self.command(head, words, line, card)
            else:
                self.element_card(head, words, line)

    def command(self, head: str, words: list[str], line: int, card: str) -> None:
        if head in _ANALYSES:
            self.commands[head] = _ANALYSES[head](words[1:], line)
        elif head == ".ic":
            self.initial_cards.append((line, card.strip()[3:]))
        elif head not in _SKIPPED | {".param"}:
            raise fail(line, f"unsupported command {shown(words[0])}; {_READS}")

    def element_card(self, head: str, words: list[str], line: int) -> None:
        name = check_name(words[0], "element name", f"netlist line {line}")
        letter = head[0]
        if letter not in CARDS and letter != "k":
            what = _UNSUPPORTED.get(letter, "card")
            raise fail(line, f"unsupported card {name!r} ({what}); {_READS}")
        if head in self.seen:
            raise fail(line, f"element {name!r} is defined again (first on line {self.seen[head]})")
        self.seen[head] = line
        if letter == "k":
            self.couplings.append((line, name, words[1:]))
            return
        if len(words) < 4:
            raise fail(line, f"{name}: expected '{name} n+ n- value'")
        plus, minus = self.nodes(name, words[1:3], line)
        if CARDS[letter].is_controlled:
            self.pending.append((line, name, letter, plus, minus, words[3:]))
        else:
            self.elements.append(self.one_port(letter, name, plus, minus, words[3:], line))

    def nodes(self, name: str, words: list[str], line: int) -> tuple[str, str]:
        """The two nodes of a card, as first spelled."""
        if any(word in ("(", ")") for word in words):
            raise fail(line, f"{name}: expected two node names")
        plus, minus = (_card_node(word, line, self.spelling) for word in words)
        if plus == minus:
            raise fail(line, f"{name}: both ends are node {plus!r}")
        return plus, minus

    def one_port(self, letter: str, name: str, plus: str, minus: str, rest: list[str],
                 line: int) -> Element:
        """An R, L, C, V or I card's element; a source's AC amplitude is kept."""
        card = CARDS[letter]
        value: Any
        if letter in "vi":
            value, phasor = _source(rest, line, name)
            if phasor is not None:
                self.ac_sources[f"{name}.{'across' if letter == 'v' else 'through'}"] = phasor
        else:
            if len(rest) > 1:
                raise fail(line, f"{name}: unexpected {rest[1]!r} (only '{name} n+ n- value' "
                                 "is read)")
            value = parse_value(rest[0], line)
        # a current source delivers into its head, SPICE's I drives into n-: see the module doc
        tail, head = (plus, minus) if letter == "i" else (minus, plus)
        try:
            return card.cls(name, tail, head, **{card.parameter: value})
        except VecnetError as exc:
            raise fail(line, str(exc)) from None

    def network(self, name: str, where: str) -> Network:
        """The network of the cards read, with its analyses."""
        elements = _with_controlled(self.elements, self.pending, self.spelling)
        elements = _with_couplings(elements, self.couplings)
        net = Network(name)
        if "0" in self.spelling:
            net.graph.add_node("0")  # first in graph order: the datum
        if not elements:
            raise ModelFileError("the netlist has no R, L, C, V, I, E, F, G, H or K cards (the "
                                 "first line is the title)", location="netlist line 1")
        for element in elements:
            try:
                net.add(element)
            except VecnetError as exc:
                raise fail(self.seen[element.name.lower()], str(exc)) from None
        warn_connectivity(net, where)
        voltages = {}
        for line, body in self.initial_cards:
            voltages.update(_node_voltages(body, line, self.spelling))
        net.analyses = Analyses(op=".op" in self.commands, ac=self.commands.get(".ac"),
                                tran=self.commands.get(".tran"), ac_sources=self.ac_sources,
                                node_voltages=voltages)
        return net


def _times(words: list[str], line: int, card: str, names: str) -> list[float]:
    values = [parse_value(w, line) for w in words]
    if any(v < 0 for v in values):
        raise fail(line, f"{card}: times must not be negative ({card} {names})")
    return values


def _ac_card(words: list[str], line: int) -> AcSweep:
    """``.ac dec|oct|lin N fstart fstop``."""
    usage = ".ac takes dec|oct|lin N fstart fstop"
    if len(words) != 4 or words[0].lower() not in ("dec", "oct", "lin"):
        raise fail(line, f"{usage}; got {' '.join(words) or 'nothing'}")
    points = parse_value(words[1], line)
    start, stop = parse_value(words[2], line), parse_value(words[3], line)
    if points != int(points) or points < 1:
        raise fail(line, f"{usage}: N = {words[1]} must be a whole number of at least 1")
    variation = words[0].lower()
    if not (0 <= start <= stop) or (variation != "lin" and start == 0):
        raise fail(line, f"{usage}: need 0 < fstart <= fstop (fstart may be 0 with lin)")
    return AcSweep(variation, int(points), start, stop)


def _tran_card(words: list[str], line: int) -> Transient:
    """``.tran tstep tstop [tstart [tmax]] [uic]``."""
    words = [w for w in words if w.lower() != "uic"]   # the initial state is zero anyway
    if not 2 <= len(words) <= 4:
        raise fail(line, f".tran takes tstep tstop [tstart [tmax]]; got "
                          f"{' '.join(words) or 'nothing'}")
    step, stop, *rest = _times(words, line, ".tran", "tstep tstop [tstart [tmax]]")
    start = rest[0] if rest else 0.0
    max_step = rest[1] if len(rest) > 1 else None
    if step <= 0 or stop <= 0 or start >= stop or (max_step is not None and max_step <= 0):
        raise fail(line, ".tran needs tstep > 0, tstop > 0, tstart < tstop and tmax > 0")
    return Transient(step, stop, start, max_step)


def _op_card(words: list[str], line: int) -> bool:
    if words:
        raise fail(line, f".op takes nothing; got {' '.join(words)}")
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
            raise fail(line, f".param: write name=value pairs; cannot read "
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
        raise fail(line, f"{shown(text)} is not a number") from None
    if not math.isfinite(value):
        raise fail(line, f"{shown(text)} is out of range")
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
        key = "0" if match.group(1).lower() in GROUND else match.group(1).lower()
        if key not in spelling:
            raise fail(line, f".ic: no node {shown(match.group(1))}")
        voltages[spelling[key]] = parse_value(match.group(2), line)
    if body[end:].strip():
        raise fail(line, f".ic: write v(node)=value pairs; cannot read {shown(body[end:].strip())}")
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
                raise fail(line, f"{card}: DC needs a value")
            value, k = parse_value(words[k + 1], line), k + 2
        elif word == "ac":
            # small-signal magnitude (default 1) and phase in degrees: not a time signal
            # (SPICE's DC value is then 0)
            k += 1
            numbers: list[float] = []
            while len(numbers) < 2 and k < len(words) and NUMBER.fullmatch(words[k]):
                numbers.append(parse_value(words[k], line))
                k += 1
            magnitude, phase = (numbers + [1.0, 0.0][len(numbers):])[:2]
            ac = magnitude * cmath.exp(1j * math.radians(phase))
        elif word in ("pulse", "sin"):
            if transient is not None:
                raise fail(line, f"{card}: more than one transient function")
            if k + 1 >= len(words) or words[k + 1] != "(" or ")" not in words[k + 1:]:
                raise fail(line, f"{card}: write {word.upper()}(...) with its values in parentheses")
            end = words.index(")", k + 1)
            args = [parse_value(w, line) for w in words[k + 2:end]]
            transient = _waveform(word, args, line, card)
            k = end + 1
        elif word in ("exp", "pwl", "sffm", "am", "trrandom", "trnoise"):
            raise fail(line, f"{card}: {word.upper()} sources are not supported; use DC, "
                              "PULSE or SIN")
        elif value is None and transient is None and k == 0 and NUMBER.fullmatch(words[k]):
            value, k = parse_value(words[k], line), k + 1
        else:
            raise fail(line, f"{card}: unexpected {words[k]!r}")
    if transient is not None:
        return transient, ac
    if value is None and ac is None:
        raise fail(line, f"{card}: no value")
    return (0.0 if value is None else value), ac


def _waveform(kind: str, args: list[float], line: int, card: str) -> sympy.Expr:
    if kind == "pulse":
        if not 6 <= len(args) <= 7:
            raise fail(line, f"{card}: PULSE takes v1 v2 td tr tf pw [per]; got {len(args)} values")
        if min(args[2:]) < 0:
            raise fail(line, f"{card}: PULSE times must not be negative")
        if len(args) == 7 and args[6] <= 0:
            raise fail(line, f"{card}: PULSE period must be positive")
        return pulse(*args)
    if not 3 <= len(args) <= 5:
        raise fail(line, f"{card}: SIN takes vo va freq [td [theta]]; got {len(args)} values")
    return sine(*args)


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """(line number, text) of each card, with continuation lines joined; element cards
    and ``.param`` cards counted as they come, against ``max_parts`` and
    ``max_parameters`` (:class:`~vecnet.core.bounds.Limits`), before any is read."""
    cards: list[tuple[int, str]] = []
    parts = params = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        if number == 1:
            continue  # the title line
        stripped = raw.split(";", 1)[0].strip()
        if not stripped or stripped.startswith("*"):
            continue
        if stripped.startswith("+"):
            if not cards:
                raise fail(number, "a continuation line (+) with nothing to continue")
            cards[-1] = (cards[-1][0], cards[-1][1] + " " + stripped[1:])
            continue
        if stripped.startswith("."):
            params += stripped[:6].lower() == ".param"
            problem = check_count(params, "max_parameters", ".param cards")
        else:
            parts += 1
            problem = check_count(parts, "max_parts", "element cards")
        if problem:
            raise fail(number, f"the netlist holds {problem}")
        cards.append((number, stripped))
    return cards


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
        text = decode(read_bounded(source, MAX_NETLIST_SIZE, "netlist"), encoding, "netlist",
                      "netlist line", ", or read it with load_netlist(path, encoding='latin-1')")
    else:
        raise ModelFileError(f"load_netlist takes a file path or netlist text, got "
                             f"{type(source).__name__}", location="netlist line 1")
    if len(text) > MAX_NETLIST_SIZE:
        raise ModelFileError(f"the netlist is larger than {MAX_NETLIST_SIZE} characters",
                             location="netlist line 1")
    return text


def _with_controlled(elements: list, pending: list, spelling: dict[str, str]) -> list:
    """``elements`` with the controlled sources of ``pending`` (line, name, letter, n+, n-,
    the words after the nodes) added; the voltage source that an ``F`` or ``H`` card senses
    is moved to the end of the new short (see the module doc)."""
    sources = {el.name.lower(): k for k, el in enumerate(elements)
               if isinstance(el, lumped.VoltageSource)}
    elements = list(elements)
    for line, name, letter, plus, minus, rest in pending:
        card = CARDS[letter]
        cls, pname, by_current = card.cls, card.parameter, card.by_current
        usage = (f"'{name} n+ n- Vsense value'" if by_current
                 else f"'{name} n+ n- nc+ nc- value'")
        if len(rest) != (2 if by_current else 3):
            raise fail(line, f"{name}: expected {usage}")
        if by_current:
            vsense = rest[0].lower()
            if vsense not in sources:
                raise fail(line, f"{name}: {rest[0]!r} is not a voltage source of the netlist; "
                                  "the current of a V card controls an F or H card (add a "
                                  "zero-volt V card in series to sense a current)")
            k = sources[vsense]
            source = elements[k]
            edge = source.edges[0]
            middle = f"{name}_sense"
            if middle.lower() in spelling:
                raise fail(line, f"{name}: node {middle!r} exists already; it is the node this "
                                  "importer makes between the sensing short and the source")
            spelling[middle.lower()] = middle
            # the short takes the source's n+ end; the source keeps the same current
            elements[k] = lumped.VoltageSource(source.name, edge.tail, middle,
                                               V=source.parameters["V"].value)
            control: tuple[str, ...] = (middle, edge.head)
        else:
            control = tuple(_card_node(word, line, spelling) for word in rest[1::-1])
        # a through source delivers into its head, SPICE's G and F drive into n-
        out = (plus, minus) if cls in (controlled.VCCS, controlled.CCCS) else (minus, plus)
        try:
            if letter == "e" and rest[2].lower() == "inf":
                elements.append(controlled.OpAmp(name, control[0], control[1], plus, minus))
            else:
                elements.append(cls(name, *control, *out,
                                    **{pname: parse_value(rest[-1], line)}))  # type: ignore[arg-type]
        except VecnetError as exc:
            raise fail(line, str(exc)) from None
    return elements


def _with_couplings(elements: list, couplings: list) -> list:
    """``elements`` with the inductors that ``K`` cards couple (``couplings``: line, name, the
    words after the name) made into :class:`~vecnet.CoupledInductors`, one per set of
    inductors that the cards join, in the place of its first inductor; see the module doc."""
    if not couplings:
        return elements
    inductors = {el.name.lower(): el for el in elements if isinstance(el, lumped.Inductor)}
    groups: dict[str, list[str]] = {}    # inductor -> the set it belongs to (shared lists)
    k_of: dict[tuple[str, ...], float] = {}
    first: dict[int, tuple[int, str]] = {}  # id of a set -> line and name of its first K card
    for line, name, words in couplings:
        if len(words) != 3:
            raise fail(line, f"{name}: expected '{name} Lname1 Lname2 k'")
        pair = [w.lower() for w in words[:2]]
        for word, key in zip(words[:2], pair):
            if key not in inductors:
                raise fail(line, f"{name}: {word!r} is not an inductor (L card) of the netlist; "
                                  "a K card couples two L cards")
        if pair[0] == pair[1]:
            raise fail(line, f"{name}: an inductor cannot be coupled to itself")
        k = parse_value(words[2], line)
        if not -1 <= k <= 1:
            raise fail(line, f"{name}: coupling coefficient k = {words[2]} is outside [-1, 1]; "
                              "|k| <= 1 for any passive pair of windings")
        key = tuple(sorted(pair))
        if key in k_of:
            raise fail(line, f"{name}: {words[0]} and {words[1]} are coupled by an earlier K card")
        k_of[key] = k
        a, b = (groups.setdefault(x, [x]) for x in pair)
        if a is not b:
            a.extend(b)
            for x in b:
                groups[x] = a
        first.setdefault(id(a), first.pop(id(b), (line, name)))
    made: dict[str, CoupledInductors | None] = {}
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
            raise fail(line, str(exc)) from None
        for m in members[1:]:
            made[m] = None
    return [made.get(el.name.lower(), el) if isinstance(el, lumped.Inductor) else el
            for el in elements if made.get(el.name.lower(), el) is not None]


def _card_node(word: str, line: int, spelling: dict[str, str]) -> str:
    """The node ``word`` names, in its first spelling (node ``0`` for the ground)."""
    check_node(word, f"netlist line {line}")
    key = "0" if word.lower() in GROUND else word.lower()
    return spelling.setdefault(key, "0" if key == "0" else word)
