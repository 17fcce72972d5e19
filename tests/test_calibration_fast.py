"""The calibration bins drawn from sorted rows, against the bincount arithmetic and scikit-learn.

:meth:`CalibrationHistogram.bins` cuts the sorted probabilities of a column at
the bin edges and adds each bin's rows in order; its values must be those of
one ``numpy.bincount`` per sum over the bin of every row
(``searchsorted(edges[1:-1], p)``, scikit-learn's assignment), bit for bit:
for probabilities on and next to the edges, at 0 and 1, with ties, weights,
many bins, both strategies and every method, and in blocks of any size.
"""

from __future__ import annotations

import itertools
import pickle
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.calibration import calibration_curve as sk_curve

from scorekit.classification import (
    CalibrationCurveMetric,
    CalibrationHistogram,
    ExpectedCalibrationError,
    MaxCalibrationError,
    calibration_curve,
)
from scorekit.classification._calibration import _state
from scorekit.classification._calibration._state import STRATEGIES


def _bincount_bins(
    state: CalibrationHistogram, n_bins: int, strategy: str, column: int, edges=None
) -> tuple[np.ndarray, ...]:
    """Every row put in its bin by searchsorted; each sum one bincount, in the order of the rows."""
    rows = state.key == column
    s, n = state.score[rows], state.count[rows]
    w, h = state.weight[rows], state.hits[rows]
    if edges is None:
        if strategy == "quantile":
            edges = np.percentile(np.repeat(s, n), np.linspace(0, 1, n_bins + 1) * 100)
        else:
            edges = np.linspace(0.0, 1.0, n_bins + 1)
    ids = np.searchsorted(edges[1:-1], s)
    return (
        edges,
        np.bincount(ids, weights=n, minlength=n_bins).astype(np.int64),
        np.bincount(ids, weights=w, minlength=n_bins),
        np.bincount(ids, weights=h, minlength=n_bins),
        np.bincount(ids, weights=s * w, minlength=n_bins),
    )


def _assert_same_bits(got: tuple[np.ndarray, ...], want: tuple[np.ndarray, ...]) -> None:
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype
        assert a.shape == b.shape
        assert a.tobytes() == b.tobytes()


def _probabilities(rng: np.random.Generator, n: int, style: int, n_bins: int) -> np.ndarray:
    """Full precision, six decimals, few values (ties), or the bin edges and their neighbours."""
    if style == 0:
        return rng.random(n)
    if style == 1:
        return np.round(rng.random(n), 6)
    if style == 2:
        return rng.choice(rng.random(5), n)
    edges = np.arange(n_bins + 1) / n_bins
    near = np.concatenate(
        [edges, np.linspace(0.0, 1.0, n_bins + 1), np.nextafter(edges, 2), np.nextafter(edges, -1)]
    )
    near = np.concatenate([near, [0.0, -0.0, 1.0, 5e-324, np.nextafter(1.0, 0)]])
    return np.clip(rng.choice(near, n), 0.0, 1.0)


cases = st.tuples(
    st.integers(0, 2**32 - 1),
    st.integers(1, 300),
    st.integers(0, 3),
    st.integers(1, 40),
    st.sampled_from([1, 2, 7, 64, 1 << 16]),
)


@settings(max_examples=150, deadline=None)
@given(cases, st.sampled_from(STRATEGIES), st.booleans())
def test_bins_equal_one_bincount_per_sum(case, strategy: str, weighted: bool) -> None:
    seed, n, style, n_bins, block = case
    rng = np.random.default_rng(seed)
    p = _probabilities(rng, n, style, n_bins)
    y = rng.integers(0, 2, n)
    w = rng.random(n) * rng.choice([1e-300, 1.0, 1e300], n) if weighted else None
    metric = CalibrationCurveMetric(n_bins=n_bins, strategy=strategy)
    state = metric.summarize(y, p, sample_weight=w)
    with mock.patch.object(_state, "_BLOCK", block):
        got = state.bins(n_bins, strategy)
    _assert_same_bits(tuple(got), _bincount_bins(state, n_bins, strategy, 0))


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 64), st.integers(1, 200))
def test_edge_values_fall_in_the_bins_of_scikit_learn(seed: int, n_bins: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    p = _probabilities(rng, n, 3, n_bins)
    y = rng.integers(0, 2, n)
    state = CalibrationCurveMetric(n_bins=n_bins).summarize(y, p)
    with mock.patch.object(_state, "_BLOCK", 1):
        bins = state.bins(n_bins)
    ids = np.searchsorted(np.linspace(0.0, 1.0, n_bins + 1)[1:-1], p)
    np.testing.assert_array_equal(bins.samples, np.bincount(ids, minlength=n_bins))
    np.testing.assert_array_equal(bins.hits, np.bincount(ids, weights=y, minlength=n_bins))
    with mock.patch.object(_state, "_BLOCK", 1):
        got = calibration_curve(y, p, n_bins=n_bins)
    want = sk_curve(y, p, n_bins=n_bins)
    np.testing.assert_array_equal(got.prob_true, want[0])
    np.testing.assert_allclose(got.prob_pred, want[1], rtol=1e-12, atol=0)


@settings(max_examples=40, deadline=None)
@given(cases, st.sampled_from(["top_label", "class_wise"]), st.sampled_from(STRATEGIES))
def test_class_columns_equal_one_bincount_per_sum(case, method: str, strategy: str) -> None:
    seed, n, style, n_bins, block = case
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 5))
    proba = rng.dirichlet(np.ones(k), n)
    if style == 1:
        proba = np.round(proba, 6)
    y = rng.integers(0, k, n)
    for metric in (ExpectedCalibrationError, MaxCalibrationError):
        m = metric(n_bins=n_bins, strategy=strategy, method=method)
        state = m.summarize(y, proba)
        for column in range(state.n_keys):
            with mock.patch.object(_state, "_BLOCK", block):
                got = state.bins(n_bins, strategy, column)
            _assert_same_bits(tuple(got), _bincount_bins(state, n_bins, strategy, column))


