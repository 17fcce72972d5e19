"""Regression benchmarks against scikit-learn and bare numpy on 10,000,000 samples.

Every metric (the deviances on the absolute values of the data, which are
positive) is timed against its scikit-learn function on the same float64
data in the same process (sMAPE and wMAPE, which scikit-learn lacks, against a
numpy expression of their definition), and mse, mae and r2 also against the
bare numpy expression. "same result" means equal to a relative tolerance of
1e-12. prediction_sample (1,000 pairs kept) is timed against numpy's distinct
pairs with their counts (``numpy.unique(axis=0)``, what an exact, unbounded
state would keep); "same result" there means every sampled pair has the
weight of its rows in that table.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import sklearn
import sklearn.metrics as skm

import scorekit.regression as R
from _timing import Row, best_of

N = 10_000_000

RTOL = 1e-12


def _agree(a: object, b: object) -> str:
    ok = np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=RTOL, atol=0)
    return "yes" if ok else f"NO ({a} vs {b})"


def _smape(t: np.ndarray, p: np.ndarray) -> float:
    return float(np.mean(2 * np.abs(t - p) / (np.abs(t) + np.abs(p))))


def _wmape(t: np.ndarray, p: np.ndarray) -> float:
    return float(np.sum(np.abs(t - p)) / np.sum(np.abs(t)))


def _r2(t: np.ndarray, p: np.ndarray) -> float:
    return float(1 - np.sum((t - p) ** 2) / np.sum((t - t.mean()) ** 2))


def run(n: int = N) -> list[Row]:
    rng = np.random.default_rng(0)
    size = f"{n:,} samples"
    rows = []
    sk = f"scikit-learn {sklearn.__version__}"

    y_true = rng.normal(50.0, 10.0, n)
    y_pred = y_true + rng.normal(0.0, 3.0, n)
    weight = rng.random(n)
    pos_true, pos_pred = np.abs(y_true), np.abs(y_pred)

    def compare(
        task: str,
        ours: Callable[[], Any],
        ref: Callable[[], Any],
        ref_name: str = sk,
        repeat: int = 3,
    ) -> None:
        t_ours, got = best_of(ours, repeat=repeat)
        t_ref, want = best_of(ref, repeat=repeat)
        rows.append(Row(task, size, t_ours, ref_name, t_ref, _agree(got, want)))

    t, p, w = y_true, y_pred, weight
    pairs: list[tuple[str, Callable[..., Any], Callable[..., Any], bool]] = [
        ("mse", R.mse, skm.mean_squared_error, False),
        ("rmse", R.rmse, skm.root_mean_squared_error, False),
        ("mae", R.mae, skm.mean_absolute_error, False),
        ("medae", R.medae, skm.median_absolute_error, False),
        ("mape", R.mape, skm.mean_absolute_percentage_error, False),
        ("r2", R.r2, skm.r2_score, False),
        ("explained_variance", R.explained_variance, skm.explained_variance_score, False),
        ("max_error", R.max_error, skm.max_error, False),
        ("msle", R.msle, skm.mean_squared_log_error, True),
        ("rmsle", R.rmsle, skm.root_mean_squared_log_error, True),
        ("pinball_loss", R.pinball_loss, skm.mean_pinball_loss, False),
        ("poisson_deviance", R.poisson_deviance, skm.mean_poisson_deviance, True),
        ("gamma_deviance", R.gamma_deviance, skm.mean_gamma_deviance, True),
        ("d2_absolute_error", R.d2_absolute_error, skm.d2_absolute_error_score, False),
        ("d2_tweedie", R.d2_tweedie, skm.d2_tweedie_score, False),
    ]
    for name, ours, ref, positive in pairs:
        a, b = (pos_true, pos_pred) if positive else (t, p)
        compare(name, lambda f=ours, a=a, b=b: f(a, b), lambda f=ref, a=a, b=b: f(a, b))
    compare(
        "tweedie_deviance, power=1.5",
        lambda: R.tweedie_deviance(pos_true, pos_pred, power=1.5),
        lambda: skm.mean_tweedie_deviance(pos_true, pos_pred, power=1.5),
    )
    compare(
        "pinball_loss, alpha=0.9, sample_weight",
        lambda: R.pinball_loss(t, p, alpha=0.9, sample_weight=w),
        lambda: skm.mean_pinball_loss(t, p, alpha=0.9, sample_weight=w),
    )
    compare(
        "d2_pinball, alpha=0.9",
        lambda: R.d2_pinball(t, p, alpha=0.9),
        lambda: skm.d2_pinball_score(t, p, alpha=0.9),
        repeat=2,
    )
    compare(
        "d2_pinball, alpha=0.9, sample_weight",
        lambda: R.d2_pinball(t, p, alpha=0.9, sample_weight=w),
        lambda: skm.d2_pinball_score(t, p, alpha=0.9, sample_weight=w),
        repeat=2,
    )
    compare(
        "d2_tweedie, power=2, sample_weight",
        lambda: R.d2_tweedie(pos_true, pos_pred, power=2, sample_weight=w),
        lambda: skm.d2_tweedie_score(pos_true, pos_pred, power=2, sample_weight=w),
    )
    compare("smape", lambda: R.smape(t, p), lambda: _smape(t, p), "numpy")
    compare("wmape", lambda: R.wmape(t, p), lambda: _wmape(t, p), "numpy")

    compare(
        "mse, sample_weight",
        lambda: R.mse(t, p, sample_weight=w),
        lambda: skm.mean_squared_error(t, p, sample_weight=w),
    )
    compare(
        "r2, sample_weight",
        lambda: R.r2(t, p, sample_weight=w),
        lambda: skm.r2_score(t, p, sample_weight=w),
    )
    compare(
        "medae, sample_weight",
        lambda: R.medae(t, p, sample_weight=w),
        lambda: skm.median_absolute_error(t, p, sample_weight=w),
        repeat=2,
    )

    t_ours, sample = best_of(lambda: R.prediction_sample(t, p), repeat=2)
    t_ref, (distinct, counts) = best_of(
        lambda: np.unique(np.column_stack([t, p]), axis=0, return_counts=True), repeat=1
    )
    at = np.searchsorted(distinct[:, 0], sample.y_true)
    same = np.array_equal(distinct[at, 1], sample.y_pred) and np.array_equal(
        counts[at], sample.weight
    )
    rows.append(
        Row(
            "prediction_sample (1,000 pairs)",
            size,
            t_ours,
            "numpy unique pairs with counts",
            t_ref,
            "yes" if same and sample.y_true.size == 1000 else "NO",
        )
    )

    compare(
        "mse vs bare numpy mean((t-p)**2)",
        lambda: R.mse(t, p),
        lambda: np.mean((t - p) ** 2),
        "numpy",
    )
    compare(
        "mae vs bare numpy mean(abs(t-p))",
        lambda: R.mae(t, p),
        lambda: np.mean(np.abs(t - p)),
        "numpy",
    )
    compare(
        "r2 vs bare numpy two-pass 1-sum((t-p)**2)/sum((t-mean)**2)",
        lambda: R.r2(t, p),
        lambda: _r2(t, p),
        "numpy",
    )
    return rows


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    for row in run():
        print(row.markdown())
