"""``scorekit loadtest``: load-test an OpenAI-compatible server and report its serving figures."""

from __future__ import annotations

import _thread
import argparse
import contextlib
import dataclasses
import json
import math
import os
import signal
import sys
from collections.abc import Callable
from typing import Any, TextIO

from scorekit.cli._flags import (
    format_flag,
    number_above,
    positive_int,
    report_flag,
    slo_flag,
    whole_number_from,
    write_report,
)
from scorekit.cli._throughput import parse_percentiles

NAME = "loadtest"
FAILURES_STATUS = 3
"""The exit status of a run with more failed requests than ``--max-failures`` allows.

Without ``--max-failures``, a run whose every request failed exits with it too.
"""
CHECKED_OUTPUTS = ("out",)
"""The outputs :mod:`scorekit.loadtest` checks itself before the first request is sent.

``--out``: a directory, a missing folder, a file that cannot be written, the
prompts file, a FIFO that no process reads (see :func:`scorekit.cli._paths.check_outputs`).
"""

_RECORDED = (
    "endpoint",
    "dataset",
    "prompts",
    "num_prompts",
    "input_len",
    "output_len",
    "range_ratio",
    "prefix_len",
    "multi_turn",
    "concurrency",
    "rate",
    "burstiness",
    "max_concurrency",
    "max_tokens",
    "duration",
    "num_requests",
    "timeout",
    "warmup",
    "ignore_eos",
    "temperature",
    "extra_body",
    "no_stream_options",
)
"""The flags a records file's metadata record keeps (never the API key or output paths)."""


def listed(parse: Callable[[str], Any], *, infinite: bool = False) -> Callable[[str], Any]:
    """An argparse type: one value, or a comma-separated list of them (a sweep).

    Examples
    --------
    >>> listed(positive_int)("4"), listed(positive_int)("1,4,16")
    (4, [1, 4, 16])
    >>> listed(number_above(0), infinite=True)("1,inf")
    [1.0, inf]
    """

    def one(text: str) -> Any:
        if infinite and text.strip().lower() in ("inf", "infinity"):
            return math.inf
        return parse(text)

    def parse_list(text: str) -> Any:
        if "," not in text:
            return one(text)
        values = []
        for part in text.split(","):
            try:
                values.append(one(part.strip()))
            except argparse.ArgumentTypeError as exc:
                raise argparse.ArgumentTypeError(
                    f"bad value {part.strip()!r} in {text!r}: {exc}"
                ) from None
        return values

    return parse_list


whole_number = whole_number_from(0)
non_negative = number_above(0, or_equal=True)


