"""The best decision threshold read from score ranges, one range at a time.

What :class:`~scorekit.classification.BestThreshold` needs of a
:class:`~scorekit.classification.ScoreRanges` state, each range held on its
own: the labels of every range (with the errors of no data), the totals of
positive and negative weight (the last cumulative sums of the joined
histogram's curve, carried down the ranges as it adds them), and the point of
the curve whose objective value is the best, kept as ``np.argmax`` (or
``np.argmin``) over the whole curve keeps it. The objective values come from
the function the metric gives, the one it applies to the joined histogram's
arrays, so the choice is that of ``compute`` on the joined histogram, bit for
bit. The ranges are read only through :func:`scorekit.core.scan`, each in a
step that reduces it to its best point (the objective function goes with the
step, so it must be picklable: a module-level function or a
:func:`functools.partial` of one). The walks take ranges of at most two labels
(``two_labels`` of :mod:`scorekit.classification._ranges_curves` pools the
others).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from scorekit.classification._histogram import Float
from scorekit.classification._ranges_walk import Parts, _survey, walk_down
from scorekit.errors import InputError, message, raw

__all__ = ["BestPoint", "ranges_best", "ranges_labels", "ranges_totals"]


class BestPoint(NamedTuple):
    """One point of the curve: its threshold, true and false positives (1-element arrays)."""

    thresholds: Float
    tps: Float
    fps: Float


def ranges_labels(metric: str, parts: Parts) -> NDArray[Any]:
    """The labels of every range; the errors of ``compute`` for no data or 2-D scores.

    Examples
    --------
    >>> from scorekit.classification import summarize_ranges
    >>> ranges_labels("best_threshold", summarize_ranges([0, 1], [0.2, 0.9], cuts=[0.5]).parts)
    array([0, 1])
    """
    return _survey(metric, parts).labels


def ranges_totals(parts: Parts, positive: Any) -> tuple[float, float]:
    """The positive and negative weight, as the last cumulative sums of the joined curve.

    ``parts`` are ranges of at most two labels.

    Examples
    --------
    >>> from scorekit.classification import summarize_ranges
    >>> state = summarize_ranges([0, 1, 1], [0.2, 0.9, 0.4], cuts=[0.5], sample_weight=[1, 2, 0.5])
    >>> ranges_totals(state.parts, 1)
    (2.5, 1.0)
    """
    walk, _, _ = walk_down(parts, positive)
    return float(walk.tp), float(walk.fp)


@dataclass
class _Best:
    """The best point of the ranges above, its value, and whether a nan ended the search."""

    point: BestPoint | None = None
    value: Any = np.nan
    done: bool = False


def _best_stage(
    values: Callable[[Float, Float], Float],
    maximize: bool,
    carry: _Best,
    thresholds: Float,
    tps: Float,
    fps: Float,
) -> tuple[_Best, None]:
    """The best point so far, after one range's points (the first of equal values wins)."""
    if carry.done:
        return carry, None
    v = values(tps, fps)
    i = int(np.argmax(v) if maximize else np.argmin(v))
    here = v[i]
    nan = bool(np.isnan(here))
    held = carry.value
    if carry.point is None or nan or (here > held if maximize else here < held):
        at = slice(i, i + 1)
        carry.point = BestPoint(thresholds[at].copy(), tps[at].copy(), fps[at].copy())
        carry.value = here
    carry.done = nan
    return carry, None


def ranges_best(
    parts: Parts,
    positive: Any,
    values: Callable[[Float, Float], Float],
    *,
    maximize: bool,
    metric: str = "best_threshold",
) -> BestPoint:
    """The point of the curve whose ``values(tps, fps)`` is the highest (or the lowest).

    The ranges are walked from the highest score down; ``values`` gets each
    range's cumulative true and false positives at its distinct scores,
    descending. As ``np.argmax`` / ``np.argmin`` over the values of the whole
    curve: of equal values the first (the highest threshold) wins, and the
    first nan, if any, is the choice.

    Parameters
    ----------
    parts : sequence of ScoreHistogram
        Ranges of at most two labels, in increasing score order, with data.
    positive : label
        The positive class.
    values : callable
        The objective value at each point, elementwise; picklable (it runs
        where each range is read).
    maximize : bool
        Whether the highest value is the best (else the lowest).
    metric : str
        The name in errors.

    Returns
    -------
    BestPoint
        The threshold and the cumulative counts there, as 1-element arrays.

    Examples
    --------
    >>> from scorekit.classification import summarize_ranges
    >>> state = summarize_ranges([0, 1, 1, 0], [0.1, 0.8, 0.4, 0.35], cuts=[0.5])
    >>> best = ranges_best(state.parts, 1, lambda tps, fps: tps - fps, maximize=True)
    >>> best.thresholds, best.tps, best.fps
    (array([0.4]), array([2.]), array([0.]))
    """
    found: _Best
    _, found, _ = walk_down(parts, positive, partial(_best_stage, values, maximize), _Best())
    if found.point is None:
        raise InputError(
            message(metric, "every sample has zero weight", raw("sample_weight all 0"), "some > 0")
        )
    return found.point
