"""``scorekit throughput``: the serving report of a file of request records."""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Any, TextIO

from scorekit.cli._flags import (
    add_ci_flags,
    add_scale_flags,
    by_flag,
    check_scale_flags,
    ci_settings,
    engine_options,
    format_flag,
    refuse_with_by,
    report_flag,
    scaled,
    slo_flag,
    write_report,
)
from scorekit.core import Grouped
from scorekit.errors import ConfigError, choices, message, raw

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
            "and end-to-end latency (mean, std, min, percentiles, max; milliseconds in the "
            "table, seconds in JSON) of one record per request: prompt_tokens, output_tokens, "
            "start, end, and optional first_token, token_times, success, error. The records of "
            "'scorekit loadtest' start with a metadata record, shown with the report (and kept "
            "in --save-state, so that 'scorekit merge' refuses runs of other settings); "
            "warm-up requests are left out; a sweep's records give its table, a row per step."
        ),
    )
    tp.add_argument("records", metavar="RECORDS", help="the records (.jsonl, .csv, .parquet)")
    slo_flag(
        tp,
        "objectives for goodput: ttft, tpot, itl or e2e with a unit (s, ms, us), "
        "e.g. --slo ttft=200ms tpot=50ms",
    )
    tp.add_argument(
        "--percentiles",
        metavar="P,P,...",
        help="the latency percentiles to report, numbers in [0, 100] separated by commas, "
        "as numpy.percentile computes them (default 50,90,99), e.g. --percentiles 50,90,95,99.9",
    )
    format_flag(tp, "table", "json", "csv")
    by_flag(
        tp,
        "also evaluate each group of records sharing the values of these fields (e.g. model): "
        "the rates, latencies and goodput overall and per group, the records of each group, and "
        "the difference and ratio of the group values (csv: this table)",
    )
    add_scale_flags(tp, unit="records")
    add_ci_flags(tp, unit="request")
    report_flag(tp)
    return tp


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """The report of the records, whole or from merged states, in the format asked for."""
    from scorekit import throughput

    slo = throughput.parse_slo(args.slo, name="--slo") if args.slo else None
    args.percentiles = parse_percentiles(args.percentiles)
    check_scale_flags(args, NAME)
    ci = ci_settings(args, NAME)
    run = throughput.read_metadata(args.records)
    steps = None if run is None else run.get("steps")
    if steps and (scaled(args) or args.save_state or ci is not None):
        raise ConfigError(
            message(
                args.records,
                "a sweep's records are reported per step, not from merged states",
                raw("--save-state, --ci or a scale flag"),
                "the records file alone",
            )
        )
    if args.by:
        return _by_group(args, slo, run, out, err)
    if args.format == "csv":
        raise ConfigError(
            message(TITLE, "--format csv writes the per-group table", raw("no --by"), "--by FIELD")
        )
    if ci is not None:
        return _intervals(args, ci, slo, run, out, err)
    if scaled(args) or args.save_state:
        return _from_states(args, slo, run, out, err)
    records = throughput.read_records(args.records)
    result = _named(throughput.report(records, slo=slo, percentiles=args.percentiles), run)
    rows = None
    if steps:
        from scorekit import loadtest

        rows = loadtest.sweep_reports(records, steps, slo, args.percentiles)
        rows = [(label, _named(step, run)) for label, step in rows]
        chosen = args.percentiles is not None
        text = loadtest.format_sweep(rows, args.format, percentiles=chosen)
    else:
        text = throughput.format_report(result, args.format)
    out.write(_with_run(text, run, args.format))
    write_report(args, result, err, title=TITLE, inputs=[args.records], records=records, sweep=rows)
    return 0


def _intervals(
    args: argparse.Namespace,
    ci: Any,
    slo: dict[str, float] | None,
    run: dict[str, Any] | None,
    out: TextIO,
    err: TextIO,
) -> int:
    """``--ci``: the intervals of the serving metrics (seconds for latencies), after the report."""
    from scorekit import api, throughput
    from scorekit.cli._output import plain, write_ci_values

    if args.save_state:
        raise ConfigError(
            message(
                "scorekit throughput --ci",
                "--save-state saves the report's states, not the bootstraps",
                raw("--save-state with --ci"),
                "--ci or --save-state",
            )
        )
    shown: dict[str, Any] = {}
    if scaled(args):
        states = api.evaluate_records(
            args.records, throughput.report_metrics(slo), compute=False, **engine_options(args)
        ).states
        result = throughput.report_from_states(states, slo, args.percentiles)
        shown["states"] = states
    else:
        records = throughput.read_records(args.records)
        result = _named(throughput.report(records, slo=slo, percentiles=args.percentiles), run)
        shown["records"] = records
    found = api.evaluate_records(args.records, ci=ci, slo=slo, **engine_options(args))
    intervals = found.values
    boots: dict[str, Any] = dict(found.metrics)
    write_report(
        args, result, err, title=TITLE, inputs=[args.records], intervals=intervals, **shown
    )
    text = throughput.format_report(result, args.format)
    if args.format == "json":
        data = json.loads(text)
        data["intervals"] = {key: plain(value) for key, value in intervals.items()}
        text = json.dumps(data, indent=2) + "\n"
        out.write(_with_run(text, run, args.format))
        err.write(f"scorekit: {ci.describe(m.unit for m in boots.values())}\n")
        return 0
    out.write(_with_run(text, run, args.format))
    out.write("\nintervals (latencies: means in seconds)\n")
    write_ci_values(intervals, "table", out, err, ci, boots)
    return 0


