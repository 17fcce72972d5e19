"""Information and split-criterion benchmarks against scikit-learn and scipy.

Feature ranking on 1,000,000 rows x 50 features: information gain of discrete
features against ``mutual_info_classif`` (the same quantity in nats), and the
best numeric threshold of each feature against a depth-1 ``DecisionTreeClassifier``
fitted once per feature (same threshold, same impurity decrease).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import scipy
import sklearn
from scipy.stats import entropy as scipy_entropy
from sklearn.feature_selection import mutual_info_classif
from sklearn.tree import DecisionTreeClassifier

import scorekit.information as inf
from _timing import Row, best_of

N = 1_000_000
FEATURES = 50


def _target(rng: np.random.Generator, X: np.ndarray) -> np.ndarray:
    """Three classes from a noisy linear score in which feature j weighs 1 / (j + 1)."""
    weights = 1.0 / np.arange(1, X.shape[1] + 1)
    z = (X - X.mean(axis=0)) / X.std(axis=0)
    score = z @ weights + rng.normal(size=len(X)) * 2.0
    return np.digitize(score, np.quantile(score, [1 / 3, 2 / 3]))


def _by_column(splits: list[inf.Split], p: int) -> tuple[np.ndarray, np.ndarray]:
    scores = np.full(p, np.nan)
    thresholds = np.full(p, np.nan)
    for s in splits:
        scores[s.feature] = s.score
        thresholds[s.feature] = np.nan if s.threshold is None else s.threshold
    return scores, thresholds


def _agree_mi(ours: list[inf.Split], mi: np.ndarray) -> str:
    scores, _ = _by_column(ours, len(mi))
    ranking = [s.feature for s in ours]
    expected = [int(j) for j in np.argsort(-mi, kind="stable")]
    if not np.allclose(scores, mi, rtol=1e-9, atol=1e-12):
        worst = float(np.max(np.abs(scores - mi)))
        return f"NO (max difference {worst:.2e})"
    if ranking != expected:
        return "NO (ranking differs)"
    return "yes (values and ranking)"


def _stumps(X: np.ndarray, y: np.ndarray, criterion: str) -> list[tuple[float, float]]:
    """Threshold and impurity decrease of a depth-1 tree fitted on each column alone."""
    out = []
    for j in range(X.shape[1]):
        tree = DecisionTreeClassifier(max_depth=1, criterion=criterion, random_state=0)
        tree.fit(X[:, j : j + 1], y)
        t = tree.tree_
        if t.node_count == 1:
            out.append((math.nan, 0.0))
            continue
        w = t.weighted_n_node_samples
        gain = t.impurity[0] - (w[1] * t.impurity[1] + w[2] * t.impurity[2]) / w[0]
        out.append((float(t.threshold[0]), float(gain)))
    return out


def _agree_stumps(ours: list[inf.Split], stumps: list[tuple[float, float]]) -> str:
    scores, thresholds = _by_column(ours, len(stumps))
    ref_t = np.array([t for t, _ in stumps])
    ref_g = np.array([g for _, g in stumps])
    same_t = int(np.sum(thresholds == ref_t))
    if same_t != len(stumps):
        return f"NO ({len(stumps) - same_t} thresholds differ)"
    if not np.allclose(scores, ref_g, rtol=1e-9, atol=1e-12):
        worst = float(np.max(np.abs(scores - ref_g)))
        return f"NO (gain differs by up to {worst:.2e})"
    return "yes (every threshold and gain)"


def _agree(a: Any, b: Any, rtol: float = 1e-12) -> str:
    ok = np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=rtol, atol=0)
    return "yes" if ok else f"NO ({a} vs {b})"


def _discrete_rows(rng: np.random.Generator, n: int) -> list[Row]:
    """Information gain of 10-value integer features, in nats: the mutual information."""
    X = rng.integers(0, 10, (n, FEATURES))
    y = _target(rng, X.astype(np.float64))
    t_ours, ours = best_of(
        lambda: inf.rank_features(X, y, criterion="information_gain", categorical=True, base=math.e)
    )
    t_ref, mi = best_of(lambda: mutual_info_classif(X, y, discrete_features=True), repeat=1)
    return [
        Row(
            "rank_features information_gain, 10-value discrete features, 3 classes",
            f"{n:,} rows x {FEATURES} features",
            t_ours,
            f"scikit-learn {sklearn.__version__} mutual_info_classif(discrete_features=True)",
            t_ref,
            _agree_mi(ours, mi),
        )
    ]


def _numeric_row(X: np.ndarray, columns: np.ndarray, y: np.ndarray, criterion: str) -> Row:
    tree_criterion = "gini" if criterion == "gini_gain" else "entropy"
    t_ours, ours = best_of(lambda: inf.rank_features(X, y, criterion=criterion))  # type: ignore[arg-type]
    t_ref, stumps = best_of(lambda: _stumps(columns, y, tree_criterion), repeat=1)
    distinct = len(np.unique(X[:, 0]))
    return Row(
        f"rank_features {criterion}, float features (~{distinct:,} values each), 3 classes",
        f"{len(X):,} rows x {FEATURES} features",
        t_ours,
        f"scikit-learn {sklearn.__version__} DecisionTreeClassifier(max_depth=1, "
        f"criterion={tree_criterion!r}) x {FEATURES}",
        t_ref,
        _agree_stumps(ours, stumps),
    )


def _numeric_rows(rng: np.random.Generator, n: int) -> list[Row]:
    """Best binary threshold of each float feature against a depth-1 tree per feature.

    Values have 3 decimals and are stored as float32, the precision the trees
    work in, so both sides see the same numbers.
    """
    X = np.round(rng.normal(size=(n, FEATURES)) * 100, 3).astype(np.float32)
    y = _target(rng, X.astype(np.float64))
    columns = np.asfortranarray(X)  # each tree gets its column without a copy
    return [_numeric_row(X, columns, y, c) for c in ("gini_gain", "information_gain")]


def _vector_rows(rng: np.random.Generator, n: int) -> list[Row]:
    """Entropy and KL divergence of long probability vectors against scipy."""
    sp = f"scipy {scipy.__version__}"
    m = n * 10
    p = rng.random(m)
    p /= p.sum()
    q = rng.random(m) + 1e-3
    q /= q.sum()
    t_ours, ours_h = best_of(lambda: inf.entropy(p, base=2))
    t_ref, ref_h = best_of(lambda: scipy_entropy(p, base=2))
    agree = _agree(ours_h, ref_h, rtol=1e-10)
    rows = [Row("entropy of a distribution", f"{m:,} outcomes", t_ours, sp, t_ref, agree)]
    t_ours, ours_kl = best_of(lambda: inf.kl_divergence(p, q, base=2))
    t_ref, ref_kl = best_of(lambda: scipy_entropy(p, q, base=2))
    agree = _agree(ours_kl, ref_kl, rtol=1e-10)
    rows.append(Row("kl_divergence", f"{m:,} outcomes", t_ours, sp, t_ref, agree))
    return rows


def run(n: int = N) -> list[Row]:
    rng = np.random.default_rng(0)
    return _discrete_rows(rng, n) + _numeric_rows(rng, n) + _vector_rows(rng, n)


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    for row in run():
        print(row.markdown())
