"""The Spark engine: ``summarize`` on the executors, partition by partition, then ``merge`` there.

Each partition of the input is folded on an executor by ``mapInArrow``: its rows,
in Arrow batches regrouped into chunks of ``chunk_size`` rows, go through
:func:`scorekit.engines.stream.fold` (the stream engine's per-chunk work and merge),
and the partition yields one row per metric holding its state, encoded by
:mod:`scorekit.engines._spark_codec` (the JSON document of
:meth:`~scorekit.core.State.to_dict` with its arrays as raw blocks in the smallest
type that keeps every bit, never pickle; a state equal to an earlier metric's,
as ``average_precision``'s histogram is ``roc_auc``'s, as an alias of it), plus
one row with the rows it read and the warnings its metrics raised. Their states
are merged on the executors in a tree, level after level, each task merging the
states of consecutive partitions in partition order (``groupBy`` of the group of
partitions, then ``applyInArrow``), as many as hold
:data:`~scorekit.engines._parts.MERGE_BYTES` together as they travel (two at
least, eight at most), as the Dask engine merges; the driver receives the states
of the partitions of one merge (with score ranges, of one partition: the
executors merge them to the end) and merges them in order, so states that keep
per-row values keep them in the order of the input. A value travels
as Arrow rows of at most :data:`PIECE` bytes, never through Spark's row pickler.

The input is one of:

- a Spark DataFrame (``scorekit.evaluate(df, ..., engine="spark")``): its Arrow
  batches as Spark gives them, only the columns the metrics read;
- files (a path, a glob or a directory of Parquet, CSV, TSV, JSON Lines files, the
  text ones gzipped or not, or any registered format): every file is read on an
  executor by scorekit's own readers, so its rows and column types are those the
  stream engine reads; a Parquet file is split into its row groups;
- an in-memory table, or any other source :func:`scorekit.evaluate` reads: read in
  chunks here and the chunks sent to the executors in Arrow's IPC format.

Ranking metrics need the rows of a query in one state: a DataFrame is
repartitioned by the query column and sorted by it within each partition; files
are read whole, one task per file (a query's rows in one file, grouped, as the
stream engine wants them in its input); a table is cut between queries.

A state made of independent parts (:attr:`~scorekit.core.State.parted`: exact ROC
AUC and AP with ``ranges=N``) travels as its shell and one value per part, each
merged under a key of its own; the metrics that keep one such state (ROC AUC and
AP of one column in the same ranges) send it once, the others as an alias of it.
On the caller's session (or one whose states are not used after it) the merged
parts stay on the executors
(:mod:`scorekit.engines._spark_parts`): a reader's scan is one job that reads them
there, and only per-range totals reach the driver. A session the engine starts
and stops, whose states are kept, brings them to the driver one at a time
(``toLocalIterator``), each written to a file. No process holds the whole state.

Merging two states that hold the same query is an error, as is merging states of
different settings: the engine cannot give a wrong number from badly partitioned
input. pyspark is imported inside the functions: ``import scorekit.engines``
never loads it. Install it with ``pip install "scorekit[spark]"``; Spark needs
Java 17 or later.
"""

from __future__ import annotations

import bisect
import contextlib
import itertools
import os
import re
import shutil
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from scorekit import io as _io
from scorekit.core import MergeTree, Metric, State, caught, merges_alike, same_state
from scorekit.engines import _spark_codec as codec
from scorekit.engines._columns import optional_columns, resolve, wanted_columns
from scorekit.engines._fold import (
    DEFAULT_CHUNK_SIZE,
    Notes,
    check_cluster,
    group_role,
    positive_int,
    side_inputs,
)
from scorekit.engines._parts import (
    MERGE_BYTES,
    StoredParts,
    keeping_parts,
    merge_starts,
    owner_keeps,
    parted_metrics,
    sharing,
)
from scorekit.engines._spark_parts import kept_parts
from scorekit.engines.stream import fold, read_chunks
from scorekit.errors import ConfigError, ScorekitError, message, raw

__all__ = ["run", "spark_states"]

WHERE = "the Spark engine (--engine spark)"
_INSTALL = 'pip install "scorekit[spark]", and Java 17 or later'
_UNITS = "kind string, path string, fmt string, groups array<int>, start long, data binary"
_OUT = "key int, sub int, part int, piece int, value binary"
WHOLE = -1
"""The ``sub`` of a whole value (a state, a shell, the rows and warnings); parts have theirs."""
PIECE = 4 * 2**20
"""The bytes of a value in one row: a large state travels as rows of at most this many."""
BATCH = 64 * PIECE
"""The bytes of values in one Arrow batch (far below the 2 GiB of Arrow's binary offsets)."""
PARTS_AT_ONCE = 4
"""About how many merged parts one Spark partition brings to the driver, when they come here."""
_LOCAL = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.log.level": "ERROR",
    "spark.driver.memory": "4g",
}
"""Settings of the local session the engine starts when there is none."""


def _require() -> None:
    try:
        import pyarrow  # noqa: F401
        import pyspark
        from pyspark.sql import SparkSession  # noqa: F401
    except ImportError as exc:
        raise ConfigError(
            message(
                "evaluate",
                "the Spark engine needs pyspark",
                raw(f"{exc.name or 'pyspark'} is not installed"),
                _INSTALL,
            )
        ) from None
    # Arrow's grouped maps and DataFrame.toArrow came with pyspark 4.0
    version = str(getattr(pyspark, "__version__", "0"))
    major = version.split(".", 1)[0]
    if not (major.isdigit() and int(major) >= 4):
        raise ConfigError(
            message(
                "evaluate",
                "the Spark engine needs pyspark 4.0 or later",
                raw(f"pyspark {version}"),
                _INSTALL,
            )
        )


# the engine ------------------------------------------------------------------------------


def run(
    source: Any,
    metrics: Sequence[Metric[Any]],
    *,
    columns: Mapping[str, str | Sequence[str]] | None = None,
    side: Mapping[str, Any] | None = None,
    chunk_size: int | None = None,
    progress: bool | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    partitions: int | None = None,
) -> tuple[list[State], int]:
    """The ``spark`` engine of :func:`scorekit.evaluate`: :func:`spark_states` over ``source``.

    ``scheduler`` (a Spark master URL), ``workers`` (the cores of a local
    session) and ``partitions`` are this engine's options; ``chunk_size`` is the
    rows an executor summarizes at a time. ``progress`` is not used: Spark
    reports its own.
    """
    states, rows, notes = spark_states(
        source,
        metrics,
        columns=columns,
        side=side,
        chunk_size=chunk_size,
        scheduler=scheduler,
        workers=workers,
        partitions=partitions,
    )
    notes.emit(stacklevel=2)
    return states, rows


