"""One-sided alternatives and Wilcoxon's options of the paired tests, against scipy; the
one-sided resampled tests of ``stats.compare``; ``--alternative`` and test options on the
commands."""

import itertools
import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from scorekit import stats
from scorekit.api import Paired
from scorekit.cli import main
from scorekit.errors import ConfigError, InputError
from scorekit.stats._compare import _t_interval
from scorekit.stats._distributions import normal_tail, student_t_tail
from scorekit.stats._paired import fisher_randomization, paired_t, wilcoxon

ALTERNATIVES = ("two-sided", "greater", "less")
RTOL = 1e-12

grid = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])
floats = st.floats(-100, 100, allow_nan=False, allow_subnormal=False)


@st.composite
def paired(draw, sizes):
    n = draw(sizes)
    values = draw(st.sampled_from([grid, floats]))
    a = draw(st.lists(values, min_size=n, max_size=n))
    b = draw(st.lists(values, min_size=n, max_size=n))
    return np.array(a), np.array(b)


def close(got, want, rtol=RTOL, atol=0.0):
    return math.isclose(got, want, rel_tol=rtol, abs_tol=atol)


# --- tails -------------------------------------------------------------------------------


@pytest.mark.parametrize("df", [1, 2, 5, 30, 1000])
def test_one_sided_tails_match_scipy(df):
    for t in (-40.0, -3.0, -0.5, 0.0, 1e-3, 0.7, 2.5, 12.0, 1e6):
        assert close(student_t_tail(t, df), sps.t.sf(t, df), rtol=2e-12, atol=1e-16)
    for z in (-9.0, -1.0, 0.0, 0.3, 2.0, 8.0, 30.0):
        assert close(normal_tail(z), sps.norm.sf(z), atol=1e-16)


# --- paired t ----------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(paired(st.integers(2, 40)), st.sampled_from(ALTERNATIVES))
@example((np.array([0.5, 0.6, 0.7, 0.8]), np.array([0.4, 0.6, 0.5, 0.6])), "less")
def test_paired_t_alternatives_match_scipy(data, alternative):
    a, b = data
    d = a - b
    if not d.any() or (d == d[0]).all():
        return  # identical or constant differences: see the edge cases
    got = paired_t(a, b, alternative=alternative)
    want = sps.ttest_rel(a, b, alternative=alternative)
    if not np.isfinite(want.statistic):
        return  # squared deviations underflow in scipy (documented): test_stats_paired
    assert close(got.statistic, want.statistic, rtol=1e-9)
    # a p-value near 1 is 1 minus the small tail: compare absolutely there
    assert close(got.pvalue, want.pvalue, rtol=1e-9, atol=1e-14), (got, want)


@settings(max_examples=60, deadline=None)
@given(
    paired(st.integers(2, 40)),
    st.sampled_from(ALTERNATIVES),
    st.sampled_from([0.5, 0.9, 0.95, 0.99]),
)
def test_t_interval_matches_scipy_for_each_alternative(data, alternative, confidence):
    a, b = data
    d = a - b
    if not d.any() or (d == d[0]).all():
        return
    low, high = _t_interval(d, confidence, alternative)
    want = sps.ttest_rel(a, b, alternative=alternative).confidence_interval(confidence)
    spread = float(np.std(d)) + 1e-300
    for got_bound, want_bound in ((low, want.low), (high, want.high)):
        if math.isinf(want_bound):
            assert got_bound == want_bound
        else:
            assert abs(got_bound - want_bound) <= 1e-9 * spread + 1e-12 * abs(want_bound)


def test_compare_gives_the_t_interval_of_the_alternative():
    rng = np.random.default_rng(2)
    y = rng.random(30)
    a, b = y + rng.normal(0, 0.2, 30), y + rng.normal(0, 0.1, 30)
    base, other = np.abs(y - a), np.abs(y - b)
    for alternative in ALTERNATIVES:
        [c] = stats.compare("mae", y, a, b, test="t", alternative=alternative, confidence=0.9)
        want = sps.ttest_rel(other, base, alternative=alternative)
        interval = want.confidence_interval(0.9)
        assert close(c.pvalue, want.pvalue, rtol=1e-9)
        assert c.alternative == alternative and c.test == "t"
        assert c.low == pytest.approx(interval.low, rel=1e-9)
        assert c.high == pytest.approx(interval.high, rel=1e-9)


