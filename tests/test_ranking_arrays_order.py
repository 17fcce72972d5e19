"""The ranking order of scored candidates, the numbering of group ids and the blocks of queries.

:func:`scorekit.ranking._order.segment_order` against ``numpy.lexsort`` (ties,
values that differ only in their last bits, signed zeros, infinities, segments
of equal, varied and skewed lengths, codes in or out of order); the array-form
metrics computed in blocks of queries against the same metrics in one piece,
scikit-learn's ``ndcg_score`` / ``dcg_score`` and the qrels-and-run metrics.
"""

from __future__ import annotations

import warnings
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import dcg_score, ndcg_score

from scorekit import ranking
from scorekit.errors import UndefinedMetricWarning
from scorekit.ranking import _arrays
from scorekit.ranking._order import grouping, segment_order
from scorekit.ranking._ranked import Judged

TOL = 1e-12


def _reference(codes: np.ndarray, values: np.ndarray) -> np.ndarray:
    """By code, then value descending, then position descending (-0.0 equals 0.0)."""
    return np.lexsort((-np.arange(len(codes)), -(values + 0.0), codes))


def _values(rng: np.random.Generator, n: int, style: int) -> np.ndarray:
    """Scores with many ties, none, neighbours one ulp apart, or extreme magnitudes."""
    if style == 0:
        return rng.integers(0, 3, n).astype(np.float64)
    if style == 1:
        return rng.normal(size=n)
    if style == 2:
        base = rng.choice([0.25, 1.0, -3.5, 1e-300, 7e20], n)
        return base + rng.integers(-200, 200, n) * np.spacing(base)
    extremes = [-np.inf, -1e308, -1.0, -0.0, 0.0, 5e-324, 1.0, 1e308, np.inf]
    return rng.choice(np.array(extremes), n)


def _codes(rng: np.random.Generator, n: int, count: int, layout: int) -> np.ndarray:
    """Segment codes: runs in order of (nearly) equal lengths, random, or skewed runs."""
    if layout == 0:
        return np.arange(n) * count // n
    if layout == 1:
        return rng.integers(0, count, n)
    sizes = np.minimum(rng.geometric(0.02, count), n)
    codes = np.repeat(np.arange(count), sizes)[:n]
    return np.concatenate([codes, np.full(n - len(codes), count - 1)])


orders = st.tuples(
    st.integers(0, 2**32 - 1),
    st.integers(1, 600),
    st.integers(1, 40),
    st.integers(0, 3),
    st.integers(0, 2),
)


@settings(max_examples=150, deadline=None)
@given(orders)
def test_segment_order_matches_lexsort(params: tuple[int, int, int, int, int]) -> None:
    seed, n, count, style, layout = params
    rng = np.random.default_rng(seed)
    codes = _codes(rng, n, count, layout)
    values = _values(rng, n, style)
    np.testing.assert_array_equal(segment_order(codes, count, values), _reference(codes, values))


@pytest.mark.parametrize("style", [0, 1, 2, 3])
def test_segment_order_of_one_long_segment(style: int) -> None:
    rng = np.random.default_rng(style)
    values = _values(rng, 5000, style)
    codes = np.zeros(5000, dtype=np.intp)
    np.testing.assert_array_equal(segment_order(codes, 1, values), _reference(codes, values))


def test_segment_order_resorts_values_that_differ_in_the_replaced_bits() -> None:
    # eight candidates per query: three low bits carry the position, and these values
    # differ only there, in an order the positions alone would reverse
    base = 0.75
    values = base + np.arange(8) * np.spacing(base)
    codes = np.zeros(8, dtype=np.intp)
    np.testing.assert_array_equal(segment_order(codes, 1, values), np.arange(8)[::-1])
    mixed = np.tile(np.array([base, base + np.spacing(base)]), 4)
    np.testing.assert_array_equal(segment_order(codes, 1, mixed), _reference(codes, mixed))


def test_segment_order_with_more_codes_than_sixteen_bits() -> None:
    rng = np.random.default_rng(3)
    count = 70_000
    codes = rng.integers(0, count, 200_000)
    values = rng.integers(0, 4, len(codes)).astype(np.float64)
    np.testing.assert_array_equal(segment_order(codes, count, values), _reference(codes, values))
    np.testing.assert_array_equal(grouping(codes, count), np.argsort(codes, kind="stable"))


def test_segment_order_of_nothing() -> None:
    assert segment_order(np.zeros(0, dtype=np.intp), 0, np.zeros(0)).tolist() == []


