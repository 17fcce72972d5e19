"""BLEU's n-gram counting: lengths, clipped matches and totals of a batch, no loop per segment.

Tokens are integer ids; each n-gram of each segment gets an integer code (the
code of its (n-1)-gram prefix paired with its last token, made dense by a hash
table), so per-segment n-gram counts are ``bincount`` calls.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from scorekit.text._lcs import dense_codes


def _count(
    ids: NDArray[np.int64],
    lengths: NDArray[np.int64],
    counts: NDArray[np.int64],
    max_order: int,
    clip: bool,
) -> tuple[int, int, NDArray[np.int64], NDArray[np.int64]]:
    """Summed hypothesis length, closest reference length, matches and totals per order.

    ``lengths`` holds the token counts of the ``n`` predictions followed by those
    of the references (grouped by prediction, ``counts[i]`` for prediction ``i``).
    """
    hyp_lens, closest = _lengths(lengths, counts)
    totals = np.array([np.maximum(hyp_lens - i, 0).sum() for i in range(max_order)], np.int64)
    matches = _matches(ids, lengths, counts, max_order, clip, per_segment=False)
    return int(hyp_lens.sum()), int(closest.sum()), matches, totals


def _segment_count(
    ids: NDArray[np.int64],
    lengths: NDArray[np.int64],
    counts: NDArray[np.int64],
    max_order: int,
    clip: bool,
) -> NDArray[np.int64]:
    """Per segment: hypothesis length, closest reference length, matches and totals per order.

    Shape ``(n, 2 + 2 * max_order)``, the columns in sacrebleu's order; the
    rows sum to :func:`_count`'s statistics.
    """
    hyp_lens, closest = _lengths(lengths, counts)
    out = np.empty((len(counts), 2 + 2 * max_order), dtype=np.int64)
    out[:, 0] = hyp_lens
    out[:, 1] = closest
    out[:, 2 : 2 + max_order] = _matches(ids, lengths, counts, max_order, clip, per_segment=True)
    grams = np.arange(max_order, dtype=np.int64)
    out[:, 2 + max_order :] = np.maximum(hyp_lens[:, None] - grams, 0)
    return out


def _lengths(
    lengths: NDArray[np.int64], counts: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Per prediction its length and its closest reference length (the shorter on ties)."""
    n = len(counts)
    hyp_lens, ref_lens = lengths[:n], lengths[n:]
    starts = np.cumsum(counts) - counts
    ref_item = np.repeat(np.arange(n), counts)
    width = int(ref_lens.max()) + 1
    key = np.abs(ref_lens - hyp_lens[ref_item]) * width + ref_lens
    return hyp_lens, np.minimum.reduceat(key, starts) % width


def _matches(
    ids: NDArray[np.int64],
    lengths: NDArray[np.int64],
    counts: NDArray[np.int64],
    max_order: int,
    clip: bool,
    *,
    per_segment: bool,
) -> NDArray[np.int64]:
    """Matched n-grams per order, summed ``(max_order,)`` or per segment ``(n, max_order)``."""
    n = len(counts)
    matches = np.zeros((n, max_order) if per_segment else max_order, dtype=np.int64)
    if len(ids) == 0:
        return matches
    starts = np.cumsum(counts) - counts
    ref_item = np.repeat(np.arange(n), counts)
    ref_rank = np.arange(len(lengths) - n) - np.repeat(starts, counts)
    hyp_tokens = int(lengths[:n].sum())
    line_item = np.concatenate([np.arange(n), ref_item])
    token_line = np.repeat(np.arange(len(lengths)), lengths)
    remaining = np.cumsum(lengths)[token_line] - np.arange(len(ids))  # tokens left in the line
    token_rank = ref_rank[token_line[hyp_tokens:] - n]
    n_ranks = int(counts.max())
    width = int(ids.max()) + 1

    pos = np.arange(len(ids))
    code = dense_codes(line_item[token_line] * width + ids)  # (segment, token)
    alive = np.ones(0, dtype=bool)  # prefixes in both the prediction and a reference
    for order in range(1, max_order + 1):
        if order > 1:
            # only n-grams whose (n-1)-gram prefix occurs in both the prediction and
            # a reference of the segment can match
            keep = (remaining[pos] >= order) & alive[code]
            pos = pos[keep]
            if len(pos) == 0:
                break
            # (segment, n-gram) = ((segment, (n-1)-gram prefix), last token)
            code = dense_codes(code[keep] * width + ids[pos + order - 1])
        k = int(code.max()) + 1
        n_hyp = int(np.searchsorted(pos, hyp_tokens))
        hyp_count = np.bincount(code[:n_hyp], minlength=k)
        ref_codes = code[n_hyp:]
        if n_ranks == 1:
            ref_count = np.bincount(ref_codes, minlength=k)
        else:  # the most often any one reference has the n-gram
            ranks = token_rank[pos[n_hyp:] - hyp_tokens]
            ref_count = np.zeros(k, dtype=np.int64)
            for j in range(n_ranks):
                np.maximum(
                    ref_count, np.bincount(ref_codes[ranks == j], minlength=k), out=ref_count
                )
        matched = np.minimum(hyp_count, ref_count) if clip else hyp_count * (ref_count > 0)
        if per_segment:
            segment = np.zeros(k, dtype=np.int64)
            segment[code] = line_item[token_line[pos]]
            matches[:, order - 1] = np.bincount(segment, weights=matched, minlength=n)
        else:
            matches[order - 1] = matched.sum()
        alive = (hyp_count > 0) & (ref_count > 0)
    return matches
