"""Safe arithmetic expressions for model files.

Model files are data, so their formulas are never handed to ``eval``,
``exec`` or ``sympy.sympify``. :func:`parse_expression` reads the text with
Python's :mod:`ast` module (``mode="eval"``, which only parses) and builds the
sympy expression itself, node by node, from a short whitelist:

* numbers: integer and float literals (no complex, no booleans);
* names: the declared parameters handed in as ``names``, the time ``t`` and
  the constants ``pi`` and ``e``; a dotted name such as ``crank.omega`` only
  when ``names`` holds it under that exact key;
* operators ``+ - * / **`` and unary ``+ -``;
* calls of the functions in :data:`FUNCTIONS` with the right number of
  positional arguments.

Anything else (attribute access, subscripts, lambdas, comprehensions,
strings, comparisons, keywords, unknown names, ...) raises
:class:`~vecnet.errors.ModelFileError` naming the location and the construct.
The size of the text, the number of syntax nodes, the nesting depth and the
exponents are bounded, so hostile input such as ``9**9**9**9`` is refused at
once instead of being computed. Before anything is built, the polynomial
degree of every subexpression and the number of terms it would have once
multiplied out are estimated from the syntax tree alone (``deg(a**n) = n
deg(a)``, ``deg(a*b) = deg(a) + deg(b)``; a sum of ``k`` terms to the power
``n`` has ``C(k+n-1, n)`` terms): above :data:`MAX_DEGREE` or
:data:`MAX_TERMS` the text is refused, so ``(R+L+C)**64`` or
``((R+1)**64)**64`` cannot make a later expansion run without end.

Names must be written as they are: Python reads ``𝐑`` (mathematical bold)
as ``R`` after NFKC normalisation, so any identifier that is not in NFKC
normal form is refused, and so are digits other than ASCII ``0-9``.

:func:`format_expression` writes a sympy expression back as text that
:func:`parse_expression` reads to the same expression.
"""

from __future__ import annotations

import ast
import keyword
import math
import re
import sys
import unicodedata
import warnings
from collections.abc import Mapping

import sympy
from sympy.printing.precedence import precedence
from sympy.printing.str import StrPrinter

from ..elements.base import t
from ..errors import ModelFileError

__all__ = ["parse_expression", "format_expression", "FUNCTIONS", "CONSTANTS",
           "MAX_LENGTH", "MAX_NODES", "MAX_DEPTH", "MAX_EXPONENT", "MAX_DIGITS", "MAX_DEGREE",
           "MAX_TERMS"]

#: longest expression text accepted
MAX_LENGTH = 2000
#: most syntax nodes in one expression
MAX_NODES = 1000
#: deepest nesting (a chain ``a + b + c + ...`` counts as one level)
MAX_DEPTH = 60
#: largest exponent, in absolute value, when the exponent is a number
MAX_EXPONENT = 64
#: most decimal digits an exact number built by a power may have
MAX_DIGITS = 1000
#: highest polynomial degree of any subexpression (in all its symbols together), estimated
#: from the text before anything is built: ``(x + 1)**64`` and ``x**64*y**64`` are allowed,
#: ``((x + 1)**16)**9`` (degree 144) is not
MAX_DEGREE = 128
#: most terms any subexpression may have once multiplied out, estimated from the text:
#: ``(R + L + C)**64`` would have 2145 and is refused
MAX_TERMS = 1000

#: function name -> (sympy function, smallest and largest number of arguments)
FUNCTIONS: dict[str, tuple[object, int, int]] = {
    "sin": (sympy.sin, 1, 1), "cos": (sympy.cos, 1, 1), "tan": (sympy.tan, 1, 1),
    "asin": (sympy.asin, 1, 1), "acos": (sympy.acos, 1, 1), "atan": (sympy.atan, 1, 1),
    "atan2": (sympy.atan2, 2, 2),
    "sinh": (sympy.sinh, 1, 1), "cosh": (sympy.cosh, 1, 1), "tanh": (sympy.tanh, 1, 1),
    "exp": (sympy.exp, 1, 1), "log": (sympy.log, 1, 1), "sqrt": (sympy.sqrt, 1, 1),
    "abs": (sympy.Abs, 1, 1), "sign": (sympy.sign, 1, 1),
    "min": (sympy.Min, 2, 16), "max": (sympy.Max, 2, 16),
    "step": (sympy.Heaviside, 1, 1),
}

