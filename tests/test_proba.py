"""Log loss and Brier score against scikit-learn, merging, and bad input."""

from __future__ import annotations

import json
import pickle
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from sklearn import metrics as skm

from scorekit.classification import Brier, LogLoss, brier, log_loss
from scorekit.core import State, parse_metric
from scorekit.errors import ConfigError, InputError, StateMismatchError

RTOL = 1e-12
# the Brier state sums each row's squared errors for every candidate class through prefix
# and suffix sums of squares, so a loss near 0 (a probability near 1 for the true class)
# keeps an absolute error of a few float64 steps of 1: compared relatively above that
BRIER_ATOL = 1e-15


def close(a: float, b: float, rtol: float = RTOL, atol: float = 0.0) -> bool:
    return bool(np.isclose(a, b, rtol=rtol, atol=atol))


@st.composite
def binary_proba(draw: st.DrawFn) -> tuple[Any, Any, Any]:
    n = draw(st.integers(2, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    p = rng.random(n)
    p[rng.random(n) < 0.1] = 0.0
    p[rng.random(n) < 0.1] = 1.0
    if draw(st.booleans()):
        p = np.round(p, 1)
    w = None
    if draw(st.booleans()):
        w = rng.random(n) * 3
        w[rng.random(n) < 0.2] = 0.0
        w[0] = 1.0  # scikit-learn refuses all-zero weights
    return y, p, w


@st.composite
def class_proba(draw: st.DrawFn) -> tuple[Any, Any, Any]:
    n = draw(st.integers(5, 60))
    k = draw(st.integers(2, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    p = rng.random((n, k)) ** 3
    p /= p.sum(axis=1, keepdims=True)
    w = rng.random(n) * 2 + 0.1 if draw(st.booleans()) else None
    return y, p, w


@given(binary_proba(), st.booleans(), st.sampled_from([(0, 1), (-1, 1), (3, 7)]))
@example(  # one sample of weight 1, its true class at probability 1 - 6.7e-4: a loss of 4.5e-7
    (np.array([0, 1]), np.array([0.00066836, 0.0255214]), np.array([1.0, 0.0])), False, (0, 1)
)
def test_binary_log_loss_and_brier_match_sklearn(
    data: tuple[Any, Any, Any], normalize: bool, values: tuple[int, int]
) -> None:
    y01, p, w = data
    y = np.where(y01 == 1, values[1], values[0])
    assert close(
        log_loss(y, p, sample_weight=w, normalize=normalize),
        skm.log_loss(y, p, sample_weight=w, normalize=normalize),
    )
    assert close(
        brier(y, p, sample_weight=w),
        skm.brier_score_loss(y, p, sample_weight=w),
        atol=BRIER_ATOL,
    )
    assert close(
        brier(y, p, sample_weight=w, pos_label=values[0], scale_by_half=False),
        skm.brier_score_loss(y, p, sample_weight=w, pos_label=values[0], scale_by_half=False),
        atol=BRIER_ATOL,
    )


@given(class_proba(), st.sampled_from(["auto", True, False]))
def test_multiclass_match_sklearn(data: tuple[Any, Any, Any], half: Any) -> None:
    y, p, w = data
    names = np.array(["ant", "bee", "cat", "dog", "eel"])[y]
    for labels in (y, names):
        assert close(log_loss(labels, p, sample_weight=w), skm.log_loss(labels, p, sample_weight=w))
        assert close(
            brier(labels, p, sample_weight=w, scale_by_half=half),
            skm.brier_score_loss(labels, p, sample_weight=w, scale_by_half=half),
            atol=BRIER_ATOL,
        )


def test_worked_examples() -> None:
    y = ["spam", "ham", "ham", "spam"]
    p = [[0.1, 0.9], [0.9, 0.1], [0.8, 0.2], [0.35, 0.65]]
    assert close(log_loss(y, p), skm.log_loss(y, p))
    assert brier([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3]) == pytest.approx(0.0375, rel=1e-12)
    assert brier(["spam", "ham", "ham", "spam"], [0.1, 0.9, 0.8, 0.3], pos_label="ham") == (
        pytest.approx(0.0375, rel=1e-12)
    )


def test_clipping_of_zero_and_one() -> None:
    eps = np.finfo(np.float64).eps
    assert log_loss([0, 1], [1.0, 0.0]) == pytest.approx(-np.log(eps), rel=1e-12)
    assert close(log_loss([0, 1], [1.0, 0.0]), skm.log_loss([0, 1], [1.0, 0.0]))
    assert log_loss([0, 1], [0.0, 1.0]) == pytest.approx(-np.log(1 - eps), rel=1e-9)


def test_labels_allow_absent_classes() -> None:
    y = [0, 2, 2]
    p = [[0.6, 0.3, 0.1], [0.1, 0.2, 0.7], [0.2, 0.2, 0.6]]
    assert close(log_loss(y, p, labels=[0, 1, 2]), skm.log_loss(y, p, labels=[0, 1, 2]))
    assert close(brier(y, p, labels=[0, 1, 2]), skm.brier_score_loss(y, p, labels=[0, 1, 2]))
    # integer labels within range(n_columns) name their column even if one is absent
    assert log_loss(y, p) == log_loss(y, p, labels=[0, 1, 2])


def test_single_class_chunks_merge_to_in_memory() -> None:
    y = np.array([2, 2, 5, 5, 2])
    p = np.array([0.1, 0.3, 0.8, 0.6, 0.4])
    for metric, ref in ((LogLoss(), skm.log_loss), (Brier(), skm.brier_score_loss)):
        merged = metric.merge(metric.summarize(y[:2], p[:2]), metric.summarize(y[2:], p[2:]))
        assert close(metric.compute(merged), ref(y, p))


@given(class_proba(), st.integers(0, 60))
def test_chunks_merge_to_in_memory(data: tuple[Any, Any, Any], cut: int) -> None:
    y, p, w = data
    cut = min(cut, len(y))
    for metric in (LogLoss(), Brier(), LogLoss(normalize=False)):
        a = metric.summarize(y[:cut], p[:cut], None if w is None else w[:cut])
        b = metric.summarize(y[cut:], p[cut:], None if w is None else w[cut:])
        whole = metric.score(y, p, sample_weight=w)
        assert close(metric.compute(metric.merge(b, a)), whole, 1e-12)
        assert metric.merge(metric.empty(), a).equals(a)


def test_state_round_trip() -> None:
    state = Brier(pos_label="y").summarize(["y", "n"], [0.3, 0.9], sample_weight=[1.0, 0.5])
    again = State.from_dict(json.loads(json.dumps(state.to_dict())))
    assert again.equals(state) and pickle.loads(pickle.dumps(state)).equals(state)


def test_merge_of_different_shapes_fails() -> None:
    m = LogLoss()
    with pytest.raises(StateMismatchError, match="differently shaped"):
        m.merge(m.summarize([0, 1], [0.2, 0.8]), m.summarize([0, 1], [[0.5, 0.5], [0.4, 0.6]]))


def test_registry() -> None:
    assert parse_metric("log_loss").inputs == "proba"
    assert parse_metric("brier").inputs == "binary_proba"
    assert parse_metric("brier").info.higher_is_better is False


def test_unsorted_labels_warn_and_use_sorted_order() -> None:
    y, p = [0, 1, 1], [[0.7, 0.3], [0.2, 0.8], [0.4, 0.6]]
    with pytest.warns(UserWarning, match="sorted order"):
        ours = log_loss(y, p, labels=[1, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert close(ours, skm.log_loss(y, p, labels=[1, 0]))


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: log_loss([], []), "empty input"),
        (lambda: brier([], []), "empty input"),
        (lambda: log_loss([0, 1], [0.2, np.nan]), "nan at index 1"),
        (lambda: log_loss([0, 1], [0.2, 1.5]), r"1.5 at index 1"),
        (lambda: brier([0, 1], [-0.1, 0.5]), r"-0.1 at index 0"),
        (lambda: log_loss([0, 1], [[0.5, 0.6], [0.5, 0.5]]), "row 0 sums to"),
        (lambda: brier([0, 1, 2], [[0.5, 0.6, 0.0]] * 3), "sum to 1"),
        (lambda: log_loss([0, 1], [0.2, 0.3], sample_weight=[1, -2]), "negative"),
        (lambda: log_loss([0, 1], [0.2, 0.3], sample_weight=[0, 0]), "sums to zero"),
        (lambda: log_loss([0, 1], [0.2, 0.3, 0.4]), "differ in length"),
        (lambda: log_loss(["a", "a"], [0.2, 0.3]), "only one label"),
        (lambda: log_loss([0, 1, 2], [0.2, 0.3, 0.1]), "number of classes"),
        (lambda: log_loss(["a", "b"], [[1.0, 0, 0]] * 2), "number of classes"),
        (lambda: log_loss([0, 1, 7], [[1.0, 0, 0]] * 3, labels=[0, 1, 2]), "not in labels"),
        (lambda: brier([0, 1, 2], [0.2, 0.3, 0.1]), "more than two classes"),
        (lambda: brier(["a", "b"], [0.2, 0.3]), "pos_label is needed"),
        (lambda: log_loss([[1, 1], [1, 0]], [[0.5, 0.5]] * 2), "must be one-hot"),
    ],
)
def test_bad_input(call: Any, match: str) -> None:
    with pytest.raises(InputError, match=match):
        call()


def test_bad_config() -> None:
    with pytest.raises(ConfigError, match="scale_by_half"):
        Brier(scale_by_half="yes")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="duplicates"):
        log_loss([0, 1], [0.5, 0.5], labels=[0, 0])


def test_caller_data_is_not_mutated() -> None:
    p = np.array([[0.0, 1.0], [0.3, 0.7]])
    w = np.array([1.0, 2.0])
    copies = (p.copy(), w.copy())
    log_loss([0, 1], p, sample_weight=w)
    brier([0, 1], p, sample_weight=w)
    assert np.array_equal(p, copies[0]) and np.array_equal(w, copies[1])
