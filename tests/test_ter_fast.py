"""TER's fast paths against sacrebleu: edits, reference lengths and scores of shift-rich segments.

The shift search sets aside equal first and last words before building its
table, finds candidate shifts from the prediction's edits and counts them
without scoring them when they reach sacrebleu's limit; the metric reads words
without building normalised strings and shares word ids across a batch. Each
must leave every segment's edits, reference length and score as sacrebleu's:
on phrases moved around, repeated words, Unicode and cased words, punctuation
under every option, empty sides, several references and segments whose
lengths lie far apart (outside sacrebleu's band).
"""

from __future__ import annotations

import logging
from itertools import pairwise
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.text import TER
from scorekit.text.ter import _metric as ter_metric
from scorekit.text.ter._tercom import _candidates, _Segment, edit_count

sacrebleu = pytest.importorskip("sacrebleu")
lib_ter = pytest.importorskip("sacrebleu.metrics.lib_ter")
from sacrebleu.metrics import TER as RefTER  # noqa: E402

logging.getLogger("sacrebleu").setLevel(logging.ERROR)

_LETTERS = ["a", "b", "c", "d"]
_UNICODE = ["ä", "中", "ß", "🙂", "Straße", "İstanbul", "ひらがな", "\u0301", "x"]
_CASED = ["The", "the", "THE", "Cat", "cat", "sat", "On", "on", "mat"]
_PUNCT = ["a.", "b,", "(c)", "d!", "it's", "e-f", "&amp;", "3.5", "x?", "“y”", "。", "中文"]
_OPTIONS = st.fixed_dictionaries(
    {
        "normalized": st.booleans(),
        "no_punct": st.booleans(),
        "asian_support": st.booleans(),
        "case_sensitive": st.booleans(),
    }
)


@st.composite
def _shifted(draw: st.DrawFn, vocabulary: list[str], max_size: int = 25) -> tuple[str, str]:
    """A reference and a prediction made of its phrases in another order, then edited."""
    ref = draw(st.lists(st.sampled_from(vocabulary), max_size=max_size))
    cuts = sorted(draw(st.lists(st.integers(0, len(ref)), max_size=4)))
    bounds = [0, *cuts, len(ref)]
    phrases = [ref[a:b] for a, b in pairwise(bounds)]
    order = draw(st.permutations(range(len(phrases))))
    hyp = [w for k in order for w in phrases[k]]
    for _ in range(draw(st.integers(0, 4))):
        op = draw(st.sampled_from(["substitute", "drop", "insert", "repeat"]))
        at = draw(st.integers(0, len(hyp)))
        word = draw(st.sampled_from(vocabulary))
        if op == "insert":
            hyp.insert(at, word)
        elif at < len(hyp):
            if op == "substitute":
                hyp[at] = word
            elif op == "drop":
                del hyp[at]
            else:
                hyp[at:at] = hyp[at : at + draw(st.integers(1, 3))]
    return " ".join(hyp), " ".join(ref)


def _vocabulary_pairs(max_size: int = 25) -> st.SearchStrategy[tuple[str, str]]:
    return st.one_of(
        _shifted(_LETTERS, max_size),
        _shifted(_UNICODE, max_size),
        _shifted(_CASED, max_size),
        _shifted(_PUNCT, max_size),
    )


def _check(refs: list[list[str]], preds: list[str], **options: Any) -> None:
    """Every segment's edits and reference length, and corpus and segment scores, as sacrebleu's."""
    metric = TER(**options)
    edits, lengths, _ = metric.segment_stats(refs, preds)
    expected = [RefTER(**options).sentence_score(p, r) for r, p in zip(refs, preds, strict=True)]
    assert edits == [e.num_edits for e in expected]
    assert lengths == [e.ref_length for e in expected]
    np.testing.assert_allclose(
        100 * metric.segment_scores(refs, preds), [e.score for e in expected], rtol=1e-12, atol=0
    )
    width = max(len(r) for r in refs)
    streams = [[r[i] if i < len(r) else None for r in refs] for i in range(width)]
    corpus = RefTER(**options).corpus_score(preds, streams)
    result = metric.details(refs, preds)
    assert result.num_edits == corpus.num_edits
    assert result.ref_length == corpus.ref_length
    assert 100 * result.score == pytest.approx(corpus.score, rel=1e-12, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(_vocabulary_pairs(), min_size=1, max_size=5), _OPTIONS)
def test_shifted_phrases_equal_sacrebleu(pairs: list[tuple[str, str]], options: Any) -> None:
    _check([[r] for _, r in pairs], [h for h, _ in pairs], **options)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(_vocabulary_pairs(), st.lists(_vocabulary_pairs(), max_size=2)),
        min_size=1,
        max_size=4,
    ),
    st.booleans(),
)
def test_several_references_equal_sacrebleu(
    items: list[tuple[tuple[str, str], list[tuple[str, str]]]], case_sensitive: bool
) -> None:
    """The closest of one to three references; the others are phrases of other segments."""
    preds = [h for (h, _), _ in items]
    refs = [[r, *(other for other, _ in more)] for (_, r), more in items]
    _check(refs, preds, case_sensitive=case_sensitive)


