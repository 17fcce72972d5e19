"""Merging many exact score histograms at once equals merging them pairwise in order, bit for bit.

``ScoreHistogram.merge_all`` (the stream engine's fan-in and ``scorekit merge``
of many state files) sorts the runs of all the states together; its rows, and
its sums of float weights, must be those of the pairwise merges in order and
those of a plain reference that adds each state's rows one after the other.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.classification import ROCAUC
from scorekit.classification._histogram import ScoreHistogram

FIELDS = ("key", "score", "counts", "labels", "n_samples", "sample_values", "sample_weights")


def _scores(rng: np.random.Generator, n: int, style: int) -> np.ndarray:
    if style == 0:  # distinct float64
        return rng.random(n)
    if style == 1:  # few values: ties within and across states
        return rng.integers(0, 5, n).astype(np.float64)
    if style == 2:  # float32 scores
        return rng.random(n).astype(np.float32)
    if style == 3:  # huge and tiny magnitudes, signed zeros
        return np.where(rng.random(n) < 0.3, -0.0, rng.choice([1e-300, 1e300, -2.5, 0.5], n))
    # mostly distinct with a few repeats (merged as plain values)
    s = rng.random(n)
    return np.where(rng.random(n) < 0.1, 0.5, s)


def _state(rng: np.random.Generator, task: str, weighted: bool, n: int) -> ScoreHistogram:
    style = int(rng.integers(0, 5))
    s = _scores(rng, n, style)
    w = None
    if weighted:
        w = rng.random(n) * 10.0 ** rng.integers(-6, 6, n).astype(np.float64)
        w[rng.random(n) < 0.1] = 0.0
    if task == "binary":
        labels = rng.choice(np.array([0, 1, 2, 7]), int(rng.integers(1, 4)), replace=False)
        y = rng.choice(labels, n)
        state: Any = ROCAUC()._histogram(y, s, w)
        return state
    raw = rng.integers(1, 4, (n, 3)).astype(np.float64)
    probs = raw / raw.sum(axis=1, keepdims=True)
    y = rng.integers(0, 3, n)
    metric = ROCAUC(multi_class="ovo" if task == "ovo" else "ovr", labels=(0, 1, 2))
    state = metric._histogram(y, probs, w)
    return state


def _reference(states: list[ScoreHistogram]) -> dict[tuple[Any, float], list[Any]]:
    """Each state's rows added one state after the other: (label or column, score) -> counts."""
    rows: dict[tuple[Any, float], list[Any]] = {}
    for state in states:
        if not state.task:
            continue
        for k, s, c in zip(
            state.key.tolist(), state.score.tolist(), state.counts.tolist(), strict=True
        ):
            name = state.labels[k].item() if state.task == "binary" else k
            if (name, s) in rows:  # -0.0 and 0.0 are one score; the first keeps its sign
                rows[(name, s)] = [a + b for a, b in zip(rows[(name, s)], c, strict=True)]
            else:
                rows[(name, s)] = list(c)
    return rows


def _same(a: Any, b: Any) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":  # bit for bit: -0.0 differs from 0.0
        return bool((a.view(np.uint8) == b.view(np.uint8)).all())
    return bool((a == b).all())


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    count=st.integers(1, 12),
    task=st.sampled_from(["binary", "multiclass", "ovo"]),
    weighted=st.booleans(),
    empty=st.booleans(),
)
def test_merge_all_equals_pairwise_merges_in_order(
    seed: int, count: int, task: str, weighted: bool, empty: bool
) -> None:
    rng = np.random.default_rng(seed)
    states = [_state(rng, task, weighted, int(rng.integers(1, 40))) for _ in range(count)]
    if empty:
        states.insert(int(rng.integers(0, count + 1)), ScoreHistogram.empty())
    together = ScoreHistogram.merge_all(states)
    pairwise = functools.reduce(lambda a, b: a.merge(b), states)
    for name in FIELDS:
        assert _same(getattr(together, name), getattr(pairwise, name)), name
    expected = _reference(states)
    rows = list(
        zip(together.key.tolist(), together.score.tolist(), together.counts.tolist(), strict=True)
    )
    assert len(rows) == len(expected)
    for k, s, c in rows:
        name = together.labels[k].item() if task == "binary" else k
        want = expected[(name, s)]
        assert np.array_equal(np.asarray(c), np.asarray(want)), (name, s)


def test_float_weights_of_many_states_add_up_first_state_first() -> None:
    # np.add.reduceat adds three or more weights pairwise, in another order than merges do
    rng = np.random.default_rng(3)
    states = [
        ROCAUC()._histogram(np.array([0, 1]), np.array([0.5, 0.5]), rng.random(2) * 10.0**k)
        for k in (-8, 3, -2, 7, 0, -5, 4, 1, -7)
    ]
    together = ScoreHistogram.merge_all(states)
    expected = [0.0, 0.0]
    for state in states:
        expected = [expected[j] + float(state.counts[j, 0]) for j in range(2)]
    assert together.counts[:, 0].tolist() == expected
    pairwise = functools.reduce(lambda a, b: a.merge(b), states)
    assert together.counts[:, 0].tolist() == pairwise.counts[:, 0].tolist()


def test_one_state_and_no_state() -> None:
    one = ROCAUC().summarize([0, 1, 1], [0.2, 0.4, 0.4])
    assert ScoreHistogram.merge_all([one]) is one
    assert not ScoreHistogram.merge_all([]).task
    assert ScoreHistogram.merge_all([ScoreHistogram.empty(), one, ScoreHistogram.empty()]) is one


def test_distinct_scores_merged_by_value_keep_counts_of_one_as_a_view() -> None:
    rng = np.random.default_rng(0)
    s = rng.permutation(1000) / 1000
    y = rng.integers(0, 2, 1000)
    states = [ROCAUC().summarize(y[i::5], s[i::5]) for i in range(5)]
    together = ScoreHistogram.merge_all(states)
    assert together.counts.strides[0] == 0 and together.counts.shape == (1000, 1)
    whole = ROCAUC().summarize(y, s)
    assert _same(together.score, whole.score) and _same(together.key, whole.key)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(2, 9))
def test_states_held_in_smaller_types_merge_to_the_same_rows(seed: int, count: int) -> None:
    # float32 scores and uint8 counts (as a state file stores them) give float64 and int64
    rng = np.random.default_rng(seed)
    states = []
    for _ in range(count):
        n = int(rng.integers(1, 300))
        s = rng.choice(rng.random(8), n).astype(np.float32)
        states.append(ROCAUC()._histogram(rng.integers(0, 2, n), s, None))
    small = [
        dataclasses.replace(
            x,
            score=x.score.astype(np.float32),
            counts=x.counts.astype(np.uint8) if x.counts.strides[0] else x.counts,
        )
        for x in states
    ]
    together = ScoreHistogram.merge_all(small)
    expected = ScoreHistogram.merge_all(states)
    for name in FIELDS:
        assert _same(getattr(together, name), getattr(expected, name)), name