def test_many_bins_and_large_columns_take_both_ways_to_the_same_bits() -> None:
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 300_000)
    p = np.clip(0.3 * y + 0.7 * rng.random(y.size), 0, 1)
    p[:1000] = np.arange(1000) / 999
    state = CalibrationCurveMetric().summarize(y, p)
    weighted = CalibrationCurveMetric().summarize(y, p, sample_weight=rng.random(y.size))
    for s in (state, weighted):
        for n_bins, strategy in itertools.product((1, 5, 15, 256, 257, 1000), STRATEGIES):
            got = s.bins(n_bins, strategy)
            _assert_same_bits(tuple(got), _bincount_bins(s, n_bins, strategy, 0))
        _assert_same_bits(tuple(s.bins(2**20)), _bincount_bins(s, 2**20, "uniform", 0))


def test_unsorted_edges_are_binned_as_searchsorted_bins_them() -> None:
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 500)
    state = CalibrationCurveMetric().summarize(y, rng.random(500))
    edges = np.array([0.0, 0.7, 0.2, 0.5, 1.0])
    with mock.patch.object(_state, "_percentiles", lambda s, n, q: edges):
        got = state.bins(4, "quantile")
    _assert_same_bits(tuple(got), _bincount_bins(state, 4, "quantile", 0, edges))


@pytest.mark.parametrize("n", [1, 2, 3, 1000])
def test_percentiles_of_distinct_rows_equal_numpy(n: int) -> None:
    rng = np.random.default_rng(n)
    s = np.sort(rng.random(n))
    for counts in (np.ones(n, dtype=np.int64), rng.integers(1, 4, n)):
        q = np.linspace(0, 100, 11)
        got = _state._percentiles(s, counts, q)
        np.testing.assert_array_equal(got, np.percentile(np.repeat(s, counts), q))


@settings(max_examples=60, deadline=None)
@given(cases, st.booleans())
def test_errors_equal_the_bincount_arithmetic(case, weighted: bool) -> None:
    seed, n, style, n_bins, block = case
    rng = np.random.default_rng(seed)
    p = _probabilities(rng, n, style, n_bins)
    y = rng.integers(0, 2, n)
    w = rng.random(n) if weighted else None
    for strategy in STRATEGIES:
        ece = ExpectedCalibrationError(n_bins=n_bins, strategy=strategy)
        mce = MaxCalibrationError(n_bins=n_bins, strategy=strategy)
        state = ece.summarize(y, p, sample_weight=w)
        _, _, weight, hits, conf = _bincount_bins(state, n_bins, strategy, 0)
        keep = weight > 0
        gaps = np.abs(hits[keep] / weight[keep] - conf[keep] / weight[keep])
        with mock.patch.object(_state, "_BLOCK", block):
            assert ece.compute(state) == float(np.sum(gaps * weight[keep]) / np.sum(weight[keep]))
            assert mce.compute(state) == float(gaps.max())


def _reduced(a: CalibrationHistogram, b: CalibrationHistogram) -> tuple[np.ndarray, ...]:
    """The rows of ``a`` then ``b`` reduced by numpy.unique and one bincount per sum."""
    key, score, sums = _state._reduce(
        np.concatenate([a.key, b.key]),
        np.concatenate([a.score, b.score]),
        [np.concatenate([getattr(a, f), getattr(b, f)]) for f in ("count", "weight", "hits")],
    )
    return key, score, *sums


def _rows(state: CalibrationHistogram) -> tuple[np.ndarray, ...]:
    return state.key, state.score, state.count, state.weight, state.hits


