"""The one name policy of vecnet: what a name of an element, edge, node, body, joint,
point or model-file parameter may be.

Names are data, never markup, and one name must never pass for another. So:

* a **name** is 1 to :data:`MAX_NAME_LENGTH` characters, each a letter, an ASCII digit
  ``0-9`` or the underscore ``_``; it may start with a digit (SPICE's ``0``, ``n001``);
* letters may be Unicode letters (``θ``, ``ω``, ``é``) only when the name is in NFKC normal
  form: a look-alike such as mathematical bold ``𝐑`` (which NFKC folds to ``R``), a
  full-width ``Ｒ`` or a ligature ``ﬁ`` is **refused**, never folded; combining marks,
  non-ASCII digits (Arabic-Indic ``٣``), spaces, punctuation, symbols, control characters
  and lone surrogates are refused;
* a **compound name** joins names with a separator that vecnet gives a meaning: ``.``
  between an element and its port (``T.1``, ``motor.e``) or a body and its point
  (``crank.p1``), and ``-`` in the names vecnet makes for the rigid arm from a body to one
  of its points (``crank-p1``). Users write ``.`` in edge and node names only in that sense
  and never write ``-`` (so an arm's name cannot clash with theirs);
* a **node** is a name, a compound name with dots, or a non-negative integer
  (below :data:`MAX_NODE_INTEGER`);
* two names of one kind in one model must not look alike: a name with letters of another
  script that reads as a name already given (Cyrillic ``Р1`` beside Latin ``P1``, Greek
  ``ο`` beside Latin ``o``) is refused, naming both (:class:`LookAlikes`, by the skeletons
  of Unicode's confusables, UTS #39). Names of ASCII letters and digits alone are never
  refused for looking alike.

A name that breaks the policy raises :class:`~vecnet.errors.ModelError` (or the error
class asked for, e.g. :class:`~vecnet.errors.TopologyError`), or
:class:`~vecnet.errors.ModelFileError` when a ``location`` in a file is given. The
message shows the name with :func:`ascii` (so it prints anywhere, and markup stays
visible as text) and says what is allowed.

>>> check_name("R1", "element name")
'R1'
>>> check_name("θ_joint", "body name")
'θ_joint'
>>> check_name("<script>", "element name")
Traceback (most recent call last):
...
vecnet.errors.ModelError: element name '<script>' is not allowed: '<' is not a letter, digit or '_'; names are made of letters, ASCII digits and '_' (at most 64 characters)
>>> check_name("\\U0001d411", "element name", "/elements/0/name")
Traceback (most recent call last):
...
vecnet.errors.ModelFileError: /elements/0/name: element name '\\U0001d411' is not allowed: it is a look-alike of 'R' (not in NFKC normal form); write 'R' itself; names are made of letters, ASCII digits and '_' (at most 64 characters)
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Callable, Hashable, Iterable
from importlib import resources
from typing import Any

from ..errors import ModelError, ModelFileError, VecnetError

__all__ = ["MAX_NAME_LENGTH", "MAX_NODE_INTEGER", "ALLOWED", "name_problem", "check_name", "visible",
           "check_node", "shown", "skeleton", "LookAlikes"]

#: most characters in one name (a compound name: in each of its parts)
MAX_NAME_LENGTH = 64
#: integer nodes are 0 <= n < MAX_NODE_INTEGER
MAX_NODE_INTEGER = 10**15
#: what the messages say is allowed
ALLOWED = f"names are made of letters, ASCII digits and '_' (at most {MAX_NAME_LENGTH} characters)"

_LETTERS = {"Lu", "Ll", "Lt", "Lm", "Lo"}


def shown(name: object, limit: int = 40) -> str:
    """``name`` for a message: :func:`ascii` of it (escapes every non-ASCII character and
    lone surrogates, quotes markup as text), cut to about ``limit`` characters.

    >>> shown("𝐑"), shown("x" * 100)[-6:]
    ("'\\\\U0001d411'", "...'+60")
    """
    if isinstance(name, str) and len(name) > limit:
        return f"{ascii(name[:limit])}...'+{len(name) - limit}"
    return ascii(name)


def _char_problem(ch: str) -> str | None:
    if ch == "_" or "0" <= ch <= "9" or ("a" <= ch <= "z") or ("A" <= ch <= "Z"):
        return None
    if ch == ".":
        return "'.' is not part of a name (it joins an element to its port, a body to its point)"
    category = unicodedata.category(ch)
    if category in _LETTERS:
        return None
    if category == "Nd":
        return f"{ascii(ch)} is not an ASCII digit (write digits as 0-9)"
    if category == "Cs":
        return f"{ascii(ch)} is a lone surrogate, not a character"
    return f"{ascii(ch)} is not a letter, digit or '_'"


@functools.lru_cache(maxsize=None)
def _plain_names(separators: str) -> Callable[[str], object]:
    """A match of the names that are plainly allowed (ASCII letters, digits and ``_``, at
    most :data:`MAX_NAME_LENGTH` of them a part), joined by ``separators``: the common case,
    in one call of the regular expression engine."""
    word = f"[A-Za-z0-9_]{{1,{MAX_NAME_LENGTH}}}"
    if not separators:
        return re.compile(word).fullmatch
    return re.compile(f"{word}(?:[{re.escape(separators)}]{word})*").fullmatch


def name_problem(name: object) -> str | None:
    """Why ``name`` is not a name under the policy, or ``None`` when it is one.

    >>> name_problem("n001") is None, name_problem("")
    (True, 'it is empty')
    """
    if not isinstance(name, str):
        return f"a name is text, not {type(name).__name__}"
    if not name:
        return "it is empty"
    if len(name) > MAX_NAME_LENGTH:
        return f"it is longer than {MAX_NAME_LENGTH} characters ({len(name)})"
    if name.isascii():  # the common case, and no normal form to check
        for ch in name:
            problem = _char_problem(ch)
            if problem:
                return problem
        return None
    for ch in name:
        problem = _char_problem(ch)
        if problem:
            return problem
    # refuse rather than fold: NFKC would make '𝐑' the same name as 'R'
    normal = unicodedata.normalize("NFKC", name)
    if normal != name:
        return (f"it is a look-alike of {ascii(normal)} (not in NFKC normal form); "
                f"write {ascii(normal)} itself")
    return None


def _raise(message: str, location: str, error: type[VecnetError]) -> VecnetError:
    if location:
        return ModelFileError(message, location=location)
    return error(message)


def check_name(name: object, what: str = "name", location: str = "", *,
               separators: str = "", error: type[VecnetError] = ModelError) -> str:
    """Return ``name`` if it follows the policy, else raise.

    Parameters
    ----------
    name : str
        The name to check.
    what : str
        What it names, for the message (``"element name"``, ``"node"``).
    location : str
        Where in a file it comes from (a JSON pointer, ``"netlist line 4"``); when given, a
        :class:`~vecnet.errors.ModelFileError` with that location is raised.
    separators : str
        Separators allowed between names (``"."`` for compound names); each part must then
        be a name.
    error : type
        The error class raised without a location (default :class:`~vecnet.errors.ModelError`).

    >>> check_name("crank.p1", "node", separators=".")
    'crank.p1'
    """
    if isinstance(name, str) and _plain_names(separators)(name):
        return name
    problem = name_problem(name) if not (separators and isinstance(name, str)) else None
    if separators and isinstance(name, str):
        parts = [name]
        for sep in separators:
            parts = [piece for part in parts for piece in part.split(sep)]
        for part in parts:
            problem = name_problem(part)
            if problem:
                if part == "":
                    problem = f"it has an empty part around {'/'.join(map(repr, separators))}"
                break
    if problem is None:
        return name  # type: ignore[return-value]
    raise _raise(f"{what} {shown(name)} is not allowed: {problem}; {ALLOWED}", location, error)


def check_node(node: Hashable, location: str = "", *,
               error: type[VecnetError] = ModelError) -> Hashable:
    """Return ``node`` if it can name a node: a name, names joined by ``.`` (a point of a
    body) or an integer ``0 <= n <`` :data:`MAX_NODE_INTEGER`.

    >>> check_node(0), check_node("out"), check_node("crank.p1")
    (0, 'out', 'crank.p1')
    >>> check_node(-1)
    Traceback (most recent call last):
    ...
    vecnet.errors.ModelError: node -1 is not allowed: an integer node is 0 or more (below 10**15); or use a name: names are made of letters, ASCII digits and '_' (at most 64 characters)
    """
    if isinstance(node, int) and not isinstance(node, bool):
        if 0 <= node < MAX_NODE_INTEGER:
            return node
        raise _raise(f"node {shown(node)} is not allowed: an integer node is 0 or more (below "
                     f"10**15); or use a name: {ALLOWED}", location, error)
    if not isinstance(node, str):
        raise _raise(f"node {shown(node)} is not allowed: a node is a name or an integer, not "
                     f"{type(node).__name__}; {ALLOWED}", location, error)
    return check_name(node, "node", location, separators=".", error=error)


def visible(text: Any) -> str:
    r"""``text`` as a string that any encoder accepts and that shows as typed: lone
    surrogates (which UTF-8 cannot encode) and control characters (which DOT and XML
    cannot carry) become visible ``\uXXXX`` escapes; everything else is kept.

    >>> visible("R\udc801")
    'R\\udc801'
    """
    out = []
    for c in str(text):
        code = ord(c)
        if 0xD800 <= code <= 0xDFFF or code < 0x20 or 0x7F <= code < 0xA0:
            out.append(f"\\u{code:04x}")
        else:
            out.append(c)
    return "".join(out)


@functools.lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Each character of Unicode's confusables table -> one character of its class (the
    lowest code point): characters that can be taken for one another share it."""
    table = json.loads(resources.files("confusable_homoglyphs").joinpath("confusables.json")
                       .read_text(encoding="utf-8"))
    parent: dict[str, str] = {}

    def root(c: str) -> str:
        while parent.setdefault(c, c) != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    for char, entries in table.items():
        for entry in entries:
            if len(char) == 1 and len(entry["c"]) == 1:
                a, b = root(char), root(entry["c"])
                if a != b:
                    parent[max(a, b)] = min(a, b)
    return {c: root(c) for c in list(parent)}


