"""Calibration metrics against scikit-learn's calibration_curve, chunked against in memory."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.calibration import calibration_curve as sk_curve

import scorekit
from scorekit.classification import (
    CalibrationHistogram,
    ExpectedCalibrationError,
    MaxCalibrationError,
    calibration_curve,
    expected_calibration_error,
    max_calibration_error,
)
from scorekit.errors import ConfigError, InputError, StateMismatchError


def _reference_bins(conf, hit, n_bins, strategy, weight=None):
    """scikit-learn's bins (calibration_curve's code path), with each bin's weight."""
    conf = np.asarray(conf, dtype=float)
    weight = np.ones(conf.size) if weight is None else np.asarray(weight, dtype=float)
    if strategy == "quantile":
        edges = np.percentile(conf, np.linspace(0, 1, n_bins + 1) * 100)
    else:
        edges = np.linspace(0.0, 1.0, n_bins + 1)
    ids = np.searchsorted(edges[1:-1], conf)
    w = np.bincount(ids, weights=weight, minlength=n_bins)
    true = np.bincount(ids, weights=weight * hit, minlength=n_bins)
    pred = np.bincount(ids, weights=weight * conf, minlength=n_bins)
    keep = w > 0
    return true[keep] / w[keep], pred[keep] / w[keep], w[keep]


def _reference_ece(conf, hit, n_bins, strategy, weight=None):
    true, pred, w = _reference_bins(conf, hit, n_bins, strategy, weight)
    gaps = np.abs(true - pred)
    return float(np.sum(gaps * w) / np.sum(w)), float(gaps.max())


