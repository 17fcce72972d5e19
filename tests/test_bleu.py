"""BLEU against sacrebleu: tokenizers, corpus and sentence scores, merging, bad input."""

from __future__ import annotations

import logging
import math
import unicodedata
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.errors import ConfigError, InputError, StateMismatchError
from scorekit.text import BLEU, bleu, sentence_bleu
from scorekit.text._tokenize import TOKENIZERS, encode_lines, tokenize

sacrebleu = pytest.importorskip("sacrebleu")
regex = pytest.importorskip("regex")
from sacrebleu.metrics.bleu import _get_tokenizer  # noqa: E402

logging.getLogger("sacrebleu").setLevel(logging.ERROR)

SMOOTHING = ("exp", "floor", "add-k", "none")
_WORDS = ["the", "The", "cat", "sat", "on", "a", "mat", ".", ",", "3.5", "1,000", "e-mail",
          "don't", "&amp;", "x-2", "(", ")", "中文", "北京", "é", "Éa", "ß", "—", "€", "“q”",
          "…", "", "U.S.", "5.", "..", "\t", "\n"]  # fmt: skip


def _same_category_everywhere(c: str) -> bool:
    """The character has the same P/S/N category in Python's and the regex module's tables."""
    return all(
        (regex.match(rf"\p{{{cat}}}", c) is not None) == unicodedata.category(c).startswith(cat)
        for cat in "PSN"
    )


_chars = st.characters(exclude_categories=["Cs"]).filter(_same_category_everywhere)
_words = st.one_of(st.sampled_from(_WORDS), st.text(_chars, max_size=4))
_sentences = st.lists(_words, max_size=10).map(" ".join)


def _sacre(references: list[Any], predictions: list[str], **kwargs: Any) -> Any:
    """sacrebleu's corpus BLEU; our per-prediction references become its reference streams."""
    refs = [[r] if isinstance(r, str) else list(r) for r in references]
    width = max(len(r) for r in refs)
    streams = [[r[j] if j < len(r) else None for r in refs] for j in range(width)]
    return sacrebleu.BLEU(**kwargs).corpus_score(predictions, streams)


def _check(ours: Any, theirs: Any, add_k: float = 0.0) -> None:
    assert math.isclose(ours.score, theirs.score / 100, rel_tol=1e-12, abs_tol=1e-15)
    assert ours.bp == theirs.bp
    assert (ours.hyp_len, ours.ref_len) == (theirs.sys_len, theirs.ref_len)
    # sacrebleu reports add-k counts and totals with k added above order 1 (when any matched)
    k = add_k if any(ours.counts) else 0
    assert [c + (k if i else 0) for i, c in enumerate(ours.counts)] == list(theirs.counts)
    assert [t + (k if i else 0) for i, t in enumerate(ours.totals)] == list(theirs.totals)
    assert len(ours.precisions) == len(theirs.precisions)
    for a, b in zip(ours.precisions, theirs.precisions, strict=True):
        assert math.isclose(a, b / 100, rel_tol=1e-12, abs_tol=1e-15)


# tokenizers --------------------------------------------------------------------------


@pytest.mark.parametrize("name", TOKENIZERS)
@given(line=st.one_of(_sentences, st.text(_chars, max_size=30)), lowercase=st.booleans())
@settings(max_examples=150, deadline=None)
def test_tokenizers_match_sacrebleu(name: str, line: str, lowercase: bool) -> None:
    expected_line = line.lower() if lowercase else line
    expected = _get_tokenizer(name)()(expected_line.rstrip()).split()
    assert tokenize(line, name, lowercase=lowercase) == expected


