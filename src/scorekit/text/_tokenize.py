"""BLEU tokenizers: ``13a``, ``intl``, ``char``, ``zh`` and ``none``, as sacrebleu applies them.

Each tokenizer is written from its published definition:

- ``13a``: the tokenization of NIST's ``mteval-v13a.pl`` (the WMT standard):
  drop ``<skipped>``, join hyphenated line breaks, unescape ``&quot;``,
  ``&amp;``, ``&lt;``, ``&gt;``, pad the line with spaces, split off ASCII
  punctuation and symbols, and split off ``.`` and ``,`` except between digits
  and ``-`` after a digit.
- ``intl``: ``mteval-v14.pl --international-tokenization``: split off Unicode
  punctuation (``\\p{P}``) unless it touches a digit on that side, and every
  Unicode symbol (``\\p{S}``).
- ``char``: every character is a token.
- ``zh``: every CJK character (and full-width form, CJK punctuation, ...) is a
  token; the rest is tokenized as ``13a`` without the line padding.
- ``none``: split on whitespace only.

Every substitution rewrites non-overlapping matches from left to right, as
Perl's ``s///g`` does, so a character consumed by one match is not the context
of the next. Lines are lowercased (optionally) and stripped of trailing
whitespace first, as sacrebleu does.

The corpus path (:func:`encode_lines`) tokenizes the whole corpus as one text
for ``char`` and ``none`` (lines joined by a NUL marker that no rule touches),
and each distinct word of the corpus once for ``13a``, then maps tokens to
integer ids.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata
from collections.abc import Callable, Sequence
from itertools import chain

import numpy as np
from numpy.typing import NDArray

__all__ = ["TOKENIZERS", "encode_lines", "tokenize"]

TOKENIZERS = ("13a", "intl", "char", "zh", "none")
"""The tokenizer names BLEU accepts; ``13a`` is the default."""

_MARK = "\x00"

# 13a: ASCII punctuation and symbols split off everywhere ({|}~ [\]^_` !"#$%& ()*+ :;<=>?@ /).
# The published class also holds the space, which it only widens to three spaces;
# the later rules treat a run of spaces as they treat one space (a space can only
# be the non-digit side of a match), so leaving spaces alone gives the same tokens.
_13A_SYMBOL = re.compile(r"([\{-\~\[-\`\!-\&\(-\+\:-\@\/])")
_13A_PERIOD_AFTER = re.compile(r"([^0-9])([\.,])")  # . and , after a non-digit
_13A_PERIOD_BEFORE = re.compile(r"([\.,])([^0-9])")  # . and , before a non-digit
_13A_DASH = re.compile(r"([0-9])(-)")  # - after a digit


def _spaced_pairs(pattern: re.Pattern[str], text: str, before: bool) -> str:
    """Rewrite every match ``ab`` of a two-group pattern as ``"a b "`` or (``before``) ``" a b"``.

    ``pattern.split`` finds the matches in C; the pieces are interleaved with
    spaces by slice assignment, which gives exactly the text of
    ``re.sub(pattern, r"\\1 \\2 ", text)`` (or ``r" \\1 \\2"``).
    """
    parts = pattern.split(text)
    m = len(parts) // 3
    if m == 0:
        return text
    out = [" "] * (5 * m + 1)
    out[0::5] = parts[0::3]
    if before:  # " a b"
        out[2::5] = parts[1::3]
        out[4::5] = parts[2::3]
    else:  # "a b "
        out[1::5] = parts[1::3]
        out[3::5] = parts[2::3]
    return "".join(out)


def _spaced(pattern: re.Pattern[str], text: str) -> str:
    """Rewrite every match ``c`` of a one-group pattern as ``" c "``."""
    return " ".join(pattern.split(text))


def _13a_prepare(text: str) -> str:
    """The language-independent part of 13a (before the line is padded)."""
    text = text.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in text:
        text = (
            text.replace("&quot;", '"')
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
        )
    return text


def _13a_rules(text: str) -> str:
    """The language-dependent rules of 13a (shared with ``zh``)."""
    text = _spaced(_13A_SYMBOL, text)
    text = _spaced_pairs(_13A_PERIOD_AFTER, text, before=False)
    text = _spaced_pairs(_13A_PERIOD_BEFORE, text, before=True)
    return _spaced_pairs(_13A_DASH, text, before=False)


def _tok_13a(line: str) -> str:
    return _13a_rules(f" {_13a_prepare(line)} ")


def _class(spans: list[tuple[int, int]]) -> str:
    """A regex character-class body of the code point spans."""
    return "".join(f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}" for a, b in spans)


@functools.cache
def _intl_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The three rules of mteval-v14's international tokenization, from Unicode categories.

    The categories are those of :mod:`unicodedata` (the Unicode version of the
    running Python).
    """
    spans: dict[str, list[tuple[int, int]]] = {"P": [], "S": [], "N": []}
    previous, start = "", 0
    for cp in range(sys.maxunicode + 2):
        major = unicodedata.category(chr(cp))[0] if cp <= sys.maxunicode else ""
        if major != previous:
            if previous in spans:
                spans[previous].append((start, cp - 1))
            previous, start = major, cp
    p, s, not_n = f"[{_class(spans['P'])}]", f"[{_class(spans['S'])}]", f"[^{_class(spans['N'])}]"
    return (
        re.compile(f"({not_n})({p})"),  # punctuation after a non-number: "a b "
        re.compile(f"({p})({not_n})"),  # punctuation before a non-number: " a b"
        re.compile(f"({s})"),  # every symbol: " c "
    )


