"""The table of a sweep: one row of serving figures per step (rate or concurrency)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from scorekit.errors import ConfigError, choices, message
from scorekit.throughput import ThroughputReport, format_report, report

__all__ = ["SWEEP_FORMATS", "format_sweep", "step_label", "sweep_reports"]

SWEEP_FORMATS: tuple[str, ...] = ("table", "json")
"""The formats :func:`format_sweep` writes."""

_LATENCY_COLUMNS = (
    ("TTFT p50", "ttft", "median"),
    ("TTFT p99", "ttft", "p99"),
    ("TPOT p50", "tpot", "median"),
    ("TPOT p99", "tpot", "p99"),
    ("ITL p99", "itl", "p99"),
    ("E2E p50", "e2e", "median"),
    ("E2E p99", "e2e", "p99"),
)


def step_label(step: Any) -> str:
    """``rate 2``, ``rate inf`` or ``concurrency 4``, from a :class:`Step` or its JSON form.

    Examples
    --------
    >>> step_label({"rate": "inf"}), step_label({"concurrency": 4}), step_label({"rate": 2.0})
    ('rate inf', 'concurrency 4', 'rate 2')
    """
    described = step.describe() if hasattr(step, "describe") else dict(step)
    ((key, value),) = described.items()
    return f"{key} {value:g}" if isinstance(value, float) else f"{key} {value}"


def _step_of(record: Any) -> Any:
    return record.get("step") if isinstance(record, Mapping) else None


def sweep_reports(
    records: Any,
    steps: Sequence[Any],
    slo: Mapping[str, float] | None = None,
    percentiles: Sequence[float] | None = None,
) -> list[tuple[str, ThroughputReport]]:
    """The report of each step's records (``"step": k``), labelled by its step.

    ``records`` is a list of request records or a table of them (from
    :func:`scorekit.throughput.read_records`); warm-up requests and the metadata
    record are left out, as in every report. ``percentiles`` are the latency
    percentiles of each report (:func:`scorekit.throughput.report`).

    Examples
    --------
    >>> records = [
    ...     {"step": 0, "prompt_tokens": 4, "output_tokens": 2, "start": 0.0, "end": 1.0,
    ...      "token_times": [0.5, 1.0]},
    ...     {"step": 1, "prompt_tokens": 4, "output_tokens": 2, "start": 2.0, "end": 2.5,
    ...      "token_times": [2.25, 2.5]},
    ... ]
    >>> [(label, r.request_throughput) for label, r in
    ...  sweep_reports(records, [{"rate": 1.0}, {"rate": 2.0}])]
    [('rate 1', 1.0), ('rate 2', 2.0)]
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    reports = []
    for index, step in enumerate(steps):
        if isinstance(records, pa.Table):
            if "step" not in records.column_names:
                raise ConfigError(
                    message("sweep", "the records have no 'step' column", None, "a sweep's records")
                )
            mask = pc.fill_null(pc.equal(records.column("step"), index), False)
            part: Any = records.filter(mask)
        else:
            part = [r for r in records if _step_of(r) == index]
        reports.append((step_label(step), report(part, slo=slo, percentiles=percentiles)))
    return reports


def _ms(value: float | None) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value * 1000:.1f}"


def _rate(value: float | None) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:.2f}"


def _latency_columns(
    rows: Sequence[tuple[str, ThroughputReport]], percentiles: bool
) -> list[tuple[str, str, str]]:
    """The latency columns of a sweep's table: the default ones, or each latency's percentiles."""
    if not percentiles:
        return list(_LATENCY_COLUMNS)
    names = list(dict.fromkeys(name for _, found in rows for name in found.ttft.percentiles))
    return [
        (f"{latency.upper()} {name}", latency, name)
        for latency in ("ttft", "tpot", "itl", "e2e")
        for name in names
    ]


def _latency(result: ThroughputReport, latency: str, statistic: str) -> float:
    summary = getattr(result, latency)
    found = summary.percentiles.get(statistic)
    return float(getattr(summary, statistic) if found is None else found)


def format_sweep(
    rows: Sequence[tuple[str, ThroughputReport]],
    fmt: str = "table",
    *,
    percentiles: bool = False,
) -> str:
    """One table of a sweep: a row per step, latencies in milliseconds; or JSON.

    The table's latency columns are the median and p99 of TTFT, TPOT and
    E2E and the p99 of ITL; with ``percentiles``, the percentiles the
    reports were made with (:func:`sweep_reports`) of TTFT, TPOT, ITL and
    E2E. JSON holds each step's whole report.

    Examples
    --------
    >>> records = [{"step": 0, "prompt_tokens": 4, "output_tokens": 3, "start": 0.0,
    ...             "first_token": 0.1, "end": 0.3, "token_times": [0.1, 0.2, 0.3]}]
    >>> print(format_sweep(sweep_reports(records, [{"concurrency": 1}])))
    step           requests  failed  req/s  out tok/s  goodput  TTFT p50  TTFT p99  TPOT p50  TPOT p99  ITL p99  E2E p50  E2E p99
    concurrency 1         1       0   3.33      10.00        -     100.0     100.0     100.0     100.0    100.0    300.0    300.0
    <BLANKLINE>
    >>> rows = sweep_reports(records, [{"concurrency": 1}], percentiles=[90])
    >>> print(format_sweep(rows, percentiles=True))
    step           requests  failed  req/s  out tok/s  goodput  TTFT p90  TPOT p90  ITL p90  E2E p90
    concurrency 1         1       0   3.33      10.00        -     100.0     100.0    100.0    300.0
    <BLANKLINE>
    """  # noqa: E501
    if fmt not in SWEEP_FORMATS:
        raise ConfigError(message("format_sweep", "unknown format", fmt, choices(SWEEP_FORMATS)))
    if fmt == "json":
        steps = []
        for label, result in rows:
            entry = {"step": label, **json.loads(format_report(result, "json"))}
            steps.append(entry)
        return json.dumps({"steps": steps}, indent=2) + "\n"
    header = ["step", "requests", "failed", "req/s", "out tok/s", "goodput"]
    columns = _latency_columns(rows, percentiles)
    header += [name for name, _, _ in columns]
    table = [header]
    for label, result in rows:
        line = [
            label,
            str(result.requests),
            str(result.failures),
            _rate(result.request_throughput),
            _rate(result.output_throughput),
            _rate(result.goodput),
        ]
        for _, latency, statistic in columns:
            line.append(_ms(_latency(result, latency, statistic)))
        table.append(line)
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = []
    for row in table:
        cells = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
    note = _token_note(rows)
    return "\n".join(lines) + "\n" + (f"{note}\n" if note else "") + "\n"


def _token_note(rows: Sequence[tuple[str, ThroughputReport]]) -> str | None:
    """``token counts: estimated for N of M requests; ...`` over every step, when the
    records say how their tokens were counted."""
    from scorekit.throughput import counted_by

    merged: dict[str, int] = {}
    tokenizer = None
    for _, result in rows:
        for key, count in (result.token_counts or {}).items():
            merged[key] = merged.get(key, 0) + count
        tokenizer = tokenizer or result.tokenizer
    if not merged:
        return None
    estimated = merged.get("estimate", 0)
    return (
        f"token counts: estimated for {estimated} of {sum(merged.values())} requests, "
        f"counted by {counted_by(merged, tokenizer)}"
    )
