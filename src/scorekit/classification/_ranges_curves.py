"""ROC and precision-recall curves read from score ranges, one range at a time.

The curves of :func:`~scorekit.classification.roc_curve` and
:func:`~scorekit.classification.pr_curve` on the joined histogram, array for
array: each range gives its points (cumulative totals carried down from the
ranges above), the points ``drop_intermediate`` drops are dropped as the
ranges come (a point's fate looks one point behind and one ahead, across
ranges too), and the pieces are put together in order. The state is read one
range at a time, through :func:`scorekit.core.scan`: each range gives its
kept points as the output of a step, and only the two points held across
ranges are carried; the curve itself holds the points it returns. With more
than two labels, :class:`OneVsRest` pools each range's labels other than the
positive one before the walk, as the curves of the joined histogram do, in
the step that reads the range.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from scorekit.classification._histogram import Float, ScoreHistogram, _find, _starts
from scorekit.classification._ranges_walk import (
    Parts,
    RangesView,
    Step,
    _survey,
    roc_corners,
    walk_corners,
    walk_down,
)
from scorekit.classification._scores import _positive_index

__all__ = ["OneVsRest", "ranges_curve_points", "recall_steps", "roc_corners", "two_labels"]


class OneVsRest(RangesView):
    """Ranges whose labels other than ``positive`` are pooled into one negative label.

    Range ``i``, made when read (in the step of a scan that reads ``parts[i]``),
    holds the positive rows of ``parts[i]`` and, under the first other label,
    one row per distinct score of the others with their counts summed as the
    curves of the joined histogram sum them, so the walk over the ranges sees
    two labels.

    Examples
    --------
    >>> from scorekit.classification import summarize_ranges
    >>> state = summarize_ranges([0, 2, 1, 0], [0.1, 0.1, 0.7, 0.6], cuts=[0.5])
    >>> part = OneVsRest(state.parts, 1)[0]
    >>> part.labels.tolist(), part.score.tolist(), part.counts[:, 0].tolist()
    ([1, 0], [0.1], [2])
    """

    def __init__(self, parts: Parts, positive: Any) -> None:
        super().__init__(parts)
        self.parts = parts
        self.positive = positive

    def view(self, part: ScoreHistogram) -> ScoreHistogram:
        return _pooled(self.positive, part)

    def view_step(self, step: Step) -> Step:
        return partial(_pooled_step, step, self.positive)


def _pooled_step(step: Step, positive: Any, carry: Any, part: ScoreHistogram) -> Any:
    """``step`` on the range ``part`` with its labels other than ``positive`` pooled."""
    return step(carry, _pooled(positive, part))


def _pooled(positive: Any, part: ScoreHistogram) -> ScoreHistogram:
    """The range ``part`` with its labels other than ``positive`` pooled into one."""
    if not part.task or part.key.size == 0:
        return part
    j = _find(part.labels, positive)
    is_pos = part.key == j
    c = part.counts[:, 0]
    # the sums of the joined histogram's curves: each distinct score's rows in the
    # order of the labels, a positive row counting 0 (numpy's sum of floats is not
    # one addition after another, so the zeros stay)
    order = np.argsort(part.score, kind="stable")
    starts = _starts(part.score[order])
    negative = np.where(is_pos, np.zeros_like(c), c)[order]
    others = np.add.reduceat((~is_pos)[order].astype(np.intp), starts) > 0
    un = part.score[order][starts][others]
    cn = np.add.reduceat(negative, starts)[others]
    up, cp = part.score[is_pos], c[is_pos]
    # the positive label (key 0, if a label), then one label standing for the rest
    rest = [k for k in range(part.labels.size) if k != j][:1]
    labels = part.labels[([j] if j >= 0 else []) + rest]
    key = np.concatenate([np.zeros(up.size, np.int64), np.full(un.size, int(j >= 0))])
    return dataclasses.replace(
        part,
        labels=labels,
        key=key,
        score=np.concatenate([up, un]),
        counts=np.concatenate([cp, cn])[:, None],
    )


def two_labels(parts: Parts, labels: Any, index: int, pos_label: Any) -> tuple[Any, Parts]:
    """The positive label and ranges of two labels to walk, given the labels of every range.

    ``index`` is the positive label's among ``labels`` (-1 when ``pos_label``
    is none of them: the label is then absent from every range); ranges of more
    than two labels come as :class:`OneVsRest`.
    """
    positive = labels[index] if index >= 0 else (1 if pos_label is None else pos_label)
    return positive, (OneVsRest(parts, positive) if labels.size > 2 else parts)


def _binary_parts(metric: str, parts: Parts, pos_label: Any) -> tuple[Any, Parts]:
    """The positive label, as the curves choose it, and ranges of two labels to walk."""
    labels = _survey(metric, parts).labels
    return two_labels(parts, labels, _positive_index(metric, labels, pos_label), pos_label)


def recall_steps(tps: Float, fps: Float) -> Any:
    """Which interior points of a PR curve ``drop_intermediate`` keeps: recall changes there."""
    return np.logical_or(np.diff(tps[:-1]), np.diff(tps[1:]))


def _collect(
    carry: None, thresholds: Float, tps: Float, fps: Float
) -> tuple[None, tuple[Float, Float, Float]]:
    """A range's points of the curve, as the output of its step."""
    return carry, (thresholds, tps, fps)


def _points(
    parts: Parts, positive: Any, drop_intermediate: bool, rule: Any
) -> tuple[Float, Float, Float]:
    if drop_intermediate:
        _, _, outs = walk_corners(parts, positive, _collect, rule=rule)
    else:
        _, _, outs = walk_down(parts, positive, _collect)
    pieces = [out for out in outs if out is not None]
    if not pieces:
        empty = np.empty(0, dtype=np.float64)
        return empty, empty, empty
    thresholds, tps, fps = (np.concatenate(arrays) for arrays in zip(*pieces, strict=True))
    return thresholds, tps, fps


def ranges_curve_points(
    parts: Parts,
    rule: Callable[[Float, Float], Any],
    *,
    pos_label: Any,
    drop_intermediate: bool,
    metric: str,
) -> tuple[Float, Float, Float]:
    """A curve's ``(thresholds, tps, fps)`` by decreasing threshold, read from the ranges.

    ``rule(tps, fps)`` tells the interior points ``drop_intermediate`` keeps
    (:func:`roc_corners`, :func:`recall_steps`); the curves of
    :func:`~scorekit.classification.ranges_roc_curve` and
    :func:`~scorekit.classification.ranges_pr_curve` are made of these points.

    Examples
    --------
    >>> from scorekit.classification import summarize_ranges
    >>> state = summarize_ranges([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], cuts=[0.3, 0.5])
    >>> thresholds, tps, fps = ranges_curve_points(
    ...     state.parts, recall_steps, pos_label=None, drop_intermediate=False, metric="pr_curve"
    ... )
    >>> thresholds.tolist(), tps.tolist(), fps.tolist()
    ([0.8, 0.4, 0.35, 0.1], [1.0, 1.0, 2.0, 2.0], [0.0, 1.0, 1.0, 2.0])
    """
    positive, parts = _binary_parts(metric, parts, pos_label)
    return _points(parts, positive, drop_intermediate, rule)
