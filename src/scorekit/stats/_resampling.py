"""What a bootstrap or a paired test needs of a metric: its units and its replicates.

A metric is resampled through the functions here. It may define any of these
hooks (methods or class attributes of the same names) in place of the default:

- ``unit`` (default ``"row"``): what is resampled, in the singular (``query``, ``segment``...);
- ``count_units(*batch, **kwargs)`` (default: the length of the first input);
- ``summarize_replicates(*batch, weights=, **kwargs)`` (default
  :func:`~scorekit.core.row_replicates`: row ``i`` counted ``weights[b, i]``
  times in replicate ``b``);
- ``replicate_values(*batch, weights=, **kwargs)``: the values of many replicates
  from one pass over an in-memory batch (ROC AUC sorts the scores once), or None;
- ``replicates_from_state`` (default False) with ``unit_keys(state)`` and
  ``compute_replicates(state, weights)``: a state that keeps one value per unit
  (ranking's per-query values) gives its replicates itself.

:class:`Resampled` states this protocol; :class:`~scorekit.core.Metric` itself
carries none of it.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Metric, UnitWeights, row_replicates
from scorekit.errors import ConfigError, message

__all__ = [
    "Resampled",
    "compute_replicates",
    "count_units",
    "from_state",
    "one_pass",
    "replicate_values",
    "summarize_replicates",
    "unit_keys",
    "unit_of",
]


class Resampled(Protocol):
    """The hooks a metric may define to be resampled otherwise than row by row (all optional)."""

    unit: ClassVar[str]
    replicates_from_state: ClassVar[bool]

    def count_units(self, *batch: Any, **kwargs: Any) -> int:
        """The number of units in one batch."""

    def summarize_replicates(
        self, *batch: Any, weights: NDArray[np.int64], **kwargs: Any
    ) -> list[Any]:
        """The states of ``len(weights)`` replicates of one batch."""

    def replicate_values(
        self, *batch: Any, weights: UnitWeights, **kwargs: Any
    ) -> NDArray[np.float64] | None:
        """The values of the replicates of one in-memory batch, or None."""

    def unit_keys(self, state: Any) -> NDArray[Any]:
        """The keys of the units a state keeps."""

    def compute_replicates(self, state: Any, weights: NDArray[np.int64]) -> NDArray[np.float64]:
        """The values of replicates of a state that keeps one value per unit."""


def unit_of(metric: Metric[Any]) -> str:
    """What a bootstrap of ``metric`` resamples, in the singular.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> unit_of(parse_metric("accuracy")), unit_of(parse_metric("map"))
    ('row', 'query')
    """
    return str(getattr(metric, "unit", "row"))


def from_state(metric: Metric[Any]) -> bool:
    """Whether ``metric``'s state keeps one value per unit, which gives the replicates."""
    return bool(getattr(metric, "replicates_from_state", False))


def one_pass(metric: Metric[Any]) -> bool:
    """Whether ``metric`` computes many replicates of a batch in one pass (``replicate_values``)."""
    return callable(getattr(metric, "replicate_values", None))


def count_units(metric: Metric[Any], *batch: Any, **kwargs: Any) -> int:
    """The number of units in one batch (by default the length of the first input)."""
    count = getattr(metric, "count_units", None)
    return int(count(*batch, **kwargs)) if count is not None else len(batch[0])


def summarize_replicates(
    metric: Metric[Any], *batch: Any, weights: NDArray[np.int64], **kwargs: Any
) -> list[Any]:
    """The states of ``len(weights)`` replicates of one batch, unit ``i`` counted ``weights[b, i]``.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> metric = parse_metric("accuracy")
    >>> weights = np.array([[1, 1, 1], [0, 0, 2]])
    >>> states = summarize_replicates(metric, [1, 0, 1], [1, 1, 1], weights=weights)
    >>> [float(metric.compute(s)) for s in states]
    [0.666..., 1.0]
    """
    own = getattr(metric, "summarize_replicates", None)
    if own is not None:
        return list(own(*batch, weights=weights, **kwargs))
    return row_replicates(metric, *batch, weights=weights, **kwargs)


def replicate_values(
    metric: Metric[Any], *batch: Any, weights: UnitWeights, **kwargs: Any
) -> NDArray[np.float64] | None:
    """The values of the replicates of one batch from one pass, or None without such a pass."""
    own = getattr(metric, "replicate_values", None)
    return None if own is None else own(*batch, weights=weights, **kwargs)


def unit_keys(metric: Metric[Any], state: Any) -> NDArray[Any]:
    """The keys of the units a state keeps (metrics whose replicates come from the state)."""
    own = getattr(metric, "unit_keys", None)
    if own is None or not from_state(metric):
        raise ConfigError(message(metric.name, "keeps no value per unit in its state"))
    return np.asarray(own(state))


def compute_replicates(
    metric: Metric[Any], state: Any, weights: NDArray[np.int64]
) -> NDArray[np.float64]:
    """The values of replicates of a state that keeps one value per unit.

    ``weights[b, i]`` is how many times unit ``i`` (in the order of
    :func:`unit_keys`) counts in replicate ``b``.
    """
    own = getattr(metric, "compute_replicates", None)
    if own is None or not from_state(metric):
        raise ConfigError(message(metric.name, "keeps no value per unit in its state"))
    return np.asarray(own(state, weights), dtype=np.float64)
