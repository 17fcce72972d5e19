"""Checks on the bytes of a text file as pyarrow reads them: lines counted, JSON depth bounded.

pyarrow's readers take a stream; wrapped in a :class:`pyarrow.TransformInputStream`
by one of the :class:`StreamCheck` classes of this module, every block of the file passes through
numpy on its way to the parser, so the checks cost one vectorised pass and no
second read of the file:

- :class:`LineCount` counts the non-empty lines of a CSV or TSV file. pyarrow reads
  one row per line, so a table with fewer rows than data lines lost some, which
  happens when a quote opened in a field is never closed: pyarrow then reads the
  following lines, up to the end of its block or of the file, as that one value.
  :func:`unclosed_quote` then finds the line where the quote opens.
- :class:`DepthGuard` refuses a JSON Lines file with a line nested more than
  :data:`MAX_JSON_DEPTH` levels deep before pyarrow parses it (pyarrow's JSON
  parser recurses without a bound and crashes the process on deep input).
"""

from __future__ import annotations

import abc
import atexit
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.errors import InputError, message, raw
from scorekit.io._blocks import open_text

__all__ = [
    "MAX_JSON_DEPTH",
    "DepthGuard",
    "LineCount",
    "StreamCheck",
    "check_rows",
    "check_values",
    "deep_line_error",
    "json_depth_error",
    "lost_rows_error",
    "newline_in",
    "nul_error",
    "too_deep",
    "unclosed_quote",
]

MAX_JSON_DEPTH = 500
"""The deepest nesting of arrays and objects a JSON line or document may have.

pyarrow's JSON reader crashes the process near 30,000 levels and Python's
``json`` stops near 1,000 (its recursion limit); no real data nests this deep.
"""

_STEP = 1 << 23
_NEWLINE, _RETURN, _QUOTE, _BACKSLASH = 10, 13, 34, 92
_OPEN = (91, 123)  # [ {
_CLOSE = (93, 125)  # ] }


def _bytes(buf: Any) -> NDArray[np.uint8]:
    return np.frombuffer(buf, dtype=np.uint8) if len(memoryview(buf)) else np.empty(0, np.uint8)


class StreamCheck(abc.ABC):
    """A transform of the blocks pyarrow reads, run by pyarrow's reading threads.

    :meth:`wrap` gives the stream to hand to pyarrow's reader. pyarrow reads ahead
    of its reader in threads of its own, which call the transform with each block
    and release it when they are done, which both take Python's lock. A reading
    thread that does so while the interpreter shuts down is ended by Python in
    the middle of pyarrow's code, which aborts or hangs the process. So a reader
    whose reading stops early is followed by :meth:`release`, which stops the
    transform (every later call returns ``b""``, the end of the file, so the
    reading threads read no further) and waits until they have let it go; at the
    interpreter's exit every transform still held is stopped and waited for the
    same way. Subclasses implement :meth:`_transform`.
    """

    def __init__(self) -> None:
        self.stopped = False
        self._held: list[weakref.ref[_Relay]] = []

    def __call__(self, buf: Any) -> Any:
        if self.stopped:
            return b""
        return self._transform(buf)

    @abc.abstractmethod
    def _transform(self, buf: Any) -> Any:
        """The block pyarrow gets for the block ``buf`` read from the file."""

    def wrap(self, stream: Any) -> Any:
        """``stream`` as a :class:`pyarrow.TransformInputStream` through this transform."""
        import pyarrow as pa

        relay = _Relay(self)
        self._held.append(weakref.ref(relay))
        _HELD.add(relay)
        return pa.TransformInputStream(stream, relay)

    def stop(self) -> None:
        """Return the end of the file from now on: the reader reads no further."""
        self.stopped = True

    def release(self) -> None:
        """Stop, and wait (at most :data:`_SETTLE` seconds) until pyarrow holds the stream no more.

        Call it once the reader is closed and dropped.
        """
        self.stop()
        _wait(lambda: all(held() is None for held in self._held))


