"""labels= with average="samples" on indicator matrices, and Jaccard's labels, as scikit-learn."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import classification as C
from scorekit import multilabel as ML
from scorekit.errors import ConfigError, InputError, UndefinedMetricWarning


@st.composite
def indicator_pairs(draw):
    n = draw(st.integers(1, 25))
    k = draw(st.integers(2, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    t = rng.integers(0, 2, (n, k))
    p = rng.integers(0, 2, (n, k))
    size = draw(st.integers(1, k))
    labels = [int(v) for v in rng.choice(k, size=size, replace=False)]
    w = rng.random(n) if draw(st.booleans()) else None
    return t, p, labels, w


def _close(a, b):
    return np.allclose(
        np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-12, atol=0, equal_nan=True
    )


@settings(max_examples=15, deadline=None)
@given(indicator_pairs(), st.sampled_from(["warn", 0, 1, np.nan]))
def test_samples_average_with_labels_agrees_with_sklearn(data, zero_division):
    t, p, labels, w = data
    kw = {"average": "samples", "labels": labels, "sample_weight": w}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pairs = [
            (C.precision(t, p, zero_division=zero_division, **kw), skm.precision_score),
            (C.recall(t, p, zero_division=zero_division, **kw), skm.recall_score),
            (C.f1(t, p, zero_division=zero_division, **kw), skm.f1_score),
            (ML.f1(t, p, zero_division=zero_division, **kw), skm.f1_score),
        ]
        for got, ref in pairs:
            assert _close(got, ref(t, p, zero_division=zero_division, **kw))
        got = C.fbeta(t, p, beta=2.0, zero_division=zero_division, **kw)
        assert _close(got, skm.fbeta_score(t, p, beta=2.0, zero_division=zero_division, **kw))
        metric = C.F1(average="samples", labels=labels, zero_division=zero_division)
        cut = len(t) // 2
        parts = [
            metric.summarize(t[a:b], p[a:b], None if w is None else w[a:b])
            for a, b in ((0, cut), (cut, len(t)))
        ]
        want = skm.f1_score(t, p, zero_division=zero_division, **kw)
        assert _close(metric.compute(metric.merge(*parts)), want)


@settings(max_examples=15, deadline=None)
@given(indicator_pairs(), st.sampled_from(["samples", "micro", "macro", "weighted", None]))
def test_jaccard_labels_agree_with_sklearn(data, average):
    t, p, labels, w = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = skm.jaccard_score(
            t, p, average=average, labels=labels, sample_weight=w, zero_division=0
        )
        got = ML.jaccard(t, p, average=average, labels=labels, sample_weight=w, zero_division=0)
    assert _close(got, want)


def test_labels_errors():
    t, p = [[1, 0, 1], [0, 1, 0]], [[1, 1, 0], [0, 1, 1]]
    with pytest.raises(
        InputError, match=r"column indices; got \[3\], expected integers in \[0, 3\)"
    ):
        C.f1(t, p, average="samples", labels=[3])
    with pytest.raises(ConfigError, match="distinct column indices"):
        ML.Jaccard(labels=[0, 0])
    metric = C.Precision(average="samples", labels=[0])
    other = C.Precision(average="samples")
    with pytest.raises(ConfigError, match="other label columns"):
        metric.compute(other.summarize(t, p))
    with pytest.warns(UndefinedMetricWarning):
        assert C.precision(t, p, average="samples", labels=[0]) == 0.5
