"""A load generator for OpenAI-compatible LLM servers (``scorekit loadtest``).

:func:`run_loadtest` sends streamed chat or completion requests to a server that
speaks the OpenAI API (vLLM, TGI, llama.cpp's server, Ollama, ...), timestamps every
streamed chunk that carries text, and returns one record per request in the schema
that :func:`scorekit.throughput.report` reads:

``id``
    The request's number, from 0 in the order requests were started.
``prompt_tokens``, ``output_tokens``
    From the ``usage`` object of the stream (requested with
    ``stream_options.include_usage``). When the server sends none, or leaves a count
    out, the count is approximated and ``tokens_estimated`` is true: output tokens
    are the number of chunks that carried text, prompt tokens are the prompt's
    characters divided by 4, rounded up (for chat, the characters of every
    message's text content).
``start``, ``first_token``, ``end``
    Seconds on the :func:`time.time` clock: the request was sent, the first chunk
    with text arrived (``null`` if none did), the stream ended (``data: [DONE]``)
    or the request failed. One :func:`time.time` is read when the run starts and
    :func:`time.perf_counter` offsets are added to it, so the times are precise and
    never go backwards.
``token_times``
    The arrival time of every chunk that carried text (``delta.content``,
    ``delta.reasoning_content`` or ``delta.reasoning`` for chat, ``text`` for
    completions). A server that sends several tokens in one chunk gives fewer
    times than ``output_tokens``.
``success``, ``error``
    ``error`` is ``null`` on success, otherwise the reason: ``"timeout"``,
    ``"http 500: <message or start of the body>"``, ``"connection error: ..."``
    (refused, reset, or dropped in the middle of the stream), ``"malformed stream:
    ..."`` (a chunk that is not JSON or not an object, or a JSON answer where an
    event stream was asked for), ``"server error: ..."`` (an ``error`` object sent
    in the stream), ``"truncated stream"`` (the response ended without
    ``data: [DONE]``) or ``"cancelled"`` (interrupted). A failed request keeps the
    times and the text chunks seen before it failed.
``tokens_estimated``
    Whether a token count was approximated (see above).

Scheduling. ``concurrency=N`` runs a closed loop: N workers, each sending its next
request as soon as its previous one ends. ``rate=R`` is an open loop: requests
start at the times of a Poisson process of R requests a second (the first at once,
then exponentially distributed gaps drawn from ``random.Random(seed)``), whether or
not earlier ones have answered. The two are exclusive; with neither, the run is a
closed loop with one worker. The run stops after ``num_requests`` requests or when
``duration`` seconds have passed, whichever comes first (with neither, after one
request per prompt); no request starts after that, and the requests in flight run
to their end (bounded by ``timeout``). Prompts are used in file order, cycling when
there are more requests than prompts.

``timeout`` bounds each request twice: its whole duration, and every wait for the
connection and for the next bytes of the stream, so a server that stops answering
fails the request with ``"timeout"`` instead of holding up the run. Ctrl-C (SIGINT)
cancels the requests in flight, records them as failed with reason
``"cancelled"``, and returns what was collected with ``interrupted`` set; a second
Ctrl-C interrupts at once.

httpx (the ``serve`` extra: ``pip install 'scorekit[serve]'``) is imported when a
run starts, never when this module is imported.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import math
import os
import random
import signal
import sys
import time
from collections.abc import Awaitable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TextIO

from scorekit.errors import ConfigError, InputError, choices, message, raw
from scorekit.throughput._sse import SSEDecoder

__all__ = [
    "ENDPOINTS",
    "RECORD_KEYS",
    "LoadTestResult",
    "MissingDependencyError",
    "Prompt",
    "estimate_tokens",
    "read_prompts",
    "run_loadtest",
    "write_records",
]

ENDPOINTS: tuple[str, ...] = ("chat", "completions")
"""The API endpoints :func:`run_loadtest` can call."""

RECORD_KEYS: tuple[str, ...] = (
    "id",
    "prompt_tokens",
    "output_tokens",
    "start",
    "first_token",
    "end",
    "token_times",
    "success",
    "error",
    "tokens_estimated",
)
"""The keys of a request record, in the order they are written."""

_NAME = "loadtest"
_CHARS_PER_TOKEN = 4
_TEXT_FIELDS = ("content", "reasoning_content", "reasoning")
_SHORT = 200
_INSTALL_HINT = "the serve extra: pip install 'scorekit[serve]'"


class MissingDependencyError(ConfigError, ImportError):
    """httpx, needed to send requests, is not installed."""


class LoadTestResult(NamedTuple):
    """What :func:`run_loadtest` returns."""

    records: list[dict[str, Any]]
    """One record per request started, sorted by ``id``."""
    interrupted: bool
    """Whether the run was stopped by Ctrl-C (SIGINT) before its end."""


@dataclass(frozen=True)
class Prompt:
    """One request's input: a completion ``prompt`` or chat ``messages``.

    Examples
    --------
    >>> Prompt(text="Once upon a time").as_messages()
    [{'role': 'user', 'content': 'Once upon a time'}]
    >>> Prompt(text="Once upon a time", max_tokens=8).estimated_tokens()
    4
    """

    text: str | None = None
    """The prompt of a completion request (a chat request sends it as one user message)."""
    messages: tuple[Mapping[str, Any], ...] | None = None
    """The messages of a chat request."""
    max_tokens: int | None = None
    """This prompt's limit on generated tokens (else the run's ``max_tokens``)."""

    def as_messages(self) -> list[dict[str, Any]]:
        """The chat messages of this prompt."""
        if self.messages is not None:
            return [dict(m) for m in self.messages]
        return [{"role": "user", "content": self.text}]

    def estimated_tokens(self) -> int:
        """The prompt's characters divided by 4, rounded up (see :func:`estimate_tokens`)."""
        if self.messages is None:
            return estimate_tokens(self.text or "")
        return estimate_tokens("".join(_message_text(m) for m in self.messages))


