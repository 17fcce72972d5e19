"""ROUGE-Lsum's vectorised union LCS against the plain algorithm and rouge-score.

:func:`scorekit.text._lcs.lcs_marks` walks back the bit-parallel LCS tables of
many pairs at once; the hits of ROUGE-Lsum are then counted per token. Both are
checked against rouge-score's own table read-out (``lcs_ind``) and against the
plain per-sentence union kept below, on random token sequences: small
vocabularies (many repeated tokens), Unicode tokens, empty sequences, and
sequences long enough to take the one-by-one path.
"""

from __future__ import annotations

from collections import Counter
from itertools import chain
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.text import rouge
from scorekit.text._lcs import _bit_length, _popcount_swar, lcs_marks
from scorekit.text.rouge._tokens import _default_lines, _default_tokens

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
rouge_tokenizers = pytest.importorskip("rouge_score.tokenizers")

_TOKENS = ["a", "b", "c", "é", "中", "🙂", "the"]
_short = st.lists(st.sampled_from(_TOKENS[:3]), max_size=12)
_medium = st.lists(st.sampled_from(_TOKENS), max_size=40)
_long = st.lists(st.sampled_from(_TOKENS[:2]), min_size=60, max_size=140)
_sequences = st.lists(st.one_of(_short, _short, _medium, _long), min_size=1, max_size=10)


def _marks_reference(seqs: list[list[str]], pairs: list[tuple[int, int]]) -> list[bool]:
    """Per token of the concatenated sequences: on some pair's LCS, as rouge-score reads it."""
    starts = np.cumsum([0] + [len(s) for s in seqs])
    marks = [False] * int(starts[-1])
    for a, b in pairs:
        for i in rouge_scorer.lcs_ind(seqs[a], seqs[b]):
            marks[starts[a] + i] = True
    return marks


@settings(max_examples=100, deadline=None)
@given(seqs=_sequences, data=st.data())
def test_lcs_marks_equal_rouge_scores_read_out(seqs: list[list[str]], data: Any) -> None:
    index = st.integers(0, len(seqs) - 1)
    pairs = data.draw(st.lists(st.tuples(index, index), max_size=90))
    vocab = {t: k for k, t in enumerate(_TOKENS)}
    ids = np.array([vocab[t] for t in chain.from_iterable(seqs)], dtype=np.int64)
    lengths = np.array([len(s) for s in seqs], dtype=np.int64)
    ends = np.cumsum(lengths)
    starts = ends - lengths
    a = np.array([p[0] for p in pairs], dtype=np.int64)
    b = np.array([p[1] for p in pairs], dtype=np.int64)
    got = lcs_marks(ids, starts[a], ends[a], starts[b], ends[b])
    assert got.tolist() == _marks_reference(seqs, pairs)


def test_lcs_marks_of_no_pairs_and_empty_sequences() -> None:
    ids = np.array([0, 1, 0], dtype=np.int64)
    none = np.zeros(0, dtype=np.int64)
    assert lcs_marks(ids, none, none, none, none).tolist() == [False] * 3
    empty = np.zeros(40, dtype=np.int64)
    assert not lcs_marks(ids, empty, empty + 3, empty, empty).any()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), max_size=50))
def test_popcount_and_bit_length_of_uint64(values: list[int]) -> None:
    x = np.array(values, dtype=np.uint64)
    assert _popcount_swar(x).tolist() == [v.bit_count() for v in values]
    below = x >> np.uint64(1)  # the walk back only asks below bit 63
    assert _bit_length(below).tolist() == [(v >> 1).bit_length() for v in values]


# the union LCS of ROUGE-Lsum ----------------------------------------------------------