def _tok_intl(line: str) -> str:
    after, before, symbol = _intl_patterns()
    line = _spaced_pairs(after, line, before=False)
    line = _spaced_pairs(before, line, before=True)
    return _spaced(symbol, line)


# zh: the code point ranges sacrebleu's zh tokenizer treats as Chinese. Its table
# compares one-character strings with range ends; two ends are written as
# 5-hex-digit escapes ("\u20000", "\u2f800"), which Python reads as two
# characters, so those ranges are in effect U+2001-U+2A6D and U+2F81-U+2FA1
# (and the supplementary-plane ideographs are not split off).
_ZH_RANGES = (
    (0x3400, 0x4DB5),  # CJK Unified Ideographs Extension A
    (0x4E00, 0x9FA5),  # CJK Unified Ideographs
    (0x9FA6, 0x9FBB),
    (0xF900, 0xFA2D),  # CJK Compatibility Ideographs
    (0xFA30, 0xFA6A),
    (0xFA70, 0xFAD9),
    (0x2001, 0x2A6D),  # written "\u20000".."\u2a6d6"
    (0x2F81, 0x2FA1),  # written "\u2f800".."\u2fa1d"
    (0xFF00, 0xFFEF),  # full-width ASCII, half-width kana, Hangul
    (0x2E80, 0x2EFF),  # CJK Radicals Supplement
    (0x3000, 0x303F),  # CJK punctuation
    (0x31C0, 0x31EF),  # CJK strokes
    (0x2F00, 0x2FDF),  # Kangxi radicals
    (0x2FF0, 0x2FFF),  # ideographic description characters
    (0x3100, 0x312F),  # Bopomofo
    (0x31A0, 0x31BF),  # Bopomofo extended
    (0xFE10, 0xFE1F),  # vertical forms
    (0xFE30, 0xFE4F),  # CJK compatibility forms
    (0x2600, 0x26FF),  # miscellaneous symbols
    (0x2700, 0x27BF),  # dingbats
    (0x3200, 0x32FF),  # enclosed CJK letters and months
    (0x3300, 0x33FF),  # CJK compatibility
)
_ZH_CHAR = re.compile("([" + "".join(f"\\u{a:04x}-\\u{b:04x}" for a, b in _ZH_RANGES) + "])")


def _tok_zh(line: str) -> str:
    return _13a_rules(_spaced(_ZH_CHAR, line.strip()))


def _tok_char(line: str) -> str:
    return " ".join(line)


def _tok_none(line: str) -> str:
    return line


_LINE_TOKENIZERS: dict[str, Callable[[str], str]] = {
    "13a": _tok_13a,
    "intl": _tok_intl,
    "char": _tok_char,
    "zh": _tok_zh,
    "none": _tok_none,
}


def _joined_13a(text: str) -> str:
    # NUL takes part in no rule, and each line keeps its own padding spaces, so
    # no match reaches across a line boundary
    text = _13a_prepare(text)
    return _13a_rules(" " + text.replace(_MARK, f" {_MARK} ") + " ")