def test_paired_t_edge_cases():
    for alternative in ALTERNATIVES:
        assert paired_t([1, 2, 3], [1, 2, 3], alternative=alternative).pvalue == 1.0
    assert paired_t([2, 3, 4], [1, 2, 3], alternative="greater").pvalue == 0.0
    assert paired_t([2, 3, 4], [1, 2, 3], alternative="less").pvalue == 1.0
    assert paired_t([0, 1, 2], [1, 2, 3], alternative="less").pvalue == 0.0
    assert _t_interval(np.zeros(4), 0.95, "greater") == (0.0, math.inf)
    assert _t_interval(np.zeros(4), 0.95, "less") == (-math.inf, 0.0)


# --- Wilcoxon ----------------------------------------------------------------------------

OPTIONS = list(
    itertools.product(("wilcox", "pratt", "zsplit"), ("auto", "exact", "asymptotic"), (False, True))
)


def _check_wilcoxon(a, b, alternative, zero_method, method, correction):
    got = wilcoxon(
        a,
        b,
        alternative=alternative,
        zero_method=zero_method,
        method=method,
        correction=correction,
    )
    if not (np.asarray(a) - np.asarray(b)).any():
        assert got.pvalue == 1.0
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = sps.wilcoxon(
            a,
            b,
            alternative=alternative,
            zero_method=zero_method,
            method=method,
            correction=correction,
        )
    assert got.statistic == want.statistic, (got, want)
    # exact tails: scipy sums float probabilities (one tail as 1 minus the other)
    assert close(got.pvalue, want.pvalue, atol=2e-15), (got, want)


# scipy's permutation branch (zeros or ties, 10 <= n <= 13) takes seconds: checked once below
@settings(max_examples=60, deadline=None)
@given(
    paired(st.integers(2, 9) | st.integers(14, 60)),
    st.sampled_from(ALTERNATIVES),
    st.sampled_from(OPTIONS),
)
def test_wilcoxon_options_match_scipy(data, alternative, options):
    _check_wilcoxon(*data, alternative, *options)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("zero_method", ["pratt", "zsplit"])
def test_wilcoxon_permutation_branch_with_zeros(alternative, zero_method):
    rng = np.random.default_rng(11)
    a = rng.random(11)
    b = a - rng.choice([0.0, 0.5, -0.25, 0.75], 11)
    _check_wilcoxon(a, b, alternative, zero_method, "auto", False)


@pytest.mark.parametrize("method", ["exact", "asymptotic"])
def test_wilcoxon_large_samples(method):
    # exact beyond 62 non-zero differences sums probabilities rather than counts
    rng = np.random.default_rng(1)
    a = rng.random(90)
    b = a - rng.normal(0.05, 0.3, 90)
    for alternative in ALTERNATIVES:
        _check_wilcoxon(a, b, alternative, "wilcox", method, False)


def test_wilcoxon_edge_cases():
    same = np.linspace(0, 1, 20)
    for alternative, (zero_method, method, correction) in itertools.product(ALTERNATIVES, OPTIONS):
        got = wilcoxon(
            same,
            same,
            alternative=alternative,
            zero_method=zero_method,
            method=method,
            correction=correction,
        )
        assert got.pvalue == 1.0
    # zsplit: every zero's rank split between R+ and R-, as scipy
    assert wilcoxon([1, 2, 3], [1, 2, 3], zero_method="zsplit").statistic == 3.0
    # every difference tied
    for alternative in ALTERNATIVES:
        _check_wilcoxon([0.5] * 20, [0.25] * 20, alternative, "wilcox", "auto", True)
        _check_wilcoxon([0.5] * 8, [0.25] * 8, alternative, "pratt", "exact", False)
    # one sign everywhere: the one-sided exact p-value is 2**-n
    assert wilcoxon(np.arange(20.0) + 1, np.zeros(20), alternative="greater").pvalue == 2.0**-20
    assert wilcoxon(np.arange(20.0) + 1, np.zeros(20), alternative="less").pvalue == 1.0


# --- Fisher's randomization ------------------------------------------------------------------


def _exact_one_sided(a, b, alternative):
    d = np.asarray(a) - np.asarray(b)
    tol = 1e-12 * np.abs(d).sum()
    flips = np.array(list(itertools.product([1.0, -1.0], repeat=len(d)))) @ d
    if alternative == "greater":
        return np.mean(flips >= d.sum() - tol)
    return np.mean(flips <= d.sum() + tol)