@st.composite
def binary_data(draw, min_size=1):
    n = draw(st.integers(min_size, 40))
    decimals = draw(st.sampled_from([1, 2, 6]))
    y = np.asarray(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    p = np.round(np.asarray(draw(st.lists(st.floats(0, 1), min_size=n, max_size=n))), decimals)
    return y, p


@settings(max_examples=60, deadline=None)
@given(binary_data(), st.integers(1, 12), st.sampled_from(["uniform", "quantile"]))
def test_curve_equals_scikit_learn(data, n_bins, strategy):
    y, p = data
    got = calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
    want = sk_curve(y, p, n_bins=n_bins, strategy=strategy)
    np.testing.assert_allclose(got.prob_true, want[0], rtol=1e-12, atol=0)
    np.testing.assert_allclose(got.prob_pred, want[1], rtol=1e-12, atol=1e-300)


@settings(max_examples=40, deadline=None)
@given(binary_data(), st.integers(1, 12), st.sampled_from(["uniform", "quantile"]))
def test_binary_ece_and_mce_equal_the_bins_of_scikit_learn(data, n_bins, strategy):
    y, p = data
    ece, mce = _reference_ece(p, y == 1, n_bins, strategy)
    opts = {"n_bins": n_bins, "strategy": strategy}
    assert expected_calibration_error(y, p, **opts) == pytest.approx(ece, rel=1e-12, abs=1e-15)
    assert max_calibration_error(y, p, **opts) == pytest.approx(mce, rel=1e-12, abs=1e-15)


@st.composite
def multiclass_data(draw):
    n = draw(st.integers(1, 30))
    k = draw(st.integers(2, 4))
    y = np.asarray(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    raw = np.asarray(draw(st.lists(st.integers(0, 5), min_size=n * k, max_size=n * k)), float)
    raw = raw.reshape(n, k) + 0.5
    return y, raw / raw.sum(axis=1, keepdims=True)


@settings(max_examples=40, deadline=None)
@given(multiclass_data(), st.integers(1, 8), st.sampled_from(["uniform", "quantile"]))
def test_top_label_and_class_wise(data, n_bins, strategy):
    y, p = data
    opts = {"n_bins": n_bins, "strategy": strategy}
    ece, mce = _reference_ece(p.max(axis=1), p.argmax(axis=1) == y, n_bins, strategy)
    assert expected_calibration_error(y, p, method="top_label", **opts) == pytest.approx(
        ece, rel=1e-12, abs=1e-15
    )
    assert max_calibration_error(y, p, method="top_label", **opts) == pytest.approx(
        mce, rel=1e-12, abs=1e-15
    )
    per_class = [_reference_ece(p[:, c], y == c, n_bins, strategy) for c in range(p.shape[1])]
    assert expected_calibration_error(y, p, method="class_wise", **opts) == pytest.approx(
        np.mean([e for e, _ in per_class]), rel=1e-12, abs=1e-15
    )
    assert max_calibration_error(y, p, method="class_wise", **opts) == pytest.approx(
        np.mean([m for _, m in per_class]), rel=1e-12, abs=1e-15
    )


@settings(max_examples=30, deadline=None)
@given(
    binary_data(min_size=2),
    st.sampled_from(["uniform", "quantile"]),
    st.integers(1, 5),
    st.data(),
)
def test_chunked_equals_in_memory(data, strategy, n_bins, draw):
    y, p = data
    cut = draw.draw(st.integers(1, y.size - 1))
    w = np.asarray(draw.draw(st.lists(st.integers(1, 3), min_size=y.size, max_size=y.size)), float)
    for cls in (ExpectedCalibrationError, MaxCalibrationError):
        metric = cls(n_bins=n_bins, strategy=strategy)
        whole = metric.summarize(y, p, w)
        merged = metric.summarize(y[cut:], p[cut:], w[cut:]).merge(
            metric.summarize(y[:cut], p[:cut], w[:cut])
        )
        assert merged.equals(whole)
        assert metric.compute(merged) == pytest.approx(metric.compute(whole), rel=1e-12, abs=1e-15)
    ece, _ = _reference_ece(p, y == 1, n_bins, strategy, w)
    got = expected_calibration_error(y, p, n_bins=n_bins, strategy=strategy, sample_weight=w)
    assert got == pytest.approx(ece, rel=1e-12, abs=1e-15)


def test_quantile_edges_of_a_merged_state_are_exact_percentiles():
    rng = np.random.default_rng(3)
    y, p = rng.integers(0, 2, 1001), np.round(rng.random(1001), 3)
    metric = ExpectedCalibrationError(n_bins=10, strategy="quantile")
    parts = [metric.summarize(y[i : i + 97], p[i : i + 97]) for i in range(0, 1001, 97)]
    state = parts[0]
    for part in parts[1:]:
        state = state.merge(part)
    edges = state.bins(10, "quantile").edges
    np.testing.assert_array_equal(edges, np.percentile(p, np.linspace(0, 1, 11) * 100))


def test_evaluate_in_chunks_equals_in_memory():
    rng = np.random.default_rng(5)
    table = {"y_true": rng.integers(0, 2, 300), "y_proba": np.round(rng.random(300), 2)}
    specs = ["ece", "mce:strategy=quantile", "expected_calibration_error:n_bins=4"]
    whole = scorekit.evaluate(table, specs)
    chunked = scorekit.evaluate(table, specs, chunk_size=37)
    for key in specs:
        assert chunked.values[key] == pytest.approx(whole.values[key], rel=1e-12, abs=1e-15)


def test_edge_cases():
    assert expected_calibration_error([1, 1], [1.0, 1.0]) == 0.0
    assert expected_calibration_error([0], [0.0]) == 0.0
    assert max_calibration_error([0, 1], [1.0, 0.0]) == 1.0
    got = calibration_curve([0, 1, 1], [0.5, 0.5, 0.5], n_bins=3, strategy="quantile")
    want = sk_curve([0, 1, 1], [0.5, 0.5, 0.5], n_bins=3, strategy="quantile")
    np.testing.assert_allclose(got.prob_true, want[0])
    assert calibration_curve(["a", "b"], [0.2, 0.9], pos_label="b").prob_true.tolist() == [0, 1]
    labels = ("cat", "dog", "eel")
    p = [[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]]
    named = expected_calibration_error(["cat", "eel", "eel"], p, method="top_label", labels=labels)
    assert named == pytest.approx(expected_calibration_error([0, 2, 2], p, method="top_label"))
    weighted = expected_calibration_error([0, 1, 1], [0.2, 0.6, 0.9], sample_weight=[0, 1, 1])
    assert weighted == pytest.approx(expected_calibration_error([1, 1], [0.6, 0.9]))


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: expected_calibration_error([0, 1], [0.2, 1.5]), InputError, "probabilities"),
        (lambda: expected_calibration_error([0, 1], [0.2, -0.1]), InputError, "probabilities"),
        (lambda: expected_calibration_error([], []), InputError, "empty input"),
        (lambda: expected_calibration_error(["a", "b"], [0.2, 0.4]), InputError, "pos_label"),
        (lambda: expected_calibration_error([1, 2], [0.2, 0.4]), InputError, "pos_label"),
        (lambda: expected_calibration_error([0, 1], [0.2, 0.4], n_bins=0), ConfigError, "n_bins"),
        (
            lambda: expected_calibration_error([0, 1], [0.2, 0.4], strategy="kmeans"),
            ConfigError,
            "strategy",
        ),
        (
            lambda: expected_calibration_error([0, 1], [0.2, 0.4], method="top_label"),
            InputError,
            "method",
        ),
        (
            lambda: expected_calibration_error(
                [0, 3], [[0.5, 0.5], [0.5, 0.5]], method="top_label"
            ),
            InputError,
            "columns",
        ),
        (
            lambda: expected_calibration_error(
                ["x", "y"], [[0.5, 0.5], [0.5, 0.5]], method="top_label", labels=("x", "z")
            ),
            InputError,
            "not in labels",
        ),
        (
            lambda: expected_calibration_error([0, 1], [0.2, 0.4], sample_weight=[0, 0]),
            InputError,
            "zero",
        ),
        (lambda: calibration_curve([0, 1], [0.2, 0.4], n_bins=2**21), ConfigError, "n_bins"),
    ],
)
def test_bad_input_names_the_problem(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_states_of_different_methods_do_not_merge():
    a = ExpectedCalibrationError().summarize([0, 1], [0.1, 0.9])
    b = ExpectedCalibrationError(method="top_label").summarize([0, 1], [[0.6, 0.4], [0.3, 0.7]])
    with pytest.raises(StateMismatchError, match="methods"):
        a.merge(b)
    assert CalibrationHistogram.empty().merge(a).n_samples == 2


def test_more_than_two_classes_for_binary_is_an_error_after_merging():
    metric = ExpectedCalibrationError(pos_label=1)
    state = metric.summarize([0, 1], [0.1, 0.9]).merge(metric.summarize([2], [0.3]))
    with pytest.raises(InputError, match="more than two classes"):
        metric.compute(state)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 60), st.integers(0, 2**32 - 1), st.sampled_from(["int64", "uint64", "int8"]))
