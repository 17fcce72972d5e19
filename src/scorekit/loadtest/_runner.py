"""The asyncio side of a load test: scheduling, sending, the progress line, SIGINT and SIGTERM."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import random
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any, TextIO

from scorekit.errors import ConfigError, message
from scorekit.loadtest._prompts import NAME, Prompt
from scorekit.loadtest._sse import EventTooLarge, SSEDecoder
from scorekit.loadtest._stream import GO_ON, Attempt, http_error, read_event, short

__all__ = ["MissingDependencyError", "Runner", "import_httpx"]

_DRAIN_SECONDS = 1.0
_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_INVALID = "malformed stream: invalid JSON"
_INSTALL_HINT = "the serve extra: pip install 'scorekit[serve]'"


class MissingDependencyError(ConfigError, ImportError):
    """httpx, needed to send requests, is not installed."""


def import_httpx() -> Any:
    """The httpx module, or an error that says how to install it."""
    try:
        import httpx
    except ImportError:
        raise MissingDependencyError(
            message(NAME, "httpx is not installed", None, _INSTALL_HINT)
        ) from None
    return httpx


@functools.lru_cache(maxsize=1)
def _ssl_context() -> Any:
    """httpx's default TLS context, built once: loading the CA bundle takes ~0.1 s."""
    return import_httpx().create_ssl_context()


