"""float32 scores in exact score histograms: kept as float32, with the values of float64.

A histogram of 1-D float32 scores keeps them as float32 (half the memory); every
value read from it (ROC AUC, AP, the curves and their thresholds, the score-range
forms, the calibration plot) is that of the same scores given as float64, bit for
bit, in memory, chunked in any order and after a state file. Merging hands the
chunk states over and lets each go before the merged rows are sorted.
"""

from __future__ import annotations

import functools
import itertools
import warnings
import weakref
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit.classification._histogram as histogram
from scorekit import parse_metric, plot
from scorekit.classification import (
    ROCAUC,
    AveragePrecision,
    ScoreHistogram,
    ranges_pr_curve,
    ranges_roc_curve,
    summarize_ranges,
)
from scorekit.core import MergeTree
from scorekit.errors import ScorekitError
from scorekit.statefiles import load_states, save_states
from scorekit.stats import delong, delong_interval

matplotlib.use("Agg")

# the score-based metrics that read ScoreHistogram, in their exact forms; the cut
# 0.7 lies between two float32 values (0.69999999 rounds to 0.69999998807907104)
METRICS = [
    "roc_auc",
    "roc_auc:max_fpr=0.3",
    "average_precision",
    "average_precision:interpolation=all",
    "average_precision:interpolation=11point",
    "roc_curve",
    "roc_curve:drop_intermediate=false",
    "pr_curve",
    "pr_curve:drop_intermediate=true",
    "det_curve",
    "best_threshold",
    "best_threshold:objective=youden",
    "break_even_point",
    "roc_auc:ranges=4",
    "average_precision:ranges=3",
    "roc_auc:cuts",
    "average_precision:cuts",
]
CUT = 0.7
CUT_METRICS = {
    "roc_auc:cuts": ROCAUC(cuts=(0.25, CUT)),
    "average_precision:cuts": AveragePrecision(cuts=(CUT,)),
}


def _metric(name: str) -> Any:
    return CUT_METRICS[name] if name in CUT_METRICS else parse_metric(name)


def _bits(value: Any) -> Any:
    """A value as comparable bits: floats by their bytes (-0.0, nan), arrays with their dtype."""
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, np.ascontiguousarray(value).tobytes())
    if isinstance(value, tuple | list):
        return tuple(_bits(v) for v in value)
    if isinstance(value, float | np.floating):
        return ("f", np.float64(value).tobytes())
    return value


def _scores(rng: np.random.Generator, n: int, style: int) -> np.ndarray:
    """float32 scores: distinct, tied, next to a float64 cut, signed zeros, huge or tiny."""
    if style == 0:
        s = rng.random(n)
    elif style == 1:
        s = rng.integers(0, 5, n) / 4
    elif style == 2:
        # 0.7 rounds down in float32: a score below the cut 0.7 in float64, on it in float32
        s = rng.choice([0.25, 0.6999999, 0.7, 0.70000005, 0.9], n)
    elif style == 3:
        s = np.where(rng.random(n) < 0.3, rng.choice([-0.0, 0.0], n), rng.random(n) - 0.5)
    elif style == 4:
        s = rng.choice([-3.4e38, -1.0, 1e-45, 1e-40, 3.3e38, 3.4e38], n)
    else:
        s = rng.normal(size=n) * 1e-42  # subnormal in float32
    return np.asarray(s, dtype=np.float32)


def _data(seed: int, n: int, style: int, weighted: bool) -> tuple[Any, Any, Any]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    if n > 2 and rng.random() < 0.1:
        y[:] = y[0]  # one class
    w = None
    if weighted:
        w = rng.random(n) * 10.0 ** rng.integers(-3, 4, n)
        w[rng.random(n) < 0.1] = 0.0
    return y, _scores(rng, n, style), w