def estimate_tokens(text: str) -> int:
    """Approximate token count of ``text``: its characters divided by 4, rounded up.

    Used for the prompt when the server reports no usage; English text averages
    about four characters a token in the common byte-pair vocabularies.

    Examples
    --------
    >>> estimate_tokens("Hello, world")
    3
    >>> estimate_tokens("")
    0
    """
    return -(-len(text) // _CHARS_PER_TOKEN)


def _message_text(msg: Mapping[str, Any]) -> str:
    content = msg.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
        )
    return ""


# prompts ------------------------------------------------------------------------------


def _prompt_from(item: Any, where: str) -> Prompt:
    """Validate one prompt (a string or an object) and build its :class:`Prompt`."""
    if isinstance(item, str):
        return Prompt(text=item)
    if not isinstance(item, Mapping):
        raise InputError(
            message(where, "prompt is not a string or an object", item, "a JSON object")
        )
    expected = "'prompt' (a string) or 'messages' (a list of {role, content} objects)"
    text, messages = item.get("prompt"), item.get("messages")
    if (text is None) == (messages is None):
        got = raw("both") if text is not None else raw(f"keys {sorted(map(str, item))}")
        raise InputError(message(where, "need exactly one of 'prompt' and 'messages'", got))
    if text is not None and not isinstance(text, str):
        raise InputError(message(f"{where}, column 'prompt'", "not a string", text, "a string"))
    if messages is not None:
        if not isinstance(messages, list) or not messages:
            raise InputError(
                message(f"{where}, column 'messages'", "not a list", messages, expected)
            )
        for msg in messages:
            ok = isinstance(msg, Mapping) and isinstance(msg.get("role"), str)
            if not ok or "content" not in msg:
                raise InputError(
                    message(
                        f"{where}, column 'messages'",
                        "bad message",
                        msg,
                        "an object with a string 'role' and a 'content'",
                    )
                )
    limit = item.get("max_tokens")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise InputError(
            message(f"{where}, column 'max_tokens'", "not a whole number >= 1", limit, "1, 2, ...")
        )
    return Prompt(
        text=text,
        messages=None if messages is None else tuple(messages),
        max_tokens=limit,
    )


