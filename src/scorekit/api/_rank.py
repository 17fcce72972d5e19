"""``scorekit rank`` as one call: a TREC run against its qrels, whole, in chunks or on Dask."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scorekit.api._ci import CI
from scorekit.core import EvaluationResult
from scorekit.errors import ConfigError, InputError, message, raw

__all__ = ["evaluate_run", "query_groups"]

_QUERY_DOC_SCORE = ("query", "doc", "score")


def evaluate_run(
    qrels: Any,
    run: Any,
    metrics: Sequence[str],
    *,
    per_query: bool = False,
    chunk_size: int | None = None,
    engine: str | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: bool | None = None,
    ci: CI | None = None,
    by: Sequence[str] | None = None,
    attributes: str | None = None,
    **options: Any,
) -> EvaluationResult:
    """Evaluate a TREC run file against qrels with ranking metrics, overall or per group.

    Without ``chunk_size`` or ``engine`` the run is evaluated whole by
    :func:`scorekit.ranking.evaluate`; ``rows`` are the run's rows (0 for a
    run given as a dict). ``engine="stream"`` or a ``chunk_size`` reads
    the run in chunks of whole queries (the run must list each query's rows
    together); ``engine="dask"`` reads the run here and summarizes its
    partitions, grouped by query, on a Dask cluster. ``options`` are the
    metrics' options (``missing``, ``gain``, ``relevance_level``).

    With ``ci`` (a :class:`CI` without a key: a query is a unit, keyed by its
    id) every mean also gets a bootstrap interval over the queries, made from
    the per-query values the states keep, so it is the same in memory, in
    chunks and on Dask.

    With ``by``, a query's group is its values of the columns ``by`` in the
    file of query ``attributes`` (see :func:`query_groups`; every query of the
    run needs a row there), and each value is a
    :class:`~scorekit.core.ByGroup`: the mean over all the queries and over the
    queries of each group, with the run rows of each group (intervals per
    group with ``ci``); the same at every scale. ``missing="zero"`` is then
    refused: a qrels query absent from the run has no rows to say its group.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> qrels, run = os.path.join(folder, "qrels"), os.path.join(folder, "run")
    >>> with open(qrels, "w") as f:
    ...     _ = f.write("q1 0 d1 1\\nq1 0 d2 0\\nq2 0 d3 1\\n")
    >>> with open(run, "w") as f:
    ...     _ = f.write("q1 Q0 d2 1 2.0 x\\nq1 Q0 d1 2 1.0 x\\nq2 Q0 d3 1 1.0 x\\n")
    >>> evaluate_run(qrels, run, ["mrr"])["mrr"]
    0.75
    >>> evaluate_run(qrels, run, ["mrr"], ci=CI(n_resamples=100))["mrr"].high
    1.0
    """
    from scorekit import ranking

    scale: dict[str, Any] = {"chunk_size": chunk_size, "engine": engine}
    scale.update(scheduler=scheduler, workers=workers, progress=progress)
    if by:
        return _by_group(qrels, run, metrics, by, attributes, ci=ci, **scale, **options)
    rows = 0
    if chunk_size is None and engine is None:
        if isinstance(run, str | os.PathLike):
            run = ranking.read_run(run)
        rows = len(run) if isinstance(run, ranking.Run) else 0
        result = ranking.evaluate(qrels, run, metrics, per_query=per_query, **options)
        chosen = ranking.ranking_metrics(metrics, options)
    else:
        chosen = ranking.ranking_metrics(metrics, options)
        states, rows = _run_states(qrels, run, chosen, **scale)
        means = {key: metric.compute(states[key]) for key, metric in chosen.items()}
        per = ranking.per_query_values(states) if per_query else None
        result = ranking.RankingResult(means, states, per)
    if ci is None:
        return EvaluationResult(
            dict(result), dict(result.states), dict(chosen), rows, per_query=result.per_query
        )
    boots = {key: ci.wrap(metric) for key, metric in chosen.items()}
    states = {key: boot.wrap(result.states[key]) for key, boot in boots.items()}
    intervals = {key: ci.interval(boots[key], state) for key, state in states.items()}
    return EvaluationResult(intervals, states, dict(boots), rows, settings=ci)


def _run_states(
    qrels: Any,
    run_path: str,
    chosen: dict[str, Any],
    **scale: Any,
) -> tuple[dict[str, Any], int]:
    """States of ranking metrics over a TREC run file, folded by a registered engine.

    ``scale`` are the options of :func:`~scorekit.api._by.run_metrics` that say where
    (``chunk_size``, ``engine``, ``scheduler``, ``workers``, ``progress``).

    The stream engine reads the run in chunks of ``chunk_size`` rows; the run
    must list the rows of each query together (sorted by query, as search
    systems write runs): the engine brings the rows of a query together across
    chunks and judges them once for all metrics, whatever the run file's name
    ends in.
    """
    from scorekit import io
    from scorekit.api._by import run_metrics
    from scorekit.ranking import as_qrels

    path = Path(io.local_path(run_path))
    if not path.is_file():
        raise InputError(message(run_path, "no such file", None, "an existing run file"))
    found = run_metrics(
        io.FileSource([path], run_path, fmt="trec"),
        chosen,
        columns={role: role for role in _QUERY_DOC_SCORE},
        side={"qrels": as_qrels(qrels)},
        compute=False,
        **scale,
    )
    return dict(found.states), found.rows


def query_groups(path: str, by: Sequence[str]) -> dict[str, tuple[Any, ...]]:
    """The group values of each query, from a file of query attributes.

    The file (CSV, TSV, Parquet or JSON Lines) has a ``query`` column and the
    columns ``by``; each query is on one row. A missing column, a column all
    null, an empty cell (naming its line) and a query on two rows are errors.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "topics.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("query,kind\\nq1,short\\nq2,long\\n")
    >>> query_groups(path, ["kind"])
    {'q1': ('short',), 'q2': ('long',)}
    """
    from scorekit.api._by import attribute_rows

    return attribute_rows(path, "query", by, "query")


def _by_group(
    qrels: Any,
    run: str,
    metrics: Sequence[str],
    by: Sequence[str],
    attributes: str | None,
    *,
    chunk_size: int | None = None,
    engine: str | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: bool | None = None,
    ci: CI | None = None,
    **options: Any,
) -> EvaluationResult:
    """Ranking metrics of a TREC run overall and per group of queries (``evaluate_run(by=)``)."""
    import pyarrow as pa

    from scorekit import ranking
    from scorekit.api._by import fold

    names = list(by)
    if attributes is None:
        raise ConfigError(
            message(
                "scorekit rank --by",
                "the groups of queries are read from a file of query attributes",
                raw("no attributes"),
                "attributes=FILE (--query-attributes FILE) with a query column",
            )
        )
    clash = [c for c in names if c in _QUERY_DOC_SCORE]
    if clash:
        raise ConfigError(
            message(
                "scorekit rank --by",
                "a query attribute named like a run column",
                clash[0],
                "attribute columns other than query, doc and score (--per-query gives each query)",
            )
        )
    if options.get("missing") == "zero":
        raise ConfigError(
            message(
                "scorekit rank --by",
                "qrels queries absent from the run have no group",
                raw("--missing zero"),
                "--missing skip with --by",
            )
        )
    groups = query_groups(attributes, names)
    cols = ranking.read_run_file(run)
    encoded = cols.query.dictionary_encode()
    queries = encoded.dictionary.to_pylist()
    unknown = [q for q in queries if q not in groups]
    if unknown:
        raise InputError(
            message(
                attributes,
                "a query of the run has no attributes",
                unknown[0],
                f"a row for each of the run's {len(queries)} queries",
            )
        )
    table = pa.table({"query": cols.query, "doc": cols.doc, "score": cols.values})
    for i, name in enumerate(names):
        values = pa.array([groups[q][i] for q in queries]).take(encoded.indices)
        table = table.append_column(name, values)
    if chunk_size is None and engine is None:
        # the run is in memory already: it is joined with the qrels whole, as without by
        chunk_size = max(table.num_rows, 1)
    return fold(
        table,
        ranking.ranking_metrics(list(metrics), options),
        ci=ci,
        by=names,
        columns={role: role for role in _QUERY_DOC_SCORE},
        side={"qrels": ranking.as_qrels(qrels)},
        chunk_size=chunk_size,
        engine=engine,
        scheduler=scheduler,
        workers=workers,
        progress=progress,
    )
