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
    out, the run's ``tokenizer`` counts the prompt's text and the streamed text; without
    one the count is approximated and ``tokens_estimated`` is true: output tokens
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
    ..."`` (an ``error`` object sent in the stream), ``"event too large: an event
    passed --max-event-size (N bytes)"`` (one event longer than ``max_event_size``), ``"the
    server compressed the stream (content-encoding gzip), which the client does not accept"``
    (the client asks for no compression and undoes none), ``"truncated stream"``
    (the response ended without ``data: [DONE]``, or in the middle of an event) or
    ``"cancelled"`` (interrupted). A failed request keeps the times and the text
    chunks seen before it failed. The body of an HTTP error is read up to
    ``max_event_size`` bytes.
``tokens_estimated``, ``token_counter``
    Whether a token count was approximated, and how the counts were found:
    ``"usage"`` (the server's), ``"tokenizer"`` (the run's ``tokenizer`` counted what
    the server did not report) or ``"estimate"`` (see above).
``warmup``, ``step``, ``conversation``, ``turn``
    Present when they apply: ``warmup`` is true on a warm-up request (left out of every
    figure by :mod:`scorekit.throughput`), ``step`` numbers the step of a sweep (from 0),
    ``conversation`` and ``turn`` (from 0) place a request of a multi-turn run.

Workloads. ``prompts`` is a JSON Lines file, a list of prompts, or a :class:`Workload`
from :func:`load_workload`: a ShareGPT file (the first human turn, the reply's length as
``max_tokens``), random prompts, or a shared prefix with random suffixes; ``num_prompts``
and ``seed`` sample it reproducibly. With ``multi_turn``, each conversation's user turns
are sent in order, each with the history so far (the turns before and the server's
answers); ``num_requests`` then counts conversations.

Scheduling. ``concurrency=N`` runs a closed loop: N workers, each sending its next
request as soon as its previous one ends. ``rate=R`` is an open loop: requests
start at arrival times R a second (the first at once), whether or not earlier ones
have answered; the gaps are drawn from ``random.Random(seed)`` by
:func:`arrival_gaps`: exponential (Poisson) with ``burstiness`` 1, gamma with shape
``burstiness`` otherwise, all at once for ``math.inf``. ``max_concurrency`` caps the
requests in flight of an open loop: an arrival waits for a free slot. The two loops
are exclusive; with neither, the run is a closed loop with one worker. A list of rates
or of concurrencies is a sweep: one step per value, each with the same prompts, a
``pause`` between them. A step stops after ``num_requests`` requests or when
``duration`` seconds have passed, whichever comes first (with neither, after one
request per prompt); no request starts after that, and the requests in flight run to
their end (bounded by ``timeout``). Prompts are used in order, cycling when there are
more requests than prompts. ``warmup`` requests go first, the first alone: if it
fails (a wrong URL, model or endpoint; a server that refuses an option), the run stops
with :class:`PreflightError` and the server's answer before the load is sent.

``timeout`` bounds each request: its whole duration, connection and every wait for the
next bytes of its stream included, so a server that stops answering fails the request
with ``"timeout"`` instead of holding up the run. Ctrl-C (SIGINT) or SIGTERM cancels
the requests in flight, records them as failed with reason ``"cancelled"``, and
returns what was collected with ``interrupted`` set and ``signal`` naming the signal; a
second Ctrl-C raises :class:`KeyboardInterrupt` at once (the records file keeps the
requests that ended), a second SIGTERM ends the process.

Events. The stream is parsed as it arrives, each byte once, and one event may hold
at most ``max_event_size`` bytes (:data:`DEFAULT_MAX_EVENT_SIZE`, 16 MiB): a longer
one fails its request with ``"event too large ..."`` as soon as it passes the limit,
instead of being buffered whole. The client asks for an uncompressed answer
(``Accept-Encoding: identity``) and undoes no compression: an answer compressed anyway
fails its request with ``"the server compressed the stream (content-encoding gzip),
which the client does not accept"``.

