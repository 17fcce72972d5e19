"""An incremental parser of server-sent events, as OpenAI-compatible servers stream them.

The parser follows the event-stream format of the HTML standard, restricted to what
a streamed completion needs: lines end with CRLF, LF or CR (a CRLF split between two
network reads is one line end); a line starting with ``:`` is a comment (servers send
them as keep-alives); ``data:`` lines accumulate, joined by newlines, and a blank line
dispatches the event; other fields (``event:``, ``id:``, ``retry:``) are ignored.
Bytes are split into lines before decoding, so a UTF-8 character split between two
reads is decoded whole; invalid UTF-8 becomes U+FFFD.

Each byte is scanned once: a read is searched for line ends on its own, and the
unfinished line it leaves is kept in a growing buffer, so the work is linear in the
length of the stream however it is split. An event may hold at most
``max_event_size`` bytes (its ``data:`` lines and the line being read, not counting
line ends); past that :meth:`SSEDecoder.feed` raises :class:`EventTooLarge` instead of
buffering without end.

Unlike the standard, :meth:`SSEDecoder.close` also dispatches an event whose final
blank line never came, so a stream that stops right after ``data: [DONE]`` is
still seen to have finished; :attr:`SSEDecoder.unterminated` then tells that the
stream ended inside that event.
"""

from __future__ import annotations

from collections.abc import Iterator

__all__ = ["DEFAULT_MAX_EVENT_SIZE", "EventTooLarge", "SSEDecoder"]

DEFAULT_MAX_EVENT_SIZE = 16 << 20
"""Bytes one event of a stream may hold by default: 16 MiB."""


def _line_ends(chunk: bytes) -> Iterator[tuple[int, int]]:
    """The ``(start, stop)`` of every CRLF, CR and LF of ``chunk``, in order.

    Each kind of line end is looked for with :meth:`bytes.find` from where the
    last one was passed, so the chunk is scanned once (a regular expression with
    alternatives is some hundred times slower on long lines).
    """
    size = len(chunk)
    lf = chunk.find(b"\n")
    cr = chunk.find(b"\r")
    while lf >= 0 or cr >= 0:
        if cr < 0 or 0 <= lf < cr:
            at, stop = lf, lf + 1
        else:
            at = cr
            stop = cr + 2 if cr + 1 < size and chunk[cr + 1] == 0x0A else cr + 1
        yield at, stop
        if 0 <= lf < stop:
            lf = chunk.find(b"\n", stop)
        if 0 <= cr < stop:
            cr = chunk.find(b"\r", stop)


class EventTooLarge(Exception):
    """An event (or a line) of the stream is longer than the decoder's limit."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"event too large: an event passed --max-event-size ({limit} bytes)")
        self.limit = limit


class SSEDecoder:
    """Turn the bytes of an event stream into the data of its events, as they complete.

    Parameters
    ----------
    max_event_size : int
        The most bytes an event's ``data:`` lines and the line being read may hold
        together (line ends not counted); past it :meth:`feed` raises
        :class:`EventTooLarge`.

    Examples
    --------
    >>> decoder = SSEDecoder()
    >>> decoder.feed(b': keep-alive\\r\\ndata: {"a": 1}\\r\\n\\r\\ndata: [DO')
    ['{"a": 1}']
    >>> decoder.feed(b"NE]\\n\\n")
    ['[DONE]']
    >>> decoder.feed(b"data: first\\ndata:second\\n")
    []
    >>> decoder.close(), decoder.unterminated
    (['first\\nsecond'], True)
    >>> SSEDecoder(max_event_size=8).feed(b"data: 0123456789")
    Traceback (most recent call last):
    ...
    scorekit.loadtest._sse.EventTooLarge: event too large: an event passed ... (8 bytes)
    """

    def __init__(self, max_event_size: int = DEFAULT_MAX_EVENT_SIZE) -> None:
        self.max_event_size = max_event_size
        self.unterminated = False
        """Whether :meth:`close` dispatched an event that had no closing blank line."""
        self._line = bytearray()
        self._data: list[str] = []
        self._size = 0
        self._skip_lf = False

    def feed(self, chunk: bytes) -> list[str]:
        """Read ``chunk``; return the data of every event it completes, in order.

        Raises
        ------
        EventTooLarge
            The event being read has grown past ``max_event_size`` bytes.
        """
        if self._skip_lf and chunk:
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
            self._skip_lf = False
        events: list[str] = []
        start = 0
        for at, stop in _line_ends(chunk):
            piece = chunk[start:at]
            if self._line:
                self._line += piece
                piece = bytes(self._line)
                self._line.clear()
            self._take(piece, events)
            start = stop
        if start < len(chunk):
            self._line += chunk[start:]
            if self._size + len(self._line) > self.max_event_size:
                raise EventTooLarge(self.max_event_size)
        # A CR at the very end may be the first half of a CRLF whose LF is yet to come.
        self._skip_lf = chunk.endswith(b"\r") and start == len(chunk)
        return events

    def close(self) -> list[str]:
        """End of stream: the data of an event left without its closing blank line."""
        events: list[str] = []
        if self._line:
            line = bytes(self._line)
            self._line.clear()
            self._take(line, events)
        if self._data:
            events.append("\n".join(self._data))
            self._data = []
            self._size = 0
            self.unterminated = True
        return events

    def _take(self, line: bytes, events: list[str]) -> None:
        if not line:
            if self._data:
                events.append("\n".join(self._data))
                self._data = []
                self._size = 0
            return
        if line[:1] == b":":
            return
        field, colon, value = line.partition(b":")
        if field != b"data":
            return
        self._size += len(line)
        if self._size > self.max_event_size:
            raise EventTooLarge(self.max_event_size)
        if colon and value[:1] == b" ":
            value = value[1:]
        self._data.append(value.decode("utf-8", errors="replace"))
