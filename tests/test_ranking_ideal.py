"""The ideal ordering of each query's gains: whole gains laid out from their counts give the
arrays of a sort by query then decreasing gain, bit for bit."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.ranking._ranked import Judged


def _judged(queries: int, judged_query: np.ndarray) -> Judged:
    none = np.zeros(0, dtype=np.int64)
    return Judged(
        queries=np.array([f"q{i}" for i in range(queries)]),
        row_query=none,
        rank=none,
        grade=np.zeros(0),
        judged_query=judged_query,
        judged_grade=np.zeros(len(judged_query)),
        absent=np.array([], dtype=str),
        listed=np.zeros(0, dtype=bool),
    )


def _sorted(judged: Judged, gains: np.ndarray) -> tuple[list[int], list[float], list[int]]:
    keep = gains > 0
    q, g = judged.judged_query[keep], gains[keep]
    order = np.lexsort((-g, q))
    q, g = q[order], g[order]
    rank = np.arange(len(q)) - np.searchsorted(q, np.arange(judged.n_queries))[q] + 1
    return q.tolist(), g.tolist(), rank.tolist()


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 30),
    st.lists(st.tuples(st.integers(0, 29), st.integers(-2, 6)), max_size=200),
    st.sampled_from(["whole", "exp", "fraction", "huge", "nan"]),
)
def test_ideal_gains_are_those_of_a_sort(
    queries: int, rows: list[tuple[int, int]], kind: str
) -> None:
    rows = [(q % queries, g) for q, g in rows]
    judged = _judged(queries, np.array([q for q, _ in rows], dtype=np.int64))
    grades = np.array([g for _, g in rows], dtype=np.float64)
    gains = {
        "whole": grades,
        "exp": np.exp2(np.maximum(grades, 0)) - 1,
        "fraction": grades / 4,
        "huge": grades * 1e300,
        "nan": np.where(grades == 3, np.nan, grades),
    }[kind]
    q, g, rank = judged.ideal_gains(gains)
    want = _sorted(judged, gains)
    assert (q.tolist(), g.tolist(), rank.tolist()) == want
    assert q.dtype == np.int64 and g.dtype == np.float64 and rank.dtype == np.int64


def test_ideal_gains_of_many_queries_and_one_high_grade() -> None:
    rng = np.random.default_rng(3)
    judged = _judged(5000, rng.integers(0, 5000, 20000))
    for top in (3, 40, 10_000):
        gains = rng.integers(0, top + 1, 20000).astype(np.float64)
        q, g, rank = judged.ideal_gains(gains)
        assert (q.tolist(), g.tolist(), rank.tolist()) == _sorted(judged, gains)