Records file. With ``out``, the file is checked and opened before the first request is
sent (a directory, a missing directory, a file that cannot be written, or the prompts
file itself, also through a link, is an error at once). Its first line is the run's
metadata record (:func:`run_metadata`: ``"record": "metadata"``, the scorekit version,
url, model, endpoint, flags, dataset and its hash, seed, start time, tokenizer, and the
steps of a sweep; never the API key, the url with its password and secret-looking
query values hidden by :func:`redact_url`, and the string values of secret-looking keys
of ``extra_body`` hidden by :func:`redact_body`, the requests carrying them as given),
then each record is written as its request ends, in one unbuffered write: a run killed
in its middle leaves the records of every request that had ended, one JSON object a
line, in the order they ended. When the run ends, also on SIGINT or SIGTERM, a regular
file is replaced atomically by the metadata and the records sorted by ``id``; a FIFO, a
pipe or a device (``/dev/stdout``) is written in place, in the order the requests
ended, and never replaced.

The client. Requests go through the load generator's own HTTP/1.1 client on asyncio
streams (keep-alive connections, one write per request; no proxy, no compression), so
that the client is not what limits the test; ``transport`` sends them through httpx
instead (a Unix socket, a proxy, ``httpx.MockTransport`` in tests). httpx (the
``serve`` extra: ``pip install 'scorekit[serve]'``, with ``tokenizers`` and
``tiktoken`` for ``tokenizer``) is imported when a run starts, never when this module
is imported.
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
from scorekit.loadtest._arrivals import arrival_gaps, arrival_times
from scorekit.loadtest._datasets import (
    DATASETS,
    MAX_LENGTH,
    MAX_PROMPTS,
    MAX_SYNTHETIC_TOKENS,
    Conversation,
    Workload,
    load_workload,
    read_sharegpt,
    synthetic_prompts,
    workload_of,
)
from scorekit.loadtest._meta import (
    PreflightError,
    describe_run,
    failures_over,
    parse_max_failures,
    run_metadata,
    run_settings,
)
from scorekit.loadtest._prompts import (
    EXTRA_KEYS,
    NAME,
    RECORD_KEYS,
    Prompt,
    check_positive,
    estimate_tokens,
    prompt_list,
    read_prompts,
)
from scorekit.loadtest._records import RecordFile, write_records
from scorekit.loadtest._runner import MissingDependencyError, Runner, Step, import_httpx
from scorekit.loadtest._sse import DEFAULT_MAX_EVENT_SIZE
from scorekit.loadtest._sweep import SWEEP_FORMATS, format_sweep, sweep_reports
from scorekit.loadtest._tokens import TokenCounter, load_tokenizer
from scorekit.loadtest._wire import (
    SECRET_WORDS,
    check_api_key,
    check_url,
    printable,
    redact_body,
    redact_url,
)

__all__ = [
    "DATASETS",
    "DEFAULT_MAX_EVENT_SIZE",
    "ENDPOINTS",
    "EXTRA_KEYS",
    "MAX_LENGTH",
    "MAX_PROMPTS",
    "MAX_SYNTHETIC_TOKENS",
    "RECORD_KEYS",
    "SECRET_WORDS",
    "SWEEP_FORMATS",
    "Conversation",
    "LoadTestResult",
    "MissingDependencyError",
    "PreflightError",
    "Prompt",
    "Step",
    "TokenCounter",
    "Workload",
    "arrival_gaps",
    "arrival_times",
    "check_api_key",
    "check_url",
    "describe_run",
    "estimate_tokens",
    "failures_over",
    "format_sweep",
    "load_tokenizer",
    "load_workload",
    "parse_max_failures",
    "printable",
    "read_prompts",
    "read_sharegpt",
    "redact_body",
    "redact_url",
    "run_loadtest",
    "run_metadata",
    "run_settings",
    "sweep_reports",
    "synthetic_prompts",
    "write_records",
]

_URL_EXPECTED = "http://HOST:PORT/v1 or https://..."

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
    metadata: dict[str, Any] | None = None
    """The run's metadata record (see :func:`run_metadata`)."""
    steps: list[Step] | None = None
    """The steps of a sweep (one step for a single run)."""

    def __new__(
        cls,
        records: list[dict[str, Any]],
        interrupted: bool,
        signal: int | None = None,
        *,
        metadata: dict[str, Any] | None = None,
        steps: list[Step] | None = None,
    ) -> LoadTestResult:
        self = super().__new__(cls, records, interrupted)
        self.signal = signal
        self.metadata = metadata
        self.steps = steps
        return self


