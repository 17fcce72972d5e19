"""ROC / PR curves, ROC AUC, average precision and the break-even point against scikit-learn."""

from __future__ import annotations

import json
import pickle
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn import metrics as skm
from sklearn.exceptions import UndefinedMetricWarning as SkUndefined

from scorekit.classification import (
    ROCAUC,
    AveragePrecision,
    BreakEvenPoint,
    PRCurveMetric,
    ROCCurveMetric,
    average_precision,
    break_even_point,
    pr_curve,
    roc_auc,
    roc_curve,
)
from scorekit.core import State, parse_metric
from scorekit.errors import ConfigError, InputError, StateMismatchError, UndefinedMetricWarning
from strategies import make_batch

RTOL = 1e-12


def close(a: Any, b: Any, rtol: float = RTOL) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=1e-15, equal_nan=True))


def all_zero(w: Any) -> bool:
    return w is not None and not np.any(w)


def quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@st.composite
def binary_data(draw: st.DrawFn) -> tuple[Any, Any, Any]:
    n = draw(st.integers(2, 80))
    seed = draw(st.integers(0, 2**32 - 1))
    style = draw(st.integers(0, 3))
    rng = np.random.default_rng(seed)
    y, s = make_batch("binary_scores", seed, n, 2, style)
    w = None
    if draw(st.booleans()):
        w = rng.random(n) * 3
        w[rng.random(n) < 0.2] = 0.0
        w[0] = 1.0  # scikit-learn refuses all-zero weights
    return y, s, w


# binary: curves, AUC, AP against scikit-learn -----------------------------------------


@given(binary_data(), st.booleans())
def test_roc_curve_matches_sklearn(data: tuple[Any, Any, Any], drop: bool) -> None:
    y, s, w = data
    if all_zero(w):
        with pytest.raises(InputError, match="zero weight"):
            quiet(roc_auc, y, s, sample_weight=w)
        return
    ours = quiet(roc_curve, y, s, sample_weight=w, drop_intermediate=drop)
    ref = quiet(skm.roc_curve, y, s, sample_weight=w, drop_intermediate=drop)
    for a, b in zip(ours, ref, strict=True):
        assert close(a, b)
    fpr, _tpr, thr = ours
    assert thr[0] == np.inf and ours.fpr is fpr


@given(binary_data(), st.booleans())
def test_pr_curve_matches_sklearn(data: tuple[Any, Any, Any], drop: bool) -> None:
    y, s, w = data
    if all_zero(w):
        with pytest.raises(InputError, match="zero weight"):
            quiet(roc_auc, y, s, sample_weight=w)
        return
    ours = quiet(pr_curve, y, s, sample_weight=w, drop_intermediate=drop)
    ref = quiet(skm.precision_recall_curve, y, s, sample_weight=w, drop_intermediate=drop)
    for a, b in zip(ours, ref, strict=True):
        assert close(a, b)


@given(binary_data(), st.sampled_from([None, 0.1, 0.5, 1.0]))
def test_roc_auc_matches_sklearn(data: tuple[Any, Any, Any], max_fpr: float | None) -> None:
    y, s, w = data
    if all_zero(w):
        with pytest.raises(InputError, match="zero weight"):
            quiet(roc_auc, y, s, sample_weight=w)
        return
    ours = quiet(roc_auc, y, s, sample_weight=w, max_fpr=max_fpr)
    try:
        ref = quiet(skm.roc_auc_score, y, s, sample_weight=w, max_fpr=max_fpr)
    except ValueError:
        # scikit-learn fails on a partial AUC when zero weights leave one class
        assert np.isnan(ours)
        return
    assert close(ours, ref)


@given(binary_data())
def test_average_precision_matches_sklearn(data: tuple[Any, Any, Any]) -> None:
    y, s, w = data
    if all_zero(w):
        with pytest.raises(InputError, match="zero weight"):
            quiet(roc_auc, y, s, sample_weight=w)
        return
    assert close(
        quiet(average_precision, y, s, sample_weight=w),
        quiet(skm.average_precision_score, y, s, sample_weight=w),
    )


