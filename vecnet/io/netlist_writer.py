"""Networks written as SPICE netlists that :func:`~vecnet.io.netlist_reader.load_netlist`
reads back and ngspice runs (the subset :mod:`vecnet.io.spice` describes)."""

from __future__ import annotations

import cmath
import math
import os
from collections.abc import Mapping

from ..builders.network import Network
from ..core.files import write_atomically
from ..elements import controlled, lumped
from ..elements.coupled_inductors import CoupledInductors
from ..errors import ModelError
from .spice import GROUND, LETTERS, Analyses, waveform_card

__all__ = ["write_netlist"]


def write_netlist(net: Network, path: str | os.PathLike | None = None) -> str:
    """``net`` as a SPICE netlist that :func:`~vecnet.io.load_netlist` reads back into the
    same network and ngspice runs: the text, also written to ``path`` when given.

    Written: resistors, inductors, capacitors, voltage and current sources (DC values, and
    the ``PULSE`` and ``SIN`` waveforms of :func:`~vecnet.io.spice.pulse` and :func:`~vecnet.io.spice.sine`; the ``AC`` amplitudes
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
        :func:`~vecnet.io.spice.pulse` or :func:`~vecnet.io.spice.sine`, or node names that SPICE would not tell apart.

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
        write_atomically(path, text)
    return text


def _title(name: str) -> str:
    # the first line is always the title: keep it one line, not mistaken for a card
    return " ".join(str(name).split()) or "netlist"


def _node_names(net: Network) -> dict:
    """Each node's name on the cards: the ground ``0``, the others as in the network."""
    nodes = list(net.graph.nodes)
    spelled = {str(n).lower(): n for n in nodes}
    ground = spelled.get("0", spelled.get("gnd", nodes[0] if nodes else None))
    names: dict = {}
    seen: dict = {}
    for n in nodes:
        name = "0" if n == ground else str(n)
        key = "0" if name.lower() in GROUND else name.lower()
        if key in seen:
            raise ModelError(f"network {net.name!r}: nodes {seen[key]!r} and {n!r} are one node "
                             f"to SPICE (node names ignore case, and {GROUND} name the ground); "
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
    words = f"DC {value!r}" if isinstance(value, float) else waveform_card(value)
    if words is None:
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
    :func:`~vecnet.io.load_netlist` builds them: a source whose head meets only a short that
    leaves it (tail there), and so on along the chain of shorts."""
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
    letter = LETTERS.get(kind, "")
    if letter in ("R", "L", "C", "V", "I"):
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
    if letter in ("E", "G", "F", "H"):
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
