"""Paired tests, corrections and analytic intervals of scorekit.stats against scipy,
statsmodels, scikit-learn, ranx and direct computations."""

import itertools
import math
import warnings
from unittest import mock

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from scipy import special
from scipy import stats as sps
from sklearn.metrics import roc_auc_score
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from scorekit.errors import ConfigError, InputError
from scorekit.stats._analytic import _placements, delong, delong_interval, wilson
from scorekit.stats._distributions import (
    binomial_cdf_half,
    chi2_1_sf,
    normal_quantile,
    normal_two_sided,
    student_t_two_sided,
)
from scorekit.stats._paired import (
    bonferroni,
    fisher_randomization,
    holm,
    mcnemar,
    paired_t,
    wilcoxon,
)
from scorekit.stats._results import DeLongResult, Interval, TestResult

RTOL = 1e-12

# per-unit values: a coarse grid (ties, zero differences) or continuous floats
grid = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])
floats = st.floats(-100, 100, allow_nan=False, allow_subnormal=False)


@st.composite
def paired(draw, min_size=2, max_size=40, sizes=None):
    n = draw(sizes if sizes is not None else st.integers(min_size, max_size))
    values = draw(st.sampled_from([grid, floats]))
    a = draw(st.lists(values, min_size=n, max_size=n))
    b = draw(st.lists(values, min_size=n, max_size=n))
    return np.array(a), np.array(b)


def close(got, want, rtol=RTOL, atol=0.0):
    return math.isclose(got, want, rel_tol=rtol, abs_tol=atol)


# --- distributions ---------------------------------------------------------------------


@pytest.mark.parametrize("df", [1, 2, 3, 7, 20, 21, 99, 1000, 9999, 100000])
def test_student_t_tail_matches_scipy(df):
    for t in [1e-3, 0.3, 1.0, 1.7, 2.0, 3.0, 5.0, 12.0, 40.0, 1e3]:
        want = 2 * special.stdtr(df, -t)
        if want < 1e-300:
            continue
        # scipy's df = 1 tail drifts by ~1e-9 near t = 0; the closed form is the truth there
        if df == 1:
            want = 2 * math.atan(1 / t) / math.pi
        assert close(student_t_two_sided(t, df), want, rtol=3e-12), (df, t)
        assert student_t_two_sided(-t, df) == student_t_two_sided(t, df)
    assert student_t_two_sided(0.0, df) == 1.0
    assert student_t_two_sided(math.inf, df) == 0.0


def test_student_t_one_degree_is_the_cauchy_tail():
    for t in [1e-12, 1e-8, 1e-3, 0.5, 3.0, 1e6, 1e150]:
        assert close(student_t_two_sided(t, 1), 2 * math.atan(1 / t) / math.pi, rtol=1e-13)


