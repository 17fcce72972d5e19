"""Hostile cases: intervals and statistical tests that must refuse or warn."""

from __future__ import annotations

import json
import math
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hostile import assert_clean_error, scorekit, write
from scorekit import stats
from scorekit.api import CI, Paired
from scorekit.errors import ConfigError, InputError, UndefinedMetricWarning
from scorekit.stats import Replicated

BINARY = ["--task", "binary", "--true", "y"]


def _scores(tmp_path: Path, rows: int = 40) -> Path:
    rng = np.random.default_rng(7)
    lines = ["y,a,b"] + [f"{i % 2},{rng.random():.3f},{rng.random():.3f}" for i in range(rows)]
    return write(tmp_path / "scores.csv", lines)


def _texts(tmp_path: Path) -> tuple[Path, Path]:
    refs = write(tmp_path / "R", ["the cat sat on the mat", "a dog runs", "it is red"])
    hyps = write(tmp_path / "A", ["the cat sat on a mat", "a dog runs", "it is blue"])
    return refs, hyps


def _warnings(proc: object) -> list[str]:
    return [
        line
        for line in getattr(proc, "stderr", "").splitlines()
        if line.startswith("scorekit: warning: ")
    ]


# 1. an interval of one unit ------------------------------------------------------------


def test_ci_on_one_row_warns_and_gives_nan_bounds(tmp_path: Path) -> None:
    """[silent] ``--ci`` on one row gave the zero-width interval [1, 1]: no interval can be made
    from one unit (``stats.bootstrap`` refuses it), so the bounds are NaN, with a warning."""
    data = write(tmp_path / "one.csv", ["y,p", "1,1"])
    done = scorekit("eval", data, *BINARY, "--pred", "p", "--metric", "accuracy", "--ci")
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("accuracy"))
    assert row.split()[1:] == ["1.0000", "nan", "nan"], done.stdout
    assert _warnings(done) == [
        "scorekit: warning: bootstrap of accuracy: no interval can be made from 1 row "
        "(its bounds are NaN); got 1 row, expected at least 2 rows."
    ], done.stderr


def test_ci_of_a_one_row_group_warns_for_that_group(tmp_path: Path) -> None:
    """[silent] ``--ci --by`` with a group of one row: that group's bounds are NaN, named."""
    data = write(tmp_path / "g.csv", ["y,p,g", "1,1,a", "0,1,b", "1,0,b", "1,1,b"])
    done = scorekit(
        "eval", data, *BINARY, "--pred", "p", "--metric", "accuracy", "--ci", "--by", "g"
    )
    assert done.returncode == 0, done.stderr
    assert any(
        "group g='a': bootstrap of accuracy: no interval can be made from 1 row" in line
        for line in _warnings(done)
    ), done.stderr
    group_a = next(line for line in done.stdout.splitlines() if " a " in line)
    assert group_a.split()[4:6] == ["nan", "nan"], done.stdout


def test_ci_on_one_request_warns_and_gives_nan_bounds(tmp_path: Path) -> None:
    """[silent] ``throughput --ci`` of one request gave zero-width intervals: NaN, warned."""
    examples = Path(__file__).resolve().parents[2] / "examples" / "data" / "requests.jsonl"
    first = examples.read_text(encoding="utf-8").splitlines()[0]
    data = write(tmp_path / "one.jsonl", [first])
    done = scorekit("throughput", data, "--ci")
    assert done.returncode == 0, done.stderr
    row = [line for line in done.stdout.splitlines() if line.startswith("ttft ")][-1]
    assert row.split()[2:] == ["nan", "nan"], done.stdout
    assert (
        "scorekit: warning: bootstrap of ttft: no interval can be made from 1 request "
        "(its bounds are NaN); got 1 request, expected at least 2 requests."
    ) in _warnings(done), done.stderr


def test_bootstrap_and_interval_agree_on_one_unit() -> None:
    """[silent] ``stats.bootstrap`` refuses one unit; ``stats.interval`` of a one-unit state
    (what the commands fold) warns and gives NaN bounds instead of [value, value]."""
    with pytest.raises(InputError, match="too few rows to resample; got 1"):
        stats.bootstrap("accuracy", [1], [1])
    boot = CI(n_resamples=200).wrap("accuracy")
    state = boot.summarize([1], [1])
    with pytest.warns(UndefinedMetricWarning, match="no interval can be made from 1 row"):
        found = stats.interval(boot.compute(state))
    assert found.value == 1.0
    assert math.isnan(found.low) and math.isnan(found.high)


