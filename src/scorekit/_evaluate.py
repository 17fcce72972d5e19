"""What ``scorekit eval`` computes: read the columns of a file and run metrics on them.

The command-line parsing and printing live in :mod:`scorekit.cli`; this module
turns a file, a task and column names into an :class:`Evaluation`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from scorekit.core import INPUT_KINDS, Metric, MetricInfo, State, get, parse_metric
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
    """What :func:`evaluate_table` found: values by metric name, warnings and skipped defaults.

    ``metrics`` and ``states`` hold the configured metric and the state of every
    reported value (what ``--save-state`` writes); ``columns`` the columns read
    by role, and ``options`` the settings that shaped the states beyond the
    metrics' own (``pos_label``).
    """

    values: dict[str, Any]
    warnings: list[str]
    skipped: list[str]
    rows: int
    metrics: dict[str, Metric[Any]] = dataclasses.field(default_factory=dict)
    states: dict[str, State] = dataclasses.field(default_factory=dict)
    columns: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    options: dict[str, Any] = dataclasses.field(default_factory=dict)


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


@dataclasses.dataclass(frozen=True)
class _Plan:
    """What every chunk of a file is evaluated with: the task, its columns and flags."""

    source: str
    task: str
    true: tuple[str, ...]
    pred: tuple[str, ...] | None
    score: tuple[str, ...] | None
    weight: str | None
    pos_label: str | None

    def columns(self) -> dict[str, list[str]]:
        """The columns read, by role (what a state file records)."""
        roles = {"y_true": self.true, "y_pred": self.pred, "y_score": self.score}
        out = {role: list(cols) for role, cols in roles.items() if cols}
        if self.weight:
            out["sample_weight"] = [self.weight]
        return out

    def needed(self) -> list[str]:
        """Every column read, in order."""
        return [*self.true, *(self.pred or ()), *(self.score or ()), *self.weight_columns()]

    def weight_columns(self) -> list[str]:
        """The weight column, if any, as a list."""
        return [self.weight] if self.weight else []


def _metric_for(
    spec: str, plan: _Plan, pos_label: Any, classes: NDArray[Any] | None
) -> Metric[Any]:
    """Configure ``spec`` for the task and check that the flags give it its inputs."""
    options = {} if pos_label is None else {"pos_label": pos_label}
    metric = _configure(spec, plan.task, options)
    if metric.inputs in _PRED_KINDS:
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


def _arguments(metric: Metric[Any], data: _Inputs) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments of ``metric.summarize`` for one chunk of the task's columns."""
    kind = metric.inputs
    second: Any
    if kind in _PRED_KINDS:
        second = data.y_pred
    else:
        second = data.y_score
        if data.task == "binary" and kind == "proba" and data.y_score is not None:
            second = np.column_stack([1.0 - data.y_score, data.y_score])
    kwargs: dict[str, Any] = {}
    if data.weight is not None:
        kwargs["sample_weight"] = data.weight
    first = data.y_true
    takes_pos_label = "pos_label" in _fields(metric.info)
    on_scores = kind not in _PRED_KINDS
    if data.task == "binary" and data.pos_label is not None and on_scores and not takes_pos_label:
        # the positive class is --pos-label: metrics without that option see 0/1 truth
        first = (data.y_true == data.pos_label).astype(np.int64)
    return (first, second), kwargs


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


def _plan(
    path: str,
    task: str,
    true: Sequence[str],
    pred: Sequence[str] | None,
    score: Sequence[str] | None,
    weight: str | None,
    pos_label: str | None,
) -> _Plan:
    _check_flags(task, true, pred, score)
    if task == "regression" and pos_label is not None:
        raise _usage_error("--pos-label is for --task binary", "--pos-label", "no --pos-label")
    return _Plan(
        str(path),
        task,
        tuple(true),
        tuple(pred) if pred else None,
        tuple(score) if score else None,
        weight,
        pos_label,
    )


def _inputs(plan: _Plan, table: Any, pos_label: Any) -> _Inputs:
    """The task's arrays from one table (a whole file or one chunk of it)."""
    from scorekit.io import _tables as _io

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
                _io.score_array(table, score[0])
                if task == "binary"
                else _io.score_matrix(table, score)
            )
    w = _io.weight_array(table, plan.weight) if plan.weight else None
    return _Inputs(task, y_true, y_pred, y_score, w, pos_label)


