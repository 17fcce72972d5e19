"""Hypothesis strategies that produce a valid batch for each input kind of the registry.

A batch is a tuple of positional arrays, e.g. ``(y_true, y_pred)``. Arrays come from
a seeded numpy generator (fast, and Hypothesis still shrinks the seed, the size
and the shape), with ties made likely by drawing scores from small grids.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from scorekit.core import INPUT_KINDS


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
            # strictly positive: the domain of the Poisson and Gamma deviances
            return np.abs(y) + 0.5, np.abs(y + noise) + 0.5
        return y, y + noise
    if kind == "qrels_run":
        return _qrels_run(rng, n, style)
    if kind == "paired_scores":
        x = _scores(rng, (n,), style)
        y = _scores(rng, (n,), (style + 1) % 4)
        return x, np.where(rng.random(n) < 0.5, x, y)
    if kind == "log_probs":
        return _log_probs(rng, n, k, style)
    if kind == "qa_answers":
        return _qa_answers(rng, n, style)
    if kind == "references_predictions":
        return _references_predictions(rng, n, style)
    if kind == "requests":
        return (_requests(rng, n, style),)
    raise KeyError(kind)


def _requests(rng: np.random.Generator, n: int, style: int) -> Any:
    """Serving records (about 15% failed), as dicts, Requests, a DataFrame or an Arrow table.

    Times are rounded to a coarse grid with style 1, so ties, zero gaps and
    zero-length requests occur; some records lack a first-token time or token times.
    """
    import pandas as pd
    import pyarrow as pa

    from scorekit.throughput import Request

    start = rng.random(n) * 10
    ttft = rng.random(n) * 0.5
    output = rng.integers(0, 6, n)
    gaps = rng.random((n, 5)) * 0.1
    if style == 1:
        start, ttft, gaps = np.round(start, 1), np.round(ttft, 1), np.round(gaps, 1)
    times = start[:, None] + (ttft[:, None] + (np.cumsum(gaps, axis=1) - gaps[:, :1]))
    end = np.where(output > 0, times[np.arange(n), np.maximum(output - 1, 0)], start + ttft)
    failed = rng.random(n) < 0.15
    no_first = rng.random(n) < 0.2
    no_times = rng.random(n) < 0.3
    records = []
    for i in range(n):
        record: dict[str, Any] = {
            "prompt_tokens": int(rng.integers(0, 50)),
            "output_tokens": int(output[i]),
            "start": float(start[i]),
            "end": float(end[i]),
            "first_token": None if no_first[i] or output[i] == 0 else float(times[i, 0]),
            "token_times": None if no_times[i] else [float(t) for t in times[i, : output[i]]],
            "success": not failed[i],
            "error": "timeout" if failed[i] else None,
        }
        records.append(record)
    if style == 1:
        return [Request(**r) for r in records]
    if style == 2:
        return pd.DataFrame(records)
    if style == 3:
        return pa.Table.from_pylist(records)
    return records


def _log_probs(rng: np.random.Generator, n: int, k: int, style: int) -> tuple[Any, ...]:
    """Per-token log-probabilities: ``n`` ragged sequences (some empty), or padded with a mask."""
    lengths = rng.integers(0, 3 * k, n)
    values = np.log(rng.random((n, 3 * k)) * 0.999 + 1e-3)
    if style == 1:
        values = np.round(values, 1).clip(max=0.0)
    if style == 3:
        mask = np.arange(3 * k)[None, :] < lengths[:, None]
        return np.where(mask, values, 0.0), mask
    return ([values[i, : lengths[i]] for i in range(n)],)


_QA_WORDS = ["the", "a", "an", "Paris", "paris,", "Tower", "tower!", "1889", "x-y", "É", ""]


_TEXT_WORDS = ["the", "cat", "Cat", "sat", "on", "mat.", "a", "dog", "runs", "42", "x-y", "\n", ""]


def _references_predictions(rng: np.random.Generator, n: int, style: int) -> tuple[Any, ...]:
    """Short sentences from a tiny vocabulary; with style 1 or 3, lists of 1-3 references."""

    def sentence() -> str:
        words = rng.choice(_TEXT_WORDS, rng.integers(0, 9))
        return " ".join(str(w) for w in words)

    references: list[Any] = [sentence() for _ in range(n)]
    if style in (1, 3):
        references = [[sentence() for _ in range(rng.integers(1, 4))] for _ in range(n)]
    predictions = [sentence() for _ in range(n)]
    return references, predictions


def _qa_answers(rng: np.random.Generator, n: int, style: int) -> tuple[Any, ...]:
    """Gold answer lists (some unanswerable) and predictions from a small, tie-prone vocabulary."""

    def answer() -> str:
        words = rng.choice(_QA_WORDS, rng.integers(0, 4))
        return " ".join(str(w) for w in words)

    references = [[answer() for _ in range(rng.integers(1, 4))] for _ in range(n)]
    if style == 2:
        references = [[""] if rng.random() < 0.3 else r for r in references]
    predictions = [answer() for _ in range(n)]
    return references, predictions


def _qrels_run(rng: np.random.Generator, n: int, style: int) -> tuple[Any, ...]:
    """``n`` queries of graded judgments and a run with ties, unjudged and unretrieved docs.

    Some queries are only in the qrels, a few only in the run; every judged
    query has a document of the top grade 3 (so that ERR's default max grade is
    the same in any subset of the queries).
    """
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for i in range(n):
        q = f"q{i:03d}"
        pool = [f"d{j}" for j in rng.permutation(12)[: rng.integers(2, 12)]]
        role = rng.random()
        if role > 0.1:
            judged = [d for d in pool if rng.random() < 0.7] or pool[:1]
            grades = rng.integers(-1 if style == 3 else 0, 4, len(judged))
            grades[0] = 3
            qrels[q] = dict(zip(judged, grades.tolist(), strict=True))
        if role < 0.85 or role > 0.95:
            retrieved = [d for d in pool if rng.random() < 0.8] or pool[-1:]
            scores = rng.integers(0, 4, len(retrieved)) if style < 2 else rng.random(len(retrieved))
            run[q] = dict(zip(retrieved, scores.astype(float).tolist(), strict=True))
    return qrels, run


def query_count(args: tuple[Any, ...]) -> int:
    """How many queries a ranking batch has (the rows it is cut along)."""
    return len(set(args[0]) | set(args[1]))


def take(args: tuple[Any, ...], lo: int, hi: int) -> tuple[Any, ...]:
    """Rows ``lo:hi`` of a batch; for ranking batches, the queries ``lo:hi`` in sorted order."""
    if args and isinstance(args[0], dict):
        keep = set(sorted(set(args[0]) | set(args[1]))[lo:hi])
        return tuple({q: v for q, v in a.items() if q in keep} for a in args)
    return tuple(a[lo:hi] for a in args)


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
    if kind == "qrels_run":
        n = query_count(args)
        cuts = sorted(min(c, n) for c in cuts)
        weighted = False
    weights = np.random.default_rng(seed + 1).random(n) * 3 if weighted else None
    return {"args": args, "weights": weights, "cuts": cuts, "n": n}
