"""Kendall's tau against scipy, and DCG/nDCG on arrays against scikit-learn and trec_eval."""

from __future__ import annotations

import math
import warnings
from typing import Any
from unittest import mock

import numpy as np
import pytest
import pytrec_eval
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import dcg_score, ndcg_score

from scorekit import parse_metric, ranking
from scorekit.errors import ConfigError, InputError, UndefinedMetricWarning
from scorekit.ranking import _arrays, _kendall
from scorekit.ranking._kendall import KendallTau, PairedScores, dense_rank, inversions, pair_counts

TOL = 1e-12

# Kendall's tau -------------------------------------------------------------------------------


def _grid_scores(rng: np.random.Generator, n: int, style: int) -> np.ndarray:
    """Scores with many ties (small grids), few ties, or extreme magnitudes."""
    if style == 0:
        return rng.integers(0, 3, n).astype(np.float64)
    if style == 1:
        return rng.integers(0, 40, n).astype(np.float64)
    if style == 2:
        return rng.normal(size=n)
    return rng.choice(np.array([-1e300, -1.0, -0.0, 0.0, 5e-324, 1.0, 1e300]), n)


pairs_of_scores = st.builds(
    lambda seed, n, sx, sy, share: _paired(seed, n, sx, sy, share),
    st.integers(0, 2**32 - 1),
    st.integers(0, 300),
    st.integers(0, 3),
    st.integers(0, 3),
    st.floats(0.0, 1.0),
)


