"""SQuAD exact match and F1 against the official evaluation logic on 100,000 answers.

The official scripts are not a package, so the reference here restates their
logic as they run it: a loop over questions, normalising every answer anew for
each (prediction, gold answer) pair and counting tokens with ``Counter``.
"""

from __future__ import annotations

import collections
import re
import string
import warnings
from typing import Any

import numpy as np

from _timing import Row, best_of
from scorekit import qa

N = 100_000

# the official logic ------------------------------------------------------------------


def _normalize(s: str) -> str:
    s = s.lower()
    exclude = set(string.punctuation)
    s = "".join(ch for ch in s if ch not in exclude)
    s = re.sub(re.compile(r"\b(a|an|the)\b", re.UNICODE), " ", s)
    return " ".join(s.split())


def _tokens(s: str) -> list[str]:
    return _normalize(s).split() if s else []


def _exact(gold: str, pred: str) -> int:
    return int(_normalize(gold) == _normalize(pred))


def _f1(gold: str, pred: str) -> float:
    gold_toks, pred_toks = _tokens(gold), _tokens(pred)
    common = collections.Counter(gold_toks) & collections.Counter(pred_toks)
    same = sum(common.values())
    if len(gold_toks) == 0 or len(pred_toks) == 0:
        return int(gold_toks == pred_toks)
    if same == 0:
        return 0
    precision = 1.0 * same / len(pred_toks)
    recall = 1.0 * same / len(gold_toks)
    return (2 * precision * recall) / (precision + recall)


def _raw_scores(dataset: list[Any], preds: dict[str, str]) -> tuple[dict[str, Any], ...]:
    exact: dict[str, Any] = {}
    f1: dict[str, Any] = {}
    for article in dataset:
        for paragraph in article["paragraphs"]:
            for item in paragraph["qas"]:
                qid = item["id"]
                golds = [a["text"] for a in item["answers"] if _normalize(a["text"])] or [""]
                exact[qid] = max(_exact(g, preds[qid]) for g in golds)
                f1[qid] = max(_f1(g, preds[qid]) for g in golds)
    return exact, f1


def _best_thresh(
    preds: dict[str, str], scores: dict[str, Any], na: dict[str, float], has: dict[str, bool]
) -> tuple[float, float]:
    cur = sum(1 for k in has if not has[k])
    best, thresh = cur, 0.0
    for qid in sorted(na, key=lambda k: na[k]):
        if qid not in scores:
            continue
        diff = scores[qid] if has[qid] else (-1 if preds[qid] else 0)
        cur += diff
        if cur > best:
            best, thresh = cur, na[qid]
    return 100.0 * best / len(scores), thresh


def _official_v2(dataset: list[Any], preds: dict[str, str], na: dict[str, float]) -> dict[str, Any]:
    has = {
        item["id"]: bool(item["answers"])
        for article in dataset
        for paragraph in article["paragraphs"]
        for item in paragraph["qas"]
    }
    exact_raw, f1_raw = _raw_scores(dataset, preds)

    def apply(scores: dict[str, Any]) -> dict[str, Any]:
        return {q: (float(not has[q]) if na[q] > 1.0 else s) for q, s in scores.items()}

    exact, f1 = apply(exact_raw), apply(f1_raw)
    out: dict[str, Any] = {
        "exact": 100.0 * sum(exact.values()) / len(exact),
        "f1": 100.0 * sum(f1.values()) / len(f1),
        "total": len(exact),
    }
    for prefix, ids in (
        ("HasAns", [q for q in has if has[q]]),
        ("NoAns", [q for q in has if not has[q]]),
    ):
        out[f"{prefix}_exact"] = 100.0 * sum(exact[q] for q in ids) / len(ids)
        out[f"{prefix}_f1"] = 100.0 * sum(f1[q] for q in ids) / len(ids)
        out[f"{prefix}_total"] = len(ids)
    out["best_exact"], out["best_exact_thresh"] = _best_thresh(preds, exact_raw, na, has)
    out["best_f1"], out["best_f1_thresh"] = _best_thresh(preds, f1_raw, na, has)
    return out