def spark_states(
    source: Any,
    metrics: Sequence[Metric[Any]],
    *,
    columns: Mapping[str, str | Sequence[str]] | None = None,
    side: Mapping[str, Any] | None = None,
    chunk_size: int | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    partitions: int | None = None,
) -> tuple[list[State], int, Notes]:
    """The state of every metric over a Spark DataFrame, files or a table, computed on Spark.

    Parameters
    ----------
    source
        A Spark DataFrame; a path, glob or directory of files :func:`scorekit.evaluate`
        reads (read on the executors by scorekit's readers); or an in-memory table
        or other source, read here in chunks sent to the executors.
    metrics
        The configured metrics.
    columns
        Role -> column name(s), as :func:`scorekit.evaluate` takes them.
    side
        Inputs given beside the table (ranking's ``qrels``), prepared once by the
        metrics' input kinds and sent to the executors once (a broadcast).
    chunk_size
        Rows an executor summarizes at a time (default
        :data:`~scorekit.engines.DEFAULT_CHUNK_SIZE`); also the rows of a chunk of
        an in-memory table.
    scheduler
        The Spark master to run on (``spark://HOST:7077``, ``yarn``,
        ``local[4]``...). Without it (and without ``workers``) the active Spark
        session is used if there is one; otherwise a local session on every
        core is started for the call and stopped after.
    workers
        The cores of the local session started for the call (``local[N]``).
    partitions
        The Spark partitions the input is cut into: a DataFrame is repartitioned
        into that many (a shuffle: its rows come in Spark's order, which changes
        the order of the per-row values some states keep, never a value); files
        and tables are spread over that many tasks, in order (default: as many
        as the session runs at once, at most one per file, row group or chunk).

    Returns
    -------
    tuple
        The merged state of each metric (in the order of ``metrics``), the rows
        read, and the distinct warnings the metrics raised on the executors.

    Raises
    ------
    ConfigError
        pyspark or Java missing, a session that cannot start, options that
        contradict each other or the active session, metrics keyed by row
        position, executors that cannot import scorekit, a failed Spark job
        (naming its cause).
    InputError
        A missing column or file, a file that cannot be read, a bad value (naming
        the file or partition, the row and the column): the errors of the stream
        engine, raised on an executor and raised again here.

    Examples
    --------
    >>> from pyspark.sql import SparkSession  # doctest: +SKIP
    >>> spark = SparkSession.builder.master("local[2]").getOrCreate()  # doctest: +SKIP
    >>> frame = spark.createDataFrame([(1, 1), (0, 1), (1, 1), (1, 0)], "y_true int, y_pred int")
    ... # doctest: +SKIP
    >>> from scorekit import parse_metric
    >>> metrics = [parse_metric("accuracy")]
    >>> states, rows, notes = spark_states(frame, metrics)  # doctest: +SKIP
    >>> rows, metrics[0].compute(states[0])  # doctest: +SKIP
    (4, 0.5)
    """
    _require()
    size = positive_int(
        DEFAULT_CHUNK_SIZE if chunk_size is None else chunk_size, "chunk_size", unit="rows"
    )
    if partitions is not None:
        partitions = positive_int(partitions, "partitions")
    _check_cluster(scheduler, workers)
    metrics = list(metrics)
    _check_positions(metrics)
    prepared = side_inputs(metrics, side or {})
    frame = _is_frame(source)
    src = None if frame else _io.open_source(source)
    present = [str(c) for c in source.columns] if frame else src.columns()  # type: ignore[union-attr]
    mapping = resolve(metrics, columns, present)
    optional = optional_columns(metrics, mapping, columns)
    keys = _group_keys(metrics, mapping)
    if frame and (scheduler is not None or workers is not None):
        raise ConfigError(
            message(
                "evaluate",
                "a Spark DataFrame runs on its own session",
                raw(f"scheduler={scheduler!r}, workers={workers!r}"),
                "neither scheduler nor workers with a DataFrame",
            )
        )
    sessions = (
        contextlib.nullcontext(source.sparkSession) if frame else _session(scheduler, workers)
    )
    with sessions as spark:
        context = spark.sparkContext
        setup = context.broadcast((metrics, dict(mapping), prepared, optional, size))
        try:
            with _quiet():
                if frame:
                    parts = _frame_parts(source, mapping, keys, partitions, context)
                else:
                    units = _units(src, mapping, keys, optional, size)
                    count = max(1, min(len(units), partitions or context.defaultParallelism))
                    parts = spark.createDataFrame(context.parallelize(units, count), _UNITS)
                parted = parted_metrics(metrics)
                shared = sharing(metrics, parted)
                while True:
                    task = (
                        _frame_task(setup, "spark dataframe", shared)
                        if frame
                        else _unit_task(setup, shared)
                    )
                    reduced = parts.mapInArrow(task, _OUT)
                    if not parted:
                        return _reduce(reduced, setup, metrics)
                    try:
                        return _with_parts(reduced, setup, metrics, context)
                    except _Unshared:
                        # a partition whose states of such metrics were not one: each its own
                        shared = {}
        finally:
            with contextlib.suppress(Exception):
                setup.destroy()


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Without pyspark's warning about the pandas version, which the engine does not use."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "PySpark does not yet fully support", FutureWarning)
        yield


def _is_frame(source: Any) -> bool:
    module = type(source).__module__ or ""
    return module.startswith("pyspark") and hasattr(source, "mapInArrow")


def _group_keys(
    metrics: Sequence[Metric[Any]], mapping: Mapping[str, tuple[str, ...]]
) -> list[str]:
    """The columns whose rows must meet in one partition (ranking's query), each once."""
    roles = sorted({r for r in (group_role(m) for m in metrics) if r is not None})
    return list(dict.fromkeys(name for role in roles for name in mapping.get(role, ())))


