"""Calibration benchmarks against scikit-learn's calibration_curve on 10,000,000 samples.

calibration_curve (equal-width and equal-mass bins) is timed against
scikit-learn's on the same probabilities, first rounded to 6 digits (as model
outputs stored as text are), then at full precision (10,000,000 distinct
values: scorekit's exact, mergeable state then holds each of them, while
scikit-learn bins the samples directly); expected and maximum calibration
error against a numpy expression on scikit-learn's bins. Each pair is timed
in turns in the same process, and the median of the runs is kept, so that
the load of a shared machine weighs on both alike. "same result" means equal
to a relative tolerance of 1e-12.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import sklearn
from sklearn.calibration import calibration_curve as sk_curve

import scorekit.classification as C
from _timing import Row

N = 10_000_000
RTOL = 1e-12
RUNS = 7


def _in_turns(
    ours: Callable[[], Any], reference: Callable[[], Any], runs: int = RUNS
) -> tuple[float, Any, float, Any]:
    """Median wall times of ``runs`` calls of each, called in turns, and their last results."""
    times: tuple[list[float], list[float]] = ([], [])
    results: list[Any] = [None, None]
    for _ in range(runs):
        for i, fn in enumerate((ours, reference)):
            start = time.perf_counter()
            results[i] = fn()
            times[i].append(time.perf_counter() - start)
    return float(np.median(times[0])), results[0], float(np.median(times[1])), results[1]


def _agree(a: object, b: object) -> str:
    ok = all(
        np.allclose(np.asarray(x, dtype=float), np.asarray(y, dtype=float), rtol=RTOL, atol=0)
        for x, y in zip(a, b, strict=True)  # type: ignore[call-overload]
    )
    return "yes" if ok else "NO"


def _gaps(y: np.ndarray, p: np.ndarray, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    ids = np.searchsorted(edges[1:-1], p)
    n = np.bincount(ids, minlength=n_bins)
    hits = np.bincount(ids, weights=y, minlength=n_bins)
    conf = np.bincount(ids, weights=p, minlength=n_bins)
    keep = n > 0
    return np.abs(hits[keep] - conf[keep]), n[keep]


def _ece(y: np.ndarray, p: np.ndarray, n_bins: int) -> float:
    gaps, _ = _gaps(y, p, n_bins)
    return float(np.sum(gaps) / p.size)


def _mce(y: np.ndarray, p: np.ndarray, n_bins: int) -> float:
    gaps, n = _gaps(y, p, n_bins)
    return float(np.max(gaps / n))


def _close(got: float, want: float) -> str:
    return "yes" if np.isclose(got, want, rtol=1e-9, atol=0) else f"NO ({got} vs {want})"


def run(n: int = N) -> list[Row]:
    rng = np.random.default_rng(0)
    size = f"{n:,} samples"
    sk = f"scikit-learn {sklearn.__version__}"
    y = rng.integers(0, 2, n)
    p = np.round(np.clip(0.35 * y + 0.65 * rng.random(n), 0, 1), 6)
    rows = []
    for strategy in ("uniform", "quantile"):
        t_ours, got, t_ref, want = _in_turns(
            lambda s=strategy: C.calibration_curve(y, p, n_bins=10, strategy=s),
            lambda s=strategy: sk_curve(y, p, n_bins=10, strategy=s),
        )
        rows.append(
            Row(f"calibration_curve ({strategy})", size, t_ours, sk, t_ref, _agree(got, want))
        )
    t_ours, got, t_ref, want = _in_turns(
        lambda: C.expected_calibration_error(y, p, n_bins=15), lambda: _ece(y, p, 15)
    )
    rows.append(
        Row(
            "expected_calibration_error",
            size,
            t_ours,
            "numpy on sklearn bins",
            t_ref,
            _close(got, want),
        )
    )
    full = np.clip(0.35 * y + 0.65 * rng.random(n), 0, 1)
    for strategy in ("uniform", "quantile"):
        t_ours, got, t_ref, want = _in_turns(
            lambda s=strategy: C.calibration_curve(y, full, strategy=s),
            lambda s=strategy: sk_curve(y, full, strategy=s),
        )
        task = f"calibration_curve ({strategy}), full-precision probabilities"
        rows.append(Row(task, size, t_ours, sk, t_ref, _agree(got, want)))
    for name, ours, reference in (
        ("expected_calibration_error", C.expected_calibration_error, _ece),
        ("max_calibration_error", C.max_calibration_error, _mce),
    ):
        t_ours, got, t_ref, want = _in_turns(
            lambda f=ours: f(y, full), lambda f=reference: f(y, full, 15)
        )
        task = f"{name}, full-precision probabilities"
        rows.append(Row(task, size, t_ours, "numpy on sklearn bins", t_ref, _close(got, want)))
        # the goal's reference: scikit-learn's calibration_curve of the same bins, which gives
        # the bins' means but neither metric (the values agree with numpy on its bins)
        t_ours, got, t_curve, _ = _in_turns(
            lambda f=ours: f(y, full), lambda: sk_curve(y, full, n_bins=15)
        )
        task = f"{name}, full-precision probabilities, against calibration_curve"
        rows.append(Row(task, size, t_ours, f"{sk} calibration_curve", t_curve, _close(got, want)))
    return rows


if __name__ == "__main__":
    from _timing import HEADER

    print(HEADER)
    for row in run(N // 10):
        print(row.markdown())
