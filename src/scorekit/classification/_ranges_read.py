"""Binary ROC AUC and average precision read from score ranges, one range at a time.

The readers take the ranges' histograms in increasing score order as a
sequence (``len`` and indexing: :attr:`ScoreRanges.parts`, or any object that
loads range ``i`` when asked, from a worker or a file) and hold one range at a
time, carrying running totals between ranges. They repeat the arithmetic of
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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit._check import overflow_error, union_labels
from scorekit.classification._histogram import Float, ScoreHistogram, Scores, _find
from scorekit.classification._pairs import _EXACT_INT, _exponent
from scorekit.classification._pairwise import PairwiseSum, carried_cumsum
from scorekit.classification._scores import _OVR_SCORES, _many_classes, _warn
from scorekit.errors import ConfigError, InputError, choices, message, raw

__all__ = ["ranges_average_precision", "ranges_roc_auc"]

Parts = Sequence[ScoreHistogram]


# the first pass: labels and totals ---------------------------------------------------------


@dataclass
class _Side:
    """Rows and integer weight of one label over all ranges."""

    rows: int = 0
    total: int = 0
    ones: bool = True


@dataclass
class _Survey:
    """What one pass over the ranges tells: labels, rows and totals of each, count types."""

    labels: NDArray[Any]
    sides: dict[Any, _Side] = field(default_factory=dict)
    ints: bool = True

    def side(self, label: Any) -> _Side:
        return self.sides.get(_item(label), _Side())


def _item(label: Any) -> Any:
    return label.item() if isinstance(label, np.generic) else label


def _survey(metric: str, parts: Parts) -> _Survey:
    """Labels and per-label rows and totals; the errors of ``compute`` for no data."""
    labels: NDArray[Any] = np.empty(0, dtype=np.int64)
    sides: dict[Any, _Side] = {}
    ints, seen, rows = True, False, 0
    # one range at a time: each is let go before the next is read
    for i in range(len(parts)):
        part = parts[i]
        if not part.task:
            del part
            continue
        seen = True
        if part.task != "binary":
            raise InputError(
                message(
                    metric,
                    "needs 1-D scores of one positive class",
                    raw(f"a {part.task} score matrix"),
                    "y_score of shape (n,)",
                )
            )
        labels = union_labels(metric, labels, part.labels)
        ints = ints and part.counts.dtype.kind in "iu"
        rows += part.key.size
        c = part.counts[:, 0] if part.key.size else part.counts.reshape(-1)
        for j, label in enumerate(part.labels.tolist()):
            lo, hi = np.searchsorted(part.key, [j, j + 1])
            if hi == lo:
                continue
            side = sides.setdefault(label, _Side())
            side.rows += int(hi - lo)
            if c.dtype.kind in "iu":
                run = c[lo:hi]
                side.total += int(run.sum())
                side.ones = side.ones and bool((run == 1).all())
                del run  # a view of the range's counts: let go with the range
            else:
                side.ones = False
        del part, c
    if not seen:
        raise InputError(message(metric, "empty input", raw("0 samples"), "at least one sample"))
    if rows == 0:
        raise InputError(
            message(metric, "every sample has zero weight", raw("sample_weight all 0"), "some > 0")
        )
    return _Survey(labels, sides, ints)


def _sides(
    part: ScoreHistogram, positive: Any
) -> tuple[Scores, NDArray[Any], Scores, NDArray[Any]]:
    """``(un, cn, up, cp)``: a range's negative and positive scores and counts, ascending.

    The scores keep the range's type (float32 or float64).
    """
    if not part.task or part.key.size == 0:
        nothing = np.empty(0, dtype=np.float64)
        counts = np.empty(0, dtype=part.counts.dtype)
        return nothing, counts, nothing, counts
    j = _find(part.labels, positive)
    c = part.counts[:, 0]
    lo, hi = (int(x) for x in np.searchsorted(part.key, [j, j + 1])) if j >= 0 else (0, 0)
    if lo == 0:
        return part.score[hi:], c[hi:], part.score[lo:hi], c[lo:hi]
    # two labels: the negatives are the run before the positives'
    return part.score[:lo], c[:lo], part.score[lo:hi], c[lo:hi]


def _below(
    un: Scores, cn: NDArray[Any], up: Scores, carry: Any
) -> tuple[NDArray[Any], NDArray[np.intp], NDArray[Any], Any]:
    """Negative weight strictly below each positive score of a range, given the weight
    ``carry`` of the ranges below; the positives tied with a negative, that negative
    weight, and the running total after this range."""
    at = np.searchsorted(un, up, "right")
    if un.size:
        ties = np.flatnonzero(un.take(at - 1, mode="clip") == up)
    else:
        ties = np.empty(0, dtype=np.intp)
    cum = carried_cumsum(carry, cn)
    running = np.concatenate([np.asarray([carry], dtype=cum.dtype), cum])
    below = running[at]
    weight = cn[at[ties] - 1]
    below[ties] -= weight
    return below, ties, weight, running[-1]


def _tied(un: Scores, up: Scores) -> int:
    """How many of a range's positive scores equal one of its negative scores."""
    if un.size == 0 or up.size == 0:
        return 0
    at = np.searchsorted(un, up, "right")
    return int(np.count_nonzero(un.take(at - 1, mode="clip") == up))