# 2. an interval of no replicates -------------------------------------------------------


@pytest.mark.parametrize(
    ("replicates", "cause"),
    [
        (np.zeros(0), "no replicates to make an interval from (its bounds are NaN); got 0"),
        (np.full(50, np.nan), "the value is undefined in every replicate"),
    ],
)
def test_interval_of_no_replicates_warns(replicates: np.ndarray, cause: str) -> None:
    """[silent] ``stats.interval`` of no (defined) replicates gave NaN bounds without a word."""
    result = Replicated(0.5, replicates, np.zeros(0), 100, "row")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = stats.interval(result)
    assert math.isnan(found.low) and math.isnan(found.high)
    assert [w.category for w in caught] == [UndefinedMetricWarning]
    assert cause in str(caught[0].message)
    assert "its bounds are NaN" in str(caught[0].message)


# 3. seeds -------------------------------------------------------------------------------

_BIG = 2**64 + 3
_SEED_RULE = "expected an integer in [0, 2**64)"


@pytest.mark.parametrize(
    "call",
    [
        lambda s: stats.bootstrap("accuracy", [1, 0] * 10, [1, 1] * 10, seed=s),
        lambda s: stats.bootstrap(
            "accuracy", [1, 0] * 10, [1, 1] * 10, seed=s, sampling="resample"
        ),
        lambda s: stats.compare("accuracy", [1, 0] * 10, [1, 1] * 10, [1, 0] * 10, seed=s),
        lambda s: stats.paired_bs(["a b", "c d"], [["a b", "c"], ["a", "c d"]], seed=s),
        lambda s: stats.paired_ar(["a b", "c d"], [["a b", "c"], ["a", "c d"]], seed=s),
        lambda s: stats.fisher_randomization([1.0, 2.0], [2.0, 1.0], seed=s),
        lambda s: CI(seed=s),
        lambda s: Paired(seed=s),
    ],
    ids=["bootstrap", "resample", "compare", "paired_bs", "paired_ar", "fisher", "CI", "Paired"],
)
def test_seed_of_2_64_and_above_is_refused(call) -> None:
    """[silent] A seed >= 2**64 was silently the same as ``seed mod 2**64``."""
    with pytest.raises(ConfigError, match="invalid seed") as info:
        call(_BIG)
    assert f"got {_BIG}, {_SEED_RULE}" in str(info.value)
    with pytest.raises(ConfigError, match="invalid seed"):
        call(-1)


def test_numpy_integer_seeds_are_seeds() -> None:
    """[silent] ``np.int64(3)`` was refused as "expected an integer"; it is the seed 3."""
    y, p = [0, 1, 1, 0, 1] * 8, [0, 1, 0, 0, 1] * 8
    for seed in (np.int64(3), np.uint64(3), np.int8(3)):
        assert stats.bootstrap("accuracy", y, p, seed=seed) == stats.bootstrap(
            "accuracy", y, p, seed=3
        )
        assert CI(seed=seed) == CI(seed=3) and type(CI(seed=seed).seed) is int
        assert Paired(seed=seed).seed == 3
    refs = ["the cat sat", "a dog runs", "it is red"]
    systems = [["the cat sat", "a dog", "it is"], ["a cat sat", "a dog runs", "it red"]]
    assert stats.paired_bs(refs, systems, n_samples=50, seed=np.int64(5)).results == (
        stats.paired_bs(refs, systems, n_samples=50, seed=5).results
    )
    [a] = stats.compare("accuracy", y, p, y, seed=np.uint64(2), n_resamples=200)
    [b] = stats.compare("accuracy", y, p, y, seed=2, n_resamples=200)
    assert a == b


@pytest.mark.parametrize("flags", [["--ci"], ["--test", "paired_bootstrap"]])
def test_seed_flag_of_2_64_is_refused(tmp_path: Path, flags: list[str]) -> None:
    """[silent] ``--seed 18446744073709551616`` gave the intervals of seed 0."""
    data = _scores(tmp_path)
    done = scorekit(
        "eval",
        data,
        *BINARY,
        "--score",
        "a",
        *(["b"] if "--test" in flags else []),
        "--metric",
        "roc_auc",
        *flags,
        "--seed",
        str(2**64),
    )
    assert_clean_error(done, "--seed: invalid seed", f"got {2**64}, {_SEED_RULE}.")


