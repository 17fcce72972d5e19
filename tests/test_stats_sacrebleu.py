"""sacrebleu's paired bootstrap and approximate randomization tests, reproduced exactly."""

from __future__ import annotations

import contextlib
import io
from argparse import Namespace
from typing import Any

import numpy as np
import pytest
import sacrebleu
from sacrebleu.significance import PairedTest as SacrePairedTest
from sacrebleu.utils import print_results_table

from scorekit.errors import ConfigError, InputError
from scorekit.stats import format_paired, paired_ar, paired_bs
from scorekit.text import BLEU, CHRF, TER, CHRFPlusPlus

_WORDS = [
    "the",
    "cat",
    "sat",
    "on",
    "a",
    "mat",
    ".",
    "dog",
    "runs",
    "fast",
    ",",
    "slow",
    "red",
    "blue",
    "and",
    "or",
    "42",
    "Über",
    "x-y",
]


def _data(seed: int, n: int, n_systems: int, n_refs: int) -> tuple[list[list[str]], list[Any]]:
    """Reference streams (sacrebleu's layout) and noisy systems of ``n`` segments."""
    rng = np.random.default_rng(seed)

    def sentence() -> str:
        return " ".join(rng.choice(_WORDS, rng.integers(0, 14)))

    streams = [[sentence() for _ in range(n)] for _ in range(n_refs)]

    def noisy(text: str) -> str:
        words = [w if rng.random() < 0.65 else str(rng.choice(_WORDS)) for w in text.split()]
        return " ".join(words[: len(words) - int(rng.integers(0, 3))])

    systems = [[noisy(r) for r in streams[0]] for _ in range(n_systems)]
    return streams, systems


def _ours_refs(streams: list[list[str]]) -> list[Any]:
    return list(streams[0]) if len(streams) == 1 else [list(r) for r in zip(*streams, strict=True)]


CASES = [
    # (scorekit metric, sacrebleu metric)
    (BLEU(), sacrebleu.BLEU()),
    (CHRF(), sacrebleu.CHRF()),
    (TER(), sacrebleu.TER()),
    (
        BLEU(smooth="floor", smooth_value=0.2),
        sacrebleu.BLEU(smooth_method="floor", smooth_value=0.2),
    ),
    (BLEU(smooth="add-k"), sacrebleu.BLEU(smooth_method="add-k")),
    (
        BLEU(smooth="none", effective_order=True, lowercase=True),
        sacrebleu.BLEU(smooth_method="none", effective_order=True, lowercase=True),
    ),
    (BLEU(tokenize="char", max_order=2), sacrebleu.BLEU(tokenize="char", max_ngram_order=2)),
    (CHRFPlusPlus(), sacrebleu.CHRF(word_order=2)),
    (CHRF(beta=1, whitespace=True), sacrebleu.CHRF(beta=1, whitespace=True)),
    (
        TER(normalized=True, case_sensitive=True),
        sacrebleu.TER(normalized=True, case_sensitive=True),
    ),
]


def _sacre(streams: list[list[str]], systems: list[Any], metric: Any, test: str, **kw: Any) -> Any:
    named = [(f"sys{i}", s) for i, s in enumerate(systems)]
    return SacrePairedTest(named, {"m": metric}, streams, test_type=test, **kw)()


def _same(ours: Any, theirs: Any) -> None:
    assert ours.score == float(theirs.score)
    for name in ("p_value", "mean", "ci"):
        mine, ref = getattr(ours, name), getattr(theirs, name)
        assert (mine is None) == (ref is None), name
        if ref is not None:
            assert mine == float(ref), name


@pytest.mark.parametrize("test", ["bs", "ar"])
@pytest.mark.parametrize(("metric", "reference"), CASES, ids=lambda m: repr(m)[:40])
def test_equal_to_sacrebleu(metric: Any, reference: Any, test: str) -> None:
    n_refs = 2 if isinstance(metric, TER) or metric.lowercase else 1
    streams, systems = _data(len(repr(metric)) + len(test), 50, 3, n_refs)
    if test == "bs":
        _, theirs = _sacre(streams, systems, reference, "bs", n_samples=150)
        ours = paired_bs(_ours_refs(streams), systems, metrics=[metric], n_samples=150)
    else:
        _, theirs = _sacre(streams, systems, reference, "ar", n_samples=200, n_ar_confidence=100)
        ours = paired_ar(
            _ours_refs(streams), systems, metrics=[metric], n_samples=200, n_ar_confidence=100
        )
    (results,) = ours.results.values()
    (reference_results,) = (v for k, v in theirs.items() if k != "System")
    assert len(results) == 3
    for mine, ref in zip(results, reference_results, strict=True):
        _same(mine, ref)
    assert results[0].p_value is None
    assert all(r.low is not None and r.low <= r.mean <= r.high for r in results)  # type: ignore[operator]


