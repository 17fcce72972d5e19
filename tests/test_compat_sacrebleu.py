"""scorekit.compat.sacrebleu against sacrebleu: scores, fields, printed forms and signatures."""

from __future__ import annotations

from typing import Any

import pytest
import sacrebleu as reference
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.compat import sacrebleu as compat
from scorekit.errors import ConfigError, InputError

_WORDS = [
    "the", "The", "cat", "sat", "on", "mat", "a", "dog", ",", ".", "'s", "naïve", "Straße",
    "日本語", "東京", "ǅemal", "İstanbul", "ﬁne", "&amp;", "e.g.", "3.14", "-", "Ωμέγα", "🙂",
]  # fmt: skip
_sentence = st.one_of(
    st.lists(st.sampled_from(_WORDS), max_size=8).map(" ".join),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12),
)


@st.composite
def _corpus(draw: st.DrawFn, max_refs: int = 2) -> tuple[list[str], list[list[str]]]:
    n = draw(st.integers(1, 4))
    hyps = draw(st.lists(_sentence, min_size=n, max_size=n))
    streams = draw(st.integers(1, max_refs))
    refs = [draw(st.lists(_sentence, min_size=n, max_size=n)) for _ in range(streams)]
    return hyps, refs


def _version_free(signature: Any) -> str:
    return str(signature).rsplit("|version:", 1)[0]


def _same_bleu(got: compat.BLEUScore, want: Any) -> None:
    assert got.score == pytest.approx(want.score, rel=1e-12, abs=1e-12)
    assert (got.counts, got.totals) == (want.counts, want.totals)
    assert got.precisions == want.precisions
    assert (got.bp, got.sys_len, got.ref_len, got.ratio) == (
        want.bp,
        want.sys_len,
        want.ref_len,
        want.ratio,
    )
    assert str(got) == str(want)
    assert got.format(width=1, signature="nrefs:1") == want.format(width=1, signature="nrefs:1")
    assert got.format(score_only=True) == want.format(score_only=True)


_BLEU_OPTIONS = st.fixed_dictionaries(
    {
        "smooth_method": st.sampled_from(["exp", "floor", "add-k", "none"]),
        "lowercase": st.booleans(),
        "tokenize": st.sampled_from(["13a", "intl", "char", "zh", "none"]),
        "use_effective_order": st.booleans(),
    }
)


@settings(max_examples=40, deadline=None)
@given(_corpus(), _BLEU_OPTIONS)
def test_corpus_bleu(corpus: tuple[list[str], list[list[str]]], options: dict[str, Any]) -> None:
    hyps, refs = corpus
    _same_bleu(
        compat.corpus_bleu(hyps, refs, **options), reference.corpus_bleu(hyps, refs, **options)
    )


@settings(max_examples=25, deadline=None)
@given(
    _sentence,
    st.lists(_sentence, min_size=1, max_size=2),
    _BLEU_OPTIONS,
    st.sampled_from([None, 0.5]),
)
def test_sentence_bleu(hyp: str, refs: list[str], options: dict[str, Any], value: Any) -> None:
    if options["smooth_method"] in ("floor", "add-k"):
        options["smooth_value"] = value
    _same_bleu(
        compat.sentence_bleu(hyp, refs, **options), reference.sentence_bleu(hyp, refs, **options)
    )


