"""chrF, chrF++ and TER against sacrebleu, WER and CER against jiwer, on MT-like segment pairs."""

from __future__ import annotations

import logging
import warnings

import jiwer
import numpy as np
import sacrebleu
from sacrebleu.metrics import CHRF as RefCHRF
from sacrebleu.metrics import TER as RefTER

import scorekit.text as T
from _timing import Row, best_of
from bench_rouge import _WORDS, _sentences

N = 50_000
TER_N = 10_000  # sacrebleu's TER takes minutes on 50,000 segments; the ratio is per segment


def _pairs(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """References of 8..30 words and translations of them: words substituted, dropped, added,
    and neighbours swapped, as a machine translation differs from its reference."""
    rng = np.random.default_rng(seed)
    refs = _sentences(rng, n, 8, 30)
    preds = []
    for ref in refs:
        words = ref.split()
        out: list[str] = []
        for w in words:
            roll = rng.random()
            if roll < 0.1:
                out.append(_WORDS[int(rng.integers(len(_WORDS)))])
            elif roll < 0.15:
                continue
            else:
                out.append(w)
            if rng.random() < 0.05:
                out.append(_WORDS[int(rng.integers(len(_WORDS)))])
        if len(out) > 3 and rng.random() < 0.3:
            i = int(rng.integers(len(out) - 3))
            out[i : i + 3] = out[i + 1 : i + 3] + out[i : i + 1]
        preds.append(" ".join(out))
    return refs, preds


def _same(a: float, b: float) -> str:
    return "yes (rtol 1e-12)" if np.isclose(a, b, rtol=1e-12, atol=0) else f"NO ({a!r} vs {b!r})"


def run(n: int = N) -> list[Row]:
    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    refs, preds = _pairs(n)
    size = f"{n:,} segments"
    name = f"sacrebleu {sacrebleu.__version__}"
    rows = []
    for word_order, task in ((0, "chrF"), (2, "chrF++")):
        t_ours, ours = best_of(lambda wo=word_order: T.chrf(refs, preds, word_order=wo).score)
        t_ref, ref = best_of(
            lambda wo=word_order: RefCHRF(word_order=wo).corpus_score(preds, [refs]).score, repeat=1
        )
        rows.append(Row(task, size, t_ours, name, t_ref, _same(100 * ours, ref)))
    m = min(n, TER_N)
    t_ours, ours = best_of(lambda: T.ter(refs[:m], preds[:m]).score)
    t_ref, ref = best_of(lambda: RefTER().corpus_score(preds[:m], [refs[:m]]).score, repeat=1)
    rows.append(Row("TER", f"{m:,} segments", t_ours, name, t_ref, _same(100 * ours, ref)))
    jname = f"jiwer {getattr(jiwer, '__version__', '4')}"
    for task, ours_fn, ref_fn in (
        ("WER", T.wer, jiwer.wer),
        ("CER", T.cer, jiwer.cer),
    ):
        t_ours, ours = best_of(lambda f=ours_fn: f(refs, preds))
        t_ref, ref = best_of(lambda f=ref_fn: f(refs, preds), repeat=1)
        rows.append(Row(task, size, t_ours, jname, t_ref, _same(ours, float(ref))))
    t_ours, ours = best_of(lambda: T.error_rates(refs, preds))
    t_ref, ref = best_of(lambda: jiwer.process_words(refs, preds), repeat=1)
    agree = _same(ours.mer, ref.mer) if ours.hits == ref.hits else "NO (hits)"
    rows.append(Row("WER, MER, WIL, WIP and counts", size, t_ours, jname, t_ref, agree))
    return rows


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    for row in run():
        print(row.markdown(), flush=True)
