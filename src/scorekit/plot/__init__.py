"""Figures of evaluations, drawn with matplotlib (the ``[report]`` extra).

Every function takes the raw inputs **or** the state a metric keeps (so a
figure of a 100-million-row evaluation, or of shards merged from a cluster,
costs what its state costs), draws on the optional ``ax`` (a new figure
without it) and returns the matplotlib ``Axes``, in the style of
scikit-learn's ``*Display.from_predictions``.

- classification: :func:`roc`, :func:`pr`, :func:`calibration`,
  :func:`confusion_matrix`, :func:`score_distribution`
- regression: :func:`residuals`, :func:`predicted_vs_true`
- ranking: :func:`per_query`
- serving: :func:`latency_cdf`, :func:`throughput_over_time`, :func:`sweep`
  (throughput against latency over the steps of a load-test sweep)
- any metric: :func:`compare` (systems side by side, with intervals when the
  values carry them; or the differences of :func:`scorekit.stats.compare`)

Examples
--------
>>> from scorekit import plot
>>> ax = plot.roc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
>>> ax.get_xlabel()
'False positive rate'
"""

from __future__ import annotations

from scorekit.plot._classification import (
    calibration,
    confusion_matrix,
    pr,
    roc,
    score_distribution,
)
from scorekit.plot._common import INSTALL, interval, require_matplotlib
from scorekit.plot._others import (
    compare,
    latency_cdf,
    per_query,
    predicted_vs_true,
    residuals,
    sweep,
    throughput_over_time,
)

__all__ = [
    "INSTALL",
    "calibration",
    "compare",
    "confusion_matrix",
    "interval",
    "latency_cdf",
    "per_query",
    "pr",
    "predicted_vs_true",
    "require_matplotlib",
    "residuals",
    "roc",
    "score_distribution",
    "sweep",
    "throughput_over_time",
]
