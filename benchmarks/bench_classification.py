"""Classification benchmarks against scikit-learn on 10,000,000 samples."""

from __future__ import annotations

import warnings

import numpy as np
import sklearn
import sklearn.metrics as skm

import scorekit.classification as C
from _timing import Row, best_of

N = 10_000_000


def _agree(a: object, b: object) -> str:
    ok = np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-12, atol=0)
    return "yes" if ok else f"NO ({a} vs {b})"


def run(n: int = N) -> list[Row]:
    rng = np.random.default_rng(0)
    size = f"{n:,} samples"
    rows = []
    sk = f"scikit-learn {sklearn.__version__}"

    y_true = rng.integers(0, 10, n)
    y_pred = np.where(rng.random(n) < 0.7, y_true, rng.integers(0, 10, n))

    t_ours, ours = best_of(lambda: C.confusion_matrix(y_true, y_pred))
    t_ref, ref = best_of(lambda: skm.confusion_matrix(y_true, y_pred), repeat=1)
    rows.append(Row("confusion_matrix, 10 classes", size, t_ours, sk, t_ref, _agree(ours, ref)))
    t_np, counts = best_of(lambda: np.bincount(y_true * 10 + y_pred, minlength=100))
    rows.append(
        Row(
            "confusion_matrix vs bare numpy.bincount(t*k+p)",
            size,
            t_ours,
            "numpy",
            t_np,
            _agree(ours.ravel(), counts),
        )
    )

    t_ours, ours = best_of(lambda: C.f1(y_true, y_pred, average="macro"))
    t_ref, ref = best_of(lambda: skm.f1_score(y_true, y_pred, average="macro"), repeat=1)
    rows.append(Row("f1 macro, 10 classes", size, t_ours, sk, t_ref, _agree(ours, ref)))

    labels = rng.integers(0, 2, n)
    scores = np.round(np.clip(rng.normal(0.35 + 0.3 * labels, 0.2), 0, 1), 3)  # ties
    if hasattr(C, "roc_auc"):
        t_ours, ours = best_of(lambda: C.roc_auc(labels, scores))
        t_ref, ref = best_of(lambda: skm.roc_auc_score(labels, scores), repeat=1)
        rows.append(Row("roc_auc, binary, ties", size, t_ours, sk, t_ref, _agree(ours, ref)))
    if hasattr(C, "average_precision"):
        t_ours, ours = best_of(lambda: C.average_precision(labels, scores))
        t_ref, ref = best_of(lambda: skm.average_precision_score(labels, scores), repeat=1)
        rows.append(
            Row("average_precision, binary, ties", size, t_ours, sk, t_ref, _agree(ours, ref))
        )
    rows += _score_rows(rng, n)
    rows += _multiclass_rows(rng, max(n // 10, 1000))
    return rows


def _score_rows(rng: np.random.Generator, n: int) -> list[Row]:
    """Binary ROC AUC and AP on classifier scores (30% positives): rounded, distinct float64
    and float32, each also against one ``numpy.sort`` of the float64 scores (a floor: the
    exact metrics sort each class's scores and place one class among the other)."""
    size = f"{n:,} samples, 30% positive"
    sk = f"scikit-learn {sklearn.__version__}"
    labels = (rng.random(n) < 0.3).astype(np.int64)
    raw = 1 / (1 + np.exp(-rng.normal(0.6 * labels - 0.3, 1.0)))
    narrow = raw.astype(np.float32)
    # a network's float32 outputs repeat values: say how many of them are distinct
    share = np.unique(narrow).size / max(n, 1)
    inputs = {
        "rounded to 3 decimals": np.round(raw, 3),
        "rounded to 4 decimals": np.round(raw, 4),
        "distinct float64": raw,
        "distinct float32": _distinct_float32(rng, raw),
        f"float32 ({share:.0%} of values distinct)": narrow,
    }
    rows = []
    floor = f"numpy {np.__version__} sort of float64"
    for kind, scores in inputs.items():
        # the floor timed right before the metrics it is set against, five times each: a
        # shared machine's pace drifts between rows
        t_sort, _ = best_of(lambda: np.sort(raw), repeat=5)
        t_ours, ours = best_of(lambda s=scores: C.roc_auc(labels, s), repeat=5)
        t_ref, ref = best_of(lambda s=scores: skm.roc_auc_score(labels, s), repeat=1)
        rows.append(Row(f"roc_auc, binary, {kind}", size, t_ours, sk, t_ref, _agree(ours, ref)))
        if kind.startswith("rounded"):
            continue
        t_ap, ap = best_of(lambda s=scores: C.average_precision(labels, s), repeat=5)
        t_ref, ref = best_of(lambda s=scores: skm.average_precision_score(labels, s), repeat=1)
        rows.append(
            Row(f"average_precision, binary, {kind}", size, t_ap, sk, t_ref, _agree(ap, ref))
        )
        for name, t_metric in (("roc_auc", t_ours), ("average_precision", t_ap)):
            rows.append(
                Row(
                    f"{name}, {kind}, against one numpy.sort of the float64 scores",
                    size,
                    t_metric,
                    floor,
                    t_sort,
                    "(a floor, not a metric)",
                )
            )
    return rows


def _distinct_float32(rng: np.random.Generator, raw: np.ndarray) -> np.ndarray:
    """Distinct float32 scores in [1/128, 1) ordered as ``raw`` is (same ranks, so the same AUC).

    float32 bit patterns in that range order as their values do, so distinct
    patterns are distinct scores.
    """
    low, high = np.float32(1 / 128).view(np.int32), np.float32(1.0).view(np.int32)
    bits = rng.choice(int(high - low), size=raw.size, replace=False).astype(np.int32) + low
    values = np.sort(bits.view(np.float32))
    out = np.empty_like(values)
    out[np.argsort(raw, kind="stable")] = values
    return out


def _multiclass_rows(rng: np.random.Generator, n: int, k: int = 10) -> list[Row]:
    """One-vs-rest ROC AUC, macro and micro, on n samples of k classes (softmax scores)."""
    size = f"{n:,} x {k} classes"
    sk = f"scikit-learn {sklearn.__version__}"
    y = rng.integers(0, k, n)
    logits = rng.normal(size=(n, k))
    logits[np.arange(n), y] += 1.0
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    onehot = np.eye(k, dtype=np.int64)[y]
    rows = []
    t_ours, ours = best_of(lambda: C.roc_auc(y, p, multi_class="ovr", average="macro"))
    t_ref, ref = best_of(
        lambda: skm.roc_auc_score(y, p, multi_class="ovr", average="macro"), repeat=1
    )
    rows.append(Row("roc_auc, one-vs-rest macro", size, t_ours, sk, t_ref, _agree(ours, ref)))
    t_ours, ours = best_of(lambda: C.roc_auc(onehot, p, average="micro"))
    t_ref, ref = best_of(lambda: skm.roc_auc_score(onehot, p, average="micro"), repeat=1)
    rows.append(Row("roc_auc, one-vs-rest micro", size, t_ours, sk, t_ref, _agree(ours, ref)))
    return rows


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    for row in run():
        print(row.markdown())
