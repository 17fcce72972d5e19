"""``stats.compare``: is system B better than system A on a metric, and by how much?"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Metric, caught, parse_metric
from scorekit.errors import ConfigError, InputError, choices, message, raw
from scorekit.stats._analytic import delong
from scorekit.stats._bootstrap import check_resamples, replicate_values
from scorekit.stats._corrections import CORRECTION_ALIASES, CORRECTIONS, adjust
from scorekit.stats._distributions import normal_quantile, student_t_quantile
from scorekit.stats._intervals import check_confidence, plural
from scorekit.stats._limits import check_cells, check_seed
from scorekit.stats._paired import fisher_randomization, mcnemar, paired_t, wilcoxon
from scorekit.stats._pairs import ALTERNATIVES, check_alternative
from scorekit.stats._replicates import single_number
from scorekit.stats._resampling import (
    compute_replicates,
    count_units,
    from_state,
    summarize_replicates,
    unit_keys,
    unit_of,
)
from scorekit.stats._test_specs import ONE_SIDED, TEST_OPTIONS, TESTS, parse_test
from scorekit.stats._tukey import studentized_range_quantile, tukey_hsd

__all__ = [
    "ALTERNATIVES",
    "CORRECTIONS",
    "ONE_SIDED",
    "TESTS",
    "TEST_OPTIONS",
    "Comparison",
    "compare",
    "parse_test",
    "unit_values",
]

_PER_UNIT = ("t", "wilcoxon", "fisher", "tukey")
_MAX_ROW_VALUES = 20_000


@dataclass(frozen=True)
class Comparison:
    """One system against the baseline on one metric.

    Attributes
    ----------
    metric : str
        The metric's name.
    system, baseline : str
        Their names.
    value, baseline_value : float
        The metric of each.
    difference : float
        ``value - baseline_value``.
    low, high : float
        The interval of the difference: the bootstrap's and DeLong's, and for
        the t-test that of the mean per-unit difference (as
        ``scipy.stats.ttest_rel(...).confidence_interval``) when the metric is
        the mean of its per-unit values (accuracy, MAE, MAP; not RMSE or F1,
        whose difference is not the mean one); NaN for the others.
    confidence : float
        The interval's nominal coverage (one-sided intervals, with an infinite
        bound, for a one-sided alternative).
    pvalue : float
        The test's p-value for ``alternative``.
    adjusted : float
        The p-value after the correction for several systems (the p-value itself
        without one).
    test : str
        The test run.
    alternative : str
        ``"two-sided"``, ``"greater"`` (the system above the baseline) or
        ``"less"``.
    """

    metric: str
    system: str
    baseline: str
    value: float
    baseline_value: float
    difference: float
    low: float
    high: float
    confidence: float
    pvalue: float
    adjusted: float
    test: str
    alternative: str = "two-sided"

    def as_dict(self) -> dict[str, Any]:
        """Every field by name."""
        return dataclasses.asdict(self)

    def significant(self, alpha: float = 0.05) -> bool:
        """Whether the (adjusted) p-value is below ``alpha``."""
        return self.adjusted < alpha


def _metric(metric: str | Metric[Any]) -> Metric[Any]:
    return parse_metric(metric) if isinstance(metric, str) else metric


def unit_values(metric: str | Metric[Any], *data: Any, **kwargs: Any) -> NDArray[np.float64]:
    """The metric on each unit alone (each query, segment or row), in the order of the units.

    Metrics whose state keeps one value per unit (ranking) give those values,
    in the order of their unit keys (sorted query ids); any other metric is
    computed on each unit alone (at most 20,000 units).

    Examples
    --------
    >>> unit_values("accuracy", [1, 0, 1], [1, 1, 1]).tolist()
    [1.0, 0.0, 1.0]
    """
    inner = _metric(metric)
    if from_state(inner):
        state = inner.summarize(*data, **kwargs)
        n = len(unit_keys(inner, state))

        def block(w: NDArray[np.int64]) -> NDArray[np.float64]:
            return np.asarray(compute_replicates(inner, state, w), dtype=np.float64)
    else:
        n = count_units(inner, *data, **kwargs)
        if n > _MAX_ROW_VALUES:
            raise ConfigError(
                message(
                    inner.name,
                    f"per-{unit_of(inner)} tests compute the metric on each {unit_of(inner)} alone",
                    raw(f"{n:,} {plural(unit_of(inner))}"),
                    f"at most {_MAX_ROW_VALUES:,} (use test='paired_bootstrap')",
                )
            )

        def block(w: NDArray[np.int64]) -> NDArray[np.float64]:
            states = summarize_replicates(inner, *data, weights=w, **kwargs)
            return np.array([single_number(inner, inner.compute(s)) for s in states])

    step = max(1, (1 << 22) // max(n, 1))
    parts = []
    for start in range(0, n, step):
        stop = min(start + step, n)
        w = np.zeros((stop - start, n), dtype=np.int64)
        w[np.arange(stop - start), np.arange(start, stop)] = 1
        parts.append(block(w))
    return np.concatenate(parts) if parts else np.zeros(0)


def _label(metric: Metric[Any]) -> str:
    """The metric's name with its @-parameter (``ndcg@10``), as messages name it."""
    at = metric.info.at
    value = getattr(metric, at, None) if at else None
    return metric.name if value is None else f"{metric.name}@{value}"