def _float_totals(
    parts: Parts, positive: Any, survey: _Survey, neg: Any
) -> tuple[float, float, int]:
    """Negative and positive float totals as ``compute`` sums them, and the tied positives."""
    n_neg = PairwiseSum(survey.side(neg).rows)
    n_pos = PairwiseSum(survey.side(positive).rows)
    tied = 0
    for i in range(len(parts)):
        un, cn, up, cp = _sides(parts[i], positive)
        # a total past float64 is refused by the caller, as compute refuses it
        with np.errstate(over="ignore", invalid="ignore"):
            n_neg.add(cn)
            n_pos.add(cp)
        tied += _tied(un, up)
        del un, cn, up, cp
    return n_neg.result(), n_pos.result(), tied


# ROC AUC ------------------------------------------------------------------------------------


def ranges_roc_auc(parts: Parts, *, max_fpr: float | None = None, metric: str = "roc_auc") -> float:
    """Binary ROC AUC (partial with ``max_fpr``) of the ranges, as ``ROCAUC.compute``.

    Parameters
    ----------
    parts : sequence of ScoreHistogram
        The ranges' histograms in increasing score order; each is read on its
        own, in two to four passes (by the counts' type and ``max_fpr``).
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
        twice, carry = 0, np.int64(0)
        for i in range(len(parts)):
            un, cn, up, cp = _sides(parts[i], positive)
            below, ties, weight, carry = _below(un, cn.astype(np.int64), up, carry)
            cp = cp.astype(np.int64)
            twice += 2 * int(np.dot(cp, below)) + int(np.dot(cp[ties], weight))
            del un, cn, up, cp
        return twice / (2 * int(n_pos) * int(n_neg))
    if survey.ints:
        tied_rows = sum(_tied(*_sides(parts[i], positive)[::2]) for i in range(len(parts)))
    e_pos, e_neg = _exponent(float(n_pos)), _exponent(float(n_neg))
    area = PairwiseSum(survey.side(positive).rows)
    tied = PairwiseSum(tied_rows)
    fcarry: Any = np.int64(0) if survey.ints else np.float64(0.0)
    for i in range(len(parts)):
        un, cn, up, cp = _sides(parts[i], positive)
        cn = cn.astype(np.int64 if survey.ints else np.float64)
        below, ties, weight, fcarry = _below(un, cn, up, fcarry)
        p = np.ldexp(cp.astype(np.float64), -e_pos)
        area.add(p * np.ldexp(below.astype(np.float64), -e_neg))
        tied.add(p[ties] * np.ldexp(weight.astype(np.float64), -e_neg))
        del un, cn, up, cp
    value = float(area.result()) + 0.5 * float(tied.result())
    return value / (math.ldexp(float(n_pos), -e_pos) * math.ldexp(float(n_neg), -e_neg))


# the curve's points, walked down the scores ------------------------------------------------


def _points(part: ScoreHistogram, positive: Any) -> tuple[Float, Float, Float]:
    """A range's distinct scores, descending (as float64), with the positive and negative weight
    at each."""
    un, cn, up, cp = _sides(part, positive)
    s = np.concatenate([un, up])
    if s.size == 0:
        empty = np.empty(0, dtype=np.float64)
        return empty, empty, empty
    order = np.argsort(s, kind="stable")
    is_pos = order >= un.size
    weight = np.concatenate([cn, cp]).astype(np.float64)[order]
    pos = np.where(is_pos, weight, 0.0)
    neg = np.where(is_pos, 0.0, weight)
    s = s[order]
    new = np.ones(s.size, dtype=bool)
    new[1:] = s[1:] != s[:-1]
    starts = np.flatnonzero(new)
    if starts.size < s.size:
        pos, neg = np.add.reduceat(pos, starts), np.add.reduceat(neg, starts)
        s = s[starts]
    return s[::-1].astype(np.float64, copy=False), pos[::-1], neg[::-1]


@dataclass
class _Walk:
    """Cumulative true and false positives from the top score down, carried across ranges."""

    tp: Any = field(default_factory=lambda: np.float64(0.0))
    fp: Any = field(default_factory=lambda: np.float64(0.0))
    points: int = 0


def _descend(parts: Parts, positive: Any, walk: _Walk) -> Iterator[tuple[Float, Float, Float]]:
    """Each range's ``(thresholds, tps, fps)`` from the highest range down."""
    for i in range(len(parts) - 1, -1, -1):
        thresholds, pos, neg = _points(parts[i], positive)
        if thresholds.size == 0:
            continue
        tps, fps = carried_cumsum(walk.tp, pos), carried_cumsum(walk.fp, neg)
        walk.tp, walk.fp = tps[-1], fps[-1]
        walk.points += thresholds.size
        yield thresholds, tps, fps