def test_paired_bs_seed_flag_of_2_64_is_refused(tmp_path: Path) -> None:
    """[silent] ``text --paired-bs --seed 2**64`` resampled as seed 0."""
    refs, hyps = _texts(tmp_path)
    done = scorekit(
        "text", "--refs", refs, "--hyps", hyps, hyps, "--paired-bs", "--seed", str(2**64)
    )
    assert_clean_error(done, "--seed: invalid seed", _SEED_RULE)


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_every_seed_below_2_64_is_accepted_as_itself(seed: int) -> None:
    """[silent] Every seed of [0, 2**64), Python or numpy, is taken as it is."""
    assert stats.check_seed(seed, "x") == seed
    assert stats.check_seed(np.uint64(seed), "x") == seed
    with pytest.raises(ConfigError, match=r"\[0, 2\*\*64\)"):
        stats.check_seed(seed + 2**64, "x")


# 4. sizes that run for minutes or allocate hundreds of GiB -----------------------------


@pytest.mark.parametrize(
    "flags",
    [
        ["--score", "a", "--ci"],
        ["--score", "a", "b", "--test", "paired_bootstrap"],
        ["--score", "a", "b", "--test", "randomization"],
        ["--score", "a", "b", "--test", "fisher", "--metric", "brier"],
    ],
    ids=["ci", "paired_bootstrap", "randomization", "fisher"],
)
def test_n_resamples_above_the_ceiling_is_refused(tmp_path: Path, flags: list[str]) -> None:
    """[hang] ``--n-resamples 100000000`` ran for hours: above 1,000,000 it is refused at once."""
    data = _scores(tmp_path)
    metric = [] if "--metric" in flags else ["--metric", "roc_auc"]
    start = time.monotonic()
    done = scorekit("eval", data, *BINARY, *flags, *metric, "--n-resamples", "100000000")
    assert_clean_error(
        done, "--n-resamples: invalid number of resamples", "got 100000000", "[1, 1,000,000]"
    )
    assert time.monotonic() - start < 30


@pytest.mark.parametrize("test", ["--paired-bs", "--paired-ar"])
def test_paired_text_n_resamples_above_the_ceiling_is_refused(tmp_path: Path, test: str) -> None:
    """[hang] ``text --paired-bs --n-resamples 1e8`` asked for a 2.2 GiB matrix per segment
    (MemoryError, or minutes): refused by flag."""
    refs, hyps = _texts(tmp_path)
    done = scorekit(
        "text", "--refs", refs, "--hyps", hyps, hyps, test, "--n-resamples", "100000000"
    )
    assert_clean_error(done, "--n-resamples", "got 100000000", "1,000,000")


def test_paired_text_index_matrix_above_the_memory_ceiling_is_refused(tmp_path: Path) -> None:
    """[hang] 1,000,000 resamples of 200 segments is 1.5 GiB of indices: refused by flag."""
    refs = write(tmp_path / "R", [f"w{i} x y" for i in range(200)])
    done = scorekit(
        "text", "--refs", refs, "--hyps", refs, refs, "--paired-bs", "--n-resamples", "1000000"
    )
    assert_clean_error(
        done, "--n-resamples: too many resamples for 200 segments", "1.5 GiB", "at most 671,088"
    )


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (
            lambda: stats.fisher_randomization(
                [0.1, 0.5, 0.9], [0.2, 0.4, 0.6], n_permutations=10**12
            ),
            "fisher_randomization: invalid n_permutations; got 1000000000000",
        ),
        (
            lambda: stats.paired_bs(["a b", "c d"], [["a b", "c"], ["a", "c d"]], n_samples=10**8),
            "paired test: invalid n_samples; got 100000000",
        ),
        (
            lambda: stats.paired_ar(
                ["a b", "c d"], [["a b", "c"], ["a", "c d"]], n_ar_confidence=10**8
            ),
            "paired test: invalid n_ar_confidence; got 100000000",
        ),
        (
            lambda: stats.bootstrap(
                "accuracy", [1, 0] * 10, [1, 1] * 10, n_resamples=10**8, sampling="resample"
            ),
            "bootstrap of accuracy: invalid n_resamples; got 100000000",
        ),
        (
            lambda: stats.bootstrap(
                "accuracy",
                [1, 0] * 100_000,
                [1, 1] * 100_000,
                n_resamples=10**4,
                sampling="resample",
            ),
            "bootstrap of accuracy: too many n_resamples for 200,000 rows",
        ),
        (
            lambda: stats.compare(
                "accuracy",
                [1, 0] * 100_000,
                [1, 1] * 100_000,
                [1, 0] * 100_000,
                test="randomization",
                n_resamples=10**4,
            ),
            "compare accuracy: too many n_resamples for 200,000 rows",
        ),
    ],
    ids=["fisher", "paired_bs", "n_ar_confidence", "bootstrap", "resample-cells", "randomization"],
)
def test_sizes_above_the_ceilings_are_refused_at_once(call, fragment: str) -> None:
    """[hang] ``fisher_randomization(n_permutations=10**12)`` ran for days, ``paired_bs(
    n_samples=10**8)`` and the resample index matrices raised MemoryError: refused first."""
    start = time.monotonic()
    with pytest.raises(ConfigError) as info:
        call()
    assert str(info.value).startswith(fragment), str(info.value)
    assert time.monotonic() - start < 10