def json_object(text: str) -> dict[str, Any]:
    """An argparse type: a JSON object (``--extra-body``).

    Examples
    --------
    >>> json_object('{"top_p": 0.9}')
    {'top_p': 0.9}
    """
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise argparse.ArgumentTypeError(f"expected a JSON object, got {text!r} ({exc})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object, got {text!r}")
    return value


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``loadtest`` command's parser."""
    from scorekit.loadtest import MAX_LENGTH, MAX_PROMPTS, MAX_SYNTHETIC_TOKENS

    lt: argparse.ArgumentParser = sub.add_parser(
        NAME,
        help="load-test an OpenAI-compatible LLM server and report its throughput and latency",
        description=(
            "Send streamed chat or completion requests to an OpenAI-compatible server (vLLM, TGI,"
            " llama.cpp, Ollama, ...), time every streamed chunk, and print the report of "
            "'scorekit throughput'. Prompts come from --dataset: a ShareGPT file, a JSON Lines "
            "file (--prompts FILE is --dataset jsonl FILE), random prompts or a shared prefix "
            "with random suffixes. --concurrency N keeps N requests in flight (closed loop, the "
            "default with N = 1); --rate R starts requests at Poisson arrival times, R a second "
            "(open loop; --burstiness for gamma arrivals, --max-concurrency to cap the requests "
            "in flight). A list (--rate 1,4,inf or --concurrency 1,4,16) is a sweep: one step per"
            " value, the same prompts, one table. The run stops after --num-requests or "
            "--duration, whichever comes first (default: one request per prompt); requests in "
            "flight then run to their end. --warmup N sends N requests first, left out of the "
            "figures (by default one, a pre-flight request); when the first fails, the run stops "
            "with the server's answer. Failed requests (timeout, HTTP error, broken stream) are "
            "counted with their reason; --max-failures makes too many exit with status 3, as does"
            " a run whose every request failed (unless --max-failures allows 100%). --out writes "
            "a metadata record, then each request's record as it ends (a kill loses only the "
            "requests in flight) and, at the end, sorts a regular file by request id. Ctrl-C "
            "(SIGINT) or SIGTERM cancels the requests in flight, writes and reports what was "
            "collected, and exits with status 130 (SIGINT) or 143 (SIGTERM); a second Ctrl-C "
            "exits at once with status 130. Needs httpx: pip install 'scorekit[serve]'."
        ),
    )
    lt.add_argument(
        "--url",
        required=True,
        help="the API base, e.g. http://127.0.0.1:8000/v1 (user:password@ is sent as Basic "
        "authorization; the password and secret query values are hidden in records and reports)",
    )
    lt.add_argument("--model", required=True, metavar="NAME", help="the model to ask for")
    data = lt.add_argument_group("workload")
    source = data.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--prompts",
        metavar="FILE.jsonl",
        help='one {"prompt": ...} or {"messages": [...]} a line, optionally "max_tokens" '
        "(the same as --dataset jsonl FILE)",
    )
    source.add_argument(
        "--dataset",
        nargs="+",
        metavar=("NAME", "FILE"),
        help="sharegpt FILE.json (first human turn, the reply's length as max_tokens), "
        "jsonl FILE, random, or prefix (a shared prefix and random suffixes)",
    )
    data.add_argument(
        "--num-prompts",
        type=positive_int,
        metavar="N",
        help="sample N prompts with --seed (default: the whole file; 1000 for random, prefix; "
        f"at most {MAX_PROMPTS:,})",
    )
    data.add_argument(
        "--input-len",
        type=positive_int,
        default=1024,
        metavar="N",
        help=f"random, prefix: prompt tokens (default 1024; at most {MAX_LENGTH:,}, and "
        f"{MAX_SYNTHETIC_TOKENS:,} prompt tokens in all)",
    )
    data.add_argument(
        "--output-len",
        type=positive_int,
        default=128,
        metavar="N",
        help=f"random, prefix: max_tokens (default 128; at most {MAX_LENGTH:,})",
    )
    data.add_argument(
        "--range-ratio",
        type=float,
        default=0.0,
        metavar="R",
        help="random, prefix: lengths uniform in [len*(1-R), len*(1+R)] (default 0)",
    )
    data.add_argument(
        "--prefix-len",
        type=positive_int,
        default=256,
        metavar="N",
        help=f"prefix: shared prefix tokens (default 256; at most {MAX_LENGTH:,})",
    )
    data.add_argument(
        "--multi-turn",
        action="store_true",
        help="send each conversation's turns in order with the history so far (chat only)",
    )
    data.add_argument(
        "--tokenizer",
        metavar="NAME_OR_PATH",
        help="count tokens the server does not report with a tokenizer.json (tokenizers) or a "
        "tiktoken encoding such as cl100k_base, instead of characters / 4",
    )
    load = lt.add_argument_group("load")
    loop = load.add_mutually_exclusive_group()
    loop.add_argument(
        "--concurrency",
        type=listed(positive_int),
        metavar="N[,N...]",
        help="closed loop: N requests in flight; a list is a sweep",
    )
    loop.add_argument(
        "--rate",
        type=listed(number_above(0), infinite=True),
        metavar="R[,R...]",
        help="open loop: R arrivals per second (inf: all at once); a list is a sweep",
    )
    load.add_argument(
        "--burstiness",
        type=number_above(0),
        default=1.0,
        metavar="B",
        help="--rate arrivals with gamma gaps of shape B: 1 is Poisson, < 1 burstier (default 1)",
    )
    load.add_argument(
        "--max-concurrency", type=positive_int, metavar="N", help="--rate: at most N in flight"
    )
    load.add_argument(
        "--max-tokens",
        type=positive_int,
        default=128,
        metavar="N",
        help="tokens to generate when the prompt sets none (default 128)",
    )
    load.add_argument(
        "--duration", type=number_above(0), metavar="S", help="start no request after S seconds"
    )
    load.add_argument(
        "--num-requests", type=positive_int, metavar="N", help="start N requests (per step)"
    )
    load.add_argument(
        "--warmup",
        type=whole_number,
        default=1,
        metavar="N",
        help="send N requests first, recorded as warm-up and left out of the figures; the "
        "first goes alone and a failure stops the run with the server's answer (default 1, "
        "a pre-flight request; 0 sends none)",
    )
    load.add_argument(
        "--pause",
        type=non_negative,
        default=2.0,
        metavar="S",
        help="seconds between the steps of a sweep (default 2)",
    )
    load.add_argument("--seed", type=int, default=0, help="seed of the sample and the arrivals")
    request = lt.add_argument_group("requests")
    request.add_argument("--endpoint", choices=("chat", "completions"), default="chat")
    request.add_argument(
        "--ignore-eos", action="store_true", help='send "ignore_eos": true (vLLM, TGI)'
    )
    request.add_argument(
        "--temperature", type=non_negative, metavar="T", help="sampling temperature to send"
    )
    request.add_argument(
        "--extra-body", type=json_object, metavar="JSON", help="keys added to every request"
    )
    request.add_argument(
        "--no-stream-options",
        action="store_true",
        help="do not send stream_options (for servers that refuse it; usage is then counted)",
    )
    request.add_argument(
        "--timeout",
        type=number_above(0),
        default=300.0,
        metavar="S",
        help="longest request, and longest wait for a byte of its stream (default 300)",
    )
    request.add_argument(
        "--max-event-size",
        default="16M",
        metavar="SIZE",
        help="longest event of a stream, e.g. 64M; a longer one fails its request "
        "with 'event too large' (default 16M)",
    )
    request.add_argument(
        "--api-key",
        metavar="KEY",
        help="bearer token, printable ASCII (default: $OPENAI_API_KEY)",
    )
    lt.add_argument(
        "--out",
        metavar="FILE",
        help="write a metadata record, then one record per request (JSON Lines) as each ends",
    )
    lt.add_argument(
        "--max-failures",
        metavar="N|P%",
        help="exit with status 3 when more than N requests (or P%% of them) fail",
    )
    lt.add_argument(
        "--max-file-size",
        metavar="SIZE",
        help="largest prompts file, read or decompressed (default 1G, or $SCOREKIT_MAX_FILE_SIZE)",
    )
    slo_flag(lt, "objectives for goodput, e.g. --slo ttft=200ms tpot=50ms")
    lt.add_argument(
        "--percentiles",
        metavar="P,P,...",
        help="the latency percentiles to report, numbers in [0, 100] separated by commas "
        "(default 50,90,99; a sweep's table: the median and p99), e.g. --percentiles 50,95,99.9",
    )
    format_flag(lt, "table", "json")
    report_flag(lt)
    lt.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    return lt


