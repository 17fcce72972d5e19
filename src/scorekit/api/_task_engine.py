"""A task's metrics on a registered engine: each metric wrapped to read the task's columns."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any, cast

from scorekit import io as _io
from scorekit.api._by import run_metrics
from scorekit.api._ci import CI
from scorekit.api._task import (
    _PRED_KINDS,
    _arguments,
    _Inputs,
    _inputs,
    _metric_for,
    _pos_label,
    default_metrics,
)
from scorekit.core import EvaluationResult, Grouped, Metric
from scorekit.engines import DEFAULT_CHUNK_SIZE
from scorekit.engines.stream import read_chunks
from scorekit.errors import InputError, ScorekitError, message
from scorekit.stats import Bootstrap

__all__ = ["engine_eval"]


@dataclasses.dataclass(frozen=True)
class _TaskMetric(Metric[Any]):
    """An ``eval`` metric as the engines see it: the task's columns in, the metric's state out.

    ``scorekit eval`` hands a metric its columns the way the task says (0/1
    truth for ``--pos-label`` where the metric has no such option, ``[1 - p,
    p]`` for class probabilities of a binary task, regression targets as one
    column or a matrix); this wrapper does the same on every partition. What is
    folded is ``folded``: the metric, its bootstrap, or either per group; its
    key inputs (group columns, unit keys) and row positions reach it as the
    engine gives them, and merge and compute are its own.
    """

    inner: Metric[Any]
    task: str
    pos_label: Any
    targets: int
    folded: Metric[Any]
    threshold: float | None = None

    @property
    def name(self) -> str:
        """The wrapped metric's name."""
        return self.inner.name

    @property
    def key_column(self) -> str:
        """The folded metric's first key column, if any."""
        return self.folded.key_column

    @property
    def key_columns(self) -> tuple[str, ...]:
        """The folded metric's key columns, if any."""
        return self.folded.key_columns

    @property
    def key_role(self) -> str:  # type: ignore[override]
        """The input the key column(s) are read as."""
        return self.folded.key_role

    @property
    def key_conversion(self) -> str:  # type: ignore[override]
        """How the key column(s) are read."""
        return self.folded.key_conversion

    @property
    def key_roles(self) -> dict[str, tuple[str, tuple[str, ...]]]:
        """The folded metric's key inputs: group columns, unit keys."""
        return self.folded.key_roles

    @property
    def positional(self) -> bool:
        """Whether the folded metric keys units by row position."""
        return self.folded.positional

    @property
    def grows(self) -> bool:
        """Whether the folded metric's state grows with the data."""
        return self.folded.grows

    @property
    def size_advice(self) -> tuple[str, str, str] | None:
        """The folded metric's advice when its state grows large."""
        return self.folded.size_advice

    @property
    def defers_merges(self) -> bool:  # type: ignore[override]
        """Whether the folded metric merges many states at a time."""
        return bool(getattr(self.folded, "defers_merges", False))

    def merge_many(self, states: Any) -> Any:
        """The folded metric's merge of several states."""
        return self.folded.merge_many(states)

    def empty(self) -> Any:
        """The folded metric's empty state."""
        return self.folded.empty()

    def merge(self, a: Any, b: Any) -> Any:
        """The folded metric's merge."""
        return self.folded.merge(a, b)

    def compute(self, state: Any) -> Any:
        """The folded metric's value."""
        return self.folded.compute(state)

    def _summarize(
        self, y_true: Any, second: Any, weight: Any, scores: bool, keys: dict[str, Any]
    ) -> Any:
        if self.task == "regression" and self.targets == 1:
            y_true, second = y_true[:, 0], second[:, 0]
        data = _Inputs(
            self.task,
            y_true,
            None if scores else second,
            second if scores else None,
            weight,
            self.pos_label,
            threshold=self.threshold,
        )
        args, kwargs = _arguments(self.inner, data)
        return self.folded.summarize(*args, **kwargs, **keys)


@dataclasses.dataclass(frozen=True)
class _LabelTask(_TaskMetric):
    @property
    def inputs(self) -> str:
        """Labels, indicator matrices or regression targets, by task."""
        return {"multilabel": "multilabel", "regression": "regression_multi"}.get(
            self.task, "labels"
        )

    def summarize(self, y_true: Any, y_pred: Any, sample_weight: Any = None, **keys: Any) -> Any:
        """The folded metric's state of one partition (``keys``: group, unit key, first row)."""
        return self._summarize(y_true, y_pred, sample_weight, False, keys)


