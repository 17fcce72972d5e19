"""Score-based classification metrics: ROC and PR curves, ROC AUC, average precision, BEP.

Every metric here computes from one exact, mergeable state, :class:`ScoreHistogram`:
for each distinct score, the (weighted) number of samples of each kind at that
score. Merging adds counts on the union of scores, so streamed, chunked and
distributed results are the in-memory result (exactly for unweighted counts).
Ties form one step of every curve, as in scikit-learn.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np
from numpy.typing import NDArray

from scorekit._check import (
    as_array,
    as_labels,
    as_scores,
    as_weights,
    check_same_length,
    union_labels,
)
from scorekit._core import Metric, State, register, state_field
from scorekit.errors import (
    ConfigError,
    InputError,
    StateMismatchError,
    UndefinedMetricWarning,
    choices,
    message,
    raw,
)

__all__ = [
    "ROCAUC",
    "AveragePrecision",
    "BreakEvenPoint",
    "PRCurveMetric",
    "PrCurve",
    "ROCCurveMetric",
    "RocCurve",
    "ScoreHistogram",
    "average_precision",
    "break_even_point",
    "pr_curve",
    "roc_auc",
    "roc_curve",
]

Float = NDArray[np.float64]
Average = Literal["micro", "macro", "weighted", "samples"] | None
AVERAGES: tuple[str | None, ...] = ("micro", "macro", "weighted", "samples", None)
_VARIANTS = ("micro", "macro", "weighted", "samples")
_MULTI_CLASS = ("raise", "ovr")
_INTERPOLATIONS = (None, "11point", "all")
_MANY_LABELS = 16


class RocCurve(NamedTuple):
    """Points of a ROC curve, by decreasing threshold (unpacks as ``fpr, tpr, thresholds``)."""

    fpr: Float
    tpr: Float
    thresholds: Float


class PrCurve(NamedTuple):
    """Points of a precision-recall curve (unpacks as ``precision, recall, thresholds``)."""

    precision: Float
    recall: Float
    thresholds: Float


# the state ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ScoreHistogram(State):
    """Exact sufficient statistics of scores: a histogram over distinct score values.

    Rows ``(key[i], score[i], counts[i])`` are sorted by key, then score, with
    one row per distinct pair. For 1-D scores (``task='binary'``) the key is the
    index of the true label in ``labels`` (every ``y_true`` value seen, so the
    positive class is chosen at compute time) and ``counts`` has one column.
    For 2-D scores (``'multiclass'``, ``'multilabel'``) the key is the column
    of ``y_score`` and ``counts`` holds ``[negatives, positives]``; for
    multiclass, ``labels`` are the classes of the columns. Counts are int64
    without sample weights, float64 sums of weights with them. Samples of zero
    weight add no row. ``sample_values`` keeps per-sample values (with their
    weights) when ``average='samples'`` asked for them (``per_sample`` names
    the metric).
    """

    task: str = state_field("custom")
    labels: NDArray[Any] = state_field("custom")
    n_columns: int = state_field("custom")
    n_samples: int = state_field("custom")
    key: NDArray[np.int64] = state_field("custom")
    score: Float = state_field("custom")
    counts: NDArray[Any] = state_field("custom")
    per_sample: str = state_field("custom")
    sample_values: Float = state_field("custom")
    sample_weights: Float = state_field("custom")

    @classmethod
    def empty(cls) -> ScoreHistogram:
        """The state of no data."""
        return cls(
            task="",
            labels=np.empty(0, dtype=np.int64),
            n_columns=0,
            n_samples=0,
            key=np.empty(0, dtype=np.int64),
            score=np.empty(0, dtype=np.float64),
            counts=np.zeros((0, 0), dtype=np.int64),
            per_sample="",
            sample_values=np.empty(0, dtype=np.float64),
            sample_weights=np.empty(0, dtype=np.float64),
        )

    def _merge_custom(self, other: ScoreHistogram) -> dict[str, Any]:
        if not self.task:
            return _fields(other)
        if not other.task:
            return _fields(self)
        name = "score histogram"
        if self.task != other.task:
            raise StateMismatchError(
                message(name, "cannot merge states of different tasks", other.task, self.task)
            )
        if self.per_sample != other.per_sample:
            raise StateMismatchError(
                message(
                    name,
                    "cannot merge states with and without per-sample values",
                    other.per_sample or "none",
                    repr(self.per_sample or "none"),
                )
            )
        if self.task == "binary":
            labels = union_labels(name, self.labels, other.labels)
            keys = [
                np.searchsorted(labels, part.labels).astype(np.int64)[part.key]
                for part in (self, other)
            ]
        else:
            if self.n_columns != other.n_columns:
                raise StateMismatchError(
                    message(name, "states differ in columns", other.n_columns, str(self.n_columns))
                )
            if not np.array_equal(self.labels, other.labels):
                raise StateMismatchError(
                    message(
                        name,
                        "states differ in classes",
                        other.labels.tolist(),
                        f"{self.labels.tolist()}; pass labels= to fix the classes",
                    )
                )
            labels = self.labels
            keys = [self.key, other.key]
        key, score, counts = _reduce_rows(
            np.concatenate(keys),
            np.concatenate([self.score, other.score]),
            np.concatenate([self.counts, other.counts]),
        )
        return {
            "task": self.task,
            "labels": labels,
            "n_columns": self.n_columns,
            "n_samples": self.n_samples + other.n_samples,
            "key": key,
            "score": score,
            "counts": counts,
            "per_sample": self.per_sample,
            "sample_values": np.concatenate([self.sample_values, other.sample_values]),
            "sample_weights": np.concatenate([self.sample_weights, other.sample_weights]),
        }


def _fields(state: ScoreHistogram) -> dict[str, Any]:
    return {
        "task": state.task,
        "labels": state.labels,
        "n_columns": state.n_columns,
        "n_samples": state.n_samples,
        "key": state.key,
        "score": state.score,
        "counts": state.counts,
        "per_sample": state.per_sample,
        "sample_values": state.sample_values,
        "sample_weights": state.sample_weights,
    }


def _starts(sorted_values: Float) -> NDArray[np.intp]:
    """Indices where a run of equal values starts in a sorted array."""
    if sorted_values.size == 0:
        return np.empty(0, dtype=np.intp)
    change = np.flatnonzero(sorted_values[1:] != sorted_values[:-1]) + 1
    return np.concatenate([np.zeros(1, dtype=np.intp), change])


def _reduce_rows(
    key: NDArray[np.int64], score: Float, counts: NDArray[Any]
) -> tuple[NDArray[np.int64], Float, NDArray[Any]]:
    """Sort rows by (key, score) and add the counts of equal rows."""
    if key.size == 0:
        return key.astype(np.int64), score, counts
    order = np.lexsort((score, key))
    key, score, counts = key[order], score[order], counts[order]
    new = np.ones(key.size, dtype=bool)
    new[1:] = (key[1:] != key[:-1]) | (score[1:] != score[:-1])
    starts = np.flatnonzero(new)
    return key[starts].astype(np.int64), score[starts], np.add.reduceat(counts, starts, axis=0)


def _hist(s: Float, w: Float | None) -> tuple[Float, NDArray[Any]]:
    """Distinct values of ``s`` (ascending) and their counts or summed weights."""
    if w is None:
        ss = np.sort(s)
        starts = _starts(ss)
        counts: NDArray[Any] = np.diff(np.append(starts, ss.size)).astype(np.int64)
    else:
        order = np.argsort(s, kind="stable")
        ss = s[order]
        starts = _starts(ss)
        counts = np.add.reduceat(w[order], starts) if starts.size else np.empty(0, dtype=np.float64)
    # adding 0.0 turns -0.0 into 0.0, so equal scores have one representation
    return ss[starts] + 0.0, counts


def _split_labels(y: NDArray[Any]) -> tuple[NDArray[Any], list[NDArray[np.bool_]] | None]:
    """Sorted distinct labels and, for few labels, one mask per label."""
    if y.dtype.kind in "biu" and y.size:
        lo, hi = y.min(), y.max()
        if lo == hi:
            return np.asarray([lo]), [np.ones(y.size, dtype=bool)]
        if y.dtype.kind == "b" or int(hi) - int(lo) == 1:
            upper = y == hi
            return np.asarray([lo, hi]), [~upper, upper]
    values = np.unique(y)
    if values.size > _MANY_LABELS:
        return values, None
    return values, [y == v for v in values]


def _binary_summary(y: NDArray[Any], s: Float, w: Float | None) -> ScoreHistogram:
    n = int(y.size)
    values, masks = _split_labels(y)
    if w is not None:
        keep = w != 0
        if not keep.all():
            y, s, w = y[keep], s[keep], w[keep]
            masks = None if masks is None else [m[keep] for m in masks]
    width = 1
    if masks is None:
        codes = np.searchsorted(values, y).astype(np.int64)
        cnt = np.ones((y.size, width), dtype=np.int64) if w is None else w[:, None]
        key, score, counts = _reduce_rows(codes, s + 0.0, cnt)
    else:
        keys, scores, parts = [], [], []
        for j, mask in enumerate(masks):
            u, c = _hist(s[mask], None if w is None else w[mask])
            keys.append(np.full(u.size, j, dtype=np.int64))
            scores.append(u)
            parts.append(c)
        key, score = np.concatenate(keys), np.concatenate(scores)
        counts = np.concatenate(parts)[:, None]
    return _state("binary", values, 0, n, key, score, counts)


def _state(
    task: str,
    labels: NDArray[Any],
    n_columns: int,
    n_samples: int,
    key: NDArray[np.int64],
    score: Float,
    counts: NDArray[Any],
    per_sample: str = "",
    sample_values: Float | None = None,
    sample_weights: Float | None = None,
) -> ScoreHistogram:
    return ScoreHistogram(
        task=task,
        labels=labels,
        n_columns=n_columns,
        n_samples=n_samples,
        key=key,
        score=score,
        counts=counts,
        per_sample=per_sample,
        sample_values=np.empty(0) if sample_values is None else sample_values,
        sample_weights=np.empty(0) if sample_weights is None else sample_weights,
    )


def _union2(un: Float, cn: NDArray[Any], up: Float, cp: NDArray[Any]) -> tuple[Float, NDArray[Any]]:
    """Align a negative and a positive histogram on the union of their scores."""
    s = np.concatenate([un, up])
    dtype = np.result_type(cn.dtype, cp.dtype)
    c = np.zeros((s.size, 2), dtype=dtype)
    c[: un.size, 0] = cn
    c[un.size :, 1] = cp
    if s.size == 0:
        return s, c
    order = np.argsort(s, kind="stable")
    s, c = s[order], c[order]
    starts = _starts(s)
    return s[starts], np.add.reduceat(c, starts, axis=0)


def _column_summary(
    task: str,
    labels: NDArray[Any],
    pos: NDArray[np.bool_],
    s: Float,
    w: Float | None,
    per_sample: str,
) -> ScoreHistogram:
    n, k = s.shape
    if w is not None:
        keep = w != 0
        if not keep.all():
            pos, s, w = pos[keep], s[keep], w[keep]
    keys, scores, parts = [], [], []
    for c in range(k):
        col, here = s[:, c], pos[:, c]
        un, cn = _hist(col[~here], None if w is None else w[~here])
        up, cp = _hist(col[here], None if w is None else w[here])
        u, cc = _union2(un, cn, up, cp)
        keys.append(np.full(u.size, c, dtype=np.int64))
        scores.append(u)
        parts.append(cc)
    values = weights = None
    if per_sample:
        values = _row_values(per_sample, pos, s)
        weights = np.ones(values.size) if w is None else w.copy()
    return _state(
        task,
        labels,
        k,
        n,
        np.concatenate(keys),
        np.concatenate(scores),
        np.concatenate(parts),
        per_sample,
        values,
        weights,
    )


def _row_values(kind: str, pos: NDArray[np.bool_], s: Float) -> Float:
    """Per-row ROC AUC or step-wise AP of each row's scores against its 0/1 labels."""
    n, k = s.shape
    if n == 0:
        return np.empty(0, dtype=np.float64)
    order = np.argsort(s, axis=1, kind="stable")
    ss = np.take_along_axis(s, order, axis=1)
    yy = np.take_along_axis(pos, order, axis=1).astype(np.float64)
    new = np.ones((n, k), dtype=bool)
    new[:, 1:] = ss[:, 1:] != ss[:, :-1]
    flat = new.ravel()
    gid = np.cumsum(flat) - 1
    groups = int(gid[-1]) + 1
    pos_g = np.bincount(gid, weights=yy.ravel(), minlength=groups)
    cnt_g = np.bincount(gid, minlength=groups).astype(np.float64)
    row_g = np.flatnonzero(flat) // k
    first_g = gid[np.arange(n) * k]
    n_pos = yy.sum(axis=1)
    n_neg = k - n_pos
    if kind == "roc_auc":
        neg_g = cnt_g - pos_g
        below = np.cumsum(neg_g) - neg_g
        below = below - below[first_g][row_g]
        area = np.bincount(row_g, weights=pos_g * (below + 0.5 * neg_g), minlength=n)
        with np.errstate(divide="ignore", invalid="ignore"):
            out: Float = np.where((n_pos > 0) & (n_neg > 0), area / (n_pos * n_neg), np.nan)
        return out
    # step-wise AP: each group's new positives times precision at its threshold
    pos_below = np.cumsum(pos_g) - pos_g
    pos_below = pos_below - pos_below[first_g][row_g]
    cnt_below = np.cumsum(cnt_g) - cnt_g
    cnt_below = cnt_below - cnt_below[first_g][row_g]
    precision = (n_pos[row_g] - pos_below) / (k - cnt_below)
    total = np.bincount(row_g, weights=pos_g * precision, minlength=n)
    with np.errstate(divide="ignore", invalid="ignore"):
        ap: Float = np.where(n_pos > 0, total / n_pos, 0.0)
    return ap


