"""Reading score ranges: scans up and down the ranges, the labels and totals, and the walk
down the scores that the curve readers share.

The ranges' histograms come in increasing score order as a sequence
(:attr:`ScoreRanges.parts`, or any object that loads range ``i`` when asked,
from a worker or a file), read only through :func:`scorekit.core.scan`: each
pass is a step run on one range at a time, carrying running totals between
ranges, so a sequence that keeps its ranges on the workers of a cluster runs
each step there. :func:`scan_down` scans from the highest range to the lowest;
:func:`walk_down` walks the curve's points down the scores, with the cumulative
true and false positives carried across ranges, and :func:`walk_corners` keeps
the points of ``drop_intermediate``. A :class:`RangesView` (one label against
the rest) is made inside the steps.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit._check import union_labels
from scorekit.classification._histogram import Float, ScoreHistogram, Scores, _find
from scorekit.classification._pairwise import PairwiseSum, carried_cumsum
from scorekit.core import scan
from scorekit.errors import InputError, message, raw

__all__ = ["RangesView", "roc_corners", "scan_down", "walk_corners", "walk_down"]

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
