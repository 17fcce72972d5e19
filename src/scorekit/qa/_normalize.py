"""SQuAD answer normalisation, one answer at a time and a whole batch at once.

An answer is normalised as the official SQuAD v1.1 and v2.0 scripts do:
lowercase, remove ASCII punctuation, replace the articles *a*, *an*, *the*
(as whole words) by a space, and collapse whitespace. A batch is normalised
with one ``str.translate`` and one regular-expression pass over the joined
texts.
"""

from __future__ import annotations

import re
import string

__all__ = ["normalize_answer"]

_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_SEP = "\x00"  # not whitespace, not punctuation, not a word character


def normalize_answer(text: str) -> str:
    """Normalise one answer as the official SQuAD scripts do.

    Lowercase, remove ASCII punctuation, replace the whole words *a*, *an* and
    *the* by a space, then collapse runs of whitespace to one space.

    Examples
    --------
    >>> normalize_answer("  The  Eiffel-Tower, Paris! ")
    'eiffeltower paris'
    """
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION)).split())


def _normalize_all(texts: list[str]) -> list[str]:
    """Normalise many answers with one pass of each step over the joined batch."""
    if not texts:
        return []
    joined = _SEP.join(texts)
    if joined.count(_SEP) != len(texts) - 1:  # a text contains the separator itself
        return [normalize_answer(t) for t in texts]
    # str.lower is context-free except for the final sigma, whose context ends at
    # the separator just as it ends at the end of a string
    parts = _ARTICLES.sub(" ", joined.lower().translate(_PUNCTUATION)).split(_SEP)
    return list(map(" ".join, map(str.split, parts)))