def _paired(seed: int, n: int, sx: int, sy: int, share: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = _grid_scores(rng, n, sx)
    y = _grid_scores(rng, n, sy)
    if sx == sy:
        y = np.where(rng.random(n) < share, x, y)  # agreement makes tau far from 0
    return x, y


def _brute_counts(x: np.ndarray, y: np.ndarray) -> tuple[int, int, int, int]:
    """Concordant, discordant, x-tied and y-tied pairs by looking at every pair."""
    dx = np.sign(x[:, None] - x[None, :])
    dy = np.sign(y[:, None] - y[None, :])
    upper = np.triu(np.ones((len(x), len(x)), dtype=bool), 1)
    product = (dx * dy)[upper]
    return (
        int((product > 0).sum()),
        int((product < 0).sum()),
        int((dx[upper] == 0).sum()),
        int((dy[upper] == 0).sum()),
    )


def _tau(variant: str, x: Any, y: Any) -> tuple[float, bool]:
    """Our tau and whether an UndefinedMetricWarning was emitted."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = KendallTau(variant=variant).score(x, y)  # type: ignore[arg-type]
    return value, any(issubclass(w.category, UndefinedMetricWarning) for w in caught)


@pytest.mark.parametrize("variant", ["b", "c"])
@given(pairs_of_scores)
def test_kendall_matches_scipy(variant: str, data: tuple[np.ndarray, np.ndarray]) -> None:
    x, y = data
    ours, warned = _tau(variant, x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = float(stats.kendalltau(x, y, variant=variant).statistic)
    if math.isnan(ref):
        assert math.isnan(ours) and warned
    else:
        assert not warned
        assert ours == pytest.approx(ref, abs=TOL)


@given(pairs_of_scores)
def test_kendall_a_and_counts_match_every_pair(data: tuple[np.ndarray, np.ndarray]) -> None:
    x, y = data
    n = len(x)
    concordant, discordant, x_ties, y_ties = _brute_counts(x, y)
    counts = pair_counts(x, y)
    assert (counts.discordant, counts.x_ties, counts.y_ties) == (discordant, x_ties, y_ties)
    assert counts.concordant_minus_discordant == concordant - discordant
    assert counts.x_values == len(np.unique(x)) and counts.y_values == len(np.unique(y))
    ours, warned = _tau("a", x, y)
    if n < 2:
        assert math.isnan(ours) and warned
    else:
        assert not warned
        assert ours == pytest.approx((concordant - discordant) / (n * (n - 1) / 2), abs=TOL)


# small kernel settings reach, on small inputs, the paths large inputs take
KERNEL_SETTINGS = [
    {"_BLOCK": 1, "_FEW_VALUES": 0, "_DOT_WIDTH": 2},
    {"_BLOCK": 2, "_FEW_VALUES": 0, "_DOT_WIDTH": 4, "_INT32_VALUES": 0},
    {"_BLOCK": 4, "_FEW_VALUES": 0, "_DOT_WIDTH": 8},
    {"_BLOCK": 16, "_FEW_VALUES": 0},
    {"_FEW_VALUES": 1000},
]


@pytest.mark.parametrize("settings", KERNEL_SETTINGS, ids=lambda s: ",".join(map(str, s.values())))
@given(st.integers(0, 2**32 - 1), st.integers(0, 200), st.integers(1, 300))
def test_inversions_match_every_pair(settings: dict[str, int], seed: int, n: int, m: int) -> None:
    seq = np.random.default_rng(seed).integers(0, m, n)
    expected = int(np.triu(seq[:, None] > seq[None, :], 1).sum())
    with mock.patch.multiple(_kendall, **settings):
        assert inversions(seq, m) == expected


@pytest.mark.parametrize("ties", [False, True])
def test_kendall_large_input_matches_scipy(ties: bool) -> None:
    # rows wider than the int32 dot width, and a last row that is not full
    rng = np.random.default_rng(7)
    n = 200_003
    if ties:
        x = rng.integers(0, 300, n).astype(np.float64)
        y = np.round(x / 10) + rng.integers(0, 20, n)
    else:
        x = rng.random(n)
        y = x + rng.random(n)
    for variant in ("b", "c"):
        ref = stats.kendalltau(x, y, variant=variant).statistic
        assert KendallTau(variant=variant).score(x, y) == pytest.approx(ref, abs=TOL)


@given(st.integers(0, 2**32 - 1), st.integers(1, 3000), st.integers(0, 3))
def test_dense_rank_matches_scipy(seed: int, n: int, style: int) -> None:
    rng = np.random.default_rng(seed)
    if style == 0:  # values that differ only in bits the packed sort key drops
        values = 1.0 + rng.integers(0, 2**22, n) * 2.0**-52
    elif style == 1:
        values = rng.integers(0, 5, n) + rng.integers(0, 3, n) * 1e-15
    elif style == 2:
        values = rng.choice(np.array([-0.0, 0.0, -5e-324, 5e-324, -1e308, 1e308, 3.0]), n)
    else:
        values = rng.normal(size=n)
    ranks, distinct, ties = dense_rank(values)
    expected = stats.rankdata(values, method="dense") - 1
    np.testing.assert_array_equal(ranks, expected)
    counts = np.unique(values, return_counts=True)[1]
    assert distinct == len(counts)
    assert ties == int((counts * (counts - 1) // 2).sum())


def test_kendall_examples_by_hand() -> None:
    # 5 items: 7 concordant, 3 discordant pairs
    assert ranking.kendall_tau([1, 2, 3, 4, 5], [3, 1, 2, 5, 4]) == pytest.approx(0.4)
    assert ranking.kendall_tau([1, 2, 3], [3, 2, 1]) == -1.0
    assert parse_metric("kendall_tau:a").score([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / 3)
    assert parse_metric("kendall_tau").score([1, 1, 2], [1, 2, 3]) == pytest.approx(
        2 / math.sqrt(2 * 3)
    )


@pytest.mark.parametrize("variant", ["b", "a", "c"])
@pytest.mark.parametrize("n", [0, 1])
def test_kendall_fewer_than_two_pairs_is_nan(variant: str, n: int) -> None:
    with pytest.warns(UndefinedMetricWarning, match="fewer than 2"):
        assert math.isnan(ranking.kendall_tau([1.0] * n, [2.0] * n, variant=variant))


@pytest.mark.parametrize("variant", ["b", "c"])
def test_kendall_constant_scoring_is_nan_for_b_and_c(variant: str) -> None:
    with pytest.warns(UndefinedMetricWarning, match="all y values are equal"):
        assert math.isnan(ranking.kendall_tau([1, 2, 3], [5, 5, 5], variant=variant))
    with pytest.warns(UndefinedMetricWarning, match="all x values are equal"):
        assert math.isnan(ranking.kendall_tau([0, 0], [1, 2], variant=variant))


def test_kendall_a_of_constant_scoring_is_zero() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ranking.kendall_tau([1, 2, 3], [5, 5, 5], variant="a") == 0.0


def test_kendall_streamed_equals_in_memory_in_any_order() -> None:
    rng = np.random.default_rng(3)
    x, y = rng.integers(0, 5, 500), rng.normal(size=500)
    metric = KendallTau()
    parts = [metric.summarize(x[i : i + 70], y[i : i + 70]) for i in range(0, 500, 70)]
    merged = metric.empty()
    for part in reversed(parts):
        merged = metric.merge(merged, part)
    assert metric.compute(merged) == metric.score(x, y)
    assert isinstance(merged, PairedScores) and len(merged.x) == 500


def test_kendall_keeps_a_copy_of_the_inputs() -> None:
    x, y = np.array([1.0, 2.0, 3.0]), np.array([1.0, 3.0, 2.0])
    state = KendallTau().summarize(x, y)
    x[0] = 10.0
    np.testing.assert_array_equal(state.x, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(y, [1.0, 3.0, 2.0])


@pytest.mark.parametrize(
    ("x", "y", "match"),
    [
        ([1.0, np.nan, 2.0], [1, 2, 3], "x contains nan"),
        ([1, 2, 3], [1.0, np.inf, 2.0], "y contains inf"),
        ([1, 2, 3], [1, 2], "inputs differ in length"),
        ([[1, 2], [3, 4]], [1, 2], "x must be 1-D"),
        (["a", "b"], [1, 2], "x must be numeric"),
        (None, [1, 2], "x is missing"),
    ],
)
def test_kendall_bad_input(x: Any, y: Any, match: str) -> None:
    with pytest.raises(InputError, match=match):
        ranking.kendall_tau(x, y)


def test_kendall_bad_variant() -> None:
    with pytest.raises(ConfigError, match="unknown variant; got 'd', expected one of 'b', 'a'"):
        KendallTau(variant="d")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="unknown variant"):
        parse_metric("kendall_tau:d")


# DCG and nDCG on arrays ------------------------------------------------------------------------


def _grades_and_scores(seed: int, rows: int, cols: int, style: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    if style == 0:
        grades = rng.integers(0, 4, (rows, cols)).astype(np.float64)
    elif style == 1:
        grades = rng.integers(0, 2, (rows, cols)).astype(np.float64)
    else:
        grades = np.round(rng.random((rows, cols)) * 3, 2)
    scores = (
        rng.integers(0, 3, (rows, cols)).astype(np.float64)
        if style != 2
        else np.round(rng.normal(size=(rows, cols)), 1)
    )
    return grades, scores


tables = st.tuples(
    st.integers(0, 2**32 - 1), st.integers(1, 12), st.integers(2, 12), st.integers(0, 2)
).map(lambda a: _grades_and_scores(*a))
cutoffs = st.one_of(st.none(), st.integers(1, 14))


def _quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return fn(*args, **kwargs)


@given(tables, cutoffs, st.booleans())
def test_average_ties_match_sklearn(data: tuple[np.ndarray, ...], k: int | None, w: bool) -> None:
    grades, scores = data
    weights = np.arange(1, len(grades) + 1, dtype=np.float64) if w else None
    ours = _quiet(ranking.ndcg, grades, scores, k=k, ties="average", sample_weight=weights)
    assert ours == pytest.approx(ndcg_score(grades, scores, k=k, sample_weight=weights), abs=TOL)
    ours = ranking.dcg(grades, scores, k=k, ties="average", sample_weight=weights)
    assert ours == pytest.approx(dcg_score(grades, scores, k=k, sample_weight=weights), abs=TOL)


def _trec_eval(grades: np.ndarray, scores: np.ndarray, measure: str) -> list[float]:
    """trec_eval's value per row, with doc ids that sort like the positions."""
    qrels = {
        f"q{r}": {f"d{c:04d}": int(g) for c, g in enumerate(row)} for r, row in enumerate(grades)
    }
    run = {
        f"q{r}": {f"d{c:04d}": float(s) for c, s in enumerate(row)} for r, row in enumerate(scores)
    }
    found = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    key = measure.replace(".", "_")
    return [found[f"q{r}"][key] for r in range(len(grades))]


@given(
    st.tuples(
        st.integers(0, 2**32 - 1), st.integers(1, 8), st.integers(1, 12), st.sampled_from([0, 1])
    ).map(lambda a: _grades_and_scores(*a)),
    cutoffs,
)
def test_trec_ties_match_trec_eval(data: tuple[np.ndarray, ...], k: int | None) -> None:
    grades, scores = data
    measure = "ndcg" if k is None else f"ndcg_cut.{k}"
    ours = _quiet(ranking.ndcg, grades, scores, k=k, per_group=True)
    np.testing.assert_allclose(ours, _trec_eval(grades, scores, measure), rtol=0, atol=TOL)


@given(tables, cutoffs, st.sampled_from(["linear", "exp"]))
def test_trec_ties_match_the_qrels_and_run_metrics(
    data: tuple[np.ndarray, ...], k: int | None, gain: str
) -> None:
    grades, scores = data
    qrels = {f"q{r}": {f"d{c:04d}": g for c, g in enumerate(row)} for r, row in enumerate(grades)}
    run = {f"q{r}": {f"d{c:04d}": s for c, s in enumerate(row)} for r, row in enumerate(scores)}
    for function, metric in ((ranking.ndcg, ranking.NDCG), (ranking.dcg, ranking.DCG)):
        ours = _quiet(function, grades, scores, k=k, gain=gain)
        assert ours == pytest.approx(_quiet(metric(k=k, gain=gain).score, qrels, run), abs=TOL)


@pytest.mark.parametrize("ties", ["trec", "average"])
@given(tables, cutoffs, st.integers(0, 2**32 - 1))
def test_grouped_form_equals_2d_form(
    ties: str, data: tuple[np.ndarray, ...], k: int | None, seed: int
) -> None:
    grades, scores = data
    rows, cols = grades.shape
    rng = np.random.default_rng(seed)
    # interleave the queries at random, keeping each query's candidates in order
    slots = np.argsort(rng.permutation(np.repeat(np.arange(rows), cols)), kind="stable")
    flat_grades, flat_scores = np.empty(rows * cols), np.empty(rows * cols)
    flat_grades[slots], flat_scores[slots] = grades.ravel(), scores.ravel()
    group = np.empty(rows * cols, dtype=object)
    group[slots] = np.repeat([f"query-{r:03d}" for r in range(rows)], cols)
    for function in (ranking.ndcg, ranking.dcg):
        by_row = _quiet(function, grades, scores, k=k, ties=ties, per_group=True)
        grouped = _quiet(
            function, flat_grades, flat_scores, group=group, k=k, ties=ties, per_group=True
        )
        np.testing.assert_allclose(grouped, by_row, rtol=0, atol=TOL)


@given(tables, cutoffs)
def test_ties_rules_agree_without_ties(data: tuple[np.ndarray, ...], k: int | None) -> None:
    grades, _ = data
    scores = np.random.default_rng(int(grades.sum() * 100)).permutation(grades.size)
    scores = scores.reshape(grades.shape).astype(np.float64)
    trec = _quiet(ranking.ndcg, grades, scores, k=k, per_group=True)
    average = _quiet(ranking.ndcg, grades, scores, k=k, ties="average", per_group=True)
    np.testing.assert_allclose(trec, average, rtol=0, atol=TOL)


def test_trec_ties_rank_the_later_candidate_first() -> None:
    # equal scores: the later candidate (grade 1) ranks first
    assert ranking.dcg([0, 1], [0.5, 0.5]) == pytest.approx(1.0)
    assert ranking.dcg([1, 0], [0.5, 0.5]) == pytest.approx(1 / math.log2(3))
    assert ranking.dcg([0, 1], [0.5, 0.5], ties="average") == pytest.approx(
        0.5 * (1 + 1 / math.log2(3))
    )


def test_one_dimensional_input_without_group_is_one_query() -> None:
    grades, scores = [2, 0, 1, 3], [0.1, 0.4, 0.4, 0.3]
    assert ranking.ndcg(grades, scores, k=3) == ranking.ndcg([grades], [scores], k=3)
    # ranked grades 1, 0, 3, 2 (the tie at 0.4 puts the later candidate first)
    expected = (1 + 3 / 2 + 2 / math.log2(5)) / (3 + 2 / math.log2(3) + 1 / 2)
    np.testing.assert_allclose(ranking.ndcg(grades, scores, per_group=True), [expected])


def test_per_group_follows_sorted_group_ids() -> None:
    values = ranking.ndcg(
        [1, 0, 0, 1, 1], [0.2, 0.9, 0.5, 0.1, 0.3], group=[7, 3, 7, 3, 3], per_group=True
    )
    # query 3: grades (0, 1, 1) ranked by scores (0.9, 0.3, 0.1); query 7: (0, 1)
    ideal3, dcg3 = 1 + 1 / math.log2(3), 1 / math.log2(3) + 1 / math.log2(4)
    np.testing.assert_allclose(values, [dcg3 / ideal3, 1 / math.log2(3)], rtol=1e-12)


def test_group_ids_beyond_float_precision_stay_distinct() -> None:
    big = 2**60
    values = ranking.dcg(
        [1, 0, 0, 1], [1, 2, 3, 4], group=[big, big + 1, big, big + 1], per_group=True
    )
    np.testing.assert_allclose(values, [1 / math.log2(3), 1.0])


def test_blocks_of_queries_give_the_same_values() -> None:
    grades, scores = _grades_and_scores(5, 6, 9, 0)
    expected = {
        ties: _quiet(ranking.ndcg, grades, scores, k=4, ties=ties, per_group=True)
        for ties in ("trec", "average")
    }
    with mock.patch.object(_arrays, "_CHUNK", 10):
        for ties in ("trec", "average"):
            found = _quiet(ranking.ndcg, grades, scores, k=4, ties=ties, per_group=True)
            np.testing.assert_array_equal(found, expected[ties])
    ref = [ndcg_score(g[None], s[None], k=4) for g, s in zip(grades, scores, strict=True)]
    np.testing.assert_allclose(expected["average"], ref, rtol=0, atol=TOL)


def test_negative_grades_gain_nothing() -> None:
    for ties in ("trec", "average"):
        with_negative = ranking.ndcg([[-1, 2, 0, 1]], [[0.9, 0.8, 0.8, 0.1]], ties=ties)
        clipped = ranking.ndcg([[0, 2, 0, 1]], [[0.9, 0.8, 0.8, 0.1]], ties=ties)
        assert with_negative == clipped


@pytest.mark.parametrize("ties", ["trec", "average"])
def test_query_without_positive_grade_counts_zero_with_warning(ties: str) -> None:
    with pytest.warns(UndefinedMetricWarning, match="1 of 2 queries"):
        values = ranking.ndcg([[0, 0], [1, 0]], [[0.3, 0.2], [0.1, 0.5]], ties=ties, per_group=True)
    np.testing.assert_allclose(values, [0.0, 1 / math.log2(3)])


def test_weighted_mean_over_queries() -> None:
    grades, scores = [[1, 0], [0, 1]], [[0.9, 0.1], [0.9, 0.1]]
    assert ranking.ndcg(grades, scores, sample_weight=[3, 1]) == pytest.approx(
        (3 * 1 + 1 / math.log2(3)) / 4
    )


def test_array_inputs_are_not_modified() -> None:
    grades = np.array([[3.0, -1.0, 1.0]])
    scores = np.array([[0.1, 0.1, 0.2]])
    before = grades.copy(), scores.copy()
    for ties in ("trec", "average"):
        ranking.ndcg(grades, scores, ties=ties)
    np.testing.assert_array_equal(grades, before[0])
    np.testing.assert_array_equal(scores, before[1])


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        (([1, 2], [1, 2, 3]), {}, "y_true and y_score differ in shape"),
        (([[1, 2]], [1, 2]), {}, "y_true and y_score differ in shape"),
        (([[1, 2]], [[1, 2]]), {"group": [0, 0]}, "group is for 1-D input"),
        (([1, 2], [1, 2]), {"group": [0]}, "group differs in length"),
        (([1, 2], [1, 2]), {"group": [0, None]}, "group contains None"),
        (([1, np.nan], [1, 2]), {}, "y_true contains nan"),
        (([1, 2], [1, np.inf]), {}, "y_score contains inf"),
        (([], []), {}, "no candidate to rank"),
        (([[[1]]], [[[1]]]), {}, "y_true must be 1-D or 2-D"),
        (([1, 2], [1, 2]), {"group": [0, 1], "sample_weight": [1]}, "1 weights for 2 queries"),
        (([1, 2], [1, 2]), {"group": [0, 1], "sample_weight": [0, 0]}, "all sample weights"),
        (([1, 2], [1, 2]), {"group": [0, 1], "sample_weight": [1, -1]}, "sample_weight is neg"),
    ],
)
def test_array_bad_input(args: tuple[Any, ...], kwargs: dict[str, Any], match: str) -> None:
    for function in (ranking.ndcg, ranking.dcg):
        with pytest.raises(InputError, match=match):
            function(*args, **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"ties": "first"}, "unknown ties; got 'first', expected one of 'trec', 'average'"),
        ({"k": 0}, "invalid cutoff k"),
        ({"gain": "log"}, "unknown gain"),
    ],
)
def test_array_bad_options(kwargs: dict[str, Any], match: str) -> None:
    for function in (ranking.ndcg, ranking.dcg):
        with pytest.raises(ConfigError, match=match):
            function([1, 0], [0.5, 0.2], **kwargs)
