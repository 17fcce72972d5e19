"""The asyncio side of a load test: scheduling, sending, the progress line, SIGINT and SIGTERM."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from scorekit.errors import ConfigError, message
from scorekit.loadtest._arrivals import arrival_gaps
from scorekit.loadtest._datasets import Conversation
from scorekit.loadtest._http import (
    Pool,
    ProtocolError,
    connect_error,
    content_coding,
    target_of,
)
from scorekit.loadtest._prompts import NAME, Prompt
from scorekit.loadtest._sse import EventTooLarge, SSEDecoder
from scorekit.loadtest._stream import GO_ON, Attempt, http_error, read_event, short
from scorekit.loadtest._wire import auth_headers, endpoint_url, redact_url

__all__ = ["MissingDependencyError", "Runner", "Step", "import_httpx"]

_DRAIN_SECONDS = 1.0
_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_INVALID = "malformed stream: invalid JSON"
_JSON_ANSWER = "malformed stream: the server answered with JSON, not an event stream"
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


@dataclass(frozen=True)
class Step:
    """One step of a run: an open loop at ``rate`` or a closed loop of ``concurrency``."""

    rate: float | None = None
    concurrency: int | None = None

    def describe(self) -> dict[str, Any]:
        """The step as JSON: a rate as text (``"2.5"``, ``"inf"``: every rate of a sweep has
        one type, as a table column needs), a concurrency as a number."""
        if self.rate is not None:
            return {"rate": f"{self.rate:g}"}
        return {"concurrency": self.concurrency or 1}

    def label(self) -> str:
        """``rate 2``, ``rate inf``, ``concurrency 4``."""
        ((key, value),) = self.describe().items()
        return f"{key} {value}"


class Runner:
    """One load test: the requests it started, their records, and the tasks that send them."""

    def __init__(
        self,
        url: str,
        model: str,
        conversations: Sequence[Conversation],
        *,
        endpoint: str,
        steps: Sequence[Step],
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
        burstiness: float = 1.0,
        max_concurrency: int | None = None,
        warmup: int = 0,
        body: Mapping[str, Any] | None = None,
        stream_options: bool = True,
        counter: Any = None,
        multi_turn: bool = False,
        sweep: bool = False,
        pause: float = 0.0,
        on_record: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.url = endpoint_url(url, endpoint)
        self.shown_url = redact_url(self.url)
        self.model = model
        self.conversations = list(conversations)
        self.endpoint = endpoint
        self.steps = list(steps)
        self.max_tokens = max_tokens
        self.duration = duration
        self.num_requests = num_requests
        self.timeout = timeout
        self.seed = seed
        self.show_progress = progress
        self.headers = auth_headers(url, api_key)
        self.transport = transport
        self.stream = stream
        self.max_event_size = max_event_size
        self.burstiness = burstiness
        self.max_concurrency = max_concurrency
        self.warmup = warmup
        self.body = dict(body or {})
        self.stream_options = stream_options
        self.counter = counter
        self.multi_turn = multi_turn
        self.sweep = sweep
        self.pause = pause
        self.on_record = on_record
        self.wall0 = time.time()
        self.perf0 = time.perf_counter()
        self.step0 = self.perf0
        self.step_index = 0
        self.step: Step = self.steps[0]
        self.interrupted = False
        self.stopped_by: int | None = None
        self.preflight_error: str | None = None
        self.started = 0
        self.next_id = 0
        self.done: dict[int, dict[str, Any]] = {}
        self.done_before = 0
        self.failed = 0
        self.chunks_done = 0
        self.in_flight: dict[int, Attempt] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.client: Any = None
        self.httpx: Any = None
        self.pool: Any = None
        self.target = target_of(self.url)
        self.stopping: asyncio.Event | None = None

    # clock and bookkeeping

    def now(self) -> float:
        return self.wall0 + (time.perf_counter() - self.perf0)

    def elapsed(self) -> float:
        """Seconds since the current step started."""
        return time.perf_counter() - self.step0

    def next_unit(self) -> int | None:
        """The number of the step's next request (a conversation with ``multi_turn``), or None."""
        if self.interrupted:
            return None
        if self.num_requests is not None and self.started >= self.num_requests:
            return None
        if self.duration is not None and self.elapsed() >= self.duration:
            return None
        index = self.started
        self.started += 1
        return index

    def make_attempt(self, prompt: Prompt, extra: dict[str, Any]) -> Attempt:
        body: dict[str, Any] = {"model": self.model}
        if self.endpoint == "chat":
            body["messages"] = prompt.as_messages()
        else:
            body["prompt"] = prompt.text
        body["max_tokens"] = prompt.max_tokens or self.max_tokens
        body["stream"] = True
        if self.stream_options:
            body["stream_options"] = {"include_usage": True}
        body.update(self.body)
        index = self.next_id
        self.next_id += 1
        attempt = Attempt(id=index, body=body, prompt=prompt, start=self.now(), extra=extra)
        if self.counter is not None or self.multi_turn:
            attempt.texts = []
        attempt.counter = self.counter
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
        if self.pool is not None:
            return await self.exchange_native(attempt)
        httpx = self.httpx
        try:
            async with self.client.stream(
                "POST", self.url, json=attempt.body, headers=self.headers
            ) as response:
                return await self.read_answer(
                    attempt, response.status_code, response.headers, response.aiter_bytes()
                )
        except httpx.TimeoutException:
            return "timeout"
        except httpx.DecodingError as exc:
            return f"malformed stream: {short(str(exc)) or type(exc).__name__}"
        except (httpx.HTTPError, OSError) as exc:
            return f"connection error: {short(str(exc)) or type(exc).__name__}"

    async def exchange_native(self, attempt: Attempt) -> str | None:
        """:meth:`exchange` through the load generator's own client (:mod:`._http`)."""
        answer = None
        chunks = None
        body = json.dumps(attempt.body).encode("utf-8")
        try:
            answer = await self.pool.post(self.target, body, self.headers)
            coding = content_coding(answer.headers)
            if coding is not None:
                return _compressed(answer.status, coding)
            chunks = answer.iter_bytes()
            return await self.read_answer(attempt, answer.status, answer.headers, chunks)
        except (OSError, asyncio.IncompleteReadError, ProtocolError) as exc:
            return f"connection error: {short(connect_error(exc))}"
        finally:
            if chunks is not None:
                with contextlib.suppress(Exception):
                    await chunks.aclose()
            if answer is not None:
                answer.release()

    async def read_answer(
        self,
        attempt: Attempt,
        status: int,
        headers: Mapping[str, str],
        chunks: AsyncIterator[bytes],
    ) -> str | None:
        """An answer's outcome: an HTTP error, a JSON answer, or its stream read."""
        if not 200 <= status < 300:
            return http_error(status, await self.error_body(chunks))
        if _is_json(headers.get("content-type", "")):
            return _JSON_ANSWER
        return await self.read_stream(attempt, chunks)

    async def read_stream(self, attempt: Attempt, chunks: AsyncIterator[bytes]) -> str | None:
        """Read the events of a stream into ``attempt``; None when ``[DONE]`` came, else why not."""
        decoder = SSEDecoder(self.max_event_size)
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

    async def error_body(self, chunks: AsyncIterator[bytes]) -> bytes:
        """The start of an error answer's body: at most ``max_event_size`` bytes are read."""
        body = bytearray()
        async for chunk in chunks:
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
        failures: tuple[type[BaseException], ...] = (
            asyncio.TimeoutError,
            OSError,
            ProtocolError,
            asyncio.IncompleteReadError,
        )
        if self.httpx is not None:
            failures += (self.httpx.HTTPError,)
        with contextlib.suppress(*failures):
            await asyncio.wait_for(_read_to_end(chunks), min(self.timeout, _DRAIN_SECONDS))

    # scheduling

    async def run_unit(self, index: int, slots: asyncio.Semaphore | None = None) -> None:
        """Send the step's request ``index``: one prompt, or a conversation's turns in order."""
        try:
            conversation = self.conversations[index % len(self.conversations)]
            extra: dict[str, Any] = {"step": self.step_index} if self.sweep else {}
            if not self.multi_turn:
                await self.send(self.make_attempt(conversation.turns[0], extra))
                return
            history: list[dict[str, Any]] = []
            for turn, prompt in enumerate(conversation.turns):
                if self.interrupted:
                    return
                messages = [*history, *prompt.as_messages()]
                asked = Prompt(messages=tuple(messages), max_tokens=prompt.max_tokens)
                attempt = self.make_attempt(asked, {**extra, "conversation": index, "turn": turn})
                await self.send(attempt)
                if not self.done[attempt.id]["success"]:
                    return
                answer = "".join(attempt.texts or ())
                history = [*messages, {"role": "assistant", "content": answer}]
        finally:
            if slots is not None:
                slots.release()

    async def worker(self) -> None:
        while (index := self.next_unit()) is not None:
            await self.run_unit(index)

    async def arrivals(self, rate: float) -> None:
        """The open loop: a request at each arrival time, at most ``max_concurrency`` in flight."""
        gaps = arrival_gaps(rate, self.burstiness, self.seed)
        slots = None if self.max_concurrency is None else asyncio.Semaphore(self.max_concurrency)
        offset = 0.0
        while True:
            if slots is not None:
                await slots.acquire()
            index = self.next_unit()
            if index is None:
                if slots is not None:
                    slots.release()
                return
            self.spawn(self.run_unit(index, slots))
            offset += next(gaps)
            if self.duration is not None and offset >= self.duration:
                return
            await asyncio.sleep(max(0.0, offset - self.elapsed()))

    async def drive(self, step: Step) -> None:
        self.step = step
        self.step0 = time.perf_counter()
        self.started = 0
        self.done_before = len(self.done)
        if step.rate is None:
            for _ in range(step.concurrency or 1):
                self.spawn(self.worker())
        else:
            self.spawn(self.arrivals(step.rate))
        await self.wait_all()

    async def wait_all(self) -> None:
        while self.tasks:
            results = await asyncio.gather(*list(self.tasks), return_exceptions=True)
            for result in results:
                if isinstance(result, Exception):
                    raise result

    async def warm_up_server(self) -> None:
        """Send the warm-up requests: the first alone (the pre-flight), then the rest."""
        if not self.warmup:
            return
        prompts = [c.turns[0] for c in self.conversations]
        first = self.make_attempt(prompts[0], {"warmup": True})
        self.spawn(self.send(first))
        await self.wait_all()
        record = self.done.get(first.id)
        if record is None or self.interrupted:
            return
        if not record["success"]:
            self.preflight_error = str(record["error"])
            return
        remaining = iter(range(1, self.warmup))
        step = self.steps[0]
        width = self.max_concurrency or step.concurrency or self.warmup

        async def worker() -> None:
            for i in remaining:
                if self.interrupted:
                    return
                await self.send(self.make_attempt(prompts[i % len(prompts)], {"warmup": True}))

        for _ in range(min(width, self.warmup - 1)):
            self.spawn(worker())
        await self.wait_all()

    async def pause_between_steps(self) -> None:
        if self.stopping is None or self.pause <= 0:
            return
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.stopping.wait(), self.pause)

    def interrupt(self, signum: int = signal.SIGINT) -> None:
        """Stop the run as ``signum`` (SIGINT or SIGTERM) asks: cancel what is in flight."""
        self.interrupted = True
        if self.stopped_by is None:
            self.stopped_by = signum
        if self.stopping is not None:
            self.stopping.set()
        for task in list(self.tasks):
            task.cancel()

    # progress

    def eta(self, finished: int, elapsed: float) -> float | None:
        """Seconds left at the current rate: the requests still to finish at the rate they
        finished so far, or what is left of ``duration``, whichever ends first; None
        before a rate is known (no request of the step has finished)."""
        left: list[float] = []
        if self.num_requests is not None and finished > 0 and elapsed > 0:
            left.append(max(0, self.num_requests - finished) * elapsed / finished)
        if self.duration is not None:
            left.append(max(0.0, self.duration - elapsed))
        return min(left) if left else None

    def progress_line(self) -> str:
        """``loadtest [####----] 12/50 done, 1 failed, 3 running, 412.3 tok/s, 5.2 s, ETA 16 s``."""
        elapsed = self.elapsed()
        finished = len(self.done) - self.done_before
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
        where = f"step {self.step_index + 1}/{len(self.steps)} " if self.sweep else ""
        eta = self.eta(finished, elapsed)
        return (
            f"loadtest {where}[{bar}] {count}, {self.failed} failed, {running} running, "
            f"{rate:.1f} tok/s, {clock}, ETA {'?' if eta is None else _span(eta)}"
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
        loop = asyncio.get_running_loop()
        handled = _on_signals(loop, self)
        shown: asyncio.Task[None] | None = None
        try:
            async with contextlib.AsyncExitStack() as stack:
                if self.transport is None:
                    https = self.url.lower().startswith("https:")
                    self.pool = Pool(self.url, _ssl_context() if https else None)
                    stack.callback(self.pool.close)
                else:
                    self.httpx = httpx = import_httpx()
                    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
                    self.client = await stack.enter_async_context(
                        httpx.AsyncClient(
                            timeout=httpx.Timeout(self.timeout),
                            limits=limits,
                            verify=_ssl_context(),
                            transport=self.transport,
                        )
                    )
                    await _warm_up()
                self.stopping = asyncio.Event()
                self.wall0 = time.time()
                self.perf0 = self.step0 = time.perf_counter()
                if self.show_progress:
                    shown = asyncio.ensure_future(self.show())
                await self.warm_up_server()
                for index, step in enumerate(self.steps):
                    if self.interrupted or self.preflight_error is not None:
                        break
                    if index:
                        await self.pause_between_steps()
                        if self.interrupted:
                            break
                    self.step_index = index
                    await self.drive(step)
        finally:
            if shown is not None:
                shown.cancel()
                await _quietly(shown)
            for signum in handled:
                with contextlib.suppress(Exception):
                    loop.remove_signal_handler(signum)


def _span(seconds: float) -> str:
    """A time left, to the second: ``0 s``, ``42 s``, ``3 min 05 s``, ``2 h 07 min``."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def _compressed(status: int, coding: str) -> str:
    """The failure reason of an answer whose body is compressed (never asked for)."""
    what = (
        f"the server compressed the stream (content-encoding {short(coding)})"
        if 200 <= status < 300
        else f"http {status}: the server compressed its answer (content-encoding {short(coding)})"
    )
    return f"{what}, which the client does not accept"


def _is_json(kind: str) -> bool:
    return kind.split(";")[0].strip().lower() == "application/json"


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