def skeleton(name: str) -> str:
    """What ``name`` looks like: each character replaced by the one that stands for its
    class of confusable characters (UTS #39's skeleton, one character for one).

    >>> skeleton("\u04201") == skeleton("P1"), skeleton("R1") == skeleton("P1")
    (True, False)
    """
    prototypes = _prototypes()
    return "".join(prototypes.get(c, c) for c in name)


class LookAlikes:
    """The names of one kind in one model, indexed by what they look like, so that a new
    name that reads as one already there is refused (:func:`skeleton`). Names of ASCII
    characters alone are indexed but never refused among themselves (``l`` and ``1``,
    ``O`` and ``0`` are told apart in any font a model is read in).

    >>> names = LookAlikes(["P1", "C1"])
    >>> names.add("R2")
    >>> names.add("\u04201")
    Traceback (most recent call last):
    ...
    vecnet.errors.ModelError: name '\\u04201' looks like 'P1', another name in this model: a reader cannot tell them apart; rename one of them
    """

    def __init__(self, names: Iterable[Hashable] = (), what: str = "name") -> None:
        self.what = what
        self.seen: dict[str, str] = {}
        for name in names:
            self.add(name)

    def add(self, name: Hashable, location: str = "", *,
            error: type[VecnetError] = ModelError) -> None:
        """Index ``name``; raise if it looks like a different name already indexed."""
        if not isinstance(name, str):
            return
        key = skeleton(name)
        other = self.seen.setdefault(key, name)
        if other != name and not (other.isascii() and name.isascii()):
            raise _raise(f"{self.what} {shown(name)} looks like {shown(other)}, another name "
                         "in this model: a reader cannot tell them apart; rename one of them",
                         location, error)