def _value(name: str, state: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return _metric(name).compute(state)
        except ScorekitError as exc:
            return (type(exc).__name__, str(exc))


def _summary(name: str, y: Any, s: Any, w: Any) -> Any:
    return _metric(name).summarize(y, s, sample_weight=w)


def _thresholds(value: Any) -> list[np.ndarray]:
    return [v for k, v in getattr(value, "_asdict", dict)().items() if k == "thresholds"]


cases = st.tuples(st.integers(0, 2**32 - 1), st.integers(1, 60), st.integers(0, 5), st.booleans())


# in memory ---------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(case=cases)
def test_float32_scores_give_the_values_of_float64(case: tuple[int, int, int, bool]) -> None:
    y, s, w = _data(*case)
    wide = s.astype(np.float64)
    for name in METRICS:
        narrow_state = _summary(name, y, s, w)
        wide_state = _summary(name, y, wide, w)
        got, want = _value(name, narrow_state), _value(name, wide_state)
        assert _bits(got) == _bits(want), name
        for thresholds in _thresholds(got):
            assert thresholds.dtype == np.float64, name
        parts = getattr(narrow_state, "parts", [narrow_state])
        for part in parts:
            if part.score.size:
                assert part.score.dtype == np.float32, name


def test_float32_keeps_half_the_bytes_and_every_tie() -> None:
    s = np.array([0.1, 0.1, 0.30000001, 0.3, 0.7, 0.70000005], dtype=np.float32)
    y = np.array([0, 1, 0, 1, 1, 0])
    narrow, wide = ROCAUC().summarize(y, s), ROCAUC().summarize(y, s.astype(np.float64))
    assert narrow.score.dtype == np.float32 and narrow.score.nbytes * 2 == wide.score.nbytes
    assert np.array_equal(narrow.score.astype(np.float64), wide.score)
    assert np.array_equal(narrow.counts, wide.counts)


def test_a_cut_between_float32_values_splits_as_in_float64() -> None:
    below = np.float32(0.7)  # 0.69999998807907104: below the cut 0.7
    state = summarize_ranges([0, 1, 1], np.array([below, 0.9, 0.5], dtype=np.float32), [CUT])
    # rows by label, then score: label 0 holds 0.69999998, label 1 holds 0.5 and 0.9
    assert [p.score.tolist() for p in state.parts] == [[float(below), 0.5], [0.8999999761581421]]
    state.validate()  # each range's scores lie in it, compared as float64


@settings(max_examples=25, deadline=None)
@given(case=cases)
def test_range_curves_of_float32_equal_those_of_float64(case: tuple[int, int, int, bool]) -> None:
    y, s, w = _data(*case)
    if len(set(y.tolist())) < 2:
        return
    for cuts in ([CUT], [0.25, 0.5, 0.75], []):
        narrow = summarize_ranges(y, s, cuts, w)
        wide = summarize_ranges(y, s.astype(np.float64), cuts, w)
        for curve in (ranges_roc_curve, ranges_pr_curve):
            for drop in (True, False):
                got = curve(narrow.parts, drop_intermediate=drop)
                assert _bits(got) == _bits(curve(wide.parts, drop_intermediate=drop))
                assert got.thresholds.dtype == np.float64


@pytest.mark.parametrize(
    "scores",
    [[], [0.5, float("nan")], [0.5, float("inf")]],
    ids=["empty", "nan", "inf"],
)
def test_bad_float32_input_fails_as_float64_does(scores: list[float]) -> None:
    y = [0, 1][: len(scores)]
    for name in ("roc_auc", "roc_curve", "average_precision:ranges=2"):
        narrow = np.asarray(scores, dtype=np.float32)
        errors = []
        for s in (narrow, narrow.astype(np.float64)):
            try:
                errors.append(_value(name, _summary(name, y, s, None)))
            except ScorekitError as exc:
                errors.append((type(exc).__name__, str(exc)))
        assert errors[0] == errors[1], name
        assert isinstance(errors[0], tuple) and "Error" in errors[0][0], name


def test_delong_of_float32_equals_float64() -> None:
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 300)
    a, b = _scores(rng, 300, 1), _scores(rng, 300, 0)
    got = delong(y, a, b)
    want = delong(y, a.astype(np.float64), b.astype(np.float64))
    fields = ("auc_a", "auc_b", "difference", "stderr", "statistic", "pvalue")
    assert [_bits(getattr(got, f)) for f in fields] == [_bits(getattr(want, f)) for f in fields]
    interval, wide = delong_interval(y, a), delong_interval(y, a.astype(np.float64))
    fields = ("value", "low", "high")
    assert [_bits(getattr(interval, f)) for f in fields] == [
        _bits(getattr(wide, f)) for f in fields
    ]


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("seed", [13, 17, 37])
def test_the_calibration_plot_of_a_float32_state_is_that_of_float64(
    strategy: str, seed: int
) -> None:
    # these seeds give quantile edges between scores whose float32 difference rounds
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 40)
    # neighbours of very different size: their difference rounds in float32, and the
    # quantile edges interpolate between them
    s = (10.0 ** rng.uniform(-6, 0, 40)).astype(np.float32)
    lines = []
    for scores in (s, s.astype(np.float64)):
        state = ROCAUC().summarize(y, scores)
        fig, ax = plt.subplots()
        try:
            plot.calibration(state, strategy=strategy, n_bins=7, ax=ax)
            drawn = [_bits(np.asarray(line.get_xydata())) for line in ax.get_lines()]
            # the bars of the second axis stand on the bin edges
            for axis in fig.axes:
                drawn += [_bits(np.asarray(p.get_bbox().get_points())) for p in axis.patches]
            lines.append(drawn)
        finally:
            plt.close(fig)
    assert lines[0] and lines[0] == lines[1]


