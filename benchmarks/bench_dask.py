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

Usage::

    python benchmarks/bench_dask.py [--files N]

``run(n)`` gives ``benchmarks/run.py`` the rows for ``n`` files.
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=N, help=f"files (default {N:,})")
    args = parser.parse_args()
    for row in run(args.files):
        print(row.markdown(), flush=True)
        print(f"  {row.ours / args.files * 1000:.2f} ms a file", file=sys.stderr)


if __name__ == "__main__":
    main()
