"""Bootstrap confidence intervals for the file-level functions: the settings and their use.

Every function of :mod:`scorekit.api` that a command calls takes ``ci=`` (a
:class:`CI`, or ``None`` for plain values). With it each metric is wrapped in a
:class:`scorekit.stats.Bootstrap`, folded over the data like any metric (in
memory, in chunks, on Dask), and its value is an :class:`scorekit.stats.Interval`.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterable, Mapping
from typing import Any, cast

from scorekit.core import ByGroup, Grouped, GroupStates, Metric, State
from scorekit.errors import (
    ConfigError,
    TooFewUnitsError,
    UndefinedMetricWarning,
    choices,
    message,
)
from scorekit.io import Progress, progress_wanted
from scorekit.stats import (
    ANALYTIC as ANALYTIC_METHODS,
)
from scorekit.stats import (
    INTERVALS,
    Bootstrap,
    Interval,
    Replicates,
    analytic_interval,
    check_draws,
    check_seed,
    interval,
    replicate_progress,
)

__all__ = ["ANALYTIC", "CI", "CI_METHODS", "DEFAULT_GROUPS", "check_resampling", "value_of"]

ANALYTIC = "analytic"
"""The interval method that reads each metric's standard analytic interval from its state."""

CI_METHODS: tuple[str, ...] = (*INTERVALS, ANALYTIC)
"""The interval methods: the bootstrap's ways of reading bounds, and the analytic intervals."""

DEFAULT_GROUPS = 100
"""Jackknife groups a bootstrap keeps for BCa intervals (other intervals keep none)."""


def check_resampling(confidence: Any, n_resamples: Any, seed: Any) -> tuple[int, int]:
    """Check the settings every resampling shares, naming the flag that sets each.

    Returns ``n_resamples`` and ``seed`` as Python integers (numpy integers are
    accepted): at most 1,000,000 resamples, and a seed in ``[0, 2**64)``.

    Examples
    --------
    >>> import numpy as np
    >>> check_resampling(0.9, np.int64(200), np.uint8(3))
    (200, 3)
    >>> check_resampling(0.9, 10**7, 0)
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: --n-resamples: invalid number of resamples; got 10000000, \
expected an integer in [1, 1,000,000].
    """
    c = confidence
    if isinstance(c, bool) or not isinstance(c, int | float) or not 0.0 < float(c) < 1.0:
        raise ConfigError(message("--confidence", "invalid confidence", c, "a number in (0, 1)"))
    n = check_draws(n_resamples, "--n-resamples", "number of resamples")
    return n, cast(int, check_seed(seed, "--seed"))


