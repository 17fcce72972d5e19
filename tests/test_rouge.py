"""ROUGE against Google's rouge-score, the Porter stemmer against NLTK, and bad input."""

from __future__ import annotations

import pickle
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import parse_metric
from scorekit.errors import ConfigError, InputError, StateMismatchError
from scorekit.text import ROUGE, ROUGE1, ROUGEL, ROUGELsum, RougeScore, rouge
from scorekit.text._lcs import lcs_lengths, lcs_positions
from scorekit.text._porter import stem
from scorekit.text.rouge import ROUGE_TYPES

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")

ALL_TYPES = list(ROUGE_TYPES)
WORDS = [
    "the", "The", "THE", "cat", "cats", "dog", "dogs", "running", "runs", "ran",
    "on", "a", "mat.", "hello,", "world!", "co-op", "it's", "42", "3.14", "x_y",
    "generalization", "generalize", "happily", "happy", "...", "--", "\n", "\n\n",
    "Café", "naïve", "İstanbul", "Σοφία", "中文", "\t", "",
]  # fmt: skip

text = st.lists(st.sampled_from(WORDS), max_size=30).map(" ".join)
multiline = st.lists(st.sampled_from([*WORDS, "\n", "\n"]), max_size=40).map(" ".join)
references = st.one_of(text, st.lists(text, min_size=1, max_size=3))


def _reference(
    refs: list[Any], preds: list[str], types: list[str], stemmer: bool
) -> list[dict[str, Any]]:
    scorer = rouge_scorer.RougeScorer(types, use_stemmer=stemmer)
    return [
        scorer.score_multi(r, p) if isinstance(r, list) else scorer.score(r, p)
        for r, p in zip(refs, preds, strict=True)
    ]


def _check_agreement(refs: list[Any], preds: list[str], types: list[str], stemmer: bool) -> None:
    ours = rouge(refs, preds, types=types, stemmer=stemmer, per_sample=True)
    expected = _reference(refs, preds, types, stemmer)
    for t in types:
        want = np.array([tuple(e[t]) for e in expected], dtype=np.float64)
        got = ours[t].per_sample
        assert got is not None
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=t)
        np.testing.assert_allclose(
            [ours[t].precision, ours[t].recall, ours[t].fmeasure],
            want.mean(axis=0),
            rtol=1e-12,
            atol=1e-15,
        )


# agreement with rouge-score ------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(
    refs=st.lists(references, min_size=1, max_size=8),
    data=st.data(),
    stemmer=st.booleans(),
)
def test_agrees_with_rouge_score(refs: list[Any], data: Any, stemmer: bool) -> None:
    preds = [data.draw(text) for _ in refs]
    _check_agreement(refs, preds, ALL_TYPES, stemmer)


@settings(max_examples=100, deadline=None)
@given(
    refs=st.lists(st.one_of(multiline, st.lists(multiline, min_size=1, max_size=3)), min_size=1),
    data=st.data(),
    stemmer=st.booleans(),
)
def test_lsum_agrees_on_multiline_text(refs: list[Any], data: Any, stemmer: bool) -> None:
    preds = [data.draw(multiline) for _ in refs]
    _check_agreement(refs, preds, ["rougeLsum", "rougeL"], stemmer)
    # rougeLsum alone takes rouge-score's other code path (no whole-text tokens)
    _check_agreement(refs, preds, ["rougeLsum"], stemmer)


def test_agrees_on_a_larger_random_corpus() -> None:
    rng = np.random.default_rng(7)
    vocab = np.array([f"w{i}" for i in range(40)] + ["the", "and", ",", ".", "\n"])
    refs: list[Any] = []
    preds = []
    for i in range(300):
        ref = " ".join(rng.choice(vocab, rng.integers(0, 60)))
        refs.append(ref if i % 3 else [ref, " ".join(rng.choice(vocab, rng.integers(0, 30)))])
        preds.append(" ".join(rng.choice(vocab, rng.integers(0, 60))))
    for stemmer in (False, True):
        _check_agreement(refs, preds, ALL_TYPES, stemmer)


def test_nul_characters_take_the_per_text_tokenizer_and_agree() -> None:
    refs = ["a\x00b c", "the cat"]
    preds = ["a b\x00c", "the\x00cat"]
    _check_agreement(refs, preds, ["rouge1", "rouge2", "rougeL"], False)
    assert rouge(refs, preds, types=["rouge1"])["rouge1"].fmeasure == 1.0


def test_worked_example() -> None:
    scores = rouge(["the cat sat on the mat"], ["the cat lay on the mat"])
    assert scores["rouge1"] == RougeScore(5 / 6, 5 / 6, 5 / 6)
    assert scores["rouge2"] == RougeScore(0.6, 0.6, 0.6)
    assert scores["rougeL"].fmeasure == pytest.approx(5 / 6)
    assert ROUGE1().score(["the cat sat on the mat"], ["the cat lay on the mat"]) == 5 / 6