def _check_positions(metrics: Sequence[Metric[Any]]) -> None:
    """Refuse metrics keyed by row position: a partition does not know where its rows stand."""
    positional = [m.name for m in metrics if m.positional]
    if positional:
        names = ", ".join(dict.fromkeys(positional))
        raise ConfigError(
            message(
                WHERE,
                "its partitions do not know the positions of their rows",
                raw(f"{names} with units keyed by row position (--ci without --key)"),
                "a key column for the units where the command has one (--key COL; key=COL "
                "in Python), or the stream engine (--chunk-size N)",
            )
        )


def _check_cluster(scheduler: Any, workers: Any) -> None:
    """Check the session options: a master URL, or the cores of a local session, not both.

    Examples
    --------
    >>> _check_cluster("local[2]", None)
    >>> _check_cluster("local[2]", 2)
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: evaluate: workers is the size of a local Spark session and \
cannot go with a master; got scheduler='local[2]', workers=2, expected one of them.
    """
    check_cluster(
        scheduler,
        workers,
        local="a local Spark session",
        remote="master",
        invalid="invalid Spark master",
        address="a master URL like spark://HOST:7077, yarn or local[4]",
    )


# sessions --------------------------------------------------------------------------------


@contextlib.contextmanager
def session(scheduler: str | None = None, workers: int | None = None) -> Iterator[None]:
    """One Spark session for every run with these options within the block.

    The session started here is the active one, which :func:`run` then uses
    (:func:`scorekit.engines.session`); an active session is used as it is.
    """
    _require()
    _check_cluster(scheduler, workers)
    with _session(scheduler, workers):
        yield


@contextlib.contextmanager
def _session(scheduler: str | None, workers: int | None) -> Iterator[Any]:
    """The active session, or one started for the call on ``scheduler`` or ``local[workers]``."""
    from pyspark.sql import SparkSession

    master = scheduler if scheduler is not None else None
    if workers is not None:
        master = f"local[{workers}]"
    active = SparkSession.getActiveSession()
    if active is not None:
        current = str(active.sparkContext.master)
        if master is None or master == current:
            yield active
            return
        raise ConfigError(
            message(
                "evaluate",
                "a Spark session is already running, on another master (one per process)",
                raw(f"{master!r}, while the active session runs on {current!r}"),
                "no scheduler or workers, to use the active session",
            )
        )
    _check_java()
    builder = SparkSession.builder.master(master or "local[*]").appName("scorekit")
    for key, value in _LOCAL.items():
        builder = builder.config(key, value)
    with _workers_python():
        try:
            session = builder.getOrCreate()
        except Exception as exc:  # Py4J and pyspark's own errors, whatever their class
            raise ConfigError(
                message(
                    "evaluate",
                    "cannot start a Spark session",
                    raw(_first_line(exc)),
                    f"a reachable Spark master ({master or 'local[*]'}) and Java 17 or later",
                )
            ) from None
    try:
        # the merged parts still in use come here (or go) before the session stops
        with keeping_parts(session.sparkContext):
            yield session
    finally:
        session.stop()


def _check_java() -> None:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").exists():
        return
    if shutil.which("java") is None:
        raise ConfigError(
            message(
                "evaluate",
                "the Spark engine needs Java",
                raw("no java on PATH, and JAVA_HOME is " + (repr(home) if home else "not set")),
                "Java 17 or later on PATH or in JAVA_HOME",
            )
        )


@contextlib.contextmanager
def _workers_python() -> Iterator[None]:
    """The Python of this process for the workers of a session started here.

    Spark runs its Python workers with ``PYSPARK_PYTHON`` (``python3`` when
    unset), which reads it when the session starts; a local session needs the
    Python that has scorekit, this one. A value set by the user is kept.
    """
    if "PYSPARK_PYTHON" in os.environ:
        yield
        return
    os.environ["PYSPARK_PYTHON"] = sys.executable
    try:
        yield
    finally:
        os.environ.pop("PYSPARK_PYTHON", None)


# inputs ----------------------------------------------------------------------------------


def _frame_parts(
    frame: Any,
    mapping: Mapping[str, tuple[str, ...]],
    keys: list[str],
    partitions: int | None,
    context: Any,
) -> Any:
    """The DataFrame's columns the metrics read, partitioned (by the group keys if any)."""
    selected = frame.select(*wanted_columns(mapping))
    if keys:
        count = partitions or context.defaultParallelism
        return selected.repartition(count, *keys).sortWithinPartitions(*keys)
    if partitions is not None:
        return selected.repartition(partitions)
    return selected


Unit = tuple[str, str, str, list[int], int, bytes | None]
"""What a task reads: kind, path, format, Parquet row groups, first row, Arrow IPC data."""


def _units(
    src: Any,
    mapping: Mapping[str, tuple[str, ...]],
    keys: list[str],
    optional: set[str],
    size: int,
) -> list[Unit]:
    """The pieces of the source the tasks read: files, row groups or chunks of a table."""
    wanted = wanted_columns(mapping)
    if isinstance(src, _io.FileSource):
        units: list[Unit] = []
        for path, fmt in zip(src.files, src.formats, strict=True):
            groups = [] if keys else _row_groups(Path(path), fmt, wanted)
            if len(groups) > 1:
                units.extend(("rows", str(path), fmt, [g], start, None) for g, start in groups)
            else:
                units.append(("file", str(path), fmt, [], 0, None))
        return units
    chunks: list[Any] = read_chunks(src, wanted, size, list, progress=False, optional=optional)
    if keys:
        chunks = _between_groups(chunks, keys, size, str(getattr(src, "name", "table")))
    return [("table", "", "", [], 0, _ipc(table)) for table in chunks if table.num_rows]


def _row_groups(path: Path, fmt: str, wanted: list[str]) -> list[tuple[int, int]]:
    """Each row group of a Parquet file with every wanted column, and its first row."""
    if fmt != "parquet":
        return []
    import pyarrow as pa
    from pyarrow import parquet

    try:
        meta = parquet.ParquetFile(path).metadata
    except (pa.ArrowException, OSError) as exc:
        raise _io.pyarrow_error(path, "Parquet", exc) from None
    if not set(wanted) <= set(meta.schema.to_arrow_schema().names):
        return []  # read whole, where the reader names the missing column
    out, start = [], 0
    for index in range(meta.num_row_groups):
        out.append((index, start))
        start += meta.row_group(index).num_rows
    return out


