"""Per-item ROUGE scores: input checks, n-gram overlap, LCS and summary-level union LCS.

The batch is tokenized once (:class:`_Batch`); n-gram overlaps of all
(reference, prediction) pairs and all orders come from one sort
(:func:`scorekit.text._ngrams.match_counts`), LCS lengths with rapidfuzz's
bit-parallel kernel, and the union LCS of ROUGE-Lsum with bit-vector rows
(:mod:`scorekit.text._lcs`). With several references per item, each type
keeps the reference of highest F-measure.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from itertools import chain
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit._check import StringErrors, as_strings
from scorekit.errors import InputError, message, raw
from scorekit.text._lcs import lcs_lengths, lcs_marks
from scorekit.text._ngrams import match_counts
from scorekit.text.rouge._tokens import (
    _DEFAULT_TOKEN,
    _SEP,
    _default_flat,
    _default_lines,
    _default_tokens,
    _newline_sentences,
)
from scorekit.text.rouge._wlcs import _sentence_ids, _wlcs_scores

# inputs -----------------------------------------------------------------------


class _RougeErrors(StringErrors):
    """ROUGE's wording: a 0-d array has the wrong shape, as any array but 1-D."""

    def single_value(self, values: NDArray[Any]) -> InputError:
        return self.shape(values)


def _check_inputs(
    metric: str, references: Any, predictions: Any
) -> tuple[list[str], list[int], list[str]]:
    """Validate; return the flat references, the number per item, and the predictions."""
    preds = as_strings(
        metric,
        "predictions",
        predictions,
        expected="one predicted string per item",
        errors=_RougeErrors,
    )
    flat, counts = as_strings(
        metric,
        "references",
        references,
        expected="per item a reference string or a list of reference strings",
        per_item="string_or_list",
        item="reference",
        rows=False,
        errors=_RougeErrors,
    )
    if len(counts) != len(preds):
        raise InputError(
            message(
                metric,
                "inputs differ in length",
                raw(f"references has {len(counts)}, predictions has {len(preds)}"),
                "equal lengths",
            )
        )
    return flat, counts, preds


# kernels ----------------------------------------------------------------------


def _dense(codes: NDArray[np.int64]) -> tuple[NDArray[np.int64], int]:
    uniq, inverse = np.unique(codes, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64), len(uniq)


class _Batch:
    """Token ids of the predictions (texts ``0..n-1``) and references (``n..``) of a batch."""

    def __init__(
        self,
        texts: list[str],
        tokenize: Callable[[str], list[str]],
        stem_token: Callable[[str], str] | None,
    ) -> None:
        fast = _default_flat(texts) if tokenize is _default_tokens else None
        if fast is None:
            lists = [tokenize(t) for t in texts]
            lengths = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
            flat: list[Any] = list(chain.from_iterable(lists))
            vocab: dict[Any, None] = dict.fromkeys(flat)
        else:
            flat, vocab = fast
        if stem_token is None:
            index = {tok: i for i, tok in enumerate(vocab)}
        else:
            stems: dict[str, int] = {}
            index = {
                tok: stems.setdefault(
                    stem_token(tok if isinstance(tok, str) else tok.decode()), len(stems)
                )
                for tok in vocab
            }
        ids = np.fromiter(map(index.__getitem__, flat), dtype=np.int64, count=len(flat))
        if fast is not None:
            # the texts were joined with a separator token; cut them apart again
            is_sep = ids == index[_SEP]
            bounds = np.flatnonzero(is_sep)
            lengths = np.diff(bounds, prepend=-1, append=len(ids)) - 1
            ids = ids[~is_sep]
        self._set(ids, lengths, len(index))

    def _set(self, ids: NDArray[np.int64], lengths: NDArray[np.int64], vocab: int) -> None:
        self.ids = ids
        self.vocab = max(vocab, 1)
        self.lengths = lengths
        self.ends = np.cumsum(lengths)
        self.starts = self.ends - lengths

    @classmethod
    def of_ids(
        cls,
        ids: NDArray[np.int64],
        lengths: NDArray[np.int64],
        vocabulary: list[str],
        stem_token: Callable[[str], str] | None,
    ) -> _Batch:
        """The batch of texts already tokenized: ids of the words ``vocabulary`` names."""
        batch = cls.__new__(cls)
        if stem_token is not None:
            stems: dict[str, int] = {}
            stem_of = [stems.setdefault(stem_token(w), len(stems)) for w in vocabulary]
            ids = np.asarray(stem_of, dtype=np.int64)[ids]
            vocabulary = list(stems)
        batch._set(ids, lengths, len(vocabulary))
        return batch


