"""The tasks of a prediction table: columns by role, metrics by task.

A task (binary, multiclass, multilabel, regression) says how the columns of a
table become each metric's arguments: which metrics apply, which of ``--pred`` /
``--score`` they read, the type of ``--pos-label``, ``[1 - p, p]`` for class
probabilities of a binary task, labels from a ``--threshold`` on scores, and the
classes of multiclass score columns.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import math
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from scorekit.core import (
    INPUT_KINDS,
    Metric,
    MetricInfo,
    get,
    option_names,
    parse_metric,
    parse_metrics,
)
from scorekit.errors import ConfigError, InputError, choices, message, raw

__all__ = ["TASKS", "TableTask", "TaskArrays", "default_metrics", "table_task", "task_arguments"]

TASKS = ("binary", "multiclass", "multilabel", "regression")
"""The tasks ``scorekit eval --task`` accepts."""

_REGRESSION_KINDS = ("regression", "regression_multi", "regression_positive")
LABEL_KINDS = ("binary_labels", "labels", "multilabel", *_REGRESSION_KINDS)
_SCORE_KINDS = (
    "binary_scores",
    "multiclass_scores",
    "multilabel_scores",
    "binary_proba",
    "proba",
)
_TASK_KINDS = {
    "binary": ("binary_labels", "labels", "binary_scores", "binary_proba"),
    "multiclass": ("labels", "multiclass_scores", "proba"),
    "multilabel": ("multilabel", "multilabel_scores"),
    "regression": _REGRESSION_KINDS,
}

_DEFAULTS_PRED = {
    "binary": ("accuracy", "precision", "recall", "f1", "mcc"),
    "multiclass": (
        "accuracy",
        "balanced_accuracy",
        "f1:macro",
        "f1:weighted",
        "mcc",
        "cohen_kappa",
    ),
    "multilabel": ("subset_accuracy", "hamming_loss", "f1:samples", "f1:micro", "f1:macro"),
    "regression": (
        "mae",
        "mse",
        "rmse",
        "medae",
        "max_error",
        "r2",
        "explained_variance",
        "mape",
        "smape",
        "wmape",
    ),
}
_DEFAULTS_SCORE = {
    "binary": ("roc_auc", "average_precision", "log_loss"),
    "multiclass": ("roc_auc", "log_loss"),
    "multilabel": (
        "label_ranking_average_precision",
        "ranking_loss",
        "coverage_error",
        "one_error",
    ),
    "regression": (),
}


def default_metrics(task: str, *, has_pred: bool, has_score: bool) -> list[str]:
    """The metrics ``scorekit eval`` reports when none are named, for those registered.

    Examples
    --------
    >>> default_metrics("binary", has_pred=True, has_score=False)
    ['accuracy', 'precision', 'recall', 'f1', 'mcc']
    """
    names = list(_DEFAULTS_PRED[task]) if has_pred else []
    if has_score:
        names += _DEFAULTS_SCORE[task]
    return [n for n in names if _registered(n)]


def _registered(spec: str) -> bool:
    try:
        get(spec.split(":")[0].split("@")[0])
    except ConfigError:
        return False
    return True


# evaluation --------------------------------------------------------------------


@dataclasses.dataclass
class TaskArrays:
    """The arrays of a task read from one table (a whole file or one chunk of it)."""

    task: str
    y_true: NDArray[Any]
    y_pred: NDArray[Any] | None
    y_score: NDArray[np.float64] | None
    weight: NDArray[np.float64] | None
    pos_label: Any
    unit_key: NDArray[Any] | None = None
    group: tuple[NDArray[Any], ...] | None = None
    threshold: float | None = None


def _fields(info: MetricInfo) -> set[str]:
    if dataclasses.is_dataclass(info.cls):
        return {f.name for f in dataclasses.fields(info.cls)}
    return set(inspect.signature(info.cls).parameters)


def _configure(spec: str, task: str, options: dict[str, Any]) -> Metric[Any]:
    """Build the metric for ``spec``, choosing one-vs-rest for multiclass scores if needed."""
    (metric,) = parse_metrics([spec], options, strict=False)
    fields = _fields(metric.info)
    usable = {k: v for k, v in options.items() if k in option_names(metric)}
    if task == "multiclass" and metric.inputs not in _TASK_KINDS[task] and "multi_class" in fields:
        with contextlib.suppress(ConfigError):
            ovr = parse_metric(spec, multi_class="ovr", **usable)
            if ovr.inputs in _TASK_KINDS[task]:
                return ovr
    regression = metric.inputs in _REGRESSION_KINDS
    if (task == "regression") != regression or (
        metric.inputs not in LABEL_KINDS and metric.inputs not in _SCORE_KINDS
    ):
        expected = "a regression metric" if task == "regression" else "a metric of labels or scores"
        raise ConfigError(
            message(
                spec,
                f"does not apply to --task {task}",
                raw(f"input kind {metric.inputs!r} ({INPUT_KINDS.get(metric.inputs, '?')})"),
                expected,
            )
        )
    return metric


def _class_labels(metric: Metric[Any], classes: NDArray[Any], k: int) -> Metric[Any]:
    """Tell a multiclass-score metric which class each of the ``k`` score columns belongs to.

    ``classes`` are the sorted classes of ``--true`` over all the data. The
    metric is given them as ``labels`` (so that chunks holding only some classes
    give states of the same classes), or ``range(k)`` for integer classes that
    miss some column.
    """
    configurable = "labels" in _fields(metric.info)
    if len(classes) == k:
        if not configurable:
            return metric
        named: Metric[Any] = dataclasses.replace(cast(Any, metric), labels=tuple(classes.tolist()))
        return named
    if (
        classes.dtype.kind in "iu"
        and classes.size
        and classes.min() >= 0
        and classes.max() < k
        and configurable
    ):
        configured: Metric[Any] = dataclasses.replace(cast(Any, metric), labels=tuple(range(k)))
        return configured
    raise InputError(
        message(
            metric.name,
            "score columns do not match the classes",
            raw(f"{k} --score columns for {len(classes)} classes in --true"),
            "one score column per class, in the sorted order of the classes",
        )
    )


def task_arguments(metric: Metric[Any], data: TaskArrays) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments of ``metric.summarize`` for one chunk of the task's columns."""
    kind = metric.inputs
    second: Any
    if kind in LABEL_KINDS:
        second = data.y_pred
    else:
        second = data.y_score
        if data.task == "binary" and kind == "proba" and data.y_score is not None:
            p = data.y_score.astype(np.float64, copy=False)
            second = np.column_stack([1.0 - p, p])
    kwargs: dict[str, Any] = {}
    if data.weight is not None:
        kwargs["sample_weight"] = data.weight
    first = data.y_true
    if data.threshold is not None and kind in LABEL_KINDS and data.y_score is not None:
        if data.pos_label is None and data.y_true.dtype.kind == "U":
            raise _usage_error(
                "--threshold needs the positive class of text labels",
                "no --pos-label",
                "--pos-label LABEL",
            )
        positive = 1 if data.pos_label is None else data.pos_label
        first = (data.y_true == positive).astype(np.int64)
        # compared in float64, as the threshold was given
        second = (data.y_score.astype(np.float64, copy=False) >= data.threshold).astype(np.int64)
        return (first, second), kwargs
    takes_pos_label = "pos_label" in _fields(metric.info)
    on_scores = kind not in LABEL_KINDS
    if data.task == "binary" and data.pos_label is not None and on_scores and not takes_pos_label:
        # the positive class is --pos-label: metrics without that option see 0/1 truth
        first = (data.y_true == data.pos_label).astype(np.int64)
    return (first, second), kwargs


