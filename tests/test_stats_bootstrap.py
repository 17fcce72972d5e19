"""stats.bootstrap and the Bootstrap metric: intervals, reproducibility, scales and errors."""

from __future__ import annotations

import math
import re
import warnings
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import evaluate, stats
from scorekit.core import State
from scorekit.engines import resolve
from scorekit.engines.dask import dask_states
from scorekit.errors import ConfigError, InputError, StateMismatchError, UndefinedMetricWarning
from scorekit.stats import Bootstrap
from scorekit.stats._poisson import hash_keys, poisson_weights


def _binary(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return y, rng.normal(size=n) + y


# the generator ----------------------------------------------------------------------------


def test_poisson_weights_have_the_poisson_distribution_and_do_not_depend_on_the_batch() -> None:
    keys = np.arange(200_000, dtype=np.uint64)
    w = poisson_weights(3, keys, 0, 5)
    counts = np.bincount(w.ravel(), minlength=6)[:6] / w.size
    expected = [math.exp(-1) / math.factorial(k) for k in range(6)]
    assert np.allclose(counts, expected, atol=2e-3)
    # a unit's weights depend on its key only, not on the other keys or the replicate range
    assert np.array_equal(poisson_weights(3, keys[1000:1010], 2, 4), w[2:4, 1000:1010])
    assert not np.array_equal(poisson_weights(4, keys[:100], 0, 1), w[:1, :100])
    # replicates are not correlated with each other
    assert abs(np.corrcoef(w[0].astype(float), w[1].astype(float))[0, 1]) < 0.01


def test_keys_hash_as_text() -> None:
    assert np.array_equal(hash_keys([1, 22, 333], "x"), hash_keys(["1", "22", "333"], "x"))
    assert len(set(hash_keys(["a", "b", "ab", "ba", "é", ""], "x").tolist())) == 6
    with pytest.raises(InputError, match="floats"):
        hash_keys([1.5, 2.5], "bootstrap")


# intervals ----------------------------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(8, 40),
    method=st.sampled_from(["percentile", "basic", "bca"]),
)
def test_resampled_intervals_equal_scipy_on_the_same_replicates(
    seed: int, n: int, method: str
) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    y = x + rng.normal(size=n)
    ci = stats.bootstrap(
        "mse", x, y, n_resamples=200, seed=seed, sampling="resample", method=method
    )
    # scipy's interval from the same replicates, and its jackknife (n <= groups: exact)
    squared = (x - y) ** 2
    index = np.random.default_rng(seed).choice(n, size=(200, n), replace=True)
    assert np.allclose(ci.replicates, squared[index].mean(1), rtol=1e-12)
    theta = squared.mean()
    alpha = 0.025
    if method == "percentile":
        want = np.percentile(ci.replicates, [2.5, 97.5])
    elif method == "basic":
        q = np.percentile(ci.replicates, [2.5, 97.5])
        want = 2 * theta - q[::-1]
    else:
        loo = (squared.sum() - squared) / (n - 1)
        # replicates equal to the estimate count half below, as in SciPy
        below = np.mean(ci.replicates < theta) + np.mean(ci.replicates == theta) / 2
        z0 = scipy.stats.norm.ppf(below)
        d = loo.mean() - loo
        a = (d**3).sum() / (6 * ((d**2).sum()) ** 1.5)
        z = scipy.stats.norm.ppf([alpha, 1 - alpha])
        levels = scipy.stats.norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))
        want = np.percentile(ci.replicates, levels * 100)
    assert np.allclose([ci.low, ci.high], want, rtol=1e-9)


def test_bca_agrees_with_scipy_bootstrap_within_monte_carlo_error() -> None:
    rng = np.random.default_rng(5)
    x = rng.exponential(size=60)
    y = np.zeros(60)
    ours = stats.bootstrap("mse", x, y, n_resamples=4000, method="bca", seed=1)
    theirs = scipy.stats.bootstrap(
        ((x - y) ** 2,), np.mean, n_resamples=4000, method="BCa", random_state=1
    ).confidence_interval
    spread = theirs.high - theirs.low
    assert abs(ours.low - theirs.low) < 0.1 * spread
    assert abs(ours.high - theirs.high) < 0.1 * spread


