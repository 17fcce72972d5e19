"""``scorekit throughput`` (the serving report of request records) and ``scorekit loadtest``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from scorekit.errors import InputError, message


def _cmd_throughput(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import warnings

    from scorekit import throughput

    slo = throughput.parse_slo(args.slo, name="--slo") if args.slo else None
    if _scale_requested(args, "throughput"):
        return _throughput_scaled(args, slo, out, err)
    records = throughput.read_records(args.records)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = throughput.report(records, slo=slo)
    for text in dict.fromkeys(str(w.message) for w in caught):
        err.write(f"scorekit: warning: {text}\n")
    out.write(throughput.format_report(result, args.format))
    return 0


def _scale_requested(args: argparse.Namespace, command: str) -> bool:
    from scorekit import _scale

    _scale.check_scale_flags(args, command)
    return _scale.scaled(args) or bool(args.save_state)


def _throughput_scaled(
    args: argparse.Namespace, slo: dict[str, float] | None, out: TextIO, err: TextIO
) -> int:
    """``scorekit throughput`` with scale flags: the report from merged metric states."""
    import warnings

    from scorekit import _scale, throughput
    from scorekit.api import save_states

    metrics = throughput.report_metrics(slo)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        states, rows = _scale.throughput_states(args, metrics)
        result = throughput.report_from_states(states, slo)
    for text in dict.fromkeys(str(w.message) for w in caught):
        err.write(f"scorekit: warning: {text}\n")
    if args.save_state:
        save_states(
            args.save_state,
            {key: (metric, states[key]) for key, metric in metrics.items()},
            command="throughput",
            input="requests",
            rows=rows,
        )
    out.write(throughput.format_report(result, args.format))
    return 0


def _cmd_loadtest(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import os
    import warnings

    from scorekit import throughput
    from scorekit.throughput import loadtest

    slo = throughput.parse_slo(args.slo, name="--slo") if args.slo else None
    if args.out and not Path(args.out).resolve().parent.is_dir():
        raise InputError(message(args.out, "no such directory", None, "a path to write to"))
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
    )
    if args.out:
        loadtest.write_records(result.records, args.out)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary = throughput.report(result.records, slo=slo)
    for text in dict.fromkeys(str(w.message) for w in caught):
        err.write(f"scorekit: warning: {text}\n")
    if result.interrupted:
        err.write(f"scorekit: interrupted; {len(result.records)} requests recorded\n")
    out.write(throughput.format_report(summary, args.format))
    return 130 if result.interrupted else 0