@dataclasses.dataclass(frozen=True)
class TableTask:
    """What every chunk of a table is evaluated with: the task, its columns and flags.

    Built by :func:`table_task`, which checks the flags. ``source`` names the
    table in messages; ``true``, ``pred`` and ``score`` are the columns of each
    role; ``key`` a column of unit keys, ``by`` the group columns.

    Examples
    --------
    >>> task = table_task("preds.csv", "binary", ["y"], ["p"], None, None, None)
    >>> task.columns()
    {'y_true': ['y'], 'y_pred': ['p']}
    """

    source: str
    task: str
    true: tuple[str, ...]
    pred: tuple[str, ...] | None
    score: tuple[str, ...] | None
    weight: str | None
    pos_label: str | None
    key: str | None = None
    by: tuple[str, ...] = ()
    threshold: float | None = None

    def columns(self) -> dict[str, list[str]]:
        """The columns read, by role (what a state file records)."""
        roles = {"y_true": self.true, "y_pred": self.pred, "y_score": self.score}
        out = {role: list(cols) for role, cols in roles.items() if cols}
        if self.weight:
            out["sample_weight"] = [self.weight]
        if self.by:
            out["group"] = list(self.by)
        return out

    def needed(self) -> list[str]:
        """Every column read, in order."""
        named = [*self.true, *(self.pred or ()), *(self.score or ()), *self.weight_columns()]
        named += [self.key] if self.key and self.key not in named else []
        return named + [c for c in self.by if c not in named]

    def weight_columns(self) -> list[str]:
        """The weight column, if any, as a list."""
        return [self.weight] if self.weight else []

    def metric(self, spec: str, pos_label: Any, classes: NDArray[Any] | None) -> Metric[Any]:
        """Configure ``spec`` for the task and check that the flags give it its inputs."""
        return _metric_for(spec, self, pos_label, classes)

    def arrays(self, table: Any, pos_label: Any) -> TaskArrays:
        """The task's arrays from one table (a whole file or one chunk of it)."""
        return _inputs(self, table, pos_label)

    def positive(self, y_true: NDArray[Any]) -> Any:
        """``--pos-label`` read as a value of the same type as the labels ``y_true``."""
        return _pos_label(self.pos_label, y_true)

    def check_classes(self, classes: NDArray[Any]) -> None:
        """Raise when a binary task's truth has more than two classes."""
        _check_binary(self, classes)


