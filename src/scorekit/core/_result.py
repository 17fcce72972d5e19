"""The result of every evaluation: values, the states behind them, and what shaped them."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from scorekit.core._estimate import Estimate
from scorekit.core._metric import Metric
from scorekit.core._state import State

__all__ = ["EvaluationResult", "plain_value"]


@dataclass(frozen=True)
class EvaluationResult:
    """What an evaluation found: values by name, the merged states behind them, and its settings.

    Every evaluation returns one: :func:`scorekit.evaluate`, the functions of
    :mod:`scorekit.api` behind the commands (a task's columns, a TREC run,
    line-aligned texts, SQuAD files, request records), merged state files, and
    the comparisons of systems. A value is a number, an array, an
    :class:`~scorekit.stats.Interval` (with ``ci=``) or a
    :class:`~scorekit.core.ByGroup` (with ``by=``). The result reads like a
    mapping of name to value.

    Attributes
    ----------
    values : dict
        Metric key (the metric string as given, or the name of a Metric object)
        -> value.
    states : dict
        Metric key -> merged state; ``values[k] == metrics[k].compute(states[k])``
        (for intervals, through the interval's settings). States can be saved,
        and merged with the states of other shards.
    metrics : dict
        Metric key -> the configured :class:`~scorekit.Metric` (a bootstrap
        with ``ci=``, per group with ``by=``).
    rows : int
        The rows read.
    per_query : dict or None
        Query -> metric key -> value, when per-query values were asked for (rankings).
    comparisons : list
        ``(metric key, comparison)`` pairs of a comparison of systems, in the order
        of the metrics and then of the systems.
    systems : list
        The names of the systems compared, the baseline first.
    settings : object or None
        What shaped the values beyond the metrics: the interval settings
        (:class:`scorekit.api.CI`) or those of a comparison (:class:`scorekit.api.Paired`).
    skipped : list
        Why each default metric that does not apply to the data was left out.
    columns : dict
        Role -> the columns read for it.
    options : dict
        Settings of the input that shaped the states (``pos_label``).

    Examples
    --------
    >>> import scorekit
    >>> result = scorekit.evaluate({"y_true": [1, 0, 1], "y_pred": [1, 1, 1]}, ["accuracy"])
    >>> result.values, result.rows
    ({'accuracy': 0.666...}, 3)
    >>> result["accuracy"] == dict(result)["accuracy"], list(result)
    (True, ['accuracy'])
    >>> result.states["accuracy"]
    ConfusionCounts(...)
    >>> result.to_dict()
    {'accuracy': 0.666...}
    """

    values: dict[str, Any]
    states: dict[str, State] = dataclasses.field(default_factory=dict, repr=False)
    metrics: dict[str, Metric[Any]] = dataclasses.field(default_factory=dict, repr=False)
    rows: int = 0
    per_query: dict[str, dict[str, Any]] | None = dataclasses.field(default=None, repr=False)
    comparisons: list[tuple[str, Any]] = dataclasses.field(default_factory=list, repr=False)
    systems: list[str] = dataclasses.field(default_factory=list, repr=False)
    settings: Any = dataclasses.field(default=None, repr=False)
    skipped: list[str] = dataclasses.field(default_factory=list, repr=False)
    columns: dict[str, list[str]] = dataclasses.field(default_factory=dict, repr=False)
    options: dict[str, Any] = dataclasses.field(default_factory=dict, repr=False)

    def __getitem__(self, key: str) -> Any:
        """The value of one metric: ``result["f1"]``."""
        return self.values[key]

    def __iter__(self) -> Iterator[str]:
        """The metric keys, in order."""
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)

    def __contains__(self, key: object) -> bool:
        return key in self.values

    def keys(self) -> Any:
        """The metric keys, as ``dict.keys``."""
        return self.values.keys()

    def items(self) -> Any:
        """``(key, value)`` pairs, as ``dict.items``."""
        return self.values.items()

    def to_dict(self) -> dict[str, Any]:
        """Name -> value, JSON-ready (:func:`plain_value`); comparisons under ``comparisons``.

        Examples
        --------
        >>> EvaluationResult({"mae": np.float64(0.5), "r2": float("nan")}).to_dict()
        {'mae': 0.5, 'r2': None}
        """
        found: dict[str, Any] = {k: plain_value(v) for k, v in self.values.items()}
        if self.comparisons:
            found["comparisons"] = [
                {**plain_value(c), "metric": key} for key, c in self.comparisons
            ]
        return found

    def to_pandas(self) -> Any:
        """A pandas DataFrame: one row per metric (and per group and comparison).

        The columns are ``metric`` and ``value``, with ``low``, ``high`` for
        intervals, the group columns and ``rows`` for values per group, and
        the fields of a comparison for comparisons. pandas is needed.

        Examples
        --------
        >>> EvaluationResult({"mae": 0.5}).to_pandas()  # doctest: +SKIP
          metric  value
        0    mae    0.5
        """
        import pandas as pd

        rows: list[dict[str, Any]] = []
        for key, value in self.values.items():
            shown = plain_value(value)
            if hasattr(value, "by_group"):
                rows += _group_rows(key, value)
            elif isinstance(shown, dict):
                rows.append({"metric": key, **shown})
            else:
                rows.append({"metric": key, "value": shown})
        for key, comparison in self.comparisons:
            rows.append({**plain_value(comparison), "metric": key})
        return pd.DataFrame(rows)


def _group_rows(key: str, value: Any) -> list[dict[str, Any]]:
    """The rows of a value per group: overall first, then each group with its size."""

    def cells(found: Any) -> dict[str, Any]:
        shown = plain_value(found)
        return shown if isinstance(shown, dict) else {"value": shown}

    rows = [{"metric": key, "group": "overall", **cells(value.overall)}]
    for group, found in value.by_group.items():
        names = group if isinstance(group, tuple) else (group,)
        labels = dict(zip(value.by, names, strict=True))
        rows.append({"metric": key, **labels, **cells(found), "rows": value.sizes.get(group)})
    return rows


def plain_value(value: Any) -> Any:
    """JSON-ready form of a metric value: arrays become lists, NaN and inf become null.

    An :class:`~scorekit.Estimate` becomes ``{"value": ..., "error_bound": ...}``;
    a value with an ``as_dict()`` (an interval, a value per group, a comparison)
    its dictionary.

    Examples
    --------
    >>> plain_value({"a": np.arange(2), "b": float("inf"), "c": np.int64(3)})
    {'a': [0, 1], 'b': None, 'c': 3}
    """
    if isinstance(value, Estimate):
        return {"value": plain_value(value.value), "error_bound": plain_value(value.error_bound)}
    as_dict = getattr(value, "as_dict", None)
    if callable(as_dict):
        return plain_value(as_dict())
    if isinstance(value, np.ndarray):
        return plain_value(value.tolist())
    if isinstance(value, np.generic):
        return plain_value(value.item())
    if isinstance(value, dict):
        return {str(k): plain_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_value(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
