"""Formulas that fit a page: long LaTeX rows broken across lines, wide matrices cut into
blocks of columns.

KaTeX sets a display formula on one line however long it is, so a report decides where
lines break before it hands the LaTeX over. :func:`tex_width` estimates how wide LaTeX
sets (in em of the formula's font, from the characters, operators and fractions it
holds; an estimate, not a measurement), :func:`break_rows` splits every row of an
``aligned`` environment that is wider than a given width at its outermost ``+`` and
``-`` signs into continuation rows, and :func:`column_blocks` cuts a labelled matrix into
blocks of whole columns that each fit the width, every block with the row labels.

Nothing here reads or writes files; the functions take and return strings and
:class:`~vecnet.graph.matrix.LabeledMatrix` objects.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..graph.matrix import LabeledMatrix

__all__ = ["tex_width", "break_rows", "column_blocks", "split_top_level"]

#: em widths of what KaTeX sets (Computer Modern proportions, rounded up)
_CHAR = 0.55
_BINARY = 1.3          # "+", "-", "=" with the medium or thick spaces around them
_COMMAND_WIDTHS = {
    "quad": 1.0, "qquad": 2.0, ",": 0.17, ":": 0.22, ";": 0.28, " ": 0.3, "!": 0.0,
    "cdot": 0.8, "times": 1.2, "sin": 1.5, "cos": 1.6, "tan": 1.6, "exp": 1.6,
    "log": 1.4, "ln": 1.0, "operatorname": 0.0, "left": 0.0, "right": 0.0,
    "mathrm": 0.0, "text": 0.0, "textbf": 0.0, "mathbf": 0.0, "boldsymbol": 0.0,
    "dot": 0.0, "ddot": 0.0, "dddot": 0.0, "hat": 0.0, "bar": 0.0, "vec": 0.0,
    "hline": 0.0, "hphantom": 0.0, "vphantom": 0.0, "mathllap": 0.0, "kern": 0.0,
    "begin": 0.0, "end": 0.0, "displaystyle": 0.0, "textbackslash": 0.5,
}
_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[{}]|[^\\{}]")
#: commands whose argument is not set at all (its width is not counted)
_HIDDEN = {"hphantom", "vphantom", "begin", "end", "kern"}
#: commands that set their argument smaller (sub- and superscripts, fractions' parts)
_SMALL = 0.7
#: text in a formula, by face: how much wider than upright letters; and a word space
_TEXT_FACES = {"text": 1.0, "textbf": 1.12, "texttt": 1.0, "textit": 1.0}
_SPACE = 0.33


def _tokens(tex: str) -> list[str]:
    return _TOKEN.findall(tex)


def _group(tokens: list[str], i: int) -> tuple[list[str], int]:
    """The tokens of the group or single token starting at ``i`` (braces dropped) and the
    position after it."""
    while i < len(tokens) and tokens[i] == " ":
        i += 1
    if i >= len(tokens):
        return [], i
    if tokens[i] != "{":
        return [tokens[i]], i + 1
    depth, j = 0, i
    while j < len(tokens):
        if tokens[j] == "{":
            depth += 1
        elif tokens[j] == "}":
            depth -= 1
            if depth == 0:
                return tokens[i + 1:j], j + 1
        j += 1
    return tokens[i + 1:], len(tokens)


def _width(tokens: list[str]) -> float:
    total, i = 0.0, 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if token in ("{", "}", " ", "&", "\n", "\t"):
            continue
        if token in ("^", "_"):
            part, i = _group(tokens, i)
            total += _SMALL * _width(part)
        elif token in ("\\frac", "\\dfrac", "\\tfrac"):
            top, i = _group(tokens, i)
            bottom, i = _group(tokens, i)
            total += max(_width(top), _width(bottom)) * (1.0 if token == "\\dfrac" else 0.85) + 0.3
        elif token in ("\\left", "\\right"):
            _, i = _group(tokens, i)     # the delimiter
            total += 0.45
        elif token.startswith("\\") and token[1:] in _HIDDEN:
            _, i = _group(tokens, i)
        elif token[1:] in _TEXT_FACES:   # words: their spaces count, bold is wider
            part, i = _group(tokens, i)
            total += _TEXT_FACES[token[1:]] * (_width(part) + _SPACE * part.count(" "))
        elif token == "\\\\":
            continue
        elif token.startswith("\\"):
            name = token[1:]
            total += _COMMAND_WIDTHS.get(name, 0.6 if name.isalpha() else 0.5)
        elif token in "+-=<>":
            total += _BINARY
        elif token == ",":
            total += 0.45
        else:
            total += _CHAR
    return total


def tex_width(tex: str) -> float:
    """The estimated width, in em of the formula's font, of the widest line of the LaTeX
    ``tex`` (lines split at ``\\\\`` outside braces; cells of one line side by side).

    An estimate from the characters (about half an em each), binary operators with their
    spaces, fractions (the wider of numerator and denominator) and sub- and superscripts
    (smaller); good to some ten percent for the formulas of vecnet's listings.

    >>> tex_width("x") < tex_width("x + y") < tex_width(r"x + y + \\sin{\\left(z \\right)}")
    True
    >>> tex_width(r"a \\\\ b + c") == tex_width("b + c")
    True
    """
    return max((_width(_tokens(line)) for line in split_top_level(tex, r"\\")), default=0.0)


def split_top_level(tex: str, separator: str) -> list[str]:
    """``tex`` split at every ``separator`` outside braces, ``\\left ... \\right`` pairs and
    environments (``\\begin ... \\end``).

    >>> split_top_level(r"a + \\frac{b + c}{d} + e", "+")
    ['a ', ' \\\\frac{b + c}{d} ', ' e']
    """
    parts, depth, start, i = [], 0, 0, 0
    n, width = len(tex), len(separator)
    while i < n:
        c = tex[i]
        if c == "\\":
            word = re.match(r"\\(begin|end|left|right)(?![A-Za-z])", tex[i:])
            if word:
                depth += 1 if word.group(1) in ("begin", "left") else -1
                i += len(word.group(0))
                continue
            if depth == 0 and tex.startswith(separator, i) and separator.startswith("\\"):
                parts.append(tex[start:i])
                i += width
                start = i
                continue
            i += 2      # an escaped character or the first letter of a command
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif depth == 0 and tex.startswith(separator, i):
            parts.append(tex[start:i])
            i += width
            start = i
            continue
        i += 1
    parts.append(tex[start:])
    return parts


def _terms(rhs: str) -> list[str]:
    """The outermost terms of ``rhs``, each with its sign (``["a ", "+ b ", "- c"]``); a
    sign that follows another operator or starts the expression is not a split point."""
    pieces = []
    depth, start, i, n = 0, 0, 0, len(rhs)
    last = ""   # the last character that is not a space, outside commands
    while i < n:
        c = rhs[i]
        if c == "\\":
            word = re.match(r"\\(begin|end|left|right)(?![A-Za-z])", rhs[i:])
            if word:
                depth += 1 if word.group(1) in ("begin", "left") else -1
                i += len(word.group(0))
                last = "x"
                continue
            command = re.match(r"\\[A-Za-z]+|\\.", rhs[i:])
            i += len(command.group(0)) if command else 1
            last = "x"
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c in "+-" and depth == 0 and last not in ("", "+", "-", "=", "(", "&", ","):
            pieces.append(rhs[start:i])
            start = i
        if not c.isspace():
            last = c
        i += 1
    pieces.append(rhs[start:])
    return [p for p in pieces if p.strip()]


def _groups(term: str) -> list[tuple[int, int, int, int]]:
    """The outermost ``\\left( ... \\right)`` groups of ``term`` (round or square
    brackets, bars): ``(start, content start, content end, end)`` positions."""
    found, depth, i, n = [], 0, 0, len(term)
    opened: tuple[int, int] | None = None
    while i < n:
        word = re.match(r"\\(begin|end|left|right)(?![A-Za-z])(\\?.)?", term[i:]) \
            if term[i] == "\\" else None
        if word:
            kind, delimiter = word.group(1), word.group(2) or ""
            if kind in ("begin", "left"):
                if depth == 0 and kind == "left" and delimiter in ("(", "[", "|"):
                    opened = (i, i + len(word.group(0)))
                depth += 1
            else:
                depth -= 1
                if depth == 0 and kind == "right" and opened is not None:
                    found.append((opened[0], opened[1], i, i + len(word.group(0))))
                    opened = None
            i += len(word.group(0))
            continue
        if term[i] == "\\":
            i += 2
            continue
        if term[i] == "{":
            depth += 1
        elif term[i] == "}":
            depth -= 1
        i += 1
    return found


def _atoms(tex: str, width: float) -> list[str]:
    """``tex`` as pieces between which a line may break: its outermost terms, and a term
    wider than ``width`` opened at its wide bracket groups, whose stretching brackets become
    fixed ones (``\\Bigl( ... \\Bigr)``, which may hold line breaks) around the
    pieces of their content."""
    out: list[str] = []
    for term in _terms(tex):
        if tex_width(term) <= width:
            out.append(term)
            continue
        parts, cursor = [""], 0
        for start, inner, inner_end, end in _groups(term):
            content = term[inner:inner_end]
            if tex_width(content) <= width / 2:
                continue
            opening = term[start:inner].replace(r"\left", r"\Bigl", 1)
            closing = term[inner_end:end].replace(r"\right", r"\Bigr", 1)
            pieces = _atoms(content, width)
            parts[-1] += term[cursor:start] + opening + pieces[0]
            parts.extend(pieces[1:])
            parts[-1] += closing
            cursor = end
        parts[-1] += term[cursor:]
        out.extend(p for p in parts if p.strip())
    return out


#: A row of words: nothing left of the ``&`` (perhaps a continuation row's ``\quad``),
#: then words (``\text{...}``, ``\textbf{...}``) and formulas mixed
_TEXT_ROW = re.compile(r"(\s*&\s*(?:\\quad\s*)?)(.*\\text(?:bf)?\{.*)", re.S)


def _scan(tex: str, start: int = 0):
    """``(index, character, brace depth after it)`` of the characters of ``tex`` from
    ``start``; escaped characters (``\\{``, ``\\ ``) are skipped: no braces, no spaces."""
    depth, i = 0, start
    while i < len(tex):
        c = tex[i]
        if c == "\\":
            i += 2
            continue
        depth += (c == "{") - (c == "}")
        yield i, c, depth
        i += 1


def _closing(tex: str, start: int) -> int:
    """The index of the brace that closes the group opened at ``tex[start]`` (``-1`` if
    none)."""
    return next((i for i, _, depth in _scan(tex, start) if depth == 0), -1)


#: the groups of words a row may break in (a ``\texttt`` name is never split)
_WORD_FACES = (r"\text{", r"\textbf{")


def _word_pieces(body: str) -> list[str] | None:
    """A row's words and formulas as the pieces it may break between: each word of a
    ``\\text{...}`` group as a group of its own (its space kept), each formula between
    the groups whole; ``None`` if a group does not close."""
    pieces: list[str] = []
    i = 0
    while i < len(body):
        face = next((f for f in _WORD_FACES if body.startswith(f, i)), None)
        if face is not None:
            end = _closing(body, i + len(face) - 1)
            if end < 0:
                return None
            words = split_top_level(body[i + len(face):end], " ")   # a closed group: balanced
            for k, word in enumerate(words):
                if word or k < len(words) - 1:
                    pieces.append(face + word + (" " if k < len(words) - 1 else "") + "}")
            i = end + 1
        else:   # a formula, up to the next group of words outside its braces
            depth, j = 0, i
            while j < len(body) and not (depth == 0 and j > i and any(
                    body.startswith(f, j) for f in _WORD_FACES)):
                if body[j] == "\\":
                    j += 2
                    continue
                depth += (body[j] == "{") - (body[j] == "}")
                j += 1
            pieces.append(body[i:j])
            i = j
    return pieces


def _wrap_words(lead: str, body: str, width: float) -> str | None:
    """A row of words (and formulas among them) wider than ``width`` as several rows,
    filled greedily and split at the words' spaces (a formula is never split); ``None``
    if it cannot be split so."""
    pieces = _word_pieces(body)
    if pieces is None or len(pieces) < 2:
        return None
    lines: list[list[str]] = [[]]
    for piece in pieces:
        prefix = lead if len(lines) == 1 else r"&\quad "
        if lines[-1] and tex_width(prefix + "".join(lines[-1] + [piece])) > width:
            lines.append([])
            piece = re.sub(r"^(\\quad\s*)+", "", piece)   # the continuation's own indent
        lines[-1].append(piece)
    return " \\\\\n".join((lead if k == 0 else r"&\quad ") + _merged(line).rstrip()
                            for k, line in enumerate(lines))


def _merged(pieces: list[str]) -> str:
    """A line's pieces, the words of one face next to each other in one group again
    (``\\text{a }\\text{b}`` as ``\\text{a b}``)."""
    out: list[str] = []
    for piece in pieces:
        face = next((f for f in _WORD_FACES if piece.startswith(f)), None)
        if face is not None and out and out[-1].startswith(face) and out[-1].endswith("}"):
            out[-1] = out[-1][:-1] + piece[len(face):]
        else:
            out.append(piece)
    if out and out[-1].endswith(" }") and not out[-1].endswith("\\ }"):
        out[-1] = out[-1][:-2] + "}"   # the line's last space goes with the break
    return "".join(out)


def _break_row(row: str, width: float) -> str:
    """One row ``lhs &= rhs`` of an ``aligned`` environment as several whose right sides
    are (where the terms allow) at most ``width`` wide: continuation rows start at the
    alignment point, indented, with the sign of their first term."""
    cells = split_top_level(row, "&")
    if len(cells) != 2 or tex_width(cells[1]) <= width:
        return row
    words = _TEXT_ROW.fullmatch(row)
    if words:
        return _wrap_words(*words.groups(), width) or row
    lhs, rhs = cells
    operator = ""
    stripped = rhs.lstrip()
    for sign in ("=", r"\approx"):
        if stripped.startswith(sign):
            operator, rhs = sign, stripped[len(sign):]
            break
    terms = _atoms(rhs, width)
    if len(terms) < 2:
        return row
    head = tex_width(operator) + 1.0
    lines: list[list[str]] = [[]]
    used = head
    for term in terms:
        size = tex_width(term)
        if lines[-1] and used + size > width:
            lines.append([])
            used = head
        lines[-1].append(term)
        used += size
    out = [f"{lhs}&{operator} {''.join(lines[0]).strip()}"]
    for line in lines[1:]:
        out.append(r"&\quad {}" + "".join(line).strip())
    return " \\\\\n".join(out)


def break_rows(tex: str, width: float) -> str:
    """``tex`` with every row of its ``aligned`` environments broken at its outermost
    ``+`` and ``-`` signs (a row of words at its spaces) into rows that fit in ``width``
    (em, by :func:`tex_width`), continuation rows indented at the alignment point. An
    environment is as wide as its widest left side and its widest right side together:
    right sides are broken to fit beside the widest left one. Rows of other environments
    (matrices, arrays) are left as they are, and so is a term wider than the page by
    itself.

    >>> tex = r"\\begin{aligned}" + "\\n" + "Q &= " + " + ".join("x_{%d}" % i for i in range(30)) \\
    ...       + "\\n" + r"\\end{aligned}"
    >>> broken = break_rows(tex, 20)
    >>> broken.count(r"\\\\") > 2 and all(tex_width(r) <= 20 for r in broken.split(r"\\\\"))
    True
    """
    out, position = [], 0
    begin, end = r"\begin{aligned}", r"\end{aligned}"
    while True:
        start = tex.find(begin, position)
        if start < 0:
            break
        body_start = start + len(begin)
        # the matching end (aligned environments may nest)
        depth, i = 1, body_start
        while depth:
            next_begin, next_end = tex.find(begin, i), tex.find(end, i)
            if next_end < 0:
                return tex     # unbalanced: leave it to KaTeX to report
            if 0 <= next_begin < next_end:
                depth, i = depth + 1, next_begin + len(begin)
            else:
                depth, i = depth - 1, next_end + len(end)
        body_end = i - len(end)
        rows = split_top_level(tex[body_start:body_end], r"\\")
        out.append(tex[position:body_start])
        # a row's trailing spaces go: the joint adds its own before the break
        left = max((tex_width(cells[0]) for cells in (split_top_level(r, "&") for r in rows)
                    if len(cells) == 2), default=0.0)
        out.append(" \\\\".join((_break_row(r, width - left) if r.strip() else r).rstrip(" ")
                                 for r in rows))
        out.append(end)
        position = i
    out.append(tex[position:])
    return "".join(out)


def _greedy(widths: list[float], start_width: float, width: float) -> list[tuple[int, int]]:
    """Blocks ``(first, end)`` of consecutive columns, each as many as fit ``width``."""
    blocks, start, used = [], 0, start_width
    for j, w in enumerate(widths):
        if j > start and used + w > width:
            blocks.append((start, j))
            start, used = j, start_width
        used += w
    blocks.append((start, len(widths)))
    return blocks


def column_blocks(m: LabeledMatrix, width: float,
                  entry_width: Callable[[object], float] | None = None) -> list[LabeledMatrix]:
    """``m`` cut into blocks of whole columns, each (with the row labels) at most ``width``
    em wide as far as one column allows; every block keeps the row labels and, where the
    ``[1 | A_c]`` bar falls inside it, the bar. ``entry_width`` gives an entry's width in
    em (default: half an em a character of ``str(entry)``).

    >>> import numpy as np
    >>> from vecnet import LabeledMatrix
    >>> m = LabeledMatrix(np.ones((2, 30), dtype=int), ["a", "b"], [f"e{k}" for k in range(30)],
    ...                   split=12)
    >>> blocks = column_blocks(m, 20)
    >>> sum(b.shape[1] for b in blocks) == 30 and len(blocks) > 1
    True
    >>> [(b.columns[0], b.split) for b in blocks]    # even blocks; the bar before e12
    [('e0', None), ('e7', 5), ('e13', None), ('e19', None), ('e25', None)]
    """
    measure = entry_width or (lambda x: 0.5 * len(str(x)))
    cells = m.toarray()
    rows_width = max((0.5 * len(str(r)) for r in m.rows), default=0.0) + 2.0   # and brackets
    widths = []
    for j, label in enumerate(m.columns):
        column = cells[:, j] if cells.shape[0] else []
        widest = max((measure(x) for x in column), default=0.0)
        widths.append(max(0.5 * len(str(label)), widest) + 1.0)
    blocks = _greedy(widths, rows_width, width)
    # as many blocks, of widths as even as whole columns allow: the smallest width that
    # still needs no more blocks
    low, high = rows_width + sum(widths) / len(blocks), width
    while high - low > 0.25:
        middle = (low + high) / 2
        if len(_greedy(widths, rows_width, middle)) <= len(blocks):
            high = middle
        else:
            low = middle
    blocks = _greedy(widths, rows_width, high)
    out = []
    for a, b in blocks:
        split = m.split - a if m.split is not None and a < m.split < b else None
        values = m.values[:, a:b] if not m.issparse else m.tosparse()[:, a:b]
        out.append(type(m)(values, m.rows, m.columns[a:b], split))
    return out