def _plain_lsum(ref: str, pred: str) -> tuple[float, float, float]:
    """ROUGE-Lsum of one pair the plain way: per reference sentence the union of its LCS with
    every predicted sentence, tokens taken in order while both sides still have them."""
    tokenizer = rouge_tokenizers.DefaultTokenizer(use_stemmer=False)

    def sentences(text: str) -> list[list[str]]:
        return [tokenizer.tokenize(s) for s in text.split("\n") if len(s)]

    refs, preds = sentences(ref), sentences(pred)
    ref_total = sum(map(len, refs))
    pred_total = sum(map(len, preds))
    if not ref_total or not pred_total:
        return 0.0, 0.0, 0.0
    ref_left = Counter(chain.from_iterable(refs))
    pred_left = Counter(chain.from_iterable(preds))
    hits = 0
    for sent in refs:
        union: set[int] = set()
        for cand in preds:
            union.update(rouge_scorer.lcs_ind(sent, cand))
        for i in sorted(union):
            if pred_left[sent[i]] > 0 and ref_left[sent[i]] > 0:
                hits += 1
                pred_left[sent[i]] -= 1
                ref_left[sent[i]] -= 1
    precision, recall = hits / pred_total, hits / ref_total
    total = precision + recall
    return precision, recall, 2 * precision * recall / total if total > 0 else 0.0


_WORDS = ["the", "cat", "sat", "on", "a", "mat", "Café", "中文", "42", "\n", "\n", "", "cat."]
_texts = st.lists(st.sampled_from(_WORDS), max_size=50).map(" ".join)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_texts, _texts), min_size=1, max_size=40))
@pytest.mark.filterwarnings("ignore:rouge. rouge-score's default tokenizer")
def test_lsum_equals_the_plain_union(pairs: list[tuple[str, str]]) -> None:
    refs = [r for r, _ in pairs]
    preds = [p for _, p in pairs]
    got = rouge(refs, preds, types=["rougeLsum"], per_sample=True)["rougeLsum"].per_sample
    assert got is not None
    assert got.tolist() == [list(_plain_lsum(r, p)) for r, p in pairs]


def test_lsum_of_many_sentences_equals_rouge_score() -> None:
    """Enough sentence pairs for the vectorised walk, some predicted sentences past 63
    tokens, several references per item."""
    rng = np.random.default_rng(11)
    words = np.array(["the", "a", "cat", "dog", "sat", "ran", "on", "mat", "\n"])
    weights = np.array([4, 3, 2, 2, 2, 2, 2, 2, 2], dtype=float)
    weights /= weights.sum()
    refs: list[Any] = []
    preds = []
    for i in range(120):
        size = int(rng.integers(0, 200 if i % 10 == 0 else 60))
        ref = " ".join(rng.choice(words, size, p=weights))
        refs.append(ref if i % 4 else [ref, " ".join(rng.choice(words, 20, p=weights))])
        preds.append(" ".join(rng.choice(words[:-1] if i % 7 == 0 else words, size, p=None)))
    for stemmer in (False, True):
        scorer = rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=stemmer)
        expected = np.array(
            [
                tuple(
                    (scorer.score_multi if isinstance(r, list) else scorer.score)(r, p)["rougeLsum"]
                )
                for r, p in zip(refs, preds, strict=True)
            ]
        )
        got = rouge(refs, preds, types=["rougeLsum"], stemmer=stemmer, per_sample=True)
        per_sample = got["rougeLsum"].per_sample
        assert per_sample is not None
        np.testing.assert_allclose(per_sample, expected, rtol=0, atol=1e-12)


# the tokens of every line at once -------------------------------------------------------


_CHARS = [
    "a",
    "B",
    "z9",
    "\n",
    " ",
    "İ",
    "\u212a",
    "é",
    "x" * 8,
    "y" * 9,
    "internationalization",
    ".",
    "\r",
    "\x01",
    "中",
    "\ud800",
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_CHARS), max_size=14).map("".join), max_size=6))
def test_default_lines_equal_the_tokens_of_each_line(texts: list[str]) -> None:
    """Tokens are numbered by one hash table over their bytes, short and long alike;
    non-ASCII letters that lowercase to ASCII (İ, the Kelvin sign) count."""
    lines = _default_lines(texts)
    assert lines is not None
    ids, lengths, per_text, vocabulary = lines
    tokens = [[_default_tokens(line) for line in text.split("\n")] for text in texts]
    kept = [[line for line in text if line] for text in tokens]
    assert [vocabulary[i] for i in ids.tolist()] == list(chain.from_iterable(chain(*kept)))
    assert lengths.tolist() == [len(line) for line in chain(*kept)]
    assert per_text.tolist() == [len(text) for text in kept]
    assert len(set(vocabulary)) == len(vocabulary)


def test_default_lines_refuse_nul() -> None:
    assert _default_lines(["a\x00b", "c"]) is None
    assert _default_lines([]) is not None
