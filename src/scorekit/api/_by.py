"""Metrics keyed by the caller's names over a source, by a registered engine.

The per-group commands (``throughput --by``, ``rank --by``, ``text --by``) run
several configurations of one metric (``ttft`` and ``ttft:p90``) wrapped in
:class:`~scorekit.core.Grouped`; :func:`run_metrics` keeps the caller's keys.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorekit.api._evaluate import computed_values
from scorekit.core import EvaluationResult, Metric
from scorekit.errors import InputError, message

__all__ = ["attribute_rows", "run_metrics"]


def run_metrics(
    source: Any,
    metrics: dict[str, Metric[Any]],
    *,
    columns: Mapping[str, Any] | None = None,
    side: Mapping[str, Any] | None = None,
    chunk_size: int | None = None,
    engine: str | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: bool | None = None,
    compute: bool = True,
) -> EvaluationResult:
    """Configured metrics, keyed as given, over a source by a registered engine.

    ``engine`` names the engine (default ``stream``); ``scheduler`` and
    ``workers``, when given, are options of that engine, which checks them.
    Each distinct warning of the chunks and of computing the values is raised once.
    With ``compute=False`` only the merged states are returned (``values`` is empty),
    for a caller that makes its own values of them (intervals).

    Examples
    --------
    >>> from scorekit.core import Grouped
    >>> table = {"y_true": [1, 0, 1, 1], "y_pred": [1, 1, 1, 0], "g": ["a", "a", "b", "b"]}
    >>> metrics = {"acc": Grouped("accuracy", by="g")}
    >>> run_metrics(table, metrics, chunk_size=3).values["acc"].by_group
    {'a': 0.5, 'b': 0.5}
    """
    from scorekit import engines

    listed = list(metrics.values())
    options = {
        key: value
        for key, value in (("scheduler", scheduler), ("workers", workers))
        if value is not None
    }
    states, rows = engines.engine(engine or "stream")(
        source,
        listed,
        columns=columns,
        side=engines.side_inputs(listed, dict(side or {})),
        chunk_size=chunk_size,
        progress=progress,
        **options,
    )
    states = list(states)
    return EvaluationResult(
        values=computed_values(metrics, states) if compute else {},
        states=dict(zip(metrics, states, strict=True)),
        metrics=dict(metrics),
        rows=int(rows),
    )


def attribute_rows(path: str, key: str, by: Sequence[str], unit: str) -> dict[str, tuple[Any, ...]]:
    """The values of the columns ``by`` of each ``key`` in a file of attributes.

    The file (CSV, TSV, Parquet or JSON Lines) has the column ``key`` and the
    columns ``by``, one row per ``unit``. A missing column, a column all null,
    an empty cell (naming its line) and a key on two rows are errors.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "topics.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("query,kind\\nq1,short\\nq2,long\\n")
    >>> attribute_rows(path, "query", ["kind"], "query")
    {'q1': ('short',), 'q2': ('long',)}
    """
    from scorekit import io

    table = io.read_table(path, columns=[key, *by])
    keys = io.label_array(table, key).astype(str)
    columns = io.group_arrays(table, list(by))
    found: dict[str, tuple[Any, ...]] = {}
    for row, name in enumerate(keys.tolist()):
        if name in found:
            raise InputError(
                message(
                    io.where(table, key, row),
                    f"a {unit} on two rows",
                    name,
                    f"one row of attributes per {unit}",
                )
            )
        found[name] = tuple(c[row].item() for c in columns)
    return found