def _ids_13a_by_word(joined: str) -> NDArray[np.int64]:
    """Token ids of the joined corpus under 13a (the marker is id 0), one rule pass per word.

    The rules of 13a never carry a match across whitespace: every match ends
    at a ``.``, ``,``, ``-`` or symbol, or consumes one character after a
    ``.``/``,``, and a whitespace character only ever plays the part of "any
    other character". So a whitespace-separated word padded with one space on
    each side gives the tokens it gives in its line, and each distinct word of
    the corpus is tokenized once.
    """
    words = _13a_prepare(joined).replace(_MARK, f" {_MARK} ").split()
    index: dict[str, int] = dict.fromkeys(words, 0)
    vocab: dict[str, int] = {_MARK: 0}
    flat: list[int] = []
    sizes: list[int] = []
    for i, word in enumerate(index):
        index[word] = i
        tokens = [word] if word == _MARK else _13a_rules(f" {word} ").split()
        flat.extend(vocab.setdefault(token, len(vocab)) for token in tokens)
        sizes.append(len(tokens))
    occurrence = np.fromiter(map(index.__getitem__, words), dtype=np.int64, count=len(words))
    size = np.asarray(sizes, dtype=np.int64)
    first = np.cumsum(size) - size
    counts = size[occurrence]
    table = np.asarray(flat, dtype=np.int64)
    if bool((counts == 1).all()):
        same: NDArray[np.int64] = table[first[occurrence]]
        return same
    begin = np.repeat(first[occurrence], counts)
    step = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(
        np.cumsum(counts) - counts, counts
    )
    out: NDArray[np.int64] = table[begin + step]
    return out


# tokenizers whose rules never look across " \x00 ", applied to the joined corpus
_CORPUS_TOKENIZERS: dict[str, Callable[[str], str]] = {
    "13a": _joined_13a,
    "char": lambda text: " ".join(text),
    "none": lambda text: text.replace(_MARK, f" {_MARK} "),
}


def _prepare(line: str, lowercase: bool) -> str:
    return line.lower().rstrip() if lowercase else line.rstrip()


def tokenize(line: str, tokenizer: str = "13a", *, lowercase: bool = False) -> list[str]:
    """The tokens BLEU counts for one line.

    Parameters
    ----------
    line : str
        One segment.
    tokenizer : {"13a", "intl", "char", "zh", "none"}, default "13a"
        The tokenization (see the module notes).
    lowercase : bool, default False
        Lowercase the line first.

    Returns
    -------
    list of str

    Examples
    --------
    >>> tokenize("Hello, world! It costs $3.50.")
    ['Hello', ',', 'world', '!', 'It', 'costs', '$', '3.50', '.']
    >>> tokenize("我爱北京 ok", "zh")
    ['我', '爱', '北', '京', 'ok']
    """
    return _LINE_TOKENIZERS[tokenizer](_prepare(line, lowercase)).split()


def _ids(tokens: list[str]) -> NDArray[np.int64]:
    vocab: dict[str, int] = dict.fromkeys(tokens, 0)
    for i, token in enumerate(vocab):
        vocab[token] = i
    return np.fromiter(map(vocab.__getitem__, tokens), dtype=np.int64, count=len(tokens))


def encode_lines(
    lines: Sequence[str], tokenizer: str, lowercase: bool
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Tokenize many lines; return the token ids of all lines (concatenated) and each line's length.

    Equal tokens get equal ids within one call; the ids mean nothing across calls.

    Examples
    --------
    >>> ids, lengths = encode_lines(["a b.", "b a"], "13a", False)
    >>> lengths.tolist()
    [3, 2]
    >>> bool(ids[0] == ids[4]), bool(ids[1] == ids[3]), len(set(ids.tolist()))
    (True, True, 3)
    """
    n = len(lines)
    prepared = [_prepare(line, lowercase) for line in lines]
    joined = _MARK.join(prepared)
    corpus = _CORPUS_TOKENIZERS.get(tokenizer)
    if corpus is not None and n > 1 and joined.count(_MARK) == n - 1:
        if tokenizer == "13a":
            ids = _ids_13a_by_word(joined)
        else:
            tokens = corpus(joined).split()
            ids = _ids([_MARK, *tokens])[1:]  # the marker is id 0
        marks = np.flatnonzero(ids == 0)
        lengths = np.diff(np.concatenate([[-1], marks, [len(ids)]])) - 1
        return ids[ids != 0], lengths.astype(np.int64)
    line_tokenizer = _LINE_TOKENIZERS[tokenizer]
    per_line = [line_tokenizer(line).split() for line in prepared]
    lengths = np.fromiter(map(len, per_line), dtype=np.int64, count=n)
    return _ids(list(chain.from_iterable(per_line))), lengths