def test_coverage_of_the_poisson_percentile_interval_is_near_nominal() -> None:
    """Queries answered right at rank 1 with probability 0.6: 95% intervals of P@1 cover 0.6.

    1,000 simulated evaluations of 200 queries each; the share of intervals that
    cover the truth lands within 2 points of 95% (its standard error here is
    0.7 points).
    """
    truth, queries, trials = 0.6, 200, 1000
    qrels = {f"q{i}": {"good": 1} for i in range(queries)}
    rng = np.random.default_rng(2026)
    hits = rng.random((trials, queries)) < truth
    covered = 0
    for trial in range(trials):
        run = {
            f"q{i}": {"good": 2.0, "bad": 1.0} if hit else {"good": 1.0, "bad": 2.0}
            for i, hit in enumerate(hits[trial].tolist())
        }
        ci = stats.bootstrap("p@1", qrels, run, n_resamples=500, seed=trial)
        covered += ci.low <= truth <= ci.high
    assert abs(covered / trials - 0.95) <= 0.02


# every scale --------------------------------------------------------------------------------


def test_chunks_merged_states_and_a_file_give_the_same_interval(tmp_path: Any) -> None:
    y, s = _binary(1500, 1)
    ids = np.array([f"row{i}" for i in range(1500)])
    boot = Bootstrap("roc_auc", n_resamples=30, seed=2)
    whole = boot.compute(boot.summarize(y, s))
    table = pa.table({"y_true": y, "y_score": s, "id": ids})
    path = tmp_path / "scores.parquet"
    import pyarrow.parquet as pq

    pq.write_table(table, path, row_group_size=400)
    for source, chunk in ((table, 499), (str(path), 256)):
        got = evaluate(source, [boot], chunk_size=chunk, progress=False).values["roc_auc"]
        assert np.array_equal(got.replicates, whole.replicates)
        assert np.array_equal(got.jackknife, whole.jackknife)
    # shards read separately need a key; by key, shards merge in any order
    keyed = Bootstrap("roc_auc", n_resamples=30, seed=2, key="id")
    parts = [keyed.summarize(y[a:b], s[a:b], unit_key=ids[a:b]) for a, b in ((0, 600), (600, 1500))]
    merged = State.from_json(parts[1].to_json()).merge(parts[0])
    again = keyed.compute(keyed.summarize(y, s, unit_key=ids))
    assert np.array_equal(keyed.compute(merged).replicates, again.replicates)
    unkeyed = [boot.summarize(y[a:b], s[a:b]) for a, b in ((0, 600), (600, 1500))]
    with pytest.raises(StateMismatchError, match=r"same row positions.*key column"):
        unkeyed[0].merge(unkeyed[1])


def test_dask_with_a_key_column_equals_in_memory(dask_cluster: Any) -> None:
    y, s = _binary(600, 3)
    ids = np.array([f"r{i}" for i in range(600)])
    table = pa.table({"y_true": y, "y_score": s, "y_pred": (s > 0.5).astype(int), "id": ids})
    metrics = [
        Bootstrap("roc_auc", n_resamples=20, seed=9, key="id", groups=4),
        Bootstrap("f1", n_resamples=20, seed=9, key="id", groups=4),
    ]
    mapping = resolve(metrics, None, table.column_names)
    states, rows = dask_states(
        table, metrics, mapping, scheduler=dask_cluster.scheduler_address, partition_hint=150
    )
    assert rows == 600
    for metric, state in zip(metrics, states, strict=True):
        inputs = (y, s) if metric.metric == "roc_auc" else (y, (s > 0.5).astype(int))
        want = metric.compute(metric.summarize(*inputs, unit_key=ids))
        got = metric.compute(state)
        assert got.value == want.value
        assert np.allclose(got.replicates, want.replicates, rtol=1e-12)
    # without a key, partitions do not know their rows' positions: a clear error
    plain = [Bootstrap("roc_auc", n_resamples=5)]
    with pytest.raises(ConfigError, match=r"do not know the positions of their rows.*key=COL"):
        dask_states(
            table,
            plain,
            resolve(plain, None, table.column_names),
            scheduler=dask_cluster.scheduler_address,
            partition_hint=150,
        )