def test_unweighted_states_equal_the_states_of_weights_one(n, seed, dtype):
    rng = np.random.default_rng(seed)
    k = 3
    y = rng.integers(0, k, n)
    proba = np.round(rng.dirichlet(np.ones(k), n), 2)
    proba[:, 0] = 1 - proba[:, 1:].sum(axis=1)
    proba = np.clip(proba, 0, 1)
    binary = np.round(rng.random(n), 1)
    cases = [
        (ExpectedCalibrationError(), (y % 2).astype(dtype), binary),
        (ExpectedCalibrationError(method="top_label"), y.astype(dtype), proba),
        (ExpectedCalibrationError(method="class_wise"), y.astype(dtype), proba),
    ]
    for metric, labels, scores in cases:
        plain = metric.summarize(labels, scores)
        ones = metric.summarize(labels, scores, sample_weight=np.ones(n))
        assert plain.equals(ones)
        assert plain.labels.dtype == labels.dtype
        assert plain.labels.tolist() == np.unique(labels).tolist()
    shifted = ExpectedCalibrationError(method="top_label", labels=(-5, 7, 300))
    labels = np.array([-5, 7, 300])[y]
    state = shifted.summarize(labels, proba)
    assert state.equals(shifted.summarize(labels, proba, sample_weight=np.ones(n)))
    assert state.labels.tolist() == np.unique(labels).tolist()
