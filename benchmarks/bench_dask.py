"""The Dask engine over many small files: the graph built on the client, and the whole run.

Writes N small Parquet files (50 rows of binary labels and predictions each) and
evaluates ``accuracy`` and ``f1`` over the folder:

- the graph built on the client (listing the files, their readers, one summarize
  task per partition and the tree of merges): small files read a group at a time on
  the workers against a Dask reader per file (the engine's way before; its merge
  tree is the one of now, which is built in one pass);
- the whole evaluation on a local cluster of two worker processes (started
  before the clock), against the stream engine in this process; the values
  must be the same.

- the peak memory (RSS) of the client process and the largest peak of the two
  worker processes, and the time, evaluating exact ROC AUC and AP over 100,000,000
  rows (int8 labels, float32 scores) in 8 Parquet files read on the workers, with
  ``ranges=16`` (each range merged on the cluster and kept there, the values read
  on the workers, since the cluster is the caller's) against the whole histogram
  merged into the client; the values must be the same, bit for bit. Both runs keep
  Dask's default memory limit of the workers.

With ``--memory ROWS`` it gives only the last row, for ROWS rows (in
``--memory-files`` files, the workers of the ranged run limited to
``--worker-memory``).

Usage::

    python benchmarks/bench_dask.py [--files N] [--memory ROWS [--ranges N] [--worker-memory L]]

``run(n)`` gives ``benchmarks/run.py`` the rows for ``n`` files (and the memory row
for ``100,000,000 * n / 2000`` rows).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from _timing import Row, best_of

N = 2000
ROWS = 50


def write_files(folder: Path, n: int) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(0)
    for i in range(n):
        y = rng.integers(0, 2, ROWS)
        pred = np.where(rng.random(ROWS) < 0.8, y, 1 - y)
        pq.write_table(pa.table({"y_true": y, "y_pred": pred}), folder / f"part-{i:05d}.parquet")


def client_graph(folder: Path, grouped: bool) -> float:
    """Seconds to build the graph of the folder on the client: small files read a group
    at a time (``grouped``), or a Dask reader per file, the engine's way before."""
    import dask

    from scorekit import parse_metric
    from scorekit.engines import dask as engine
    from scorekit.engines._columns import resolve

    metrics = [parse_metric("accuracy"), parse_metric("f1")]
    mapping = resolve(metrics, None, ["y_true", "y_pred"])
    wanted = ["y_true", "y_pred"]
    agreeing = engine._agreeing
    if not grouped:
        engine._agreeing = lambda pairs, wanted: False  # type: ignore[assignment]
    try:
        start = time.perf_counter()
        with dask.config.set({"dataframe.convert-string": False}):
            # two worker threads; as many as files turns the groups off
            threads = 2 if grouped else 1 << 30
            frame, label = engine._read_files(str(folder), wanted, set(), threads)
            engine._graph(frame, metrics, mapping, None, label, {}, False)
        return time.perf_counter() - start
    finally:
        engine._agreeing = agreeing


