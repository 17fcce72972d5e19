"""Confidence intervals and paired significance tests, for any registered metric.

A bootstrap of a metric is itself a metric: its state holds the states of the
replicates (or, for metrics that keep one value per unit, the metric's own
state), so it streams, merges from shard files and runs on Dask like any other.
"""

from __future__ import annotations

__all__: list[str] = []
