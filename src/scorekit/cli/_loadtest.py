"""``scorekit loadtest``: load-test an OpenAI-compatible server and report its serving figures."""

from __future__ import annotations

import argparse
import os
import signal
import warnings
from typing import Any, TextIO

from scorekit.cli._flags import format_flag, number_above, positive_int, slo_flag, write_warnings

NAME = "loadtest"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``loadtest`` command's parser."""
    lt: argparse.ArgumentParser = sub.add_parser(
        NAME,
        help="load-test an OpenAI-compatible LLM server and report its throughput and latency",
        description=(
            "Send streamed chat or completion requests to an OpenAI-compatible server (vLLM, "
            "TGI, llama.cpp, Ollama, ...), time every streamed chunk, and print the report of "
            "'scorekit throughput'. --concurrency N keeps N requests in flight (closed loop, "
            "the default with N = 1); --rate R starts requests at Poisson arrival times, R a "
            "second (open loop). The run stops after --num-requests or --duration, whichever "
            "comes first (default: one request per prompt); requests in flight then run to "
            "their end. Failed requests (timeout, HTTP error, broken stream) are counted with "
            "their reason. --out writes each request's record as it ends (a kill loses only the "
            "requests in flight) and, at the end, sorts a regular file by request id. Ctrl-C "
            "(SIGINT) or SIGTERM cancels the requests in flight, writes and reports what was "
            "collected, and exits with status 130 (SIGINT) or 143 (SIGTERM). Needs httpx: "
            "pip install 'scorekit[serve]'."
        ),
    )
    lt.add_argument("--url", required=True, help="the API base, e.g. http://127.0.0.1:8000/v1")
    lt.add_argument("--model", required=True, metavar="NAME", help="the model to ask for")
    lt.add_argument(
        "--prompts",
        required=True,
        metavar="FILE.jsonl",
        help='one {"prompt": ...} or {"messages": [...]} a line, optionally "max_tokens"',
    )
    loop = lt.add_mutually_exclusive_group()
    loop.add_argument(
        "--concurrency", type=positive_int, metavar="N", help="closed loop: N requests in flight"
    )
    loop.add_argument(
        "--rate",
        type=number_above(0),
        metavar="R",
        help="open loop: Poisson arrivals, R per second",
    )
    lt.add_argument(
        "--max-tokens",
        type=positive_int,
        default=128,
        metavar="N",
        help="tokens to generate when the prompt line sets none (default 128)",
    )
    lt.add_argument(
        "--duration", type=number_above(0), metavar="S", help="start no request after S seconds"
    )
    lt.add_argument(
        "--num-requests", type=positive_int, metavar="N", help="start N requests in all"
    )
    lt.add_argument("--endpoint", choices=("chat", "completions"), default="chat")
    lt.add_argument(
        "--timeout",
        type=number_above(0),
        default=300.0,
        metavar="S",
        help="longest request, and longest wait for a byte of its stream (default 300)",
    )
    lt.add_argument("--seed", type=int, default=0, help="seed of the Poisson arrivals (default 0)")
    lt.add_argument(
        "--out",
        metavar="FILE",
        help="write one record per request (JSON Lines), each as its request ends",
    )
    lt.add_argument(
        "--max-event-size",
        default="16M",
        metavar="SIZE",
        help="longest event of a stream, e.g. 64M; a longer one fails its request "
        "with 'event too large' (default 16M)",
    )
    lt.add_argument(
        "--max-file-size",
        metavar="SIZE",
        help="largest prompts file, read or decompressed (default 1G, or $SCOREKIT_MAX_FILE_SIZE)",
    )
    slo_flag(lt, "objectives for goodput, e.g. --slo ttft=200ms tpot=50ms")
    format_flag(lt, "table", "json")
    lt.add_argument("--api-key", metavar="KEY", help="bearer token (default: $OPENAI_API_KEY)")
    lt.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    return lt


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run :func:`scorekit.loadtest.run_loadtest` and print the report of its records."""
    from scorekit import loadtest, throughput
    from scorekit.io import parse_size

    slo = throughput.parse_slo(args.slo, name="--slo") if args.slo else None
    max_event_size = parse_size(args.max_event_size, "--max-event-size")
    max_file_size = parse_size(args.max_file_size) if args.max_file_size else None
    result = loadtest.run_loadtest(
        args.url,
        args.model,
        args.prompts,
        endpoint=args.endpoint,
        concurrency=args.concurrency,
        rate=args.rate,
        max_tokens=args.max_tokens,
        duration=args.duration,
        num_requests=args.num_requests,
        timeout=args.timeout,
        seed=args.seed,
        progress=False if args.quiet else None,
        api_key=args.api_key or os.environ.get("OPENAI_API_KEY") or None,
        out=args.out or None,
        max_event_size=max_event_size,
        max_file_size=max_file_size,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary = throughput.report(result.records, slo=slo)
    write_warnings((str(w.message) for w in caught), err)
    terminated = result.signal == signal.SIGTERM
    if result.interrupted:
        how = "terminated" if terminated else "interrupted"
        err.write(f"scorekit: {how}; {len(result.records)} requests recorded\n")
    out.write(throughput.format_report(summary, args.format))
    if not result.interrupted:
        return 0
    return 128 + signal.SIGTERM if terminated else 128 + signal.SIGINT
