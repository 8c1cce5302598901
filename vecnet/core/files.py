"""Writing results to files so that nothing is ever lost: an output path is checked whole
before any work, and a file is written through a temporary file and a rename.

:func:`check_output` refuses a path that could not be written or would destroy something:
an empty name, a name with control characters, a name longer than the file system allows,
a missing folder, a directory, a device, a FIFO or a socket, and the file an input was read
from (however it is reached: links and hard links included). :func:`write_atomically`
checks the same and never leaves a partial file behind.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable

from ..errors import OutputError

__all__ = ["check_output", "write_atomically"]

#: the longest path vecnet writes (Linux's PATH_MAX), in bytes of the file system encoding
MAX_PATH_BYTES = 4096


def _name_max(folder: str) -> int:
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (AttributeError, OSError, ValueError):
        return 255


def check_output(path: str | os.PathLike, sources: Iterable[str | os.PathLike] = ()) -> None:
    """Refuse ``path`` as an output before any work is done, unless it names a regular file
    (or none yet) in an existing folder that vecnet may write, and none of ``sources``.

    Raises
    ------
    OutputError
        Naming the path and what is wrong with it.

    Examples
    --------
    >>> check_output("")
    Traceback (most recent call last):
    ...
    vecnet.errors.OutputError: the output file name is empty
    >>> check_output("/dev/null")
    Traceback (most recent call last):
    ...
    vecnet.errors.OutputError: /dev/null: is a device, not a regular file; vecnet writes only regular files
    """
    name = os.fspath(path)
    if isinstance(name, bytes):
        name = os.fsdecode(name)
    if not name:
        raise OutputError("the output file name is empty")
    bad = sorted({f"U+{ord(c):04X}" for c in name if ord(c) < 32 or 127 <= ord(c) < 160
                  or c in "\u2028\u2029"})
    if bad:
        raise OutputError(f"{name!r}: the output file name holds control characters "
                          f"({', '.join(bad)})")
    full = os.path.abspath(name)
    folder = os.path.dirname(full)
    if len(os.fsencode(full)) > MAX_PATH_BYTES:
        raise OutputError(f"{name[:60]}...: the output path is longer than {MAX_PATH_BYTES} "
                          "bytes")
    limit = _name_max(folder if os.path.isdir(folder) else "/")
    longest = max(os.fsencode(full).split(b"/"), key=len)
    if len(longest) > limit:
        raise OutputError(f"{name[:60]}...: a name in the output path is {len(longest)} bytes "
                          f"long, more than the {limit} the file system allows")
    if not os.path.exists(folder):
        raise OutputError(f"{name}: the folder {folder} does not exist (vecnet does not create "
                          "folders)")
    if not os.path.isdir(folder):
        raise OutputError(f"{name}: {folder} is a file, not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"{name}: no permission to write in {folder}")
    try:
        mode = os.stat(full).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise OutputError(f"{name}: cannot write it: {exc.strerror}") from None
    if stat.S_ISDIR(mode):
        raise OutputError(f"{name}: is a directory; give a file name")
    if not stat.S_ISREG(mode):
        kind = ("a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else
                "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else
                "not a regular file")
        raise OutputError(f"{name}: is {kind}, not a regular file; vecnet writes only regular "
                          "files")
    for source in sources:
        try:
            same = os.path.samefile(full, source)
        except OSError:
            continue
        if same:
            raise OutputError(f"{name}: is the input file {os.fspath(source)}; writing it would "
                              "destroy the model: give another output file")


def write_atomically(path: str | os.PathLike, data: str | bytes,
                     sources: Iterable[str | os.PathLike] = ()) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder, so that a
    failure never leaves a partial file behind. ``path`` is checked first
    (:func:`check_output`, with the input files ``sources``). A new file gets the
    permissions of the user's umask (0644 under umask 022); a replaced file keeps its own.
    The folder must exist: a mistyped path is refused, never created."""
    check_output(path, sources)
    folder = os.path.dirname(os.path.abspath(path))
    mode = "wb" if isinstance(data, bytes) else "w"
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".vecnet-", suffix=".tmp")
    try:
        # mkstemp makes the file private (0600); the result gets the mode of the file it
        # replaces, or of a new file under the user's umask, as open() would give
        try:
            permissions = os.stat(path).st_mode & 0o7777
        except OSError:
            mask = os.umask(0o022)
            os.umask(mask)
            permissions = 0o666 & ~mask
        os.chmod(fd, permissions)
        with os.fdopen(fd, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
