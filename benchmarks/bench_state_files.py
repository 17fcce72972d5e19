"""State files of exact ROC AUC states: size, write and read time, and the merge of shards.

For N rows of binary labels and float32 scores cut into shards, each shard's
exact ``roc_auc`` state (a histogram of distinct (label, score) pairs) is
written to a binary state file (:func:`scorekit.statefiles.save_states`); the
files are read back, then merged (:func:`scorekit.statefiles.merge_states`,
``scorekit merge``) in a fresh Python process whose peak memory (``VmHWM``,
the high-water mark of its own resident memory) and run time are printed, with the merged
state written to one whole-run binary file and read again in a fresh process.
The data are generated in memory a shard at a time, so generating them is
bounded by one shard. Printed: bytes per distinct pair (goal <= 13), write and
read time per shard, merge time and peak memory (goal at 100,000,000 rows in 8
shards: <= 30 s and <= 2 GB), and the AUC of the merge against the in-memory
fold of the shards' states (the same number, bit for bit).

Usage::

    python benchmarks/bench_state_files.py [--rows N] [--shards K] [--json] [--keep]

The default, 8 shards of 2,000,000 rows, runs in well under a minute;
``--rows 100000000`` is the large measurement. ``--json`` also writes and reads
the first shard as a JSON state file, the format of before, for comparison
(slow: about 3 s per million rows each way). Files go to
``$SCOREKIT_BENCH_DIR`` (or a temporary directory) and are deleted afterwards
unless ``--keep`` is given. ``run(n)`` gives ``benchmarks/run.py`` the rows of
one shard of ``n // 8`` rows, binary against JSON.
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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import Row, best_of

N = 16_000_000
"""Rows of the default run (8 shards of 2,000,000)."""

PEAK = """
def peak_mib():
    # the high-water mark of this process's own memory (VmHWM): the ru_maxrss of a
    # child also counts the memory its parent had when it was started
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource, sys
    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20
"""

MERGE = (
    PEAK
    + """
import json, sys, time
from scorekit.statefiles import merge_states, save_states
out, paths = sys.argv[1], sys.argv[2:]
start, cpu = time.perf_counter(), time.process_time()
metrics, states, header = merge_states(paths)
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
metric, state = metrics["roc_auc"], states["roc_auc"]
peak = peak_mib()
start = time.perf_counter()
save_states(out, {"roc_auc": (metric, state)}, rows=header["rows"], state_format="binary")
written = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "cpu": cpu, "write": written, "peak_mib": peak,
                  "auc": float(metric.compute(state)), "pairs": int(state.key.size)}))
"""
)

READ = (
    PEAK
    + """
import json, sys, time
from scorekit.statefiles import load_states
start, cpu = time.perf_counter(), time.process_time()
file = load_states(sys.argv[1])
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
metric, state = file.metrics["roc_auc"], file.states["roc_auc"]
print(json.dumps({"seconds": seconds, "cpu": cpu, "peak_mib": peak_mib(),
                  "auc": float(metric.compute(state))}))