#: constant name -> sympy object
CONSTANTS: dict[str, sympy.Expr] = {"pi": sympy.pi, "e": sympy.E}

# what to call the constructs that are refused, so the message says what was written
_REFUSED = {
    ast.Attribute: "attribute access", ast.Subscript: "subscript", ast.Lambda: "lambda",
    ast.ListComp: "comprehension", ast.SetComp: "comprehension", ast.DictComp: "comprehension",
    ast.GeneratorExp: "generator expression", ast.Compare: "comparison",
    ast.BoolOp: "boolean operator", ast.IfExp: "conditional expression",
    ast.Starred: "starred argument", ast.List: "list", ast.Tuple: "tuple", ast.Set: "set",
    ast.Dict: "dict", ast.JoinedStr: "f-string", ast.FormattedValue: "f-string",
    ast.NamedExpr: "assignment expression", ast.Await: "await", ast.Yield: "yield",
    ast.YieldFrom: "yield", ast.Slice: "slice", ast.keyword: "keyword argument",
}
_OPERATORS = {
    ast.FloorDiv: "'//'", ast.Mod: "'%'", ast.MatMult: "'@'", ast.BitXor: "'^' (write ** for powers)",
    ast.BitOr: "'|'", ast.BitAnd: "'&'", ast.LShift: "'<<'", ast.RShift: "'>>'",
    ast.Not: "'not'", ast.Invert: "'~'",
}
_SUM, _PRODUCT = (ast.Add, ast.Sub), (ast.Mult, ast.Div)


def _fail(location: str, message: str) -> ModelFileError:
    return ModelFileError(message, location=location)


def _snippet(text: str, node: ast.AST) -> str:
    segment = ast.get_source_segment(text, node) or ""
    segment = " ".join(segment.split())
    return repr(segment if len(segment) <= 40 else segment[:37] + "...")


def _family(node: ast.AST):
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, _SUM):
            return _SUM
        if isinstance(node.op, _PRODUCT):
            return _PRODUCT
    return None


