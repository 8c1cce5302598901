"""Matrices and equations as LaTeX and as aligned plain text, for lectures and notebooks.

:func:`latex` and :func:`text` accept

* a :class:`~vecnet.LabeledMatrix` (row and column labels, and the ``[1 | A_c]``
  partition bar of cutset and circuit matrices),
* a sympy equation or a list of them (aligned at the ``=`` sign),
* :class:`~vecnet.formulation.lumped.NetworkEquations` (cutset, circuit and
  terminal equations),
* :class:`~vecnet.formulation.lumped.StateSpace` (state equations and, for
  linear networks, ``A, B, C, D``),
* :class:`~vecnet.formulation.planar.MultibodyEquations` and its spatial twin
  (coordinates, ``M(q) u' = Q`` as a lecturer writes it, tidied within bounds
  (:mod:`vecnet.output.tidy`) and shown whenever it fits on a page, the constraints,
  then the same equations in the recursive Newton-Euler form),
* :class:`~vecnet.formulation.numeric.SparseStateSpace` (sizes and sparsity of
  ``A, B, C, D``, the states and the state equations with the parameter values).

Large systems are shown as a **summary** (option ``summary``; by default when they
are large): what is left out and why, the sizes, the names, and the first
:data:`SUMMARY_ROWS` equations. Printing every entry of large matrices or long
expressions takes minutes and pages nobody reads: the state equations of a network
with more than :data:`SUMMARY_STATES` states (``A`` alone has their square of
entries), network equations beyond :data:`SUMMARY_EQUATIONS`, and mechanisms with
more than :data:`SUMMARY_SPEEDS` speeds (whose ``M`` and ``Q`` are not even built) or
whose ``M``, ``Q`` and constraints hold more than :data:`SUMMARY_TERMS` terms.

Every formula is typeset: words are ``\\text``, formulas math, options code
(``\\texttt``); the formulations' matrices are bold (``\\mathbf{A}``, ``\\mathbf{M}``),
never a user's symbol of the same letter; and LaTeX rows wider than a page's column are
broken (:func:`vecnet.output.pagefit.break_rows`), since LaTeX does not wrap a row. One
rule sets names: several characters upright (``\\mathrm{Rp}``, and as a subscript
``v_{\\mathrm{R3}}``, ``T_{\\mathrm{motor.m}}``), one letter italic, digits and Greek
letters as sympy sets them (``C_{6}``).

Edge variables are functions of time in the equations (``v_R3(t)``); the
listings drop the ``(t)`` and write time derivatives as ``v_C6'`` (text) or
``\\dot{v}_{\\mathrm{C6}}`` (LaTeX). Floating-point numbers are shown to ``digits``
significant digits (:data:`vecnet.core.numbers.DIGITS` unless told; ``None`` keeps them
all); exact numbers (``pi/2``, ``1/3``) stay exact.

Names are text in the LaTeX, whatever characters they hold: sympy would write a
symbol's name raw (``\\input{...}``, ``$`` or ``}`` in a name would be read as
LaTeX), so every name that is not a plain identifier is set with
:func:`name_tex`, its special characters escaped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy
from sympy.core.function import AppliedUndef

from ..core.dispatch import class_named
from ..core.domains import unit_text
from ..core.names import visible
from ..core.numbers import DIGITS, labelled_table, round_floats
from ..core.symbols import DATUM
from ..elements.base import t
from ..elements.beam import BeamLaw
from ..errors import OutputError

if TYPE_CHECKING:
    from ..graph.matrix import LabeledMatrix

__all__ = ["latex", "text", "display_math", "summary_reason", "unit_latex", "unit_text", "name_tex",
           "text_tex", "transfer_functions", "mechanism_latex", "matrix_tex"]

#: Multibody matrices (``M``, ``Q``) with at most this many rows may be shown as matrices.
MATRIX_FORM_LIMIT = 3
#: Larger labelled matrices or listings are not shown by notebooks (the text form is).
REPR_CELL_LIMIT = 2500
REPR_CHAR_LIMIT = 200_000
#: Network equations (cutset, circuit and terminal together) listed in full up to this many.
SUMMARY_EQUATIONS = 300
#: State equations and their matrices shown in full up to this many states.
SUMMARY_STATES = 40
#: Mechanisms with more speeds are summarized (their recursive form grows linearly, a few
#: hundred characters a speed, so only very large ones).
SUMMARY_SPEEDS = 120
#: The full ``M`` and ``Q`` (``matrix_form=True``) are summarized when they and the
#: constraints hold more terms (nodes of their expression trees): printing takes about 30
#: microseconds a term in each style, and a chain of ten spherical joints holds millions.
SUMMARY_TERMS = 50_000
#: Equations of each kind a summary lists.
SUMMARY_ROWS = 5
#: Nested fractions up to this many terms are shown as one cancelled, factored fraction.
TIDY_TERMS = 400


#: the text width of LaTeX's article class at 10 pt, in em: a display's default width
ARTICLE_WIDTH = 34.5


def latex(obj: Any, digits: int | None = DIGITS, width: float | None = None,
          display: bool = False, **options: Any) -> str:
    """LaTeX for a labelled matrix, equations, network equations, a state-space model or
    multibody equations (math mode, without the surrounding ``$``; or with ``display``,
    a display of its own for a document).

    Parameters
    ----------
    obj : LabeledMatrix, network element (its terminal equations), sympy.Eq, list of
          sympy.Eq, NetworkEquations, StateSpace, MultibodyEquations, sympy expression or
          matrix
    digits : int or None
        Significant digits of floating-point numbers; ``None`` shows them all.
    width : float, optional
        The page's column in em: rows of a listing wider than it are broken (LaTeX does
        not wrap a row; default :data:`vecnet.output.html_pieces.FORMULA_WIDTH`, a
        report's, and with ``display`` :data:`ARTICLE_WIDTH`, an article's text at
        10 pt; a width given is filled to nine tenths, the widths being estimates),
        and a labelled matrix wider than it is cut into blocks of whole columns, one
        below the other (default: never cut, but with ``display``).
    display : bool
        ``True``: for a document, not math mode. A listing becomes an ``align*`` (a
        ``gather*`` for a state space) whose rows break across pages under
        ``\\allowdisplaybreaks``, in place of the unbreakable ``aligned`` (``gathered``);
        anything else is wrapped in ``\\[ ... \\]``. The preamble needs ``amsmath``.
    options
        For a LabeledMatrix, ``labels=False`` drops the labels and brackets the
        entries; ``brackets=True`` keeps the labels outside stretching brackets. For
        MultibodyEquations, ``matrix_form=True`` lists the full ``M`` and ``Q`` alone (as
        matrices where they read well as such, otherwise entry by entry; without the
        page's bound), ``matrix_form=False`` the recursive form alone (default: ``M``
        and ``Q`` when they fit on a page, then the recursive form); ``simplify=True``
        adds ``sympy.trigsimp`` to the bounded tidying of ``M`` and ``Q`` (slow for large
        systems), ``simplify=False`` shows them as formulated. For NetworkEquations, StateSpace, SparseStateSpace and
        MultibodyEquations, ``summary=True``/``False`` forces or forbids the summary
        of a large system (default ``None``: a summary when large; see the module
        notes).

    Raises
    ------
    OutputError
        An object that cannot be shown, or an unknown option.

    Examples
    --------
    >>> import vecnet as vn
    >>> g = vn.LinearGraph([("R", "a", "b"), ("C", "b", "g"), ("V", "g", "a")])
    >>> print(latex(g.topology(tree=["R", "C"]).cutset))
    \\begin{array}{r|rr|r}
     & \\mathrm{R} & \\mathrm{C} & \\mathrm{V} \\\\ \\hline
    \\mathrm{R} & 1 & 0 & -1 \\\\
    \\mathrm{C} & 0 & 1 & -1
    \\end{array}
    >>> print(latex(sympy.Eq(sympy.Symbol("x"), 2), display=True))
    \\begin{align*}
    x &= 2
    \\end{align*}
    """
    if width is not None and not (isinstance(width, (int, float)) and width > 0):
        raise OutputError(f"width is a positive number of em; got {width!r}")
    if display and width is None:
        width = ARTICLE_WIDTH   # a display is for a document: an article's column by default
    body = _dispatch(obj, "latex", digits, options, width)
    return display_math(body) if display else body


def display_math(tex: str) -> str:
    """Math-mode LaTeX as a display of its own for a document: a listing's outer
    ``aligned`` (``gathered``) as an ``align*`` (``gather*``), which breaks across pages;
    anything else in ``\\[ ... \\]``.

    >>> print(display_math("x = 1"))
    \\[
    x = 1
    \\]
    """
    for inner, outer in (("aligned", "align*"), ("gathered", "gather*")):
        head, tail = f"\\begin{{{inner}}}", f"\\end{{{inner}}}"
        if tex.startswith(head) and tex.endswith(tail):
            return f"\\begin{{{outer}}}" + tex[len(head):-len(tail)] + f"\\end{{{outer}}}"
    return "\\[\n" + tex + "\n\\]"


def text(obj: Any, digits: int | None = DIGITS, **options: Any) -> str:
    """Aligned plain text for the same objects as :func:`latex`.

    Examples
    --------
    >>> import sympy
    >>> x, y = sympy.symbols("x y")
    >>> print(text([sympy.Eq(x, 2 * y), sympy.Eq(sympy.Symbol("longer"), x + 1)]))
         x = 2*y
    longer = x + 1
    """
    return _dispatch(obj, "text", digits, options)


def repr_latex(obj: Any) -> str | None:
    """``$$...$$`` for notebook display, or ``None`` when the result would be too large to
    typeset (the notebook then shows the text form)."""
    if class_named(obj, ("LabeledMatrix",)) and obj.shape[0] * obj.shape[1] > REPR_CELL_LIMIT:
        return None
    body = latex(obj)
    return None if len(body) > REPR_CHAR_LIMIT else f"$${body}$$"


def unit_latex(unit: str) -> str:
    r"""A unit as written in the domain table (``"m^3/s"``, ``"N m"``, ``"kg m^2"``) typeset
    upright, powers raised and products spaced thinly (math mode).

    >>> print(unit_latex("m^3/s"), unit_latex("N m"))
    \mathrm{m}^{3}/\mathrm{s} \mathrm{N}\,\mathrm{m}
    """
    def factor(word: str) -> str:
        base, _, power = word.partition("^")
        return rf"\mathrm{{{text_tex(base)}}}" + (f"^{{{text_tex(power)}}}" if power else "")

    return "/".join(r"\,".join(factor(w) for w in part.split()) for part in unit.split("/"))


def mechanism_latex(eom: Any, expr: Any, digits: int | None = DIGITS) -> str:
    r"""LaTeX of an expression in a mechanism's coordinates and speeds, named as
    :func:`latex` names them in the mechanism's equations (``\theta_{\mathrm{P1}}``,
    ``q_{\mathrm{S1},w}``, ``\omega_{\mathrm{S1},1}``).

    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("p")
    >>> bob = mech.body("bob", 1.0, 0.1, position=(1, 0))
    >>> _ = mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
    >>> eom = mech.formulate()
    >>> print(mechanism_latex(eom, 2 * eom.q[0] + eom.u[0]))
    2 \theta_{\mathrm{pin}} + \dot{\theta}_{\mathrm{pin}}
    """
    show = _Printer("latex", digits)
    _mechanism_names(eom, show)
    return show(expr)


def summary_reason(obj: Any) -> str | None:
    """Why :func:`latex` and :func:`text` show ``obj`` as a summary by default (its size
    against the limits of the module notes), or ``None`` when they show it in full.

    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=1.0),
    ...             vn.Capacitor("C", "b", "g", C=1.0))
    >>> summary_reason(net.equations()) is None
    True
    """
    kind = class_named(obj, ("NetworkEquations", "StateSpace", "SparseStateSpace",
                             "MechanismEquations"))
    if kind == "NetworkEquations":
        size, limit, what = len(obj.cutset) + len(obj.circuit) + len(obj.terminal), \
            SUMMARY_EQUATIONS, "equations"
    elif kind in ("StateSpace", "SparseStateSpace"):
        size, limit, what = len(obj.states), SUMMARY_STATES, "states"
    elif kind == "MechanismEquations":
        size, limit, what = len(obj.u), SUMMARY_SPEEDS, "speeds"
    else:
        return None
    return f"{size:,} {what}, more than {limit:,}" if size > limit else None


def _why(obj: Any, summary: bool | None) -> str | None:
    """Why ``obj`` is shown as a summary under the option ``summary``, or ``None``."""
    if summary is None:
        return summary_reason(obj)
    return "asked for" if summary else None


def _dispatch(obj: Any, style: str, digits: int | None, options: dict[str, Any],
              width: float | None = None) -> str:
    if digits is not None and (not isinstance(digits, int) or isinstance(digits, bool)
                               or digits < 1):
        raise OutputError(f"digits must be a positive integer or None; got {digits!r}")
    show = _Printer(style, digits, width)
    kind = class_named(obj, _SHOWN)
    if kind is not None and _SHOWN[kind] is not None:
        handler, allowed = _SHOWN[kind]   # type: ignore[misc]
    elif isinstance(obj, sympy.Eq) or (
            isinstance(obj, (list, tuple)) and all(isinstance(e, sympy.Eq) for e in obj)):
        handler, allowed = _equation_list, ()
        obj = [obj] if isinstance(obj, sympy.Eq) else list(obj)
    elif isinstance(obj, (sympy.Basic, sympy.MatrixBase)):
        handler, allowed = _expression, ()
    else:
        raise OutputError(f"cannot show a {type(obj).__name__} as {style}; give a LabeledMatrix, "
                          "a network element, sympy equations, NetworkEquations, StateSpace, SparseStateSpace, "
                          "MultibodyEquations, an OperatingPoint or a Linearization")
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise OutputError(f"unknown option(s) {', '.join(unknown)} for a {type(obj).__name__}; "
                          f"the options are {', '.join(allowed) or 'none'}")
    return handler(obj, show, **options)


# -- expressions ------------------------------------------------------------------------
class _Printer:
    """Prints sympy objects in one style, with functions of t shown as plain symbols."""

    def __init__(self, style: str, digits: int | None, width: float | None = None) -> None:
        self.style, self.digits = style, digits
        self.width = width   # the page's column in em (None: a report's, for rows)
        self.names: dict[sympy.Symbol, str] = {}  # LaTeX of the stand-in symbols
        self.swap: dict[sympy.Basic, sympy.Basic] = {}  # symbols shown under another name
        self.untidy = 0   # nested fractions too large to simplify, left as they are

    @property
    def is_latex(self) -> bool:
        return self.style == "latex"

    def prepare(self, expr: Any) -> Any:
        """``f(t) -> f``, ``d^n f/dt^n -> f'...`` and rounded floats."""
        expr = sympy.sympify(expr)
        if self.swap:
            expr = expr.xreplace(self.swap)
        swap: dict[sympy.Basic, sympy.Basic] = {}
        for d in expr.atoms(sympy.Derivative):
            if isinstance(d.expr, AppliedUndef) and d.expr.args == (t,) and \
                    d.variables == (t,) * len(d.variables):
                swap[d] = self._stand_in(d.expr.func.__name__, len(d.variables))
        expr = expr.xreplace(swap) if swap else expr
        plain = {f: self._stand_in(f.func.__name__, 0) for f in expr.atoms(AppliedUndef)
                 if f.args == (t,)}
        expr = expr.xreplace(plain) if plain else expr
        return round_floats(expr, self.digits)

    def _stand_in(self, name: str, order: int) -> sympy.Symbol:
        symbol = sympy.Symbol(name + "'" * order, real=True)
        if symbol not in self.names:
            base = _symbol_tex(name)
            head, sep, sub = _split_sub(base)
            if order == 0:
                shown = base
            elif order <= 3:
                accent = {1: "dot", 2: "ddot", 3: "dddot"}[order]
                shown = rf"\{accent}{{{head}}}" + (sep + sub if sep else "")
            else:
                shown = rf"{base}^{{({order})}}"
            self.names[symbol] = shown
        return symbol

    def __call__(self, expr: Any) -> str:
        expr = self.tidy(self.prepare(expr))
        terms = _powers_of_s(expr)
        if terms is not None:   # a transfer function, as a textbook writes it
            return self._fraction(*terms)
        if self.is_latex:
            return self._latex(expr)
        return sympy.sstr(expr)

    def _fraction(self, top: list, bottom: list) -> str:
        """Numerator over denominator, each the sum of its ``terms`` in their order."""
        def total(terms: list) -> str:
            out = ""
            for term in terms:
                shown = self._latex(term) if self.is_latex else sympy.sstr(term)
                if out:
                    negative = shown.startswith("-")
                    out += (" - " if negative else " + ") + \
                        (shown[1:].lstrip() if negative else shown)
                else:
                    out = shown
            return out

        numerator, denominator = total(top), total(bottom)
        if bottom == [1]:
            return numerator
        if self.is_latex:
            return rf"\frac{{{numerator}}}{{{denominator}}}"
        # a sum in parentheses, and a denominator that is no single symbol or number
        if len(top) > 1:
            numerator = f"({numerator})"
        if len(bottom) > 1 or not bottom[0].is_Atom:
            denominator = f"({denominator})"
        return f"{numerator}/{denominator}"

    def tidy(self, expr: Any) -> Any:
        """A nested fraction (a fraction within a denominator) as one fraction, cancelled
        and factored, when it holds at most :data:`TIDY_TERMS` terms; a larger one stays
        as it is and is counted in :attr:`untidy` (the listing says so)."""
        if not isinstance(expr, sympy.Expr) or not _nested_fraction(expr):
            return expr
        if _terms([expr], TIDY_TERMS) > TIDY_TERMS:
            self.untidy += 1
            return expr
        try:
            tidied = sympy.factor(sympy.cancel(expr))
        except (sympy.PolynomialError, ValueError, TypeError):   # pragma: no cover
            return expr
        return tidied if _terms([tidied], TIDY_TERMS * 4) <= _terms([expr], TIDY_TERMS * 4) * 2 \
            else expr

    def _latex(self, expr: Any) -> str:
        """sympy's LaTeX with every name shown safely: symbols through ``symbol_names``,
        undefined functions (which sympy prints as ``\\operatorname{name}``) through
        stand-ins with made-up letter names that are swapped for the escaped names."""
        names = dict(self.names)
        for symbol in expr.atoms(sympy.Symbol):
            if symbol not in names:
                names[symbol] = _symbol_tex(symbol.name)
        functions: dict[str, str] = {}
        swap = {}
        for f in expr.atoms(AppliedUndef):
            name = f.func.__name__
            if not _is_identifier(name):
                stand_in = "vecnetfn" + "".join(chr(ord("a") + int(d)) for d in str(len(functions)))
                functions[stand_in] = name
                swap[f] = sympy.Function(stand_in)(*f.args)
        if swap:
            expr = expr.xreplace(swap)
        out = sympy.latex(expr, symbol_names=names)
        for stand_in, name in functions.items():
            out = out.replace(rf"\operatorname{{{stand_in}}}", name_tex(name))
        return out

    def rename(self, symbol: sympy.Symbol, shown: str) -> None:
        """Show ``symbol`` as the LaTeX ``shown``."""
        self.names[symbol] = shown

    def rate_of(self, symbol: sympy.Symbol, rate: sympy.Symbol) -> None:
        """Show ``rate`` (a symbol standing for the derivative of ``symbol``) as ``symbol'``
        (``\\dot{symbol}`` in LaTeX)."""
        self.swap[rate] = self._stand_in(symbol.name, 1)


