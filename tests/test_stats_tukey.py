"""Tukey's HSD and the studentized range distribution against scipy, ranx, the exact k = 2
case and nested adaptive quadrature; ``--test tukey`` on the commands."""

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special
from scipy import stats as sps

from scorekit import stats
from scorekit.cli import main
from scorekit.errors import ConfigError, InputError
from scorekit.stats import (
    studentized_range_cdf,
    studentized_range_quantile,
    studentized_range_sf,
    tukey_hsd,
)

ROOT = Path(__file__).resolve().parent.parent


def _scipy_tolerance(p):
    """scipy's integration of the tail: ~1e-10 relative above 0.01, fewer digits below
    (at q=8, k=2, df=3807 its 1.65527e-8 is 6e-5 above the exact 2 t.sf(8/sqrt 2))."""
    return 1e-9 if p > 1e-2 else 1e-7 if p > 1e-4 else 1e-5 if p > 1e-6 else 1e-3


# --- the studentized range distribution ---------------------------------------------------


@pytest.mark.parametrize("df", [1.5, 2, 3, 10, 57.5, 1000, 1e6])
def test_two_groups_are_the_t_distribution_exactly(df):
    # the range of two normals is |Z1 - Z2|: Q = sqrt(2) |T|
    for q in (0.01, 0.3, 1.0, 2.5, 4.0, 7.0, 12.0, 30.0):
        want = 2 * sps.t.sf(q / math.sqrt(2), df)
        if want < 1e-13:
            continue
        assert studentized_range_sf(q, 2, df) == pytest.approx(want, rel=2e-14, abs=0)


def _nested_quadrature(q, k, df):
    """P(Q > q) by scipy's adaptive quadrature at 1e-13, integrand for integrand."""

    def inner(z, w):
        a = special.ndtr(z)
        if a <= 0.0:
            return 0.0
        ratio = special.ndtr(z - w) / a
        bracket = 1.0 if ratio >= 1.0 else -math.expm1((k - 1) * math.log1p(-ratio))
        return a ** (k - 1) * bracket * math.exp(-z * z / 2) / math.sqrt(2 * math.pi)

    def range_sf(w):
        low, high = max(-9.0, w / 2 - 9), max(18.0, w / 2 + 18)
        found = integrate.quad(inner, low, high, args=(w,), epsabs=0, epsrel=1e-13, limit=200)
        return k * found[0]

    half = df / 2
    log_c = math.log(2) + half * math.log(half) - math.lgamma(half)

    def outer(u):
        return math.exp(log_c + df * u - half * math.exp(2 * u)) * range_sf(q * math.exp(u))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return integrate.quad(outer, -60 / df - 5, 3, epsabs=0, epsrel=1e-12, points=[0.0])[0]


@pytest.mark.parametrize(("q", "k", "df"), [(3.0, 3, 10), (10.0, 5, 10), (4.0, 20, 200)])
def test_many_groups_match_nested_quadrature(q, k, df):
    assert studentized_range_sf(q, k, df) == pytest.approx(_nested_quadrature(q, k, df), rel=1e-13)


@settings(max_examples=40, deadline=None)
@given(
    st.floats(0.05, 12.0),
    st.integers(2, 30),
    st.floats(2.0, 5000.0) | st.integers(2, 200).map(float),
)
def test_studentized_range_matches_scipy(q, k, df):
    want = sps.studentized_range.sf(q, k, df)
    got = studentized_range_sf(q, k, df)
    exact = 2 * sps.t.sf(q / math.sqrt(2), df)
    if k == 2 and exact >= 1e-13:
        # the range of two normals: exactly sqrt(2) |T|, closer than scipy's quadrature
        assert got == pytest.approx(exact, rel=1e-12, abs=0)
    if want < 1e-9:
        assert got < 2e-9
        return
    assert got == pytest.approx(want, rel=_scipy_tolerance(want))
    assert studentized_range_cdf(q, k, df) == pytest.approx(1 - got, abs=1e-16)


@pytest.mark.parametrize("k", [2, 3, 7, 100])
def test_infinite_degrees_of_freedom(k):
    for q in (0.5, 2.0, 3.5, 5.0):
        want = sps.studentized_range.sf(q, k, np.inf)
        assert studentized_range_sf(q, k, math.inf) == pytest.approx(
            want, rel=_scipy_tolerance(want)
        )


