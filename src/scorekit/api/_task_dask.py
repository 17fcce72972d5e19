"""A task's metrics on a Dask cluster: each metric wrapped to read the task's columns."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

from scorekit import io as _io
from scorekit.api._ci import CI
from scorekit.api._engines import dask_run
from scorekit.api._task import (
    _PRED_KINDS,
    Evaluation,
    _arguments,
    _Inputs,
    _inputs,
    _metric_for,
    _pos_label,
    default_metrics,
)
from scorekit.core import Grouped, Metric
from scorekit.engines.stream import read_chunks
from scorekit.errors import InputError, ScorekitError, message
from scorekit.stats import Bootstrap

__all__ = ["dask_eval"]


# eval on Dask -----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _TaskMetric(Metric[Any]):
    """An ``eval`` metric as the engines see it: the task's columns in, the metric's state out.

    ``scorekit eval`` hands a metric its columns the way the task says (0/1
    truth for ``--pos-label`` where the metric has no such option, ``[1 - p,
    p]`` for class probabilities of a binary task, regression targets as one
    column or a matrix); this wrapper does the same on every partition, and
    leaves merge and compute to the metric.
    """

    inner: Metric[Any]
    task: str
    pos_label: Any
    targets: int
    boot: Bootstrap | None = None
    group: Grouped | None = None

    @property
    def name(self) -> str:
        """The wrapped metric's name."""
        return self.inner.name

    @property
    def folded(self) -> Metric[Any]:
        """The metric whose states are folded: the bootstrap of the metric, or the metric."""
        if self.group is not None:
            return self.group
        return self.inner if self.boot is None else self.boot

    @property
    def key_column(self) -> str:
        """The first group column, or the bootstrap's key column, if any."""
        if self.group is not None:
            return self.group.key_column
        return "" if self.boot is None else self.boot.key_column

    @property
    def key_columns(self) -> tuple[str, ...]:
        """The group columns, or the bootstrap's key column, if any."""
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
    def positional(self) -> bool:
        """Whether the bootstrap keys units by row position."""
        return self.boot is not None and self.boot.positional

    def empty(self) -> Any:
        """The wrapped metric's empty state."""
        return self.folded.empty()

    def merge(self, a: Any, b: Any) -> Any:
        """The wrapped metric's merge."""
        return self.folded.merge(a, b)

    def compute(self, state: Any) -> Any:
        """The wrapped metric's value."""
        return self.folded.compute(state)

    def _summarize(
        self,
        y_true: Any,
        second: Any,
        weight: Any,
        scores: bool,
        unit_key: Any = None,
        first_row: int = 0,
        group: Any = None,
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
        )
        args, kwargs = _arguments(self.inner, data)
        if self.group is not None:
            return self.group.summarize(*args, group=group, **kwargs)
        if self.boot is None:
            return self.inner.summarize(*args, **kwargs)
        if self.boot.positional:
            kwargs["first_row"] = first_row
        else:
            kwargs["unit_key"] = unit_key
        return self.boot.summarize(*args, **kwargs)


@dataclasses.dataclass(frozen=True)
class _LabelTask(_TaskMetric):
    @property
    def inputs(self) -> str:
        """Labels, indicator matrices or regression targets, by task."""
        return {"multilabel": "multilabel", "regression": "regression_multi"}.get(
            self.task, "labels"
        )

    def summarize(
        self,
        y_true: Any,
        y_pred: Any,
        sample_weight: Any = None,
        *,
        unit_key: Any = None,
        first_row: int = 0,
        group: Any = None,
    ) -> Any:
        """The wrapped metric's state of one partition."""
        return self._summarize(y_true, y_pred, sample_weight, False, unit_key, first_row, group)


@dataclasses.dataclass(frozen=True)
class _ScoreTask(_TaskMetric):
    @property
    def inputs(self) -> str:
        """Scores of the positive class, of each class, or of each label, by task."""
        return f"{self.task}_scores"

    def summarize(
        self,
        y_true: Any,
        y_score: Any,
        sample_weight: Any = None,
        *,
        unit_key: Any = None,
        first_row: int = 0,
        group: Any = None,
    ) -> Any:
        """The wrapped metric's state of one partition."""
        return self._summarize(y_true, y_score, sample_weight, True, unit_key, first_row, group)


