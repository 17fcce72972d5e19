"""ROUGE tokenizers, Porter stemming of tokens, and sentence splitting for ROUGE-Lsum.

``"default"`` is rouge-score's tokenizer (lowercase, runs of ``a-z0-9``), with
whole-batch fast paths (:func:`_default_flat`, and :func:`_default_lines` for the
lines of ROUGE-Lsum); ``"unicode"`` keeps letters, digits and marks of every
script (Han and kana one token per character); ``"none"`` splits on whitespace.
Sentences are cut at newlines, or also after ``.``, ``!`` and ``?``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.text._porter import stem

__all__ = ["TOKENIZERS", "SentenceSplit", "Tokenizer"]

TOKENIZERS = ("default", "unicode", "none")
"""The built-in tokenizers; a callable ``str -> list[str]`` is accepted too."""

Tokenizer = str | Callable[[str], Sequence[str]]
SentenceSplit = bool | Callable[[str], Sequence[str]]

_DEFAULT_TOKEN = re.compile(r"[a-z0-9]+")
# Han, kana and other scripts written without spaces: one token per character
_CJK = (
    "\u2e80-\u2fdf\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\U00020000-\U0003134f"
)


@lru_cache(maxsize=1)
def _unicode_token() -> re.Pattern[str]:
    """Runs of letters, digits and combining marks (not ``_``), or one CJK character."""
    marks: list[str] = []
    for lo, hi in ((0x300, 0x20000), (0xE0100, 0xE01F0)):
        chars = "".join(map(chr, range(lo, hi)))
        is_mark = np.fromiter((c[0] == "M" for c in map(unicodedata.category, chars)), bool)
        edges = np.flatnonzero(np.diff(np.concatenate([[False], is_mark, [False]])))
        for start, stop in zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True):
            marks.append(f"{re.escape(chars[start])}-{re.escape(chars[stop - 1])}")
    return re.compile(f"[{_CJK}]|(?:[^\\W_{_CJK}]|[{''.join(marks)}])+")


def _default_tokens(text: str) -> list[str]:
    return _DEFAULT_TOKEN.findall(text.lower())


_SEP = b"\x00"
# bytes of a-z and 0-9 stay, NUL marks the end of a text, every other byte separates
_ALNUM_BYTES = bytes(c if c == 0 or 48 <= c <= 57 or 97 <= c <= 122 else 32 for c in range(256))


def _default_flat(texts: list[str]) -> tuple[list[bytes], dict[bytes, None]] | None:
    """All texts' default tokens in one pass, with a NUL token after each text but the last.

    The whole batch is lowercased, mapped byte-wise (non-ASCII characters only
    ever separate tokens) and split at once; ``None`` when a text contains NUL.
    """
    joined = " \x00 ".join(texts)
    if joined.count("\x00") != max(len(texts) - 1, 0):
        return None
    data = joined.lower().encode("utf-8", "surrogatepass").translate(_ALNUM_BYTES)
    flat = data.split()
    vocab = dict.fromkeys(flat)
    vocab.setdefault(_SEP)
    return flat, vocab


# a-z and 0-9 stay, a newline becomes "!" (a line end), NUL '"' (a text end), other bytes 32
_LINE_BYTES = bytes(
    c if 48 <= c <= 57 or 97 <= c <= 122 else 33 if c == 10 else 34 if c == 0 else 32
    for c in range(256)
)


def _default_lines(
    texts: list[str],
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], list[str]] | None:
    """The default tokens of every line of every text in one pass, as ids.

    The batch is lowercased and mapped byte-wise as :func:`_default_flat` maps
    it, each line end and text end made a one-byte token of its own; numpy
    finds where the tokens start and end, and one hash table (pyarrow's
    dictionary encoding of the tokens' bytes) numbers them. Lines without
    tokens are left out. Returns the token ids, the number of tokens of each
    line, the number of lines of each text and the token of each id (the
    line and text end marks among them); ``None`` when a text contains NUL.
    """
    import pyarrow as pa

    joined = "\x00".join(texts)
    if joined.count("\x00") != max(len(texts) - 1, 0):
        return None
    mapped = joined.lower().encode("utf-8", "surrogatepass").translate(_LINE_BYTES)
    mapped = mapped.replace(b"!", b" ! ").replace(b'"', b' " ')
    data = np.frombuffer(mapped, dtype=np.uint8)
    inside = data > 32
    # a token starts or ends where a byte differs from the one before
    change = np.empty(len(data) + 1, dtype=bool)
    change[0] = change[-1] = False
    if len(data):
        change[0], change[-1] = inside[0], inside[-1]
    np.not_equal(inside[1:], inside[:-1], out=change[1:-1])
    edges = np.flatnonzero(change)
    starts = edges[::2]
    offsets = np.zeros(len(starts) + 1, dtype=np.int64)
    np.cumsum(edges[1::2] - starts, out=offsets[1:])
    tokens = pa.Array.from_buffers(
        pa.large_string(),
        len(starts),
        [None, pa.py_buffer(offsets), pa.py_buffer(np.compress(inside, data))],
    ).dictionary_encode()
    ids = np.asarray(tokens.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    vocabulary: list[str] = tokens.dictionary.to_pylist()
    first = data[starts]
    is_end = first < 48
    # the ends of the lines, a last one after the last token; a line's words lie between
    ends = np.append(np.flatnonzero(is_end), len(starts))
    words = np.diff(ends, prepend=-1) - 1
    # a line's text: the text ends among the ends before it
    text_of_line = np.zeros(len(ends), dtype=np.int64)
    np.cumsum(first[ends[:-1]] == 34, out=text_of_line[1:])
    kept = words > 0
    per_text = np.bincount(text_of_line[kept], minlength=len(texts))
    return ids[~is_end], words[kept].astype(np.int64), per_text.astype(np.int64), vocabulary


def _unicode_tokens(text: str) -> list[str]:
    return _unicode_token().findall(unicodedata.normalize("NFKC", text).lower())


def _none_tokens(text: str) -> list[str]:
    return text.split()


def _stem_default(token: str) -> str:
    return stem(token) if len(token) > 3 else token


def _stem_unicode(token: str) -> str:
    return stem(token) if len(token) > 3 and token.isascii() else token


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n")


def _rule_sentences(text: str) -> list[str]:
    return _SENTENCE_END.split(text)


def _newline_sentences(text: str) -> list[str]:
    return text.split("\n")


def _describe(fn: Callable[..., Any]) -> str:
    module = getattr(fn, "__module__", None) or "?"
    name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    return f"callable {module}.{name}"
