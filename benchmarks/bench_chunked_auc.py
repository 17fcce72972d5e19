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

Memory. The data is 0.10 GB (int8 labels and float32 scores); a child's peak
after loading its modules, before any data, is 0.13 to 0.14 GB. Measured on 2026-11-29
(several runs on a shared machine): 0.28 to 0.31 GB chunked (2.8x to 3.1x the
data) and 0.56 to 0.57 GB in memory, where the same code with float64 states
and a merge that kept every chunk state measured 0.55 GB and 0.72 GB; the
in-memory run also takes about a quarter less processor time. Two changes made
the difference:

1. :class:`~scorekit.classification.ScoreHistogram` keeps float32 scores as
   float32 (5 bytes a row with the int8 key, not 9): summaries and merges keep
   the type, a float32 state merged with a float64 one widens (every value
   kept), and the readers widen the thresholds they return, so every value is
   that of the same scores given as float64.
2. The merge lets go of the chunk states as it goes: the merge tree hands the
   states it gathered over (``merge_taken``), and ``ScoreHistogram.merge_all``
   copies each state's rows into the merged arrays, the last state first (the
   allocator can then give the top of its heap back as each is freed), drops
   it, and sorts each key's rows in place. The stream fold also returns
   pyarrow's read buffers before the merge.

What remains: the chunked peak is now reached at the end of reading, not in the
merge: 0.13 GB of modules, about 0.06 GB that reading the Parquet file in chunks
keeps (pyarrow's buffers and thread heaps: reading alone, with no metric, peaks at
0.20 GB) and the 20 chunk states (0.10 GB). Staying clearly below 3x would take a
reader that keeps less, such as releasing pyarrow's memory pool every few chunks
(reading alone then peaks at 0.18 GB).
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