def _powers_of_s(expr: Any) -> tuple[list, list] | None:
    """The terms of a rational function of ``s``, numerator and denominator each in
    descending powers of ``s`` (the constant's terms apart), or ``None`` for anything else.

    >>> from vecnet.formulation.transfer import s
    >>> R, L = sympy.symbols("R L")
    >>> _powers_of_s(R / (R + L * s**2 + s))
    ([R], [L*s**2, s, R])
    """
    from ..core.symbols import s

    if not isinstance(expr, sympy.Expr) or not expr.has(s) or (   # partial fractions stay
            isinstance(expr, sympy.Add) and any(sympy.fraction(a)[1].has(s) for a in expr.args)):
        return None
    top, bottom = sympy.fraction(expr)
    if any(isinstance(part, sympy.Pow) or (isinstance(part, sympy.Mul) and any(
            isinstance(f, sympy.Add) and f.has(s) for f in part.args)) for part in (top, bottom)):
        return None   # factored, as partial fractions and zeros-poles forms are: kept so
    try:
        polys = sympy.Poly(top, s), sympy.Poly(bottom, s)
    except sympy.PolynomialError:   # s inside a function, or a fractional power
        return None
    return tuple([term for (k,), c in p.terms()   # type: ignore[return-value]
                  for term in (sympy.Add.make_args(c) if k == 0 else (c * s**k,))]
                 for p in polys)


def _nested_fraction(expr: sympy.Expr) -> bool:
    """Whether a denominator of ``expr`` holds a fraction (``k / (1 + L k / K^2)``)."""
    for power in expr.atoms(sympy.Pow):
        if power.exp.is_negative and any(p.exp.is_negative for p in power.base.atoms(sympy.Pow)):
            return True
    return False


def _is_identifier(name: str) -> bool:
    """ASCII letters, digits, ``_`` and the ``.`` of port names, starting with a letter:
    what sympy's LaTeX printer may set by itself (``v_R3`` as ``v_{R3}``, ``alpha`` as
    ``\\alpha``, ``T_motor.m`` as ``T_{motor.m}``)."""
    return (name.isascii() and name[:1].isalpha()
            and all(c.isalnum() or c in "_." for c in name) and not name.endswith("_")
            and "__" not in name)