@settings(max_examples=80, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(0, 3),
    st.sampled_from(["binary", "top_label", "class_wise"]),
    st.booleans(),
)
def test_merge_equals_reducing_all_rows(seed: int, style: int, method: str, weighted: bool) -> None:
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 5))
    states = []
    for _ in range(2):
        n = int(rng.integers(1, 200))
        first = _probabilities(rng, n, style, int(rng.integers(1, 20)))
        if method == "binary":
            y, proba = rng.integers(0, 2, n), first
        else:
            rest = rng.dirichlet(np.ones(k - 1), n) * (1 - first)[:, None]
            y, proba = rng.integers(0, k, n), np.column_stack([first, rest])
        w = rng.random(n) if weighted else None
        metric = ExpectedCalibrationError(method=method)
        states.append(metric.summarize(y, proba, sample_weight=w))
    a, b = states
    _assert_same_bits(_rows(a.merge(b)), _reduced(a, b))
    _assert_same_bits(_rows(b.merge(a)), _reduced(b, a))
    _assert_same_bits(_rows(a.merge(a)), _reduced(a, a))


def test_merge_of_unsorted_rows_reduces_them() -> None:
    unsorted = CalibrationHistogram(
        method="binary",
        n_columns=0,
        n_samples=4,
        labels=np.array([0, 1]),
        key=np.zeros(3, dtype=np.int64),
        score=np.array([0.5, 0.2, 0.5]),
        count=np.array([1, 2, 1]),
        weight=np.array([1.0, 2.0, 1.0]),
        hits=np.array([1.0, 0.0, 0.0]),
    )
    other = CalibrationCurveMetric().summarize([0, 1, 1], [0.2, 0.9, 0.5])
    assert not _state._sorted_rows(unsorted)
    assert _state._sorted_rows(other)
    merged = unsorted.merge(other)
    _assert_same_bits(_rows(merged), _reduced(unsorted, other))
    np.testing.assert_array_equal(merged.score, [0.2, 0.5, 0.9])
    np.testing.assert_array_equal(merged.count, [3, 3, 1])


def test_unsorted_rows_are_binned_as_searchsorted_bins_them() -> None:
    rng = np.random.default_rng(4)
    s = rng.random(300)
    state = CalibrationHistogram(
        method="binary",
        n_columns=0,
        n_samples=300,
        labels=np.array([0, 1]),
        key=np.zeros(300, dtype=np.int64),
        score=s,
        count=np.ones(300, dtype=np.int64),
        weight=rng.random(300),
        hits=rng.random(300) * 0.5,
    )
    for strategy in STRATEGIES:
        with mock.patch.object(_state, "_BLOCK", 16):
            got = state.bins(7, strategy)
        want = _bincount_bins(state, 7, strategy, 0, got.edges)
        _assert_same_bits(tuple(got), want)


def test_a_state_of_distinct_unweighted_probabilities_holds_its_ones_as_views() -> None:
    rng = np.random.default_rng(6)
    y = rng.integers(0, 2, 2000)
    p = rng.random(2000)
    state = CalibrationCurveMetric().summarize(y, p)
    assert state.count.strides == (0,) and state.weight.strides == (0,)
    assert not state.count.flags.writeable
    np.testing.assert_array_equal(state.count, np.ones(2000, dtype=np.int64))
    assert state.weight.dtype == np.float64 and np.all(state.weight == 1.0)
    state.validate()
    for copy in (
        pickle.loads(pickle.dumps(state)),
        CalibrationHistogram.from_json(state.to_json()),
    ):
        assert copy.equals(state)
        _assert_same_bits(_rows(copy), _rows(state))
    twice = state.merge(state)
    np.testing.assert_array_equal(twice.count, np.full(2000, 2))
    halves = [CalibrationCurveMetric().summarize(y[i::2], p[i::2]) for i in range(2)]
    _assert_same_bits(_rows(halves[0].merge(halves[1])), _rows(state))
    merged = CalibrationCurveMetric().compute(halves[1].merge(halves[0]))
    _assert_same_bits(tuple(merged), tuple(calibration_curve(y, p)))


def test_strided_and_fortran_probabilities_give_the_same_bits() -> None:
    rng = np.random.default_rng(8)
    y = rng.integers(0, 3, 70_000)
    wide = rng.random(140_000)
    p = wide[::2]
    assert not p.flags.c_contiguous
    binary = y % 2
    _assert_same_bits(
        tuple(calibration_curve(binary, p)), tuple(calibration_curve(binary, p.copy()))
    )
    proba = np.asfortranarray(rng.dirichlet(np.ones(3), y.size))
    for method in ("top_label", "class_wise"):
        ece = ExpectedCalibrationError(method=method, strategy="quantile")
        assert ece.score(y, proba) == ece.score(y, np.ascontiguousarray(proba))
