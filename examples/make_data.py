"""Build the small example files that ``scorekit demo`` evaluates.

Run ``python examples/make_data.py`` to rebuild ``examples/data/``; the output is
the same on every run (fixed seeds, numpy and pyarrow only). Three files, one per
task and one per format:

- ``binary.csv``: a spam filter's labels, scores and thresholded predictions;
- ``multiclass.parquet``: three classes with per-class probabilities;
- ``multilabel.jsonl``: four topic labels with scores and predictions.

``manifest.json`` lists each file with its task and columns, which is what the
demo reads.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

OUT = Path(__file__).resolve().parent / "data"


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def binary(rng: np.random.Generator, n: int = 400) -> pa.Table:
    """A classifier that sees a noisy view of the log-odds that produced the labels."""
    signal = rng.normal(size=n)
    label = (rng.random(n) < _sigmoid(2.2 * signal - 0.6)).astype(np.int64)
    score = np.round(_sigmoid(1.7 * signal + 0.8 * rng.normal(size=n) - 0.5), 4)
    pred = (score >= 0.5).astype(np.int64)
    return pa.table({"id": np.arange(1, n + 1), "label": label, "pred": pred, "score": score})


def multiclass(rng: np.random.Generator, n: int = 300) -> pa.Table:
    """Three classes with unequal frequencies; probabilities from a softmax of noisy logits."""
    classes = np.array(["bird", "cat", "dog"])
    truth = rng.choice(3, size=n, p=[0.25, 0.35, 0.40])
    logits = 1.6 * np.eye(3)[truth] + 0.9 * rng.normal(size=(n, 3)) + [0.0, 0.1, 0.2]
    proba = np.exp(logits - logits.max(axis=1, keepdims=True))
    proba /= proba.sum(axis=1, keepdims=True)
    columns: dict[str, object] = {
        "label": classes[truth],
        "pred": classes[np.argmax(proba, axis=1)],
    }
    for j, name in enumerate(classes):
        columns[f"p_{name}"] = proba[:, j]
    return pa.table(columns)


TOPICS = ("sports", "politics", "tech", "science")


def multilabel(rng: np.random.Generator, n: int = 250) -> pa.Table:
    """Four topics, at least one per document (tech and science often together), with scores."""
    base = rng.random((n, len(TOPICS))) < [0.30, 0.25, 0.35, 0.20]
    base[:, 3] |= base[:, 2] & (rng.random(n) < 0.4)
    none = ~base.any(axis=1)
    base[none, rng.integers(0, len(TOPICS), int(none.sum()))] = True
    truth = base.astype(np.int64)
    score = np.round(_sigmoid(2.0 * (2 * truth - 1) + 1.3 * rng.normal(size=truth.shape)), 4)
    pred = (score >= 0.5).astype(np.int64)
    columns: dict[str, object] = {"doc": [f"d{i:03d}" for i in range(1, n + 1)]}
    for j, topic in enumerate(TOPICS):
        columns[f"y_{topic}"] = truth[:, j]
    for j, topic in enumerate(TOPICS):
        columns[f"pred_{topic}"] = pred[:, j]
    for j, topic in enumerate(TOPICS):
        columns[f"score_{topic}"] = score[:, j]
    return pa.table(columns)


def _write_jsonl(table: pa.Table, path: Path) -> None:
    rows = table.to_pylist()
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


MANIFEST = [
    {
        "file": "binary.csv",
        "title": "Binary classification: a spam filter",
        "task": "binary",
        "true": ["label"],
        "pred": ["pred"],
        "score": ["score"],
    },
    {
        "file": "multiclass.parquet",
        "title": "Multiclass classification: bird / cat / dog",
        "task": "multiclass",
        "true": ["label"],
        "pred": ["pred"],
        "score": ["p_bird", "p_cat", "p_dog"],
    },
    {
        "file": "multilabel.jsonl",
        "title": "Multi-label classification: document topics",
        "task": "multilabel",
        "true": [f"y_{t}" for t in TOPICS],
        "pred": [f"pred_{t}" for t in TOPICS],
        "score": [f"score_{t}" for t in TOPICS],
    },
]


def main() -> None:
    """Write the three example files and the manifest."""
    OUT.mkdir(parents=True, exist_ok=True)
    pacsv.write_csv(binary(np.random.default_rng(20240501)), OUT / "binary.csv")
    pq.write_table(multiclass(np.random.default_rng(20240502)), OUT / "multiclass.parquet")
    _write_jsonl(multilabel(np.random.default_rng(20240503)), OUT / "multilabel.jsonl")
    (OUT / "manifest.json").write_text(json.dumps(MANIFEST, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