def _symbol_tex(name: str) -> str:
    """LaTeX for a symbol named ``name``, by one rule for names: a name of several
    characters is upright (``\\mathrm{Rp}``, and as a subscript an element's or port's name,
    dotted or not: ``v_{\\mathrm{R3}}``, ``T_{\\mathrm{motor.m}}``); one letter is an italic
    variable, digits and Greek letters as sympy sets them (``C_{6}``, ``x_{1}``,
    ``\\omega_{\\alpha}``). An unusual name is escaped whole. sympy would read a second
    ``_`` as a second subscript (``Q_my_pump`` as ``Q_{my pump}``): such names are
    escaped, so the subscript shows the edge name as written."""
    if _is_identifier(name) and "_" not in name.partition("_")[2]:
        head, sep, rest = name.partition("_")
        tex = _upright(sympy.latex(sympy.Symbol(head)))
        if not sep:
            return tex
        if "_" in tex:              # a head with digits (C6 as C_{6}): sympy's own form
            return sympy.latex(sympy.Symbol(name))
        sub = sympy.latex(sympy.Symbol(rest))
        if len(rest) == 1 or rest.isdigit() or sub.startswith("\\"):
            # a letter, digits or a Greek letter: an index, as sympy sets it
            return sympy.latex(sympy.Symbol(f"{head}_{rest}")).replace(
                sympy.latex(sympy.Symbol(head)), tex, 1)
        return f"{tex}_{{{name_tex(rest)}}}"   # a name (R3, motor.m, Vs): upright
    head, sep, rest = name.partition("_")
    if sep and rest and head.isascii() and head.isalpha():
        return f"{sympy.latex(sympy.Symbol(head))}_{{{name_tex(rest)}}}"
    return name_tex(name)


def _upright(tex: str) -> str:
    r"""A name of several letters that sympy sets as they are (``Rp``, read as ``R p``)
    upright, ``\mathrm{Rp}``, with any subscript sympy gave it (``Rp2`` as
    ``\mathrm{Rp}_{2}``); one letter, Greek letters and accents stay as sympy sets them."""
    match = re.fullmatch(r"([A-Za-z]{2,})(_\{[^{}]*\})?", tex)
    return rf"\mathrm{{{match.group(1)}}}{match.group(2) or ''}" if match else tex


def _split_sub(tex: str) -> tuple[str, str, str]:
    """``head, "_", subscript`` of LaTeX from :func:`_symbol_tex` or
    :func:`_coordinate_tex`; an escaped name (``\\mathrm{...}``) is one piece (its
    ``\\_`` are characters of the name, not subscripts)."""
    if tex.startswith("\\mathrm{"):
        return tex, "", ""
    return tex.partition("_")


def text_tex(words: str) -> str:
    """Text-mode LaTeX (inside ``\\text`` or ``\\textbf``) with special characters escaped.

    >>> print(text_tex("50% of {x}"))
    50\\% of \\{x\\}
    """
    special = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&",
               "#": r"\#", "%": r"\%", "_": r"\_", "~": r"\textasciitilde{}",
               "^": r"\textasciicircum{}"}
    return "".join(special.get(c, c) for c in visible(words))


def name_tex(label: Hashable) -> str:
    """An edge, node or variable name in upright LaTeX, special characters escaped (lone
    surrogates and control characters first shown as ``\\uXXXX`` text).

    >>> print(name_tex("R_1"))
    \\mathrm{R\\_1}
    """
    out = []
    for c in visible(label):
        if c in "_&%$#{}":
            out.append("\\" + c)
        elif c == "-":
            out.append(r"\text{-}")  # a hyphen, not a minus sign
        elif c == "\\":
            out.append(r"\backslash{}")
        elif c in "~^":
            out.append(rf"\text{{\{c}}}")
        elif c == " ":
            out.append(r"\ ")
        else:
            out.append(c)
    return r"\mathrm{" + "".join(out) + "}"


def _aligned_text(rows: Sequence[tuple[str, str] | str], indent: str = "") -> list[str]:
    """Lines ``lhs = rhs`` with the ``=`` signs in one column, indented by ``indent``;
    plain strings are headings, flush left."""
    width = max((len(r[0]) for r in rows if isinstance(r, tuple)), default=0)
    return [r if isinstance(r, str) else f"{indent}{r[0].rjust(width)} = {r[1]}" for r in rows]


def _aligned_latex(rows: Sequence[tuple[str, str] | str]) -> str:
    """An ``aligned`` block; plain strings are headings set after the alignment point."""
    lines = []
    for r in rows:
        lines.append(rf"&{r}" if isinstance(r, str) else rf"{r[0]} &= {r[1]}")
    return "\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}"


def _heading(show: _Printer, words: str, math: str = "") -> str:
    if show.is_latex:  # words may hold a name (the network's)
        return rf"\textbf{{{text_tex(words)}}}" + (rf"\quad {math}" if math else "")
    return f"{words}: {math}" if math else f"{words}:"


def _equation_rows(equations: Iterable[sympy.Eq], show: _Printer) -> list[tuple[str, str]]:
    return [(show(eq.lhs), show(eq.rhs)) for eq in equations]


def _finish(rows: list, show: _Printer) -> str:
    """The rows as one listing: an ``aligned`` block whose rows wider than a page's column
    (:data:`vecnet.output.html_pieces.FORMULA_WIDTH`) are broken at their outermost signs
    and spaces (:func:`vecnet.output.pagefit.break_rows`: LaTeX does not wrap a row), or
    aligned text."""
    if show.is_latex:
        from .html_pieces import FORMULA_WIDTH
        from .pagefit import break_rows

        # a page's column given: rows to nine tenths of it, since widths are estimates
        return break_rows(_aligned_latex(rows), 0.9 * show.width if show.width else FORMULA_WIDTH)
    headed = any(isinstance(r, str) for r in rows)
    return "\n".join(_aligned_text(rows, indent="  " if headed else ""))


def _expression(obj: Any, show: _Printer) -> str:
    return show(obj)


def _equation_list(equations: list[sympy.Eq], show: _Printer) -> str:
    return _finish(_equation_rows(equations, show), show)


def _element(element: Any, show: _Printer) -> str:
    """An element's terminal equations in its own edges' variables (``v_C1``, ``i_C1``),
    as they appear among a network's terminal equations."""
    from ..elements.base import EdgeVariables

    laws = element.terminal_equations({e.name: EdgeVariables.of(e) for e in element.edges})
    return _equation_list(laws, show)