class Runner:
    """One load test: the requests it started, their records, and the tasks that send them."""

    def __init__(
        self,
        url: str,
        model: str,
        prompts: list[Prompt],
        *,
        endpoint: str,
        concurrency: int | None,
        rate: float | None,
        max_tokens: int,
        duration: float | None,
        num_requests: int | None,
        timeout: float,
        seed: int,
        progress: bool,
        api_key: str | None,
        transport: Any,
        stream: TextIO,
        max_event_size: int,
        on_record: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.url = url.rstrip("/") + ("/chat/completions" if endpoint == "chat" else "/completions")
        self.model = model
        self.prompts = prompts
        self.endpoint = endpoint
        self.concurrency = concurrency
        self.rate = rate
        self.max_tokens = max_tokens
        self.duration = duration
        self.num_requests = num_requests
        self.timeout = timeout
        self.seed = seed
        self.show_progress = progress
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.transport = transport
        self.stream = stream
        self.max_event_size = max_event_size
        self.on_record = on_record
        self.wall0 = time.time()
        self.perf0 = time.perf_counter()
        self.interrupted = False
        self.stopped_by: int | None = None
        self.started = 0
        self.done: dict[int, dict[str, Any]] = {}
        self.failed = 0
        self.chunks_done = 0
        self.in_flight: dict[int, Attempt] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.client: Any = None
        self.httpx: Any = None

    # clock and bookkeeping

    def now(self) -> float:
        return self.wall0 + (time.perf_counter() - self.perf0)

    def elapsed(self) -> float:
        return time.perf_counter() - self.perf0

    def next_attempt(self) -> Attempt | None:
        if self.interrupted:
            return None
        if self.num_requests is not None and self.started >= self.num_requests:
            return None
        if self.duration is not None and self.elapsed() >= self.duration:
            return None
        index = self.started
        self.started += 1
        prompt = self.prompts[index % len(self.prompts)]
        body: dict[str, Any] = {"model": self.model}
        if self.endpoint == "chat":
            body["messages"] = prompt.as_messages()
        else:
            body["prompt"] = prompt.text
        body["max_tokens"] = prompt.max_tokens or self.max_tokens
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
        attempt = Attempt(id=index, body=body, prompt=prompt, start=self.now())
        self.in_flight[index] = attempt
        return attempt

    def finish(self, attempt: Attempt, error: str | None) -> None:
        self.in_flight.pop(attempt.id, None)
        if attempt.id not in self.done:
            if attempt.end is not None:  # [DONE] came; only the draining was cut short
                record = attempt.record(attempt.end, None)
            else:
                record = attempt.record(self.now(), error)
            self.done[attempt.id] = record
            self.failed += not record["success"]
            self.chunks_done += len(record["token_times"])
            if self.on_record is not None:
                self.on_record(record)

    def records(self) -> list[dict[str, Any]]:
        for attempt in list(self.in_flight.values()):
            self.finish(attempt, "cancelled")
        return [self.done[i] for i in sorted(self.done)]

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    # requests

    async def send(self, attempt: Attempt) -> None:
        try:
            error = await asyncio.wait_for(self.exchange(attempt), self.timeout)
        except asyncio.TimeoutError:
            error = "timeout"
        except asyncio.CancelledError:
            self.finish(attempt, "cancelled")
            raise
        self.finish(attempt, error)

    async def exchange(self, attempt: Attempt) -> str | None:
        httpx = self.httpx
        try:
            async with self.client.stream(
                "POST", self.url, json=attempt.body, headers=self.headers
            ) as response:
                if not 200 <= response.status_code < 300:
                    return http_error(response.status_code, await self.error_body(response))
                kind = response.headers.get("content-type", "")
                if kind.split(";")[0].strip().lower() == "application/json":
                    return "malformed stream: the server answered with JSON, not an event stream"
                decoder = SSEDecoder(self.max_event_size)
                chunks = response.aiter_bytes()
                async for chunk in chunks:
                    now = self.now()
                    try:
                        events = decoder.feed(chunk)
                    except EventTooLarge as exc:
                        return str(exc)
                    for data in events:
                        outcome = read_event(attempt, data, now)
                        if outcome is None:
                            attempt.end = now
                            await self.drain(chunks)
                        if outcome != GO_ON:
                            return outcome
                now = self.now()
                for data in decoder.close():
                    outcome = read_event(attempt, data, now)
                    if outcome is None:
                        attempt.end = now
                    elif decoder.unterminated and outcome.startswith(_INVALID):
                        return "truncated stream"  # the stream ended inside this event
                    if outcome != GO_ON:
                        return outcome
                return "truncated stream"
        except httpx.TimeoutException:
            return "timeout"
        except httpx.DecodingError as exc:
            return f"malformed stream: {short(str(exc)) or type(exc).__name__}"
        except (httpx.HTTPError, OSError) as exc:
            return f"connection error: {short(str(exc)) or type(exc).__name__}"

    async def error_body(self, response: Any) -> bytes:
        """The start of an error answer's body: at most ``max_event_size`` bytes are read."""
        body = bytearray()
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) >= self.max_event_size:
                del body[self.max_event_size :]
                break
        return bytes(body)

    async def drain(self, chunks: AsyncIterator[bytes]) -> None:
        """Read what follows ``[DONE]`` (the end of the chunked body) to keep the connection.

        An answer left unread closes its connection, and the next request would pay for a
        new one in its time to first token. A server that goes on sending or keeps the
        body open gets ``_DRAIN_SECONDS``; then the connection is closed.
        """
        httpx = self.httpx
        with contextlib.suppress(asyncio.TimeoutError, httpx.HTTPError, OSError):
            await asyncio.wait_for(_read_to_end(chunks), min(self.timeout, _DRAIN_SECONDS))

    # scheduling

    async def worker(self) -> None:
        while (attempt := self.next_attempt()) is not None:
            await self.send(attempt)

    async def poisson(self) -> None:
        rng = random.Random(self.seed)
        offset = 0.0
        while (attempt := self.next_attempt()) is not None:
            self.spawn(self.send(attempt))
            offset += rng.expovariate(self.rate or 1.0)
            if self.duration is not None and offset >= self.duration:
                return
            delay = offset - self.elapsed()
            if delay > 0:
                await asyncio.sleep(delay)

    async def drive(self) -> None:
        self.wall0 = time.time()
        self.perf0 = time.perf_counter()
        if self.rate is None:
            for _ in range(self.concurrency or 1):
                self.spawn(self.worker())
        else:
            self.spawn(self.poisson())
        while self.tasks:
            results = await asyncio.gather(*list(self.tasks), return_exceptions=True)
            for result in results:
                if isinstance(result, Exception):
                    raise result

    def interrupt(self, signum: int = signal.SIGINT) -> None:
        """Stop the run as ``signum`` (SIGINT or SIGTERM) asks: cancel what is in flight."""
        self.interrupted = True
        if self.stopped_by is None:
            self.stopped_by = signum
        for task in list(self.tasks):
            task.cancel()

    # progress

    def progress_line(self) -> str:
        """``loadtest [####----] 12/50 done, 1 failed, 3 running, 412.3 tok/s, 5.2 s``."""
        elapsed = self.elapsed()
        finished = len(self.done)
        chunks = self.chunks_done + sum(len(a.token_times) for a in self.in_flight.values())
        if self.num_requests is not None:
            share = finished / self.num_requests
            count = f"{finished}/{self.num_requests} done"
        else:
            share = elapsed / self.duration if self.duration else 0.0
            count = f"{finished} done"
        width = 20
        filled = min(width, int(share * width))
        bar = "#" * filled + "-" * (width - filled)
        rate = chunks / elapsed if elapsed > 0 else 0.0
        clock = (
            f"{elapsed:.1f} s" if self.duration is None else f"{elapsed:.1f}/{self.duration:g} s"
        )
        running = len(self.in_flight)
        return (
            f"loadtest [{bar}] {count}, {self.failed} failed, {running} running, "
            f"{rate:.1f} tok/s, {clock}"
        )

    async def show(self) -> None:
        while True:
            self.stream.write("\r" + self.progress_line() + "\x1b[K")
            self.stream.flush()
            await asyncio.sleep(0.2)

    def end_progress(self) -> None:
        if self.show_progress:
            self.stream.write("\r" + self.progress_line() + "\x1b[K\n")
            self.stream.flush()

    # the whole run

    async def run(self) -> None:
        self.httpx = httpx = import_httpx()
        loop = asyncio.get_running_loop()
        handled = _on_signals(loop, self)
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
        options: dict[str, Any] = {
            "timeout": httpx.Timeout(self.timeout),
            "limits": limits,
            "verify": _ssl_context(),
        }
        if self.transport is not None:
            options["transport"] = self.transport
        shown: asyncio.Task[None] | None = None
        try:
            async with httpx.AsyncClient(**options) as client:
                self.client = client
                await _warm_up()
                if self.show_progress:
                    shown = asyncio.ensure_future(self.show())
                await self.drive()
        finally:
            if shown is not None:
                shown.cancel()
                await _quietly(shown)
            for signum in handled:
                with contextlib.suppress(Exception):
                    loop.remove_signal_handler(signum)


