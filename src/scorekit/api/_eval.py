"""``scorekit eval`` as one call: a task's metrics over the columns of a file."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from scorekit import io
from scorekit.api._by import fold, run_metrics
from scorekit.api._ci import CI
from scorekit.classification import (
    TableTask,
    TruthClasses,
    default_metrics,
    order_score_columns,
    table_task,
    task_arguments,
    task_metric,
)
from scorekit.core import EvaluationResult, Metric
from scorekit.engines import DEFAULT_CHUNK_SIZE
from scorekit.engines.stream import read_chunks
from scorekit.errors import ConfigError, InputError, ScorekitError, message, raw

__all__ = ["evaluate_table"]


def evaluate_table(
    path: str,
    *,
    task: str,
    true: Sequence[str],
    pred: Sequence[str] | None = None,
    score: Sequence[str] | None = None,
    weight: str | None = None,
    metrics: Sequence[str] | None = None,
    pos_label: str | None = None,
    chunk_size: int | None = None,
    progress: bool | None = False,
    engine: str | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    classes: Sequence[str] | None = None,
    ci: CI | None = None,
    by: Sequence[str] | None = None,
    threshold: float | None = None,
    keep_states: bool = True,
) -> EvaluationResult:
    """Evaluate the columns of a file with the named metrics (or the task's defaults).

    Named metrics must all apply: any problem raises. Default metrics that do not
    apply to the data (scores that are not probabilities for ``log_loss``, say)
    are skipped and reported in ``skipped``.

    With ``chunk_size``, the file (or glob, or directory) is read ``chunk_size``
    rows at a time by the stream engine and the states of the chunks are merged:
    the values are those of the whole file (exactly for integer statistics, to
    round-off for float sums). Multiclass scores then take a first pass over the
    ``--true`` column to learn the classes of the score columns. ``progress``
    shows a progress bar on stderr (``None``: when it is a terminal).
    ``engine`` names a registered engine that folds the metrics instead
    (``"stream"``: in chunks in this process; ``"dask"``: on a Dask cluster,
    ``scheduler`` the address of a running one, ``workers`` the processes of a
    local one); a binary task then takes a first pass over the ``--true``
    column to check it has at most two classes.

    Multiclass score columns are matched to the classes of ``true`` by their
    names (``p_cat`` holds the scores of ``cat``; ``p0`` those of ``0``), in any
    order; ``classes`` names the class of each score column in turn where the
    names do not say it. Columns whose names name no class are taken in the
    sorted order of the classes, with a warning.

    With ``ci`` (a :class:`CI`) every value is an :class:`~scorekit.stats.Interval`
    from a Poisson bootstrap of the metric over the rows: the same interval in
    memory and in chunks of any size; on Dask with several partitions, and for
    shards read separately, the rows need a key column (``CI(key=COL)``).

    With ``by`` (one or more columns) every value is a
    :class:`~scorekit.core.ByGroup`: the value on all the rows and on each
    group of rows sharing the values of those columns, with the group sizes;
    the same in memory, in chunks and on Dask. With ``by`` and ``ci`` (in
    memory and in chunks) each of those values is an interval: a group's
    rows keep the replicate weights of their positions in the data (or of
    their keys), so a group's interval resamples that group's rows only and
    is the same however the file is chunked.

    With ``threshold`` (``--task binary`` with ``score`` and no ``pred``) a row
    whose score is at least ``threshold`` is predicted positive, and the label
    metrics (accuracy, F1, ...) are computed from those predictions.

    With ``keep_states=False`` the result's states are not used after the call:
    an engine need not bring what it keeps on a cluster it stops here (on Dask,
    the merged score ranges then stay on the workers until the cluster stops,
    and only the values read from them come here).

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "preds.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("y,p\\n1,1\\n0,1\\n1,1\\n0,0\\n")
    >>> result = evaluate_table(path, task="binary", true=["y"], pred=["p"], metrics=["accuracy"])
    >>> result.values
    {'accuracy': 0.75}
    >>> ci = CI(n_resamples=200, seed=1)
    >>> found = evaluate_table(path, task="binary", true=["y"], pred=["p"], ci=ci, metrics=["f1"])
    >>> found.values["f1"].value, found.values["f1"].method
    (0.8, 'percentile')
    """
    plan = table_task(
        path, task, true, pred, score, weight, pos_label, ci.key if ci else None, by, threshold
    )
    matching = task == "multiclass" and bool(score)
    if classes is not None and not matching:
        raise ConfigError(
            message(
                "scorekit eval",
                "--classes names multiclass score columns",
                raw(task),
                "--task multiclass with --score",
            )
        )
    whole = chunk_size is None and engine is None
    source: Any = path
    size = chunk_size or DEFAULT_CHUNK_SIZE
    if whole:
        source = io.read_table(path, columns=plan.needed())
        size = max(source.num_rows, 1)
    learned: np.ndarray | None = None
    if matching or task == "binary":
        # a first pass over the truth column, in this process
        first = run_metrics(
            source,
            {"classes": TruthClasses()},
            columns={"y_true": [true[0]]},
            chunk_size=size,
            progress=False,
        )
        learned = first.values["classes"]
        plan.check_classes(learned)
    if matching and learned is not None:
        plan, notes = order_score_columns(plan, learned, classes)
        for note in notes:
            warnings.warn(note, UserWarning, stacklevel=2)
    return _engine_eval(
        plan,
        source,
        metrics,
        learned,
        engine=engine or "stream",
        chunk_size=size if whole else chunk_size,
        progress=False if whole else progress,
        scheduler=scheduler,
        workers=workers,
        ci=ci,
        keep_states=keep_states,
    )


def _engine_eval(
    plan: TableTask,
    source: Any,
    specs: Sequence[str] | None,
    classes: Any,
    *,
    engine: str,
    chunk_size: int | None = None,
    progress: bool | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    ci: CI | None = None,
    keep_states: bool = True,
) -> EvaluationResult:
    """The task's metrics over ``source``, folded by a registered engine.

    The first chunk is read here to type ``--pos-label`` and to leave out
    default metrics that do not apply (as ``eval`` skips them); the engine folds
    the others, and any error stops the evaluation. With ``ci`` each metric is
    folded as its bootstrap and its value is an interval; with ``plan.by``, per
    group (an interval per group with ``ci``). An engine that does not number
    the rows of its parts (Dask) needs a key column for the units (``ci.key``).
    """
    explicit = bool(specs)
    names = list(dict.fromkeys(specs or ())) or default_metrics(
        plan.task,
        has_pred=plan.pred is not None or plan.threshold is not None,
        has_score=plan.score is not None,
    )
    size = chunk_size or DEFAULT_CHUNK_SIZE
    first = read_chunks(source, plan.needed(), size, progress=False, use=_first)
    if first is None:
        raise InputError(message(plan.source, "no data", None, "a table with rows"))
    pos_label = plan.positive(io.label_array(first, plan.true[0]))
    data = plan.arrays(first, pos_label)
    chosen: dict[str, Metric[Any]] = {}
    skipped: list[str] = []
    for name in names:
        try:
            metric = plan.metric(name, pos_label, classes)
            args, kwargs = task_arguments(metric, data)
            metric.summarize(*args, **kwargs)
        except ScorekitError as exc:
            if explicit:
                raise
            skipped.append(str(exc))
            continue
        chosen[name] = metric

    def adapt(name: str, folded: Metric[Any]) -> Metric[Any]:
        return task_metric(chosen[name], plan, pos_label, folded)

    tasks = {name: task_metric(metric, plan, pos_label) for name, metric in chosen.items()}
    columns = {"y_true": list(plan.true)}
    for role, given in (("y_pred", plan.pred), ("y_score", plan.score)):
        if any(m.second_role == role for m in tasks.values()):
            columns[role] = list(given or ())
    if plan.weight:
        columns["sample_weight"] = [plan.weight]
    if plan.key and ci is not None:
        columns["unit_key"] = [plan.key]
    if plan.by:
        columns["group"] = list(plan.by)
    found = EvaluationResult({})
    if chosen:
        found = fold(
            source,
            chosen,
            ci=ci,
            by=plan.by,
            adapt=adapt,
            keep_states=keep_states,
            failed=None if explicit else lambda _, exc: skipped.append(str(exc)),
            columns=columns,
            chunk_size=chunk_size,
            progress=progress,
            engine=engine,
            scheduler=scheduler,
            workers=workers,
        )
    values = found.values
    return EvaluationResult(
        values=values,
        skipped=skipped,
        rows=found.rows,
        metrics={k: found.metrics[k] for k in values},
        states={k: found.states[k] for k in values},
        columns=plan.columns(),
        options={} if plan.pos_label is None else {"pos_label": plan.pos_label},
    )


def _first(chunks: Iterable[Any]) -> Any:
    """The first chunk; the reading stops there (its readers are closed now)."""
    iterator = iter(chunks)
    try:
        return next(iterator, None)
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            close()