@settings(max_examples=100, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 500),
    st.sampled_from(["sorted", "narrow", "wide", "bool", "uint64", "negative"]),
)
def test_group_ids_are_numbered_as_unique_numbers_them(seed: int, n: int, kind: str) -> None:
    rng = np.random.default_rng(seed)
    if kind == "sorted":
        ids = np.sort(rng.integers(-(2**62), 2**62, n))
    elif kind == "narrow":
        ids = rng.integers(10**12, 10**12 + 2 * n, n)
    elif kind == "wide":
        ids = rng.integers(0, 2**40, n)
    elif kind == "bool":
        ids = rng.random(n) < 0.5
    elif kind == "uint64":
        ids = rng.integers(0, 3 * n, n).astype(np.uint64) + np.uint64(2**63)
    else:
        ids = rng.integers(-n, n, n).astype(np.int32)
    labels, index, sizes = _arrays._distinct(ids)
    want_labels, want_index, want_sizes = np.unique(ids, return_inverse=True, return_counts=True)
    assert labels.dtype == ids.dtype
    np.testing.assert_array_equal(labels, want_labels)
    np.testing.assert_array_equal(index, want_index)
    if sizes is not None:
        np.testing.assert_array_equal(sizes, want_sizes)
    if kind == "sorted" and n > 1:
        assert sizes is not None


def _quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return fn(*args, **kwargs)


FUNCTIONS = [
    (ranking.ndcg, {"ties": "trec"}),
    (ranking.ndcg, {"ties": "average", "gain": "exp"}),
    (ranking.dcg, {"ties": "average"}),
    (ranking.dcg, {"ties": "trec"}),
    (ranking.map, {}),
    (ranking.mrr, {"relevance_level": 2}),
    (ranking.precision_at, {}),
]

blocks = st.tuples(
    st.integers(0, 2**32 - 1),
    st.integers(1, 300),
    st.integers(1, 30),
    st.integers(0, 3),
    st.integers(0, 2),
    st.integers(1, 40),
    st.one_of(st.none(), st.integers(1, 6)),
)


@settings(max_examples=60, deadline=None)
@given(blocks)
def test_blocks_of_queries_give_the_values_of_one_piece(
    params: tuple[int, int, int, int, int, int, int | None],
) -> None:
    seed, n, count, style, layout, chunk, k = params
    rng = np.random.default_rng(seed)
    group = _codes(rng, n, count, layout) * 7 - 3
    grades = rng.integers(-1, 4, n).astype(np.float64)
    scores = _values(rng, n, style)
    scores[~np.isfinite(scores)] = 0.0
    for function, options in FUNCTIONS:
        kwargs: dict[str, Any] = {"group": group, "per_group": True, **options}
        if function is not ranking.precision_at or k is not None:
            kwargs["k"] = k
        whole = _quiet(function, grades, scores, **kwargs)
        with mock.patch.object(_arrays, "_CHUNK", chunk):
            blocked = _quiet(function, grades, scores, **kwargs)
        np.testing.assert_array_equal(blocked, whole)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 25), st.integers(2, 30), st.integers(0, 3))
def test_blocks_of_queries_match_sklearn(seed: int, rows: int, cols: int, style: int) -> None:
    rng = np.random.default_rng(seed)
    grades = rng.integers(0, 4, (rows, cols)).astype(np.float64)
    scores = _values(rng, rows * cols, style).reshape(rows, cols)
    scores[~np.isfinite(scores)] = 0.0
    with mock.patch.object(_arrays, "_CHUNK", int(rng.integers(1, 3 * cols))):
        ours = _quiet(ranking.ndcg, grades, scores, k=5, ties="average", per_group=True)
        dcg = ranking.dcg(grades, scores, ties="average", per_group=True)
    expected = [ndcg_score(g[None], s[None], k=5) for g, s in zip(grades, scores, strict=True)]
    np.testing.assert_allclose(ours, expected, rtol=TOL, atol=TOL)
    expected = [dcg_score(g[None], s[None]) for g, s in zip(grades, scores, strict=True)]
    np.testing.assert_allclose(dcg, expected, rtol=TOL, atol=0)


@settings(max_examples=60, deadline=None)
@given(orders)
def test_ideal_gains_of_candidates_match_the_judged_ranking(
    params: tuple[int, int, int, int, int],
) -> None:
    seed, n, count, style, layout = params
    rng = np.random.default_rng(seed)
    codes = np.unique(_codes(rng, n, count, layout), return_inverse=True)[1]
    data = _arrays._Candidates(
        grade=np.abs(_values(rng, n, style)).clip(0, 1e300),
        score=rng.random(n),
        query=codes.astype(np.intp),
        labels=np.arange(int(codes.max()) + 1),
    )
    judged = _arrays._judged(data)
    assert isinstance(judged, _arrays._AllJudged)
    plain = Judged(**{f: getattr(judged, f) for f in Judged.__dataclass_fields__})
    gains = judged.judged_grade
    for ours, theirs in zip(judged.ideal_gains(gains), plain.ideal_gains(gains), strict=True):
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours, theirs)