def _metric_for(
    spec: str, plan: TableTask, pos_label: Any, classes: NDArray[Any] | None
) -> Metric[Any]:
    """Configure ``spec`` for the task and check that the flags give it its inputs."""
    options = {} if pos_label is None else {"pos_label": pos_label}
    metric = _configure(spec, plan.task, options)
    if metric.inputs in LABEL_KINDS and plan.threshold is not None:
        # labels from thresholded scores: 0/1 truth and predictions, 1 the positive class
        metric = _configure(spec, plan.task, {})
    elif metric.inputs in LABEL_KINDS:
        if not plan.pred:
            raise ConfigError(
                message(
                    spec, "needs predicted labels", raw("no --pred"), "--pred COL with the labels"
                )
            )
    else:
        if not plan.score:
            raise ConfigError(
                message(spec, "needs scores", raw("no --score"), "--score COL with the scores")
            )
        if plan.task == "multiclass" and classes is not None:
            metric = _class_labels(metric, classes, len(plan.score))
    if plan.weight and "sample_weight" not in inspect.signature(metric.summarize).parameters:
        raise ConfigError(
            message(spec, "does not take sample weights", raw("--weight"), "no --weight")
        )
    return metric


def _usage_error(problem: str, got: str, expected: str) -> ConfigError:
    return ConfigError(message("scorekit eval", problem, raw(got), expected))


def _check_flags(
    task: str, true: Sequence[str], pred: Sequence[str] | None, score: Sequence[str] | None
) -> None:
    """Check the number of columns given to each flag, before reading any file."""
    if task not in TASKS:
        raise ConfigError(message("scorekit eval", "unknown --task", task, choices(TASKS)))
    if task == "regression":
        if score:
            raise _usage_error(
                "--task regression compares --pred with --true",
                "--score",
                "--pred COL with the predicted values",
            )
        if not pred:
            raise _usage_error("nothing to evaluate", "no --pred", "--pred COL")
        if len(pred) != len(true):
            raise _usage_error(
                "--pred must name one column per --true column",
                f"{len(pred)} columns for {len(true)} targets",
                f"{len(true)} columns",
            )
        return
    if not pred and not score:
        raise _usage_error("nothing to evaluate", "no --pred or --score", "--pred, --score or both")
    if task == "multilabel":
        for flag, cols in (("--pred", pred), ("--score", score)):
            if cols and len(cols) != len(true):
                raise _usage_error(
                    f"{flag} must name one column per --true column",
                    f"{len(cols)} columns for {len(true)} labels",
                    f"{len(true)} columns",
                )
        return
    for flag, cols in (("--true", true), ("--pred", pred)):
        if cols and len(cols) != 1:
            raise _usage_error(
                f"--task {task} takes one {flag} column",
                f"{len(cols)} columns",
                "one column (several are for --task multilabel)",
            )
    if score and task == "binary" and len(score) != 1:
        raise _usage_error(
            "--task binary takes one --score column (the positive class)",
            f"{len(score)} columns",
            "one column",
        )
    if score and task == "multiclass" and len(score) < 2:
        raise _usage_error(
            "--task multiclass takes one --score column per class",
            f"{len(score)} column",
            "at least two columns, in the sorted order of the classes",
        )


