"""ROUGE-W on texts of several lines against rouge-metric's PyRouge (ROUGE-1.5.5)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.core import parse_metric
from scorekit.text.rouge import ROUGEW, rouge

py_rouge = pytest.importorskip("rouge_metric")

# lowercase alphanumeric words: PyRouge's whitespace split and the default tokenizer agree
_line = st.lists(st.sampled_from(["a", "b", "c", "d", "the", "cat", "x1"]), max_size=8).map(
    " ".join
)
_text = st.lists(_line, min_size=1, max_size=4).map("\n".join)


def _pyrouge(refs: list[list[str]], preds: list[str], weight: float) -> np.ndarray:
    scorer = py_rouge.PyRouge(
        rouge_n=(1,), rouge_l=False, rouge_w=True, rouge_w_weight=weight, mode="individual"
    )
    key = f"rouge-w-{weight}"
    return np.array([[e[key]["p"], e[key]["r"], e[key]["f"]] for e in scorer.evaluate(preds, refs)])


def _check(refs: list[list[str]], preds: list[str], weight: float) -> None:
    ours = rouge(refs, preds, types=("rougeW",), weight=weight, per_sample=True)["rougeW"]
    want = _pyrouge(refs, preds, weight)
    assert ours.per_sample is not None
    np.testing.assert_allclose(ours.per_sample, want, rtol=1e-12, atol=1e-12)
    assert ROUGEW(weight=weight).score(refs, preds) == pytest.approx(want[:, 2].mean(), rel=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(_text, _text), min_size=1, max_size=4), st.sampled_from([1.0, 1.2, 2.0]))
def test_multi_line_texts_agree_with_pyrouge(pairs: list[tuple[str, str]], weight: float) -> None:
    _check([[r] for r, _ in pairs], [p for _, p in pairs], weight)


def test_the_example_of_a_two_line_reference() -> None:
    # a run does not continue across the reference's line end, and R divides by
    # f(f(3) + f(4)), not f(f(7))
    refs = [["a b c\nd e a b"]]
    preds = ["a b c d e"]
    _check(refs, preds, 1.2)
    joined = rouge(["a b c d e a b"], preds, types=("rougeW",))["rougeW"]
    split = rouge([r[0] for r in refs], preds, types=("rougeW",))["rougeW"]
    assert split.recall != joined.recall


def test_several_references_take_the_best_one() -> None:
    refs = [["a b\nc d", "a c\nb d x1"], ["the cat\nthe"]]
    preds = ["a b c\nd", "cat the"]
    ours = rouge(refs, preds, types=("rougeW",), per_sample=True)["rougeW"].per_sample
    single = [
        rouge([[r]], [p], types=("rougeW",))["rougeW"]
        for r, p in zip(refs[0], [preds[0]] * 2, strict=True)
    ]
    best = max(single, key=lambda s: s.fmeasure)
    assert ours is not None and ours[0, 2] == best.fmeasure


def test_sentence_splitting_follows_split_sentences() -> None:
    metric = parse_metric("rougeW:split_sentences=true")
    one_line = metric.score(["a b. c d."], ["c d. a b."])
    two_lines = parse_metric("rougeW").score(["a b.\nc d."], ["c d.\na b."])
    assert one_line == pytest.approx(two_lines, rel=1e-12)


def test_table_rounding_follows_rouge_155() -> None:
    # the read-back compares table cells for equality: (x + f(k+1)) - f(k) and
    # x + (f(k+1) - f(k)) round differently here and read back different runs
    _check([["a b b b a"]], ["b b a a b b"], 1.5)
