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


def bootstrap_roc_auc(n: int = 1_000_000, resamples: int = 1000, timed: int = 20) -> Row:
    """Poisson replicates of ROC AUC over distinct scores, against roc_auc_score on resamples.

    The reference is the loop users write: ``roc_auc_score`` on indices drawn
    with replacement, once per replicate. ``timed`` of its calls are timed and
    the time scaled to ``resamples`` calls (each call costs the same).
    """
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    score = rng.random(n) + 0.5 * y

    def ours() -> S.Interval:
        return S.bootstrap("roc_auc", y, score, n_resamples=resamples, seed=1)

    def theirs() -> list[float]:
        draws = np.random.default_rng(1)
        out = []
        for _ in range(timed):
            index = draws.integers(0, n, n)
            out.append(float(roc_auc_score(y[index], score[index])))
        return out

    t_ours, mine = best_of(ours, repeat=1)
    t_ref, ref = best_of(theirs, repeat=1)
    # both are bootstraps of the same AUC: their replicates agree in mean and spread
    close = abs(np.mean(ref) - float(np.mean(mine.replicates))) < 4 * float(np.std(mine.replicates))
    return Row(
        f"bootstrap ROC AUC, {resamples:,} Poisson replicates",
        f"{n:,} distinct scores",
        t_ours,
        f"scikit-learn loop ({timed} timed, x{resamples // timed})",
        t_ref * resamples / timed,
        "same distribution" if close else "NO",
    )


def run(n: int = N) -> list[Row]:
    return [paired_bootstrap_bleu(n), bootstrap_roc_auc()]


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    for row in run():
        print(row.markdown())