def _same_units(
    inner: Metric[Any], truth: Any, systems: Sequence[Any], names: Sequence[str]
) -> None:
    where = f"compare {_label(inner)}"
    if from_state(inner):
        keys = [np.asarray(unit_keys(inner, inner.summarize(truth, s))) for s in systems]
        for name, k in zip(names[1:], keys[1:], strict=True):
            if k.shape != keys[0].shape or not np.array_equal(k, keys[0]):
                missing = sorted(set(keys[0].tolist()) ^ set(k.tolist()))
                raise InputError(
                    message(
                        where,
                        f"{name} is evaluated on other {plural(unit_of(inner))} than {names[0]}",
                        raw(f"{unit_of(inner)} {missing[0]!r} in one only") if missing else None,
                        f"the same {plural(unit_of(inner))}",
                    )
                )
        return
    counts = [len(s) if hasattr(s, "__len__") else None for s in systems]
    for name, count in zip(names[1:], counts[1:], strict=True):
        if count is not None and counts[0] is not None and count != counts[0]:
            raise InputError(
                message(
                    where,
                    f"{name} has another number of {plural(unit_of(inner))} than {names[0]}",
                    count,
                    f"{counts[0]} as {names[0]}",
                )
            )


def _swap(a: Any, b: Any, mask: NDArray[np.bool_]) -> tuple[Any, Any]:
    """Two systems with their outputs exchanged on the units where ``mask`` is set."""
    if isinstance(a, list | tuple):
        flags = mask.tolist()
        return (
            [x if f else y for x, y, f in zip(a, b, flags, strict=True)],
            [y if f else x for x, y, f in zip(a, b, flags, strict=True)],
        )
    x, y = np.asarray(a), np.asarray(b)
    m = mask.reshape((-1,) + (1,) * (x.ndim - 1))
    return np.where(m, x, y), np.where(m, y, x)


def _per_unit(
    inner: Metric[Any], test: str, truth: Any, system: Any, name: str, kwargs: dict[str, Any]
) -> NDArray[np.float64]:
    """A system's per-unit values, or a ConfigError when the metric has none on some unit."""
    values, found = caught(lambda: unit_values(inner, truth, system, **kwargs))
    undefined = int(np.count_nonzero(~np.isfinite(values)))
    if undefined:
        unit = unit_of(inner)
        scope = f"all {len(values):,}" if undefined == len(values) else f"{undefined:,} of the"
        tests = ["paired_bootstrap", "randomization"]
        if inner.name == "roc_auc" and inner.inputs == "binary_scores":
            tests.append("delong")
        raise ConfigError(
            message(
                f"compare {_label(inner)}",
                f"{_label(inner)} has no value per {unit}: it is undefined on {scope} "
                + ("" if undefined == len(values) else f"{len(values):,} ")
                + f"{plural(unit)} of {name} taken alone, and the per-{unit} tests "
                f"({', '.join(_PER_UNIT)}) need a metric with a value per {unit}",
                raw(f"test {test!r}"),
                f"a test of the value on all the {plural(unit)}: "
                + ", ".join(repr(t) for t in tests),
            )
        )
    for warning in found:
        warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
    return values


