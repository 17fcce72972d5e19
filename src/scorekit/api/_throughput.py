"""``scorekit throughput`` at scale as one call: the merged states of the report's metrics.

The report is :func:`scorekit.throughput.report_from_states` of the states of
:func:`scorekit.throughput.report_metrics` (the request totals, failure reasons
included, and the kept values of ``ttft``, ``tpot``, ``itl`` and ``e2e``). Here
they are summarized by a registered engine (chunk by chunk by the stream engine,
per partition on Dask) and merged in file order, so every figure, percentiles
and failure reasons included, equals the report of the whole file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from scorekit.api._by import run_metrics
from scorekit.api._ci import CI
from scorekit.core import EvaluationResult, Metric, State

__all__ = [
    "INTERVAL_METRICS",
    "throughput_by_group",
    "throughput_intervals",
    "throughput_states",
]


def throughput_states(
    records: str,
    metrics: dict[str, Metric[Any]],
    *,
    chunk_size: int | None = None,
    engine: str | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: bool | None = None,
) -> tuple[dict[str, State], int]:
    """The merged states of ``metrics`` over a file of request records, and its requests.

    ``metrics`` are those of :func:`scorekit.throughput.report_metrics`. The file
    is read ``chunk_size`` records at a time (each chunk checked once and
    summarized by every metric), or its partitions summarized on a Dask cluster
    with ``engine="dask"``.

    Examples
    --------
    >>> import os, tempfile
    >>> from scorekit import throughput
    >>> path = os.path.join(tempfile.mkdtemp(), "records.jsonl")
    >>> with open(path, "w") as f:
    ...     _ = f.write('{"prompt_tokens": 5, "output_tokens": 10, "start": 0, "end": 2}\\n')
    >>> states, rows = throughput_states(path, throughput.report_metrics(), chunk_size=10)
    >>> rows
    1
    """
    found = _fold_records(
        records,
        metrics,
        chunk_size=chunk_size,
        engine=engine,
        scheduler=scheduler,
        workers=workers,
        progress=progress,
    )
    states = dict(found.states)
    # the rows are the requests evaluated: records set aside (a load test's metadata
    # record, warm-up requests) are read but are no requests
    totals = states.get("requests")
    return states, int(getattr(totals, "requests", found.rows))


INTERVAL_METRICS = (
    "request_throughput",
    "output_throughput",
    "total_token_throughput",
    "ttft",
    "tpot",
    "itl",
    "e2e_latency",
)
"""The single-number serving metrics :func:`throughput_intervals` gives intervals of."""


def throughput_intervals(
    records: str,
    ci: CI,
    *,
    slo: Mapping[str, float] | None = None,
    chunk_size: int | None = None,
    engine: str | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: bool | None = None,
) -> tuple[dict[str, Any], dict[str, Metric[Any]]]:
    """Bootstrap intervals of the serving metrics of a file of request records.

    The unit is the request (a record; records set aside, such as a load
    test's metadata record, are units that add nothing). The metrics are
    :data:`INTERVAL_METRICS` (latencies as means, in seconds), and ``goodput``
    with the objectives ``slo``. Returns the intervals and the bootstraps, by
    metric name. The file is read whole, in chunks of ``chunk_size`` records,
    the requests keyed by their row position or by the column ``ci.key``.

    Examples
    --------
    >>> import json, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "records.jsonl")
    >>> with open(path, "w") as f:
    ...     for i in range(20):
    ...         record = {"prompt_tokens": 5, "output_tokens": 3, "start": i, "end": i + 2,
    ...                   "first_token": i + 0.5, "token_times": [i + 0.5, i + 1, i + 2]}
    ...         _ = f.write(json.dumps(record) + "\\n")
    >>> intervals, _ = throughput_intervals(path, CI(n_resamples=100))
    >>> round(intervals["e2e_latency"].value, 3), intervals["e2e_latency"].low
    (2.0, 2.0)
    """
    from scorekit.core import parse_metric

    metrics = {name: parse_metric(name) for name in INTERVAL_METRICS}
    if slo:
        metrics["goodput"] = parse_metric("goodput", **dict(slo))
    boots: dict[str, Metric[Any]] = {name: ci.wrap(metric) for name, metric in metrics.items()}
    found = _fold_records(
        records,
        boots,
        chunk_size=chunk_size,
        engine=engine,
        scheduler=scheduler,
        workers=workers,
        progress=progress,
    )
    return ci.intervals(cast(Any, boots), found.states), dict(boots)


def _fold_records(records: str, metrics: dict[str, Metric[Any]], **scale: Any) -> Any:
    """The merged states of ``metrics`` over a file of request records (the record fields
    it has, each read as the role of its name), by the engine ``scale`` names."""
    from scorekit.io import open_source
    from scorekit.throughput import COLUMNS

    present = open_source(records).columns()
    columns = {c: c for c in COLUMNS if c in present}
    return run_metrics(records, metrics, columns=columns, compute=False, **scale)


GROUP_RATES = ("request_throughput", "output_throughput", "total_token_throughput")
"""The serving rates :func:`throughput_by_group` gives per group."""

GROUP_LATENCIES = ("ttft", "tpot", "itl", "e2e_latency")
"""The latencies :func:`throughput_by_group` gives per group: mean and percentiles."""


def throughput_by_group(
    records: str,
    by: str | Sequence[str],
    *,
    slo: Mapping[str, float] | None = None,
    percentiles: Sequence[float] | None = None,
    chunk_size: int | None = None,
    engine: str | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: bool | None = None,
) -> EvaluationResult:
    """The serving metrics of a file of request records, overall and per group of records.

    ``by`` names the record field(s) whose values form the groups (``model``,
    ``["model", "region"]``). The metrics are the rates of
    :data:`GROUP_RATES`, the mean and the ``percentiles`` (default 50, 90, 99,
    as ``numpy.percentile``) of each latency of :data:`GROUP_LATENCIES` the
    records can give (``ttft`` and ``tpot`` need ``first_token`` or
    ``token_times``, ``itl`` needs ``token_times``), and ``goodput`` under
    ``slo``; latencies are in seconds. Each value is a
    :class:`~scorekit.core.ByGroup`. Every record needs a group value, a
    record set aside (a load test's metadata record, a warm-up request)
    included: it counts in its group's rows and in no figure. A group's rates
    run over its own wall time (its first start to its last end).

    The records are read in chunks by the stream engine (``chunk_size``) or on
    Dask (``engine="dask"``); the values are the same at every scale.

    Examples
    --------
    >>> import json, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "records.jsonl")
    >>> with open(path, "w") as f:
    ...     for i in range(4):
    ...         record = {"prompt_tokens": 5, "output_tokens": 4, "start": i, "end": i + 1 + i % 2,
    ...                   "model": "ab"[i % 2]}
    ...         _ = f.write(json.dumps(record) + "\\n")
    >>> found = throughput_by_group(path, "model").values["e2e_latency"]
    >>> found.overall, found.by_group, found.sizes
    (1.5, {'a': 1.0, 'b': 2.0}, {'a': 2, 'b': 2})
    """
    from scorekit.core import Grouped, parse_metric
    from scorekit.io import open_source

    present = set(open_source(records).columns())
    timed = bool({"first_token", "token_times"} & present)
    usable = {"ttft": timed, "tpot": timed, "itl": "token_times" in present, "e2e_latency": True}
    chosen = [*GROUP_RATES]
    for name in GROUP_LATENCIES:
        if usable[name]:
            chosen.append(name)
            chosen.extend(f"{name}:p{q:g}" for q in (percentiles or (50, 90, 99)))
    metrics: dict[str, Metric[Any]] = {name: parse_metric(name) for name in chosen}
    if slo:
        metrics["goodput"] = parse_metric("goodput", **dict(slo))
    names = (by,) if isinstance(by, str) else tuple(by)
    grouped: dict[str, Metric[Any]] = {
        key: Grouped(metric, by=names) for key, metric in metrics.items()
    }
    return run_metrics(
        records,
        grouped,
        chunk_size=chunk_size,
        engine=engine,
        scheduler=scheduler,
        workers=workers,
        progress=progress,
    )
