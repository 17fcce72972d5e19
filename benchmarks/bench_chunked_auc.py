"""Exact ROC AUC over 20,000,000 distinct float32 scores: chunked against in memory.

Writes a Parquet file of labels (int8) and float32 scores, then evaluates
``roc_auc`` with :func:`scorekit.evaluate` once whole and once in chunks of
1,000,000 rows, each in a fresh Python process whose peak resident memory is
measured (``VmHWM`` of ``/proc/self/status``, which starts afresh with the new
program; ``ru_maxrss`` keeps the high-water mark of the benchmark process that
forked the child, and is the fallback where there is no ``/proc``). The row compares the chunked
time with the in-memory time; the last column gives both peaks next to the
size of the scores and labels themselves. scikit-learn on the same arrays in
memory is the second row. Each child loads the modules the run needs (a
three-row evaluation) before its clock starts, so the times are the metric's,
not the import's.

Memory, and what a peak of 3x the data would take. The data is 0.10 GB (int8
labels and float32 scores); a child's peak after loading its modules, before
any data, is 0.13 GB. The stream engine keeps the 20 chunk states until one
``merge_many`` merges them, so the peak holds the chunk states and the merged
state at once: with float64 scores (9 bytes a row with the int8 key) that is
0.13 + 0.18 + 0.18 GB before any temporary (measured: 0.56 GB chunked, 5.6x
the data, and 0.72 GB in memory, on 2026-11-29). Keeping float32 scores as
float32 in :class:`~scorekit.classification.ScoreHistogram` (merging them
with float64 scores widens, which keeps every value) makes a row 5 bytes;
tried, it measured 0.39 GB chunked (3.9x) and 0.62 GB in memory, and it
cannot reach 3x alone: 0.13 + 0.10 + 0.10 GB is 3.3x. Reaching 3x takes both:

1. The float32 score field: the summaries and merges of ``_histogram.py``
   would keep the scores' type and ``_cumulative`` widen the thresholds it returns
   (curves stay float64); outside the histogram,
   ``plot/_classification.py`` must pass ``state.score.astype(np.float64,
   copy=False)`` to its calibration state (its percentiles would otherwise
   interpolate in float32) and the score-range readers
   (``classification/_ranges*.py``) must widen their thresholds the same way.
   State files need no change: JSON and binary files record the dtype, and a
   float32 state round-trips through both exactly.
2. A merge that lets go of each chunk state once its rows are copied: the
   merge tree (``core/_fold.py``) and ``merge_many`` of the score metrics
   would hand their list of states over instead of keeping it, and
   ``ScoreHistogram.merge_all`` would copy each state's runs into the merged
   arrays (per key, at their offsets), drop that state, and then sort each
   key's rows in place. The peak is then about 0.13 + 0.10 GB and a chunk:
   some 2.4x the data.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _timing import Row

N = 20_000_000
CHUNK = 1_000_000

PEAK = """
def peak():
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return {"peak": int(line.split()[1]) * 1024}
    except OSError:
        pass
    return {}
"""

CHILD = (
    PEAK
    + """
import json, sys, time
import scorekit
path, chunk = sys.argv[1], int(sys.argv[2])
# the modules the run loads, loaded before the clock starts (as a warm interpreter has them)
scorekit.evaluate({"y": [0, 1, 1], "s": [0.1, 0.4, 0.3]}, ["roc_auc"],
                  columns={"y_true": "y", "y_score": "s"}, progress=False)
start = time.perf_counter()
result = scorekit.evaluate(
    path, ["roc_auc"], columns={"y_true": "y", "y_score": "s"},
    chunk_size=chunk, progress=False,
)
print(json.dumps({"seconds": time.perf_counter() - start, "value": result["roc_auc"], **peak()}))
"""
)

SKLEARN = (
    PEAK
    + """
import json, sys, time
import numpy as np, pyarrow.parquet as pq
from sklearn.metrics import roc_auc_score
table = pq.read_table(sys.argv[1])
start = time.perf_counter()
y, s = table.column("y").to_numpy(), table.column("s").to_numpy()
value = roc_auc_score(y, s)
print(json.dumps({"seconds": time.perf_counter() - start, "value": value, **peak()}))
"""
)


def _measure(code: str, *args: str) -> dict[str, float]:
    env = {**os.environ, "SCOREKIT_STATE_WARNING_SIZE": "1T"}
    process = subprocess.Popen(
        [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, env=env, text=True
    )
    assert process.stdout is not None
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        raise RuntimeError(f"benchmark child failed with status {status}")
    result: dict[str, float] = json.loads(out)
    result.setdefault("peak", usage.ru_maxrss * 1024)
    return result


def _write(path: Path, n: int) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(0)
    # distinct float32 scores in [1/128, 1): float32 bit patterns in that range
    # order as their values do, so n distinct patterns are n distinct scores
    low, high = np.float32(1 / 128).view(np.int32), np.float32(1.0).view(np.int32)
    bits = rng.choice(int(high - low), size=n, replace=False).astype(np.int32) + low
    s = bits.view(np.float32)
    y = (rng.random(n) < s**0.5 * 0.8).astype(np.int8)
    pq.write_table(pa.table({"y": y, "s": s}), path)
    return int(y.nbytes + s.nbytes)


def run(n: int = N) -> list[Row]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scores.parquet"
        data = _write(path, n)
        whole = _measure(CHILD, str(path), str(n))
        chunked = _measure(CHILD, str(path), str(CHUNK))
        reference = _measure(SKLEARN, str(path))
    gb = 1e9
    same = abs(whole["value"] - chunked["value"]) <= 1e-12 * abs(whole["value"])
    same_ref = abs(whole["value"] - reference["value"]) <= 1e-12 * abs(reference["value"])
    size = f"{n:,} distinct float32 scores, Parquet"
    memory = (
        f"peak {chunked['peak'] / gb:.2f} GB chunked, {whole['peak'] / gb:.2f} GB whole; "
        f"data {data / gb:.2f} GB"
    )
    return [
        Row(
            f"roc_auc in chunks of {CHUNK:,} (exact)",
            size,
            chunked["seconds"],
            "scorekit in memory",
            whole["seconds"],
            f"{'yes' if same else 'NO'} ({memory})",
        ),
        Row(
            "roc_auc in memory (exact)",
            size,
            whole["seconds"],
            "scikit-learn in memory",
            reference["seconds"],
            f"{'yes' if same_ref else 'NO'} (peak {reference['peak'] / gb:.2f} GB)",
        ),
    ]


if __name__ == "__main__":
    start = time.perf_counter()
    for row in run(int(sys.argv[1]) if len(sys.argv) > 1 else N):
        print(row.markdown())