def _tail_share(shuffled: NDArray[np.float64], observed: float, alternative: str) -> float:
    """``(#{d* at least as extreme as d} + 1) / (B + 1)`` in the direction of ``alternative``."""
    if alternative == "greater":
        extreme = shuffled >= observed
    elif alternative == "less":
        extreme = shuffled <= observed
    else:
        extreme = np.abs(shuffled) >= abs(observed)
    return float((np.sum(extreme) + 1) / (len(shuffled) + 1))


def _randomization(
    inner: Metric[Any],
    truth: Any,
    a: Any,
    b: Any,
    n_resamples: int,
    seed: int,
    kwargs: dict[str, Any],
    alternative: str = "two-sided",
) -> float:
    """Approximate randomization of ``d = score(b) - score(a)`` (``b`` the system, ``a`` the
    baseline): ``(#{|d*| >= |d|} + 1) / (trials + 1)``, one-sided ``d* >= d`` or ``d* <= d``."""
    observed = single_number(inner, inner.score(truth, b, **kwargs)) - single_number(
        inner, inner.score(truth, a, **kwargs)
    )
    rng = np.random.default_rng(seed)
    where = f"compare {_label(inner)}"
    if from_state(inner):
        va, vb = unit_values(inner, truth, a, **kwargs), unit_values(inner, truth, b, **kwargs)
        check_cells(n_resamples, len(va), where, "n_resamples", plural(unit_of(inner)))
        mask = rng.integers(2, size=(n_resamples, len(va)), dtype=bool)
        shuffled = np.where(mask, vb, va).mean(1) - np.where(mask, va, vb).mean(1)
        observed = float(vb.mean() - va.mean())
    else:
        n = count_units(inner, truth, a, **kwargs)
        check_cells(n_resamples, n, where, "n_resamples", plural(unit_of(inner)))
        mask = rng.integers(2, size=(n_resamples, n), dtype=bool)
        shuffled = np.empty(n_resamples)
        for t in range(n_resamples):
            x, y = _swap(a, b, mask[t])
            shuffled[t] = single_number(inner, inner.score(truth, y, **kwargs)) - single_number(
                inner, inner.score(truth, x, **kwargs)
            )
    return _tail_share(shuffled, observed, alternative)


def _t_interval(
    d: NDArray[np.float64], confidence: float, alternative: str = "two-sided"
) -> tuple[float, float]:
    """The t-test's interval of the mean per-unit difference, as scipy's ``ttest_rel`` gives it.

    ``mean(d) -+ t_{n-1} * sd(d) / sqrt(n)`` at ``(1 + confidence) / 2``; one-sided,
    ``(mean(d) - t * sd(d) / sqrt(n), inf)`` (``"greater"``) or
    ``(-inf, mean(d) + t * sd(d) / sqrt(n))`` (``"less"``) at ``confidence``.
    NaN bounds for fewer than 2 units. Differences near the largest float are
    scaled first, as the test's.
    """
    d = np.asarray(d, dtype=np.float64)
    if d.size < 2 or not np.isfinite(d).all():
        return math.nan, math.nan
    scale = float(np.max(np.abs(d)))
    low, high = (-math.inf, math.inf)
    if scale == 0.0:
        return (0.0 if alternative != "less" else low), (0.0 if alternative != "greater" else high)
    unit = d / scale
    mean = float(unit.mean())
    level = confidence if alternative != "two-sided" else 1.0 - (1.0 - confidence) / 2.0
    half = student_t_quantile(level, d.size - 1) * float(unit.std(ddof=1) / math.sqrt(d.size))
    if alternative != "less":
        low = (mean - half) * scale
    if alternative != "greater":
        high = (mean + half) * scale
    return low, high