async def _read_to_end(chunks: AsyncIterator[bytes]) -> None:
    async for _ in chunks:
        pass


async def _warm_up() -> None:
    """Load the lazily imported parts of httpx's stack before the clock starts.

    httpcore, h11 and anyio's asyncio backend are imported at the first connection;
    that takes tens of milliseconds, which would otherwise be counted in the first
    request's time to first token.
    """
    with contextlib.suppress(ImportError):
        import anyio.lowlevel
        import h11
        import httpcore

        del h11, httpcore
        await anyio.lowlevel.checkpoint()


async def _quietly(awaitable: Awaitable[Any]) -> None:
    with contextlib.suppress(asyncio.CancelledError):
        await awaitable


def _on_signals(loop: asyncio.AbstractEventLoop, runner: Runner) -> list[int]:
    """Route SIGINT and SIGTERM to ``runner.interrupt``, once; return the signals handled.

    After the first, both get their usual action back: a second SIGINT raises
    KeyboardInterrupt at once, a second SIGTERM ends the process.
    """
    handled: list[int] = []

    def handle(signum: int) -> None:
        for each in handled:
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(each)
        runner.interrupt(signum)

    for signum in _SIGNALS:
        try:
            loop.add_signal_handler(signum, handle, signum)
        except (NotImplementedError, RuntimeError, ValueError):
            continue
        handled.append(signum)
    return handled
