"""The result of an evaluation: values, the merged states behind them, the rows read."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from scorekit.core._metric import Metric
from scorekit.core._state import State

__all__ = ["EvaluationResult"]


@dataclass(frozen=True)
class EvaluationResult:
    """What :func:`evaluate` computed: values, the merged states behind them, and the rows read.

    Attributes
    ----------
    values : dict
        Metric key (the metric string as given, or the name of a Metric object)
        -> value.
    states : dict
        Metric key -> merged state; ``values[k] == metrics[k].compute(states[k])``.
        States can be saved, and merged with the states of other shards.
    metrics : dict
        Metric key -> the configured :class:`~scorekit.Metric`.
    rows : int
        The rows read.

    Examples
    --------
    >>> import scorekit
    >>> result = scorekit.evaluate({"y_true": [1, 0, 1], "y_pred": [1, 1, 1]}, ["accuracy"])
    >>> result.values, result.rows
    ({'accuracy': 0.666...}, 3)
    >>> result.states["accuracy"]
    ConfusionCounts(...)
    """

    values: dict[str, Any]
    states: dict[str, State] = dataclasses.field(repr=False)
    metrics: dict[str, Metric[Any]] = dataclasses.field(repr=False)
    rows: int = 0

    def __getitem__(self, key: str) -> Any:
        """The value of one metric: ``result["f1"]``."""
        return self.values[key]
