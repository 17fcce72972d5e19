"""Prediction tables: how the columns of a task become the arguments of its metrics.

``scorekit eval`` reads a table of predictions: a truth column and the
predicted labels (``--pred``), scores (``--score``) or both, of one task
(binary, multiclass, multilabel, regression). :func:`table_task` checks the
flags and gives the :class:`TableTask`; :func:`task_metric` wraps a metric so
that any engine folds it over the task's columns; :func:`order_score_columns`
matches multiclass score columns to the classes by their names.
"""

from scorekit.classification._table._columns import (
    TruthClasses,
    column_classes,
    order_score_columns,
)
from scorekit.classification._table._task import (
    LABEL_KINDS,
    TASKS,
    TableTask,
    TaskArrays,
    default_metrics,
    table_task,
    task_arguments,
)
from scorekit.classification._table._wrapper import TaskMetric, task_metric

__all__ = [
    "LABEL_KINDS",
    "TASKS",
    "TableTask",
    "TaskArrays",
    "TaskMetric",
    "TruthClasses",
    "column_classes",
    "default_metrics",
    "order_score_columns",
    "table_task",
    "task_arguments",
    "task_metric",
]
