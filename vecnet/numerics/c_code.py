"""C source from sympy expressions, and the system's C compiler that builds it.

Each generated function has one signature, ``static void gen_<name>(double t, const
double *x, const double *p, const double *u, double *out)``: the time, the states, the
parameters and the inputs in, the entries of one vector or row-major matrix out. Its body
is sympy's common-subexpression elimination (:func:`sympy.cse`) of the entries, printed by
sympy's C99 printer with every symbol replaced by its array entry, so that a mass matrix
whose entries share a body's rotation computes the rotation once.

The compiler is found, never assumed: ``$CC`` when set, else the first of ``cc``, ``gcc``
and ``clang`` on the ``PATH`` (:func:`find_c_compiler`); without one the caller says so.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import sympy
from sympy.printing.c import C99CodePrinter

from ..errors import ModelError, OutputError

__all__ = ["c_function", "find_c_compiler", "build_shared_library"]

#: the compilers looked for on the PATH, in this order, when $CC is not set
COMPILERS = ("cc", "gcc", "clang")


class _Printer(C99CodePrinter):
    """sympy's C99 printer with each symbol printed as its array entry (an unknown symbol
    is refused: it would be an undeclared name in C) and Heaviside's value at 0 kept."""

    def __init__(self, names: Mapping[sympy.Symbol, str]) -> None:
        super().__init__({"precision": 17})
        self._names = names

    def _print_Symbol(self, expr: sympy.Symbol) -> str:
        try:
            return self._names[expr]
        except KeyError:
            raise ModelError(f"{expr} has no value: give it a number, or make it a "
                             "parameter") from None

    def _print_Heaviside(self, expr: sympy.Heaviside) -> str:
        x = self._print(expr.args[0])
        half = self._print(expr.args[1]) if len(expr.args) > 1 else "0.5"
        return f"(({x}) > 0 ? 1.0 : (({x}) < 0 ? 0.0 : {half}))"

    def _print_sign(self, expr: sympy.sign) -> str:
        x = self._print(expr.args[0])
        return f"(({x}) > 0 ? 1.0 : (({x}) < 0 ? -1.0 : 0.0))"


def c_function(name: str, entries: Sequence[sympy.Expr],
               names: Mapping[sympy.Symbol, str], *,
               steps: Sequence[tuple[sympy.Symbol, sympy.Expr]] = (),
               arguments: Sequence[str] = ()) -> str:
    """The C function ``gen_<name>`` writing ``entries`` to ``out[0..]``, with common
    subexpressions computed once.

    ``names`` gives each symbol the entries may hold its C expression (``"x[0]"``,
    ``"p[2]"``, ``"t"``). ``steps`` are named values ``symbol = expr`` computed first, in
    their order, that the entries and the later steps may hold (a recursive scheme's
    listing, already short: no subexpressions are sought in them); ``arguments`` are the
    names of more input arrays, after ``u``.

    Raises
    ------
    ModelError
        An entry holds a symbol ``names`` does not give (a parameter without a value).

    Examples
    --------
    >>> import sympy
    >>> a, b = sympy.symbols("a b")
    >>> print(c_function("f", [sympy.sin(a + b) ** 2, 2 * sympy.sin(a + b)],
    ...                  {a: "x[0]", b: "p[0]"}))
    static void gen_f(double t, const double *x, const double *p, const double *u, double *out) {
        (void)t; (void)x; (void)p; (void)u; (void)out;
        const double s0 = sin(x[0] + p[0]);
        out[0] = pow(s0, 2);
        out[1] = 2*s0;
    }
    """
    entries = [sympy.sympify(e) for e in entries]
    temporaries, reduced = sympy.cse(entries, symbols=sympy.numbered_symbols("s"),
                                     optimizations=None) if entries else ([], [])
    local = dict(names)
    inputs = "".join(f"const double *{a}, " for a in arguments)
    lines = [f"static void gen_{name}(double t, const double *x, const double *p, "
             f"const double *u, {inputs}double *out) {{",
             "    (void)t; (void)x; (void)p; (void)u; "
             + "".join(f"(void){a}; " for a in arguments) + "(void)out;"]
    printer = _Printer(local)
    for symbol, value in [*steps, *temporaries]:
        lines.append(f"    const double {symbol} = {printer.doprint(value)};")
        local[symbol] = str(symbol)
    for k, value in enumerate(reduced):
        lines.append(f"    out[{k}] = {printer.doprint(value)};")
    lines.append("}")
    return "\n".join(lines)


def find_c_compiler() -> list[str] | None:
    """The command of the system's C compiler (``$CC``, split as a shell would, or the
    first of :data:`COMPILERS` on the ``PATH``), or ``None`` when there is none.

    >>> compiler = find_c_compiler()
    >>> compiler is None or isinstance(compiler[0], str)
    True
    """
    given = os.environ.get("CC", "").strip()
    if given:
        command = shlex.split(given)
        return command if shutil.which(command[0]) else None
    for name in COMPILERS:
        path = shutil.which(name)
        if path:
            return [path]
    return None


def build_shared_library(sources: Sequence[Path], include: Sequence[Path], output: Path,
                         compiler: Sequence[str]) -> None:
    """Compile ``sources`` into the shared library ``output`` with ``compiler``
    (position-independent, ``-O2``, C99, the math library linked).

    Raises
    ------
    OutputError
        The compiler failed: its own messages are in the error.
    """
    command = [*compiler, "-shared", "-fPIC", "-O2", "-std=c99",
               *(f"-I{folder}" for folder in include), *map(str, sources), "-lm",
               "-o", str(output)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise OutputError(f"the C compiler ({compiler[0]}) failed on the generated code:\n"
                          + (done.stderr or done.stdout).strip()[-4000:])
