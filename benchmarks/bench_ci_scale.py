"""``scorekit eval --ci`` of exact ROC AUC against ``scorekit.stats.bootstrap`` on the same rows.

Writes (once) a Parquet file of labels (int8) and distinct float32 scores to
``benchmarks/.data/``, then runs, each in a fresh Python process whose peak
resident memory is read at the end (``VmHWM`` of ``/proc/self/status``, which
starts afresh with the new program; ``ru_maxrss`` from ``os.wait4`` where there
is no ``/proc``):

- the command ``scorekit eval FILE --task binary --true y --score s --metric
  roc_auc --ci --n-resamples 1000 --seed 1 --format json`` (``scorekit.cli.main``
  with those arguments, the file read whole as the command reads it), and
- ``scorekit.stats.bootstrap("roc_auc", y, s, n_resamples=1000, seed=1)`` on the
  file's columns, read before the clock starts.

Both children load the modules their run needs (a ten-row run) before their clock
starts, so the times are the bootstrap's, not the imports'. The row gives the
command's time against the Python function's, their intervals (the same Poisson
weights: the same interval), both peaks and both CPU times (the wall times of a
busy machine vary more). ``benchmarks/run.py`` runs it on 1,000,000 rows and
records the row. Usage::

    python benchmarks/bench_ci_scale.py [ROWS] [--chunk-size N] [--resamples B]

With ``--chunk-size`` the command reads the file ``N`` rows at a time (the
stream engine) and the Python function is not run (a file larger than memory
is what the chunks are for); the command's time, peak and interval are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

from _timing import Row

N = 1_000_000
RESAMPLES = 1000
SEED = 1
DATA = Path(__file__).resolve().parent / ".data"

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

COMMAND = (
    PEAK
    + """
import contextlib, io, json, sys, time
from scorekit.cli import main
path, resamples, seed, chunk = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
flags = ["--task", "binary", "--true", "y", "--score", "s", "--metric", "roc_auc",
         "--ci", "--seed", seed, "--format", "json"]
# the modules the run loads, loaded before the clock starts (as a warm interpreter has them)
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    main(["eval", sys.argv[5], *flags, "--n-resamples", "100"])
extra = [] if chunk == "0" else ["--chunk-size", chunk]
out = io.StringIO()
start, cpu = time.perf_counter(), time.process_time()
with contextlib.redirect_stdout(out):
    status = main(["eval", path, *flags, "--n-resamples", resamples, *extra])
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
found = json.loads(out.getvalue())["roc_auc"]
print(json.dumps({"seconds": seconds, "cpu": cpu, "status": status, "found": found, **peak()}))
"""
)

PYTHON = (
    PEAK
    + """
import json, sys, time, warnings
import numpy as np, pyarrow.parquet as pq
from scorekit import stats
path, resamples, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
table = pq.read_table(path)
y, s = table.column("y").to_numpy(), table.column("s").to_numpy()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    stats.bootstrap("roc_auc", y[:10], s[:10], n_resamples=100, seed=seed)
start, cpu = time.perf_counter(), time.process_time()
ci = stats.bootstrap("roc_auc", y, s, n_resamples=resamples, seed=seed)
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
found = {"value": ci.value, "low": ci.low, "high": ci.high}
print(json.dumps({"seconds": seconds, "cpu": cpu, "found": found, **peak()}))
"""
)


def data_file(n: int) -> Path:
    """The Parquet file of ``n`` rows (labels ``y``, distinct float32 scores ``s``), made once."""
    path = DATA / f"ci_scale_{n}.parquet"
    if path.exists():
        return path
    import pyarrow as pa
    import pyarrow.parquet as pq

    DATA.mkdir(exist_ok=True)
    rng = np.random.default_rng(0)
    # distinct float32 scores in [1/128, 1): float32 bit patterns in that range order as
    # their values do, so n distinct patterns are n distinct scores
    low, high = np.float32(1 / 128).view(np.int32), np.float32(1.0).view(np.int32)
    bits = rng.choice(int(high - low), size=n, replace=False).astype(np.int32) + low
    s = bits.view(np.float32)
    y = (rng.random(n) < s**0.5 * 0.8).astype(np.int8)
    part = path.with_suffix(".part")
    pq.write_table(pa.table({"y": y, "s": s}), part)
    part.rename(path)
    return path


def _measure(code: str, *args: str) -> dict[str, Any]:
    env = {**os.environ, "SCOREKIT_STATE_WARNING_SIZE": "1T"}
    process = subprocess.Popen(
        [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, env=env, text=True
    )
    assert process.stdout is not None
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        raise RuntimeError(f"benchmark child failed with status {status}")
    result: dict[str, Any] = json.loads(out)
    result.setdefault("peak", usage.ru_maxrss * 1024)
    return result


def command(n: int, resamples: int = RESAMPLES, chunk: int = 0) -> dict[str, Any]:
    """The command's seconds, peak bytes and interval on the file of ``n`` rows."""
    path, small = data_file(n), data_file(10)
    return _measure(COMMAND, str(path), str(resamples), str(SEED), str(chunk), str(small))


def python(n: int, resamples: int = RESAMPLES) -> dict[str, Any]:
    """``stats.bootstrap``'s seconds, peak bytes and interval on the same rows."""
    return _measure(PYTHON, str(data_file(n)), str(resamples), str(SEED))


def _same(a: dict[str, float], b: dict[str, float]) -> bool:
    return all(abs(a[k] - b[k]) <= 1e-12 * max(abs(b[k]), 1e-300) for k in ("value", "low", "high"))


def run(n: int = N, resamples: int = RESAMPLES) -> list[Row]:
    cli = command(n, resamples)
    ref = python(n, resamples)
    gb = 1e9
    memory = (
        f"peak {cli['peak'] / gb:.2f} GB command, {ref['peak'] / gb:.2f} GB Python; "
        f"CPU {cli['cpu']:.1f} s and {ref['cpu']:.1f} s"
    )
    return [
        Row(
            f"eval --ci roc_auc, {resamples:,} Poisson replicates",
            f"{n:,} distinct float32 scores, Parquet",
            cli["seconds"],
            "scorekit.stats.bootstrap",
            ref["seconds"],
            f"{'yes' if _same(cli['found'], ref['found']) else 'NO'} ({memory})",
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", nargs="?", type=int, default=N)
    parser.add_argument("--chunk-size", type=int, default=0)
    parser.add_argument("--resamples", type=int, default=RESAMPLES)
    args = parser.parse_args()
    if args.chunk_size:
        found = command(args.rows, args.resamples, args.chunk_size)
        print(
            f"eval --ci roc_auc, {args.rows:,} rows in chunks of {args.chunk_size:,}: "
            f"{found['seconds']:.1f} s (CPU {found['cpu']:.1f} s), "
            f"peak {found['peak'] / 1e9:.2f} GB, interval {json.dumps(found['found'])}"
        )
        return
    for row in run(args.rows, args.resamples):
        print(row.markdown())


if __name__ == "__main__":
    main()