def _between_groups(chunks: list[Any], keys: list[str], size: int, name: str) -> list[Any]:
    """The chunks of a table cut again between groups (queries): no group spans two pieces.

    A piece holds whole groups, at least ``size`` rows of them (the last one
    fewer); the rows of a group must be together, as the stream engine wants them.
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if not chunks:
        return []
    whole = pa.concat_tables([c.replace_schema_metadata(None) for c in chunks])
    n = whole.num_rows
    change = np.zeros(n, dtype=bool)
    change[:1] = True
    for key in keys:
        column = whole.column(key)
        if n > 1:
            differs = pc.not_equal(column.slice(1), column.slice(0, n - 1)).fill_null(True)
            change[1:] |= np.asarray(differs.to_numpy(), dtype=bool)
    cuts = [0]
    for start in np.flatnonzero(change).tolist():
        if start - cuts[-1] >= size:
            cuts.append(start)
    cuts.append(n)
    return [
        _io.with_meta(whole.slice(lo, hi - lo), name, None, lo)
        for lo, hi in itertools.pairwise(cuts)
        if hi > lo
    ]


def _ipc(table: Any) -> bytes:
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return bytes(sink.getvalue())


def _table(data: bytes) -> Any:
    import pyarrow as pa

    return pa.ipc.open_stream(pa.py_buffer(data)).read_all()


# tasks (run on the executors) --------------------------------------------------------------


Setup = tuple[list[Metric[Any]], dict[str, tuple[str, ...]], dict[str, Any], set[str], int]
"""What every task needs: metrics, mapping, side inputs, optional columns, chunk size."""


def _frame_task(
    setup: Any, label: str, shared: Mapping[int, int]
) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """The ``mapInArrow`` function of a DataFrame's partitions (``shared``: the parted
    metrics whose states are taken to be an earlier one's, :func:`_state_values`)."""

    def task(batches: Iterator[Any]) -> Iterator[Any]:
        from pyspark import TaskContext

        metrics, mapping, side, _, size = setup.value
        context = TaskContext.get()
        name = f"{label}, partition {context.partitionId() if context is not None else 0}"
        yield from _outcome(
            len(metrics),
            lambda: fold(metrics, _rechunk(batches, size, name), mapping, side),
            shared,
        )

    return task


def _rechunk(batches: Iterator[Any], size: int, name: str) -> Iterator[Any]:
    """Spark's Arrow batches as tables of ``size`` rows (the last one shorter)."""
    import pyarrow as pa

    pending: list[Any] = []
    count = 0
    offset = 0
    for batch in batches:
        if not batch.num_rows:
            continue
        pending.append(batch)
        count += batch.num_rows
        while count >= size:
            table = pa.Table.from_batches(pending)
            yield _io.with_meta(table.slice(0, size), name, None, offset)
            offset += size
            rest = table.slice(size)
            pending, count = rest.to_batches(), rest.num_rows
    if count:
        yield _io.with_meta(pa.Table.from_batches(pending), name, None, offset)


def _unit_task(setup: Any, shared: Mapping[int, int]) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """The ``mapInArrow`` function of the units of files and tables (``shared`` as
    :func:`_frame_task` takes it).

    Consecutive row groups and table chunks are folded together, as the stream
    engine folds the chunks of its input (one merge tree, its exact histograms
    merged many at a time); a file read whole is folded alone. The states of
    these folds are merged in a tree too.
    """

    def task(batches: Iterator[Any]) -> Iterator[Any]:
        metrics, mapping, side, optional, size = setup.value
        units = [row for batch in batches for row in batch.to_pylist()]

        def work() -> tuple[list[State], int]:
            tree = MergeTree(metrics)
            total = 0
            for whole, run in itertools.groupby(units, key=lambda u: u["kind"] == "file"):
                for found, rows in _fold_units(
                    list(run), whole, metrics, mapping, side, optional, size
                ):
                    total += rows
                    if rows:
                        tree.add(found)
            return tree.result(), total

        yield from _outcome(len(metrics), work, shared)

    return task


def _fold_units(
    units: list[Mapping[str, Any]],
    whole: bool,
    metrics: list[Metric[Any]],
    mapping: dict[str, tuple[str, ...]],
    side: dict[str, Any],
    optional: set[str],
    size: int,
) -> Iterator[tuple[list[State], int]]:
    """The states and rows of files read whole (one fold each), or of row groups and table
    chunks (one fold of them all)."""
    wanted = wanted_columns(mapping)
    if not whole:
        chunks = itertools.chain.from_iterable(_unit_chunks(u, wanted, size) for u in units)
        yield fold(metrics, chunks, mapping, side)
        return
    for unit in units:
        source = _io.FileSource([Path(unit["path"])], unit["path"], unit["fmt"])
        yield read_chunks(
            source,
            wanted,
            size,
            lambda chunks: fold(metrics, chunks, mapping, side),
            progress=False,
            optional=optional,
        )


def _unit_chunks(unit: Mapping[str, Any], wanted: list[str], size: int) -> Iterator[Any]:
    """The chunks of a table's piece, or of a Parquet file's row groups."""
    if unit["kind"] == "table":
        yield _table(unit["data"])
        return
    yield from _parquet_rows(Path(unit["path"]), unit["groups"], unit["start"], wanted, size)


def _parquet_rows(
    path: Path, groups: list[int], start: int, wanted: list[str], size: int
) -> Iterator[Any]:
    """The rows of some row groups of a Parquet file, as the stream engine's reader reads them."""
    import pyarrow as pa
    from pyarrow import parquet

    try:
        handle = parquet.ParquetFile(path, pre_buffer=False, buffer_size=1 << 20)
        parts = handle.iter_batches(batch_size=size, row_groups=groups, columns=wanted)
        offset = start
        for batch in parts:
            yield _io.with_meta(_io.batch_table(batch), str(path), "parquet", offset)
            offset += batch.num_rows
    except (pa.ArrowException, OSError) as exc:
        raise _io.pyarrow_error(path, "Parquet", exc) from None


