"""What the file readers of the streaming engine share: opening, block sizes, re-reading.

Readers yield ``(batch, bytes_read)``; when a streaming reader must start a file
again (a line longer than its block), :func:`skip` drops the rows already read.
When a value does not fit the type a reader fixed for its column, the reader
raises :class:`Widen` after recording the wider type, and the engine reads its
input again.
"""

from __future__ import annotations

import gzip
import stat
import zlib
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

from scorekit.errors import InputError, message, raw
from scorekit.io._remote import local_path

__all__ = [
    "BOM",
    "Widen",
    "block_size",
    "empty",
    "head",
    "open_file",
    "open_text",
    "read_batches",
    "read_small",
    "skip",
    "straddles",
]

_MIN_BLOCK = 1 << 20
_MAX_BLOCK = 1 << 26
_HEAD = 1 << 16
_SMALL = 64
"""A file of at most this many of the smallest blocks (64 MiB) may be read in one call."""
BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte-order mark some tools write at the start of text files."""


class Widen(Exception):
    """A value did not fit its column's type; the read plan now holds a wider type."""

    def __init__(self, path: Path, column: str, kind: Any) -> None:
        super().__init__(f"{path}: column {column!r} is read again as {kind}")
        self.path = path
        self.column = column
        self.kind = kind


def open_file(path: Path) -> tuple[Any, Any]:
    """The raw file (whose position counts the bytes read) and the stream to parse."""
    import pyarrow as pa

    path = Path(local_path(path))

    try:
        handle = pa.OSFile(str(path))
    except (pa.ArrowException, OSError) as exc:
        raise InputError(
            message(str(path), "cannot open", raw(str(exc)), "a readable file")
        ) from None
    if path.name.lower().endswith(".gz"):
        return handle, pa.CompressedInputStream(handle, "gzip")
    return handle, handle


def open_text(path: Path) -> Any:
    """The file as UTF-8 text (gzip content decompressed), bad bytes replaced."""
    path = Path(local_path(path))
    if path.name.lower().endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return path.open(encoding="utf-8", errors="replace")


def read_small(path: Path) -> Any | None:
    """The bytes of an uncompressed file of at most 64 smallest blocks, in one pyarrow buffer.

    None for a larger or compressed file, or one that is not a regular file,
    which is read block by block. The buffer is pyarrow's memory, not a Python
    object, so pyarrow's reading threads never need Python's lock to let it go.
    """
    path = Path(local_path(path))
    if path.name.lower().endswith(".gz"):
        return None
    try:
        status = path.stat()
    except OSError:
        return None
    # a FIFO or a device is read as a stream, as before
    if not stat.S_ISREG(status.st_mode) or status.st_size > _SMALL * _MIN_BLOCK:
        return None
    handle, _ = open_file(path)
    try:
        data = handle.read_buffer()
    except OSError as exc:
        raise InputError(
            message(str(path), "cannot read", raw(str(exc)), "a readable file")
        ) from None
    finally:
        handle.close()
    # a file that grew since its size was taken is read block by block
    return data if data.size <= _SMALL * _MIN_BLOCK else None


def head(path: Path) -> bytes:
    """The first 64 kB of the file's content (decompressed)."""
    path = Path(local_path(path))
    try:
        if path.name.lower().endswith(".gz"):
            with gzip.open(path, "rb") as handle:
                data: bytes = handle.read(_HEAD)
        else:
            with path.open("rb") as handle:
                data = handle.read(_HEAD)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(
            message(str(path), "cannot read", raw(str(exc)), "a readable file")
        ) from None
    return data


def block_size(sample: bytes, chunk_size: int) -> int:
    """A block of about ``chunk_size`` rows, at least 1 MiB and four times the longest line.

    ``sample`` is the start of the file (:func:`head`), from which the size of a
    row is estimated.

    Examples
    --------
    >>> block_size(b"a,b\\n" + b"1,2\\n" * 1000, 65_536) == 1 << 20
    True
    >>> block_size(b"a,b\\n" + b"1,2\\n" * 1000, 1_000_000)
    5000000
    """
    lines = sample.split(b"\n")
    complete = max(len(lines) - 1, 1)
    per_row = len(sample) / complete
    longest = max((len(line) for line in lines), default=0)
    block = max(int(per_row * chunk_size * 1.25), 4 * longest + 1024, _MIN_BLOCK)
    return min(block, max(_MAX_BLOCK, 4 * longest + 1024))


def straddles(exc: Exception) -> bool:
    """Whether pyarrow failed on a row longer than its block."""
    return "straddl" in str(exc)


def empty(path: Path, expected: str) -> InputError:
    """The error for a file with no content."""
    return InputError(message(str(path), "file is empty", None, expected))


def skip(batch: Any, seen: int, done: int) -> Any | None:
    """Drop the rows of ``batch`` (starting at file row ``seen``) before row ``done``."""
    n = batch.num_rows
    if seen + n <= done:
        return None
    if seen < done:
        return batch.slice(done - seen)
    return batch


def read_batches(
    path: Path,
    block: int,
    open_reader: Callable[[Any, int], Any],
    failure: Callable[[Exception, int], Exception],
    finish: Callable[[int], None] | None = None,
) -> Generator[tuple[Any, int], None, None]:
    """Yield ``(batch, bytes_read)`` of a streaming pyarrow reader, starting again on long rows.

    ``open_reader(stream, block)`` opens the reader on the file's stream. When
    pyarrow fails on a row longer than the block, the file is read again with a
    block four times larger, and the rows already yielded are skipped; any other
    failure raises ``failure(exc, block)``. At the end of the file,
    ``finish(rows)`` gets the number of rows read, and may raise.
    """
    import pyarrow as pa

    done = 0
    while True:
        handle, stream = open_file(path)
        reader: Any = None
        try:
            reader = open_reader(stream, block)
            seen = 0
            while True:
                try:
                    batch = reader.read_next_batch()
                except StopIteration:
                    if finish is not None:
                        finish(seen)
                    return
                part = skip(batch, seen, done)
                seen += batch.num_rows
                if part is not None:
                    done = seen
                    yield part, handle.tell()
        except (pa.ArrowException, OSError) as exc:
            if straddles(exc) and block < (1 << 31):
                block *= 4
                continue
            raise failure(exc, block) from None
        finally:
            # a reader left before its end (a first chunk read alone) stops reading
            # before its file closes
            if reader is not None and hasattr(reader, "close"):
                reader.close()
            # dropped here, not with a traceback that holds this frame
            reader = None
            handle.close()