@settings(max_examples=30, deadline=None)
@given(_corpus(), st.sampled_from([0, 2]), st.booleans(), st.booleans(), st.sampled_from([1, 2, 3]))
def test_chrf(
    corpus: tuple[list[str], list[list[str]]], word_order: int, remove: bool, eps: bool, beta: int
) -> None:
    hyps, refs = corpus
    options: dict[str, Any] = {
        "word_order": word_order,
        "remove_whitespace": remove,
        "eps_smoothing": eps,
        "beta": beta,
    }
    got, want = (
        compat.corpus_chrf(hyps, refs, **options),
        reference.corpus_chrf(hyps, refs, **options),
    )
    assert got.score == pytest.approx(want.score, rel=1e-12, abs=1e-12)
    assert (got.name, got.beta, got.char_order, got.word_order) == (
        want.name,
        want.beta,
        want.char_order,
        want.word_order,
    )
    assert str(got) == str(want)
    one, two = (
        compat.sentence_chrf(hyps[0], [r[0] for r in refs], **options),
        reference.sentence_chrf(hyps[0], [r[0] for r in refs], **options),
    )
    assert one.score == pytest.approx(two.score, rel=1e-12, abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(_corpus(), st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_ter(
    corpus: tuple[list[str], list[list[str]]], norm: bool, punct: bool, asian: bool, case: bool
) -> None:
    hyps, refs = corpus
    options = {
        "normalized": norm,
        "no_punct": punct,
        "asian_support": asian,
        "case_sensitive": case,
    }
    got, want = (
        compat.corpus_ter(hyps, refs, **options),
        reference.corpus_ter(hyps, refs, **options),
    )
    assert (got.score, got.num_edits) == (want.score, want.num_edits)
    assert got.ref_length == pytest.approx(want.ref_length, rel=1e-12)
    assert str(got) == str(want)
    one = compat.sentence_ter(hyps[0], [r[0] for r in refs], **options)
    assert one.score == reference.sentence_ter(hyps[0], [r[0] for r in refs], **options).score


def test_edge_cases() -> None:
    for hyps, refs in [([""], [[""]]), ([""], [["a b"]]), (["a b", ""], [["a b", "c"]])]:
        _same_bleu(compat.corpus_bleu(hyps, refs), reference.corpus_bleu(hyps, refs))
        assert str(compat.corpus_chrf(hyps, refs)) == str(reference.corpus_chrf(hyps, refs))
        assert str(compat.corpus_ter(hyps, refs)) == str(reference.corpus_ter(hyps, refs))
    assert str(compat.corpus_ter(["a"], [[""]])) == str(reference.corpus_ter(["a"], [[""]]))
    # a variable number of references: None drops a stream's reference for that segment
    hyps, refs = ["a b c", "d e f"], [["a b c", "d e"], [None, "d e f"]]  # type: ignore[list-item]
    _same_bleu(compat.corpus_bleu(hyps, refs), reference.corpus_bleu(hyps, refs))
    for name in ("corpus_bleu", "corpus_chrf", "corpus_ter"):
        with pytest.raises(IndexError):
            getattr(reference, name)([], [[]])
        with pytest.raises(InputError, match=r"empty input|no segment|0 predictions"):
            getattr(compat, name)([], [[]])


def test_classes_and_signatures() -> None:
    hyps, refs = ["the cat sat on the mat", "a fox"], [["the cat sat on a mat", "the fox"]]
    pairs: list[tuple[Any, Any]] = [
        (
            compat.BLEU(lowercase=True, smooth_method="floor"),
            reference.BLEU(lowercase=True, smooth_method="floor"),
        ),
        (compat.CHRF(word_order=2), reference.CHRF(word_order=2)),
        (compat.TER(case_sensitive=True), reference.TER(case_sensitive=True)),
    ]
    for ours, theirs in pairs:
        assert str(ours.corpus_score(hyps, refs)) == str(theirs.corpus_score(hyps, refs))
        assert _version_free(ours.get_signature()) == _version_free(theirs.get_signature())
        short_ours = ours.get_signature().format(short=True)
        assert _version_free(short_ours.replace("|v:", "|version:")) == _version_free(
            theirs.get_signature().format(short=True).replace("|v:", "|version:")
        )
        one = ours.sentence_score(hyps[0], [refs[0][0]])
        assert str(one) == str(theirs.sentence_score(hyps[0], [refs[0][0]]))
    cached = compat.BLEU(references=refs)
    assert (
        cached.corpus_score(hyps, None).score
        == reference.BLEU(references=refs).corpus_score(hyps, None).score
    )
    varied = compat.BLEU()
    varied.corpus_score(["a", "b"], [["a", "b"], [None, "c"]])
    assert str(varied.get_signature()).startswith("nrefs:var|")
    bleu = compat.corpus_bleu(hyps, refs)
    assert bleu.format(is_json=True, signature="nrefs:1|case:mixed") == reference.corpus_bleu(
        hyps, refs
    ).format(is_json=True, signature="nrefs:1|case:mixed")


@pytest.mark.parametrize(
    ("call", "error", "text"),
    [
        (lambda: compat.corpus_bleu(["a"], [["a"]], tokenize="ja-mecab"), ConfigError, "ja-mecab"),
        (lambda: compat.BLEU(trg_lang="ko"), ConfigError, "ko-mecab"),
        (lambda: compat.corpus_bleu(["a"], [["a"]], smooth_method="bogus"), ConfigError, "bogus"),
        (lambda: compat.corpus_bleu(["a", "b"], [["a"]]), InputError, "differ in length"),
        (lambda: compat.corpus_bleu(["a"], ["a"]), InputError, "stream 0 is one string"),
        (lambda: compat.corpus_bleu("a", [["a"]]), InputError, "hypotheses is one string"),
        (lambda: compat.corpus_chrf(["a"], "a"), InputError, "not reference streams"),
        (lambda: compat.corpus_ter(["a"], []), InputError, "no reference stream"),
        (lambda: compat.sentence_bleu("a", "a"), InputError, "references are not a list"),
        (
            lambda: compat.TER().corpus_score(["a"], None),
            InputError,
            "no references given or cached",
        ),
        (
            lambda: compat.CHRF().corpus_score(["a"], [["a"]], n_bootstrap=100),
            ConfigError,
            "n_bootstrap",
        ),
    ],
)
def test_errors_name_the_problem(call: Any, error: type[Exception], text: str) -> None:
    with pytest.raises(error, match=text):
        call()


def test_names() -> None:
    import importlib

    assert compat.NAMES["corpus_ter"] == "scorekit.text.ter"
    for theirs, ours in compat.NAMES.items():
        assert hasattr(reference, theirs) and hasattr(compat, theirs)
        module, _, name = ours.rpartition(".")
        assert callable(getattr(importlib.import_module(module), name))


@st.composite
def _statistics(draw: st.DrawFn) -> tuple[list[int], list[int], int, int, int]:
    order = draw(st.integers(1, 6))
    total = draw(st.lists(st.integers(0, 60), min_size=order, max_size=order))
    correct = [draw(st.integers(0, t)) for t in total]
    sys_len = draw(st.integers(0, 80))
    ref_len = draw(st.integers(0, 80))
    return correct, total, sys_len, ref_len, order


@settings(max_examples=200, deadline=None)
@given(
    _statistics(),
    st.sampled_from(["exp", "floor", "add-k", "none"]),
    st.sampled_from([None, 0.01, 0.5, 2]),
    st.booleans(),
)
def test_compute_bleu_from_sufficient_statistics(
    stats: tuple[list[int], list[int], int, int, int], smooth: str, value: Any, effective: bool
) -> None:
    correct, total, sys_len, ref_len, order = stats
    if smooth in ("exp", "none") or (smooth == "floor" and value is not None and value > 1):
        value = None  # refused by scorekit (see the module's departures)
    options = {
        "smooth_method": smooth,
        "smooth_value": value,
        "effective_order": effective,
        "max_ngram_order": order,
    }
    got = compat.BLEU.compute_bleu(correct, total, sys_len, ref_len, **options)
    # sacrebleu adds add-k's value to the lists it is given
    want = reference.BLEU.compute_bleu(list(correct), list(total), sys_len, ref_len, **options)
    _same_bleu(got, want)


@settings(max_examples=40, deadline=None)
@given(_corpus(), st.sampled_from([None, 0.1, 0.3]))
def test_raw_corpus_bleu(corpus: tuple[list[str], list[list[str]]], value: Any) -> None:
    hyps, refs = corpus
    _same_bleu(
        compat.raw_corpus_bleu(hyps, refs, smooth_value=value),
        reference.raw_corpus_bleu(hyps, refs, smooth_value=value),
    )


def test_compute_bleu_refuses_what_are_not_statistics() -> None:
    compute = compat.BLEU.compute_bleu
    cases = [
        (lambda: compute([1, 1, 1], [2, 2, 2, 2], 2, 2), "correct has another length"),
        (lambda: compute([1, 1, 1, 1], [2, 2, 2, 2], -1, 2), "sys_len must be a count"),
        (lambda: compute([1, 0.5, 1, 1], [2, 2, 2, 2], 2, 2), r"correct\[1\] must be a count"),
        (
            lambda: compute([1, 3, 1, 1], [2, 2, 2, 2], 2, 2),
            r"more matched.*correct\[1\] = 3 > total\[1\] = 2",
        ),
        (lambda: compute("1234", [2, 2, 2, 2], 2, 2), "correct must be a list"),
        (lambda: compute([True, 1, 1, 1], [2, 2, 2, 2], 2, 2), r"correct\[0\] must be a count"),
    ]
    for call, text in cases:
        with pytest.raises(InputError, match=f"compute_bleu: {text}"):
            call()
    counts = [2, 1, 0, 0]
    compute(counts, [3, 2, 1, 0], 3, 4, smooth_method="add-k")
    assert counts == [2, 1, 0, 0]
