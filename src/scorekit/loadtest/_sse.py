"""An incremental parser of server-sent events, as OpenAI-compatible servers stream them.

The parser follows the event-stream format of the HTML standard, restricted to what
a streamed completion needs: lines end with CRLF, LF or CR (a CRLF split between two
network reads is one line end); a line starting with ``:`` is a comment (servers send
them as keep-alives); ``data:`` lines accumulate, joined by newlines, and a blank line
dispatches the event; other fields (``event:``, ``id:``, ``retry:``) are ignored.
Bytes are split into lines before decoding, so a UTF-8 character split between two
reads is decoded whole; invalid UTF-8 becomes U+FFFD.

Unlike the standard, :meth:`SSEDecoder.close` also dispatches an event whose final
blank line never came, so a stream that stops right after ``data: [DONE]`` is
still seen to have finished.
"""

from __future__ import annotations

import re

__all__ = ["SSEDecoder"]

_LINE_END = re.compile(rb"\r\n|\r|\n")


class SSEDecoder:
    """Turn the bytes of an event stream into the data of its events, as they complete.

    Examples
    --------
    >>> decoder = SSEDecoder()
    >>> decoder.feed(b': keep-alive\\r\\ndata: {"a": 1}\\r\\n\\r\\ndata: [DO')
    ['{"a": 1}']
    >>> decoder.feed(b"NE]\\n\\n")
    ['[DONE]']
    >>> decoder.feed(b"data: first\\ndata:second\\n")
    []
    >>> decoder.close()
    ['first\\nsecond']
    """

    def __init__(self) -> None:
        self._buffer = b""
        self._data: list[str] = []
        self._skip_lf = False

    def feed(self, chunk: bytes) -> list[str]:
        """Read ``chunk``; return the data of every event it completes, in order."""
        if self._skip_lf and chunk:
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
            self._skip_lf = False
        buffer = self._buffer + chunk
        events: list[str] = []
        start = 0
        for match in _LINE_END.finditer(buffer):
            self._line(buffer[start : match.start()], events)
            start = match.end()
        self._buffer = buffer[start:]
        # A CR at the very end may be the first half of a CRLF whose LF is yet to come.
        self._skip_lf = buffer.endswith(b"\r") and start == len(buffer)
        return events

    def close(self) -> list[str]:
        """End of stream: the data of an event left without its closing blank line."""
        events: list[str] = []
        if self._buffer:
            self._line(self._buffer, events)
            self._buffer = b""
        if self._data:
            events.append("\n".join(self._data))
            self._data = []
        return events

    def _line(self, line: bytes, events: list[str]) -> None:
        if not line:
            if self._data:
                events.append("\n".join(self._data))
                self._data = []
            return
        if line[:1] == b":":
            return
        field, colon, value = line.partition(b":")
        if field != b"data":
            return
        if colon and value[:1] == b" ":
            value = value[1:]
        self._data.append(value.decode("utf-8", errors="replace"))
