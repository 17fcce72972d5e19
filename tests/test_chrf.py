# ruff: noqa: E501  (sacrebleu's test sentences are long lines)
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
from scorekit.text.chrf._count import char_symbols, match_counts

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

# sacrebleu's test cases (test/test_chrf.py): predictions, references, options, its score
SACREBLEU_CASES = [
    (["abcdefg"], ["hijklmnop"], {"eps_smoothing": True}, 0.0),
    (["a"], ["b"], {"eps_smoothing": True}, 0.0),
    ([""], ["b"], {"eps_smoothing": True}, 0.0),
    ([""], ["reference"], {"eps_smoothing": True}, 0.0),
    (["aa"], ["ab"], {"eps_smoothing": True}, 8.3333),
    (["a", "b"], ["a", "c"], {"eps_smoothing": True}, 8.3333),
    (["a"], ["a"], {"eps_smoothing": True}, 16.6667),
    (["a b c"], ["a b c"], {"eps_smoothing": True}, 50.0),
    (["a b c"], ["abc"], {"eps_smoothing": True}, 50.0),
    ([" risk assessment must be made of those who are qualified and expertise in the sector - these are the scientists ."],
     ["risk assessment has to be undertaken by those who are qualified and expert in that area - that is the scientists ."],
     {"eps_smoothing": True}, 63.361730),
    ([" Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. "],
     ["Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."],
     {"eps_smoothing": True}, 64.1302698),
    (["Niemand hat die Absicht, eine Mauer zu errichten"],
     ["Niemand hat die Absicht, eine Mauer zu errichten"], {"eps_smoothing": True}, 100.0),
    (["a"], ["a"], {}, 100.0),
    ([""], ["reference"], {}, 0.0),
    (["a b c"], ["a b c"], {}, 100.0),
    (["a b c"], ["abc"], {}, 100.0),
    ([""], ["c"], {}, 0.0),
    (["a", "b"], ["a", "c"], {}, 50.0),
    (["aa"], ["ab"], {}, 25.0),
    (["Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich."],
     ["Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."],
     {"whitespace": True}, 67.3481606),
    (["risk assessment must be made of those who are qualified and expertise in the sector - these are the scientists ."],
     ["risk assessment has to be undertaken by those who are qualified and expert in that area - that is the scientists ."],
     {"whitespace": True}, 65.2414427),
]  # fmt: skip
SACREBLEU_SENTENCES = [
    ("Co nás nejvíc trápí, protože lékaři si vybírají, kdo bude žít a kdo zemře.",
     ["Nejvíce smutní jsme z toho, že musíme rozhodovat o tom, kdo bude žít a kdo zemře."],
     39.14078509),
    ("Nebo prostě nemají vybavení, které by jim pomohlo, uvedli lékaři.",
     ["A někdy nemáme ani potřebný materiál, abychom jim pomohli, popsali lékaři."], 31.22557079),
    ("Lapali po dechu, jejich životy skončily dřív, než skutečně začaly.",
     ["Lapali po dechu a pak jejich život skončil - dřív, než skutečně mohl začít, připomněli."],
     57.15704367),
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


@pytest.mark.parametrize(("preds", "refs", "options", "score"), SACREBLEU_CASES)
def test_equals_sacrebleus_test_cases(
    preds: list[str], refs: list[str], options: dict[str, Any], score: float
) -> None:
    result = chrf(refs, preds, beta=3, **options)
    assert 100 * result.score == pytest.approx(score, abs=1e-4)
    for word_order in (0, 2):
        _check([[r] for r in refs], preds, beta=3, word_order=word_order, **options)


@pytest.mark.parametrize(("pred", "refs", "score"), SACREBLEU_SENTENCES)
def test_equals_sacrebleus_sentence_cases(pred: str, refs: list[str], score: float) -> None:
    assert 100 * sentence_chrf(refs, pred, eps_smoothing=True).score == pytest.approx(
        score, abs=1e-4
    )
    _check([refs], [pred], eps_smoothing=True, word_order=2)


def test_worked_values_and_names() -> None:
    refs = ["the cat sat on the mat", "a quick brown fox"]
    preds = ["the cat sat on a mat", "the quick brown fox"]
    assert chrf(refs, preds).name == "chrF2"
    assert chrf(refs, preds, word_order=2).name == "chrF2++"
    assert CHRFPlusPlus().score(refs, preds) == CHRF(word_order=2).score(refs, preds)
    assert 100 * CHRF().score(refs, preds) == RefCHRF().corpus_score(preds, [refs]).score
    assert parse_metric("chrf++").word_order == 2
    assert parse_metric("chrf:beta=1").beta == 1


@pytest.mark.parametrize("alphabet", [600, 3000])
def test_large_alphabets_take_the_general_paths(alphabet: int) -> None:
    # 600 symbols do not fit six to a key as bit fields but do as base-601 digits; 3000 not at all
    rng = np.random.default_rng(1)
    chars = "".join(rng.permutation([chr(c) for c in range(0x4E00, 0x4E00 + alphabet)]))
    size = alphabet // 20
    preds = [chars[i : i + size] for i in range(0, alphabet, size)]  # every symbol appears
    refs = [p[: size // 2] + "".join(rng.choice(list(chars), 5)) for p in preds]
    _check([[r] for r in refs], preds, word_order=2)
    ids, _ = char_symbols(preds + refs, whitespace=False)
    assert int(ids.max()) == alphabet


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
