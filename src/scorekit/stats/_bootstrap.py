"""``stats.bootstrap``: a confidence interval for any metric on in-memory data."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Metric, parse_metric
from scorekit.errors import ConfigError, InputError, choices, message
from scorekit.stats._intervals import check_confidence, interval, plural
from scorekit.stats._limits import check_cells, check_draws, check_seed
from scorekit.stats._replicates import Bootstrap, Replicated, Replicates, single_number
from scorekit.stats._resampling import (
    compute_replicates,
    count_units,
    from_state,
    summarize_replicates,
    unit_keys,
    unit_of,
)
from scorekit.stats._results import Interval

__all__ = ["SAMPLINGS", "bootstrap", "replicate_values"]

SAMPLINGS = ("poisson", "resample")
"""How replicates are drawn: Poisson unit weights (mergeable) or resampled indices."""

FEW_RESAMPLES = 100


def check_resamples(n_resamples: object, where: str) -> int:
    """``n_resamples`` as an int in [1, 1,000,000], warning below :data:`FEW_RESAMPLES`."""
    n_resamples = check_draws(n_resamples, where, "n_resamples")
    if n_resamples < FEW_RESAMPLES:
        warnings.warn(
            message(
                where,
                "few resamples: the interval's bounds will vary from seed to seed",
                n_resamples,
                f"at least {FEW_RESAMPLES} (1000 or more for 95% intervals)",
            ),
            UserWarning,
            stacklevel=3,
        )
    return n_resamples


def _metric(metric: str | Metric[Any]) -> Metric[Any]:
    return parse_metric(metric) if isinstance(metric, str) else metric


def replicate_values(
    metric: str | Metric[Any],
    *data: Any,
    n_resamples: int = 1000,
    seed: int = 0,
    sampling: str = "poisson",
    key: Any = None,
    groups: int = 100,
    **kwargs: Any,
) -> Replicated:
    """The metric on all the data, on each replicate and on each jackknife group left out.

    Same parameters as :func:`bootstrap`; the replicates are what its intervals
    are made from (and what :func:`~scorekit.stats.compare` pairs between systems:
    with the same ``seed`` and units, two systems get the same weights). Poisson
    replicates are those of :class:`~scorekit.stats.Bootstrap`, the metric the
    commands fold over files: exact ROC AUC and AP compute them all in one
    sorted pass over the scores.
    """
    inner = _metric(metric)
    where = f"bootstrap of {inner.name}"
    n_resamples = check_draws(n_resamples, where, "n_resamples")
    seed = cast(int, check_seed(seed, where))
    if sampling not in SAMPLINGS:
        raise ConfigError(message(where, "unknown sampling", sampling, choices(SAMPLINGS)))
    if sampling == "poisson":
        boot = Bootstrap.of(
            inner,
            n_resamples=n_resamples,
            seed=seed,
            key="key" if key is not None else "",
            groups=groups,
        )
        extra = {} if key is None else {"unit_key": key}
        result = boot.compute(boot.summarize(*data, **extra, **kwargs))
    else:
        if key is not None:
            raise ConfigError(
                message(where, "a key is for Poisson sampling", None, "sampling='poisson'")
            )
        result = _resampled(inner, data, kwargs, n_resamples, seed, groups, where)
    if result.units < 2:
        raise InputError(
            message(where, f"too few {plural(result.unit)} to resample", result.units, "at least 2")
        )
    return result


def _resampled(
    inner: Metric[Any],
    data: tuple[Any, ...],
    kwargs: dict[str, Any],
    n_resamples: int,
    seed: int,
    groups: int,
    where: str,
) -> Replicated:
    """Replicates from indices drawn by ``numpy.random.default_rng(seed).choice``."""
    state = inner.summarize(*data, **kwargs)
    value = single_number(inner, inner.compute(state))
    if from_state(inner):
        n = len(unit_keys(inner, state))

        def values(weights: NDArray[Any]) -> NDArray[np.float64]:
            return np.asarray(compute_replicates(inner, state, weights), dtype=np.float64)
    else:
        n = count_units(inner, *data, **kwargs)

        def values(weights: NDArray[Any]) -> NDArray[np.float64]:
            states = summarize_replicates(inner, *data, weights=weights, **kwargs)
            return np.array([single_number(inner, inner.compute(s)) for s in states])

    if n < 1:
        return Replicated(value, np.zeros(0), np.zeros(0), n, unit_of(inner))
    check_cells(n_resamples, n, where, "n_resamples", plural(unit_of(inner)))
    rng = np.random.default_rng(seed)
    index = rng.choice(n, size=(n_resamples, n), replace=True)
    replicates = _blocks(values, n_resamples, n, lambda a, b: _counts(index[a:b], n))
    jackknife = np.zeros(0)
    if groups and n >= 2:
        g = min(groups, n)
        member = np.arange(n) % g
        jackknife = _blocks(
            values,
            g,
            n,
            lambda a, b: (member[None, :] != np.arange(a, b)[:, None]).astype(np.int64),
        )
    return Replicated(value, replicates, jackknife, n, unit_of(inner))


def _counts(index: NDArray[np.intp], n: int) -> NDArray[np.int64]:
    """How many times each unit was drawn in each row of ``index``."""
    rows = np.repeat(np.arange(len(index)), n)
    counts = np.zeros((len(index), n), dtype=np.int64)
    np.add.at(counts, (rows, index.ravel()), 1)
    return counts


def _blocks(
    values: Callable[[NDArray[Any]], NDArray[np.float64]],
    total: int,
    n: int,
    weights: Callable[[int, int], NDArray[Any]],
) -> NDArray[np.float64]:
    step = max(1, (1 << 22) // max(n, 1))
    parts = [values(weights(a, min(a + step, total))) for a in range(0, total, step)]
    return np.concatenate(parts) if parts else np.zeros(0)


def bootstrap(
    metric: str | Metric[Any],
    *data: Any,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    method: str = "percentile",
    seed: int = 0,
    sampling: str = "poisson",
    key: Any = None,
    **kwargs: Any,
) -> Interval:
    """A bootstrap confidence interval for any metric.

    Parameters
    ----------
    metric
        A metric string (``"roc_auc"``, ``"f1:macro"``, ``"ndcg@10"``) or a
        configured metric.
    *data
        The metric's inputs, truth first (``y_true, y_pred``; ``qrels, run``;
        ``references, predictions``).
    n_resamples
        Replicates, at most 1,000,000 (a warning below 100); with
        ``sampling="resample"`` the drawn indices (``n_resamples`` times the
        units) are at most 2**27 cells, 1 GiB.
    confidence
        The interval's nominal coverage, in (0, 1).
    method
        ``"percentile"``, ``"basic"`` or ``"bca"`` (see :func:`interval`).
    seed
        Seed of the replicates: an integer (Python or numpy) in ``[0, 2**64)``.
    sampling
        ``"poisson"`` (default): unit ``i`` counts ``Poisson(1)`` times in each
        replicate, the count drawn from ``(seed, key of i, replicate)`` alone, so
        the interval is the same in memory, in chunks, from merged shard files
        and on Dask (:class:`~scorekit.stats.Bootstrap` is the metric behind
        it). ``"resample"``: ``n`` units drawn with replacement by
        ``numpy.random.default_rng(seed).choice(n, size=(n_resamples, n))``,
        the classic bootstrap and sacrebleu's.
    key
        Poisson sampling: one key per unit (a column of ids), so that the same
        unit gets the same weights wherever it is read; by default the unit's
        position. Ranking units are queries, keyed by their ids.
    **kwargs
        Passed to the metric (``sample_weight=``).

    Returns
    -------
    Interval
        ``value``, ``low``, ``high``, ``confidence``, ``method`` and the
        replicate values (``replicates``).

    Raises
    ------
    InputError
        Fewer than 2 units.
    ConfigError
        A confidence outside (0, 1), an unknown method or sampling, a metric
        whose value is not one number, a seed outside ``[0, 2**64)``, more
        resamples than the ceilings above.

    Examples
    --------
    >>> from scorekit import stats
    >>> y_true = [0, 1, 1, 0, 1, 1, 0, 1] * 25
    >>> y_pred = [0, 1, 0, 0, 1, 1, 1, 1] * 25
    >>> ci = stats.bootstrap("accuracy", y_true, y_pred, seed=1)
    >>> ci.value, ci.low < 0.75 < ci.high, ci.method
    (0.75, True, 'percentile')
    """
    inner = _metric(metric)
    where = f"bootstrap of {inner.name}"
    confidence = check_confidence(confidence, where)
    check_resamples(n_resamples, where)
    result = replicate_values(
        inner,
        *data,
        n_resamples=n_resamples,
        seed=seed,
        sampling=sampling,
        key=key,
        groups=100 if method == "bca" else 0,
        **kwargs,
    )
    return interval(result, confidence, method, where=where)


def state_interval(
    metric: Bootstrap, state: Replicates, confidence: float = 0.95, method: str = "percentile"
) -> Interval:
    """The interval of a bootstrap's (merged) state."""
    return interval(metric.compute(state), confidence, method, where=f"bootstrap of {metric.name}")
