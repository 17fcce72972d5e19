"""``scorekit rank`` as one call: a TREC run against its qrels, whole, in chunks or on Dask."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np

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

    Every route is one fold of the metrics by a registered engine. Without
    ``chunk_size`` or ``engine`` the run (a TREC file, a dict or a
    :class:`~scorekit.ranking.Run`) is read whole and joined with the qrels in
    one chunk, whatever the order of its rows; ``rows`` are the run's rows.
    ``engine="stream"`` or a ``chunk_size`` reads the run file in chunks of
    whole queries (the run must list each query's rows together);
    ``engine="dask"`` summarizes its partitions, grouped by query, on a Dask
    cluster. ``options`` are the metrics' options (``missing``, ``gain``,
    ``relevance_level``). ``per_query`` adds each query's values (not with
    ``ci`` or ``by``).

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
    from scorekit.api._by import fold

    names = list(by or ())
    if names:
        _check_by(names, attributes, options)
    whole = chunk_size is None and engine is None
    source = _whole_run(run, names, attributes) if whole or names else _run_file(run)
    if whole:
        # the run is in memory: it is joined with the qrels in one chunk
        chunk_size = max(source.num_rows, 1)
    try:
        found = fold(
            source,
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
    except InputError:
        if isinstance(run, str | os.PathLike) and (whole or names):
            # a problem of the run's rows (a duplicate document) again, named by file and line
            ranking.read_run(run)
        raise
    if per_query and ci is None and not names:
        per = ranking.per_query_values(cast(Mapping[str, Any], found.states))
        found = dataclasses.replace(found, per_query=per)
    return found


def _check_by(names: Sequence[str], attributes: str | None, options: Mapping[str, Any]) -> None:
    """Refuse what ``by`` cannot do: no attributes file, a clash with the run's columns,
    ``missing="zero"``."""
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


def _whole_run(run: Any, names: Sequence[str], attributes: str | None) -> Any:
    """The run read whole as a table of ``query``, ``doc``, ``score`` (and the group
    columns ``names``), each query's rows together.

    A run file is read as :func:`scorekit.ranking.read_run_file` reads it (a
    problem of its rows found later is named by file and line: see
    :func:`evaluate_run`); a dict or a :class:`~scorekit.ranking.Run` is taken as
    it is. Rows of a query apart from each other are brought together (stably: a
    query's rows keep their order), as a whole read allows.
    """
    import pyarrow as pa

    from scorekit import ranking

    if isinstance(run, str | os.PathLike):
        cols = ranking.read_run_file(os.fspath(run))
        query, doc, score = cols.query, cols.doc, cols.values
    else:
        judged = ranking.as_run(run)
        query, doc, score = judged.query, judged.doc, judged.values
    encoded = query.dictionary_encode()
    codes = np.asarray(encoded.indices)
    table = pa.table({"query": query, "doc": doc, "score": score})
    if len(codes) > 1 and np.count_nonzero(codes[1:] != codes[:-1]) + 1 > len(encoded.dictionary):
        order = np.argsort(codes, kind="stable")
        table, codes = table.take(pa.array(order)), codes[order]
    if not names:
        return table
    groups = query_groups(str(attributes), names)
    queries = encoded.dictionary.to_pylist()
    unknown = [q for q in queries if q not in groups]
    if unknown:
        raise InputError(
            message(
                str(attributes),
                "a query of the run has no attributes",
                unknown[0],
                f"a row for each of the run's {len(queries)} queries",
            )
        )
    take = pa.array(codes)
    for i, name in enumerate(names):
        table = table.append_column(name, pa.array([groups[q][i] for q in queries]).take(take))
    return table


def _run_file(run_path: Any) -> Any:
    """A TREC run file as a source the engines read in chunks of whole queries.

    The run must list the rows of each query together (sorted by query, as
    search systems write runs): the engine brings the rows of a query together
    across chunks and judges them once for all metrics, whatever the run file's
    name ends in.
    """
    from scorekit import io

    path = Path(io.local_path(run_path))
    if not path.is_file():
        raise InputError(message(run_path, "no such file", None, "an existing run file"))
    return io.FileSource([path], run_path, fmt="trec")


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
