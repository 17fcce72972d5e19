"""Specificity, NPV, FPR, FNR, likelihood ratios and top-k accuracy against scikit-learn."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import classification as C
from scorekit.core import parse_metric
from scorekit.errors import ConfigError, InputError, UndefinedMetricWarning


def _close(a, b):
    return np.allclose(
        np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-12, atol=0, equal_nan=True
    )


@st.composite
def binary_pairs(draw):
    n = draw(st.integers(1, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    style = draw(st.integers(0, 3))
    t = rng.integers(0, 2, n)
    p = rng.integers(0, 2, n)
    if style == 1:
        t[:] = 0
    elif style == 2:
        p[:] = 1
    w = rng.random(n) * 3 if draw(st.booleans()) else None
    return t, p, w


def _cells(t, p, w):
    return skm.confusion_matrix(t, p, labels=[0, 1], sample_weight=w).ravel().astype(float)


def _ratio(num, den, zero_division):
    if den == 0:
        return 0.0 if zero_division == "warn" else float(zero_division)
    return num / den


@settings(max_examples=15, deadline=None)
@given(binary_pairs(), st.sampled_from(["warn", 0, 1, np.nan]))
def test_rates_agree_with_confusion_matrix(data, zero_division):
    t, p, w = data
    tn, fp, fn, tp = _cells(t, p, w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        got = {
            "specificity": C.specificity(t, p, sample_weight=w, zero_division=zero_division),
            "npv": C.npv(t, p, sample_weight=w, zero_division=zero_division),
            "fpr": C.fpr(t, p, sample_weight=w, zero_division=zero_division),
            "fnr": C.fnr(t, p, sample_weight=w, zero_division=zero_division),
        }
        spec_ref = skm.recall_score(
            t, p, pos_label=0, sample_weight=w, zero_division=zero_division, labels=[0, 1]
        )
        npv_ref = skm.precision_score(
            t, p, pos_label=0, sample_weight=w, zero_division=zero_division, labels=[0, 1]
        )
    want = {
        "specificity": _ratio(tn, tn + fp, zero_division),
        "npv": _ratio(tn, tn + fn, zero_division),
        "fpr": _ratio(fp, fp + tn, zero_division),
        "fnr": _ratio(fn, fn + tp, zero_division),
    }
    for name, value in got.items():
        assert _close(value, want[name]), name
    if 0 in t or 0 in p:
        assert _close(got["specificity"], spec_ref)
        assert _close(got["npv"], npv_ref)


@settings(max_examples=15, deadline=None)
@given(binary_pairs(), st.sampled_from([np.nan, 1.0, {"LR+": 2.0, "LR-": 0.5}]))
def test_likelihood_ratios_agree_with_sklearn(data, replace):
    t, p, w = data
    labels = [0, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = skm.class_likelihood_ratios(
            t, p, labels=labels, sample_weight=w, replace_undefined_by=replace
        )
        got = C.class_likelihood_ratios(
            t, p, labels=labels, sample_weight=w, replace_undefined_by=replace
        )
    assert _close(got, want)


def test_likelihood_ratios_warn_and_need_two_classes():
    with pytest.warns(UndefinedMetricWarning, match="LR-"):
        positive, negative = C.class_likelihood_ratios([0, 1, 1], [1, 1, 1])
    assert positive == 1.0
    assert math.isnan(negative)
    with pytest.raises(InputError, match="needs exactly two classes"):
        C.class_likelihood_ratios([1, 1], [1, 1])
    with pytest.raises(InputError, match="needs exactly two classes"):
        C.class_likelihood_ratios([0, 1, 2], [0, 1, 2])
    with pytest.raises(ConfigError, match="invalid replace_undefined_by"):
        C.ClassLikelihoodRatios(replace_undefined_by={"LR+": 0.5, "LR-": 0.5})
    with pytest.raises(ConfigError, match="labels must name two classes"):
        C.ClassLikelihoodRatios(labels=[0, 1, 2])


def test_rates_worked_example_and_errors():
    # TP=600, FN=100, FP=50, TN=250 (METRICS.md)
    t = np.repeat([1, 1, 0, 0], [600, 100, 50, 250])
    p = np.repeat([1, 0, 1, 0], [600, 100, 50, 250])
    assert C.specificity(t, p) == 250 / 300
    assert C.fpr(t, p) == 50 / 300
    assert C.fnr(t, p) == 100 / 700
    assert C.npv(t, p) == 250 / 350
    with pytest.raises(InputError, match="multiclass"):
        C.specificity([0, 1, 2], [0, 1, 2])
    with pytest.raises(InputError, match="pos_label"):
        C.fpr(["a", "b"], ["a", "b"])
    with pytest.raises(ConfigError, match="zero_division"):
        C.NPV(zero_division=2)
    with pytest.warns(UndefinedMetricWarning, match="no negative samples"):
        assert C.specificity([1, 1], [1, 0]) == 0.0
    assert C.specificity(["no", "yes"], ["yes", "yes"], pos_label="yes") == 0.0
    assert parse_metric("tnr") == C.Specificity()


@st.composite
def score_matrices(draw):
    n = draw(st.integers(1, 40))
    c = draw(st.integers(3, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    t = rng.integers(0, c, n)
    s = rng.integers(0, 3, (n, c)).astype(float) if draw(st.booleans()) else rng.random((n, c))
    w = rng.random(n) if draw(st.booleans()) else None
    k = draw(st.integers(1, c))
    return t, s, w, k, c


@settings(max_examples=20, deadline=None)
@given(score_matrices(), st.booleans())
def test_top_k_agrees_with_sklearn(data, normalize):
    t, s, w, k, c = data
    labels = list(range(c))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        want = skm.top_k_accuracy_score(
            t, s, k=k, labels=labels, sample_weight=w, normalize=normalize
        )
        got = C.top_k_accuracy(t, s, k=k, labels=labels, sample_weight=w, normalize=normalize)
        metric = C.TopKAccuracy(k=k, labels=labels, normalize=normalize)
        half = len(t) // 2
        parts = [
            metric.summarize(t[a:b], s[a:b], None if w is None else w[a:b])
            for a, b in ((0, half), (half, len(t)))
        ]
        merged = metric.compute(metric.merge(*parts))
    assert _close(got, want)
    assert _close(merged, want)


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans(), st.integers(1, 2))
def test_top_k_binary_scores_agree_with_sklearn(seed, unit, k):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 30))
    t = np.array(["no", "yes"])[rng.integers(0, 2, n)]
    t[:2] = ["no", "yes"]
    s = np.round(rng.random(n), 1) if unit else rng.normal(size=n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        want = skm.top_k_accuracy_score(t, s, k=k)
        metric = C.TopKAccuracy(k=k)
        # a unit-interval chunk and an unbounded one: the threshold follows all scores
        got = metric.compute(
            metric.merge(metric.summarize(t[:1], s[:1]), metric.summarize(t[1:], s[1:]))
        )
    assert _close(got, want)


def test_top_k_string_labels_and_errors():
    t = ["b", "a", "c"]
    s = [[0.1, 0.5, 0.4], [0.2, 0.3, 0.5], [0.5, 0.3, 0.2]]
    assert C.top_k_accuracy(t, s, k=2) == skm.top_k_accuracy_score(t, s, k=2)
    with pytest.raises(InputError, match="do not match the columns"):
        C.top_k_accuracy(["a", "b"], s[:2], k=1)
    with pytest.raises(InputError, match="not in labels"):
        C.top_k_accuracy(["a", "z", "b"], s, labels=["a", "b", "c"])
    with pytest.raises(ConfigError, match="k must be an integer"):
        C.TopKAccuracy(k=0)
    with pytest.raises(ConfigError, match="labels must be sorted"):
        C.TopKAccuracy(labels=["b", "a", "c"])
    with pytest.raises(InputError, match="empty input"):
        C.top_k_accuracy([], np.zeros((0, 3)))
    with pytest.warns(UndefinedMetricWarning, match="meaningless"):
        assert C.top_k_accuracy(t, s, k=3) == 1.0
    with pytest.warns(UndefinedMetricWarning, match="weights are 0"):
        assert math.isnan(C.top_k_accuracy(t, s, k=1, sample_weight=[0, 0, 0]))


_RATE_CELLS = {
    "specificity": (0, 1),
    "npv": (0, 2),
    "fpr": (1, 0),
    "fnr": (2, 3),
}


def _sklearn_rates(t, p, w, labels, name, average, zero_division):
    """The rate from scikit-learn's multilabel_confusion_matrix, averaged as sklearn does."""
    m = skm.multilabel_confusion_matrix(t, p, sample_weight=w, labels=labels).astype(float)
    cells = (m[:, 0, 0], m[:, 0, 1], m[:, 1, 0], m[:, 1, 1])
    i, j = _RATE_CELLS[name]
    num, other = cells[i], cells[j]
    if average == "micro":
        num, other = num.sum(keepdims=True), other.sum(keepdims=True)
    den = num + other
    fill = 0.0 if zero_division == "warn" else float(zero_division)
    value = np.where(den == 0, fill, num / np.where(den == 0, 1.0, den))
    if average is None:
        return value
    if average == "micro":
        return float(value[0])
    keep = ~np.isnan(value)
    if not keep.any():
        return math.nan
    support = (cells[2] + cells[3])[keep]
    if average == "weighted" and support.sum() > 0:
        return float(np.average(value[keep], weights=support))
    return float(np.mean(value[keep]))


