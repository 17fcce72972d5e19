"""State files of exact ROC AUC and AP: bytes per pair, and ``scorekit merge`` of 8 shards.

The issue's measurement: N rows of binary labels and float32 scores (a
classifier's probabilities, mostly distinct) cut into 8 shards; each shard's
exact ``roc_auc`` and ``average_precision`` states are saved to one binary
state file, as ``scorekit eval --save-state`` writes them, split by score
ranges (``roc_auc:ranges=16``, the form whose merge holds one range at a time)
and, for comparison, as whole histograms. ``scorekit merge`` of the 8 files
runs in a fresh Python process, timed from its start to its exit (the import
of scorekit included); the process prints its own peak memory (``VmHWM``, the
high-water mark of its resident memory). Printed: bytes of the files per
distinct (label, score) pair of the shards (goal <= 13), the median time and
peak memory of the merges (goal at 100,000,000 rows: <= 30 s and <= 2 GB),
the load of the machine, and whether the values of the two forms are the same
bits.

Usage::

    python benchmarks/bench_state_files.py [--rows N] [--shards K] [--ranges R] [--runs 3]
                                           [--no-whole] [--keep] [--by-part]

With ``--by-part`` the ranged files are also merged range by range, as
separate machines would: ``scorekit merge --part I`` of the shards for each
range ``I``, each in a fresh process (time and peak of each), then ``scorekit
merge`` of the range files (time and peak); its values must be the plain
merge's, bit for bit.

The default is the issue's 100,000,000 rows in 8 shards (about 2 GB of files
and a few minutes); ``--rows 16000000`` is a quick look. Files go to
``$SCOREKIT_BENCH_DIR`` (or a temporary directory) and are deleted afterwards
unless ``--keep`` is given. ``run(n)`` gives ``benchmarks/run.py`` one row: the
merge of the ranged files against the merge of the whole histograms.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import Row

N = 100_000_000
"""Rows of the issue's measurement (8 shards of 12,500,000)."""

SHARDS = 8
RANGES = 16
METRICS = ("roc_auc", "average_precision")

MERGE = """
import contextlib, io, json, sys
from scorekit.cli import main
out, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    status = main(["merge", "--format", "json", *sys.argv[1:]])
if status:
    sys.exit(err.getvalue())
peak = 0.0
with open("/proc/self/status") as lines:
    for line in lines:
        if line.startswith("VmHWM:"):
            peak = int(line.split()[1]) * 1024
text = out.getvalue().strip()  # nothing for merge --part, which writes a range file
values = {k: float(v).hex() for k, v in json.loads(text).items()} if text else {}
print(json.dumps({"values": values, "peak": peak}))
"""


def shard_states(rows: int, seed: int, ranges: int) -> tuple[dict[str, Any], dict[str, Any], int]:
    """One shard's entries of whole histograms and of score ranges, and its distinct pairs."""
    from scorekit import parse_metric

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, rows, dtype=np.int8)
    # a classifier's probabilities: the logistic of a margin that depends on the label
    margin = rng.normal(size=rows) + 1.5 * y
    score = (1 / (1 + np.exp(-margin))).astype(np.float32)
    del margin
    whole: dict[str, Any] = {}
    ranged: dict[str, Any] = {}
    pairs = 0
    for name in METRICS:
        metric = parse_metric(name)
        whole[name] = (metric, metric.summarize(y, score))
        pairs = int(whole[name][1].key.size)
        if ranges:
            metric = parse_metric(f"{name}:ranges={ranges}")
            ranged[metric_key(name, ranges)] = (metric, metric.summarize(y, score))
    return whole, ranged, pairs


def metric_key(name: str, ranges: int) -> str:
    return f"{name}:ranges={ranges}" if ranges else name