# data ------------------------------------------------------------------------------


def _answers(n: int) -> tuple[list[list[str]], list[str], list[bool], list[float]]:
    """Deterministic SQuAD-like answers: 1-3 gold spans, similar predictions, 1/3 unanswerable."""
    rng = np.random.default_rng(0)
    vocab = np.array(
        [f"w{i}" for i in range(5000)] + ["the", "a", "an", "The", "of", "in", "1,000", "U.S."]
    )
    zipf = np.minimum(rng.zipf(1.3, 8 * n) - 1, len(vocab) - 1)
    words = vocab[zipf].tolist()
    pos = 0

    def span(k: int) -> list[str]:
        nonlocal pos
        out = words[pos : pos + k]
        pos = (pos + k) % (len(words) - 10)
        return out

    refs, preds, has = [], [], []
    for _ in range(n):
        base = span(int(rng.integers(1, 7)))
        golds = [" ".join(base)]
        for _ in range(int(rng.integers(0, 3))):
            golds.append(" ".join(base[int(rng.integers(0, len(base))) :]) + ".")
        u = rng.random()
        if u < 0.3:
            pred = golds[0].upper()
        elif u < 0.7:
            pred = " ".join([*base[1:], *span(2)]) + ","
        elif u < 0.85:
            pred = ""
        else:
            pred = " ".join(span(3))
        answerable = rng.random() > 1 / 3
        refs.append(golds if answerable else [""])
        preds.append(pred)
        has.append(answerable)
    na = np.round(rng.random(n), 2).tolist()
    return refs, preds, has, na


def _dataset(refs: list[list[str]], has: list[bool]) -> list[Any]:
    qas = [
        {"id": f"q{i}", "answers": [{"text": g} for g in golds] if h else []}
        for i, (golds, h) in enumerate(zip(refs, has, strict=True))
    ]
    return [
        {"title": "bench", "paragraphs": [{"qas": qas[i : i + 5]} for i in range(0, len(qas), 5)]}
    ]


def _agree_scores(ours: tuple[Any, Any], ref: tuple[dict[str, Any], dict[str, Any]]) -> str:
    exact, f1 = ours
    ok = exact.tolist() == [float(v) for v in ref[0].values()] and f1.tolist() == [
        float(v) for v in ref[1].values()
    ]
    return "yes (per question, bit for bit)" if ok else "NO"


def _agree_eval(ours: dict[str, Any], ref: dict[str, Any]) -> str:
    bad = [
        k
        for k in ref
        if not np.isclose(
            ours[k] if k.endswith(("total", "thresh")) else 100.0 * ours[k], ref[k], rtol=1e-12
        )
    ]
    return "yes (all 14 values)" if not bad and set(ours) == set(ref) else f"NO ({bad})"


def run(n: int = N) -> list[Row]:
    refs, preds, has, na_list = _answers(n)
    dataset = _dataset(refs, has)
    predictions = {f"q{i}": p for i, p in enumerate(preds)}
    na = {f"q{i}": v for i, v in enumerate(na_list)}
    size = f"{n:,} answers"
    official = "official SQuAD v2.0 logic"

    t_ours, ours = best_of(lambda: qa.question_scores(refs, preds))
    t_ref, ref = best_of(lambda: _raw_scores(dataset, predictions), repeat=1)
    rows = [
        Row(
            "SQuAD exact match + F1, 1-3 gold answers",
            size,
            t_ours,
            official,
            t_ref,
            _agree_scores(ours, ref),
        )
    ]
    t_ours, full = best_of(lambda: qa.squad(dataset, predictions, na_probs=na))
    t_ref, ref_full = best_of(lambda: _official_v2(dataset, predictions, na), repeat=1)
    rows.append(
        Row(
            "squad v2.0 with no-answer thresholds",
            size,
            t_ours,
            official,
            t_ref,
            _agree_eval(full, ref_full),
        )
    )
    return rows


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    for row in run():
        print(row.markdown())
