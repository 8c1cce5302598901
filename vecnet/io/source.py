"""What both file formats share: reading a file under a size bound, decoding its text
strictly, and saying where in it something is wrong (a line, or a JSON pointer)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import ModelFileError, VecnetError

__all__ = ["ENCODINGS", "pointer", "located", "read_bounded", "decode", "line_of"]

#: encodings the readers take: UTF-8 (the default) and, when asked for, Latin-1
ENCODINGS = ("utf-8", "latin-1")


def pointer(*parts: Any) -> str:
    """A JSON pointer (RFC 6901) from keys and indices. Characters that cannot be shown
    (control characters, lone surrogates) are written as backslash escapes, so that the
    location of a hostile key can always be printed.

    >>> pointer("elements", 3, "parameters", "a/b")
    '/elements/3/parameters/a~1b'
    """
    def part(p: Any) -> str:
        text = str(p).replace("~", "~0").replace("/", "~1")
        return text if text.isprintable() else ascii(text)[1:-1]
    return "".join("/" + part(p) for p in parts) or "/"


def located(loc: str, exc: VecnetError) -> ModelFileError:
    """``exc`` as an error of the file at ``loc``, or at its own location when it has one:
    the location is said once.

    >>> str(located("/elements/0", ValueError("R must be positive")))
    '/elements/0: R must be positive'
    """
    if isinstance(exc, ModelFileError):
        return ModelFileError(exc.detail, location=exc.location or loc)
    return ModelFileError(str(exc), location=loc)


def read_bounded(path: str | os.PathLike, limit: int, what: str) -> bytes:
    """The bytes of the file at ``path``, refused when there are more than ``limit``
    (only ``limit + 1`` are ever read). ``what`` names the file in messages.

    Raises
    ------
    ModelFileError
        The file cannot be read or is too large; ``location`` is the path.
    """
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise ModelFileError(f"cannot read the {what}: {exc.strerror or exc}",
                             location=str(path)) from None
    if len(data) > limit:
        raise ModelFileError(f"the {what} is larger than {limit} bytes", location=str(path))
    return data


def line_of(text: str | bytes, offset: int) -> int:
    """The line number (from 1) of the character or byte at ``offset``.

    >>> line_of("a\\nb\\nc", 4)
    3
    """
    newline = b"\n" if isinstance(text, bytes) else "\n"
    return text.count(newline, 0, offset) + 1  # type: ignore[arg-type]


def decode(data: bytes, encoding: str, what: str, where: str = "line", hint: str = "") -> str:
    """The text of a file: strict UTF-8 (a byte order mark is skipped), or Latin-1 when
    asked for; an undecodable byte is refused at ``"<where> N"``, never replaced (``hint``
    ends the message).

    >>> decode(b"\\xef\\xbb\\xbfok", "utf-8", "model file")
    'ok'
    >>> decode(b"a\\n\\xff", "utf-8", "netlist", "netlist line")
    Traceback (most recent call last):
    ...
    vecnet.errors.ModelFileError: netlist line 2: byte b'\\xff' is not UTF-8 text; save the netlist as UTF-8
    """
    if encoding == "latin-1":
        return data.decode("latin-1")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ModelFileError(f"byte {data[exc.start:exc.start + 1]!r} is not UTF-8 text; save "
                             f"the {what} as UTF-8{hint}",
                             location=f"{where} {line_of(data, exc.start)}") from None