def _check_binary(plan: _Plan, classes: NDArray[Any]) -> None:
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
    from scorekit.io import _tables as _io

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


class _Tracked:
    """One metric of an evaluation: its configuration, merged state, and notes."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.metric: Metric[Any] | None = None
        self.tree: Any = None
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


def _evaluate_chunks(
    plan: _Plan,
    chunks: Iterable[Any],
    metrics: Sequence[str] | None,
    classes: NDArray[Any] | None = None,
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
        plan.task, has_pred=plan.pred is not None, has_score=plan.score is not None
    )
    tracked = [_Tracked(spec) for spec in specs]
    rows = 0
    pos_label: Any = None
    seen = np.empty(0)
    first = True
    for table in chunks:
        data = _inputs(plan, table, pos_label)
        if plan.task == "binary":
            seen = np.unique(data.y_true) if first else np.union1d(seen, data.y_true)
            _check_binary(plan, seen)
        if first:
            pos_label = data.pos_label = _pos_label(plan.pos_label, data.y_true)
            if classes is None and plan.task == "multiclass":
                classes = np.unique(data.y_true)
            for item in tracked:
                item.step(explicit, _configuring(item, plan, pos_label, classes))
            first = False
        rows += len(data.y_true)
        for item in tracked:
            item.step(explicit, _summarizing(item, data))
    if first:
        raise InputError(message(plan.source, "no data", None, "a table with rows"))
    for item in tracked:
        item.step(explicit, _computing(item))
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
    item: _Tracked, plan: _Plan, pos_label: Any, classes: NDArray[Any] | None
) -> Callable[[], None]:
    def work() -> None:
        item.metric = _metric_for(item.spec, plan, pos_label, classes)
        item.tree = _merge_tree(item.metric)

    return work


def _summarizing(item: _Tracked, data: _Inputs) -> Callable[[], None]:
    def work() -> None:
        metric = cast(Metric[Any], item.metric)
        args, kwargs = _arguments(metric, data)
        item.tree.add([metric.summarize(*args, **kwargs)])

    return work


def _computing(item: _Tracked) -> Callable[[], None]:
    def work() -> None:
        metric = cast(Metric[Any], item.metric)
        (item.state,) = item.tree.result()
        item.value = metric.compute(item.state)

    return work


def _merge_tree(metric: Metric[Any]) -> Any:
    """The stream engine's merge tree for one metric: ``add([state])``, then ``result()``."""
    from scorekit.core import MergeTree

    return MergeTree([metric])


def _classes_of(plan: _Plan, chunks: Iterable[Any]) -> NDArray[Any]:
    """The sorted classes of ``--true`` over all chunks (a first pass for multiclass scores)."""
    from scorekit.io import _tables as _io

    found: NDArray[Any] | None = None
    for table in chunks:
        labels = np.unique(_io.label_array(table, plan.true[0]))
        found = labels if found is None else np.union1d(found, labels)
    return found if found is not None else np.empty(0)


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
    engine: Any = None,
) -> Evaluation:
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
    ``engine``, the parsed command line of ``--engine dask``, runs the metrics on
    a Dask cluster instead (see :func:`scorekit._scale.dask_eval`).
    """
    plan = _plan(path, task, true, pred, score, weight, pos_label)
    if chunk_size is None and engine is None:
        from scorekit.io import _tables as _io

        return _evaluate_chunks(plan, [_io.read_table(path, columns=plan.needed())], metrics)
    from scorekit import _scale

    size = chunk_size or _scale.DEFAULT_CHUNK_SIZE
    classes = None
    if task == "multiclass" and score:
        classes = _scale.fold_file(
            path, [true[0]], size, False, lambda chunks: _classes_of(plan, chunks)
        )
    if engine is not None:
        return cast(Evaluation, _scale.dask_eval(plan, metrics, engine, classes))
    return _scale.fold_file(
        path,
        plan.needed(),
        size,
        progress,
        lambda chunks: _evaluate_chunks(plan, chunks, metrics, classes),
    )
