"""A real OpenAI-compatible streaming server on loopback, for testing the load generator.

:class:`OpenAIServer` listens on 127.0.0.1 at an ephemeral port, in a thread that runs
an asyncio event loop, and speaks just enough HTTP/1.1 (keep-alive, chunked
responses) for ``/v1/chat/completions`` and ``/v1/completions`` with
``"stream": true``. A request is answered by a comment line (a keep-alive), for chat
a first chunk with the role and empty content, then ``max_tokens`` text chunks: the
first ``ttft`` seconds after the request was read, the next ones every ``interval``
seconds (scheduled at absolute times, so delays do not add up), then a chunk with
``finish_reason``, a usage chunk when ``stream_options.include_usage`` is set
(prompt tokens = words of the prompt, completion tokens = chunks sent) and
``data: [DONE]``.

The prompt (the completion prompt, or the last message's content) can carry
``key=value`` words that change how that one request is answered:

``ttft=S``, ``interval=S``
    Override the server's delays.
``crlf=1``
    End event lines with CRLF instead of LF.
``mode=M``, ``after=K`` (default 2)
    ``ok``; ``http500`` (a JSON error body); ``stall_headers`` (headers, then
    silence); ``stall_tokens`` (K tokens, then silence); ``drop`` (K tokens, then
    the connection is reset); ``malformed`` (K tokens, then a chunk that is not
    JSON); ``error_event`` (K tokens, then an ``error`` object); ``no_done`` (the
    whole stream without ``data: [DONE]``); ``linger`` (the whole stream, then the
    response is never ended); ``no_usage`` (no usage chunk); ``json_answer`` (a
    non-streamed JSON completion).
``mode=M``, ``size=N`` (default 1000)
    Hostile answers: ``deep500`` (an HTTP 500 whose JSON body is an array nested N
    deep); ``deep_event`` (K tokens, then an event whose JSON is nested N deep);
    ``digits_event`` (K tokens, then an event holding a number of N digits);
    ``big_event`` (K tokens, then one event whose text is N bytes, sent in pieces of
    64 KiB); ``big_cut`` (K tokens, then the first half of such an event, and the
    response ends).

Server-wide settings: ``usage=False`` never sends a usage chunk; ``reject_stream_options``
answers a request that sets ``stream_options`` with an HTTP 400 (as servers that do not
know the field do); ``chat_only`` answers ``/v1/completions`` with a 404.

The server counts the connections it accepted (``connections``) and the requests in
flight (``active``, ``max_active``), and keeps every request it read (``requests``:
path, lower-cased headers, parsed body).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from typing import Any


class OpenAIServer:
    """Stream completions at a known rate; see the module docstring."""

    def __init__(
        self,
        ttft: float = 0.1,
        interval: float = 0.01,
        *,
        usage: bool = True,
        reject_stream_options: bool = False,
        chat_only: bool = False,
    ) -> None:
        self.ttft = ttft
        self.interval = interval
        self.usage = usage
        self.reject_stream_options = reject_stream_options
        self.chat_only = chat_only
        self.requests: list[dict[str, Any]] = []
        self.active = 0
        self.max_active = 0
        self.connections = 0
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._ready = threading.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._server: asyncio.AbstractServer | None = None
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> OpenAIServer:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the test server did not start")
        return self

    def stop(self) -> None:
        future = asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop)
        future.result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.max_active = self.active
            self.connections = 0

    # event loop thread

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._connection, "127.0.0.1", 0)
        )
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        with self._lock:
            self.connections += 1
        try:
            while True:
                request = await _read_request(reader)
                if request is None:
                    break
                with self._lock:
                    self.requests.append(request)
                    self.active += 1
                    self.max_active = max(self.max_active, self.active)
                try:
                    keep_open = await self._respond(request, writer)
                finally:
                    with self._lock:
                        self.active -= 1
                if not keep_open:
                    break
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            writer.close()
            if task is not None:
                self._tasks.discard(task)

    async def _respond(self, request: dict[str, Any], writer: asyncio.StreamWriter) -> bool:
        """Answer one request; return whether the connection stays usable."""
        received = time.perf_counter()
        path, body = request["path"], request["body"]
        routes = ("/v1/chat/completions",) if self.chat_only else OPENAI_ROUTES
        if path not in routes or not isinstance(body, dict):
            _plain(writer, 404, {"error": {"message": f"no route {path}"}})
            return True
        if self.reject_stream_options and "stream_options" in body:
            message = "stream_options: extra fields not permitted"
            _plain(writer, 400, {"error": {"message": message, "type": "BadRequestError"}})
            return True
        chat = path.endswith("/chat/completions")
        prompt = body["messages"][-1]["content"] if chat else body["prompt"]
        options = dict(word.split("=", 1) for word in prompt.split() if "=" in word)
        mode = options.get("mode", "ok")
        after = int(options.get("after", 2))
        ttft = float(options.get("ttft", self.ttft))
        interval = float(options.get("interval", self.interval))
        end = "\r\n" if options.get("crlf") == "1" else "\n"
        count = int(body.get("max_tokens", 16))
        size = int(options.get("size", 1000))

        if mode == "deep500":
            _plain(writer, 500, Raw("[" * size + "]" * size))
            return True
        if mode == "http500":
            _plain(writer, 500, {"error": {"message": "model crashed", "type": "server_error"}})
            return True
        if mode == "json_answer":
            text = "".join(f"tok{i} " for i in range(count))
            _plain(writer, 200, {"choices": [{"index": 0, "message": {"content": text}}]})
            return True

        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            b"Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n"
        )

        async def send(text: str) -> None:
            data = text.encode()
            writer.write(b"%x\r\n%s\r\n" % (len(data), data))
            await writer.drain()

        async def event(payload: Any) -> None:
            text = payload if isinstance(payload, str) else json.dumps(payload)
            await send(f"data: {text}{end}{end}")

        def chunk(text: str, finish: str | None = None) -> dict[str, Any]:
            choice: dict[str, Any] = {"index": 0, "finish_reason": finish}
            if chat:
                choice["delta"] = {"content": text} if text or finish is None else {}
            else:
                choice["text"] = text
            kind = "chat.completion.chunk" if chat else "text_completion"
            return {"id": "cmpl-1", "object": kind, "model": body.get("model"), "choices": [choice]}

        await send(f": keep-alive{end}{end}")
        if mode == "stall_headers":
            await asyncio.Event().wait()
        if chat:
            await event({"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})
        for i in range(count):
            if i == after:
                if mode == "stall_tokens":
                    await asyncio.Event().wait()
                if mode == "drop":
                    writer.transport.abort()
                    return False
                if mode == "malformed":
                    await event('{"choices": [{"delta": {"content": "x"')
                if mode == "error_event":
                    await event({"error": {"message": "out of memory", "code": 500}})
                if mode == "digits_event":
                    await event('{"choices": [], "n": ' + "9" * size + "}")
                if mode == "deep_event":
                    await event('{"choices": ' + "[" * size + "]" * size + "}")
                if mode in ("big_event", "big_cut"):
                    head = '{"choices": [{"index": 0, "delta": {"content": "'
                    data = f"data: {head}".encode() + b"x" * size + f'"}}}}]}}{end}{end}'.encode()
                    if mode == "big_cut":
                        data = data[: size // 2]
                    for at in range(0, len(data), 1 << 16):
                        piece = data[at : at + (1 << 16)]
                        writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                        await writer.drain()
                    if mode == "big_cut":
                        writer.write(b"0\r\n\r\n")
                        await writer.drain()
                        return True
            delay = received + ttft + i * interval - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            await event(chunk(f"tok{i} "))
        await event(chunk("", finish="length"))
        stream_options = body.get("stream_options") or {}
        if stream_options.get("include_usage") and mode != "no_usage" and self.usage:
            texts = [str(m["content"]) for m in body["messages"]] if chat else [prompt]
            words = sum(len(t.split()) for t in texts)
            usage = {"prompt_tokens": words, "completion_tokens": count}
            usage["total_tokens"] = words + count
            await event({"id": "cmpl-1", "choices": [], "usage": usage})
        if mode != "no_done":
            await event("[DONE]")
        if mode == "linger":
            await asyncio.Event().wait()
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True


OPENAI_ROUTES = ("/v1/chat/completions", "/v1/completions")


class Raw(str):
    """A response body sent as it is, not encoded as JSON."""


def _plain(writer: asyncio.StreamWriter, status: int, payload: Any) -> None:
    data = (payload if isinstance(payload, Raw) else json.dumps(payload)).encode()
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 500: "Internal Server Error"}[status]
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(data)}\r\n\r\n".encode()
        + data
    )


async def _read_request(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    line = await reader.readline()
    if not line.strip():
        return None
    _method, path, _version = line.decode("latin-1").split()
    headers = {}
    while (header := await reader.readline()) not in (b"\r\n", b"\n", b""):
        name, _, value = header.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    data = await reader.readexactly(int(headers.get("content-length", 0)))
    body: Any = None
    with contextlib.suppress(ValueError):
        body = json.loads(data)
    return {"path": path, "headers": headers, "body": body}
