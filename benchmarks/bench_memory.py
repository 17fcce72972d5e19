"""Peak memory of streaming evaluation: a 100,000,000-row file costs what a 1,000,000-row one does.

Writes Parquet files of binary labels (``y_true``, ``y_pred``) and regression
targets (``y``, ``y_hat``), generated in chunks of one million rows so that
generating them is bounded too, then evaluates accuracy and F1 (one pass) and
MSE (a second pass) on each file with :func:`scorekit.evaluate`, each file in a
fresh Python process. The peak resident memory of that process
(``ru_maxrss`` of the child, from ``os.wait4``: the per-child value behind
``getrusage(RUSAGE_CHILDREN)``) and its run time are printed for every size,
with their ratios to the smallest size. A baseline process that imports
scorekit and pyarrow and evaluates a ten-row table shows the fixed cost.

Usage::

    python benchmarks/bench_memory.py [--rows N [N ...]] [--chunk-size ROWS] [--keep]

By default the sizes are 1,000,000 and 100,000,000 rows (the larger file is
about 1.6 GB). Files go to ``$SCOREKIT_BENCH_DIR`` (or a temporary directory)
and are deleted afterwards unless ``--keep`` is given. This is a benchmark, not a
test: ``make test`` does not run it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

BLOCK = 1_000_000

CHILD = """
import json, sys, time
import scorekit
path, chunk = sys.argv[1], int(sys.argv[2])
start = time.perf_counter()
labels = scorekit.evaluate(path, ["accuracy", "f1"], chunk_size=chunk, progress=False)
regression = scorekit.evaluate(
    path, ["mse"], columns={"y_true": "y", "y_pred": "y_hat"}, chunk_size=chunk, progress=False
)
seconds = time.perf_counter() - start
values = {**labels.values, **regression.values}
print(json.dumps({"seconds": seconds, "rows": labels.rows, "values": values}))
"""

BASELINE = """
import json, time
import pyarrow, pyarrow.parquet, scorekit
start = time.perf_counter()
table = {"y_true": [1, 0] * 5, "y_pred": [1, 1] * 5, "y": [0.5] * 10, "y_hat": [0.25] * 10}
scorekit.evaluate(table, ["accuracy", "f1"], progress=False)
print(json.dumps({"seconds": time.perf_counter() - start, "rows": 10, "values": {}}))
"""


def write_file(path: Path, rows: int, seed: int = 0) -> None:
    """Write ``rows`` rows of labels and targets, one row group per million rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    schema = pa.schema(
        [("y_true", pa.int8()), ("y_pred", pa.int8()), ("y", pa.float64()), ("y_hat", pa.float64())]
    )
    with pq.ParquetWriter(path, schema) as writer:
        done = 0
        while done < rows:
            n = min(BLOCK, rows - done)
            y_true = rng.integers(0, 2, n, dtype=np.int8)
            flip = rng.random(n) < 0.2
            y_pred = np.where(flip, 1 - y_true, y_true).astype(np.int8)
            y = rng.normal(size=n)
            y_hat = y + rng.normal(scale=0.5, size=n)
            writer.write_table(
                pa.table({"y_true": y_true, "y_pred": y_pred, "y": y, "y_hat": y_hat}, schema)
            )
            done += n


def measure(code: str, *args: str) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter; its output plus its peak RSS in MiB."""
    process = subprocess.Popen(
        [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"child failed with exit code {process.returncode}")
    result: dict[str, object] = json.loads(output)
    # ru_maxrss is in KiB on Linux and in bytes on macOS
    scale = 1 if sys.platform == "darwin" else 1024
    result["peak_mib"] = usage.ru_maxrss * scale / 2**20
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 100_000_000])
    parser.add_argument("--chunk-size", type=int, default=65_536)
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    parser.add_argument("--write", nargs=2, metavar=("PATH", "ROWS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write:
        write_file(Path(args.write[0]), int(args.write[1]))
        return

    given = os.environ.get("SCOREKIT_BENCH_DIR")
    folder = Path(given or tempfile.mkdtemp(prefix="scorekit-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"files in {folder}; chunk size {args.chunk_size:,} rows")
    base = measure(BASELINE)
    print(f"{'baseline (import + 10 rows)':>28}: peak {base['peak_mib']:8.1f} MiB")
    results = []
    paths = []
    try:
        for rows in sorted(args.rows):
            path = folder / f"bench_{rows}.parquet"
            paths.append(path)
            start = time.perf_counter()
            # written by a child process: a fork of a parent that had held the data
            # would count the parent's memory in the peak of the measured children
            subprocess.run([sys.executable, __file__, "--write", str(path), str(rows)], check=True)
            made = time.perf_counter() - start
            size = path.stat().st_size / 1e9
            result = measure(CHILD, str(path), str(args.chunk_size))
            results.append((rows, result))
            values = ", ".join(f"{k} {v:.6f}" for k, v in result["values"].items())  # type: ignore[union-attr]
            print(
                f"{rows:>20,} rows ({size:.2f} GB, written in {made:.0f} s): "
                f"peak {result['peak_mib']:8.1f} MiB, {result['seconds']:7.1f} s  [{values}]",
                flush=True,
            )
    finally:
        if not args.keep:
            for path in paths:
                path.unlink(missing_ok=True)
            if not given:
                folder.rmdir()
    if len(results) > 1:
        (small, first), (large, last) = results[0], results[-1]
        print(
            f"{large // small}x the rows: peak memory x{last['peak_mib'] / first['peak_mib']:.2f}"  # type: ignore[operator]
            f", time x{last['seconds'] / first['seconds']:.1f}"  # type: ignore[operator]
        )


if __name__ == "__main__":
    main()
