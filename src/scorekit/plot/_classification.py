"""Figures of classification: ROC, precision-recall, reliability, confusion matrix, scores."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.classification import (
    Accuracy,
    CalibrationCurveMetric,
    CalibrationHistogram,
    ConfusionCounts,
    ConfusionMatrix,
    ExpectedCalibrationError,
    PRCurveMetric,
    ROCCurveMetric,
    ScoreHistogram,
)
from scorekit.errors import InputError, message, raw
from scorekit.plot._common import as_written, axes, state_of

__all__ = ["calibration", "confusion_matrix", "pr", "roc", "score_distribution"]

Float = NDArray[np.float64]


def _column(state: ScoreHistogram, column: int) -> tuple[Float, Float, Float]:
    """Descending thresholds with cumulative true and false positives of one score column."""
    lo, hi = np.searchsorted(state.key, [column, column + 1])
    counts = state.counts[lo:hi]
    return (
        state.score[lo:hi][::-1].astype(np.float64, copy=False),
        np.cumsum(counts[::-1, 1], dtype=np.float64),
        np.cumsum(counts[::-1, 0], dtype=np.float64),
    )


def _columns(state: ScoreHistogram) -> list[tuple[str, tuple[Float, Float, Float]]]:
    return [(str(state.labels[c]), _column(state, c)) for c in range(state.n_columns)]


def _name(name: str | None, fallback: str) -> str:
    return fallback if name is None else name


def _with_area(label: str, what: str, area: float) -> str:
    """A curve's legend entry with the area it stands for: ``model (AUC 0.873)``."""
    return f"{label} ({what} {area:.3f})" if np.isfinite(area) else f"{label} ({what} undefined)"


def _from_zero(cumulative: Float) -> Any:
    """A cumulative count as a share of its total, from 0 (``[0.0]`` without a total)."""
    if cumulative.size and cumulative[-1]:
        return np.concatenate([[0.0], cumulative / cumulative[-1]])
    return [0.0]