def table_task(
    path: str,
    task: str,
    true: Sequence[str],
    pred: Sequence[str] | None,
    score: Sequence[str] | None,
    weight: str | None,
    pos_label: str | None,
    key: str | None = None,
    by: Sequence[str] | None = None,
    threshold: float | None = None,
) -> TableTask:
    """The task of a table's columns, its flags checked before any file is read.

    Raises :class:`~scorekit.errors.ConfigError` naming the flag when the columns
    given to ``--true``, ``--pred`` and ``--score`` do not fit ``task``, when
    ``threshold`` is given to anything but binary scores, or when ``by`` does
    not name distinct columns.

    Examples
    --------
    >>> table_task("f.csv", "regression", ["y"], None, ["s"], None, None)
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: scorekit eval: --task regression compares --pred with --true; ...
    """
    _check_flags(task, true, pred, score)
    if threshold is not None:
        if task != "binary" or not score or pred:
            raise _usage_error(
                "--threshold turns binary --score values into labels",
                f"--task {task}"
                + (" with --pred" if pred else "")
                + ("" if score else " no --score"),
                "--task binary with --score and no --pred",
            )
        if not math.isfinite(threshold):
            raise _usage_error("invalid --threshold", repr(threshold), "a finite number")
    if task == "regression" and pos_label is not None:
        raise _usage_error("--pos-label is for --task binary", "--pos-label", "no --pos-label")
    return TableTask(
        str(path),
        task,
        tuple(true),
        tuple(pred) if pred else None,
        tuple(score) if score else None,
        weight,
        pos_label,
        key,
        _by(by),
        threshold,
    )


def _by(by: Sequence[str] | None) -> tuple[str, ...]:
    """The group columns of ``--by``, checked: distinct column names."""
    if by is None:
        return ()
    names = (by,) if isinstance(by, str) else tuple(by)
    if (
        not names
        or not all(isinstance(n, str) and n for n in names)
        or len(set(names)) != len(names)
    ):
        raise _usage_error("invalid --by", repr(by), "distinct column names")
    return names


def _inputs(plan: TableTask, table: Any, pos_label: Any) -> TaskArrays:
    """The task's arrays from one table (a whole file or one chunk of it)."""
    from scorekit import io as _io

    task, true, pred, score = plan.task, plan.true, plan.pred, plan.score
    y_score: NDArray[np.float64] | None = None
    y_true: NDArray[Any]
    y_pred: NDArray[Any] | None
    if task == "regression":
        y_true = _targets(table, true)
        y_pred = _targets(table, pred or ())
    elif task == "multilabel":
        y_true = _io.label_matrix(table, true)
        y_pred = _io.label_matrix(table, pred) if pred else None
        y_score = _io.score_matrix(table, score) if score else None
    else:
        y_true = _io.label_array(table, true[0])
        y_pred = _io.label_array(table, pred[0]) if pred else None
        if score:
            y_score = (
                _io.score_array(table, score[0], keep_float32=True)
                if task == "binary"
                else _io.score_matrix(table, score)
            )
    w = _io.weight_array(table, plan.weight) if plan.weight else None
    unit_key = _io.label_array(table, plan.key) if plan.key else None
    group = _io.group_arrays(table, plan.by) if plan.by else None
    return TaskArrays(task, y_true, y_pred, y_score, w, pos_label, unit_key, group, plan.threshold)


def _check_binary(plan: TableTask, classes: NDArray[Any]) -> None:
    if plan.task == "binary" and len(classes) > 2:
        raise InputError(
            message(
                f"{plan.source}, column {plan.true[0]!r}",
                "--task binary needs at most two classes",
                raw(f"{len(classes)} classes: {_preview(classes)}"),
                "two classes (or --task multiclass)",
            )
        )


def _targets(table: Any, columns: Sequence[str]) -> NDArray[np.float64]:
    """Regression targets: one column as 1-D values, several as (samples x outputs)."""
    from scorekit import io as _io

    if len(columns) == 1:
        return _io.score_array(table, columns[0])
    return _io.score_matrix(table, columns)


def _preview(values: NDArray[Any], limit: int = 5) -> str:
    shown = ", ".join(repr(v) for v in values[:limit].tolist())
    return shown + (", ..." if len(values) > limit else "")


def _pos_label(text: str | None, y_true: NDArray[Any]) -> Any:
    """Read ``--pos-label`` as a value of the same type as the labels."""
    if text is None:
        return None
    kind = y_true.dtype.kind
    try:
        if kind in "iu":
            return int(text)
        if kind == "f":
            return float(text)
        if kind == "b":
            lowered = text.strip().lower()
            if lowered not in ("true", "false", "1", "0"):
                raise ValueError(text)
            return lowered in ("true", "1")
    except ValueError:
        raise ConfigError(
            message(
                "scorekit eval",
                "--pos-label does not match the type of the labels",
                text,
                f"a value like {y_true[0].item()!r}" if y_true.size else "a label",
            )
        ) from None
    return text
