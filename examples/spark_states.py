"""scorekit on Spark: one state per partition with ``mapInArrow``, merged on the driver.

Run with a Python that has pyspark (and Java 17+) next to scorekit::

    pip install pyspark
    python examples/spark_states.py

Spark is not a dependency of scorekit; this script is the recipe of docs/spark.md.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pyarrow as pa

import scorekit
from scorekit import State

METRICS = ["accuracy", "f1:macro", "mcc", "confusion_matrix"]
REGRESSION = ["mse", "r2"]
RANKING = ["ndcg@10", "map", "mrr"]


def partition_states(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The scorekit states of one Spark partition, one JSON row per metric.

    Each Arrow batch of the partition is summarized and merged into the states of
    the batches before it, so memory holds one batch and the states.
    """
    classification = {"y_true": "label", "y_pred": "pred"}
    regression = {"y_true": "target", "y_pred": "estimate"}
    merged: dict[str, State] = {}
    metrics: dict[str, Any] = {}
    for batch in batches:
        table = pa.Table.from_batches([batch])
        for names, columns in ((METRICS, classification), (REGRESSION, regression)):
            result = scorekit.evaluate(table, names, columns=columns, progress=False)
            for name in names:
                metrics[name] = result.metrics[name]
                state = result.states[name]
                merged[name] = metrics[name].merge(merged[name], state) if name in merged else state
    yield pa.RecordBatch.from_pydict(
        {"metric": list(merged), "state": [s.to_json() for s in merged.values()]}
    )


def query_states(
    qrels: dict[str, dict[str, int]],
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The per-partition function for ranking metrics, with the judgments it closes over."""

    def states(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        tables = [pa.Table.from_batches([b]) for b in batches]
        if not tables:
            return
        # every row of a query is in this partition (the DataFrame was repartitioned
        # by query); sorted, the rows of each query are together, as evaluate wants
        table = pa.concat_tables(tables).sort_by("query")
        result = scorekit.evaluate(table, RANKING, qrels=qrels, progress=False)
        yield pa.RecordBatch.from_pydict(
            {"metric": RANKING, "state": [result.states[m].to_json() for m in RANKING]}
        )

    return states


def merge_on_driver(rows: list[Any], names: list[str]) -> dict[str, Any]:
    """Merge the collected partition states of each metric and compute the values."""
    values: dict[str, Any] = {}
    for name in names:
        metric = scorekit.parse_metric(name)
        state = metric.empty()
        for row in rows:
            if row["metric"] == name:
                state = metric.merge(state, State.from_json(row["state"]))
        values[name] = metric.compute(state)
    return values


def main() -> None:
    from pyspark.sql import SparkSession

    # local workers run the Python of this script (with scorekit and pyarrow)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("scorekit-states")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")

    rng = np.random.default_rng(0)
    n = 200_000
    label = rng.integers(0, 4, n)
    pred = np.where(rng.random(n) < 0.7, label, rng.integers(0, 4, n))
    target = rng.normal(size=n)
    estimate = target + rng.normal(scale=0.5, size=n)
    data = pa.table({"label": label, "pred": pred, "target": target, "estimate": estimate})
    frame = spark.createDataFrame(data.to_pandas()).repartition(8)

    rows = frame.mapInArrow(partition_states, "metric string, state string").collect()
    spark_values = merge_on_driver(rows, METRICS + REGRESSION)
    whole = scorekit.evaluate(data, METRICS, columns={"y_true": "label", "y_pred": "pred"})
    whole_regression = scorekit.evaluate(
        data, REGRESSION, columns={"y_true": "target", "y_pred": "estimate"}
    )
    memory_values = {**whole.values, **whole_regression.values}
    parts = frame.rdd.getNumPartitions()
    print(f"{len(rows)} states: {len(METRICS + REGRESSION)} metrics x {parts} partitions")
    for name in METRICS + REGRESSION:
        _report(name, spark_values[name], memory_values[name])
    assert _equal(spark_values, memory_values)

    # ranking: all rows of a query must be in one partition
    queries = [f"q{i:03d}" for i in range(300)]
    qrels = {q: {f"d{j}": int(rng.integers(0, 3)) for j in range(10)} for q in queries}
    run = {
        "query": np.repeat(queries, 20),
        "doc": np.tile([f"d{j}" for j in range(20)], len(queries)),
        "score": rng.random(20 * len(queries)),
    }
    run_table = pa.table(run)
    run_frame = spark.createDataFrame(run_table.to_pandas()).repartition(6, "query")
    rows = run_frame.mapInArrow(query_states(qrels), "metric string, state string").collect()
    spark_ranking = merge_on_driver(rows, RANKING)
    memory_ranking = scorekit.evaluate(run_table, RANKING, qrels=qrels).values
    for name in RANKING:
        _report(name, spark_ranking[name], memory_ranking[name])
    assert _equal(spark_ranking, memory_ranking)
    print("Spark states merged on the driver equal the in-memory values")
    spark.stop()


def _report(name: str, spark: Any, memory: Any) -> None:
    print(f"{name:>16}  spark {_show(spark):<24} in memory {_show(memory)}")


def _show(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return " ".join(str(v) for v in value.ravel()[:4]) + " ..."
    return repr(value)


def _equal(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return all(np.allclose(a[k], b[k], rtol=1e-12, atol=0) for k in b)


if __name__ == "__main__":
    main()
