"""A lean HTTP/1.1 client on asyncio streams: POST a JSON body, stream the answer's bytes.

The load generator's own client, so that the client is not what limits a load test: one
write per request (headers and body together, ``TCP_NODELAY``), the answer's body read
as it arrives in pieces of up to 64 KiB with the chunked transfer coding undone in one
pass, keep-alive connections reused from a free list. It speaks to one origin (``http``
or ``https``), without proxies or compression (it asks for ``identity``; a
compressed answer is refused by the caller, see :func:`content_coding`). A target or header
that would break the lines of the head (a space in the target; CR, LF, NUL or another
control character) is never written: :class:`UnsafeRequest`. Timeouts are the caller's:
it wraps each request in :func:`asyncio.wait_for`. A protocol violation is a
:class:`ProtocolError`; a connection refused, reset or closed in the middle of an answer
an :class:`OSError` or :class:`asyncio.IncompleteReadError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import ssl
from collections.abc import AsyncIterator, Mapping
from urllib.parse import urlsplit

__all__ = [
    "Answer",
    "ChunkedDecoder",
    "Pool",
    "ProtocolError",
    "UnsafeRequest",
    "connect_error",
    "content_coding",
    "target_of",
]

_PIECE = 1 << 16
_MAX_LINE = 1 << 16
_MAX_HEADERS = 1 << 20
_HEX = re.compile(rb"^[0-9a-fA-F]{1,16}$")
_UNSAFE = re.compile(r"[\x00-\x1f\x7f]")
_UNSAFE_TARGET = re.compile(r"[\x00-\x20\x7f]")
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


class ProtocolError(Exception):
    """The server broke HTTP/1.1: a bad status line, header or chunk."""


class UnsafeRequest(ValueError):
    """A request whose target or headers would break the lines of its head: never sent."""


class ChunkedDecoder:
    """Undo the chunked transfer coding of bytes fed in any pieces.

    Examples
    --------
    >>> decoder = ChunkedDecoder()
    >>> decoder.feed(b"5\\r\\nhel"), decoder.feed(b"lo\\r\\n0\\r\\n\\r\\n"), decoder.done
    (b'hel', b'lo', True)
    >>> ChunkedDecoder().feed(b"zz\\r\\n")
    Traceback (most recent call last):
    ...
    scorekit.loadtest._http.ProtocolError: invalid chunk size b'zz'
    """

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.left = 0
        self.state = "size"
        self.done = False

    def feed(self, data: bytes) -> bytes:
        """The payload in ``data`` (and what was held back before it)."""
        buffer = self.buffer
        buffer += data
        out = bytearray()
        while not self.done:
            if self.state == "data":
                take = min(self.left, len(buffer))
                if not take:
                    break
                out += buffer[:take]
                del buffer[:take]
                self.left -= take
                if not self.left:
                    self.state = "crlf"
                continue
            if self.state == "crlf":
                if buffer[:2] == b"\r\n":
                    del buffer[:2]
                elif buffer[:1] == b"\n":
                    del buffer[:1]
                elif len(buffer) >= 2 or (buffer and buffer[:1] != b"\r"):
                    raise ProtocolError("chunk not followed by CRLF")
                else:
                    break
                self.state = "size"
                continue
            end = buffer.find(b"\n")
            if end < 0:
                if len(buffer) > _MAX_LINE:
                    raise ProtocolError("chunk size line too long")
                break
            line = bytes(buffer[:end]).rstrip(b"\r")
            del buffer[: end + 1]
            if self.state == "trailer":
                self.done = not line.strip()
                continue
            size_text = line.split(b";", 1)[0].strip()
            if not _HEX.match(size_text):
                raise ProtocolError(f"invalid chunk size {size_text[:40]!r}")
            self.left = int(size_text, 16)
            self.state = "data" if self.left else "trailer"
        return bytes(out)


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.used = False

    def usable(self) -> bool:
        return not self.writer.is_closing() and not self.reader.at_eof()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.transport.abort()


class Answer:
    """An answer being read: its status, headers and body; :meth:`release` when done."""

    def __init__(self, pool: Pool, connection: _Connection, status: int, headers: dict[str, str]):
        self.pool = pool
        self.connection = connection
        self.status = status
        self.headers = headers
        self.complete = False
        self.keep_alive = headers.get("connection", "").lower() != "close"
        encoding = headers.get("transfer-encoding", "").lower()
        self.chunked = "chunked" in encoding
        length = headers.get("content-length")
        self.length: int | None = None
        if not self.chunked and length is not None:
            if not length.strip().isdigit():
                raise ProtocolError(f"bad Content-Length {length[:40]!r}")
            self.length = int(length)
        if not self.chunked and self.length is None:
            self.keep_alive = False  # the body ends when the connection closes

    async def iter_bytes(self) -> AsyncIterator[bytes]:
        """The body's bytes as they arrive."""
        reader = self.connection.reader
        if self.chunked:
            decoder = ChunkedDecoder()
            while not decoder.done:
                data = await reader.read(_PIECE)
                if not data:
                    raise asyncio.IncompleteReadError(b"", None)
                payload = decoder.feed(data)
                if decoder.done and decoder.buffer:
                    self.keep_alive = False  # bytes after the end of the answer
                if payload:
                    yield payload
        elif self.length is not None:
            left = self.length
            while left:
                data = await reader.read(min(left, _PIECE))
                if not data:
                    raise asyncio.IncompleteReadError(b"", left)
                left -= len(data)
                yield data
        else:
            while data := await reader.read(_PIECE):
                yield data
        self.complete = True

    def release(self) -> None:
        """Give the connection back for the next request, or close it if the body was not
        read to its end."""
        connection, self.connection = self.connection, None  # type: ignore[assignment]
        if connection is None:
            return
        if self.complete and self.keep_alive and connection.usable():
            self.pool.idle.append(connection)
        else:
            connection.close()


