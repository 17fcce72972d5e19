"""A task's metrics over chunks on this machine, each metric's state merged in a tree."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from scorekit import io as _io
from scorekit.api._ci import CI
from scorekit.api._task import (
    Evaluation,
    _arguments,
    _check_binary,
    _Inputs,
    _inputs,
    _metric_for,
    _Plan,
    _pos_label,
    default_metrics,
)
from scorekit.core import Grouped, GroupStates, Metric, State
from scorekit.engines import Notes, SizeWatch
from scorekit.errors import InputError, ScorekitError, message
from scorekit.stats import Bootstrap

__all__ = ["classes_of", "evaluate_chunks"]


class _Tracked:
    """One metric of an evaluation: its configuration, merged state, and notes."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.metric: Metric[Any] | None = None
        self.tree: Any = None
        self.watch: Any = None
        self.state: State | None = None
        self.value: Any = None
        self.done = False
        self.failure: str | None = None
        self.warnings: list[str] = []

    def step(self, explicit: bool, work: Callable[[], None]) -> None:
        """Run ``work`` recording its warnings; a failure skips a default metric."""
        if self.failure is not None:
            return
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                work()
            except ScorekitError as exc:
                if explicit:
                    raise
                self.failure = str(exc)
        self.warnings += [str(w.message) for w in caught]


def evaluate_chunks(
    plan: _Plan,
    chunks: Iterable[Any],
    metrics: Sequence[str] | None,
    classes: NDArray[Any] | None = None,
    ci: CI | None = None,
) -> Evaluation:
    """Evaluate the task's metrics over ``chunks`` (pyarrow tables), merging their states.

    ``classes`` are the classes of ``--true`` over all chunks (needed for
    multiclass scores); by default, those of the first chunk, which is right
    when it is the whole file. One chunk gives exactly ``compute(summarize(...))``.
    The chunk states of each metric are merged in a tree, as the stream engine
    merges them (:func:`scorekit.engines.stream.fold`): states that grow with the
    data (a ROC AUC histogram of distinct scores) cost ``O(total * log chunks)``.
    """
    explicit = bool(metrics)
    specs = list(dict.fromkeys(metrics or ())) or default_metrics(
        plan.task,
        has_pred=plan.pred is not None or plan.threshold is not None,
        has_score=plan.score is not None,
    )
    tracked = [_Tracked(spec) for spec in specs]
    rows = 0
    pos_label: Any = None
    seen = np.empty(0)
    first = True
    for table in chunks:
        _io.release_read_buffers(table)
        data = _inputs(plan, table, pos_label)
        if plan.task == "binary":
            seen = np.unique(data.y_true) if first else np.union1d(seen, data.y_true)
            _check_binary(plan, seen)
        if first:
            pos_label = data.pos_label = _pos_label(plan.pos_label, data.y_true)
            if classes is None and plan.task == "multiclass":
                classes = np.unique(data.y_true)
            for item in tracked:
                item.step(explicit, _configuring(item, plan, pos_label, classes, ci))
            first = False
        for item in tracked:
            item.step(explicit, _summarizing(item, data, rows))
        rows += len(data.y_true)
    if first:
        raise InputError(message(plan.source, "no data", None, "a table with rows"))
    for item in tracked:
        item.step(explicit, _computing(item, ci))
    notes: list[str] = []
    for item in tracked:
        if item.failure is None:
            notes += [text for text in dict.fromkeys(item.warnings) if text not in notes]
    values = {t.spec: t.value for t in tracked if t.failure is None}
    return Evaluation(
        values=values,
        warnings=notes,
        skipped=[t.failure for t in tracked if t.failure is not None],
        rows=rows,
        metrics={t.spec: t.metric for t in tracked if t.failure is None and t.metric is not None},
        states={t.spec: t.state for t in tracked if t.failure is None and t.state is not None},
        columns=plan.columns(),
        options={} if plan.pos_label is None else {"pos_label": plan.pos_label},
    )


def _configuring(
    item: _Tracked, plan: _Plan, pos_label: Any, classes: NDArray[Any] | None, ci: CI | None
) -> Callable[[], None]:
    def work() -> None:
        metric = _metric_for(item.spec, plan, pos_label, classes)
        if ci is not None:
            metric = ci.wrap(metric)
        item.metric = Grouped(metric, by=plan.by) if plan.by else metric
        item.tree = _merge_tree(item.metric)
        item.watch = SizeWatch([item.metric], _io.state_warning_size())

    return work


def _summarizing(item: _Tracked, data: _Inputs, first_row: int) -> Callable[[], None]:
    def work() -> None:
        metric = cast(Metric[Any], item.metric)
        grouped = metric if isinstance(metric, Grouped) else None
        inner = grouped.inner if grouped is not None else metric
        boot = inner if isinstance(inner, Bootstrap) else None
        args, kwargs = _arguments(inner if boot is None else boot.inner, data)
        if boot is not None and boot.positional:
            kwargs["first_row"] = first_row
        elif boot is not None and boot.key_column:
            kwargs["unit_key"] = data.unit_key
        if grouped is not None:
            kwargs["group"] = data.group
        state: State = metric.summarize(*args, **kwargs)
        item.tree.add([state])
        notes = Notes()
        item.watch.check(item.tree, notes)
        notes.emit()

    return work


def _computing(item: _Tracked, ci: CI | None) -> Callable[[], None]:
    def work() -> None:
        metric = cast(Metric[Any], item.metric)
        (item.state,) = item.tree.result()
        if ci is not None and isinstance(metric, Bootstrap):
            item.value = ci.interval(metric, item.state)
        elif ci is not None and isinstance(metric, Grouped):
            item.value = ci.group_intervals(metric, cast(GroupStates, item.state))
        else:
            item.value = metric.compute(item.state)

    return work


def _merge_tree(metric: Metric[Any]) -> Any:
    """The stream engine's merge tree for one metric: ``add([state])``, then ``result()``."""
    from scorekit.core import MergeTree

    return MergeTree([metric])


def classes_of(plan: _Plan, chunks: Iterable[Any]) -> NDArray[Any]:
    """The sorted classes of ``--true`` over all chunks (a first pass for multiclass scores)."""
    found: NDArray[Any] | None = None
    for table in chunks:
        labels = np.unique(_io.label_array(table, plan.true[0]))
        found = labels if found is None else np.union1d(found, labels)
    return found if found is not None else np.empty(0)
