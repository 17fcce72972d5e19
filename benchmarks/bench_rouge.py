"""ROUGE benchmarks against Google's rouge-score on 10,000 summary pairs."""

from __future__ import annotations

import warnings

import numpy as np
import rouge_score
from rouge_score import rouge_scorer

import scorekit.text as T
from _timing import Row, best_of
from scorekit.text._porter import stem as stem_word

N = 10_000

_VOCABULARY = (
    "the a of and to in is was for on that with as by at from it this be are "
    "government market company people year years report said says new first last "
    "city state police court president minister officials study research data "
    "increase increased increasing growth rate rates economic economy million "
    "percent according announced announcing announcement results result shows "
    "showed children school schools health hospital water energy power prices "
    "price rising rose fell falling team players season game games won win "
    "national international local public private major plans planned planning"
)
_WORDS = _VOCABULARY.split()


def _sentences(rng: np.random.Generator, n: int, lo: int, hi: int) -> list[str]:
    """``n`` English-like texts of ``lo..hi`` words (Zipf-like word choice), some punctuation."""
    weights = 1.0 / np.arange(1, len(_WORDS) + 1)
    weights /= weights.sum()
    lengths = rng.integers(lo, hi + 1, n)
    words = rng.choice(len(_WORDS), size=int(lengths.sum()), p=weights)
    out = []
    start = 0
    for length in lengths.tolist():
        chosen = [_WORDS[w] for w in words[start : start + length]]
        start += length
        chosen[0] = chosen[0].capitalize()
        out.append(" ".join(chosen) + ".")
    return out


def _pairs(n: int) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(0)
    refs = _sentences(rng, n, 15, 40)
    preds = []
    for ref, other in zip(refs, _sentences(rng, n, 5, 20), strict=True):
        words = ref.split()
        keep = rng.random(len(words)) < 0.7
        preds.append(" ".join([w for w, k in zip(words, keep, strict=True) if k] + other.split()))
    return refs, preds


def _mean_fmeasure(scores: list[dict[str, rouge_scorer.scoring.Score]], t: str) -> float:
    return float(np.mean([s[t].fmeasure for s in scores]))


def _agree(ours: dict[str, T.RougeScore], ref: list[dict[str, object]], types: list[str]) -> str:
    for t in types:
        for k, field in enumerate(("precision", "recall", "fmeasure")):
            expected = np.array([s[t][k] for s in ref])  # type: ignore[index]
            got = ours[t].per_sample[:, k]  # type: ignore[index]
            if not np.allclose(got, expected, rtol=0, atol=1e-12):
                return f"NO ({t} {field})"
            if not np.isclose(getattr(ours[t], field), expected.mean(), rtol=1e-12, atol=0):
                return f"NO ({t} mean {field})"
    return "yes"


def run(n: int = N) -> list[Row]:
    refs, preds = _pairs(n)
    size = f"{n:,} pairs"
    name = f"rouge-score {getattr(rouge_score, '__version__', '0.1.2')}"
    rows = []
    # ROUGE-Lsum: references in lines (cut after "the"), and in the last row the
    # predictions too (cut after "and"), so every line pair of an item is compared
    ref_lines = [r.replace(" the ", " the\n") for r in refs]
    pred_lines = [p.replace(" and ", " and\n") for p in preds]
    for types, stem, task, texts, guesses in (
        (["rouge1", "rouge2", "rougeL"], False, "ROUGE-1/2/L", refs, preds),
        (["rouge1", "rouge2", "rougeL"], True, "ROUGE-1/2/L, Porter stemmer", refs, preds),
        (["rougeLsum"], False, "ROUGE-Lsum", ref_lines, preds),
        (
            ["rougeLsum"],
            True,
            "ROUGE-Lsum, Porter stemmer, predictions in lines too",
            ref_lines,
            pred_lines,
        ),
    ):
        scorer = rouge_scorer.RougeScorer(types, use_stemmer=stem)

        def ours_fn(
            ts: list[str] = types, s: bool = stem, rs: list[str] = texts, ps: list[str] = guesses
        ) -> object:
            stem_word.cache_clear()  # time the stemming too, not a warm cache
            return T.rouge(rs, ps, types=ts, stemmer=s, per_sample=True)

        t_ours, ours = best_of(ours_fn)
        t_ref, ref = best_of(
            lambda sc=scorer, rs=texts, ps=guesses: [
                sc.score(r, p) for r, p in zip(rs, ps, strict=True)
            ],
            repeat=1,
        )
        rows.append(Row(task, size, t_ours, name, t_ref, _agree(ours, ref, types)))
    return rows


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    for row in run():
        print(row.markdown())