# reading the state ---------------------------------------------------------------------


def _require_data(metric: str, state: ScoreHistogram) -> None:
    if not state.task:
        raise InputError(message(metric, "empty input", raw("0 samples"), "at least one sample"))
    if state.score.size == 0:
        raise InputError(
            message(metric, "every sample has zero weight", raw("sample_weight all 0"), "some > 0")
        )


def _find(labels: NDArray[Any], value: Any) -> int:
    """Index of ``value`` among ``labels``, or -1 (also when types cannot match)."""
    if (labels.dtype.kind == "U") != isinstance(value, str | np.str_):
        return -1
    hits = np.flatnonzero(labels == value)
    return int(hits[0]) if hits.size else -1


def _cumulative(score: Float, pos: NDArray[Any], neg: NDArray[Any]) -> tuple[Float, Float, Float]:
    """Thresholds (descending) with the true- and false-positive totals at each."""
    thresholds = score[::-1]
    tps = np.cumsum(pos[::-1], dtype=np.float64)
    fps = np.cumsum(neg[::-1], dtype=np.float64)
    return thresholds, tps, fps


def _binary_arrays(state: ScoreHistogram, pos_idx: int) -> tuple[Float, Float, Float]:
    """Descending thresholds, tps and fps for the positive label ``pos_idx``."""
    c = state.counts[:, 0]
    key, score = state.key, state.score
    lo, hi = (int(i) for i in np.searchsorted(key, [pos_idx, pos_idx + 1]))
    distinct = int(np.count_nonzero(key[1:] != key[:-1])) + 1 if key.size else 0
    n_neg_keys = distinct - int(lo < hi)
    if lo == hi and n_neg_keys <= 1:
        return _cumulative(score, np.zeros_like(c), c)
    if n_neg_keys == 0:
        return _cumulative(score, c, np.zeros_like(c))
    zeros = np.zeros_like(c)
    if n_neg_keys == 1:
        # one positive and one negative run, each of distinct scores: merge the two
        sn = np.concatenate([score[:lo], score[hi:]])
        cn = np.concatenate([c[:lo], c[hi:]])
        s = np.concatenate([score[lo:hi], sn])
        pos = np.concatenate([c[lo:hi], zeros[: sn.size]])
        neg = np.concatenate([zeros[: hi - lo], cn])
        order = np.argsort(s, kind="stable")
        s, pos, neg = s[order], pos[order], neg[order]
        starts = _starts(s)
        pair = np.flatnonzero(np.diff(np.append(starts, s.size)) == 2)
        pos_u, neg_u = pos[starts], neg[starts]
        pos_u[pair] += pos[starts[pair] + 1]
        neg_u[pair] += neg[starts[pair] + 1]
        return _cumulative(s[starts], pos_u, neg_u)
    is_pos = key == pos_idx
    pos = np.where(is_pos, c, zeros)
    neg = np.where(is_pos, zeros, c)
    order = np.argsort(score, kind="stable")
    s = score[order]
    starts = _starts(s)
    return _cumulative(
        s[starts], np.add.reduceat(pos[order], starts), np.add.reduceat(neg[order], starts)
    )