def _by_group(
    args: argparse.Namespace,
    slo: dict[str, float] | None,
    run: dict[str, Any] | None,
    out: TextIO,
    err: TextIO,
) -> int:
    """``--by``: the serving metrics overall and per group of records, as ``eval --by``."""
    from scorekit import api, loadtest
    from scorekit.cli._output import write_values

    refuse_with_by(args, TITLE, ci=args.ci, report=args.report)
    if run is not None and run.get("steps"):
        raise ConfigError(
            message(
                args.records,
                "a sweep's records are reported per step, not per group",
                raw("--by " + " ".join(args.by)),
                "the records of one load test without steps",
            )
        )
    result = api.evaluate_records(
        args.records,
        by=args.by,
        slo=slo,
        percentiles=args.percentiles,
        **engine_options(args),
    )
    if args.save_state:
        api.save_states(
            args.save_state,
            {key: (metric, result.states[key]) for key, metric in result.metrics.items()},
            command=NAME,
            input="requests",
            options=None if run is None else {"run": loadtest.run_settings(run)},
            rows=result.rows,
        )
    write_values(dict(result.values), args.format, out)
    return 0


def parse_percentiles(text: str | None) -> list[float] | None:
    """The numbers of ``--percentiles 50,90,95,99``, each checked to lie in [0, 100]."""
    if text is None:
        return None
    expected = "numbers in [0, 100] separated by commas, e.g. 50,90,95,99"
    out: list[float] = []
    for item in text.split(","):
        try:
            q = float(item.strip())
        except ValueError:
            raise ConfigError(
                message("--percentiles", "not a percentile", item.strip(), expected)
            ) from None
        if not 0.0 <= q <= 100.0:
            raise ConfigError(
                message("--percentiles", "percentile outside [0, 100]", item.strip(), expected)
            )
        out.append(q)
    return out


def _named(result: Any, run: dict[str, Any] | None) -> Any:
    """``result`` naming the tokenizer of the load test's metadata record, if it names one
    (its control characters escaped), as the report of the run itself does."""
    name = None if run is None else run.get("tokenizer")
    if not isinstance(name, str) or not name:
        return result
    from scorekit.loadtest import printable

    return dataclasses.replace(result, tokenizer=printable(name))


def _with_run(text: str, run: dict[str, Any] | None, fmt: str) -> str:
    """The report with the load test's metadata: a first line of the table, a key of JSON."""
    if run is None:
        return text
    if fmt == "json":
        data = json.loads(text)
        return json.dumps({"run": run, **data}, indent=2) + "\n"
    from scorekit.loadtest import describe_run

    return f"load test: {describe_run(run)}\n\n{text}"


def _from_states(
    args: argparse.Namespace,
    slo: dict[str, float] | None,
    run: dict[str, Any] | None,
    out: TextIO,
    err: TextIO,
) -> int:
    """The report from the metric states of :func:`scorekit.api.evaluate_records`."""
    from scorekit import api, loadtest, throughput

    metrics = throughput.report_metrics(slo)
    found = api.evaluate_records(args.records, metrics, compute=False, **engine_options(args))
    states, rows = found.states, found.rows
    result = throughput.report_from_states(states, slo, args.percentiles)
    if args.save_state:
        api.save_states(
            args.save_state,
            {key: (metric, states[key]) for key, metric in metrics.items()},
            command=NAME,
            input="requests",
            options=None if run is None else {"run": loadtest.run_settings(run)},
            rows=rows,
        )
    out.write(_with_run(throughput.format_report(result, args.format), run, args.format))
    write_report(args, result, err, title=TITLE, inputs=[args.records], states=states)
    return 0


def show_merged(
    args: argparse.Namespace, result: Any, header: dict[str, Any], out: TextIO, err: TextIO
) -> int | None:
    """``scorekit merge`` of throughput states: the report of the whole (per group: None)."""
    from scorekit import throughput
    from scorekit.api import save_states
    from scorekit.cli._merge import merged_files

    if any(isinstance(m, Grouped) for m in result.metrics.values()):
        return None

    if args.format not in throughput.FORMATS:
        raise ConfigError(
            message(
                "scorekit merge",
                "throughput states print as a report",
                args.format,
                choices(throughput.FORMATS),
            )
        )
    run = (header.get("options") or {}).get("run")
    if isinstance(run, dict):
        from scorekit.loadtest import describe_run

        err.write(f"scorekit: load test: {describe_run(run)}\n")
    report = throughput.report_from_states(result.states)
    if args.save_state:
        save_states(
            args.save_state,
            {key: (result.metrics[key], result.states[key]) for key in result.states},
            command="throughput",
            input=header.get("input"),
            options=header.get("options"),
            rows=result.rows,
            tallies=header.get("tallies"),
        )
    out.write(throughput.format_report(report, args.format))
    write_report(
        args,
        report,
        err,
        title="scorekit merge (throughput)",
        inputs=args.states,
        states=result.states,
    )
    err.write(f"scorekit: merged {merged_files(len(args.states))}, {result.rows:,} rows\n")
    return 0