@settings(max_examples=20, deadline=None)
@given(paired(st.integers(2, 10)), st.sampled_from(["greater", "less"]), st.integers(0, 2**32 - 1))
def test_fisher_one_sided_estimates_the_exact_enumeration(data, alternative, seed):
    a, b = data
    exact = _exact_one_sided(a, b, alternative)
    got = fisher_randomization(a, b, n_permutations=4000, seed=seed, alternative=alternative)
    se = math.sqrt(exact * (1 - exact) / 4000)
    assert abs(got.pvalue - exact) <= 6 * se + 1e-12


def test_fisher_one_sided_tails_share_the_permutations():
    rng = np.random.default_rng(4)
    a, b = rng.random(12), rng.random(12)
    runs = {
        alt: fisher_randomization(a, b, n_permutations=5000, seed=3, alternative=alt).pvalue
        for alt in ALTERNATIVES
    }
    # the same sign flips: every permutation is at least or at most the observed sum
    assert runs["greater"] + runs["less"] >= 1.0
    # the two-sided count holds the one-sided count on the observed side
    side = "greater" if (a - b).sum() > 0 else "less"
    assert runs["two-sided"] >= runs[side]
    for alt in ALTERNATIVES:
        assert fisher_randomization(a, a, alternative=alt).pvalue == 1.0


# --- the resampled tests of compare -----------------------------------------------------------


@pytest.mark.parametrize("test", ["paired_bootstrap", "randomization", "fisher"])
def test_one_sided_resampled_tests_point_the_right_way(test):
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 200)
    worse = np.where(rng.random(200) < 0.35, 1 - y, y)
    better = np.where(rng.random(200) < 0.15, 1 - y, y)
    found = {
        alt: stats.compare(
            "accuracy", y, worse, better, test=test, n_resamples=400, seed=1, alternative=alt
        )[0]
        for alt in ALTERNATIVES
    }
    assert found["greater"].pvalue < 0.01 < 0.99 < found["less"].pvalue
    assert found["two-sided"].pvalue < 0.02
    if test == "paired_bootstrap":
        assert found["greater"].high == math.inf and found["greater"].low > 0
        assert found["less"].low == -math.inf and found["less"].high > found["greater"].low


def test_paired_bootstrap_one_sided_counts():
    # the same replicates: #{c >= d} + #{c <= d} = B + #{c == d}, each p-value (count + 1) / (B + 1)
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 60)
    a = np.where(rng.random(60) < 0.3, 1 - y, y)
    b = np.where(rng.random(60) < 0.25, 1 - y, y)
    runs = {
        alt: stats.compare(
            "accuracy", y, a, b, test="paired_bootstrap", n_resamples=300, seed=2, alternative=alt
        )[0]
        for alt in ALTERNATIVES
    }
    total = (runs["greater"].pvalue + runs["less"].pvalue) * 301 - 2
    assert 300 <= round(total) <= 301 + 300 and abs(total - round(total)) < 1e-9
    assert runs["two-sided"].low < runs["greater"].low < runs["two-sided"].high


def test_randomization_one_sided_on_a_ranking_metric():
    qrels = {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}, "q3": {"d4": 1}, "q4": {"d5": 1}}
    good = {q: dict.fromkeys(docs, 2.0) | {"x": 1.0, "y": 0.5} for q, docs in qrels.items()}
    bad = {q: dict.fromkeys(docs, 0.1) | {"x": 1.0, "y": 0.5} for q, docs in qrels.items()}
    for test in ("randomization", "t", "wilcoxon", "fisher"):
        greater, less = (
            stats.compare("map", qrels, bad, good, test=test, alternative=alt, n_resamples=200)[0]
            for alt in ("greater", "less")
        )
        assert greater.pvalue < less.pvalue, test


# --- settings and errors -------------------------------------------------------------------


def test_parse_test():
    assert stats.parse_test("wilcoxon:zero_method=zsplit, method=exact,correction=TRUE") == (
        "wilcoxon",
        {"zero_method": "zsplit", "method": "exact", "correction": True},
    )
    assert stats.parse_test("tukey") == ("tukey", {})
    for bad, text in [
        ("wilcoxon:zero_method=zero", "unknown zero_method"),
        ("wilcoxon:correction=1", "unknown correction"),
        ("wilcoxon:exact", "unknown option"),
        ("t:method=exact", "takes no options"),
        ("anova", "unknown test"),
        (3, "named by a string"),
    ]:
        with pytest.raises(ConfigError, match=text):
            stats.parse_test(bad)


