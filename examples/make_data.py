"""Build the small example files that ``scorekit demo`` evaluates.

Run ``python examples/make_data.py`` to rebuild ``examples/data/``; the output is
the same on every run (fixed seeds, numpy and pyarrow only). One file per task:

- ``binary.csv``: a spam filter's labels, scores and thresholded predictions;
- ``multiclass.parquet``: three classes with per-class probabilities;
- ``multilabel.jsonl``: four topic labels with scores and predictions;
- ``regression.csv``: house prices and days on the market with a model's predictions;
- ``play_tennis.csv``: Quinlan's weather table (C4.5's numeric version), for
  ``scorekit features``;
- ``qrels.txt`` and ``run.txt``: graded judgments and a search engine's ranked
  results for 12 queries, in TREC format, for ``scorekit rank``;
- ``hyps.txt``, ``refs_a.txt`` and ``refs_b.txt``: a system's sentences and two
  reference translations, line by line, for ``scorekit text``;
- ``squad_dev.json`` and ``squad_preds.json``: a small SQuAD v2.0-style dataset
  (some questions unanswerable) and a model's answers, for ``scorekit qa``.
- ``requests.jsonl``: 200 streamed requests to a language-model server (a few
  failed), with prompt and output tokens, start, first-token, end and chunk
  arrival times in seconds, for ``scorekit throughput``.

``manifest.json`` lists each file with its command, task and columns, which is
what the demo reads.
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


def regression(rng: np.random.Generator, n: int = 300) -> pa.Table:
    """House prices (thousands) and days on the market, with a model's noisy predictions."""
    area = np.round(rng.gamma(9.0, 14.0, n))
    rooms = np.clip(np.round(area / 35 + rng.normal(0, 0.8, n)), 1, None).astype(np.int64)
    price = np.round(60 + 2.1 * area + 9.0 * rooms + rng.normal(0, 28, n), 1)
    days = np.round(np.exp(3.2 + 0.002 * (price - price.mean()) + rng.normal(0, 0.5, n)))
    pred_price = np.round(price + rng.normal(0, 22, n) + 0.04 * (price - price.mean()), 1)
    pred_days = np.round(np.exp(np.log(days) * 0.6 + 1.3 + rng.normal(0, 0.3, n)))
    return pa.table(
        {
            "id": np.arange(1, n + 1),
            "area": area,
            "rooms": rooms,
            "price": price,
            "pred_price": pred_price,
            "days": days.astype(np.int64),
            "pred_days": pred_days.astype(np.int64),
        }
    )


# Quinlan, C4.5: Programs for Machine Learning (1993), the weather data with numeric
# temperature and humidity.
PLAY_TENNIS = [
    ("sunny", 85, 85, False, "no"),
    ("sunny", 80, 90, True, "no"),
    ("overcast", 83, 86, False, "yes"),
    ("rain", 70, 96, False, "yes"),
    ("rain", 68, 80, False, "yes"),
    ("rain", 65, 70, True, "no"),
    ("overcast", 64, 65, True, "yes"),
    ("sunny", 72, 95, False, "no"),
    ("sunny", 69, 70, False, "yes"),
    ("rain", 75, 80, False, "yes"),
    ("sunny", 75, 70, True, "yes"),
    ("overcast", 72, 90, True, "yes"),
    ("overcast", 81, 75, False, "yes"),
    ("rain", 71, 91, True, "no"),
]


def play_tennis() -> pa.Table:
    """The 14 days of the weather table: four features and whether tennis was played."""
    names = ("outlook", "temperature", "humidity", "windy", "play")
    columns = list(zip(*PLAY_TENNIS, strict=True))
    return pa.table({name: list(values) for name, values in zip(names, columns, strict=True)})


def ranking(rng: np.random.Generator, queries: int = 12, docs: int = 40) -> tuple[str, str]:
    """TREC qrels and run text: graded judgments of a pool, and a noisy ranking of 30 docs."""
    qrels_lines, run_lines = [], []
    for i in range(queries):
        qid = str(401 + i)
        ids = np.array([f"DOC-{qid}-{j:03d}" for j in range(docs)])
        grade = rng.choice([0, 0, 0, 1, 1, 2, 3], size=docs)
        judged = rng.random(docs) < 0.75
        for doc, g in zip(ids[judged], grade[judged], strict=True):
            qrels_lines.append(f"{qid} 0 {doc} {g}")
        score = np.round(grade + rng.normal(0, 1.3, docs), 3)
        top = np.argsort(-score, kind="stable")[:30]
        for rank, j in enumerate(top, start=1):
            run_lines.append(f"{qid} Q0 {ids[j]} {rank} {score[j]:.3f} demo-bm25")
    return "\n".join(qrels_lines) + "\n", "\n".join(run_lines) + "\n"


