"""Drop-in module benchmarks: scorekit.compat.sklearn against scikit-learn on 1,000,000 samples.

Each row times a function of ``scorekit.compat.sklearn`` and the
``sklearn.metrics`` function of the same name on the same data in the same
process, so the ratio includes the drop-in layer's argument and result
translation. "same result" means equal to a relative tolerance of 1e-12
(the same text for ``classification_report``).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import sklearn
import sklearn.metrics as skm

from _timing import HEADER, Row, best_of, machine
from scorekit.compat import sklearn as compat

N = 1_000_000


def _agree(a: Any, b: Any) -> str:
    if b is None:
        return "yes" if a is None else "NO (None expected)"
    if isinstance(b, str):
        return "yes" if a == b else "NO (text differs)"
    if isinstance(b, tuple):
        return "yes" if all(_agree(x, y) == "yes" for x, y in zip(a, b, strict=True)) else "NO"
    ok = np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-12, atol=0)
    return "yes" if ok else f"NO ({a} vs {b})"


def _call(function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return lambda: function(*args, **kwargs)


def run(n: int = N) -> list[Row]:
    rng = np.random.default_rng(0)
    size = f"{n:,} samples"
    sk = f"scikit-learn {sklearn.__version__}"
    rows: list[Row] = []
    t2, p2 = rng.integers(0, 2, n), rng.integers(0, 2, n)
    t5, p5 = rng.integers(0, 5, n), rng.integers(0, 5, n)
    score = rng.random(n)
    proba = rng.random((n, 5))
    proba /= proba.sum(axis=1, keepdims=True)
    y, yhat = rng.normal(size=n), rng.normal(size=n)
    grades, scores = rng.integers(0, 4, (n // 10, 10)), rng.random((n // 10, 10))
    cases: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
        ("f1_score", (t2, p2), {}),
        ("precision_recall_fscore_support", (t5, p5), {"average": "macro"}),
        ("classification_report", (t5, p5), {"digits": 4}),
        ("roc_auc_score", (t2, score), {}),
        ("roc_auc_score", (t5, proba), {"multi_class": "ovr"}),
        ("log_loss", (t5, proba), {}),
        ("mean_squared_error", (y, yhat), {}),
        ("r2_score", (y, yhat), {}),
        ("ndcg_score", (grades, scores), {"k": 5}),
    ]
    for name, args, kwargs in cases:
        ours = _call(getattr(compat, name), args, kwargs)
        ref = _call(getattr(skm, name), args, kwargs)
        t_ours, got = best_of(ours)
        t_ref, want = best_of(ref, repeat=1)
        task = f"compat.sklearn.{name}" + ("" if not kwargs else f" {kwargs}")
        data = size if name != "ndcg_score" else f"{n // 10:,} queries x 10"
        rows.append(Row(task, data, t_ours, sk, t_ref, _agree(got, want)))
    return rows


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    scale = 10 if "--small" in sys.argv else 1
    print(f"Machine: {machine()}\n")
    print(HEADER)
    for row in run(N // scale):
        print(row.markdown())