def read_prompts(path: str | os.PathLike[str]) -> list[Prompt]:
    """Read a JSON Lines file of prompts.

    Each non-blank line is an object with either ``"prompt"`` (a string, for the
    completions endpoint; sent as one user message to the chat endpoint) or
    ``"messages"`` (a list of ``{"role": ..., "content": ...}`` objects, for the chat
    endpoint), and optionally ``"max_tokens"`` (a whole number >= 1).

    Raises
    ------
    InputError
        A missing or empty file, or a bad line: the message names the file, the line
        and, for invalid JSON, the character column, for a bad value the key.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "prompts.jsonl"
    >>> _ = path.write_text('{"prompt": "Hi"}\\n\\n{"messages": '
    ...                     '[{"role": "user", "content": "Hello"}], "max_tokens": 16}\\n')
    >>> [(p.text, p.max_tokens) for p in read_prompts(path)]
    [('Hi', None), (None, 16)]
    """
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(message(str(source), "no such file", None, "an existing file")) from None
    except IsADirectoryError:
        raise InputError(message(str(source), "is a directory", None, "a file")) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(
            message(str(source), "cannot read", raw(str(exc)), "a UTF-8 JSON Lines file")
        ) from None
    prompts = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{source}, line {number}"
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                message(
                    where,
                    "invalid JSON",
                    raw(f"{exc.msg} at column {exc.colno}"),
                    "one JSON object",
                )
            ) from None
        if not isinstance(item, dict):
            raise InputError(
                message(where, "line is not a JSON object", item, "one JSON object per line")
            )
        prompts.append(_prompt_from(item, where))
    if not prompts:
        raise InputError(message(str(source), "no prompts", None, "one JSON object per line"))
    return prompts


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
    order = {key: i for i, key in enumerate(RECORD_KEYS)}
    try:
        with open(path, "w", encoding="utf-8") as handle:
            for record in records:
                keys = sorted(record, key=lambda k: (order.get(k, len(order)), k))
                handle.write(json.dumps({k: record[k] for k in keys}) + "\n")
    except OSError as exc:
        raise InputError(
            message(str(path), "cannot write", raw(str(exc)), "a writable path")
        ) from None


# one request -------------------------------------------------------------------------


@dataclass
class _Attempt:
    """The state of one request while it runs."""

    id: int
    body: dict[str, Any]
    prompt: Prompt
    start: float = math.nan
    first_token: float | None = None
    token_times: list[float] = field(default_factory=list)
    usage: Mapping[str, Any] | None = None

    def record(self, end: float, error: str | None) -> dict[str, Any]:
        chunks = len(self.token_times)
        usage = self.usage or {}
        prompt_tokens = _count(usage.get("prompt_tokens"))
        output_tokens = _count(usage.get("completion_tokens"))
        estimated = prompt_tokens is None or output_tokens is None
        return {
            "id": self.id,
            "prompt_tokens": self.prompt.estimated_tokens()
            if prompt_tokens is None
            else prompt_tokens,
            "output_tokens": chunks if output_tokens is None else output_tokens,
            "start": self.start,
            "first_token": self.first_token,
            "end": end,
            "token_times": list(self.token_times),
            "success": error is None,
            "error": error,
            "tokens_estimated": estimated,
        }


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHORT else text[: _SHORT - 3] + "..."


def _error_text(error: Any) -> str:
    """The message of an OpenAI-style error object (or whatever the server sent)."""
    if isinstance(error, Mapping):
        for key in ("message", "detail", "error"):
            if isinstance(error.get(key), str | Mapping):
                return _error_text(error[key])
    return _short(error if isinstance(error, str) else json.dumps(error))


def _http_error(status: int, body: bytes) -> str:
    text = body.decode("utf-8", errors="replace")
    with contextlib.suppress(ValueError):
        parsed = json.loads(text)
        if isinstance(parsed, Mapping):
            text = _error_text(parsed)
    return f"http {status}: {_short(text)}" if text.strip() else f"http {status}"


def _has_text(choices_: list[Any]) -> bool:
    for choice in choices_:
        if not isinstance(choice, Mapping):
            continue
        if isinstance(choice.get("text"), str) and choice["text"]:
            return True
        delta = choice.get("delta")
        if isinstance(delta, Mapping) and any(
            isinstance(delta.get(key), str) and delta[key] for key in _TEXT_FIELDS
        ):
            return True
    return False


