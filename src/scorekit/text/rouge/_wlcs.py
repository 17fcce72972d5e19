"""ROUGE-W: ROUGE-1.5.5's weighted longest common subsequence, per sentence as ROUGE-1.5.5.

ROUGE-1.5.5 reads each sentence of a text (a line, with the default
splitter) as its own sequence: the weighted LCS of each reference sentence is
taken against each prediction sentence (a run of consecutive matches never
continues across a sentence end), the reference positions they cover are
joined, and each covered position counts while the prediction still has that
token unused. The match score sums ``f(run)`` over the runs of counted
positions, with ``f(k) = k^w``; the normalisers are ``f(prediction tokens)``
and ``f(sum over reference sentences of f(sentence tokens))``. A pair whose
texts are one sentence each takes the fast path of :func:`_wlcs_hits`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np
from numpy.typing import NDArray


class _Tokens(Protocol):
    """The token ids of a batch's texts, one after another, and where each text starts and ends."""

    ids: NDArray[np.int64]
    starts: NDArray[np.int64]
    ends: NDArray[np.int64]


SentenceIds = Callable[[str, bool], list[NDArray[np.int64]] | None]


def _segmented_cummax(
    values: NDArray[np.float64], starts: NDArray[np.bool_]
) -> NDArray[np.float64]:
    """Running maximum of ``values`` that restarts wherever ``starts`` is True (exact)."""
    uniq, rank = np.unique(values, return_inverse=True)
    segment = np.cumsum(starts)
    keys = segment.astype(np.int64) * (len(uniq) + 1) + rank.reshape(-1)
    running = np.maximum.accumulate(keys) - segment * (len(uniq) + 1)
    return np.asarray(uniq[running], dtype=np.float64)


def _wlcs_positions(hyp: NDArray[np.int64], ref: NDArray[np.int64], weight: float) -> list[int]:
    """The reference positions of the weighted LCS of one pair that ROUGE-1.5.5 reads back.

    The table of Lin (2004) is filled row by row over the prediction (numpy along
    the reference); one weighted LCS is read back from the end, taking the
    diagonal on equal tokens, else the move along the reference when it keeps
    the score.
    """
    m, n = len(hyp), len(ref)
    table = np.zeros((m + 1, n + 1))
    run = np.zeros(n + 1, dtype=np.int64)
    is_start = np.zeros(n + 1, dtype=bool)
    is_start[0] = True
    for i in range(1, m + 1):
        match = np.concatenate([[False], ref == hyp[i - 1]])
        k = np.concatenate([[0], run[:-1]])
        diag = np.concatenate([[0.0], table[i - 1, :-1]])
        # (diag + f(k + 1)) - f(k), in ROUGE-1.5.5's order: the read-back compares
        # cells for equality, so the rounding must be the same
        values = np.where(
            match, (diag + (k + 1.0) ** weight) - k.astype(np.float64) ** weight, table[i - 1]
        )
        starts = is_start | match
        # a match takes the diagonal; otherwise the max of above and left, which
        # chains back to the last match of the row
        table[i] = np.where(match, values, _segmented_cummax(values, starts))
        run = np.where(match, k + 1, 0)
    positions: list[int] = []
    i, j = m, n
    while i > 0 and j > 0:
        if hyp[i - 1] == ref[j - 1]:
            i -= 1
            j -= 1
            positions.append(j)
        elif table[i, j] == table[i, j - 1]:
            j -= 1
        else:
            i -= 1
    return positions[::-1]


def _wlcs_hits(hyp: NDArray[np.int64], ref: NDArray[np.int64], weight: float) -> float:
    """ROUGE-1.5.5's weighted LCS score of two single sentences: the sum of ``f(run)``."""
    positions = _wlcs_positions(hyp, ref, weight)
    if not positions:
        return 0.0
    pos = np.asarray(positions, dtype=np.int64)
    breaks = np.flatnonzero(np.diff(pos) != 1)
    lengths = np.diff(np.concatenate([[-1], breaks, [len(pos) - 1]]))
    return float(np.sum(lengths.astype(np.float64) ** weight))


