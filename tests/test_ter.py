# ruff: noqa: E501  (sacrebleu's test sentences are long lines)
"""TER against sacrebleu 2.x: corpus and sentence scores, options, signatures, bad input."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.errors import ConfigError, InputError, StateMismatchError
from scorekit.text import TER, sentence_ter, ter
from scorekit.text.ter._tercom import _band_distance, _exact_bound

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import TER as RefTER  # noqa: E402

_WORDS = ["the", "The", "cat", "sat", "on", "a", "mat", ".", ",", "'s", "&amp;", "3.5", "e-mail",
          "中文", "ひらがな", "。", "（", "", "\n-", "?", "x"]  # fmt: skip
_words = st.one_of(st.sampled_from(_WORDS), st.text(max_size=3))
_sentences = st.lists(_words, max_size=12).map(" ".join)
_OPTIONS = st.fixed_dictionaries(
    {
        "normalized": st.booleans(),
        "no_punct": st.booleans(),
        "asian_support": st.booleans(),
        "case_sensitive": st.booleans(),
    }
)


def _check(refs: list[list[str]], preds: list[str], **options: Any) -> None:
    width = max(len(r) for r in refs)
    streams = [[r[i] if i < len(r) else None for r in refs] for i in range(width)]
    metric = RefTER(**options)
    expected = metric.corpus_score(preds, streams)
    ours = TER(**options)
    result = ours.details(refs, preds)
    assert result.num_edits == expected.num_edits
    assert result.ref_length == expected.ref_length
    assert 100 * result.score == pytest.approx(expected.score, rel=1e-12, abs=1e-12)
    signature = str(metric.get_signature())
    assert result.signature.rsplit("|version:", 1)[0] == signature.rsplit("|version:", 1)[0]
    each = [RefTER(**options).sentence_score(p, r).score for r, p in zip(refs, preds, strict=True)]
    np.testing.assert_allclose(100 * ours.segment_scores(refs, preds), each, rtol=1e-12, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(st.lists(_sentences, min_size=1, max_size=3), _sentences), min_size=1, max_size=5
    ),
    _OPTIONS,
)
def test_equals_sacrebleu_on_random_corpora(pairs: list[Any], options: dict[str, Any]) -> None:
    _check([r for r, _ in pairs], [p for _, p in pairs], **options)


@settings(max_examples=8, deadline=None)
@given(st.data())
def test_shifts_on_small_vocabularies(data: st.DataObject) -> None:
    words = st.lists(st.sampled_from("abcd"), max_size=30).map(" ".join)
    pairs = data.draw(st.lists(st.tuples(words, words), min_size=1, max_size=4))
    _check([[r] for r, _ in pairs], [p for _, p in pairs])


def test_long_segments_outside_the_band_and_the_candidate_limit() -> None:
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(30)]
    # lengths far apart: the band, not the whole table (a rich vocabulary keeps shifts few)
    refs = [" ".join(rng.choice(words, 45)), " ".join(rng.choice(words, 6))]
    preds = [" ".join(rng.choice(words, 6)), " ".join(rng.choice(words, 45))]
    # four words over 38 positions: the search stops at 1,000 candidate shifts
    refs.append(" ".join(rng.choice(list("abcd"), 38)))
    preds.append(" ".join(rng.choice(list("abcd"), 38)))
    _check([[r] for r in refs], preds)
    assert _exact_bound(6, 45) < 0 <= _exact_bound(28, 30)


def test_band_distance_is_levenshtein_within_the_bound() -> None:
    from rapidfuzz.distance import Levenshtein

    rng = np.random.default_rng(5)
    for _ in range(30):
        ref = "".join(rng.choice(list("abc"), rng.integers(0, 60)))
        hyp = "".join(rng.choice(list("abc"), rng.integers(0, 60)))
        d = Levenshtein.distance(hyp, ref)
        if d <= _exact_bound(len(hyp), len(ref)):
            assert _band_distance(hyp, ref, trace=False)[0] == d


# sacrebleu's test cases (test/test_ter.py): predictions, references, its TER
SACREBLEU_CASES = [
    (["aaaa bbbb cccc dddd"], ["aaaa bbbb cccc dddd"], 0),
    (["dddd eeee ffff"], ["aaaa bbbb cccc"], 1),
    ([""], ["a"], 1),
    (["d e f g h a b c"], ["a b c d e f g h"], 1 / 8),
    (['wählen Sie " Bild neu berechnen , " um beim Ändern der Bildgröße Pixel hinzuzufügen oder zu entfernen , damit das Bild ungefähr dieselbe Größe aufweist wie die andere Größe .',
      'wenn Sie alle Aufgaben im aktuellen Dokument aktualisieren möchten , wählen Sie im Menü des Aufgabenbedienfelds die Option " Alle Aufgaben aktualisieren . "',
      'klicken Sie auf der Registerkarte " Optionen " auf die Schaltfläche " Benutzerdefiniert " und geben Sie Werte für " Fehlerkorrektur-Level " und " Y / X-Verhältnis " ein .',
      "Sie können beispielsweise ein Dokument erstellen , das ein Auto über die Bühne enthält .",
      'wählen Sie im Dialogfeld " Neu aus Vorlage " eine Vorlage aus und klicken Sie auf " Neu . "'],
     ['wählen Sie " Bild neu berechnen , " um beim Ändern der Bildgröße Pixel hinzuzufügen oder zu entfernen , damit die Darstellung des Bildes in einer anderen Größe beibehalten wird .',
      'wenn Sie alle Aufgaben im aktuellen Dokument aktualisieren möchten , wählen Sie im Menü des Aufgabenbedienfelds die Option " Alle Aufgaben aktualisieren . "',
      'klicken Sie auf der Registerkarte " Optionen " auf die Schaltfläche " Benutzerdefiniert " und geben Sie für " Fehlerkorrektur-Level " und " Y / X-Verhältnis " niedrigere Werte ein .',
      "Sie können beispielsweise ein Dokument erstellen , das ein Auto enthalt , das sich über die Bühne bewegt .",
      'wählen Sie im Dialogfeld " Neu aus Vorlage " eine Vorlage aus und klicken Sie auf " Neu . "'],
     0.136),
]  # fmt: skip


@pytest.mark.parametrize(("preds", "refs", "score"), SACREBLEU_CASES)
def test_equals_sacrebleus_test_cases(preds: list[str], refs: list[str], score: float) -> None:
    assert ter(refs, preds).score == pytest.approx(score, abs=1e-5)
    _check([[r] for r in refs], preds)
    for options in ({"normalized": True}, {"no_punct": True, "case_sensitive": True}):
        _check([[r] for r in refs], preds, **options)
    for ref, pred in zip(refs, preds, strict=True):
        expected = RefTER().sentence_score(pred, [ref]).score
        assert 100 * sentence_ter(ref, pred).score == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_chunks_merge_to_the_corpus_value() -> None:
    refs = [["the cat sat", "a cat sat down"], "a dog", "x y", "w"]
    preds = ["the cat sat down", "a dog", "y x", "w w"]
    metric = TER()
    merged = metric.merge(
        metric.summarize(refs[:2], preds[:2]), metric.summarize(refs[2:], preds[2:])
    )
    assert metric.compute(merged) == pytest.approx(metric.score(refs, preds), rel=1e-15)
    assert metric.result(merged).signature.startswith("nrefs:var|")
    assert ter(refs, preds).num_edits == merged.edits
    with pytest.raises(StateMismatchError):
        metric.merge(merged, TER(case_sensitive=True).summarize(refs, preds))


@pytest.mark.parametrize(
    ("refs", "preds", "problem"),
    [
        (["a", "b"], ["a"], "differ in length"),
        (["a"], [None], "None"),
        ([None], ["a"], "None"),
        ([[]], ["a"], "empty"),
        ([], [], "empty input"),
    ],
)
def test_bad_input_names_the_problem(refs: Any, preds: Any, problem: str) -> None:
    with pytest.raises(InputError, match=problem):
        TER().score(refs, preds)


def test_bad_options_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="ter: normalized"):
        TER(normalized="yes")  # type: ignore[arg-type]
