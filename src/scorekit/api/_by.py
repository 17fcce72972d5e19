"""Metrics keyed by the caller's names over a source, by a registered engine.

:func:`fold` is the path of every command that folds its metrics: each metric is
wrapped as the features ask (its bootstrap for ``ci``, per group for ``by``),
the engine folds the wrappers like any metric (:func:`run_metrics`, which keeps
the caller's keys: ``ttft`` and ``ttft:p90`` are two configurations of one
metric), and the merged states give the values, intervals or values per group.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from scorekit.api._ci import CI, value_of
from scorekit.api._evaluate import columns_read, computed_values, held_session, settled
from scorekit.core import EvaluationResult, Grouped, GroupStates, Metric
from scorekit.errors import InputError, ScorekitError, message
from scorekit.stats import Bootstrap

__all__ = ["attribute_rows", "fold", "run_metrics"]


def fold(
    source: Any,
    metrics: Mapping[str, Metric[Any] | str],
    *,
    ci: CI | None = None,
    by: str | Sequence[str] | None = None,
    adapt: Callable[[str, Metric[Any]], Metric[Any]] | None = None,
    compute: bool = True,
    keep_states: bool = True,
    failed: Callable[[str, ScorekitError], None] | None = None,
    **where: Any,
) -> EvaluationResult:
    """Metrics over ``source``, each wrapped as the features ask, folded by a registered engine.

    With ``ci`` (a :class:`CI`) each metric is folded as its bootstrap and its
    value is an :class:`~scorekit.stats.Interval`; with ``by`` (group columns)
    each is folded per group (:class:`~scorekit.core.Grouped`) and its value is
    a :class:`~scorekit.core.ByGroup` (of intervals, with ``ci`` too).
    ``adapt(key, folded)`` is what the engine folds for the wrapped metric
    ``folded`` (a command's conversion of its inputs; by default the wrapper
    itself). ``where`` are the options of :func:`run_metrics` (``columns``,
    ``side``, ``chunk_size``, ``engine``, ``scheduler``, ``workers``,
    ``progress``). With ``compute=False`` the values are left to the caller;
    the result's ``metrics`` are the wrapped metrics, whose states it holds.

    The values are read while the engine's session runs (on Dask, next to the
    merged score ranges its workers keep). With ``keep_states=False`` the
    states are not used after the call, and an engine need not bring what it
    keeps on a cluster it stops to this process (the result's states may then
    be unreadable). With ``failed``, a metric whose value cannot be computed
    (a :class:`~scorekit.errors.ScorekitError`) is given to ``failed(key,
    error)`` and left out of the values instead of raising.

    Examples
    --------
    >>> table = {"y_true": [1, 0, 1, 1], "y_pred": [1, 1, 1, 0], "g": ["a", "a", "b", "b"]}
    >>> found = fold(table, {"acc": "accuracy"}, by=["g"], chunk_size=3)
    >>> found["acc"].by_group
    {'a': 0.5, 'b': 0.5}
    >>> fold(table, {"acc": "accuracy"}, ci=CI(n_resamples=50))["acc"].value
    0.5
    """
    from scorekit.core import parse_metric

    names = (by,) if isinstance(by, str) else tuple(by or ())
    parsed = {k: parse_metric(m) if isinstance(m, str) else m for k, m in metrics.items()}

    def first_pass(samplers: dict[str, Metric[Any]]) -> list[Any]:
        listed = {k: adapt(k, m) for k, m in samplers.items()} if adapt else samplers
        read = columns_read(list(listed.values()), where.get("columns"))
        found = run_metrics(source, listed, compute=False, **{**where, "columns": read})
        return list(found.states.values())

    engine = where.get("engine") or "stream"
    with held_session(engine, where, keep_states=keep_states):
        folded: dict[str, Metric[Any]] = {}
        for key, wrapped in settled(parsed, first_pass).items():
            boot = ci.wrap(wrapped) if ci is not None and ci.resamples else None
            if boot is not None and boot.wraps is None:
                # a state that keeps each unit's value is resampled once merged, below
                wrapped = boot
            folded[key] = Grouped(wrapped, by=names) if names else wrapped
        engine_metrics = {k: adapt(k, m) for k, m in folded.items()} if adapt else folded
        found = run_metrics(source, engine_metrics, compute=False, **where)
        states = dict(found.states)
        values: dict[str, Any] = {}
        for key, metric in folded.items() if compute else ():
            try:
                values[key] = _value(ci, key, metric, folded, states)
            except ScorekitError as exc:
                if failed is None:
                    raise
                failed(key, exc)
    return EvaluationResult(values, states, folded, found.rows, settings=ci)


def _value(
    ci: CI | None,
    key: str,
    metric: Metric[Any],
    folded: dict[str, Metric[Any]],
    states: dict[str, Any],
) -> Any:
    """The value of ``folded[key]`` from its merged state: an interval with ``ci``, per group
    with ``by``; a state that keeps each unit's value is wrapped in its bootstrap here."""
    inner = metric.inner if isinstance(metric, Grouped) else metric
    if ci is None or isinstance(inner, Bootstrap) or not ci.resamples:
        return value_of(ci, metric, states[key])
    if isinstance(metric, Grouped):
        # a state that keeps each unit's value (a query's) is resampled once merged
        per_group = cast(GroupStates, states[key])
        return ci.group_intervals(metric, per_group, boot=ci.wrap(inner))
    folded[key] = boot = ci.wrap(metric)
    states[key] = boot.wrap(states[key])
    return ci.interval(boot, states[key])


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