def _outcome(
    count: int, work: Callable[[], tuple[list[State], int]], shared: Mapping[int, int]
) -> list[Any]:
    """The Arrow batches of the task's values: its states and rows, or the error it raised."""
    from pyspark import TaskContext

    try:
        (states, rows), found = caught(work)
    except ScorekitError as exc:
        pairs: list[tuple[int, int, Any]] = [(count, WHOLE, codec.encode_error(exc))]
    else:
        notes = Notes()
        notes.record(found)
        pairs = [(count, WHOLE, codec.encode_meta(rows, notes))]
        if rows:
            pairs.extend(_state_values(states, shared))
    context = TaskContext.get()
    return _rows(pairs, context.partitionId() if context is not None else 0)


def _state_values(states: list[State], shared: Mapping[int, int]) -> Iterator[tuple[int, int, Any]]:
    """Each state as a whole value; a state made of parts as its shell and one value per part.

    A whole state equal, bit for bit, to an earlier metric's (``roc_auc`` and
    ``average_precision`` keep the same histogram) travels as an alias of that
    metric's value. Parts are merged key by key, part by part, so no task
    holds a whole parted state; a state of fewer parts than the merged shell
    holds no data, and its parts add nothing to the others. A state made of parts
    of a metric ``shared`` maps to an earlier one
    (:func:`~scorekit.engines._parts.sharing`) travels as an alias of that one's,
    parts and all, when it equals it; otherwise as :data:`~._spark_codec.UNSHARED`.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> metrics = [parse_metric(m) for m in ("roc_auc", "ap", "roc_auc:ranges=2", "ap:ranges=2")]
    >>> states = [m.summarize([0, 1, 1], [0.1, 0.4, 0.3]) for m in metrics]
    >>> [
    ...     (key, sub, codec.tag(b"".join(value)))
    ...     for key, sub, value in _state_values(states, {3: 2})
    ... ]
    [(0, -1, b'S'), (1, -1, b'A'), (2, -1, b'S'), (2, 0, b'S'), (2, 1, b'S'), (3, -1, b'A')]
    """
    sent: list[tuple[int, list[Any]]] = []
    for i, state in enumerate(states):
        if i in shared:
            first = states[shared[i]]
            same = same_state(first, state)
            yield i, WHOLE, [codec.encode_alias(i, shared[i]) if same else codec.UNSHARED]
            continue
        if type(state).parted:
            shell, parts = state.split_parts()
            yield i, WHOLE, codec.state_buffers(i, shell)
            for index in range(len(parts)):
                yield i, index, codec.state_buffers(i, parts[index])
            continue
        buffers = codec.state_buffers(i, state)
        twin = next((j for j, other in sent if _same_value(buffers, other)), None)
        if twin is None:
            sent.append((i, buffers))
            yield i, WHOLE, buffers
        else:
            yield i, WHOLE, [codec.encode_alias(i, twin)]


def _same_value(a: list[Any], b: list[Any]) -> bool:
    """Whether two states' buffers hold the same bytes, but for the metric's index."""
    import numpy as np

    if len(a) != len(b) or any(len(x) != len(y) for x, y in zip(a, b, strict=True)):
        return False
    index = slice(1, 1 + codec.INDEX_BYTES)
    if a[0][: index.start] != b[0][: index.start] or a[0][index.stop :] != b[0][index.stop :]:
        return False
    return all(
        np.array_equal(np.frombuffer(x, np.uint8), np.frombuffer(y, np.uint8))
        for x, y in zip(a[1:], b[1:], strict=True)
    )


def _pieces(value: Any) -> Iterator[list[memoryview]]:
    """A value (bytes, or a list of buffers to join) as pieces of at most :data:`PIECE` bytes,
    each a list of slices of its buffers; a value of no bytes is one empty piece.

    Examples
    --------
    >>> [[bytes(v) for v in piece] for piece in _pieces([b"ab", b"c"])]
    [[b'ab', b'c']]
    >>> list(_pieces(b""))
    [[]]
    """
    current: list[memoryview] = []
    room = PIECE
    given = False
    for buffer in value if isinstance(value, list) else [value]:
        view = memoryview(buffer).cast("B")
        while len(view):
            taken = view[:room]
            current.append(taken)
            room -= len(taken)
            view = view[len(taken) :]
            if not room:
                yield current
                given = True
                current, room = [], PIECE
    if current or not given:
        yield current


def _rows(pairs: list[tuple[int, int, Any]], part: int) -> list[Any]:
    """Values as Arrow batches of rows ``key, sub, part, piece, value``, each value cut into
    :data:`PIECE` bytes (``sub`` is the index of a state's part, :data:`WHOLE` for a whole
    value), at most :data:`BATCH` bytes of values a batch.

    The bytes of a batch are copied once, into one buffer, and the rows point into it.

    Examples
    --------
    >>> _rows([(0, WHOLE, b"ab"), (1, 2, [b"", b"c"])], 3)[0].to_pylist()[1]
    {'key': 1, 'sub': 2, 'part': 3, 'piece': 0, 'value': b'c'}
    """
    import numpy as np
    import pyarrow as pa

    batches: list[Any] = []
    heads: list[tuple[int, int, int]] = []
    lengths: list[int] = []
    slices: list[memoryview] = []
    held = 0

    def flush() -> None:
        data = pa.py_buffer(b"".join(slices))
        offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
        np.cumsum(lengths, out=offsets[1:])
        keys, subs, pieces = zip(*heads, strict=True)
        values = pa.Array.from_buffers(
            pa.binary(), len(lengths), [None, pa.py_buffer(offsets), data]
        )
        batches.append(
            pa.RecordBatch.from_arrays(
                [
                    pa.array(keys, pa.int32()),
                    pa.array(subs, pa.int32()),
                    pa.array([part] * len(heads), pa.int32()),
                    pa.array(pieces, pa.int32()),
                    values,
                ],
                names=["key", "sub", "part", "piece", "value"],
            )
        )

    for key, sub, value in pairs:
        for number, piece in enumerate(_pieces(value)):
            size = sum(len(s) for s in piece)
            if heads and held + size > BATCH:
                flush()
                heads, lengths, slices, held = [], [], [], 0
            heads.append((key, sub, number))
            lengths.append(size)
            slices.extend(piece)
            held += size
    if heads:
        flush()
    return batches