TRANSLATIONS = [
    ("the cat sat on the mat", "the cat was sitting on the mat", "a cat sat on the mat"),
    (
        "it is raining in the city today",
        "today it rains in the city",
        "it is raining in town today",
    ),
    ("the train leaves at nine", "the train departs at nine", "the train leaves at 9 o'clock"),
    ("she reads a book every night", "every night she reads a book", "she reads books each night"),
    ("we need more time to finish", "we need more time to finish", "more time is needed to finish"),
    ("the museum opens on monday", "the museum is open on monday", "on monday the museum opens"),
    (
        "he bought fresh bread and milk",
        "he bought fresh bread and milk",
        "he purchased bread and milk",
    ),
    (
        "the river is very cold in winter",
        "in winter the river is very cold",
        "the river gets cold in winter",
    ),
]

QUESTIONS = [
    ("q1", "Where did the cat sit?", ["on the mat", "the mat"], "on the mat"),
    ("q2", "When does the train leave?", ["at nine", "nine"], "at 9"),
    ("q3", "What did he buy?", ["fresh bread and milk", "bread and milk"], "bread"),
    ("q4", "Who painted the museum ceiling?", [], ""),
    ("q5", "What does she read every night?", ["a book"], "a book every night"),
    ("q6", "How cold is the moon river?", [], "very cold"),
]


def text_pairs() -> tuple[str, str, str]:
    """Hypotheses and two reference files, one sentence a line."""
    hyps, refs_a, refs_b = zip(*TRANSLATIONS, strict=True)
    return tuple("\n".join(lines) + "\n" for lines in (hyps, refs_a, refs_b))  # type: ignore[return-value]


def squad() -> tuple[dict[str, object], dict[str, str], dict[str, float]]:
    """A SQuAD v2.0-style dataset, a model's predictions and its no-answer probabilities."""
    qas = [
        {"id": qid, "question": q, "answers": [{"text": a, "answer_start": 0} for a in gold]}
        for qid, q, gold, _ in QUESTIONS
    ]
    dataset = {"version": "v2.0", "data": [{"title": "demo", "paragraphs": [{"qas": qas}]}]}
    predictions = {qid: pred for qid, _, _, pred in QUESTIONS}
    na_probs = {"q1": 0.1, "q2": 0.3, "q3": 0.2, "q4": 0.9, "q5": 0.4, "q6": 0.6}
    return dataset, predictions, na_probs


_TICK = 1e4  # times are whole tenths of a millisecond, so the file shows short decimals


