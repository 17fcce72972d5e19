"""The records file of a load test: checked before the first request, written as requests end.

A run's ``out`` file is opened before anything is sent, so a directory, a missing
parent directory, a file that cannot be written or the prompts file itself is an
error at once. Each record is then written as its request ends, with one unbuffered
write, so a process killed in the middle of a run leaves every record of the
requests that had ended, one complete JSON object a line, in the order they ended.
When the run ends (normally, or on SIGINT or SIGTERM), a regular file is replaced,
atomically, by the same records sorted by ``id``, the order :func:`write_records`
writes. Anything else (a FIFO, a pipe, ``/dev/null``, a terminal) is written in
place and keeps the order in which the requests ended: it is never replaced by a
regular file.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from scorekit.errors import InputError, message, raw
from scorekit.loadtest._prompts import EXTRA_KEYS, RECORD_KEYS

__all__ = ["RecordFile", "write_records"]

_ORDER = {key: i for i, key in enumerate(("record", *RECORD_KEYS, *EXTRA_KEYS))}


def _line(record: Mapping[str, Any]) -> bytes:
    if record.get("record") == "metadata":
        return (json.dumps(dict(record)) + "\n").encode("utf-8")
    keys = sorted(record, key=lambda k: (_ORDER.get(k, len(_ORDER)), k))
    return (json.dumps({k: record[k] for k in keys}) + "\n").encode("utf-8")


def _cannot_write(path: str | os.PathLike[str], exc: OSError) -> InputError:
    return InputError(message(str(path), "cannot write", raw(str(exc)), "a writable path"))


def write_records(records: Sequence[Mapping[str, Any]], path: str | os.PathLike[str]) -> None:
    """Write request records as JSON Lines, one object per line, keys in :data:`RECORD_KEYS`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "records.jsonl"
    >>> write_records([{"success": True, "id": 0}], path)
    >>> path.read_text()
    '{"id": 0, "success": true}\\n'
    """
    try:
        with open(path, "wb") as handle:
            for record in records:
                handle.write(_line(record))
    except OSError as exc:
        raise _cannot_write(path, exc) from None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _same_file(status: os.stat_result, other: str | os.PathLike[str]) -> bool:
    try:
        theirs = os.stat(other)
    except OSError:
        return False
    return (status.st_dev, status.st_ino) == (theirs.st_dev, theirs.st_ino)


class RecordFile:
    """Where a run writes its records: opened at once, appended to as requests end.

    Parameters
    ----------
    path : str or Path
        The file to write. A regular file (or a new path) is truncated when opened
        and replaced atomically by the records sorted by ``id`` at :meth:`finish`;
        a FIFO, a pipe or a device is written in place.
    inputs : iterable of paths
        The files the run reads (the prompts file): ``path`` may not be one of them
        (compared by device and inode, so through links too).
    header : mapping, optional
        A record written first, at once, and kept first (the run's metadata record).

    Raises
    ------
    InputError
        ``path`` is a directory, is in a directory that does not exist, is one of
        ``inputs``, is a FIFO that no process reads, or cannot be written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "records.jsonl"
    >>> out = RecordFile(path)
    >>> out.append({"id": 1, "success": True})
    >>> out.append({"id": 0, "success": False})
    >>> path.read_text()
    '{"id": 1, "success": true}\\n{"id": 0, "success": false}\\n'
    >>> out.finish([{"id": 0, "success": False}, {"id": 1, "success": True}])
    >>> path.read_text()
    '{"id": 0, "success": false}\\n{"id": 1, "success": true}\\n'
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        inputs: Iterable[str | os.PathLike[str]] = (),
        *,
        header: Mapping[str, Any] | None = None,
    ):
        self.path = path
        self.header = header
        self._ids: list[Any] = []
        self._error: OSError | None = None
        self._fd: int | None = None
        try:
            status: os.stat_result | None = os.stat(path)
        except FileNotFoundError:
            status = None
        except OSError as exc:
            raise _cannot_write(path, exc) from None
        if status is None:
            if not Path(path).resolve().parent.is_dir():
                raise InputError(
                    message(str(path), "no such directory", None, "a path to write to")
                )
        else:
            if stat.S_ISDIR(status.st_mode):
                raise InputError(
                    message(str(path), "is a directory", None, "a file to write the records to")
                )
            for other in inputs:
                if _same_file(status, other):
                    raise InputError(
                        message(
                            str(path),
                            f"the same file as the prompts file {other}",
                            None,
                            "another path: the records would replace the prompts",
                        )
                    )
        self.regular = status is None or stat.S_ISREG(status.st_mode)
        flags = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)
        flags |= os.O_CREAT | os.O_TRUNC if self.regular else os.O_NONBLOCK
        try:
            self._fd = os.open(path, flags, 0o666)
        except OSError as exc:
            if exc.errno == errno.ENXIO:
                raise InputError(
                    message(
                        str(path),
                        "is a FIFO or socket that no process reads",
                        None,
                        "a file, or a FIFO with a reader",
                    )
                ) from None
            raise _cannot_write(path, exc) from None
        if not self.regular:
            os.set_blocking(self._fd, True)
        if header is not None:
            try:
                _write_all(self._fd, _line(header))
            except OSError as exc:
                self._error = exc

    def append(self, record: Mapping[str, Any]) -> None:
        """Write ``record`` as one line, at once.

        A failed write (a full disk, a FIFO whose reader left) stops the writing;
        :meth:`finish` then raises it.
        """
        if self._fd is None or self._error is not None:
            return
        self._ids.append(record.get("id"))
        try:
            _write_all(self._fd, _line(record))
        except OSError as exc:
            self._error = exc

    def finish(self, records: Sequence[Mapping[str, Any]]) -> None:
        """End the file with ``records`` (sorted by ``id``), and close it.

        A regular file written in another order, or not whole, is replaced atomically
        by ``records``; a FIFO or a device is left as it was written.

        Raises
        ------
        InputError
            A write failed and the file could not be written again whole.
        """
        fd = self._fd
        if fd is None:
            return
        try:
            if self._error is None and (
                not self.regular or self._ids == [r.get("id") for r in records]
            ):
                return
            if not self.regular:
                raise _cannot_write(self.path, self._error or OSError("write failed"))
            try:
                head = [] if self.header is None else [self.header]
                self._replace(fd, b"".join(_line(record) for record in [*head, *records]))
            except OSError as exc:
                raise _cannot_write(self.path, self._error or exc) from None
        finally:
            self.close()

    def close(self) -> None:
        """Close the file as it is (the records appended so far, in the order they came)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def _replace(self, current: int, data: bytes) -> None:
        """Write ``data`` beside the file open as ``current`` and rename it over it;
        in place if that cannot be done."""
        target = os.path.realpath(self.path)
        mode = stat.S_IMODE(os.fstat(current).st_mode)
        try:
            fd, temporary = tempfile.mkstemp(
                prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=os.path.dirname(target)
            )
        except OSError:
            os.ftruncate(current, 0)
            os.lseek(current, 0, os.SEEK_SET)
            _write_all(current, data)
            return
        try:
            try:
                _write_all(fd, data)
                os.fchmod(fd, mode)
            finally:
                os.close(fd)
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