def test_the_ceiling_is_in_the_help() -> None:
    """[hang] The help of ``--n-resamples`` says its ceilings."""
    done = scorekit("eval", "--help")
    assert done.returncode == 0, done.stderr
    assert "1,000,000" in " ".join(done.stdout.split())
    assert "134,217,728" in " ".join(done.stdout.split())


# 5. paired_t near the largest float ----------------------------------------------------


@pytest.mark.parametrize("test", [stats.paired_t, stats.wilcoxon, stats.fisher_randomization])
def test_tests_of_differences_near_1e308(test) -> None:
    """[silent] ``paired_t`` of values near 1e308 returned NaN with numpy's RuntimeWarning: the
    differences are scaled, and the result is the result of the scaled values."""
    a = np.array([1.5e308, -1e308, 1e308, 0.9e308])
    b = np.array([-1.5e308, 1e308, -0.5e308, 1e308])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = test(a, b)
    scaled = test(a / 1e300, b / 1e300)
    assert math.isfinite(found.statistic) and math.isfinite(found.pvalue)
    assert found.pvalue == pytest.approx(scaled.pvalue, rel=1e-12)
    if test is not stats.fisher_randomization:
        assert found.statistic == pytest.approx(scaled.statistic, rel=1e-12)
    else:
        assert found.statistic == pytest.approx(scaled.statistic * 1e300, rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.floats(-1.0, 1.0), st.floats(-1.0, 1.0)), min_size=2, max_size=30).filter(
        lambda pairs: len({a - b for a, b in pairs}) > 1
    )
)
def test_paired_t_does_not_depend_on_the_scale(pairs: list[tuple[float, float]]) -> None:
    """[silent] t of values scaled up to 1e308 is t of the values (no overflow to NaN)."""
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        big = stats.paired_t(a * 1.7e308, b * 1.7e308)
    small = stats.paired_t(a, b)
    assert math.isfinite(big.pvalue)
    assert big.pvalue == pytest.approx(small.pvalue, rel=1e-6, abs=1e-12)


# 6. per-unit tests of a metric with no value per unit ---------------------------------


