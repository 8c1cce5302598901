"""Transfer functions ``H(s)`` of a linear network, named by its outputs and inputs, and
what a course reads off them: zeros, poles and gain, partial fractions and the response in
time (the inverse Laplace transform), all by sympy's algebra.

>>> import vecnet as vn
>>> net = vn.Network("rc")
>>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "b", R=0.5),
...             vn.Capacitor("C", "g", "b", C=4.0))
>>> H = net.state_space(outputs=["C.across"]).transfer_function()
>>> H["C.across", "V.across"]
1/(2*s + 1)
>>> H.zpk()["C.across", "V.across"]
ZerosPolesGain(zeros=[], poles=[-1/2], gain=1/2)
>>> H.inverse_laplace("step")["C.across", "V.across"]
1 - exp(-t/2)
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import sympy

from ..core.later import later
from ..core.symbols import s
from ..elements.base import t
from ..errors import FormulationError

__all__ = ["TransferMatrix", "ZerosPolesGain", "collected_in_s", "s"]



def collected_in_s(expr: Any) -> Any:
    """A rational function of ``s`` as ``N(s) / D(s)``, numerator and denominator each a
    sum of one term per power of ``s`` (``s*(C*R1*R2 + L)``, not ``C*R1*R2*s + L*s``): the
    form a transfer function is read in, its coefficients in the parameters left as the
    cancelled fraction has them. An expression that is no ratio of polynomials in ``s``
    comes back as it is.

    Parameters
    ----------
    expr : sympy.Expr
        Usually one cancelled entry of ``H(s)``.

    Returns
    -------
    sympy.Expr

    Examples
    --------
    >>> C, L, R1, R2 = sympy.symbols("C L R1 R2")
    >>> H = collected_in_s(R2 / (C*L*R2*s**2 + C*R1*R2*s + L*s + R1 + R2))
    >>> sympy.fraction(H)[1].coeff(s, 1)
    C*R1*R2 + L
    """
    expr = sympy.sympify(expr)
    if not expr.has(s):
        return expr
    top, bottom = sympy.fraction(expr)

    def powers(p: sympy.Expr) -> sympy.Expr:
        poly = sympy.Poly(p, s)
        # an Add whose coefficient of each power is one factor: sympy keeps c*s**k apart
        return sympy.Add(*(coefficient * s**k for (k,), coefficient in poly.terms()))

    try:
        return powers(top) / powers(bottom)
    except sympy.PolynomialError:   # s inside a function or a fractional power
        return expr


class ZerosPolesGain(NamedTuple):
    """``H(s) = gain * prod(s - zero) / prod(s - pole)``; a root of multiplicity ``k`` is
    listed ``k`` times."""

    zeros: list
    poles: list
    gain: Any


#: the responses :meth:`TransferMatrix.inverse_laplace` knows by name: U(s) of the input
INPUTS = {"impulse": sympy.S.One, "step": 1 / s, "ramp": 1 / s**2}


class TransferMatrix:
    """``H(s)``, output over input with zero initial state: one rational function of ``s``
    per output (row) and input (column), named. ``H[i, j]`` and ``H["C1.across",
    "V1.across"]`` give an entry, ``H.matrix`` the sympy matrix (``H == matrix`` compares
    with one; arithmetic and every other attribute are the matrix's); ``vn.text(H)`` and ``vn.latex(H)`` print every entry in descending powers
    of ``s``, as a textbook does.

    Attributes
    ----------
    matrix : sympy.Matrix
        The entries, each collected in powers of ``s`` (:func:`collected_in_s`).
    outputs, inputs : tuple of str
        The names of the rows and the columns.
    response : str or None
        ``None`` for ``H(s)``; for the responses in time that
        :meth:`inverse_laplace` gives, which input (``"step"``, ...).
    """

    def __init__(self, matrix: sympy.MatrixBase, outputs: Sequence[str],
                 inputs: Sequence[str], response: str | None = None) -> None:
        self.matrix = sympy.ImmutableMatrix(matrix)
        self.outputs, self.inputs = tuple(outputs), tuple(inputs)
        self.response = response
        if self.matrix.shape != (len(self.outputs), len(self.inputs)):
            raise FormulationError(f"a {self.matrix.rows} x {self.matrix.cols} H(s) for "
                                   f"{len(self.outputs)} output(s) and {len(self.inputs)} "
                                   "input(s)")

    # -- the matrix --------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, int]:
        return self.matrix.shape

    def _index(self, key: Any) -> Any:
        if isinstance(key, tuple) and len(key) == 2 and all(isinstance(k, str) for k in key):
            output, input_ = key
            for name, names, what in ((output, self.outputs, "output"),
                                      (input_, self.inputs, "input")):
                if name not in names:
                    raise KeyError(f"no {what} {name!r}; the {what}s are {', '.join(names)}")
            return self.outputs.index(output), self.inputs.index(input_)
        return key

    def __getitem__(self, key: Any) -> Any:
        return self.matrix[self._index(key)]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TransferMatrix):
            return (self.matrix, self.outputs, self.inputs, self.response) == \
                (other.matrix, other.outputs, other.inputs, other.response)
        return bool(self.matrix == other)

    __hash__ = None  # type: ignore[assignment]   # equal to matrices, which do not hash alike

    def _sympy_(self) -> sympy.ImmutableMatrix:
        """What sympy reads when given ``H``: its matrix (``sympy.Matrix(H)``, ``H.matrix *
        2``)."""
        return self.matrix

    def __getattr__(self, name: str) -> Any:
        """Every other attribute is the matrix's (``H.evalf()``, ``H.T``, ``H.rows``)."""
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.matrix, name)

    # arithmetic is the matrix's: H1 - H2 is a sympy matrix
    def __add__(self, other: Any) -> Any:
        return self.matrix + sympy.sympify(other)

    def __radd__(self, other: Any) -> Any:
        return sympy.sympify(other) + self.matrix

    def __sub__(self, other: Any) -> Any:
        return self.matrix - sympy.sympify(other)

    def __rsub__(self, other: Any) -> Any:
        return sympy.sympify(other) - self.matrix

    def __mul__(self, other: Any) -> Any:
        return self.matrix * sympy.sympify(other)

    def __rmul__(self, other: Any) -> Any:
        return sympy.sympify(other) * self.matrix

    def __neg__(self) -> Any:
        return -self.matrix

    def applyfunc(self, f: Any) -> TransferMatrix:
        """``f`` applied to every entry (``H.applyfunc(sympy.factor)``)."""
        return TransferMatrix(self.matrix.applyfunc(f), self.outputs, self.inputs,
                              self.response)

    def subs(self, *args: Any, **kwargs: Any) -> TransferMatrix:
        """sympy's ``subs`` on every entry (numbers for parameters)."""
        return self.applyfunc(lambda e: collected_in_s(e.subs(*args, **kwargs)))

    # -- what a course reads off it ------------------------------------------------------
    def zpk(self) -> dict[tuple[str, str], ZerosPolesGain]:
        """Zeros, poles and gain of every entry, keyed ``(output, input)``: the roots of
        numerator and denominator (exact where sympy finds them with square roots at most,
        else numbers to 15 digits for numeric coefficients) and the ratio of their
        leading coefficients.

        Raises
        ------
        FormulationError
            An entry with symbolic coefficients whose roots need more than square roots
            (a cubic or higher that does not factor): give the parameters numbers first
            (``H.subs({...})``).

        Examples
        --------
        >>> H = TransferMatrix(sympy.Matrix([[(s + 3) / (2*s**2 + 6*s + 4)]]), ["y"], ["u"])
        >>> H.zpk()["y", "u"]
        ZerosPolesGain(zeros=[-3], poles=[-2, -1], gain=1/2)
        """
        return {key: _zpk(entry, key) for key, entry in self._entries()}

    def partial_fractions(self) -> TransferMatrix:
        """Every entry as a sum of partial fractions in ``s``: exact over the rationals
        (:func:`sympy.apart`: one term per rational pole, a quadratic for a complex pair)
        where the denominator splits so; an entry with numbers for coefficients whose
        denominator keeps a factor of degree 3 or more over the rationals (three poles
        that are no radicals a course would read) gets one term per pole in floating
        point (:func:`scipy.signal.residue`), conjugate pairs apart.

        Raises
        ------
        FormulationError
            An entry that is no ratio of polynomials in ``s``.

        Examples
        --------
        >>> H = TransferMatrix(sympy.Matrix([[(s + 3) / (s**2 + 3*s + 2)]]), ["y"], ["u"])
        >>> H.partial_fractions()["y", "u"]
        -1/(s + 2) + 2/(s + 1)
        """
        return self.applyfunc(_partial_fractions)

    def inverse_laplace(self, input: str | Any = "impulse") -> TransferMatrix:
        """The response ``y(t) = L^-1{H(s) U(s)}`` for ``t >= 0`` from rest, one entry per
        output and input: by :func:`sympy.inverse_laplace_transform` of the exact
        partial fractions, or from the poles and residues in floating point where those
        are (:meth:`partial_fractions`), a conjugate pair written as
        ``exp(a t) (c cos(b t) + d sin(b t))``.

        Parameters
        ----------
        input : {"impulse", "step", "ramp"} or sympy expression
            The input's Laplace transform ``U(s)`` by name (a unit impulse, step or ramp
            at ``t = 0``), or as an expression in ``s``.

        Returns
        -------
        TransferMatrix
            Entries in time ``t`` (for ``t >= 0``), not ``s``; its ``response`` names the
            input.

        Raises
        ------
        FormulationError
            An unknown input's name; an improper ``H(s) U(s)`` (an impulse in the
            response); an entry with symbols whose denominator keeps a factor of degree 3
            or more (give the parameters numbers first); one sympy cannot transform.

        Examples
        --------
        >>> H = TransferMatrix(sympy.Matrix([[1 / (s**2 + 3*s + 2)]]), ["y"], ["u"])
        >>> H.inverse_laplace("step")["y", "u"]
        1/2 - exp(-t) + exp(-2*t)/2
        """
        if isinstance(input, str):
            if input not in INPUTS:
                raise FormulationError(f"input must be one of {', '.join(INPUTS)} or U(s) as "
                                       f"a sympy expression; got {input!r}")
            U, name = INPUTS[input], f"unit {input}"
        else:
            U, name = sympy.sympify(input), f"U(s) = {input}"

        def response(entry: sympy.Expr) -> sympy.Expr:
            Y = sympy.cancel(entry * U)
            top, bottom = sympy.fraction(Y)
            if sympy.degree(top, s) >= sympy.degree(bottom, s) and top != 0:
                raise FormulationError(f"{Y} is not strictly proper: its response holds an "
                                       "impulse at t = 0")
            if _needs_numbers(Y):
                return sympy.Add(*(_in_time(r, p, k) for r, p, k in _real_pairs(_residues(Y)[0])))
            if _high_factor(Y):
                raise FormulationError(f"the denominator of {Y} keeps a factor of degree 3 "
                                       "or more in the parameters: give them numbers first "
                                       "(H.subs({...}))")
            y = sympy.inverse_laplace_transform(sympy.apart(Y, s), s, t)
            if y.has(sympy.InverseLaplaceTransform):
                raise FormulationError(f"sympy cannot transform {Y} back to time")
            return sympy.expand(y.subs(sympy.Heaviside(t), 1))   # t >= 0

        return TransferMatrix(self.matrix.applyfunc(response), self.outputs, self.inputs, name)

    def _entries(self):
        for i, output in enumerate(self.outputs):
            for j, input_ in enumerate(self.inputs):
                yield (output, input_), self.matrix[i, j]

    # -- display -------------------------------------------------------------------------
    def __repr__(self) -> str:
        return (f"<TransferMatrix: {len(self.outputs)} output(s) x {len(self.inputs)} "
                f"input(s)>\n" + self.__str__())

    def __str__(self) -> str:
        return later("vecnet.output.teaching").text(self)

    def _repr_latex_(self) -> str | None:
        """``$$`` + :func:`vecnet.output.teaching.latex` + ``$$``, for notebooks."""
        return later("vecnet.output.teaching").repr_latex(self)