def _steps(rate: Any, concurrency: Any) -> tuple[list[Step], bool]:
    """The steps of a run and whether it is a sweep (a list of rates or of concurrencies)."""
    if concurrency is not None and rate is not None:
        raise ConfigError(
            message(NAME, "both concurrency and rate given", None, "one of them (or neither)")
        )
    sweep = isinstance(rate, Sequence) or isinstance(concurrency, Sequence)
    values = rate if rate is not None else concurrency
    listed = list(values) if isinstance(values, Sequence) else [values]
    if not listed:
        name = "rate" if rate is not None else "concurrency"
        raise ConfigError(message(NAME, f"no {name} given", values, "one value or more"))
    steps = []
    for value in listed:
        if rate is not None:
            infinite = isinstance(value, float) and math.isinf(value) and value > 0
            if not infinite:
                check_positive("rate", value, integer=False)
            steps.append(Step(rate=float(value)))
        elif concurrency is not None:
            check_positive("concurrency", value, integer=True)
            steps.append(Step(concurrency=value))
        else:
            steps.append(Step(concurrency=1))
    return steps, sweep


def run_loadtest(
    url: str,
    model: str,
    prompts: str | os.PathLike[str] | Sequence[str | Mapping[str, Any] | Prompt] | Workload,
    *,
    endpoint: str = "chat",
    concurrency: int | Sequence[int] | None = None,
    rate: float | Sequence[float] | None = None,
    burstiness: float = 1.0,
    max_concurrency: int | None = None,
    max_tokens: int = 128,
    duration: float | None = None,
    num_requests: int | None = None,
    timeout: float = 300.0,
    seed: int = 0,
    warmup: int = 0,
    ignore_eos: bool = False,
    temperature: float | None = None,
    extra_body: Mapping[str, Any] | None = None,
    stream_options: bool = True,
    tokenizer: str | os.PathLike[str] | TokenCounter | None = None,
    multi_turn: bool = False,
    pause: float = 1.0,
    progress: bool | None = None,
    api_key: str | None = None,
    transport: Any = None,
    out: str | os.PathLike[str] | None = None,
    max_event_size: int = DEFAULT_MAX_EVENT_SIZE,
    max_file_size: int | None = None,
    flags: Mapping[str, Any] | None = None,
) -> LoadTestResult:
    """Send streamed requests to an OpenAI-compatible server and record each one.

    The module docstring describes the records, the scheduling and the failure
    reasons in full.

    Parameters
    ----------
    url : str
        The API base, such as ``http://127.0.0.1:8000/v1``; requests go to
        ``{url}/chat/completions`` or ``{url}/completions`` (a query, such as
        ``?api-version=...``, kept after the path). A user and password in it
        (``http://user:password@host/v1``) are sent as ``Authorization: Basic``
        unless ``api_key`` is given. It may hold no space or control character. The
        metadata record and the messages show it with its secrets hidden
        (:func:`redact_url`).
    model : str
        The ``model`` field of every request.
    prompts : path, sequence or Workload
        A JSON Lines file (see :func:`read_prompts`), a list of prompt strings, of
        objects with ``prompt`` or ``messages`` (and optionally ``max_tokens``), or of
        :class:`Prompt`; or a :class:`Workload` of :func:`load_workload` (ShareGPT,
        random or shared-prefix prompts).
    endpoint : {"chat", "completions"}
        ``chat`` posts ``messages`` (a ``prompt`` is sent as one user message);
        ``completions`` posts ``prompt`` and needs prompts given as text.
    concurrency : int or sequence of int, optional
        Closed loop with this many workers. Exclusive with ``rate``; the default is
        one worker. A sequence is a sweep: one step per value.
    rate : float or sequence of float, optional
        Open loop: arrivals at this many requests a second (``math.inf``: all at
        once). A sequence is a sweep: one step per value.
    burstiness : float
        The shape of the gamma-distributed gaps between arrivals
        (:func:`arrival_gaps`): 1 is Poisson, lower is burstier.
    max_concurrency : int, optional
        Under ``rate``, the most requests in flight: an arrival waits for a free slot.
    max_tokens : int
        ``max_tokens`` of every request whose prompt sets none.
    duration : float, optional
        Start no request after this many seconds (in each step of a sweep).
    num_requests : int, optional
        Start this many requests (in each step). With neither ``duration`` nor
        ``num_requests``, one request per prompt. With ``multi_turn``, conversations.
    timeout : float
        Seconds a request may take in all, and may wait for the connection or for
        the next bytes of its stream; past either it fails with ``"timeout"``.
    seed : int
        Seed of the arrival times.
    warmup : int
        Requests sent before the load, the first alone: they are recorded with
        ``"warmup": true`` and left out of every figure. When the first of them (the
        pre-flight) fails, the run stops with a :class:`PreflightError` that gives the
        server's answer.
    ignore_eos, temperature, extra_body : optional
        Sent in every request: ``"ignore_eos": true`` (vLLM, TGI: generate
        ``max_tokens`` tokens whatever the model says), ``"temperature"``, and the
        keys of ``extra_body`` (they replace the ones scorekit sets).
    stream_options : bool
        Ask for the token usage with ``"stream_options": {"include_usage": true}``;
        false for servers that refuse the field.
    tokenizer : path, name or TokenCounter, optional
        Count the tokens the server does not report with this tokenizer
        (:func:`load_tokenizer`) instead of estimating them.
    multi_turn : bool
        Send each conversation's user turns in order, each with the history so far
        (the earlier turns and the server's answers); records carry
        ``conversation`` and ``turn``. Needs the chat endpoint.
    pause : float
        Seconds between the steps of a sweep.
    progress : bool, optional
        Show a progress line on stderr (requests done, failed and running, tokens a
        second, the time spent and the time left at the rate so far); by default only
        when stderr is a terminal.
    api_key : str, optional
        Sent as ``Authorization: Bearer <api_key>``; printable ASCII only (a control
        character such as CR or LF would add a header line). Never recorded.
    transport : httpx.AsyncBaseTransport, optional
        An httpx transport to send through instead of the network (a Unix socket,
        or ``httpx.MockTransport`` in tests).
    out : path, optional
        Write the records to this file (JSON Lines) as the requests end, after the
        metadata record; the module docstring says how. It is opened before the first
        request is sent.
    max_event_size : int
        The most bytes one event of a stream may hold (default 16 MiB); a longer
        event fails its request with ``"event too large ..."``.
    max_file_size : int, optional
        The most bytes read, or decompressed, from a prompts file (default
        :func:`scorekit.io.max_file_size`, 1 GiB).
    flags : mapping, optional
        The settings recorded in the metadata record (the command line's flags); by
        default the settings of this call.

    Returns
    -------
    LoadTestResult
        ``(records, interrupted)``: the records of the requests started, sorted by
        ``id``, and whether SIGINT (Ctrl-C) or SIGTERM stopped the run; its
        ``signal`` tells which, its ``metadata`` describes the run and its ``steps``
        are the run's steps.

    Raises
    ------
    ConfigError
        A bad option (both ``concurrency`` and ``rate``, a number out of range, a
        URL that is not http or https, a URL or API key holding a control character,
        chat-only prompts for ``completions``), found before any request is sent.
    PreflightError
        The first warm-up request failed.
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
    settings = {
        "endpoint": endpoint,
        "concurrency": concurrency,
        "rate": rate,
        "burstiness": burstiness,
        "max_concurrency": max_concurrency,
        "max_tokens": max_tokens,
        "duration": duration,
        "num_requests": num_requests,
        "timeout": timeout,
        "warmup": warmup,
        "ignore_eos": ignore_eos,
        "temperature": temperature,
        "extra_body": extra_body,
        "stream_options": stream_options,
        "multi_turn": multi_turn,
    }
    if endpoint not in ENDPOINTS:
        raise ConfigError(message(NAME, "unknown endpoint", endpoint, choices(ENDPOINTS)))
    check_url(url)
    check_api_key(api_key)
    steps, sweep = _steps(rate, concurrency)
    if not (isinstance(burstiness, int | float) and not isinstance(burstiness, bool)) or not (
        math.isfinite(burstiness) and burstiness > 0
    ):
        raise ConfigError(message(NAME, "bad burstiness", burstiness, "a finite number > 0"))
    if max_concurrency is not None:
        check_positive("max_concurrency", max_concurrency, integer=True)
    if rate is None and (max_concurrency is not None or burstiness != 1):
        name = "max_concurrency" if max_concurrency is not None else "burstiness"
        raise ConfigError(
            message(NAME, f"{name} shapes an open loop", None, "a rate as well (--rate)")
        )
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ConfigError(message(NAME, "bad warmup", warmup, "a whole number >= 0"))
    if temperature is not None and (
        isinstance(temperature, bool)
        or not isinstance(temperature, int | float)
        or not math.isfinite(temperature)
        or temperature < 0
    ):
        raise ConfigError(message(NAME, "bad temperature", temperature, "a finite number >= 0"))
    if extra_body is not None and not isinstance(extra_body, Mapping):
        raise ConfigError(message(NAME, "bad extra_body", extra_body, "a JSON object"))
    if not (isinstance(pause, int | float) and math.isfinite(pause) and pause >= 0):
        raise ConfigError(message(NAME, "bad pause", pause, "a finite number >= 0"))
    check_positive("max_tokens", max_tokens, integer=True)
    if duration is not None:
        check_positive("duration", duration, integer=False)
    if num_requests is not None:
        check_positive("num_requests", num_requests, integer=True)
    check_positive("timeout", timeout, integer=False)
    check_positive("max_event_size", max_event_size, integer=True)
    counter = (
        load_tokenizer(tokenizer)
        if tokenizer is not None and not isinstance(tokenizer, TokenCounter)
        else tokenizer
    )
    if isinstance(prompts, Workload):
        work = prompts
        if multi_turn and work.name == "list":
            work = workload_of(work.prompts, True)
    elif isinstance(prompts, str | os.PathLike):
        work = load_workload(
            "jsonl", prompts, seed=seed, multi_turn=multi_turn, max_file_size=max_file_size
        )
    else:
        work = workload_of(prompt_list(prompts, max_file_size), multi_turn)
    if endpoint == "completions" and multi_turn:
        raise ConfigError(
            message(NAME, "multi-turn conversations need the chat endpoint", endpoint, "chat")
        )
    if endpoint == "completions" and any(
        p.text is None for c in work.conversations for p in c.turns
    ):
        raise ConfigError(
            message(
                NAME,
                "the completions endpoint needs text prompts",
                raw("a prompt given as 'messages'"),
                "'prompt' strings, or endpoint 'chat'",
            )
        )
    if duration is None and num_requests is None:
        num_requests = len(work.conversations)
    if (
        duration is not None
        and num_requests is None
        and max_concurrency is None
        and any(step.rate is not None and math.isinf(step.rate) for step in steps)
    ):
        raise ConfigError(
            message(
                NAME,
                "an infinite rate with a duration starts requests without end",
                None,
                "num_requests or max_concurrency as well",
            )
        )
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
    except (httpx.InvalidURL, UnicodeError):  # idna's errors are UnicodeErrors
        host = ""
    if not host:
        raise ConfigError(message(NAME, "bad url (--url)", redact_url(url), _URL_EXPECTED))
    stream = sys.stderr
    body: dict[str, Any] = {}
    if ignore_eos:
        body["ignore_eos"] = True
    if temperature is not None:
        body["temperature"] = temperature
    body.update(extra_body or {})
    runner = Runner(
        url,
        model,
        work.conversations,
        endpoint=endpoint,
        steps=steps,
        burstiness=float(burstiness),
        max_concurrency=max_concurrency,
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
        warmup=warmup,
        body=body,
        stream_options=stream_options,
        counter=counter,
        multi_turn=multi_turn,
        sweep=sweep,
        pause=float(pause),
    )
    metadata = run_metadata(
        url=redact_url(url),
        model=model,
        endpoint=endpoint,
        flags=settings if flags is None else flags,
        dataset=work.describe(),
        seed=seed,
        tokenizer=None if counter is None else counter.name,
        steps=[step.describe() for step in steps] if sweep else None,
    )
    records_file = None
    if out is not None:
        inputs = [prompts] if isinstance(prompts, str | os.PathLike) else []
        if work.path is not None:
            inputs.append(work.path)
        records_file = RecordFile(out, inputs, header=metadata)
        runner.on_record = records_file.append
    try:
        try:
            asyncio.run(runner.run())
        except KeyboardInterrupt:
            if runner.interrupted:
                raise  # a second interrupt: stop at once, the records written so far kept
            runner.interrupted = True
            runner.stopped_by = runner.stopped_by or signal.SIGINT
        runner.end_progress()
        records = runner.records()
        if records_file is not None:
            records_file.finish(records)
    finally:
        if records_file is not None:
            records_file.close()
    if runner.preflight_error is not None:
        raise PreflightError(
            message(
                NAME,
                f"the pre-flight request to {runner.shown_url} failed",
                raw(runner.preflight_error),
                "an answer: check --url, --model, --endpoint and the request options",
            )
        )
    return LoadTestResult(
        records, runner.interrupted, runner.stopped_by, metadata=metadata, steps=steps
    )