def _check_size(tree: ast.AST, text: str, location: str) -> None:
    """Count nodes and measure nesting without recursion (the tree may be hostile)."""
    count, stack = 0, [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        count += isinstance(node, (ast.expr, ast.keyword))  # not the Load and operator markers
        if count > MAX_NODES:
            raise _fail(location, f"expression is too large (more than {MAX_NODES} syntax nodes)")
        if depth > MAX_DEPTH:
            raise _fail(location, f"expression is nested too deeply (more than {MAX_DEPTH} levels) "
                                  f"near {_snippet(text, node)}")
        family = _family(node)
        for child in ast.iter_child_nodes(node):
            # a chain a + b - c + ... is one sum, not a nesting
            flat = family is not None and child is getattr(node, "left", None) \
                and _family(child) is family
            stack.append((child, depth if flat else depth + 1))


def _check_look_alikes(text: str, location: str) -> None:
    """Refuse identifiers that Python would fold (NFKC) into other names, and digits other
    than 0-9: ``𝐑`` must not silently mean ``R``."""
    if text.isascii():
        return
    for match in _WORD.finditer(text):
        word = match.group()
        for ch in word:
            if unicodedata.category(ch) == "Nd" and not "0" <= ch <= "9":
                raise _fail(location, f"{ascii(word)} holds the digit {ascii(ch)}; write "
                                      "numbers with the ASCII digits 0-9")
        normal = unicodedata.normalize("NFKC", word)
        if normal != word:
            raise _fail(location, f"{ascii(word)} is a look-alike of {ascii(normal)} (not in "
                                  f"NFKC normal form); write {ascii(normal)} itself")


_WORD = re.compile(r"\w+")


def _binomial(k: int, n: int) -> int:
    """Terms of a sum of ``k`` terms to the power ``n``, capped past :data:`MAX_TERMS`."""
    if k <= 1 or n <= 1:
        return k if n == 1 else 1
    return min(math.comb(k + n - 1, n), MAX_TERMS + 1)


def _exponent(node: ast.AST) -> int | None:
    """The integer an exponent is written as (``3``, ``-2``, ``2.0``), else ``None``."""
    sign = 1
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign, node = (-sign if isinstance(node.op, ast.USub) else sign), node.operand
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        value = node.value
        if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
            return None  # x**0.5 is not a polynomial: it never expands
        return sign * int(value) if abs(value) <= MAX_EXPONENT else None
    return None


def _check_growth(tree: ast.AST, text: str, location: str) -> None:
    """Estimate, bottom up and without building anything, the polynomial degree and the
    number of expanded terms of every subexpression; refuse past :data:`MAX_DEGREE` or
    :data:`MAX_TERMS`. Function calls and non-integer powers count as one opaque term
    (sympy does not expand through them); their arguments are bounded on their own."""
    sizes: dict[int, tuple[int, int]] = {}   # id(node) -> (degree, terms)
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, done = stack.pop()
        if not done:
            stack.append((node, True))
            stack.extend((child, False) for child in ast.iter_child_nodes(node))
            continue
        children = [sizes.get(id(c), (0, 1)) for c in ast.iter_child_nodes(node)
                    if isinstance(c, ast.expr)]
        if isinstance(node, ast.Name):
            size = (0, 1) if node.id in CONSTANTS else (1, 1)
        elif isinstance(node, ast.Attribute):
            size = (1, 1)
        elif isinstance(node, ast.Expression):
            size = sizes.get(id(node.body), (0, 1))
        elif isinstance(node, ast.UnaryOp):
            size = children[0] if children else (0, 1)
        elif isinstance(node, ast.BinOp) and len(children) == 2:
            (da, ta), (db, tb) = children
            if isinstance(node.op, _SUM):
                size = (max(da, db), min(ta + tb, MAX_TERMS + 1))
            elif isinstance(node.op, _PRODUCT):
                size = (da + db, min(ta * tb, MAX_TERMS + 1))
            elif isinstance(node.op, ast.Pow):
                n = _exponent(node.right)
                if n is None:  # a symbolic or fractional exponent: one opaque term
                    size = (max(da, db, 1) if da or db else 0, 1)
                else:
                    size = (abs(n) * da, _binomial(ta, abs(n)))
            else:
                size = (0, 1)
        elif isinstance(node, ast.Call):
            size = (1, 1) if any(d for d, _ in children) else (0, 1)
        else:
            size = (0, 1)
        degree, terms = size
        if degree > MAX_DEGREE:
            raise _fail(location, f"{_snippet(text, node)} has polynomial degree {degree}; at most "
                                  f"{MAX_DEGREE} (vecnet.io.expressions.MAX_DEGREE) is read")
        if terms > MAX_TERMS:
            raise _fail(location, f"{_snippet(text, node)} would expand to more than {MAX_TERMS} "
                                  "terms (vecnet.io.expressions.MAX_TERMS); write it in a "
                                  "shorter form")
        sizes[id(node)] = size


def _chain(node: ast.BinOp, family) -> list[tuple[ast.AST, ast.operator | None]]:
    """The operands of a left-leaning chain of one family, with the operator before each."""
    items = []
    while _family(node) is family:
        items.append((node.right, node.op))
        node = node.left
    items.append((node, None))
    items.reverse()
    return items


def _negate(value: sympy.Expr) -> sympy.Expr:
    # one flat product, as sympy builds -(x + y)*z from its factors (value.__neg__ would
    # distribute the sign into the sum instead)
    return sympy.Mul(sympy.S.NegativeOne, value)


def _has_power(node: ast.AST) -> bool:
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow) for n in ast.walk(node))


def _double(number: sympy.Number) -> bool:
    """Whether a sympy number is a normal double (sympy's numbers reach beyond both ends)."""
    try:
        value = float(number)
    except OverflowError:  # a huge integer or fraction
        return False
    return math.isfinite(value) and (number.is_zero or abs(value) >= sys.float_info.min)


_RECIPROCAL = {sympy.cot: sympy.tan, sympy.sec: sympy.cos, sympy.csc: sympy.sin,
               sympy.coth: sympy.tanh, sympy.sech: sympy.cosh, sympy.csch: sympy.sinh}