@pytest.mark.parametrize(
    ("name", "line", "expected"),
    [
        ("13a", "It costs $3.50, or 1,000 yen.", "It costs $ 3.50 , or 1,000 yen ."),
        ("13a", "a&amp;b &lt;x&gt; &quot;q&quot; <skipped>end-\nline", 'a & b < x > " q " endline'),
        ("13a", "1990-2000 e-mail", "1990 - 2000 e-mail"),
        ("intl", "Ça coûte 3,50€ — «vraiment».", "Ça coûte 3,50 € — « vraiment » ."),
        ("intl", "in 2020.", "in 2020."),  # mteval-v14 keeps a dot after a number at the end
        ("zh", "我爱北京。OK, fine", "我 爱 北 京 。 OK , fine"),
        ("zh", "a—b €5", "a — b € 5"),  # U+2014 and U+20AC fall in sacrebleu's zh ranges
        ("zh", "\U00020000x", "\U00020000x"),  # supplementary ideographs are not split off
        ("char", "ab c", "a b c"),
        ("none", "a,b  c.", "a,b c."),
    ],
)
def test_tokenizer_examples(name: str, line: str, expected: str) -> None:
    assert tokenize(line, name) == expected.split()
    assert _get_tokenizer(name)()(line).split() == expected.split()


@pytest.mark.parametrize("name", TOKENIZERS)
@given(lines=st.lists(_sentences, min_size=1, max_size=12))
@settings(max_examples=50, deadline=None)
def test_corpus_tokenization_equals_line_by_line(name: str, lines: list[str]) -> None:
    ids, lengths = encode_lines(lines, name, False)
    per_line = [tokenize(line, name) for line in lines]
    assert lengths.tolist() == [len(t) for t in per_line]
    flat = [t for tokens in per_line for t in tokens]
    seen: dict[str, int] = {}
    for token, i in zip(flat, ids.tolist(), strict=True):
        assert seen.setdefault(token, i) == i
    assert len(set(seen.values())) == len(seen)


def test_corpus_tokenization_with_nul_in_text() -> None:
    lines = ["a\x00b c.", "d e"]
    ids, lengths = encode_lines(lines, "13a", False)
    assert lengths.tolist() == [len(tokenize(s)) for s in lines]
    assert len(ids) == sum(lengths) and ids[0] != ids[1]


# agreement with sacrebleu --------------------------------------------------------------

_refs = st.one_of(_sentences, st.lists(_sentences, min_size=1, max_size=3))


@st.composite
def _corpora(draw: st.DrawFn) -> tuple[list[Any], list[str]]:
    n = draw(st.integers(1, 8))
    references = draw(st.lists(_refs, min_size=n, max_size=n))
    predictions = draw(st.lists(_sentences, min_size=n, max_size=n))
    return references, predictions


@given(
    data=_corpora(),
    tok=st.sampled_from(TOKENIZERS),
    lowercase=st.booleans(),
    smooth=st.sampled_from(SMOOTHING),
    value=st.sampled_from([None, 0.01, 0.5, 1, 2.0]),
    max_order=st.integers(1, 6),
    effective=st.booleans(),
)
@settings(max_examples=60, deadline=None)
def test_corpus_bleu_matches_sacrebleu(
    data: tuple[list[Any], list[str]],
    tok: str,
    lowercase: bool,
    smooth: str,
    value: float | None,
    max_order: int,
    effective: bool,
) -> None:
    references, predictions = data
    if smooth in ("exp", "none"):
        value = None
    if smooth == "floor" and value is not None:
        value = min(value, 1.0)
    ours = bleu(
        references,
        predictions,
        tokenize=tok,  # type: ignore[arg-type]
        lowercase=lowercase,
        smooth=smooth,  # type: ignore[arg-type]
        smooth_value=value,
        max_order=max_order,
        effective_order=effective,
    )
    theirs = _sacre(
        references,
        predictions,
        tokenize=tok,
        lowercase=lowercase,
        smooth_method=smooth,
        smooth_value=value,
        max_ngram_order=max_order,
        effective_order=effective,
    )
    k = (1 if value is None else value) if smooth == "add-k" else 0.0
    _check(ours, theirs, add_k=k)