class Pool:
    """Keep-alive connections to the origin of ``url``.

    Parameters
    ----------
    url : str
        ``http://host:port/base`` or ``https://...``.
    ssl_context : ssl.SSLContext
        For ``https``.
    """

    def __init__(self, url: str, ssl_context: ssl.SSLContext | None = None) -> None:
        parts = urlsplit(url)
        self.tls = parts.scheme.lower() == "https"
        self.host = parts.hostname or ""
        self.port = parts.port or (443 if self.tls else 80)
        default = (self.tls and self.port == 443) or (not self.tls and self.port == 80)
        ascii_host = self.host if self.host.isascii() else self.host.encode("idna").decode()
        name = f"[{ascii_host}]" if ":" in ascii_host else ascii_host
        self.authority = name if default else f"{name}:{self.port}"
        self.ssl_context = ssl_context if self.tls else None
        self.idle: list[_Connection] = []

    async def _connect(self) -> _Connection:
        reader, writer = await asyncio.open_connection(
            self.host,
            self.port,
            ssl=self.ssl_context,
            server_hostname=self.host if self.tls else None,
            limit=_MAX_LINE,
        )
        sock = writer.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return _Connection(reader, writer)

    def _request(self, target: str, body: bytes, headers: Mapping[str, str]) -> bytes:
        """The bytes of a request: its head and ``body``.

        A target holding a space or a control character, a header name that is not an
        HTTP token, or a header value holding a control character or a character
        outside ASCII raises :class:`UnsafeRequest`: nothing the caller gives can end a
        line of the head and start another.
        """
        if _UNSAFE_TARGET.search(target) or not target.isascii():
            raise UnsafeRequest(f"the request target {target[:80]!r} holds an unsafe character")
        for key, value in headers.items():
            if not _TOKEN.match(key):
                raise UnsafeRequest(f"the header name {key[:40]!r} is not an HTTP token")
            if _UNSAFE.search(value) or not value.isascii():
                raise UnsafeRequest(f"the value of the header {key!r} holds an unsafe character")
        lines = [
            f"POST {target} HTTP/1.1",
            f"Host: {self.authority}",
            "Content-Type: application/json",
            "Accept: text/event-stream",
            "Accept-Encoding: identity",
            f"Content-Length: {len(body)}",
        ]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body

    async def post(self, target: str, body: bytes, headers: Mapping[str, str]) -> Answer:
        """Send a POST of ``body`` to ``target`` (a path) and read the answer's head.

        A connection reused from the free list that the server had closed is replaced
        by a new one once.
        """
        request = self._request(target, body, headers)
        while True:
            reused = bool(self.idle)
            connection = self.idle.pop() if reused else await self._connect()
            try:
                connection.writer.write(request)
                status, head = await _read_head(connection.reader)
            except (OSError, asyncio.IncompleteReadError, ProtocolError) as exc:
                connection.close()
                if reused and not isinstance(exc, ProtocolError):
                    continue
                raise
            except BaseException:
                connection.close()
                raise
            try:
                return Answer(self, connection, status, head)
            except ProtocolError:
                connection.close()
                raise

    def close(self) -> None:
        """Close the idle connections."""
        while self.idle:
            self.idle.pop().close()


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    """The status and the lower-cased headers of an answer (1xx answers skipped)."""
    while True:
        line = await _line(reader)
        if not line:
            raise asyncio.IncompleteReadError(b"", None)
        parts = line.split(None, 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/") or not parts[1].isdigit():
            raise ProtocolError(f"bad status line {line[:80]!r}")
        status = int(parts[1])
        headers: dict[str, str] = {}
        size = 0
        while header := (await _line(reader)).rstrip(b"\r\n"):
            size += len(header)
            if size > _MAX_HEADERS:
                raise ProtocolError("headers too large")
            name, colon, value = header.partition(b":")
            if not colon:
                raise ProtocolError(f"bad header line {header[:80]!r}")
            key = name.strip().decode("latin-1").lower()
            text = value.strip().decode("latin-1")
            headers[key] = f"{headers[key]}, {text}" if key in headers else text
        if not 100 <= status < 200:
            return status, headers


async def _line(reader: asyncio.StreamReader) -> bytes:
    try:
        return await reader.readuntil(b"\n")
    except asyncio.LimitOverrunError:
        raise ProtocolError("header line too long") from None
    except asyncio.IncompleteReadError as exc:
        if exc.partial:
            raise
        return b""


def target_of(url: str) -> str:
    """The path (and query) of ``url``, ``/`` when it has none.

    Examples
    --------
    >>> target_of("http://h:1/v1/chat/completions?x=1")
    '/v1/chat/completions?x=1'
    """
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def connect_error(exc: BaseException) -> str:
    """The reason text of a connection failure."""
    if isinstance(exc, asyncio.IncompleteReadError):
        return "the server closed the connection in the middle of the answer"
    if isinstance(exc, ProtocolError):
        return str(exc)
    return str(exc) or type(exc).__name__


def content_coding(headers: Mapping[str, str]) -> str | None:
    """The content coding of an answer (``gzip``, ``br``, ...), or None for a plain body.

    The client asks for none (``Accept-Encoding: identity``) and undoes none, so the
    caller fails an answer that has one instead of reading compressed bytes as events.

    Examples
    --------
    >>> content_coding({"content-encoding": "gzip"}), content_coding({})
    ('gzip', None)
    >>> content_coding({"content-encoding": "Identity"}) is None
    True
    """
    coding = headers.get("content-encoding", "").strip().lower()
    return None if coding in ("", "identity") else coding
