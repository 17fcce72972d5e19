"""Score ranges: the state, its merge and the readers that hold one range at a time.

Split, merged in any order and joined, ranges give back the whole histogram;
the readers' ROC AUC, partial ROC AUC and AP are ``compute``'s on the whole
histogram, compared with ``==``. Where ``compute`` takes a BLAS dot product
(weighted ROC AUC, AP of tied positive scores or weights) the readers add the
products pairwise: there the value equals ``compute``'s with ``np.dot`` taken as
``np.add.reduce(x * y)``, bit for bit, and today's to rounding.
"""

from __future__ import annotations

import dataclasses
import json
import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.classification import ROCAUC, AveragePrecision, ScoreHistogram
from scorekit.classification._ranges import (
    ScoreRanges,
    check_cuts,
    range_cuts,
    split_ranges,
    summarize_ranges,
)
from scorekit.classification._ranges_read import ranges_average_precision, ranges_roc_auc
from scorekit.core import State
from scorekit.errors import ConfigError, InputError, StateMismatchError, UndefinedMetricWarning


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def _data(
    rng: np.random.Generator, n: int, style: int, weighted: bool, classes: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    if classes == 1:
        y = np.full(n, int(rng.integers(0, 2)))
    else:
        y = (rng.random(n) < rng.uniform(0.05, 0.95)).astype(np.int64)
    if style == 0:
        s: np.ndarray = rng.random(n)
    elif style == 1:
        s = rng.integers(0, 6, n).astype(np.float64)  # heavy ties
    elif style == 2:
        s = rng.random(n).astype(np.float32)
    elif style == 3:
        s = np.round(rng.normal(size=n), 1).astype(np.float32)
    else:
        s = rng.normal(size=n) * 10.0 ** rng.integers(-300, 300)
    w = None
    if weighted:
        w = rng.random(n) * rng.choice([0.0, 1.0, 3.0], n)
    return y, s, w


def _cuts(rng: np.random.Generator, s: np.ndarray, kind: int) -> np.ndarray:
    values = np.asarray(s, dtype=np.float64)
    if kind == 0:
        return np.empty(0)  # one range
    if kind == 1:
        return range_cuts(rng.choice(values, min(values.size, 30)), int(rng.integers(2, 9)))
    if kind == 2:
        return np.unique(values)  # a range per distinct score: ties at every cut point
    if kind == 3:  # random cut points, some far outside the data: empty ranges
        lo, hi = float(values.min()), float(values.max())
        span = max(hi - lo, 1.0)
        return np.unique(rng.uniform(lo - span, hi + span, int(rng.integers(1, 12))))
    return np.unique(rng.choice(values, int(rng.integers(1, 6))))  # cut points at scores


def _merged(
    rng: np.random.Generator, histograms: list[ScoreHistogram], states: list[ScoreRanges]
) -> tuple[ScoreHistogram, ScoreRanges]:
    """Merge in a random order and a random tree (or all at once), histograms and ranges alike.

    Float counts of one score add up in the order of the merges, so the whole
    histogram is merged in the same order as the ranges.
    """
    order = rng.permutation(len(states))
    hs, rs = [histograms[i] for i in order], [states[i] for i in order]
    if rng.random() < 0.3:
        return ScoreHistogram.merge_all(hs), ScoreRanges.merge_all(rs)
    while len(rs) > 1:
        i = int(rng.integers(0, len(rs) - 1))
        hs[i : i + 2] = [hs[i].merge(hs[i + 1])]
        rs[i : i + 2] = [rs[i].merge(rs[i + 1])]
    return hs[0], rs[0]


_METRICS = (
    ("roc_auc", ROCAUC(), lambda parts: ranges_roc_auc(parts)),
    ("partial", ROCAUC(max_fpr=0.3), lambda parts: ranges_roc_auc(parts, max_fpr=0.3)),
    ("partial_small", ROCAUC(max_fpr=0.01), lambda parts: ranges_roc_auc(parts, max_fpr=0.01)),
    ("ap", AveragePrecision(), lambda parts: ranges_average_precision(parts)),
)


def _value(compute: Any, *args: Any) -> tuple[float, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = compute(*args)
    return float(value), [str(w.message) for w in caught if w.category is UndefinedMetricWarning]


def _check_readers(whole: ScoreHistogram, ranges: ScoreRanges) -> None:
    assert ranges.join().equals(whole)
    for name, metric, reader in _METRICS:
        got, got_warned = _value(reader, ranges.parts)
        want, warned = _value(metric.compute, whole)
        assert _same(got, want), (name, got, want)
        assert got_warned == warned


@settings(max_examples=100, deadline=None)
@given(
    n=st.integers(1, 300),
    chunks=st.integers(1, 5),
    style=st.integers(0, 4),
    weighted=st.booleans(),
    classes=st.sampled_from([2, 2, 2, 1]),
    cut_kind=st.integers(0, 4),
    seed=st.integers(0, 2**32 - 1),
)
def test_readers_equal_compute_of_the_merged_histogram(
    n: int, chunks: int, style: int, weighted: bool, classes: int, cut_kind: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    y, s, w = _data(rng, n, style, weighted, classes)
    cuts = _cuts(rng, s, cut_kind)
    metric = ROCAUC()
    bounds = np.sort(rng.integers(0, n + 1, chunks - 1))
    pieces = list(zip(np.split(y, bounds), np.split(s, bounds), strict=True))
    weights = [None] * chunks if w is None else np.split(w, bounds)
    states = [metric.summarize(a, b, c) for (a, b), c in zip(pieces, weights, strict=True)]
    whole, ranges = _merged(rng, states, [split_ranges(state, cuts) for state in states])
    if not whole.task or whole.score.size == 0:
        return
    assert ranges.n_samples == n
    _check_readers(whole, ranges)
    direct = [summarize_ranges(a, b, cuts, c) for (a, b), c in zip(pieces, weights, strict=True)]
    again, joined = _merged(rng, states, direct)
    assert joined.join().equals(again)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("style", [0, 1, 2])
def test_large_inputs_across_many_ranges(style: int, weighted: bool) -> None:
    """Sums past numpy's 128-value blocks, and past the size where BLAS splits its work."""
    rng = np.random.default_rng(100 + style)
    y, s, w = _data(rng, 60_000, style, weighted, 2)
    whole = ROCAUC().summarize(y, s, w)
    cuts = range_cuts(rng.choice(np.asarray(s, dtype=np.float64), 500), 40)
    _check_readers(whole, split_ranges(whole, cuts))


def test_integer_counts_past_the_exact_numerator() -> None:
    """Counts whose products pass 2**63 take compute's float path, range by range too."""
    whole = ROCAUC().summarize([0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.3, 0.9])
    big = whole.counts * np.array([[1_500_000_000]])
    whole = ScoreHistogram(**{**_plain(whole), "counts": big, "n_samples": int(big.sum())})
    _check_readers(whole, split_ranges(whole, [0.25, 0.3]))


def _plain(state: ScoreHistogram) -> dict[str, Any]:
    return {f.name: getattr(state, f.name) for f in dataclasses.fields(state)}


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


def test_ranges_given_lazily() -> None:
    rng = np.random.default_rng(7)
    y, s, w = _data(rng, 5000, 1, True, 2)
    whole = ROCAUC().summarize(y, s, w)
    state = split_ranges(whole, [1.0, 2.5, 4.0, 9.0])
    for _, metric, reader in _METRICS:
        loaded = _Loaded(state)
        assert reader(loaded) == metric.compute(whole)
        assert 0 < loaded.loads <= 4 * len(loaded)


def test_one_class_and_undefined_values_warn_as_compute_does() -> None:
    for y, w in (([1, 1, 1], None), ([0, 0, 0], None), ([0, 1, 1], [0.0, 1.0, 2.0])):
        whole = ROCAUC().summarize(y, [0.2, 0.5, 0.5], w)
        ranges = split_ranges(whole, [0.3])
        for _, metric, reader in _METRICS:
            got, got_warned = _value(reader, ranges.parts)
            want, warned = _value(metric.compute, whole)
            assert _same(got, want) and got_warned == warned


def test_errors_of_the_readers() -> None:
    empty = ScoreRanges.empty()
    for reader in (ranges_roc_auc, ranges_average_precision):
        with pytest.raises(InputError, match="empty input"):
            reader(empty.parts)
        zero = summarize_ranges([0, 1], [0.1, 0.2], [0.15], sample_weight=[0.0, 0.0])
        with pytest.raises(InputError, match="zero weight"):
            reader(zero.parts)
        three = summarize_ranges([0, 1, 2], [0.1, 0.2, 0.3], [0.15])
        with pytest.raises(InputError, match="more than two classes"):
            reader(three.parts)
    fine = summarize_ranges([0, 1], [0.1, 0.2], [0.15])
    for bad in (0.0, -0.5, 1.5):
        with pytest.raises(ConfigError, match="max_fpr out of range"):
            ranges_roc_auc(fine.parts, max_fpr=bad)
    two = summarize_ranges(["a", "b"], [0.1, 0.2], [0.15])
    with pytest.raises(InputError, match="pos_label is not a label"):
        ranges_average_precision(two.parts)
    assert ranges_average_precision(two.parts, pos_label="b") == 1.0
    matrix = ROCAUC(average="micro").summarize([[0, 1], [1, 0]], [[0.2, 0.8], [0.6, 0.4]])
    with pytest.raises(InputError, match="needs 1-D scores"):
        ranges_roc_auc(split_ranges(matrix, [0.5]).parts)


def test_float_weights_past_float64_are_the_overflow_error() -> None:
    one = [summarize_ranges([i % 2], [0.1 * i], [0.25], [1e308]) for i in range(4)]
    big = ScoreRanges.merge_all(one)
    for reader in (ranges_roc_auc, ranges_average_precision):
        with pytest.raises(InputError, match="overflows float64"):
            reader(big.parts)


# the state --------------------------------------------------------------------------------


def test_split_keeps_each_score_in_one_range() -> None:
    state = summarize_ranges([0, 1, 0, 1, 1], [0.1, 0.5, 0.5, 0.9, 0.2], [0.2, 0.5, 0.7])
    scores = [part.score.tolist() for part in state.parts]
    assert scores == [[0.1], [0.2], [0.5, 0.5], [0.9]]
    assert [part.key.tolist() for part in state.parts] == [[0], [1], [0, 1], [1]]
    assert [part.n_samples for part in state.parts] == [1, 1, 2, 1]
    # a range with no row keeps the task and labels, so that every range merges alike
    sparse = summarize_ranges([0, 1], [0.1, 0.9], [0.3, 0.6])
    assert sparse.parts[1].task == "binary" and sparse.parts[1].labels.tolist() == [0, 1]
    assert sparse.parts[1].score.size == 0


def test_merge_refuses_other_cut_points_and_empty_is_the_identity() -> None:
    a = summarize_ranges([0, 1], [0.1, 0.9], [0.5])
    b = summarize_ranges([0, 1], [0.3, 0.7], [0.25, 0.5])
    with pytest.raises(StateMismatchError, match=r"got \[0.25, 0.5\], expected \[0.5\]"):
        a.merge(b)
    with pytest.raises(StateMismatchError, match="different cut points"):
        ScoreRanges.merge_all([a, b])
    empty = ScoreRanges.empty()
    assert empty.merge(a).equals(a) and a.merge(empty).equals(a)
    assert ScoreRanges.merge_all([empty, a, empty]).equals(a)
    no_rows = summarize_ranges([], [], [0.25, 0.5])
    assert not no_rows.has_data and no_rows.merge(a).equals(a)
    assert ScoreRanges.merge_all([]).equals(empty)


def test_state_round_trips_and_validates() -> None:
    state = summarize_ranges([0, 1, 1, 0], [0.1, 0.9, 0.4, 0.6], [0.5], [1.0, 2.0, 0.5, 1.0])
    back = State.from_json(state.to_json())
    assert isinstance(back, ScoreRanges) and back.equals(state)
    data = json.loads(state.to_json())
    data["fields"]["cuts"]["__ndarray__"] = [0.95]
    with pytest.raises(InputError, match="outside its range"):
        State.from_dict(data)
    data = json.loads(state.to_json())
    data["fields"]["parts"]["__tuple__"] = data["fields"]["parts"]["__tuple__"][:1]
    with pytest.raises(InputError, match="not one histogram per range"):
        State.from_dict(data)
    unweighted = summarize_ranges([0, 1], [0.1, 0.9], [0.5])
    data = json.loads(unweighted.to_json())
    data["fields"]["n_samples"] = 1
    with pytest.raises(InputError, match="fewer samples than the ranges count"):
        State.from_dict(data)


def test_cut_points_are_checked() -> None:
    with pytest.raises(ConfigError, match="increase strictly"):
        check_cuts("roc_auc", [0.5, 0.5])
    with pytest.raises(ConfigError, match="finite"):
        check_cuts("roc_auc", [0.1, np.nan])
    with pytest.raises(ConfigError, match="1-D"):
        check_cuts("roc_auc", [[0.1]])
    with pytest.raises(ConfigError, match="numbers"):
        check_cuts("roc_auc", ["a"])
    assert np.signbit(check_cuts("roc_auc", [-0.0])).sum() == 0
    with pytest.raises(ConfigError, match="positive integer"):
        range_cuts([0.1, 0.2], 0)
    with pytest.raises(InputError, match="per-sample values"):
        split_ranges(ROCAUC(average="samples").summarize([[0, 1]], [[0.1, 0.9]]), [0.5])


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=200), ranges=st.integers(1, 40))
def test_range_cuts_are_sampled_quantiles(values: list[float], ranges: int) -> None:
    cuts = range_cuts(values, ranges)
    distinct = np.unique(np.asarray(values) + 0.0)
    assert cuts.size <= min(ranges, distinct.size) - 1 or cuts.size == 0
    assert np.isin(cuts, distinct).all()
    assert (np.diff(cuts) > 0).all() and (cuts.size == 0 or cuts[0] > distinct[0])
    # each range holds about as many distinct values of the sample
    per_range = np.diff(np.searchsorted(distinct, cuts, "left"), prepend=0, append=distinct.size)
    if distinct.size >= ranges:
        assert per_range.size == ranges
        assert per_range.max() - per_range.min() <= 1


@st.composite
def _zero_weight_batches(draw: st.DrawFn) -> list[tuple[list[int], list[float], list[float]]]:
    """Batches of scores on a grid of sixteenths (ties, scores on the cut points), at least
    one of them of zero-weight rows only, the others of dyadic weights that may be 0."""
    count = draw(st.integers(1, 5))
    zero = draw(st.lists(st.booleans(), min_size=count, max_size=count))
    zero[draw(st.integers(0, count - 1))] = True
    batches = []
    for only_zeros in zero:
        rows = draw(st.integers(1, 8))
        y = draw(st.lists(st.integers(0, 1), min_size=rows, max_size=rows))
        s = [k / 16 for k in draw(st.lists(st.integers(0, 16), min_size=rows, max_size=rows))]
        dyadic = st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0])
        w = [0.0] * rows if only_zeros else draw(st.lists(dyadic, min_size=rows, max_size=rows))
        batches.append((y, s, w))
    return batches


@settings(max_examples=150, deadline=None)
@given(batches=_zero_weight_batches())
def test_batches_of_zero_weight_rows_merge_to_the_whole_ranges(
    batches: list[tuple[list[int], list[float], list[float]]],
) -> None:
    """A batch whose rows all weigh 0 keeps no row of the histogram; each of its ranges
    still counts the samples of its scores, as the ranges of all the rows at once do."""
    metric = ROCAUC(ranges=8)
    states = [metric.summarize(y, s, sample_weight=w) for y, s, w in batches]
    merged = states[0]
    for state in states[1:]:
        merged = merged.merge(state)
    y, s, w = ([v for batch in batches for v in batch[i]] for i in range(3))
    whole = metric.summarize(y, s, sample_weight=w)
    cuts = np.arange(1, 8) / 8
    counts = np.bincount(np.searchsorted(cuts, s, side="right"), minlength=8).tolist()
    assert [part.n_samples for part in whole.parts] == counts
    assert merged.equals(whole)