def _prf(
    hits: NDArray[np.float64], pred_total: NDArray[Any], ref_total: NDArray[Any]
) -> NDArray[np.float64]:
    """Precision, recall and F-measure columns, with rouge-score's arithmetic."""
    precision = hits / pred_total
    recall = hits / ref_total
    with np.errstate(invalid="ignore", divide="ignore"):
        total = precision + recall
        fmeasure = np.where(total > 0, 2 * precision * recall / total, 0.0)
    return np.stack([precision, recall, fmeasure], axis=-1)


def _best_per_item(scores: NDArray[np.float64], per_item: NDArray[np.int64]) -> NDArray[np.float64]:
    """Per item and type, the reference of highest F-measure (the first of equals)."""
    starts = np.cumsum(per_item) - per_item
    fmeasure = scores[..., 2]
    best = np.maximum.reduceat(fmeasure, starts, axis=0)
    rows = np.arange(len(fmeasure), dtype=np.int64)[:, None]
    first = np.where(fmeasure == np.repeat(best, per_item, axis=0), rows, len(fmeasure))
    pick = np.minimum.reduceat(first, starts, axis=0)
    return np.take_along_axis(scores, pick[..., None], axis=0)


# per-item scores --------------------------------------------------------------


# the code points Python's str.isspace() accepts (none lies above U+3000)
_SPACES = np.array([c for c in range(0x3001) if chr(c).isspace()], dtype=np.uint32)