def test_compare_runs_wilcoxon_options():
    rng = np.random.default_rng(6)
    y = rng.random(25)
    a = np.round(y + rng.normal(0, 0.2, 25), 1)
    b = np.round(y + rng.normal(0, 0.1, 25), 1)
    [c] = stats.compare(
        "mae", y, a, b, test="wilcoxon:zero_method=pratt,correction=true", alternative="less"
    )
    want = sps.wilcoxon(
        np.abs(y - b), np.abs(y - a), zero_method="pratt", correction=True, alternative="less"
    )
    assert close(c.pvalue, want.pvalue) and c.test == "wilcoxon"


@pytest.mark.parametrize(
    ("call", "error", "text"),
    [
        (
            lambda: paired_t([1, 2], [2, 1], alternative="bigger"),
            ConfigError,
            "unknown alternative",
        ),
        (lambda: wilcoxon([1, 2], [2, 1], zero_method="drop"), ConfigError, "unknown zero_method"),
        (lambda: wilcoxon([1, 2], [2, 1], method="permutation"), ConfigError, "unknown method"),
        (lambda: wilcoxon([1, 2], [2, 1], correction="yes"), ConfigError, "must be a bool"),
        (
            lambda: fisher_randomization([1, 2], [2, 1], alternative=None),
            ConfigError,
            "alternative",
        ),
        (lambda: paired_t([1.0], [2.0], alternative="less"), InputError, "too few units"),
        (lambda: wilcoxon([], [], alternative="greater"), InputError, "too few units"),
        (
            lambda: wilcoxon([1, np.nan, 2], [1, 2, 3], alternative="less"),
            InputError,
            "contains nan",
        ),
        (
            lambda: paired_t([1, 2, 3], [1, np.inf, 3], alternative="greater"),
            InputError,
            "contains inf",
        ),
        (
            lambda: stats.compare(
                "accuracy", [0, 1], [0, 1], [1, 1], test="mcnemar", alternative="less"
            ),
            ConfigError,
            "two-sided only",
        ),
        (
            lambda: stats.compare("accuracy", [0, 1], [0, 1], [1, 1], alternative="more"),
            ConfigError,
            "unknown alternative",
        ),
        (lambda: Paired("delong", alternative="greater"), ConfigError, "two-sided only"),
        (lambda: Paired("t", alternative="up"), ConfigError, "unknown alternative"),
        (lambda: Paired("wilcoxon:method=fast"), ConfigError, "unknown method"),
    ],
)
def test_bad_settings_raise_clear_errors(call, error, text):
    with pytest.raises(error, match=text):
        call()


# --- the commands ------------------------------------------------------------------------------


