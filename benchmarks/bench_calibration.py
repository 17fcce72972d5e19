"""Calibration benchmarks against scikit-learn's calibration_curve on 10,000,000 samples.

calibration_curve (equal-width and equal-mass bins) is timed against
scikit-learn's on the same probabilities (rounded to 6 digits, as model
outputs stored as text are) in the same process; expected_calibration_error
against a numpy expression on scikit-learn's bins. A last row times
calibration_curve on full-precision probabilities (10,000,000 distinct
values: scorekit's exact, mergeable state then holds each of them, while
scikit-learn bins the samples directly). "same result" means equal to a
relative tolerance of 1e-12.
"""

from __future__ import annotations

import numpy as np
import sklearn
from sklearn.calibration import calibration_curve as sk_curve

import scorekit.classification as C
from _timing import Row, best_of

N = 10_000_000
RTOL = 1e-12


def _agree(a: object, b: object) -> str:
    ok = all(
        np.allclose(np.asarray(x, dtype=float), np.asarray(y, dtype=float), rtol=RTOL, atol=0)
        for x, y in zip(a, b, strict=True)  # type: ignore[call-overload]
    )
    return "yes" if ok else "NO"


def _ece(y: np.ndarray, p: np.ndarray, n_bins: int) -> float:
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    ids = np.searchsorted(edges[1:-1], p)
    n = np.bincount(ids, minlength=n_bins)
    hits = np.bincount(ids, weights=y, minlength=n_bins)
    conf = np.bincount(ids, weights=p, minlength=n_bins)
    keep = n > 0
    return float(np.sum(np.abs(hits[keep] - conf[keep])) / p.size)


def run(n: int = N) -> list[Row]:
    rng = np.random.default_rng(0)
    size = f"{n:,} samples"
    sk = f"scikit-learn {sklearn.__version__}"
    y = rng.integers(0, 2, n)
    p = np.round(np.clip(0.35 * y + 0.65 * rng.random(n), 0, 1), 6)
    rows = []
    for strategy in ("uniform", "quantile"):
        t_ours, got = best_of(lambda s=strategy: C.calibration_curve(y, p, n_bins=10, strategy=s))
        t_ref, want = best_of(lambda s=strategy: sk_curve(y, p, n_bins=10, strategy=s))
        rows.append(
            Row(f"calibration_curve ({strategy})", size, t_ours, sk, t_ref, _agree(got, want))
        )
    t_ours, got = best_of(lambda: C.expected_calibration_error(y, p, n_bins=15))
    t_ref, want = best_of(lambda: _ece(y, p, 15))
    agree = "yes" if np.isclose(got, want, rtol=1e-9, atol=0) else f"NO ({got} vs {want})"
    rows.append(
        Row("expected_calibration_error", size, t_ours, "numpy on sklearn bins", t_ref, agree)
    )
    full = np.clip(0.35 * y + 0.65 * rng.random(n), 0, 1)
    t_ours, got = best_of(lambda: C.calibration_curve(y, full, n_bins=10))
    t_ref, want = best_of(lambda: sk_curve(y, full, n_bins=10))
    task = "calibration_curve (uniform), full-precision probabilities"
    rows.append(Row(task, size, t_ours, sk, t_ref, _agree(got, want)))
    return rows


if __name__ == "__main__":
    from _timing import HEADER

    print(HEADER)
    for row in run(N // 10):
        print(row.markdown())