def compare(
    metric: str | Metric[Any],
    truth: Any,
    *systems: Any,
    test: str = "paired_bootstrap",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    sampling: str = "poisson",
    correction: str | None = None,
    names: Sequence[str] | None = None,
    key: Any = None,
    alternative: str = "two-sided",
    **kwargs: Any,
) -> list[Comparison]:
    """Several systems against a baseline (the first) on one metric: differences and p-values.

    Parameters
    ----------
    metric
        A metric string or a configured metric.
    truth
        The truth the systems share (``y_true``, ``qrels``, ``references``).
    *systems
        Two or more systems' outputs (``y_pred`` or ``y_score``, runs,
        predictions); the first is the baseline.
    test
        A name of :data:`TESTS`, with options after a colon for the tests of
        :data:`TEST_OPTIONS` (``"wilcoxon:zero_method=pratt,correction=true"``,
        see :func:`parse_test`).
        ``"paired_bootstrap"``: both systems on the same replicates (the
        interval is the replicates' percentile interval of the difference, the
        p-value two-sided from the replicates centred on their mean,
        ``(#{|d* - mean(d*)| >= |d|} + 1) / (B + 1)``); ``"randomization"``:
        approximate randomization, each unit's outputs exchanged with
        probability 1/2, ``p = (#{|d*| >= |d|} + 1) / (B + 1)``. Identical
        systems get ``p = 1``; sacrebleu counts ``>`` instead of ``>=`` (and
        centres ``|d*|``), so that a system compared with itself is
        "significant"; the exact reproductions of sacrebleu's tests are in
        :mod:`scorekit.stats` beside this. ``"t"``, ``"wilcoxon"``: the paired t-test and the
        signed-rank test on per-unit values (= :func:`scipy.stats.ttest_rel`,
        :func:`scipy.stats.wilcoxon`); ``"fisher"``: Fisher's randomization
        test on per-unit values (as ranx); ``"mcnemar"``: the exact McNemar
        test on per-unit correctness (labels); ``"delong"``: DeLong's test of
        two correlated ROC AUCs (binary scores); ``"tukey"``: Tukey's HSD over
        all the systems' per-unit values at once, as ranx's
        ``compare(..., stat_test="tukey")`` (:func:`tukey_hsd`: the systems as
        independent groups, p-values adjusted for every pair; each row is the
        pair of the system and the baseline, with Tukey's simultaneous interval
        of the mean per-unit difference where the metric is that mean).
    n_resamples
        Replicates, trials or permutations of the randomized tests: at most
        1,000,000, and for ``"randomization"`` (and ``sampling="resample"``)
        at most 2**27 cells of ``n_resamples`` times the units.
    confidence
        Coverage of the difference's interval.
    seed
        Seed of the randomized tests: an integer (Python or numpy) in ``[0, 2**64)``.
    sampling
        The paired bootstrap's sampling (``"poisson"`` or ``"resample"``, see
        :func:`bootstrap`).
    correction
        One of :data:`CORRECTIONS` (``"holm"``, ``"bonferroni"``,
        ``"hochberg"``, ``"sidak"``, ``"holm_sidak"``, ``"bh"``, ``"by"``,
        ``"two_stage_bh"``) or statsmodels' name of one (``"fdr_bh"``...): the
        p-values adjusted for the several systems compared with the baseline,
        by :func:`adjust`; ``"two_stage_bh"`` at the level ``1 - confidence``.
    names
        The systems' names (``"system 0"`` (the baseline), ``"system 1"``... by
        default).
    key
        Poisson sampling: the units' keys (see :func:`bootstrap`).
    alternative
        ``"two-sided"``, ``"greater"`` (the system is better than the baseline,
        its metric larger) or ``"less"``, for the tests of :data:`ONE_SIDED`.
        One-sided p-values count the replicates on the alternative's side only:
        ``(#{d* - mean(d*) >= d} + 1) / (B + 1)`` for the paired bootstrap's
        ``"greater"`` (``<=`` for ``"less"``), ``(#{d* >= d} + 1) / (B + 1)``
        for the randomization test's, ``P(T >= t)`` for the t-test's, as scipy;
        the interval is then one-sided, ``(low, inf)`` or ``(-inf, high)``, at
        ``confidence`` (the bootstrap's quantile ``1 - confidence`` or
        ``confidence``; the t-test's as ``scipy.stats.ttest_rel``).
    **kwargs
        Passed to the metric (``sample_weight=``).

    Returns
    -------
    list of Comparison
        One per system after the baseline.

    Raises
    ------
    ConfigError
        An unknown test, test option, alternative or correction, settings out of
        range, a one-sided alternative or a correction with a test that has
        none, a test that does not apply to the metric: the per-unit tests
        (``"t"``, ``"wilcoxon"``, ``"fisher"``, ``"tukey"``) on a metric that has no value on a unit
        alone (ROC AUC of one row) name the tests that compare the metric's
        value on all the units instead.
    InputError
        Fewer than two systems, systems on other units.

    Examples
    --------
    >>> from scorekit import stats
    >>> y = [0, 1, 1, 0, 1, 0, 1, 1] * 20
    >>> a = [0, 1, 0, 0, 1, 1, 1, 0] * 20
    >>> b = [0, 1, 1, 0, 1, 0, 1, 0] * 20
    >>> [c] = stats.compare("accuracy", y, a, b, test="mcnemar")
    >>> c.value, c.baseline_value, round(c.difference, 3), c.pvalue < 0.001
    (0.875, 0.625, 0.25, True)
    """
    inner = _metric(metric)
    where = f"compare {_label(inner)}"
    test, options = parse_test(test, where)
    alternative = check_alternative(alternative, where)
    if alternative != "two-sided" and test not in ONE_SIDED:
        raise ConfigError(
            message(
                where,
                f"the test {test!r} is two-sided only",
                raw(f"alternative {alternative!r}"),
                "'two-sided', or a test of " + ", ".join(repr(t) for t in ONE_SIDED),
            )
        )
    known = (*CORRECTIONS, *CORRECTION_ALIASES)
    if correction is not None and correction not in known:
        raise ConfigError(message(where, "unknown correction", correction, choices(known)))
    if correction is not None and test == "tukey":
        raise ConfigError(
            message(
                where,
                "Tukey's HSD p-values are adjusted for every pair already",
                raw(f"correction {correction!r}"),
                "no correction",
            )
        )
    confidence = check_confidence(confidence, where)
    if test == "delong" and (inner.name != "roc_auc" or inner.inputs != "binary_scores"):
        raise ConfigError(
            message(where, "DeLong's test compares binary ROC AUCs", inner.name, "roc_auc")
        )
    if test == "mcnemar" and inner.inputs not in ("labels", "binary_labels"):
        raise ConfigError(
            message(
                where,
                "McNemar's test compares per-unit correctness of predicted labels",
                raw(f"{inner.name} (inputs {inner.inputs})"),
                "a metric of labels, such as accuracy",
            )
        )
    if test in ("paired_bootstrap", "randomization", "fisher"):
        n_resamples = check_resamples(n_resamples, where)
    seed = cast(int, check_seed(seed, where))
    if len(systems) < 2:
        raise InputError(
            message(where, "needs a baseline and at least one system", len(systems), "2 or more")
        )
    labels = list(names) if names is not None else [f"system {i}" for i in range(len(systems))]
    if len(labels) != len(systems):
        raise ConfigError(message(where, "one name per system", len(labels), str(len(systems))))
    _same_units(inner, truth, systems, labels)
    values = [single_number(inner, inner.score(truth, s, **kwargs)) for s in systems]
    rows: list[tuple[float, float, float]] = []
    if test == "paired_bootstrap":
        reps = [
            replicate_values(
                inner,
                truth,
                s,
                n_resamples=n_resamples,
                seed=seed,
                sampling=sampling,
                key=key,
                groups=0,
                **kwargs,
            ).replicates
            for s in systems
        ]
        alpha = (1.0 - confidence) / (2.0 if alternative == "two-sided" else 1.0)
        for i in range(1, len(systems)):
            delta = reps[i] - reps[0]
            finite = delta[np.isfinite(delta)]
            low, high = (
                np.quantile(finite, [alpha, 1.0 - alpha]) if len(finite) else (math.nan,) * 2
            )
            if alternative == "greater":
                high = math.inf
            elif alternative == "less":
                low = -math.inf
            observed = values[i] - values[0]
            centred = finite - finite.mean() if len(finite) else finite
            p = _tail_share(centred, observed, alternative)
            rows.append((float(low), float(high), p))
    elif test == "randomization":
        for i in range(1, len(systems)):
            p = _randomization(
                inner, truth, systems[0], systems[i], n_resamples, seed, kwargs, alternative
            )
            rows.append((math.nan, math.nan, p))
    elif test == "tukey":
        per_unit = [
            _per_unit(inner, test, truth, s, name, kwargs)
            for s, name in zip(systems, labels, strict=True)
        ]
        hsd = tukey_hsd(*per_unit)
        radius = math.nan
        for i in range(1, len(systems)):
            low, high = math.nan, math.nan
            mean_gap = float(hsd.statistic[i, 0])
            if abs(mean_gap - (values[i] - values[0])) <= 1e-9 * max(1.0, abs(mean_gap)):
                if math.isnan(radius):
                    radius = studentized_range_quantile(confidence, hsd.k, float(hsd.df))
                low = mean_gap - radius * float(hsd.stderr[i, 0])
                high = mean_gap + radius * float(hsd.stderr[i, 0])
            rows.append((low, high, float(hsd.pvalue[i, 0])))
    elif test in _PER_UNIT:
        base = _per_unit(inner, test, truth, systems[0], labels[0], kwargs)
        for i in range(1, len(systems)):
            other = _per_unit(inner, test, truth, systems[i], labels[i], kwargs)
            low, high = math.nan, math.nan
            if test == "t":
                result = paired_t(other, base, alternative=alternative)
                diff = np.asarray(other, dtype=np.float64) - np.asarray(base, dtype=np.float64)
                gap = abs(float(np.mean(diff)) - (values[i] - values[0])) if diff.size else math.inf
                if gap <= 1e-9 * max(1.0, abs(values[i] - values[0])):
                    # the metric is the mean of its per-unit values (accuracy, MAE, MAP):
                    # the interval of the mean difference is that of the difference
                    low, high = _t_interval(diff, confidence, alternative)
            elif test == "wilcoxon":
                result = wilcoxon(other, base, alternative=alternative, **options)
            else:
                result = fisher_randomization(
                    other, base, n_permutations=n_resamples, seed=seed, alternative=alternative
                )
            rows.append((low, high, result.pvalue))
    elif test == "mcnemar":
        y = np.asarray(truth)
        for i in range(1, len(systems)):
            right_base = np.asarray(systems[0]) == y
            right = np.asarray(systems[i]) == y
            if right.ndim != 1:
                raise InputError(
                    message(where, "McNemar needs one label per unit", raw(f"shape {right.shape}"))
                )
            rows.append((math.nan, math.nan, mcnemar(right, right_base).pvalue))
    else:
        z = normal_quantile(1.0 - (1.0 - confidence) / 2.0)
        for i in range(1, len(systems)):
            d = delong(truth, systems[i], systems[0], **kwargs)
            rows.append((d.difference - z * d.stderr, d.difference + z * d.stderr, d.pvalue))
    pvalues = np.array([r[2] for r in rows])
    adjusted = (
        pvalues if correction is None else adjust(pvalues, correction, alpha=1.0 - confidence)
    )
    return [
        Comparison(
            metric=inner.name,
            system=labels[i],
            baseline=labels[0],
            value=values[i],
            baseline_value=values[0],
            difference=values[i] - values[0],
            low=rows[i - 1][0],
            high=rows[i - 1][1],
            confidence=confidence,
            pvalue=rows[i - 1][2],
            adjusted=float(adjusted[i - 1]),
            test=test,
            alternative=alternative,
        )
        for i in range(1, len(systems))
    ]