@dataclasses.dataclass(frozen=True)
class CI:
    """How to make the confidence interval of every metric: a Poisson bootstrap.

    Parameters
    ----------
    confidence
        The nominal coverage, in (0, 1).
    n_resamples
        Bootstrap replicates (1 to 1,000,000; 1000 or more for 95% intervals).
    seed
        The seed of the replicates' unit weights (an integer in ``[0, 2**64)``,
        Python or numpy).
    method
        ``"percentile"``, ``"basic"`` or ``"bca"`` (see :func:`scorekit.stats.interval`),
        or ``"analytic"``: no bootstrap, each metric's standard analytic interval
        read from its merged state (:func:`scorekit.stats.analytic_interval`:
        Wilson's for accuracy and binary precision and recall, DeLong's for
        exact binary ROC AUC, with ``ranges=N`` too; unweighted data only), so
        it costs the metric's own state at any scale.
    key
        The column whose values identify units, or ``None``: a unit is keyed by
        its row position (the same in memory and in chunks; a key is needed on
        Dask with several partitions and for shards read separately).
    progress
        Show the replicates computed on a progress line on stderr (``None``:
        when stderr is a terminal). It shapes no value.

    Examples
    --------
    >>> ci = CI(confidence=0.9, n_resamples=200, seed=3)
    >>> ci.wrap("accuracy").n_resamples
    200
    >>> CI(confidence=1.5)
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: --confidence: invalid confidence; got 1.5, expected a number ...
    """

    confidence: float = 0.95
    n_resamples: int = 1000
    seed: int = 0
    method: str = "percentile"
    key: str | None = None
    progress: bool | None = dataclasses.field(default=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        n_resamples, seed = check_resampling(self.confidence, self.n_resamples, self.seed)
        object.__setattr__(self, "n_resamples", n_resamples)
        object.__setattr__(self, "seed", seed)
        if self.method not in CI_METHODS:
            raise ConfigError(
                message("--ci-method", "unknown interval method", self.method, choices(CI_METHODS))
            )
        if self.key is not None and (not isinstance(self.key, str) or not self.key):
            raise ConfigError(message("--key", "invalid key column", self.key, "a column name"))

    @property
    def resamples(self) -> bool:
        """Whether the intervals come from a bootstrap (else from each metric's state)."""
        return self.method != ANALYTIC

    def analytic(self, metric: Metric[Any], state: State) -> Any:
        """The analytic interval of a metric's merged state, per group for a grouped metric.

        Examples
        --------
        >>> from scorekit import parse_metric
        >>> acc = parse_metric("accuracy")
        >>> found = CI(method="analytic").analytic(acc, acc.summarize([1, 0, 1, 1], [1, 1, 1, 1]))
        >>> found.method, found.value, round(found.low, 4)
        ('wilson', 0.75, 0.3006)
        """
        if isinstance(metric, Grouped):
            inner = metric.inner
            return metric.values_of(
                cast(GroupStates, state), lambda part: self.analytic(inner, part)
            )
        try:
            return analytic_interval(metric, state, confidence=self.confidence)
        except TooFewUnitsError as exc:
            # too few units of a class for the interval (a group's, say): the value without
            # bounds
            warnings.warn(str(exc), UndefinedMetricWarning, stacklevel=2)
            nan = float("nan")
            value = metric.compute(state)
            return Interval(value, nan, nan, self.confidence, ANALYTIC_METHODS.get(metric.name, ""))

    def wrap(self, metric: str | Metric[Any], *, key: str | None = None) -> Bootstrap:
        """The bootstrap of ``metric`` with these settings.

        Units are keyed by the column :attr:`key` (row positions without one),
        or by the input named ``key`` when it is given (QA's question ids).
        """
        return Bootstrap.of(
            metric,
            n_resamples=self.n_resamples,
            seed=self.seed,
            key=key if key is not None else (self.key or ""),
            groups=DEFAULT_GROUPS if self.method == "bca" else 0,
        )

    def interval(self, metric: Bootstrap, state: State) -> Interval:
        """The interval of a bootstrap's (merged) state."""
        if not progress_wanted(self.progress):
            found = metric.compute(cast(Replicates, state))
        else:
            bar = Progress(
                total_rows=self.n_resamples,
                unit="replicates",
                label=f"bootstrap of {metric.metric}",
            )
            try:
                with replicate_progress(lambda n: bar.update(rows=n)):
                    found = metric.compute(cast(Replicates, state))
            finally:
                # replicates made as the data was read (confusion counts) draw no weights here
                bar.enabled = bar.enabled and bar.rows > 0
                bar.close()
        return interval(found, self.confidence, self.method, where=f"bootstrap of {metric.name}")

    def intervals(
        self, metrics: Mapping[str, Bootstrap], states: Mapping[str, State]
    ) -> dict[str, Interval]:
        """The interval of every bootstrap, by key."""
        return {key: self.interval(metric, states[key]) for key, metric in metrics.items()}

    def group_intervals(
        self, metric: Grouped, state: GroupStates, boot: Bootstrap | None = None
    ) -> ByGroup:
        """The interval overall and of each group, from a per-group state.

        ``metric`` is a :class:`~scorekit.core.Grouped` bootstrap, whose
        state holds replicates overall and per group (each group's interval
        resamples the units of that group only); or, with ``boot``, a
        :class:`~scorekit.core.Grouped` metric whose states the bootstrap
        ``boot`` is made from (ranking's per-query values). Warnings about a
        group name the group.

        Examples
        --------
        >>> from scorekit.core import Grouped
        >>> ci = CI(n_resamples=200, seed=2, key="id")
        >>> grouped = Grouped(ci.wrap("accuracy"), by="g")
        >>> truth, guess = [1, 0, 1, 1, 0, 1] * 4, [1, 1, 1, 0, 0, 1] * 4
        >>> state = grouped.summarize(truth, guess, group=list("aabbab") * 4,
        ...                           unit_key=[f"u{i}" for i in range(24)])
        >>> found = ci.group_intervals(grouped, state)
        >>> found.overall.value, found.by_group["a"].value, found.sizes
        (0.666..., 0.666..., {'a': 12, 'b': 12})
        """
        inner = boot if boot is not None else metric.inner
        if not isinstance(inner, Bootstrap):
            raise ConfigError(
                message(metric.name, "no bootstrap to give intervals", None, "a Grouped bootstrap")
            )

        def one(part: State) -> Interval:
            return self.interval(inner, inner.wrap(part) if boot is not None else part)

        return metric.values_of(state, one)

    def describe(self, units: Iterable[str]) -> str:
        """One line saying how the intervals were made.

        Examples
        --------
        >>> print(CI().describe(["row"]))
        95% percentile intervals: Poisson bootstrap, 1000 resamples, seed 0, unit: row (by position)
        >>> CI(0.9, 200, 1, "bca", key="id").describe(["row", "row"])
        '90% bca intervals: Poisson bootstrap, 200 resamples, seed 1, unit: row (key id)'
        """
        if not self.resamples:
            return (
                f"{100 * self.confidence:g}% analytic intervals: Wilson's score interval for "
                "proportions, DeLong's for ROC AUC, from the merged counts"
            )
        kinds = ", ".join(dict.fromkeys(units)) or "row"
        keyed = f" (key {self.key})" if self.key else " (by position)"
        if all(u in ("query", "question") for u in kinds.split(", ")):
            keyed = " (by id)"
        return (
            f"{100 * self.confidence:g}% {self.method} intervals: Poisson bootstrap, "
            f"{self.n_resamples} resamples, seed {self.seed}, unit: {kinds}{keyed}"
        )


def value_of(ci: CI | None, metric: Metric[Any], state: State) -> Any:
    """A folded metric's value: with ``ci``, the interval of a bootstrap, per group or not.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> ci = CI(n_resamples=100)
    >>> boot = ci.wrap("accuracy")
    >>> value_of(ci, boot, boot.summarize([1, 0, 1, 1] * 5, [1, 1, 1, 1] * 5)).value
    0.75
    >>> acc = parse_metric("accuracy")
    >>> value_of(None, acc, acc.summarize([1, 0], [1, 1]))
    0.5
    """
    if ci is not None and not ci.resamples:
        return ci.analytic(metric, state)
    if ci is not None and isinstance(metric, Bootstrap):
        return ci.interval(metric, state)
    if ci is not None and isinstance(metric, Grouped) and isinstance(metric.inner, Bootstrap):
        return ci.group_intervals(metric, cast(GroupStates, state))
    return metric.compute(state)
