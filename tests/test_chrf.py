"""chrF and chrF++ against sacrebleu 2.x: corpus and sentence scores, signatures, bad input."""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.core import parse_metric
from scorekit.errors import ConfigError, InputError, StateMismatchError
from scorekit.text import CHRF, CHRFPlusPlus, chrf, sentence_chrf
from scorekit.text.chrf._count import match_counts

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import CHRF as RefCHRF  # noqa: E402

logging.getLogger("sacrebleu").setLevel(logging.ERROR)

_WORDS = ["the", "The", "cat", "sat", "on", "a", "mat", ".", ",", "(hi)", "hi!!", "'s",
          "don't", "中文", "北京", "é", "ß", "—", "…", "", "U.S.", "\t", "\n", "?", "x-2",
          "mat."]  # fmt: skip
_words = st.one_of(st.sampled_from(_WORDS), st.text(max_size=4))
_sentences = st.lists(_words, max_size=8).map(" ".join)
_OPTIONS = st.fixed_dictionaries(
    {
        "char_order": st.integers(0, 6),
        "word_order": st.integers(0, 2),
        "beta": st.sampled_from([1, 2, 3]),
        "lowercase": st.booleans(),
        "whitespace": st.booleans(),
        "eps_smoothing": st.booleans(),
    }
).filter(lambda o: o["char_order"] + o["word_order"] > 0)

# sacrebleu's own test sentences (test/test_chrf.py)
SACREBLEU_CASES = [
    (["abcdefg"], "abcdefg"),
    (["abcdefg"], "abcdefgh"),
    (["abcdefg"], "abcdef"),
    (["a b c d e f g"], "a b c d e f g"),
    (["The relationship between Obama and Netanyahu has been stretched for years."],
     "The relationship between Obama and Netanyahu is not exactly friendly."),
    (["Die Beziehungen zwischen Obama und Netanjahu sind seit Jahren angespannt."],
     "Die Beziehungen zwischen Obama und Netanjahu sind nicht gerade freundlich."),
    (["I love cats", "I love dogs"], "I love cats and dogs"),
    ([""], ""),
    (["a"], ""),
    ([""], "a"),
    (["Niemand hat die Absicht, eine Mauer zu errichten"],
     "Niemand hat die Absicht, eine Mauer zu errichten"),
]  # fmt: skip


def _reference(
    refs: list[list[str]], preds: list[str], **options: Any
) -> tuple[float, list[float], str]:
    """sacrebleu's corpus score, sentence scores and signature; refs per segment."""
    width = max(len(r) for r in refs)
    streams = [[r[i] if i < len(r) else None for r in refs] for i in range(width)]
    metric = RefCHRF(**options)
    corpus = metric.corpus_score(preds, streams).score
    signature = str(metric.get_signature())
    sentences = [
        RefCHRF(**options).sentence_score(p, r).score for r, p in zip(refs, preds, strict=True)
    ]
    return corpus, sentences, signature


def _check(refs: list[list[str]], preds: list[str], **options: Any) -> None:
    corpus, sentences, signature = _reference(refs, preds, **options)
    metric = CHRF(**options)
    result = metric.details(refs, preds)
    assert 100 * result.score == pytest.approx(corpus, rel=1e-12, abs=1e-12)
    assert result.signature.rsplit("|version:", 1)[0] == signature.rsplit("|version:", 1)[0]
    got = 100 * metric.segment_scores(refs, preds)
    np.testing.assert_allclose(got, sentences, rtol=1e-12, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.lists(_sentences, min_size=1, max_size=3), _sentences), min_size=1, max_size=6
    ),
    _OPTIONS,
)
def test_equals_sacrebleu_on_random_corpora(pairs: list[Any], options: dict[str, Any]) -> None:
    refs = [r for r, _ in pairs]
    preds = [p for _, p in pairs]
    _check(refs, preds, **options)


@pytest.mark.parametrize("word_order", [0, 2])
@pytest.mark.parametrize(("refs", "pred"), SACREBLEU_CASES)
def test_equals_sacrebleu_on_its_test_sentences(
    refs: list[str], pred: str, word_order: int
) -> None:
    _check([refs], [pred], word_order=word_order)
    r = sentence_chrf(refs, pred, word_order=word_order)
    assert 100 * r.score == pytest.approx(
        RefCHRF(word_order=word_order).sentence_score(pred, refs).score, rel=1e-12, abs=1e-12
    )


def test_worked_values_and_names() -> None:
    refs = ["the cat sat on the mat", "a quick brown fox"]
    preds = ["the cat sat on a mat", "the quick brown fox"]
    assert chrf(refs, preds).name == "chrF2"
    assert chrf(refs, preds, word_order=2).name == "chrF2++"
    assert CHRFPlusPlus().score(refs, preds) == CHRF(word_order=2).score(refs, preds)
    assert 100 * CHRF().score(refs, preds) == RefCHRF().corpus_score(preds, [refs]).score
    assert parse_metric("chrf++").word_order == 2
    assert parse_metric("chrf:beta=1").beta == 1


def test_large_alphabets_take_the_general_path() -> None:
    rng = np.random.default_rng(1)
    chars = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]
    preds = ["".join(rng.choice(chars, 12)) for _ in range(20)]
    refs = [p[:6] + "".join(rng.choice(chars, 5)) for p in preds]
    _check([[r] for r in refs], preds, word_order=2)


def test_match_counts_of_a_small_pair() -> None:
    # "aab" against "ab": unigrams a:1 b:1, bigrams ab:1
    counts = match_counts(np.array([1, 1, 2, 1, 2]), np.array([3, 2]), 1, np.array([0]), 3)
    assert counts.tolist() == [[2, 1, 0]]


def test_chunks_merge_to_the_corpus_value() -> None:
    refs = ["the cat sat", ["a dog", "the dog"], "x y", "w"]
    preds = ["the cat sat down", "a dog", "y x", "w w"]
    metric = CHRF(word_order=2)
    merged = metric.merge(
        metric.summarize(refs[:2], preds[:2]), metric.summarize(refs[2:], preds[2:])
    )
    assert metric.compute(merged) == metric.score(refs, preds)
    assert metric.result(merged).signature.startswith("nrefs:var|")
    with pytest.raises(StateMismatchError):
        metric.merge(merged, CHRF().summarize(refs, preds))


@pytest.mark.parametrize(
    ("refs", "preds", "problem"),
    [
        (["a", "b"], ["a"], "differ in length"),
        (["a"], [None], "None"),
        ([None], ["a"], "None"),
        ([[]], ["a"], "empty"),
        ([], [], "empty input"),
        ("a", ["a"], "single string"),
    ],
)
def test_bad_input_names_the_problem(refs: Any, preds: Any, problem: str) -> None:
    with pytest.raises(InputError, match=problem):
        CHRF().score(refs, preds)


@pytest.mark.parametrize(
    "options",
    [{"char_order": -1}, {"char_order": 0, "word_order": 0}, {"beta": 0}, {"beta": "2"},
     {"lowercase": "yes"}, {"word_order": 2.5}],
)  # fmt: skip
def test_bad_options_are_config_errors(options: dict[str, Any]) -> None:
    with pytest.raises(ConfigError, match="chrf"):
        CHRF(**options)