def _zpk(entry: sympy.Expr, key: tuple[str, str]) -> ZerosPolesGain:
    top, bottom = sympy.fraction(sympy.cancel(sympy.together(entry)))
    try:
        top, bottom = sympy.Poly(top, s), sympy.Poly(bottom, s)
    except sympy.PolynomialError as exc:
        raise FormulationError(f"H{key} is no ratio of polynomials in s") from exc

    def roots(p: sympy.Poly) -> list:
        if p.degree() <= 0:
            return []
        # radicals of square roots at most: Cardano's formulas are no way to read a pole
        found = sympy.roots(p, cubics=False, quartics=False)
        if sum(found.values()) == p.degree():
            return sorted((r for r, k in found.items() for _ in range(k)), key=_root_order)
        if p.free_symbols - {s}:
            raise FormulationError(
                f"the roots of {p.as_expr()} in H{key} have no closed form: give the "
                "parameters numbers first (H.subs({...}))")
        return sorted(p.nroots(n=15), key=_root_order)   # numbers, to 15 digits

    return ZerosPolesGain(roots(top), roots(bottom), sympy.cancel(top.LC() / bottom.LC()))


def _root_order(root: sympy.Expr) -> tuple:
    """Roots in the order of their real parts, then imaginary parts (symbols last)."""
    try:
        value = complex(root)
    except TypeError:
        return (1, 0.0, 0.0, str(root))
    return (0, value.real, value.imag, "")