_GO_ON = "go on"


def _event(attempt: _Attempt, data: str, now: float) -> str | None:
    """Take one event's data; return None at the end, an error, or :data:`_GO_ON`."""
    if data.strip() == "[DONE]":
        return None
    try:
        chunk = json.loads(data)
    except ValueError as exc:
        reason = getattr(exc, "msg", str(exc))
        return f"malformed stream: invalid JSON ({reason}) in {_short(data)!r}"
    if not isinstance(chunk, dict):
        return f"malformed stream: event is not a JSON object: {_short(data)!r}"
    if chunk.get("error") is not None:
        return f"server error: {_error_text(chunk['error'])}"
    usage = chunk.get("usage")
    if isinstance(usage, Mapping):
        attempt.usage = usage
    choices_ = chunk.get("choices")
    if choices_ is None:
        return _GO_ON
    if not isinstance(choices_, list):
        return f"malformed stream: 'choices' is not a list: {_short(data)!r}"
    if _has_text(choices_):
        attempt.token_times.append(now)
        if attempt.first_token is None:
            attempt.first_token = now
    return _GO_ON


# the run ------------------------------------------------------------------------------


def _import_httpx() -> Any:
    try:
        import httpx
    except ImportError:
        raise MissingDependencyError(
            message(_NAME, "httpx is not installed", None, _INSTALL_HINT)
        ) from None
    return httpx


@functools.lru_cache(maxsize=1)
def _ssl_context() -> Any:
    """httpx's default TLS context, built once: loading the CA bundle takes ~0.1 s."""
    return _import_httpx().create_ssl_context()


class _Runner:
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
        self.wall0 = time.time()
        self.perf0 = time.perf_counter()
        self.interrupted = False
        self.started = 0
        self.done: dict[int, dict[str, Any]] = {}
        self.in_flight: dict[int, _Attempt] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.client: Any = None
        self.httpx: Any = None

    # clock and bookkeeping

    def now(self) -> float:
        return self.wall0 + (time.perf_counter() - self.perf0)

    def elapsed(self) -> float:
        return time.perf_counter() - self.perf0

    def next_attempt(self) -> _Attempt | None:
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
        attempt = _Attempt(id=index, body=body, prompt=prompt, start=self.now())
        self.in_flight[index] = attempt
        return attempt

    def finish(self, attempt: _Attempt, error: str | None) -> None:
        self.in_flight.pop(attempt.id, None)
        if attempt.id not in self.done:
            self.done[attempt.id] = attempt.record(self.now(), error)

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

    async def send(self, attempt: _Attempt) -> None:
        try:
            error = await asyncio.wait_for(self.exchange(attempt), self.timeout)
        except asyncio.TimeoutError:
            error = "timeout"
        except asyncio.CancelledError:
            self.finish(attempt, "cancelled")
            raise
        self.finish(attempt, error)

    async def exchange(self, attempt: _Attempt) -> str | None:
        httpx = self.httpx
        try:
            async with self.client.stream(
                "POST", self.url, json=attempt.body, headers=self.headers
            ) as response:
                if not 200 <= response.status_code < 300:
                    return _http_error(response.status_code, await response.aread())
                kind = response.headers.get("content-type", "")
                if kind.split(";")[0].strip().lower() == "application/json":
                    return "malformed stream: the server answered with JSON, not an event stream"
                decoder = SSEDecoder()
                async for chunk in response.aiter_bytes():
                    now = self.now()
                    for data in decoder.feed(chunk):
                        outcome = _event(attempt, data, now)
                        if outcome != _GO_ON:
                            return outcome
                now = self.now()
                for data in decoder.close():
                    outcome = _event(attempt, data, now)
                    if outcome != _GO_ON:
                        return outcome
                return "truncated stream"
        except httpx.TimeoutException:
            return "timeout"
        except httpx.DecodingError as exc:
            return f"malformed stream: {_short(str(exc)) or type(exc).__name__}"
        except (httpx.HTTPError, OSError) as exc:
            return f"connection error: {_short(str(exc)) or type(exc).__name__}"

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

    def interrupt(self) -> None:
        self.interrupted = True
        for task in list(self.tasks):
            task.cancel()

    # progress

    def progress_line(self) -> str:
        elapsed = self.elapsed()
        finished = len(self.done)
        failed = sum(1 for r in self.done.values() if not r["success"])
        chunks = sum(len(a.token_times) for a in self.in_flight.values()) + sum(
            len(r["token_times"]) for r in self.done.values()
        )
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
        return f"loadtest [{bar}] {count}, {failed} failed, {rate:.1f} tok/s, {clock}"

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
        self.httpx = httpx = _import_httpx()
        loop = asyncio.get_running_loop()
        handled = _on_sigint(loop, self)
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
            if handled:
                with contextlib.suppress(Exception):
                    loop.remove_signal_handler(signal.SIGINT)


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