class _Relay:
    """What pyarrow holds of a transform: it is freed when pyarrow lets the stream go."""

    __slots__ = ("__weakref__", "check")

    def __init__(self, check: StreamCheck) -> None:
        self.check = check

    def __call__(self, buf: Any) -> Any:
        check = self.check
        # an error raised by the check keeps this frame in its traceback: without
        # ``self``, so that the relay is still freed when pyarrow lets it go
        del self
        return check(buf)


_SETTLE = 2.0
"""The longest wait for pyarrow's reading threads to let a transform go."""

_HELD: weakref.WeakSet[_Relay] = weakref.WeakSet()


def _wait(done: Callable[[], bool]) -> None:
    deadline = time.monotonic() + _SETTLE
    while not done() and time.monotonic() < deadline:
        # the sleep lets a reading thread take Python's lock
        time.sleep(0.001)


@atexit.register
def _settle() -> None:
    """Stop every transform pyarrow still holds and wait until it lets them go."""
    for relay in list(_HELD):
        relay.check.stop()
    _wait(lambda: not _HELD)


class LineCount(StreamCheck):
    """Counts the non-empty lines (ended by ``\\n``, ``\\r\\n`` or ``\\r``) of a text file.

    An instance is the transform of a stream over the file (:meth:`~StreamCheck.wrap`):
    it returns each block unchanged. A line is non-empty when it holds a byte other
    than the line ends, so the count is the number of runs of such bytes. A NUL
    byte, which no text file holds, is an error naming its line.

    Examples
    --------
    >>> count = LineCount("a.csv")
    >>> _ = count(b"a,b\\r\\n1,2\\n\\n3,")
    >>> _ = count(b"4\\n")
    >>> count.lines
    3
    """

    def __init__(self, path: Path | str) -> None:
        super().__init__()
        self.path = Path(path)
        self.lines = 0
        self.nul = False
        self._after_break = True

    def _transform(self, buf: Any) -> Any:
        # a NUL byte ends the stream here (the reader sees the end of the file) and is
        # raised by the caller (:meth:`check`): an error raised in this transform would
        # travel through pyarrow's reading threads
        if self.nul:
            return b""
        data = _bytes(buf)
        for start in range(0, data.size, _STEP):
            part = data[start : start + _STEP]
            if not part.all():
                self.nul = True
                return b""
            breaks = (part == _NEWLINE) | (part == _RETURN)
            starts = np.count_nonzero(breaks[:-1] & ~breaks[1:])
            self.lines += int(starts) + int(self._after_break and not breaks[0])
            self._after_break = bool(breaks[-1])
        return buf

    def check(self) -> None:
        """Raise the NUL byte found, naming its line, if one was."""
        if self.nul:
            raise nul_error(self.path)


def nul_error(path: Path) -> InputError:
    """The error naming the first line of the text file ``path`` that holds a NUL byte."""
    where = str(path)
    try:
        with open_text(path) as handle:
            for number, line in enumerate(handle, start=1):
                if "\x00" in line:
                    where = f"{path}, line {number}, column {line.index(chr(0)) + 1}"
                    break
    except OSError:
        pass
    return InputError(
        message(
            where, "a NUL byte in a text file", None, "text without NUL bytes (not binary data)"
        )
    )


def too_deep(data: NDArray[np.uint8], limit: int) -> int | None:
    """The offset of the first bracket of ``data`` (one JSON line) nested over ``limit`` deep.

    Brackets inside JSON strings do not count; a quote preceded by an odd
    number of backslashes does not end a string; a closing bracket without its
    opening one does not make the depth negative. None when no bracket is.

    Examples
    --------
    >>> import numpy as np
    >>> line = np.frombuffer(b'{"a": "[[[", "b": [[1]]}', dtype=np.uint8)
    >>> too_deep(line, 2), too_deep(line, 3)
    (19, None)
    """
    quotes = np.flatnonzero(data == _QUOTE)
    if quotes.size:
        plain = np.flatnonzero(data != _BACKSLASH)
        before = np.searchsorted(plain, quotes) - 1
        previous = np.where(before >= 0, plain[np.maximum(before, 0)], -1)
        quotes = quotes[(quotes - 1 - previous) % 2 == 0]
    opens = np.flatnonzero((data == _OPEN[0]) | (data == _OPEN[1]))
    closes = np.flatnonzero((data == _CLOSE[0]) | (data == _CLOSE[1]))
    opens = opens[np.searchsorted(quotes, opens) % 2 == 0]
    if opens.size <= limit:
        return None
    closes = closes[np.searchsorted(quotes, closes) % 2 == 0]
    where = np.concatenate((opens, closes))
    order = np.argsort(where, kind="stable")
    steps = np.concatenate((np.ones(opens.size, np.int64), -np.ones(closes.size, np.int64)))
    depth = np.cumsum(steps[order])
    depth -= np.minimum.accumulate(np.minimum(depth, 0))
    over = np.flatnonzero(depth > limit)
    return int(where[order][over[0]]) if over.size else None