def _partial_fractions(entry: sympy.Expr) -> sympy.Expr:
    """One entry's partial fractions: exact, or from its residues in floating point."""
    if not _needs_numbers(entry):
        return sympy.apart(entry, s)
    terms, direct = _residues(entry)
    return sympy.Add(*(r / (s - p)**k for r, p, k in terms)) + direct


def _high_factor(expr: sympy.Expr) -> bool:
    """Whether the denominator of ``expr`` keeps a factor of degree 3 or more in ``s``
    over the rationals (with the parameters)."""
    _, factors = sympy.factor_list(sympy.fraction(sympy.cancel(expr))[1], s)
    return any(sympy.degree(f, s) > 2 for f, _ in factors)


def _needs_numbers(expr: sympy.Expr) -> bool:
    """Whether an entry has numbers alone for coefficients and a denominator factor of
    degree 3 or more over the rationals: its poles are read in floating point."""
    return not (expr.free_symbols - {s}) and _high_factor(expr)


def _residues(expr: sympy.Expr) -> tuple[list[tuple], sympy.Expr]:
    """``([(residue, pole, power) ...], direct part)`` of a rational function of ``s``
    with numbers for coefficients: ``expr = sum r / (s - p)^k + direct``
    (:func:`scipy.signal.residue`, repeated poles told apart relative to their size)."""
    import numpy as np
    import scipy.signal

    top, bottom = (sympy.Poly(part, s) for part in sympy.fraction(sympy.cancel(expr)))
    b, a = (np.array([complex(c) for c in p.all_coeffs()]).real for p in (top, bottom))
    size = max(1.0, float(np.max(np.abs(np.roots(a)))))
    r, p, k = scipy.signal.residue(b, a, tol=1e-6 * size)
    terms, power = [], 1
    for i, (residue, pole) in enumerate(zip(r, p)):
        power = power + 1 if i and abs(pole - p[i - 1]) <= 1e-6 * size else 1
        terms.append((_number(residue), _number(pole), power))
    direct = sympy.Add(*(sympy.Float(c) * s**j for j, c in enumerate(reversed(k))))
    return terms, direct


