"""Exact ROC AUC and average precision of 10,000,000 rows: the Spark engine against the stream one.

Writes a Parquet file of labels (int8) and distinct float32 scores (pyarrow's
default row groups of 1,048,576 rows), then evaluates ``roc_auc`` and
``average_precision`` with :func:`scorekit.evaluate` and default settings, once
with the stream engine and once with ``engine="spark"``, each in a fresh Python
process. The Spark child starts a local session on every core (``local[*]``, with
the 4 GiB heap the engine gives the local session it starts when none is
active) and runs a three-row evaluation before its clock starts, so the time
is the engine's: reading the row groups on the executors, summarizing them,
merging the states there and sending one state per metric to the driver. The
session's start is reported beside it. The last column says whether both
engines give the same values, bit for bit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _timing import Row
from bench_chunked_auc import _write

N = 10_000_000

METRICS = ["roc_auc", "average_precision"]

STREAM = """
import json, sys, time
import scorekit
metrics, columns = json.loads(sys.argv[2]), {"y_true": "y", "y_score": "s"}
# the modules the run loads, loaded before the clock starts (as a warm interpreter has them)
scorekit.evaluate({"y": [0, 1, 1], "s": [0.1, 0.4, 0.3]}, metrics, columns=columns, progress=False)
start = time.perf_counter()
result = scorekit.evaluate(sys.argv[1], metrics, columns=columns, progress=False)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "values": [result[m] for m in metrics]}))
"""

SPARK = """
import json, os, sys, time
import scorekit
from pyspark.sql import SparkSession
metrics, columns = json.loads(sys.argv[2]), {"y_true": "y", "y_score": "s"}
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
begin = time.perf_counter()
# the settings of the local session the engine starts when none is active
spark = (SparkSession.builder.master("local[*]").config("spark.ui.enabled", "false")
         .config("spark.log.level", "ERROR").config("spark.driver.memory", "4g").getOrCreate())
session = time.perf_counter() - begin
scorekit.evaluate({"y": [0, 1, 1], "s": [0.1, 0.4, 0.3]}, metrics, columns=columns,
                  engine="spark")
start = time.perf_counter()
result = scorekit.evaluate(sys.argv[1], metrics, columns=columns, engine="spark")
seconds = time.perf_counter() - start
spark.stop()
print(json.dumps({"seconds": seconds, "session": session,
                  "values": [result[m] for m in metrics]}))
"""


def _measure(code: str, *args: str) -> dict[str, Any]:
    env = {**os.environ, "SCOREKIT_STATE_WARNING_SIZE": "1T"}
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        env=env,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"benchmark child failed with status {done.returncode}:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run(n: int = N) -> list[Row]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scores.parquet"
        _write(path, n)
        names = json.dumps(METRICS)
        stream = _measure(STREAM, str(path), names)
        spark = _measure(SPARK, str(path), names)
    same = spark["values"] == stream["values"]
    values = ", ".join(f"{m} {v:.12f}" for m, v in zip(METRICS, spark["values"], strict=True))
    cores = os.cpu_count() or 1
    return [
        Row(
            "roc_auc + average_precision, Spark engine (exact)",
            f"{n:,} distinct float32 scores, Parquet",
            float(spark["seconds"]),
            "stream engine",
            float(stream["seconds"]),
            f"{'yes, bitwise' if same else 'NO'} ({values}; local[*] on {cores} cores, "
            f"session start {float(spark['session']):.1f} s not counted)",
        )
    ]


if __name__ == "__main__":
    start = time.perf_counter()
    for row in run(int(sys.argv[1]) if len(sys.argv) > 1 else N):
        print(row.markdown())
    print(f"({time.perf_counter() - start:.0f} s in all)")
