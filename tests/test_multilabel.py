"""Multi-label metrics against scikit-learn, hand-checked values, edge cases and bad input."""

from __future__ import annotations

import json
import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm
from hypothesis import given
from hypothesis import strategies as st

from scorekit import multilabel as ML
from scorekit.classification import Accuracy
from scorekit.core import State, get, parse_metric
from scorekit.errors import ConfigError, InputError, StateMismatchError, UndefinedMetricWarning

RANKING = [
    (ML.coverage_error, skm.coverage_error),
    (ML.ranking_loss, skm.label_ranking_loss),
    (ML.label_ranking_average_precision, skm.label_ranking_average_precision_score),
]


def _close(a, b, rtol=1e-12):
    return np.allclose(
        np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=rtol, atol=0, equal_nan=True
    )


def _indicators(rng, n, n_labels):
    t = rng.integers(0, 2, (n, n_labels))
    # make rows with no relevant label and rows with every label relevant common
    kind = rng.integers(0, 6, n)
    t[kind == 0] = 0
    t[kind == 1] = 1
    return t


def _scores(rng, shape, style):
    if style == 0:
        return rng.integers(0, 3, shape).astype(np.float64)  # many ties
    if style == 1:
        return rng.random(shape)
    if style == 2:
        return rng.normal(size=shape) * 1e300
    if style == 3:
        return rng.integers(-2, 3, shape) * 5e-324  # subnormal, with ties and signed zeros
    return np.round(rng.normal(size=shape), 1)


def _weights(rng, n):
    w = rng.random(n) * 4
    w[rng.random(n) < 0.2] = 0.0
    w[0] = 0.5  # scikit-learn refuses all-zero weights
    return w


