"""Longest common subsequences of token sequences, without a Python loop per token pair.

Three kernels:

- :func:`lcs_lengths` gives the LCS length of many pairs of token-id sequences
  at once with rapidfuzz's compiled bit-parallel ``LCSseq`` (token ids become
  the code points of a string, so rapidfuzz compares tokens, not characters).
- :func:`lcs_positions` gives the positions of *one particular* LCS in the first
  sequence: the one rouge-score's table backtrack reads out (walking back from
  the ends, take a match whenever the two tokens are equal, otherwise drop the
  second sequence's token only when that keeps a strictly longer LCS). Which LCS
  is read out matters for ROUGE-Lsum's union of LCS. The table rows are kept as
  Python integers used as bit vectors (Hyyrö's bit-parallel LCS), so building
  them costs one step per token of the first sequence, and the read-out one
  step per token of the first sequence too: a run of moves along the second
  sequence ends at the previous occurrence of the current token, found from its
  position mask.
- :func:`lcs_marks` reads out the same LCS of many pairs at once (ROUGE-Lsum's
  sentence pairs): the rows are uint64 columns, one per pair, and each step of
  the table and of the walk back is one numpy operation over all pairs.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["dense_codes", "lcs_lengths", "lcs_marks", "lcs_positions", "position_masks"]

_SURROGATES = 0xD800
_SURROGATE_SPAN = 0x800
_MAX_ID = 0x10FFFF - _SURROGATE_SPAN


def _as_text(ids: NDArray[np.int64]) -> str:
    """Token ids as one string of code points (skipping the surrogate range)."""
    points = ids.astype(np.uint32)
    points[points >= _SURROGATES] += _SURROGATE_SPAN
    return points.astype("<u4").tobytes().decode("utf-32-le")


def lcs_lengths(
    ids: NDArray[np.int64],
    starts_a: NDArray[np.int64],
    ends_a: NDArray[np.int64],
    starts_b: NDArray[np.int64],
    ends_b: NDArray[np.int64],
) -> NDArray[np.int64]:
    """LCS lengths of the pairs ``ids[starts_a[k]:ends_a[k]]``, ``ids[starts_b[k]:ends_b[k]]``.

    ``ids`` are non-negative token ids. Pairs with an empty side have length 0.

    Examples
    --------
    >>> ids = np.array([0, 1, 2, 3, 1, 3, 2])
    >>> lcs_lengths(ids, np.array([0]), np.array([4]), np.array([4]), np.array([7]))
    array([2])
    """
    from rapidfuzz.distance import LCSseq
    from rapidfuzz.process import cpdist

    if len(starts_a) == 0:
        return np.zeros(0, dtype=np.int64)
    if ids.size and int(ids.max()) > _MAX_ID:
        seqs = ids.tolist()
        return np.array(
            [
                LCSseq.similarity(seqs[a:b], seqs[c:d])
                for a, b, c, d in zip(
                    starts_a.tolist(),
                    ends_a.tolist(),
                    starts_b.tolist(),
                    ends_b.tolist(),
                    strict=True,
                )
            ],
            dtype=np.int64,
        )
    text = _as_text(ids)
    first = [text[a:b] for a, b in zip(starts_a.tolist(), ends_a.tolist(), strict=True)]
    second = [text[a:b] for a, b in zip(starts_b.tolist(), ends_b.tolist(), strict=True)]
    out = cpdist(first, second, scorer=LCSseq.similarity, dtype=np.int64)
    return np.asarray(out, dtype=np.int64)


def lcs_positions(
    first: Sequence[Hashable],
    second: Sequence[Hashable],
    masks: dict[Hashable, int] | None = None,
) -> list[int]:
    """Positions in ``first`` of the LCS that rouge-score's backtrack reads out, ascending.

    ``masks`` may give, per token, the bit mask of its positions in ``second``
    (as :func:`position_masks` builds it) when ``second`` is compared many times.

    Examples
    --------
    >>> lcs_positions("abcab", "ab")
    [3, 4]
    >>> lcs_positions(["the", "cat", "sat"], ["a", "cat", "sat"])
    [1, 2]
    """
    m, n = len(first), len(second)
    if m == 0 or n == 0:
        return []
    if masks is None:
        masks = position_masks(second)
    full = (1 << n) - 1
    # rows[i]: bit j clear <=> LCS(first[:i], second[:j + 1]) exceeds LCS(first[:i], second[:j])
    rows = [full]
    v = full
    for token in first:
        u = v & masks.get(token, 0)
        v = ((v + u) | (v - u)) & full
        rows.append(v)
    if rows[-1] == full:
        return []
    out: list[int] = []
    i, j = m, n
    while i > 0 and j > 0:
        token = first[i - 1]
        if token != second[j - 1]:
            low = (1 << j) - 1
            if (rows[i - 1] & low).bit_count() <= (rows[i] & low).bit_count():
                # LCS(first[:i - 1], second[:j]) is as long: the backtrack drops first[i - 1]
                i -= 1
                continue
            # first[:i] is ahead of first[:i - 1] from the column where first[i - 1] last
            # matches, so the backtrack drops second's tokens back to that match
            j = (masks[token] & (low >> 1)).bit_length()
        out.append(i - 1)
        i -= 1
        j -= 1
    out.reverse()
    return out


def position_masks(tokens: Sequence[Hashable]) -> dict[Hashable, int]:
    """Per distinct token, the bit mask of the positions where it occurs.

    Examples
    --------
    >>> position_masks("abca")
    {'a': 9, 'b': 2, 'c': 4}
    """
    masks: dict[Hashable, int] = {}
    for j, token in enumerate(tokens):
        masks[token] = masks.get(token, 0) | (1 << j)
    return masks


# the vectorised read-out: one numpy step per token of the first sequences ---------

_WORD = 63  # second sequences up to this many tokens fit a uint64 row with its carry
_FEW = 32  # fewer pairs than this, or the longest first sequences past the 32nd, go one by one
_ELEMENTS = 1 << 21  # tokens of the first sequences read out per numpy pass
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


def _popcount_swar(x: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """Set bits of each uint64, with shifts and masks (numpy before ``bitwise_count``)."""
    x = x - ((x >> np.uint64(1)) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return np.asarray((x * _H01) >> np.uint64(56), dtype=np.uint64)


def _popcount(x: NDArray[np.uint64]) -> NDArray[Any]:
    count = getattr(np, "bitwise_count", None)
    return _popcount_swar(x) if count is None else count(x)


def _bit_length(x: NDArray[np.uint64]) -> NDArray[np.int64]:
    """``int.bit_length`` of each uint64: the set bits once every bit below the top is set."""
    for shift in (1, 2, 4, 8, 16, 32):
        x = x | (x >> np.uint64(shift))
    return _popcount(x).astype(np.int64)


def lcs_marks(
    ids: NDArray[np.int64],
    starts_a: NDArray[np.int64],
    ends_a: NDArray[np.int64],
    starts_b: NDArray[np.int64],
    ends_b: NDArray[np.int64],
) -> NDArray[np.bool_]:
    """Marks on ``ids`` of the LCS positions :func:`lcs_positions` reads out of each pair.

    For each pair, the first sequence ``ids[starts_a[k]:ends_a[k]]`` gets its
    positions on the LCS with ``ids[starts_b[k]:ends_b[k]]`` marked (as
    positions of ``ids``); pairs that share a first sequence mark the union of
    their LCS. Second sequences of up to 63 tokens are read out for all pairs at
    once, the rows of the bit-parallel table held as uint64 columns and each
    step of the walk back taken for every pair together; longer ones (and the
    few longest first sequences) one by one with :func:`lcs_positions`.

    Examples
    --------
    >>> ids = np.array([0, 1, 2, 0, 1, 0, 1])
    >>> lcs_marks(ids, np.array([0]), np.array([5]), np.array([5]), np.array([7])).nonzero()[0]
    array([3, 4])
    """
    marks = np.zeros(len(ids), dtype=bool)
    m = ends_a - starts_a
    n = ends_b - starts_b
    keep = (m > 0) & (n > 0)
    wide = keep & (n > _WORD)
    fits = np.flatnonzero(keep & ~wide)
    if len(fits) >= _FEW:
        longest = np.sort(m[fits])[-_FEW]
        cap = max(2 * _WORD, int(longest))
        wide[fits[m[fits] > cap]] = True
        fits = fits[m[fits] <= cap]
    else:
        wide[fits] = True
        fits = fits[:0]
    if wide.any():
        seqs = ids.tolist()
        for a, b, c, d in zip(
            starts_a[wide].tolist(),
            ends_a[wide].tolist(),
            starts_b[wide].tolist(),
            ends_b[wide].tolist(),
            strict=True,
        ):
            marks[[a + i for i in lcs_positions(seqs[a:b], seqs[c:d])]] = True
    if len(fits):
        # passes of at most _ELEMENTS first-sequence tokens
        ends = np.cumsum(m[fits])
        cuts = np.searchsorted(ends, np.arange(_ELEMENTS, int(ends[-1]), _ELEMENTS), side="right")
        for part in np.split(fits, cuts):
            if len(part):
                _mark_fitting(ids, starts_a[part], m[part], starts_b[part], n[part], marks)
    return marks


def _mark_fitting(
    ids: NDArray[np.int64],
    start_a: NDArray[np.int64],
    m: NDArray[np.int64],
    start_b: NDArray[np.int64],
    n: NDArray[np.int64],
    marks: NDArray[np.bool_],
) -> None:
    """:func:`lcs_marks` of pairs whose second sequences have 1 to 63 tokens, all at once.

    Pairs are ranked by decreasing first length and their first sequences
    aligned at their ends: pair ``p`` reads its token ``k`` at step
    ``longest - m[p] + k``, so the pairs reading at a step are a prefix, the
    table cell of pair ``p`` at step ``s`` sits at ``base[s] + p``, and the
    walk back, which drops or takes one token of the first sequence per step,
    reads one slice per step for every pair.
    """
    # by decreasing length; a radix sort when the lengths fit 16 bits
    short = np.uint16 if int(m.max()) < 1 << 16 else np.int64
    order = np.argsort((m.max() - m).astype(short), kind="stable")
    start_a, m, start_b, n = start_a[order], m[order], start_b[order], n[order]
    longest = int(m[0])
    # active[s]: pairs with at least longest - s tokens in the first sequence
    active = np.searchsorted(-m, np.arange(longest, dtype=np.int64) - longest, side="right")
    base = np.concatenate([[0], np.cumsum(active)])
    size = int(base[-1])
    step = np.repeat(np.arange(longest, dtype=np.int64), active)
    rank = np.arange(size, dtype=np.int64) - base[step]
    tokens = ids[(start_a + m - longest)[rank] + step]
    # the distinct second sequences, each at the first pair that reads it
    second_of = dense_codes(start_b * (_WORD + 1) + n)
    first_at = np.empty(int(second_of.max()) + 1, dtype=np.int64)
    first_at[second_of[::-1]] = np.arange(len(second_of) - 1, -1, -1)
    eq = _position_masks(ids, start_b[first_at], n[first_at], second_of[rank], tokens)
    # forward: the row of pair p after its token at step s at base[s] + p (Hyyrö's bit-parallel LCS)
    one = np.uint64(1)
    full = (one << n.astype(np.uint64)) - one
    rows = np.empty(size, dtype=np.uint64)
    v = full.copy()
    for s in range(longest):
        a, lo, hi = int(active[s]), int(base[s]), int(base[s + 1])
        cur = v[:a]
        u = cur & eq[lo:hi]
        cur = ((cur + u) | (cur - u)) & full[:a]
        v[:a] = cur
        rows[lo:hi] = cur
    # the walk back from the last step: j is each pair's column, the token read its last one
    j = n.astype(np.uint64)
    last = start_a + m - 1
    for t in range(longest):
        s = longest - 1 - t
        a, lo, hi = int(active[s]), int(base[s]), int(base[s + 1])
        row = rows[lo:hi]
        before = int(base[s - 1]) if s else lo
        prev = (
            rows[before:lo]
            if lo - before == a
            else np.concatenate([rows[before:lo], full[lo - before : a]])
        )
        jj = j[:a]
        low = (one << jj) - one
        found = eq[lo:hi]
        # the two tokens are equal when the token's mask has the column's bit
        same = (found & (low ^ (low >> one))) != 0
        drop = ~same & (_popcount(prev & low) <= _popcount(row & low))
        jump = np.flatnonzero(~(same | drop))
        if len(jump):
            jj[jump] = _bit_length(found[jump] & (low[jump] >> one)).astype(np.uint64)
        take = ~drop
        marks[last[:a][take] - t] = True
        jj -= take.astype(np.uint64)


def _position_masks(
    ids: NDArray[np.int64],
    starts: NDArray[np.int64],
    lengths: NDArray[np.int64],
    which: NDArray[np.int64],
    tokens: NDArray[np.int64],
) -> NDArray[np.uint64]:
    """Per query ``k``, the mask of the positions of ``tokens[k]`` in sequence ``which[k]``.

    The sequences are ``ids[starts[s]:starts[s] + lengths[s]]``, of at most 63
    tokens. Each (sequence, token) pair is a key; the keys of the sequences'
    positions (low bits: the position) and of the queries (low bits: 64 plus
    the query's index) are sorted together, so each key's positions come
    just before its queries: the mask of a run of equal keys is the or of its
    positions' bits, and each query of the run reads it.
    """
    total = int(lengths.sum())
    offsets = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    owner = np.repeat(np.arange(len(starts), dtype=np.int64), lengths)
    words = ids[np.repeat(starts, lengths) + offsets]
    queries = len(which)
    vocab = int(max(ids.max(), tokens.max() if queries else 0)) + 1
    shift = (_WORD + 1 + queries).bit_length()
    if (len(starts) * vocab).bit_length() + shift > 62:
        # keys too wide to carry the low bits: number them with a hash table
        codes = dense_codes(np.concatenate([owner * vocab + words, which * vocab + tokens]))
        masks = np.zeros(int(codes.max()) + 1, dtype=np.uint64)
        bits = np.left_shift(np.uint64(1), offsets.astype(np.uint64))
        np.bitwise_or.at(masks, codes[:total], bits)
        return masks[codes[total:]]
    keyed = np.concatenate(
        [
            ((owner * vocab + words) << shift) | offsets,
            ((which * vocab + tokens) << shift) | np.arange(_WORD + 1, _WORD + 1 + queries),
        ]
    )
    keyed.sort()
    low = keyed & ((1 << shift) - 1)
    keys = keyed >> shift
    run = np.empty(len(keys), dtype=np.int64)
    run[0] = 0
    np.cumsum(keys[1:] != keys[:-1], out=run[1:])
    at = np.flatnonzero(low <= _WORD)
    masks = np.zeros(int(run[-1]) + 1, dtype=np.uint64)
    np.bitwise_or.at(masks, run[at], np.left_shift(np.uint64(1), low[at].astype(np.uint64)))
    asked = np.flatnonzero(low > _WORD)
    out = np.empty(queries, dtype=np.uint64)
    out[low[asked] - (_WORD + 1)] = masks[run[asked]]
    return out


def dense_codes(keys: NDArray[np.int64]) -> NDArray[np.int64]:
    """Codes ``0..k-1`` of the keys, equal exactly for equal keys (a hash table, no sort).

    Codes follow the order in which the keys first occur.

    Examples
    --------
    >>> dense_codes(np.array([7, 3, 7, 9]))
    array([0, 1, 0, 2])
    """
    import pyarrow as pa

    codes = pa.array(keys).dictionary_encode().indices
    return np.asarray(codes.to_numpy(zero_copy_only=False), dtype=np.int64)