def _unit_square(ax: Any, xlabel: str, ylabel: str, legend: str) -> None:
    """Label the axes of a curve on [0, 1] x [0, 1] and place its legend."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(-0.01, 1.01)
    ax.legend(loc=legend, fontsize="small")


@as_written
def roc(
    y_true: Any,
    y_score: Any = None,
    *,
    sample_weight: Any = None,
    pos_label: Any = None,
    name: str | None = None,
    ax: Any = None,
) -> Any:
    """The ROC curve, from labels and scores or a :class:`~scorekit.classification.ScoreHistogram`.

    Binary states give the curve of :func:`~scorekit.classification.roc_curve`
    (every threshold); multiclass and multilabel states one one-vs-rest curve
    per column.

    Examples
    --------
    >>> ax = roc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], name="model")
    >>> ax.lines[0].get_xdata().tolist()
    [0.0, 0.0, 0.5, 0.5, 1.0]
    >>> ax.lines[0].get_label()   # the legend says the area: roc_auc of the same data
    'model (AUC 0.750)'
    """
    where = "scorekit.plot.roc"
    metric = ROCCurveMetric(pos_label=pos_label)
    state = state_of(where, y_true, y_score, metric, sample_weight)
    ax = axes(ax, where)
    if state.task in ("multiclass", "multilabel"):
        for label, (_, tps, fps) in _columns(state):
            x, y = _from_zero(fps), _from_zero(tps)
            area = float(np.trapezoid(y, x)) if len(x) == len(y) > 1 else math.nan
            ax.plot(x, y, label=_with_area(label, "AUC", area))
    else:
        curve = metric.compute(state)
        area = float(np.trapezoid(curve.tpr, curve.fpr)) if len(curve.fpr) > 1 else math.nan
        ax.plot(curve.fpr, curve.tpr, label=_with_area(_name(name, "ROC"), "AUC", area))
    ax.plot([0, 1], [0, 1], linestyle=":", color="grey", linewidth=1)
    _unit_square(ax, "False positive rate", "True positive rate", "lower right")
    return ax


@as_written
def pr(
    y_true: Any,
    y_score: Any = None,
    *,
    sample_weight: Any = None,
    pos_label: Any = None,
    name: str | None = None,
    ax: Any = None,
) -> Any:
    """The precision-recall curve, from labels and scores or a score histogram.

    Binary states give the points of :func:`~scorekit.classification.pr_curve`,
    drawn as steps; multiclass and multilabel states one curve per column.

    Examples
    --------
    >>> ax = pr([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> ax.lines[0].get_ydata().tolist()
    [0.5, 0.6666666666666666, 0.5, 1.0, 1.0]
    >>> ax.lines[0].get_label()   # average_precision of the same data
    'PR (AP 0.833)'
    """
    where = "scorekit.plot.pr"
    metric = PRCurveMetric(pos_label=pos_label)
    state = state_of(where, y_true, y_score, metric, sample_weight)
    ax = axes(ax, where)
    if state.task in ("multiclass", "multilabel"):
        for label, (_, tps, fps) in _columns(state):
            if not tps.size or not tps[-1]:
                continue
            precision = tps / np.maximum(tps + fps, 1e-300)
            recall = tps / tps[-1]
            area = float(np.sum(np.diff(recall, prepend=0.0) * precision))
            ax.plot(recall, precision, drawstyle="steps-post", label=_with_area(label, "AP", area))
    else:
        curve = metric.compute(state)
        recall, precision = np.asarray(curve.recall), np.asarray(curve.precision)
        area = float(-np.sum(np.diff(recall) * precision[:-1])) if recall.size > 1 else math.nan
        label = _with_area(_name(name, "PR"), "AP", area)
        ax.plot(recall, precision, drawstyle="steps-post", label=label)
    _unit_square(ax, "Recall", "Precision", "lower left")
    return ax


def _as_calibration(where: str, state: ScoreHistogram, pos_label: Any) -> CalibrationHistogram:
    """The calibration histogram of a score histogram's probabilities (1-D: positive class)."""
    if state.score.size and (state.score.min() < 0 or state.score.max() > 1):
        raise InputError(
            message(
                where,
                "the scores are not probabilities",
                raw(f"scores in [{state.score.min():g}, {state.score.max():g}]"),
                "scores in [0, 1]",
            )
        )
    weight = state.counts.sum(axis=1).astype(np.float64)
    count = np.rint(weight).astype(np.int64)
    if state.task == "binary":
        labels = state.labels
        if pos_label is None:
            pos = labels.size - 1 if labels.dtype.kind != "U" else -1
            if labels.dtype.kind != "U" and set(labels.tolist()) <= {-1, 0, 1}:
                hits_at = np.flatnonzero(labels == 1)
                pos = int(hits_at[0]) if hits_at.size else -1
        else:
            found = np.flatnonzero(labels == pos_label) if labels.size else np.empty(0)
            pos = int(found[0]) if found.size else -1
        method, n_columns = "binary", 0
        key = np.zeros(state.key.size, dtype=np.int64)
        hits = np.where(state.key == pos, weight, 0.0)
    else:
        method, n_columns = "class_wise", state.n_columns
        key, hits = state.key, state.counts[:, 1].astype(np.float64)
    return CalibrationHistogram(
        method=method,
        n_columns=n_columns,
        n_samples=state.n_samples,
        labels=state.labels,
        key=key,
        # float32 scores widened: the calibration's percentiles are taken in float64
        score=state.score.astype(np.float64, copy=False),
        count=count,
        weight=weight,
        hits=hits,
    )


def _rows_reduced(state: CalibrationHistogram) -> CalibrationHistogram:
    """A binary calibration histogram with one row per distinct score."""
    if state.method != "binary" or state.score.size < 2 or np.all(np.diff(state.score) > 0):
        return state
    order = np.argsort(state.score, kind="stable")
    s = state.score[order]
    starts = np.flatnonzero(np.concatenate([[True], s[1:] != s[:-1]]))
    return dataclasses.replace(
        state,
        key=np.zeros(starts.size, dtype=np.int64),
        score=s[starts],
        count=np.add.reduceat(state.count[order], starts),
        weight=np.add.reduceat(state.weight[order], starts),
        hits=np.add.reduceat(state.hits[order], starts),
    )


@as_written
def calibration(
    y_true: Any,
    y_proba: Any = None,
    *,
    n_bins: int = CalibrationCurveMetric.n_bins,
    strategy: str = "uniform",
    method: str = "binary",
    pos_label: Any = None,
    sample_weight: Any = None,
    name: str | None = None,
    ax: Any = None,
) -> Any:
    """Reliability diagram with the histogram of the probabilities, from data or a state.

    The points are those of :func:`~scorekit.classification.calibration_curve`
    (``prob_pred`` against ``prob_true``); grey bars on a second axis show the
    share of the samples in each bin. Takes a
    :class:`~scorekit.classification.CalibrationHistogram` (class-wise: one
    curve per class) or a score histogram of probabilities (ROC AUC's state).
    ``n_bins`` defaults to that of
    :func:`~scorekit.classification.calibration_curve` (5, as scikit-learn's
    ``calibration_curve`` and ``CalibrationDisplay``); the calibration errors
    default to 15 bins, as torchmetrics and Guo et al. (2017) compute them.

    Examples
    --------
    >>> ax = calibration([0, 0, 1, 1], [0.1, 0.6, 0.4, 0.9], n_bins=2)
    >>> ax.lines[1].get_ydata().tolist()
    [0.5, 0.5]
    """
    where = "scorekit.plot.calibration"
    metric = ExpectedCalibrationError(
        n_bins=n_bins,
        strategy=strategy,  # type: ignore[arg-type]
        method=method,  # type: ignore[arg-type]
        pos_label=pos_label,
    )
    state = y_true
    if not isinstance(state, CalibrationHistogram | ScoreHistogram):
        state = state_of(where, y_true, y_proba, metric, sample_weight)
    if isinstance(state, ScoreHistogram):
        state = _as_calibration(where, state, pos_label)
    state = _rows_reduced(state)
    ax = axes(ax, where)
    ax.plot([0, 1], [0, 1], linestyle=":", color="grey", linewidth=1, label="perfectly calibrated")
    keys = range(state.n_keys) if state.method else range(0)
    total = max(float(state.weight.sum()) / max(len(keys), 1), 1e-300)
    bars = ax.twinx()
    for c in keys:
        bins = state.bins(n_bins, strategy, c)
        prob_true, prob_pred = bins.curve()
        label = _name(name, "model") if state.method != "class_wise" else str(state.labels[c])
        if state.method == "class_wise" and state.labels.size != state.n_columns:
            label = f"column {c}"
        ax.plot(prob_pred, prob_true, marker="o", markersize=3, label=label)
        if len(keys) == 1:
            edges = bins.edges
            bars.bar(
                edges[:-1],
                bins.weight[: edges.size - 1] / total,
                width=np.diff(edges),
                align="edge",
                color="grey",
                alpha=0.25,
            )
    bars.set_ylabel("Share of samples")
    bars.set_ylim(0, 1)
    ax.set_zorder(bars.get_zorder() + 1)
    ax.patch.set_visible(False)
    _unit_square(ax, "Mean predicted probability", "Fraction of positives", "upper left")
    return ax


@as_written
def confusion_matrix(
    y_true: Any,
    y_pred: Any = None,
    *,
    normalize: str | None = None,
    sample_weight: Any = None,
    ax: Any = None,
) -> Any:
    """The confusion matrix (counts, or normalised over ``'true'``, ``'pred'`` or ``'all'``).

    Takes labels or :class:`~scorekit.classification.ConfusionCounts` (the
    state of accuracy, precision, recall, F1 ...). Rows are true classes.

    Examples
    --------
    >>> ax = confusion_matrix(["cat", "dog", "cat"], ["cat", "cat", "cat"])
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['cat', 'dog']
    """
    where = "scorekit.plot.confusion_matrix"
    state = state_of(where, y_true, y_pred, Accuracy(), sample_weight)
    if not isinstance(state, ConfusionCounts) or state.matrix.ndim != 2:
        raise InputError(
            message(
                where,
                "not the counts of single-label classes",
                type(state).__name__,
                "ConfusionCounts",
            )
        )
    matrix = ConfusionMatrix(normalize=normalize).compute(state)  # type: ignore[arg-type]
    labels = [str(v) for v in state.labels.tolist()]
    ax = axes(ax, where)
    ax.imshow(matrix, cmap="Blues", vmin=0)
    k = len(labels)
    ax.set_xticks(range(k), labels, rotation=45 if k > 3 else 0, ha="right" if k > 3 else "center")
    ax.set_yticks(range(k), labels)
    if k <= 20:
        top = float(np.max(matrix)) if matrix.size else 0.0
        for (i, j), value in np.ndenumerate(matrix):
            text = f"{value:.2f}" if normalize else f"{value:g}"
            color = "white" if top and value > top / 2 else "black"
            ax.text(j, i, text, ha="center", va="center", color=color, fontsize="small")
    ax.set_xlabel("Predicted class")
    ax.set_ylabel("True class")
    return ax


@as_written
def score_distribution(
    y_true: Any,
    y_score: Any = None,
    *,
    bins: int = 20,
    sample_weight: Any = None,
    ax: Any = None,
) -> Any:
    """Histograms of the scores of each true class (binary) or of each column's positives.

    Drawn from a score histogram, so its cost does not grow with the rows.

    Examples
    --------
    >>> ax = score_distribution([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], bins=4)
    >>> len(ax.patches)
    2
    """
    where = "scorekit.plot.score_distribution"
    state = state_of(where, y_true, y_score, ROCCurveMetric(), sample_weight)
    ax = axes(ax, where)
    if state.score.size:
        lo, hi = float(state.score.min()), float(state.score.max())
        edges = np.linspace(lo, hi if hi > lo else lo + 1, bins + 1)
        binary = state.task == "binary"
        labels = state.labels.tolist()
        for c in range(len(labels) if binary else state.n_columns):
            rows = state.key == c
            w = state.counts[rows, 0 if binary else 1].astype(np.float64)
            ax.hist(state.score[rows], bins=edges, weights=w, histtype="step", label=str(labels[c]))
        ax.legend(title="true class", fontsize="small")
    ax.set_xlabel("Score")
    ax.set_ylabel("Samples")
    return ax
