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
    ..."`` (a chunk that is not JSON or not an object, JSON nested too deeply to
    read, or a JSON answer where an event stream was asked for), ``"server error:
    ..."`` (an ``error`` object sent in the stream), ``"event too large (more than N
    bytes)"`` (one event longer than ``max_event_size``), ``"truncated stream"``
    (the response ended without ``data: [DONE]``, or in the middle of an event) or
    ``"cancelled"`` (interrupted). A failed request keeps the times and the text
    chunks seen before it failed. The body of an HTTP error is read up to
    ``max_event_size`` bytes.
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
or SIGTERM cancels the requests in flight, records them as failed with reason
``"cancelled"``, and returns what was collected with ``interrupted`` set and
``signal`` naming the signal; a second Ctrl-C interrupts at once, a second SIGTERM
ends the process.

Events. The stream is parsed as it arrives, each byte once, and one event may hold
at most ``max_event_size`` bytes (:data:`DEFAULT_MAX_EVENT_SIZE`, 16 MiB): a longer
one fails its request with ``"event too large ..."`` as soon as it passes the limit,
instead of being buffered whole.

Records file. With ``out``, the file is checked and opened before the first request
is sent (a directory, a missing directory, a file that cannot be written, or the
prompts file itself, also through a link, is an error at once), and each record is
written as its request ends, in one unbuffered write: a run killed in its middle
leaves the records of every request that had ended, one JSON object a line, in the
order they ended. When the run ends, also on SIGINT or SIGTERM, a regular file is
replaced atomically by the records sorted by ``id`` (what :func:`write_records`
writes); a FIFO, a pipe or a device (``/dev/stdout``) is written in place, in the
order the requests ended, and never replaced.

httpx (the ``serve`` extra: ``pip install 'scorekit[serve]'``) is imported when a
run starts, never when this module is imported.
"""

from __future__ import annotations

import asyncio
import math
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from scorekit.errors import ConfigError, choices, message, raw
from scorekit.loadtest._prompts import (
    NAME,
    RECORD_KEYS,
    Prompt,
    estimate_tokens,
    prompt_list,
    read_prompts,
)
from scorekit.loadtest._records import RecordFile, write_records
from scorekit.loadtest._runner import MissingDependencyError, Runner, import_httpx
from scorekit.loadtest._sse import DEFAULT_MAX_EVENT_SIZE

__all__ = [
    "DEFAULT_MAX_EVENT_SIZE",
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


class _Outcome(NamedTuple):
    records: list[dict[str, Any]]
    """One record per request started, sorted by ``id``."""
    interrupted: bool
    """Whether the run was stopped by SIGINT (Ctrl-C) or SIGTERM before its end."""


class LoadTestResult(_Outcome):
    """What :func:`run_loadtest` returns: ``(records, interrupted)``, and ``signal``.

    Examples
    --------
    >>> import signal
    >>> result = LoadTestResult([], True, signal.SIGTERM)
    >>> records, interrupted = result
    >>> interrupted, result.signal == signal.SIGTERM
    (True, True)
    """

    signal: int | None = None
    """The signal that stopped the run (``signal.SIGINT`` or ``signal.SIGTERM``), else None."""

    def __new__(
        cls, records: list[dict[str, Any]], interrupted: bool, signal: int | None = None
    ) -> LoadTestResult:
        self = super().__new__(cls, records, interrupted)
        self.signal = signal
        return self


def _positive(name: str, value: Any, integer: bool) -> None:
    kind = "a whole number >= 1" if integer else "a finite number > 0"
    if integer:
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 1
    else:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        ok = ok and math.isfinite(value) and value > 0
    if not ok:
        raise ConfigError(message(NAME, f"bad {name}", value, kind))


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
    out: str | os.PathLike[str] | None = None,
    max_event_size: int = DEFAULT_MAX_EVENT_SIZE,
    max_file_size: int | None = None,
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
    out : path, optional
        Write the records to this file (JSON Lines) as the requests end; the module
        docstring says how. It is opened before the first request is sent.
    max_event_size : int
        The most bytes one event of a stream may hold (default 16 MiB); a longer
        event fails its request with ``"event too large ..."``.
    max_file_size : int, optional
        The most bytes read, or decompressed, from a prompts file (default
        :func:`scorekit.io.max_file_size`, 1 GiB).

    Returns
    -------
    LoadTestResult
        ``(records, interrupted)``: the records of the requests started, sorted by
        ``id``, and whether SIGINT (Ctrl-C) or SIGTERM stopped the run; its
        ``signal`` tells which.

    Raises
    ------
    ConfigError
        A bad option (both ``concurrency`` and ``rate``, a number out of range, a
        URL that is not http or https, chat-only prompts for ``completions``).
    InputError
        A bad prompts file or prompt; an ``out`` that is a directory, is the prompts
        file, or cannot be written.
    MissingDependencyError
        httpx is not installed.

    Notes
    -----
    The run has its own event loop (:func:`asyncio.run`), so the function is called
    from synchronous code; inside a running loop (a notebook cell, a coroutine) it
    raises :class:`~scorekit.errors.ConfigError`: run it in a thread there, or use
    the ``scorekit loadtest`` command. SIGINT and SIGTERM are caught when the
    function runs in the main thread.

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
        raise ConfigError(message(NAME, "unknown endpoint", endpoint, choices(ENDPOINTS)))
    if not isinstance(url, str) or not url.lower().startswith(("http://", "https://")):
        raise ConfigError(message(NAME, "bad url", url, "http://HOST:PORT/v1 or https://..."))
    if concurrency is not None and rate is not None:
        raise ConfigError(
            message(NAME, "both concurrency and rate given", None, "one of them (or neither)")
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
    _positive("max_event_size", max_event_size, integer=True)
    found = prompt_list(prompts, max_file_size)
    if endpoint == "completions" and any(p.text is None for p in found):
        raise ConfigError(
            message(
                NAME,
                "the completions endpoint needs text prompts",
                raw("a prompt given as 'messages'"),
                "'prompt' strings, or endpoint 'chat'",
            )
        )
    if duration is None and num_requests is None:
        num_requests = len(found)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise ConfigError(
            message(
                NAME, "called inside a running event loop", None, "a call from synchronous code"
            )
        )
    httpx = import_httpx()
    try:
        host = httpx.URL(url).host
    except httpx.InvalidURL:
        host = ""
    if not host:
        raise ConfigError(message(NAME, "bad url", url, "http://HOST:PORT/v1 or https://..."))
    stream = sys.stderr
    runner = Runner(
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
        max_event_size=max_event_size,
    )
    records_file = None
    if out is not None:
        records_file = RecordFile(out, [prompts] if isinstance(prompts, str | os.PathLike) else [])
        runner.on_record = records_file.append
    try:
        try:
            asyncio.run(runner.run())
        except KeyboardInterrupt:
            runner.interrupted = True
            runner.stopped_by = runner.stopped_by or signal.SIGINT
        runner.end_progress()
        records = runner.records()
        if records_file is not None:
            records_file.finish(records)
    finally:
        if records_file is not None:
            records_file.close()
    return LoadTestResult(records, runner.interrupted, runner.stopped_by)