def _warn_untokenized(metric: str, preds: list[str], refs: list[str]) -> None:
    """Warn when rouge-score's tokenizer drops most characters, or all of a text's.

    The default tokenizer keeps only a-z and 0-9, as rouge-score does, so a text
    in Chinese, Japanese, Cyrillic or Greek script is empty to it and scores 0.
    The warning comes when a text has characters but no token, or when more
    than half of the batch's characters other than whitespace are dropped.
    """
    joined = "".join(chain(preds, refs))
    if joined.isascii():
        return
    points = np.frombuffer(joined.lower().encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    alnum = ((points >= 48) & (points <= 57)) | ((points >= 97) & (points <= 122))
    kept = int(np.count_nonzero(alnum))
    visible = int(np.count_nonzero(~np.isin(points, _SPACES)))
    most = visible > 0 and kept < visible / 2
    empty = most or any(
        not text.isascii() and text.strip() and not _DEFAULT_TOKEN.search(text.lower())
        for text in chain(preds, refs)
    )
    if not empty:
        return
    dropped = f"{100 * (1 - kept / visible):.0f}% of" if visible else "the"
    warnings.warn(
        f"{metric}: rouge-score's default tokenizer keeps only a-z and 0-9 and drops "
        f"{dropped} the characters of these texts; a text in Chinese, Japanese, Cyrillic, "
        "Greek... has no tokens under the default tokenizer and scores 0; use "
        "tokenizer='unicode' (scorekit text --tokenizer unicode) for text in other scripts",
        UserWarning,
        stacklevel=4,
    )


def _item_scores(
    metric: str,
    types: tuple[str, ...],
    references: Any,
    predictions: Any,
    tokenize: Callable[[str], list[str]],
    stem_token: Callable[[str], str] | None,
    split: Callable[[str], Sequence[str]],
    weight: float = 1.2,
) -> NDArray[np.float64]:
    """Per item and type: precision, recall, F-measure, shape ``(n, types, 3)``."""
    refs, per_item, preds = _check_inputs(metric, references, predictions)
    if tokenize is _default_tokens:
        _warn_untokenized(metric, preds, refs)
    n = len(preds)
    out = np.zeros((len(refs), len(types), 3))
    if n == 0:
        return out
    pair_item = np.repeat(np.arange(n, dtype=np.int64), per_item)
    if any(t != "rougeLsum" for t in types):
        batch = _Batch(preds + refs, tokenize, stem_token)
        matches: NDArray[np.int64] | None = None
        for k, rouge_type in enumerate(types):
            skip = _skip_type(rouge_type)
            if rouge_type == "rougeL":
                out[:, k] = _lcs_scores(batch, n, pair_item)
            elif rouge_type == "rougeW":
                out[:, k] = _wlcs_scores(
                    batch,
                    n,
                    pair_item,
                    weight,
                    (preds, refs),
                    _sentence_ids(tokenize, stem_token, split),
                )
            elif skip is not None:
                out[:, k] = _skip_scores(batch, n, pair_item, *skip)
            elif rouge_type != "rougeLsum":
                order = int(rouge_type[5:])
                if matches is None:
                    # the clipped matches of every order asked for, from one sort
                    top = max(int(t[5:]) for t in types if t[5:].isdigit())
                    matches = match_counts(batch.ids + 1, batch.lengths, n, pair_item, top)
                counts = np.maximum(batch.lengths - order + 1, 0)
                hits = matches[:, order - 1].astype(np.float64)
                pred_total, ref_total = counts[pair_item], counts[n:]
                out[:, k] = _prf(hits, np.maximum(pred_total, 1), np.maximum(ref_total, 1))
    if "rougeLsum" in types:
        out[:, types.index("rougeLsum")] = _summary_scores(
            refs, preds, pair_item, tokenize, stem_token, split
        )
    if len(refs) == n:
        return out
    return _best_per_item(out, np.asarray(per_item, dtype=np.int64))


def _lcs_scores(batch: _Batch, n: int, pair_item: NDArray[np.int64]) -> NDArray[np.float64]:
    """Per pair: LCS precision, recall and F-measure (0 when a side has no tokens)."""
    ref_len = batch.lengths[n:]
    pred_len = batch.lengths[pair_item]
    lcs = lcs_lengths(
        batch.ids,
        batch.starts[n:],
        batch.ends[n:],
        batch.starts[pair_item],
        batch.ends[pair_item],
    ).astype(np.float64)
    scores = _prf(lcs, np.maximum(pred_len, 1), np.maximum(ref_len, 1))
    scores[(ref_len == 0) | (pred_len == 0)] = 0.0
    return scores


def _summary_scores(
    refs: list[str],
    preds: list[str],
    pair_item: NDArray[np.int64],
    tokenize: Callable[[str], list[str]],
    stem_token: Callable[[str], str] | None,
    split: Callable[[str], Sequence[str]],
) -> NDArray[np.float64]:
    """Per pair: ROUGE-Lsum precision, recall and F-measure.

    Every sentence of the batch is tokenized at once (:func:`_default_lines` for
    the default tokenizer and sentences at newlines, else :class:`_Batch`). For each
    reference sentence, the union of its LCS with every predicted sentence of its
    item is marked (:func:`scorekit.text._lcs.lcs_marks`). A token is then
    counted at most as often as it occurs on both sides: the union holds
    distinct reference positions, so a token's hits are the lesser of its
    marked positions and its occurrences in the prediction.
    """
    n = len(preds)
    texts = preds + refs
    lines = None
    if tokenize is _default_tokens and split is _newline_sentences:
        lines = _default_lines(texts)
    if lines is None:
        sents = [[s for s in split(text) if len(s)] for text in texts]
        per_text = np.fromiter(map(len, sents), dtype=np.int64, count=len(sents))
    else:
        line_ids, line_lengths, per_text, vocabulary = lines
    hits = np.zeros(len(refs))
    ref_total = np.zeros(len(refs), dtype=np.int64)
    pred_total = np.zeros(len(refs), dtype=np.int64)
    if per_text.sum():
        if lines is None:
            batch = _Batch(list(chain.from_iterable(sents)), tokenize, stem_token)
        else:
            batch = _Batch.of_ids(line_ids, line_lengths, vocabulary, stem_token)
        sent_text = np.repeat(np.arange(len(texts), dtype=np.int64), per_text)
        totals = np.bincount(sent_text, weights=batch.lengths, minlength=len(texts))
        totals = totals.astype(np.int64)
        both = (totals[n:] > 0) & (totals[pair_item] > 0)
        ref_total[both] = totals[n:][both]
        pred_total[both] = totals[pair_item][both]
        hits = _union_hits(batch, n, pair_item, per_text, sent_text, np.flatnonzero(both))
    return _prf(hits, np.maximum(pred_total, 1), np.maximum(ref_total, 1))


_LCS_PAIRS = 1 << 20  # (reference sentence, predicted sentence) pairs marked per pass


def _union_hits(
    batch: _Batch,
    n: int,
    pair_item: NDArray[np.int64],
    per_text: NDArray[np.int64],
    sent_text: NDArray[np.int64],
    scored: NDArray[np.int64],
) -> NDArray[np.float64]:
    """Union-LCS hits of ROUGE-Lsum of the pairs ``scored`` (0 for the others)."""
    first_sent = np.cumsum(per_text) - per_text
    marks = np.zeros(len(batch.ids), dtype=bool)
    across = per_text[pair_item[scored]]
    count = per_text[n + scored] * across
    ends = np.cumsum(count)
    cuts = np.searchsorted(
        ends, np.arange(_LCS_PAIRS, int(ends[-1]) if len(ends) else 0, _LCS_PAIRS)
    )
    for part in np.split(np.arange(len(scored)), cuts):
        if not len(part):
            continue
        times = count[part]
        owner = np.repeat(part, times)
        local = np.arange(int(times.sum()), dtype=np.int64) - np.repeat(
            np.cumsum(times) - times, times
        )
        ref_sent = first_sent[n + scored[owner]] + local // across[owner]
        pred_sent = first_sent[pair_item[scored[owner]]] + local % across[owner]
        marks |= lcs_marks(
            batch.ids,
            batch.starts[ref_sent],
            batch.ends[ref_sent],
            batch.starts[pred_sent],
            batch.ends[pred_sent],
        )
    vocab = batch.vocab
    token_text = np.repeat(sent_text, batch.lengths)
    marked = np.flatnonzero(marks)
    union_keys, union_counts = np.unique(
        (token_text[marked] - n) * vocab + batch.ids[marked], return_counts=True
    )
    hits: NDArray[np.float64] = np.zeros(len(pair_item))
    if len(union_keys):
        in_pred = np.flatnonzero(token_text < n)
        pred_keys, pred_counts = np.unique(
            token_text[in_pred] * vocab + batch.ids[in_pred], return_counts=True
        )
        pair = union_keys // vocab
        lookup = pair_item[pair] * vocab + union_keys % vocab
        # a marked token is on an LCS with a predicted sentence, so the prediction has it
        at = np.searchsorted(pred_keys, lookup)
        matched = np.minimum(union_counts, pred_counts[at]).astype(np.float64)
        hits = np.bincount(pair, weights=matched, minlength=len(pair_item)).astype(np.float64)
    return hits


# ROUGE-1.5.5 types: weighted LCS and skip-bigrams ------------------------------


def _skip_codes(batch: _Batch, gap: int | None, unigrams: bool) -> tuple[NDArray[np.int64], ...]:
    """Per text, the codes of its skip-bigrams (and, for ROUGE-SU, unigrams but the last token).

    Returns the text of each gram and its code.
    """
    lengths = batch.lengths
    n_texts = len(lengths)
    text_of_token = np.repeat(np.arange(n_texts, dtype=np.int64), lengths)
    position = np.arange(len(batch.ids), dtype=np.int64) - np.repeat(batch.starts, lengths)
    longest = int(lengths.max()) if n_texts else 0
    max_offset = longest - 1 if gap is None else min(gap + 1, longest - 1)
    vocab = batch.vocab
    texts: list[NDArray[np.int64]] = []
    codes: list[NDArray[np.int64]] = []
    for d in range(1, max_offset + 1):
        ok = position + d < np.repeat(lengths, lengths)
        lo = np.flatnonzero(ok)
        texts.append(text_of_token[lo])
        codes.append(vocab + batch.ids[lo] * vocab + batch.ids[lo + d])
    if unigrams:
        ok = position + 1 < np.repeat(lengths, lengths)
        texts.append(text_of_token[ok])
        codes.append(batch.ids[ok])
    if not texts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(texts), np.concatenate(codes)


def _skip_scores(
    batch: _Batch, n: int, pair_item: NDArray[np.int64], gap: int | None, unigrams: bool
) -> NDArray[np.float64]:
    """Per pair: ROUGE-S (or ROUGE-SU) precision, recall and F-measure as ROUGE-1.5.5."""
    n_pairs = len(pair_item)
    text_of, grams = _skip_codes(batch, gap, unigrams)
    totals = np.bincount(text_of, minlength=len(batch.lengths))
    pred_total = totals[pair_item]
    ref_total = totals[n:]
    if grams.size == 0:
        return np.zeros((n_pairs, 3))
    grams = _dense(grams)[0]
    size = int(grams.max()) + 1
    is_ref = text_of >= n
    ref_keys, ref_counts = np.unique(
        (text_of[is_ref] - n) * size + grams[is_ref], return_counts=True
    )
    pred_keys, pred_counts = np.unique(text_of[~is_ref] * size + grams[~is_ref], return_counts=True)
    pair = ref_keys // size
    lookup = pair_item[pair] * size + ref_keys % size
    overlap = np.zeros(n_pairs)
    if len(pred_keys):
        at = np.minimum(np.searchsorted(pred_keys, lookup), len(pred_keys) - 1)
        found = pred_keys[at] == lookup
        matched = np.where(found, np.minimum(ref_counts, pred_counts[at]), 0)
        overlap = np.bincount(pair, weights=matched.astype(np.float64), minlength=n_pairs).astype(
            np.float64
        )
    scores = _prf(overlap, np.maximum(pred_total, 1), np.maximum(ref_total, 1))
    scores[(ref_total == 0) | (pred_total == 0)] = 0.0
    return scores


def _skip_type(rouge_type: str) -> tuple[int | None, bool] | None:
    """``(gap, unigrams)`` of ``rougeS[d]`` / ``rougeSU[d]``, or None for another type."""
    for prefix, unigrams in (("rougeSU", True), ("rougeS", False)):
        if rouge_type.startswith(prefix):
            rest = rouge_type[len(prefix) :]
            if rest == "":
                return None, unigrams
            if rest.isdigit() and rest.isascii():
                return int(rest), unigrams
    return None