def merge(paths: list[str]) -> dict[str, Any]:
    """``scorekit merge`` with the arguments ``paths`` (the files, and any flags) in a fresh
    process: wall seconds, its peak, its values (none for ``--part``)."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", MERGE, *paths], stdout=subprocess.PIPE, text=True, check=False
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"scorekit merge failed with exit code {done.returncode}")
    result: dict[str, Any] = json.loads(done.stdout)
    result["seconds"] = seconds
    return result


def merge_by_part(paths: list[str], ranges: int, folder: Path) -> dict[str, Any]:
    """``scorekit merge --part I`` of ``paths`` for every range, each in a fresh process, then
    the merge of the range files: the times, the peaks and the values."""
    seconds, peaks, parts = [], [], []
    for i in range(ranges):
        out = folder / f"part{i}.st"
        found = merge(
            ["--part", str(i), *paths, "--save-state", str(out), "--state-format", "binary"]
        )
        seconds.append(found["seconds"])
        peaks.append(found["peak"])
        parts.append(str(out))
    assembled = merge(parts)
    size = sum(Path(p).stat().st_size for p in parts)
    if not os.environ.get("SCOREKIT_BENCH_KEEP"):
        for p in parts:
            Path(p).unlink(missing_ok=True)
    return {
        "part_seconds": seconds,
        "part_peak": max(peaks),
        "assembled": assembled,
        "bytes": size,
    }


def measure(
    rows: int,
    shards: int,
    ranges: int,
    runs: int,
    whole: bool,
    folder: Path,
    by_part: bool = False,
) -> dict[str, Any]:
    """Write the shards' files and merge them ``runs`` times; the numbers of the measurement."""
    from scorekit.statefiles import save_states

    per = rows // shards
    forms = ([("ranges", ranges)] if ranges else []) + ([("whole", 0)] if whole else [])
    paths: dict[str, list[str]] = {form: [] for form, _ in forms}
    size = dict.fromkeys(paths, 0)
    pairs = 0
    for i in range(shards):
        entries, ranged, count = shard_states(per, i, ranges)
        pairs += count
        for form, _ in forms:
            path = folder / f"{form}{i}.st"
            chosen = ranged if form == "ranges" else entries
            save_states(
                path, chosen, command="eval", input="binary", rows=per, state_format="binary"
            )
            paths[form].append(str(path))
            size[form] += path.stat().st_size
        del entries, ranged
    out: dict[str, Any] = {"rows": per * shards, "shards": shards, "pairs": pairs}
    for form, _ in forms:
        found = [merge(paths[form]) for _ in range(runs)]
        out[form] = {
            "seconds": statistics.median(r["seconds"] for r in found),
            "all_seconds": [r["seconds"] for r in found],
            "peak": statistics.median(r["peak"] for r in found),
            "values": found[0]["values"],
            "bytes_per_pair": size[form] / pairs,
            "load": os.getloadavg()[0],
        }
    if ranges and by_part:
        out["by_part"] = merge_by_part(paths["ranges"], ranges, folder)
        out["by_part"]["same"] = out["by_part"]["assembled"]["values"] == out["ranges"]["values"]
    if ranges and whole:
        a = [out["ranges"]["values"][metric_key(m, ranges)] for m in METRICS]
        b = [out["whole"]["values"][m] for m in METRICS]
        out["same"] = a == b
    if not os.environ.get("SCOREKIT_BENCH_KEEP"):
        for form in paths:
            for p in paths[form]:
                Path(p).unlink(missing_ok=True)
    return out


def run(n: int) -> list[Row]:
    """The row for ``benchmarks/run.py``: the merge of ranged files against whole histograms."""
    given = os.environ.get("SCOREKIT_BENCH_DIR")
    folder = Path(tempfile.mkdtemp(prefix="scorekit-bench-", dir=given))
    try:
        found = measure(n, SHARDS, RANGES, 3, True, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    ranged, whole = found["ranges"], found["whole"]
    note = (
        f"{'yes' if found['same'] else 'NO'} (peak {ranged['peak'] / 1e9:.2f} GB against "
        f"{whole['peak'] / 1e9:.2f} GB; files {ranged['bytes_per_pair']:.1f} bytes per pair)"
    )
    return [
        Row(
            f"scorekit merge of {SHARDS} state files, exact roc_auc + AP, ranges={RANGES}",
            f"{found['rows']:,} rows",
            ranged["seconds"],
            "whole histograms",
            whole["seconds"],
            note,
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=N, help="rows in all (default 100,000,000)")
    parser.add_argument("--shards", type=int, default=SHARDS)
    parser.add_argument("--ranges", type=int, default=RANGES, help="score ranges (0: none)")
    parser.add_argument("--runs", type=int, default=3, help="merges of each form (median)")
    parser.add_argument("--no-whole", action="store_true", help="skip the whole histograms")
    parser.add_argument("--keep", action="store_true", help="keep the files")
    parser.add_argument(
        "--by-part", action="store_true", help="also merge the ranged files range by range"
    )
    args = parser.parse_args()
    given = os.environ.get("SCOREKIT_BENCH_DIR")
    folder = Path(tempfile.mkdtemp(prefix="scorekit-bench-", dir=given))
    if args.keep:
        os.environ["SCOREKIT_BENCH_KEEP"] = "1"
    print(f"{args.rows:,} rows in {args.shards} shards; files in {folder}; load {os.getloadavg()}")
    try:
        found = measure(
            args.rows,
            args.shards,
            args.ranges,
            args.runs,
            not args.no_whole,
            folder,
            by_part=args.by_part,
        )
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"{found['pairs']:,} distinct (label, score) pairs in the shards")
    for form in ("ranges", "whole"):
        if form not in found:
            continue
        r = found[form]
        label = f"ranges={args.ranges}" if form == "ranges" else "whole histograms"
        times = ", ".join(f"{t:.1f}" for t in r["all_seconds"])
        print(
            f"{label}: files {r['bytes_per_pair']:.2f} bytes per pair (goal <= 13); "
            f"scorekit merge median {r['seconds']:.1f} s ({times}), peak "
            f"{r['peak'] / 2**20:,.0f} MiB (goal at 100M rows: <= 30 s, <= 2 GB); "
            f"load {r['load']:.1f}"
        )
    if "by_part" in found:
        b = found["by_part"]
        t = b["part_seconds"]
        a = b["assembled"]
        print(
            f"merge --part I, {len(t)} processes: {sum(t):.1f} s in all (each "
            f"{min(t):.1f}-{max(t):.1f} s, median {statistics.median(t):.1f} s), largest peak "
            f"{b['part_peak'] / 2**20:,.0f} MiB; merge of the {len(t)} range files "
            f"({b['bytes'] / 1e6:,.0f} MB): {a['seconds']:.1f} s, peak {a['peak'] / 2**20:,.0f} "
            f"MiB; the plain merge's values, bit for bit: {b['same']}"
        )
    if "same" in found:
        print(f"values of the two forms the same bits: {found['same']}")


if __name__ == "__main__":
    main()