def _reciprocals(expr: sympy.Expr) -> sympy.Expr:
    """Write cot, sec, csc (and their hyperbolic cousins), which sympy makes on its own
    (tan(x + pi/2) is -cot(x)), as reciprocals of the functions the format knows."""
    if not expr.has(*_RECIPROCAL):
        return expr
    return expr.replace(lambda e: getattr(e, "func", None) in _RECIPROCAL,
                        lambda e: 1 / _RECIPROCAL[e.func](e.args[0]))


def _digits(number: sympy.Rational) -> float:
    p, q = abs(int(number.p)), abs(int(number.q))
    return max(math.log10(p) if p > 1 else 0.0, math.log10(q) if q > 1 else 0.0)


class _Builder:
    def __init__(self, text: str, names: Mapping[str, sympy.Expr], location: str,
                 time: bool) -> None:
        self.text, self.names, self.location, self.time = text, names, location, time

    def refuse(self, node: ast.AST, what: str) -> ModelFileError:
        return _fail(self.location, f"{what} is not allowed in an expression: "
                                    f"{_snippet(self.text, node)}")

    def build(self, node: ast.AST) -> sympy.Expr:
        if isinstance(node, ast.Expression):
            return self.build(node.body)
        if isinstance(node, ast.Constant):
            return self.constant(node)
        if isinstance(node, ast.Name):
            return self.name(node.id, node)
        if isinstance(node, ast.Attribute):
            return self.dotted(node)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                return _negate(self.build(node.operand))
            if isinstance(node.op, ast.UAdd):
                return self.build(node.operand)
            raise self.refuse(node, f"operator {_OPERATORS.get(type(node.op), type(node.op).__name__)}")
        if isinstance(node, ast.BinOp):
            return self.binary(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        raise self.refuse(node, _REFUSED.get(type(node), type(node).__name__))

    def constant(self, node: ast.Constant) -> sympy.Expr:
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            kind = {str: "string", bytes: "bytes", complex: "complex number"}.get(
                type(value), "constant")
            raise self.refuse(node, "boolean" if isinstance(value, bool) else kind)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise self.refuse(node, "number out of range")
            return sympy.Float(value)
        return sympy.Integer(value)

    def name(self, ident: str, node: ast.AST) -> sympy.Expr:
        if ident in self.names:
            return self.names[ident]
        if ident == "t":
            if not self.time:
                raise _fail(self.location, "this value cannot depend on time t")
            return t
        if ident in CONSTANTS:
            return CONSTANTS[ident]
        if ident in FUNCTIONS:
            raise _fail(self.location, f"function {ident!r} must be called, as in {ident}(x)")
        known = sorted(k for k in self.names if "." not in k)
        hint = f"; declared names are {', '.join(known)}" if known else ""
        raise _fail(self.location, f"unknown name {ident!r}{hint} (and t, pi, e)")

    def dotted(self, node: ast.Attribute) -> sympy.Expr:
        # only <identifier>.<identifier> that the caller declared, e.g. a body quantity
        if isinstance(node.value, ast.Name):
            key = f"{node.value.id}.{node.attr}"
            if key in self.names:
                return self.names[key]
        raise self.refuse(node, "attribute access")

    def binary(self, node: ast.BinOp) -> sympy.Expr:
        family = _family(node)
        if family is _SUM:
            terms = [_negate(self.build(n)) if isinstance(op, ast.Sub) else self.build(n)
                     for n, op in _chain(node, _SUM)]
            return self.defined(sympy.Add(*terms), node)
        if family is _PRODUCT:
            factors = []
            for k, (operand, op) in enumerate(_chain(node, _PRODUCT)):
                if k == 0 and isinstance(operand, ast.UnaryOp) and isinstance(operand.op, ast.USub):
                    # -a*b is (-a)*b to Python; taking -1 as a factor of the whole product
                    # gives what sympy printed, -(x + y)*z, rather than (-x - y)*z
                    factors.append(sympy.S.NegativeOne)
                    operand = operand.operand
                value = self.build(operand)
                factors.append(self.power(value, sympy.Integer(-1), node)
                               if isinstance(op, ast.Div) else value)
            return self.defined(sympy.Mul(*factors), node)
        if isinstance(node.op, ast.Pow):
            if _has_power(node.right):
                raise self.refuse(node, "a power tower (a power in an exponent)")
            return self.power(self.build(node.left), self.build(node.right), node)
        raise self.refuse(node, f"operator {_OPERATORS.get(type(node.op), type(node.op).__name__)}")

    def power(self, base: sympy.Expr, exponent: sympy.Expr, node: ast.AST) -> sympy.Expr:
        if exponent.is_Number:
            if abs(exponent) > MAX_EXPONENT:
                raise self.refuse(node, f"an exponent larger than {MAX_EXPONENT} in absolute value")
            # exact powers are computed at once: bound their size before sympy does
            if base.is_Rational and exponent.is_Rational \
                    and _digits(base) * abs(float(exponent)) > MAX_DIGITS:
                raise self.refuse(node, f"a number of more than {MAX_DIGITS} digits")
        if base.is_zero and exponent.is_negative:
            raise self.refuse(node, "division by zero")
        return self.defined(sympy.Pow(base, exponent), node)

    def defined(self, value: sympy.Expr, node: ast.AST) -> sympy.Expr:
        """Stop at the first infinite, undefined, complex or huge value, before later
        operations hide it (atan(log(0)) is a bounded interval) or take very long on it:
        sympy's numbers have no exponent limit, and a function of a huge number
        (sinh(sinh(600000)), exp(exp(1e4))) needs ever more precision."""
        if value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo, sympy.AccumBounds):
            raise _fail(self.location, f"{_snippet(self.text, node)} is infinite or undefined")
        if value.has(sympy.I):
            raise _fail(self.location, f"{_snippet(self.text, node)} is a complex number")
        if not all(_double(f) for f in value.atoms(sympy.Number)):
            raise _fail(self.location, f"{_snippet(self.text, node)} is out of the range of "
                                       "floating point numbers")
        if not value.free_symbols:
            self.constant_in_range(value, node)
        return value

    def constant_in_range(self, value: sympy.Expr, node: ast.AST) -> None:
        """A constant (acos(3), sinh(700), 10**400) must be a real number a double can hold."""
        number = value if value.is_Number else value.evalf(15)
        if number.has(sympy.I) or not number.is_Number:
            # acos(3) and (-8)**(1/3) stay unevaluated, yet are complex
            raise _fail(self.location, f"{_snippet(self.text, node)} is not a real number")
        try:
            finite = math.isfinite(float(number))
        except OverflowError:
            finite = False
        if not finite:
            raise _fail(self.location, f"{_snippet(self.text, node)} is out of the range of "
                                       "floating point numbers")

    def call(self, node: ast.Call) -> sympy.Expr:
        if not isinstance(node.func, ast.Name):
            raise self.refuse(node, "calling anything but a named function")
        fname = node.func.id
        if fname not in FUNCTIONS:
            what = "a name, not a function" if fname in self.names or fname in CONSTANTS \
                or fname == "t" else "not a function the format knows"
            raise _fail(self.location, f"call of {fname!r} is not allowed ({fname!r} is {what}); "
                                       f"functions are {', '.join(FUNCTIONS)}")
        if node.keywords:
            raise self.refuse(node.keywords[0], "keyword argument")
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise self.refuse(arg, "starred argument")
        function, low, high = FUNCTIONS[fname]
        if not low <= len(node.args) <= high:
            want = str(low) if low == high else f"{low} to {high}"
            raise _fail(self.location, f"{fname}() takes {want} argument(s), got {len(node.args)}")
        args = [self.build(a) for a in node.args]
        for arg, arg_node in zip(args, node.args):
            if not arg.free_symbols:  # a literal like 9**64 never went through defined()
                self.constant_in_range(arg, arg_node)
        return self.defined(function(*args), node)