def test_seed_is_sacrebleus_environment_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    streams, systems = _data(3, 40, 2, 1)
    monkeypatch.setenv("SACREBLEU_SEED", "7")
    _, theirs = _sacre(streams, systems, sacrebleu.BLEU(), "bs", n_samples=100)
    ours = paired_bs(streams[0], systems, n_samples=100, seed=7)
    for mine, ref in zip(ours.results["BLEU"], theirs["BLEU"], strict=True):
        _same(mine, ref)
    assert ours.signatures["BLEU"].startswith("nrefs:1|bs:100|seed:7|case:mixed")


@pytest.mark.parametrize("test", ["bs", "ar"])
def test_table_is_sacrebleus(test: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sacrebleu.utils.Color, "ENABLE_COLORS", False)
    streams, systems = _data(11, 30, 3, 1)
    metrics = {"BLEU": sacrebleu.BLEU(), "chrF2": sacrebleu.CHRF(), "TER": sacrebleu.TER()}
    names = ["a.txt", "b.txt", "c.txt"]
    named = [
        (("Baseline: " if i == 0 else "") + n, s)
        for i, (n, s) in enumerate(zip(names, systems, strict=True))
    ]
    sigs, scores = SacrePairedTest(named, metrics, streams, test_type=test, n_samples=120)()
    args = Namespace(
        format="text",
        width=1,
        paired_bs=test == "bs",
        paired_ar=test == "ar",
        paired_bs_n=120,
        paired_ar_n=120,
    )
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print_results_table(scores, {k: v.format() for k, v in sigs.items()}, args)
    run = paired_bs if test == "bs" else paired_ar
    ours = run(
        streams[0],
        dict(zip(names, systems, strict=True)),
        metrics=["bleu", "chrf", "ter"],
        n_samples=120,
    )
    text = format_paired(ours) + "\n"
    theirs = out.getvalue()
    cut = theirs.index("version:")
    assert text[: text.index("version:")] == theirs[:cut]
    strip = [line.rsplit("|version:", 1)[0] for line in theirs.splitlines()]
    assert [line.rsplit("|version:", 1)[0] for line in text.splitlines()] == strip
    assert "version:scorekit-" in text


def test_unnamed_systems_and_identical_systems() -> None:
    streams, systems = _data(5, 20, 1, 1)
    with pytest.warns(UserWarning, match="from the baseline 'Baseline' is zero for 'System 1'"):
        test = paired_bs(streams[0], [systems[0], systems[0]], metrics=["chrf"], n_samples=100)
    base, other = test.results["chrF2"]
    assert (base.system, other.system) == ("Baseline", "System 1")
    assert other.score == base.score
    # sacrebleu counts differences strictly above the observed one: (0 + 1) / (n + 1)
    assert other.p_value == 1 / 101
    _, theirs = _sacre(streams, [systems[0], systems[0]], sacrebleu.CHRF(), "bs", n_samples=100)
    _same(other, theirs["chrF2"][1])
    assert "compared to ." in format_paired(test)


def test_bad_input() -> None:
    refs = ["a b", "c d", "e f"]
    with pytest.raises(InputError, match=r"system 2 \(System 2\).*2 segments, 3 references"):
        paired_bs(refs, [refs, refs, refs[:2]], n_samples=10)
    with pytest.raises(InputError, match=r"system 0 \(x\).*4 segments, 3 references"):
        paired_ar(refs, {"x": [*refs, "g"], "y": refs}, n_samples=10)
    with pytest.raises(InputError, match="too few systems"):
        paired_bs(refs, [refs])
    with pytest.raises(InputError, match="no segments"):
        paired_bs([], [[], []])
    with pytest.raises(ConfigError, match="BLEU, chrF or TER"):
        paired_bs(refs, [refs, refs], metrics=["wer"])
    with pytest.raises(ConfigError, match="options sacrebleu does not have"):
        paired_bs(refs, [refs, refs], metrics=[BLEU(clip=False)])
    with pytest.raises(ConfigError, match="invalid n_samples"):
        paired_bs(refs, [refs, refs], n_samples=0)
    with pytest.raises(ConfigError, match="invalid seed"):
        paired_ar(refs, [refs, refs], seed=-1)
    with pytest.raises(ConfigError, match="invalid width"):
        format_paired(paired_bs(refs, [refs, refs], n_samples=10), width=-1)