def _run(capsys: Any, *argv: Any) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def table(tmp_path_factory: Any) -> tuple[Path, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(11)
    y = rng.random(40)
    a = np.round(y + rng.normal(0, 0.3, 40), 2)
    b = np.round(y + rng.normal(0.05, 0.2, 40), 2)
    path = Path(tmp_path_factory.mktemp("alternatives")) / "preds.csv"
    rows = ["y,a,b"] + [f"{float(y[i])!r},{float(a[i])!r},{float(b[i])!r}" for i in range(40)]
    path.write_text("\n".join(rows) + "\n")
    return path, y, a, b


REGRESSION = ["--task", "regression", "--true", "y", "--pred", "a", "b", "--metric", "mae"]


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_eval_alternative_end_to_end(capsys, table, alternative):
    path, y, a, b = table
    code, out, err = _run(
        capsys,
        "eval",
        path,
        *REGRESSION,
        "--test",
        "t",
        "--alternative",
        alternative,
        "--format",
        "json",
    )
    assert code == 0, err
    [row] = json.loads(out)["comparisons"]
    want = sps.ttest_rel(np.abs(y - b), np.abs(y - a), alternative=alternative)
    assert close(row["pvalue"], want.pvalue, rtol=1e-9)
    interval = want.confidence_interval(0.95)
    for key, bound in (("low", interval.low), ("high", interval.high)):
        assert (row[key] is None) if math.isinf(bound) else close(row[key], bound, rtol=1e-9)


def test_eval_wilcoxon_options_end_to_end(capsys, table):
    path, y, a, b = table
    code, out, err = _run(
        capsys,
        "eval",
        path,
        *REGRESSION,
        "--test",
        "wilcoxon:zero_method=zsplit,method=asymptotic",
        "--alternative",
        "greater",
        "--format",
        "json",
    )
    assert code == 0, err
    [row] = json.loads(out)["comparisons"]
    want = sps.wilcoxon(
        np.abs(y - b),
        np.abs(y - a),
        zero_method="zsplit",
        method="asymptotic",
        alternative="greater",
    )
    assert close(row["pvalue"], want.pvalue)


def test_rank_takes_the_alternative_through_the_shared_flags(capsys):
    root = Path(__file__).resolve().parent.parent / "examples"
    args = [root / "data" / "qrels.txt", root / "data" / "run.txt", root / "runs" / "rerank.txt"]
    found = {}
    for alternative in ("greater", "less"):
        code, out, err = _run(
            capsys,
            "rank",
            *args,
            "-m",
            "map",
            "--test",
            "t",
            "--alternative",
            alternative,
            "--format",
            "json",
        )
        assert code == 0, err
        found[alternative] = json.loads(out)["comparisons"][0]["pvalue"]
    assert found["greater"] < 0.001 and close(found["greater"] + found["less"], 1.0, atol=1e-12)


@pytest.mark.parametrize(
    ("flags", "text"),
    [
        (["--alternative", "less"], "--alternative without --test"),
        (["--test", "mcnemar", "--alternative", "less"], "two-sided only"),
        (["--test", "tukey", "--correction", "holm"], "adjusted for every pair"),
    ],
)
def test_eval_refuses_alternatives_that_do_not_apply(capsys, table, flags, text):
    path = table[0]
    args = ["--task", "regression", "--true", "y", "--pred", "a", "--metric", "mae"]
    if "--test" in flags:
        args[5:6] = ["a", "b"]
    code, out, err = _run(capsys, "eval", path, *args, *flags)
    assert code == 2 and out == "" and text in err and "Traceback" not in err


def test_eval_refuses_an_unknown_test_option(capsys, table):
    code, _, err = _run(capsys, "eval", table[0], *REGRESSION, "--test", "wilcoxon:ties=drop")
    assert code == 2 and "unknown option of the test 'wilcoxon'" in err


def test_the_comparison_report_names_the_alternative(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    pytest.importorskip("jinja2")
    root = Path(__file__).resolve().parent.parent / "examples"
    out = tmp_path / "rank.html"
    args = [root / "data" / "qrels.txt", root / "data" / "run.txt", root / "runs" / "rerank.txt"]
    code, _, err = _run(
        capsys, "rank", *args, "-m", "map", "--test", "t", "--alternative", "less", "--report", out
    )
    assert code == 0, err
    assert "Test: t, one-sided (alternative: less)" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("alternative", "bounds"), [("greater", "[{}, inf)"), ("less", "(-inf, {}]")]
)
def test_the_table_and_json_say_the_test_is_one_sided(capsys, table, alternative, bounds):
    path, *_ = table
    base = ["eval", path, *REGRESSION, "--test", "wilcoxon:zero_method=pratt"]
    code, out, err = _run(capsys, *base[:-1], "t", "--alternative", alternative)
    assert code == 0, err
    assert f"paired t-test, one-sided ({alternative}); * p < 0.05" in out
    row = out.splitlines()[3]
    interval = row.split("  ")
    assert any(cell.strip().startswith(bounds.split("{}")[0]) for cell in interval), row
    assert bounds.split("{}")[1] in row
    code, out, err = _run(capsys, *base, "--alternative", alternative, "--format", "json")
    assert code == 0, err
    assert json.loads(out)["alternative"] == alternative
    code, out, err = _run(capsys, *base)
    assert code == 0, err
    assert out.rstrip().endswith("Wilcoxon signed-rank test; * p < 0.05")


def test_sacrebleus_paired_tests_refuse_the_alternative(capsys, tmp_path):
    refs, hyp_a, hyp_b = (tmp_path / name for name in ("r.txt", "a.txt", "b.txt"))
    refs.write_text("the cat sat\na dog ran\n")
    hyp_a.write_text("the cat sat\na dog\n")
    hyp_b.write_text("a cat sat\na dog ran\n")
    command = ["text", "--refs", refs, "--hyps", hyp_a, hyp_b, "-m", "bleu", "--paired-bs"]
    code, out, err = _run(capsys, *command, "--alternative", "greater")
    assert code == 2 and out == ""
    assert "--alternative is for scorekit's comparisons; --paired-bs is sacrebleu's test" in err
