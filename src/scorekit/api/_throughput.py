"""``scorekit throughput`` as one call: the serving metrics of a file of request records.

:func:`evaluate_records` folds metrics over the records by a registered engine
(whole, chunk by chunk by the stream engine, per partition on Dask), merged in
file order, so every figure, percentiles and failure reasons included, equals
that of the whole file: the report's metrics
(:func:`scorekit.throughput.report_metrics`, whose states make the report), the
metrics with intervals (``ci=``) or the metrics per group of records (``by=``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorekit.api._by import fold
from scorekit.api._ci import CI
from scorekit.core import EvaluationResult, Metric, parse_metric

__all__ = ["GROUP_LATENCIES", "GROUP_RATES", "INTERVAL_METRICS", "evaluate_records"]

INTERVAL_METRICS = (
    "request_throughput",
    "output_throughput",
    "total_token_throughput",
    "ttft",
    "tpot",
    "itl",
    "e2e_latency",
)
"""The single-number serving metrics :func:`evaluate_records` gives intervals of."""

GROUP_RATES = ("request_throughput", "output_throughput", "total_token_throughput")
"""The serving rates :func:`evaluate_records` gives per group."""

GROUP_LATENCIES = ("ttft", "tpot", "itl", "e2e_latency")
"""The latencies :func:`evaluate_records` gives per group: mean and percentiles."""


def evaluate_records(
    records: str,
    metrics: Mapping[str, Metric[Any]] | None = None,
    *,
    ci: CI | None = None,
    by: str | Sequence[str] | None = None,
    slo: Mapping[str, float] | None = None,
    percentiles: Sequence[float] | None = None,
    compute: bool = True,
    chunk_size: int | None = None,
    engine: str | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: bool | None = None,
) -> EvaluationResult:
    """Serving metrics of a file of request records, with intervals or per group.

    ``metrics`` (by key) are folded as given, e.g. those of
    :func:`scorekit.throughput.report_metrics` (``compute=False`` leaves the
    values to :func:`scorekit.throughput.report_from_states`). Without them:

    - with ``ci`` (a :class:`CI`), the metrics of :data:`INTERVAL_METRICS`
      (latencies as means, in seconds) and ``goodput`` under ``slo``, each an
      :class:`~scorekit.stats.Interval`. The unit is the request (a record;
      records set aside, such as a load test's metadata record, are units that
      add nothing), keyed by its row position or by the column ``ci.key``;
    - with ``by`` (the record field(s) whose values form the groups), the
      rates of :data:`GROUP_RATES`, the mean and the ``percentiles`` (default
      50, 90, 99, as ``numpy.percentile``) of each latency of
      :data:`GROUP_LATENCIES` the records can give (``ttft`` and ``tpot`` need
      ``first_token`` or ``token_times``, ``itl`` needs ``token_times``), and
      ``goodput`` under ``slo``, each a :class:`~scorekit.core.ByGroup`. Every
      record needs a group value; a group's rates run over its own wall time.

    The records are read whole, or ``chunk_size`` at a time by the stream
    engine, or on Dask (``engine="dask"``); the values are the same at every
    scale. ``rows`` are the requests evaluated where the report's totals are
    among the metrics (records set aside are read but are no requests), else
    the records read.

    Examples
    --------
    >>> import json, os, tempfile
    >>> from scorekit import throughput
    >>> path = os.path.join(tempfile.mkdtemp(), "records.jsonl")
    >>> with open(path, "w") as f:
    ...     for i in range(20):
    ...         record = {"prompt_tokens": 5, "output_tokens": 3, "start": i, "end": i + 1 + i % 2,
    ...                   "first_token": i + 0.5, "token_times": [i + 0.5, i + 0.75, i + 1],
    ...                   "model": "ab"[i % 2]}
    ...         _ = f.write(json.dumps(record) + "\\n")
    >>> evaluate_records(path, throughput.report_metrics(), compute=False, chunk_size=5).rows
    20
    >>> found = evaluate_records(path, ci=CI(n_resamples=100))["e2e_latency"]
    >>> round(found.value, 3), found.low <= found.value <= found.high
    (1.5, True)
    >>> found = evaluate_records(path, by="model")["e2e_latency"]
    >>> found.overall, found.by_group, found.sizes
    (1.5, {'a': 1.0, 'b': 2.0}, {'a': 10, 'b': 10})
    """
    from scorekit.io import open_source
    from scorekit.throughput import COLUMNS

    present = set(open_source(records).columns())
    chosen = (
        dict(metrics) if metrics is not None else _default_metrics(ci, by, present, percentiles)
    )
    if metrics is None and slo:
        chosen["goodput"] = parse_metric("goodput", **dict(slo))
    found = fold(
        records,
        chosen,
        ci=ci,
        by=by,
        compute=compute,
        columns={c: c for c in COLUMNS if c in present},
        chunk_size=chunk_size,
        engine=engine,
        scheduler=scheduler,
        workers=workers,
        progress=progress,
    )
    # the rows are the requests evaluated: records set aside (a load test's metadata
    # record, warm-up requests) are read but are no requests
    totals = found.states.get("requests")
    rows = int(getattr(totals, "requests", found.rows))
    return EvaluationResult(found.values, found.states, found.metrics, rows, settings=ci)


def _default_metrics(
    ci: CI | None, by: Any, present: set[str], percentiles: Sequence[float] | None
) -> dict[str, Metric[Any]]:
    """The metrics with intervals (``ci``), or those per group (``by``) the fields can give."""
    if ci is not None or by is None:
        return {name: parse_metric(name) for name in INTERVAL_METRICS}
    timed = bool({"first_token", "token_times"} & present)
    usable = {"ttft": timed, "tpot": timed, "itl": "token_times" in present, "e2e_latency": True}
    chosen = [*GROUP_RATES]
    for name in GROUP_LATENCIES:
        if usable[name]:
            chosen.append(name)
            chosen.extend(f"{name}:p{q:g}" for q in (percentiles or (50, 90, 99)))
    return {name: parse_metric(name) for name in chosen}
