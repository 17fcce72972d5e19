"""The corpus path of the 13a tokenizer (each distinct word once) against sacrebleu's."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from scorekit.text._tokenize import encode_lines

_PIECES = [*"ab1 2.,-/$&;()\t\nxé中'", "&amp;", "&quot;", "&lt;", "<skipped>", "-\n", "  ", "3.5"]
_LINE = st.lists(st.sampled_from(_PIECES), max_size=25).map("".join)


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(_LINE, min_size=2, max_size=6), lowercase=st.booleans())
def test_corpus_tokens_are_sacrebleus(lines: list[str], lowercase: bool) -> None:
    tokenize = Tokenizer13a()
    expected = [tokenize((s.lower() if lowercase else s).rstrip()).split() for s in lines]
    ids, lengths = encode_lines(lines, "13a", lowercase)
    assert lengths.tolist() == [len(tokens) for tokens in expected]
    flat = [token for tokens in expected for token in tokens]
    token_of: dict[int, str] = {}
    for i, token in zip(ids.tolist(), flat, strict=True):
        assert token_of.setdefault(i, token) == token
    assert len(set(token_of.values())) == len(token_of)
