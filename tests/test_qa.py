"""SQuAD exact match and F1 against a plain transcription of the official scripts' logic.

The reference below restates, string by string and question by question, what
``evaluate-v1.1.py`` and ``evaluate-v2.0.py`` do: normalise each answer
(lowercase, drop ASCII punctuation, replace the words a/an/the by a space,
collapse whitespace), take the maximum over the gold answers of exact match and
of Counter-overlap token F1, and for v2.0 treat a question whose gold answers
all normalise to "" as having the single gold answer "", apply the no-answer
threshold and search the best threshold over ids sorted by no-answer probability.
"""

from __future__ import annotations

import collections
import math
import re
import string
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorekit import parse_metric
from scorekit.errors import ConfigError, InputError, StateMismatchError, UndefinedMetricWarning
from scorekit.qa import (
    QAF1,
    ExactMatch,
    exact_match,
    f1,
    normalize_answer,
    question_scores,
    squad,
)

# the reference: the official scripts' behaviour, one string at a time -----------


def ref_normalize(s: str) -> str:
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def ref_exact(gold: str, pred: str) -> int:
    return int(ref_normalize(gold) == ref_normalize(pred))


def ref_f1_v1(gold: str, pred: str) -> float:
    pred_toks = ref_normalize(pred).split()
    gold_toks = ref_normalize(gold).split()
    common = collections.Counter(pred_toks) & collections.Counter(gold_toks)
    same = sum(common.values())
    if same == 0:
        return 0
    precision = 1.0 * same / len(pred_toks)
    recall = 1.0 * same / len(gold_toks)
    return (2 * precision * recall) / (precision + recall)


def ref_f1_v2(gold: str, pred: str) -> float:
    gold_toks = ref_normalize(gold).split() if gold else []
    pred_toks = ref_normalize(pred).split() if pred else []
    common = collections.Counter(gold_toks) & collections.Counter(pred_toks)
    same = sum(common.values())
    if len(gold_toks) == 0 or len(pred_toks) == 0:
        return int(gold_toks == pred_toks)
    if same == 0:
        return 0
    precision = 1.0 * same / len(pred_toks)
    recall = 1.0 * same / len(gold_toks)
    return (2 * precision * recall) / (precision + recall)


def ref_question(golds: list[str], pred: str, version: str) -> tuple[float, float]:
    if version == "2.0":
        golds = [g for g in golds if ref_normalize(g)] or [""]
        return max(ref_exact(g, pred) for g in golds), max(ref_f1_v2(g, pred) for g in golds)
    return max(ref_exact(g, pred) for g in golds), max(ref_f1_v1(g, pred) for g in golds)


def ref_squad_v1(dataset: list[Any], preds: dict[str, str]) -> dict[str, float]:
    em = f = 0.0
    total = 0
    for article in dataset:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                total += 1
                if qa["id"] not in preds:
                    continue
                golds = [a["text"] for a in qa["answers"]]
                e, g = ref_question(golds, preds[qa["id"]], "1.1")
                em += e
                f += g
    return {"exact": 100.0 * em / total, "f1": 100.0 * f / total, "total": total}


def ref_best_thresh(
    preds: dict[str, str],
    scores: dict[str, float],
    na_probs: dict[str, float],
    has_ans: dict[str, bool],
) -> tuple[float, float]:
    cur = sum(1 for k in has_ans if not has_ans[k])
    best, thresh = cur, 0.0
    for qid in sorted(na_probs, key=lambda k: na_probs[k]):
        if qid not in scores:
            continue
        diff = scores[qid] if has_ans[qid] else -1 if preds[qid] else 0
        cur += diff
        if cur > best:
            best, thresh = cur, na_probs[qid]
    return 100.0 * best / len(scores), thresh


