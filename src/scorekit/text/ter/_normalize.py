"""Tercom's normalisation of a segment, as sacrebleu's ``TercomTokenizer`` applies it.

Lowercasing (unless case-sensitive); with ``normalized``: hyphenated line
breaks joined, XML entities for quotes, ampersands and angle brackets decoded,
ASCII punctuation and symbols set apart, ``'s`` split off, and periods and
commas split from words but not inside numbers; with ``asian_support`` also
CJK characters, kana runs and CJK punctuation set apart. ``no_punct`` removes
``.,?:;!"()`` (and with ``asian_support`` CJK and full-width punctuation).
Whitespace runs become single spaces. :func:`ter_words` gives the words.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["ter_normalize", "ter_words"]

_ASIAN_PUNCT = r"([\u3001\u3002\u3008-\u3011\u3014-\u301f\uff61-\uff65\u30fb])"
_FULL_WIDTH_PUNCT = r"([\uff0e\uff0c\uff1f\uff1a\uff1b\uff01\uff02\uff08\uff09])"

_WESTERN = [
    (re.compile(r"\n-"), ""),
    (re.compile(r"\n"), " "),
    (re.compile(r"&quot;"), '"'),
    (re.compile(r"&amp;"), "&"),
    (re.compile(r"&lt;"), "<"),
    (re.compile(r"&gt;"), ">"),
]
_WESTERN_SPACED = [
    (re.compile(r"([{-~[-` -&(-+:-@/])"), r" \1 "),
    (re.compile(r"'s "), r" 's "),
    (re.compile(r"'s$"), r" 's"),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
]
_ASIAN = [
    (re.compile(r"([\u4e00-\u9fff\u3400-\u4dbf])"), r" \1 "),
    (re.compile(r"([\u31c0-\u31ef\u2e80-\u2eff])"), r" \1 "),
    (re.compile(r"([\u3300-\u33ff\uf900-\ufaff\ufe30-\ufe4f])"), r" \1 "),
    (re.compile(r"([\u3200-\u3f22])"), r" \1 "),
    (re.compile(r"(^|^[\u3040-\u309f])([\u3040-\u309f]+)(?=$|^[\u3040-\u309f])"), r"\1 \2 "),
    (re.compile(r"(^|^[\u30a0-\u30ff])([\u30a0-\u30ff]+)(?=$|^[\u30a0-\u30ff])"), r"\1 \2 "),
    (re.compile(r"(^|^[\u31f0-\u31ff])([\u31f0-\u31ff]+)(?=$|^[\u31f0-\u31ff])"), r"\1 \2 "),
    (re.compile(_ASIAN_PUNCT), r" \1 "),
    (re.compile(_FULL_WIDTH_PUNCT), r" \1 "),
]
_PUNCT = re.compile(r"[\.,\?:;!\"\(\)]")
_ASIAN_PUNCT_RE = [re.compile(_ASIAN_PUNCT), re.compile(_FULL_WIDTH_PUNCT)]


@lru_cache(maxsize=2**16)
def ter_normalize(
    text: str, normalized: bool, no_punct: bool, asian_support: bool, case_sensitive: bool
) -> str:
    """A segment as TER compares it: words separated by single spaces.

    Examples
    --------
    >>> ter_normalize("Hello, World! ", True, False, False, False)
    'hello , world !'
    >>> ter_normalize("It's 3.5, ok.", False, True, False, True)
    "It's 35 ok"
    """
    text = text.rstrip()
    if not text:
        return ""
    if not case_sensitive:
        text = text.lower()
    if normalized:
        for pattern, repl in _WESTERN:
            text = pattern.sub(repl, text)
        text = f" {text} "
        for pattern, repl in _WESTERN_SPACED:
            text = pattern.sub(repl, text)
        if asian_support:
            for pattern, repl in _ASIAN:
                text = pattern.sub(repl, text)
    if no_punct:
        text = _PUNCT.sub("", text)
        if asian_support:
            for pattern in _ASIAN_PUNCT_RE:
                text = pattern.sub("", text)
    return " ".join(text.split())


def ter_words(
    text: str, normalized: bool, no_punct: bool, asian_support: bool, case_sensitive: bool
) -> list[str]:
    """The words of a segment as TER compares them: :func:`ter_normalize`'s, split.

    Without ``normalized`` and ``no_punct`` the words are the lowercased (or,
    case-sensitive, the unchanged) text's whitespace-separated words, found
    without building the normalised string.

    Examples
    --------
    >>> ter_words(" The  cat\tsat ", False, False, False, False)
    ['the', 'cat', 'sat']
    >>> ter_words("Hello, World!", True, False, False, True)
    ['Hello', ',', 'World', '!']
    """
    if normalized or no_punct:
        return ter_normalize(text, normalized, no_punct, asian_support, case_sensitive).split()
    return (text if case_sensitive else text.lower()).split()