def requests(rng: np.random.Generator, n: int = 200) -> list[dict[str, object]]:
    """Streamed completions arriving at about 8 per second; each chunk carries one token.

    TTFT grows with the prompt and has a few queueing spikes; decoding takes 20-30 ms a
    token with rare stalls. Three requests are refused (HTTP 503), one times out and one
    stream breaks off; failed requests keep their timings but produce no counted tokens.
    """
    start = np.cumsum(np.round(rng.exponential(0.125, n) * _TICK)).astype(np.int64)
    prompt = np.clip(np.round(rng.lognormal(np.log(240), 0.6, n)), 16, 2000).astype(np.int64)
    output = np.clip(np.round(rng.lognormal(np.log(40), 0.7, n)), 1, 256).astype(np.int64)
    ttft = 0.03 + prompt * 1.2e-4 + rng.exponential(0.04, n)
    ttft += np.where(rng.random(n) < 0.05, rng.uniform(0.3, 0.8, n), 0.0)
    pace = rng.uniform(0.02, 0.03, n)
    refused = set(rng.choice(np.arange(20, n), 3, replace=False).tolist())
    broken = int(rng.integers(20, n))
    while broken in refused:
        broken = int(rng.integers(20, n))
    timeout = 12
    rows: list[dict[str, object]] = []
    for i in range(n):
        row: dict[str, object] = {"id": f"req-{i + 1:03d}", "model": "demo-7b"}
        t0 = int(start[i])
        if i in refused:
            end = t0 + int(rng.integers(30, 200))
            row.update(prompt_tokens=int(prompt[i]), output_tokens=0, start=t0 / _TICK)
            row.update(first_token=None, end=end / _TICK, token_times=None, success=False)
            row["error"] = "HTTP 503: server overloaded"
            rows.append(row)
            continue
        if i == timeout:
            row.update(prompt_tokens=int(prompt[i]), output_tokens=0, start=t0 / _TICK)
            row.update(first_token=None, end=(t0 + 10 * int(_TICK)) / _TICK, token_times=None)
            row.update(success=False, error="timeout after 10 s")
            rows.append(row)
            continue
        gaps = rng.gamma(8.0, pace[i] / 8.0, int(output[i]) - 1)
        gaps += np.where(rng.random(gaps.size) < 0.005, rng.uniform(0.15, 0.4, gaps.size), 0.0)
        ticks = np.maximum(np.round(np.concatenate([[ttft[i]], gaps]) * _TICK), 1)
        times = t0 + np.cumsum(ticks).astype(np.int64)
        if i == broken:
            times = times[: max(1, len(times) // 2)]
        end = int(times[-1]) + int(rng.integers(1, 20))
        row.update(
            prompt_tokens=int(prompt[i]),
            output_tokens=len(times),
            start=t0 / _TICK,
            first_token=int(times[0]) / _TICK,
            end=end / _TICK,
            token_times=[int(t) / _TICK for t in times],
            success=i != broken,
            error="stream interrupted" if i == broken else None,
        )
        rows.append(row)
    return rows


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
    {
        "file": "regression.csv",
        "title": "Regression: house prices (thousands)",
        "task": "regression",
        "true": ["price"],
        "pred": ["pred_price"],
    },
    {
        "file": "play_tennis.csv",
        "title": "Feature ranking: which attribute ID3 splits on first",
        "command": "features",
        "target": "play",
        "criterion": "information_gain",
    },
    {
        "file": "run.txt",
        "title": "Ranking: a search engine's results for 12 queries",
        "command": "rank",
        "qrels": "qrels.txt",
        "metrics": ["map", "ndcg@10", "mrr", "p@5", "recall@20", "bpref"],
    },
    {
        "file": "hyps.txt",
        "title": "Text generation: translations against two references",
        "command": "text",
        "refs": ["refs_a.txt", "refs_b.txt"],
        "metrics": ["bleu", "rouge1", "rouge2", "rougeL"],
    },
    {
        "file": "squad_preds.json",
        "title": "Question answering: SQuAD v2.0 exact match and F1",
        "command": "qa",
        "dataset": "squad_dev.json",
        "na_probs": "squad_na_probs.json",
    },
    {
        "file": "requests.jsonl",
        "title": "LLM serving: throughput and latency of streamed requests",
        "command": "throughput",
        "slo": ["ttft=500ms", "tpot=30ms"],
    },
]


def main() -> None:
    """Write the example files and the manifest."""
    OUT.mkdir(parents=True, exist_ok=True)
    pacsv.write_csv(binary(np.random.default_rng(20240501)), OUT / "binary.csv")
    pq.write_table(multiclass(np.random.default_rng(20240502)), OUT / "multiclass.parquet")
    _write_jsonl(multilabel(np.random.default_rng(20240503)), OUT / "multilabel.jsonl")
    pacsv.write_csv(regression(np.random.default_rng(20240504)), OUT / "regression.csv")
    pacsv.write_csv(play_tennis(), OUT / "play_tennis.csv")
    qrels, run = ranking(np.random.default_rng(20240505))
    (OUT / "qrels.txt").write_text(qrels, encoding="utf-8")
    (OUT / "run.txt").write_text(run, encoding="utf-8")
    for name, content in zip(("hyps.txt", "refs_a.txt", "refs_b.txt"), text_pairs(), strict=True):
        (OUT / name).write_text(content, encoding="utf-8")
    dataset, predictions, na_probs = squad()
    for name, doc in (
        ("squad_dev.json", dataset),
        ("squad_preds.json", predictions),
        ("squad_na_probs.json", na_probs),
    ):
        (OUT / name).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    rows = requests(np.random.default_rng(20240506))
    (OUT / "requests.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8"
    )
    (OUT / "manifest.json").write_text(json.dumps(MANIFEST, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