def _column_arrays(state: ScoreHistogram, column: int | None) -> tuple[Float, Float, Float]:
    """Descending thresholds, tps and fps of one column, or of all pooled (``None``)."""
    if column is None:
        order = np.argsort(state.score, kind="stable")
        s = state.score[order]
        starts = _starts(s)
        counts = np.add.reduceat(state.counts[order], starts, axis=0)
        return _cumulative(s[starts], counts[:, 1], counts[:, 0])
    lo, hi = np.searchsorted(state.key, [column, column + 1])
    counts = state.counts[lo:hi]
    return _cumulative(state.score[lo:hi], counts[:, 1], counts[:, 0])


def _roc_points(
    metric: str, thresholds: Float, tps: Float, fps: Float, drop_intermediate: bool, warn: bool
) -> RocCurve:
    if drop_intermediate and fps.size > 2:
        corner = np.logical_or(np.diff(fps, 2), np.diff(tps, 2))
        keep = np.flatnonzero(np.concatenate([[True], corner, [True]]))
        fps, tps, thresholds = fps[keep], tps[keep], thresholds[keep]
    tps = np.concatenate([[0.0], tps])
    fps = np.concatenate([[0.0], fps])
    thresholds = np.concatenate([[np.inf], thresholds])
    if fps[-1] <= 0:
        if warn:
            _warn(metric, "no negative samples in y_true; the false positive rate is undefined")
        fpr = np.full(fps.shape, np.nan)
    else:
        fpr = fps / fps[-1]
    if tps[-1] <= 0:
        if warn:
            _warn(metric, "no positive samples in y_true; the true positive rate is undefined")
        tpr = np.full(tps.shape, np.nan)
    else:
        tpr = tps / tps[-1]
    return RocCurve(fpr, tpr, thresholds)


def _pr_points(
    metric: str, thresholds: Float, tps: Float, fps: Float, drop_intermediate: bool, warn: bool
) -> PrCurve:
    if drop_intermediate and fps.size > 2:
        change = np.logical_or(np.diff(tps[:-1]), np.diff(tps[1:]))
        keep = np.flatnonzero(np.concatenate([[True], change, [True]]))
        fps, tps, thresholds = fps[keep], tps[keep], thresholds[keep]
    ps = tps + fps
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(ps != 0, tps / np.where(ps != 0, ps, 1.0), 0.0)
    if tps[-1] == 0:
        if warn:
            _warn(metric, "no positive samples in y_true; recall is set to 1 at every threshold")
        recall = np.ones(tps.shape)
    else:
        recall = tps / tps[-1]
    return PrCurve(
        np.concatenate([precision[::-1], [1.0]]),
        np.concatenate([recall[::-1], [0.0]]),
        thresholds[::-1].copy(),
    )


