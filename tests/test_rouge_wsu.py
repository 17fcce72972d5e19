"""ROUGE-W, ROUGE-S and ROUGE-SU against PyRouge (ROUGE-1.5.5), by hand, and bad options."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import parse_metric
from scorekit.errors import ConfigError, StateMismatchError
from scorekit.text.rouge import ROUGE, ROUGES4, ROUGESU4, ROUGEW, rouge

py_rouge = pytest.importorskip("rouge_metric")

# lowercase alphanumeric words and single spaces: PyRouge's whitespace split and
# the default tokenizer give the same tokens
words = st.lists(st.sampled_from(["a", "b", "c", "d", "the", "cat", "x1"]), max_size=14)
text = words.map(" ".join)


def _pyrouge(refs: list[list[str]], preds: list[str], gap: int | None, weight: float) -> Any:
    scorer = py_rouge.PyRouge(
        rouge_n=(1,),
        rouge_l=False,
        rouge_w=True,
        rouge_w_weight=weight,
        rouge_s=True,
        rouge_su=True,
        skip_gap=gap,
        mode="individual",
        multi_ref_mode="best",
    )
    return scorer.evaluate(preds, refs)


def _keys(gap: int | None, weight: float) -> dict[str, str]:
    suffix = "" if gap is None else str(gap)
    theirs = suffix if gap else "*"
    return {
        "rougeW": f"rouge-w-{weight}",
        f"rougeS{suffix}": f"rouge-s{theirs}",
        f"rougeSU{suffix}": f"rouge-su{theirs}",
    }


def _check(refs: list[str], preds: list[str], gap: int | None, weight: float) -> None:
    keys = _keys(gap, weight)
    ours = rouge(refs, preds, types=tuple(keys), weight=weight, per_sample=True)
    expected = _pyrouge([[r] for r in refs], preds, gap, weight)
    for t, key in keys.items():
        per_sample = ours[t].per_sample
        assert per_sample is not None
        want = np.array([[e[key]["p"], e[key]["r"], e[key]["f"]] for e in expected])
        np.testing.assert_allclose(per_sample, want, rtol=0, atol=1e-12)
        np.testing.assert_allclose(ours[t].fmeasure, want[:, 2].mean(), rtol=0, atol=1e-12)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(text, text), min_size=1, max_size=5),
    st.sampled_from([None, 0, 1, 2, 4, 9]),
    st.sampled_from([1.0, 1.2, 1.5, 2.0]),
)
def test_agrees_with_pyrouge(pairs: list[tuple[str, str]], gap: int | None, weight: float) -> None:
    _check([r for r, _ in pairs], [p for _, p in pairs], gap, weight)


def test_agrees_with_pyrouge_random_longer_texts() -> None:
    rng = np.random.default_rng(7)
    vocab = [f"w{i}" for i in range(6)]
    refs = [" ".join(rng.choice(vocab, rng.integers(0, 40))) for _ in range(40)]
    preds = [" ".join(rng.choice(vocab, rng.integers(0, 40))) for _ in range(40)]
    for gap in (None, 4):
        _check(refs, preds, gap, 1.2)


def test_several_references_take_the_best_f_measure() -> None:
    refs = [["a b c d e", "a x c y e z", "e d c b a"], ["the cat", "cat the x"]]
    preds = ["a b c y e", "the cat x"]
    types = ("rougeW", "rougeS4", "rougeSU")
    ours = rouge(refs, preds, types=types, per_sample=True)
    for t in types:
        single = [
            rouge([r], [p], types=(t,), per_sample=True)[t].per_sample
            for item, p in zip(refs, preds, strict=True)
            for r in item
        ]
        best = [
            max(single[0:3], key=lambda s: s[0, 2])[0],  # type: ignore[index]
            max(single[3:5], key=lambda s: s[0, 2])[0],  # type: ignore[index]
        ]
        per_sample = ours[t].per_sample
        assert per_sample is not None
        np.testing.assert_allclose(per_sample, np.array(best), atol=1e-15)


def test_hand_checked() -> None:
    # Lin (2004): skip-bigrams of "police killed the gunman" (S1) and
    # "police kill the gunman" (S2) share 3 of 6 -> ROUGE-S = 0.5; S1 against
    # "the gunman kill police" (S3) shares 1 ("the gunman") -> 1/6
    s1, s2, s3 = "police killed the gunman", "police kill the gunman", "the gunman kill police"
    assert ROUGES4().score([s1], [s2]) == pytest.approx(0.5, abs=1e-15)
    assert parse_metric("rougeS").score([s1], [s3]) == pytest.approx(1 / 6, abs=1e-15)
    # ROUGE-SU adds the unigrams of all tokens but the last (ROUGE-1.5.5):
    # S1 (police, killed, the), S3 (the, gunman, kill) share 1 -> (1 + 1) / 9
    assert ROUGESU4().score([s1], [s3]) == pytest.approx(2 / 9, abs=1e-15)
    # identical texts: WLCS = f(m); P = 1, R = (f(m) / f(f(m)))^(1/w) (ROUGE-1.5.5)
    res = rouge(["a b c d"], ["a b c d"], types=("rougeW",))["rougeW"]
    w = 1.2
    assert res.precision == pytest.approx(1.0, abs=1e-15)
    assert res.recall == pytest.approx((4**w / (4**w) ** w) ** (1 / w), abs=1e-15)
    # runs are runs of consecutive *reference* positions (ROUGE-1.5.5): reference
    # "a b x c d", prediction "a b c d" -> runs (a b), (c d): WLCS = 2 * 2^w
    res = rouge(["a b x c d"], ["a b c d"], types=("rougeW",))["rougeW"]
    assert res.precision == pytest.approx((2 * 2**w / 4**w) ** (1 / w), abs=1e-15)
    # ... while reference "a b c d", prediction "a b x c d" is one run of 4
    res = rouge(["a b c d"], ["a b x c d"], types=("rougeW",))["rougeW"]
    assert res.precision == pytest.approx((4**w / 5**w) ** (1 / w), abs=1e-15)
    # the gap: "a x x x x x b" has (a, b) only when the gap allows 5 tokens between
    # (7 tokens: 21 skip-bigrams with gap 5 or more, 20 with gap 4)
    res = rouge(["a b"], ["a x x x x x b"], types=("rougeS4", "rougeS5", "rougeS"))
    assert res["rougeS4"][:3] == (0.0, 0.0, 0.0)
    assert res["rougeS5"][:3] == pytest.approx((1 / 21, 1.0, 2 / 22), abs=1e-15)
    assert res["rougeS"][:3] == pytest.approx((1 / 21, 1.0, 2 / 22), abs=1e-15)
    # no tokens on a side, or one token (no skip-bigram): 0
    assert rouge(["", "a"], ["a b", "a"], types=("rougeW", "rougeSU4", "rougeS"))[
        "rougeSU4"
    ].fmeasure == pytest.approx(0.0)


def test_merge_of_chunk_states() -> None:
    rng = np.random.default_rng(3)
    vocab = ["a", "b", "c", "d"]
    refs = [" ".join(rng.choice(vocab, rng.integers(0, 12))) for _ in range(30)]
    preds = [" ".join(rng.choice(vocab, rng.integers(0, 12))) for _ in range(30)]
    for metric in (ROUGEW(), ROUGES4(), ROUGESU4(), ROUGE(types=("rougeW", "rougeSU2"))):
        whole = metric.compute(metric.summarize(refs, preds))
        parts = [metric.summarize(refs[i : i + 7], preds[i : i + 7]) for i in range(0, 30, 7)]
        state = parts[0]
        for part in parts[1:]:
            state = state.merge(part)
        merged = metric.compute(state)
        if isinstance(whole, float):
            assert math.isclose(whole, merged, abs_tol=1e-12)
        else:
            for t in whole:
                np.testing.assert_allclose(whole[t][:3], merged[t][:3], atol=1e-12)
    with pytest.raises(StateMismatchError):
        ROUGEW().summarize(refs, preds).merge(ROUGEW(weight=1.5).summarize(refs, preds))


@pytest.mark.parametrize(
    "options",
    [
        {"weight": 0.5},
        {"weight": float("nan")},
        {"weight": float("inf")},
        {"weight": "1.2"},
        {"weight": True},
        {"types": ("rougeS-1",)},
        {"types": ("rougeSx",)},
        {"types": ("rougeW", "rougeW")},
        {"types": ("rougeWsum",)},
    ],
)
def test_bad_options(options: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        rouge(["a b"], ["a b"], **options)


def test_registered_names() -> None:
    for name in ("rougeW", "rougeS", "rougeSU", "rougeS4", "rougeSU4"):
        metric = parse_metric(name)
        assert 0.0 <= metric.score(["a b c d"], ["a c b d"]) <= 1.0
    assert parse_metric("rougeW", weight=2.0).weight == 2.0
    with pytest.raises(ConfigError):
        parse_metric("rougeW", weight=0.9)
