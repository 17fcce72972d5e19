"""Write the two other runs that the README compares with ``examples/data/run.txt``.

Run ``python examples/make_runs.py`` to rebuild ``examples/runs/``: ``rerank.txt``
moves every relevant document a little up the ranking of ``run.txt`` (a better
system), ``noisy.txt`` adds noise to its scores (a worse one). Comparing them::

    scorekit rank examples/data/qrels.txt examples/data/run.txt \\
        examples/runs/rerank.txt examples/runs/noisy.txt -m ndcg@10 map --test t --correction holm
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RUN = HERE / "data" / "run.txt"
QRELS = HERE / "data" / "qrels.txt"
OUT = HERE / "runs"


def _relevant() -> set[tuple[str, str]]:
    pairs = set()
    for line in QRELS.read_text().splitlines():
        query, _, doc, grade = line.split()
        if float(grade) > 0:
            pairs.add((query, doc))
    return pairs


def build() -> list[Path]:
    """Write ``rerank.txt`` and ``noisy.txt`` beside each other in ``examples/runs``."""
    relevant = _relevant()
    rows = [line.split() for line in RUN.read_text().splitlines()]
    rng = np.random.default_rng(2024)
    noise = rng.normal(0.0, 0.6, len(rows))
    lift = rng.random(len(rows))
    OUT.mkdir(exist_ok=True)
    written = []
    for name, tag in (("rerank", "rerank"), ("noisy", "noisy")):
        by_query: dict[str, list[tuple[str, float]]] = {}
        for i, (query, _, doc, _, score, _) in enumerate(rows):
            value = float(score)
            if name == "rerank" and (query, doc) in relevant:
                value += 0.8 * lift[i]
            if name == "noisy":
                value += noise[i]
            by_query.setdefault(query, []).append((doc, value))
        lines = []
        for query, docs in by_query.items():
            ranked = sorted(docs, key=lambda p: (-p[1], p[0]))
            lines += [
                f"{query} Q0 {doc} {r + 1} {value:.4f} {tag}"
                for r, (doc, value) in enumerate(ranked)
            ]
        path = OUT / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in build():
        print(path)
