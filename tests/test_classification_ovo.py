"""One-vs-one ROC AUC, the DET curve and one-hot Brier scores against scikit-learn."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import test_engine_properties as engine_checks
import test_properties as property_checks
from scorekit import classification as C
from scorekit.core import parse_metric
from scorekit.errors import ConfigError, InputError, UndefinedMetricWarning


def _close(a, b):
    return np.allclose(
        np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-12, atol=0, equal_nan=True
    )


@st.composite
def multiclass_probabilities(draw):
    n = draw(st.integers(3, 40))
    c = draw(st.integers(3, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    t = rng.integers(0, c, n)
    t[:2] = [0, 1]
    raw = rng.integers(1, 4, (n, c)).astype(float) if draw(st.booleans()) else rng.random((n, c))
    return t, raw / raw.sum(axis=1, keepdims=True), c


@settings(max_examples=15, deadline=None)
@given(multiclass_probabilities(), st.sampled_from(["macro", "weighted"]))
def test_ovo_agrees_with_sklearn_in_memory_and_merged(data, average):
    t, s, c = data
    labels = list(range(c))
    want = skm.roc_auc_score(t, s, multi_class="ovo", average=average, labels=labels)
    got = C.roc_auc(t, s, multi_class="ovo", average=average, labels=labels)
    metric = C.ROCAUC(multi_class="ovo", average=average, labels=labels)
    cut = len(t) // 3
    merged = metric.compute(
        metric.merge(metric.summarize(t[:cut], s[:cut]), metric.summarize(t[cut:], s[cut:]))
    )
    assert _close(got, want)
    assert _close(merged, want)


def test_ovo_string_classes_weights_and_errors():
    t = ["b", "a", "c", "a", "c"]
    s = np.array(
        [[0.2, 0.5, 0.3], [0.6, 0.2, 0.2], [0.1, 0.2, 0.7], [0.3, 0.3, 0.4], [0.5, 0.1, 0.4]]
    )
    assert _close(C.roc_auc(t, s, multi_class="ovo"), skm.roc_auc_score(t, s, multi_class="ovo"))
    # integer weights count a sample as repeated
    w = np.array([1, 2, 1, 3, 1])
    repeated = np.repeat(np.arange(5), w)
    want = skm.roc_auc_score(
        np.array(t)[repeated], s[repeated], multi_class="ovo", average="weighted"
    )
    assert _close(C.roc_auc(t, s, multi_class="ovo", average="weighted", sample_weight=w), want)
    with pytest.raises(ConfigError, match="'macro' or 'weighted' only"):
        C.ROCAUC(multi_class="ovo", average="micro")
    with pytest.raises(ConfigError, match="max_fpr"):
        C.ROCAUC(multi_class="ovo", max_fpr=0.5)
    with pytest.raises(ConfigError, match="unknown multi_class"):
        C.ROCAUC(multi_class="ovx")
    with pytest.raises(InputError, match="rows sum to 1"):
        C.roc_auc([0, 1, 2], [[0.5, 0.5, 0.5]] * 3, multi_class="ovo")
    with pytest.warns(UndefinedMetricWarning, match="one class"):
        assert math.isnan(C.roc_auc([1, 1], [[0.2, 0.5, 0.3]] * 2, multi_class="ovo"))


def test_ovo_configuration_passes_the_generic_checks(tmp_path: Path) -> None:
    for spec in ("roc_auc:multi_class=ovo", "top_k_accuracy:k=1"):
        metric = parse_metric(spec)
        property_checks.test_metric_metadata(metric)
        property_checks.test_merge_laws(metric)
        property_checks.test_state_round_trip_and_bounds(metric)
        folder = tmp_path / spec.replace(":", "-").replace("=", "-")
        folder.mkdir()
        engine_checks.test_in_memory_equals_streamed_tables_and_files(metric, folder)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans(), st.booleans())
def test_det_curve_agrees_with_sklearn(seed, weighted, drop):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 30))
    t = rng.integers(0, 2, n)
    t[:2] = [0, 1]
    s = rng.integers(0, 5, n) / 4 if seed % 2 else rng.random(n)
    w = rng.integers(0, 3, n).astype(float) if weighted else None
    if w is not None:
        w[:2] = 1
    want = skm.det_curve(t, s, sample_weight=w, drop_intermediate=drop)
    got = C.det_curve(t, s, sample_weight=w, drop_intermediate=drop)
    for a, b in zip(got, want, strict=True):
        assert a.shape == b.shape
        assert _close(a, b)


def test_det_curve_errors():
    with pytest.raises(InputError, match="two classes"):
        C.det_curve([1, 1, 1], [0.1, 0.2, 0.3])
    with pytest.raises(InputError, match="pos_label is needed"):
        C.det_curve(["a", "b"], [0.1, 0.2])
    curve = C.det_curve(["a", "b"], [0.1, 0.2], pos_label="b")
    assert _close(curve.fnr, skm.det_curve(["a", "b"], [0.1, 0.2], pos_label="b")[1])


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 4), st.booleans())
def test_brier_and_log_loss_take_one_hot_y_true(seed, k, weighted):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(k, 30))
    classes = rng.integers(0, k, n)
    classes[:k] = np.arange(k)
    one_hot = np.eye(k, dtype=int)[classes]
    raw = rng.random((n, k)) + 1e-3
    p = raw / raw.sum(axis=1, keepdims=True)
    w = rng.random(n) if weighted else None
    assert _close(
        C.brier(one_hot, p, sample_weight=w), skm.brier_score_loss(one_hot, p, sample_weight=w)
    )
    assert _close(
        C.log_loss(one_hot, p, sample_weight=w), skm.log_loss(one_hot, p, sample_weight=w)
    )


def test_one_hot_errors():
    p = np.array([[0.8, 0.2], [0.3, 0.7]])
    with pytest.raises(InputError, match="must be one-hot; got row 0 is \\[1, 1\\]"):
        C.brier([[1, 1], [0, 1]], p)
    with pytest.raises(InputError, match="one column per class"):
        C.brier([[1, 0], [0, 1]], p[:, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert C.brier([[1, 0], [0, 1]], p) == C.brier([0, 1], p)
