"""The load generator's own HTTP/1.1 client: chunked decoding, framing, reuse, broken servers."""

from __future__ import annotations

import asyncio
import json
import random
import threading

import pytest

from scorekit.loadtest import run_loadtest
from scorekit.loadtest._http import ChunkedDecoder, ProtocolError, target_of


def _chunked(payload: bytes, sizes: list[int]) -> bytes:
    out, at = bytearray(), 0
    for size in sizes:
        piece = payload[at : at + size]
        at += size
        if piece:
            out += b"%x;ext=1\r\n%s\r\n" % (len(piece), piece)
    return bytes(out) + b"0\r\nTrailer: x\r\n\r\n"


def test_chunked_decoder_on_any_split():
    rng = random.Random(0)
    for _ in range(200):
        payload = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
        sizes = [rng.randrange(1, 40) for _ in range(len(payload))]
        wire = _chunked(payload, sizes)
        decoder, got = ChunkedDecoder(), bytearray()
        at = 0
        while at < len(wire):
            step = rng.randrange(1, 12)
            got += decoder.feed(wire[at : at + step])
            at += step
        assert bytes(got) == payload and decoder.done


@pytest.mark.parametrize(
    ("wire", "problem"),
    [
        (b"zz\r\n", "invalid chunk size"),
        (b"-1\r\n", "invalid chunk size"),
        (b"2\r\nabX\r\n", "chunk not followed by CRLF"),
        (b"1" * 70_000, "chunk size line too long"),
    ],
)
def test_chunked_decoder_refuses_broken_framing(wire, problem):
    with pytest.raises(ProtocolError, match=problem):
        ChunkedDecoder().feed(wire)


def test_target_of():
    assert target_of("http://h/v1/completions") == "/v1/completions"
    assert target_of("http://h") == "/"


class RawServer:
    """A loopback server that answers every request with bytes given by ``answer(n)``."""

    def __init__(self, answer, close_after=False):
        self.answer = answer
        self.close_after = close_after
        self.count = 0
        self.connections = 0
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        asyncio.set_event_loop(self.loop)
        server = self.loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self.ready.set()
        self.loop.run_forever()

    async def _handle(self, reader, writer):
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                )
                json.loads(await reader.readexactly(length))
                self.count += 1
                writer.write(self.answer(self.count))
                await writer.drain()
                if self.close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    def __enter__(self):
        self.thread.start()
        self.ready.wait(10)
        return f"http://127.0.0.1:{self.port}/v1"

    def __exit__(self, *exc):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def _events(*texts: str, done: bool = True) -> bytes:
    events = [json.dumps({"choices": [{"delta": {"content": t}}]}) for t in texts]
    if done:
        events.append("[DONE]")
    return "".join(f"data: {e}\n\n" for e in events).encode()


def _chunked_answer(body: bytes) -> bytes:
    head = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    return head + _chunked(body, [7] * len(body))


def test_keep_alive_closed_by_the_server_is_replaced():
    with RawServer(lambda n: _chunked_answer(_events("a", "b")), close_after=True) as url:
        records, _ = run_loadtest(url, "m", ["hi"], num_requests=4, max_tokens=2)
    assert [r["success"] for r in records] == [True] * 4
    assert [len(r["token_times"]) for r in records] == [2] * 4


def test_content_length_and_close_delimited_bodies():
    body = _events("x", "y", "z")
    length = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s"
        % (len(body), body)
    )
    with RawServer(lambda n: length) as url:
        records, _ = run_loadtest(url, "m", ["hi"], num_requests=3, max_tokens=3)
    assert [len(r["token_times"]) for r in records] == [3, 3, 3]
    assert all(r["success"] for r in records)
    closing = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + body
    with RawServer(lambda n: closing, close_after=True) as url:
        records, _ = run_loadtest(url, "m", ["hi"], num_requests=2, max_tokens=3)
    assert [r["success"] for r in records] == [True, True]


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (b"HTTQ/9 ok\r\n\r\n", "connection error: bad status line"),
        (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "connection error: bad header line"),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nqq\r\n",
            "connection error: invalid chunk size",
        ),
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n",
            "connection error: bad Content-Length",
        ),
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n" + _events("a", done=False),
            "connection error: the server closed the connection in the middle of the answer",
        ),
        (
            b"HTTP/1.1 503 Busy\r\nContent-Length: 16\r\n\r\n" + b'{"detail":"hot"}',
            "http 503: hot",
        ),
    ],
)
def test_broken_answers_fail_their_request_with_a_reason(answer, reason):
    with RawServer(lambda n: answer, close_after=True) as url:
        records, _ = run_loadtest(url, "m", ["hi"], num_requests=1, max_tokens=1, timeout=10)
    assert records[0]["error"].startswith(reason)