def _workload(args: argparse.Namespace, counter: Any, max_file_size: int | None) -> Any:
    from scorekit import loadtest
    from scorekit.errors import ConfigError, message

    if args.prompts is not None:
        name, path = "jsonl", args.prompts
    else:
        if len(args.dataset) > 2:
            raise ConfigError(
                message("--dataset", "too many values", " ".join(args.dataset), "NAME [FILE]")
            )
        name, path = args.dataset[0], (args.dataset[1:] or [None])[0]
    return loadtest.load_workload(
        name,
        path,
        num_prompts=args.num_prompts,
        seed=args.seed,
        input_len=args.input_len,
        output_len=args.output_len,
        range_ratio=args.range_ratio,
        prefix_len=args.prefix_len,
        counter=counter,
        multi_turn=args.multi_turn,
        max_file_size=max_file_size,
    )


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run :func:`scorekit.loadtest.run_loadtest` and print the report of its records.

    The first Ctrl-C stops the run and reports what was collected; a second one (or one
    before the run, or while the report is made) ends the command at once with one line
    and status 130.
    """
    previous = sys.unraisablehook
    caught: list[bool] = []
    sys.unraisablehook = _interrupting(previous, caught)
    try:
        status = _run(args, out, err)
        if caught:
            # a Ctrl-C caught in a finalizer whose interrupt has not arrived yet
            raise KeyboardInterrupt
        return status
    except KeyboardInterrupt:
        # one line and status 130: a Ctrl-C still pending, or pressed again, ends nothing more
        with contextlib.suppress(ValueError):
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        kept = f"; the records of the requests that ended are in {args.out}" if args.out else ""
        err.write(f"scorekit: interrupted; stopped at once{kept}\n")
        return 128 + signal.SIGINT
    finally:
        sys.unraisablehook = previous


def _interrupting(
    previous: Callable[[Any], Any], caught: list[bool] | None = None
) -> Callable[[Any], None]:
    """An unraisable-exception hook under which a Ctrl-C that lands in a finalizer
    (Python would print it and go on) interrupts the command as any other does;
    ``caught`` is told of each such Ctrl-C."""

    def hook(unraisable: Any) -> None:
        kind = unraisable.exc_type
        if kind is not None and issubclass(kind, KeyboardInterrupt):
            if caught is not None:
                caught.append(True)
            # asked from a thread of its own, not waited for: the interrupt reaches the
            # main thread once the finalizer is over
            _thread.start_new_thread(_thread.interrupt_main, ())
            return
        previous(unraisable)

    return hook


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from scorekit import loadtest, throughput
    from scorekit.io import parse_size

    # what reaches the wire is checked before a tokenizer is loaded or a prompt built
    loadtest.check_url(args.url)
    loadtest.check_api_key(args.api_key or os.environ.get("OPENAI_API_KEY") or None)
    slo = throughput.parse_slo(args.slo, name="--slo") if args.slo else None
    percentiles = parse_percentiles(args.percentiles)
    limit = loadtest.parse_max_failures(args.max_failures) if args.max_failures else None
    max_event_size = parse_size(args.max_event_size, "--max-event-size")
    max_file_size = parse_size(args.max_file_size) if args.max_file_size else None
    counter = loadtest.load_tokenizer(args.tokenizer) if args.tokenizer else None
    work = _workload(args, counter, max_file_size)
    flags = {key: getattr(args, key) for key in _RECORDED}
    result = loadtest.run_loadtest(
        args.url,
        args.model,
        work,
        endpoint=args.endpoint,
        concurrency=args.concurrency,
        rate=args.rate,
        burstiness=args.burstiness,
        max_concurrency=args.max_concurrency,
        max_tokens=args.max_tokens,
        duration=args.duration,
        num_requests=args.num_requests,
        timeout=args.timeout,
        seed=args.seed,
        warmup=args.warmup,
        ignore_eos=args.ignore_eos,
        temperature=args.temperature,
        extra_body=args.extra_body,
        stream_options=not args.no_stream_options,
        tokenizer=counter,
        multi_turn=args.multi_turn,
        pause=args.pause,
        progress=False if args.quiet else None,
        api_key=args.api_key or os.environ.get("OPENAI_API_KEY") or None,
        out=args.out or None,
        max_event_size=max_event_size,
        max_file_size=max_file_size,
        flags=flags,
    )
    steps = result.steps or []
    sweep = isinstance(args.rate, list) or isinstance(args.concurrency, list)
    rows = None
    whole = None
    tokenizer = None if counter is None else loadtest.printable(counter.name)
    if sweep:
        rows = loadtest.sweep_reports(result.records, steps, slo, percentiles)
        rows = [(label, dataclasses.replace(step, tokenizer=tokenizer)) for label, step in rows]
        chosen = percentiles is not None
        text = loadtest.format_sweep(rows, args.format, percentiles=chosen)
    else:
        whole = throughput.report(result.records, slo=slo, percentiles=percentiles)
        whole = dataclasses.replace(whole, tokenizer=tokenizer)
        text = throughput.format_report(whole, args.format)
    if args.report and whole is None:
        whole = throughput.report(result.records, slo=slo, percentiles=percentiles)
        whole = dataclasses.replace(whole, tokenizer=tokenizer)
    terminated = result.signal == signal.SIGTERM
    if result.interrupted:
        how = "terminated" if terminated else "interrupted"
        warm = sum(1 for r in result.records if r.get("warmup"))
        measured = len(result.records) - warm
        extra = f", and {warm} warm-up request{'s' * (warm != 1)}" if warm else ""
        err.write(f"scorekit: {how}; {measured} requests recorded{extra}\n")
    out.write(text)
    write_report(
        args,
        whole,
        err,
        title=f"scorekit loadtest: {loadtest.printable(args.model)} at "
        f"{loadtest.redact_url(args.url)}",
        inputs=[args.out] if args.out else [],
        records=result.records,
        sweep=rows,
    )
    if result.interrupted:
        # the command has said all it will: a second Ctrl-C from here on, which Python
        # would take as a death by SIGINT once it shuts down, ends nothing more
        with contextlib.suppress(ValueError):
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        return 128 + signal.SIGTERM if terminated else 128 + signal.SIGINT
    if limit is not None:
        failed, measured, over = loadtest.failures_over(result.records, limit)
        if over:
            err.write(
                f"scorekit: {failed} of {measured} requests failed, "
                f"more than --max-failures {args.max_failures} allows\n"
            )
            return FAILURES_STATUS
    else:
        failed, measured, _ = loadtest.failures_over(result.records, (100, True))
        if measured and failed == measured:
            err.write(
                f"scorekit: all {measured} requests failed; the figures measure no answer "
                "(--max-failures 100% accepts a run without one)\n"
            )
            return FAILURES_STATUS
    return 0