def dask_eval(
    plan: Any,
    specs: Sequence[str] | None,
    classes: Any,
    *,
    size: int,
    scheduler: str | None = None,
    workers: int | None = None,
    ci: CI | None = None,
) -> Evaluation:
    """``scorekit eval --engine dask``: the task's metrics over a file, on a Dask cluster.

    The first chunk of the file is read here to type ``--pos-label`` and to leave
    out default metrics that do not apply (as ``eval`` skips them); the others
    run on the cluster, where any error stops the evaluation. With ``ci`` each
    metric is folded as its bootstrap and its value is an interval; the Dask
    engine does not number rows across partitions, so units need a key column
    (``ci.key``) unless the file is one partition.
    """
    explicit = bool(specs)
    names = list(dict.fromkeys(specs or ())) or default_metrics(
        plan.task,
        has_pred=plan.pred is not None or plan.threshold is not None,
        has_score=plan.score is not None,
    )
    first = read_chunks(plan.source, plan.needed(), size, progress=False, use=_first)
    if first is None:
        raise InputError(message(plan.source, "no data", None, "a table with rows"))
    pos_label = _pos_label(plan.pos_label, _io.label_array(first, plan.true[0]))
    data: _Inputs = _inputs(plan, first, pos_label)
    chosen: dict[str, Metric[Any]] = {}
    skipped: list[str] = []
    for name in names:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                metric = _metric_for(name, plan, pos_label, classes)
                _summarize_probe(metric, data)
        except ScorekitError as exc:
            if explicit:
                raise
            skipped.append(str(exc))
            continue
        kind = _LabelTask if metric.inputs in _PRED_KINDS else _ScoreTask
        boot = None if ci is None else ci.wrap(metric)
        group = Grouped(metric, by=plan.by) if plan.by else None
        chosen[name] = kind(metric, plan.task, pos_label, len(plan.true), boot, group)
    columns = {"y_true": list(plan.true)}
    if any(isinstance(m, _LabelTask) for m in chosen.values()):
        columns["y_pred"] = list(plan.pred or ())
    if any(isinstance(m, _ScoreTask) for m in chosen.values()):
        columns["y_score"] = list(plan.score or ())
    if plan.weight:
        columns["sample_weight"] = [plan.weight]
    if plan.key and ci is not None:
        columns["unit_key"] = [plan.key]
    if plan.by:
        columns["group"] = list(plan.by)
    states, rows, notes = (
        dask_run(plan.source, chosen, columns, scheduler=scheduler, workers=workers)
        if chosen
        else ({}, 0, [])
    )
    values: dict[str, Any] = {}
    for name, metric in chosen.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                if ci is not None and isinstance(metric, _TaskMetric) and metric.boot is not None:
                    values[name] = ci.interval(metric.boot, states[name])
                else:
                    values[name] = metric.compute(states[name])
            except ScorekitError as exc:
                if explicit:
                    raise
                skipped.append(str(exc))
                continue
        notes += [t for t in dict.fromkeys(str(w.message) for w in caught) if t not in notes]
    inner = {name: m.folded for name, m in chosen.items() if isinstance(m, _TaskMetric)}
    return Evaluation(
        values=values,
        warnings=notes,
        skipped=skipped,
        rows=rows,
        metrics={k: inner[k] for k in values},
        states={k: states[k] for k in values},
        columns=plan.columns(),
        options={} if plan.pos_label is None else {"pos_label": plan.pos_label},
    )


def _first(chunks: Iterable[Any]) -> Any:
    return next(iter(chunks), None)


def _summarize_probe(metric: Metric[Any], data: Any) -> None:
    args, kwargs = _arguments(metric, data)
    metric.summarize(*args, **kwargs)
