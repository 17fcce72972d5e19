"""``scorekit throughput``: the serving report of a file of request records."""

from __future__ import annotations

import argparse
import warnings
from typing import Any, TextIO

from scorekit.cli._flags import (
    add_scale_flags,
    check_scale_flags,
    engine_options,
    format_flag,
    report_flag,
    scaled,
    slo_flag,
    write_report,
    write_warnings,
)

NAME = "throughput"
TITLE = "scorekit throughput"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``throughput`` command's parser."""
    tp: argparse.ArgumentParser = sub.add_parser(
        NAME,
        help="LLM serving throughput, latency and goodput of request records",
        description=(
            "Report the throughputs (output, prompt and total tokens, requests per second of "
            "wall time), failed requests by reason, goodput under SLOs, and TTFT, TPOT, ITL "
            "and end-to-end latency (mean, median, p90, p99, max; milliseconds in the table, "
            "seconds in JSON) of one record per request: prompt_tokens, output_tokens, start, "
            "end, and optional first_token, token_times, success, error."
        ),
    )
    tp.add_argument("records", metavar="RECORDS", help="the records (.jsonl, .csv, .parquet)")
    slo_flag(
        tp,
        "objectives for goodput: ttft, tpot, itl or e2e with a unit (s, ms, us), "
        "e.g. --slo ttft=200ms tpot=50ms",
    )
    format_flag(tp, "table", "json")
    add_scale_flags(tp, unit="records")
    report_flag(tp)
    return tp


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """The report of the records, whole or from merged states, in the format asked for."""
    from scorekit import throughput

    slo = throughput.parse_slo(args.slo, name="--slo") if args.slo else None
    check_scale_flags(args, NAME)
    if scaled(args) or args.save_state:
        return _from_states(args, slo, out, err)
    records = throughput.read_records(args.records)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = throughput.report(records, slo=slo)
    write_warnings((str(w.message) for w in caught), err)
    out.write(throughput.format_report(result, args.format))
    write_report(args, result, err, title=TITLE, inputs=[args.records], records=records)
    return 0


def _from_states(
    args: argparse.Namespace, slo: dict[str, float] | None, out: TextIO, err: TextIO
) -> int:
    """The report from the metric states of :func:`scorekit.api.throughput_states`."""
    from scorekit import api, throughput

    metrics = throughput.report_metrics(slo)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        states, rows = api.throughput_states(args.records, metrics, **engine_options(args))
        result = throughput.report_from_states(states, slo)
    write_warnings((str(w.message) for w in caught), err)
    if args.save_state:
        api.save_states(
            args.save_state,
            {key: (metric, states[key]) for key, metric in metrics.items()},
            command=NAME,
            input="requests",
            rows=rows,
        )
    out.write(throughput.format_report(result, args.format))
    write_report(args, result, err, title=TITLE, inputs=[args.records], states=states)
    return 0
