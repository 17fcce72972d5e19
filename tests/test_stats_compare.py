"""stats.compare: each test against its reference, and the errors of bad comparisons."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.multitest import multipletests

from scorekit import stats
from scorekit.errors import ConfigError, InputError


def _runs(seed: int, queries: int = 25, systems: int = 3) -> tuple[dict[str, Any], list[Any]]:
    rng = np.random.default_rng(seed)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(8)} for i in range(queries)}
    runs = [
        {
            q: {d: float(rng.random() + 0.15 * k * g) for d, g in docs.items()}
            for q, docs in qrels.items()
        }
        for k in range(systems)
    ]
    return qrels, runs


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**16), test=st.sampled_from(["t", "wilcoxon"]))
def test_per_query_tests_equal_scipy(seed: int, test: str) -> None:
    qrels, runs = _runs(seed)
    got = stats.compare("ndcg@5", qrels, *runs, test=test, correction="holm")
    per_query = [stats.unit_values("ndcg@5", qrels, run) for run in runs]
    reference = scipy.stats.ttest_rel if test == "t" else scipy.stats.wilcoxon
    pvalues = []
    for comparison, values in zip(got, per_query[1:], strict=True):
        if np.all(values == per_query[0]):
            want = 1.0
        else:
            want = float(reference(values, per_query[0]).pvalue)
        assert comparison.pvalue == pytest.approx(want, rel=1e-9, abs=1e-15)
        assert comparison.difference == pytest.approx(values.mean() - per_query[0].mean())
        pvalues.append(comparison.pvalue)
    adjusted = multipletests(pvalues, method="holm")[1]
    assert [c.adjusted for c in got] == pytest.approx(list(adjusted), rel=1e-12)


def test_mcnemar_and_delong_equal_their_references() -> None:
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 200)
    a = np.where(rng.random(200) < 0.7, y, 1 - y)
    b = np.where(rng.random(200) < 0.8, y, 1 - y)
    [c] = stats.compare("accuracy", y, a, b, test="mcnemar")
    table = np.array(
        [
            [np.sum((a == y) & (b == y)), np.sum((a == y) & (b != y))],
            [np.sum((a != y) & (b == y)), np.sum((a != y) & (b != y))],
        ]
    )
    assert c.pvalue == pytest.approx(sm_mcnemar(table, exact=True).pvalue, rel=1e-12)
    sa, sb = rng.random(200) + 0.3 * y, rng.random(200) + 0.6 * y
    [d] = stats.compare("roc_auc", y, sa, sb, test="delong", names=["old", "new"])
    assert (d.system, d.baseline) == ("new", "old")
    assert d.difference == pytest.approx(roc_auc_score(y, sb) - roc_auc_score(y, sa), rel=1e-12)
    assert d.low < d.difference < d.high
    assert d.pvalue < 0.05 and d.significant()


def test_bootstrap_and_randomization_find_a_real_difference_and_not_a_null_one() -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    weak, strong = rng.random(300) + 0.2 * y, rng.random(300) + 0.8 * y
    noise = weak + rng.normal(scale=1e-9, size=300)
    for test in ("paired_bootstrap", "randomization"):
        real, null = stats.compare(
            "roc_auc", y, weak, strong, noise, test=test, n_resamples=300, seed=2
        )
        assert real.pvalue < 0.01 and null.pvalue > 0.2, test
    real, _ = stats.compare(
        "roc_auc", y, weak, strong, noise, test="paired_bootstrap", n_resamples=300
    )
    assert real.low < real.difference < real.high


def test_identical_systems_give_p_one_without_a_crash() -> None:
    qrels, runs = _runs(0, systems=1)
    for test in ("t", "wilcoxon", "fisher", "paired_bootstrap", "randomization"):
        [c] = stats.compare("map", qrels, runs[0], runs[0], test=test, n_resamples=200)
        assert c.difference == 0.0
        assert c.pvalue == 1.0, test
    y = [0, 1, 1, 0] * 10
    [c] = stats.compare("accuracy", y, y, y, test="mcnemar")
    assert c.pvalue == 1.0


def test_bad_comparisons_give_clear_errors() -> None:
    y = [0, 1, 1, 0] * 5
    with pytest.raises(InputError, match="system 1 has another number of rows"):
        stats.compare("accuracy", y, y, y[:-1])
    with pytest.raises(InputError, match="baseline and at least one system"):
        stats.compare("accuracy", y, y)
    with pytest.raises(ConfigError, match="unknown test"):
        stats.compare("accuracy", y, y, y, test="anova")
    with pytest.raises(ConfigError, match="unknown correction"):
        stats.compare("accuracy", y, y, y, correction="hommel")
    with pytest.raises(ConfigError, match="invalid confidence"):
        stats.compare("accuracy", y, y, y, confidence=1.0)
    qrels, runs = _runs(1, systems=2)
    fewer = dict(list(runs[1].items())[:-1])
    with pytest.raises(InputError, match="system 1 is evaluated on other queries"):
        stats.compare("ndcg@5", qrels, runs[0], fewer, test="t")


def test_analytic_intervals_equal_statsmodels_and_name_their_method() -> None:
    from statsmodels.stats.proportion import proportion_confint

    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 150)
    p = np.where(rng.random(150) < 0.75, y, 1 - y)
    counts = {
        "accuracy": (np.sum(p == y), 150),
        "precision": (np.sum((p == 1) & (y == 1)), np.sum(p == 1)),
        "recall": (np.sum((p == 1) & (y == 1)), np.sum(y == 1)),
    }
    for name, (hits, n) in counts.items():
        ci = stats.analytic_interval(name, y, p, confidence=0.9)
        low, high = proportion_confint(int(hits), int(n), alpha=0.1, method="wilson")
        assert (ci.method, ci.low, ci.high) == ("wilson", pytest.approx(low), pytest.approx(high))
        assert ci.value == pytest.approx(hits / n)
    s = rng.random(150) + 0.5 * y
    auc = stats.analytic_interval("roc_auc", y, s)
    assert auc.method == "delong" and auc.low < roc_auc_score(y, s) < auc.high
    with pytest.raises(ConfigError, match="no standard analytic interval"):
        stats.analytic_interval("mse", [1.0, 2.0], [1.5, 2.5])
    with pytest.raises(ConfigError, match="unweighted counts"):
        stats.analytic_interval("accuracy", y, p, sample_weight=np.ones(150))


def test_delong_and_mcnemar_refuse_other_metrics() -> None:
    y = [0, 1, 1, 0] * 5
    a, b = [0.1, 0.9, 0.4, 0.3] * 5, [0.2, 0.8, 0.7, 0.1] * 5
    with pytest.raises(ConfigError, match="DeLong's test compares binary ROC AUCs"):
        stats.compare("average_precision", y, a, b, test="delong")
    with pytest.raises(ConfigError, match="McNemar's test compares"):
        stats.compare("roc_auc", y, a, b, test="mcnemar")


@given(
    st.integers(2, 300),
    st.floats(0.5, 0.999),
    st.integers(0, 2**32 - 1),
    st.sampled_from([1e-200, 1.0, 1e200]),
)
@settings(max_examples=100, deadline=None)
def test_t_test_interval_equals_scipy(n: int, confidence: float, seed: int, scale: float) -> None:
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n) * scale
    a = y + rng.normal(size=n) * scale
    b = y + rng.normal(size=n) * 0.8 * scale
    (found,) = stats.compare("mae", y, a, b, test="t", confidence=confidence)
    # scipy's squares of the differences under- or overflow at 1e-200 and 1e200 (its
    # interval is then 0-wide or infinite): it is given the errors on the scale of 1
    errors_a, errors_b = np.abs(a - y) / scale, np.abs(b - y) / scale
    ref = scipy.stats.ttest_rel(errors_b, errors_a).confidence_interval(confidence)
    assert found.low == pytest.approx(ref.low * scale, rel=1e-9, abs=1e-12 * scale)
    assert found.high == pytest.approx(ref.high * scale, rel=1e-9, abs=1e-12 * scale)
    assert found.low <= found.difference <= found.high


def test_t_test_interval_of_identical_and_of_one_unit() -> None:
    (same,) = stats.compare("mae", [1.0, 2.0, 3.0], [1.5, 2.5, 2.0], [1.5, 2.5, 2.0], test="t")
    assert (same.low, same.high) == (0.0, 0.0)
    with pytest.raises(InputError, match="too few units"):
        stats.compare("mae", [1.0], [1.5], [2.0], test="t")