def json_depth_error(path: Path | str, line: int, column: int | None, limit: int) -> InputError:
    """The error for a line of ``path`` nested more than ``limit`` levels deep."""
    at = f"{path}, line {line}" + ("" if column is None else f", column {column}")
    return InputError(
        message(
            at,
            "JSON nested too deeply",
            raw(f"more than {limit} levels of arrays and objects"),
            f"at most {limit} levels",
        )
    )


def deep_line_error(path: Path | str, line: int, text: str) -> InputError:
    """The error for line ``line`` of ``path``, ``text``, too deep for Python's ``json``."""
    data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    offset = too_deep(data, MAX_JSON_DEPTH)
    column = None if offset is None else len(data[:offset].tobytes().decode("utf-8", "replace")) + 1
    return json_depth_error(path, line, column, MAX_JSON_DEPTH)


class DepthGuard(StreamCheck):
    """Raises an :class:`InputError` on the first line nested more than ``limit`` levels deep.

    An instance is the transform of a stream over a JSON Lines file
    (:meth:`~StreamCheck.wrap`): it returns each block unchanged once no line of
    it is too deep. The error fails the stream, so that pyarrow parses no part of
    that line, and reaches the reader's caller.

    A line of at most ``limit`` bytes, or with at most ``limit`` opening brackets,
    cannot be deeper: only the lines of a block longer than that have their
    brackets counted, and only a line with more brackets is scanned exactly
    (:func:`too_deep`), strings and escapes respected.

    Examples
    --------
    >>> guard = DepthGuard("a.jsonl", limit=3)
    >>> _ = guard(b'{"x": [[1]]}\\n{"x": "[[[[[["}\\n')
    >>> guard(b'{"x": [[[[1]]]]}\\n')
    Traceback (most recent call last):
    ...
    scorekit.errors.InputError: a.jsonl, line 3, column 9: JSON nested too deeply; ...
    """

    def __init__(self, path: Path | str, limit: int = MAX_JSON_DEPTH) -> None:
        super().__init__()
        self.path = path
        self.limit = limit
        self.error: InputError | None = None
        self._line = 1
        self._pending: list[NDArray[np.uint8]] = []
        self._size = 0

    def _transform(self, buf: Any) -> Any:
        if self.error is not None:
            raise self.error
        data = _bytes(buf)
        if not data.size and self._size > self.limit:
            self._check_line(self._pending, 0)
        if not data.size:
            self._pending, self._size = [], 0
        for start in range(0, data.size, _STEP):
            self._scan(data[start : start + _STEP])
        return buf

    def _check_line(self, pieces: list[NDArray[np.uint8]], offset: int) -> None:
        line = np.concatenate(pieces) if len(pieces) != 1 else pieces[0]
        column = too_deep(line, self.limit)
        if column is not None:
            self.error = json_depth_error(self.path, self._line + offset, column + 1, self.limit)
            raise self.error

    def _scan(self, part: NDArray[np.uint8]) -> None:
        ends = np.flatnonzero(part == _NEWLINE)
        bounds = np.concatenate(([0], ends + 1, [part.size]))
        sizes = np.diff(bounds)
        sizes[0] += self._size
        # a line of at most `limit` bytes holds at most `limit` brackets
        long = np.flatnonzero(sizes[:-1] > self.limit)
        if long.size:
            opening = _opening(part)
            counts = np.diff(np.searchsorted(np.flatnonzero(opening), bounds))
            if long[0] == 0:
                counts[0] += sum(int(np.count_nonzero(_opening(p))) for p in self._pending)
            for i in long[counts[long] > self.limit]:
                piece = part[bounds[i] : bounds[i + 1] - 1]
                self._check_line([*self._pending, piece] if i == 0 else [piece], int(i))
        tail = part[bounds[-2] :]
        if ends.size:
            self._line += ends.size
            self._pending = [tail] if tail.size else []
        else:
            self._pending.append(tail)
        self._size = int(sizes[-1])


