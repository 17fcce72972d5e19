"""``scorekit throughput`` at scale as one call: the merged states of the report's metrics.

The report is :func:`scorekit.throughput.report_from_states` of the states of
:func:`scorekit.throughput.report_metrics` (the request totals, failure reasons
included, and the kept values of ``ttft``, ``tpot``, ``itl`` and ``e2e``). Here
they are summarized chunk by chunk through the stream engine, or per partition
on Dask, and merged; chunks are merged in file order, so every figure,
percentiles and failure reasons included, equals the report of the whole file.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from scorekit.api._engines import dask_run
from scorekit.core import Metric, State
from scorekit.engines.stream import read_chunks

__all__ = ["throughput_states"]


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
