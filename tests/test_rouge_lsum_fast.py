"""ROUGE-Lsum's batch kernels against rouge-score on random multi-sentence texts.

The batches are large enough for the vectorised walk back of
:func:`scorekit.text._lcs.lcs_marks` (32 sentence pairs or more), with few
distinct words so that tokens repeat within and across sentences and the LCS
read out depends on how ties are broken. Texts hold empty lines, lines without
tokens, one-token lines, lines past 63 tokens, Unicode letters that the default
tokenizer drops or lowercases to ASCII, and stemmable words; each item's
precision, recall and F-measure must equal rouge-score's, with and without the
Porter stemmer.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.text import rouge
from scorekit.text._lcs import _position_masks, lcs_marks

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")

pytestmark = pytest.mark.filterwarnings("ignore:rouge. rouge-score's default tokenizer")

# few words, some equal once stemmed (running/runs, cats/cat) or lowercased (The/the, İ/i)
_WORDS = ["the", "The", "cat", "cats", "a", "running", "runs", "on", "İ", "i", "42"]
_NOISE = ["Café", "中文", "🙂", "!", '"', "...", "é"]

_sentence = st.one_of(
    st.lists(st.sampled_from(_WORDS[:4]), min_size=1, max_size=1),
    st.lists(st.sampled_from(_WORDS), max_size=12),
    st.lists(st.sampled_from(_WORDS + _NOISE), max_size=16),
    # past 63 tokens: a few words repeated
    st.lists(st.sampled_from(_WORDS[:3]), min_size=8, max_size=12).map(lambda w: w * 8),
).map(" ".join)
_text = st.one_of(
    st.just(""),
    st.lists(_sentence, min_size=1, max_size=5).map("\n".join),
    st.lists(_sentence, min_size=1, max_size=3).map("\n\n".join),
)
_short_text = st.lists(
    st.lists(st.sampled_from(_WORDS[:3]), max_size=6).map(" ".join), min_size=1, max_size=4
).map("\n".join)


def _expected(refs: list[Any], preds: list[str], stemmer: bool) -> np.ndarray:
    scorer = rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=stemmer)
    rows = []
    for ref, pred in zip(refs, preds, strict=True):
        score = scorer.score_multi if isinstance(ref, list) else scorer.score
        rows.append(tuple(score(ref, pred)["rougeLsum"]))
    return np.array(rows, dtype=np.float64).reshape(-1, 3)


def _got(refs: list[Any], preds: list[str], stemmer: bool) -> np.ndarray:
    result = rouge(refs, preds, types=["rougeLsum"], stemmer=stemmer, per_sample=True)
    per_sample = result["rougeLsum"].per_sample
    assert per_sample is not None
    return per_sample


def _assert_equal(got: np.ndarray, expected: np.ndarray) -> None:
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)


@settings(max_examples=12, deadline=None)
@given(st.lists(st.tuples(_text, _text), min_size=32, max_size=48), st.booleans())
def test_lsum_of_repeated_tokens_equals_rouge_score(
    pairs: list[tuple[str, str]], stemmer: bool
) -> None:
    refs = [r for r, _ in pairs]
    preds = [p for _, p in pairs]
    _assert_equal(_got(refs, preds, stemmer), _expected(refs, preds, stemmer))


@settings(max_examples=12, deadline=None)
@given(st.lists(st.tuples(_short_text, _short_text), min_size=40, max_size=80), st.booleans())
def test_lsum_of_three_words_many_ties_equals_rouge_score(
    pairs: list[tuple[str, str]], stemmer: bool
) -> None:
    """Three words only: almost every cell of the LCS table is a tie."""
    refs = [r for r, _ in pairs]
    preds = [p for _, p in pairs]
    _assert_equal(_got(refs, preds, stemmer), _expected(refs, preds, stemmer))


@settings(max_examples=10, deadline=None)
@given(
    st.lists(
        st.tuples(st.lists(_short_text, min_size=1, max_size=3), _short_text),
        min_size=32,
        max_size=40,
    ),
    st.booleans(),
)
def test_lsum_of_several_references_equals_score_multi(
    pairs: list[tuple[list[str], str]], stemmer: bool
) -> None:
    refs: list[Any] = [r for r, _ in pairs]
    preds = [p for _, p in pairs]
    _assert_equal(_got(refs, preds, stemmer), _expected(refs, preds, stemmer))


@pytest.mark.parametrize("stemmer", [False, True])
def test_lsum_of_empty_texts_and_lines_equals_rouge_score(stemmer: bool) -> None:
    texts = ["", "\n", "\n\n\n", "!!! ...", "中文", "the", "the\n\ncat", "cat\nthe\ncat the"]
    refs = [r for r in texts for _ in texts]
    preds = [p for _ in texts for p in texts]
    got = _got(refs, preds, stemmer)
    _assert_equal(got, _expected(refs, preds, stemmer))
    assert got[0].tolist() == [0.0, 0.0, 0.0]


def test_lsum_of_a_text_with_nul_equals_rouge_score() -> None:
    """A NUL in a text takes the tokenizer's path for any text; the values are the same."""
    refs = ["the cat\x00sat\non the mat"] * 33
    preds = ["the mat\nthe cat sat"] * 33
    _assert_equal(_got(refs, preds, False), _expected(refs, preds, False))