def _on_sigint(loop: asyncio.AbstractEventLoop, runner: _Runner) -> bool:
    """Route SIGINT to ``runner.interrupt`` (once; a second SIGINT raises at once)."""

    def handle() -> None:
        with contextlib.suppress(Exception):
            loop.remove_signal_handler(signal.SIGINT)
        runner.interrupt()

    try:
        loop.add_signal_handler(signal.SIGINT, handle)
    except (NotImplementedError, RuntimeError, ValueError):
        return False
    return True


def _positive(name: str, value: Any, integer: bool) -> None:
    kind = "a whole number >= 1" if integer else "a finite number > 0"
    if integer:
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 1
    else:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        ok = ok and math.isfinite(value) and value > 0
    if not ok:
        raise ConfigError(message(_NAME, f"bad {name}", value, kind))


def _prompt_list(prompts: Any) -> list[Prompt]:
    if isinstance(prompts, str | os.PathLike):
        return read_prompts(prompts)
    if isinstance(prompts, Mapping) or not isinstance(prompts, Sequence):
        raise ConfigError(
            message(_NAME, "bad prompts", prompts, "a file path or a list of prompts")
        )
    found = [
        p if isinstance(p, Prompt) else _prompt_from(p, f"{_NAME}: prompt {i}")
        for i, p in enumerate(prompts)
    ]
    if not found:
        raise ConfigError(message(_NAME, "no prompts", None, "at least one prompt"))
    return found