def ref_squad_v2(
    dataset: list[Any],
    preds: dict[str, str],
    na_probs: dict[str, float] | None = None,
    na_prob_thresh: float = 1.0,
) -> dict[str, float]:
    has_ans: dict[str, bool] = {}
    exact_raw: dict[str, float] = {}
    f1_raw: dict[str, float] = {}
    for article in dataset:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                qid = qa["id"]
                has_ans[qid] = bool(qa["answers"])
                golds = [a["text"] for a in qa["answers"]]
                exact_raw[qid], f1_raw[qid] = ref_question(golds, preds[qid], "2.0")
    probs = na_probs if na_probs is not None else dict.fromkeys(preds, 0.0)

    def threshold(scores: dict[str, float]) -> dict[str, float]:
        return {
            q: (float(not has_ans[q]) if probs[q] > na_prob_thresh else s)
            for q, s in scores.items()
        }

    exact, f = threshold(exact_raw), threshold(f1_raw)
    out: dict[str, float] = {
        "exact": 100.0 * sum(exact.values()) / len(exact),
        "f1": 100.0 * sum(f.values()) / len(f),
        "total": len(exact),
    }
    for prefix, ids in (
        ("HasAns", [q for q, v in has_ans.items() if v]),
        ("NoAns", [q for q, v in has_ans.items() if not v]),
    ):
        if ids:
            out[f"{prefix}_exact"] = 100.0 * sum(exact[q] for q in ids) / len(ids)
            out[f"{prefix}_f1"] = 100.0 * sum(f[q] for q in ids) / len(ids)
            out[f"{prefix}_total"] = len(ids)
    if na_probs is not None:
        out["best_exact"], out["best_exact_thresh"] = ref_best_thresh(
            preds, exact_raw, na_probs, has_ans
        )
        out["best_f1"], out["best_f1_thresh"] = ref_best_thresh(preds, f1_raw, na_probs, has_ans)
    return out


def as_percent(result: dict[str, float]) -> dict[str, float]:
    return {k: (v if k.endswith(("total", "thresh")) else 100.0 * v) for k, v in result.items()}


def assert_same(ours: dict[str, float], ref: dict[str, float]) -> None:
    ours = as_percent(ours)
    assert set(ours) == set(ref)
    for key in ref:
        assert ours[key] == pytest.approx(ref[key], rel=1e-12, abs=1e-12), key


# data -----------------------------------------------------------------------

WORDS = [
    "the", "The", "a", "an", "An", "A.", "Paris", "paris,", "(paris)", "Tower", "tower!",
    "1889", "x-y", "x y", "É", "é", "ΟΔΟΣ", "Σ", "theatre", "another", "l'an", "  ", "\t",
    "don't", "co-op", "„quote“", "—", "the—end", "1,000", "$5", "", "a\nb", "ANTHEM",
]  # fmt: skip


def random_answer(rng: np.random.Generator) -> str:
    words = rng.choice(np.array(WORDS, dtype=object), rng.integers(0, 5))
    sep = " " if rng.random() < 0.8 else ""
    return sep.join(words)


def random_batch(seed: int, n: int) -> tuple[list[list[str]], list[str]]:
    rng = np.random.default_rng(seed)
    refs = [[random_answer(rng) for _ in range(rng.integers(1, 4))] for _ in range(n)]
    preds = []
    for r in refs:
        u = rng.random()
        preds.append(r[0] if u < 0.2 else (r[0].upper() + "." if u < 0.3 else random_answer(rng)))
    return refs, preds


def make_dataset(
    refs: list[list[str]], per_paragraph: int = 3, unanswerable: list[bool] | None = None
) -> list[Any]:
    qas = []
    for i, golds in enumerate(refs):
        none = unanswerable is not None and unanswerable[i]
        qas.append({"id": f"q{i}", "answers": [] if none else [{"text": g} for g in golds]})
    paragraphs = [
        {"context": "...", "qas": qas[i : i + per_paragraph]}
        for i in range(0, len(qas), per_paragraph)
    ]
    return [
        {"title": "t", "paragraphs": paragraphs[:2]},
        {"title": "u", "paragraphs": paragraphs[2:]},
    ]