@pytest.mark.parametrize(("k", "df"), [(2, 5), (3, 20), (5, 2.5), (10, 100), (30, 1000)])
def test_quantile_matches_scipy(k, df):
    for p in (0.5, 0.9, 0.95, 0.99):
        q = studentized_range_quantile(p, k, df)
        assert q == pytest.approx(sps.studentized_range.ppf(p, k, df), rel=1e-9)
        assert studentized_range_cdf(q, k, df) == pytest.approx(p, abs=1e-13)


def test_studentized_range_edges():
    assert studentized_range_sf(0.0, 3, 10) == 1.0
    assert studentized_range_sf(-1.0, 3, 10) == 1.0
    assert studentized_range_sf(math.inf, 3, 10) == 0.0
    assert math.isnan(studentized_range_sf(math.nan, 3, 10))
    assert studentized_range_sf(200.0, 3, 10) < 1e-15
    with pytest.raises(ConfigError, match="number of groups"):
        studentized_range_sf(1.0, 1, 10)
    with pytest.raises(ConfigError, match="df must be positive"):
        studentized_range_sf(1.0, 3, 0)
    with pytest.raises(ConfigError, match="in \\(0, 1\\)"):
        studentized_range_quantile(1.0, 3, 10)


# --- Tukey's HSD ------------------------------------------------------------------------------


@st.composite
def groups(draw):
    k = draw(st.integers(2, 6))
    equal = draw(st.booleans())
    n = draw(st.integers(2, 15))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    shift = draw(st.floats(0.0, 2.0))
    out = []
    for i in range(k):
        size = n if equal else int(rng.integers(2, 16))
        values = rng.normal(shift * i / k, 1.0, size)
        if draw(st.booleans()):
            values = np.round(values, 1)  # ties
        out.append(values)
    return out


def _check_against_scipy(samples, equal_var=True):
    got = tukey_hsd(*samples, equal_var=equal_var)
    want = sps.tukey_hsd(*samples, equal_var=equal_var)
    np.testing.assert_allclose(got.statistic, want.statistic, rtol=1e-12, atol=1e-12)
    for i, j in np.ndindex(got.pvalue.shape):
        p = float(want.pvalue[i, j])
        if i == j:
            assert got.pvalue[i, j] == 1.0
        elif p < 1e-9:
            assert got.pvalue[i, j] < 2e-9
        else:
            assert got.pvalue[i, j] == pytest.approx(p, rel=_scipy_tolerance(p))
    return got, want


@settings(max_examples=15, deadline=None)
@given(groups())
def test_tukey_hsd_matches_scipy(samples):
    _check_against_scipy(samples)


@settings(max_examples=10, deadline=None)
@given(groups())
def test_games_howell_matches_scipy(samples):
    _check_against_scipy(samples, equal_var=False)


