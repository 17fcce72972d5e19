"""Hypothesis strategies that produce a valid batch for each input kind of the registry.

A batch is a tuple of positional arrays, e.g. ``(y_true, y_pred)``. Arrays come from
a seeded numpy generator (fast, and Hypothesis still shrinks the seed, the size
and the shape), with ties made likely by drawing scores from small grids.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from scorekit._core import INPUT_KINDS


def _scores(rng: np.random.Generator, shape: tuple[int, ...], style: int) -> np.ndarray:
    if style == 0:
        return rng.random(shape)
    if style == 1:
        return rng.integers(0, 4, shape).astype(np.float64)
    if style == 2:
        return np.round(rng.normal(size=shape), 1)
    return rng.normal(size=shape) * 1e6


def _proba(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    raw = rng.random((n, k)) + 1e-3
    return raw / raw.sum(axis=1, keepdims=True)


def make_batch(kind: str, seed: int, n: int, k: int, style: int) -> tuple[Any, ...]:
    """Build one batch of the given input kind (n rows, k classes or labels)."""
    rng = np.random.default_rng(seed)
    if kind == "binary_labels":
        return rng.integers(0, 2, n), rng.integers(0, 2, n)
    if kind == "labels":
        return rng.integers(0, k, n), rng.integers(0, k, n)
    if kind == "multilabel":
        return rng.integers(0, 2, (n, k)), rng.integers(0, 2, (n, k))
    if kind == "binary_scores":
        return rng.integers(0, 2, n), _scores(rng, (n,), style)
    if kind == "multiclass_scores":
        return rng.integers(0, k, n), _proba(rng, n, k)
    if kind == "multilabel_scores":
        return rng.integers(0, 2, (n, k)), _scores(rng, (n, k), style)
    if kind == "binary_proba":
        p = rng.random(n)
        if style == 1:
            p = np.round(p, 1)
        return rng.integers(0, 2, n), p
    if kind == "proba":
        return rng.integers(0, k, n), _proba(rng, n, k)
    if kind == "target":
        return (rng.integers(0, k, n),)
    if kind == "feature_target":
        x = rng.integers(0, 4, n) if style < 2 else np.round(rng.normal(size=n), 1)
        return x, rng.integers(0, k, n)
    if kind in ("regression", "regression_multi", "regression_positive"):
        shape = (n, k) if kind == "regression_multi" else (n,)
        y = _scores(rng, shape, style)
        noise = _scores(rng, shape, (style + 1) % 4)
        if kind == "regression_positive":
            return np.abs(y), np.abs(y + noise)
        return y, y + noise
    raise KeyError(kind)


@st.composite
def batches(draw: st.DrawFn, kind: str, min_rows: int = 3, max_rows: int = 60) -> dict[str, Any]:
    """A batch plus optional sample weights and cut points for splitting it."""
    assert kind in INPUT_KINDS, kind
    n = draw(st.integers(min_rows, max_rows))
    k = draw(st.integers(2, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    style = draw(st.integers(0, 3))
    weighted = draw(st.booleans())
    cuts = sorted(draw(st.lists(st.integers(0, n), min_size=2, max_size=2)))
    args = make_batch(kind, seed, n, k, style)
    weights = np.random.default_rng(seed + 1).random(n) * 3 if weighted else None
    return {"args": args, "weights": weights, "cuts": cuts, "n": n}