def parse_expression(text: str, names: Mapping[str, sympy.Expr], location: str = "", *,
                     time: bool = True) -> sympy.Expr:
    """The sympy expression written in ``text``, built without evaluating any code.

    Parameters
    ----------
    text : str
        An arithmetic expression such as ``"R*C"`` or ``"V0*sin(2*pi*f*t)"``.
    names : mapping
        Declared names -> the sympy symbols (or expressions) they stand for.
    location : str
        Where the text comes from (a JSON pointer, a netlist line), for error messages.
    time : bool
        Whether the expression may use the time ``t`` (:data:`vecnet.t`).

    Raises
    ------
    ModelFileError
        The text is not an expression of the whitelist, uses an unknown name, or is too big.

    Examples
    --------
    >>> import vecnet as vn
    >>> R, C = vn.Symbol("R"), vn.Symbol("C")
    >>> parse_expression("1/(R*C) + sin(2*pi*t)", {"R": R, "C": C})
    sin(2*pi*t) + 1/(C*R)
    >>> parse_expression("().__class__", {}, "/inputs/V")
    Traceback (most recent call last):
    ...
    vecnet.errors.ModelFileError: /inputs/V: attribute access is not allowed in an expression: '().__class__'
    """
    if not isinstance(text, str):
        raise _fail(location, f"an expression must be text, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise _fail(location, f"expression is too long ({len(text)} characters; at most {MAX_LENGTH})")
    # line breaks would end the expression early; inside one they are only spacing
    text = " ".join(text.split())
    if not text:
        raise _fail(location, "empty expression")
    _check_look_alikes(text, location)
    try:
        with warnings.catch_warnings():  # "invalid decimal literal" and such: we report, not warn
            warnings.simplefilter("ignore")
            tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise _fail(location, f"not an expression: {exc.msg} in {text[:40]!r}") from None
    except (RecursionError, MemoryError, ValueError, OverflowError) as exc:
        raise _fail(location, f"not an expression ({type(exc).__name__})") from None
    _check_size(tree, text, location)
    _check_growth(tree, text, location)
    builder = _Builder(text, names, location, time)
    try:
        expr = builder.build(tree)
    except RecursionError:
        raise _fail(location, "expression is nested too deeply") from None
    except ModelFileError:
        raise
    except (TypeError, ValueError, ArithmeticError) as exc:
        # sympy refusing a combination, e.g. min() of values it cannot compare
        raise _fail(location, f"expression {text[:40]!r} cannot be evaluated: {exc}") from None
    expr = sympy.sympify(expr)  # a plain Python number from Min/Max folding becomes a sympy one
    expr = _reciprocals(expr)
    for power in expr.atoms(sympy.Pow):  # R/R**-64 and R**64*R are R**65: bound them too,
        # so that whatever is read can be written back (format_expression)
        if power.exp.is_Number and abs(power.exp) > MAX_EXPONENT:
            raise _fail(location, f"{text[:40]!r} makes the power {str(power)[:40]}, whose "
                                  f"exponent is larger than {MAX_EXPONENT} in absolute value")
    try:
        return builder.defined(expr, tree.body)  # a bare literal has not been checked yet
    except (TypeError, ValueError, ArithmeticError) as exc:
        if isinstance(exc, ModelFileError):
            raise
        raise _fail(location, f"expression {text[:40]!r} cannot be evaluated: {exc}") from None


# -- writing ------------------------------------------------------------------------------

_WRITE_FUNCTIONS = {sympy.sin: "sin", sympy.cos: "cos", sympy.tan: "tan", sympy.asin: "asin",
                    sympy.acos: "acos", sympy.atan: "atan", sympy.atan2: "atan2",
                    sympy.sinh: "sinh", sympy.cosh: "cosh", sympy.tanh: "tanh",
                    sympy.exp: "exp", sympy.log: "log", sympy.Abs: "abs", sympy.sign: "sign",
                    sympy.Min: "min", sympy.Max: "max", sympy.Heaviside: "step"}
_RESERVED = set(FUNCTIONS) | set(CONSTANTS)


class _Printer(StrPrinter):
    """sympy's string printer with the function and constant names of the format and
    floats written exactly (``repr`` of the double)."""

    def _print_Float(self, expr):
        return repr(float(expr))

    def _print_Exp1(self, expr):
        return "e"

    def _print_Heaviside(self, expr):
        return f"step({self._print(expr.args[0])})"

    def _print_Function(self, expr):
        name = _WRITE_FUNCTIONS[expr.func]
        return f"{name}({', '.join(self._print(a) for a in expr.args)})"

    _print_Abs = _print_Min = _print_Max = _print_exp = _print_Function

    def _print_Symbol(self, expr):
        return expr.name

    def _print_Mul(self, expr):
        coeff, rest = expr.as_coeff_Mul()
        if coeff.is_Rational and coeff.q != 1 and rest is not sympy.S.One:
            # sympy would print 1/(2*(x + y)), which reads back with the 2 distributed over
            # the sum: keep the fraction's denominator apart
            body = self.parenthesize(rest, precedence(expr))
            number = abs(coeff.p)
            sign = "-" if coeff < 0 else ""
            if number == 1:
                return f"{sign}{body}/{coeff.q}"
            if body.startswith("1/"):
                return f"{sign}{number}{body[1:]}/{coeff.q}"
            return f"{sign}{number}*{body}/{coeff.q}"
        return super()._print_Mul(expr)


def _check_writable(expr: sympy.Expr, location: str) -> sympy.Expr:
    """Refuse what the format cannot express; make every float a double."""
    floats = {}
    for node in sympy.preorder_traversal(expr):
        if node.is_Float:
            if not _double(node):
                raise _fail(location, f"number {node} is out of the range of a model file")
            floats[node] = sympy.Float(float(node))
        elif node.is_Symbol:
            name = node.name
            parts = name.split(".")
            if not (1 <= len(parts) <= 2 and all(p.isidentifier() and not keyword.iskeyword(p)
                                                  for p in parts)):
                raise _fail(location, f"symbol name {name!r} cannot be written in an expression; "
                                      "use letters, digits and underscores")
            if name in _RESERVED or (name == "t" and node != t):
                raise _fail(location, f"symbol {name!r} clashes with the built-in name {name!r}")
        elif node.is_Rational or node in (sympy.pi, sympy.E):
            continue
        elif isinstance(node, (sympy.Add, sympy.Mul, sympy.Pow)):
            continue
        elif isinstance(node, sympy.Heaviside):
            if len(node.args) > 1 and node.args[1] != sympy.Rational(1, 2):
                raise _fail(location, "only step(x) = Heaviside(x, 1/2) can be written")
        elif getattr(node, "func", None) in _WRITE_FUNCTIONS:
            continue
        elif isinstance(node, sympy.Tuple) or node.is_Number and node.is_finite and node.is_real:
            continue
        else:
            raise _fail(location, f"{type(node).__name__} cannot be written in a model file: {node}")
    return expr.xreplace(floats) if floats else expr


def _rebuilt(expr: sympy.Basic) -> sympy.Basic:
    """``expr`` built again from its leaves with sympy's constructors: the canonical form
    that reading its text gives (sympy keeps Abs(x)*sqrt(Abs(x)) when made one way and
    makes Abs(x)**(3/2) another way)."""
    if not expr.args:
        return expr
    return expr.func(*(_rebuilt(a) for a in expr.args))


def format_expression(expr: sympy.Expr | float | int, location: str = "") -> str:
    """Text for ``expr`` that :func:`parse_expression` reads back to the same expression.

    Reading the text gives ``expr`` itself, or the same expression as sympy builds it
    from its parts when ``expr`` was put together in a non-canonical way.

    Raises :class:`~vecnet.errors.ModelFileError` for what the format cannot hold
    (unknown functions, derivatives, complex numbers, symbol names that are not
    identifiers) or what the parser would refuse (exponents beyond the limit).

    >>> import vecnet as vn
    >>> R = vn.Symbol("R")
    >>> format_expression(2 * R * sympy.Heaviside(vn.t - 1) + sympy.E)
    '2*R*step(t - 1) + e'
    >>> format_expression(0.1 + 0.2)
    '0.30000000000000004'
    """
    expr = sympy.sympify(expr)
    if not isinstance(expr, sympy.Expr):
        raise _fail(location, f"not an expression: {expr!r}")
    expr = _check_writable(_reciprocals(expr), location)
    text = _Printer().doprint(expr)
    names = {s.name: s for s in expr.free_symbols if s != t}
    back = parse_expression(text, names, location)
    if back != expr and back != _rebuilt(expr):
        # sympy's canonical forms can differ after printing; say so rather than save a change
        raise _fail(location, f"{expr} cannot be written exactly (it reads back as {back})")
    return text
