"""chrF's symbols: the characters and the words of many texts as small integers.

The clipped n-gram matches of the (prediction, reference) pairs come from
:func:`scorekit.text._ngrams.match_counts`, one sort for all orders.
"""

from __future__ import annotations

import re

import numpy as np
from numpy.typing import NDArray

from scorekit.text._ngrams import match_counts

__all__ = ["char_symbols", "match_counts", "word_symbols"]

_P = "[" + re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~") + "]"
# the places where a space splits off a word's punctuation: before the final mark of a word
# of two or more characters, or else after the initial mark of one that ends otherwise
_PUNCT_SPLIT = re.compile(rf"(?<=\S)(?={_P}(?!\S))|(?<=(?<!\S){_P})(?=\S*[^\s{_P[1:-1]}](?!\S))")
_SEP = "\x00"


def char_symbols(texts: list[str], whitespace: bool) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Every text's characters as symbols ``1..V`` (whitespace removed unless kept), and lengths.

    Examples
    --------
    >>> ids, lengths = char_symbols(["ab a", "b"], whitespace=False)
    >>> ids.tolist(), lengths.tolist()
    ([1, 2, 1, 2], [3, 1])
    """
    if not whitespace:
        texts = ["".join(t.split()) for t in texts]
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    joined = "".join(texts)
    points = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    if points.size == 0:
        return np.zeros(0, dtype=np.int64), lengths
    table = np.zeros(int(points.max()) + 1, dtype=np.int64)
    table[points] = 1
    ranks = np.cumsum(table)
    return ranks[points], lengths


def word_symbols(texts: list[str]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The words of every text (punctuation split off as chrF++ does) as symbols ``1..V``.

    A word of two or more characters ending in an ASCII punctuation mark loses
    it as a word of its own; otherwise one starting with one loses that.

    Examples
    --------
    >>> ids, lengths = word_symbols(["a cat.", "(a) cat"])
    >>> ids.tolist(), lengths.tolist()
    ([1, 2, 3, 4, 5, 2], [3, 3])
    """
    joined = f" {_SEP} ".join(texts)
    if joined.count(_SEP) != max(len(texts) - 1, 0):
        # a text holds the separator: one text at a time
        lists = [_PUNCT_SPLIT.sub(" ", t).split() for t in texts]
        words = [w for ws in lists for w in ws]
        lengths = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
        index = {w: i + 1 for i, w in enumerate(dict.fromkeys(words))}
        return np.fromiter(map(index.__getitem__, words), np.int64, len(words)), lengths
    words = _PUNCT_SPLIT.sub(" ", joined).split()
    index = {w: i for i, w in enumerate(dict.fromkeys([_SEP, *words]))}
    ids = np.fromiter(map(index.__getitem__, words), np.int64, len(words))
    is_sep = ids == 0
    lengths = np.diff(np.flatnonzero(is_sep), prepend=-1, append=len(ids)) - 1
    kept = ids[~is_sep]
    # symbols 1..V in order of first appearance among the words
    _, first, inverse = np.unique(kept, return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first))
    return order[inverse].astype(np.int64) + 1, lengths.astype(np.int64)