def _warn(metric: str, text: str) -> None:
    warnings.warn(f"{metric}: {text}.", UndefinedMetricWarning, stacklevel=4)


def _auc_value(
    metric: str, arrays: tuple[Float, Float, Float], max_fpr: float | None
) -> tuple[float, bool]:
    """ROC AUC (McClish-corrected partial AUC with ``max_fpr``); flag if undefined."""
    thresholds, tps, fps = arrays
    if tps.size == 0 or tps[-1] <= 0 or fps[-1] <= 0:
        return math.nan, True
    fpr, tpr, _ = _roc_points(metric, thresholds, tps, fps, True, False)
    if max_fpr is None or max_fpr == 1:
        return float(np.trapezoid(tpr, fpr)), False
    stop = int(np.searchsorted(fpr, max_fpr, "right"))
    y_end = np.interp(max_fpr, fpr[stop - 1 : stop + 1], tpr[stop - 1 : stop + 1])
    tpr = np.append(tpr[:stop], y_end)
    fpr = np.append(fpr[:stop], max_fpr)
    area = float(np.trapezoid(tpr, fpr))
    lo, hi = 0.5 * max_fpr**2, max_fpr
    return 0.5 * (1 + (area - lo) / (hi - lo)), False


def _ap_value(
    metric: str, arrays: tuple[Float, Float, Float], interpolation: str | None
) -> tuple[float, bool]:
    """Average precision (step-wise, 11-point or all-point); flag if no positives."""
    thresholds, tps, fps = arrays
    if tps.size == 0 or tps[-1] <= 0:
        return 0.0, True
    precision, recall, _ = _pr_points(metric, thresholds, tps, fps, False, False)
    if interpolation is None:
        return float(max(0.0, -np.sum(np.diff(recall) * precision[:-1]))), False
    # operating points by decreasing threshold (recall non-decreasing), no end point
    p, r = precision[-2::-1], recall[-2::-1]
    if interpolation == "11point":
        best = np.maximum.accumulate(p[::-1])[::-1]
        at = np.searchsorted(r, np.arange(11) / 10, side="left")
        values = np.where(at < r.size, best[np.minimum(at, r.size - 1)], 0.0)
        return float(np.mean(values)), False
    mrec = np.concatenate([[0.0], r, [1.0]])
    mpre = np.concatenate([[0.0], p, [0.0]])
    mpre = np.maximum.accumulate(mpre[::-1])[::-1]
    step = np.flatnonzero(mrec[1:] != mrec[:-1])
    return float(np.sum((mrec[step + 1] - mrec[step]) * mpre[step + 1])), False


def _positive_index(metric: str, labels: NDArray[Any], pos_label: Any) -> int:
    """scikit-learn's rule: pos_label if given, else 1 for {0, 1}, {-1, 1} and subsets."""
    if pos_label is None:
        allowed = ([0, 1], [-1, 1], [0], [-1], [1])
        ok = labels.dtype.kind != "U" and any(
            labels.size == len(a) and bool(np.all(labels == np.asarray(a))) for a in allowed
        )
        if not ok:
            raise InputError(
                message(
                    metric,
                    "pos_label is needed for these labels",
                    labels.tolist(),
                    "labels in {0, 1} or {-1, 1}, or an explicit pos_label",
                )
            )
        pos_label = 1
    return _find(labels, pos_label)


def _binary_state(metric: str, state: ScoreHistogram) -> ScoreHistogram:
    _require_data(metric, state)
    if state.task != "binary":
        raise InputError(
            message(
                metric,
                "needs 1-D scores of one positive class",
                raw(f"a {state.task} score matrix"),
                "y_score of shape (n,)",
            )
        )
    if state.score.size == 0:
        raise InputError(
            message(metric, "every sample has zero weight", raw("sample_weight all 0"), "some > 0")
        )
    return state


def _average(metric: str, values: Float, support: Float, average: Average, bad: list[int]) -> Any:
    if bad:
        _warn(metric, f"undefined for columns {bad} (one class only); their value is nan or 0")
    if average is None:
        return values
    if average == "weighted":
        if np.isclose(np.sum(support), 0.0):
            return 0.0
        values = np.where(support == 0, 0.0, values)
        return float(np.average(values, weights=support))
    return float(np.mean(values))


def _multi_task_checks(metric: str, state: ScoreHistogram, average: Average) -> None:
    if average == "samples" and state.per_sample != metric:
        raise InputError(
            message(
                metric,
                "average='samples' needs per-sample values in the state",
                raw("a state summarized without them"),
                "a state summarized with average='samples'",
            )
        )


def _samples_mean(metric: str, state: ScoreHistogram) -> float:
    values, weights = state.sample_values, state.sample_weights
    if weights.size == 0 or weights.sum() == 0:
        _warn(metric, "no sample has a positive weight; the samples average is undefined")
        return math.nan
    if np.isnan(values).any():
        _warn(metric, "undefined for samples whose labels are all 0 or all 1")
    return float(np.average(values, weights=weights))


def _classes(
    metric: str, y: NDArray[Any], k: int, labels: tuple[Any, ...] | None
) -> tuple[NDArray[Any], NDArray[np.intp]]:
    """The classes of the score columns and the column of each sample."""
    if labels is not None:
        classes = np.asarray(labels)
        if classes.size != k:
            raise InputError(
                message(
                    metric,
                    "labels and the columns of y_score differ in number",
                    raw(f"{classes.size} labels for {k} columns"),
                    "one label per column",
                )
            )
        if (classes.dtype.kind == "U") != (y.dtype.kind == "U"):
            raise InputError(
                message(metric, "y_true and labels differ in type", y[:1].tolist(), "same type")
            )
        codes = np.minimum(np.searchsorted(classes, y), k - 1)
        bad = np.flatnonzero(classes[codes] != y)
        if bad.size:
            i = int(bad[0])
            raise InputError(
                message(
                    metric,
                    "y_true contains a label not in labels",
                    raw(f"{y[i].item()!r} at index {i}"),
                    choices(classes.tolist()),
                )
            )
        return classes, codes.astype(np.intp)
    if y.dtype.kind in "biu" and (y.size == 0 or (int(y.min()) >= 0 and int(y.max()) < k)):
        return np.arange(k, dtype=np.int64), y.astype(np.intp)
    classes = np.unique(y)
    if classes.size != k:
        raise InputError(
            message(
                metric,
                "the classes in y_true do not match the columns of y_score",
                raw(f"{classes.size} classes for {k} columns"),
                "labels= listing the class of each column, or integer labels in range(n_columns)",
            )
        )
    return classes, np.searchsorted(classes, y).astype(np.intp)


