"""``scorekit rank`` at scale: a TREC run grouped by query, streamed in chunks."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from scorekit._core import State
from scorekit._scale._engines import sum_counts
from scorekit.errors import InputError, message

__all__ = ["rank_stream", "run_table"]


# rank: a run in chunks of whole queries ---------------------------------------------------------


def _judged_states(
    chosen: dict[str, Any], resolved: dict[str, Any], judgments: Any, table: Any, texts: list[str]
) -> dict[str, State]:
    from scorekit.ranking import Run
    from scorekit.ranking._ranked import judge

    run = Run(table.column("query"), table.column("doc"), table.column("score").to_numpy())
    judged = judge(judgments, run)
    out: dict[str, State] = {}
    for key, metric in resolved.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out[key] = metric.from_judged(judged)
        texts += [str(w.message) for w in caught]
    return out


def rank_stream(
    qrels: Any, run_path: str, chosen: dict[str, Any], *, size: int, show: bool | None
) -> tuple[dict[str, Any], int, list[str]]:
    """States of ranking metrics over a TREC run read in chunks of ``size`` rows.

    The run must list the rows of each query together (sorted by query, as
    search systems write runs); the rows of the last query of a chunk are
    carried into the next one. Runs whose fields are separated by single spaces
    or tabs are streamed; others are read whole by the TREC reader and then
    evaluated in chunks. The rows of a query are judged together, once for all
    metrics; the per-query states of the chunks are merged. Returns the states,
    the rows of the run and the warnings, with their counts summed over chunks.
    """
    from scorekit.engines import _progress, _readers, _sources
    from scorekit.engines._grouping import QueryGroups
    from scorekit.ranking import as_qrels

    judgments = as_qrels(qrels)
    resolved = {key: metric.for_qrels(judgments) for key, metric in chosen.items()}
    states: dict[str, State] = {}
    texts: list[str] = []
    path = Path(run_path)
    if not path.is_file():
        raise InputError(message(run_path, "no such file", None, "an existing run file"))
    groups = QueryGroups(QueryGroups.mapping)
    bar = _progress.Progress(total_bytes=path.stat().st_size, enabled=_progress.wanted(show))
    rows = 0

    def add(table: Any) -> None:
        for key, state in _judged_states(chosen, resolved, judgments, table, texts).items():
            states[key] = state if key not in states else chosen[key].merge(states[key], state)

    try:
        batches = _readers.batches(path, "trec", list(_QUERY_DOC_SCORE), size, None)
        for batch, position in batches:
            table = _sources._with_meta(_sources._table(batch), run_path, "trec", rows)
            rows += table.num_rows
            bar.update(rows=table.num_rows, bytes_read=position)
            ready = groups.push(table)
            if ready is not None:
                add(ready)
        last = groups.flush()
        if last is not None:
            add(last)
    finally:
        bar.close()
    for key, metric in chosen.items():
        states.setdefault(key, metric.empty())
    return states, rows, sum_counts(texts)


_QUERY_DOC_SCORE = ("query", "doc", "score")


def run_table(run_path: str) -> Any:
    """A TREC run as an in-memory table of ``query``, ``doc`` and ``score`` (for Dask)."""
    import pyarrow as pa

    from scorekit.ranking._trec import read_run_file

    cols = read_run_file(run_path)
    return pa.table({"query": cols.query, "doc": cols.doc, "score": cols.values})
