"""``scorekit rank`` at scale: a TREC run grouped by query, streamed in chunks."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scorekit.errors import InputError, message

__all__ = ["rank_stream", "run_table"]


# rank: a run in chunks of whole queries ---------------------------------------------------------


def _run_chunks(path: Path, name: str, size: int, bar: Any) -> Iterator[Any]:
    """The rows of a TREC run, ``size`` at a time, whatever the file's name ends in."""
    from scorekit import io

    rows = 0
    for batch, position in io.batches(path, "trec", list(_QUERY_DOC_SCORE), size, None):
        table = io.with_meta(io.batch_table(batch), name, "trec", rows)
        rows += table.num_rows
        bar.update(rows=table.num_rows, bytes_read=position)
        yield table


def rank_stream(
    qrels: Any, run_path: str, chosen: dict[str, Any], *, size: int, show: bool | None
) -> tuple[dict[str, Any], int, list[str]]:
    """States of ranking metrics over a TREC run read in chunks of ``size`` rows.

    The run must list the rows of each query together (sorted by query, as
    search systems write runs). The chunks are folded by the stream engine
    (:func:`scorekit.engines.stream.fold`): the rows of a query are brought
    together across chunks and judged once for all metrics, and the per-query
    states are merged. Runs whose fields are separated by single spaces or tabs
    are streamed; others are read whole by the TREC reader and then evaluated in
    chunks. Returns the states, the rows of the run and the warnings, with their
    counts summed over chunks.
    """
    from scorekit import io
    from scorekit.engines.stream import fold
    from scorekit.ranking import as_qrels

    judgments = as_qrels(qrels)
    path = Path(run_path)
    if not path.is_file():
        raise InputError(message(run_path, "no such file", None, "an existing run file"))
    bar = io.Progress(total_bytes=path.stat().st_size, enabled=io.progress_wanted(show))
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            states, rows = fold(
                list(chosen.values()),
                _run_chunks(path, run_path, size, bar),
                {role: (role,) for role in _QUERY_DOC_SCORE},
                {"qrels": judgments},
            )
    finally:
        bar.close()
    texts = list(dict.fromkeys(str(w.message) for w in caught))
    return dict(zip(chosen, states, strict=True)), rows, texts


_QUERY_DOC_SCORE = ("query", "doc", "score")


def run_table(run_path: str) -> Any:
    """A TREC run as an in-memory table of ``query``, ``doc`` and ``score`` (for Dask)."""
    import pyarrow as pa

    from scorekit.ranking._trec import read_run_file

    cols = read_run_file(run_path)
    return pa.table({"query": cols.query, "doc": cols.doc, "score": cols.values})