def _labels_tuple(metric: str, labels: Any) -> tuple[Any, ...] | None:
    if labels is None:
        return None
    arr = as_labels(metric, "labels", labels)
    uniq = np.unique(arr)
    if uniq.size != arr.size:
        raise ConfigError(message(metric, "labels contain duplicates", arr.tolist(), "distinct"))
    if not np.array_equal(uniq, arr):
        raise ConfigError(
            message(metric, "labels must be sorted", arr.tolist(), f"{uniq.tolist()}")
        )
    return tuple(arr.tolist())


# metrics --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _HistogramMetric(Metric[ScoreHistogram]):
    """Shared plumbing of the metrics whose state is :class:`ScoreHistogram`."""

    def empty(self) -> ScoreHistogram:
        """The state of no data."""
        return ScoreHistogram.empty()

    def _class_labels(self) -> tuple[Any, ...] | None:
        return None

    def _per_sample(self, task: str) -> str:
        return ""

    def _check_multiclass(self, s: Float) -> None:
        """Reject 2-D scores with 1-D labels when the configuration does not allow them."""

    def summarize(self, y_true: Any, y_score: Any, sample_weight: Any = None) -> ScoreHistogram:
        """Histogram one batch of ``(y_true, y_score)``."""
        name = self.name
        s = as_scores(name, "y_score", y_score, ndim=(1, 2))
        if s.ndim == 2 and s.shape[1] == 1:
            s = s[:, 0]
        t = as_array(name, "y_true", y_true)
        multilabel = t.ndim == 2 and t.shape[1] > 1
        if not multilabel:
            t = as_labels(name, "y_true", t)
        n = check_same_length(name, y_true=t, y_score=s)
        w = as_weights(name, sample_weight, n)
        if s.ndim == 1:
            if multilabel:
                raise InputError(
                    message(
                        name,
                        "y_true is a 2-D indicator matrix but y_score is 1-D",
                        raw(f"shapes {t.shape} and {s.shape}"),
                        "y_score of the same shape as y_true",
                    )
                )
            return self.empty() if n == 0 else _binary_summary(t, s, w)
        k = s.shape[1]
        if multilabel:
            if t.shape != s.shape:
                raise InputError(
                    message(
                        name,
                        "y_true and y_score differ in shape",
                        raw(f"{t.shape} and {s.shape}"),
                        "equal shapes",
                    )
                )
            if t.dtype.kind not in "biuf" or not np.all((t == 0) | (t == 1)):
                bad = np.argwhere(~((t == 0) | (t == 1)))[0] if t.dtype.kind in "biuf" else [0, 0]
                raise InputError(
                    message(
                        name,
                        "y_true must be a 0/1 indicator matrix",
                        raw(f"{t[tuple(bad)].item()!r} at index {tuple(int(b) for b in bad)}"),
                        "0 or 1",
                    )
                )
            if n == 0:
                return self.empty()
            per_sample = self._per_sample("multilabel")
            return _column_summary("multilabel", np.arange(k), t == 1, s, w, per_sample)
        self._check_multiclass(s)
        classes, codes = _classes(name, t, k, self._class_labels())
        if n == 0:
            return self.empty()
        pos = codes[:, None] == np.arange(k)
        per_sample = self._per_sample("multiclass")
        return _column_summary("multiclass", classes, pos, s, w, per_sample)

    def _columns(self, state: ScoreHistogram, value: Any) -> tuple[Float, Float, list[int]]:
        """Per-column values, positive support and the columns where undefined."""
        k = state.n_columns
        values = np.empty(k)
        bad = []
        for c in range(k):
            values[c], undefined = value(_column_arrays(state, c))
            if undefined:
                bad.append(c)
        support = np.bincount(state.key, weights=state.counts[:, 1], minlength=k)
        return values, support.astype(np.float64), bad


def _average_check(metric: str, average: Any) -> None:
    if average not in AVERAGES:
        raise ConfigError(message(metric, "unknown average", average, choices(AVERAGES)))


def _inputs(average: Average) -> str:
    return "binary_scores" if average == "macro" else "multilabel_scores"


