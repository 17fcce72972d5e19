"""ROC and precision-recall curves read from score ranges, one range at a time.

The curves of :func:`~scorekit.classification.roc_curve` and
:func:`~scorekit.classification.pr_curve` on the joined histogram, array for
array: each range gives its points (cumulative totals carried down from the
ranges above), the points ``drop_intermediate`` drops are dropped as the
ranges come (a point's fate looks one point behind and one ahead, across
ranges too), and the pieces are put together in order. The state is read one
range at a time; the curve itself holds the points it returns.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from scorekit.classification._histogram import Float
from scorekit.classification._pr import PrCurve, _pr_points
from scorekit.classification._ranges_read import (
    Parts,
    _corners,
    _descend,
    _survey,
    _Walk,
    roc_corners,
)
from scorekit.classification._roc import RocCurve, _roc_points
from scorekit.classification._scores import _positive_index

__all__ = ["ranges_pr_curve", "ranges_roc_curve"]


def _positive(metric: str, parts: Parts, pos_label: Any) -> Any:
    """The positive label, as the curves choose it (a label absent from every range when
    ``pos_label`` is not one of them)."""
    labels = _survey(metric, parts).labels
    index = _positive_index(metric, labels, pos_label)
    if index >= 0:
        return labels[index]
    return 1 if pos_label is None else pos_label


def _recall_steps(tps: Float, fps: Float) -> Any:
    """Which interior points of a PR curve ``drop_intermediate`` keeps: recall changes there."""
    return np.logical_or(np.diff(tps[:-1]), np.diff(tps[1:]))


def _points(
    parts: Parts, positive: Any, drop_intermediate: bool, rule: Any
) -> tuple[Float, Float, Float]:
    walk = _descend(parts, positive, _Walk())
    pieces = list(_corners(parts, positive, rule) if drop_intermediate else walk)
    if not pieces:
        empty = np.empty(0, dtype=np.float64)
        return empty, empty, empty
    thresholds, tps, fps = (np.concatenate(arrays) for arrays in zip(*pieces, strict=True))
    return thresholds, tps, fps


def ranges_roc_curve(
    parts: Parts,
    *,
    pos_label: Any = None,
    drop_intermediate: bool = True,
    metric: str = "roc_curve",
) -> RocCurve:
    """The ROC curve of the ranges, as :class:`~scorekit.classification.ROCCurveMetric`.

    Parameters
    ----------
    parts : sequence of ScoreHistogram
        The ranges' histograms in increasing score order, each read on its own.
    pos_label : label, optional
        The positive class; by default 1 for labels in {0, 1} or {-1, 1}.
    drop_intermediate : bool, default True
        Keep only the corners of the curve.
    metric : str
        The name in errors and warnings.

    Returns
    -------
    RocCurve
        ``(fpr, tpr, thresholds)`` by decreasing threshold, equal array for
        array to the curve of the joined histogram.

    Examples
    --------
    >>> from scorekit.classification import summarize_ranges
    >>> state = summarize_ranges([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], cuts=[0.3, 0.5])
    >>> ranges_roc_curve(state.parts).tpr
    array([0. , 0.5, 0.5, 1. , 1. ])
    """
    positive = _positive(metric, parts, pos_label)
    arrays = _points(parts, positive, drop_intermediate, roc_corners)
    return _roc_points(metric, *arrays, False, True)


def ranges_pr_curve(
    parts: Parts,
    *,
    pos_label: Any = None,
    drop_intermediate: bool = False,
    metric: str = "pr_curve",
) -> PrCurve:
    """The precision-recall curve of the ranges, as :class:`~scorekit.classification.PRCurveMetric`.

    Parameters
    ----------
    parts : sequence of ScoreHistogram
        The ranges' histograms in increasing score order, each read on its own.
    pos_label : label, optional
        The positive class; by default 1 for labels in {0, 1} or {-1, 1}.
    drop_intermediate : bool, default False
        Keep only the first and last point of each run of equal recall.
    metric : str
        The name in errors and warnings.

    Returns
    -------
    PrCurve
        ``(precision, recall, thresholds)`` by increasing threshold, equal
        array for array to the curve of the joined histogram.

    Examples
    --------
    >>> from scorekit.classification import summarize_ranges
    >>> state = summarize_ranges([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], cuts=[0.3, 0.5])
    >>> ranges_pr_curve(state.parts).recall
    array([1. , 1. , 0.5, 0.5, 0. ])
    """
    positive = _positive(metric, parts, pos_label)
    arrays = _points(parts, positive, drop_intermediate, _recall_steps)
    return _pr_points(metric, *arrays, False, True)
