"""Clipped n-gram matches of many (prediction, reference) pairs of symbol sequences, at once.

Every text is a sequence of small integer symbols (characters, words or
token ids, all ``>= 1``). Each position of a pair's two texts becomes one
integer key: the pair, the next ``order`` symbols (0 past the end of the
text) and the side (prediction or reference). One sort of the keys puts every
n-gram of every order next to its equals: for order ``n`` the keys that agree
in the pair and the first ``n`` symbols form a run, and the run's matches are
the smaller of its prediction and reference counts. So the clipped matches of
all orders come from one sort and a few linear passes, with no Python loop per
segment. chrF (characters and words) and ROUGE-N (tokens) count with it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["match_counts"]


def _positions(
    lengths: NDArray[np.int64], starts: NDArray[np.int64], texts: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The positions of ``texts`` one after another, and the index into ``texts`` of each."""
    sizes = lengths[texts]
    owner = np.repeat(np.arange(len(texts), dtype=np.int64), sizes)
    offsets = np.arange(int(sizes.sum()), dtype=np.int64) - np.repeat(
        np.cumsum(sizes) - sizes, sizes
    )
    return np.repeat(starts[texts], sizes) + offsets, owner


def match_counts(
    ids: NDArray[np.int64],
    lengths: NDArray[np.int64],
    n_preds: int,
    pair_item: NDArray[np.int64],
    order: int,
) -> NDArray[np.int64]:
    """Clipped n-gram matches per pair and order ``1..order``, shape ``(pairs, order)``.

    ``ids`` holds the symbols (``>= 1``) of the predictions (texts
    ``0..n_preds-1``) and then of the references, one reference per pair;
    ``pair_item[k]`` is the prediction of pair ``k``.

    Examples
    --------
    >>> ids = np.array([1, 2, 1, 1, 2])          # "aba" and "ab"
    >>> match_counts(ids, np.array([3, 2]), 1, np.array([0]), 2).tolist()
    [[2, 1]]
    """
    n_pairs = len(pair_item)
    out = np.zeros((n_pairs, order), dtype=np.int64)
    if n_pairs == 0 or order == 0 or ids.size == 0:
        return out
    n_texts = len(lengths)
    # `order` zeros after each text: past its end every symbol reads 0
    starts = np.cumsum(lengths) - lengths
    padded_starts = starts + order * np.arange(n_texts, dtype=np.int64)
    padded = np.zeros(len(ids) + order * (n_texts + 1), dtype=np.int64)
    pos, _ = _positions(lengths, padded_starts, np.arange(n_texts, dtype=np.int64))
    padded[pos] = ids
    hyp_pos, hyp_pair = _positions(lengths, padded_starts, pair_item)
    ref_pos, ref_pair = _positions(
        lengths, padded_starts, np.arange(n_preds, n_preds + n_pairs, dtype=np.int64)
    )
    where = np.concatenate([hyp_pos, ref_pos])
    pair = np.concatenate([hyp_pair, ref_pair])
    side = np.concatenate([np.zeros(len(hyp_pos), np.int64), np.ones(len(ref_pos), np.int64)])
    bits = int(ids.max()).bit_length()
    base = int(ids.max()) + 1
    if n_pairs * 2 < 2 ** (62 - bits * order):
        # symbols packed in bit fields: shifts and masks take a prefix
        key = pair.copy()
        for j in range(order):
            key <<= bits
            key |= padded[where + j]
        key <<= 1
        key |= side
        key.sort()
        refs_before = np.concatenate([np.zeros(1, np.int64), np.cumsum(key & 1)])
        prefix = key >> 1
        mask = (1 << bits) - 1
        for n in range(order, 0, -1):
            # prefix: the pair and the first n symbols, sorted
            first = _run_starts(prefix[1:] != prefix[:-1])
            head = prefix[first]
            _add_runs(first, head & mask != 0, head >> (bits * n), refs_before, out[:, n - 1])
            prefix >>= bits
        return out
    if n_pairs * 2 * base**order < 2**62:
        key = pair.copy()
        for j in range(order):
            key *= base
            key += padded[where + j]
        key *= 2
        key += side
        key.sort()
        refs_before = np.concatenate([np.zeros(1, np.int64), np.cumsum(key & 1)])
        prefix = key >> 1
        for n in range(order, 0, -1):
            first = _run_starts(prefix[1:] != prefix[:-1])
            head = prefix[first]
            _add_runs(first, head % base != 0, head // base**n, refs_before, out[:, n - 1])
            prefix //= base
        return out
    columns = [padded[where + j] for j in range(order)]
    perm = np.lexsort([side, *columns[::-1], pair])
    sorted_pair = pair[perm]
    refs_before = np.concatenate([np.zeros(1, np.int64), np.cumsum(side[perm])])
    differs = sorted_pair[1:] != sorted_pair[:-1]
    for n in range(1, order + 1):
        col = columns[n - 1][perm]
        differs |= col[1:] != col[:-1]
        first = _run_starts(differs)
        _add_runs(first, col[first] != 0, sorted_pair[first], refs_before, out[:, n - 1])
    return out


def _run_starts(differs: NDArray[np.bool_]) -> NDArray[np.int64]:
    """The first index of each run, given where neighbours differ."""
    return np.concatenate([np.zeros(1, np.int64), np.flatnonzero(differs) + 1])


def _add_runs(
    first: NDArray[np.int64],
    valid: NDArray[np.bool_],
    pair: NDArray[np.int64],
    refs_before: NDArray[np.int64],
    out: NDArray[np.int64],
) -> None:
    """Add each valid run's matches, min(prediction count, reference count), to its pair.

    ``refs_before[k]`` counts the reference n-grams among the first ``k`` sorted keys.
    """
    ends = np.append(first[1:], len(refs_before) - 1)
    refs = refs_before[ends] - refs_before[first]
    matches = np.minimum(refs, ends - first - refs)[valid]
    out += np.bincount(pair[valid], weights=matches, minlength=len(out)).astype(np.int64)