def roc_corners(tps: Float, fps: Float) -> NDArray[np.bool_]:
    """Which interior points of a ROC curve ``drop_intermediate`` keeps: its corners."""
    keep: NDArray[np.bool_] = np.logical_or(np.diff(fps, 2), np.diff(tps, 2))
    return keep


def _corners(
    parts: Parts, positive: Any, rule: Any = roc_corners
) -> Iterator[tuple[Float, Float, Float]]:
    """The points ``drop_intermediate`` keeps: the first, the last and those ``rule`` keeps.

    ``rule(tps, fps)`` tells which interior points to keep by looking one
    point behind and one ahead (for the ROC curve, where the second difference
    of ``fps`` or ``tps`` is not zero), across ranges too: the last two points
    of a range are held until the next range's first.
    """
    held: tuple[Float, ...] = ()
    pending = False  # whether the last held point waits for the point after it
    for arrays in _descend(parts, positive, _Walk()):
        first = not held
        g = arrays if first else tuple(np.concatenate(p) for p in zip(held, arrays, strict=True))
        thresholds, tps, fps = g
        n = thresholds.size
        keep = np.zeros(n, dtype=bool)
        if n > 2:
            keep[1:-1] = rule(tps, fps)
        # the points decided now: all but the last, from the first not yet decided
        lo = 0 if first else (held[0].size - 1 if pending else held[0].size)
        keep[0] |= first
        kept = np.flatnonzero(keep[lo : n - 1]) + lo
        if first and n == 1:
            kept = np.zeros(1, dtype=np.intp)
        if kept.size:
            yield thresholds[kept], tps[kept], fps[kept]
        pending = not (first and n == 1)
        held = (thresholds[-2:], tps[-2:], fps[-2:])
    if pending:
        yield held[0][-1:], held[1][-1:], held[2][-1:]