def run_loadtest(
    url: str,
    model: str,
    prompts: str | os.PathLike[str] | Sequence[str | Mapping[str, Any] | Prompt],
    *,
    endpoint: str = "chat",
    concurrency: int | None = None,
    rate: float | None = None,
    max_tokens: int = 128,
    duration: float | None = None,
    num_requests: int | None = None,
    timeout: float = 300.0,
    seed: int = 0,
    progress: bool | None = None,
    api_key: str | None = None,
    transport: Any = None,
) -> LoadTestResult:
    """Send streamed requests to an OpenAI-compatible server and record each one.

    The module docstring describes the records, the scheduling and the failure
    reasons in full.

    Parameters
    ----------
    url : str
        The API base, such as ``http://127.0.0.1:8000/v1``; requests go to
        ``{url}/chat/completions`` or ``{url}/completions``.
    model : str
        The ``model`` field of every request.
    prompts : path or sequence
        A JSON Lines file (see :func:`read_prompts`), or a list of prompt strings,
        of objects with ``prompt`` or ``messages`` (and optionally ``max_tokens``),
        or of :class:`Prompt`.
    endpoint : {"chat", "completions"}
        ``chat`` posts ``messages`` (a ``prompt`` is sent as one user message);
        ``completions`` posts ``prompt`` and needs prompts given as text.
    concurrency : int, optional
        Closed loop with this many workers. Exclusive with ``rate``; the default is
        one worker.
    rate : float, optional
        Open loop: Poisson arrivals at this many requests a second.
    max_tokens : int
        ``max_tokens`` of every request whose prompt sets none.
    duration : float, optional
        Start no request after this many seconds.
    num_requests : int, optional
        Start this many requests in all. With neither ``duration`` nor
        ``num_requests``, one request per prompt.
    timeout : float
        Seconds a request may take in all, and may wait for the connection or for
        the next bytes of its stream; past either it fails with ``"timeout"``.
    seed : int
        Seed of the Poisson arrival times.
    progress : bool, optional
        Show a progress line on stderr; by default only when stderr is a terminal.
    api_key : str, optional
        Sent as ``Authorization: Bearer <api_key>``.
    transport : httpx.AsyncBaseTransport, optional
        An httpx transport to send through instead of the network (a Unix socket,
        or ``httpx.MockTransport`` in tests).

    Returns
    -------
    LoadTestResult
        ``(records, interrupted)``: the records of the requests started, sorted by
        ``id``, and whether Ctrl-C stopped the run.

    Raises
    ------
    ConfigError
        A bad option (both ``concurrency`` and ``rate``, a number out of range, a
        URL that is not http or https, chat-only prompts for ``completions``).
    InputError
        A bad prompts file or prompt.
    MissingDependencyError
        httpx is not installed.

    Examples
    --------
    A stand-in server through ``httpx.MockTransport`` (a real one is reached by URL):

    >>> import httpx, json
    >>> chunks = [{"choices": [{"delta": {"content": word}}]} for word in ("Hi", " there")]
    >>> chunks.append({"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 2}})
    >>> body = "".join(f"data: {json.dumps(c)}\\n\\n" for c in chunks) + "data: [DONE]\\n\\n"
    >>> def server(request):
    ...     return httpx.Response(200, text=body, headers={"content-type": "text/event-stream"})
    >>> records, interrupted = run_loadtest(
    ...     "http://llm.test/v1", "my-model", ["Say hi"], num_requests=2,
    ...     transport=httpx.MockTransport(server))
    >>> [(r["id"], r["success"], r["prompt_tokens"], r["output_tokens"]) for r in records]
    [(0, True, 5, 2), (1, True, 5, 2)]
    >>> len(records[0]["token_times"]), interrupted
    (2, False)
    """
    if endpoint not in ENDPOINTS:
        raise ConfigError(message(_NAME, "unknown endpoint", endpoint, choices(ENDPOINTS)))
    if not isinstance(url, str) or not url.lower().startswith(("http://", "https://")):
        raise ConfigError(message(_NAME, "bad url", url, "http://HOST:PORT/v1 or https://..."))
    if concurrency is not None and rate is not None:
        raise ConfigError(
            message(_NAME, "both concurrency and rate given", None, "one of them (or neither)")
        )
    if concurrency is not None:
        _positive("concurrency", concurrency, integer=True)
    if rate is not None:
        _positive("rate", rate, integer=False)
    _positive("max_tokens", max_tokens, integer=True)
    if duration is not None:
        _positive("duration", duration, integer=False)
    if num_requests is not None:
        _positive("num_requests", num_requests, integer=True)
    _positive("timeout", timeout, integer=False)
    found = _prompt_list(prompts)
    if endpoint == "completions" and any(p.text is None for p in found):
        raise ConfigError(
            message(
                _NAME,
                "the completions endpoint needs text prompts",
                raw("a prompt given as 'messages'"),
                "'prompt' strings, or endpoint 'chat'",
            )
        )
    if duration is None and num_requests is None:
        num_requests = len(found)
    httpx = _import_httpx()
    try:
        host = httpx.URL(url).host
    except httpx.InvalidURL:
        host = ""
    if not host:
        raise ConfigError(message(_NAME, "bad url", url, "http://HOST:PORT/v1 or https://..."))
    stream = sys.stderr
    runner = _Runner(
        url,
        model,
        found,
        endpoint=endpoint,
        concurrency=concurrency,
        rate=rate,
        max_tokens=max_tokens,
        duration=duration,
        num_requests=num_requests,
        timeout=float(timeout),
        seed=seed,
        progress=stream.isatty() if progress is None else bool(progress),
        api_key=api_key,
        transport=transport,
        stream=stream,
    )
    try:
        asyncio.run(runner.run())
    except KeyboardInterrupt:
        runner.interrupted = True
    runner.end_progress()
    return LoadTestResult(runner.records(), runner.interrupted)
