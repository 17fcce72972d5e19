"""Sections of several runs: systems compared with a baseline, the steps of a load-test sweep."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any

from scorekit import plot
from scorekit.report._page import Section, Table, figure
from scorekit.report._text import fmt

__all__ = ["comparison_section", "sweep_of_records", "sweep_section"]

_SWEEP_STATISTICS = (("TTFT", "ttft"), ("E2E", "e2e"))
_SWEEP_LATENCIES = ("ttft", "tpot", "itl", "e2e")


def _number(value: Any) -> str:
    return "" if value is None or not math.isfinite(float(value)) else fmt(value)


def _values(rows: list[Any], ax: Any) -> Any:
    systems: dict[str, dict[str, Any]] = {}
    for row in rows:
        systems.setdefault(str(row.baseline), {})[str(row.metric)] = row.baseline_value
    for row in rows:
        systems.setdefault(str(row.system), {})[str(row.metric)] = row.value
    return plot.compare(systems, ax=ax)


def _differences(rows: list[Any], ax: Any) -> Any:
    return plot.compare(rows, ax=ax)


def comparison_section(c: Any) -> list[Section]:
    """The systems' values side by side, their differences with intervals, the table of tests."""
    rows = list(c.comparisons)
    if not rows:
        return []
    section = Section("Systems compared")
    figure(section, "Values of the systems", functools.partial(_values, rows))
    figure(section, "Differences from the baseline", functools.partial(_differences, rows))
    table = []
    for row in rows:
        has = all(v is not None and math.isfinite(float(v)) for v in (row.low, row.high))
        interval = f"[{fmt(row.low)}, {fmt(row.high)}]" if has else ""
        table.append(
            [
                str(row.metric),
                str(row.system),
                str(row.baseline),
                fmt(row.value),
                fmt(row.baseline_value),
                fmt(row.difference),
                interval,
                _number(row.pvalue),
                _number(row.adjusted),
                str(row.test),
            ]
        )
    confidence = next((r.confidence for r in rows if getattr(r, "confidence", None)), None)
    headers = ["metric", "system", "baseline", "value", "baseline value", "difference"]
    headers.append("interval" if confidence is None else f"{float(confidence):.0%} interval")
    headers += ["p-value", "adjusted p", "test"]
    section.tables.append(Table("Tests", headers, table))
    return [section]


def step_records(records: Any) -> list[tuple[str, Any]] | None:
    """``(step k, its records)`` per step of records with a ``step`` field of several steps.

    ``records`` is a table of records (a ``step`` column) or a list of record
    mappings (a load test's, ``"step": k``); records without a step (a load
    test's metadata record) belong to no step.
    """
    if isinstance(records, list | tuple):
        found: dict[int, list[Any]] = {}
        for record in records:
            step = record.get("step") if isinstance(record, Mapping) else None
            if isinstance(step, int) and not isinstance(step, bool):
                found.setdefault(step, []).append(record)
        if len(found) < 2:
            return None
        return [(f"step {step}", found[step]) for step in sorted(found)]
    names = getattr(records, "column_names", None)
    if names is None or "step" not in names:
        return None
    import pyarrow.compute as pc

    steps = [int(v) for v in pc.unique(records.column("step").drop_null()).to_pylist()]
    if len(steps) < 2:
        return None
    column = records.column("step")
    return [
        (f"step {step}", records.filter(pc.fill_null(pc.equal(column, step), False)))
        for step in sorted(steps)
    ]


def sweep_of_records(records: Any, slo: Any = None) -> list[tuple[str, Any]] | None:
    """``(step k, report)`` per step of records with a ``step`` column of several steps."""
    from scorekit.throughput import report

    parts = step_records(records)
    if parts is None:
        return None
    return [(label, report(part, slo=slo or None)) for label, part in parts]


def _ms(value: Any) -> str:
    return "" if value is None or not math.isfinite(float(value)) else f"{float(value) * 1000:.1f}"


def _sweep(pairs: list[tuple[str, Any]], latency: str, ax: Any) -> Any:
    return plot.sweep(pairs, latency=latency, ax=ax)


def steps_table(pairs: list[tuple[str, Any]]) -> Table:
    """One row per step of a sweep: its requests, rates and latency percentiles.

    The latencies show the percentiles the steps' reports were made with
    (``percentiles`` of :func:`scorekit.throughput.report`); the last column is
    the step's wall time.
    """
    names = list(dict.fromkeys(k for _, found in pairs for k in found.ttft.percentiles))
    rows = []
    for label, found in pairs:
        rows.append(
            [
                str(label),
                fmt(found.requests),
                fmt(found.failures),
                fmt(found.request_throughput),
                fmt(found.output_throughput),
                "" if found.goodput is None else fmt(found.goodput),
                *(
                    _ms(getattr(found, latency).percentiles.get(name))
                    for latency in _SWEEP_LATENCIES
                    for name in names
                ),
                f"{fmt(found.wall_time)} s",
            ]
        )
    headers = ["step", "requests", "failed", "req/s", "out tok/s", "goodput"]
    headers += [f"{latency.upper()} {name} ms" for latency in _SWEEP_LATENCIES for name in names]
    return Table("Steps", [*headers, "wall time"], rows)


def sweep_section(pairs: list[tuple[str, Any]]) -> list[Section]:
    """Throughput against TTFT and end-to-end latency over the steps, a point per step."""
    if not pairs:
        return []
    section = Section("Serving: sweep")
    for name, latency in _SWEEP_STATISTICS:
        figure(
            section,
            f"Output tokens per second against {name} (median and p99)",
            functools.partial(_sweep, pairs, latency),
        )
    return [section]