def test_compare_roc_auc_with_a_per_row_test_names_the_tests_that_apply() -> None:
    """[crash] ``compare(roc_auc, ..., test="t")`` blamed paired_t's argument ``a`` (a NaN):
    ROC AUC has no value on one row, and the tests of the corpus value apply."""
    rng = np.random.default_rng(1)
    y = [0, 1] * 20
    a, b = rng.random(40), rng.random(40)
    for test in ("t", "wilcoxon", "fisher"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(ConfigError) as info:
                stats.compare("roc_auc", y, a, b, test=test)
        text = str(info.value)
        assert text.startswith("compare roc_auc: roc_auc has no value per row"), text
        assert "per-row tests (t, wilcoxon, fisher, tukey)" in text
        assert f"got test {test!r}" in text
        assert "'paired_bootstrap', 'randomization', 'delong'" in text
        assert "paired_t" not in text


def test_cli_per_row_test_of_roc_auc_is_refused(tmp_path: Path) -> None:
    """[crash] ``eval --score a b --test t --metric roc_auc`` said ``paired_t: a contains nan``."""
    data = _scores(tmp_path)
    done = scorekit(
        "eval", data, *BINARY, "--score", "a", "b", "--test", "t", "--metric", "roc_auc"
    )
    assert_clean_error(done, "roc_auc has no value per row", "'delong'")
    assert "paired_t" not in done.stderr


# 7. a system compared with itself ------------------------------------------------------


@pytest.mark.parametrize(("test", "p"), [("--paired-bs", "0.0010"), ("--paired-ar", "0.0001")])
def test_a_system_compared_with_itself_is_warned_about(tmp_path: Path, test: str, p: str) -> None:
    """[silent] ``--hyps A A --paired-bs`` marked A significantly different from itself
    (sacrebleu counts ``d* > d``): sacrebleu's numbers stay, with a warning naming the systems."""
    _texts(tmp_path)
    done = scorekit("text", "--refs", "R", "--hyps", "A", "A", test, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"(p = {p})*" in done.stdout, done.stdout
    found = _warnings(done)
    assert len(found) == 1, done.stderr
    assert "every difference from the baseline 'A (0)' is zero for 'A (1)'" in found[0]
    assert "marked significant" in found[0]


def test_paired_bs_warns_only_about_identical_systems() -> None:
    """[silent] One UserWarning names the systems with no difference, and only them."""
    refs = ["the cat sat on the mat", "a dog runs", "it is red", "go home now"]
    base = ["the cat sat on a mat", "a dog runs", "it is blue", "go home"]
    other = ["a cat is on the mat", "dogs run", "it is red", "now go home"]
    systems = {"base": base, "same": list(base), "other": other}
    with pytest.warns(UserWarning) as caught:
        test = stats.paired_bs(refs, systems, n_samples=100, metrics=["bleu", "chrf"])
    texts = [str(w.message) for w in caught]
    assert len(texts) == 1
    assert "'same'" in texts[0] and "'other'" not in texts[0]
    assert test.results["BLEU"][1].p_value == pytest.approx(1 / 101)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        stats.paired_bs(refs, {"base": base, "other": other}, n_samples=100)


def test_bootstrap_metric_takes_numpy_seeds_and_refuses_seeds_past_64_bits() -> None:
    """[silent] ``Bootstrap(..., seed=np.int64(3))`` was refused; ``seed=2**64`` was ``seed 0``."""
    import numpy as np

    from scorekit.stats import Bootstrap

    assert Bootstrap("accuracy", seed=np.int64(3)).seed == 3
    with pytest.raises(ConfigError, match=r"invalid seed; got 18446744073709551616"):
        Bootstrap("accuracy", seed=2**64)


def test_t_test_interval_column_is_filled_where_it_means_the_difference(tmp_path: Path) -> None:
    """[silent] ``--test t`` left the interval of the difference empty."""
    import numpy as np
    import scipy.stats

    rng = np.random.default_rng(5)
    y = rng.normal(size=60)
    a, b = y + rng.normal(size=60), y + 0.5 * rng.normal(size=60)
    data = tmp_path / "s.csv"
    rows = [
        f"{t!r},{p!r},{q!r}" for t, p, q in zip(y.tolist(), a.tolist(), b.tolist(), strict=True)
    ]
    data.write_text("y,a,b\n" + "\n".join(rows) + "\n", encoding="utf-8")
    args = ["eval", data, "--task", "regression", "--true", "y", "--pred", "a", "b"]
    done = scorekit(*args, "--test", "t", "--metric", "mae", "rmse", "--format", "json")
    assert done.returncode == 0, done.stderr
    found = {c["metric"]: c for c in json.loads(done.stdout)["comparisons"]}
    ref = scipy.stats.ttest_rel(np.abs(b - y), np.abs(a - y)).confidence_interval(0.95)
    assert found["mae"]["low"] == pytest.approx(ref.low, rel=1e-12)
    assert found["mae"]["high"] == pytest.approx(ref.high, rel=1e-12)
    # RMSE is not the mean of its per-row values: no interval of the mean difference
    assert found["rmse"]["low"] is None and found["rmse"]["high"] is None
