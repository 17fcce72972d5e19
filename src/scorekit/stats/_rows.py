"""The rows a bootstrap keeps for metrics that compute every replicate in one sorted pass.

Exact ROC AUC and average precision compute all the replicates of a batch of
binary scores from one sort of its scores
(a metric's ``replicate_values``: :class:`~scorekit.stats.Resampled`). Their bootstrap state of such
a batch (:class:`UnitRows`, inside a :class:`~scorekit.stats.Replicates`) keeps
the metric's state of the data, for the value, and the rows themselves: the
inputs, the sample weights and the 64-bit key of each unit (its hashed key, or
its row position). A unit's Poisson weights depend on the seed, its key and
the replicate only, so they are drawn again when the replicates are computed,
after the states of all the chunks, shards or partitions are merged; the
replicates are those of the data in memory, however it was split.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit._check import as_array
from scorekit.core import Metric, State, UnitWeights, state_field
from scorekit.errors import ConfigError, StateMismatchError, message, raw
from scorekit.stats._poisson import LeaveOut, PoissonWeights, unit_bases
from scorekit.stats._resampling import (
    from_state,
    one_pass,
    replicate_values,
    summarize_replicates,
)

__all__ = ["UnitRows", "keeps_rows", "replicates_of_rows", "unit_rows"]

Float = NDArray[np.float64]


def keeps_rows(metric: Metric[Any]) -> bool:
    """Whether a bootstrap of ``metric`` keeps the rows of 1-D inputs instead of replicate states.

    True for metrics with a one-pass computation of many replicates
    (a metric's ``replicate_values``: :class:`~scorekit.stats.Resampled`) whose exact state grows
    with the data anyway (exact ROC AUC and AP; their binned forms keep one
    small state per replicate instead). Batches of 2-D inputs (scores of
    several classes or labels) keep a state per replicate: the one pass is
    for binary scores.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> [keeps_rows(parse_metric(m)) for m in ("roc_auc", "average_precision", "roc_auc:bins=64")]
    [True, True, False]
    >>> keeps_rows(parse_metric("accuracy"))
    False
    """
    return one_pass(metric) and metric.grows and not from_state(metric)


@dataclass(frozen=True, eq=False)
class UnitRows(State):
    """A metric's state of some rows, with the rows and their unit keys.

    Attributes
    ----------
    summary
        The metric's state of the rows (what its value is computed from).
    inputs
        The metric's positional inputs, one 1-D array per input, one row per
        unit (empty before any row is kept).
    sample_weight
        The rows' sample weights, or None when none were given.
    keys
        Each row's unit key: the 64-bit hash of its key column value, or its
        row position, kept as int64 of the same bits (JSON holds them exactly;
        :attr:`unit_keys` reads them as uint64).
    """

    summary: State = state_field("custom")
    inputs: tuple[NDArray[Any], ...] = state_field("custom")
    sample_weight: NDArray[np.float64] | None = state_field(
        "custom", check="weight", ndim=1, optional=True
    )
    keys: NDArray[np.int64] = state_field("custom", check="integer", ndim=1)

    @classmethod
    def empty(cls, summary: State) -> UnitRows:
        """The rows of no data, beside the metric's empty state ``summary``."""
        return cls(summary, (), None, np.zeros(0, dtype=np.int64))

    @property
    def unit_keys(self) -> NDArray[np.uint64]:
        """The rows' unit keys as uint64."""
        keys: NDArray[np.uint64] = self.keys.view(np.uint64)
        return keys

    @property
    def units(self) -> int:
        """The number of rows kept."""
        return int(self.keys.size)

    def _merge_custom(self, other: UnitRows) -> dict[str, Any]:
        summary = self.summary.merge(other.summary)
        if not self.inputs or not other.inputs:
            inputs = self.inputs or other.inputs
        else:
            if len(self.inputs) != len(other.inputs):
                raise StateMismatchError(
                    message(
                        self.kind,
                        "cannot merge rows of different inputs",
                        raw(f"{len(other.inputs)} inputs"),
                        f"{len(self.inputs)} as in the other state",
                    )
                )
            pairs = zip(self.inputs, other.inputs, strict=True)
            inputs = tuple(_join(i, a, b) for i, (a, b) in enumerate(pairs))
        weight = self.sample_weight
        if weight is not None or other.sample_weight is not None:
            weight = np.concatenate([_weights(self), _weights(other)])
        return {
            "summary": summary,
            "inputs": inputs,
            "sample_weight": weight,
            "keys": np.concatenate([self.keys, other.keys]),
        }

    def _check(self) -> None:
        if not isinstance(self.summary, State):
            raise self._invalid(
                "summary", "not a state", raw(type(self.summary).__name__), "a state"
            )
        if self.keys.dtype != np.int64:
            raise self._invalid("keys", "not 64-bit unit keys", raw(self.keys.dtype.str), "'<i8'")
        n = self.keys.size
        if not isinstance(self.inputs, tuple):
            raise self._invalid(
                "inputs", "not a tuple of arrays", raw(type(self.inputs).__name__), "arrays"
            )
        if n and not self.inputs:
            raise self._invalid("inputs", "no inputs for the rows", raw(f"{n} keys"), "arrays")
        for i, array in enumerate(self.inputs):
            if not isinstance(array, np.ndarray) or array.ndim != 1:
                raise self._invalid("inputs", f"input {i} is not an array of rows", None, "1-D")
            if array.shape[0] != n:
                raise self._invalid(
                    "inputs",
                    f"input {i} has another number of rows than keys",
                    array.shape[0],
                    f"{n} rows",
                )
            if array.dtype.kind == "f" and not bool(np.isfinite(array).all()):
                raise self._invalid("inputs", f"input {i} holds a non-finite number", None)
        if self.sample_weight is not None and self.sample_weight.size != n:
            raise self._invalid(
                "sample_weight", "one weight per row expected", self.sample_weight.size, f"{n}"
            )


def _weights(rows: UnitRows) -> NDArray[np.float64]:
    """The rows' sample weights, ones where none were given."""
    if rows.sample_weight is not None:
        return rows.sample_weight
    return np.ones(rows.units, dtype=np.float64)


def _join(i: int, a: NDArray[Any], b: NDArray[Any]) -> NDArray[Any]:
    """Two inputs' rows, one after the other; text does not join numbers."""
    if (a.dtype.kind == "U") != (b.dtype.kind == "U"):
        raise StateMismatchError(
            message(
                UnitRows.kind,
                f"cannot merge rows whose input {i} differs in type",
                raw(f"{b.dtype.str} rows"),
                f"{a.dtype.str} rows as in the other state",
            )
        )
    return np.concatenate([a, b])


def _owned(array: NDArray[Any], given: Any) -> NDArray[Any]:
    """``array``, copied when it is the caller's array or a view of other memory."""
    if array is given or not array.flags.owndata:
        copied: NDArray[Any] = array.copy()
        return copied
    return array


def unit_rows(
    metric: Metric[Any],
    summary: State,
    batch: tuple[Any, ...],
    kwargs: dict[str, Any],
    keys: NDArray[np.uint64],
) -> UnitRows | None:
    """The rows of one batch with its state ``summary`` and the units' ``keys``.

    None when an input is not 1-D (scores of several classes or labels: their
    replicates have no one-pass computation). ``kwargs`` may hold
    ``sample_weight`` only (the inputs the one-pass computation takes beside
    the positional ones).
    """
    where = f"bootstrap of {metric.name}"
    extra = sorted(set(kwargs) - {"sample_weight"})
    if extra:
        raise ConfigError(
            message(where, "cannot keep the rows of this input", extra[0], "sample_weight only")
        )
    arrays = [as_array(metric.name, f"input {i}", value) for i, value in enumerate(batch)]
    if any(a.ndim != 1 for a in arrays):
        return None
    inputs = tuple(_owned(a, value) for a, value in zip(arrays, batch, strict=True))
    given = kwargs.get("sample_weight")
    weight = None
    if given is not None:
        weight = _owned(as_array(metric.name, "sample_weight", given), given).astype(
            np.float64, copy=False
        )
    return UnitRows(summary, inputs, weight, np.asarray(keys, dtype=np.uint64).view(np.int64))


def replicates_of_rows(
    metric: Metric[Any],
    rows: UnitRows,
    *,
    seed: int,
    n_resamples: int,
    groups: int,
    value: Callable[[State], float],
) -> tuple[Float, Float]:
    """The values of the Poisson replicates and of the jackknife groups left out.

    The weights are those of each row's unit key under ``seed``; unit ``key``
    is in jackknife group ``key % groups``. The metric's one-pass computation
    gives the values where it applies to the rows (binary scores of two
    classes); otherwise each replicate's state is summarized from the rows, a
    block of replicates at a time, and ``value`` computes it (NaN where
    undefined). The metric's warnings about the replicates' undefined values
    are the caller's to silence: :meth:`~scorekit.stats.Bootstrap.compute`
    does, for every kind of replicate.
    """
    n = rows.units
    if n == 0:
        return np.full(n_resamples, math.nan), np.full(groups, math.nan)
    kwargs = {} if rows.sample_weight is None else {"sample_weight": rows.sample_weight}
    weights = PoissonWeights(unit_bases(seed, rows.unit_keys), n_resamples)
    replicates = _values(metric, rows.inputs, kwargs, weights, value)
    jackknife = np.zeros(0)
    if groups:
        member = (rows.unit_keys % np.uint64(groups)).astype(np.int64)
        jackknife = _values(metric, rows.inputs, kwargs, LeaveOut(member, groups), value)
    return replicates, jackknife


def _values(
    metric: Metric[Any],
    inputs: tuple[NDArray[Any], ...],
    kwargs: dict[str, Any],
    weights: UnitWeights,
    value: Callable[[State], float],
) -> Float:
    """The metric of every replicate of ``weights``: one pass, or a state per replicate."""
    found = replicate_values(metric, *inputs, weights=weights, **kwargs)
    if found is not None:
        return np.asarray(found, dtype=np.float64)
    out: list[float] = []
    for block in weights.blocks():
        states = summarize_replicates(metric, *inputs, weights=block.astype(np.int64), **kwargs)
        out.extend(value(state) for state in states)
    return np.array(out, dtype=np.float64)
