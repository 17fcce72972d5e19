"""Reading a whole file safely: regular files only, a cap on the bytes read and decompressed.

Files read whole into memory (state files, SQuAD JSON, prompt files) go through
:func:`read_limited`. A device, a FIFO or a directory is refused before it is
opened (a FIFO would block, ``/dev/zero`` would never end), and a file, or the
gzip data inside it, larger than :func:`max_file_size` is an error instead of
a ``MemoryError``. The limit is 1 GiB unless ``SCOREKIT_MAX_FILE_SIZE`` says
otherwise (bytes, or a number with ``K``, ``M``, ``G`` or ``T``); the commands
that read such files set it with ``--max-file-size``.
"""

from __future__ import annotations

import os
import re
import stat
import zlib
from pathlib import Path

from scorekit.errors import ConfigError, InputError, message, raw
from scorekit.io._remote import local_path

__all__ = [
    "DEFAULT_MAX_FILE_SIZE",
    "DEFAULT_STATE_WARNING_SIZE",
    "MAX_FILE_SIZE_VARIABLE",
    "STATE_WARNING_VARIABLE",
    "max_file_size",
    "parse_size",
    "read_limited",
    "read_text",
    "require_regular",
    "state_warning_size",
]

DEFAULT_MAX_FILE_SIZE = 1 << 30
"""Bytes a whole-read file (or its decompressed content) may hold by default: 1 GiB."""

MAX_FILE_SIZE_VARIABLE = "SCOREKIT_MAX_FILE_SIZE"
"""The environment variable that raises (or lowers) :data:`DEFAULT_MAX_FILE_SIZE`."""

DEFAULT_STATE_WARNING_SIZE = 256 << 20
"""Bytes an exact state that grows with the data may reach before a warning: 256 MiB."""

STATE_WARNING_VARIABLE = "SCOREKIT_STATE_WARNING_SIZE"
"""The environment variable that sets :data:`DEFAULT_STATE_WARNING_SIZE` for a run."""

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*", re.IGNORECASE)
_STEP = 1 << 20


def parse_size(text: str, what: str = "--max-file-size") -> int:
    """A byte count from ``"1073741824"``, ``"512M"``, ``"2G"`` or ``"1.5GiB"``.

    Examples
    --------
    >>> parse_size("512M")
    536870912
    >>> parse_size("2g")
    2147483648
    """
    match = _SIZE.fullmatch(text)
    if match is None or float(match.group(1)) <= 0:
        raise ConfigError(
            message(what, "not a size", text, "a positive number of bytes, or with K, M, G or T")
        )
    return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


def max_file_size() -> int:
    """The largest number of bytes :func:`read_limited` reads (``SCOREKIT_MAX_FILE_SIZE``).

    Examples
    --------
    >>> max_file_size() >= 1 << 20
    True
    """
    text = os.environ.get(MAX_FILE_SIZE_VARIABLE)
    if not text:
        return DEFAULT_MAX_FILE_SIZE
    return parse_size(text, MAX_FILE_SIZE_VARIABLE)


def state_warning_size() -> int:
    """Bytes a growing exact state may reach before a warning (``SCOREKIT_STATE_WARNING_SIZE``).

    Examples
    --------
    >>> state_warning_size() >= 1 << 20
    True
    """
    text = os.environ.get(STATE_WARNING_VARIABLE)
    if not text:
        return DEFAULT_STATE_WARNING_SIZE
    return parse_size(text, STATE_WARNING_VARIABLE)


def require_regular(path: Path, what: str) -> os.stat_result:
    """The status of ``path``, which must be an existing regular file (symbolic links followed).

    ``what`` names what the file should be (``"a state file"``) in the error.
    A URL is copied here first (:func:`scorekit.io.local_path`).
    """
    path = Path(local_path(path))
    try:
        status = path.stat()
    except FileNotFoundError:
        raise InputError(message(str(path), "no such file", None, what)) from None
    except OSError as exc:
        raise InputError(message(str(path), "cannot read", raw(str(exc)), what)) from None
    if stat.S_ISDIR(status.st_mode):
        raise InputError(message(str(path), "is a directory", None, what))
    if not stat.S_ISREG(status.st_mode):
        kind = (
            "a FIFO"
            if stat.S_ISFIFO(status.st_mode)
            else "a device"
            if stat.S_ISCHR(status.st_mode) or stat.S_ISBLK(status.st_mode)
            else "a socket"
            if stat.S_ISSOCK(status.st_mode)
            else "not a regular file"
        )
        raise InputError(message(str(path), f"is {kind}, not a regular file", None, what))
    return status


