"""Binary ROC AUC and average precision read from score ranges, one range at a time.

The readers take the ranges' histograms in increasing score order as a
sequence (:attr:`ScoreRanges.parts`, or any object that loads range ``i`` when
asked, from a worker or a file) and read it only through
:func:`scorekit.core.scan` (and the walks of
:mod:`scorekit.classification._ranges_walk`): each pass is a step run on one
range at a time, carrying running totals between ranges, so a sequence that
keeps its ranges on the workers of a cluster runs each step there and only the
carries (a few numbers, the partial sums of a :class:`PairwiseSum`) and the
small outputs travel. The readers repeat the arithmetic of
:class:`~scorekit.classification.ROCAUC` and
:class:`~scorekit.classification.AveragePrecision` on the merged histogram
operation by operation: cumulative sums are continued across ranges
(:func:`carried_cumsum`) and numpy's pairwise sums are streamed
(:class:`PairwiseSum`), whose lengths a first pass over the ranges gives. The
values are those of ``compute`` on the joined histogram, bit for bit: ROC AUC
of integer counts is an exact integer area, and every sum of floats, in
``compute`` as here, is numpy's pairwise sum, whose order of additions the
lengths fix.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from scorekit._check import overflow_error
from scorekit.classification._histogram import Float, ScoreHistogram, _find
from scorekit.classification._pairs import _EXACT_INT, _exponent
from scorekit.classification._pairwise import PairwiseSum, carried_cumsum
from scorekit.classification._ranges_walk import (
    Parts,
    _below,
    _float_totals,
    _sides,
    _Survey,
    _survey,
    _tied_step,
    walk_corners,
    walk_down,
)
from scorekit.classification._scores import _OVR_SCORES, _many_classes, _warn
from scorekit.core import scan
from scorekit.errors import ConfigError, InputError, choices, message

__all__ = ["ranges_average_precision", "ranges_roc_auc"]


# ROC AUC ------------------------------------------------------------------------------------


def ranges_roc_auc(parts: Parts, *, max_fpr: float | None = None, metric: str = "roc_auc") -> float:
    """Binary ROC AUC (partial with ``max_fpr``) of the ranges, as ``ROCAUC.compute``.

    Parameters
    ----------
    parts : sequence of ScoreHistogram
        The ranges' histograms in increasing score order; each is read on its
        own, in two to four scans (by the counts' type and ``max_fpr``).
    max_fpr : float in (0, 1], optional
        The McClish-standardised partial AUC over ``FPR <= max_fpr``.
    metric : str
        The name in errors and warnings.

    Returns
    -------
    float
        The value :class:`~scorekit.classification.ROCAUC` computes on the
        joined histogram: nan with an UndefinedMetricWarning for one class.

    Examples
    --------
    >>> from scorekit.classification._ranges import summarize_ranges
    >>> state = summarize_ranges([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], cuts=[0.3, 0.5])
    >>> ranges_roc_auc(state.parts)
    0.75
    """
    if max_fpr is not None and not 0 < max_fpr <= 1:
        raise ConfigError(message(metric, "max_fpr out of range", max_fpr, "0 < max_fpr <= 1"))
    survey = _survey(metric, parts)
    labels = survey.labels
    if labels.size > 2:
        raise _many_classes(metric, labels.size, _OVR_SCORES)
    if labels.size < 2:
        _warn(metric, "only one class is present in y_true; ROC AUC is undefined")
        return math.nan
    neg, positive = labels[0], labels[1]
    if max_fpr is None or max_fpr == 1:
        if survey.side(neg).rows == 0 or survey.side(positive).rows == 0:
            _warn(metric, "only one class has a positive weight; ROC AUC is undefined")
            return math.nan
        return _pair_auc(metric, parts, survey, neg, positive)
    return _partial_auc(metric, parts, positive, float(max_fpr))


def _exact_area_step(
    positive: Any, carry: tuple[int, np.int64], part: ScoreHistogram
) -> tuple[tuple[int, np.int64], None]:
    """Twice the pairs a positive outranks, ties once, added over the ranges as exact integers."""
    twice, below_carry = carry
    un, cn, up, cp = _sides(part, positive)
    below, ties, weight, below_carry = _below(un, cn.astype(np.int64), up, below_carry)
    cp = cp.astype(np.int64)
    twice += 2 * int(np.dot(cp, below)) + int(np.dot(cp[ties], weight))
    return (twice, below_carry), None


def _float_area_step(
    positive: Any,
    ints: bool,
    exponents: tuple[int, int],
    carry: tuple[PairwiseSum, PairwiseSum, Any],
    part: ScoreHistogram,
) -> tuple[tuple[PairwiseSum, PairwiseSum, Any], None]:
    """The scaled area and tied area of one range, fed to the pairwise sums."""
    area, tied, fcarry = carry
    e_pos, e_neg = exponents
    un, cn, up, cp = _sides(part, positive)
    cn = cn.astype(np.int64 if ints else np.float64)
    below, ties, weight, fcarry = _below(un, cn, up, fcarry)
    p = np.ldexp(cp.astype(np.float64), -e_pos)
    area.add(p * np.ldexp(below.astype(np.float64), -e_neg))
    tied.add(p[ties] * np.ldexp(weight.astype(np.float64), -e_neg))
    return (area, tied, fcarry), None


def _pair_auc(metric: str, parts: Parts, survey: _Survey, neg: Any, positive: Any) -> float:
    """The area over pairs: positive weight times the negative weight below, ties half."""
    if survey.ints:
        n_neg: Any = survey.side(neg).total
        n_pos: Any = survey.side(positive).total
        tied_rows = 0
    else:
        n_neg, n_pos, tied_rows = _float_totals(parts, positive, survey, neg)
        if not math.isfinite(float(n_neg) + float(n_pos)):
            raise overflow_error(metric, "the sum of sample weights")
    exact = survey.ints and n_pos + n_neg < _EXACT_INT
    if exact:
        (twice, _), _ = scan(parts, partial(_exact_area_step, positive), (0, np.int64(0)))
        return twice / (2 * int(n_pos) * int(n_neg))
    if survey.ints:
        tied_rows, _ = scan(parts, partial(_tied_step, positive), 0)
    e_pos, e_neg = _exponent(float(n_pos)), _exponent(float(n_neg))
    fcarry: Any = np.int64(0) if survey.ints else np.float64(0.0)
    start = (PairwiseSum(survey.side(positive).rows), PairwiseSum(tied_rows), fcarry)
    step = partial(_float_area_step, positive, survey.ints, (e_pos, e_neg))
    (area, tied, _), _ = scan(parts, step, start)
    value = float(area.result()) + 0.5 * float(tied.result())
    return value / (math.ldexp(float(n_pos), -e_pos) * math.ldexp(float(n_neg), -e_neg))


@dataclass
class _Stop:
    """How many points of the curve lie at ``fpr <= max_fpr``, the first (0, 0) included."""

    count: int = 1
    done: bool = False


def _stop_stage(
    n_fp: Any, max_fpr: float, carry: _Stop, thresholds: Float, tps: Float, fps: Float
) -> tuple[_Stop, None]:
    if carry.done:
        return carry, None
    fpr = fps / n_fp
    carry.count += int(np.searchsorted(fpr, max_fpr, "right"))
    carry.done = bool(fpr[-1] > max_fpr)
    return carry, None


@dataclass
class _Trapezoids:
    """The trapezoids under the curve up to ``max_fpr``, summed as numpy sums them."""

    total: PairwiseSum
    x0: Any = field(default_factory=lambda: np.float64(0.0))
    y0: Any = field(default_factory=lambda: np.float64(0.0))
    seen: int = 1
    done: bool = False


def _area_stage(
    totals: tuple[Any, Any],
    max_fpr: float,
    stop: int,
    carry: _Trapezoids,
    thresholds: Float,
    tps: Float,
    fps: Float,
) -> tuple[_Trapezoids, None]:
    if carry.done:
        return carry, None
    n_tp, n_fp = totals
    fpr, tpr = fps / n_fp, tps / n_tp
    take = min(fpr.size, stop - carry.seen)
    if take:
        x = np.concatenate([[carry.x0], fpr[:take]])
        y = np.concatenate([[carry.y0], tpr[:take]])
        carry.total.add(np.diff(x) * (y[1:] + y[:-1]) / 2.0)
        carry.seen += take
        carry.x0, carry.y0 = fpr[take - 1], tpr[take - 1]
    if carry.seen == stop and take < fpr.size:
        # the first point past max_fpr: the curve is cut where it crosses max_fpr
        x0, y0 = carry.x0, carry.y0
        y_end = np.interp(max_fpr, np.array([x0, fpr[take]]), np.array([y0, tpr[take]]))
        carry.total.add([(max_fpr - x0) * (y_end + y0) / 2.0])
        carry.done = True
    return carry, None


def _partial_auc(metric: str, parts: Parts, positive: Any, max_fpr: float) -> float:
    """McClish-standardised partial AUC up to ``max_fpr``, as ``compute`` takes it."""
    walk, _, _ = walk_down(parts, positive)
    n_tp, n_fp = walk.tp, walk.fp
    if walk.points == 0 or n_tp <= 0 or n_fp <= 0:
        _warn(metric, "only one class has a positive weight; ROC AUC is undefined")
        return math.nan
    _, stop, _ = walk_corners(parts, positive, partial(_stop_stage, n_fp, max_fpr), _Stop())
    stage = partial(_area_stage, (n_tp, n_fp), max_fpr, stop.count)
    _, trapezoids, _ = walk_corners(parts, positive, stage, _Trapezoids(PairwiseSum(stop.count)))
    area = float(trapezoids.total.result())
    lo, hi = 0.5 * max_fpr**2, max_fpr
    return 0.5 * (1 + (area - lo) / (hi - lo))


# average precision ----------------------------------------------------------------------------


def ranges_average_precision(
    parts: Parts, *, pos_label: Any = 1, metric: str = "average_precision"
) -> float:
    """Binary step-wise average precision of the ranges, as ``AveragePrecision.compute``.

    Parameters
    ----------
    parts : sequence of ScoreHistogram
        The ranges' histograms in increasing score order; each is read on its
        own, in two or three scans (by the counts' type).
    pos_label : label, default 1
        The positive class.
    metric : str
        The name in errors and warnings.

    Returns
    -------
    float
        The AP :class:`~scorekit.classification.AveragePrecision` computes on
        the joined histogram: 0 with an UndefinedMetricWarning without positives.

    Examples
    --------
    >>> from scorekit.classification._ranges import summarize_ranges
    >>> state = summarize_ranges([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], cuts=[0.3, 0.5])
    >>> round(ranges_average_precision(state.parts), 4)
    0.8333
    """
    survey = _survey(metric, parts)
    labels = survey.labels
    if labels.size > 2:
        raise _many_classes(metric, labels.size, "2-D y_score (n, n_classes)")
    pos = _find(labels, pos_label)
    if labels.size == 2 and pos < 0:
        raise InputError(
            message(
                metric, "pos_label is not a label of y_true", pos_label, choices(labels.tolist())
            )
        )
    if labels.size == 2 and all(survey.side(label).rows for label in labels):
        return _pair_ap(metric, parts, survey, labels[1 - pos], labels[pos])
    if pos < 0 or survey.side(labels[pos]).rows == 0:
        _warn(metric, "no positive sample in y_true; AP is set to 0")
        return 0.0
    return _positives_only_ap(parts, labels[pos])


@dataclass
class _Precisions:
    """The precision sum over the ranges below, with the running totals it needs."""

    total: PairwiseSum
    below: Any
    done: int = 0
    tp: Any = field(default_factory=lambda: np.float64(0.0))


def _ap_step(
    positive: Any,
    ints: bool,
    unit: bool,
    totals: tuple[int, Any, Any],
    carry: _Precisions,
    part: ScoreHistogram,
) -> tuple[_Precisions, None]:
    """The precision at each positive score of a range, weighted by the recall it adds."""
    rows, n_neg, n_pos = totals
    un, cn, up, cp = _sides(part, positive)
    cn = cn.astype(np.int64 if ints else np.float64)
    below, _, _, carry.below = _below(un, cn, up, carry.below)
    if unit:
        tp1 = np.arange(rows - carry.done, rows - carry.done - up.size, -1)
        tp1 = tp1.astype(np.float64)
        fp1 = n_neg - below.astype(np.float64)
        fp1 += tp1
        carry.total.add(tp1 / fp1)
    else:
        cpf = cp.astype(np.float64)
        cum = carried_cumsum(carry.tp, cpf)
        if cum.size:
            carry.tp = cum[-1]
        tp = n_pos - (cum - cpf)
        fp = n_neg - below.astype(np.float64)
        carry.total.add(cpf * (tp / (tp + fp)))
    carry.done += up.size
    return carry, None


def _pair_ap(metric: str, parts: Parts, survey: _Survey, neg: Any, positive: Any) -> float:
    """Precision at each distinct positive score, weighted by the recall it adds."""
    positives = survey.side(positive)
    unit = survey.ints and positives.ones
    n_neg: Any
    if survey.ints:
        n_neg = float(survey.side(neg).total)
        n_pos = float(positives.total)
        if not unit:
            sums = _float_totals(parts, positive, survey, neg)
            n_pos = sums[1]
    else:
        n_neg, n_pos, _ = _float_totals(parts, positive, survey, neg)
        if not math.isfinite(float(n_neg) + float(n_pos)):
            raise overflow_error(metric, "the sum of sample weights")
        n_neg = float(n_neg)
    below: Any = np.int64(0) if survey.ints else np.float64(0.0)
    step = partial(_ap_step, positive, survey.ints, unit, (positives.rows, n_neg, n_pos))
    found, _ = scan(parts, step, _Precisions(PairwiseSum(positives.rows), below))
    if unit:
        return float(found.total.result()) / positives.rows
    return float(found.total.result()) / n_pos


@dataclass
class _Steps:
    """The step-wise sum of the precision-recall curve, taken from the top score down."""

    total: PairwiseSum
    previous: Any = field(default_factory=lambda: np.float64(0.0))


def _steps_stage(
    n_tp: Any, carry: _Steps, thresholds: Float, tps: Float, fps: Float
) -> tuple[_Steps, None]:
    ps = tps + fps
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(ps != 0, tps / np.where(ps != 0, ps, 1.0), 0.0)
    recall = tps / n_tp
    higher = np.concatenate([[carry.previous], recall[:-1]])
    carry.total.add((higher - recall) * precision)
    carry.previous = recall[-1]
    return carry, None


def _positives_only_ap(parts: Parts, positive: Any) -> float:
    """AP when every sample is positive: the step-wise sum of the precision-recall curve."""
    walk, _, _ = walk_down(parts, positive)
    start = _Steps(PairwiseSum(walk.points, reverse=True))
    _, steps, _ = walk_down(parts, positive, partial(_steps_stage, walk.tp), start)
    return float(max(0.0, -steps.total.result()))