# normalisation ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "The Eiffel Tower!",
        "  an apple a day  ",
        "theatre anthem",
        "the—end",
        "l'an 2000",
        "ΟΔΟΣ Σ",
        "don't stop",
        "a\nb\tc",
        "",
        "...",
    ],
)
def test_normalize_matches_reference(text: str) -> None:
    assert normalize_answer(text) == ref_normalize(text)


def test_batch_normalisation_matches_one_at_a_time() -> None:
    refs, preds = random_batch(3, 400)
    texts = [t for r in refs for t in r] + preds + ["a\x00the b", "x\x00"]
    from scorekit.qa._normalize import _normalize_all

    assert _normalize_all(texts) == [ref_normalize(t) for t in texts]


# per-question scores and the metrics -------------------------------------------------


@pytest.mark.parametrize("version", ["1.1", "2.0"])
@pytest.mark.parametrize("seed", range(6))
def test_per_question_scores_match_reference(seed: int, version: str) -> None:
    refs, preds = random_batch(seed, 300)
    exact, f = question_scores(refs, preds, version=version)  # type: ignore[arg-type]
    expected = [ref_question(r, p, version) for r, p in zip(refs, preds, strict=True)]
    assert exact.tolist() == [float(e) for e, _ in expected]
    assert f is not None
    # the official per-pair arithmetic, step by step: bit-identical
    assert f.tolist() == [float(g) for _, g in expected]


@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.sampled_from(["1.1", "2.0"]))
def test_metrics_match_reference_hypothesis(seed: int, n: int, version: str) -> None:
    refs, preds = random_batch(seed, n)
    expected = [ref_question(r, p, version) for r, p in zip(refs, preds, strict=True)]
    em = sum(e for e, _ in expected) / n
    fs = sum(g for _, g in expected) / n
    assert exact_match(refs, preds, version=version) == pytest.approx(em, rel=1e-12)  # type: ignore[arg-type]
    assert f1(refs, preds, version=version) == pytest.approx(fs, rel=1e-12)  # type: ignore[arg-type]


def test_worked_values() -> None:
    refs = [["Denver Broncos", "The Denver Broncos"], ["in the year 1889"], ["Paris"]]
    preds = ["denver broncos!", "1889", "Lyon"]
    assert exact_match(refs, preds) == pytest.approx(1 / 3)
    # 1.0, 2 * (1 * 1/3) / (1 + 1/3) = 0.5 ("in year 1889" has three tokens), 0.0
    assert f1(refs, preds) == pytest.approx((1.0 + 0.5 + 0.0) / 3)


def test_unanswerable_gold_counts_as_empty_string() -> None:
    # v2.0: gold answers normalising to "" are dropped; none left -> the gold answer ""
    assert exact_match([["the", "!"]], [""]) == 1.0
    assert f1([["the", "!"]], ["a"]) == 1.0
    assert f1([[""]], ["Paris"]) == 0.0
    assert f1([["", "Paris"]], ["paris"]) == 1.0
    # v1.1 keeps the gold answers and gives no F1 credit without a shared token
    assert exact_match([["the"]], [""], version="1.1") == 1.0
    assert f1([["the"]], [""], version="1.1") == 0.0


def test_tuples_and_numpy_inputs() -> None:
    refs = (("Paris", "paris"), ("x",))
    preds = np.array(["paris", "y"])
    assert exact_match(refs, preds) == 0.5
    assert f1([np.array(["a b"])], ["b"]) == 1.0
    assert exact_match(np.array([["Paris", "x"], ["Rome", "y"]]), ["paris", "z"]) == 0.5


def test_registry_and_variants() -> None:
    metric = parse_metric("exact_match:1.1")
    assert isinstance(metric, ExactMatch) and metric.version == "1.1"
    assert isinstance(parse_metric("qa_f1"), QAF1)
    assert parse_metric("em").name == "exact_match"
    with pytest.raises(ConfigError, match=r"unknown SQuAD version"):
        QAF1(version="3.0")  # type: ignore[arg-type]


