"""Peak memory of ``scorekit eval --chunk-size`` on exact ROC AUC and AP split by score ranges.

Writes ``--rows`` rows of binary labels (int8) and float32 scores into 8 Parquet
files, then runs ``scorekit eval`` on their folder, each run in a fresh Python
process whose peak resident memory is measured (``VmHWM`` of
``/proc/self/status``; ``ru_maxrss`` of the child where there is no ``/proc``):

* ``ranges``: ``roc_auc:ranges=R average_precision:ranges=R`` streamed in chunks;
  past ``SCOREKIT_SPILL_SIZE`` (256 MiB) each chunk's ranges go unmerged to a
  temporary file and each range is merged on its own at the end, so memory
  holds one chunk and one range;
* ``whole``: the same metrics with ``SCOREKIT_SPILL_SIZE=1T``, every range in
  memory (the stream engine's fold before ranges could spill);
* ``histogram``: plain ``roc_auc average_precision``, the whole histogram.

The values of the three runs must be equal bit for bit. Each child prints its
peak, its time (the command's, after the modules it needs are loaded) and the
values; temporary files go to ``$SCOREKIT_BENCH_DIR`` (or the system's
temporary directory), as do the Parquet files, which are deleted afterwards
unless ``--keep`` is given. ``--skip`` leaves runs out (``--skip whole
histogram`` measures the spilled run alone).

Usage::

    python benchmarks/bench_stream_ranges.py [--rows N] [--ranges R] [--chunk-size C]

By default 10,000,000 rows, 64 ranges, chunks of 1,000,000 rows. Disk: the data
takes 5 bytes a row; the spilled run writes some 24 bytes a row per metric for
the chunks' ranges and as much again for the merged ranges (less where scores
repeat). This is a benchmark, not a test: ``make test`` does not run it.
``benchmarks/run.py`` takes its rows from :func:`run`.
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

from _timing import Row

N = 10_000_000
RANGES = 64
CHUNK = 1_000_000
FILES = 8

CHILD = """
import contextlib, io, json, resource, sys, time
from scorekit.cli import main

def peak():
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

def command(argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    if code:
        raise SystemExit(f"scorekit eval failed with status {code}")
    return json.loads(out.getvalue())

folder, chunk, metrics = sys.argv[1], sys.argv[2], sys.argv[3:]
flags = ["--task", "binary", "--true", "y", "--score", "s", "--format", "json", "--quiet"]
# the modules the run loads, loaded before the clock starts
small = folder + "/../warm.parquet"
command(["eval", small, *flags, "--metric", *metrics])
start = time.perf_counter()
found = command(["eval", folder, *flags, "--chunk-size", chunk, "--metric", *metrics])
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "peak": peak(), "output": found}))
"""


def write(folder: Path, rows: int, files: int = FILES, seed: int = 0) -> int:
    """``rows`` rows of int8 labels and float32 scores in ``files`` Parquet files; their bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    total = 0
    bounds = np.linspace(0, rows, files + 1).astype(np.int64)
    for i in range(files):
        n = int(bounds[i + 1] - bounds[i])
        s = rng.random(n, dtype=np.float32)
        y = (rng.random(n, dtype=np.float32) < s**0.5 * 0.8).astype(np.int8)
        pq.write_table(pa.table({"y": y, "s": s}), folder / f"part{i}.parquet")
        total += int(y.nbytes + s.nbytes)
        del s, y
    warm = pa.table({"y": np.array([0, 1, 1], dtype=np.int8), "s": np.float32([0.1, 0.4, 0.3])})
    pq.write_table(warm, folder.parent / "warm.parquet")
    return total


