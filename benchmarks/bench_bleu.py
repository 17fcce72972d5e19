"""Corpus BLEU benchmarks against sacrebleu on 50,000 synthetic sentence pairs."""

from __future__ import annotations

import logging
import warnings

import numpy as np
import sacrebleu

import scorekit.text as T
from _timing import Row, best_of

N = 50_000

_LETTERS = np.array(list("abcdefghijklmnopqrstuvwxyz"))
_EXTRA = [",", ".", "(", ")", "3.5", "1,000", "e-mail", "don't", "&amp;", "U.S.", "$5", "x-2"]


def _vocabulary(rng: np.random.Generator, size: int = 8000) -> np.ndarray:
    """Pseudo-words of 1-9 letters plus punctuation, numbers and entities."""
    lengths = rng.integers(1, 10, size)
    letters = rng.choice(_LETTERS, int(lengths.sum()))
    cuts = np.cumsum(lengths)[:-1]
    words = ["".join(w) for w in np.split(letters, cuts)]
    return np.array(_EXTRA + words, dtype=object)


def corpus(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """``n`` (reference, prediction) pairs: Zipf-distributed words, 5-40 tokens,
    predictions that keep about 70 % of the reference words and drop up to 3 at the end.
    """
    rng = np.random.default_rng(seed)
    words = _vocabulary(rng)
    p = 1.0 / np.arange(1, len(words) + 1)
    p /= p.sum()
    lengths = rng.integers(5, 41, n)
    total = int(lengths.sum())
    ref_tokens = words[rng.choice(len(words), total, p=p)]
    hyp_tokens = ref_tokens.copy()
    swap = rng.random(total) < 0.3
    hyp_tokens[swap] = words[rng.choice(len(words), int(swap.sum()), p=p)]
    cuts = np.cumsum(lengths)[:-1]
    drop = rng.integers(0, 4, n)
    references = [" ".join(s) for s in np.split(ref_tokens, cuts)]
    predictions = [
        " ".join(s[: max(1, len(s) - d)])
        for s, d in zip(np.split(hyp_tokens, cuts), drop, strict=True)
    ]
    return references, predictions


def _agree(ours: T.BLEUResult, ref: sacrebleu.BLEUScore) -> str:
    same = (
        abs(ours.score - ref.score / 100) <= 1e-12
        and list(ours.counts) == list(ref.counts)
        and list(ours.totals) == list(ref.totals)
        and (ours.hyp_len, ours.ref_len) == (ref.sys_len, ref.ref_len)
    )
    return "yes" if same else f"NO ({ours.score} vs {ref.score / 100})"


def run(n: int = N) -> list[Row]:
    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    size = f"{n:,} sentence pairs"
    name = f"sacrebleu {sacrebleu.__version__}"
    references, predictions = corpus(n)
    rows = []

    t_ours, ours = best_of(lambda: T.bleu(references, predictions))
    t_ref, ref = best_of(lambda: sacrebleu.corpus_bleu(predictions, [references]), repeat=1)
    rows.append(Row("corpus BLEU, 13a", size, t_ours, name, t_ref, _agree(ours, ref)))

    second, _ = corpus(n, seed=1)
    multi = [[a, b] for a, b in zip(references, second, strict=True)]
    t_ours, ours = best_of(lambda: T.bleu(multi, predictions))
    t_ref, ref = best_of(lambda: sacrebleu.corpus_bleu(predictions, [references, second]), repeat=1)
    rows.append(Row("corpus BLEU, 13a, 2 references", size, t_ours, name, t_ref, _agree(ours, ref)))
    return rows


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    for row in run():
        print(row.markdown())
