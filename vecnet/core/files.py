"""Writing results to files so that nothing is ever lost: an output path is checked whole
before any work, and a file is written through a temporary file and a rename.

:func:`check_output` refuses a path that could not be written or would destroy something:
an empty name, a name with control characters, a name longer than the file system allows,
a missing folder, a directory, a device, a FIFO or a socket, and the file an input was read
from (however it is reached: links and hard links included). :func:`write_atomically`
checks the same and never leaves a partial file behind.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator

from ..errors import OutputError

__all__ = ["check_output", "replacing", "write_atomically"]

#: Unicode's bidirectional controls (marks, embeddings, overrides, isolates): in a file
#: name they make it read otherwise than it is ("report\u202elmth.exe" shows as
#: "reportexe.html")
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                          "\u2066\u2067\u2068\u2069")

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
                  or c in "\u2028\u2029" or c in BIDI_CONTROLS})
    if bad:
        why = ("; a direction control shows a name that is not the one written"
               if any(c in BIDI_CONTROLS for c in name) else "")
        raise OutputError(f"{name!r}: the output file name holds control characters "
                          f"({', '.join(bad)}{why})")
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


#: the temporary files vecnet writes beside an output: ``.vecnet-<pid>-<random><suffix>``
TEMPORARY_PREFIX = ".vecnet-"


def _remove_stale(folder: str) -> None:
    """Remove the temporary files that a vecnet process no longer running left in
    ``folder`` (killed while writing, where no clean-up could run)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if not name.startswith(TEMPORARY_PREFIX):
            continue
        pid = name[len(TEMPORARY_PREFIX):].split("-", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:    # that process is gone: its file is nobody's
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(folder, name))
        except (PermissionError, OverflowError, OSError):
            continue                  # alive (someone else's), or no such number


@contextlib.contextmanager
def replacing(path: str | os.PathLike, sources: Iterable[str | os.PathLike] = ()
              ) -> Iterator[str]:
    """The one way vecnet writes a file: ``path`` is checked first (:func:`check_output`,
    with the input files ``sources``), then the body of the ``with`` writes a temporary
    file in the same folder, whose name it is given (ending as ``path`` does, so that a
    writer that reads the format off the name finds it), and only when the body ends
    without an exception is that file renamed onto ``path``. A failure, an interrupt or a
    full disk leaves the old file as it was and removes the temporary one; one left by a
    killed process is removed at the next write in that folder. A symbolic link at
    ``path`` is replaced, never followed into its target. A new file gets the permissions
    of the user's umask (0644 under umask 022), a replaced file its own, less set-user and
    set-group ID. The folder must exist: a mistyped path is refused, never created.

    Raises
    ------
    OutputError
        Where ``path`` is refused, or the file cannot be written there (the temporary
        file cannot be made, the writer or the rename fails with an ``OSError``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = tempfile.mkdtemp()
    >>> target = pathlib.Path(folder, "a.txt")
    >>> with replacing(target) as name:
    ...     _ = pathlib.Path(name).write_text("new")
    >>> target.read_text(), sorted(p.name for p in pathlib.Path(folder).iterdir())
    ('new', ['a.txt'])
    """
    check_output(path, sources)
    full = os.path.abspath(os.fspath(path))
    folder = os.path.dirname(full)
    _remove_stale(folder)
    suffix = os.path.splitext(full)[1]
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f"{TEMPORARY_PREFIX}{os.getpid()}-",
                                   suffix=suffix if len(suffix) < 16 else ".tmp")
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    try:
        # mkstemp makes the file private (0600); the result gets the mode of the file it
        # replaces, or of a new file under the user's umask, as open() would give
        try:
            permissions = os.stat(full).st_mode & 0o777
        except OSError:
            mask = os.umask(0o022)
            os.umask(mask)
            permissions = 0o666 & ~mask
        os.chmod(fd, permissions)
        os.close(fd)
        yield tmp
        os.replace(tmp, full)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):   # the writer's or the rename's: a full disk, say
            raise _cannot_write(path, exc) from None
        raise


def _cannot_write(path: str | os.PathLike, exc: OSError) -> OutputError:
    return OutputError(f"{os.fspath(path)}: cannot write it: {exc.strerror or exc}")


def write_atomically(path: str | os.PathLike, data: str | bytes,
                     sources: Iterable[str | os.PathLike] = ()) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` through :func:`replacing`: checked first,
    never a partial file.

    Raises
    ------
    OutputError
        Where ``path`` is refused or the data cannot be written (a full disk).

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp(), "b.txt")
    >>> write_atomically(target, "text"); target.read_text()
    'text'
    """
    mode = "wb" if isinstance(data, bytes) else "w"
    with replacing(path, sources) as tmp, \
            open(tmp, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
