"""Bounded-memory alternatives against the exact reference: binned AUC / AP and the sketched median.

The binned metrics keep a fixed number of counts whatever the data size; the
result is an estimate with a guaranteed error bound, and the row checks that the
reference's exact value lies within it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import Row, best_of

N = 10_000_000


def _data(n: int) -> tuple[Any, Any]:
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, n)
    score = 1 / (1 + np.exp(-(rng.normal(size=n) + 1.2 * y - 0.6)))
    return y, score


def _within(estimate: Any, exact: float) -> str:
    ok = abs(estimate.value - exact) <= estimate.error_bound
    return f"{'yes' if ok else 'NO'}: within ±{estimate.error_bound:.1e} of {exact:.6f}"


def run(n: int = N) -> list[Row]:
    import sklearn
    import sklearn.metrics as skm

    from scorekit.classification import average_precision, quantile_edges, roc_auc
    from scorekit.regression import medae

    ref = f"scikit-learn {sklearn.__version__}"
    size = f"{n:,} samples (distinct scores)"
    y, score = _data(n)
    rows = []
    t_auc, auc = best_of(lambda: skm.roc_auc_score(y, score), repeat=1)
    t_ap, ap = best_of(lambda: skm.average_precision_score(y, score), repeat=1)
    edges = quantile_edges(score[: max(n // 100, 1000)], 1000)
    t, est = best_of(lambda: roc_auc(y, score, bins=1000))
    rows.append(Row("roc_auc bins=1000 (equal width)", size, t, ref, t_auc, _within(est, auc)))
    t, est = best_of(lambda: roc_auc(y, score, edges=edges))
    rows.append(
        Row("roc_auc, 1000 quantile edges of a 1% sample", size, t, ref, t_auc, _within(est, auc))
    )
    t, est = best_of(lambda: average_precision(y, score, edges=edges))
    rows.append(Row("average_precision, 1000 quantile edges", size, t, ref, t_ap, _within(est, ap)))
    rng = np.random.default_rng(8)
    truth = rng.normal(size=n) * 10
    pred = truth + rng.standard_t(3, size=n)
    t_med, med = best_of(lambda: skm.median_absolute_error(truth, pred), repeat=1)
    t, est = best_of(lambda: medae(truth, pred, relative_accuracy=0.01))
    rows.append(
        Row(
            "medae relative_accuracy=0.01 (sketch)",
            f"{n:,} samples",
            t,
            ref,
            t_med,
            _within(est, med),
        )
    )
    return rows


if __name__ == "__main__":
    for row in run(int(float(sys.argv[1])) if len(sys.argv) > 1 else N):
        print(row.markdown(), flush=True)
