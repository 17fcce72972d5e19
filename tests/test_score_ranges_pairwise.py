"""The streamed pairwise sum against numpy's own sums, compared with ``==``.

:class:`PairwiseSum` fed any pieces of an array must give the bits of
``np.add.reduce``, ``np.sum`` and the sum inside ``np.trapezoid``;
:func:`carried_cumsum` continues ``np.cumsum`` exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.classification._pairwise import PairwiseSum, carried_cumsum


def _values(rng: np.random.Generator, n: int, style: int) -> np.ndarray:
    """Values whose sums round differently for different orders of addition."""
    if style == 0:
        return rng.standard_normal(n) * np.exp(rng.uniform(-40, 40, n))
    if style == 1:
        return rng.random(n)
    if style == 2:
        return rng.integers(-3, 4, n) * 0.1
    return rng.standard_normal(n) * 1e300


def _pieces(rng: np.random.Generator, x: np.ndarray, cuts: int) -> list[np.ndarray]:
    at = np.sort(rng.integers(0, x.size + 1, cuts))
    return np.split(x, at)


def _streamed(pieces: list[np.ndarray], n: int) -> float:
    total = PairwiseSum(n)
    for piece in pieces:
        total.add(piece)
    return total.result()


def _streamed_back(x: np.ndarray, pieces: list[np.ndarray]) -> float:
    """The sum of ``x`` fed last value first, in the given pieces of ``x[::-1]``."""
    total = PairwiseSum(x.size, reverse=True)
    for piece in pieces:
        total.add(piece)
    return total.result()


def test_every_length_to_3000() -> None:
    rng = np.random.default_rng(11)
    for n in range(3001):
        x = _values(rng, n, n % 4)
        got = _streamed(_pieces(rng, x, int(rng.integers(0, 6))), n)
        want = np.add.reduce(x)
        assert got == want or (np.isnan(got) and np.isnan(want)), n
        assert got == np.sum(x) or np.isnan(got), n
        back = _streamed_back(x, _pieces(rng, x[::-1].copy(), int(rng.integers(0, 6))))
        assert back == want or (np.isnan(back) and np.isnan(want)), n


def test_random_lengths_to_a_million() -> None:
    rng = np.random.default_rng(12)
    for n in rng.integers(3000, 1_000_000, 12):
        x = _values(rng, int(n), int(n) % 4)
        assert _streamed(_pieces(rng, x, int(rng.integers(0, 300))), int(n)) == np.add.reduce(x)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(3000, 1_000_000),
    cuts=st.integers(0, 200),
    style=st.integers(0, 3),
    seed=st.integers(0, 2**32 - 1),
)
def test_long_arrays_in_random_pieces(n: int, cuts: int, style: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = _values(rng, n, style)
    assert _streamed(_pieces(rng, x, cuts), n) == np.add.reduce(x)
    assert _streamed_back(x, _pieces(rng, x[::-1].copy(), cuts)) == np.add.reduce(x)


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(0, 5000),
    cuts=st.integers(0, 50),
    style=st.integers(0, 3),
    seed=st.integers(0, 2**32 - 1),
)
def test_trapezoid_sum(n: int, cuts: int, style: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = np.sort(rng.random(n + 1))
    y = _values(rng, n + 1, style)
    terms = np.diff(x) * (y[1:] + y[:-1]) / 2.0
    want = np.trapezoid(y, x)
    assert _streamed(_pieces(rng, terms, cuts), n) == want


def test_one_value_at_a_time_and_special_values() -> None:
    rng = np.random.default_rng(3)
    x = _values(rng, 777, 0)
    assert _streamed(list(x), x.size) == np.add.reduce(x)
    for special in ([-0.0], [-0.0, -0.0], [np.inf, 1.0], [np.inf, -np.inf], [np.nan, 1.0]):
        a = np.array(special * 100)
        with np.errstate(invalid="ignore"):
            got, want = _streamed([a[:37], a[37:]], a.size), np.add.reduce(a)
        assert got == want or (np.isnan(got) and np.isnan(want))
        assert np.signbit(got) == np.signbit(want)
    assert _streamed([], 0) == 0.0 == np.add.reduce(np.empty(0))


def test_memory_stays_one_block() -> None:
    rng = np.random.default_rng(4)
    x = rng.random(100_000)
    total = PairwiseSum(x.size)
    for piece in np.split(x, np.arange(1000, x.size, 1000)):
        total.add(piece)
        assert total._buffer.size < 128
        assert len(total._values) <= 2 * 20
    assert total.fed == x.size
    assert total.result() == np.add.reduce(x)
    back = PairwiseSum(x.size, reverse=True)
    for piece in np.split(x[::-1], np.arange(1000, x.size, 1000)):
        back.add(piece)
        assert back._buffer.size < 128
    assert back.result() == np.add.reduce(x)


def test_misuse_is_an_error() -> None:
    total = PairwiseSum(3)
    total.add([1.0, 2.0])
    with pytest.raises(ValueError, match="before all values"):
        total.result()
    with pytest.raises(ValueError, match="more values than announced"):
        total.add([1.0, 2.0])
    with pytest.raises(ValueError, match="negative length"):
        PairwiseSum(-1)


@settings(max_examples=100, deadline=None)
@given(n=st.integers(1, 3000), style=st.integers(0, 3), seed=st.integers(0, 2**32 - 1))
def test_carried_cumsum(n: int, style: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = _values(rng, n, style)
    whole = np.cumsum(x)
    carry: float | np.floating = 0.0
    parts = []
    for piece in _pieces(rng, x, 5):
        if piece.size:
            parts.append(carried_cumsum(carry, piece))
            carry = parts[-1][-1]
    got = np.concatenate(parts)
    assert np.array_equal(got, whole, equal_nan=True)
    counts = rng.integers(0, 5, n)
    assert np.array_equal(
        carried_cumsum(np.int64(7), counts), np.cumsum(np.concatenate([[7], counts]))[1:]
    )
