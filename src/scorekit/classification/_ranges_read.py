"""Binary ROC AUC and average precision read from score ranges, one range at a time.

The readers take the ranges' histograms in increasing score order as a
sequence (:attr:`ScoreRanges.parts`, or any object that loads range ``i`` when
asked, from a worker or a file) and read it only through
:func:`scorekit.core.scan`: each pass is a step run on one range at a time,
carrying running totals between ranges, so a sequence that keeps its ranges on
the workers of a cluster runs each step there and only the carries (a few
numbers, the partial sums of a :class:`PairwiseSum`) and the small outputs
travel. A walk down the scores, from the highest range to the lowest, is
:func:`scan_down`. The readers repeat the arithmetic of
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

import abc
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit._check import overflow_error, union_labels
from scorekit.classification._histogram import Float, ScoreHistogram, Scores, _find
from scorekit.classification._pairs import _EXACT_INT, _exponent
from scorekit.classification._pairwise import PairwiseSum, carried_cumsum
from scorekit.classification._scores import _OVR_SCORES, _many_classes, _warn
from scorekit.core import scan
from scorekit.errors import ConfigError, InputError, choices, message, raw

__all__ = ["RangesView", "ranges_average_precision", "ranges_roc_auc", "scan_down"]

Parts = Sequence[ScoreHistogram]
Step = Callable[[Any, ScoreHistogram], tuple[Any, Any]]
Stage = Callable[[Any, Float, Float, Float], tuple[Any, Any]]
"""A step on the points of one range: ``stage(carry, thresholds, tps, fps) -> (carry, out)``."""


# reading the ranges --------------------------------------------------------------------------


class RangesView(Sequence[ScoreHistogram]):
    """Ranges made from the ranges of ``inner``, each from its own range by :meth:`view`.

    A subclass gives :meth:`view`, and :meth:`view_step` the picklable step
    that applies it before a step; :meth:`scan` reads ``inner`` through
    :func:`scorekit.core.scan` with that step, so the view is made next to
    each range, where ``inner`` keeps it.
    """

    def __init__(self, inner: Parts) -> None:
        self.inner = inner

    def __len__(self) -> int:
        return len(self.inner)

    def __getitem__(self, i: Any) -> Any:
        return self.view(self.inner[i])

    @abc.abstractmethod
    def view(self, part: ScoreHistogram) -> ScoreHistogram:
        """The range made from ``part``."""

    @abc.abstractmethod
    def view_step(self, step: Step) -> Step:
        """``step`` run on the view of each range instead of the range: a picklable step."""

    def scan(self, step: Step, carry: Any, *, reverse: bool = False) -> tuple[Any, list[Any]]:
        """:func:`scorekit.core.scan` of the views, each made where its range is read."""
        return scan(self.inner, self.view_step(step), carry, reverse=reverse)


def scan_down(
    parts: Parts, step: Step, carry: Any, until: Callable[[Any], bool] | None = None
) -> tuple[Any, list[Any]]:
    """:func:`scorekit.core.scan` from the last range to the first: the outputs come last first.

    A sequence read here stops being read once ``until(carry)`` is true (the
    outputs of the ranges not read are left out); one that scans its ranges
    itself (on a cluster) is scanned once, backwards, its steps passing by the
    ranges below once the carry says so. The views of a :class:`RangesView`
    are made inside the steps.

    Examples
    --------
    >>> from scorekit.classification._ranges import summarize_ranges
    >>> state = summarize_ranges([0, 1, 1], [0.2, 0.7, 0.5], cuts=[0.5])
    >>> scan_down(state.parts, lambda total, part: (total + part.n_samples, part.n_samples), 0)
    (3, [2, 1])
    """
    while isinstance(parts, RangesView):
        step, parts = parts.view_step(step), parts.inner
    if until is None or getattr(parts, "scan", None) is not None:
        return scan(parts, step, carry, reverse=True)
    outs: list[Any] = []
    for i in range(len(parts) - 1, -1, -1):
        if until(carry):
            break
        part = parts[i]
        carry, out = step(carry, part)
        del part
        outs.append(out)
    return carry, outs


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

    labels: NDArray[Any] = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    sides: dict[Any, _Side] = field(default_factory=dict)
    ints: bool = True
    seen: bool = False
    rows: int = 0

    def side(self, label: Any) -> _Side:
        return self.sides.get(_item(label), _Side())


def _item(label: Any) -> Any:
    return label.item() if isinstance(label, np.generic) else label


def _survey_step(metric: str, survey: _Survey, part: ScoreHistogram) -> tuple[_Survey, None]:
    """Add one range's labels, rows and totals to the survey of the ranges below."""
    if not part.task:
        return survey, None
    survey.seen = True
    if part.task != "binary":
        raise InputError(
            message(
                metric,
                "needs 1-D scores of one positive class",
                raw(f"a {part.task} score matrix"),
                "y_score of shape (n,)",
            )
        )
    survey.labels = union_labels(metric, survey.labels, part.labels)
    survey.ints = survey.ints and part.counts.dtype.kind in "iu"
    survey.rows += part.key.size
    c = part.counts[:, 0] if part.key.size else part.counts.reshape(-1)
    for j, label in enumerate(part.labels.tolist()):
        lo, hi = np.searchsorted(part.key, [j, j + 1])
        if hi == lo:
            continue
        side = survey.sides.setdefault(label, _Side())
        side.rows += int(hi - lo)
        if c.dtype.kind in "iu":
            run = c[lo:hi]
            side.total += int(run.sum())
            side.ones = side.ones and bool((run == 1).all())
        else:
            side.ones = False
    return survey, None