def test_tukey_confidence_intervals_match_scipy():
    rng = np.random.default_rng(4)
    samples = [rng.normal(i / 3, 1, 12 + i) for i in range(4)]
    got, want = _check_against_scipy(samples)
    for confidence in (0.9, 0.95):
        low, high = got.confidence_interval(confidence)
        interval = want.confidence_interval(confidence)
        np.testing.assert_allclose(low, interval.low, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(high, interval.high, rtol=1e-9, atol=1e-12)


def test_two_groups_are_the_pooled_t_test():
    rng = np.random.default_rng(9)
    a, b = rng.normal(0, 1, 15), rng.normal(0.8, 1, 11)
    assert tukey_hsd(a, b).pvalue[0, 1] == pytest.approx(sps.ttest_ind(a, b).pvalue, rel=1e-13)


def test_tukey_edge_cases():
    # no variance within the groups: equal means p = 1, different means p = 0
    found = tukey_hsd([1.0, 1.0], [1.0, 1.0], [2.0, 2.0])
    assert found.pvalue[0, 1] == 1.0 and found.pvalue[0, 2] == 0.0
    # ties across groups
    _check_against_scipy([[1.0, 2.0, 2.0], [2.0, 2.0, 3.0], [1.0, 1.0, 3.0]])
    for bad, error, text in [
        (([1.0, 2.0],), InputError, "at least two groups"),
        (([1.0, 2.0], [3.0]), InputError, "group 1 is too small"),
        (([1.0, 2.0], []), InputError, "group 1 is too small"),
        (([1.0, np.nan], [1.0, 2.0]), InputError, "contains nan"),
        (([1.0, np.inf], [1.0, 2.0]), InputError, "contains inf"),
    ]:
        with pytest.raises(error, match=text):
            tukey_hsd(*bad)
    with pytest.raises(ConfigError, match="equal_var"):
        tukey_hsd([1.0, 2.0], [2.0, 3.0], equal_var="yes")


# --- compare and the commands --------------------------------------------------------------

QRELS = {f"q{i}": {f"d{i}": 1, f"e{i}": 1} for i in range(12)}


def _runs():
    rng = np.random.default_rng(21)
    runs = []
    for quality in (0.2, 0.5, 0.9):
        run = {}
        for q, docs in QRELS.items():
            scores = {d: float(rng.random() + quality) for d in docs}
            scores |= {f"x{j}": float(rng.random()) for j in range(5)}
            run[q] = scores
        runs.append(run)
    return runs


def test_compare_tukey_matches_ranx():
    ranx = pytest.importorskip("ranx")
    runs = _runs()
    found = stats.compare("map", QRELS, *runs, test="tukey", names=["r0", "r1", "r2"])
    report = ranx.compare(
        ranx.Qrels.from_dict(QRELS),
        [ranx.Run.from_dict(r, name=f"r{i}") for i, r in enumerate(runs)],
        metrics=["map"],
        stat_test="tukey",
    )
    for c in found:
        want = report.comparisons[c.baseline, c.system]["map"]["p_value"]
        assert c.pvalue == pytest.approx(want, rel=_scipy_tolerance(want))
        assert c.adjusted == c.pvalue and c.test == "tukey"
    per_query = [stats.unit_values("map", QRELS, r) for r in runs]
    low, high = sps.tukey_hsd(*per_query).confidence_interval(0.95)
    for i, c in enumerate(found, start=1):
        assert c.low == pytest.approx(low[i, 0], rel=1e-9)
        assert c.high == pytest.approx(high[i, 0], rel=1e-9)


def test_compare_tukey_refuses_a_correction_and_metrics_without_unit_values():
    runs = _runs()
    with pytest.raises(ConfigError, match="adjusted for every pair"):
        stats.compare("map", QRELS, *runs, test="tukey", correction="holm")
    with pytest.raises(ConfigError, match="two-sided only"):
        stats.compare("map", QRELS, *runs, test="tukey", alternative="greater")
    y = [0, 1, 0, 1, 1, 0]
    with pytest.raises(ConfigError, match="no value per row"):
        stats.compare("roc_auc", y, [0.1, 0.9, 0.2, 0.8, 0.7, 0.3], y, test="tukey")


def test_rank_test_tukey_end_to_end(capsys):
    runs = [
        ROOT / "examples" / "data" / "run.txt",
        *sorted((ROOT / "examples" / "runs").glob("*.txt")),
    ]
    qrels = ROOT / "examples" / "data" / "qrels.txt"
    code = main(
        ["rank", str(qrels), *map(str, runs), "-m", "map", "--test", "tukey", "--format", "json"]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    doc = json.loads(out)
    per_query = [stats.unit_values("map", qrels, str(r)) for r in runs]
    want = sps.tukey_hsd(*per_query)
    assert doc["test"] == "tukey" and len(doc["comparisons"]) == len(runs) - 1
    for i, row in enumerate(doc["comparisons"], start=1):
        p = float(want.pvalue[i, 0])
        assert row["pvalue"] == pytest.approx(p, rel=_scipy_tolerance(p))


@settings(max_examples=15, deadline=None)
@given(groups())
def test_tukey_hsd_matches_ranx(samples):
    ranx_tests = pytest.importorskip("ranx.statistical_tests")
    names = [f"s{i}" for i in range(len(samples))]
    rows = ranx_tests.tukey_hsd_test(model_names=names, scores=samples, max_p=0.05)
    got = tukey_hsd(*samples).pvalue
    for row in rows:
        i, j = names.index(row["control"]), names.index(row["treatment"])
        want = float(row["p-value"])
        if i == j:
            continue
        if want < 1e-9:
            assert got[i, j] < 2e-9
        else:
            assert got[i, j] == pytest.approx(want, rel=_scipy_tolerance(want))
