"""WER, CER, MER, WIL and WIP against jiwer: corpus and per-utterance values, bad input."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.core import parse_metric
from scorekit.errors import ConfigError, InputError, StateMismatchError
from scorekit.text import CER, MER, WER, WIL, WIP, cer, error_rates, mer, wer, wil, wip

jiwer = pytest.importorskip("jiwer")

_WORDS = ["the", "The", "cat", "sat", "a", "", " ", "  ", "\t", "\n", "don't", "it's",
          "[noise]", "<unk>", "we'll", "中文", "é", "x"]  # fmt: skip
_words = st.one_of(st.sampled_from(_WORDS), st.text(max_size=3))
_texts = st.lists(_words, max_size=8).map(" ".join)
_MEASURES = {"wer": (WER, jiwer.wer), "mer": (MER, jiwer.mer), "wil": (WIL, jiwer.wil),
             "wip": (WIP, jiwer.wip), "cer": (CER, jiwer.cer)}  # fmt: skip
_CER_NORMALIZE = jiwer.Compose(
    [
        jiwer.ToLowerCase(),
        jiwer.RemoveMultipleSpaces(),
        jiwer.Strip(),
        jiwer.ReduceToListOfListOfChars(),
    ]
)


def _jiwer(name: str, refs: list[str], preds: list[str], normalize: bool) -> float:
    fn = _MEASURES[name][1]
    if not normalize:
        return float(fn(refs, preds))
    transform = _CER_NORMALIZE if name == "cer" else jiwer.wer_standardize
    return float(fn(refs, preds, reference_transform=transform, hypothesis_transform=transform))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_texts, _texts), min_size=1, max_size=6), st.booleans())
def test_equals_jiwer_on_random_texts(pairs: list[tuple[str, str]], normalize: bool) -> None:
    refs = [r for r, _ in pairs]
    preds = [p for _, p in pairs]
    for name, (cls, _) in _MEASURES.items():
        metric = cls(normalize=normalize)
        expected = _jiwer(name, refs, preds, normalize)
        assert metric.score(refs, preds) == pytest.approx(expected, rel=1e-12, abs=1e-15), name
        per = metric.segment_values(refs, preds)
        each = [_jiwer(name, [r], [p], normalize) for r, p in zip(refs, preds, strict=True)]
        np.testing.assert_allclose(per, each, rtol=1e-12, atol=1e-15, err_msg=name)


def test_counts_and_per_utterance_values_equal_process_words() -> None:
    refs = ["the cat sat on the mat", "b a", "", "one two three"]
    preds = ["the cat sit on mat", "a b", "extra words", "one two three"]
    ours = error_rates(refs, preds)
    ref = jiwer.process_words(refs, preds)
    assert (ours.hits, ours.substitutions, ours.deletions, ours.insertions) == (
        ref.hits,
        ref.substitutions,
        ref.deletions,
        ref.insertions,
    )
    assert (ours.wer, ours.mer, ours.wil, ours.wip) == pytest.approx(
        (ref.wer, ref.mer, ref.wil, ref.wip), rel=1e-12
    )
    assert ours.per_utterance["wer"].tolist()[2] == 2.0  # empty reference: the insertions
    chars = error_rates(refs, preds, unit="char")
    assert chars.wer == pytest.approx(jiwer.cer(refs, preds), rel=1e-12)


def test_functions_and_names() -> None:
    refs, preds = ["the cat sat", "a dog"], ["the cat sit", "a dog barks"]
    assert wer(refs, preds) == pytest.approx(jiwer.wer(refs, preds), rel=1e-12)
    assert cer(refs, preds) == pytest.approx(jiwer.cer(refs, preds), rel=1e-12)
    assert mer(refs, preds) == pytest.approx(jiwer.mer(refs, preds), rel=1e-12)
    assert wil(refs, preds) == pytest.approx(jiwer.wil(refs, preds), rel=1e-12)
    assert wip(refs, preds) == pytest.approx(jiwer.wip(refs, preds), rel=1e-12)
    assert parse_metric("wer:normalize=true").normalize is True
    assert wer(["It's [noise] OK"], ["it is ok"], normalize=True) == 0.0


@settings(max_examples=40, deadline=None)
@given(_texts, _texts, st.booleans())
def test_two_single_strings_are_one_pair_as_in_jiwer(ref: str, pred: str, normalize: bool) -> None:
    functions = {"wer": wer, "cer": cer, "mer": mer, "wil": wil, "wip": wip}
    for name, fn in functions.items():
        expected = _jiwer(name, [ref], [pred], normalize)
        assert fn(ref, pred, normalize=normalize) == pytest.approx(expected, rel=1e-12)
        assert fn(ref, pred, normalize=normalize) == fn([ref], [pred], normalize=normalize)
    if not normalize:
        assert wer(ref, pred) == pytest.approx(float(jiwer.wer(ref, pred)), rel=1e-12)


def test_a_single_string_pair_worked_example() -> None:
    assert wer("the cat sat", "the cat sit") == pytest.approx(1 / 3, rel=1e-12)
    assert float(jiwer.wer("the cat sat", "the cat sit")) == pytest.approx(1 / 3, rel=1e-12)
    assert cer("abcd", "abxd") == 0.25
    assert WER().segment_values("a b", "a x").tolist() == [0.5]
    r = error_rates("the cat sat", "the cat sit")
    assert (r.hits, r.substitutions, r.per_utterance["wer"].tolist()) == (2, 1, [1 / 3])


def test_several_references_take_the_one_of_fewest_edits() -> None:
    refs = [["a b c d", "a x c", "a b c"], ["q"]]
    preds = ["a b c", "q"]
    assert WER().segment_values(refs, preds).tolist() == [0.0, 0.0]
    assert WER().score([["x y", "z w"]], ["a b"]) == 1.0


def test_many_distinct_words_take_the_list_path(monkeypatch: pytest.MonkeyPatch) -> None:
    from scorekit.text.wer import _count

    refs, preds = ["a b c d e", "f g h"], ["a x c d", "f g h i j"]
    expected = [WER().segment_values(refs, preds), MER().score(refs, preds)]
    monkeypatch.setattr(_count, "_MAX_ID", 3)  # more distinct words than code points
    assert isinstance(_count.units(refs, "word", False)[0], list)
    np.testing.assert_array_equal(WER().segment_values(refs, preds), expected[0])
    assert MER().score(refs, preds) == expected[1]


def test_chunks_merge_to_the_corpus_value() -> None:
    refs = ["a b c", "d e", "", "f"]
    preds = ["a c", "d e f", "g", "f"]
    metric = MER()
    merged = metric.merge(
        metric.summarize(refs[:2], preds[:2]), metric.summarize(refs[2:], preds[2:])
    )
    assert metric.compute(merged) == metric.score(refs, preds)
    with pytest.raises(StateMismatchError):
        metric.merge(merged, CER().summarize(refs, preds))


@pytest.mark.parametrize(
    ("refs", "preds", "problem"),
    [
        (["a", "b"], ["a"], "differ in length"),
        (["a"], [None], "None"),
        ([None], ["a"], "None"),
        ([[]], ["a"], "empty"),
        ([], [], "empty input"),
        ("a", ["a"], "references is a single string but predictions is not"),
        (["a"], "a", "predictions is a single string but references is not"),
    ],
)
def test_bad_input_names_the_problem(refs: Any, preds: Any, problem: str) -> None:
    with pytest.raises(InputError, match=problem):
        WER().score(refs, preds)


def test_bad_options_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="normalize"):
        WER(normalize="yes")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="unit"):
        error_rates(["a"], ["a"], unit="phoneme")