def test_multi_reference_takes_the_best_fmeasure_per_type() -> None:
    refs = [["the cat was under the bed", "a cat sat on a mat", "the cat sat"]]
    preds = ["the cat sat on the mat"]
    expected = rouge_scorer.RougeScorer(ALL_TYPES).score_multi(refs[0], preds[0])
    ours = rouge(refs, preds, types=ALL_TYPES)
    for t in ALL_TYPES:
        assert tuple(ours[t])[:3] == pytest.approx(tuple(expected[t]), abs=1e-12)
    # the best reference differs per type, and ties keep the first reference
    single = [rouge([r], preds, types=["rouge1", "rouge2"]) for r in refs[0]]
    assert ours["rouge1"].fmeasure == max(s["rouge1"].fmeasure for s in single)
    assert ours["rouge2"].fmeasure == max(s["rouge2"].fmeasure for s in single)
    # equal F-measures from different precision and recall: the first reference wins
    for pair in (["a", "a b c d"], ["a b c d", "a"]):
        tie = rouge([pair], ["a b"], types=["rouge1"], per_sample=True)["rouge1"].per_sample
        first = rouge([pair[0]], ["a b"], types=["rouge1"], per_sample=True)["rouge1"].per_sample
        assert tie is not None and first is not None
        np.testing.assert_array_equal(tie, first)
        expected = rouge_scorer.RougeScorer(["rouge1"]).score_multi(pair, "a b")["rouge1"]
        assert tuple(tie[0]) == tuple(expected)


def test_stemmer_changes_matches() -> None:
    plain = rouge(["the cats are running"], ["a cat runs"], types=["rouge1"])
    stemmed = rouge(["the cats are running"], ["a cat runs"], types=["rouge1"], stemmer=True)
    assert plain["rouge1"].fmeasure == 0.0
    assert stemmed["rouge1"].fmeasure == pytest.approx(2 * (2 / 3) * (2 / 4) / (2 / 3 + 2 / 4))


def test_empty_strings_score_zero() -> None:
    scores = rouge(["", "cat", ""], ["cat", "", ""], types=ALL_TYPES, per_sample=True)
    for t in ALL_TYPES:
        assert scores[t].per_sample is not None
        assert not scores[t].per_sample.any()


# tokenizers -----------------------------------------------------------------------


def test_unicode_tokenizer_keeps_other_scripts() -> None:
    refs = ["我喜欢猫", "Η γάτα κάθεται στο χαλί"]
    preds = ["我喜欢狗", "η γάτα κάθεται"]
    # rouge-score drops every non-Latin character: these pairs have no tokens
    default = rouge(refs, preds, types=["rouge1"], per_sample=True)["rouge1"]
    expected = _reference(refs, preds, ["rouge1"], False)
    assert [e["rouge1"].fmeasure for e in expected] == [0.0, 0.0]
    assert default.per_sample is not None and not default.per_sample.any()
    uni = rouge(refs, preds, types=["rouge1", "rouge2"], tokenizer="unicode", per_sample=True)
    assert uni["rouge1"].per_sample is not None
    # Chinese: one token per character, 3 of 4 match; Greek: lowercased words, 3 of 5 / 3
    np.testing.assert_allclose(uni["rouge1"].per_sample[0], [0.75, 0.75, 0.75])
    np.testing.assert_allclose(uni["rouge1"].per_sample[1], [1.0, 0.6, 0.75])
    assert uni["rouge2"].per_sample is not None
    np.testing.assert_allclose(uni["rouge2"].per_sample[0], [2 / 3, 2 / 3, 2 / 3])


def test_unicode_tokenizer_on_latin_text_matches_default() -> None:
    refs = ["The cat, the MAT; 42 dogs!", "co-op x_y"]
    preds = ["the cats sat on 42 mats", "co op x y"]
    for stemmer in (False, True):
        a = rouge(refs, preds, stemmer=stemmer, per_sample=True)
        b = rouge(refs, preds, stemmer=stemmer, tokenizer="unicode", per_sample=True)
        for t in a:
            np.testing.assert_array_equal(a[t].per_sample, b[t].per_sample)


def test_unicode_tokenizer_keeps_combining_marks_and_normalises() -> None:
    # "naïve" written with a combining diaeresis, and full-width letters
    scores = rouge(["nai\u0308ve ＡＢＣ"], ["naïve abc"], types=["rouge1"], tokenizer="unicode")
    assert scores["rouge1"].fmeasure == 1.0


