"""TER's shift search and alignment of one segment against sacrebleu's own functions.

The alignment is read from bit-parallel rows and the candidate shifts are pruned
by the positions of the next edits (:mod:`scorekit.text.ter._tercom`); both must
give what sacrebleu's banded edit distance, trace and shift search give, on
random word sequences: small vocabularies (many repeated words and shifts),
Unicode words, empty sides, lengths far apart (outside sacrebleu's band) and
segments that reach the limit of 1,000 candidate shifts.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.text.ter._tercom import _MAX_SHIFT_CANDIDATES, _best_shift, _Segment, edit_count

lib_ter = pytest.importorskip("sacrebleu.metrics.lib_ter")

_VOCABULARY = ["a", "b", "c", "ä", "中", "ß", "🙂", "\u0301", "the", "x y"]
_small = st.lists(st.sampled_from(_VOCABULARY[:3]), max_size=30)
_any = st.lists(st.sampled_from(_VOCABULARY), max_size=30)
_words = st.one_of(_small, _any, st.lists(st.text(max_size=2), max_size=12))


def _ids(hyp: list[str], ref: list[str]) -> tuple[str, str]:
    """The two word lists as strings of word-id code points, as TER's metric writes them."""
    index: dict[str, str] = {}
    codes = ["".join(index.setdefault(w, chr(len(index))) for w in side) for side in (hyp, ref)]
    return codes[0], codes[1]


def _next_edits(flags: list[int]) -> list[int]:
    """Per position, the first position from there on with an edit (else the length)."""
    return [
        next((k for k in range(i, len(flags)) if flags[k]), len(flags))
        for i in range(len(flags) + 1)
    ]


def _sacrebleu_alignment(
    hyp: list[str], ref: list[str]
) -> tuple[int, list[int], list[int], list[int]]:
    distance, trace = lib_ter.BeamEditDistance(ref)(hyp)
    align, ref_err, hyp_err = lib_ter.trace_to_alignment(lib_ter._flip_trace(trace))
    return distance, [align[k] for k in range(len(ref))], _next_edits(hyp_err), _next_edits(ref_err)


@settings(max_examples=200, deadline=None)
@given(_words, st.lists(st.sampled_from(_VOCABULARY[:3]), min_size=1, max_size=30))
def test_alignment_equals_sacrebleus_trace(hyp: list[str], ref: list[str]) -> None:
    hyp_ids, ref_ids = _ids(hyp, ref)
    assert _Segment(ref_ids, len(hyp_ids)).aligned(hyp_ids) == _sacrebleu_alignment(hyp, ref)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.sampled_from(_VOCABULARY[:4]), min_size=60, max_size=90),
    st.integers(1, 20),
)
def test_alignment_outside_the_band_equals_sacrebleus(ref: list[str], m: int) -> None:
    """Far shorter predictions than references: cheapest paths leave sacrebleu's band."""
    hyp = ref[::-1][:m]
    hyp_ids, ref_ids = _ids(hyp, ref)
    seg = _Segment(ref_ids, len(hyp_ids))
    assert seg.aligned(hyp_ids) == _sacrebleu_alignment(hyp, ref)


@settings(max_examples=150, deadline=None)
@given(_words, st.one_of(_small, _any))
def test_edit_count_equals_sacrebleu(hyp: list[str], ref: list[str]) -> None:
    hyp_ids, ref_ids = _ids(hyp, ref)
    assert edit_count(hyp_ids, ref_ids) == lib_ter.translation_edit_rate(hyp, ref)[0]


def _checked(hyp_ids: str, ref_ids: str) -> int:
    """The candidate shifts the whole search of one segment checks."""
    seg = _Segment(ref_ids, len(hyp_ids))
    checked = 0
    while True:
        gain, hyp_ids, checked = _best_shift(hyp_ids, ref_ids, seg, checked)
        if checked >= _MAX_SHIFT_CANDIDATES or gain <= 0:
            return checked


@pytest.mark.parametrize("seed", range(2))
def test_edit_count_at_the_candidate_limit_equals_sacrebleu(seed: int) -> None:
    """Long segments of two words: the search stops at 1,000 candidates, as sacrebleu's."""
    rnd = random.Random(seed)
    ref = [rnd.choice("ab") for _ in range(60 + 10 * seed)]
    hyp = [rnd.choice("ab") for _ in range(60 + 15 * seed)]
    hyp_ids, ref_ids = _ids(hyp, ref)
    assert _checked(hyp_ids, ref_ids) >= _MAX_SHIFT_CANDIDATES
    assert edit_count(hyp_ids, ref_ids) == lib_ter.translation_edit_rate(hyp, ref)[0]


@pytest.mark.parametrize(
    ("hyp", "ref", "edits"),
    [
        ([], ["a"], 1),
        (["a"], [], 1),
        ([], [], 0),
        (["a", "b", "c", "d"], ["c", "d", "a", "b"], 1),
        (["a"] * 12, ["a"] * 12, 0),
        (["中", "ä", "中"], ["ä", "中", "中"], 1),
    ],
)
def test_edge_cases_equal_sacrebleu(hyp: list[str], ref: list[str], edits: int) -> None:
    hyp_ids, ref_ids = _ids(hyp, ref)
    assert edit_count(hyp_ids, ref_ids) == lib_ter.translation_edit_rate(hyp, ref)[0] == edits
