"""``scorekit throughput`` at scale as one call: the merged states of the report's metrics.

The report is :func:`scorekit.throughput.report_from_states` of the states of
:func:`scorekit.throughput.report_metrics` (the request totals, failure reasons
included, and the kept values of ``ttft``, ``tpot``, ``itl`` and ``e2e``). Here
they are summarized chunk by chunk through the stream engine, or per partition
on Dask, and merged; chunks are merged in file order, so every figure,
percentiles and failure reasons included, equals the report of the whole file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from scorekit.api._ci import CI
from scorekit.api._engines import dask_run
from scorekit.core import Metric, State
from scorekit.engines.stream import read_chunks
from scorekit.errors import ConfigError, message, raw

__all__ = ["INTERVAL_METRICS", "throughput_intervals", "throughput_states"]


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
    """The merged states of ``metrics`` over a file of request records, and its rows.

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
    from scorekit.engines import DEFAULT_CHUNK_SIZE
    from scorekit.io import open_source
    from scorekit.throughput import COLUMNS, as_records

    present = open_source(records).columns()
    wanted = [c for c in COLUMNS if c in present]
    if engine == "dask":
        states, rows, _ = dask_run(
            records, metrics, {c: c for c in wanted}, scheduler=scheduler, workers=workers
        )
        return states, rows

    def fold(chunks: Iterable[Any]) -> tuple[dict[str, State], int]:
        parts: dict[str, list[State]] = {key: [] for key in metrics}
        rows = 0
        for table in chunks:
            checked = as_records("throughput", table)
            for key, metric in metrics.items():
                parts[key].append(metric.summarize(checked))
            rows += checked.n
        return {key: _merged(metric, parts[key]) for key, metric in metrics.items()}, rows

    return read_chunks(
        records, wanted, chunk_size or DEFAULT_CHUNK_SIZE, progress=progress, use=fold
    )


def _merged(metric: Metric[Any], parts: list[State]) -> State:
    """The states of consecutive chunks merged pairwise, earlier chunks on the left.

    Kept latency values are copied ``log2(chunks)`` times, not once per chunk.
    """
    while len(parts) > 1:
        pairs = [metric.merge(a, b) for a, b in zip(parts[::2], parts[1::2], strict=False)]
        parts = pairs + parts[len(pairs) * 2 :]
    return parts[0] if parts else metric.empty()


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
    from scorekit.engines import DEFAULT_CHUNK_SIZE
    from scorekit.io import label_array, open_source
    from scorekit.throughput import COLUMNS, as_records

    if engine == "dask" and not ci.key:
        raise ConfigError(
            message(
                "scorekit throughput --ci",
                "Dask partitions do not know the positions of their requests",
                raw("--engine dask without --key"),
                "--key COL (a column of request ids)",
            )
        )
    metrics = {name: parse_metric(name) for name in INTERVAL_METRICS}
    if slo:
        metrics["goodput"] = parse_metric("goodput", **dict(slo))
    boots = {name: ci.wrap(metric) for name, metric in metrics.items()}
    present = open_source(records).columns()
    wanted = [c for c in COLUMNS if c in present]
    if ci.key and ci.key not in wanted:
        wanted.append(ci.key)
    if engine == "dask":
        states, _, _ = dask_run(
            records,
            boots,
            {c: c for c in COLUMNS if c in present},
            scheduler=scheduler,
            workers=workers,
        )
        return ci.intervals(boots, states), dict(boots)

    def fold(chunks: Iterable[Any]) -> dict[str, State]:
        parts: dict[str, list[State]] = {key: [] for key in boots}
        rows = 0
        for table in chunks:
            checked = as_records("throughput", table.select([c for c in COLUMNS if c in wanted]))
            extra: dict[str, Any] = (
                {"unit_key": label_array(table, ci.key)} if ci.key else {"first_row": rows}
            )
            for key, boot in boots.items():
                parts[key].append(boot.summarize(checked, **extra))
            rows += table.num_rows
        return {key: _merged(boot, parts[key]) for key, boot in boots.items()}

    states = read_chunks(
        records, wanted, chunk_size or DEFAULT_CHUNK_SIZE, progress=progress, use=fold
    )
    return ci.intervals(boots, states), dict(boots)