def _survey(metric: str, parts: Parts) -> _Survey:
    """Labels and per-label rows and totals; the errors of ``compute`` for no data."""
    survey, _ = scan(parts, partial(_survey_step, metric), _Survey())
    if not survey.seen:
        raise InputError(message(metric, "empty input", raw("0 samples"), "at least one sample"))
    if survey.rows == 0:
        raise InputError(
            message(metric, "every sample has zero weight", raw("sample_weight all 0"), "some > 0")
        )
    return survey


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


def _tied_step(positive: Any, tied: int, part: ScoreHistogram) -> tuple[int, None]:
    return tied + _tied(*_sides(part, positive)[::2]), None


def _float_totals_step(
    positive: Any, carry: tuple[PairwiseSum, PairwiseSum, int], part: ScoreHistogram
) -> tuple[tuple[PairwiseSum, PairwiseSum, int], None]:
    n_neg, n_pos, tied = carry
    un, cn, up, cp = _sides(part, positive)
    # a total past float64 is refused by the caller, as compute refuses it
    with np.errstate(over="ignore", invalid="ignore"):
        n_neg.add(cn)
        n_pos.add(cp)
    return (n_neg, n_pos, tied + _tied(un, up)), None


def _float_totals(
    parts: Parts, positive: Any, survey: _Survey, neg: Any
) -> tuple[float, float, int]:
    """Negative and positive float totals as ``compute`` sums them, and the tied positives."""
    start = (PairwiseSum(survey.side(neg).rows), PairwiseSum(survey.side(positive).rows), 0)
    (n_neg, n_pos, tied), _ = scan(parts, partial(_float_totals_step, positive), start)
    return n_neg.result(), n_pos.result(), tied


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


def _walk_step(
    positive: Any, then: Stage | None, carry: tuple[_Walk, Any], part: ScoreHistogram
) -> tuple[tuple[_Walk, Any], Any]:
    """One range's ``(thresholds, tps, fps)``, its totals carried down from the ranges above,
    given to the stage ``then`` (with its own carry) if any."""
    walk, inner = carry
    if _finished(inner):
        return carry, None
    thresholds, pos, neg = _points(part, positive)
    if thresholds.size == 0:
        return carry, None
    tps, fps = carried_cumsum(walk.tp, pos), carried_cumsum(walk.fp, neg)
    walk.tp, walk.fp = tps[-1], fps[-1]
    walk.points += thresholds.size
    if then is None:
        return carry, None
    inner, out = then(inner, thresholds, tps, fps)
    return (walk, inner), out