def test_ranking_units_are_queries() -> None:
    rng = np.random.default_rng(4)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(6)} for i in range(30)}
    run = {q: {f"d{j}": float(rng.random()) for j in range(8)} for q in qrels}
    ci = stats.bootstrap("ndcg@5", qrels, run, n_resamples=300, seed=3)
    per_query = stats.unit_values("ndcg@5", qrels, run)
    assert ci.value == pytest.approx(per_query.mean(), rel=1e-12)
    # half the queries: the same interval whatever the order of the dicts
    shuffled = {q: run[q] for q in reversed(list(run))}
    again = stats.bootstrap("ndcg@5", qrels, shuffled, n_resamples=300, seed=3)
    assert np.array_equal(ci.replicates, again.replicates)
    assert ci.low < ci.value < ci.high


# bad input ----------------------------------------------------------------------------------


def test_bad_input_gives_clear_errors() -> None:
    y, s = _binary(50, 0)
    with pytest.raises(ConfigError, match=r"invalid confidence; got 1\.5"):
        stats.bootstrap("roc_auc", y, s, confidence=1.5)
    with pytest.raises(ConfigError, match="invalid confidence"):
        stats.bootstrap("roc_auc", y, s, confidence=0)
    with pytest.raises(ConfigError, match="unknown interval method"):
        stats.bootstrap("roc_auc", y, s, method="studentized")
    with pytest.raises(ConfigError, match="unknown sampling"):
        stats.bootstrap("roc_auc", y, s, sampling="jackknife")
    with pytest.raises(InputError, match="too few rows to resample; got 1"):
        stats.bootstrap("accuracy", [1], [1])
    with pytest.raises(ConfigError, match="not a single number"):
        stats.bootstrap("confusion_matrix", [0, 1, 2] * 5, [0, 1, 1] * 5)
    with pytest.raises(InputError, match="key column has duplicates; got 'a'"):
        stats.bootstrap("accuracy", [1, 0, 1], [1, 1, 1], key=["a", "b", "a"])
    with pytest.raises(ConfigError, match="invalid n_resamples"):
        stats.bootstrap("accuracy", [1, 0, 1], [1, 1, 1], n_resamples=0)
    with pytest.warns(UserWarning, match="few resamples"):
        stats.bootstrap("accuracy", [1, 0, 1, 0], [1, 1, 1, 0], n_resamples=20)


def test_constant_inputs_give_a_point_interval_and_no_bca() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ci = stats.bootstrap("accuracy", [1] * 30, [1] * 30, n_resamples=200)
    assert (ci.value, ci.low, ci.high) == (1.0, 1.0, 1.0)
    # BCa has no acceleration to estimate: NaN bounds with a warning, as scipy.stats.bootstrap
    with pytest.warns(UndefinedMetricWarning, match="BCa interval cannot be computed"):
        bca = stats.bootstrap("accuracy", [1] * 30, [1] * 30, n_resamples=200, method="bca")
    assert bca.value == 1.0 and math.isnan(bca.low) and math.isnan(bca.high)


@pytest.mark.parametrize(
    ("spec", "undefined"),
    [
        ("roc_auc", "only one class"),  # the rows' one sorted pass
        ("roc_auc:multi_class=ovr", "only one class"),  # a state per replicate
        ("precision", "ill-defined"),
    ],
)
def test_undefined_replicates_are_silent_and_the_whole_data_warns_once(
    spec: str, undefined: str
) -> None:
    rng = np.random.default_rng(0)
    scores = rng.random(30)
    # the one positive row is left out of about a third of the replicates
    one = np.array([1] + [0] * 29)
    second = one if spec == "precision" else scores
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ci = stats.bootstrap(spec, one, second, n_resamples=200)
    assert ci.replicates is not None and math.isfinite(ci.value)
    # the interval counts the replicates without a value; none of them warns on its own
    texts = [str(w.message) for w in caught]
    if spec == "precision":
        assert texts == []
    else:
        assert len(texts) == 1
        assert re.fullmatch(
            r"bootstrap of roc_auc: value undefined in \d+ of 200 replicates; .*", texts[0]
        )
    # every row negative: the whole data's value is undefined, and every replicate's
    with pytest.warns(UndefinedMetricWarning, match=undefined) as caught:
        stats.bootstrap(
            spec, np.zeros(30, int), np.zeros(30, int) if spec == "precision" else scores
        )
    assert len(caught) == 1