@st.composite
def multiclass_pairs(draw):
    n = draw(st.integers(1, 30))
    k = draw(st.integers(2, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    t = rng.integers(0, k, n)
    p = rng.integers(0, k, n)
    w = rng.random(n) * 3 if draw(st.booleans()) else None
    labels = None
    if draw(st.booleans()):
        labels = [int(x) for x in rng.permutation(k + 1)[: draw(st.integers(1, k + 1))]]
    return t, p, w, labels


@settings(max_examples=12, deadline=None)
@given(
    multiclass_pairs(),
    st.sampled_from(sorted(_RATE_CELLS)),
    st.sampled_from(["micro", "macro", "weighted", None]),
    st.sampled_from(["warn", 0, 1, np.nan]),
)
def test_multiclass_rates_agree_with_multilabel_confusion_matrix(
    data, name, average, zero_division
):
    t, p, w, labels = data
    want = _sklearn_rates(t, p, w, labels, name, average, zero_division)
    fn = getattr(C, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        got = fn(t, p, sample_weight=w, average=average, labels=labels, zero_division=zero_division)
        spelled = parse_metric(f"{name}:{average or 'macro'}").name
    assert spelled == name
    assert np.allclose(
        np.asarray(got, dtype=float),
        np.asarray(want, dtype=float),
        rtol=1e-12,
        atol=1e-12,
        equal_nan=True,
    )


def test_multiclass_rates_string_labels_multilabel_and_worked_example():
    t = ["cat", "dog", "emu", "emu"]
    p = ["cat", "emu", "emu", "dog"]
    spec = C.specificity(t, p, average=None)
    m = skm.multilabel_confusion_matrix(t, p)
    assert _close(spec, m[:, 0, 0] / (m[:, 0, 0] + m[:, 0, 1]))
    assert _close(C.npv(t, p, average="micro"), 0.75)
    assert _close(C.fnr(t, p, average="macro"), 0.5)
    assert _close(C.specificity(t, p, average=None, labels=["emu", "cat"]), [0.5, 1.0])
    y = np.array([[0, 1, 1], [1, 1, 0], [0, 0, 1], [1, 0, 0]])
    yhat = np.array([[0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0]])
    ml = skm.multilabel_confusion_matrix(y, yhat)
    assert _close(C.fpr(y, yhat, average=None), ml[:, 0, 1] / (ml[:, 0, 1] + ml[:, 0, 0]))
    assert _close(C.fpr(y, yhat, average=None, labels=[2, 0]), C.fpr(y, yhat, average=None)[[2, 0]])
    streamed = C.Specificity(average="weighted")
    state = streamed.merge(streamed.summarize(t[:2], p[:2]), streamed.summarize(t[2:], p[2:]))
    assert _close(streamed.compute(state), C.specificity(t, p, average="weighted"))


def test_multiclass_rates_warn_and_errors():
    with pytest.warns(UndefinedMetricWarning, match="fnr: ill-defined .* no positive samples"):
        assert _close(C.fnr([0, 1, 1], [0, 1, 2], average=None), [0.0, 0.5, 0.0])
    assert math.isnan(C.fnr([0, 0], [0, 1], average="macro", labels=[1], zero_division=np.nan))
    with pytest.raises(InputError, match="target is multiclass but the metric is binary"):
        C.specificity([0, 1, 2], [0, 1, 1])
    with pytest.raises(ConfigError, match="specificity: unknown average; got 'samples'"):
        C.Specificity(average="samples")
    with pytest.raises(ConfigError, match="npv: labels selects classes of a multiclass average"):
        C.NPV(labels=[0, 1])
    with pytest.raises(ConfigError, match="fpr: labels is empty"):
        C.FPR(average="macro", labels=[])
    with pytest.raises(ConfigError, match="unknown average; got 'samples'"):
        parse_metric("specificity:samples")
    with pytest.raises(InputError, match="multi-label labels must be column indices"):
        C.fpr(np.eye(3, dtype=int), np.eye(3, dtype=int), average="macro", labels=[5])


_RATE_FUNCTIONS = ("specificity", "npv", "fpr", "fnr")
_POS_LABEL_FUNCTIONS = (*_RATE_FUNCTIONS, "precision", "recall", "f1")


def _user_warnings(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = call()
    return value, [w for w in caught if w.category is UserWarning]


@pytest.mark.parametrize("name", _POS_LABEL_FUNCTIONS)
@pytest.mark.parametrize("average", ["micro", "macro", "weighted", None])
def test_an_unused_pos_label_warns_as_sklearn_precision(name, average):
    """The rates and precision, recall and F1 warn as ``precision_score`` does."""
    t, p = [0, 1, 2, 2, 1], [0, 2, 2, 1, 1]
    fn = getattr(C, name)
    with pytest.warns(
        UserWarning,
        match=rf"{name}: pos_label \(set to 2\) is ignored when average != 'binary' "
        rf"\(got {average!r}\); use labels=\[pos_label\]",
    ) as record:
        value = fn(t, p, average=average, pos_label=2)
    assert record[0].filename == __file__
    assert _close(value, fn(t, p, average=average))
    _, sk_warned = _user_warnings(lambda: skm.precision_score(t, p, average=average, pos_label=2))
    assert len(sk_warned) == 1 and "is ignored when average != 'binary'" in str(
        sk_warned[0].message
    )


@pytest.mark.parametrize("name", _POS_LABEL_FUNCTIONS)
@pytest.mark.parametrize("pos_label", [1, 1.0, True, None, 2, "cat"])
def test_the_pos_label_warning_follows_sklearn_s_rule(name, pos_label):
    t, p = [0, 1, 2, 2, 1], [0, 2, 2, 1, 1]
    _, ours = _user_warnings(lambda: getattr(C, name)(t, p, average="macro", pos_label=pos_label))
    _, theirs = _user_warnings(
        lambda: skm.precision_score(t, p, average="macro", pos_label=pos_label)
    )
    assert len(ours) == len(theirs) == (0 if pos_label in (1, None) else 1)


@pytest.mark.parametrize("name", _POS_LABEL_FUNCTIONS)
def test_no_pos_label_warning_by_default_or_when_binary(name):
    fn = getattr(C, name)
    _, caught = _user_warnings(lambda: fn([0, 1, 2, 2], [0, 2, 2, 1], average="macro"))
    assert caught == []
    _, caught = _user_warnings(lambda: fn(["a", "b", "b"], ["a", "b", "a"], pos_label="b"))
    assert caught == []
    _, caught = _user_warnings(lambda: fn([0, 1, 1], [0, 1, 0], average="binary", pos_label=0))
    assert caught == []
    _, caught = _user_warnings(
        lambda: parse_metric(f"{name}:macro").score([0, 1, 2, 2], [0, 2, 2, 1])
    )
    assert caught == []


def test_fbeta_and_precision_recall_fscore_support_warn_as_sklearn():
    t, p = [0, 1, 2, 2, 1], [0, 2, 2, 1, 1]
    calls = {
        "fbeta": (
            lambda: C.fbeta(t, p, beta=0.5, average="macro", pos_label=2),
            lambda: skm.fbeta_score(t, p, beta=0.5, average="macro", pos_label=2),
        ),
        "precision_recall_fscore_support": (
            lambda: C.precision_recall_fscore_support(t, p, average="weighted", pos_label=2),
            lambda: skm.precision_recall_fscore_support(t, p, average="weighted", pos_label=2),
        ),
    }
    for name, (ours, theirs) in calls.items():
        value, warned = _user_warnings(ours)
        expected, sk_warned = _user_warnings(theirs)
        assert [str(w.message).split(":")[0] for w in warned] == [name]
        assert len(sk_warned) == 1
        assert np.allclose(
            np.asarray(value[:3] if isinstance(value, tuple) else value, float),
            np.asarray(expected[:3] if isinstance(expected, tuple) else expected, float),
        )