@settings(max_examples=6, deadline=None)
@given(
    st.lists(st.sampled_from(_LETTERS[:3]), min_size=55, max_size=70),
    st.integers(1, 12),
    st.booleans(),
)
def test_lengths_far_apart_equal_sacrebleu(ref: list[str], m: int, reverse: bool) -> None:
    """A far shorter prediction (or reference): cheapest paths leave sacrebleu's band."""
    short = " ".join(ref[::-1][:m])
    long = " ".join(ref)
    refs, preds = ([[short]], [long]) if reverse else ([[long]], [short])
    _check(refs, preds)


@pytest.mark.parametrize(
    ("hyp", "ref"),
    [
        ("", ""),
        ("", "a b"),
        ("a b", ""),
        ("  ", "a"),
        ("a a a a a a a a a a a a", "a a a a a a a a a a a a"),
        ("b a", "a b"),
        ("c d e a b", "a b c d e"),
        ("x a b c", "a b c y"),
        ("the THE the", "The the THE"),
        ("a " * 40 + "b", "b " + "a " * 40),
    ],
)
def test_edge_cases_equal_sacrebleu(hyp: str, ref: str) -> None:
    _check([[ref]], [hyp])
    _check([[ref]], [hyp], case_sensitive=True)


def _ids(hyp: list[str], ref: list[str]) -> tuple[str, str]:
    ids, (ref_ids,) = ter_metric._segment_ids(hyp, [ref], {})
    return ids, ref_ids


def _sacrebleu_candidates(hyp: list[str], ref: list[str]) -> list[tuple[int, int, int]]:
    """The (block start, block length, target) of every shift sacrebleu's search tries first."""
    _, trace = lib_ter.BeamEditDistance(ref)(hyp)
    align, ref_err, hyp_err = lib_ter.trace_to_alignment(lib_ter._flip_trace(trace))
    found = []
    for start_h, start_r, length in lib_ter._find_shifted_pairs(hyp, ref):
        if not any(hyp_err[start_h : start_h + length]):
            continue
        if not any(ref_err[start_r : start_r + length]):
            continue
        if start_h <= align[start_r] < start_h + length:
            continue
        prev = -1
        for offset in range(-1, length):
            idx = 0 if start_r + offset == -1 else align[start_r + offset] + 1
            if idx != prev:
                prev = idx
                found.append((start_h, length, idx))
    return sorted(found)


@settings(max_examples=100, deadline=None)
@given(_vocabulary_pairs(max_size=30))
def test_candidates_are_sacrebleus(pair: tuple[str, str]) -> None:
    """The candidate shifts, repeats included, are the ones sacrebleu's search tries."""
    hyp, ref = (side.split() for side in pair)
    hyp_ids, ref_ids = _ids(hyp, ref)
    if not ref_ids:
        return
    seg = _Segment(ref_ids, len(hyp_ids))
    ours = sorted(_candidates(hyp_ids, ref_ids, seg.where, seg.alignment(hyp_ids)))
    assert ours == _sacrebleu_candidates(hyp, ref)
    assert edit_count(hyp_ids, ref_ids) == lib_ter.translation_edit_rate(hyp, ref)[0]


def test_word_ids_start_again_when_code_points_run_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch with more distinct words than ids left: the table restarts between segments."""
    monkeypatch.setattr(ter_metric, "_CODE_LIMIT", 6)
    rng = np.random.default_rng(1)
    words = [f"w{i}" for i in range(12)]
    refs = [[" ".join(rng.choice(words, 8))] for _ in range(20)]
    preds = [" ".join(rng.permutation(r[0].split())[:7]) for r in refs]
    codes: dict[str, str] = {}
    ter_metric._segment_ids(["a", "b", "c"], [["d", "e"]], codes)
    ter_metric._segment_ids(["f", "g"], [["a"]], codes)
    assert sorted(codes) == ["a", "f", "g"]
    _check(refs, preds)


@settings(max_examples=30, deadline=None)
@given(_vocabulary_pairs(), st.sampled_from([0xD7F0, 0xDFF0, 0x10FFFF - 60]))
def test_word_ids_anywhere_in_the_code_space(pair: tuple[str, str], first: int) -> None:
    """Ids among the surrogates or near the last code point, as a batch of many words gives."""
    hyp, ref = (side.split() for side in pair)
    index = {w: chr(first + k) for k, w in enumerate(dict.fromkeys(hyp + ref))}
    hyp_ids, ref_ids = "".join(index[w] for w in hyp), "".join(index[w] for w in ref)
    assert edit_count(hyp_ids, ref_ids) == lib_ter.translation_edit_rate(hyp, ref)[0]
