"""The result of a bounded-memory metric: an estimate and a guaranteed bound on its error."""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["Estimate"]


class Estimate(NamedTuple):
    """A value computed from a fixed-size state, with a bound on its distance to the exact one.

    The exact value (what the metric gives without the bounded option) lies in
    ``[value - error_bound, value + error_bound]``. Both fields are floats, or
    arrays of the same shape for per-column results; it unpacks as
    ``value, error_bound = ...``.

    Examples
    --------
    >>> from scorekit.classification import roc_auc
    >>> value, bound = roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], bins=2)
    >>> value, bound
    (0.75, 0.25)
    >>> Estimate(0.8312, 0.0004).error_bound
    0.0004
    """

    value: Any
    error_bound: Any
