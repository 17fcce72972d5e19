"""Confidence intervals and paired tests against the reference implementations.

One function per row; :func:`run` collects them.
"""

from __future__ import annotations

import logging
import warnings

import numpy as np
import sacrebleu
from sacrebleu.significance import PairedTest

import scorekit.stats as S
from _timing import Row, best_of
from bench_bleu import corpus

N = 10_000


def paired_bootstrap_bleu(n: int = N, resamples: int = 1000) -> Row:
    """sacrebleu's paired bootstrap of BLEU: a baseline and one system, from the texts."""
    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    references, baseline = corpus(n, seed=0)
    _, system = corpus(n, seed=2)
    system = [s if i % 3 else b for i, (s, b) in enumerate(zip(system, baseline, strict=True))]
    named = [("baseline", baseline), ("system", system)]

    def ours() -> S.PairedTest:
        return S.paired_bs(references, dict(named), metrics=["bleu"], n_samples=resamples)

    def theirs() -> dict[str, list[object]]:
        metric = {"BLEU": sacrebleu.BLEU()}
        _, scores = PairedTest(named, metric, [references], "bs", n_samples=resamples)()
        return scores

    t_ours, mine = best_of(ours)
    t_ref, ref = best_of(theirs, repeat=1)
    same = all(
        (a.score, a.mean, a.ci, a.p_value)
        == (float(b.score), float(b.mean), float(b.ci), None if b.p_value is None else b.p_value)
        for a, b in zip(mine.results["BLEU"], ref["BLEU"], strict=True)  # type: ignore[attr-defined]
    )
    return Row(
        "paired bootstrap BLEU, 2 systems",
        f"{n:,} segments x {resamples:,} resamples",
        t_ours,
        f"sacrebleu {sacrebleu.__version__}",
        t_ref,
        "yes" if same else "NO",
    )


def run(n: int = N) -> list[Row]:
    return [paired_bootstrap_bleu(n)]


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    for row in run():
        print(row.markdown())
