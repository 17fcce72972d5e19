"""DeLong's interval of ROC AUC read from the exact score state, whole or in score ranges.

The state's interval is compared with the per-unit arrays' (``delong_interval(y_true,
score)``) to 1e-12 relative, its AUC with ``ROCAUC().score`` with ``==``, and its
variance with an exact rational computation from every positive-negative pair; the
variance is the same, bit for bit, whatever the cut points and chunks merged.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.classification import F1, ROCAUC, ScoreHistogram, ScoreRanges
from scorekit.classification._ranges_delong import ranges_delong
from scorekit.core import State
from scorekit.errors import ConfigError, InputError
from scorekit.statefiles import load_states, save_states
from scorekit.stats import analytic_interval, delong_interval

REL, ABS = 1e-12, 1e-15


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=REL, abs_tol=ABS)


def _same_interval(found: Any, expected: Any) -> None:
    assert found.method == expected.method == "delong"
    assert found.confidence == expected.confidence
    for name in ("value", "low", "high"):
        a, b = getattr(found, name), getattr(expected, name)
        assert _close(a, b), (name, a, b)


def _pair_moments(y: Any, s: Any, positive: Any) -> tuple[Fraction, Fraction]:
    """AUC and DeLong's variance, exact, from the comparison of every positive with every
    negative (ties count 1/2)."""
    y, s = np.asarray(y), np.asarray(s, dtype=np.float64)
    pos, neg = s[y == positive], s[y != positive]
    m, n = pos.size, neg.size
    # twice the wins of each unit: over all negatives (positives) and ties once
    wins = 2 * (pos[:, None] > neg[None, :]).astype(np.int64) + (pos[:, None] == neg[None, :])
    v10 = [Fraction(int(w), 2 * n) for w in wins.sum(axis=1)]
    v01 = [Fraction(int(w), 2 * m) for w in wins.sum(axis=0)]
    auc = sum(v10, Fraction(0)) / m
    s10 = sum(((v - auc) ** 2 for v in v10), Fraction(0)) / (m - 1)
    s01 = sum(((v - auc) ** 2 for v in v01), Fraction(0)) / (n - 1)
    return auc, s10 / m + s01 / n


def _row_moments(state: ScoreHistogram) -> tuple[Fraction, Fraction]:
    """AUC and DeLong's variance, exact, from a binary histogram's rows with their counts
    (positive: the greater label)."""
    c = state.counts[:, 0].tolist()
    rows = list(zip(state.key.tolist(), state.score.astype(np.float64).tolist(), c, strict=True))
    pos = [(s, k) for key, s, k in rows if key == 1]
    neg = [(s, k) for key, s, k in rows if key == 0]
    m, n = sum(k for _, k in pos), sum(k for _, k in neg)

    def twice(x: float, others: list[tuple[float, int]], sign: int) -> int:
        return sum(k * (2 if (x - o) * sign > 0 else 1 if x == o else 0) for o, k in others)

    v10 = [(Fraction(twice(x, neg, 1), 2 * n), k) for x, k in pos]
    v01 = [(Fraction(twice(x, pos, -1), 2 * m), k) for x, k in neg]
    auc = sum((v * k for v, k in v10), Fraction(0)) / m
    s10 = sum((k * (v - auc) ** 2 for v, k in v10), Fraction(0)) / (m - 1)
    s01 = sum((k * (v - auc) ** 2 for v, k in v01), Fraction(0)) / (n - 1)
    return auc, s10 / m + s01 / n


def _scores(rng: np.random.Generator, n: int, style: int) -> np.ndarray:
    if style == 0:
        return rng.integers(0, 4, n).astype(np.float64)  # a few values: heavy ties
    if style == 1:
        return np.round(rng.random(n), 1).astype(np.float32)
    if style == 2:
        return np.round(rng.normal(size=n), 2)
    if style == 3:
        return rng.random(n).astype(np.float32)
    if style == 4:
        return rng.random(n)
    return rng.normal(size=n) * 10.0 ** rng.integers(-300, 300)


def _cuts(rng: np.random.Generator, s: np.ndarray, how: int) -> tuple[float, ...] | None:
    if how == 0:
        return None
    if how == 1:
        # cut points at scores of the data: scores equal to a cut point open a range
        picked = rng.choice(np.unique(s).astype(np.float64), size=min(3, np.unique(s).size))
        return tuple(np.unique(picked).tolist())
    low, high = float(s.min()), float(s.max())
    spread = max(high - low, 1.0)
    # many cut points, most ranges empty, some outside the scores
    cuts = np.unique(rng.uniform(low - spread, high + spread, int(rng.integers(1, 12))))
    return tuple(cuts.tolist())


def _chunked_state(
    metric: ROCAUC, y: np.ndarray, s: np.ndarray, chunks: int, rng: np.random.Generator
) -> State:
    bounds = np.sort(rng.integers(0, y.size + 1, chunks - 1)) if chunks > 1 else []
    pieces = np.split(np.arange(y.size), bounds)
    states = [metric.summarize(y[p], s[p]) for p in pieces if p.size]
    return metric.merge_many(states)


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(4, 150),
    style=st.integers(0, 5),
    how=st.integers(0, 2),
    chunks=st.integers(1, 5),
    names=st.sampled_from(["ints", "strings", "signs"]),
    confidence=st.sampled_from([0.95, 0.9, 0.5, 0.999]),
)
def test_state_interval_is_the_arrays_interval(
    seed: int, n: int, style: int, how: int, chunks: int, names: str, confidence: float
) -> None:
    rng = np.random.default_rng(seed)
    y01 = (rng.random(n) < rng.uniform(0.1, 0.9)).astype(np.int64)
    y01[:2], y01[2:4] = 0, 1  # two units of each class at least
    rng.shuffle(y01)
    y: np.ndarray = {
        "ints": y01,
        "strings": np.where(y01 == 1, "spam", "ham"),
        "signs": np.where(y01 == 1, 1, -1),
    }[names]
    s = _scores(rng, n, style)
    cuts = _cuts(rng, s, how)
    metric = ROCAUC(cuts=cuts)
    state = _chunked_state(metric, y, s, chunks, rng)
    assert isinstance(state, ScoreRanges if cuts else ScoreHistogram)

    found = delong_interval(state, confidence=confidence)
    expected = delong_interval(y, s, confidence)
    _same_interval(found, expected)
    assert found.value == ROCAUC().score(y, s) == metric.compute(state)

    # the moments are those of the whole histogram bit for bit, whatever the ranges
    whole = ranges_delong([ROCAUC().summarize(y, s)])
    parts = state.parts if isinstance(state, ScoreRanges) else [state]
    assert ranges_delong(parts) == whole

    # the exact variance from every pair
    auc, variance = _pair_moments(y, s, y[y01 == 1][0])
    assert whole.auc == float(auc)
    assert math.isclose(whole.variance, float(variance), rel_tol=1e-14, abs_tol=1e-300)

    # the other class as positive, as the arrays take it
    other = y[y01 == 0][0]
    flipped = delong_interval(state, confidence=confidence, pos_label=other)
    _same_interval(flipped, delong_interval(y, s, confidence, pos_label=other))


@pytest.mark.parametrize("n", [5, 40, 400])
def test_all_scores_tied(n: int) -> None:
    y = np.arange(n) % 2
    s = np.full(n, 0.25, dtype=np.float32)
    for metric in (ROCAUC(), ROCAUC(cuts=(0.25,)), ROCAUC(ranges=8)):
        found = delong_interval(metric.summarize(y, s))
        assert (found.value, found.low, found.high) == (0.5, 0.5, 0.5)
        assert found == delong_interval(y, s)


def test_perfect_separation_has_zero_variance() -> None:
    y = [0, 0, 0, 1, 1, 1]
    s = [0.1, 0.2, 0.3, 0.7, 0.8, 0.9]
    found = delong_interval(ROCAUC(ranges=4).summarize(y, s))
    assert (found.value, found.low, found.high) == (1.0, 1.0, 1.0)
    assert ranges_delong([ROCAUC().summarize(y, s)]).variance == 0.0


def test_small_inputs_against_the_pairs() -> None:
    rng = np.random.default_rng(11)
    for _ in range(200):
        n = int(rng.integers(4, 30))
        y = np.r_[0, 0, 1, 1, rng.integers(0, 2, n - 4)]
        s = rng.integers(0, int(rng.integers(1, 6)), n) / 4.0
        state = ROCAUC(cuts=(0.25, 0.5)).summarize(y, s)
        found = ranges_delong(state.parts)
        auc, variance = _pair_moments(y, s, 1)
        assert found.auc == float(auc)
        assert math.isclose(found.variance, float(variance), rel_tol=1e-14, abs_tol=1e-300)
        assert (found.positives, found.negatives) == (int(y.sum()), int(n - y.sum()))


@pytest.mark.parametrize("scale", [1, 10**6, 10**9, 10**12, 10**15])
def test_huge_counts(scale: int) -> None:
    # the histogram of many units: every row's count multiplied by scale
    y = np.array([0, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 0])
    s = np.array([0.1, 0.2, 0.2, 0.2, 0.3, 0.3, 0.5, 0.6, 0.6, 0.7, 0.9, 0.9])
    small = ROCAUC().summarize(y, s)
    big = dataclasses.replace(small, counts=small.counts * scale, n_samples=small.n_samples * scale)
    big.validate()
    auc, variance = _row_moments(big)
    found = ranges_delong([big])
    assert math.isclose(found.auc, float(auc), rel_tol=1e-15)
    assert found.auc == ROCAUC().compute(big)
    assert math.isclose(found.variance, float(variance), rel_tol=1e-12)
    assert (found.positives, found.negatives) == (6 * scale, 6 * scale)
    interval = delong_interval(big)
    assert interval.value == found.auc and interval.low <= interval.value <= interval.high
    # as ranges, and with the negative class as positive
    score = big.score
    ranges = ScoreRanges(
        cuts=np.array([0.25, 0.6]),
        parts=tuple(
            dataclasses.replace(
                big,
                key=big.key[keep],
                score=big.score[keep],
                counts=big.counts[keep],
                n_samples=int(big.counts[keep].sum()),
            )
            for keep in (score < 0.25, (score >= 0.25) & (score < 0.6), score >= 0.6)
        ),
        n_samples=big.n_samples,
    )
    ranges.validate()
    assert ranges_delong(ranges.parts) == found
    flipped = ranges_delong(ranges.parts, pos_label=0)
    assert math.isclose(flipped.auc, 1.0 - float(auc), rel_tol=1e-15)
    assert math.isclose(flipped.variance, float(variance), rel_tol=1e-12)


@pytest.mark.parametrize("scale", [10**9, 10**15])
def test_huge_counts_of_one_class(scale: int) -> None:
    # m + n past two billion, 2 m n within int64 (10**9) or past it (10**15)
    y = np.array([0, 1, 0, 1, 1, 0, 1, 0])
    s = np.array([0.1, 0.2, 0.2, 0.4, 0.5, 0.5, 0.6, 0.8], dtype=np.float32)
    small = ROCAUC().summarize(y, s)
    many = np.where(small.key == 1, scale, 1)[:, None]
    big = dataclasses.replace(
        small, counts=small.counts * many, n_samples=int((small.counts * many).sum())
    )
    big.validate()
    auc, variance = _row_moments(big)
    for positive in (None, 1):
        found = ranges_delong([big], pos_label=positive)
        assert found.auc == ROCAUC().compute(big)
        assert math.isclose(found.auc, float(auc), rel_tol=1e-15)
        assert math.isclose(found.variance, float(variance), rel_tol=1e-12)
    flipped = ranges_delong([big], pos_label=0)
    assert math.isclose(flipped.auc, 1.0 - float(auc), rel_tol=1e-15)
    assert math.isclose(flipped.variance, float(variance), rel_tol=1e-12)
    if 2 * found.positives * found.negatives < 2**63:
        assert flipped.auc == float(1 - auc)


def test_too_many_units_for_int64() -> None:
    small = ROCAUC().summarize([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4])
    big = dataclasses.replace(small, counts=small.counts * (1 << 61), n_samples=1 << 63)
    with pytest.raises(InputError, match="too many units for int64 running counts"):
        ranges_delong([big])


class _Loaded(Sequence[ScoreHistogram]):
    """Ranges read from their JSON text on each access, as from files; counts the loads."""

    def __init__(self, state: ScoreRanges) -> None:
        self.texts = [part.to_json() for part in state.parts]
        self.loads = 0

    def __len__(self) -> int:
        return len(self.texts)

    def __getitem__(self, i: Any) -> Any:
        self.loads += 1
        part = State.from_json(self.texts[i])
        assert isinstance(part, ScoreHistogram)
        return part


def test_ranges_read_one_at_a_time_in_three_passes() -> None:
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 3000)
    s = np.round(rng.random(3000), 3)
    state = ROCAUC(ranges=16).summarize(y, s)
    loaded = _Loaded(state)
    assert ranges_delong(loaded) == ranges_delong(state.parts)
    assert loaded.loads == 3 * 16
    _same_interval(delong_interval(ScoreRanges.from_parts(state, loaded)), delong_interval(y, s))


@pytest.mark.parametrize("state_format", ["json", "binary"])
def test_state_read_from_a_state_file(tmp_path: Any, state_format: str) -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 500)
    s = rng.random(500).astype(np.float32)
    metric = ROCAUC(ranges=8)
    path = save_states(
        tmp_path / "shard.sks",
        {"roc_auc:ranges=8": (metric, metric.summarize(y, s))},
        state_format=state_format,
    )
    loaded = load_states(path).states["roc_auc:ranges=8"]
    found = delong_interval(loaded, confidence=0.9)
    _same_interval(found, delong_interval(y, s, 0.9))
    assert found.value == ROCAUC().score(y, s)


def test_analytic_interval_of_a_state() -> None:
    y = [0, 1, 0, 1, 0, 1, 0, 0]
    s = [0.2, 0.9, 0.4, 0.6, 0.7, 0.8, 0.6, 0.1]
    for name in ("roc_auc", "roc_auc:ranges=4"):
        metric = ROCAUC(ranges=4) if name.endswith("4") else ROCAUC()
        found = analytic_interval(name, metric.summarize(y, s), confidence=0.9)
        assert found == delong_interval(metric.summarize(y, s), confidence=0.9)
        _same_interval(found, analytic_interval(name, y, s, confidence=0.9))
    with pytest.raises(ConfigError, match="not the state of the metric"):
        analytic_interval("accuracy", ROCAUC().summarize(y, s))


def _message(error: Any) -> str:
    return str(error.value)


def _same_error(state_call: Any, array_call: Any, kind: type[Exception]) -> str:
    with pytest.raises(kind) as from_state:
        state_call()
    with pytest.raises(kind) as from_arrays:
        array_call()
    assert _message(from_state) == _message(from_arrays)
    return _message(from_state)


@pytest.mark.parametrize(
    ("y", "kind", "text"),
    [
        ([0, 1, 0, 0], InputError, "too few positive units for a variance; got 1"),
        ([1, 1, 0, 1], InputError, "too few negative units for a variance; got 1"),
        ([1, 1, 1, 1], InputError, "y_true must hold exactly two classes; got [1]"),
        ([0, 1, 2, 1], InputError, "y_true must hold exactly two classes; got [0, 1, 2]"),
    ],
)
def test_errors_as_the_arrays_give_them(y: list[int], kind: type[Exception], text: str) -> None:
    s = [0.1, 0.4, 0.35, 0.8]
    for metric in (ROCAUC(), ROCAUC(cuts=(0.3, 0.5))):
        state = metric.summarize(y, s)
        message = _same_error(
            lambda state=state: delong_interval(state), lambda: delong_interval(y, s), kind
        )
        assert message.startswith("delong_interval: " + text)


def test_unknown_pos_label_as_the_arrays() -> None:
    y, s = ["a", "b", "a", "b"], [0.1, 0.4, 0.35, 0.8]
    state = ROCAUC(ranges=2).summarize(y, s)
    message = _same_error(
        lambda: delong_interval(state, pos_label="c"),
        lambda: delong_interval(y, s, pos_label="c"),
        ConfigError,
    )
    assert "pos_label is not a class of y_true; got 'c'" in message


def test_weighted_state_refused() -> None:
    y, s, w = [0, 1, 0, 1], [0.1, 0.4, 0.35, 0.8], [1, 2, 1, 1]
    for metric in (ROCAUC(), ROCAUC(cuts=(0.3,))):
        state = metric.summarize(y, s, sample_weight=w)
        with pytest.raises(ConfigError, match=r"delong_interval: DeLong's variance is defined"):
            delong_interval(state)
        with pytest.raises(ConfigError, match="weighted counts"):
            delong_interval(state)
    with pytest.raises(ConfigError, match="sample_weight is not supported"):
        delong_interval(ROCAUC().summarize(y, s), sample_weight=w)


def test_other_states_refused() -> None:
    y, s = [0, 1, 0, 1, 2, 2], np.eye(3)[[0, 1, 0, 1, 2, 2]] * 0.8 + 0.2 / 3
    multiclass = ROCAUC(multi_class="ovr").summarize(y, s)
    with pytest.raises(InputError, match=re.escape("needs 1-D scores of one positive class")):
        delong_interval(multiclass)
    binned = ROCAUC(bins=10).summarize([0, 1, 0, 1], [0.1, 0.4, 0.35, 0.8])
    with pytest.raises(
        ConfigError, match="needs the exact score histogram of ROC AUC; got a BinnedScores"
    ):
        delong_interval(binned)
    counts = F1().summarize([0, 1, 0, 1], [0, 1, 1, 1])
    with pytest.raises(
        ConfigError, match="needs the exact score histogram of ROC AUC; got a ConfusionCounts"
    ):
        delong_interval(counts)
    for empty in (ScoreHistogram.empty(), ScoreRanges.empty(), ROCAUC(ranges=4).empty()):
        with pytest.raises(InputError, match="delong_interval: empty input"):
            delong_interval(empty)


def test_arguments_with_a_state() -> None:
    state = ROCAUC().summarize([0, 1, 0, 1], [0.1, 0.4, 0.35, 0.8])
    with pytest.raises(ConfigError, match="a state holds the scores: no score is given with it"):
        delong_interval(state, 0.9)
    with pytest.raises(ConfigError, match="delong_interval: invalid confidence; got 95"):
        delong_interval(state, confidence=95)
    with pytest.raises(ConfigError, match="delong_interval: score is missing"):
        delong_interval([0, 1, 0, 1])
    # the arrays' signature is unchanged: confidence third, by position
    assert delong_interval([0, 1, 0, 1], [0.1, 0.4, 0.35, 0.8], 0.9).confidence == 0.9