# -- labelled matrices -----------------------------------------------------------------
def _entry_tex(x: Any, show: _Printer) -> str:
    if isinstance(x, (bool, np.bool_, int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        return show(sympy.Float(float(x)))
    return show(x)


#: a labelled matrix printed as text is cut into blocks of whole columns at this many
#: characters (a terminal's or a page's width)
TEXT_WIDTH = 100


def _matrix(m: LabeledMatrix, show: _Printer, labels: bool = True,
            brackets: bool = False) -> str:
    """A labelled matrix; wider than the page (:data:`TEXT_WIDTH` characters in text, the
    printer's ``width`` in LaTeX when given), cut into blocks of whole columns."""
    from .pagefit import column_blocks, tex_width

    limit = None if show.is_latex and show.width is None else \
        (show.width if show.is_latex else TEXT_WIDTH / 2)   # em, half an em a character
    if limit is not None and m.shape[1] > 1:
        if show.is_latex:
            def measure(x: Any) -> float:
                return tex_width(_entry_tex(x, show))
        else:
            chars = max([len(str(c)) for c in m.columns] + [
                len(_entry_tex(x, show)) for line in m.toarray() for x in line] + [1])

            def measure(x: Any) -> float:   # every column as wide as the widest, a space apart
                return 0.5 * (chars + 1) - 1.0     # (column_blocks adds an em a column)
        blocks = column_blocks(m, limit, measure)
        if len(blocks) > 1:
            pieces = [_matrix_block(b, show, labels, brackets) for b in blocks]
            if show.is_latex:
                return "\\begin{gathered}\n" + " \\\\[1ex]\n".join(pieces) + "\n\\end{gathered}"
            return "\n\n".join(f"columns {b.columns[0]} to {b.columns[-1]}:\n{piece}"
                                 for b, piece in zip(blocks, pieces))
    return _matrix_block(m, show, labels, brackets)


def _matrix_block(m: LabeledMatrix, show: _Printer, labels: bool = True,
                  brackets: bool = False) -> str:
    cells = m.toarray()
    split = m.split if m.split is not None and 0 < m.split < m.shape[1] else None
    if show.is_latex and labels and brackets and 0 not in m.shape:
        return _bracketed(m, [[_entry_tex(x, show) for x in line] for line in cells], split)
    if not show.is_latex:
        if labels:
            return str(m)
        body = [[_entry_tex(x, show) for x in line] for line in cells]
        width = max([len(x) for line in body for x in line] + [1])
        out = []
        for line in body:
            parts = [x.rjust(width) for x in line]
            if split is not None:
                parts.insert(split, "|")
            out.append("[" + " ".join(parts) + "]")
        return "\n".join(out)
    spec = ["r"] * m.shape[1]
    if split is not None:
        spec.insert(split, "|")
    body = [" & ".join(_entry_tex(x, show) for x in line) for line in cells]
    if labels:
        head = " & " + " & ".join(name_tex(c) for c in m.columns) + r" \\ \hline"
        rows = [name_tex(r) + " & " + b for r, b in zip(m.rows, body)]
        return ("\\begin{array}{r|" + "".join(spec) + "}\n" + head + "\n"
                + " \\\\\n".join(rows) + "\n\\end{array}")
    return ("\\left[\\begin{array}{" + "".join(spec) + "}\n" + " \\\\\n".join(body)
            + "\n\\end{array}\\right]")


def _bracketed(m: LabeledMatrix, entries: list[list[str]], split: int | None) -> str:
    """The entries in stretching brackets, row labels on the left and column labels above.

    Labels and entries are two arrays side by side and one above the other; a column gets
    the same width in both from a phantom of its label over its longest entry, set in
    the first row of each, and the column labels are moved right by the width of the
    bracket (a phantom of it, less the null delimiter that ``\\right.`` adds).
    """
    spec = ["r"] * m.shape[1]
    if split is not None:
        spec.insert(split, "|")
    spec_tex = "".join(spec)
    labels = [name_tex(c) for c in m.columns]
    widths = [rf"\hphantom{{\begin{{matrix}}{label} \\ {max((r[j] for r in entries), key=len)}"
              r"\end{matrix}}" for j, label in enumerate(labels)]

    def first_row(cells: list[str]) -> str:
        return " & ".join(rf"{w}\mathllap{{{c}}}" for w, c in zip(widths, cells))

    body = " \\\\\n".join([first_row(entries[0])] + [" & ".join(r) for r in entries[1:]])
    height = r"\vphantom{\begin{array}{c}" + r" \\ ".join("0" * len(entries)) + r"\end{array}}"
    rows = " \\\\ ".join(name_tex(r) for r in m.rows)
    return ("\\begin{array}{rl}\n"
            rf" & \hphantom{{\left[{height}\right.}}\kern{{-0.12em}}"
            rf"\begin{{array}}{{{spec_tex}}}{first_row(labels)}\end{{array}} \\" + "\n"
            rf"\begin{{array}}{{r}}{rows}\end{{array}} & "
            rf"\left[\begin{{array}}{{{spec_tex}}}" + "\n" + body + "\n" + r"\end{array}\right]"
            + "\n\\end{array}")


def _sympy_matrix(matrix: sympy.MatrixBase, rows: Sequence[str], columns: Sequence[str],
                  show: _Printer) -> str:
    """A sympy matrix: a bmatrix in LaTeX, a labelled table in text."""
    if show.is_latex:
        entries = [[_text_size(show(x)) for x in matrix.row(i)] for i in range(matrix.rows)]
        return ("\\begin{bmatrix}" + " \\\\ ".join(" & ".join(r) for r in entries)
                + "\\end{bmatrix}")
    cells = [[show(matrix[i, j]) for j in range(matrix.cols)] for i in range(matrix.rows)]
    return labelled_table(cells, [str(r) for r in rows], [str(c) for c in columns])


def _column(symbols: Sequence[Any], show: _Printer) -> str:
    if show.is_latex:
        return "\\begin{bmatrix}" + " \\\\ ".join(_text_size(show(s)) for s in symbols) + \
            "\\end{bmatrix}"
    return "(" + ", ".join(show(s) for s in symbols) + ")"


# -- network equations -----------------------------------------------------------------------
def _names(items: Iterable[Hashable], show: _Printer) -> str:
    items = list(items)
    if not items:
        return r"\text{none}" if show.is_latex else "none"
    return ", ".join(name_tex(i) for i in items) if show.is_latex else ", ".join(map(str, items))


def _note(show: _Printer, words: str) -> str:
    """A line of words, not a heading: plain text, or ``\\text`` in LaTeX."""
    return rf"\text{{{text_tex(words)}}}" if show.is_latex else words


def _first(shown: int | None, total: int) -> str:
    """``"; the first 5 shown"`` when a summary lists ``shown`` of ``total`` items
    (``None``: all of them)."""
    return f"; the first {shown} shown" if shown is not None and shown < total else ""


def _network_equations(eqs: Any, show: _Printer, summary: bool | None = None) -> str:
    topo = eqs.topology
    if show.is_latex:   # the tree and cotree on rows of their own, broken between names
        def named(words: str, items: Sequence[Hashable]) -> str:
            names: list = [_math(name_tex(b) + (r",\ " if k < len(items) - 1 else ""), str(b))
                           for k, b in enumerate(items)] or [_math(r"\text{none}", "none")]
            return _say(show, words, *names)

        rows: list = [_heading(show, f"Network {eqs.network.name}"),
                      named("Tree: ", topo.branches), named("Cotree: ", topo.chords)]
    else:
        rows = [f"Network {eqs.network.name}: tree: {_names(topo.branches, show)}; "
                f"cotree: {_names(topo.chords, show)}"]
    sections = (("Cutset equations", "one per branch", eqs.cutset),
                ("Circuit equations", "one per chord", eqs.circuit),
                ("Terminal equations", "of the elements", eqs.terminal))
    reason = _why(eqs, summary)
    shown = SUMMARY_ROWS if reason else None   # how many equations of each kind
    if reason:
        rows.append(_say(show, f"Summary ({reason}): the first {shown} equations of each kind "
                               "are listed, the others left out (", _code("summary=False"),
                         " lists them all)"))
    for title, note, equations in sections:
        words = f"{title} ({len(equations)}, {note}{_first(shown, len(equations))})"
        rows.append(_heading(show, words))
        rows.extend(_equation_rows(equations[:shown], show))
    return _finish(rows, show)


# -- state space --------------------------------------------------------------------------------
def _state_space(ss: Any, show: _Printer, summary: bool | None = None,
                 matrices: bool = True) -> str:
    """The state equations ``x' = f``, the algebraic ones, the output equations ``y = h``,
    the vectors and, for a linear model, ``x' = A x + B u`` with A and B, then
    ``y = C x + D u`` with C and D (E and F when they are not zero; the laws without the
    matrices with ``matrices=False``)."""
    for u, du in zip(ss.u, ss.du):  # input derivatives are named d<input>: show them as u'
        show.rate_of(u, du)
    n = len(ss.x)
    reason = _why(ss, summary)
    shown = SUMMARY_ROWS if reason else None   # how many equations of each kind
    rows: list = [_heading(show, f"State equations ({_count(n, 'state')}"
                                 f"{_first(shown, n)})")]
    for x, f in zip(ss.x[:shown], ss.f):
        rate = show._stand_in(str(x), 1)
        rows.append((show(rate), show(f)))
    if ss.z:
        residuals = list(ss.g)[:shown]
        rows.append(_heading(show, f"Algebraic equations ({len(ss.z)}"
                                   f"{_first(shown, len(ss.z))})", "0 = g(x, z, u)"))
        rows.extend(("0", show(g)) for g in residuals)
    if ss.outputs:
        rows += _output_rows(ss, show, shown)
    if reason:
        rows.append(_say(show, "Summary (" + reason + "): the other equations and the "
                               "matrices of a linear model (", _math(matrix_tex("A"), "A"),
                         f" alone has {n * n:,} entries) are left out (", _code("summary=False"),
                         " shows them)"))
    parts = [_finish(rows, show), _vectors(ss, show)]
    if not reason and not ss.z and ss.is_linear:
        parts += _linear_parts(ss, show, matrices)
    return _parts(parts, show)


def _output_rows(ss: Any, show: _Printer, shown: int | None) -> list:
    """The heading and rows ``<output> = h(x, u)`` of a state-space model's outputs."""
    total = len(ss.outputs)
    rows: list = [_heading(show, f"Output equations ({_count(total, 'output')}"
                                 f"{_first(shown, total)})")]
    rows += [(show(_named(name, show)), show(h)) for name, h in zip(ss.outputs[:shown], ss.h)]
    return rows


def matrix_tex(name: str) -> str:
    """How a matrix of the formulations is named in LaTeX: bold (``\\mathbf{D}``), so that
    it never reads as a user's symbol of the same letter (a pump's displacement ``D``)."""
    return rf"\mathbf{{{name}}}"


def _linear_parts(ss: Any, show: _Printer, shown: bool = True) -> list[str]:
    """``x' = A x + B u (+ E u')`` with its matrices, then, with outputs,
    ``y = C x + D u (+ F u')`` with theirs: a matrix with no rows or columns, and E or F
    when zero, left out (all of them without ``shown``). In LaTeX the matrices are bold."""
    def listing(law: str, terms: list) -> list[str]:
        matrices = [(name, m, r, c) for name, m, r, c in terms
                    if m.rows and m.cols and (name not in "EF" or any(m)) and shown]
        if show.is_latex:
            return [law, r",\quad ".join(f"{matrix_tex(name)} = {_sympy_matrix(m, r, c, show)}"
                                         for name, m, r, c in matrices)]
        return [law] + [f"{name} =\n{_sympy_matrix(m, r, c, show)}"
                        for name, m, r, c in matrices]

    parts = listing(_linear_law("x", ss.E is not None and any(ss.E), show),
                    [("A", ss.A, ss.states, ss.states), ("B", ss.B, ss.states, ss.inputs),
                     ("E", ss.E, ss.states, ss.inputs)])
    if ss.outputs:
        parts += listing(_linear_law("y", any(ss.F), show),
                         [("C", ss.C, ss.outputs, ss.states), ("D", ss.D, ss.outputs, ss.inputs),
                          ("F", ss.F, ss.outputs, ss.inputs)])
    return parts


def _linear_law(which: str, rates: bool, show: _Printer, nonlinear: bool = False) -> str:
    """``x' = A x + B u (+ E u') (+ G n)`` (``which="x"``) or ``y = C x + D u (+ F u')``,
    the matrices bold in LaTeX."""
    if show.is_latex:
        A, B, E = (matrix_tex(n) for n in ("ABE" if which == "x" else "CDF"))
        lhs = r"\dot{x}" if which == "x" else "y"
        return (f"{lhs} = {A} x + {B} u" + (rf" + {E} \dot{{u}}" if rates else "")
                + (rf" + {matrix_tex('G')} n" if nonlinear else ""))
    A, B, E = ("ABE" if which == "x" else "CDF")
    return (("x'" if which == "x" else "y") + f" = {A} x + {B} u" + (f" + {E} u'" if rates else "")
            + (" + G n" if nonlinear else ""))


#: Transfer functions are listed in the parameters' symbols up to this many states (above,
#: with the parameters' values alone: the symbolic elimination grows fast with the order).
TRANSFER_SYMBOLIC_STATES = 6


def transfer_functions(ss: Any, style: str = "text", values: dict | None = None,
                       digits: int | None = DIGITS) -> str:
    """The transfer functions ``H(s) = Y(s)/U(s)`` (zero initial state) of a linear
    state-space model from each input to each output, one line each: in the parameters'
    symbols (up to :data:`TRANSFER_SYMBOLIC_STATES` states), then with the parameter
    ``values`` put in (when they give every parameter a number).

    Parameters
    ----------
    ss : StateSpace
        A linear model with inputs and outputs (:meth:`Network.state_space`).
    style : {"text", "latex"}
    values : dict, optional
        Parameter symbol (or name) -> number; values of the inputs' symbols are ignored.
    digits : int or None
        Significant digits of floating-point numbers (``None``: all).

    Returns
    -------
    str

    Raises
    ------
    OutputError
        ``style`` is neither, or the model has no input or no output.
    FormulationError
        The model is nonlinear.

    Examples
    --------
    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=0.5),
    ...             vn.Capacitor("C", "g", "b", C=4.0))
    >>> ss = net.state_space(outputs=["C.across"], symbolic=True)
    >>> print(transfer_functions(ss, values={"R": 0.5, "C": 4.0}))
    Transfer functions H(s) = output(s)/input(s), zero initial state:
      C.across/V.across = 1/(C*R*s + 1)
    With the parameter values (C = 4, R = 0.5):
      C.across/V.across = 1/(2*s + 1)
    """
    if style not in ("text", "latex"):
        raise OutputError(f"style is 'text' or 'latex', not {style!r}")
    if not ss.inputs or not ss.outputs:
        raise OutputError(f"the model has {len(ss.inputs)} input(s) and {len(ss.outputs)} "
                          "output(s): transfer functions need at least one of each")
    show = _Printer(style, digits)
    for u, du in zip(ss.u, ss.du):
        show.rate_of(u, du)
    rows: list = []

    def listing(H: Any) -> None:
        rows.extend(_transfer_rows(H, show))

    heading = "Transfer functions H(s) = output(s)/input(s), zero initial state"
    law = (r"H(s) = \frac{Y(s)}{U(s)}", "H(s) = output(s)/input(s)")

    def title(words: str, values: list) -> str:
        """A heading: the words in bold, then the values typeset (LaTeX), as many a row as
        fit."""
        if not show.is_latex:
            return _heading(show, words + f" ({', '.join(v[1] for v in values)})")
        return _heading(show, words) + " \\\\\n&\\quad " + _say(show, *values)

    free = set().union(*(m.free_symbols for m in (ss.A, ss.B, ss.C, ss.D, ss.E, ss.F)))
    # the elements' own numbers, then the values given, matched to the symbols by name
    by_name = {str(k): v for k, v in {**ss.values, **(values or {})}.items()}
    given = {x: by_name[str(x)] for x in free if str(x) in by_name}
    numeric = bool(free) and len(given) == len(free)
    symbolic = len(ss.x) <= TRANSFER_SYMBOLIC_STATES or not free
    if symbolic:
        rows.append(_heading(show, heading) if not show.is_latex else
                    _heading(show, "Transfer functions", law[0] + r"\quad\text{(zero initial "
                                                                  r"state)}"))
        listing(ss.transfer_function())
    if numeric:
        pairs_given = sorted(given.items(), key=lambda kv: str(kv[0]))
        shown = [_math(f"{show(k)} = " + (show(sympy.Float(v)) if isinstance(v, float)
                                          else show(v)) + (r",\ " if i < len(pairs_given) - 1
                                                           else ""),
                       f"{k} = {v:g}" if isinstance(v, (int, float)) else f"{k} = {v}")
                 for i, (k, v) in enumerate(pairs_given)]
        words = ("With the parameter values" if symbolic
                 else ("Transfer functions, zero initial state, with the parameter values"
                       if show.is_latex else f"{heading}, with the parameter values"))
        rows.append(title(words, shown))
        exact = ss.subs(given).transfer_function()
        listing(exact.applyfunc(lambda e: e.evalf() if e.has(sympy.Rational) else e))
    if not rows:
        rows.append(_say(show, "Transfer functions ", _math(*law), ", zero initial state: "
                               f"not listed ({len(ss.x)} states and parameters without "
                               "values)"))
    return _finish(rows, show)


def _transfer_rows(H: Any, show: _Printer) -> list:
    """One row per output and input of a :class:`~vecnet.formulation.transfer.TransferMatrix`:
    ``output/input = H(s)``."""
    rows: list = []
    for i, o in enumerate(H.outputs):
        for j, u in enumerate(H.inputs):
            entry = show(H[i, j])
            if H.response is None:
                rows.append((rf"\frac{{{name_tex(o)}}}{{{name_tex(u)}}}(s)", entry)
                            if show.is_latex else (f"{o}/{u}", entry))
            else:   # y(t) for the input u
                rows.append((rf"{name_tex(o)}(t)\ [\text{{{text_tex(H.response)} in }}"
                             rf"{name_tex(u)}]", entry) if show.is_latex
                            else (f"{o}(t) [{H.response} in {u}]", entry))
    return rows


def _transfer_matrix(H: Any, show: _Printer) -> str:
    """Every entry of a transfer matrix (or of its responses in time), output over input."""
    return _finish(_transfer_rows(H, show), show)


def _untidy_note(show: _Printer) -> str:
    return _note(show, f"({_count(show.untidy, 'nested fraction')} of more than "
                       f"{TIDY_TERMS} terms left unsimplified)")


def _count(n: int, noun: str, plural: str = "") -> str:
    """``"1 state"``, ``"1,200 states"``."""
    return f"{n:,} " + (noun if n == 1 else plural or noun + "s")


def _parts(parts: list[str], show: _Printer) -> str:
    """The parts of a state-space listing: apart by a blank line, or gathered in LaTeX."""
    if show.untidy:
        parts = parts + [_untidy_note(show)]
    if show.is_latex:
        return "\\begin{gathered}\n" + " \\\\[1ex]\n".join(parts) + "\n\\end{gathered}"
    return "\n\n".join(parts)


def _vectors(ss: Any, show: _Printer) -> str:
    """``x = (...)``, ``u = (...)``, ``z`` and ``y`` of a state-space model."""
    outputs = [_named(o, show) for o in ss.outputs]
    vectors = [("x", ss.x), ("u", ss.u), ("z", ss.z), ("y", outputs)]
    if show.is_latex:
        return r",\quad ".join(f"{v} = {_column(s, show)}" for v, s in vectors if s)
    return "\n".join(f"{v} = {_column(s, show)}" for v, s in vectors if s)


def _named(name: str, show: _Printer, order: int = 0) -> sympy.Symbol:
    """A symbol shown as the variable name ``name`` (``"C6.across"``), or as its rate
    (``order=1``)."""
    symbol = sympy.Symbol(name + "'" * order)
    show.rename(symbol, (r"\dot{%s}" if order else "%s") % name_tex(name))
    return symbol


def _sparse_state_space(ss: Any, show: _Printer, summary: bool | None = None) -> str:
    """The equations of a :class:`~vecnet.formulation.numeric.SparseStateSpace` row by
    row (the first :data:`SUMMARY_ROWS` of a large one), the names, and the size and
    number of nonzero entries of each matrix."""
    n = len(ss.states)
    reason = _why(ss, summary)
    shown = SUMMARY_ROWS if reason else None
    x = [_named(s, show) for s in ss.states]
    u = [_named(i, show) for i in ss.inputs]
    du = [_named(i, show, order=1) for i in ss.inputs]
    linear = ss.is_linear
    matrices = [("A", ss.A, x), ("B", ss.B, u), ("E", ss.E, du)]
    outputs = [("C", ss.C, x), ("D", ss.D, u), ("F", ss.F, du)] if linear and ss.outputs else []

    def equations(lhs, parts):
        """``lhs = sum of coefficient * symbol`` for the first rows of the matrices."""
        rows = []
        for i, name in enumerate(lhs[:shown]):
            terms = [sympy.Float(float(value)) * symbols[j] for _, m, symbols in parts
                     for j, value in zip(m.indices[m.indptr[i]:m.indptr[i + 1]],
                                         m.data[m.indptr[i]:m.indptr[i + 1]])]
            rows.append((show(name), show(sympy.Add(*terms))))
        return rows

    rates = [_named(s, show, order=1) for s in ss.states]
    rows: list = [_heading(show, f"State equations ({_count(n, 'state')}, with the parameter "
                                 f"values{'; linear part' if not linear else ''}"
                                 f"{_first(shown, n)})")]
    rows += equations(rates, matrices)
    if outputs:
        names = [_named(o, show) for o in ss.outputs]
        rows.append(_heading(show, f"Outputs ({len(names)}{_first(shown, len(names))})"))
        rows += equations(names, outputs)
    if reason:
        rows.append(_say(show, f"Summary ({reason}): the other equations are left out (",
                         _code("summary=False"), " lists them)"))
    law = _linear_law("x", bool(ss.E.nnz), show, nonlinear=not linear)
    if outputs:
        law += (r",\quad " if show.is_latex else ",  ") + _linear_law("y", bool(ss.F.nnz), show)
    sizes = [(name, m) for name, m, _ in matrices + outputs if name not in "EF" or m.nnz]
    if not linear:
        sizes.append(("G", ss.nonlinear.G))
    lines = [law] + [
        _say(show, _math(matrix_tex(name), name), ": ",
             _math(rf"{m.shape[0]} \times {m.shape[1]}", f"{m.shape[0]} x {m.shape[1]}"),
             f", {_count(m.nnz, 'nonzero entry', 'nonzero entries')}"
             + (f" ({100 * m.nnz / (m.shape[0] * m.shape[1]):.2g} %)"
                if m.shape[0] * m.shape[1] else ""))
        for name, m in sizes]
    if not linear:
        lines.append(_say(show, _math("n", "n"), ": the primary variables of the nonlinear "
                                                 "dissipators " + ", ".join(ss.nonlinear.names)))
    vectors = [("x", x), ("u", u), ("y", [_named(o, show) for o in ss.outputs])]
    listing = (r",\quad " if show.is_latex else "\n").join(
        f"{v} = {_column(s, show)}" for v, s in vectors if s)
    return _parts([_finish(rows, show), listing, _finish(lines, show)], show)


# -- multibody equations ------------------------------------------------------------------------
_COORDINATE_TEX = {"x": "x", "y": "y", "z": "z", "angle": r"\theta", "distance": "s",
                   "dx": r"\Delta x", "dy": r"\Delta y", "dz": r"\Delta z"}
#: the two angles of a universal joint: theta with the owner and the index
_INDEXED_TEX = {"angle1": (r"\theta", "1"), "angle2": (r"\theta", "2")}


#: components of vector coordinates and speeds: angular velocity, velocity, quaternion
_COMPONENT_TEX = {"w": r"\omega", "v": "v", "q": "q"}


def _coordinate_tex(name: str) -> str:
    r"""``\theta_{\mathrm{J}}`` for ``"J.angle"``, ``\omega_{\mathrm{ball},x}`` for
    ``"ball.wx"`` (``\omega_{\mathrm{ball},1}`` for the body-axis ``"ball.w1"``),
    ``q_{\mathrm{ball},w}`` for ``"ball.qw"``; other names upright."""
    owner, _, what = name.rpartition(".")
    symbol = _COORDINATE_TEX.get(what)
    if owner and what in _INDEXED_TEX:
        head, index = _INDEXED_TEX[what]
        return rf"{head}_{{{name_tex(owner)},{index}}}"
    if owner and symbol is None and len(what) == 2 and what[0] in _COMPONENT_TEX and \
            what[1] in {"q": "wxyz", "w": "xyz123"}.get(what[0], "xyz"):
        return rf"{_COMPONENT_TEX[what[0]]}_{{{name_tex(owner)},{what[1]}}}"
    if symbol is None or not owner:
        return name_tex(name)
    return rf"{symbol}_{{{name_tex(owner)}}}"


def _terms(expressions: Iterable[sympy.Basic], cap: int) -> int:
    """The nodes of the expression trees (a repeated subexpression counted each time, as
    the printers write it), counted up to just above ``cap``."""
    count, stack = 0, list(expressions)
    while stack and count <= cap:
        count += 1
        stack.extend(stack.pop().args)
    return count


def _beam_words(eom: Any) -> str | None:
    """Why a mechanism's ``M`` and ``Q`` are not written out when it has beams, whose
    terms are numbers alone (:meth:`~vecnet.formulation.multibody.MultibodyEquations.refuse_beams`)."""
    beams = getattr(eom.mechanism, "beams", None)
    if not beams:
        return None
    return (f"the beams {', '.join(map(repr, beams))} add their inertia and end loads in "
            "numbers, not in symbols")


def _long_matrices(eom: Any) -> str | None:
    """Why the full ``M`` and ``Q`` are summarized: more than :data:`SUMMARY_TERMS` terms
    in them and the constraints (``None`` when fewer), or beams, whose terms are numbers
    alone (:meth:`~vecnet.formulation.multibody.MultibodyEquations.refuse_beams`)."""
    if _beam_words(eom):
        return _beam_words(eom)
    if _terms(list(eom.M) + list(eom.Q) + list(eom.constraints), SUMMARY_TERMS) > SUMMARY_TERMS:
        return f"M, Q and the constraints hold more than {SUMMARY_TERMS:,} terms"
    return None


def _kind_words(element: Any) -> str:
    """An element's kind in words: ``"spherical"``, ``"torque driver"``."""
    name = type(element).__name__.removeprefix("Spatial")
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).lower()


def _structure(mechanism: Any, show: _Printer) -> list[str]:
    """Lines naming the bodies, and the joints and the loads and drivers by kind."""
    groups: dict[str, dict[str, list[str]]] = {"Joints": {}, "Loads and drivers": {}}
    for element in mechanism.network.elements:
        if element.tree_role not in ("mass", "arm"):
            group = groups["Joints" if element.is_joint else "Loads and drivers"]
            group.setdefault(_kind_words(element), []).append(element.name)
    lines = [f"Bodies ({len(mechanism.bodies)}): {', '.join(mechanism.bodies) or 'none'}"]
    for title, kinds in groups.items():
        if kinds:
            lines.append(f"{title} ({sum(map(len, kinds.values()))}): " + "; ".join(
                f"{kind} {', '.join(names)}" for kind, names in kinds.items()))
    return [_note(show, line) for line in lines]


def _mechanism_names(eom: Any, show: _Printer) -> list:
    """Rows naming the coordinates and, when they are not the coordinates' rates, the
    speeds; the speeds (and their rates) are named in ``show`` for what follows. A speed
    is written without a prime (``ball.wx``, ``\\omega_{\\mathrm{ball},x}``) unless it is a
    coordinate's rate (``pin.angle'``, ``\\dot{\\theta}_{\\mathrm{pin}}``)."""
    speeds = None if eom.speeds_are_rates else eom.speed_names
    for q, name in zip(eom.q, eom.coordinates):
        show.rename(q, _coordinate_tex(name))
    for u, name in zip(eom.u, eom.speed_names):
        show.rename(u, _speed_tex(name))
        if not show.is_latex:
            show.swap[u] = sympy.Symbol(name)     # not the symbol's own name, which ends in '
    n = len(eom.u)
    if show.is_latex:
        q_list = ", ".join(show(q) for q in eom.q) or r"\text{none}"
        rows: list = [_heading(show, f"Coordinates ({len(eom.q)})", rf"q = ({q_list})")]
        if speeds is not None:
            u_list = ", ".join(show(u) for u in eom.u) or r"\text{none}"
            rows.append(_heading(show, f"Speeds ({n})", rf"u = ({u_list})"))
    else:
        rows = [f"Coordinates ({len(eom.q)}): q = ({', '.join(eom.coordinates)})"]
        if speeds is not None:
            rows.append(f"Speeds ({n}): u = ({', '.join(speeds)})")
    return rows


def _speed_tex(name: str, order: int = 0) -> str:
    """LaTeX of a speed named ``name`` (a coordinate's rate ``"J.angle'"`` gets a dot) and
    of its rate (``order=1``)."""
    dots = name.count("'") + order
    head, sep, sub = _split_sub(_coordinate_tex(name.rstrip("'")))
    if dots:
        head = rf"\{'d' * (dots - 1)}dot{{{head}}}" if dots <= 3 else rf"{head}^{{({dots})}}"
    return head + (sep + sub if sep else "")


#: how named quantities of the recursive form are written: LaTeX, text
_QUANTITY_NAMES = {
    "R": ("R", "R"), "theta": (r"\theta", "theta"), "r": ("r", "r"), "omega": (r"\omega", "omega"),
    "v": ("v", "v"), "alpha": (r"\alpha", "alpha"), "a": ("a", "a"), "p": ("p", "p"),
    "h": ("h", "h"), "pdot": (r"\dot{p}", "p'"), "hdot": (r"\dot{h}", "h'"),
    "wbar": (r"\bar{\omega}", "Omega"), "f": ("f", "f"), "n": ("n", "n"), "F": ("F", "F"),
    "T": ("T", "T"), "m": ("m", "m"), "J": ("J", "J"), "g": (r"\mathbf{g}", "g")}


class _TermWriter:
    """Writes the terms of :mod:`vecnet.formulation.recursion` through a :class:`_Printer`."""

    def __init__(self, show: _Printer) -> None:
        self.show = show
        self.is_latex = show.is_latex

    def __call__(self, expr: Any) -> str:
        return self.show(expr)

    def matrix(self, matrix: sympy.MatrixBase) -> str:
        return _small_matrix(matrix, self.show)

    def quantity(self, quantity: Any) -> str:
        tex, plain = _QUANTITY_NAMES.get(quantity.base, (quantity.base, quantity.base))
        owner = quantity.owner
        if self.is_latex:
            out = tex + (f"_{{{name_tex(owner)}}}" if owner else "")
            return out + (r"^{\mathsf{T}}" if quantity.transposed else "")
        if plain.endswith("'"):          # a rate: p_rod1'
            out = plain[:-1] + (f"_{owner}" if owner else "") + "'"
        else:
            out = plain + (f"_{owner}" if owner else "")
        return out + ("^T" if quantity.transposed else "")


def _small_matrix(matrix: sympy.MatrixBase, show: _Printer) -> str:
    """A matrix or vector in a line: a ``bmatrix`` whose fractions are set at text size
    (``\\displaystyle``), or ``(a, b, c)`` for a column and ``[a, b; c, d]`` in text."""
    cells = [[show(matrix[i, j]) for j in range(matrix.cols)] for i in range(matrix.rows)]
    if show.is_latex:
        body = r" \\ ".join(" & ".join(_text_size(c) for c in row) for row in cells)
        return r"\begin{bmatrix}" + body + r"\end{bmatrix}"
    if matrix.cols == 1:
        return "(" + ", ".join(row[0] for row in cells) + ")"
    return "[" + "; ".join(", ".join(row) for row in cells) + "]"


def _text_size(cell: str) -> str:
    """A matrix entry set at text size when it holds a fraction (not script size)."""
    return r"\displaystyle " + cell if r"\frac" in cell else cell


def _parameter_rows(ne: Any, show: _Printer, writer: _TermWriter) -> list:
    """``m_b = ..., J_b = ...`` per body and gravity, one line each."""
    rows: list = []
    by_owner: dict[str, list[str]] = {}
    for quantity, value in ne.parameters:
        if quantity.base == "J" and ne.dimensions == 3 and value.is_diagonal():
            shown = (r"\mathrm{diag}" if show.is_latex else "diag") + \
                "(" + ", ".join(show(value[i, i]) for i in range(3)) + ")"
        elif isinstance(value, sympy.MatrixBase):
            shown = _small_matrix(value, show)
        else:
            shown = show(value)
        by_owner.setdefault(quantity.owner, []).append(f"{writer.quantity(quantity)} = {shown}")
    sep = r",\quad " if show.is_latex else ",  "
    for owner, items in by_owner.items():
        if show.is_latex:
            rows.append((items[0].split(" = ", 1)[0],
                         sep.join([items[0].split(" = ", 1)[1]] + items[1:])))
        else:
            first, rest = items[0].split(" = ", 1)
            rows.append((first, sep.join([rest] + items[1:])))
    return rows


_SECTIONS = {
    "kinematics": ("Forward pass: pose, twist and acceleration along the tree",
                   "each from its parent's and the branch's own motion"),
    "momentum": ("Momentum of each body and its rate", "about the mass centre, world axes"),
    "loads": ("Loads", "force laws of the springs, dampers and drivers"),
    "reactions": ("Backward pass: reactions from the cutsets",
                  "what each joint pushes beyond it: rates of momentum less weights and loads, "
                  "moments about the joint's point"),
}


def _multibody(eom: Any, show: _Printer, matrix_form: bool | None = None,
               simplify: bool | None = None, summary: bool | None = None) -> str:
    """A mechanism's equations as a lecturer writes them, ``M(q) u' = Q`` (with
    ``Phi_u^T lambda`` and the constraints where there are loops), tidied within bounds
    (:mod:`vecnet.output.tidy`) and shown whenever they fit on a page, then the same
    equations in the recursive Newton-Euler form (:mod:`vecnet.formulation.recursion`),
    which grows only linearly with the bodies. ``matrix_form=True`` lists the full ``M``
    and ``Q`` alone, without the page's bound; ``matrix_form=False`` the recursive form
    alone; a summary when asked for or very large."""
    from ..errors import FormulationError
    from ..formulation.recursion import newton_euler

    reason = _why(eom, summary)
    if matrix_form or reason:
        return _matrix_listing(eom, show, simplify, summary)
    try:
        ne = newton_euler(eom)
    except FormulationError as error:   # rotors and port loads: the full M and Q
        listing = _matrix_listing(eom, show, simplify, summary)
        note = _note(show, f"({error}: M and Q are listed in full)")
        return listing.replace("\\end{aligned}", " \\\\\n&" + note + "\n\\end{aligned}") \
            if show.is_latex else listing + "\n" + note
    rows = _mechanism_names(eom, show)
    M, Q, constraints, why = _page_matrices(eom, show, simplify, matrix_form)
    rows.append(_heading(show, "Equations of motion", _law(eom, show)))
    if why is None:
        rows += _m_and_q_rows(eom, M, Q, show)
    else:
        n = len(eom.u)
        hint = ("; ", _code("speeds='body'"), " shortens them for ball joints and free bodies") \
            if getattr(eom, "speeds", "body") == "tail" and not eom.speeds_are_rates else ()
        beams = _beam_words(eom)
        rows.append(_say(show, "The mass matrix ", _math(r"\mathbf{M}", "M"), " (",
                         _math(rf"{n} \times {n}", f"{n} x {n}"), ") and the generalized "
                         "forces ", _math(r"\mathbf{Q}", "Q"), " are left out (", *why, *hint,
                         *(("); the recursive form below holds the bodies' terms, and each "
                            "beam element adds its own, from these terminal equations",)
                           if beams else
                           ("); the recursive form below is the same equations written out "
                            "step by step (", _code("matrix_form=True"), " lists them in full)"))))
        if beams:
            element = next(e for e in eom.mechanism.network.elements if isinstance(e, BeamLaw))
            rows += [_say(show, line) for line in element.terminal_equations()]
    rows += _constraint_rows(eom, constraints, show)
    # velocity constraints are long and not tidied by default (trigsimp on request)
    rows += _velocity_constraint_rows(eom, show, sympy.trigsimp if simplify else lambda e: e)
    rows += _recursive_rows(eom, ne, show)
    return _finish(rows, show)


#: Mechanisms whose mass matrix can have at most this many nonzero entries on and above its
#: diagonal (:func:`mass_matrix_pattern`) have their ``M`` and ``Q`` built and shown when they
#: fit on a page: a dense 9 x 9 (a chain of nine pins), or the diagonal of 45 absolute
#: coordinates, whose ``M`` holds the constant masses and inertias alone.
PAGE_MASS_ENTRIES = 45
#: ... and, in space, at most this many terms in the Jacobians of the nodes' velocities, which
#: are built before ``M`` and ``Q`` and whose products fill them: counting them first keeps a
#: mechanism whose ``M`` could never fit a page from building it.
PAGE_KINEMATICS_TERMS = 1_500
#: ``M``, ``Q`` and the constraints, tidied, are shown when they hold at most this many
#: terms (nodes of their expression trees) ...
PAGE_TERMS = 1_500
#: ... and their listing takes at most this many characters (about a printed page of
#: typeset formulas).
PAGE_CHARACTERS = 6_000
#: ``M`` or ``Q`` is written as a matrix when it has at most :data:`MATRIX_FORM_LIMIT` rows
#: and every row of it is at most this wide (em, :func:`vecnet.output.pagefit.tex_width`);
#: otherwise entry by entry.
MATRIX_ROW_WIDTH = 34.0


def _law(eom: Any, show: _Printer) -> str:
    """``M(q) u' = Q(q, u, t) (+ Phi_u^T lambda)``, with ``q' = N(q) u`` when the speeds are
    not the coordinates' rates; the matrices bold (a user's symbol ``M`` stays italic)."""
    loops = bool(eom.constraint_names) or bool(getattr(eom, "velocity_constraint_names", ()))
    if show.is_latex:
        law = r"\mathbf{M}(q)\,\dot{u} = \mathbf{Q}(q, u, t)" + (
            r" + \boldsymbol{\Phi}_u^{\mathsf{T}} \lambda" if loops else "")
        return law if eom.speeds_are_rates else \
            r"\dot{q} = \mathbf{N}(q)\,u,\quad " + law
    law = "M(q) u' = Q(q, u, t)" + (" + Phi_u^T lambda" if loops else "")
    return law if eom.speeds_are_rates else "q' = N(q) u,  " + law


def _tidied(eom: Any, expressions: list, simplify: bool | None) -> list:
    """``expressions`` of ``eom`` tidied within :data:`vecnet.output.tidy.TOTAL_TERMS`."""
    from .tidy import quaternions_of, tidy_all

    if simplify is False:
        return list(expressions)
    return tidy_all(expressions, quaternions_of(eom), eom.u, trig=bool(simplify))[0]


def _kinematics_terms(eom: Any, cap: int) -> int:
    """The terms of a spatial mechanism's node velocity Jacobians, counted up to ``cap``
    (0 in the plane, whose ``M`` is built from angles alone)."""
    angular = getattr(eom, "node_angular_jacobian", None)
    if angular is None:
        return 0
    matrices = list(angular.values()) + list(eom.node_velocity_jacobian.values())
    return _terms([x for J in matrices for x in J], cap)


def mass_matrix_pattern(eom: Any) -> set[tuple[int, int]]:
    """The entries ``(i, j)``, ``i <= j``, of a mechanism's mass matrix that can be nonzero,
    read off the tree alone (nothing symbolic is built): speeds ``i`` and ``j`` both on the
    tree path from the datum to a body's mass centre, or to either end of a joint with a
    rotor. In absolute coordinates every body's path is its own branch, so ``M`` is block
    diagonal; in joint coordinates a chain's ``M`` is dense.

    >>> import vecnet as vn
    >>> mech = vn.planar.Mechanism("p", gravity=(0, -9.81))
    >>> link = mech.body("link", mass=1.0, inertia=0.1, position=(0.5, 0))
    >>> _ = mech.revolute("pin", mech.ground.point(0, 0), link.point(-0.5, 0))
    >>> sorted(mass_matrix_pattern(mech.formulate(coordinates="absolute")))
    [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]
    """
    speeds_of = getattr(eom, "speed_index", None)  # in space; in the plane speeds are rates
    path: dict = {DATUM: frozenset()}
    for here, there, branch, _, positions in eom.walk:
        path[there] = path[here] | frozenset(
            speeds_of[branch] if speeds_of is not None else positions)
    ends = eom.mechanism.network.graph.ends
    groups = [path.get(body, frozenset()) for body in eom.mechanism.bodies] + [
        path.get(a, frozenset()) | path.get(b, frozenset())
        for a, b in map(ends, eom.rotors)]
    return {(i, j) for group in groups for i in group for j in group if i <= j}


def _page_matrices(eom: Any, show: _Printer, simplify: bool | None,
                   matrix_form: bool | None) -> tuple:
    """``(M, Q, constraints, why)``: the tidied ``M``, ``Q`` and constraints when they fit
    on a page (``why`` is ``None``), else the constraints alone (tidied when short) and
    why ``M`` and ``Q`` are left out. ``M`` and ``Q`` are built only below the bounds
    :data:`PAGE_MASS_ENTRIES` and :data:`PAGE_KINEMATICS_TERMS`."""
    n = len(eom.u)
    constraints = list(eom.constraints) if eom.constraint_names else []
    why: tuple | None = None
    if matrix_form is False:
        why = (_code("matrix_form=False"),)
    elif _beam_words(eom):
        why = (_beam_words(eom),)
    elif len(mass_matrix_pattern(eom)) > PAGE_MASS_ENTRIES:
        why = (f"{n} speeds whose mass matrix has more than {PAGE_MASS_ENTRIES} entries that "
               "can be nonzero: more than a page",)
    elif _kinematics_terms(eom, PAGE_KINEMATICS_TERMS) > PAGE_KINEMATICS_TERMS:
        why = (f"the velocities of the bodies alone hold more than {PAGE_KINEMATICS_TERMS:,} "
               "terms: more than a page",)
    if why is None:
        tidied = _tidied(eom, list(eom.M) + list(eom.Q) + constraints, simplify)
        M = sympy.Matrix(n, n, tidied[:n * n])
        Q = sympy.Matrix(tidied[n * n:n * n + n])
        constraints = tidied[n * n + n:]
        if _terms(list(M) + list(Q), PAGE_TERMS) > PAGE_TERMS:
            why = (f"they hold more than {PAGE_TERMS:,} terms: more than a page",)
        elif sum(len(show(x)) for x in list(M) + list(Q)) > PAGE_CHARACTERS:
            why = ("more than a page",)
        else:
            return M, Q, constraints, None
    elif _terms(constraints, PAGE_TERMS) <= PAGE_TERMS:
        constraints = _tidied(eom, constraints, simplify)
    return None, None, constraints, why


def _matrix_fits(matrix: sympy.MatrixBase, show: _Printer) -> bool:
    """Whether a matrix reads well as one: at most :data:`MATRIX_FORM_LIMIT` rows, each at
    most :data:`MATRIX_ROW_WIDTH` em wide (in text, 2 characters an em)."""
    from .pagefit import tex_width

    if matrix.rows > MATRIX_FORM_LIMIT:
        return False
    for i in range(matrix.rows):
        cells = [show(matrix[i, j]) for j in range(matrix.cols)]
        width = sum(tex_width(c) + 1.0 for c in cells) if show.is_latex else \
            sum(len(c) + 2 for c in cells) / 2
        if width > MATRIX_ROW_WIDTH:
            return False
    return True


def _m_and_q_rows(eom: Any, M: sympy.MatrixBase, Q: sympy.MatrixBase, show: _Printer) -> list:
    """``M`` and ``Q`` as matrices where they read well as such (:func:`_matrix_fits`),
    otherwise entry by entry: ``M`` by rows on and above its diagonal (it is symmetric),
    zero entries left out."""
    # labelled by the coordinates when the speeds are their rates (crank.x, not crank.x')
    speeds = tuple(eom.coordinates if eom.speeds_are_rates else eom.speed_names)
    n = len(speeds)
    rows: list = []
    if not n:
        return rows
    if _matrix_fits(M, show):
        rows += [("\\mathbf{M}", _sympy_matrix(M, speeds, speeds, show))] if show.is_latex \
            else ["  M =", _sympy_matrix(M, speeds, speeds, show).replace("\n", "\n    ")]
    else:
        rows.append(_say(show, "The mass matrix ", _math(r"\mathbf{M}", "M"), " by rows, on and "
                         "above its diagonal (", _math(r"\mathbf{M}_{ji} = \mathbf{M}_{ij}",
                                                      "M[j, i] = M[i, j]"),
                         "; entries not listed are 0):"))
        for i in range(n):
            for j in range(i, n):
                if M[i, j] != 0:
                    lhs = rf"\mathbf{{M}}_{{{i + 1},{j + 1}}}" if show.is_latex \
                        else f"M[{speeds[i]}, {speeds[j]}]"
                    rows.append((lhs, show(M[i, j])))
    if _matrix_fits(Q, show):
        rows += [("\\mathbf{Q}", _sympy_matrix(Q, speeds, ["Q"], show))] if show.is_latex \
            else ["  Q =", _sympy_matrix(Q, speeds, ["Q"], show).replace("\n", "\n    ")]
    else:
        for i in range(n):
            lhs = rf"\mathbf{{Q}}_{{{i + 1}}}" if show.is_latex else f"Q[{speeds[i]}]"
            rows.append((lhs, show(Q[i])))
    return rows


def _constraint_rows(eom: Any, constraints: list, show: _Printer) -> list:
    """A heading and a row ``Phi_name = ...`` for each position constraint (none without)."""
    if not eom.constraint_names:
        return []
    law = r"\Phi(q, t) = 0,\quad \boldsymbol{\Phi}_u = \boldsymbol{\Phi}_q\,\mathbf{N}(q)" \
        if show.is_latex else "Phi(q, t) = 0, Phi_u = Phi_q N(q)"
    if eom.speeds_are_rates:
        law = r"\Phi(q, t) = 0,\quad \boldsymbol{\Phi}_u = \boldsymbol{\Phi}_q" \
            if show.is_latex else "Phi(q, t) = 0, Phi_u = Phi_q"
    rows: list = [_heading(show, f"Constraints ({len(eom.constraint_names)})", law)]
    for name, expr in zip(eom.constraint_names, constraints):
        lhs = rf"\Phi_{{{name_tex(name)}}}" if show.is_latex else f"Phi[{name}]"
        rows.append((lhs, show(expr)))
    return rows


def _recursive_rows(eom: Any, ne: Any, show: _Printer) -> list:
    """The recursive Newton-Euler form: the parameters, the named quantities of the forward
    pass, the momenta, the loads and the reactions of the backward pass, and one equation
    per group of a branch's speeds."""
    writer = _TermWriter(show)
    for du, name in zip(ne.rates, eom.speed_names):
        show.rename(du, _speed_tex(name, 1))
        if not show.is_latex:
            show.swap[du] = sympy.Symbol(name + "'")
    n = len(eom.u)
    loops = bool(eom.constraint_names)
    rows: list = [_heading(show, "The same equations in the recursive Newton-Euler form")]
    rows.append(_say(show, "Every quantity is computed from those above it; stacked in the "
                           "order of the speeds, the equations of motion at the end are ",
                     _math(r"\mathbf{M}\,\dot{u} = \mathbf{Q}" + (
                         r" + \boldsymbol{\Phi}_u^{\mathsf{T}} \lambda" if loops else ""),
                         "M u' = Q" + (" + Phi_u^T lambda" if loops else "")),
                     "; a dot (a prime) is a rate."))
    if ne.dimensions == 2:
        rows.append(_say(show, "In the plane angles and angular velocities are numbers "
                               "(about z): ",
                         _math(r"\omega \times d = \omega\,(-d_y,\ d_x),\quad "
                               r"d \times f = d_x f_y - d_y f_x",
                               "w x d = w (-d_y, d_x), d x f = d_x f_y - d_y f_x"), "."))
    rows.append(_heading(show, "Parameters"))
    rows += _parameter_rows(ne, show, writer)
    if ne.quaternion_rotation:
        w, x, y, z = sympy.symbols("w x y z", real=True)
        from ..core.rotations import quaternion_matrix
        from .html_pieces import FORMULA_WIDTH
        from .pagefit import tex_width

        R = quaternion_matrix((w, x, y, z))
        name = r"R_q(w, x, y, z)" if show.is_latex else "Rq(w, x, y, z)"
        whole = _small_matrix(R, show)
        if not show.is_latex or tex_width(whole) <= (show.width or FORMULA_WIDTH) - 8:
            rows.append((name, whole))
        else:   # wider than the page: column by column
            rows.append((name, r"\begin{bmatrix}c_1 & c_2 & c_3\end{bmatrix}"))
            rows += [(f"c_{j + 1}", _small_matrix(R[:, j], show)) for j in range(3)]
    section = None
    for d in ne.definitions:
        if d.section != section:
            section = d.section
            title, note = _SECTIONS[section]
            rows.append(_heading(show, title))
            rows.append(_note(show, f"({note})"))
        rows.append((writer.quantity(d.quantity), d.term.write(writer)))
    rows.append(_heading(show, f"Equations of motion, recursive form ({n})"))
    body_axes = getattr(eom, "speeds", "tail") == "body"
    law = _math(r"W^{\mathsf{T}} R^{\mathsf{T}} n + V^{\mathsf{T}} R^{\mathsf{T}} f = "
                + (r"(\boldsymbol{\Phi}_u^{\mathsf{T}} \lambda)" if loops else "0"),
                "W^T R^T n + V^T R^T f = " + ("(Phi_u^T lambda)" if loops else "0"))
    rows.append(_say(show, "The joints' free directions carry no reaction: ", law, " (",
                     _math("W, V", "W, V"), ": a joint's turn and slide per unit speed"
                     + ("; with body-axis speeds a ball joint's " if body_axes else ")"),
                     *((_math("W", "W"), " is its rotation, and its equation holds the "
                        "moment in the body's axes)") if body_axes else ())))
    for eq in ne.equations:
        rhs = "0"
        if eq.loops:
            rhs = (rf"(\boldsymbol{{\Phi}}_u^{{\mathsf{{T}}}} \lambda)_{{{name_tex(eq.branch)}}}"
                   if show.is_latex else f"(Phi_u^T lambda)[{eq.branch}]")
        lhs = eq.lhs.write(writer) if eq.lhs is not None else "0"
        rows.append((lhs, rhs))
    return rows


def _say(show: _Printer, *pieces: str | _Math) -> str:
    """A line of words with formulas in it: the words as ``\\text``, the formulas typeset
    (LaTeX), or all as plain text. One row: the listing's rows are broken to the page's
    width where they are gathered (:func:`_finish`, by
    :func:`vecnet.output.pagefit.break_rows`, at the words' spaces and between formulas;
    a LaTeX row cannot wrap)."""
    if not show.is_latex:
        return "".join(p[1] if isinstance(p, _Math) else p for p in pieces)
    return "".join(p[0] if isinstance(p, _Math) else rf"\text{{{text_tex(p)}}}"
                   for p in pieces if p)


class _Math(tuple):
    """A formula in a line of words: its LaTeX and its text."""


def _math(tex: str, plain: str) -> _Math:
    return _Math((tex, plain))


def _code(words: str) -> _Math:
    """An option as a reader types it (``matrix_form=True``), in a typewriter face: code,
    not a formula."""
    return _Math((rf"\texttt{{{text_tex(words)}}}", words))


def _velocity_constraint_rows(eom: Any, show: _Printer, tidy: Any) -> list:
    """The velocity (nonholonomic) constraints ``A(q) u + b = 0`` of rolling wheels, a
    heading and a row each (none without them)."""
    names = getattr(eom, "velocity_constraint_names", ())
    if not names:
        return []
    rows = [_heading(show, f"Velocity constraints ({len(names)})",
                     r"A(q)\,u + b = 0" if show.is_latex else "A(q) u + b = 0")]
    for name, expr in zip(names, eom.velocity_constraints):
        lhs = rf"(A u + b)_{{{name_tex(name)}}}" if show.is_latex else f"(A u + b)[{name}]"
        rows.append((lhs, show(tidy(expr))))
    return rows


def _matrix_listing(eom: Any, show: _Printer, simplify: bool | None = None,
                    summary: bool | None = None) -> str:
    """The coordinates, constraints and the full ``M`` and ``Q`` (as matrices where they
    read well as such, otherwise entry by entry), or a summary."""
    n = len(eom.u)
    reason = _why(eom, summary) or (_long_matrices(eom) if summary is None else None)
    rows = _mechanism_names(eom, show)
    tidy = sympy.trigsimp if simplify and not reason else (lambda e: e)
    if eom.constraint_names and reason:
        rows.append(_say(show, f"Constraints ({len(eom.constraint_names)}), ",
                         _math(r"\Phi(q, t) = 0", "Phi(q, t) = 0"),
                         f": {', '.join(eom.constraint_names)}"))
    elif eom.constraint_names:
        rows += _constraint_rows(eom, _tidied(eom, list(eom.constraints), simplify), show)
    if not reason:
        rows += _velocity_constraint_rows(eom, show, tidy)
    rows.append(_heading(show, "Equations of motion", _law(eom, show)))
    if reason:
        rows += _structure(eom.mechanism, show)
        left_out = ("the expressions of the mass matrix ", _math(r"\mathbf{M}", "M"),
                    " (", _math(rf"{n} \times {n}", f"{n} x {n}"), "), the generalized forces ",
                    _math(r"\mathbf{Q}", "Q"),
                    f" ({n})" + (" and the constraints" if eom.constraint_names else ""))
        rows.append(_say(show, f"Summary ({reason}): ", *left_out, " are left out (",
                         _code("summary=False"), " prints them)"))
        return _finish(rows, show)
    tidied = _tidied(eom, list(eom.M) + list(eom.Q), simplify)
    M, Q = sympy.Matrix(n, n, tidied[:n * n]), sympy.Matrix(tidied[n * n:])
    rows += _m_and_q_rows(eom, M, Q, show)
    return _finish(rows, show)


# -- operating points and linear models ----------------------------------------------------
def _values(pairs: Iterable[tuple[str, Any]], show: _Printer) -> list:
    """Rows ``name = number`` (a vector's entries in a row)."""
    rows = []
    for name, value in pairs:
        value = np.asarray(value, dtype=float)
        number = show(sympy.Float(float(value))) if value.ndim == 0 else \
            _small_matrix(sympy.Matrix([[sympy.Float(float(x)) for x in value.ravel()]]), show)
        rows.append((name_tex(name) if show.is_latex else name, number))
    return rows


def _operating_point(point: Any, show: _Printer) -> str:
    """A mechanism's operating point (coordinates, speeds, accelerations, multipliers) or a
    network's DC operating point (its variables, states and inputs), one value a row."""
    if not hasattr(point, "eom"):   # a network's DC point: its variables, states, inputs
        rows: list = [_heading(show, f"Operating point ({_count(len(point.variables), 'variable')})")]
        rows += _values(point.variables.items(), show)
        for title, values in (("States", point.states), ("Inputs", point.inputs)):
            if values:
                rows.append(_heading(show, title))
                rows += _values(values.items(), show)
        return _finish(rows, show)
    eom = point.eom
    kind = "Equilibrium" if point.u is None or not np.any(point.u) else "Steady motion"
    rows = [_heading(show, f"{kind} at t = {point.time:g}"),
            _heading(show, f"Coordinates ({len(eom.coordinates)})")]
    rows += _values(zip(eom.coordinates, point.q), show)
    for title, values in (("Speeds", point.u), ("Accelerations", point.a)):
        if values is not None and np.any(values):
            rows.append(_heading(show, title))
            rows += _values(zip(eom.speed_names, values), show)
    if len(point.lam):
        rows.append(_heading(show, f"Multipliers ({len(point.lam)})"))
        rows += _values(zip(eom.constraint_names, point.lam), show)
    return _finish(rows, show)


def _number_matrix(matrix: np.ndarray, show: _Printer) -> str:
    return _small_matrix(sympy.Matrix(np.asarray(matrix, dtype=float)).applyfunc(sympy.Float),
                         show)


def _linearization(lin: Any, show: _Printer) -> str:
    """``M z'' + C z' + K z = B w``: the matrices in numbers, the inputs ``w`` and the
    outputs (``basis z``) by name, and the natural frequencies."""
    d = lin.M.shape[0]
    law = r"M\,\ddot{z} + C\,\dot{z} + K\,z = B\,w" if show.is_latex else \
        "M z'' + C z' + K z = B w"
    rows: list = [_heading(show, f"Linear model ({_count(d, 'independent coordinate')})", law)]
    for name, matrix in (("M", lin.M), ("C", lin.C), ("K", lin.K), ("B", lin.B)):
        if matrix.size:
            rows.append((name, _number_matrix(matrix, show)))
    names = [("w", lin.inputs), ("y", lin.outputs)]
    for symbol, items in names:
        if items:
            shown = ", ".join(name_tex(i) if show.is_latex else str(i) for i in items)
            rows.append((symbol, f"({shown})"))
    if d:
        try:
            frequencies = lin.natural_frequencies()
        except (np.linalg.LinAlgError, ValueError):
            frequencies = None
        if frequencies is not None:
            rows.append((r"\omega_n" if show.is_latex else "omega_n",
                         _number_matrix(frequencies.reshape(1, -1), show)
                         + (r"\ " + unit_latex("rad/s") if show.is_latex
                            else " " + unit_text("rad/s"))))
    return _finish(rows, show)


#: the records shown, by the name of their class (:func:`vecnet.core.dispatch.class_named`,
#: the most specific class first): the printer and its options; a mechanism's elements
#: have no terminal equations of their own to show (``None``)
_SHOWN: dict[str, tuple[Callable[..., str], tuple[str, ...]] | None] = {
    "LabeledMatrix": (_matrix, ("labels", "brackets")),
    "NetworkEquations": (_network_equations, ("summary",)),
    "StateSpace": (_state_space, ("summary", "matrices")),
    "SparseStateSpace": (_sparse_state_space, ("summary",)),
    "MechanismEquations": (_multibody, ("matrix_form", "simplify", "summary")),
    "OperatingPoint": (_operating_point, ()),      # a mechanism's or a network's
    "Linearization": (_linearization, ()),
    "TransferMatrix": (_transfer_matrix, ()),
    "MechanismElement": None,
    "Element": (_element, ()),
}