def _too_large(path: Path, what: str, limit: int, decompressed: bool) -> InputError:
    size = f"more than {limit} bytes" + (" once decompressed" if decompressed else "")
    return InputError(
        message(
            str(path),
            f"file too large ({size})",
            None,
            f"{what} of at most {limit} bytes; raise the limit with --max-file-size "
            f"or {MAX_FILE_SIZE_VARIABLE}",
        )
    )


def read_limited(path: str | os.PathLike[str], what: str, limit: int | None = None) -> bytes:
    """The content of a regular file, gzip data decompressed, at most ``limit`` bytes.

    Parameters
    ----------
    path : str or Path
        The file. Gzip content (detected from its first bytes) is decompressed.
    what : str
        What the file should be, for errors (``"a state file"``).
    limit : int, optional
        The most bytes read or decompressed (default :func:`max_file_size`).

    Raises
    ------
    InputError
        A missing file, a directory, a FIFO or device, a file or decompressed
        content over the limit, or truncated gzip data; each naming the path.

    Examples
    --------
    >>> import gzip, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.json.gz"
    >>> _ = path.write_bytes(gzip.compress(b"{}" * 100))
    >>> len(read_limited(path, "a JSON file"))
    200
    >>> read_limited(path, "a JSON file", limit=50)
    Traceback (most recent call last):
    ...
    scorekit.errors.InputError: ...: file too large (more than 50 bytes once decompressed); ...
    """
    where = Path(local_path(path))
    cap = max_file_size() if limit is None else limit
    status = require_regular(where, what)
    if status.st_size > cap:
        raise _too_large(where, what, cap, False)
    try:
        with where.open("rb") as handle:
            data = handle.read(cap + 1)
    except OSError as exc:
        raise InputError(message(str(where), "cannot read", raw(str(exc)), what)) from None
    if len(data) > cap:
        raise _too_large(where, what, cap, False)
    if data[:2] != b"\x1f\x8b":
        return data
    return _gunzip(where, data, what, cap)


def read_text(
    path: str | os.PathLike[str], what: str, expected: str, limit: int | None = None
) -> str:
    """:func:`read_limited` decoded as UTF-8 (a byte-order mark dropped).

    ``expected`` names the text the file should hold (``"a UTF-8 JSON file"``)
    when it does not decode.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> _ = path.write_bytes(b"\\xef\\xbb\\xbfhello")
    >>> read_text(path, "a text file", "UTF-8 text")
    'hello'
    """
    try:
        return read_limited(path, what, limit).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(message(str(path), "cannot read", raw(str(exc)), expected)) from None


def _gunzip(path: Path, data: bytes, what: str, cap: int) -> bytes:
    out = bytearray()
    rest = data
    try:
        while rest:
            inflate = zlib.decompressobj(wbits=31)
            pending = rest
            while True:
                out += inflate.decompress(pending, min(_STEP, cap + 1 - len(out)))
                if len(out) > cap:
                    raise _too_large(path, what, cap, True)
                pending = inflate.unconsumed_tail
                if inflate.eof or not pending:
                    break
            if not inflate.eof:
                raise EOFError("the gzip data ends before its end marker")
            rest = inflate.unused_data.lstrip(b"\x00")
    except (EOFError, zlib.error) as exc:
        raise InputError(
            message(
                str(path),
                "truncated or corrupt gzip data",
                raw(str(exc) or type(exc).__name__),
                f"complete gzip data of {what}",
            )
        ) from None
    return bytes(out)
