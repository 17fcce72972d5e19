"""Exact ROC AUC and average precision of 10,000,000 rows: the Spark engine against the stream one.

Writes a Parquet file of labels (int8) and distinct float32 scores (pyarrow's
default row groups of 1,048,576 rows), then evaluates ``roc_auc`` and
``average_precision`` with :func:`scorekit.evaluate` and default settings, once
with the stream engine and once with ``engine="spark"``, each in a fresh Python
process, back to back, three times; the medians are reported. The Spark child
starts a local session on every core (``local[*]``, with the settings the engine
gives the local session it starts when none is active: a 4 GiB heap, no UI), then
evaluates a small Parquet file of four row groups before its clock starts, which
starts the session's Python workers (one per core, kept for the session's later
jobs) and loads the modules the run loads, as the stream child loads them with
the same file. The time is then the engine's: planning, reading the row groups on
the executors, summarizing them, sending the states to the driver and merging
them there. The session's start and the workers' are reported beside it, with the
peak memory (``VmHWM``, reset before the clock starts) of the driver's Python, of
Spark's JVM and of the largest Python worker, and the stream engine's peak. The
last column says whether both engines give the same values, bit for bit.

``python bench_spark.py [ROWS] [--repeat N]``: ROWS rows (default 10,000,000),
N runs of each engine (default 3).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _timing import Row
from bench_chunked_auc import _write

N = 10_000_000
REPEAT = 3

METRICS = ["roc_auc", "average_precision"]

MEMORY = """
import os

def _pids(pid):
    out = [pid]
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as found:
                for child in found.read().split():
                    out.extend(_pids(int(child)))
    except OSError:
        pass
    return out

def _status(pid, key):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0

def _name(pid):
    try:
        with open(f"/proc/{pid}/comm") as comm:
            return comm.read().strip()
    except OSError:
        return ""

def reset():
    # the peak of each process of the tree starts again from its present size
    for pid in _pids(os.getpid()):
        try:
            with open(f"/proc/{pid}/clear_refs", "w") as refs:
                refs.write("5")
        except OSError:
            pass

def peaks():
    me = os.getpid()
    found = {"driver": _status(me, "VmHWM"), "jvm": 0, "worker": 0}
    for pid in _pids(me)[1:]:
        key = "jvm" if _name(pid) == "java" else "worker"
        found[key] = max(found[key], _status(pid, "VmHWM"))
    return found
"""

STREAM = (
    MEMORY
    + """
import json, sys, time
import scorekit
metrics, columns = json.loads(sys.argv[3]), {"y_true": "y", "y_score": "s"}
# the modules the run loads, loaded before the clock starts (as a warm interpreter has them)
scorekit.evaluate(sys.argv[2], metrics, columns=columns, progress=False)
reset()
start = time.perf_counter()
result = scorekit.evaluate(sys.argv[1], metrics, columns=columns, progress=False)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "peaks": peaks(),
                  "values": [result[m] for m in metrics]}))
"""
)

SPARK = (
    MEMORY
    + """
import json, os, sys, time
import scorekit
from pyspark.sql import SparkSession
metrics, columns = json.loads(sys.argv[3]), {"y_true": "y", "y_score": "s"}
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
begin = time.perf_counter()
# the settings of the local session the engine starts when none is active
spark = (SparkSession.builder.master("local[*]").config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false").config("spark.log.level", "ERROR")
         .config("spark.driver.memory", "4g").getOrCreate())
session = time.perf_counter() - begin
begin = time.perf_counter()
# the session's Python workers, one per core, and the modules the run loads
scorekit.evaluate(sys.argv[2], metrics, columns=columns, engine="spark")
workers = time.perf_counter() - begin
reset()
start = time.perf_counter()
result = scorekit.evaluate(sys.argv[1], metrics, columns=columns, engine="spark")
seconds = time.perf_counter() - start
found = peaks()
spark.stop()
print(json.dumps({"seconds": seconds, "session": session, "workers": workers, "peaks": found,
                  "values": [result[m] for m in metrics]}))
"""
)


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


def _small(path: Path) -> None:
    """A Parquet file of four row groups: Spark runs it in one task per core."""
    import pyarrow.parquet as pq

    _write(path, 4000)
    pq.write_table(pq.read_table(path), path, row_group_size=1000)


def _load() -> str:
    try:
        return ", ".join(f"{v:.1f}" for v in os.getloadavg())
    except OSError:
        return "unknown"


def _gb(value: float) -> str:
    return f"{value / 1e9:.2f} GB"


def run(n: int = N, repeat: int = REPEAT) -> list[Row]:
    streams: list[dict[str, Any]] = []
    sparks: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        path, small = Path(tmp) / "scores.parquet", Path(tmp) / "small.parquet"
        _write(path, n)
        _small(small)
        names = json.dumps(METRICS)
        for _ in range(repeat):
            load = _load()
            streams.append(_measure(STREAM, str(path), str(small), names))
            sparks.append(_measure(SPARK, str(path), str(small), names))
            print(
                f"  load {load}: stream {streams[-1]['seconds']:.3f} s, "
                f"Spark {sparks[-1]['seconds']:.3f} s",
                file=sys.stderr,
                flush=True,
            )

    def median(runs: list[dict[str, Any]], *keys: str) -> float:
        values = []
        for found in runs:
            for key in keys:
                found = found[key]
            values.append(float(found))  # type: ignore[arg-type]
        return statistics.median(values)

    same = all(s["values"] == t["values"] for s, t in zip(sparks, streams, strict=True))
    values = ", ".join(f"{m} {v:.12f}" for m, v in zip(METRICS, sparks[0]["values"], strict=True))
    cores = os.cpu_count() or 1
    memory = (
        f"peaks: driver {_gb(median(sparks, 'peaks', 'driver'))}, JVM "
        f"{_gb(median(sparks, 'peaks', 'jvm'))}, worker {_gb(median(sparks, 'peaks', 'worker'))}"
        f"; stream {_gb(median(streams, 'peaks', 'driver'))}"
    )
    return [
        Row(
            "roc_auc + average_precision, Spark engine (exact)",
            f"{n:,} distinct float32 scores, Parquet",
            median(sparks, "seconds"),
            "stream engine",
            median(streams, "seconds"),
            f"{'yes, bitwise' if same else 'NO'} ({values}; local[*] on {cores} cores, median "
            f"of {repeat}; session start {median(sparks, 'session'):.1f} s and workers' start "
            f"{median(sparks, 'workers'):.1f} s not counted; {memory})",
        )
    ]


if __name__ == "__main__":
    arguments = sys.argv[1:]
    times = REPEAT
    if "--repeat" in arguments:
        at = arguments.index("--repeat")
        times = int(arguments[at + 1])
        del arguments[at : at + 2]
    start = time.perf_counter()
    for row in run(int(arguments[0]) if arguments else N, times):
        print(row.markdown())
    print(f"({time.perf_counter() - start:.0f} s in all)")