@given(
    refs=_refs,
    pred=_sentences,
    tok=st.sampled_from(TOKENIZERS),
    smooth=st.sampled_from(SMOOTHING),
    effective=st.booleans(),
)
@settings(max_examples=150, deadline=None)
def test_sentence_bleu_matches_sacrebleu(
    refs: Any, pred: str, tok: str, smooth: str, effective: bool
) -> None:
    ours = sentence_bleu(refs, pred, tokenize=tok, smooth=smooth, effective_order=effective)  # type: ignore[arg-type]
    theirs = sacrebleu.sentence_bleu(
        pred,
        [refs] if isinstance(refs, str) else refs,
        tokenize=tok,
        smooth_method=smooth,
        use_effective_order=effective,
    )
    _check(ours, theirs, add_k=1 if smooth == "add-k" else 0)


def test_sentence_bleu_defaults_to_effective_order() -> None:
    ours = sentence_bleu("the cat sat on a mat", "the cat sat")
    theirs = sacrebleu.sentence_bleu("the cat sat", ["the cat sat on a mat"])
    _check(ours, theirs)
    assert ours.signature.startswith("nrefs:1|case:mixed|eff:yes|tok:13a|smooth:exp|")
    assert ours.score > 0


def test_unicode_corpora() -> None:
    zh_refs = ["我爱北京天安门。", "今天天气很好，我们去公园。"]
    zh_preds = ["我爱北京。", "今天天气好，我们去公园吧。"]
    _check(bleu(zh_refs, zh_preds, tokenize="zh"), _sacre(zh_refs, zh_preds, tokenize="zh"))
    fr_refs = [["Élève, déjà là!", "L'élève est là."], "Ça coûte 3,50€."]
    fr_preds = ["L'élève est déjà là!", "Ça coûte 3,50 €."]
    for tok in ("intl", "13a", "char"):
        for lowercase in (False, True):
            _check(
                bleu(fr_refs, fr_preds, tokenize=tok, lowercase=lowercase),  # type: ignore[arg-type]
                _sacre(fr_refs, fr_preds, tokenize=tok, lowercase=lowercase),
            )


def test_large_random_corpus_matches_sacrebleu() -> None:
    rng = np.random.default_rng(5)
    vocab = np.array([f"w{i}" for i in range(300)] + [",", ".", "3.5", "(", ")"])
    refs: list[Any] = []
    preds: list[str] = []
    for i in range(2000):
        ref = rng.choice(vocab, rng.integers(0, 30))
        pred = np.where(rng.random(len(ref)) < 0.7, ref, rng.choice(vocab, len(ref)))
        second = " ".join(rng.choice(vocab, rng.integers(1, 20)))
        refs.append(" ".join(ref) if i % 3 else [" ".join(ref), second])
        preds.append(" ".join(pred[: len(pred) - rng.integers(0, 3)]))
    _check(bleu(refs, preds), _sacre(refs, preds))
    _check(bleu(refs, preds, max_order=2), _sacre(refs, preds, max_ngram_order=2))


def test_empty_hypotheses_are_defined() -> None:
    r = bleu(["a b c", "d"], ["", ""])
    _check(r, _sacre(["a b c", "d"], ["", ""]))
    assert (r.score, r.bp, r.hyp_len, r.ref_len, r.totals) == (0.0, 0.0, 0, 4, (0, 0, 0, 0))
    both = bleu([""], [""])
    _check(both, _sacre([""], [""]))
    assert (both.score, both.bp, both.ratio) == (0.0, 1.0, 0.0)
    r = sentence_bleu("", "a b")
    assert (r.score, r.bp, r.ratio, r.ref_len) == (0.0, 1.0, 0.0, 0)


# the worked example, clipping and weights -------------------------------------------------


def test_worked_example_clipping() -> None:
    clipped = bleu(["the dog"], ["the the the"], max_order=1)
    unclipped = bleu(["the dog"], ["the the the"], max_order=1, clip=False)
    assert clipped.precisions == (1 / 3,)
    assert unclipped.precisions == (1.0,)
    assert clipped.counts == (1,) and unclipped.counts == (3,)
    assert "clip:no" in unclipped.signature and "clip" not in clipped.signature


