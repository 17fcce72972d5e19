"""Label-based classification metrics against scikit-learn, edge cases and bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pyarrow as pa
import pytest
import sklearn.metrics as skm
from hypothesis import given
from hypothesis import strategies as st

from scorekit import classification as C
from scorekit.core import parse_metric
from scorekit.errors import ConfigError, InputError, StateMismatchError, UndefinedMetricWarning

AVERAGES = ["micro", "macro", "weighted", None]
ZERO_DIVISION = [0, 1, np.nan, "warn"]


def _close(a, b):
    return np.allclose(
        np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-12, atol=0, equal_nan=True
    )


@st.composite
def label_pairs(draw, max_classes=5, strings=False):
    n = draw(st.integers(1, 80))
    k = draw(st.integers(1, max_classes))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    t = rng.integers(0, k, n)
    p = np.where(rng.random(n) < 0.6, t, rng.integers(0, k, n))
    if strings:
        names = np.array(["cat", "dog", "ému", "猫", "zebra"])
        t, p = names[t], names[p]
    w = None
    if draw(st.booleans()):
        w = rng.random(n) * 5
        w[rng.random(n) < 0.1] = 0.0
        w[0] = 1.0  # scikit-learn refuses all-zero weights
    return t, p, w


def _both(fn_ours, fn_ref):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ours = fn_ours()
        except ValueError as exc:
            ours = type(exc)
        try:
            ref = fn_ref()
        except ValueError as exc:
            ref = type(exc)
    return ours, ref


@given(label_pairs(), st.sampled_from(AVERAGES), st.sampled_from(ZERO_DIVISION))
def test_prf_matches_sklearn(data, average, zero_division):
    t, p, w = data
    kw = {"average": average, "sample_weight": w, "zero_division": zero_division}
    pairs = [
        (C.precision, skm.precision_score),
        (C.recall, skm.recall_score),
        (C.f1, skm.f1_score),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for ours, ref in pairs:
            assert _close(ours(t, p, **kw), ref(t, p, **kw))
        assert _close(C.fbeta(t, p, beta=0.5, **kw), skm.fbeta_score(t, p, beta=0.5, **kw))
        got = C.precision_recall_fscore_support(t, p, beta=2.0, **kw)
        want = skm.precision_recall_fscore_support(t, p, beta=2.0, **kw)
        for a, b in zip(got, want, strict=True):
            assert (a is None and b is None) or _close(a, b)


@given(label_pairs(strings=True), st.sampled_from(AVERAGES))
def test_prf_string_labels_and_label_subsets(data, average):
    t, p, w = data
    present = sorted(set(t) | set(p))
    subset = present[: max(1, len(present) - 1)][::-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for labels in (None, subset, [*present, "absent"]):
            kw = {"average": average, "sample_weight": w, "labels": labels, "zero_division": 0}
            assert _close(C.f1(t, p, **kw), skm.f1_score(t, p, **kw))
            assert _close(C.recall(t, p, **kw), skm.recall_score(t, p, **kw))


@given(label_pairs(max_classes=2))
def test_binary_average_matches_sklearn(data):
    t, p, w = data
    for pos_label in (0, 1):
        ours, ref = _both(
            lambda pl=pos_label: C.f1(t, p, pos_label=pl, sample_weight=w),
            lambda pl=pos_label: skm.f1_score(t, p, pos_label=pl, sample_weight=w),
        )
        assert ours == ref if isinstance(ref, type) else _close(ours, ref)


@given(label_pairs(strings=True))
def test_other_label_metrics_match_sklearn(data):
    t, p, w = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _close(C.accuracy(t, p, sample_weight=w), skm.accuracy_score(t, p, sample_weight=w))
        assert _close(
            C.accuracy(t, p, normalize=False, sample_weight=w),
            skm.accuracy_score(t, p, normalize=False, sample_weight=w),
        )
        assert _close(C.error_rate(t, p, sample_weight=w), skm.zero_one_loss(t, p, sample_weight=w))
        assert _close(C.mcc(t, p, sample_weight=w), skm.matthews_corrcoef(t, p, sample_weight=w))
        assert _close(
            C.balanced_accuracy(t, p, sample_weight=w),
            skm.balanced_accuracy_score(t, p, sample_weight=w),
        )
        for adjusted in (True,):
            ours = C.balanced_accuracy(t, p, sample_weight=w, adjusted=adjusted)
            ref = skm.balanced_accuracy_score(t, p, sample_weight=w, adjusted=adjusted)
            if np.isfinite(ref):
                assert _close(ours, ref)
        for weights in (None, "linear", "quadratic"):
            assert _close(
                C.cohen_kappa(t, p, weights=weights, sample_weight=w),
                skm.cohen_kappa_score(t, p, weights=weights, sample_weight=w),
            )
        for normalize in (None, "true", "pred", "all"):
            assert _close(
                C.confusion_matrix(t, p, sample_weight=w, normalize=normalize),
                skm.confusion_matrix(t, p, sample_weight=w, normalize=normalize),
            )


@given(
    st.integers(1, 60),
    st.integers(1, 5),
    st.integers(0, 2**32 - 1),
    st.sampled_from(["micro", "macro", "weighted", "samples", None]),
    st.booleans(),
)
def test_multilabel_prf_matches_sklearn(n, k, seed, average, weighted):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, 2, (n, k + 1))
    p = rng.integers(0, 2, (n, k + 1))
    w = rng.random(n) if weighted else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for zd in ZERO_DIVISION:
            kw = {"average": average, "sample_weight": w, "zero_division": zd}
            assert _close(C.f1(t, p, **kw), skm.f1_score(t, p, **kw))
            assert _close(C.precision(t, p, **kw), skm.precision_score(t, p, **kw))
            assert _close(C.recall(t, p, **kw), skm.recall_score(t, p, **kw))
        assert _close(C.accuracy(t, p, sample_weight=w), skm.accuracy_score(t, p, sample_weight=w))


def test_classification_report_matches_sklearn():
    rng = np.random.default_rng(3)
    t = rng.integers(0, 4, 200)
    p = np.where(rng.random(200) < 0.7, t, rng.integers(0, 4, 200))
    names = ["ant", "bee", "cow", "dog"]
    assert C.classification_report(t, p, target_names=names) == skm.classification_report(
        t, p, target_names=names
    )
    assert C.classification_report(t, p, labels=[2, 0], digits=3) == skm.classification_report(
        t, p, labels=[2, 0], digits=3
    )
    ours = C.classification_report(t, p, output_dict=True)
    ref = skm.classification_report(t, p, output_dict=True)
    assert ours.keys() == ref.keys()
    for key, row in ref.items():
        if isinstance(row, dict):
            for field, value in row.items():
                assert _close(ours[key][field], value)
        else:
            assert _close(ours[key], row)
    T = rng.integers(0, 2, (50, 3))
    P = rng.integers(0, 2, (50, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert C.classification_report(T, P) == skm.classification_report(T, P)


def test_worked_example_from_the_catalogue():
    # TP=600, FN=100, FP=50, TN=250
    t = np.array([1] * 600 + [1] * 100 + [0] * 50 + [0] * 250)
    p = np.array([1] * 600 + [0] * 100 + [1] * 50 + [0] * 250)
    assert C.accuracy(t, p) == pytest.approx(0.85, rel=1e-15)
    assert C.error_rate(t, p) == pytest.approx(0.15, rel=1e-12)
    assert C.precision(t, p) == pytest.approx(600 / 650, rel=1e-15)
    assert C.recall(t, p) == pytest.approx(600 / 700, rel=1e-15)
    assert round(C.precision(t, p), 3) == 0.923
    assert round(C.recall(t, p), 3) == 0.857
    assert C.confusion_matrix(t, p).tolist() == [[250, 50], [100, 600]]


def test_micro_prf_equals_accuracy_in_single_label_multiclass():
    rng = np.random.default_rng(0)
    t, p = rng.integers(0, 6, 500), rng.integers(0, 6, 500)
    acc = C.accuracy(t, p)
    for fn in (C.precision, C.recall, C.f1):
        assert fn(t, p, average="micro") == pytest.approx(acc, rel=1e-15)


def test_inputs_of_every_container_type_agree():
    import pandas as pd

    t = [0, 1, 2, 2, 1]
    p = [0, 2, 2, 2, 1]
    want = C.f1(t, p, average="macro")
    for convert in (np.array, tuple, pd.Series, pa.array, pa.chunked_array):
        got = C.f1(
            convert(t) if convert is not pa.chunked_array else pa.chunked_array([t]),
            convert(p) if convert is not pa.chunked_array else pa.chunked_array([p]),
            average="macro",
        )
        assert got == want


def test_zero_division_warns_and_sets_value():
    with pytest.warns(UndefinedMetricWarning, match="precision is ill-defined"):
        assert C.precision([1, 1], [0, 0]) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert C.precision([1, 1], [0, 0], zero_division=1) == 1.0
        assert np.isnan(C.precision([1, 1], [0, 0], zero_division=np.nan))


def test_single_class_and_all_correct():
    assert C.accuracy([3, 3, 3], [3, 3, 3]) == 1.0
    assert C.mcc([1, 1, 1], [1, 1, 1]) == 0.0
    assert C.confusion_matrix([3, 3], [3, 3]).tolist() == [[2]]
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(C.cohen_kappa([1, 1], [1, 1]))


def test_huge_label_values_and_negative_labels():
    t = np.array([-(10**12), 5, 10**12, 5])
    p = np.array([-(10**12), 10**12, 10**12, 5])
    assert _close(C.f1(t, p, average="macro"), skm.f1_score(t, p, average="macro"))
    assert C.confusion_matrix(t, p).tolist() == skm.confusion_matrix(t, p).tolist()


def test_float_and_bool_labels():
    assert C.accuracy([0.5, 1.5], [0.5, 0.5]) == 0.5
    assert C.f1([True, False, True], [True, True, True]) == skm.f1_score(
        [True, False, True], [True, True, True]
    )


# ---- merging ---------------------------------------------------------------


def test_chunks_with_different_label_sets_merge_to_the_whole():
    t = np.array(["a", "b", "c", "a", "d", "d"])
    p = np.array(["a", "c", "c", "b", "d", "a"])
    m = parse_metric("f1:macro")
    merged = m.merge(m.summarize(t[:2], p[:2]), m.summarize(t[2:], p[2:]))
    assert m.compute(merged) == pytest.approx(m.score(t, p), rel=1e-15)
    cm = C.ConfusionMatrix()
    whole = cm.score(t, p)
    parts = cm.merge(cm.summarize(t[3:], p[3:]), cm.summarize(t[:3], p[:3]))
    assert cm.compute(parts).tolist() == whole.tolist()


def test_merging_single_label_with_multilabel_state_fails():
    m = C.Accuracy()
    a = m.summarize([0, 1], [0, 1])
    b = m.summarize([[0, 1], [1, 1]], [[0, 1], [1, 0]])
    with pytest.raises(StateMismatchError, match="single-label and multi-label"):
        m.merge(a, b)


def test_merging_states_of_different_kinds_fails():
    from scorekit.classification import ConfusionCounts

    with pytest.raises(StateMismatchError, match="different kinds"):
        ConfusionCounts.empty().merge(object())  # type: ignore[arg-type]


# ---- bad input -------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (
            lambda: C.f1([0, 1, 1], [0, 1]),
            r"f1: inputs differ in length; got y_true has 3, y_pred has 2",
        ),
        (lambda: C.accuracy([], []), r"accuracy: empty input"),
        (lambda: C.f1([0, 1, 2], [0, 1, 1]), r"f1: target is multiclass but average='binary'"),
        (lambda: C.f1(["a", "b"], ["a", "b"]), r"f1: pos_label is not a label of the data; got 1"),
        (lambda: C.accuracy([0, 1, "a"], [0, 1, 1]), r"accuracy: y_true mixes value types"),
        (lambda: C.accuracy(["a", "b"], [0, 1]), r"labels mix strings and numbers"),
        (
            lambda: C.accuracy([0.0, np.nan], [0, 1]),
            r"accuracy: y_true contains a non-finite label; got nan at index 1",
        ),
        (lambda: C.accuracy([0, None], [0, 1]), r"y_true contains None"),
        (
            lambda: C.accuracy([0, 1], [0, 1], sample_weight=[1, -2]),
            r"sample_weight is negative; got -2.0 at index 1",
        ),
        (
            lambda: C.accuracy([0, 1], [0, 1], sample_weight=[1, np.inf]),
            r"sample_weight contains inf",
        ),
        (lambda: C.accuracy([0, 1], [0, 1], sample_weight=[1]), r"sample_weight differs in length"),
        (
            lambda: C.confusion_matrix([0, 1, 2], [0, 1, 1], labels=[0, 1]),
            r"data contains a class outside labels; got 2",
        ),
        (
            lambda: C.f1([[0, 1], [1, 0]], [[0, 1], [1, 2]], average="micro"),
            r"y_pred must hold 0/1 indicators; got 2 at row 1, column 1",
        ),
        (
            lambda: C.f1([[0, 1], [1, 0]], [[0, 1, 1], [1, 0, 1]], average="micro"),
            r"differ in shape",
        ),
        (lambda: C.f1([[0, 1], [1, 0]], [[0, 1], [1, 0]]), r"multi-label but average='binary'"),
        (
            lambda: C.f1([0, 1], [0, 1], average="samples"),
            r"average='samples' needs multi-label input",
        ),
        (
            lambda: C.accuracy(np.zeros((2, 2, 2)), np.zeros((2, 2, 2))),
            r"y_true must be 1-D labels",
        ),
        (lambda: C.accuracy([[0, 1], [0]], [0, 1]), r"not a rectangular array"),
    ],
)
def test_bad_input_is_an_input_error(call, match):
    with pytest.raises(InputError, match=match):
        call()


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (
            lambda: C.F1(average="mean"),
            r"f1: unknown average; got 'mean', expected one of 'binary'",
        ),
        (lambda: C.F1(zero_division=2), r"invalid zero_division; got 2"),
        (lambda: C.FBeta(beta=-1), r"beta must be a number >= 0"),
        (lambda: C.ConfusionMatrix(normalize="rows"), r"unknown normalize; got 'rows'"),
        (lambda: C.CohenKappa(weights="cubic"), r"unknown weights"),
        (lambda: C.F1(labels=[1, 1]), r"labels contain duplicates"),
        (lambda: parse_metric("f1:mean"), r"f1: unknown average; got 'mean'"),
        (
            lambda: parse_metric("accurcy"),
            r"unknown metric; got 'accurcy', expected a registered name \(close: accuracy",
        ),
        (lambda: parse_metric("accuracy@5"), r"takes no @ parameter"),
        (lambda: parse_metric("f1 macro"), r"malformed metric name"),
    ],
)
def test_bad_configuration_is_a_config_error(call, match):
    with pytest.raises(ConfigError, match=match):
        call()


def test_errors_are_value_errors_for_sklearn_callers():
    with pytest.raises(ValueError):
        C.f1([0, 1], [0])


def test_caller_data_is_not_mutated():
    t = np.array([3, 1, 2, 2])
    p = np.array([3, 2, 2, 1])
    w = np.array([1.0, 2.0, 3.0, 4.0])
    copies = t.copy(), p.copy(), w.copy()
    C.f1(t, p, average="macro", sample_weight=w)
    C.confusion_matrix(t, p, sample_weight=w)
    for a, b in zip((t, p, w), copies, strict=True):
        assert np.array_equal(a, b)


def test_float32_probabilities_are_accepted():
    rng = np.random.default_rng(0)
    p = rng.random((50, 3)).astype(np.float32)
    p /= p.sum(axis=1, keepdims=True)
    y = rng.integers(0, 3, 50)
    y[:3] = [0, 1, 2]
    assert _close(C.log_loss(y, p), skm.log_loss(y, p.astype(np.float64)))
    assert np.isclose(C.brier(y, p), skm.brier_score_loss(y, p), rtol=1e-6)


def test_empty_chunk_is_identity_for_multiclass_histograms():
    ys = np.array(["a", "b", "c", "a"])
    scores = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6], [0.3, 0.3, 0.4]])
    for m in (C.ROCAUC(multi_class="ovr"), C.AveragePrecision()):
        whole = m.score(ys, scores)
        merged = m.merge(m.summarize(ys, scores), m.summarize(ys[:0], scores[:0]))
        assert m.compute(merged) == whole


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: C.f1(1, 1), InputError, r"f1: y_true must be an array; got 1"),
        (
            lambda: C.f1([0, 1], [0, 1], pos_label=[1]),
            ConfigError,
            r"pos_label must be a single label",
        ),
        (
            lambda: C.classification_report([0, 1], [0, 1], digits=-1),
            ConfigError,
            r"digits must be an integer >= 0",
        ),
        (
            lambda: C.F1().compute(C.ROCAUC().summarize([0, 1], [0.1, 0.2])),
            StateMismatchError,
            r"state of another kind; got 'ScoreHistogram'",
        ),
    ],
)
def test_more_mistakes_get_clear_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()
