"""The decision threshold that optimises F1, Youden's J or a misclassification cost."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any, ClassVar, Literal, NamedTuple

import numpy as np
from numpy.typing import NDArray

from scorekit.classification._histogram import Float, ScoreHistogram, _binary_arrays
from scorekit.classification._ranges import ScoreRanges
from scorekit.classification._ranges_curves import two_labels
from scorekit.classification._ranges_threshold import ranges_best, ranges_labels, ranges_totals
from scorekit.classification._scores import (
    _binary_state,
    _positive_index,
    _RangedHistogramMetric,
)
from scorekit.core import SK, Explanation, OneOf, Range, register
from scorekit.errors import InputError, UndefinedMetricWarning, choices, message, raw

__all__ = ["BestThreshold", "ThresholdChoice", "best_threshold"]

Objective = Literal["f1", "youden", "cost"]
OBJECTIVES: tuple[str, ...] = ("f1", "youden", "cost")
"""The objectives of ``best_threshold``: F1 and Youden's J are maximised, the cost minimised."""


class ThresholdChoice(NamedTuple):
    """The chosen threshold (``score >= threshold`` is positive), its objective and metrics."""

    threshold: float
    value: float
    precision: float
    recall: float
    f1: float
    specificity: float
    accuracy: float
    tp: float
    fp: float
    fn: float
    tn: float


def _ratio(num: Float, den: Float) -> Float:
    with np.errstate(divide="ignore", invalid="ignore"):
        out: Float = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return out


class _AtThresholds(NamedTuple):
    """The objective and the metrics at each threshold of a piece of the curve."""

    values: Float
    recall: Float
    f1: Float
    tps: Float
    fps: Float
    fns: Float
    tns: Float


@register(
    "best_threshold",
    higher_is_better=None,
    bounds=(-math.inf, math.inf),
    inputs="binary_scores",
    variant="objective",
    variants=OBJECTIVES,
    grows=True,
)
@dataclass(frozen=True)
class BestThreshold(_RangedHistogramMetric):
    """The score threshold that optimises an objective, with the metrics at that threshold.

    Every distinct score ``t`` is a candidate; samples with ``score >= t`` are
    predicted positive.

    .. math:: F_1(t) = \\frac{2\\,TP(t)}{2\\,TP(t) + FP(t) + FN(t)},\\quad
              J(t) = \\mathrm{TPR}(t) - \\mathrm{FPR}(t),\\quad
              \\mathrm{cost}(t) = \\frac{c_{FP} FP(t) + c_{FN} FN(t)}{n}

    F1 and Youden's J are maximised, the cost minimised.

    Parameters
    ----------
    objective : {'f1', 'youden', 'cost'}, default 'f1'
        What the threshold optimises.
    pos_label : label, optional
        The positive class; by default 1 for labels in {0, 1} or {-1, 1}.
    cost_fp, cost_fn : float, default 1.0
        The cost of a false positive and of a false negative (``'cost'``),
        finite and >= 0.
    ranges, cuts : optional
        The exact histogram split by score ranges, as the ``ranges`` and
        ``cuts`` of :class:`ROCAUC` take them (``cuts="sample"`` too): the
        ranges merge one by one and the threshold is read one range at a time,
        equal to the choice on the whole histogram.

    Returns
    -------
    ThresholdChoice
        ``threshold``, the objective's ``value`` there, and the precision,
        recall, F1, specificity, accuracy and the (weighted) TP, FP, FN, TN
        counts at that threshold.

    Notes
    -----
    Of thresholds with an equal objective the highest is chosen. A 0/0 ratio
    among the reported metrics (recall without positives, specificity without
    negatives) is 0 with an :class:`~scorekit.errors.UndefinedMetricWarning`;
    so is Youden's J then. The state is the exact score histogram of ROC AUC,
    so chunks, shards and Dask give the in-memory choice; with ``ranges`` or
    ``cuts`` (1-D scores only) no process holds the whole histogram.

    References
    ----------
    Youden, W. J. (1950). Index for rating diagnostic tests. *Cancer* 3(1).
    The values at each threshold agree with scikit-learn's
    ``metric_at_thresholds`` (``f1_score``) and ``roc_curve``.

    Examples
    --------
    >>> choice = BestThreshold().score([0, 1, 1, 0], [0.1, 0.8, 0.4, 0.4])
    >>> choice.threshold, choice.f1
    (0.4, 0.8)
    >>> BestThreshold(objective="cost", cost_fn=5.0).score([0, 1, 1, 0], [0.1, 0.8, 0.4, 0.4]).value
    0.25

    Read from score ranges, the choice is the same:

    >>> metric = BestThreshold(ranges=4)
    >>> state = metric.summarize([0, 1, 1, 0], [0.1, 0.8, 0.4, 0.4])
    >>> [part.n_samples for part in state.parts]
    [1, 2, 0, 1]
    >>> metric.compute(state).threshold
    0.4
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The decision threshold on the scores that maximises F1 or Youden's J "
        "(TPR - FPR), or minimises the mean misclassification cost, with the metrics there.",
        formula="threshold = argmax_t F1(t) | argmax_t TPR(t) - FPR(t) | "
        "argmin_t (cost_fp FP(t) + cost_fn FN(t)) / n, over the distinct scores t",
        convention="score >= t is predicted positive; ties in the objective go to the highest "
        "threshold; 0/0 ratios count 0 with an UndefinedMetricWarning.",
        reference=f"{SK} metric_at_thresholds with f1_score, and roc_curve for Youden's J.",
    )

    objective: Annotated[Objective, OneOf(OBJECTIVES)] = "f1"
    pos_label: Any = None
    cost_fp: Annotated[float, Range(0, expected="a finite number >= 0")] = 1.0
    cost_fn: Annotated[float, Range(0, expected="a finite number >= 0")] = 1.0
    ranges: int | None = None
    cuts: tuple[float, ...] | str | None = None

    def _positive(self, labels: NDArray[Any]) -> int:
        """The positive label's index among ``labels`` (-1 if it is none of one label)."""
        name = self.name
        index = _positive_index(name, labels, self.pos_label)
        if index < 0 and labels.size == 2:
            raise InputError(
                message(
                    name,
                    "pos_label is not a label of y_true",
                    self.pos_label,
                    choices(labels.tolist()),
                )
            )
        return index

    def _at(self, tps: Float, fps: Float, positives: float, negatives: float) -> _AtThresholds:
        """The objective and the metrics at each threshold, from the cumulative counts there."""
        fns = positives - tps
        tns = negatives - fps
        recall = _ratio(tps, np.full_like(tps, positives))
        fpr = _ratio(fps, np.full_like(fps, negatives))
        f1 = _ratio(2 * tps, 2 * tps + fps + fns)
        if self.objective == "f1":
            values = f1
        elif self.objective == "youden":
            values = recall - fpr
        else:
            values = (self.cost_fp * fps + self.cost_fn * fns) / (positives + negatives)
        return _AtThresholds(values, recall, f1, tps, fps, fns, tns)

    def compute(self, state: ScoreHistogram | ScoreRanges) -> ThresholdChoice:
        """The best threshold and the metrics there; score ranges are read one at a time."""
        name = self.name
        maximize = self.objective != "cost"
        if isinstance(state, ScoreRanges):
            labels = ranges_labels(name, state.parts)
            positive, parts = two_labels(
                state.parts, labels, self._positive(labels), self.pos_label
            )
            positives, negatives = ranges_totals(parts, positive)
            _warn_missing(name, positives, negatives)
            # the objective goes with the step that reads each range: a picklable partial
            values = partial(_objective, self, positives, negatives)
            point = ranges_best(parts, positive, values, maximize=maximize, metric=name)
            thresholds, best = point.thresholds, 0
            at = self._at(point.tps, point.fps, positives, negatives)
        else:
            state = _binary_state(name, state)
            thresholds, tps, fps = _binary_arrays(state, self._positive(state.labels))
            positives, negatives = float(tps[-1]), float(fps[-1])
            _warn_missing(name, positives, negatives)
            at = self._at(tps, fps, positives, negatives)
            best = int(np.argmax(at.values) if maximize else np.argmin(at.values))
        return _choice(name, float(thresholds[best]), at, best, positives, negatives)


