"""Matrices and equations as LaTeX and as aligned plain text, for lectures and notebooks.

:func:`latex` and :func:`text` accept

* a :class:`~vecnet.LabeledMatrix` (row and column labels, and the ``[1 | A_c]``
  partition bar of cutset and circuit matrices),
* a sympy equation or a list of them (aligned at the ``=`` sign),
* :class:`~vecnet.formulation.lumped.NetworkEquations` (cutset, circuit and
  terminal equations),
* :class:`~vecnet.formulation.lumped.StateSpace` (state equations and, for
  linear networks, ``A, B, C, D``),
* :class:`~vecnet.formulation.planar.MultibodyEquations` (coordinates,
  constraints, ``M`` and ``Q``; large matrices entry by entry).

Edge variables are functions of time in the equations (``v_R3(t)``); the
listings drop the ``(t)`` and write time derivatives as ``v_C6'`` (text) or
``\\dot{v}_{C6}`` (LaTeX). Floating-point numbers are shown to ``digits``
significant digits (:data:`vecnet.numbers.DIGITS` unless told; ``None`` keeps them
all); exact numbers (``pi/2``, ``1/3``) stay exact.

Names are text in the LaTeX, whatever characters they hold: sympy would write a
symbol's name raw (``\\input{...}``, ``$`` or ``}`` in a name would be read as
LaTeX), so every name that is not a plain identifier is set with
:func:`_name_tex`, its special characters escaped.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import sympy
from sympy.core.function import AppliedUndef

from .elements.base import t
from .matrix import LabeledMatrix
from .names import visible
from .numbers import DIGITS, round_floats

__all__ = ["latex", "text"]

#: Multibody matrices at most this size, with short entries, are shown as matrices.
MATRIX_FORM_LIMIT = 3
#: Longest LaTeX entry (characters) of a multibody matrix shown as a matrix.
MATRIX_ENTRY_LIMIT = 40
#: Larger labelled matrices or listings are not shown by notebooks (the text form is).
REPR_CELL_LIMIT = 2500
REPR_CHAR_LIMIT = 200_000


def latex(obj: Any, digits: int | None = DIGITS, **options: Any) -> str:
    """LaTeX for a labelled matrix, equations, network equations, a state-space model or
    multibody equations (math mode, without the surrounding ``$``).

    Parameters
    ----------
    obj : LabeledMatrix, sympy.Eq, list of sympy.Eq, NetworkEquations, StateSpace,
          MultibodyEquations, sympy expression or matrix
    digits : int or None
        Significant digits of floating-point numbers; ``None`` shows them all.
    options
        For a LabeledMatrix, ``labels=False`` drops the labels and brackets the
        entries; ``brackets=True`` keeps the labels outside stretching brackets. For MultibodyEquations, ``matrix_form=True``/``False`` forces or
        forbids writing ``M`` and ``Q`` as matrices (default: matrices when
        small), and ``simplify=True`` applies ``sympy.trigsimp`` to every entry
        (slow for large systems).

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
    """
    return _dispatch(obj, "latex", digits, options)


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
    if isinstance(obj, LabeledMatrix) and obj.shape[0] * obj.shape[1] > REPR_CELL_LIMIT:
        return None
    body = latex(obj)
    return None if len(body) > REPR_CHAR_LIMIT else f"$${body}$$"


def _dispatch(obj: Any, style: str, digits: int | None, options: dict[str, Any]) -> str:
    from .draw import OutputError
    from .formulation.lumped import NetworkEquations, StateSpace
    from .formulation.planar import MultibodyEquations
    from .formulation.spatial import SpatialEquations

    if digits is not None and (not isinstance(digits, int) or isinstance(digits, bool)
                               or digits < 1):
        raise OutputError(f"digits must be a positive integer or None; got {digits!r}")
    show = _Printer(style, digits)
    if isinstance(obj, LabeledMatrix):
        handler, allowed = _matrix, ("labels", "brackets")
    elif isinstance(obj, NetworkEquations):
        handler, allowed = _network_equations, ()
    elif isinstance(obj, StateSpace):
        handler, allowed = _state_space, ()
    elif isinstance(obj, (MultibodyEquations, SpatialEquations)):
        handler, allowed = _multibody, ("matrix_form", "simplify")
    elif isinstance(obj, sympy.Eq) or (
            isinstance(obj, (list, tuple)) and all(isinstance(e, sympy.Eq) for e in obj)):
        handler, allowed = _equation_list, ()
        obj = [obj] if isinstance(obj, sympy.Eq) else list(obj)
    elif isinstance(obj, (sympy.Basic, sympy.MatrixBase)):
        handler, allowed = _expression, ()
    else:
        raise OutputError(f"cannot show a {type(obj).__name__} as {style}; give a LabeledMatrix, "
                          "sympy equations, NetworkEquations, StateSpace or MultibodyEquations")
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise OutputError(f"unknown option(s) {', '.join(unknown)} for a {type(obj).__name__}; "
                          f"the options are {', '.join(allowed) or 'none'}")
    return handler(obj, show, **options)


# -- expressions ------------------------------------------------------------------------
class _Printer:
    """Prints sympy objects in one style, with functions of t shown as plain symbols."""

    def __init__(self, style: str, digits: int | None) -> None:
        self.style, self.digits = style, digits
        self.names: dict[sympy.Symbol, str] = {}  # LaTeX of the stand-in symbols
        self.swap: dict[sympy.Basic, sympy.Basic] = {}  # symbols shown under another name

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
        expr = self.prepare(expr)
        if self.is_latex:
            return self._latex(expr)
        return sympy.sstr(expr)

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
            out = out.replace(rf"\operatorname{{{stand_in}}}", _name_tex(name))
        return out

    def rename(self, symbol: sympy.Symbol, shown: str) -> None:
        """Show ``symbol`` as the LaTeX ``shown``."""
        self.names[symbol] = shown

    def rate_of(self, symbol: sympy.Symbol, rate: sympy.Symbol) -> None:
        """Show ``rate`` (a symbol standing for the derivative of ``symbol``) as ``symbol'``
        (``\\dot{symbol}`` in LaTeX)."""
        self.swap[rate] = self._stand_in(symbol.name, 1)


def _is_identifier(name: str) -> bool:
    """ASCII letters, digits, ``_`` and the ``.`` of port names, starting with a letter:
    what sympy's LaTeX printer may set by itself (``v_R3`` as ``v_{R3}``, ``alpha`` as
    ``\\alpha``, ``T_motor.m`` as ``T_{motor.m}``)."""
    return (name.isascii() and name[:1].isalpha()
            and all(c.isalnum() or c in "_." for c in name) and not name.endswith("_")
            and "__" not in name)


def _symbol_tex(name: str) -> str:
    """LaTeX for a symbol named ``name``: sympy's own for a plain identifier, the
    ``v_{...}`` subscript form with the rest escaped for an edge variable of an unusual
    edge name, and the whole name escaped otherwise. sympy would read a second ``_`` as a
    second subscript (``Q_my_pump`` as ``Q_{my pump}``): such names are escaped, so the
    subscript shows the edge name as written."""
    if _is_identifier(name) and "_" not in name.partition("_")[2]:
        return sympy.latex(sympy.Symbol(name))
    head, sep, rest = name.partition("_")
    if sep and rest and head.isascii() and head.isalpha():
        return f"{sympy.latex(sympy.Symbol(head))}_{{{_name_tex(rest)}}}"
    return _name_tex(name)


def _split_sub(tex: str) -> tuple[str, str, str]:
    """``head, "_", subscript`` of LaTeX from :func:`_symbol_tex` or
    :func:`_coordinate_tex`; an escaped name (``\\mathrm{...}``) is one piece (its
    ``\\_`` are characters of the name, not subscripts)."""
    if tex.startswith("\\mathrm{"):
        return tex, "", ""
    return tex.partition("_")


def _text_tex(words: str) -> str:
    """Text-mode LaTeX (inside ``\\text`` or ``\\textbf``) with special characters escaped."""
    special = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&",
               "#": r"\#", "%": r"\%", "_": r"\_", "~": r"\textasciitilde{}",
               "^": r"\textasciicircum{}"}
    return "".join(special.get(c, c) for c in visible(words))


def _name_tex(label: Hashable) -> str:
    """An edge, node or variable name in upright LaTeX, special characters escaped (lone
    surrogates and control characters first shown as ``\\uXXXX`` text)."""
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
        return rf"\textbf{{{_text_tex(words)}}}" + (rf"\quad {math}" if math else "")
    return f"{words}: {math}" if math else f"{words}:"


def _equation_rows(equations: Iterable[sympy.Eq], show: _Printer) -> list[tuple[str, str]]:
    return [(show(eq.lhs), show(eq.rhs)) for eq in equations]


def _finish(rows: list, show: _Printer) -> str:
    if show.is_latex:
        return _aligned_latex(rows)
    headed = any(isinstance(r, str) for r in rows)
    return "\n".join(_aligned_text(rows, indent="  " if headed else ""))


def _expression(obj: Any, show: _Printer) -> str:
    return show(obj)


def _equation_list(equations: list[sympy.Eq], show: _Printer) -> str:
    return _finish(_equation_rows(equations, show), show)


# -- labelled matrices -----------------------------------------------------------------
def _entry_tex(x: Any, show: _Printer) -> str:
    if isinstance(x, (bool, np.bool_, int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        return show(sympy.Float(float(x)))
    return show(x)


def _matrix(m: LabeledMatrix, show: _Printer, labels: bool = True,
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
        head = " & " + " & ".join(_name_tex(c) for c in m.columns) + r" \\ \hline"
        rows = [_name_tex(r) + " & " + b for r, b in zip(m.rows, body)]
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
    labels = [_name_tex(c) for c in m.columns]
    widths = [rf"\hphantom{{\begin{{matrix}}{label} \\ {max((r[j] for r in entries), key=len)}"
              r"\end{matrix}}" for j, label in enumerate(labels)]

    def first_row(cells: list[str]) -> str:
        return " & ".join(rf"{w}\mathllap{{{c}}}" for w, c in zip(widths, cells))

    body = " \\\\\n".join([first_row(entries[0])] + [" & ".join(r) for r in entries[1:]])
    height = r"\vphantom{\begin{array}{c}" + r" \\ ".join("0" * len(entries)) + r"\end{array}}"
    rows = " \\\\ ".join(_name_tex(r) for r in m.rows)
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
        entries = [[show(x) for x in matrix.row(i)] for i in range(matrix.rows)]
        return ("\\begin{bmatrix}" + " \\\\ ".join(" & ".join(r) for r in entries)
                + "\\end{bmatrix}")
    cells = np.empty(matrix.shape, dtype=object)
    for i in range(matrix.rows):
        for j in range(matrix.cols):
            cells[i, j] = show(matrix[i, j])
    return str(LabeledMatrix(cells, rows, columns))


def _column(symbols: Sequence[Any], show: _Printer) -> str:
    if show.is_latex:
        return "\\begin{bmatrix}" + " \\\\ ".join(show(s) for s in symbols) + "\\end{bmatrix}"
    return "(" + ", ".join(show(s) for s in symbols) + ")"


# -- network equations -----------------------------------------------------------------------
def _names(items: Iterable[Hashable], show: _Printer) -> str:
    items = list(items)
    if not items:
        return r"\text{none}" if show.is_latex else "none"
    return ", ".join(_name_tex(i) for i in items) if show.is_latex else ", ".join(map(str, items))


def _network_equations(eqs: Any, show: _Printer) -> str:
    topo = eqs.topology
    tree = (rf"\text{{tree: }} {_names(topo.branches, show)};\ "
            rf"\text{{cotree: }} {_names(topo.chords, show)}") if show.is_latex else \
        f"tree: {_names(topo.branches, show)}; cotree: {_names(topo.chords, show)}"
    rows: list = [_heading(show, f"Network {eqs.network.name}", tree) if show.is_latex
                  else f"Network {eqs.network.name}: {tree}"]
    sections = (("Cutset equations", "one per branch", eqs.cutset),
                ("Circuit equations", "one per chord", eqs.circuit),
                ("Terminal equations", "of the elements", eqs.terminal))
    for title, note, equations in sections:
        words = f"{title} ({len(equations)}, {note})"
        rows.append(_heading(show, words) if show.is_latex else f"{words}:")
        rows.extend(_equation_rows(equations, show))
    return _finish(rows, show)


# -- state space --------------------------------------------------------------------------------
def _state_space(ss: Any, show: _Printer) -> str:
    for u, du in zip(ss.u, ss.du):  # input derivatives are named d<input>: show them as u'
        show.rate_of(u, du)
    count = f"{len(ss.x)} state" + ("" if len(ss.x) == 1 else "s")
    rows: list = [_heading(show, f"State equations ({count})")]
    for x, f in zip(ss.x, ss.f):
        rate = show._stand_in(str(x), 1)
        rows.append((show(rate), show(f)))
    if ss.z:
        rows.append(_heading(show, "Algebraic equations", "0 = g(x, z, u)"))
        rows.extend(("0", show(g)) for g in ss.g)
    listing = _finish(rows, show)
    parts = [listing]
    vectors = [("x", ss.x, ss.states), ("u", ss.u, ss.inputs), ("z", ss.z, ss.z_names)]
    if ss.outputs:
        vectors.append(("y", [sympy.Symbol(o) for o in ss.outputs], ss.outputs))
    if show.is_latex:
        for o in ss.outputs:
            show.rename(sympy.Symbol(o), _name_tex(o))
        parts.append(r",\quad ".join(f"{v} = {_column(s, show)}" for v, s, _ in vectors if s))
    else:
        parts.append("\n".join(f"{v} = {_column(s, show)}" for v, s, _ in vectors if s))
    if not ss.z and ss.is_linear:
        terms = [("A", ss.A, ss.states, ss.states), ("B", ss.B, ss.states, ss.inputs),
                 ("E", ss.E, ss.states, ss.inputs), ("C", ss.C, ss.outputs, ss.states),
                 ("D", ss.D, ss.outputs, ss.inputs), ("F", ss.F, ss.outputs, ss.inputs)]
        shown = [(n, m, r, c) for n, m, r, c in terms
                 if m.rows and m.cols and (n not in "EF" or any(m))]
        if show.is_latex:
            law = r"\dot{x} = A x + B u" + (r" + E \dot{u}" if any(ss.E) else "")
            if ss.outputs:
                law += r",\quad y = C x + D u" + (r" + F \dot{u}" if any(ss.F) else "")
            parts.append(law)
            parts.append(r",\quad ".join(f"{n} = {_sympy_matrix(m, r, c, show)}"
                                         for n, m, r, c in shown))
        else:
            law = "x' = A x + B u" + (" + E u'" if any(ss.E) else "")
            if ss.outputs:
                law += ",  y = C x + D u" + (" + F u'" if any(ss.F) else "")
            parts.append(law)
            parts.extend(f"{n} =\n{_sympy_matrix(m, r, c, show)}" for n, m, r, c in shown)
    if show.is_latex:
        return "\\begin{gathered}\n" + " \\\\[1ex]\n".join(parts) + "\n\\end{gathered}"
    return "\n\n".join(parts)


# -- multibody equations ------------------------------------------------------------------------
_COORDINATE_TEX = {"x": "x", "y": "y", "angle": r"\theta", "distance": "s", "dx": r"\Delta x",
                   "dy": r"\Delta y"}


def _coordinate_tex(name: str) -> str:
    owner, _, what = name.rpartition(".")
    symbol = _COORDINATE_TEX.get(what)
    if symbol is None or not owner:
        return _name_tex(name)
    return rf"{symbol}_{{{_name_tex(owner)}}}"


def _multibody(eom: Any, show: _Printer, matrix_form: bool | None = None,
               simplify: bool = False) -> str:
    # the speeds are the coordinates' rates, or (quaternions) speeds u with q' = N(q) u
    speeds = None if eom.speeds_are_rates else eom.speed_names
    for q, name in zip(eom.q, eom.coordinates):
        show.rename(q, _coordinate_tex(name))
    for u, name in zip(eom.u, speeds or eom.coordinates):
        if speeds is not None and not name.endswith("'"):
            show.rename(u, _coordinate_tex(name))
            continue
        head, sep, sub = _split_sub(_coordinate_tex(name.rstrip("'")))
        show.rename(u, rf"\dot{{{head}}}" + (sep + sub if sep else ""))
    tidy = (lambda e: sympy.trigsimp(e)) if simplify else (lambda e: e)  # noqa: E731
    M = eom.M.applyfunc(tidy)
    Q = eom.Q.applyfunc(tidy)
    n = len(eom.u)
    coords = tuple(speeds or eom.coordinates)   # M and Q are indexed by the speeds
    if matrix_form is None:
        matrix_form = n <= MATRIX_FORM_LIMIT and all(
            len(show(e)) <= MATRIX_ENTRY_LIMIT for e in list(M) + list(Q))

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
    if eom.constraint_names:
        rows.append(_heading(show, f"Constraints ({len(eom.constraint_names)})",
                             r"\Phi(q, t) = 0" if show.is_latex else "Phi(q, t) = 0"))
        for name, expr in zip(eom.constraint_names, eom.constraints):
            lhs = rf"\Phi_{{{_name_tex(name)}}}" if show.is_latex else f"Phi[{name}]"
            rows.append((lhs, show(tidy(expr))))
    if speeds is None:
        law = (r"M(q)\,\ddot{q} = Q(q, \dot{q}, t)" + (
            r" + \Phi_q^T \lambda" if eom.constraint_names else "")) if show.is_latex else \
            "M(q) q'' = Q(q, q', t)" + (" + Phi_q^T lambda" if eom.constraint_names else "")
    else:
        law = (r"\dot{q} = N(q)\,u,\quad M(q)\,\dot{u} = Q(q, u, t)" + (
            r" + \Phi_u^T \lambda" if eom.constraint_names else "")) if show.is_latex else \
            "q' = N(q) u,  M(q) u' = Q(q, u, t)" + (
                " + Phi_u^T lambda" if eom.constraint_names else "")
    rows.append(_heading(show, "Equations of motion", law))
    if matrix_form and n:
        if show.is_latex:
            rows.append(("M", _sympy_matrix(M, coords, coords, show)))
            rows.append(("Q", _sympy_matrix(Q, coords, ["Q"], show)))
            return _aligned_latex(rows)
        text_rows = _aligned_text(rows, indent="  ")
        return "\n".join(text_rows + ["M =", _sympy_matrix(M, coords, coords, show),
                                      "Q =", _sympy_matrix(Q, coords, ["Q"], show)])
    # entry by entry, by row; M is symmetric, so only the entries on and above the diagonal
    rows.append(_heading(show, "Mass matrix, by row",
                         r"M_{ji} = M_{ij};\ \text{entries not listed are } 0" if show.is_latex
                         else "(symmetric; entries not listed are 0)"))
    for i in range(n):
        for j in range(i, n):
            if M[i, j] != 0:
                lhs = rf"M_{{{i + 1},{j + 1}}}" if show.is_latex else f"M[{coords[i]}, {coords[j]}]"
                rows.append((lhs, show(M[i, j])))
    rows.append(_heading(show, "Generalized forces"))
    for i in range(n):
        lhs = rf"Q_{{{i + 1}}}" if show.is_latex else f"Q[{coords[i]}]"
        rows.append((lhs, show(Q[i])))
    return _finish(rows, show)
