"""A task's metric as the engines see it: the task's columns in, the folded metric's state out."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from scorekit.classification._table._task import LABEL_KINDS, TableTask, TaskArrays, task_arguments
from scorekit.core import Metric

__all__ = ["TaskMetric", "task_metric"]


@dataclasses.dataclass(frozen=True)
class TaskMetric(Metric[Any]):
    """A metric of a task, reading the task's columns on every partition.

    The columns reach the metric the way the task says (0/1 truth for
    ``--pos-label`` where the metric has no such option, ``[1 - p, p]`` for
    class probabilities of a binary task, regression targets as one column or a
    matrix, labels from a threshold on scores). What is folded is ``folded``:
    the metric itself or a wrapper of it (its bootstrap, per group); its key
    inputs (group columns, unit keys) and row positions reach it as the engine
    gives them, and merge and compute are its own.
    """

    inner: Metric[Any]
    task: TableTask
    pos_label: Any
    folded: Metric[Any]

    @property
    def name(self) -> str:
        """The wrapped metric's name."""
        return self.inner.name

    @property
    def second_role(self) -> str:
        """The role of the task's column this metric reads beside the truth."""
        return "y_pred" if isinstance(self, _LabelTask) else "y_score"

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

    @property
    def merge_taken(self) -> Callable[[list[Any]], Any] | None:
        """The folded metric's merge of a list of states given away, when it has one.

        :class:`~scorekit.core.MergeTree` hands the states it gathered to a
        metric's ``merge_taken`` when it has one (which may empty the list and
        let go of each state as it merges it), else to ``merge_many``; a task's
        metric has one exactly when the folded metric has.

        Examples
        --------
        >>> from scorekit import parse_metric
        >>> from scorekit.classification import table_task
        >>> task = table_task("f.csv", "binary", ["y"], ["p"], None, None, None)
        >>> auc = task_metric(parse_metric("roc_auc"), task, None)
        >>> states = [auc.folded.summarize([0, 1], [0.2, 0.8]), auc.folded.summarize([1], [0.6])]
        >>> auc.compute(auc.merge_taken(states)), states
        (1.0, [])
        >>> task_metric(parse_metric("accuracy"), task, None).merge_taken is None
        True
        """
        taken: Callable[[list[Any]], Any] | None = getattr(self.folded, "merge_taken", None)
        return taken

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
        task = self.task
        if task.task == "regression" and len(task.true) == 1:
            y_true, second = y_true[:, 0], second[:, 0]
        data = TaskArrays(
            task.task,
            y_true,
            None if scores else second,
            second if scores else None,
            weight,
            self.pos_label,
            threshold=task.threshold,
        )
        args, kwargs = task_arguments(self.inner, data)
        return self.folded.summarize(*args, **kwargs, **keys)


@dataclasses.dataclass(frozen=True)
class _LabelTask(TaskMetric):
    @property
    def inputs(self) -> str:
        """Labels, indicator matrices or regression targets, by task."""
        return {"multilabel": "multilabel", "regression": "regression_multi"}.get(
            self.task.task, "labels"
        )

    def summarize(self, y_true: Any, y_pred: Any, sample_weight: Any = None, **keys: Any) -> Any:
        """The folded metric's state of one partition (``keys``: group, unit key, first row)."""
        return self._summarize(y_true, y_pred, sample_weight, False, keys)


@dataclasses.dataclass(frozen=True)
class _ScoreTask(TaskMetric):
    @property
    def inputs(self) -> str:
        """Scores of the positive class, of each class, or of each label, by task."""
        return "binary_scores" if self.task.threshold is not None else f"{self.task.task}_scores"

    def summarize(self, y_true: Any, y_score: Any, sample_weight: Any = None, **keys: Any) -> Any:
        """The folded metric's state of one partition (``keys``: group, unit key, first row)."""
        return self._summarize(y_true, y_score, sample_weight, True, keys)


def task_metric(
    metric: Metric[Any], task: TableTask, pos_label: Any, folded: Metric[Any] | None = None
) -> TaskMetric:
    """``metric`` reading ``task``'s columns; ``folded`` (default: the metric) is what is folded.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> from scorekit.classification import table_task
    >>> task = table_task("f.csv", "binary", ["y"], ["p"], None, None, None)
    >>> wrapped = task_metric(parse_metric("accuracy"), task, None)
    >>> wrapped.inputs, wrapped.name
    ('labels', 'accuracy')
    """
    labels = metric.inputs in LABEL_KINDS and task.threshold is None
    kind: type[TaskMetric] = _LabelTask if labels else _ScoreTask
    return kind(metric, task, pos_label, metric if folded is None else folded)