def _finished(carry: Any) -> bool:
    """Whether a stage's carry says its walk is over (a ``done`` attribute that is true)."""
    return bool(getattr(carry, "done", False))


def _walk_finished(carry: tuple[_Walk, Any]) -> bool:
    return _finished(carry[1])


def walk_down(
    parts: Parts, positive: Any, then: Stage | None = None, carry: Any = None
) -> tuple[_Walk, Any, list[Any]]:
    """Walk the curve down the ranges: the totals, the stage's last carry and its outputs.

    ``then(carry, thresholds, tps, fps)`` gets each range's distinct scores,
    descending, with the cumulative true and false positives there, from the
    highest range down (ranges without a row are passed by); its outputs come
    in that order, ``None`` for the ranges passed by. Once the stage's carry
    has a true ``done``, the ranges below are passed by (the totals are then
    those of the ranges walked).
    """
    start = (_Walk(), carry)
    step = partial(_walk_step, positive, then)
    (walk, carry), outs = scan_down(parts, step, start, _walk_finished)
    return walk, carry, outs


def roc_corners(tps: Float, fps: Float) -> NDArray[np.bool_]:
    """Which interior points of a ROC curve ``drop_intermediate`` keeps: its corners."""
    keep: NDArray[np.bool_] = np.logical_or(np.diff(fps, 2), np.diff(tps, 2))
    return keep


@dataclass
class _Held:
    """The last two points of the ranges above, whether the last waits for the next, and the
    carry of the stage given the kept points."""

    inner: Any = None
    points: tuple[Float, ...] = ()
    pending: bool = False

    @property
    def done(self) -> bool:
        return _finished(self.inner)


def _corner_stage(
    rule: Callable[[Float, Float], Any],
    then: Stage,
    held: _Held,
    thresholds: Float,
    tps: Float,
    fps: Float,
) -> tuple[_Held, Any]:
    """The points of a range ``drop_intermediate`` keeps, given to ``then``.

    ``rule(tps, fps)`` tells which interior points to keep by looking one
    point behind and one ahead (for the ROC curve, where the second difference
    of ``fps`` or ``tps`` is not zero), across ranges too: the last two points
    of a range are held until the next range's first; the first point of the
    curve is kept, and the last once the walk is over (:func:`_corner_end`).
    """
    first = not held.points
    if not first:
        thresholds, tps, fps = (
            np.concatenate(p) for p in zip(held.points, (thresholds, tps, fps), strict=True)
        )
    n = thresholds.size
    keep = np.zeros(n, dtype=bool)
    if n > 2:
        keep[1:-1] = rule(tps, fps)
    # the points decided now: all but the last, from the first not yet decided
    lo = 0 if first else (held.points[0].size - 1 if held.pending else held.points[0].size)
    keep[0] |= first
    kept = np.flatnonzero(keep[lo : n - 1]) + lo
    if first and n == 1:
        kept = np.zeros(1, dtype=np.intp)
    out = None
    if kept.size:
        held.inner, out = then(held.inner, thresholds[kept], tps[kept], fps[kept])
    held.pending = not (first and n == 1)
    held.points = (thresholds[-2:].copy(), tps[-2:].copy(), fps[-2:].copy())
    return held, out


def _corner_end(then: Stage, held: _Held) -> tuple[Any, list[Any]]:
    """The last point of the curve, still held when the walk is over, given to ``then``."""
    if not held.pending or held.done:
        return held.inner, []
    inner, out = then(held.inner, *(p[-1:] for p in held.points))
    return inner, [out]


def walk_corners(
    parts: Parts, positive: Any, then: Stage, carry: Any = None, rule: Any = roc_corners
) -> tuple[_Walk, Any, list[Any]]:
    """:func:`walk_down` over the points ``drop_intermediate`` keeps (:func:`_corner_stage`).

    The outputs of ``then`` are those of the ranges with a kept point, then
    that of the last point if it was held.
    """
    stage = partial(_corner_stage, rule, then)
    walk, ends, outs = walk_down(parts, positive, stage, _Held(carry))
    carry, last = _corner_end(then, ends)
    return walk, carry, outs + last


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