@pytest.mark.parametrize("n", [1, 2, 9, 40, 999, 10000, 10001, 250000])
def test_binomial_tail_matches_scipy(n):
    spread = int(6 * math.sqrt(n)) + 1
    for k in sorted({0, 1, n // 3, max(0, n // 2 - spread), n // 2 - 1, n // 2, n - 1, n}):
        if k < 0:
            continue
        want = sps.binom.cdf(k, n, 0.5)
        assert close(binomial_cdf_half(k, n), want, rtol=1e-12), (n, k)


def test_normal_and_chi2_tails_match_scipy():
    for z in [0.0, 0.5, 1.96, 4.0, 10.0, 30.0]:
        assert close(normal_two_sided(z), 2 * sps.norm.sf(z), rtol=1e-12)
        assert close(chi2_1_sf(z * z), sps.chi2.sf(z * z, 1), rtol=1e-12)
    for p in [1e-12, 0.001, 0.025, 0.5, 0.9, 0.995]:
        assert close(normal_quantile(p), sps.norm.ppf(p), rtol=1e-13, atol=1e-300)


# --- paired t-test ---------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(paired())
@example((np.array([0.0, 0.25]), np.array([0.25, 0.0])))  # t = 0 with one degree of freedom
@example((np.array([0.0, 0.25, 0.5]), np.array([0.5, 0.25, 0.0])))  # t = 0
@example((np.array([0.5, 0.75, 1.0]), np.array([0.5, 0.75, 1.0])))  # identical systems
@example((np.array([0.5, 0.75, 1.0]), np.array([0.25, 0.5, 0.75])))  # equal differences
# differences equal but for their rounding: a variance of ~1e-34 and t ~ 7e15
@example((np.array([0.3, 0.7, 0.9, 0.4]), np.array([0.2, 0.6, 0.8, 0.3])))
# squared deviations that underflow: t is that of the differences scaled to 1
@example((np.array([0.0, 0.0]), np.array([0.0, 1e-200])))
def test_paired_t_matches_scipy(data):
    a, b = data
    d = a - b
    got = paired_t(a, b)
    assert got.method == "paired_t"
    if not d.any():
        # identical systems: 0/0, documented as t = 0 and p = 1 (scipy gives nan for both)
        assert (got.statistic, got.pvalue) == (0.0, 1.0)
        return
    if (d == d[0]).all():
        # equal non-zero differences: the variance is exactly 0, documented as t = ±inf and
        # p = 0 (scipy's variance can keep the rounding of its mean: a huge finite t)
        assert got.statistic == math.copysign(math.inf, d[0]) and got.pvalue == 0.0
        return
    scale = float(np.max(np.abs(d)))
    with np.errstate(over="ignore", under="ignore"):
        squares = float(np.mean((d - np.mean(d)) ** 2))
    if not 0.0 < squares < math.inf:
        # the squared deviations underflow or overflow float64: scorekit takes t of the
        # differences scaled to 1 (t does not depend on their scale), scipy gives inf or 0
        a, b = a / scale, b / scale
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scipy's note on nearly equal data
        want = sps.ttest_rel(a, b)
    # t in scipy's order of operations: the same t, to rounding
    assert close(got.statistic, float(want.statistic), atol=1e-12)
    t = abs(got.statistic)
    if len(a) == 2:
        # scipy's one-degree tail drifts near t = 0; the closed form 2 arctan(1 / t) / pi,
        # written with atan2 so that t = 0 (a mean difference of exactly 0) gives p = 1
        assert close(got.pvalue, 2 * math.atan2(1.0, t) / math.pi, 3e-12)
    else:
        # p-values below the smallest normal float are both 0 or subnormal
        assert close(got.pvalue, float(want.pvalue), rtol=3e-12, atol=1e-300)


def test_paired_t_edge_cases():
    assert paired_t([0.3, 0.5, 0.9], [0.3, 0.5, 0.9]) == TestResult(0.0, 1.0, "paired_t")
    constant = paired_t([1.0, 2.0, 3.0], [0.5, 1.5, 2.5])
    assert constant.statistic == math.inf and constant.pvalue == 0.0
    assert paired_t([0.0, 0.0], [1.0, 1.0]).statistic == -math.inf
    # all units tied at the same values: no crash, p = 1
    assert paired_t([0.5] * 10, [0.5] * 10).pvalue == 1.0
    two = paired_t([0.2, 0.9], [0.1, 0.4])
    assert two.statistic == pytest.approx(sps.ttest_rel([0.2, 0.9], [0.1, 0.4]).statistic)


# --- Wilcoxon signed-rank ----------------------------------------------------------------


def _check_wilcoxon(a, b):
    got = wilcoxon(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = sps.wilcoxon(a, b)
    assert got.method == "wilcoxon"
    if np.isnan(want.pvalue):  # scipy: every difference zero and n > 13
        assert not (np.asarray(a) - np.asarray(b)).any()
        assert (got.statistic, got.pvalue) == (0.0, 1.0)
        return
    assert got.statistic == want.statistic
    # scipy sums float probabilities (one tail as 1 minus the other): ~1e-15 absolute
    assert close(got.pvalue, want.pvalue, atol=2e-15), (got, want)


# scipy's permutation branch (ties or zeros, 10 <= n <= 13) takes seconds per call:
# those sizes are covered once each below
@settings(max_examples=40, deadline=None)
@given(paired(sizes=st.integers(2, 9) | st.integers(14, 60)))
def test_wilcoxon_matches_scipy(data):
    _check_wilcoxon(*data)


@pytest.mark.parametrize(
    ("n", "values"),
    [
        (10, "distinct"),  # exact distribution
        (45, "distinct"),  # exact distribution, near the limit of 50
        (51, "distinct"),  # normal approximation
        (8, "ties"),  # permutation over all 2**8 sign flips
        (13, "zeros"),  # permutation over all 2**13 sign flips, the largest n
        (14, "zeros"),  # normal approximation with tie correction
        (40, "ties"),
        (120, "ties"),
    ],
)
def test_wilcoxon_every_branch_of_auto(n, values):
    rng = np.random.default_rng(n)
    a = rng.random(n)
    if values == "distinct":
        b = a - rng.normal(0.1, 0.3, n)
    elif values == "ties":
        b = a - rng.choice([-0.5, 0.25, 0.5, 1.0], n)
    else:
        b = a - rng.choice([0.0, 0.5, -0.25], n)
    _check_wilcoxon(a, b)


def test_wilcoxon_edge_cases():
    for n in (2, 5, 13, 14, 60):
        same = np.linspace(0, 1, n)
        assert wilcoxon(same, same) == TestResult(0.0, 1.0, "wilcoxon")
    _check_wilcoxon([1.0, 0.0], [0.0, 1.0])  # n = 2, tied absolute differences
    _check_wilcoxon([0.5] * 20, [0.25] * 20)  # all differences tied
    _check_wilcoxon([0.5] * 9, [0.25] * 9)
    # one sign everywhere, exact: p = 2 / 2**n
    assert wilcoxon(np.arange(20.0) + 1, np.zeros(20)).pvalue == 2.0**-19


# --- Fisher's randomization ----------------------------------------------------------------


def _exact_randomization_p(a, b):
    d = np.asarray(a) - np.asarray(b)
    observed = abs(d.sum())
    tol = 1e-12 * np.abs(d).sum()
    flips = np.array(list(itertools.product([1.0, -1.0], repeat=len(d))))
    return np.mean(np.abs(flips @ d) >= observed - tol)


@settings(max_examples=15, deadline=None)
@given(paired(min_size=2, max_size=10), st.integers(0, 2**32 - 1))
def test_fisher_randomization_estimates_the_exact_enumeration(data, seed):
    a, b = data
    exact = _exact_randomization_p(a, b)
    n_permutations = 4000
    got = fisher_randomization(a, b, n_permutations=n_permutations, seed=seed)
    se = math.sqrt(exact * (1 - exact) / n_permutations)
    assert abs(got.pvalue - exact) <= 6 * se + 1e-12
    assert got.statistic == pytest.approx(np.mean(a) - np.mean(b), abs=1e-12)
    assert got.method == "fisher_randomization"


def test_fisher_randomization_is_reproducible_and_counts_ties():
    rng = np.random.default_rng(3)
    a, b = rng.random(25), rng.random(25)
    one = fisher_randomization(a, b, n_permutations=3000, seed=9)
    assert one == fisher_randomization(a, b, n_permutations=3000, seed=9)
    # a difference of equal-magnitude units: every flip of one unit by another ties
    tied = fisher_randomization([1, 1, 1, 0], [0, 0, 0, 1], n_permutations=20000, seed=1)
    assert tied.pvalue == pytest.approx(
        _exact_randomization_p([1, 1, 1, 0], [0, 0, 0, 1]), abs=0.02
    )


def test_fisher_randomization_agrees_with_ranx_where_decided():
    ranx_tests = pytest.importorskip("ranx.statistical_tests")
    rng = np.random.default_rng(5)
    base = rng.random(30)
    better = base + 0.4 + 0.05 * rng.random(30)
    same = base.copy()
    for a, b in [(better, base), (base, better), (base, same)]:
        want, _ = ranx_tests.fisher_randomization_test(a, b, 1000, 0.01, 42)
        got = fisher_randomization(a, b)
        assert got.pvalue == want
    # an undecided case: both estimate the exact enumeration within Monte-Carlo error
    a, b = rng.random(12), rng.random(12)
    exact = _exact_randomization_p(a, b)
    want, _ = ranx_tests.fisher_randomization_test(a, b, 4000, 0.01, 42)
    got = fisher_randomization(a, b, n_permutations=4000)
    se = math.sqrt(exact * (1 - exact) / 4000)
    assert abs(want - exact) <= 6 * se and abs(got.pvalue - exact) <= 6 * se


# --- McNemar ------------------------------------------------------------------------------


def _table(x, y):
    x, y = np.asarray(x, bool), np.asarray(y, bool)
    return np.array([[np.sum(x & y), np.sum(x & ~y)], [np.sum(~x & y), np.sum(~x & ~y)]])


@st.composite
def correctness(draw):
    n = draw(st.integers(2, 200))
    p = draw(st.floats(0.05, 0.95))
    x = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    flips = draw(st.lists(st.floats(0, 1), min_size=n, max_size=n))
    y = [xi if f < p else not xi for xi, f in zip(x, flips, strict=True)]
    return x, y


@settings(max_examples=60, deadline=None)
@given(correctness(), st.booleans(), st.booleans())
def test_mcnemar_matches_statsmodels(data, exact, correction):
    x, y = data
    table = _table(x, y)
    assume(table[0, 1] + table[1, 0] > 0)
    got = mcnemar(x, y, exact=exact, correction=correction)
    want = sm_mcnemar(table, exact=exact, correction=correction)
    assert got.statistic == pytest.approx(float(want.statistic), rel=RTOL)
    assert close(got.pvalue, float(want.pvalue), rtol=1e-12)
    assert got.method == ("mcnemar_exact" if exact else "mcnemar_chi2")


def test_mcnemar_many_discordant_units_matches_statsmodels():
    x = np.r_[np.ones(9000, bool), np.zeros(8000, bool)]
    y = ~x
    for exact in (True, False):
        got = mcnemar(x, y, exact=exact)
        want = sm_mcnemar(_table(x, y), exact=exact)
        assert close(got.pvalue, float(want.pvalue), rtol=1e-11)


def test_mcnemar_without_discordant_units():
    same = [True, False, True, True]
    for exact in (True, False):
        got = mcnemar(same, same, exact=exact)
        assert (got.statistic, got.pvalue) == (0.0, 1.0)
    assert mcnemar([1, 0, 1], [1, 0, 1]).pvalue == 1.0


# --- Holm and Bonferroni ---------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1) | st.sampled_from([0.0, 0.01, 0.05, 1.0]), min_size=1, max_size=12))
def test_holm_and_bonferroni_match_statsmodels(p):
    # statsmodels' Holm branch runs a full garbage collection per call: skip it, it is slow here
    with mock.patch("gc.collect"):
        assert np.array_equal(holm(p), multipletests(p, method="holm")[1])
        assert np.array_equal(bonferroni(p), multipletests(p, method="bonferroni")[1])


# --- Wilson -----------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 10**6), st.floats(0, 1), st.floats(0.01, 0.999))
def test_wilson_matches_statsmodels(n, share, confidence):
    k = round(share * n)
    got = wilson(k, n, confidence)
    low, high = proportion_confint(k, n, alpha=1 - confidence, method="wilson")
    assert isinstance(got, Interval) and got.method == "wilson"
    assert got.value == k / n and got.confidence == confidence
    assert close(got.low, low, atol=1e-15) and close(got.high, high, atol=1e-15)


def test_wilson_edge_cases():
    assert wilson(0, 1).low == 0.0 and wilson(1, 1).high == 1.0
    wide, narrow = wilson(5, 10, 0.99), wilson(5, 10, 0.5)
    assert wide.low < narrow.low < 0.5 < narrow.high < wide.high


# --- DeLong -----------------------------------------------------------------------------


def _direct_placements(positive, score):
    pos, neg = score[positive], score[~positive]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    return psi.mean(axis=1), psi.mean(axis=0)


@st.composite
def roc_data(draw):
    n = draw(st.integers(4, 40))
    y = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    assume(2 <= y.sum() <= n - 2)
    values = draw(st.sampled_from([st.sampled_from([0.1, 0.2, 0.3, 0.5]), st.floats(0, 1)]))
    a = np.array(draw(st.lists(values, min_size=n, max_size=n)))
    b = np.array(draw(st.lists(values, min_size=n, max_size=n)))
    return y, a, b


@settings(max_examples=50, deadline=None)
@given(roc_data())
def test_delong_placements_equal_the_direct_computation(data):
    y, a, b = data
    auc, v10, v01 = _placements(y, np.vstack([a, b]))
    for row, score in enumerate((a, b)):
        d10, d01 = _direct_placements(y, score)
        np.testing.assert_allclose(v10[row], d10, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(v01[row], d01, rtol=1e-13, atol=1e-15)
        assert auc[row] == pytest.approx(roc_auc_score(y, score), rel=1e-12)

    # the test and the interval from the direct placements
    (a10, a01), (b10, b01) = _direct_placements(y, a), _direct_placements(y, b)
    m, n = len(a10), len(a01)
    var = (np.var(a10 - b10, ddof=1) / m) + (np.var(a01 - b01, ddof=1) / n)
    result = delong(y, a, b)
    assert isinstance(result, DeLongResult) and result.method == "delong"
    assert result.auc_a == pytest.approx(roc_auc_score(y, a), rel=1e-12)
    assert result.auc_b == pytest.approx(roc_auc_score(y, b), rel=1e-12)
    assert result.difference == pytest.approx(result.auc_a - result.auc_b, abs=1e-15)
    assert result.stderr == pytest.approx(math.sqrt(var), rel=1e-9, abs=1e-12)
    if result.stderr > 1e-9:
        z = result.difference / math.sqrt(var)
        assert result.statistic == pytest.approx(z, rel=1e-9)
        assert result.pvalue == pytest.approx(2 * sps.norm.sf(abs(z)), rel=1e-9)

    se_a = math.sqrt(np.var(a10, ddof=1) / m + np.var(a01, ddof=1) / n)
    interval = delong_interval(y, a, 0.9)
    z90 = sps.norm.ppf(0.95)
    assert interval.value == result.auc_a and interval.method == "delong"
    assert interval.low == pytest.approx(max(0.0, result.auc_a - z90 * se_a), abs=1e-12)
    assert interval.high == pytest.approx(min(1.0, result.auc_a + z90 * se_a), abs=1e-12)


def test_delong_identical_scores_and_labels():
    y = [0, 1, 0, 1, 1, 0]
    s = [0.2, 0.8, 0.4, 0.3, 0.9, 0.1]
    assert delong(y, s, s) == DeLongResult(8 / 9, 8 / 9, 0.0, 0.0, 0.0, 1.0)
    tied = delong(y, s, [0.5] * 6)
    assert tied.auc_b == 0.5 and tied.stderr > 0
    # string labels: the greater is positive unless pos_label says otherwise
    labels = ["neg", "pos", "neg", "pos", "pos", "neg"]
    assert delong(labels, s, s).auc_a == 8 / 9
    assert delong(labels, s, s, pos_label="neg").auc_a == pytest.approx(1 / 9)
    perfect = delong([0, 0, 1, 1], [0, 0.1, 0.8, 0.9], [0.5, 0.5, 0.5, 0.5])
    assert perfect.statistic == math.inf and perfect.pvalue == 0.0


# --- bad input --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "text"),
    [
        (lambda: paired_t([1, 2, 3], [1, 2]), InputError, "paired_t: inputs differ in length"),
        (lambda: paired_t([1], [2]), InputError, "paired_t: too few units; got 1"),
        (lambda: paired_t([1, np.nan], [1, 2]), InputError, "paired_t: a contains nan"),
        (lambda: wilcoxon([1, 2], [1, 2, 3]), InputError, "wilcoxon: inputs differ in length"),
        (lambda: wilcoxon([], []), InputError, "wilcoxon: too few units; got 0"),
        (lambda: wilcoxon([1, 2], [np.inf, 2]), InputError, "wilcoxon: b contains inf"),
        (
            lambda: fisher_randomization([1, 2], [1, 2, 3]),
            InputError,
            "fisher_randomization: inputs differ in length",
        ),
        (
            lambda: fisher_randomization([1, 2], [2, 1], n_permutations=0),
            ConfigError,
            "fisher_randomization: invalid n_permutations; got 0, expected an integer in [1, 1,",
        ),
        (
            lambda: fisher_randomization([1, 2], [2, 1], n_permutations=10.5),
            ConfigError,
            "fisher_randomization: invalid n_permutations; got 10.5",
        ),
        (
            lambda: mcnemar([1, 0, 2], [1, 0, 1]),
            InputError,
            "mcnemar: correct_a must hold booleans; got 2 at index 2",
        ),
        (
            lambda: mcnemar([True, False], ["yes", "no"]),
            InputError,
            "mcnemar: correct_b must hold booleans",
        ),
        (lambda: mcnemar([True], [False]), InputError, "mcnemar: too few units; got 1"),
        (
            lambda: mcnemar([True, False], [True]),
            InputError,
            "mcnemar: inputs differ in length",
        ),
        (
            lambda: wilson(5, 10, confidence=1.0),
            ConfigError,
            "wilson: invalid confidence; got 1.0",
        ),
        (
            lambda: wilson(5, 10, confidence=0),
            ConfigError,
            "wilson: invalid confidence; got 0",
        ),
        (lambda: wilson(11, 10), InputError, "wilson: successes exceed n; got 11"),
        (lambda: wilson(0, 0), InputError, "wilson: n is too small; got 0"),
        (lambda: wilson(2.5, 10), InputError, "wilson: successes must be an integer; got 2.5"),
        (
            lambda: delong([1, 1, 1, 1], [0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]),
            InputError,
            "delong: y_true must hold exactly two classes; got [1]",
        ),
        (
            lambda: delong([0, 1, 1, 1], [0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]),
            InputError,
            "delong: too few negative units for a variance; got 1",
        ),
        (
            lambda: delong([0, 0, 1, 1], [0.1, 0.2, 0.3], [0.4, 0.3, 0.2, 0.1]),
            InputError,
            "delong: inputs differ in length",
        ),
        (
            lambda: delong([0, 0, 1, 1], [0.1, np.nan, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]),
            InputError,
            "delong: score_a contains nan",
        ),
        (
            lambda: delong(
                [0, 0, 1, 1], [0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1], sample_weight=[1, 2, 1, 1]
            ),
            ConfigError,
            "delong: sample_weight is not supported",
        ),
        (
            lambda: delong([0, 0, 1, 1], [0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1], pos_label=2),
            ConfigError,
            "delong: pos_label is not a class of y_true; got 2",
        ),
        (
            lambda: delong_interval([0, 0, 1, 1], [0.1, 0.2, 0.3, 0.4], confidence=95),
            ConfigError,
            "delong_interval: invalid confidence; got 95",
        ),
        (
            lambda: delong_interval([0, 0, 1, 1], [0.1, 0.2, 0.3, 0.4], confidence="high"),
            ConfigError,
            "delong_interval: invalid confidence; got 'high'",
        ),
        (
            lambda: holm([0.01, 1.5]),
            InputError,
            "holm: p-values must lie in [0, 1]; got 1.5 at index 1",
        ),
        (lambda: bonferroni([]), InputError, "bonferroni: no p-values"),
        (lambda: holm([0.2, np.nan]), InputError, "holm: pvalues contains nan"),
    ],
)
def test_bad_input_raises_a_clear_error(call, error, text):
    with pytest.raises(error) as info:
        call()
    assert str(info.value).startswith(text), str(info.value)