def _summary_wlcs(
    hyp_sents: list[NDArray[np.int64]], ref_sents: list[NDArray[np.int64]], weight: float
) -> tuple[float, float, float]:
    """Match score and prediction and reference normalisers of texts of several sentences."""
    available = Counter(t for sent in hyp_sents for t in sent.tolist())
    match = 0.0
    for ref in ref_sents:
        union: set[int] = set()
        for hyp in hyp_sents:
            if len(hyp) and len(ref):
                union.update(_wlcs_positions(hyp, ref, weight))
        tokens = ref.tolist()
        run = 0
        for idx in sorted(union):
            if available[tokens[idx]] > 0:
                available[tokens[idx]] -= 1
                run += 1
                # a run ends at the sentence end or before a position outside the union
                if idx == len(tokens) - 1 or idx + 1 not in union:
                    match += run**weight
                    run = 0
    hyp_score = float(sum(len(h) for h in hyp_sents)) ** weight
    ref_score = sum(float(len(r)) ** weight for r in ref_sents) ** weight
    return match, hyp_score, ref_score


def _sentence_ids(
    tokenize: Callable[[str], list[str]],
    stem_token: Callable[[str], str] | None,
    split: Callable[[str], Sequence[str]],
) -> SentenceIds:
    """A function from a text to the token ids of each of its sentences (one shared vocabulary).

    It returns None for a text of one sentence, unless asked for ``always``.
    """
    index: dict[str, int] = {}

    def ids(text: str, always: bool) -> list[NDArray[np.int64]] | None:
        pieces = split(text)
        if len(pieces) <= 1 and not always:
            return None
        out = []
        for sentence in pieces:
            tokens = tokenize(sentence)
            if stem_token is not None:
                tokens = [stem_token(t) for t in tokens]
            out.append(np.asarray([index.setdefault(t, len(index)) for t in tokens], np.int64))
        return out

    return ids


def _wlcs_scores(
    batch: _Tokens,
    n: int,
    pair_item: NDArray[np.int64],
    weight: float,
    texts: tuple[list[str], list[str]],
    sentence_ids: SentenceIds,
) -> NDArray[np.float64]:
    """Per pair: ROUGE-W precision, recall and F-measure as ROUGE-1.5.5.

    ``P = (WLCS / f(|p|))^(1/w)`` and ``R = (WLCS / f(sum_s f(|r_s|)))^(1/w)``
    with ``f(k) = k^w`` over the reference sentences ``r_s``: ROUGE-1.5.5 weighs
    the reference length twice. ``texts`` are the predictions and references,
    cut into sentences by ``sentence_ids`` when either side has several.
    """
    preds, refs = texts
    out = np.zeros((len(pair_item), 3))
    # each prediction's sentences (None for one sentence), cut once for all its references
    pred_sents: dict[int, list[NDArray[np.int64]] | None] = {}
    for k, item in enumerate(pair_item.tolist()):
        if item not in pred_sents:
            pred_sents[item] = sentence_ids(preds[item], False)
        hyp_sents = pred_sents[item]
        ref_sents = sentence_ids(refs[k], False)
        if hyp_sents is not None or ref_sents is not None:
            # both sides in the sentence tokenizer's vocabulary
            if hyp_sents is None:
                hyp_sents = sentence_ids(preds[item], True)
            if ref_sents is None:
                ref_sents = sentence_ids(refs[k], True)
            hits, hyp_score, ref_score = _summary_wlcs(hyp_sents or [], ref_sents or [], weight)
            if hyp_score == 0 or ref_score == 0:
                continue
            precision = (hits / hyp_score) ** (1.0 / weight)
            recall = (hits / ref_score) ** (1.0 / weight)
        else:
            hyp = batch.ids[batch.starts[item] : batch.ends[item]]
            ref = batch.ids[batch.starts[n + k] : batch.ends[n + k]]
            if len(hyp) == 0 or len(ref) == 0:
                continue
            hits = _wlcs_hits(hyp, ref, weight)
            precision = (hits / len(hyp) ** weight) ** (1.0 / weight)
            recall = (hits / (len(ref) ** weight) ** weight) ** (1.0 / weight)
        if precision > 0 and recall > 0:
            out[k] = precision, recall, precision * recall / (0.5 * recall + 0.5 * precision)
    return out
