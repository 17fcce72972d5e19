"""Per-group evaluation of ranking runs and request records against the reference per group.

- ``rank --by``: :func:`scorekit.api.evaluate_run` with ``by=`` (TREC files in, nDCG@10 and
  MAP per group of queries from a query attribute file) against pytrec_eval
  (``parse_qrel`` + ``parse_run`` + ``RelevanceEvaluator``) per query, averaged per
  group with pandas ``groupby``; every group's mean is compared.
- ``throughput --by``: ``scorekit.evaluate(..., by="model")`` (the engine path of
  :func:`scorekit.api.evaluate_records` with ``by=``) of a JSON Lines file of request records
  against pandas (``read_json`` + ``groupby`` of the end-to-end
  latency's mean and 90th percentile, ``numpy.percentile``'s linear rule).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytrec_eval

import scorekit
from _timing import Row, best_of
from scorekit import api

N = 2_000
"""Queries of the ranking run (each with DOCS documents); records are N * 50."""
DOCS = 100
GROUPS = 10


def _ranking_files(folder: Path, n: int) -> tuple[Path, Path, Path]:
    rng = np.random.default_rng(0)
    qrels, run, attributes = folder / "qrels", folder / "run", folder / "topics.csv"
    with qrels.open("w") as q, run.open("w") as r:
        for i in range(n):
            query = f"q{i}"
            for d in rng.choice(DOCS * 2, 20, replace=False):
                q.write(f"{query} 0 d{d} {int(rng.integers(0, 3))}\n")
            scores = rng.random(DOCS)
            for rank, d in enumerate(np.argsort(-scores)):
                r.write(f"{query} Q0 d{d} {rank + 1} {scores[d]:.6f} bench\n")
    kinds = rng.integers(0, GROUPS, n)
    attributes.write_text("query,kind\n" + "".join(f"q{i},k{k}\n" for i, k in enumerate(kinds)))
    return qrels, run, attributes


def _pytrec_by_group(qrels: Path, run: Path, attributes: Path) -> dict[str, dict[str, float]]:
    with qrels.open() as fh:
        judged = pytrec_eval.parse_qrel(fh)
    with run.open() as fh:
        ranked = pytrec_eval.parse_run(fh)
    evaluator = pytrec_eval.RelevanceEvaluator(judged, {"ndcg_cut.10", "map"})
    per = pd.DataFrame.from_dict(evaluator.evaluate(ranked), orient="index")
    kinds = pd.read_csv(attributes).set_index("query")["kind"]
    means = per.groupby(kinds.reindex(per.index)).mean()
    return {"ndcg@10": means["ndcg_cut_10"].to_dict(), "map": means["map"].to_dict()}


def _records(folder: Path, n: int) -> Path:
    rng = np.random.default_rng(1)
    path = folder / "records.jsonl"
    start = np.sort(rng.random(n) * n / 10)
    end = start + rng.gamma(2.0, 0.5, n)
    models = rng.choice([f"m{i}" for i in range(GROUPS)], n)
    with path.open("w") as fh:
        for s, e, m in zip(start.tolist(), end.tolist(), models.tolist(), strict=True):
            record = {"prompt_tokens": 100, "output_tokens": 20, "start": s, "end": e, "model": m}
            fh.write(json.dumps(record) + "\n")
    return path


def _pandas_latency(path: Path) -> dict[str, dict[str, float]]:
    frame = pd.read_json(path, lines=True)
    latency = (frame["end"] - frame["start"]).groupby(frame["model"])
    return {
        "e2e_latency": latency.mean().to_dict(),
        "e2e_latency:p90": latency.quantile(0.9).to_dict(),
    }


def _agree(ours: dict[str, object], ref: dict[str, dict[str, float]]) -> str:
    worst = 0.0
    for name, groups in ref.items():
        found = ours[name].by_group  # type: ignore[attr-defined]
        if set(found) != set(groups):
            return f"NO ({name}: different groups)"
        for group, want in groups.items():
            worst = max(worst, abs(found[group] - want) / max(abs(want), 1e-300))
    return f"yes (max rel diff {worst:.0e})" if worst <= 1e-12 else f"NO (rel diff {worst:.1e})"


def run(n: int = N) -> list[Row]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        qrels, ranked, attributes = _ranking_files(folder, n)

        def ours() -> dict[str, object]:
            found = api.evaluate_run(
                str(qrels), str(ranked), ["ndcg@10", "map"], by=["kind"], attributes=str(attributes)
            )
            return found.values

        t_ours, got = best_of(ours)
        t_ref, want = best_of(lambda: _pytrec_by_group(qrels, ranked, attributes))
        size = f"{n:,} queries x {DOCS}, {GROUPS} groups"
        rows.append(
            Row("rank --by (ndcg@10, map)", size, t_ours, "pytrec_eval + pandas groupby",
                t_ref, _agree(got, want))
        )  # fmt: skip
        records = _records(folder, n * 50)

        def latency() -> dict[str, object]:
            names = ["e2e_latency", "e2e_latency:p90"]
            return scorekit.evaluate(str(records), names, by="model").values

        t_ours, got = best_of(latency)
        t_ref, want = best_of(lambda: _pandas_latency(records))
        size = f"{n * 50:,} records, {GROUPS} models"
        rows.append(
            Row("throughput --by (e2e mean, p90)", size, t_ours, "pandas read_json + groupby",
                t_ref, _agree(got, want))
        )  # fmt: skip
    return rows


if __name__ == "__main__":
    from _timing import HEADER, machine

    print(f"Machine: {machine()}\n")
    print(HEADER)
    for row in run():
        print(row.markdown())