def test_none_tokenizer_splits_on_whitespace_and_keeps_case() -> None:
    scores = rouge(["The cat ."], ["the cat ."], types=["rouge1"], tokenizer="none")
    assert scores["rouge1"].fmeasure == pytest.approx(2 / 3)
    assert rouge(["The cat ."], ["the cat ."], types=["rouge1"])["rouge1"].fmeasure == 1.0


def test_callable_tokenizer() -> None:
    def chars(s: str) -> list[str]:
        return list(s.replace(" ", ""))

    scores = rouge(["abc"], ["abd"], types=["rouge1", "rougeL"], tokenizer=chars)
    assert scores["rouge1"].fmeasure == pytest.approx(2 / 3)
    with pytest.raises(ConfigError, match="did not return strings"):
        rouge(["abc"], ["abd"], tokenizer=lambda s: 3)


def test_split_sentences_option() -> None:
    ref = "the cat sat. the dog ran."
    pred = "the dog ran. the cat sat."
    one_line = rouge([ref], [pred], types=["rougeLsum"])["rougeLsum"].fmeasure
    split = rouge([ref], [pred], types=["rougeLsum"], split_sentences=True)["rougeLsum"]
    assert one_line == pytest.approx(0.5)
    assert split.fmeasure == 1.0
    own = rouge([ref], [pred], types=["rougeLsum"], split_sentences=lambda s: s.split(". "))
    assert own["rougeLsum"].fmeasure == 1.0
    # the same as newline-separated sentences, which is what rouge-score reads
    expected = _reference(
        [ref.replace(". ", ".\n")], [pred.replace(". ", ".\n")], ["rougeLsum"], False
    )
    assert split.fmeasure == expected[0]["rougeLsum"].fmeasure


# the Porter stemmer ---------------------------------------------------------------


def _vocabulary() -> set[str]:
    """Every lowercase word in NLTK's and rouge-score's sources and docs, plus suffix mixes."""
    import nltk
    import rouge_score

    words: set[str] = set()
    for package in (nltk, rouge_score):
        for path in Path(package.__file__).parent.rglob("*"):
            if path.suffix in (".py", ".txt", ".doctest") and path.is_file():
                words.update(re.findall(r"[a-z0-9]+", path.read_text(errors="ignore").lower()))
    rng = np.random.default_rng(0)
    suffix_text = (
        "ational tional enci anci izer bli alli entli eli ousli ization ation ator alism "
        "iveness fulness ousness aliti iviti biliti fulli logi icate ative alize iciti ical "
        "ful ness al ance ence er ic able ible ant ement ment ent sion tion ou ism ate iti "
        "ous ive ize e ll s ies ied ed ing eed y sses ss at bl iz"
    )
    suffixes = suffix_text.split()
    letters = list("abcdefghijklmnopqrstuvwxyz0123456789yyaeiou")
    for _ in range(30_000):
        core = "".join(rng.choice(letters, rng.integers(1, 6)))
        words.add(core + "".join(rng.choice(suffixes, rng.integers(0, 3))))
    return words


def test_porter_stemmer_equals_nltk() -> None:
    porter = pytest.importorskip("nltk.stem.porter")
    reference = porter.PorterStemmer()
    words = _vocabulary()
    assert len(words) > 30_000
    wrong = [(w, stem(w), reference.stem(w)) for w in words if stem(w) != reference.stem(w)]
    assert wrong == []


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("caresses", "caress"),
        ("ponies", "poni"),
        ("ties", "tie"),
        ("dies", "die"),
        ("dying", "die"),
        ("agreed", "agre"),
        ("hopping", "hop"),
        ("filing", "file"),
        ("happy", "happi"),
        ("enjoy", "enjoy"),
        ("relational", "relat"),
        ("generalization", "gener"),
        ("controll", "control"),
        ("skies", "sky"),
        ("archaeology", "archaeolog"),
    ],
)
def test_porter_stemmer_examples(word: str, expected: str) -> None:
    assert stem(word) == expected


# LCS kernels ------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(
    a=st.lists(st.sampled_from("abcd"), max_size=80),
    b=st.lists(st.sampled_from("abcde"), max_size=80),
)
def test_lcs_kernels_match_the_table(a: list[str], b: list[str]) -> None:
    assert lcs_positions(a, b) == rouge_scorer.lcs_ind(a, b)
    table = rouge_scorer._lcs_table(a, b)
    ids = np.array([ord(c) for c in a + b], dtype=np.int64)
    got = lcs_lengths(
        ids, np.array([0]), np.array([len(a)]), np.array([len(a)]), np.array([len(a) + len(b)])
    )
    assert got.tolist() == [table[-1][-1]]


def test_lcs_lengths_with_more_ids_than_code_points() -> None:
    ids = np.array([2_000_000, 5, 7, 5, 2_000_000, 7], dtype=np.int64)
    got = lcs_lengths(ids, np.array([0]), np.array([3]), np.array([3]), np.array([6]))
    assert got.tolist() == [2]