def _partial_auc(metric: str, parts: Parts, positive: Any, max_fpr: float) -> float:
    """McClish-standardised partial AUC up to ``max_fpr``, as ``compute`` takes it."""
    walk = _Walk()
    for _ in _descend(parts, positive, walk):
        pass
    n_tp, n_fp = walk.tp, walk.fp
    if walk.points == 0 or n_tp <= 0 or n_fp <= 0:
        _warn(metric, "only one class has a positive weight; ROC AUC is undefined")
        return math.nan
    # points with fpr <= max_fpr, the first (0, 0) included
    stop = 1
    for _, _, fps in _corners(parts, positive):
        fpr = fps / n_fp
        stop += int(np.searchsorted(fpr, max_fpr, "right"))
        if fpr[-1] > max_fpr:
            break
    total = PairwiseSum(stop)
    x0, y0, seen = np.float64(0.0), np.float64(0.0), 1
    for _, tps, fps in _corners(parts, positive):
        fpr, tpr = fps / n_fp, tps / n_tp
        take = min(fpr.size, stop - seen)
        if take:
            x = np.concatenate([[x0], fpr[:take]])
            y = np.concatenate([[y0], tpr[:take]])
            total.add(np.diff(x) * (y[1:] + y[:-1]) / 2.0)
            seen += take
            x0, y0 = fpr[take - 1], tpr[take - 1]
        if seen == stop and take < fpr.size:
            # the first point past max_fpr: the curve is cut where it crosses max_fpr
            y_end = np.interp(max_fpr, np.array([x0, fpr[take]]), np.array([y0, tpr[take]]))
            total.add([(max_fpr - x0) * (y_end + y0) / 2.0])
            break
    area = float(total.result())
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
        own, in two or three passes (by the counts' type).
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
    total = PairwiseSum(positives.rows)
    carry: Any = np.int64(0) if survey.ints else np.float64(0.0)
    done = 0
    tp_carry = np.float64(0.0)
    for i in range(len(parts)):
        un, cn, up, cp = _sides(parts[i], positive)
        cn = cn.astype(np.int64 if survey.ints else np.float64)
        below, _, _, carry = _below(un, cn, up, carry)
        if unit:
            tp1 = np.arange(positives.rows - done, positives.rows - done - up.size, -1)
            tp1 = tp1.astype(np.float64)
            fp1 = n_neg - below.astype(np.float64)
            fp1 += tp1
            total.add(tp1 / fp1)
        else:
            cpf = cp.astype(np.float64)
            cum = carried_cumsum(tp_carry, cpf)
            if cum.size:
                tp_carry = cum[-1]
            tp = n_pos - (cum - cpf)
            fp = n_neg - below.astype(np.float64)
            total.add(cpf * (tp / (tp + fp)))
        done += up.size
        del un, cn, up, cp
    if unit:
        return float(total.result()) / positives.rows
    return float(total.result()) / n_pos


def _positives_only_ap(parts: Parts, positive: Any) -> float:
    """AP when every sample is positive: the step-wise sum of the precision-recall curve."""
    walk = _Walk()
    for _ in _descend(parts, positive, walk):
        pass
    n_tp = walk.tp
    total = PairwiseSum(walk.points, reverse=True)
    previous = np.float64(0.0)
    for _, tps, fps in _descend(parts, positive, _Walk()):
        ps = tps + fps
        with np.errstate(divide="ignore", invalid="ignore"):
            precision = np.where(ps != 0, tps / np.where(ps != 0, ps, 1.0), 0.0)
        recall = tps / n_tp
        higher = np.concatenate([[previous], recall[:-1]])
        total.add((higher - recall) * precision)
        previous = recall[-1]
    return float(max(0.0, -total.result()))