# the batched walk back and its position masks -----------------------------------------


@settings(max_examples=20, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 2), min_size=1, max_size=20), min_size=2, max_size=12),
    st.data(),
)
def test_lcs_marks_are_rouge_scores_positions(seqs: list[list[int]], data: Any) -> None:
    """32 pairs or more of sequences over three tokens: the marked positions are the union
    of the positions rouge-score's backtrack reads out, not only as many."""
    index = st.integers(0, len(seqs) - 1)
    pairs = data.draw(st.lists(st.tuples(index, index), min_size=32, max_size=70))
    lengths = np.array([len(s) for s in seqs], dtype=np.int64)
    ends = np.cumsum(lengths)
    starts = ends - lengths
    ids = np.array([t for s in seqs for t in s], dtype=np.int64)
    first = np.array([p[0] for p in pairs], dtype=np.int64)
    second = np.array([p[1] for p in pairs], dtype=np.int64)
    expected = np.zeros(len(ids), dtype=bool)
    for a, b in pairs:
        for i in rouge_scorer.lcs_ind(seqs[a], seqs[b]):
            expected[starts[a] + i] = True
    got = lcs_marks(ids, starts[first], ends[first], starts[second], ends[second])
    assert got.tolist() == expected.tolist()


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=63), min_size=1, max_size=6),
    st.data(),
)
def test_position_masks_with_narrow_and_wide_keys(seqs: list[list[int]], data: Any) -> None:
    """Small ids are looked up by one sort; ids past 2**56 leave no room for the low bits
    and go through the hash table; both give each token's positions in its sequence."""
    queries = data.draw(
        st.lists(st.tuples(st.integers(0, len(seqs) - 1), st.integers(0, 4)), max_size=40)
    )
    lengths = np.array([len(s) for s in seqs], dtype=np.int64)
    starts = np.cumsum(lengths) - lengths
    flat = np.array([t for s in seqs for t in s], dtype=np.int64)
    which = np.array([q[0] for q in queries], dtype=np.int64)
    tokens = np.array([q[1] for q in queries], dtype=np.int64)
    expected = [sum(1 << k for k, t in enumerate(seqs[w]) if t == token) for w, token in queries]
    narrow = _position_masks(flat, starts, lengths, which, tokens)
    assert narrow.tolist() == expected
    wide = _position_masks(flat + 2**56, starts, lengths, which, tokens + 2**56)
    assert wide.tolist() == expected
