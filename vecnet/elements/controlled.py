"""Controlled sources and operational amplifiers: two-edge elements whose output edge is
driven by a variable of their input edge.

Each element has edges ``<name>.in`` (the controlling edge) and ``<name>.out`` (the
controlled source), nodes ``in_tail, in_head, out_tail, out_head``, and may join two
domains (``domains=(d1, d2)``; electrical by default):

* the **controlling edge** senses its across variable as an *open* (``tau1 = 0``, a
  voltmeter) or its through variable as a *short* (``a1 = 0``, an ammeter);
* the **controlled edge** is an across source (``a2 = mu a1`` or ``a2 = r tau1``) or a
  through source that, like :class:`~vecnet.CurrentSource`, delivers its value into its
  head node (``tau2 = -g a1`` or ``tau2 = -beta tau1``, passive sign convention).

=====================================  ===========  ===================================
generic class                          electrical   terminal equations
=====================================  ===========  ===================================
:class:`AcrossControlledAcrossSource`  :class:`VCVS`  ``a2 = mu a1``, ``tau1 = 0``
:class:`AcrossControlledThroughSource` :class:`VCCS`  ``tau2 = -g a1``, ``tau1 = 0``
:class:`ThroughControlledAcrossSource` :class:`CCVS`  ``a2 = r tau1``, ``a1 = 0``
:class:`ThroughControlledThroughSource` :class:`CCCS` ``tau2 = -beta tau1``, ``a1 = 0``
=====================================  ===========  ===================================

With the SPICE orientation (an edge from ``n-`` to ``n+``) a voltage source's edge runs
from ``n-`` to ``n+`` and a current source's from ``n+`` to ``n-``, so ``G n+ n- nc+ nc- gm``
is ``VCCS(name, nc-, nc+, n+, n-, g=gm)``: ``gm V(nc+, nc-)`` flows from ``n+`` through the
source into ``n-``, as in SPICE.

In the normal tree the shorts and the controlled across sources are taken first, with the
independent across sources; the opens and the controlled through sources never, like the
independent through sources. Their terminal equations are algebraic: they add no state.

The ideal operational amplifier :class:`OpAmp` is a nullator (input edge: ``a1 = 0`` and
``tau1 = 0``) with a norator (output edge: no equation; its current is whatever the
circuit needs). It needs a feedback path from its output to an input; without one the
normal tree refuses it. ``OpAmp(..., gain=A)`` is the finite-gain amplifier, a VCVS.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import sympy

from .base import EdgeVariables, Element, Kind, equation

__all__ = ["AcrossControlledAcrossSource", "AcrossControlledThroughSource",
           "ThroughControlledAcrossSource", "ThroughControlledThroughSource",
           "VCVS", "VCCS", "CCVS", "CCCS", "OpAmp", "FiniteGainOpAmp", "ControlledSource"]

_SHORT, _OPEN = Kind.ACROSS_SOURCE, Kind.THROUGH_SOURCE


class ControlledSource(Element):
    """Base class of the two-edge controlled elements: port ``in`` controls, port ``out``
    is driven. ``senses`` says which variable of ``in`` controls (``"across"`` for an open,
    ``"through"`` for a short, ``None`` for a nullator), ``drives`` which variable of
    ``out`` is set (``None`` for a norator).

    Its edges take their normal-tree places one by one (:attr:`edge_kinds`); the element
    as a whole is an algebraic two-port (``Kind.TRANSDUCER``) whose tree placement is fixed:
    ``coupling = "controlled"``.

    >>> import vecnet as vn
    >>> amplifier = vn.VCVS("E1", "a", "0", "b", "0", mu=10)
    >>> isinstance(amplifier, vn.ControlledSource), amplifier.senses, amplifier.drives
    (True, 'across', 'across')
    """

    kind = Kind.TRANSDUCER
    coupling = "controlled"
    ports = ("in", "out")
    domain = ("electrical", "electrical")
    senses: str | None = "across"
    drives: str | None = "across"

    def __init__(self, name: str, *nodes: Hashable, domains: tuple[str, str] | None = None,
                 **parameters: Any) -> None:
        if domains is not None:
            self.domain = tuple(domains)
        super().__init__(name, *nodes, **parameters)

    @property
    def edge_kinds(self) -> tuple[Kind, Kind]:
        """The normal-tree kind of each edge: a short or an across source goes in the tree
        first (``ACROSS_SOURCE``), an open or a through source never (``THROUGH_SOURCE``)."""
        sense = _OPEN if self.senses == "across" else _SHORT
        drive = _SHORT if self.drives == "across" else _OPEN
        return sense, drive

    def role(self, edge: str) -> str:
        """What edge ``edge`` of this element is, in words (for diagnoses)."""
        if edge == self.edges[0].name:
            return {"across": "the open that senses", "through": "the short that senses"}.get(
                self.senses, "the input (nullator)") + f" for {type(self).__name__} {self.name!r}"
        what = f"the {self.drives} source" if self.drives else "the output (norator)"
        return f"{what} of {type(self).__name__} {self.name!r}"

    def terminal_equations(self, variables: Mapping[str, EdgeVariables]) -> list[sympy.Eq]:
        sense, out = (variables[e.name] for e in self.edges)
        zero = sympy.Integer(0)
        if self.senses is None:  # nullator
            return [equation(sense.across, zero), equation(sense.through, zero)]
        control = getattr(sense, self.senses)
        other = sense.through if self.senses == "across" else sense.across
        k = self.symbol(self.parameter_names[0])
        driven = equation(out.across, k * control) if self.drives == "across" \
            else equation(out.through, -k * control)
        return [driven, equation(other, zero)]


class AcrossControlledAcrossSource(ControlledSource):
    """``a2 = mu a1`` with the input an open (``tau1 = 0``); any two domains.

    >>> from vecnet import Symbol
    >>> AcrossControlledAcrossSource("E", "a", "b", "g", "o", mu=Symbol("mu"),
    ...                              domains=("translational", "electrical")).edges[1].name
    'E.out'
    """

    parameter_names = ("mu",)


class AcrossControlledThroughSource(ControlledSource):
    """``tau2 = -g a1`` (``g a1`` delivered into the head of ``out``), input an open.

    >>> import vecnet as vn
    >>> print(vn.text(vn.AcrossControlledThroughSource("gm", "a", "0", "b", "0", g=0.01)))
    i_gm.out = -g_gm*v_gm.in
     i_gm.in = 0
    """

    parameter_names = ("g",)
    drives = "through"


class ThroughControlledAcrossSource(ControlledSource):
    """``a2 = r tau1`` with the input a short (``a1 = 0``).

    >>> import vecnet as vn
    >>> print(vn.text(vn.ThroughControlledAcrossSource("rm", "a", "0", "b", "0", r=100.0)))
    v_rm.out = i_rm.in*r_rm
     v_rm.in = 0
    """

    parameter_names = ("r",)
    senses = "through"


class ThroughControlledThroughSource(ControlledSource):
    """``tau2 = -beta tau1`` (``beta tau1`` delivered into the head of ``out``), input a
    short (``a1 = 0``).

    >>> import vecnet as vn
    >>> print(vn.text(vn.ThroughControlledThroughSource("F1", "a", "0", "b", "0", beta=50.0)))
    i_F1.out = -beta_F1*i_F1.in
     v_F1.in = 0
    """

    parameter_names = ("beta",)
    senses = "through"
    drives = "through"


class VCVS(AcrossControlledAcrossSource):
    """Voltage-controlled voltage source (SPICE ``E``): ``v_out = mu v_in``.

    Nodes: ``in_tail, in_head, out_tail, out_head`` (``nc-, nc+, n-, n+`` of the card).

    >>> VCVS("E1", "0", "c", "0", "o", mu=10.0).edge("out").head
    'o'
    """


class VCCS(AcrossControlledThroughSource):
    """Voltage-controlled current source (SPICE ``G``): ``g v_in`` delivered into the head of
    ``out`` (nodes ``nc-, nc+, n+, n-`` of the card: the current leaves through ``n-``).

    >>> import vecnet as vn
    >>> print(vn.text(vn.VCCS("G1", "a", "0", "b", "0", g=0.01)))
    i_G1.out = -g_G1*v_G1.in
     i_G1.in = 0
    """


class CCVS(ThroughControlledAcrossSource):
    """Current-controlled voltage source (SPICE ``H``): ``v_out = r i_in``, ``i_in`` the
    current through the short ``in`` (entering at its head).

    >>> import vecnet as vn
    >>> print(vn.text(vn.CCVS("H1", "a", "0", "b", "0", r=100.0)))
    v_H1.out = i_H1.in*r_H1
     v_H1.in = 0
    """


class CCCS(ThroughControlledThroughSource):
    """Current-controlled current source (SPICE ``F``): ``beta i_in`` delivered into the head
    of ``out``.

    >>> import vecnet as vn
    >>> print(vn.text(vn.CCCS("F1", "a", "0", "b", "0", beta=50.0)))
    i_F1.out = -beta_F1*i_F1.in
     v_F1.in = 0
    """


class OpAmp(ControlledSource):
    """Ideal operational amplifier, a nullator–norator pair: ``v+ = v-`` and no input
    current; the output current is whatever the circuit needs. With ``gain=A`` it is a
    :class:`FiniteGainOpAmp` instead (``v_out = A (v+ - v-)``).

    Nodes: ``in_minus, in_plus, out, ground``; edge ``<name>.in`` runs from ``in_minus`` to
    ``in_plus``, edge ``<name>.out`` from ``ground`` to ``out``. The ground is given: it is
    the node the output voltage is measured from (the supply's common node).

    >>> OpAmp("U1", "n", "p", "o", "0").edges[1].tail
    '0'
    >>> type(OpAmp("U2", "n", "p", "o", "0", gain=1e5)).__name__
    'FiniteGainOpAmp'
    """

    senses = None
    drives = None

    def __new__(cls, *args: Any, gain: Any = None, **kwargs: Any) -> OpAmp:
        # a finite gain is another terminal law, hence another class (laws are found per class)
        return super().__new__(FiniteGainOpAmp if gain is not None and cls is OpAmp else cls)

    def __init__(self, name: str, in_minus: Hashable, in_plus: Hashable, out: Hashable,
                 ground: Hashable, gain: Any = None) -> None:
        super().__init__(name, in_minus, in_plus, ground, out)

    @property
    def edge_kinds(self) -> tuple[Kind, Kind]:
        """The nullator is a short in the tree; the norator stays out of it."""
        return _SHORT, _OPEN


class FiniteGainOpAmp(OpAmp):
    """Operational amplifier of finite open-loop gain ``A``: ``v_out = A (v+ - v-)``, no
    input current (a VCVS). Made by ``OpAmp(..., gain=A)``.

    >>> import vecnet as vn
    >>> print(vn.text(vn.FiniteGainOpAmp("U1", "m", "p", "out", "0", gain=1e5)))
    v_U1.out = A_U1*v_U1.in
     i_U1.in = 0
    """

    parameter_names = ("A",)
    senses = "across"
    drives = "across"

    def __init__(self, name: str, in_minus: Hashable, in_plus: Hashable, out: Hashable,
                 ground: Hashable, gain: Any = None) -> None:
        ControlledSource.__init__(self, name, in_minus, in_plus, ground, out, A=gain)

    edge_kinds = ControlledSource.edge_kinds