def _number(z: complex) -> sympy.Expr:
    """A real float, or a complex one when its imaginary part is not round-off."""
    z = complex(z)
    return sympy.Float(z.real) if abs(z.imag) <= 1e-12 * max(1.0, abs(z)) else \
        sympy.Float(z.real) + sympy.I * sympy.Float(z.imag)


def _real_pairs(terms: list[tuple]) -> list[tuple]:
    """The terms with each conjugate pair once (the upper pole), to be taken twice its
    real part (:func:`_in_time`)."""
    return [(r, p, k) for r, p, k in terms if sympy.im(p) >= 0]


def _in_time(r: sympy.Expr, p: sympy.Expr, k: int) -> sympy.Expr:
    """``L^-1{r / (s - p)^k} = r t^(k-1) e^(p t) / (k-1)!``; for a complex pole, with its
    conjugate: ``2 Re(...) = 2 e^(a t) t^(k-1) (Re r cos(b t) - Im r sin(b t)) / (k-1)!``."""
    scale = t**(k - 1) / sympy.factorial(k - 1)
    a, b = sympy.re(p), sympy.im(p)
    if b == 0:
        return r * scale * sympy.exp(a * t)
    return 2 * scale * sympy.exp(a * t) * (sympy.re(r) * sympy.cos(b * t)
                                          - sympy.im(r) * sympy.sin(b * t))
