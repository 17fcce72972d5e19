"""``scorekit throughput`` at scale: the merged states of the serving report's metrics.

The report is :func:`scorekit.throughput.report_from_states` of the states of
:func:`scorekit.throughput.report_metrics` (the request totals, failure reasons
included, and the kept values of ``ttft``, ``tpot``, ``itl`` and ``e2e``). Here
they are summarized chunk by chunk through the stream engine, or per partition
on Dask, and merged; chunks are merged in file order, so every figure,
percentiles and failure reasons included, equals the report of the whole file.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import Any

from scorekit._scale._engines import dask_run, fold_file
from scorekit._scale._flags import chunk_size, progress
from scorekit.core import Metric, State

__all__ = ["throughput_states"]


def throughput_states(
    args: argparse.Namespace, metrics: dict[str, Metric[Any]]
) -> tuple[dict[str, State], int]:
    """The merged states of ``metrics`` over ``args.records``, in chunks or on Dask, and the rows.

    ``metrics`` are those of :func:`scorekit.throughput.report_metrics`. Each
    chunk is checked once and every metric summarizes it.
    """
    from scorekit.io import _sources
    from scorekit.throughput import COLUMNS

    present = _sources.open_source(args.records).columns()
    wanted = [c for c in COLUMNS if c in present]
    if args.engine == "dask":
        states, rows, _ = dask_run(args.records, metrics, {c: c for c in wanted}, args)
        return states, rows

    def fold(chunks: Iterable[Any]) -> tuple[dict[str, State], int]:
        from scorekit.throughput._records import as_records

        parts: dict[str, list[State]] = {key: [] for key in metrics}
        rows = 0
        for table in chunks:
            records = as_records("throughput", table)
            for key, metric in metrics.items():
                parts[key].append(metric.summarize(records))
            rows += records.n
        return {key: _merged(metric, parts[key]) for key, metric in metrics.items()}, rows

    return fold_file(args.records, wanted, chunk_size(args), progress(args), fold)


def _merged(metric: Metric[Any], parts: list[State]) -> State:
    """The states of consecutive chunks merged pairwise, earlier chunks on the left.

    Kept latency values are copied ``log2(chunks)`` times, not once per chunk.
    """
    while len(parts) > 1:
        pairs = [metric.merge(a, b) for a, b in zip(parts[::2], parts[1::2], strict=False)]
        parts = pairs + parts[len(pairs) * 2 :]
    return parts[0] if parts else metric.empty()