def test_states_merge_to_the_in_memory_value() -> None:
    refs, preds = random_batch(11, 90)
    for metric in (ExactMatch(), QAF1(), QAF1(version="1.1")):
        parts = [metric.summarize(refs[i : i + 30], preds[i : i + 30]) for i in (0, 30, 60)]
        merged = parts[0].merge(parts[1]).merge(parts[2])
        assert metric.compute(merged) == pytest.approx(metric.score(refs, preds), rel=1e-12)
        assert merged.count == 90
    with pytest.raises(StateMismatchError):
        QAF1().summarize(refs, preds).merge(QAF1(version="1.1").summarize(refs, preds))
    with pytest.raises(StateMismatchError):
        QAF1().summarize(refs, preds).merge(ExactMatch().summarize(refs, preds))


# the official dataset format ----------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_squad_v1_matches_reference(seed: int) -> None:
    refs, preds = random_batch(seed, 120)
    dataset = make_dataset([[g or "x" for g in r] for r in refs])
    predictions = {f"q{i}": p for i, p in enumerate(preds)}
    assert_same(squad(dataset, predictions, version="1.1"), ref_squad_v1(dataset, predictions))
    assert_same(
        squad({"version": "1.1", "data": dataset}, predictions, version="1.1"),
        ref_squad_v1(dataset, predictions),
    )


def test_squad_v1_missing_prediction_scores_zero_with_warning() -> None:
    refs, preds = random_batch(5, 30)
    dataset = make_dataset([[g or "x" for g in r] for r in refs])
    predictions = {f"q{i}": p for i, p in enumerate(preds) if i % 4}
    with pytest.warns(UndefinedMetricWarning, match=r"no prediction"):
        ours = squad(dataset, predictions, version="1.1")
    assert_same(ours, ref_squad_v1(dataset, predictions))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("with_probs", [False, True])
def test_squad_v2_matches_reference(seed: int, with_probs: bool) -> None:
    rng = np.random.default_rng(seed + 100)
    refs, preds = random_batch(seed, 150)
    unanswerable = (rng.random(150) < 0.4).tolist()
    preds = [
        "" if u and rng.random() < 0.5 else p for u, p in zip(unanswerable, preds, strict=True)
    ]
    dataset = make_dataset(refs, unanswerable=unanswerable)
    predictions = {f"q{i}": p for i, p in enumerate(preds)}
    na_probs = None
    if with_probs:
        # a coarse grid: many ties, resolved by the order of na_probs as in the script
        ids = [f"q{i}" for i in rng.permutation(150)] + ["not-a-question"]
        na_probs = {q: float(np.round(rng.random(), 1)) for q in ids}
    for thresh in (1.0, 0.5):
        ours = squad(dataset, predictions, na_probs=na_probs, na_prob_thresh=thresh)
        assert_same(ours, ref_squad_v2(dataset, predictions, na_probs, thresh))


def test_squad_v2_worked_thresholds() -> None:
    dataset = make_dataset(
        [["Paris"], ["x"], ["Rome"], ["y"]], unanswerable=[False, True, False, True]
    )
    predictions = {"q0": "Paris", "q1": "maybe", "q2": "Milan", "q3": ""}
    na = {"q0": 0.1, "q1": 0.6, "q2": 0.8, "q3": 0.3}
    result = squad(dataset, predictions, na_probs=na)
    # thresholds: start 2 (no-answer questions); q0 +1 -> 3 at 0.1; q3 +0; q1 -1; q2 +0
    assert result["best_exact"] == 0.75 and result["best_exact_thresh"] == 0.1
    assert result["HasAns_total"] == 2 and result["NoAns_total"] == 2
    assert result["exact"] == 0.5
    assert_same(result, ref_squad_v2(dataset, predictions, na))


def test_squad_answers_that_normalise_to_nothing_still_have_an_answer() -> None:
    dataset = make_dataset([["The"], ["Paris"]])
    result = squad(dataset, {"q0": "", "q1": "paris"})
    assert result["HasAns_total"] == 2 and "NoAns_total" not in result
    assert result["exact"] == 1.0
    assert_same(result, ref_squad_v2(dataset, {"q0": "", "q1": "paris"}))