def _values(table: Any) -> dict[tuple[int, int, int], Any]:
    """The values of rows made by :func:`_rows`, put together: (key, sub, part) -> bytes.

    A value of one row is a view of the table's buffer, not a copy.

    Examples
    --------
    >>> import pyarrow as pa
    >>> table = pa.Table.from_batches(_rows([(0, WHOLE, b"ab"), (1, 2, b"c")], 3))
    >>> {where: bytes(value) for where, value in _values(table).items()}
    {(0, -1, 3): b'ab', (1, 2, 3): b'c'}
    """
    found: dict[tuple[int, int, int], list[tuple[int, Any]]] = {}
    names = ("key", "sub", "part", "piece")
    for batch in table.to_batches():
        heads = zip(*(batch.column(name).to_pylist() for name in names), strict=True)
        column = batch.column("value")
        for (key, sub, part, piece), value in zip(heads, _views(column), strict=True):
            found.setdefault((key, sub, part), []).append((piece, value))
    out: dict[tuple[int, int, int], Any] = {}
    for where, pieces in found.items():
        pieces.sort(key=lambda item: item[0])
        out[where] = pieces[0][1] if len(pieces) == 1 else b"".join(v for _, v in pieces)
    return out


def _views(column: Any) -> list[memoryview]:
    """The values of an Arrow binary array as views of its data buffer.

    The offsets are 64-bit in a large binary array (a session that sets
    ``spark.sql.execution.arrow.useLargeVarTypes``), 32-bit otherwise.
    """
    import numpy as np
    import pyarrow as pa

    _, offsets, data = column.buffers()
    wide = pa.types.is_large_binary(column.type)
    kind = np.int64 if wide else np.int32
    where = np.frombuffer(offsets, dtype=kind)[column.offset : column.offset + len(column) + 1]
    view = memoryview(data) if data is not None else memoryview(b"")
    bounds = where.tolist()
    return [view[lo:hi] for lo, hi in itertools.pairwise(bounds)]


def _first_error(values: Mapping[tuple[int, int, int], Any], count: int) -> Any:
    """The first error among values: a task's before a merge's, then by metric and partition."""
    for where in sorted(values, key=lambda w: (w[0] != count, w)):
        if codec.tag(values[where]) == codec.ERROR:
            return where, values[where]
    return None


def _merged_states(
    metrics: list[Metric[Any]], values: Mapping[tuple[int, int, int], Any]
) -> tuple[dict[int, State], dict[int, int]]:
    """The whole states of a group of partitions merged in partition order, metric by metric.

    Each value is decoded once, an alias as the state it names. A metric whose
    values all name one earlier metric's, and which merges as that metric
    does, is merged once: it is returned as the earlier metric's index.

    Returns
    -------
    tuple
        The merged state of each metric with values, and metric -> the earlier
        metric whose merged state it has.
    """
    parts = sorted({part for _, _, part in values})
    cache: dict[tuple[int, int], State] = {}

    def root(key: int, part: int) -> int:
        value = values[key, WHOLE, part]
        while codec.tag(value) == codec.ALIAS:
            key = codec.alias_of(value)
            value = values[key, WHOLE, part]
        return key

    def state(key: int, part: int) -> State:
        if (key, part) not in cache:
            cache[key, part] = codec.decode_state(values[key, WHOLE, part])
        return cache[key, part]

    merged: dict[int, State] = {}
    same: dict[int, int] = {}
    for key, metric in enumerate(metrics):
        found = [part for part in parts if (key, WHOLE, part) in values]
        if not found:
            continue
        roots = [root(key, part) for part in found]
        first = roots[0]
        if (
            first != key
            and first in merged
            and all(r == first for r in roots)
            and [part for part in parts if (first, WHOLE, part) in values] == found
            and merges_alike(metrics[first], metric)
        ):
            same[key] = first
            continue
        tree = MergeTree([metric])
        for part, where in zip(found, roots, strict=True):
            tree.add([state(where, part)])
        merged[key] = tree.result()[0]
    cache.clear()
    return merged, same


def _metas(values: Mapping[tuple[int, int, int], Any], count: int) -> tuple[int, Notes]:
    """The rows and the warnings of all the values of the rows read, added up."""
    rows, notes = 0, Notes()
    for where in sorted(values):
        if where[0] == count:
            more, others = codec.decode_meta(values[where])
            rows += more
            notes.update(others)
    return rows, notes


def _combined(
    metrics: list[Metric[Any]], values: Mapping[tuple[int, int, int], Any]
) -> list[tuple[int, int, Any]]:
    """The values of a group of partitions merged: one per metric (or part), one of the rows.

    The first error of the group is its only value, as is the error of a merge
    that fails.
    """
    count = len(metrics)
    error = _first_error(values, count)
    if error is not None:
        (key, sub, _), value = error
        return [(key, sub, value)]
    unshared = _unshared(values)
    if unshared is not None:
        return [(unshared, WHOLE, codec.UNSHARED)]
    subs = {(key, sub) for key, sub, _ in values if sub != WHOLE}
    try:
        if subs:
            # a group of the values of one part of one metric's state
            (key, sub), *_ = subs
            order = [values[where] for where in sorted(values)]
            part = codec.decode_state(order[0])
            for value in order[1:]:
                part = part.merge(codec.decode_state(value))
            return [(key, sub, codec.state_buffers(key, part))]
        merged, same = _merged_states(metrics, values)
    except ScorekitError as exc:
        return [(min(k for k, _, _ in values), WHOLE, codec.encode_error(exc))]
    out: list[tuple[int, int, Any]] = [(count, WHOLE, codec.encode_meta(*_metas(values, count)))]
    for key in range(count):
        if key in merged:
            out.append((key, WHOLE, codec.state_buffers(key, merged[key])))
        elif key in same:
            out.append((key, WHOLE, codec.encode_alias(key, same[key])))
    return out


def _unshared(values: Mapping[tuple[int, int, int], Any]) -> int | None:
    """The first metric whose values say a partition did not share its state, if any."""
    found = [key for (key, sub, _), v in values.items() if codec.tag(v) == codec.UNSHARED]
    return min(found) if found else None


def _merger(setup: Any, starts: list[int]) -> Callable[[Any], Any]:
    """The ``applyInArrow`` function merging the values of a group of consecutive partitions,
    in order: the group of partitions ``starts[k]`` to the next start is partition ``k`` of
    the next level."""

    def merge(table: Any) -> Any:
        import pyarrow as pa

        metrics = setup.value[0]
        values = _values(table)
        group = bisect.bisect_right(starts, min(part for _, _, part in values)) - 1
        return pa.Table.from_batches(_rows(_combined(metrics, values), group), schema=_schema())

    return merge


