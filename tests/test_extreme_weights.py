"""Sample weights near the ends of float64: ROC AUC and AP of tiny weights, merged states past
the largest float, and the weighted one-vs-rest average of a tiny support."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import sklearn.metrics as reference
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit
from scorekit import classification as C
from scorekit.compat import sklearn as compat
from scorekit.errors import InputError


def _binary(seed: int, n: int) -> tuple[Any, Any, Any]:
    rng = np.random.default_rng(seed)
    y = np.r_[0, 1, rng.integers(0, 2, n - 2)]
    return y, rng.random(n).round(2), rng.random(n) + 0.1


def _multiclass(seed: int, n: int) -> tuple[Any, Any, Any]:
    rng = np.random.default_rng(seed)
    y = np.r_[0, 1, 2, rng.integers(0, 3, n - 3)]
    p = rng.random((n, 3))
    return y, p / p.sum(axis=1, keepdims=True), rng.random(n) + 0.1


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(4, 60), st.sampled_from([1e-160, 1e-300, 1e150]))
def test_binary_auc_and_ap_of_scaled_weights(seed: int, n: int, scale: float) -> None:
    y, s, w = _binary(seed, n)
    for ours, theirs in (
        (C.roc_auc, reference.roc_auc_score),
        (C.average_precision, reference.average_precision_score),
    ):
        want = theirs(y, s, sample_weight=w)
        assert ours(y, s, sample_weight=w * scale) == pytest.approx(want, rel=1e-12, abs=1e-15)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(6, 60), st.sampled_from([1e-160, 1e-300]))
def test_multiclass_auc_of_scaled_weights(seed: int, n: int, scale: float) -> None:
    y, p, w = _multiclass(seed, n)
    for multi_class in ("ovr", "ovo"):
        for average in ("macro", "weighted"):
            # scikit-learn refuses sample_weight one-vs-one: equal weights there
            weights = w if multi_class == "ovr" else None
            want = reference.roc_auc_score(
                y, p, multi_class=multi_class, average=average, sample_weight=weights
            )
            scaled = (w if multi_class == "ovr" else np.ones(n)) * scale
            got = C.roc_auc(y, p, multi_class=multi_class, average=average, sample_weight=scaled)
            assert got == pytest.approx(want, rel=1e-12), (multi_class, average)


@pytest.mark.parametrize(
    ("spec", "y", "s"),
    [
        ("roc_auc", [0, 1] * 6, np.linspace(0, 1, 12)),
        ("average_precision", [0, 1] * 6, np.linspace(0, 1, 12)),
        ("roc_auc", [0, 1] * 6, np.full(12, 0.5)),
        ("roc_auc:multi_class=ovr,average=weighted", [0, 1, 2] * 4, None),
    ],
)
def test_states_merged_past_float64_are_refused(spec: str, y: list[int], s: Any) -> None:
    """Chunks whose weights each fit but add up past float64: the error a single batch of
    them gets, not a nan or 0 (tied scores put the overflow in one entry)."""
    if s is None:
        _, s, _ = _multiclass(3, 12)
        s = s[: len(y)]
    metric = scorekit.parse_metric(spec)
    chunk = metric.summarize(y, s, sample_weight=np.full(len(y), 1e307))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's, while the states add up
        merged = metric.merge(chunk, chunk)
    name = spec.split(":")[0]
    with pytest.raises(InputError, match=f"^{name}: the sum of sample weights overflows float64"):
        metric.compute(merged)
    with pytest.raises(InputError, match=f"^{name}: the sum of sample weights overflows float64"):
        metric.summarize(y + y, np.r_[s, s], sample_weight=np.full(2 * len(y), 1e307))


def test_weighted_one_vs_rest_average_of_a_tiny_support() -> None:
    """scikit-learn takes a total support within 1e-8 of 0 as none (the value 0); scorekit
    weighs it, and its compat layer returns scikit-learn's 0."""
    y, p, w = _multiclass(5, 30)
    tiny = w * 1e-12
    want = reference.roc_auc_score(y, p, multi_class="ovr", average="weighted", sample_weight=w)
    got = C.roc_auc(y, p, multi_class="ovr", average="weighted", sample_weight=tiny)
    assert got == pytest.approx(want, rel=1e-12)
    sk = reference.roc_auc_score(y, p, multi_class="ovr", average="weighted", sample_weight=tiny)
    assert sk == 0
    assert (
        compat.roc_auc_score(y, p, multi_class="ovr", average="weighted", sample_weight=tiny) == 0
    )
    want = reference.average_precision_score(y, p, average="weighted", sample_weight=w)
    got = C.average_precision(y, p, average="weighted", sample_weight=tiny)
    assert got == pytest.approx(want, rel=1e-12)
    assert reference.average_precision_score(y, p, average="weighted", sample_weight=tiny) == 0
    assert compat.average_precision_score(y, p, average="weighted", sample_weight=tiny) == 0


@pytest.mark.parametrize("spec", ["roc_auc:bins=16", "average_precision:bins=16"])
def test_binned_values_of_tiny_weights(spec: str) -> None:
    """Bin weights scaled by a power of two: tiny weights give the value of ordinary ones."""
    y, s, w = _binary(9, 50)
    metric = scorekit.parse_metric(spec)
    want = metric.score(y, s, sample_weight=w)
    for scale in (1e-160, 1e-300):
        got = metric.score(y, s, sample_weight=w * scale)
        assert got.value == pytest.approx(want.value, rel=1e-12)
        assert got.error_bound == pytest.approx(want.error_bound, rel=1e-9)