# states -----------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(refs=st.lists(references, min_size=2, max_size=12), data=st.data())
def test_merged_chunks_equal_in_memory(refs: list[Any], data: Any) -> None:
    preds = [data.draw(multiline) for _ in refs]
    cut = data.draw(st.integers(0, len(refs)))
    metric = ROUGE(types=ALL_TYPES, stemmer=True)
    whole = metric.score(refs, preds)
    merged = metric.merge(
        metric.summarize(refs[:cut], preds[:cut]), metric.summarize(refs[cut:], preds[cut:])
    )
    state = pickle.loads(pickle.dumps(merged))
    for t, value in metric.compute(state).items():
        assert tuple(value)[:3] == pytest.approx(tuple(whole[t])[:3], rel=1e-12, abs=1e-15)


def test_states_with_other_settings_do_not_merge() -> None:
    a = ROUGE1().summarize(["a b"], ["a"])
    with pytest.raises(StateMismatchError, match="stemmer"):
        a.merge(ROUGE1(stemmer=True).summarize(["a b"], ["a"]))
    with pytest.raises(StateMismatchError, match="types"):
        a.merge(ROUGEL().summarize(["a b"], ["a"]))
    with pytest.raises(StateMismatchError, match="tokenizer"):
        a.merge(ROUGE1(tokenizer="unicode").summarize(["a b"], ["a"]))


def test_metric_names() -> None:
    for name in ALL_TYPES:
        metric = parse_metric(name)
        assert metric.name == name
        expected = _reference(["the cat sat on the mat"], ["the cat lay on the mat"], [name], False)
        assert metric.score(["the cat sat on the mat"], ["the cat lay on the mat"]) == (
            pytest.approx(expected[0][name].fmeasure, abs=1e-12)
        )
    assert isinstance(parse_metric("rougeLsum"), ROUGELsum)
    assert parse_metric("rouge", types=["rouge3"]).score(["a b c"], ["a b c"])["rouge3"].recall == 1


# bad input --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("refs", "preds", "problem"),
    [
        ([], [], "empty input"),
        (["a"], [], "inputs differ in length"),
        (["a", "b"], ["a"], "inputs differ in length"),
        (None, ["a"], "references is missing"),
        (["a"], None, "predictions is missing"),
        (["a"], "a", "predictions is a single string"),
        ("a", ["a"], "references is a single string"),
        (["a"], [None], "predictions contains None"),
        ([None], ["a"], "references contains None"),
        (["a"], [3], "predictions has a non-string item"),
        ([["a", 3]], ["a"], "references has a non-string item"),
        ([[]], ["a"], "an item has no reference"),
        ([[["a"]]], ["a"], "references has the wrong nesting"),
        ({"q": "a"}, ["a"], "references is a mapping"),
        (np.array([["a", "b"]]), ["a"], "references has the wrong shape"),
        ([1.5], ["a"], "references has a non-string item"),
    ],
)
def test_bad_input(refs: Any, preds: Any, problem: str) -> None:
    with pytest.raises(InputError, match=f"^rouge: {re.escape(problem)}"):
        rouge(refs, preds)
    with pytest.raises(InputError, match=f"^rougeL: {re.escape(problem)}"):
        ROUGEL().score(refs, preds)


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"types": ["rouge10"]}, "unknown ROUGE type"),
        ({"types": ["rougeX"]}, "unknown ROUGE type"),
        ({"types": []}, "no ROUGE type given"),
        ({"types": ["rouge1", "rouge1"]}, "a ROUGE type is given twice"),
        ({"tokenizer": "13a"}, "unknown tokenizer"),
        ({"tokenizer": 5}, "unknown tokenizer"),
        ({"stemmer": "yes"}, "stemmer must be True or False"),
        ({"tokenizer": "none", "stemmer": True}, "stemming needs a built-in word tokenizer"),
        ({"split_sentences": "nltk"}, "split_sentences must be a bool or a callable"),
    ],
)
def test_bad_options(options: dict[str, Any], problem: str) -> None:
    with pytest.raises(ConfigError, match=f"^rouge: {re.escape(problem)}"):
        rouge(["a"], ["a"], **options)


def test_inputs_accept_arrays_and_tuples_and_leave_them_alone() -> None:
    refs = np.array(["the cat", "a dog"], dtype=object)
    preds = ("the cat", "the dog")
    nested = [("the cat", "x"), np.array(["a dog"])]
    a = rouge(refs, preds, types=["rouge1"])
    b = rouge(nested, list(preds), types=["rouge1"])
    assert a == b
    assert refs.tolist() == ["the cat", "a dog"]