@register(
    "roc_auc",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="binary_scores",
    variant="average",
    variants=_VARIANTS,
    grows=True,
)
@dataclass(frozen=True)
class ROCAUC(_HistogramMetric):
    """Area under the ROC curve: the chance a positive outranks a negative (ties count 1/2).

    .. math:: \\mathrm{AUC} = P(s^+ > s^-) + \\tfrac12 P(s^+ = s^-)
              = \\int_0^1 \\mathrm{TPR}\\, d\\mathrm{FPR}

    computed exactly as the trapezoidal area under the ROC curve of
    :func:`roc_curve`, whose steps are the distinct scores.

    Parameters
    ----------
    average : {'macro', 'micro', 'weighted', 'samples'} or None, default 'macro'
        For 2-D scores: ``macro`` is the mean of per-column AUCs, ``weighted``
        weights them by the (weighted) number of positives, ``micro`` pools
        every (label, score) pair into one binary problem, ``samples`` averages
        per-sample AUCs (multi-label only), ``None`` returns one value per
        column. Ignored for 1-D scores.
    max_fpr : float in (0, 1], optional
        Return the standardized partial AUC over ``FPR <= max_fpr`` with the
        McClish correction (0.5 for a random ranking, 1 for a perfect one).
        Not available for multiclass input.
    multi_class : {'raise', 'ovr'}, default 'raise'
        For 1-D labels with 2-D scores (multiclass): ``'ovr'`` computes each
        class against the rest; ``'raise'`` rejects multiclass input. One-vs-one
        (Hand & Till, ``'ovo'``) is not provided and raises a ConfigError.
    labels : sequence, optional
        Multiclass only: the sorted classes of the columns of ``y_score``.
        Without it, integer labels in ``range(n_columns)`` name their column,
        and other labels must have exactly ``n_columns`` distinct values in
        every summarized batch (pass ``labels`` when streaming such data).

    Notes
    -----
    Input shapes decide the task: 1-D ``y_score`` is binary (the positive class
    is the greater label, as in scikit-learn), 2-D ``y_score`` with a 2-D 0/1
    ``y_true`` is multi-label, 2-D ``y_score`` with 1-D ``y_true`` is
    multiclass (rows must sum to 1). When ``y_true`` holds one class only (or
    a column has no positive or no negative) the AUC is undefined: nan and an
    :class:`~scorekit.errors.UndefinedMetricWarning`, as scikit-learn >= 1.6
    does. Where scikit-learn raises because a class in ``range(n_columns)`` is
    absent from ``y_true``, this metric computes (that class's AUC is nan).
    Empty input raises an InputError. The state is exact and grows with the
    number of distinct scores.

    References
    ----------
    Fawcett, T. (2006). An introduction to ROC analysis. *Pattern Recognition
    Letters* 27(8). McClish, D. K. (1989). Analyzing a portion of the ROC
    curve. *Medical Decision Making* 9(3). Agrees with scikit-learn's
    ``roc_auc_score``.

    Examples
    --------
    >>> ROCAUC().score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> ROCAUC(multi_class="ovr").score(
    ...     [0, 1, 2, 2], [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.3, 0.6], [0.3, 0.3, 0.4]]
    ... )
    1.0
    """

    average: Average = "macro"
    max_fpr: float | None = None
    multi_class: Literal["raise", "ovr"] = "raise"
    labels: tuple[Any, ...] | None = None

    def __post_init__(self) -> None:
        _average_check(self.name, self.average)
        multi_class: str = self.multi_class
        if multi_class == "ovo":
            raise ConfigError(
                self._error("one-vs-one (Hand & Till) is not supported", "ovo", "'ovr'")
            )
        if self.multi_class not in _MULTI_CLASS:
            raise ConfigError(
                self._error("unknown multi_class", self.multi_class, choices(_MULTI_CLASS))
            )
        if self.max_fpr is not None:
            ok = isinstance(self.max_fpr, int | float) and not isinstance(self.max_fpr, bool)
            if not ok or not 0 < self.max_fpr <= 1:
                raise ConfigError(self._error("invalid max_fpr", self.max_fpr, "0 < max_fpr <= 1"))
        object.__setattr__(self, "labels", _labels_tuple(self.name, self.labels))

    @property
    def inputs(self) -> str:
        """Binary scores by default; multiclass with ``'ovr'``; multi-label otherwise."""
        if self.multi_class == "ovr" and self.average != "samples":
            return "multiclass_scores"
        return _inputs(self.average)

    def _class_labels(self) -> tuple[Any, ...] | None:
        return self.labels

    def _per_sample(self, task: str) -> str:
        if self.average == "samples" and task == "multiclass":
            raise InputError(
                self._error(
                    "average='samples' is not defined for multiclass ROC AUC",
                    "samples",
                    "one of 'micro', 'macro', 'weighted', None",
                )
            )
        return self.name if self.average == "samples" else ""

    def _check_multiclass(self, s: Float) -> None:
        if self.multi_class == "raise":
            raise InputError(
                self._error(
                    "2-D y_score with 1-D y_true is multiclass, which needs multi_class='ovr'",
                    raw(f"y_score of shape {s.shape}"),
                    "multi_class='ovr', or 1-D scores for a binary task",
                )
            )
        sums = s.sum(axis=1)
        bad = np.flatnonzero(~(np.abs(sums - 1) <= 1e-8 + 1e-5 * np.abs(sums)))
        if bad.size:
            i = int(bad[0])
            raise InputError(
                self._error(
                    "multiclass scores must be probabilities whose rows sum to 1",
                    raw(f"row {i} sums to {sums[i].item()!r}"),
                    "rows summing to 1",
                )
            )

    def compute(self, state: ScoreHistogram) -> Any:
        """The AUC (a float), or per-column AUCs when ``average=None`` on 2-D scores."""
        name = self.name
        _require_data(name, state)

        def value(arrays: tuple[Float, Float, Float]) -> tuple[float, bool]:
            return _auc_value(name, arrays, self.max_fpr)

        if state.task == "binary":
            if state.labels.size > 2:
                raise InputError(
                    self._error(
                        "y_true has more than two classes but y_score is 1-D",
                        raw(f"{state.labels.size} classes"),
                        "2-D y_score (n, n_classes) with multi_class='ovr'",
                    )
                )
            if state.labels.size < 2:
                _warn(name, "only one class is present in y_true; ROC AUC is undefined")
                return math.nan
            auc, undefined = value(_binary_arrays(state, 1))
            if undefined:
                _warn(name, "only one class has a positive weight; ROC AUC is undefined")
            return auc
        if state.task == "multiclass" and self.max_fpr is not None and self.max_fpr != 1:
            raise InputError(
                self._error(
                    "partial AUC (max_fpr) is not available for multiclass input",
                    self.max_fpr,
                    "max_fpr=None",
                )
            )
        _multi_task_checks(name, state, self.average)
        if self.average == "samples":
            return _samples_mean(name, state)
        if self.average == "micro":
            auc, undefined = value(_column_arrays(state, None))
            if undefined:
                _warn(name, "the pooled labels hold one class only; ROC AUC is undefined")
            return auc
        values, support, bad = self._columns(state, value)
        return _average(name, values, support, self.average, bad)


