"""Peak memory of exact ROC AUC and AP: the whole score histogram against score ranges.

The exact state of ROC AUC and average precision is a histogram of the
distinct scores; merged from chunks, it ends in one process holding all of it
(the final merge, then the reader). Split by score ranges (``ranges=N``), each
range merges on its own and the readers hold one range at a time. This
benchmark summarizes ``--rows`` rows of binary labels and random float scores
in chunks of a million rows, saves each chunk's state (whole, and split into
``--ranges`` ranges at cut points chosen from the first chunk), then, each in
a fresh Python process:

* ``whole``: loads every chunk's histogram, merges them and computes both
  metrics, as the stream engine's final merge does;
* ``ranges``: for each range, loads that range of every chunk, merges it and
  saves it; then reads the merged ranges one at a time (loaded on access).

Each prints its peak resident memory (``VmHWM`` of ``/proc/self/status``), its time and the two
values, which must be equal bit for bit. A process that only imports scorekit
shows the fixed cost.

Usage::

    python benchmarks/bench_score_ranges.py [--rows N] [--ranges R] [--keep]

By default 10,000,000 rows and 16 ranges (the saved states take about 0.2 GB
per 10,000,000 rows). Files go to ``$SCOREKIT_BENCH_DIR`` (or a temporary
directory) and are deleted afterwards unless ``--keep`` is given. This is a
benchmark, not a test: ``make test`` does not run it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

BLOCK = 1_000_000

COMMON = """
import json, resource, sys, time
from pathlib import Path
import numpy as np
from scorekit.classification import ROCAUC, AveragePrecision, ScoreHistogram

def load(path):
    with np.load(path) as data:
        key, score, labels = data["key"], data["score"], data["labels"]
        counts = data["counts"] if "counts" in data else np.ones((key.size, 1), dtype=np.int64)
        n_samples = int(data["n_samples"])
    return ScoreHistogram(
        task="binary", labels=labels, n_columns=0, n_samples=n_samples,
        key=key, score=score, counts=counts, per_sample="",
        sample_values=np.empty(0), sample_weights=np.empty(0),
    )

def save(path, state):
    np.savez(path, labels=state.labels, key=state.key, score=state.score,
             counts=np.ascontiguousarray(state.counts), n_samples=state.n_samples)

def peak_mb():
    # VmHWM is this process's own peak; ru_maxrss would keep the parent's from before exec
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

def done(start, values):
    peak = peak_mb()
    print(json.dumps({"seconds": time.perf_counter() - start, "peak_mb": peak,
                      "values": [float(v).hex() for v in values]}))

folder, chunks, ranges = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
start = time.perf_counter()
"""

WHOLE = (
    COMMON
    + """
whole = ScoreHistogram.merge_all([load(folder / f"chunk{j}.npz") for j in range(chunks)])
done(start, [ROCAUC().compute(whole), AveragePrecision().compute(whole)])
"""
)

RANGES = (
    COMMON
    + """
from scorekit.classification import ranges_average_precision, ranges_roc_auc
for i in range(ranges):
    parts = [load(folder / f"chunk{j}_range{i}.npz") for j in range(chunks)]
    merged = ScoreHistogram.merge_all(parts)
    del parts
    save(folder / f"merged{i}.npz", merged)
    del merged

class Loaded:
    def __len__(self):
        return ranges
    def __getitem__(self, i):
        return load(folder / f"merged{i}.npz")

done(start, [ranges_roc_auc(Loaded()), ranges_average_precision(Loaded())])
"""
)

BASELINE = (
    COMMON.replace(
        "folder, chunks, ranges = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])", ""
    )
    + """
done(start, [])
"""
)


def prepare(folder: Path, rows: int, ranges: int, seed: int = 0) -> int:
    """Summarize the rows chunk by chunk; save each chunk's histogram and its ranges."""
    from scorekit.classification import ROCAUC, range_cuts, split_ranges

    rng = np.random.default_rng(seed)
    metric = ROCAUC()
    cuts = None
    chunks = 0
    for start in range(0, rows, BLOCK):
        n = min(BLOCK, rows - start)
        y = (rng.random(n) < 0.3).astype(np.int8)
        s = rng.random(n)
        state = metric.summarize(y, s)
        if cuts is None:
            cuts = range_cuts(s[:100_000], ranges)
        _save(folder / f"chunk{chunks}.npz", state)
        for i, part in enumerate(split_ranges(state, cuts).parts):
            _save(folder / f"chunk{chunks}_range{i}.npz", part)
        chunks += 1
    return chunks


def _save(path: Path, state: object) -> None:
    counts = state.counts
    fields = {
        "labels": state.labels,
        "key": state.key,
        "score": state.score,
        "n_samples": state.n_samples,
    }
    if counts.strides[0] != 0:
        fields["counts"] = counts
    np.savez(path, **fields)


def run(code: str, *args: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", code, *args], check=True, capture_output=True, text=True
    )
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--ranges", type=int, default=16)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    base = os.environ.get("SCOREKIT_BENCH_DIR")
    folder = Path(tempfile.mkdtemp(prefix="scorekit-ranges-", dir=base))
    try:
        start = time.perf_counter()
        chunks = prepare(folder, args.rows, args.ranges)
        print(
            f"{args.rows:,} rows in {chunks} chunks, {args.ranges} ranges: "
            f"states saved in {time.perf_counter() - start:.1f} s"
        )
        baseline = run(BASELINE)
        whole = run(WHOLE, str(folder), str(chunks), str(args.ranges))
        ranged = run(RANGES, str(folder), str(chunks), str(args.ranges))
        print(f"{'':10} {'peak MB':>9} {'above import':>13} {'seconds':>8}")
        for name, r in (("import", baseline), ("whole", whole), ("ranges", ranged)):
            peak, above = float(r["peak_mb"]), float(r["peak_mb"]) - float(baseline["peak_mb"])  # type: ignore[arg-type]
            print(f"{name:10} {peak:9.0f} {above:13.0f} {float(r['seconds']):8.2f}")  # type: ignore[arg-type]
        same = whole["values"] == ranged["values"]
        print(f"values (roc_auc, average_precision) {whole['values']}: bitwise equal: {same}")
    finally:
        if args.keep:
            print(f"files kept in {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