# bad input ------------------------------------------------------------------------


@pytest.mark.parametrize("fn", [exact_match, f1])
def test_empty_input(fn: Any) -> None:
    with pytest.raises(InputError, match=r"empty input"):
        fn([], [])


@pytest.mark.parametrize("fn", [exact_match, f1])
def test_empty_reference_list(fn: Any) -> None:
    with pytest.raises(InputError, match=r"no gold answer.*\[\] at index 1"):
        fn([["a"], []], ["a", "b"])


def test_mismatched_lengths() -> None:
    with pytest.raises(InputError, match=r"differ in length.*references has 2, predictions has 1"):
        f1([["a"], ["b"]], ["a"])


def test_none_values() -> None:
    with pytest.raises(InputError, match=r"predictions contains None.*index 1"):
        exact_match([["a"], ["b"]], ["a", None])
    with pytest.raises(InputError, match=r"references contains None.*index 0, answer 1"):
        exact_match([["a", None]], ["a"])
    with pytest.raises(InputError, match=r"references contains None.*index 0"):
        exact_match([None], ["a"])
    with pytest.raises(InputError, match=r"predictions is missing"):
        exact_match([["a"]], None)


def test_non_string_items() -> None:
    with pytest.raises(InputError, match=r"predictions has a non-string item.*int 3 at index 0"):
        f1([["3"]], [3])
    with pytest.raises(InputError, match=r"references has a non-string item.*float"):
        f1([["a", 1.5]], ["a"])


def test_wrong_nesting() -> None:
    with pytest.raises(InputError, match=r"wrong nesting.*the string 'Paris' at index 0"):
        f1(["Paris", "Rome"], ["Paris", "Rome"])
    with pytest.raises(InputError, match=r"wrong nesting.*list inside the answers at index 0"):
        f1([[["Paris"]]], ["Paris"])
    with pytest.raises(InputError, match=r"predictions is a single string"):
        f1([["Paris"]], "Paris")
    with pytest.raises(InputError, match=r"predictions is a mapping"):
        f1([["Paris"]], {"q1": "Paris"})


def test_squad_bad_input() -> None:
    dataset = make_dataset([["Paris"], ["Rome"]])
    with pytest.raises(InputError, match=r"predictions are missing.*'q1'"):
        squad(dataset, {"q0": "Paris"})
    with pytest.raises(InputError, match=r"not in the SQuAD format"):
        squad({"data": [{"paragraphs": [{"questions": []}]}]}, {})
    with pytest.raises(InputError, match=r"not in the SQuAD format"):
        squad("dev.json", {})
    with pytest.raises(InputError, match=r"empty input"):
        squad({"data": []}, {})
    with pytest.raises(InputError, match=r"predictions is not a mapping"):
        squad(dataset, ["Paris", "Rome"])  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"predictions contains None"):
        squad(dataset, {"q0": "Paris", "q1": None})  # type: ignore[dict-item]
    with pytest.raises(InputError, match=r"no-answer probabilities are missing.*'q1'"):
        squad(dataset, {"q0": "Paris", "q1": ""}, na_probs={"q0": 0.5})
    with pytest.raises(InputError, match=r"not finite"):
        squad(dataset, {"q0": "Paris", "q1": ""}, na_probs={"q0": 0.5, "q1": math.nan})
    with pytest.raises(ConfigError, match=r"na_probs needs version '2.0'"):
        squad(dataset, {"q0": "Paris", "q1": ""}, version="1.1", na_probs={"q0": 0.5, "q1": 0})
    with pytest.raises(InputError, match=r"duplicate question id"):
        squad(make_dataset([["a"]]) + make_dataset([["b"]]), {"q0": "a"})
    unanswerable = make_dataset([["a"]], unanswerable=[True])
    with pytest.raises(InputError, match=r"no gold answer.*use version='2.0'"):
        squad(unanswerable, {"q0": ""}, version="1.1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert squad(unanswerable, {"q0": ""})["NoAns_exact"] == 1.0
