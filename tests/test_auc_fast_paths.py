"""The fast paths of binary ROC AUC and AP of distinct scores against the general ones.

Labels of 0 and 1 (any integer type) or booleans are split into two masks
after one pass; each block of scores is gathered into every label's place at
once; each label's sorted scores are checked for repeats a block at a time;
scores of at least zero are searched as the integers of their bits; the AP of
distinct scores finds its precisions block by block. Each must give what
``np.unique``, boolean indexing, ``np.searchsorted`` on the floats and the
whole-array AP kernel give, bit for bit, and scikit-learn's values.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit.classification as C
import scorekit.classification._histogram as histogram
import scorekit.classification._pairs as pairs
from scorekit.classification._histogram import _binary_summary, _split_labels
from scorekit.errors import InputError

RTOL = 1e-12
INTEGER_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@contextmanager
def _small_blocks(block: int) -> Iterator[None]:
    """Gather, check and search ``block`` rows at a time from the first row on."""
    original = histogram._GATHER, pairs._MERGE_FROM, pairs._BLOCK
    histogram._GATHER, pairs._MERGE_FROM, pairs._BLOCK = block, 1, block
    try:
        yield
    finally:
        histogram._GATHER, pairs._MERGE_FROM, pairs._BLOCK = original


def _labels(rng: np.random.Generator, n: int, kind: int, share: float) -> np.ndarray:
    """Binary labels in many types and codings (0/1 of each integer type, bool, others)."""
    return _coded(rng.random(n) < share, kind)


def _coded(upper: np.ndarray, kind: int) -> np.ndarray:
    """The labels of a mask of the upper class: 0/1 of an integer type, bool, or others."""
    if kind < len(INTEGER_TYPES):
        return upper.astype(INTEGER_TYPES[kind])
    if kind == len(INTEGER_TYPES):
        return upper
    if kind == len(INTEGER_TYPES) + 1:
        return np.where(upper, 1, -1).astype(np.int32)
    if kind == len(INTEGER_TYPES) + 2:
        return np.where(upper, 2, 1).astype(np.uint8)
    return upper.astype(np.float64)


def _scores(rng: np.random.Generator, n: int, style: int) -> np.ndarray:
    if style == 0:
        return rng.random(n)  # distinct, at least zero
    if style == 1:
        return rng.random(n).astype(np.float32)
    if style == 2:
        return rng.normal(size=n)  # both signs
    if style == 3:
        return np.round(rng.random(n), 1)  # ties
    if style == 4:
        return np.round(rng.normal(size=n), 1).astype(np.float32)
    if style == 5:
        return np.where(rng.random(n) < 0.2, 0.0, rng.random(n) * 1e-310)  # zeros, subnormals
    s = rng.random(n)
    s[rng.random(n) < 0.2] = -0.0  # -0.0 among scores of at least zero
    return s


def _exact_auc(y: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> Fraction:
    """ROC AUC as an exact fraction of the (weighted) ordered and tied pairs."""
    upper = y == np.max(y)
    weights = np.ones(y.size, dtype=np.int64) if w is None else w
    wn, wp = weights[~upper], weights[upper]
    neg, pos = s[~upper].astype(np.float64), s[upper].astype(np.float64)
    pair = wn[:, None] * wp[None, :]
    below = pair[neg[:, None] < pos[None, :]].sum()
    tied = pair[neg[:, None] == pos[None, :]].sum()
    return Fraction(2 * int(below) + int(tied), 2 * int(wn.sum()) * int(wp.sum()))


def _whole_array_ap(un: np.ndarray, up: np.ndarray) -> float:
    """The AP of distinct scores as the kernel of one array finds it (the reference)."""
    at = np.searchsorted(un, up, "right")
    at -= un.take(at - 1, mode="clip") == up
    return pairs._ones_ap(float(un.size) - at.astype(np.float64))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 60),
    kind=st.integers(0, len(INTEGER_TYPES) + 3),
    share=st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]),
)
def test_labels_split_as_unique_does(seed: int, n: int, kind: int, share: float) -> None:
    y = _labels(np.random.default_rng(seed), n, kind, share)
    values, masks = _split_labels(y)
    want = np.unique(y)
    assert values.dtype == y.dtype and np.array_equal(values, want)
    assert masks is not None and len(masks) == want.size
    for value, mask in zip(want, masks, strict=True):
        assert mask.dtype == np.bool_ and np.array_equal(mask, y == value)


def test_labels_out_of_zero_and_one_take_the_general_split() -> None:
    # a large unsigned value (or -1 seen unsigned) is not a 0/1 label
    for y in (
        np.array([0, 1, 2**63], dtype=np.uint64),
        np.array([-1, 0, 1], dtype=np.int64),
        np.array([0, 1, 255], dtype=np.uint8),
    ):
        values, masks = _split_labels(y)
        assert np.array_equal(values, np.unique(y)) and values.dtype == y.dtype
        assert masks is not None
        assert [m.tolist() for m in masks] == [(y == v).tolist() for v in values]


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(0, 80),
    labels=st.integers(1, 5),
    block=st.integers(1, 9),
    wide=st.booleans(),
)
def test_every_label_is_gathered_in_order(
    seed: int, n: int, labels: int, block: int, wide: bool
) -> None:
    rng = np.random.default_rng(seed)
    s = rng.normal(size=n).astype(np.float64 if wide else np.float32)
    codes = rng.integers(0, labels, n)
    masks = [codes == j for j in range(labels)]
    outs = [np.full(int(m.sum()), np.nan, dtype=s.dtype) for m in masks]
    with _small_blocks(block):
        histogram._gather(s, masks, outs)
    for mask, out in zip(masks, outs, strict=True):
        assert out.tobytes() == s[mask].tobytes()


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.integers(-5, 30), max_size=40),
    block=st.integers(1, 9),
)
def test_repeats_are_found_across_blocks(values: list[int], block: int) -> None:
    x = np.sort(np.asarray(values, dtype=np.float64))
    with _small_blocks(block):
        assert histogram._distinct(x) == (np.unique(x).size == x.size)
        assert histogram._distinct(x.astype(np.float32)) == (np.unique(x).size == x.size)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    sizes=st.tuples(st.integers(0, 50), st.integers(0, 50)),
    style=st.integers(0, 4),
    wide=st.booleans(),
    block=st.integers(1, 9),
)
def test_searches_of_ordered_integers_equal_those_of_the_floats(
    seed: int, sizes: tuple[int, int], style: int, wide: bool, block: int
) -> None:
    rng = np.random.default_rng(seed)
    dtype = np.float64 if wide else np.float32
    tiny = np.finfo(dtype).smallest_subnormal
    pool = {
        0: rng.random(120),
        1: np.round(rng.random(120), 1),  # with 0.0, equal across the sides
        2: rng.random(120) * 1e300 if wide else rng.random(120) * 1e38,
        3: np.arange(120) * tiny,  # subnormals from 0.0 on
        4: rng.normal(size=120),  # both signs: searched as floats
    }[style].astype(dtype)
    short, long = (np.unique(rng.choice(pool, size)) for size in sizes)
    a, b = pairs._as_ordered_ints(short, long)
    if short.size and long.size and not (np.signbit(short[0]) or np.signbit(long[0])):
        assert a.dtype.kind == "i" and b.dtype.kind == "i"
    else:
        assert a is short and b is long
    for side in ("left", "right"):
        want = np.searchsorted(long, short, side)
        assert np.array_equal(np.searchsorted(b, a, side), want)
        with _small_blocks(block):
            found = np.concatenate(
                [np.zeros(0, dtype=np.intp)] + [f for _, f in pairs._searches(short, long, side)]
            )
        assert np.array_equal(found, want)


def test_negative_zero_and_mixed_types_are_searched_as_floats() -> None:
    neg_zero = np.array([-0.0, 1.0])
    plain = np.array([0.0, 0.5])
    for a, b in ((neg_zero, plain), (plain, neg_zero)):
        got = pairs._as_ordered_ints(a, b)
        assert got[0] is a and got[1] is b
    mixed = pairs._as_ordered_ints(plain, plain.astype(np.float32))
    assert mixed[0] is plain and mixed[1].dtype == np.float32
    empty = np.zeros(0)
    assert pairs._as_ordered_ints(empty, plain)[1] is plain
    # zeros of both signs repeated on a side (as runs of equal values may hold them)
    repeated = np.array([0.0, -0.0, 1.0])
    assert pairs._as_ordered_ints(plain, repeated)[1] is repeated
    want = np.searchsorted(plain, repeated, "right")
    assert np.array_equal(pairs._count_at_or_below(plain, repeated), want)
    # -0.0 and 0.0 are one score: one tied pair
    assert pairs._distinct_pairs(neg_zero, plain) == (1, 1)
    assert pairs.pair_auc(neg_zero, np.ones(2, dtype=np.int64), plain, np.ones(2, dtype=np.int64))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    sizes=st.tuples(st.integers(1, 60), st.integers(1, 60)),
    style=st.integers(0, 6),
    block=st.integers(1, 9),
)
def test_blockwise_ap_equals_the_whole_array_kernel_bit_for_bit(
    seed: int, sizes: tuple[int, int], style: int, block: int
) -> None:
    rng = np.random.default_rng(seed)
    un, up = (np.unique(_scores(rng, size, style) + 0.0) for size in sizes)
    if up.size > un.size:
        un, up = up, un  # the block path takes the shorter side as the positives
    ones_n = np.ones(un.size, dtype=np.int64)
    ones_p = np.ones(up.size, dtype=np.int64)
    want = _whole_array_ap(un, up)
    for size in (block, 1 << 20):
        with _small_blocks(size):
            assert pairs.pair_ap(un, ones_n, up, ones_p) == want
    y = np.concatenate([np.zeros(un.size, dtype=np.int64), np.ones(up.size, dtype=np.int64)])
    s = np.concatenate([un, up]).astype(np.float64)
    assert want == pytest.approx(skm.average_precision_score(y, s), rel=RTOL)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 90),
    kind=st.integers(0, len(INTEGER_TYPES) + 3),
    style=st.integers(0, 6),
    weights=st.sampled_from(["none", "int", "float"]),
    share=st.floats(0.05, 0.95),
    block=st.integers(1, 9),
)
def test_metrics_equal_scikit_learn_and_the_exact_fraction(
    seed: int, n: int, kind: int, style: int, weights: str, share: float, block: int
) -> None:
    rng = np.random.default_rng(seed)
    upper = rng.random(n) < share
    upper[:2] = [False, True]  # both classes
    y = _coded(upper, kind)
    s = _scores(rng, n, style)
    w = {
        "none": None,
        "int": rng.integers(1, 4, n),
        "float": rng.random(n) + 0.1,
    }[weights]
    wide = s.astype(np.float64)
    with _small_blocks(block):
        auc = C.roc_auc(y, s, sample_weight=w)
        ap = C.average_precision(y, s, sample_weight=w, pos_label=np.max(y).item())
    auc_ref = skm.roc_auc_score(upper, wide, sample_weight=w)
    ap_ref = skm.average_precision_score(upper, wide, sample_weight=w)
    # the previous kernels: the general summary of weights of one, then its rows
    ones = C.roc_auc(y, s, sample_weight=np.ones(n)) if w is None else auc
    assert auc == pytest.approx(auc_ref, rel=RTOL)
    assert ap == pytest.approx(ap_ref, rel=RTOL)
    if w is None or weights == "int":
        assert auc == float(_exact_auc(y, s, w))
    assert ones == pytest.approx(auc, rel=RTOL)
    # the state: each label's distinct scores, in the order of the sorted labels
    state = _binary_summary(y, s, None if w is None else np.asarray(w, dtype=np.float64))
    assert state.labels.dtype == y.dtype and np.array_equal(state.labels, np.unique(y))
    for j, label in enumerate(state.labels):
        mine = state.score[state.key == j].astype(np.float64)
        assert np.array_equal(mine, np.unique(s[y == label].astype(np.float64) + 0.0))


def test_one_class_and_empty_input() -> None:
    for dtype in (np.int64, np.uint8, np.bool_):
        for value in (0, 1):
            y = np.full(5, value, dtype=dtype)
            s = np.linspace(0, 1, 5)
            with warnings.catch_warnings(record=True):
                warnings.simplefilter("always")
                assert np.isnan(C.roc_auc(y, s))
                assert C.average_precision(y, s) == skm.average_precision_score(
                    np.full(5, value), s
                )
        for metric in (C.roc_auc, C.average_precision):
            with pytest.raises(InputError, match="empty input"):
                metric(np.zeros(0, dtype=dtype), np.zeros(0))


def test_a_large_batch_equals_the_previous_kernels() -> None:
    rng = np.random.default_rng(3)
    n = 300_000
    for share, dtype in ((0.3, np.float64), (0.8, np.float64), (0.3, np.float32)):
        y = (rng.random(n) < share).astype(np.int64)
        s = (rng.permutation(n) / n).astype(dtype)  # distinct in float32 too
        state = _binary_summary(y, s, None)
        un, cn, up, cp = pairs.split_binary(state.key, state.score, state.counts, 1)
        # the state: each label's sorted scores, one sample a row
        assert pairs._ones(cn) and pairs._ones(cp)
        assert un.tobytes() == np.sort(s[y == 0]).tobytes()
        assert up.tobytes() == np.sort(s[y == 1]).tobytes()
        short, long = (up, un) if up.size <= un.size else (un, up)
        at = np.searchsorted(long, short, "right")
        tied = int(np.count_nonzero(long.take(at - 1, mode="clip") == short))
        below = int(at.sum()) - tied
        if short is un:
            below = un.size * up.size - below - tied
        assert C.roc_auc(y, s) == (2 * below + tied) / (2 * un.size * up.size)
        if up.size <= un.size:
            assert C.average_precision(y, s) == _whole_array_ap(un, up)
        assert C.average_precision(y, s) == pytest.approx(
            skm.average_precision_score(y, s.astype(np.float64)), rel=RTOL
        )


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    sizes=st.tuples(st.integers(1, 60), st.integers(1, 60)),
    style=st.integers(0, 6),
    weights=st.sampled_from(["int", "float"]),
)
def test_weighted_ap_equals_the_kernel_of_fresh_arrays_bit_for_bit(
    seed: int, sizes: tuple[int, int], style: int, weights: str
) -> None:
    rng = np.random.default_rng(seed)
    un, up = (np.unique(_scores(rng, size, style) + 0.0) for size in sizes)
    if weights == "int":
        cn, cp = rng.integers(1, 5, un.size), rng.integers(1, 5, up.size)
        cp[0] = 2  # not one sample a row
    else:
        cn, cp = rng.random(un.size) + 0.1, rng.random(up.size) + 0.1
    below, _, _ = pairs._below(un, cn, up)
    cpf = cp.astype(np.float64)
    n_pos, n_neg = float(cpf.sum()), float(cn.sum())
    tp = n_pos - (np.cumsum(cpf) - cpf)
    fp = n_neg - below.astype(np.float64)
    want = float(np.add.reduce(cpf * (tp / (tp + fp)))) / n_pos
    assert pairs.pair_ap(un, cn, up, cp) == want
    y = np.concatenate([np.zeros(un.size), np.ones(up.size)])
    s = np.concatenate([un, up]).astype(np.float64)
    w = np.concatenate([cn, cp]).astype(np.float64)
    assert want == pytest.approx(skm.average_precision_score(y, s, sample_weight=w), rel=RTOL)