def _schema() -> Any:
    import pyarrow as pa

    return pa.schema(
        [(name, pa.int32()) for name in ("key", "sub", "part", "piece")] + [("value", pa.binary())]
    )


# the driver ------------------------------------------------------------------------------


def _reduce(frame: Any, setup: Any, metrics: list[Metric[Any]]) -> tuple[list[State], int, Notes]:
    """The merged states: merged on the executors in partition order, the last merge here.

    The values of consecutive partitions are merged level after level as
    :func:`_merged` groups them; the driver receives the values of the partitions
    of one merge (at most :data:`~scorekit.engines._parts.SPLIT_EVERY`, holding
    at most :data:`~scorekit.engines._parts.MERGE_BYTES` together, or two) and
    merges them, in order. Values travel as Arrow rows of at most :data:`PIECE` bytes.
    """
    kept: list[Any] = []
    try:
        table = _merged(frame, setup, kept, to_one=False).toArrow()
    except ScorekitError:
        raise
    except Exception as exc:  # Py4J and pyspark wrap a failed task whatever it raised
        raise _job_error(exc) from None
    finally:
        _unpersist(kept)
    return _gathered(metrics, _values(table))


def _merged(frame: Any, setup: Any, kept: list[Any], *, to_one: bool) -> Any:
    """The frame of the tasks' values merged in a tree: to the values of one partition
    (``to_one``), or of the partitions of one merge, which the driver then merges.

    Level after level, each task merges the values of consecutive partitions,
    in order, whose values hold at most :data:`~scorekit.engines._parts.MERGE_BYTES`
    together as they travel (two at least, :data:`~scorekit.engines._parts.SPLIT_EVERY`
    at most: :func:`~scorekit.engines._parts.merge_starts`): the whole values of a
    group of partitions in one task, each part of a state made of parts in one of
    its own, all in groups of the same partitions, so that every state goes through
    a tree of one shape. A level of more than two partitions is kept by Spark (in
    ``kept``, to let go once the result is read) while a small job reads the bytes
    of each of its partitions; the level below it is let go then.
    """
    from pyspark.sql import functions as F

    width = frame.rdd.getNumPartitions()
    whole = F.col("sub") == WHOLE
    while width > 1:
        starts = [0]
        if width > 2:
            sizes = _sizes(frame, width, kept)
            starts, width = merge_starts(sizes, MERGE_BYTES), len(sizes)
        if len(starts) == 1 and not to_one:
            break
        slot = F.when(whole, F.lit(-1)).otherwise(F.col("key"))
        keys = ["slot", "sub", "group"]
        keyed = frame.withColumn("slot", slot).withColumn("group", _group_of(starts, width))
        # as many tasks as the merges can use, not the session's default for a shuffle
        tasks = len(starts) * max(1, frame.sparkSession.sparkContext.defaultParallelism)
        merge = _merger(setup, starts)
        frame = keyed.repartition(tasks, *keys).groupBy(*keys).applyInArrow(merge, _OUT)
        width = len(starts)
    return frame


def _group_of(starts: list[int], width: int) -> Any:
    """The column of the merge of the next level that takes each row's partition: ``k`` for
    the partitions from ``starts[k]`` to the next start, of ``width`` partitions.

    A level of one merge takes every partition, whatever its number; a level of
    more merges is as wide as the partitions its values name (:func:`_sizes`).
    """
    from pyspark.sql import functions as F

    if len(starts) == 1:
        return F.lit(0)
    groups = [
        k for k, (lo, hi) in enumerate(itertools.pairwise([*starts, width])) for _ in range(lo, hi)
    ]
    return F.expr(f"array({', '.join(map(str, groups))})[part]")


def _sizes(frame: Any, width: int, kept: list[Any]) -> list[int]:
    """The bytes of the values of each partition of a level, in order, as they travel: of at
    least ``width`` partitions, as many as the values name.

    The level is kept by Spark so that its values are made once: it is added to
    ``kept``, and the levels kept before it, which made it, are let go.
    """
    import numpy as np
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    frame.persist(StorageLevel.MEMORY_AND_DISK)
    # a row per value piece, added up here (no shuffle)
    found = frame.select("part", F.length("value").alias("bytes")).toArrow()
    _unpersist(kept)
    kept.append(frame)
    parts = found.column("part").to_numpy(zero_copy_only=False)
    sizes = found.column("bytes").to_numpy(zero_copy_only=False).astype(np.float64)
    count = max(width, int(parts.max()) + 1 if len(parts) else 0)
    return [int(b) for b in np.bincount(parts, weights=sizes, minlength=count)]


def _unpersist(frames: list[Any]) -> None:
    """Let Spark drop the levels it kept."""
    for frame in frames:
        with contextlib.suppress(Exception):
            frame.unpersist()
    frames.clear()


