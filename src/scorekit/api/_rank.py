"""``scorekit rank`` as one call: a TREC run against its qrels, whole, in chunks or on Dask."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scorekit.api._ci import CI
from scorekit.api._engines import dask_run
from scorekit.engines import DEFAULT_CHUNK_SIZE
from scorekit.errors import InputError, message

__all__ = ["RunEvaluation", "evaluate_run"]

_QUERY_DOC_SCORE = ("query", "doc", "score")


@dataclasses.dataclass
class RunEvaluation:
    """What :func:`evaluate_run` found.

    ``result`` is the :class:`scorekit.ranking.RankingResult` (means, states and,
    when asked, per-query values); ``metrics`` the configured metrics by name;
    ``rows`` the rows of the run read (0 when the run was evaluated whole
    without counting them); ``warnings`` the texts of the warnings raised;
    ``intervals`` (with ``ci``) the interval of every mean, by name, and
    ``bootstraps`` the bootstrap of every metric, whose states are made from the
    metric's (its per-query values are the units).
    """

    result: Any
    metrics: dict[str, Any]
    rows: int
    warnings: list[str]
    intervals: dict[str, Any] = dataclasses.field(default_factory=dict)
    bootstraps: dict[str, Any] = dataclasses.field(default_factory=dict)


def evaluate_run(
    qrels: Any,
    run: Any,
    metrics: Sequence[str],
    *,
    per_query: bool = False,
    count_rows: bool = False,
    chunk_size: int | None = None,
    engine: str | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: bool | None = None,
    ci: CI | None = None,
    **options: Any,
) -> RunEvaluation:
    """Evaluate a TREC run file against qrels with ranking metrics.

    Without ``chunk_size`` or ``engine`` the run is evaluated whole by
    :func:`scorekit.ranking.evaluate` (``count_rows`` reads it first to count
    its rows, for a state file). ``engine="stream"`` or a ``chunk_size`` reads
    the run in chunks of whole queries (the run must list each query's rows
    together); ``engine="dask"`` reads the run here and summarizes its
    partitions, grouped by query, on a Dask cluster. ``options`` are the
    metrics' options (``missing``, ``gain``, ``relevance_level``).

    With ``ci`` (a :class:`CI` without a key: a query is a unit, keyed by its
    id) every mean also gets a bootstrap interval over the queries, made from
    the per-query values the states keep, so it is the same in memory, in
    chunks and on Dask.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> qrels, run = os.path.join(folder, "qrels"), os.path.join(folder, "run")
    >>> with open(qrels, "w") as f:
    ...     _ = f.write("q1 0 d1 1\\nq1 0 d2 0\\n")
    >>> with open(run, "w") as f:
    ...     _ = f.write("q1 Q0 d2 1 2.0 x\\nq1 Q0 d1 2 1.0 x\\n")
    >>> evaluate_run(qrels, run, ["mrr"]).result["mrr"]
    0.5
    >>> evaluate_run(qrels, run, ["mrr"], ci=CI(n_resamples=100)).intervals["mrr"].high
    0.5
    """
    from scorekit import ranking

    rows = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if chunk_size is None and engine is None:
            if count_rows:
                run = ranking.read_run(run)
                rows = len(run)
            result = ranking.evaluate(qrels, run, metrics, per_query=per_query, **options)
            chosen = ranking.ranking_metrics(metrics, options) if count_rows else {}
            texts: list[str] = []
        else:
            chosen = ranking.ranking_metrics(metrics, options)
            if engine == "dask":
                judgments = ranking.as_qrels(qrels)
                states, rows, texts = dask_run(
                    _run_table(run),
                    chosen,
                    None,
                    qrels=judgments,
                    scheduler=scheduler,
                    workers=workers,
                )
            else:
                states, rows, texts = _rank_stream(
                    qrels, run, chosen, size=chunk_size or DEFAULT_CHUNK_SIZE, show=progress
                )
            means = {key: metric.compute(states[key]) for key, metric in chosen.items()}
            per = ranking.per_query_values(states) if per_query else None
            result = ranking.RankingResult(means, states, per)
    intervals: dict[str, Any] = {}
    bootstraps: dict[str, Any] = {}
    if ci is not None:
        with warnings.catch_warnings(record=True) as noted:
            warnings.simplefilter("always")
            chosen = chosen or ranking.ranking_metrics(metrics, options)
            bootstraps = {key: ci.wrap(metric) for key, metric in chosen.items()}
            intervals = {
                key: ci.interval(boot, boot.wrap(result.states[key]))
                for key, boot in bootstraps.items()
            }
        caught += noted
    shown = list(dict.fromkeys([*texts, *(str(w.message) for w in caught)]))
    return RunEvaluation(result, chosen, rows, shown, intervals, bootstraps)


def _rank_stream(
    qrels: Any, run_path: str, chosen: dict[str, Any], *, size: int, show: bool | None
) -> tuple[dict[str, Any], int, list[str]]:
    """States of ranking metrics over a TREC run read by the stream engine in chunks of ``size``.

    The run must list the rows of each query together (sorted by query, as
    search systems write runs): the engine brings the rows of a query together
    across chunks and judges them once for all metrics, whatever the run file's
    name ends in.
    """
    from scorekit import engines, io
    from scorekit.ranking import as_qrels

    judgments = as_qrels(qrels)
    path = Path(run_path)
    if not path.is_file():
        raise InputError(message(run_path, "no such file", None, "an existing run file"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        states, rows = engines.engine("stream")(
            io.FileSource([path], run_path, fmt="trec"),
            list(chosen.values()),
            columns={role: role for role in _QUERY_DOC_SCORE},
            side={"qrels": judgments},
            chunk_size=size,
            progress=show,
        )
    texts = list(dict.fromkeys(str(w.message) for w in caught))
    return dict(zip(chosen, states, strict=True)), rows, texts


def _run_table(run_path: str) -> Any:
    """A TREC run as an in-memory table of ``query``, ``doc`` and ``score`` (for Dask)."""
    import pyarrow as pa

    from scorekit.ranking import read_run_file

    cols = read_run_file(run_path)
    return pa.table({"query": cols.query, "doc": cols.doc, "score": cols.values})