@st.composite
def scored(draw, min_labels=2):
    n = draw(st.integers(1, 50))
    n_labels = draw(st.integers(min_labels, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    t = _indicators(rng, n, n_labels)
    s = _scores(rng, (n, n_labels), draw(st.integers(0, 4)))
    w = _weights(rng, n) if draw(st.booleans()) else None
    return t, s, w


@st.composite
def predicted(draw, min_labels=2):
    n = draw(st.integers(1, 60))
    n_labels = draw(st.integers(min_labels, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    t = _indicators(rng, n, n_labels)
    flip = rng.random((n, n_labels)) < draw(st.sampled_from([0.0, 0.1, 0.5]))
    p = np.where(flip, 1 - t, t)
    w = _weights(rng, n) if draw(st.booleans()) else None
    return t, p, w


# agreement with scikit-learn ---------------------------------------------------


@given(scored())
def test_ranking_measures_match_sklearn(data):
    t, s, w = data
    for ours, ref in RANKING:
        assert _close(ours(t, s, sample_weight=w), ref(t, s, sample_weight=w)), ours.__name__


@given(scored(min_labels=1))
def test_lrap_matches_sklearn_including_one_label_column(data):
    t, s, w = data
    got = ML.label_ranking_average_precision(t, s, sample_weight=w)
    assert _close(got, skm.label_ranking_average_precision_score(t, s, sample_weight=w))


@given(predicted(min_labels=1))
def test_hamming_and_subset_accuracy_match_sklearn(data):
    t, p, w = data
    assert _close(ML.hamming_loss(t, p, sample_weight=w), skm.hamming_loss(t, p, sample_weight=w))
    assert _close(
        ML.subset_accuracy(t, p, sample_weight=w), skm.accuracy_score(t, p, sample_weight=w)
    )


@given(
    predicted(),
    st.sampled_from(["samples", "micro", "macro", "weighted", None]),
    st.sampled_from(["warn", 0, 1]),
)
def test_jaccard_and_prf_match_sklearn(data, average, zero_division):
    t, p, w = data
    kw = {"average": average, "sample_weight": w, "zero_division": zero_division}
    pairs = [
        (ML.jaccard, skm.jaccard_score),
        (ML.precision, skm.precision_score),
        (ML.recall, skm.recall_score),
        (ML.f1, skm.f1_score),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for ours, ref in pairs:
            assert _close(ours(t, p, **kw), ref(t, p, **kw)), ours.__name__


def test_subset_accuracy_agrees_with_classification_accuracy():
    t = [[1, 0, 1], [0, 1, 0], [1, 1, 1]]
    p = [[1, 0, 1], [0, 1, 1], [1, 1, 1]]
    assert ML.subset_accuracy(t, p) == Accuracy().score(t, p) == 2 / 3


def test_zero_division_warns_like_sklearn():
    t = np.array([[0, 0], [1, 0]])
    p = np.array([[0, 0], [0, 0]])
    with pytest.warns(UndefinedMetricWarning, match="ill-defined"):
        assert ML.jaccard(t, p) == 0.0
    assert ML.jaccard(t, p, zero_division=1) == skm.jaccard_score(
        t, p, average="samples", zero_division=1
    )
    # nan leaves undefined samples out of the average
    assert (
        ML.jaccard([[0, 0], [1, 0], [1, 1]], [[0, 0], [1, 1], [1, 1]], zero_division=np.nan) == 0.75
    )


# hand-checked values ------------------------------------------------------------


def test_one_error_by_hand():
    t = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0], [1, 1, 1]]
    s = [
        [0.9, 0.5, 0.1],  # top label relevant: 0
        [0.9, 0.5, 0.1],  # top label irrelevant: 1
        [0.2, 0.7, 0.7],  # tie at the top between a relevant and an irrelevant label
        [0.3, 0.2, 0.1],  # no relevant label: always an error
        [0.3, 0.2, 0.1],  # every label relevant: never an error
    ]
    assert ML.one_error(t, s) == 3 / 5
    assert ML.one_error(t, s, ties="average") == 2.5 / 5
    assert ML.one_error(t, s, sample_weight=[1, 2, 0, 1, 4]) == 3 / 8
    assert ML.one_error([[1, 1, 0]], [[0.5, 0.5, 0.1]]) == 0.0  # tied top labels both relevant
    assert ML.one_error([[1, 0, 0, 0]], [[1, 1, 1, 1]], ties="average") == 0.75


def test_one_error_ties_rules_agree_without_ties():
    rng = np.random.default_rng(0)
    t = _indicators(rng, 200, 5)
    s = rng.random((200, 5))
    assert ML.one_error(t, s) == ML.one_error(t, s, ties="average")
    top = s.argmax(axis=1)
    assert ML.one_error(t, s) == np.mean(t[np.arange(200), top] == 0)


def test_coverage_by_hand():
    t = [[1, 0, 0], [0, 0, 1], [0, 1, 1], [0, 0, 0]]
    s = [
        [0.75, 0.5, 1.0],  # relevant label ranked 2nd: coverage 1, coverage_error 2
        [1.0, 0.2, 0.1],  # relevant label ranked last: 2 and 3
        [0.5, 0.5, 0.9],  # lowest relevant ties with an irrelevant one: worst rank 3
        [0.1, 0.2, 0.3],  # no relevant label: 0 and 0
    ]
    assert ML.coverage_error(t, s) == (2 + 3 + 3 + 0) / 4
    assert ML.coverage(t, s) == (1 + 2 + 2 + 0) / 4
    assert math.isclose(ML.coverage(t[:3], s[:3]), ML.coverage_error(t[:3], s[:3]) - 1)
    assert ML.coverage(t, s, sample_weight=[1, 0, 3, 5]) == (1 + 6) / 9


@given(scored())
def test_coverage_is_coverage_error_minus_one_when_every_sample_has_a_label(data):
    t, s, w = data
    t = t.copy()
    t[t.sum(axis=1) == 0, 0] = 1
    got = ML.coverage(t, s, sample_weight=w)
    assert _close(got, skm.coverage_error(t, s, sample_weight=w) - 1, rtol=1e-10)
    assert 0 <= got <= t.shape[1] - 1 + 1e-12


def test_ranking_loss_and_lrap_by_hand():
    t = [[1, 0, 0], [0, 0, 1]]
    s = [[0.75, 0.5, 1.0], [1.0, 0.2, 0.1]]
    assert ML.ranking_loss(t, s) == (1 / 2 + 2 / 2) / 2
    assert math.isclose(ML.label_ranking_average_precision(t, s), (1 / 2 + 1 / 3) / 2)
    # all scores tied: every pair is wrongly ordered, precision is |Y| / L
    t2 = [[1, 0, 1, 0]]
    s2 = [[2.0, 2.0, 2.0, 2.0]]
    assert ML.ranking_loss(t2, s2) == 1.0
    assert ML.label_ranking_average_precision(t2, s2) == 0.5
    assert ML.coverage_error(t2, s2) == 4.0
    assert ML.one_error(t2, s2) == 1.0


def test_hamming_and_jaccard_by_hand():
    t = [[0, 1, 1], [1, 0, 0]]
    p = [[0, 1, 0], [1, 1, 0]]
    assert ML.hamming_loss(t, p) == 2 / 6
    assert ML.hamming_loss(t, p, sample_weight=[3, 1]) == (3 + 1) / (4 * 3)
    assert ML.subset_accuracy(t, p) == 0.0
    assert ML.jaccard(t, p) == (1 / 2 + 1 / 2) / 2
    assert ML.jaccard(t, p, average="micro") == 2 / 4
    assert list(ML.jaccard(t, p, average=None)) == [1.0, 0.5, 0.0]


# edge cases ---------------------------------------------------------------------


def test_degenerate_rows():
    none = np.zeros((3, 4), dtype=int)
    every = np.ones((3, 4), dtype=int)
    s = np.arange(12, dtype=float).reshape(3, 4)
    assert ML.coverage_error(none, s) == 0.0
    assert ML.coverage(none, s) == 0.0
    assert ML.ranking_loss(none, s) == 0.0
    assert ML.label_ranking_average_precision(none, s) == 1.0
    assert ML.one_error(none, s) == 1.0
    assert ML.coverage_error(every, s) == 4.0
    assert ML.coverage(every, s) == 3.0
    assert ML.ranking_loss(every, s) == 0.0
    assert ML.label_ranking_average_precision(every, s) == 1.0
    assert ML.one_error(every, s) == 0.0
    assert ML.hamming_loss(none, every) == 1.0
    assert ML.subset_accuracy(none, none) == 1.0
    for ours, ref in RANKING:
        assert ours(every, s) == ref(every, s)
        assert ours(none, s) == ref(none, s)


def test_single_label_column():
    t = np.array([[1], [0], [1], [0]])
    p = np.array([[1], [1], [0], [0]])
    s = np.array([[0.2], [0.9], [0.5], [0.1]])
    assert ML.hamming_loss(t, p) == skm.hamming_loss(t, p) == 0.5
    assert ML.subset_accuracy(t, p) == skm.accuracy_score(t, p) == 0.5
    assert ML.label_ranking_average_precision(t, s) == 1.0
    assert ML.coverage_error(t, s) == 0.5  # scikit-learn refuses one column; 1 per labelled row
    assert ML.coverage(t, s) == 0.0
    assert ML.ranking_loss(t, s) == 0.0
    assert ML.one_error(t, s) == 0.5


def test_extreme_scores():
    t = [[1, 0, 1], [0, 1, 0]]
    for s in ([[1e308, -1e308, 5e-324], [0.0, -0.0, 1e-300]], [[0.0, -0.0, 0.0], [1e-320, 0, 0]]):
        for ours, ref in RANKING:
            assert _close(ours(t, s), ref(t, s)), ours.__name__


def test_all_zero_weights_give_nan_with_warning():
    t = [[1, 0], [0, 1]]
    s = [[0.2, 0.1], [0.3, 0.4]]
    for fn, second in [
        (ML.coverage_error, s),
        (ML.ranking_loss, s),
        (ML.one_error, s),
        (ML.hamming_loss, t),
        (ML.subset_accuracy, t),
        (ML.jaccard, t),
    ]:
        with pytest.warns(UndefinedMetricWarning, match="all sample weights are 0"):
            assert math.isnan(fn(t, second, sample_weight=[0, 0]))


def test_accepts_lists_pandas_and_booleans_without_mutating():
    t = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    s = np.array([[0.3, 0.3, 0.1], [0.5, 0.2, 0.9], [0.1, 0.2, 0.3]])
    t0, s0 = t.copy(), s.copy()
    want = skm.label_ranking_loss(t, s)
    assert ML.ranking_loss(t, s) == want
    assert ML.ranking_loss(t.tolist(), s.tolist()) == want
    assert ML.ranking_loss(pd.DataFrame(t), pd.DataFrame(s)) == want
    assert ML.ranking_loss(t.astype(bool), s) == want
    assert ML.hamming_loss(pd.DataFrame(t), t.astype(float)) == 0.0
    np.testing.assert_array_equal(t, t0)
    np.testing.assert_array_equal(s, s0)


# bad input ----------------------------------------------------------------------

SCORE_FUNCS = [
    ML.one_error,
    ML.coverage_error,
    ML.coverage,
    ML.ranking_loss,
    ML.label_ranking_average_precision,
]
LABEL_FUNCS = [
    ML.hamming_loss,
    ML.subset_accuracy,
    ML.jaccard,
    ML.precision,
    ML.recall,
    ML.f1,
]


@pytest.mark.parametrize("fn", SCORE_FUNCS + LABEL_FUNCS)
def test_empty_input(fn):
    with pytest.raises(InputError, match="empty input"):
        fn(np.zeros((0, 3)), np.zeros((0, 3)))
    with pytest.raises(InputError, match="2-D indicator matrix"):
        fn([], [])


@pytest.mark.parametrize("fn", SCORE_FUNCS + LABEL_FUNCS)
def test_one_dimensional_input(fn):
    with pytest.raises(InputError, match=r"y_true must be a 2-D indicator matrix.*shape \(4,\)"):
        fn([0, 1, 1, 0], [[0, 1]] * 4)
    with pytest.raises(InputError, match=r"must be a 2-D indicator matrix.*n_samples, n_labels"):
        fn([[0, 1]] * 4, [0, 1, 1, 0])


@pytest.mark.parametrize("fn", SCORE_FUNCS + LABEL_FUNCS)
def test_shape_mismatch_names_both_shapes(fn):
    with pytest.raises(InputError, match=r"differ in shape; got \(2, 3\) and \(2, 2\)"):
        fn([[0, 1, 1], [1, 0, 0]], [[0, 1], [1, 0]])
    with pytest.raises(InputError, match=r"differ in shape; got \(2, 2\) and \(3, 2\)"):
        fn([[0, 1], [1, 0]], [[0, 1], [1, 0], [1, 1]])


@pytest.mark.parametrize("fn", SCORE_FUNCS + LABEL_FUNCS)
def test_non_indicator_values_name_value_and_position(fn):
    with pytest.raises(
        InputError, match=r"y_true must hold 0/1 indicators; got 2 at row 1, column 0"
    ):
        fn([[0, 1], [2, 0]], [[0, 1], [1, 0]])
    with pytest.raises(InputError, match=r"0/1 indicators; got 0.5 at row 0, column 1"):
        fn([[0, 0.5], [1, 0]], [[0, 1], [1, 0]])
    with pytest.raises(InputError, match=r"y_true must hold 0/1 indicators; got <U1"):
        fn([["a", "b"], ["b", "a"]], [[0, 1], [1, 0]])
    with pytest.raises(InputError, match="no label columns"):
        fn(np.zeros((2, 0)), np.zeros((2, 0)))


@pytest.mark.parametrize("fn", LABEL_FUNCS)
def test_non_indicator_predictions(fn):
    with pytest.raises(
        InputError, match=r"y_pred must hold 0/1 indicators; got -1 at row 0, column 0"
    ):
        fn([[0, 1], [1, 0]], [[-1, 1], [1, 0]])
    with pytest.raises(InputError, match=r"y_pred must hold 0/1 indicators; got nan"):
        fn([[0, 1], [1, 0]], [[np.nan, 1], [1, 0]])


@pytest.mark.parametrize("fn", SCORE_FUNCS)
def test_non_finite_scores(fn):
    t = [[0, 1], [1, 0]]
    with pytest.raises(InputError, match=r"y_score contains nan; got nan at index \(1, 0\)"):
        fn(t, [[0.1, 0.2], [np.nan, 0.3]])
    with pytest.raises(InputError, match=r"y_score contains inf"):
        fn(t, [[0.1, np.inf], [0.2, 0.3]])
    with pytest.raises(InputError, match="y_score must be numeric"):
        fn(t, [["a", "b"], ["c", "d"]])


@pytest.mark.parametrize("fn", SCORE_FUNCS + LABEL_FUNCS)
def test_bad_weights(fn):
    t = [[0, 1], [1, 0]]
    with pytest.raises(InputError, match=r"sample_weight is negative; got -1.0 at index 1"):
        fn(t, t, sample_weight=[1, -1])
    with pytest.raises(InputError, match="sample_weight differs in length; got 3 weights for 2"):
        fn(t, t, sample_weight=[1, 1, 1])
    with pytest.raises(InputError, match="sample_weight contains nan"):
        fn(t, t, sample_weight=[1, np.nan])


def test_bad_configuration():
    with pytest.raises(ConfigError, match="unknown average; got 'binary'"):
        ML.jaccard([[0, 1]], [[0, 1]], average="binary")
    with pytest.raises(ConfigError, match="unknown ties; got 'random'"):
        ML.one_error([[0, 1]], [[0.1, 0.2]], ties="random")
    with pytest.raises(ConfigError, match="invalid zero_division; got 2"):
        ML.jaccard([[0, 1]], [[0, 1]], zero_division=2)
    with pytest.raises(ConfigError, match="unknown ties"):
        parse_metric("one_error:random")
    with pytest.raises(InputError, match="average='binary'"):
        ML.f1([[0, 1]], [[0, 1]], average="binary")


# states -------------------------------------------------------------------------

STATE_METRICS = [
    ML.HammingLoss(),
    ML.SubsetAccuracy(),
    ML.Jaccard(),
    ML.Jaccard(average="macro"),
    ML.OneError(),
    ML.OneError(ties="average"),
    ML.CoverageError(),
    ML.Coverage(),
    ML.RankingLoss(),
    ML.LabelRankingAveragePrecision(),
]
EXACT = ("hamming_loss", "subset_accuracy", "coverage_error", "coverage")


@pytest.mark.parametrize("metric", STATE_METRICS, ids=lambda m: f"{m.name}-{type(m).__name__}")
def test_split_invariance(metric):
    @given(scored(), st.integers(0, 50))
    def check(data, cut):
        t, s, w = data
        second = s if metric.inputs == "multilabel_scores" else (s > np.median(s)).astype(int)
        cut = min(cut, len(t))
        halves = [
            metric.summarize(t[a:b], second[a:b], sample_weight=None if w is None else w[a:b])
            for a, b in ((0, cut), (cut, len(t)))
        ]
        whole = metric.summarize(t, second, sample_weight=w)
        merged = metric.merge(*halves)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            got, want = metric.compute(merged), metric.compute(whole)
        if w is None and (metric.name in EXACT or metric == ML.OneError()):
            assert got == want
        else:
            assert _close(got, want, rtol=1e-12)
        assert metric.merge(halves[1], halves[0]).equals(merged)
        assert metric.merge(metric.empty(), whole).equals(whole)
        again = State.from_dict(json.loads(json.dumps(whole.to_dict())))
        assert again.equals(whole) and pickle.loads(pickle.dumps(whole)).equals(whole)

    check()


def test_per_sample_state_settings_must_agree():
    a = ML.RankingLoss().summarize([[0, 1]], [[0.1, 0.2]])
    b = ML.RankingLoss().summarize([[0, 1, 1]], [[0.1, 0.2, 0.3]])
    with pytest.raises(StateMismatchError, match="different numbers of labels; got 3"):
        a.merge(b)
    c = ML.Coverage().summarize([[0, 1]], [[0.1, 0.2]])
    with pytest.raises(StateMismatchError, match="different 'measure'"):
        a.merge(c)
    with pytest.raises(StateMismatchError, match="state of another measure; got 'coverage'"):
        ML.RankingLoss().compute(c)
    pessimistic = ML.OneError().summarize([[0, 1]], [[0.1, 0.2]])
    with pytest.raises(StateMismatchError):
        pessimistic.merge(ML.OneError(ties="average").summarize([[0, 1]], [[0.1, 0.2]]))
    with pytest.raises(InputError, match="empty input"):
        ML.RankingLoss().compute(ML.RankingLoss().empty())


def test_label_states_refuse_single_label_counts():
    single = Accuracy().summarize([0, 1, 1], [0, 1, 0])
    with pytest.raises(InputError, match="needs multi-label counts"):
        ML.HammingLoss().compute(single)
    with pytest.raises(InputError, match="empty input"):
        ML.SubsetAccuracy().compute(ML.SubsetAccuracy().empty())
    two = ML.HammingLoss().summarize([[0, 1]], [[0, 1]])
    three = ML.HammingLoss().summarize([[0, 1, 1]], [[0, 1, 1]])
    with pytest.raises(StateMismatchError, match="number of labels"):
        two.merge(three)


def test_registry_entries():
    assert get("ranking_loss") is get("label_ranking_loss")
    assert get("lrap").name == "label_ranking_average_precision"
    assert get("coverage_error").bounds == (0.0, math.inf)
    assert get("hamming_loss").higher_is_better is False
    assert get("label_ranking_average_precision").higher_is_better is True
    for name in ("hamming_loss", "subset_accuracy", "jaccard"):
        assert get(name).inputs == "multilabel"
    for name in ("one_error", "coverage", "coverage_error", "ranking_loss", "lrap"):
        assert get(name).inputs == "multilabel_scores"
    metric = parse_metric("one_error:average")
    assert metric.score([[1, 0, 0]], [[0.5, 0.5, 0.1]]) == 0.5
    assert parse_metric("jaccard:micro").score([[1, 0], [1, 1]], [[1, 1], [1, 1]]) == 0.75


@given(scored())
def test_roc_auc_on_indicator_matrices_matches_sklearn(data):
    t, s, w = data
    t = t.copy()
    t[0, :] = 1
    t[-1, :] = 0
    for average in ("micro", "macro", "weighted", "samples"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                ref = skm.roc_auc_score(t, s, average=average, sample_weight=w)
            except ValueError:
                continue
            got = ML.roc_auc(t, s, average=average, sample_weight=w)
        assert _close(got, ref, rtol=1e-12)
