"""Confidence intervals and paired significance tests, for any registered metric.

A bootstrap of a metric is itself a metric: its state holds the states of the
replicates (or, for metrics that keep one value per unit, the metric's own
state), so it streams, merges from shard files and runs on Dask like any other.
"""

from __future__ import annotations

from scorekit.stats._bootstrap import bootstrap, replicate_values, state_interval
from scorekit.stats._compare import CORRECTIONS, TESTS, Comparison, compare, unit_values
from scorekit.stats._intervals import INTERVALS, interval
from scorekit.stats._replicates import Bootstrap, Replicated, Replicates
from scorekit.stats._results import DeLongResult, Interval, TestResult

__all__ = [
    "CORRECTIONS",
    "INTERVALS",
    "TESTS",
    "Bootstrap",
    "Comparison",
    "DeLongResult",
    "Interval",
    "Replicated",
    "Replicates",
    "TestResult",
    "bootstrap",
    "compare",
    "interval",
    "replicate_values",
    "state_interval",
    "unit_values",
]