def _opening(data: NDArray[np.uint8]) -> NDArray[np.bool_]:
    opening: NDArray[np.bool_] = (data == _OPEN[0]) | (data == _OPEN[1])
    return opening


def unclosed_quote(path: Path, delimiter: str) -> InputError | None:
    """The error naming the first line of ``path`` where a quoted field is not closed.

    A field that starts with a quote ends at the next quote that is not doubled;
    pyarrow reads the text after a quote left open, up to the end of its block
    or of the file, as one value. Only runs once a reader found rows missing.
    """
    try:
        with open_text(path) as handle:
            for number, line in enumerate(handle, start=1):
                if '"' not in line:
                    continue
                text = line.rstrip("\r\n")
                start = _open_quote(text, delimiter)
                if start is not None:
                    shown = text[start : start + 40] + ("..." if len(text) > start + 40 else "")
                    return InputError(
                        message(
                            f"{path}, line {number}, column {start + 1}",
                            "quoted field not closed on its line",
                            raw(repr(shown)),
                            "a closing quote before the end of the line (a quote inside a "
                            'quoted field is written twice: "")',
                        )
                    )
    except OSError:
        return None
    return None


def _open_quote(line: str, delimiter: str) -> int | None:
    """The position of a quote that opens a field of ``line`` and is never closed."""
    pos, end = 0, len(line)
    while pos <= end:
        if pos < end and line[pos] == '"':
            search = pos + 1
            while True:
                close = line.find('"', search)
                if close < 0:
                    return pos
                if line.startswith('"', close + 1):
                    search = close + 2
                    continue
                break
            after = line.find(delimiter, close + 1)
        else:
            after = line.find(delimiter, pos)
        if after < 0:
            return None
        pos = after + 1
    return None


def lost_rows_error(path: Path, delimiter: str, problem: str, got: str) -> InputError:
    """The error for a CSV or TSV file not read one row per line: where a quote opens, if found."""
    found = unclosed_quote(path, delimiter)
    if found is not None:
        return found
    return InputError(message(str(path), problem, raw(got), "one row per line"))


def newline_in(table: Any) -> bool:
    """Whether a string column of ``table`` (a pyarrow table or batch) holds a line end.

    CSV is read one row per line, so such a value holds the line end after a
    quote that was never closed.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    return any(
        (pa.types.is_string(column.type) or pa.types.is_large_string(column.type))
        and bool(pc.any(pc.match_substring_regex(column, "[\r\n]")).as_py())
        for column in table.columns
    )


def check_rows(path: Path, delimiter: str, rows: int, count: LineCount) -> None:
    """Raise unless ``rows`` rows were read from the data lines ``count`` counted.

    ``count`` has seen the whole file, whose first non-empty line is the header.
    """
    lines = max(count.lines - 1, 0)
    if rows != lines:
        kind = "TSV" if delimiter == "\t" else "CSV"
        raise lost_rows_error(
            path,
            delimiter,
            f"cannot read every line as a {kind} row",
            f"{rows} rows from {lines} lines",
        )


def check_values(path: Path, delimiter: str, table: Any) -> None:
    """Raise if a string column of ``table`` holds a line end (:func:`newline_in`)."""
    if newline_in(table):
        raise lost_rows_error(
            path, delimiter, "a value holds a line end", "a quoted value over several lines"
        )