@register(
    "average_precision",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="binary_scores",
    variant="average",
    variants=_VARIANTS,
    grows=True,
    aliases=("ap",),
)
@dataclass(frozen=True)
class AveragePrecision(_HistogramMetric):
    """Average precision: precision at each threshold weighted by the recall it adds.

    .. math:: \\mathrm{AP} = \\sum_n (R_n - R_{n-1}) P_n

    over the distinct scores taken as thresholds in decreasing order (ties form
    one step), with no interpolation, as scikit-learn's
    ``average_precision_score``.

    Parameters
    ----------
    average : {'macro', 'micro', 'weighted', 'samples'} or None, default 'macro'
        For 2-D scores (multi-label, or multiclass one-vs-rest): as in
        :class:`ROCAUC`. Ignored for 1-D scores.
    pos_label : label, default 1
        The positive class of 1-D ``y_true``; fixed to 1 for 2-D scores.
    interpolation : {None, '11point', 'all'}, default None
        ``None`` is the step-wise sum above. ``'11point'`` (PASCAL VOC 2007) is
        the mean over ``t = 0, 0.1, ..., 1`` (``t = i / 10``) of the highest
        precision at recall ``>= t`` (0 if none). ``'all'`` (VOC 2010 onwards)
        makes precision non-increasing in recall (each precision replaced by
        the highest one at equal or greater recall), then sums the area of the
        resulting step function. Both use the operating points at the distinct
        scores (ties form one point) and not the recall-0 end point. Not
        available with ``average='samples'``.

    Notes
    -----
    With no positive sample the AP is 0.0 with an
    :class:`~scorekit.errors.UndefinedMetricWarning` (scikit-learn also returns
    0 and warns). Multiclass 2-D scores are binarized one-vs-rest with the
    class rule of :class:`ROCAUC` (no ``labels`` option: integer labels in
    ``range(n_columns)`` or exactly ``n_columns`` distinct labels); the rows
    need not sum to 1. Empty input raises an InputError.

    References
    ----------
    Zhu, M. (2004). Recall, precision and average precision. Everingham, M. et
    al. (2010). The PASCAL Visual Object Classes (VOC) Challenge. *IJCV* 88.
    Agrees with scikit-learn's ``average_precision_score``.

    Examples
    --------
    >>> round(AveragePrecision().score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), 4)
    0.8333
    >>> AveragePrecision(interpolation="all").score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.8333...
    """

    average: Average = "macro"
    pos_label: Any = 1
    interpolation: Literal["11point", "all"] | None = None

    def __post_init__(self) -> None:
        _average_check(self.name, self.average)
        if self.interpolation not in _INTERPOLATIONS:
            raise ConfigError(
                self._error("unknown interpolation", self.interpolation, choices(_INTERPOLATIONS))
            )
        if self.interpolation is not None and self.average == "samples":
            raise ConfigError(
                self._error(
                    "interpolation is not available with average='samples'",
                    self.interpolation,
                    "interpolation=None or another average",
                )
            )

    @property
    def inputs(self) -> str:
        """Binary scores by default; multi-label scores for the other averages."""
        return _inputs(self.average)

    def _per_sample(self, task: str) -> str:
        return self.name if self.average == "samples" else ""

    def compute(self, state: ScoreHistogram) -> Any:
        """The AP (a float), or per-column values when ``average=None`` on 2-D scores."""
        name = self.name
        _require_data(name, state)

        def value(arrays: tuple[Float, Float, Float]) -> tuple[float, bool]:
            return _ap_value(name, arrays, self.interpolation)

        if state.task == "binary":
            labels = state.labels
            if labels.size > 2:
                raise InputError(
                    self._error(
                        "y_true has more than two classes but y_score is 1-D",
                        raw(f"{labels.size} classes"),
                        "2-D y_score (n, n_classes)",
                    )
                )
            pos = _find(labels, self.pos_label)
            if labels.size == 2 and pos < 0:
                raise InputError(
                    self._error(
                        "pos_label is not a label of y_true",
                        self.pos_label,
                        choices(labels.tolist()),
                    )
                )
            ap, undefined = value(_binary_arrays(state, pos))
            if undefined:
                _warn(name, "no positive sample in y_true; AP is set to 0")
            return ap
        if not (self.pos_label == 1 and isinstance(self.pos_label, int | float | np.number)):
            raise InputError(
                self._error(
                    "pos_label is fixed to 1 for 2-D scores",
                    self.pos_label,
                    "pos_label=1",
                )
            )
        _multi_task_checks(name, state, self.average)
        if self.average == "samples":
            return _samples_mean(name, state)
        if self.average == "micro":
            ap, undefined = value(_column_arrays(state, None))
            if undefined:
                _warn(name, "no positive label at all; AP is set to 0")
            return ap
        values, support, bad = self._columns(state, value)
        return _average(name, values, support, self.average, bad)


@register(
    "break_even_point",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="binary_scores",
    grows=True,
    aliases=("bep",),
)
@dataclass(frozen=True)
class BreakEvenPoint(_HistogramMetric):
    """Precision-recall break-even point: the value at which precision equals recall.

    .. math:: \\mathrm{BEP} = P(\\theta^*) = R(\\theta^*)

    Precision equals recall exactly where the (weighted) number of samples
    scored at or above the threshold equals the (weighted) number of
    positives. Walk the operating points of :func:`pr_curve` by decreasing
    threshold and take the first point ``b`` that selects at least that many:
    if it selects exactly that many, the BEP is its precision. Otherwise the
    BEP is where the straight segment from the previous point ``a`` (or from
    ``(R, P) = (0, 1)`` when ``b`` is the first point) to ``b`` crosses
    ``P = R``: with ``d = P - R``, ``BEP = P_a + d_a / (d_a - d_b) (P_b - P_a)``.
    Without ties this is the R-precision.

    Parameters
    ----------
    pos_label : label, optional
        The positive class; by default 1 for labels in {0, 1} or {-1, 1}
        (other labels need it), as scikit-learn's ``precision_recall_curve``.

    Notes
    -----
    Without positive samples the BEP is undefined: nan with an
    :class:`~scorekit.errors.UndefinedMetricWarning`.

    References
    ----------
    Joachims, T. (1998). Text categorization with support vector machines.
    *ECML*. Sebastiani, F. (2002). Machine learning in automated text
    categorization. *ACM Computing Surveys* 34(1).

    Examples
    --------
    >>> BreakEvenPoint().score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.5
    """

    pos_label: Any = None

    def compute(self, state: ScoreHistogram) -> float:
        """The break-even point in [0, 1]."""
        name = self.name
        state = _binary_state(name, state)
        _thresholds, tps, fps = _binary_arrays(
            state, _positive_index(name, state.labels, self.pos_label)
        )
        if tps[-1] <= 0:
            _warn(name, "no positive sample in y_true; the break-even point is undefined")
            return math.nan
        n_pos = tps[-1]
        selected = tps + fps
        i = int(np.flatnonzero(selected >= n_pos)[0])
        p_b, r_b = tps[i] / selected[i], tps[i] / n_pos
        if selected[i] == n_pos:
            return float(p_b)
        p_a, r_a = (1.0, 0.0) if i == 0 else (tps[i - 1] / selected[i - 1], tps[i - 1] / n_pos)
        d_a, d_b = p_a - r_a, p_b - r_b
        if d_a == d_b:
            return float(p_a)
        return float(p_a + d_a / (d_a - d_b) * (p_b - p_a))