def _with_parts(
    frame: Any, setup: Any, metrics: list[Metric[Any]], context: Any
) -> tuple[list[State], int, Notes]:
    """The merged states when some are made of parts: the parts stay on the executors, or
    reach the driver one at a time.

    Every value is merged on the executors as :func:`_reduce` merges them, to
    one partition, a state's parts each under a key of their own; the merged
    values are kept by Spark while the whole values are collected. On the
    caller's session, or when the states are not used after the session the
    engine started (:func:`~scorekit.engines._parts.owner_keeps`), the parts
    stay on the executors, arranged metric by metric, in a
    :class:`~scorekit.engines._spark_parts.SparkParts` whose readers run there.
    Otherwise (the session stops after the run and its states are kept) they
    come here in order, one Spark partition at a time, each written to a file
    of a :class:`~scorekit.engines._parts.StoredParts` and let go before the
    next.
    """
    from pyspark.sql import functions as F

    merged = None
    kept: list[Any] = []
    try:
        merged = _merged(frame, setup, kept, to_one=True).persist()
        found = _values(merged.filter(F.col("sub") == WHOLE).toArrow())
        _unpersist(kept)
        states, rows, notes = _gathered(metrics, found)
        shells: dict[int, tuple[State, Sequence[State]]] = {}
        same: dict[int, int] = {}
        for j, state in enumerate(states):
            if type(state).parted:
                first = next((i for i in shells if states[i] is state), None)
                if first is None:
                    shells[j] = state.split_parts()
                else:
                    same[j] = first
        # the merged values are in as many partitions as a shuffle makes, most of them
        # empty: fewer tasks read them (a partition's values in order, its pieces together)
        parts_frame = merged.filter(F.col("sub") != WHOLE)
        total = sum(len(empty) for _, empty in shells.values())
        if owner_keeps(context):
            # a job per partition, each bringing its parts to the driver's JVM at once
            fewer = parts_frame.coalesce(max(1, -(-total // PARTS_AT_ONCE)))
            parts: Mapping[int, Sequence[State]] = _stored_parts(fewer, shells)
        else:
            empties = {j: empty for j, (_, empty) in shells.items()}
            fewer = parts_frame.coalesce(max(1, min(total, context.defaultParallelism)))
            parts = kept_parts(context, fewer, empties, _job_error)
    except (ScorekitError, _Unshared):
        raise
    except Exception as exc:  # Py4J and pyspark wrap a failed task whatever it raised
        raise _job_error(exc) from None
    finally:
        _unpersist([*kept, *([merged] if merged is not None else [])])
    out = list(states)
    for j, (shell, _) in shells.items():
        out[j] = type(shell).from_parts(shell, parts[j])
    for j, first in same.items():
        out[j] = out[first]
    return out, rows, notes


def _stored_parts(
    frame: Any, shells: Mapping[int, tuple[State, Sequence[State]]]
) -> dict[int, StoredParts]:
    """The merged parts of each parted metric, brought here in order, one Spark partition at
    a time, into files; a part no partition gave is the shell's empty one."""
    stored = {j: StoredParts() for j in shells}
    # one merge task wrote all the pieces of a value, in order: they are in one partition
    for key, sub, value in _joined(frame.toLocalIterator()):
        if codec.tag(value) == codec.ERROR:
            raise codec.decode_error(value)
        if key not in shells or sub >= len(shells[key][1]):
            continue  # the parts of a state of no data beyond the merged shell's
        stored[key].put(sub, codec.decode_state(value))
        del value
    for j, (_, empty) in shells.items():
        for index in stored[j].missing(len(empty)):
            stored[j].put(index, empty[index])
    return stored


def _joined(rows: Iterator[Any]) -> Iterator[tuple[int, int, bytes]]:
    """The values of rows whose pieces come together and in order, each put together."""
    current: tuple[int, int] | None = None
    pieces: list[bytes] = []
    for row in rows:
        where = (int(row["key"]), int(row["sub"]))
        if where != current:
            if current is not None:
                yield current[0], current[1], b"".join(pieces)
            current, pieces = where, []
        pieces.append(bytes(row["value"]))
    if current is not None:
        yield current[0], current[1], b"".join(pieces)


def _gathered(
    metrics: list[Metric[Any]], values: Mapping[tuple[int, int, int], Any]
) -> tuple[list[State], int, Notes]:
    """The states, rows and warnings of the whole values of a few partitions, merged in order
    (a metric of no value gets its empty state); the first error they hold is raised."""
    count = len(metrics)
    wholes = {where: value for where, value in values.items() if where[1] == WHOLE}
    error = _first_error(wholes, count)
    if error is not None:
        raise codec.decode_error(error[1])
    if _unshared(wholes) is not None:
        raise _Unshared()
    rows, notes = _metas(wholes, count)
    merged, same = _merged_states(metrics, wholes)
    states = [
        merged[i] if i in merged else merged[same[i]] if i in same else metric.empty()
        for i, metric in enumerate(metrics)
    ]
    return states, rows, notes


class _Unshared(Exception):
    """Metrics taken to share their states made of parts held states of their own in a
    partition (:func:`~scorekit.engines._parts.sharing`)."""


_ANY_ERROR = re.compile(r"(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*(?:Error|Exception)): (?=([^\n]*))")
_PYTHON_ERROR = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?([A-Za-z_]\w*(?:Error|Exception|Exit)): (.*)$")


def _job_error(exc: BaseException) -> ConfigError:
    """A failed Spark job as one error naming its cause (never Py4J's traceback).

    Examples
    --------
    >>> text = "SparkException: Job aborted: Lost task 0.0: java.lang.OutOfMemoryError: heap"
    >>> print(_job_error(RuntimeError(text)))  # doctest: +ELLIPSIS
    the Spark engine (--engine spark): the Spark job failed; got OutOfMemoryError: heap, \
expected more memory for Spark ...
    """
    text = str(exc)
    if "No module named 'scorekit'" in text:
        return ConfigError(
            message(
                WHERE,
                "the Spark workers cannot import scorekit",
                raw("ModuleNotFoundError: No module named 'scorekit'"),
                "scorekit installed in the workers' Python (PYSPARK_PYTHON), "
                "the version and Python of the driver",
            )
        )
    cause = _cause(text, exc)
    if _jvm_lost(exc):
        cause = "the Spark JVM stopped answering (out of memory, or killed)"
    advice = None
    if cause.startswith(("OutOfMemoryError", "the Spark JVM")):
        advice = (
            "more memory for Spark (spark.driver.memory, spark.executor.memory), more "
            "partitions, or the bounded form of states that grow (roc_auc:bins=N)"
        )
    return ConfigError(message(WHERE, "the Spark job failed", raw(cause), advice))


def _jvm_lost(exc: BaseException) -> bool:
    """Whether the JVM of the session died during the job (Py4J lost its connection)."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return False
        if type(seen).__name__ in ("Py4JNetworkError", "ConnectionResetError", "EOFError"):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


_WRAPPERS = ("Py4JJavaError", "Py4JError", "SparkException", "PythonException")


def _cause(text: str, exc: BaseException | None) -> str:
    """The last Python error of a task's traceback, else the first Java error, else Spark's line.

    Examples
    --------
    >>> _cause("PythonException: Traceback (most recent call last):", None)
    'PythonException: Traceback (most recent call last):'
    >>> _cause("ValueError: bad", None)
    'ValueError: bad'
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        found = _PYTHON_ERROR.match(line)
        if found and found.group(1) not in _WRAPPERS:
            return f"{found.group(1)}: {found.group(2)}"[:500]
    for found in _ANY_ERROR.finditer(text):
        if found.group(1) not in _WRAPPERS:
            return f"{found.group(1)}: {found.group(2).strip()}"[:500]
    return (_first_line(exc) if exc is not None else lines[0] if lines else "no message")[:500]


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