@dataclasses.dataclass(frozen=True)
class _ScoreTask(_TaskMetric):
    @property
    def inputs(self) -> str:
        """Scores of the positive class, of each class, or of each label, by task."""
        return f"{self.task}_scores"

    def summarize(self, y_true: Any, y_score: Any, sample_weight: Any = None, **keys: Any) -> Any:
        """The folded metric's state of one partition (``keys``: group, unit key, first row)."""
        return self._summarize(y_true, y_score, sample_weight, True, keys)


@dataclasses.dataclass(frozen=True)
class _ThresholdTask(_TaskMetric):
    @property
    def inputs(self) -> str:
        """Scores of the positive class, predicted positive from ``threshold`` on."""
        return "binary_scores"

    def summarize(self, y_true: Any, y_score: Any, sample_weight: Any = None, **keys: Any) -> Any:
        """The folded metric's state of one partition (``keys``: group, unit key, first row)."""
        return self._summarize(y_true, y_score, sample_weight, True, keys)


def engine_eval(
    plan: Any,
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
) -> EvaluationResult:
    """``scorekit eval --engine NAME``: the task's metrics over a file, on a registered engine.

    The first chunk of the file is read here to type ``--pos-label`` and to leave
    out default metrics that do not apply (as ``eval`` skips them); the engine
    folds the others, and any error stops the evaluation. With ``ci`` each
    metric is folded as its bootstrap and its value is an interval; with
    ``plan.by``, per group (an interval per group with ``ci``). An engine that
    does not number the rows of its parts (Dask) needs a key column for the
    units (``ci.key``).
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
    pos_label = _pos_label(plan.pos_label, _io.label_array(first, plan.true[0]))
    data: _Inputs = _inputs(plan, first, pos_label)
    chosen: dict[str, _TaskMetric] = {}
    skipped: list[str] = []
    for name in names:
        try:
            metric = _metric_for(name, plan, pos_label, classes)
            _summarize_probe(metric, data)
        except ScorekitError as exc:
            if explicit:
                raise
            skipped.append(str(exc))
            continue
        kind: type[_TaskMetric] = _ScoreTask
        if metric.inputs in _PRED_KINDS:
            kind = _LabelTask if plan.threshold is None else _ThresholdTask
        folded = metric if ci is None else ci.wrap(metric)
        if plan.by:
            folded = Grouped(folded, by=plan.by)
        chosen[name] = kind(metric, plan.task, pos_label, len(plan.true), folded, plan.threshold)
    columns = {"y_true": list(plan.true)}
    if any(isinstance(m, _LabelTask) for m in chosen.values()):
        columns["y_pred"] = list(plan.pred or ())
    if any(isinstance(m, (_ScoreTask, _ThresholdTask)) for m in chosen.values()):
        columns["y_score"] = list(plan.score or ())
    if plan.weight:
        columns["sample_weight"] = [plan.weight]
    if plan.key and ci is not None:
        columns["unit_key"] = [plan.key]
    if plan.by:
        columns["group"] = list(plan.by)
    states: dict[str, Any] = {}
    rows = 0
    if chosen:
        scale: dict[str, Any] = {"engine": engine, "scheduler": scheduler, "workers": workers}
        found = run_metrics(
            source,
            cast(dict[str, Metric[Any]], chosen),
            columns=columns,
            chunk_size=chunk_size,
            progress=progress,
            compute=False,
            **scale,
        )
        states, rows = dict(found.states), found.rows
    values: dict[str, Any] = {}
    for name, metric in chosen.items():
        try:
            values[name] = _value(ci, metric.folded, states[name])
        except ScorekitError as exc:
            if explicit:
                raise
            skipped.append(str(exc))
    inner = {name: m.folded for name, m in chosen.items()}
    return EvaluationResult(
        values=values,
        skipped=skipped,
        rows=rows,
        metrics={k: inner[k] for k in values},
        states={k: states[k] for k in values},
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


def _summarize_probe(metric: Metric[Any], data: Any) -> None:
    args, kwargs = _arguments(metric, data)
    metric.summarize(*args, **kwargs)


def _value(ci: CI | None, folded: Metric[Any], state: Any) -> Any:
    """The value of a folded metric: an interval of a bootstrap, per group or not."""
    if isinstance(folded, Bootstrap) and ci is not None:
        return ci.interval(folded, state)
    if isinstance(folded, Grouped) and ci is not None:
        return ci.group_intervals(folded, state)
    return folded.compute(state)