@register(
    "roc_curve",
    higher_is_better=None,
    bounds=(-math.inf, math.inf),
    inputs="binary_scores",
    grows=True,
)
@dataclass(frozen=True)
class ROCCurveMetric(_HistogramMetric):
    """ROC curve: false and true positive rates at every distinct score as threshold.

    .. math:: \\mathrm{FPR}(\\theta) = \\frac{FP(s \\ge \\theta)}{N},\\quad
              \\mathrm{TPR}(\\theta) = \\frac{TP(s \\ge \\theta)}{P}

    Thresholds decrease; the first is ``inf`` (nothing predicted positive, the
    point (0, 0)); ties form one step.

    Parameters
    ----------
    pos_label : label, optional
        The positive class; by default 1 for labels in {0, 1} or {-1, 1}.
        With it, ``y_true`` may hold more than two classes (the others are
        negatives).
    drop_intermediate : bool, default True
        Drop points collinear with their neighbours (scikit-learn's rule:
        where neither FP nor TP count has a non-zero second difference); the
        shape and area of the curve do not change.

    Notes
    -----
    Without negatives (positives) the FPR (TPR) is nan, with an
    :class:`~scorekit.errors.UndefinedMetricWarning`, as in scikit-learn.

    References
    ----------
    Fawcett, T. (2006). An introduction to ROC analysis. *Pattern Recognition
    Letters* 27(8). Agrees with scikit-learn's ``roc_curve``.

    Examples
    --------
    >>> fpr, tpr, thresholds = ROCCurveMetric().score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr
    array([0. , 0. , 0.5, 0.5, 1. ])
    >>> thresholds
    array([ inf, 0.8 , 0.4 , 0.35, 0.1 ])
    """

    pos_label: Any = None
    drop_intermediate: bool = True

    def compute(self, state: ScoreHistogram) -> RocCurve:
        """The curve as ``RocCurve(fpr, tpr, thresholds)``."""
        name = self.name
        state = _binary_state(name, state)
        arrays = _binary_arrays(state, _positive_index(name, state.labels, self.pos_label))
        return _roc_points(name, *arrays, self.drop_intermediate, True)


@register(
    "pr_curve",
    higher_is_better=None,
    bounds=(-math.inf, math.inf),
    inputs="binary_scores",
    grows=True,
)
@dataclass(frozen=True)
class PRCurveMetric(_HistogramMetric):
    """Precision-recall curve at every distinct score as threshold.

    .. math:: P(\\theta) = \\frac{TP(s \\ge \\theta)}{TP(s \\ge \\theta) + FP(s \\ge \\theta)},
              \\quad R(\\theta) = \\frac{TP(s \\ge \\theta)}{P}

    As scikit-learn's ``precision_recall_curve``: thresholds increase,
    precision and recall have one more element, the end point (1, 0); a
    threshold that selects nothing has precision 0.

    Parameters
    ----------
    pos_label : label, optional
        The positive class; by default 1 for labels in {0, 1} or {-1, 1}.
    drop_intermediate : bool, default False
        Keep only the first and last point of each run of equal recall.

    Notes
    -----
    Without positives, recall is 1 at every threshold, with an
    :class:`~scorekit.errors.UndefinedMetricWarning` (scikit-learn warns too).

    References
    ----------
    Davis, J. and Goadrich, M. (2006). The relationship between
    precision-recall and ROC curves. *ICML*. Agrees with scikit-learn's
    ``precision_recall_curve``.

    Examples
    --------
    >>> precision, recall, thresholds = PRCurveMetric().score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> precision
    array([0.5       , 0.66666667, 0.5       , 1.        , 1.        ])
    >>> recall
    array([1. , 1. , 0.5, 0.5, 0. ])
    """

    pos_label: Any = None
    drop_intermediate: bool = False

    def compute(self, state: ScoreHistogram) -> PrCurve:
        """The curve as ``PrCurve(precision, recall, thresholds)``."""
        name = self.name
        state = _binary_state(name, state)
        arrays = _binary_arrays(state, _positive_index(name, state.labels, self.pos_label))
        return _pr_points(name, *arrays, self.drop_intermediate, True)


# functions ------------------------------------------------------------------------------


def roc_curve(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = True,
) -> RocCurve:
    """ROC curve, as :class:`ROCCurveMetric` (scikit-learn's ``roc_curve``).

    Examples
    --------
    >>> curve = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> curve.tpr
    array([0. , 0.5, 0.5, 1. , 1. ])
    """
    m = ROCCurveMetric(pos_label=pos_label, drop_intermediate=drop_intermediate)
    curve: RocCurve = m.score(y_true, y_score, sample_weight=sample_weight)
    return curve


def roc_auc(
    y_true: Any,
    y_score: Any,
    *,
    average: Average = "macro",
    sample_weight: Any = None,
    max_fpr: float | None = None,
    multi_class: Literal["raise", "ovr"] = "raise",
    labels: Any = None,
) -> Any:
    """Area under the ROC curve, as :class:`ROCAUC` (scikit-learn's ``roc_auc_score``).

    Examples
    --------
    >>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> roc_auc([[0, 1], [1, 0], [1, 1]], [[0.2, 0.9], [0.7, 0.4], [0.6, 0.5]], average=None)
    array([1., 1.])
    """
    m = ROCAUC(average=average, max_fpr=max_fpr, multi_class=multi_class, labels=labels)
    return m.score(y_true, y_score, sample_weight=sample_weight)


def pr_curve(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = False,
) -> PrCurve:
    """Precision-recall curve, as :class:`PRCurveMetric` (``precision_recall_curve``).

    Examples
    --------
    >>> pr_curve(["n", "y", "y"], [0.2, 0.9, 0.5], pos_label="y").thresholds
    array([0.2, 0.5, 0.9])
    """
    m = PRCurveMetric(pos_label=pos_label, drop_intermediate=drop_intermediate)
    curve: PrCurve = m.score(y_true, y_score, sample_weight=sample_weight)
    return curve


def average_precision(
    y_true: Any,
    y_score: Any,
    *,
    average: Average = "macro",
    pos_label: Any = 1,
    sample_weight: Any = None,
    interpolation: Literal["11point", "all"] | None = None,
) -> Any:
    """Average precision, as :class:`AveragePrecision` (``average_precision_score``).

    Examples
    --------
    >>> average_precision([0, 1, 0, 1], [0.3, 0.8, 0.6, 0.4])
    0.833...
    >>> average_precision([0, 1, 0, 1], [0.3, 0.8, 0.6, 0.4], interpolation="11point")
    0.848...
    """
    m = AveragePrecision(average=average, pos_label=pos_label, interpolation=interpolation)
    return m.score(y_true, y_score, sample_weight=sample_weight)


def break_even_point(
    y_true: Any, y_score: Any, *, pos_label: Any = None, sample_weight: Any = None
) -> float:
    """Precision-recall break-even point, as :class:`BreakEvenPoint`.

    Examples
    --------
    >>> break_even_point([0, 1, 0, 1, 1], [0.1, 0.9, 0.8, 0.7, 0.3])
    0.666...
    """
    m = BreakEvenPoint(pos_label=pos_label)
    return float(m.score(y_true, y_score, sample_weight=sample_weight))
