"""Edit counts of many (reference, prediction) pairs: jiwer's transformations, rapidfuzz's kernels.

A text becomes words (jiwer's ``wer_default``: runs of two or more whitespace
characters become one space, the ends are stripped, words are cut at single
spaces) or characters (``cer_default``: the ends stripped). Words become
integer ids, and each text the string of its ids' code points, so rapidfuzz's
compiled Levenshtein kernels compare words. The distance of every pair comes
from one ``cpdist`` call; the hits (aligned equal units) from rapidfuzz's
edit operations, the alignment jiwer reads its counts from.
"""

from __future__ import annotations

import re
import string

import numpy as np
from numpy.typing import NDArray

__all__ = ["edit_counts", "units"]

_MULTI_SPACE = re.compile(r"\s\s+")
_KALDI_NON_WORD = re.compile(r"[<\[][^>\]]*[>\]]")
_CONTRACTIONS = [
    (re.compile(pattern), repl)
    for pattern, repl in (
        (r"won't", "will not"),
        (r"can\'t", "can not"),
        (r"let\'s", "let us"),
        (r"n\'t", " not"),
        (r"\'re", " are"),
        (r"\'s", " is"),
        (r"\'d", " would"),
        (r"\'ll", " will"),
        (r"\'t", " not"),
        (r"\'ve", " have"),
        (r"\'m", " am"),
    )
]
_WHITESPACE = str.maketrans(dict.fromkeys(string.whitespace, " "))
_SURROGATES = 0xD800
_SURROGATE_SPAN = 0x800
_MAX_ID = 0x10FFFF - _SURROGATE_SPAN


def _standardize(text: str) -> str:
    """jiwer's ``wer_standardize`` before the words: lowercase, contractions, non-words, spaces."""
    text = text.lower()
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    return _KALDI_NON_WORD.sub("", text).translate(_WHITESPACE)


def units(texts: list[str], unit: str, normalize: bool) -> list[str] | list[list[int]]:
    """Each text as a sequence of units: a string of word-id code points, or its characters.

    With ``normalize`` words follow jiwer's ``wer_standardize`` and characters
    are lowercased with runs of whitespace made one space.

    Examples
    --------
    >>> [list(map(ord, t)) for t in units(["a  b a", " b"], "word", False)]
    [[0, 1, 0], [1]]
    >>> units([" Ab  c "], "char", True)
    ['ab c']
    """
    if unit == "char":
        if normalize:
            return [_MULTI_SPACE.sub(" ", t.lower()).strip() for t in texts]
        return [t.strip() for t in texts]
    if normalize:
        texts = [_standardize(t) for t in texts]
    words = [[w for w in _MULTI_SPACE.sub(" ", t).strip().split(" ") if w] for t in texts]
    lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
    flat = [w for ws in words for w in ws]
    index = {w: i for i, w in enumerate(dict.fromkeys(flat))}
    ids = np.fromiter(map(index.__getitem__, flat), dtype=np.int64, count=len(flat))
    ends = np.cumsum(lengths).tolist()
    starts = [0, *ends[:-1]][: len(ends)]
    if len(index) > _MAX_ID:
        values = ids.tolist()
        return [values[s:e] for s, e in zip(starts, ends, strict=True)]
    points = ids.astype(np.uint32)
    points[points >= _SURROGATES] += _SURROGATE_SPAN
    joined = points.astype("<u4").tobytes().decode("utf-32-le")
    return [joined[s:e] for s, e in zip(starts, ends, strict=True)]


def edit_counts(
    refs: list[str] | list[list[int]], preds: list[str] | list[list[int]]
) -> NDArray[np.int64]:
    """Per pair: hits, substitutions, deletions, insertions, shape ``(n, 4)``.

    The counts are those of rapidfuzz's Levenshtein alignment of the reference
    into the prediction, as jiwer reads them from its opcodes.

    Examples
    --------
    >>> edit_counts(["abcd", ""], ["axcde", "ab"]).tolist()
    [[3, 1, 0, 1], [0, 0, 0, 2]]
    """
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import cpdist

    n = len(refs)
    out = np.zeros((n, 4), dtype=np.int64)
    if n == 0:
        return out
    ref_len = np.fromiter(map(len, refs), dtype=np.int64, count=n)
    hyp_len = np.fromiter(map(len, preds), dtype=np.int64, count=n)
    dist = np.asarray(cpdist(refs, preds, scorer=Levenshtein.distance, dtype=np.int64), np.int64)
    editops = Levenshtein.editops
    # substitutions of the alignment; the other counts follow from the lengths and distance
    subs = np.fromiter(
        (
            sum(1 for op in editops(r, p).as_list() if op[0] == "replace") if d else 0
            for r, p, d in zip(refs, preds, dist.tolist(), strict=True)
        ),
        dtype=np.int64,
        count=n,
    )
    hits = (ref_len + hyp_len - dist - subs) // 2
    out[:, 0] = hits
    out[:, 1] = subs
    out[:, 2] = ref_len - hits - subs
    out[:, 3] = hyp_len - hits - subs
    return out