def test_unclipped_counts_every_ngram_found_in_a_reference() -> None:
    r = bleu([["a b", "b b"]], ["b b b a"], clip=False, smooth="none", max_order=2)
    # unigrams b, b, b, a all occur in a reference; bigrams "b b" x2 do, "b a" does not
    assert r.counts == (4, 2) and r.totals == (4, 3)


def test_weights() -> None:
    refs, preds = ["the cat sat on a mat"], ["the cat sat on the mat"]
    plain = bleu(refs, preds)
    uniform = bleu(refs, preds, weights=[1, 1, 1, 1])
    assert math.isclose(uniform.score, plain.score, rel_tol=1e-14)
    first = bleu(refs, preds, weights=(1, 0, 0, 0))
    assert math.isclose(first.score, first.bp * first.precisions[0], rel_tol=1e-14)
    skewed = bleu(refs, preds, weights=(0.5, 0.3, 0.1, 0.1))
    logs = [math.log(p) for p in skewed.precisions]
    expected = skewed.bp * math.exp(
        sum(w * v for w, v in zip((0.5, 0.3, 0.1, 0.1), logs, strict=True))
    )
    assert math.isclose(skewed.score, expected, rel_tol=1e-12)
    assert "weights:0.5,0.3,0.1,0.1" in skewed.signature


def test_multi_reference_closest_length_prefers_shorter_on_ties() -> None:
    r = bleu([["a b", "a b c d"]], ["a b c"])
    assert r.ref_len == 2
    assert r.ref_len == _sacre([["a b", "a b c d"]], ["a b c"]).ref_len


def test_signature() -> None:
    r = bleu([["a b", "c"], "d"], ["a", "d"], smooth="add-k", lowercase=True)
    assert r.signature.startswith("nrefs:var|case:lc|eff:no|tok:13a|smooth:add-k[1.00]|")
    assert r.signature.endswith("|version:scorekit-" + __import__("scorekit").__version__)
    r = bleu(["a"], ["a"], tokenize="intl", smooth="floor", smooth_value=0.2, max_order=2)
    assert "|tok:intl|smooth:floor[0.20]|order:2|" in r.signature
    assert float(r) == r.score


# merging ---------------------------------------------------------------------------------


@given(data=_corpora(), cut=st.integers(0, 8), tok=st.sampled_from(TOKENIZERS))
@settings(max_examples=60, deadline=None)
def test_merged_chunks_equal_in_memory(
    data: tuple[list[Any], list[str]], cut: int, tok: str
) -> None:
    references, predictions = data
    metric = BLEU(tokenize=tok)  # type: ignore[arg-type]
    whole = metric.summarize(references, predictions)
    a = metric.summarize(references[:cut], predictions[:cut])
    b = metric.summarize(references[cut:], predictions[cut:])
    merged = metric.merge(a, b)
    assert merged.equals(whole)
    assert metric.result(merged) == metric.result(whole)


def test_streamed_corpus_equals_in_memory() -> None:
    rng = np.random.default_rng(1)
    vocab = np.array(["a", "b", "c", "d", ".", ","])
    refs = [" ".join(rng.choice(vocab, rng.integers(0, 12))) for _ in range(500)]
    preds = [" ".join(rng.choice(vocab, rng.integers(0, 12))) for _ in range(500)]
    metric = BLEU()
    state = metric.empty()
    for lo in range(0, 500, 37):
        state = metric.update(state, refs[lo : lo + 37], preds[lo : lo + 37])
    assert state.equals(metric.summarize(refs, preds))
    assert metric.compute(state) == bleu(refs, preds).score


def test_states_with_other_settings_do_not_merge() -> None:
    a = BLEU().summarize(["a b"], ["a b"])
    b = BLEU(tokenize="char").summarize(["a b"], ["a b"])
    with pytest.raises(StateMismatchError, match="tokenize"):
        a.merge(b)
    with pytest.raises(InputError, match="bleu: the state was counted with another tokenize"):
        BLEU().result(b)


# bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("references", "predictions", "problem"),
    [
        ([], [], "empty input"),
        (["a"], [], "references and predictions differ in length"),
        (["a", "b"], ["a"], "references and predictions differ in length"),
        ([["a"]], ["a", "b"], "references and predictions differ in length"),
        ([["a"], []], ["a", "b"], "a prediction has an empty reference list"),
        (["a", None], ["a", "b"], "references contain None"),
        ([["a", None]], ["a"], "references contain None"),
        (["a"], [None], "predictions contain None"),
        (None, ["a"], "references is missing"),
        (["a"], None, "predictions is missing"),
        (["a"], [3], "a prediction is not a string"),
        ([3], ["a"], "a reference is not a string"),
        ([["a", 3]], ["a"], "a reference is not a string"),
        ([[["a"]]], ["a"], "references are nested too deeply"),
        ("a b", ["a b"], "references is a single string"),
        (["a b"], "a b", "predictions is a single string"),
        (["a"], {"a"}, "predictions is not a sequence"),
    ],
)
def test_bad_input(references: Any, predictions: Any, problem: str) -> None:
    with pytest.raises(InputError, match=f"^bleu: {problem}"):
        bleu(references, predictions)


def test_transposed_reference_streams_get_a_hint() -> None:
    with pytest.raises(InputError, match=r"zip\(\*streams\)"):
        bleu([["r1", "r2", "r3"]], ["p1", "p2", "p3"])


@pytest.mark.parametrize(
    ("references", "prediction", "problem"),
    [
        ([], "a", "references is empty"),
        (None, "a", "references is missing"),
        ("a", None, "prediction is missing"),
        ("a", ["a"], "prediction is not a string"),
        ([["a"]], "a", "references are nested too deeply"),
    ],
)
def test_sentence_bleu_bad_input(references: Any, prediction: Any, problem: str) -> None:
    with pytest.raises(InputError, match=f"bleu: {problem}"):
        sentence_bleu(references, prediction)


@pytest.mark.parametrize(
    ("kwargs", "problem"),
    [
        ({"tokenize": "moses"}, "unknown tokenize"),
        ({"smooth": "laplace"}, "unknown smooth"),
        ({"smooth": "exp", "smooth_value": 0.1}, "smooth='exp' takes no smooth_value"),
        ({"smooth": "floor", "smooth_value": 1.5}, "invalid smooth_value"),
        ({"smooth": "floor", "smooth_value": -1}, "invalid smooth_value"),
        ({"smooth": "floor", "smooth_value": math.nan}, "invalid smooth_value"),
        ({"max_order": 0}, "invalid max_order"),
        ({"max_order": 2.5}, "invalid max_order"),
        ({"weights": (1, 1)}, "weights need one value per order"),
        ({"weights": (1, -1, 1, 1)}, "invalid weights"),
        ({"weights": (0, 0, 0, 0)}, "invalid weights"),
        ({"weights": ("a", 1, 1, 1)}, "weights must be numbers"),
        ({"lowercase": "yes"}, "lowercase must be a bool"),
    ],
)
def test_bad_config(kwargs: dict[str, Any], problem: str) -> None:
    with pytest.raises(ConfigError, match=f"^bleu: {problem}"):
        BLEU(**kwargs)


def test_accepts_numpy_and_tuples() -> None:
    refs = np.array(["the cat sat", "a dog"])
    preds = ("the cat sat", "a dog ran")
    assert bleu(refs, preds) == bleu(list(refs), list(preds))
    assert bleu([("a b", "c d")], ["a b"]) == bleu([["a b", "c d"]], ["a b"])


def test_registry_name_and_variants() -> None:
    from scorekit import parse_metric

    metric = parse_metric("bleu:char")
    assert isinstance(metric, BLEU) and metric.tokenize == "char"
    assert parse_metric("bleu").score(["a b c d"], ["a b c d"]) == 1.0