# chunked and merged --------------------------------------------------------------------------


def _chunks(n: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    cuts = sorted(rng.integers(0, n + 1, int(rng.integers(0, 6))).tolist())
    bounds = [0, *cuts, n]
    return list(itertools.pairwise(bounds))


def _merged(metric: Any, states: list[Any], how: int) -> Any:
    if how == 0:
        return functools.reduce(metric.merge, states)
    if how == 1:
        return metric.merge_many(list(states))
    tree = MergeTree([metric])
    for state in states:
        tree.add([state])
    (merged,) = tree.result()
    return merged


@settings(max_examples=30, deadline=None)
@given(case=cases, order=st.integers(0, 2**32 - 1), how=st.integers(0, 2))
def test_chunked_float32_merges_to_the_values_of_float64(
    case: tuple[int, int, int, bool], order: int, how: int
) -> None:
    y, s, w = _data(*case)
    rng = np.random.default_rng(order)
    chunks = _chunks(y.size, rng)
    # the merge order varies, the same for both types
    chunks = [chunks[i] for i in rng.permutation(len(chunks))]
    for name in METRICS:
        metric = _metric(name)
        merged = []
        for dtype in (np.float32, np.float64):
            states = [
                metric.summarize(
                    y[a:b], s[a:b].astype(dtype), sample_weight=None if w is None else w[a:b]
                )
                for a, b in chunks
            ]
            merged.append(_merged(metric, states, how))
        assert _bits(_value(name, merged[0])) == _bits(_value(name, merged[1])), name
        if w is None and how != 0:
            # unweighted counts are exact: the merged state is the whole one
            assert _bits(_value(name, merged[0])) == _bits(_value(name, _summary(name, y, s, w)))


@settings(max_examples=25, deadline=None)
@given(case=cases, split=st.integers(0, 60))
def test_a_float32_state_merged_with_a_float64_one_widens(
    case: tuple[int, int, int, bool], split: int
) -> None:
    y, s, w = _data(*case)
    k = split % (y.size + 1)
    wa, wb = (None, None) if w is None else (w[:k], w[k:])
    metric = ROCAUC()
    a32 = metric.summarize(y[:k], s[:k], sample_weight=wa)
    a64 = metric.summarize(y[:k], s[:k].astype(np.float64), sample_weight=wa)
    b64 = metric.summarize(y[k:], s[k:].astype(np.float64), sample_weight=wb)
    want = a64.merge(b64)
    for got in (a32.merge(b64), ScoreHistogram.merge_all([a32, b64]), b64.merge(a32)):
        if a32.task and b64.task:  # a state of no data has no scores to widen
            assert got.score.dtype == np.float64
    for got in (a32.merge(b64), ScoreHistogram.merge_all([a32, b64])):
        for field in ("key", "counts", "labels"):
            assert _bits(getattr(got, field)) == _bits(getattr(want, field)), field
        assert _bits(got.score.astype(np.float64)) == _bits(want.score)
    together = a32.merge(metric.summarize(y[k:], s[k:], sample_weight=wb))
    if together.score.size:
        assert together.score.dtype == np.float32


# state files -----------------------------------------------------------------------------


@settings(max_examples=10, deadline=None)
@given(case=cases, state_format=st.sampled_from(["json", "binary"]))
def test_float32_states_round_trip_through_state_files(
    tmp_path_factory: pytest.TempPathFactory, case: tuple[int, int, int, bool], state_format: str
) -> None:
    y, s, w = _data(*case)
    folder: Path = tmp_path_factory.mktemp("states")
    names = ["roc_auc", "average_precision", "roc_curve", "roc_auc:ranges=3"]
    entry = {name: (_metric(name), _summary(name, y, s, w)) for name in names}
    path = save_states(folder / "s.st", entry, rows=len(y), state_format=state_format)
    loaded = load_states(path).states
    for name in names:
        before, after = entry[name][1], loaded[name]
        assert after.equals(before), name
        for one, other in zip(
            getattr(before, "parts", [before]), getattr(after, "parts", [after]), strict=True
        ):
            assert _bits(other.score) == _bits(one.score), name
        wide = _value(name, _summary(name, y, s.astype(np.float64), w))
        assert _bits(_value(name, after)) == _bits(wide), name


# the handover merge ------------------------------------------------------------------------


def _watch_sort(monkeypatch: pytest.MonkeyPatch, refs: list[Any]) -> list[list[bool]]:
    """At each sort of a merged key's rows: which of ``refs`` are still alive."""
    seen: list[list[bool]] = []
    sort = histogram._sort_section

    def watched(values: Any, runs: int, by_value: bool) -> Any:
        seen.append([ref() is not None for ref in refs])
        return sort(values, runs, by_value)

    monkeypatch.setattr(histogram, "_sort_section", watched)
    return seen


def _chunk_states(seed: int, count: int, weighted: bool) -> list[ScoreHistogram]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = 50
        w = rng.random(n) + 0.5 if weighted else None
        out.append(ROCAUC().summarize(rng.integers(0, 2, n), _scores(rng, n, 0), sample_weight=w))
    return out


@pytest.mark.parametrize("weighted", [False, True])
def test_the_merge_tree_lets_each_chunk_state_go_before_the_sort(
    monkeypatch: pytest.MonkeyPatch, weighted: bool
) -> None:
    refs: list[Any] = []
    seen = _watch_sort(monkeypatch, refs)
    metric = ROCAUC()
    tree = MergeTree([metric])
    expected = _chunk_states(3, 20, weighted)
    for state in _chunk_states(3, 20, weighted):
        refs += [weakref.ref(state), weakref.ref(state.score), weakref.ref(state.key)]
        tree.add([state])
    del state
    (merged,) = tree.result()
    assert seen and not any(any(alive) for alive in seen)
    assert not tree.stack
    assert _bits(metric.compute(merged)) == _bits(metric.compute(metric.merge_many(expected)))


def test_a_state_held_elsewhere_stays_alive_and_the_sort_sees_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    refs: list[Any] = []
    seen = _watch_sort(monkeypatch, refs)
    states = _chunk_states(4, 5, False)
    held = states[2]
    refs += [weakref.ref(s.score) for s in states]
    merged = ROCAUC().merge_taken(states)
    assert states == []  # the list given away is emptied
    assert seen and all(alive == [False, False, True, False, False] for alive in seen)
    assert held.task and merged.n_samples == 5 * 50


def test_merging_without_handover_keeps_the_callers_list() -> None:
    states = _chunk_states(5, 4, False)
    copy = list(states)
    merged = ScoreHistogram.merge_all(states)
    assert states == copy
    pairwise = functools.reduce(lambda a, b: a.merge(b), states)
    assert _bits(merged.score) == _bits(pairwise.score) and merged.score.dtype == np.float32
    assert ROCAUC().merge_many(states).equals(merged) and states == copy


def test_signed_zeros_of_many_states_merge_to_the_first_states_zero(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # states hold 0.0, a state file may hold -0.0: the first state's zero is the merged one
    def state(zero: float, others: np.ndarray) -> ScoreHistogram:
        score = np.concatenate([[zero], others]).astype(np.float32)
        return ScoreHistogram(
            task="binary",
            labels=np.array([0, 1]),
            n_columns=0,
            n_samples=score.size,
            key=np.zeros(score.size, dtype=np.int8),
            score=score,
            counts=histogram.unit_counts(score.size),
            per_sample="",
            sample_values=np.empty(0),
            sample_weights=np.empty(0),
        )

    others = np.linspace(0.01, 0.99, 150).reshape(5, 30)
    sort = histogram._sort_section

    def unstable(values: Any, runs: int, by_value: bool) -> Any:
        # a sort free to put equal values in any order: here the zeros reversed
        order = sort(values, runs, by_value)
        if order is None:
            zeros = np.flatnonzero(values == 0)
            values[zeros] = values[zeros[::-1]]
        return order

    monkeypatch.setattr(histogram, "_sort_section", unstable)
    for first in (-0.0, 0.0):
        # more than three states: the merged scores are sorted as plain values, in no
        # stable order, so the zero's bits come from the first state that holds one
        states = [state(first if i == 0 else -first, others[i]) for i in range(5)]
        for merged in (
            ScoreHistogram.merge_all(list(states)),
            ScoreHistogram.merge_all(list(states), release=True),
            functools.reduce(lambda a, b: a.merge(b), states),
        ):
            assert merged.score[0] == 0 and merged.score.size == 151
            assert bool(np.signbit(merged.score[0])) == bool(np.signbit(first))
            assert merged.counts[:, 0].tolist() == [5] + [1] * 150


def test_the_handover_of_one_or_no_state() -> None:
    one = _chunk_states(6, 1, False)
    state = one[0]
    assert ScoreHistogram.merge_all(one, release=True) is state and one == []
    nothing: list[ScoreHistogram] = [ScoreHistogram.empty()]
    assert not ScoreHistogram.merge_all(nothing, release=True).task and nothing == []