def test_worked_example() -> None:
    y, s = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]
    assert roc_auc(y, s) == 0.75
    fpr, tpr, thr = roc_curve(y, s)
    assert fpr.tolist() == [0, 0, 0.5, 0.5, 1] and tpr.tolist() == [0, 0.5, 0.5, 1, 1]
    assert thr.tolist() == [np.inf, 0.8, 0.4, 0.35, 0.1]
    assert average_precision(y, s) == pytest.approx(0.8333333333333333, rel=1e-15)


def test_auc_is_probability_of_correct_ranking_with_half_ties() -> None:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300)
    s = rng.integers(0, 5, 300).astype(float)
    pos, neg = s[y == 1], s[y == 0]
    gt = (pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean()
    assert roc_auc(y, s) == pytest.approx(gt, rel=1e-12)


@pytest.mark.parametrize("scale", [1e300, 1e-300, -1e300, 5e-324])
def test_huge_and_tiny_scores(scale: float) -> None:
    y = np.array([0, 1, 0, 1, 1, 0, 1])
    s = np.array([0.1, 0.9, 0.3, 0.3, 0.7, 0.2, 1.0]) * scale
    assert close(roc_auc(y, s), skm.roc_auc_score(y, s))
    assert close(average_precision(y, s), skm.average_precision_score(y, s))
    for a, b in zip(roc_curve(y, s), skm.roc_curve(y, s), strict=True):
        assert close(a, b)


def test_all_equal_scores_form_one_step() -> None:
    y, s = [0, 1, 1, 0, 1], [0.5] * 5
    assert roc_auc(y, s) == 0.5
    fpr, _tpr, thr = roc_curve(y, s)
    assert thr.tolist() == [np.inf, 0.5] and fpr.tolist() == [0, 1]
    assert average_precision(y, s) == pytest.approx(0.6)


def test_negative_zero_is_the_same_score() -> None:
    y = [0, 1, 0, 1]
    assert roc_auc(y, [-0.0, 0.0, 1.0, 2.0]) == skm.roc_auc_score(y, [-0.0, 0.0, 1.0, 2.0])
    assert len(roc_curve(y, [-0.0, 0.0, 0.0, -0.0], drop_intermediate=False).thresholds) == 2


def test_zero_weights_are_ignored() -> None:
    y = np.array([0, 1, 0, 1, 0, 1])
    s = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    w = np.array([1.0, 2.0, 0.0, 1.0, 0.0, 3.0])
    keep = w > 0
    assert roc_auc(y, s, sample_weight=w) == roc_auc(y[keep], s[keep], sample_weight=w[keep])
    ours = roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    assert 0.3 not in ours.thresholds and 0.5 not in ours.thresholds


def test_string_labels_and_pos_label() -> None:
    y = np.array(["neg", "pos", "neg", "pos", "pos"])
    s = np.array([0.2, 0.9, 0.6, 0.4, 0.8])
    for a, b in zip(
        pr_curve(y, s, pos_label="pos"),
        skm.precision_recall_curve(y, s, pos_label="pos"),
        strict=True,
    ):
        assert close(a, b)
    assert average_precision(y, s, pos_label="pos") == pytest.approx(
        skm.average_precision_score(y, s, pos_label="pos"), rel=RTOL
    )
    # roc_auc takes the greater label as positive, as scikit-learn
    assert roc_auc(y, s) == pytest.approx(skm.roc_auc_score(y, s), rel=RTOL)
    for a, b in zip(
        roc_curve(y, s, pos_label="neg"), skm.roc_curve(y, s, pos_label="neg"), strict=True
    ):
        assert close(a, b)


def test_multiclass_y_true_with_pos_label_in_curves() -> None:
    y = np.array([0, 1, 2, 2, 1, 0, 2])
    s = np.array([0.1, 0.5, 0.9, 0.7, 0.4, 0.3, 0.2])
    for a, b in zip(roc_curve(y, s, pos_label=2), skm.roc_curve(y, s, pos_label=2), strict=True):
        assert close(a, b)


def test_labels_minus_one_one() -> None:
    y, s = [-1, 1, -1, 1], [0.3, 0.6, 0.7, 0.9]
    for a, b in zip(roc_curve(y, s), skm.roc_curve(y, s), strict=True):
        assert close(a, b)


# single class, undefined values ------------------------------------------------------


def test_single_class_auc_is_nan_with_warning() -> None:
    with pytest.warns(UndefinedMetricWarning, match="one class"):
        value = roc_auc([1, 1, 1], [0.2, 0.5, 0.9])
    assert np.isnan(value)
    with pytest.warns(SkUndefined):
        ref = skm.roc_auc_score([1, 1, 1], [0.2, 0.5, 0.9])
    assert np.isnan(ref)


def test_no_positive_average_precision_is_zero_with_warning() -> None:
    with pytest.warns(UndefinedMetricWarning, match="no positive"):
        assert average_precision([0, 0, 0], [0.2, 0.5, 0.9]) == 0.0
    with pytest.warns(UserWarning):
        assert skm.average_precision_score([0, 0, 0], [0.2, 0.5, 0.9]) == 0.0


def test_one_class_curves_warn_and_match() -> None:
    with pytest.warns(UndefinedMetricWarning, match="no negative"):
        ours = roc_curve([1, 1], [0.3, 0.4])
    with pytest.warns(SkUndefined):
        ref = skm.roc_curve([1, 1], [0.3, 0.4])
    for a, b in zip(ours, ref, strict=True):
        assert close(a, b)
    with pytest.warns(UndefinedMetricWarning, match="recall is set to 1"):
        ours_pr = pr_curve([0, 0], [0.3, 0.4])
    with pytest.warns(UserWarning):
        ref_pr = skm.precision_recall_curve([0, 0], [0.3, 0.4])
    for a, b in zip(ours_pr, ref_pr, strict=True):
        assert close(a, b)


def test_break_even_point_undefined_without_positives() -> None:
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(break_even_point([0, 0], [0.1, 0.2]))


# break-even point --------------------------------------------------------------------


def test_break_even_point_equals_r_precision_without_ties() -> None:
    rng = np.random.default_rng(3)
    for _ in range(50):
        y = rng.integers(0, 2, 40)
        if y.sum() == 0:
            continue
        s = rng.random(40)
        top = np.argsort(-s)[: y.sum()]
        assert break_even_point(y, s) == pytest.approx(y[top].mean(), rel=1e-12)


def test_break_even_point_interpolates_between_straddling_points() -> None:
    # one positive tied with three negatives: the only point (R, P) = (1, 0.25)
    # selects 4 > 1; from the start (0, 1), d goes 1 -> -0.75, t = 1/1.75
    value = break_even_point([1, 0, 0, 0], [0.5, 0.5, 0.5, 0.5])
    t = 1 / 1.75
    assert value == pytest.approx(1 + t * (0.25 - 1), rel=1e-12)
    # negative ranked first: that point selects exactly one sample, P = R = 0
    assert break_even_point([0, 1], [0.9, 0.1]) == 0.0
    assert break_even_point([1, 1], [0.9, 0.1]) == 1.0


# interpolated AP ---------------------------------------------------------------------


def _voc07(rec: np.ndarray, prec: np.ndarray) -> float:
    ap = 0.0
    for t in np.arange(11) / 10:
        ap += (np.max(prec[rec >= t]) if np.sum(rec >= t) else 0.0) / 11
    return ap


def _voc10(rec: np.ndarray, prec: np.ndarray) -> float:
    mrec = np.concatenate(([0.0], rec, [1.0]))
    mpre = np.concatenate(([0.0], prec, [0.0]))
    for i in range(mpre.size - 1, 0, -1):
        mpre[i - 1] = max(mpre[i - 1], mpre[i])
    i = np.where(mrec[1:] != mrec[:-1])[0]
    return float(np.sum((mrec[i + 1] - mrec[i]) * mpre[i + 1]))


@given(binary_data())
def test_interpolated_ap_matches_voc_code(data: tuple[Any, Any, Any]) -> None:
    y, s, _ = data
    if np.sum(y) == 0:
        return
    p, r, _ = skm.precision_recall_curve(y, s)
    rec, prec = r[-2::-1], p[-2::-1]
    assert close(average_precision(y, s, interpolation="11point"), _voc07(rec, prec), 1e-12)
    assert close(average_precision(y, s, interpolation="all"), _voc10(rec, prec), 1e-12)


def test_interpolated_ap_without_ties_is_at_least_step_ap() -> None:
    rng = np.random.default_rng(5)
    y, s = rng.integers(0, 2, 100), rng.random(100)
    assert average_precision(y, s, interpolation="all") >= average_precision(y, s)


# multi-label and multiclass ----------------------------------------------------------


@st.composite
def multilabel_data(draw: st.DrawFn) -> tuple[Any, Any, Any]:
    n = draw(st.integers(2, 50))
    k = draw(st.integers(2, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    y, s = make_batch("multilabel_scores", seed, n, k, draw(st.integers(0, 3)))
    w = np.random.default_rng(seed).random(n) * 2 if draw(st.booleans()) else None
    return y, s, w


@given(multilabel_data(), st.sampled_from(["micro", "macro", "weighted", "samples", None]))
def test_multilabel_matches_sklearn(data: tuple[Any, Any, Any], average: Any) -> None:
    y, s, w = data
    for ours_fn, ref_fn in (
        (roc_auc, skm.roc_auc_score),
        (average_precision, skm.average_precision_score),
    ):
        ours = quiet(ours_fn, y, s, average=average, sample_weight=w)
        ref = quiet(ref_fn, y, s, average=average, sample_weight=w)
        assert close(ours, ref)


@st.composite
def multiclass_data(draw: st.DrawFn) -> tuple[Any, Any, Any]:
    n = draw(st.integers(6, 60))
    k = draw(st.integers(3, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    y, p = make_batch("proba", seed, n, k, 0)
    y[:k] = np.arange(k)  # every class present, as scikit-learn requires
    if draw(st.booleans()):
        p = np.round(p, 1)
        p[:, -1] = 1 - p[:, :-1].sum(axis=1)
    w = np.random.default_rng(seed).random(n) * 2 if draw(st.booleans()) else None
    return y, p, w


@given(multiclass_data(), st.sampled_from(["micro", "macro", "weighted", None]))
def test_multiclass_ovr_matches_sklearn(data: tuple[Any, Any, Any], average: Any) -> None:
    y, p, w = data
    ours = quiet(roc_auc, y, p, average=average, sample_weight=w, multi_class="ovr")
    ref = quiet(skm.roc_auc_score, y, p, average=average, sample_weight=w, multi_class="ovr")
    assert close(ours, ref)
    labels = ["a", "b", "c", "d", "e"][: p.shape[1]]
    named = np.asarray(labels)[y]
    assert close(
        quiet(roc_auc, named, p, average=average, multi_class="ovr", labels=labels),
        quiet(skm.roc_auc_score, named, p, average=average, multi_class="ovr", labels=labels),
    )


@given(multiclass_data(), st.sampled_from(["micro", "macro", "weighted", "samples", None]))
def test_multiclass_ap_matches_sklearn(data: tuple[Any, Any, Any], average: Any) -> None:
    y, p, w = data
    ours = quiet(average_precision, y, p, average=average, sample_weight=w)
    ref = quiet(skm.average_precision_score, y, p, average=average, sample_weight=w)
    assert close(ours, ref)


def test_multiclass_chunk_missing_a_class_still_summarizes() -> None:
    y = np.array([0, 1, 2, 2, 1, 0])
    p = np.array(
        [
            [0.7, 0.2, 0.1],
            [0.2, 0.5, 0.3],
            [0.1, 0.2, 0.7],
            [0.3, 0.3, 0.4],
            [0.1, 0.8, 0.1],
            [0.6, 0.3, 0.1],
        ]
    )
    m = ROCAUC(multi_class="ovr")
    merged = m.merge(m.summarize(y[:2], p[:2]), m.summarize(y[2:], p[2:]))
    assert m.compute(merged) == skm.roc_auc_score(y, p, multi_class="ovr")


def test_string_multiclass_chunks_need_all_classes_or_labels() -> None:
    y = np.array(["a", "b", "c", "a"])
    p = np.full((4, 3), 1 / 3)
    with pytest.raises(InputError, match="labels="):
        ROCAUC(multi_class="ovr").summarize(y[:2], p[:2])
    m = ROCAUC(multi_class="ovr", labels=["a", "b", "c"])
    assert m.compute(m.merge(m.summarize(y[:2], p[:2]), m.summarize(y[2:], p[2:]))) == 0.5


# streaming: chunked equals in-memory -------------------------------------------------


@pytest.mark.parametrize(
    "metric",
    [
        ROCAUC(),
        ROCAUC(max_fpr=0.3),
        AveragePrecision(),
        AveragePrecision(interpolation="11point"),
        AveragePrecision(interpolation="all"),
        BreakEvenPoint(),
        ROCCurveMetric(),
        PRCurveMetric(drop_intermediate=True),
    ],
    ids=repr,
)
@given(binary_data(), st.integers(0, 80), st.integers(0, 80))
def test_binary_chunks_merge_to_in_memory(metric: Any, data: Any, i: int, j: int) -> None:
    y, s, w = data
    if all_zero(w):
        return
    i, j = sorted((min(i, len(y)), min(j, len(y))))
    parts = [(lo, hi) for lo, hi in ((0, i), (i, j), (j, len(y)))]
    states = [
        metric.summarize(y[lo:hi], s[lo:hi], sample_weight=None if w is None else w[lo:hi])
        for lo, hi in parts
    ]
    merged = metric.merge(states[2], metric.merge(states[0], states[1]))
    whole = metric.summarize(y, s, sample_weight=w)
    a, b = quiet(metric.compute, merged), quiet(metric.compute, whole)
    if w is None:
        assert merged.equals(whole)
        if isinstance(a, tuple):
            assert all(np.array_equal(x, z, equal_nan=True) for x, z in zip(a, b, strict=True))
        else:
            assert a == b or (np.isnan(a) and np.isnan(b))
    elif isinstance(a, tuple):
        assert all(close(x, z, 1e-10) for x, z in zip(a, b, strict=True))
    else:
        assert close(a, b, 1e-10)


@pytest.mark.parametrize("average", ["micro", "macro", "weighted", None])
@given(data=multiclass_data())
def test_multiclass_chunks_merge(average: Any, data: Any) -> None:
    y, p, w = data
    m = ROCAUC(average=average, multi_class="ovr")
    half = len(y) // 2
    wa = None if w is None else w[:half]
    wb = None if w is None else w[half:]
    merged = m.merge(m.summarize(y[half:], p[half:], wb), m.summarize(y[:half], p[:half], wa))
    assert close(quiet(m.compute, merged), quiet(m.score, y, p, sample_weight=w), 1e-10)


def test_single_class_chunk_summarizes_and_positive_class_is_decided_at_compute() -> None:
    m = ROCAUC()
    a = m.summarize([2, 2], [0.1, 0.9])
    b = m.summarize([5, 5], [0.2, 0.3])
    assert m.compute(m.merge(a, b)) == skm.roc_auc_score([2, 2, 5, 5], [0.1, 0.9, 0.2, 0.3])


def test_state_round_trips_with_string_labels() -> None:
    m = AveragePrecision(pos_label="y")
    state = m.summarize(["y", "n", "y"], [0.3, 0.2, 0.9], sample_weight=[1.0, 2.0, 0.5])
    again = State.from_dict(json.loads(json.dumps(state.to_dict())))
    assert again.equals(state) and pickle.loads(pickle.dumps(state)).equals(state)
    assert m.compute(again) == m.compute(state)


def test_merging_different_tasks_fails() -> None:
    m = AveragePrecision()
    binary = m.summarize([0, 1], [0.2, 0.4])
    multilabel = m.summarize([[0, 1], [1, 0]], [[0.1, 0.2], [0.3, 0.4]])
    with pytest.raises(StateMismatchError, match="different tasks"):
        m.merge(binary, multilabel)
    other = m.summarize([[0, 1, 1], [1, 0, 0]], [[0.1, 0.2, 0.3], [0.3, 0.4, 0.5]])
    with pytest.raises(StateMismatchError, match="columns"):
        m.merge(multilabel, other)


def test_registry_variants_and_inputs() -> None:
    assert parse_metric("roc_auc").inputs == "binary_scores"
    assert parse_metric("roc_auc:micro").inputs == "multilabel_scores"
    assert ROCAUC(multi_class="ovr").inputs == "multiclass_scores"
    assert parse_metric("average_precision:samples").inputs == "multilabel_scores"
    assert parse_metric("roc_curve").info.higher_is_better is None
    assert parse_metric("roc_auc").info.grows


# bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: roc_auc([], []), "empty input"),
        (lambda: roc_curve([], []), "empty input"),
        (lambda: roc_auc([0, 1], [0.1, np.nan]), r"nan at index 1"),
        (lambda: average_precision([0, 1], [np.inf, 0.1]), r"inf at index 0"),
        (lambda: roc_auc([0, 1], [0.1, 0.2], sample_weight=[1, -1]), "negative"),
        (lambda: roc_auc([0, 1], [0.1, 0.2], sample_weight=[1]), "differs in length"),
        (lambda: roc_auc([0, 1, 2], [0.1, 0.2, 0.3]), "more than two classes"),
        (lambda: average_precision([0, 1, 2], [0.1, 0.2, 0.3]), "more than two classes"),
        (lambda: roc_auc([0, 1], [0.1, 0.2, 0.3]), "differ in length"),
        (lambda: roc_auc([0, 1, 2], [[0.5, 0.5, 0.0]] * 3), "multi_class='ovr'"),
        (lambda: roc_auc([0, 1, 2], [[0.5, 0.6, 0.0]] * 3, multi_class="ovr"), "sum to 1"),
        (lambda: roc_auc([0, 1, 2], [[1.0, 0, 0]] * 3, multi_class="ovr", max_fpr=0.5), "partial"),
        (lambda: roc_auc(["a", "b"], [[1.0, 0, 0]] * 2, multi_class="ovr"), "labels="),
        (
            lambda: roc_auc([0, 5], [[1.0, 0], [0, 1.0]], multi_class="ovr", labels=[0, 1]),
            "not in labels",
        ),
        (lambda: roc_auc([[0, 2], [1, 0]], [[0.1, 0.2], [0.3, 0.4]]), "0/1 indicator"),
        (lambda: roc_auc([[0, 1], [1, 0]], [0.1, 0.2]), "1-D"),
        (lambda: roc_auc([[0, 1], [1, 0]], [[0.1, 0.2, 0.3]] * 2), "differ in shape"),
        (lambda: roc_curve(["a", "b"], [0.1, 0.2]), "pos_label"),
        (lambda: roc_curve([1, 2], [0.1, 0.2]), "pos_label"),
        (lambda: average_precision(["a", "b"], [0.1, 0.2]), "pos_label is not a label"),
        (lambda: average_precision([[0, 1], [1, 0]], [[0.1, 0.2]] * 2, pos_label=0), "fixed to 1"),
        (lambda: roc_curve([[0, 1], [1, 0]], [[0.1, 0.2]] * 2), "1-D scores"),
        (lambda: break_even_point([0, 1], [0.1, 0.2], sample_weight=[0, 0]), "zero weight"),
        (lambda: roc_auc([0, 1], [["a"], ["b"]]), "numeric"),
    ],
)
def test_bad_input(call: Any, match: str) -> None:
    with pytest.raises(InputError, match=match):
        call()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"multi_class": "ovo", "average": "micro"}, "one-vs-one ROC AUC averages"),
        ({"multi_class": "both"}, "unknown multi_class"),
        ({"max_fpr": 0.0}, "max_fpr"),
        ({"max_fpr": 1.5}, "max_fpr"),
        ({"average": "mean"}, "unknown average"),
        ({"labels": [1, 1]}, "duplicates"),
        ({"labels": [2, 1]}, "sorted"),
    ],
)
def test_bad_roc_auc_config(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        ROCAUC(**kwargs)


def test_bad_average_precision_config() -> None:
    with pytest.raises(ConfigError, match="unknown interpolation"):
        AveragePrecision(interpolation="voc")
    with pytest.raises(ConfigError, match="samples"):
        AveragePrecision(average="samples", interpolation="all")
    with pytest.raises(InputError, match="samples"):
        roc_auc([0, 1, 2], [[1.0, 0, 0]] * 3, multi_class="ovr", average="samples")


def test_caller_data_is_not_mutated() -> None:
    y = np.array([0, 1, 0, 1])
    s = np.array([-0.0, 0.4, 0.4, 0.9])
    w = np.array([1.0, 0.0, 2.0, 1.0])
    copies = (y.copy(), s.copy(), w.copy())
    roc_curve(y, s, sample_weight=w)
    average_precision(y, s, sample_weight=w)
    for a, b in zip((y, s, w), copies, strict=True):
        assert np.array_equal(a, b) and np.signbit(a).tolist() == np.signbit(b).tolist()
