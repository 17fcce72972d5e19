"""The standard analytic interval of a metric, where one exists: Wilson, DeLong."""

from __future__ import annotations

from typing import Any

import numpy as np

from scorekit.classification import ConfusionCounts, prf_counts
from scorekit.core import Metric, State, parse_metric
from scorekit.errors import ConfigError, message, raw
from scorekit.stats._analytic import delong_interval, wilson
from scorekit.stats._intervals import check_confidence
from scorekit.stats._replicates import single_number
from scorekit.stats._results import Interval

__all__ = ["ANALYTIC", "analytic_interval"]

ANALYTIC = {
    "accuracy": "wilson",
    "precision": "wilson",
    "recall": "wilson",
    "roc_auc": "delong",
}
"""The metrics with a standard analytic interval, and its method."""


def _proportion(where: str, metric: Metric[Any], state: Any) -> tuple[int, int]:
    """Successes and trials of accuracy, binary precision or recall, from its confusion counts."""
    matrix = getattr(state, "matrix", None)
    if not isinstance(state, ConfusionCounts) or matrix is None:
        raise ConfigError(
            message(where, "not the state of the metric", raw(type(state).__name__), "its counts")
        )
    if matrix.dtype.kind not in "iu":
        raise ConfigError(
            message(
                where,
                "Wilson's interval is for unweighted counts",
                raw("weighted counts"),
                "the counts of data without sample_weight",
            )
        )
    if metric.name == "accuracy":
        if not getattr(metric, "normalize", True):
            raise ConfigError(
                message(
                    where,
                    "Wilson's interval is of the proportion, not the count",
                    raw("normalize=False"),
                    "normalize=True",
                )
            )
        if matrix.ndim != 2:
            raise ConfigError(
                message(where, "Wilson's interval is for single-label accuracy", raw("multi-label"))
            )
        return int(np.trace(matrix)), int(matrix.sum())
    average = getattr(metric, "average", "binary")
    if average != "binary":
        raise ConfigError(
            message(
                where,
                "Wilson's interval is for binary precision and recall",
                average,
                "average='binary'",
            )
        )
    tp, predicted, true, _ = prf_counts(
        metric.name, state, average="binary", labels=None, pos_label=getattr(metric, "pos_label", 1)
    )
    chosen = predicted if metric.name == "precision" else true
    return int(tp[0]), int(chosen[0])


def analytic_interval(
    metric: str | Metric[Any], *data: Any, confidence: float = 0.95, **kwargs: Any
) -> Interval:
    """The standard analytic confidence interval of a metric, with its method named.

    Wilson's score interval for the proportions accuracy (correct among all
    samples), precision (true among predicted positives) and recall (found
    among actual positives) of a binary task; DeLong's interval for binary ROC
    AUC. Unweighted data only (the intervals are for counts). Any other metric:
    use :func:`bootstrap`.

    ROC AUC's interval is also read from the metric's exact state, given
    alone in place of the data (a ScoreHistogram, or the ScoreRanges of
    ``roc_auc:ranges=N``, merged over chunks or loaded from a state file):
    see :func:`delong_interval`.

    Examples
    --------
    >>> from scorekit import stats
    >>> ci = stats.analytic_interval("accuracy", [1, 0, 1, 1] * 10, [1, 1, 1, 0] * 10)
    >>> ci.method, ci.value, round(ci.low, 4), round(ci.high, 4)
    ('wilson', 0.5, 0.352, 0.648)
    >>> from scorekit.classification import ROCAUC
    >>> state = ROCAUC(ranges=4).summarize([0, 1, 0, 1, 0, 1], [0.2, 0.9, 0.4, 0.6, 0.7, 0.8])
    >>> ci = stats.analytic_interval("roc_auc:ranges=4", state)
    >>> ci.method, round(ci.value, 4), round(ci.low, 4), ci.high
    ('delong', 0.8889, 0.5809, 1.0)
    """
    inner = parse_metric(metric) if isinstance(metric, str) else metric
    where = f"analytic interval of {inner.name}"
    confidence = check_confidence(confidence, where)
    method = ANALYTIC.get(inner.name)
    if method is None:
        raise ConfigError(
            message(
                where,
                "no standard analytic interval",
                inner.name,
                "one of " + ", ".join(sorted(ANALYTIC)) + " (else a bootstrap interval)",
            )
        )
    if kwargs.get("sample_weight") is not None:
        raise ConfigError(
            message(where, f"the {method} interval is for unweighted counts", "sample_weight")
        )
    state = data[0] if len(data) == 1 and isinstance(data[0], State) else None
    if method == "delong":
        if getattr(inner, "max_fpr", None) not in (None, 1) or getattr(inner, "edges", None):
            raise ConfigError(
                message(where, "DeLong's interval is for the exact, full ROC AUC", raw(repr(inner)))
            )
        if state is not None:
            return delong_interval(state, confidence=confidence)
        single_number(inner, inner.score(*data, **kwargs))
        return delong_interval(data[0], data[1], confidence)
    if state is None:
        state = inner.summarize(*data, **kwargs)
    successes, n = _proportion(where, inner, state)
    value = single_number(inner, inner.compute(state))
    if n == 0:
        return Interval(value, float("nan"), float("nan"), confidence, method)
    found = wilson(successes, n, confidence)
    return Interval(value, found.low, found.high, confidence, method)