# ROC AUC and AP sort once for all replicates --------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(2, 40),
    decimals=st.sampled_from([0, 1, 3]),
    weighted=st.booleans(),
    spec=st.sampled_from(["roc_auc", "average_precision", "average_precision:pos_label=0"]),
)
def test_one_sort_for_all_replicates_equals_summarizing_each(
    seed: int, n: int, decimals: int, weighted: bool, spec: str
) -> None:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n), decimals)
    kwargs = {"sample_weight": rng.random(n)} if weighted else {}
    boot = Bootstrap(spec, n_resamples=30, seed=seed, groups=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            slow = boot.compute(boot.summarize(y, s, **kwargs))
        except (InputError, ConfigError) as exc:
            with pytest.raises(type(exc)):
                stats.replicate_values(spec, y, s, n_resamples=30, seed=seed, groups=4, **kwargs)
            return
        fast = stats.replicate_values(spec, y, s, n_resamples=30, seed=seed, groups=4, **kwargs)
    assert fast.value == pytest.approx(slow.value, rel=1e-12, nan_ok=True)
    if spec == "roc_auc" and not weighted:
        # integer weights: exact numerators, the same rounding
        assert np.array_equal(fast.replicates, slow.replicates, equal_nan=True)
    assert np.allclose(fast.replicates, slow.replicates, rtol=1e-12, equal_nan=True)
    assert np.allclose(fast.jackknife, slow.jackknife, rtol=1e-12, equal_nan=True)


def test_a_large_bootstrap_state_is_noted_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCOREKIT_STATE_WARNING_SIZE", "50k")
    y, s = _binary(4000, 6)
    with pytest.warns(UserWarning, match="bootstrap state has grown past") as caught:
        evaluate(
            {"y_true": y, "y_score": s},
            [Bootstrap("roc_auc", n_resamples=20, groups=0)],
            chunk_size=1000,
            progress=False,
        )
    texts = [str(w.message) for w in caught if "grown past" in str(w.message)]
    assert len(texts) == 1
    # exact ROC AUC keeps its rows, not a state per replicate: fewer resamples do not help
    assert "it keeps the inputs and the unit key of every row" in texts[0]
    assert "--n-resamples" not in texts[0] and "roc_auc:bins=N" in texts[0]


def test_metrics_outside_the_registry_and_inputs_that_cannot_be_weighted() -> None:
    import dataclasses

    from scorekit import text
    from scorekit.core import Metric, state_field

    same = text.from_function(lambda r, p: float(r == p), "same")
    refs, hyps = ["a b", "c d", "e f", "g h"] * 5, ["a b", "c x", "e f", "g y"] * 5
    ci = stats.bootstrap(same, refs, hyps, n_resamples=200)
    assert ci.value == 0.5 and ci.low < 0.5 < ci.high

    @dataclasses.dataclass(frozen=True, eq=False)
    class Total(State):
        total: float = state_field("sum", check="finite")

    @dataclasses.dataclass(frozen=True)
    class SumOfDict(Metric[Total]):
        def summarize(self, table: dict[str, float]) -> Total:
            return Total(float(sum(table.values())))

        def compute(self, state: Total) -> float:
            return state.total

        def empty(self) -> Total:
            return Total(0.0)

        @property
        def name(self) -> str:
            return "sum_of_dict"

    with pytest.raises(ConfigError, match="sum_of_dict: cannot be unit-weighted; got dict"):
        stats.bootstrap(SumOfDict(), {"a": 1.0, "b": 2.0}, n_resamples=200)


@given(
    st.lists(st.integers(0, 3), min_size=2, max_size=40),
    st.floats(0.5, 0.99),
    st.integers(0, 2**32 - 1),
)
@settings(max_examples=100, deadline=None)
def test_bca_equals_scipy_on_the_same_replicates(
    data: list[int], confidence: float, seed: int
) -> None:
    # few distinct values: replicates often tie the value, which scipy counts half below
    from scorekit.stats import interval
    from scorekit.stats._replicates import Replicated

    x = np.asarray(data, dtype=np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = scipy.stats.bootstrap(
            (x,),
            np.mean,
            n_resamples=199,
            method="BCa",
            confidence_level=confidence,
            random_state=np.random.default_rng(seed),
        )
        jackknife = np.array([np.delete(x, i).mean() for i in range(x.size)])
        found = interval(
            Replicated(float(x.mean()), ref.bootstrap_distribution, jackknife, x.size, "row"),
            confidence,
            "bca",
        )
    expected = ref.confidence_interval
    for got, want in ((found.low, expected.low), (found.high, expected.high)):
        assert (np.isnan(got) and np.isnan(want)) or got == pytest.approx(want, rel=1e-12)