"""
)


def shard_state(rows: int, seed: int) -> tuple[Any, Any]:
    """The ``roc_auc`` metric and the state of one shard of labels and float32 scores."""
    from scorekit import parse_metric

    rng = np.random.default_rng(seed)
    metric = parse_metric("roc_auc")
    y = rng.integers(0, 2, rows, dtype=np.int8)
    # a classifier's probabilities: the logistic of a margin that depends on the label
    margin = rng.normal(size=rows) + 1.5 * y
    score = (1 / (1 + np.exp(-margin))).astype(np.float32)
    return metric, metric.summarize(y, score)


def measure(code: str, *args: str) -> dict[str, Any]:
    """Run ``code`` in a fresh interpreter; what it prints (JSON, with its own peak memory)."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"child failed with exit code {done.returncode}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def run(n: int) -> Iterator[Row]:
    """Rows for ``benchmarks/run.py``: one shard of ``n // 8`` rows, binary against JSON."""
    from scorekit.statefiles import load_states, save_states

    rows = max(1, n // 8)
    metric, state = shard_state(rows, 0)
    folder = Path(tempfile.mkdtemp(prefix="scorekit-bench-"))
    try:
        entry = {"roc_auc": (metric, state)}
        binary, json_file = folder / "s.st", folder / "s.json"
        ours, _ = best_of(lambda: save_states(binary, entry, state_format="binary"), 3)
        theirs, _ = best_of(lambda: save_states(json_file, entry, state_format="json"), 1)
        size = f"{rows:,} rows"
        ratio = json_file.stat().st_size / binary.stat().st_size
        yield Row("state file write, roc_auc", size, ours, "JSON", theirs, f"{ratio:.1f}x smaller")
        ours, a = best_of(lambda: load_states(binary).states["roc_auc"], 3)
        theirs, b = best_of(lambda: load_states(json_file).states["roc_auc"], 1)
        yield Row("state file read, roc_auc", size, ours, "JSON", theirs, _agree(a, b, state))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _agree(a: Any, b: Any, state: Any) -> str:
    return "yes" if a.equals(state) and b.equals(state) else "NO"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=N, help="rows in all (default 16,000,000)")
    parser.add_argument("--shards", type=int, default=8)
    parser.add_argument("--json", action="store_true", help="also time the first shard as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the files")
    args = parser.parse_args()
    from scorekit.statefiles import load_states, save_states

    given = os.environ.get("SCOREKIT_BENCH_DIR")
    folder = Path(given or tempfile.mkdtemp(prefix="scorekit-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    per = args.rows // args.shards
    print(f"{args.rows:,} rows in {args.shards} shards of {per:,}; files in {folder}")
    paths, pairs, write, read, read_cpu, size = [], 0, 0.0, 0.0, 0.0, 0
    folded = None
    for i in range(args.shards):
        metric, state = shard_state(per, i)
        path = folder / f"shard{i}.st"
        start = time.perf_counter()
        save_states(path, {"roc_auc": (metric, state)}, rows=per, state_format="binary")
        write += time.perf_counter() - start
        start, cpu = time.perf_counter(), time.process_time()
        loaded = load_states(path).states["roc_auc"]
        read += time.perf_counter() - start
        read_cpu += time.process_time() - cpu
        assert loaded.equals(state)
        if args.json and i == 0:
            json_path = folder / "shard0.json"
            start = time.perf_counter()
            save_states(json_path, {"roc_auc": (metric, state)}, rows=per, state_format="json")
            json_write = time.perf_counter() - start
            start = time.perf_counter()
            assert load_states(json_path).states["roc_auc"].equals(state)
            json_read = time.perf_counter() - start
            print(
                f"JSON shard 0: {json_path.stat().st_size:,} bytes "
                f"({json_path.stat().st_size / state.key.size:.1f} per pair), "
                f"write {json_write:.2f} s, read {json_read:.2f} s"
            )
            json_path.unlink()
        pairs += state.key.size
        size += path.stat().st_size
        paths.append(str(path))
        # the merge of today: the shards' states folded in order, in memory
        folded = state if folded is None else metric.merge(folded, state)
        del state, loaded
    print(
        f"shard files: {size:,} bytes for {pairs:,} distinct pairs = {size / pairs:.2f} bytes "
        f"per pair (goal <= 13); write {write / args.shards:.3f} s, "
        f"read {read / args.shards:.3f} s ({read_cpu / args.shards:.3f} s CPU) per shard"
    )
    expected = float(metric.compute(folded))
    del folded
    whole = folder / "whole.st"
    merged = measure(MERGE, str(whole), *paths)
    same = "same" if merged["auc"] == expected else f"DIFFERS from {expected!r}"
    print(
        f"merge of {args.shards} files: {merged['seconds']:.2f} s ({merged['cpu']:.2f} s CPU), "
        f"peak {merged['peak_mib']:.0f} MiB (goal at 100M rows: <= 30 s, <= 2048 MiB); "
        f"AUC {merged['auc']!r}, {same} as the in-memory fold"
    )
    again = measure(READ, str(whole))
    print(
        f"whole-run file: {whole.stat().st_size:,} bytes, {merged['pairs']:,} pairs "
        f"({whole.stat().st_size / merged['pairs']:.2f} per pair); written in "
        f"{merged['write']:.2f} s, read in {again['seconds']:.2f} s ({again['cpu']:.2f} s CPU), "
        f"peak {again['peak_mib']:.0f} MiB"
    )
    if not args.keep and not given:
        shutil.rmtree(folder, ignore_errors=True)
    elif not args.keep:
        for p in [*paths, str(whole)]:
            Path(p).unlink(missing_ok=True)


if __name__ == "__main__":
    main()
