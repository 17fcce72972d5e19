"""Longest common subsequences of token sequences, without a Python loop per token pair.

Two kernels:

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
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
from numpy.typing import NDArray

__all__ = ["lcs_lengths", "lcs_positions", "position_masks"]

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