def run(n: int) -> Iterator[Row]:
    """Rows for ``benchmarks/run.py``: ``n`` files of 50 rows."""
    from distributed import Client, LocalCluster

    import scorekit

    folder = Path(tempfile.mkdtemp(prefix="scorekit-bench-dask-"))
    try:
        write_files(folder, n)
        client_graph(folder, True)  # Dask's modules loaded before the clock
        size = f"{n:,} files of {ROWS} rows"
        ours, _ = best_of(lambda: client_graph(folder, True), 3)
        theirs, _ = best_of(lambda: client_graph(folder, False), 1)
        yield Row("dask graph on the client", size, ours, "a Dask reader per file", theirs, "-")
        metrics = ["accuracy", "f1"]
        columns = {"y_true": "y_true", "y_pred": "y_pred"}
        with (
            LocalCluster(
                n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
            ) as cluster,
            Client(cluster) as client,
        ):
            client.run(exec, "import scorekit\nscorekit.available()")

            def on_dask() -> Any:
                return scorekit.evaluate(
                    str(folder), metrics, columns=columns, engine="dask", progress=False
                )

            def on_stream() -> Any:
                return scorekit.evaluate(str(folder), metrics, columns=columns, progress=False)

            ours, a = best_of(on_dask, 1)
            theirs, b = best_of(on_stream, 1)
        same = all(a.values[m] == b.values[m] for m in metrics)
        yield Row(
            "dask engine, 2 workers", size, ours, "stream engine", theirs, "yes" if same else "NO"
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    yield memory_row(MEMORY_ROWS * n // N)


def write_scores(folder: Path, rows: int, files: int = 10) -> None:
    """``rows`` rows of int8 binary labels and float32 scores in ``files`` Parquet files."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(0)
    per = -(-rows // files)
    for i in range(files):
        n = min(per, rows - i * per)
        if n <= 0:
            break
        score = rng.random(n, dtype=np.float32)
        y = (rng.random(n, dtype=np.float32) < score).astype(np.int8)
        pq.write_table(pa.table({"y_true": y, "y_score": score}), folder / f"s-{i:03d}.parquet")


def _client_peak(folder: str, metrics: list[str], out: Any, limit: str | None = None) -> None:
    """In a fresh process: the client's RSS before and at the peak of one Dask evaluation.

    ``limit`` is each worker's ``memory_limit`` (Dask's default: a share of the machine's).
    """

    from distributed import Client, LocalCluster

    import scorekit

    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            host="127.0.0.1",
            dashboard_address=None,
            memory_limit=limit or "auto",
        ) as cluster,
        Client(cluster) as client,
    ):
        # the workers' modules loaded before the clock starts, as on a warm cluster
        client.run(exec, "import scorekit\nscorekit.available()")
        before = _own_peak()
        start = time.perf_counter()
        result = scorekit.evaluate(folder, metrics, engine="dask", progress=False)
        seconds = time.perf_counter() - start
        peak = _own_peak()
        values = [float(result.values[m]) for m in metrics]
        workers = client.run(_own_peak)
    out.put((before, peak, values, max(workers.values()), seconds))


def _own_peak() -> int:
    """This process's peak RSS in bytes (also run on each worker).

    ``VmHWM`` of ``/proc/self/status``, which starts afresh with the new program:
    ``ru_maxrss`` keeps the high-water mark of the process that forked this one
    (the benchmark's own, when it has run others before), and is the fallback
    where there is no ``/proc``.
    """
    import resource

    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def client_memory(
    rows: int, ranges: int = 16, limit: str | None = None, files: int = 10
) -> dict[str, Any]:
    """Peaks and times of one Dask evaluation with ``ranges`` and one with the whole state.

    ``limit`` is the workers' memory limit of the run with ranges (the whole state's
    run keeps Dask's default). Each run is a fresh process: its client's RSS before
    the evaluation and at its peak, the largest peak of its workers, and its seconds.
    """
    import multiprocessing

    folder = Path(tempfile.mkdtemp(prefix="scorekit-bench-rss-"))
    try:
        write_scores(folder, rows, files)
        found: dict[str, Any] = {}
        for label, names in (
            ("ranges", [f"roc_auc:ranges={ranges}", f"average_precision:ranges={ranges}"]),
            ("whole", ["roc_auc", "average_precision"]),
        ):
            context = multiprocessing.get_context("spawn")
            queue = context.Queue()
            given = limit if label == "ranges" else None
            child = context.Process(target=_client_peak, args=(str(folder), names, queue, given))
            child.start()
            try:
                # a child that fails (a cluster that does not start, memory) puts nothing
                before, peak, values, worker, seconds = queue.get(timeout=3600)
            finally:
                child.join(timeout=60)
            if child.exitcode:
                raise SystemExit(f"bench_dask: the {label} client ended with {child.exitcode}")
            found[label] = {
                "client": peak,
                "grown": peak - before,
                "worker": worker,
                "seconds": seconds,
                "bits": [np.float64(v).tobytes() for v in values],
            }
        found["same"] = found["ranges"]["bits"] == found["whole"]["bits"]
        return found
    finally:
        shutil.rmtree(folder, ignore_errors=True)


MEMORY_ROWS = 100_000_000
"""Rows of the memory row of :func:`run` (scaled with the number of files)."""

MEMORY_FILES = 8


def memory_row(rows: int, ranges: int = 16, limit: str | None = None) -> Row:
    """Exact ROC AUC + AP of ``rows`` rows on 2 workers: ``ranges`` against the whole state."""
    found = client_memory(rows, ranges, limit, MEMORY_FILES)
    gb = 1e9
    ranged, whole = found["ranges"], found["whole"]
    limited = f", workers limited to {limit}" if limit else ""
    note = (
        f"{'yes' if found['same'] else 'NO'} (peak: client {ranged['client'] / gb:.2f} GB, "
        f"largest worker {ranged['worker'] / gb:.2f} GB; whole: client "
        f"{whole['client'] / gb:.2f} GB, largest worker {whole['worker'] / gb:.2f} GB)"
    )
    return Row(
        f"dask engine, 2 workers{limited}: exact roc_auc + AP, ranges={ranges}",
        f"{rows:,} rows of float32 scores in {MEMORY_FILES} Parquet files",
        ranged["seconds"],
        "dask, whole histogram",
        whole["seconds"],
        note,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=N, help=f"files (default {N:,})")
    parser.add_argument(
        "--memory", type=int, default=None, metavar="ROWS", help="measure the client's memory"
    )
    parser.add_argument(
        "--ranges", type=int, default=16, help="score ranges with --memory (default 16)"
    )
    parser.add_argument(
        "--worker-memory",
        default=None,
        metavar="LIMIT",
        help="each worker's memory limit with --memory and ranges (e.g. 1.5GB; Dask spills "
        "to disk past a share of it)",
    )
    parser.add_argument(
        "--memory-files",
        type=int,
        default=10,
        metavar="N",
        help="Parquet files the --memory rows are written to (default 10)",
    )
    args = parser.parse_args()
    if args.memory is not None:
        global MEMORY_FILES
        MEMORY_FILES = args.memory_files
        print(memory_row(args.memory, args.ranges, args.worker_memory).markdown(), flush=True)
        return
    for row in run(args.files):
        print(row.markdown(), flush=True)
        print(f"  {row.ours / args.files * 1000:.2f} ms a file", file=sys.stderr)


if __name__ == "__main__":
    main()