def measure(folder: Path, chunk: int, metrics: list[str], temp: Path, spill: str | None) -> dict:
    """One child's peak, time and values (as float hex strings, by metric)."""
    env = {**os.environ, "TMPDIR": str(temp), "SCOREKIT_STATE_WARNING_SIZE": "1T"}
    if spill is not None:
        env["SCOREKIT_SPILL_SIZE"] = spill
    process = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(folder), str(chunk), *metrics],
        stdout=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert process.stdout is not None
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        raise RuntimeError(f"benchmark child failed with status {status}")
    result = json.loads(out.strip().splitlines()[-1])
    result.setdefault("peak", usage.ru_maxrss * 1024)
    values = result["output"].get("values", result["output"])
    result["values"] = {name: float(values[name]).hex() for name in metrics}
    return result


def _plain(values: dict) -> list[str]:
    """The values in metric order, whatever the options in the names."""
    return [values[k] for k in sorted(values, key=lambda k: k.split(":")[0])]


def compare(
    rows: int, ranges: int, chunk: int, skip: tuple[str, ...] = (), keep: bool = False
) -> dict[str, dict]:
    """Write the data, run the chosen runs; each run's peak, time and values."""
    base = os.environ.get("SCOREKIT_BENCH_DIR")
    folder = Path(tempfile.mkdtemp(prefix="scorekit-stream-ranges-", dir=base))
    try:
        data = folder / "data"
        size = write(data, rows)
        temp = folder / "tmp"
        temp.mkdir()
        ranged = [f"roc_auc:ranges={ranges}", f"average_precision:ranges={ranges}"]
        runs = {
            "ranges": (ranged, None),
            "whole": (ranged, "1T"),
            "histogram": (["roc_auc", "average_precision"], None),
        }
        found: dict[str, dict] = {"data": {"bytes": size}}
        for name, (metrics, spill) in runs.items():
            if name not in skip:
                found[name] = measure(data, chunk, metrics, temp, spill)
                left = list(temp.iterdir())
                found[name]["left"] = len(left)
        return found
    finally:
        if keep:
            print(f"files kept in {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


def run(n: int = N) -> list[Row]:
    found = compare(n, RANGES, CHUNK)
    ranged, whole, histogram = found["ranges"], found["whole"], found["histogram"]
    same = _plain(ranged["values"]) == _plain(whole["values"]) == _plain(histogram["values"])
    gb = 1e9
    data = found["data"]["bytes"] / gb
    memory = (
        f"peak {ranged['peak'] / gb:.2f} GB spilled, {whole['peak'] / gb:.2f} GB in memory, "
        f"{histogram['peak'] / gb:.2f} GB whole histogram; data {data:.2f} GB"
    )
    return [
        Row(
            f"eval roc_auc, average_precision :ranges={RANGES} in chunks of {CHUNK:,} (exact)",
            f"{n:,} rows of float32 scores, {FILES} Parquet files",
            ranged["seconds"],
            "scorekit, whole histogram",
            histogram["seconds"],
            f"{'yes' if same else 'NO'} ({memory})",
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=N)
    parser.add_argument("--ranges", type=int, default=RANGES)
    parser.add_argument("--chunk-size", type=int, default=CHUNK)
    parser.add_argument("--skip", nargs="*", default=[], choices=["whole", "histogram"])
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    start = time.perf_counter()
    found = compare(args.rows, args.ranges, args.chunk_size, tuple(args.skip), args.keep)
    print(
        f"{args.rows:,} rows in {FILES} files, {args.ranges} ranges, chunks of "
        f"{args.chunk_size:,}: {time.perf_counter() - start:.0f} s in all"
    )
    print(f"{'':10} {'peak GB':>8} {'seconds':>8} {'files left':>10}  values")
    for name in ("ranges", "whole", "histogram"):
        if name in found:
            r = found[name]
            print(
                f"{name:10} {r['peak'] / 1e9:8.2f} {r['seconds']:8.1f} {r['left']:10}  "
                f"{_plain(r['values'])}"
            )
    values = [_plain(found[k]["values"]) for k in ("ranges", "whole", "histogram") if k in found]
    print(f"values bitwise equal: {all(v == values[0] for v in values)}")


if __name__ == "__main__":
    main()
