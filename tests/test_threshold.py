"""best_threshold against scikit-learn's metric values at each threshold."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import classification as C
from scorekit.core import parse_metric
from scorekit.errors import ConfigError, InputError, UndefinedMetricWarning


def _near(a, b):
    return abs(a - b) <= 1e-12 * max(1.0, abs(b))


@st.composite
def scored(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = int(rng.integers(2, 30))
    t = rng.integers(0, 2, n)
    t[:2] = [0, 1]
    s = rng.integers(0, 6, n) / 5 if draw(st.booleans()) else rng.random(n)
    w = rng.random(n) + 0.1 if draw(st.booleans()) else None
    return t, s, w


@settings(max_examples=15, deadline=None)
@given(scored())
def test_every_objective_agrees_with_sklearn(data):
    t, s, w = data
    values, thresholds = skm.metric_at_thresholds(
        t, s, skm.f1_score, sample_weight=w, metric_params={"zero_division": 0}
    )
    i = int(np.argmax(values))
    choice = C.best_threshold(t, s, sample_weight=w)
    assert choice.threshold == thresholds[i]
    assert _near(choice.value, values[i])
    predicted = (s >= choice.threshold).astype(int)
    assert _near(choice.precision, skm.precision_score(t, predicted, sample_weight=w))
    assert _near(choice.recall, skm.recall_score(t, predicted, sample_weight=w))
    assert _near(choice.accuracy, skm.accuracy_score(t, predicted, sample_weight=w))
    assert _near(choice.specificity, skm.recall_score(t, predicted, pos_label=0, sample_weight=w))

    fpr, tpr, roc_thresholds = skm.roc_curve(t, s, sample_weight=w, drop_intermediate=False)
    j = tpr[1:] - fpr[1:]
    i = int(np.argmax(j))
    choice = C.best_threshold(t, s, sample_weight=w, objective="youden")
    assert choice.threshold == roc_thresholds[1:][i]
    assert _near(choice.value, j[i])

    tns, fps, fns, tps, cm_thresholds = skm.confusion_matrix_at_thresholds(t, s, sample_weight=w)
    cost = (2 * fps + 3 * fns) / (tns + fps + fns + tps)
    i = int(np.argmin(cost))
    choice = C.best_threshold(t, s, sample_weight=w, objective="cost", cost_fp=2.0, cost_fn=3.0)
    assert choice.threshold == cm_thresholds[i]
    assert _near(choice.value, cost[i])
    assert _near(choice.tp, tps[i])
    assert _near(choice.fp, fps[i])

    metric = C.BestThreshold()
    cut = len(t) // 2
    halves = [
        metric.summarize(t[a:b], s[a:b], None if w is None else w[a:b])
        for a, b in ((0, cut), (cut, len(t)))
    ]
    merged = metric.compute(metric.merge(*halves))
    whole = C.best_threshold(t, s, sample_weight=w)
    assert merged.threshold == whole.threshold
    assert all(_near(a, b) for a, b in zip(merged, whole, strict=True))


def test_edge_cases_and_errors():
    with pytest.warns(UndefinedMetricWarning, match="no negative sample"):
        choice = C.best_threshold([1, 1], [0.2, 0.7])
    assert (choice.threshold, choice.f1, choice.specificity) == (0.2, 1.0, 0.0)
    assert parse_metric("best_threshold:youden") == C.BestThreshold(objective="youden")
    with pytest.raises(ConfigError, match="unknown objective"):
        C.BestThreshold(objective="auc")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="invalid cost_fn"):
        C.BestThreshold(cost_fn=-1.0)
    with pytest.raises(InputError, match="pos_label is needed"):
        C.best_threshold(["a", "b"], [0.1, 0.2])
    with pytest.raises(InputError, match="needs 1-D scores"):
        C.best_threshold([0, 1], [[0.1, 0.9], [0.2, 0.8]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert C.best_threshold(["a", "b"], [0.1, 0.2], pos_label="b").threshold == 0.2
