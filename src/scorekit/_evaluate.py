"""What ``scorekit eval`` computes: read the columns of a file and run metrics on them.

The command-line parsing and printing live in :mod:`scorekit.cli`; this module
turns a file, a task and column names into an :class:`Evaluation`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import warnings
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from scorekit._core import INPUT_KINDS, Metric, MetricInfo, get, parse_metric
from scorekit.errors import ConfigError, InputError, ScorekitError, choices, message, raw

__all__ = ["TASKS", "Evaluation", "default_metrics", "evaluate_table"]

TASKS = ("binary", "multiclass", "multilabel", "regression")
"""The tasks ``scorekit eval --task`` accepts."""

_REGRESSION_KINDS = ("regression", "regression_multi", "regression_positive")
_PRED_KINDS = ("binary_labels", "labels", "multilabel", *_REGRESSION_KINDS)
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
class Evaluation:
    """What :func:`evaluate_table` found: values by metric name, warnings and skipped defaults."""

    values: dict[str, Any]
    warnings: list[str]
    skipped: list[str]
    rows: int


@dataclasses.dataclass
class _Inputs:
    task: str
    y_true: NDArray[Any]
    y_pred: NDArray[Any] | None
    y_score: NDArray[np.float64] | None
    weight: NDArray[np.float64] | None
    pos_label: Any


def _fields(info: MetricInfo) -> set[str]:
    if dataclasses.is_dataclass(info.cls):
        return {f.name for f in dataclasses.fields(info.cls)}
    return set(inspect.signature(info.cls).parameters)


def _configure(spec: str, task: str, options: dict[str, Any]) -> Metric[Any]:
    """Build the metric for ``spec``, choosing one-vs-rest for multiclass scores if needed."""
    metric = parse_metric(spec)
    fields = _fields(metric.info)
    usable = {k: v for k, v in options.items() if k in fields}
    if usable:
        metric = parse_metric(spec, **usable)
    if task == "multiclass" and metric.inputs not in _TASK_KINDS[task] and "multi_class" in fields:
        with contextlib.suppress(ConfigError):
            ovr = parse_metric(spec, multi_class="ovr", **usable)
            if ovr.inputs in _TASK_KINDS[task]:
                return ovr
    regression = metric.inputs in _REGRESSION_KINDS
    if (task == "regression") != regression or (
        metric.inputs not in _PRED_KINDS and metric.inputs not in _SCORE_KINDS
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


def _class_labels(
    metric: Metric[Any], y_true: NDArray[Any], y_score: NDArray[np.float64]
) -> Metric[Any]:
    """Tell a multiclass-score metric which class each score column belongs to."""
    k = y_score.shape[1]
    classes = np.unique(y_true)
    if len(classes) == k:
        return metric
    if (
        y_true.dtype.kind in "iu"
        and classes.size
        and classes.min() >= 0
        and classes.max() < k
        and "labels" in _fields(metric.info)
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


def _run_one(spec: str, data: _Inputs) -> Any:
    options = {} if data.pos_label is None else {"pos_label": data.pos_label}
    metric = _configure(spec, data.task, options)
    kind = metric.inputs
    if kind in _PRED_KINDS:
        if data.y_pred is None:
            raise ConfigError(
                message(
                    spec, "needs predicted labels", raw("no --pred"), "--pred COL with the labels"
                )
            )
        second: NDArray[Any] = data.y_pred
    else:
        if data.y_score is None:
            raise ConfigError(
                message(spec, "needs scores", raw("no --score"), "--score COL with the scores")
            )
        second = data.y_score
        if data.task == "binary" and kind == "proba":
            second = np.column_stack([1.0 - data.y_score, data.y_score])
        if data.task == "multiclass":
            metric = _class_labels(metric, data.y_true, data.y_score)
    kwargs: dict[str, Any] = {}
    if data.weight is not None:
        if "sample_weight" not in inspect.signature(metric.summarize).parameters:
            raise ConfigError(
                message(spec, "does not take sample weights", raw("--weight"), "no --weight")
            )
        kwargs["sample_weight"] = data.weight
    first = data.y_true
    takes_pos_label = "pos_label" in _fields(metric.info)
    on_scores = kind not in _PRED_KINDS
    if data.task == "binary" and data.pos_label is not None and on_scores and not takes_pos_label:
        # the positive class is --pos-label: metrics without that option see 0/1 truth
        first = (data.y_true == data.pos_label).astype(np.int64)
    return metric.score(first, second, **kwargs)


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


def _load(
    path: str,
    task: str,
    true: Sequence[str],
    pred: Sequence[str] | None,
    score: Sequence[str] | None,
    weight: str | None,
    pos_label: str | None,
) -> _Inputs:
    from scorekit import _io

    _check_flags(task, true, pred, score)
    needed = [*true, *(pred or ()), *(score or ()), *([weight] if weight else [])]
    table = _io.read_table(path, columns=needed)
    y_score: NDArray[np.float64] | None = None
    y_true: NDArray[Any]
    y_pred: NDArray[Any] | None
    if task == "regression":
        if pos_label is not None:
            raise _usage_error("--pos-label is for --task binary", "--pos-label", "no --pos-label")
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
                _io.score_array(table, score[0])
                if task == "binary"
                else _io.score_matrix(table, score)
            )
    classes = np.unique(y_true) if task == "binary" else y_true[:0]
    if len(classes) > 2:
        raise InputError(
            message(
                f"{path}, column {true[0]!r}",
                "--task binary needs at most two classes",
                raw(f"{len(classes)} classes: {_preview(classes)}"),
                "two classes (or --task multiclass)",
            )
        )
    w = _io.weight_array(table, weight) if weight else None
    return _Inputs(task, y_true, y_pred, y_score, w, _pos_label(pos_label, y_true))


def _targets(table: Any, columns: Sequence[str]) -> NDArray[np.float64]:
    """Regression targets: one column as 1-D values, several as (samples x outputs)."""
    from scorekit import _io

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
) -> Evaluation:
    """Evaluate the columns of a file with the named metrics (or the task's defaults).

    Named metrics must all apply: any problem raises. Default metrics that do not
    apply to the data (scores that are not probabilities for ``log_loss``, say)
    are skipped and reported in ``skipped``.
    """
    data = _load(path, task, true, pred, score, weight, pos_label)
    explicit = bool(metrics)
    specs = list(dict.fromkeys(metrics or ())) or default_metrics(
        task, has_pred=data.y_pred is not None, has_score=data.y_score is not None
    )
    values: dict[str, Any] = {}
    skipped: list[str] = []
    seen: list[str] = []
    for spec in specs:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                values[spec] = _run_one(spec, data)
            except ScorekitError as exc:
                if explicit:
                    raise
                skipped.append(str(exc))
                continue
        for w in caught:
            text = str(w.message)
            if text not in seen:
                seen.append(text)
    return Evaluation(values=values, warnings=seen, skipped=skipped, rows=len(data.y_true))
