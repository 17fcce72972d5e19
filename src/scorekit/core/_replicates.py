"""Bootstrap replicates of metrics whose unit is a row of their inputs.

A replicate counts row ``i`` of a batch ``weights[b, i]`` times. It must be the
state of the batch with that row repeated so many times: a row of weight 0 is
not in the replicate at all (its label, say, does not enter the replicate's
label set), and a replicate of no row is the empty state, the identity of the
merge, so that the replicates of chunks merge into those of the whole data.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.errors import ConfigError, raw

__all__ = ["repeated_row_replicates", "row_replicates"]


def row_replicates(self: Any, *batch: Any, weights: NDArray[np.int64], **kwargs: Any) -> list[Any]:
    """The states of ``len(weights)`` replicates, row ``i`` counted ``weights[b, i]`` times.

    Meant as a metric's ``summarize_replicates`` (``summarize_replicates =
    row_replicates`` in the class body). Each replicate summarizes the rows
    of positive weight only: a metric that takes ``sample_weight`` gets them
    once each with their count as weight (times any ``sample_weight``
    given), any other gets them repeated. A replicate whose weights are all
    0 is :meth:`~scorekit.core.Metric.empty`, whose value is what the metric
    gives for no data (an error or an undefined value, as summarizing an
    empty batch).

    Raises
    ------
    ConfigError
        ``weights`` is not a 2-d array of one column per row, holds a
        negative count, or an input is not one row per unit.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> metric = parse_metric("accuracy")
    >>> weights = np.array([[1, 1, 1], [0, 0, 2], [0, 0, 0]])
    >>> states = row_replicates(metric, [1, 0, 1], [1, 1, 1], weights=weights)
    >>> [float(metric.compute(s)) for s in states[:2]], states[2].equals(metric.empty())
    ([0.666..., 1.0], True)
    """
    return _replicates(self, batch, weights, kwargs, repeat=False)


def repeated_row_replicates(
    self: Any, *batch: Any, weights: NDArray[np.int64], **kwargs: Any
) -> list[Any]:
    """As :func:`row_replicates`, but rows are always repeated, with their sample weights.

    For a metric whose value depends on the number of rows, not only on
    their total weight (R² is undefined for fewer than two samples, as in
    scikit-learn), so a row counted twice must be two rows.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> metric = parse_metric("r2")
    >>> states = repeated_row_replicates(metric, [1.0, 2.0], [1.5, 2.0], weights=np.array([[2, 0]]))
    >>> states[0].count
    2
    """
    return _replicates(self, batch, weights, kwargs, repeat=True)


def _replicates(
    self: Any,
    batch: tuple[Any, ...],
    weights: NDArray[np.int64],
    kwargs: dict[str, Any],
    repeat: bool,
) -> list[Any]:
    w = np.asarray(weights)
    # a unit is a row of the inputs, unless the metric counts its units otherwise
    count = getattr(self, "count_units", None)
    n = len(batch[0]) if count is None else count(*batch, **kwargs)
    if w.ndim != 2 or w.shape[1] != n:
        raise ConfigError(
            self._error(
                "replicate weights are not one column per unit",
                raw(f"shape {w.shape}"),
                f"(replicates, {n})",
            )
        )
    if w.size and w.min() < 0:
        raise ConfigError(self._error("negative replicate weight", w.min().item(), "counts >= 0"))
    takers = [_taker(self, arg, n) for arg in batch]
    weighted = "sample_weight" in inspect.signature(self.summarize).parameters
    given = kwargs.pop("sample_weight", None) if weighted else None
    base = None if given is None else np.asarray(given, dtype=np.float64)
    out: list[Any] = []
    for counts in w:
        keep = np.flatnonzero(counts)
        if keep.size == 0:
            out.append(self.empty())
        elif weighted and not repeat:
            times = counts[keep].astype(np.float64)
            sample_weight = times if base is None else base[keep] * times
            rows = (take(keep) for take in takers)
            out.append(self.summarize(*rows, sample_weight=sample_weight, **kwargs))
        else:
            index = np.repeat(keep, counts[keep])
            if base is not None:
                kwargs = {**kwargs, "sample_weight": base[index]}
            out.append(self.summarize(*(take(index) for take in takers), **kwargs))
    return out


def _taker(metric: Any, arg: Any, n: int) -> Callable[[NDArray[np.intp]], Any]:
    """A function taking rows of one input by index (lists stay lists, arrays stay arrays)."""
    shape = getattr(arg, "shape", None)
    length = shape[0] if shape else (len(arg) if hasattr(arg, "__len__") else None)
    if length != n:
        raise ConfigError(
            metric._error(
                "cannot be unit-weighted: an input is not one row per unit",
                raw(type(arg).__name__),
                f"{n} rows",
            )
        )
    if isinstance(arg, np.ndarray):
        return lambda index: arg[index]
    if isinstance(arg, list | tuple):
        return lambda index: [arg[i] for i in index.tolist()]
    if hasattr(arg, "iloc"):
        return lambda index: arg.iloc[index]
    taker = getattr(arg, "take", None)
    if taker is None:
        raise ConfigError(
            metric._error("cannot be unit-weighted", raw(type(arg).__name__), "arrays or lists")
        )
    return lambda index: taker(index)