def _objective(
    metric: BestThreshold, positives: float, negatives: float, tps: Float, fps: Float
) -> Float:
    """The objective value of ``metric`` at each threshold, from the cumulative counts there."""
    return metric._at(tps, fps, positives, negatives).values


def _warn_missing(name: str, positives: float, negatives: float) -> None:
    """Warn, for the caller of ``compute``, that the rates over a missing class count 0."""
    if positives == 0 or negatives == 0:
        missing = "positive" if positives == 0 else "negative"
        warnings.warn(
            f"{name}: y_true has no {missing} sample; rates over them count 0.",
            UndefinedMetricWarning,
            stacklevel=3,
        )


def _choice(
    name: str, threshold: float, at: _AtThresholds, best: int, positives: float, negatives: float
) -> ThresholdChoice:
    """The choice at index ``best`` of the arrays ``at``; an error for infinite counts."""
    total = positives + negatives
    tp, fp, fn, tn = (float(a[best]) for a in (at.tps, at.fps, at.fns, at.tns))
    if not all(math.isfinite(v) for v in (tp, fp, fn, tn, total)):
        raise InputError(
            message(name, "weights overflow", raw("an infinite count"), "finite weight sums")
        )
    return ThresholdChoice(
        threshold=threshold,
        value=float(at.values[best]),
        precision=tp / (tp + fp) if tp + fp > 0 else 0.0,
        recall=float(at.recall[best]),
        f1=float(at.f1[best]),
        specificity=tn / negatives if negatives > 0 else 0.0,
        accuracy=(tp + tn) / total,
        tp=tp,
        fp=fp,
        fn=fn,
        tn=tn,
    )


def best_threshold(
    y_true: Any,
    y_score: Any,
    *,
    objective: Objective = "f1",
    pos_label: Any = None,
    sample_weight: Any = None,
    cost_fp: float = 1.0,
    cost_fn: float = 1.0,
    ranges: int | None = None,
    cuts: Any = None,
) -> ThresholdChoice:
    """The best decision threshold, as :class:`BestThreshold`.

    Examples
    --------
    >>> best_threshold([0, 1, 1, 0], [0.1, 0.8, 0.4, 0.35], objective="youden").threshold
    0.4
    >>> best_threshold([0, 1, 1, 0], [0.1, 0.8, 0.4, 0.35], objective="youden", cuts=[0.38])[:2]
    (0.4, 1.0)
    """
    m = BestThreshold(
        objective=objective,
        pos_label=pos_label,
        cost_fp=cost_fp,
        cost_fn=cost_fn,
        ranges=ranges,
        cuts=cuts,
    )
    result: ThresholdChoice = m.score(y_true, y_score, sample_weight=sample_weight)
    return result
