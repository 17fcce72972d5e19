"""The Dask engine: ``summarize`` on every partition, then a tree of ``merge``.

Each partition of a Dask DataFrame becomes a pyarrow table and goes through
:func:`scorekit.engines._columns.summarize_table`, the same per-chunk work as the
streaming engine; the per-partition states (plain dataclasses of numpy arrays)
travel between workers by pickle and are merged in a tree, keeping partition
order. The tree is driven from the client as the summaries finish: a merge task
takes consecutive states that hold :data:`MERGE_BYTES` together (two at least,
:data:`SPLIT_EVERY` at most), as the scheduler knows their bytes, so that a task
holds a bounded size of states and merges start before every partition is
summarized. Ranking metrics first shuffle the rows by query so
that all rows of a query meet in one partition; merging two states that hold the
same query is an error, which checks that the query sets are disjoint. A state
made of independent parts (:attr:`~scorekit.core.State.parted`: exact ROC AUC and
AP with ``ranges=N``) is merged part by part: its shell goes through the tree with
the other states, and batches of consecutive parts, taken out of each partition's
state where it lies, through trees of their own, all of one shape; the merged
parts stay on the workers (:mod:`scorekit.engines._dask_parts`), where the readers
of the state run step by step, so that no process holds the whole state and only
per-range totals reach the client. A cluster the engine started, or connected to by address,
stops with the run: before it does, the parts still in use come to the client
one at a time, into files.

The engine holds no metric code. A lost worker costs nothing but time: Dask
recomputes the tasks whose results died with it, and the relevance judgments
travel as one task of the graph (not as scattered data), so they can be
recomputed too. Workers that die on every try, a lost connection and a cluster
that cannot start are one :class:`~scorekit.errors.ConfigError` each
(:mod:`scorekit.engines._dask_errors`). Files, URLs and scorekit sources are read
on the workers (:mod:`scorekit.engines._dask_sources`).

dask and distributed are imported inside the functions: ``import scorekit`` and
``import scorekit.engines`` never load them. Install them with
``pip install "scorekit[dask]"``.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import inspect
import math
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from scorekit import io as _io
from scorekit.core import (
    MergeTree,
    Metric,
    State,
    merge_shared,
    share_equal,
)
from scorekit.engines._columns import optional_columns, resolve, wanted_columns
from scorekit.engines._dask_errors import cluster_errors, starting_errors
from scorekit.engines._dask_parts import ClusterParts, keeping_parts
from scorekit.engines._dask_sources import (
    grouped_frame,
    remote_columns,
    remote_frame,
    source_frame,
)
from scorekit.engines._fold import (
    Notes,
    check_cluster,
    group_role,
    positive_int,
    side_inputs,
    state_nbytes,
    summarize_chunk,
)
from scorekit.engines._parts import (
    MERGE_BYTES,
    SPLIT_EVERY,
    merge_parts,
    merge_take,
    parted_metrics,
    sharing,
)
from scorekit.errors import ConfigError, InputError, ScorekitError, message, raw

__all__ = ["dask_states"]


_ROWS_PER_PARTITION = 1_000_000
_BLOCKSIZE = 64 * 2**20


_SIZED: list[bool] = []


def _register_sizes() -> None:
    """Give Dask the bytes a state holds (its arrays), so that a worker near its memory
    limit moves states to disk instead of counting them as a few bytes.

    Each task that makes or takes states calls it on its worker (once per process
    does the work): importing this module imports no Dask.
    """
    if _SIZED:
        return
    from dask.sizeof import sizeof

    sizeof.register(State)(_state_size)  # type: ignore[no-untyped-call]
    # a kind of state sized before (by the generic rule, on a task that did not register)
    # is cached under its own class, which would hide this rule from it
    cached = getattr(sizeof, "_lookup", {})
    for kind in [k for k in cached if isinstance(k, type) and issubclass(k, State)]:
        if kind is not State:
            del cached[kind]
    _SIZED.append(True)


def _state_size(state: State) -> int:
    return sys.getsizeof(state) + state_nbytes(state)


def _require() -> None:
    try:
        import dask
        import dask.dataframe  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as exc:
        raise ConfigError(
            message(
                "evaluate",
                "the Dask engine needs dask and distributed",
                raw(f"{exc.name or 'dask'} is not installed"),
                'pip install "scorekit[dask]"',
            )
        ) from None


def dask_states(
    source: Any,
    metrics: Sequence[Metric[Any]],
    mapping: Mapping[str, tuple[str, ...]],
    *,
    side: Mapping[str, Any] | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    partition_hint: int | None = None,
) -> tuple[list[State], int]:
    """The state of every metric over a Dask DataFrame, files or a table, computed on a cluster.

    Parameters
    ----------
    source
        A Dask DataFrame; a path, glob or directory of Parquet, CSV, TSV, JSON
        Lines files (the text formats may be gzipped) or any registered format, the files
        :func:`scorekit.evaluate` reads, here read on the workers (only the
        columns ``mapping`` names: many small files a group at a time by
        scorekit's readers, files of one schema by one Dask reader that splits
        large files in blocks or row groups); a URL of such files (``s3://``,
        ``https://``..., read on the workers through fsspec); a scorekit
        :class:`~scorekit.io.Source` read on the workers (a
        :class:`~scorekit.io.FileSource` one partition per file, any other whole
        on one worker); or an in-memory table (pyarrow Table or RecordBatch,
        pandas DataFrame, dict of columns), split into partitions.
    metrics
        The configured metrics.
    mapping
        Role -> column names, as :func:`scorekit.engines._columns.resolve` returns.
    side
        Inputs given beside the table (ranking's ``qrels``), prepared once by the
        metrics' input kinds and sent to the workers once.
    scheduler
        Address of a running Dask scheduler (``tcp://HOST:PORT``). Without it,
        the current ``distributed`` client is used if there is one; otherwise (or
        when ``workers`` is given) a local cluster of worker processes on
        127.0.0.1 is started for the call and closed after.
    workers
        The number of worker processes of the local cluster (default 2).
    partition_hint
        At most this many rows in a partition of an in-memory table (the
        ``chunk_size`` of :func:`scorekit.evaluate`); the table is split into at
        least one partition per worker thread. Dask DataFrames and files keep
        the partitions Dask gives them.

    Returns
    -------
    tuple
        The merged state of each metric, in the order of ``metrics``, and the
        number of rows read.

    Raises
    ------
    ConfigError
        dask or distributed not installed; ``scheduler`` and ``workers`` both
        given; an unreachable scheduler; a bad ``partition_hint``; workers that
        died on every try of a task (naming their memory limit), a connection to
        the cluster lost, a local cluster that cannot start.
    InputError
        A column the mapping names is missing; no file matches; a file that
        cannot be read (naming it); any bad value the metrics find (naming the
        partition, row and column).

    Examples
    --------
    >>> import pyarrow as pa
    >>> from distributed import Client, LocalCluster
    >>> from scorekit import parse_metric
    >>> from scorekit.engines._columns import resolve
    >>> table = pa.table({"y_true": [1, 0, 1, 1], "y_pred": [1, 1, 1, 0]})
    >>> metrics = [parse_metric("accuracy"), parse_metric("f1")]
    >>> mapping = resolve(metrics, None, table.column_names)
    >>> with LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster:
    ...     with Client(cluster) as client:
    ...         states, rows = dask_states(table, metrics, mapping, partition_hint=2)
    >>> rows, [m.compute(s) for m, s in zip(metrics, states)]
    (4, [0.5, 0.666...])
    """
    states, rows, notes = _states(
        source,
        metrics,
        mapping,
        side=side,
        scheduler=scheduler,
        workers=workers,
        partition_hint=partition_hint,
    )
    notes.emit(stacklevel=2)
    return states, rows


def _states(
    source: Any,
    metrics: Sequence[Metric[Any]],
    mapping: Mapping[str, tuple[str, ...]],
    *,
    side: Mapping[str, Any] | None,
    scheduler: str | None,
    workers: int | None,
    partition_hint: int | None,
) -> tuple[list[State], int, Notes]:
    """:func:`dask_states`, with the distinct warnings the metrics raised on the workers."""
    _require()
    if partition_hint is not None:
        positive_int(partition_hint, "partition_hint")
    _check_cluster(scheduler, workers)
    metrics = list(metrics)
    _check_positions(metrics)
    groups = {group_role(m) for m in metrics} - {None}
    qrels = side_inputs(metrics, side or {})
    import dask

    # Dask would turn object columns into strings, lists of references included. An
    # in-memory table and the judgments travel inside the graph on purpose (a lost worker's
    # tasks are computed again from the graph), so a large graph is no reason to warn.
    settings = {
        "dataframe.convert-string": False,
        "distributed.admin.large-graph-warning-threshold": sys.maxsize,
    }
    with dask.config.set(settings), _client(scheduler, workers) as client:
        optional = optional_columns(metrics, mapping)
        frame, label, meta, offsets = _frame(source, mapping, optional, client, partition_hint)
        if groups:
            keys = [name for role in sorted(r for r in groups if r) for name in mapping[role]]
            frame = frame.shuffle(on=keys, shuffle_method="tasks")
            offsets = False
        parted = parted_metrics(metrics)
        shared = sharing(metrics, parted)
        files = isinstance(source, str | os.PathLike | _io.Source)
        while True:
            leaves = _graph(frame, metrics, mapping, qrels, label, meta, offsets, parted, shared)
            if not leaves.keys:
                return [m.empty() for m in metrics], 0, Notes()
            reading = _reading_errors(label) if files else contextlib.nullcontext()
            try:
                with reading, cluster_errors(scheduler):
                    root = _Tree(client, leaves).root().futures
                    held = dict(zip(leaves.batches, root[1:], strict=True))
                    states, rows, notes = _with_parts(client, root[0], held, scheduler, shared)
            except _Unshared:
                # a partition whose states of such metrics were not one: each its own trees
                shared = {}
                continue
            break
    return list(states), int(rows), notes


class _Unshared(Exception):
    """Metrics taken to share their states held states of their own in a partition."""


def _check_positions(metrics: Sequence[Metric[Any]]) -> None:
    """Refuse metrics keyed by row position: a partition does not know where its rows stand.

    A metric whose units are rows keyed by their position in the data (a
    bootstrap without a key column) needs an engine that numbers the rows, such
    as the stream engine; on Dask its units need a key column.
    """
    positional = [m.name for m in metrics if m.positional]
    if positional:
        names = ", ".join(dict.fromkeys(positional))
        raise ConfigError(
            message(
                "the Dask engine (--engine dask)",
                "its partitions do not know the positions of their rows",
                raw(f"{names} with units keyed by row position (--ci without --key)"),
                "a key column for the units where the command has one (--key COL; key=COL "
                "in Python), or the stream engine (--chunk-size N)",
            )
        )


def _check_cluster(scheduler: Any, workers: Any) -> None:
    check_cluster(
        scheduler,
        workers,
        local="a local cluster",
        remote="scheduler",
        invalid="invalid scheduler",
        address="an address like tcp://HOST:8786",
    )


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
) -> tuple[list[State], int]:
    """The ``dask`` engine of :func:`scorekit.evaluate`: :func:`dask_states` over ``source``.

    ``scheduler`` and ``workers`` are this engine's options; ``chunk_size`` caps
    the rows of a partition of an in-memory table.
    """
    _check_cluster(scheduler, workers)
    if chunk_size is not None:
        positive_int(chunk_size, "chunk_size", unit="rows")
    url = _io.as_url(source)
    if url is not None:
        present = remote_columns(url)[1]
    elif isinstance(source, str | _io.Source) or hasattr(source, "__fspath__"):
        present = _io.open_source(source).columns()
    elif (type(source).__module__ or "").startswith(("dask", "pandas")):
        present = [str(c) for c in source.columns]
    elif isinstance(source, Mapping):
        present = [str(c) for c in source]
    else:
        present = list(_io.as_table(source).column_names)
    metrics = list(metrics)
    mapping = resolve(metrics, columns, present)
    # the metrics' warnings, raised on the workers, are raised again here once each
    states, rows, notes = _states(
        source,
        metrics,
        mapping,
        side=side,
        scheduler=scheduler,
        workers=workers,
        partition_hint=chunk_size,
    )
    notes.emit(stacklevel=2)
    return states, rows


# clients ---------------------------------------------------------------------------------


def _check_address(scheduler: str) -> None:
    """Refuse a scheduler address Dask cannot parse, before a client is made.

    A client that fails on its address is left half-made, and closing it at exit
    waits a minute; the address is checked first so that the error ends the run.
    """
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import get_backend

    try:
        scheme, location = parse_address(scheduler)
        get_backend(scheme)
        if scheme != "inproc":
            parse_host_port(location)
    except ValueError as exc:
        raise ConfigError(
            message(
                "evaluate",
                "invalid Dask scheduler address",
                scheduler,
                f"an address like tcp://HOST:8786 ({_first_line(exc)})",
            )
        ) from None


_HELD: contextvars.ContextVar[tuple[tuple[Any, Any], Any] | None] = contextvars.ContextVar(
    "scorekit_dask_session", default=None
)


@contextlib.contextmanager
def session(scheduler: str | None = None, workers: int | None = None) -> Iterator[None]:
    """One client for every run with these options within the block.

    See :func:`scorekit.engines.session`: a local cluster started here serves
    every run in the block and stops at its end.
    """
    with _client(scheduler, workers) as client:
        token = _HELD.set(((scheduler, workers), client))
        try:
            yield
        finally:
            _HELD.reset(token)


@contextlib.contextmanager
def _client(scheduler: str | None, workers: int | None) -> Iterator[Any]:
    from distributed import Client, LocalCluster, get_client

    held = _HELD.get()
    if held is not None and held[0] == (scheduler, workers):
        yield held[1]
        return

    if scheduler is not None:
        _check_address(scheduler)
        try:
            client = Client(scheduler, set_as_default=False)  # type: ignore[no-untyped-call]
        except (OSError, TimeoutError, ValueError) as exc:
            raise ConfigError(
                message(
                    "evaluate",
                    "cannot connect to the Dask scheduler",
                    scheduler,
                    f"the address of a running scheduler ({_first_line(exc)})",
                )
            ) from None
        with client, keeping_parts(client):
            yield client
        return
    if workers is None:
        try:
            current = get_client()
        except ValueError:
            current = None
        if current is not None and not current.asynchronous:
            yield current
            return
    with contextlib.ExitStack() as stack:
        with starting_errors():
            cluster = stack.enter_context(
                LocalCluster(  # type: ignore[no-untyped-call]
                    n_workers=workers or 2,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                    scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                )
            )
            client = stack.enter_context(
                Client(cluster, set_as_default=False)  # type: ignore[no-untyped-call]
            )
        stack.enter_context(keeping_parts(client))
        yield client


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


# sources ---------------------------------------------------------------------------------


def _frame(
    source: Any,
    mapping: Mapping[str, tuple[str, ...]],
    optional: set[str],
    client: Any,
    hint: int | None,
) -> tuple[Any, str, dict[bytes, bytes], bool]:
    """The source as a Dask DataFrame of the wanted columns (``optional`` ones null if missing).

    Also returns the label that names the source in errors, the schema metadata
    to give every partition, and whether a partition's first index value is its
    row offset in the source (so errors can name the file line).
    """
    import dask.dataframe as dd

    wanted = wanted_columns(mapping)
    meta: dict[bytes, bytes] = {}
    if isinstance(source, dd.DataFrame):
        frame, label = source, "dask dataframe"
    elif isinstance(source, str | os.PathLike):
        threads = max(1, sum(client.nthreads().values())) if client is not None else 1
        frame, label = _read_files(source, wanted, optional, threads)
    elif isinstance(source, _io.Source) and not isinstance(source, _io.TableSource):
        frame = source_frame(source, wanted, optional)
        label = str(getattr(source, "name", "the input"))
    else:
        frame, label, meta = _from_memory(source, client, hint)
    nulls = [c for c in wanted if c not in frame.columns and c in optional]
    if nulls:
        frame = frame.assign(**dict.fromkeys(nulls))
    missing = [c for c in wanted if c not in frame.columns]
    if missing:
        raise InputError(
            message(
                label,
                "no such column",
                missing[0],
                "one of the columns present: " + ", ".join(repr(str(c)) for c in frame.columns),
            )
        )
    return frame[wanted], label, meta, _io.SOURCE_KEY in meta


def _from_memory(source: Any, client: Any, hint: int | None) -> tuple[Any, str, dict[bytes, bytes]]:
    """An in-memory table in partitions of at most ``hint`` rows, at least one per thread."""
    import dask.dataframe as dd
    import pandas as pd

    from scorekit.io import as_table

    table = as_table(source)
    meta = {k: v for k, v in (table.schema.metadata or {}).items() if k.startswith(b"scorekit.")}
    label = meta.get(_io.SOURCE_KEY, b"table").decode()
    threads = max(1, sum(client.nthreads().values()))
    parts = max(threads, math.ceil(table.num_rows / (hint or _ROWS_PER_PARTITION)))
    frame = table.to_pandas(types_mapper=pd.ArrowDtype)
    parts = max(1, min(parts, table.num_rows))
    frame = dd.from_pandas(frame, npartitions=parts, sort=True)  # type: ignore[no-untyped-call]
    return frame, label, meta


def _read_files(
    source: str | os.PathLike[str], wanted: list[str], optional: set[str], threads: int = 1
) -> tuple[Any, str]:
    """Files read with Dask's readers, only the ``wanted`` columns.

    Many files smaller than a block (64 MiB) are read a group at a time by
    scorekit's own readers on the workers: one task reads up to
    :data:`~scorekit.engines._dask_sources.GROUP_FILES` files, and there are at
    least as many groups as worker threads. Files of one format that all hold the
    wanted columns (of the same types, for Parquet) are read by one Dask reader
    over the list, which builds the graph once; it splits large files in blocks
    (CSV, JSON Lines) or by row groups (Parquet), so that one file may be several
    partitions. Otherwise each file has a reader of its own. Either way files may
    differ in their optional columns (null where a file lacks one, as the stream
    engine reads them), and a required column missing from a file is an error
    naming that file.
    """
    import dask.dataframe as dd

    from scorekit.io import FileSource, open_source

    url = _io.as_url(source)
    if url is not None:
        names = _io.remote_files(url, _io.listed_in_directories)
        return remote_frame(names, [None] * len(names), wanted, optional), url
    files = open_source(source)
    label = os.fspath(source)
    if not isinstance(files, FileSource):
        raise InputError(message(label, "not a set of table files", None, "files of one format"))
    pairs = [(str(path), fmt) for path, fmt in zip(files.files, files.formats, strict=True)]
    sizes = [Path(name).stat().st_size for name, _ in pairs]
    if len(pairs) > threads and max(sizes) < _BLOCKSIZE:
        names, formats = [n for n, _ in pairs], [f for _, f in pairs]
        frame = grouped_frame(names, formats, sizes, wanted, optional, threads, _BLOCKSIZE)
        return frame, label
    with _reading_errors(label):
        if len(pairs) == 1 or _agreeing(pairs, wanted):
            return _read_format(pairs[0][1], [name for name, _ in pairs], wanted), label
        frames = [_one_file(name, fmt, wanted, optional) for name, fmt in pairs]
        frame = dd.concat(frames)  # type: ignore[no-untyped-call]
    return frame, label


def _agreeing(pairs: list[tuple[str, str]], wanted: list[str]) -> bool:
    """Whether one Dask reader reads all the files: one format Dask reads, all compressed
    or none, every wanted column in every file, of one type in every Parquet file."""
    formats = {fmt for _, fmt in pairs}
    gzipped = {name.lower().endswith(".gz") for name, _ in pairs}
    if len(formats) != 1 or len(gzipped) != 1:
        return False
    fmt = formats.pop()
    if fmt not in ("parquet", "csv", "tsv", "jsonl"):
        return False
    first: tuple[str, ...] | None = None
    for name, _ in pairs:
        if fmt == "parquet":
            from pyarrow import parquet

            schema = parquet.read_schema(name)
            if any(c not in schema.names for c in wanted):
                return False
            kinds = tuple(str(schema.field(c).type) for c in wanted)
        else:
            present = set(_header(name, fmt))
            if any(c not in present for c in wanted):
                return False
            kinds = ()
        if first is None:
            first = kinds
        elif kinds != first:
            return False
    return True


def _one_file(name: str, fmt: str, wanted: list[str], optional: set[str]) -> Any:
    """One file's frame with every wanted column: optional ones it lacks are null."""
    frame = _read_format(fmt, [name], wanted)
    missing = [c for c in wanted if c not in frame.columns]
    required = [c for c in missing if c not in optional]
    if required:
        raise InputError(
            message(
                name,
                "no such column",
                required[0],
                "one of the columns present: " + ", ".join(repr(str(c)) for c in frame.columns),
            )
        )
    if missing:
        frame = frame.assign(**dict.fromkeys(missing))
    return frame[wanted]


def _read_format(fmt: str, names: list[str], wanted: list[str]) -> Any:
    import dask.dataframe as dd

    gzipped = any(n.lower().endswith(".gz") for n in names)
    compression = "gzip" if gzipped else None
    blocksize = None if gzipped else _BLOCKSIZE
    if fmt == "parquet":
        # large files are split by row groups into partitions of about _BLOCKSIZE
        return dd.read_parquet(names, columns=wanted, dtype_backend="pyarrow", blocksize=_BLOCKSIZE)
    if fmt in ("csv", "tsv"):
        present = _header(names[0], fmt)
        return dd.read_csv(
            names,
            sep="\t" if fmt == "tsv" else ",",
            engine="pyarrow",
            usecols=[c for c in wanted if c in present] or None,
            dtype_backend="pyarrow",
            keep_default_na=False,
            na_values=[""],
            blocksize=blocksize,
            compression=compression,
        )
    if fmt != "jsonl":
        return dd.from_delayed(
            [_delayed_file(name, fmt, wanted) for name in names], verify_meta=False
        )
    frame = dd.read_json(
        names,
        lines=True,
        blocksize=blocksize,
        compression=compression,
        dtype_backend="pyarrow",
        **_json_as_written(),
    )
    return frame[[c for c in wanted if c in frame.columns]]


def _json_as_written() -> dict[str, Any]:
    """The options of pandas' ``read_json`` that keep the values as the file writes them.

    ``dtype=False`` converts no column. Versions of pandas whose ``convert_dates``
    defaults to True still parse the columns named like dates (``*_at``,
    ``*_time``, ``timestamp*``, ``date``) unless it is False; later versions
    leave them with ``dtype=False`` alone and deprecate ``convert_dates``.
    """
    import pandas as pd

    convert_dates = inspect.signature(pd.read_json).parameters.get("convert_dates")
    if convert_dates is not None and convert_dates.default is True:
        return {"dtype": False, "convert_dates": False}
    return {"dtype": False}


def _header(path: str, fmt: str) -> list[str]:
    return _io.columns_of(Path(path), fmt)


def _delayed_file(name: str, fmt: str, wanted: list[str]) -> Any:
    """A file of a format Dask cannot read, read whole on a worker by its registered reader."""
    from dask.delayed import delayed

    return delayed(_read_whole)(name, fmt, wanted)


def _read_whole(name: str, fmt: str, wanted: list[str]) -> Any:
    import pyarrow as pa

    present = set(_io.columns_of(Path(name), fmt))
    read = [c for c in wanted if c in present]
    parts = [
        pa.Table.from_batches([b]) if isinstance(b, pa.RecordBatch) else b
        for b, _ in _io.batches(Path(name), fmt, read, 1 << 20, None)
    ]
    table = pa.concat_tables(parts) if parts else pa.table({c: pa.array([]) for c in read})
    return table.to_pandas(types_mapper=pd_types())


def pd_types() -> Any:
    """pandas dtypes backed by pyarrow, for frames made from pyarrow tables."""
    import pandas as pd

    return pd.ArrowDtype


@contextlib.contextmanager
def _reading_errors(label: str) -> Iterator[None]:
    """Turn the errors of Dask's and pandas' file readers into InputErrors naming the source."""
    import pandas as pd
    import pyarrow as pa

    try:
        yield
    except ScorekitError:
        raise
    except (pd.errors.ParserError, pa.ArrowException, OSError, UnicodeDecodeError) as exc:
        raise InputError(
            message(label, "cannot read", raw(_first_line(exc)), "valid table files")
        ) from None
    except ValueError as exc:
        # pandas' JSON parser and Dask's check of the column types of each block
        raise InputError(
            message(
                label,
                "cannot read",
                raw(_first_line(exc)),
                "valid table files with columns of one type in every file and block",
            )
        ) from None


# the graph -------------------------------------------------------------------------------


def _graph(
    frame: Any,
    metrics: list[Metric[Any]],
    mapping: Mapping[str, tuple[str, ...]],
    qrels: Any,
    label: str,
    meta: dict[bytes, bytes],
    offsets: bool,
    parted: Sequence[int] = (),
    shared: Mapping[int, int] | None = None,
) -> Leaves:
    """One ``summarize`` task per partition: the leaves of the merge trees (:class:`_Tree`).

    For the metrics ``parted`` names (their states are made of independent
    parts), a leaf is the partition's states with their parts left out (the
    shells) and, for each of :data:`PART_TREES` batches of consecutive parts of
    each such metric, that batch of the partition's parts: one tree merges the
    shells and one each batch, all alike. A metric that ``shared`` maps to an
    earlier one (:func:`~scorekit.engines._parts.sharing`) has no trees of its own:
    its parts are that metric's, which each partition checks (:func:`_parts_of`).

    The metrics, the mapping and the judgments are each one task of the graph,
    sent to a worker once and fetched from there by the others (and computed
    again if that worker dies, unlike scattered data). The tasks are one layer
    of plain tasks, made in one pass: building a delayed call per task would
    merge the partitions' graph into each, at a cost per partition that grows
    with the number of partitions.
    """
    import uuid

    from dask.delayed import delayed
    from dask.highlevelgraph import HighLevelGraph

    run = uuid.uuid4().hex
    setup = delayed(
        (metrics, dict(mapping), label, meta, offsets), name=f"scorekit-setup-{run}", pure=False
    )
    judgments = delayed(qrels, name=f"scorekit-qrels-{run}", pure=False)
    parts = frame.to_delayed(optimize_graph=True)
    shared = dict(shared or {})
    batches = [(j, k) for j in parted if j not in shared for k in range(PART_TREES)]
    layer: dict[Any, Any] = {}
    leaves: list[list[str]] = []
    for i, part in enumerate(parts):
        key = f"scorekit-summarize-{run}-{i}"
        layer[key] = (_summarize_partition, part.key, setup.key, judgments.key, i)
        keys = [key]
        if parted:
            # the parts are taken out of the states: the first tree merges the shells
            shells, pieces = f"scorekit-shells-{run}-{i}", f"scorekit-parts-{run}-{i}"
            layer[shells] = (_shells_of, key, list(parted))
            layer[pieces] = (_parts_of, key, list(parted), shared)
            keys = [shells]
            for j, k in batches:
                keys.append(f"scorekit-batch-{run}-{j}-{k}-{i}")
                layer[keys[-1]] = (_batch_of, pieces, j, k)
        leaves.append(keys)
    name = f"scorekit-{run}"
    graphs = {id(p.dask): p for p in parts}
    graph = HighLevelGraph.from_collections(
        name, layer, dependencies=[*graphs.values(), setup, judgments]
    )
    return Leaves(run, graph, setup.key, leaves, batches)


@dataclasses.dataclass
class Leaves:
    """The summaries of a run's partitions, as :func:`_graph` makes them."""

    run: str
    """The run's name, in the name of each of its tasks."""
    graph: Any
    """The tasks that read and summarize the partitions."""
    setup: str
    """The key of the task holding the metrics, mapping and source label (:data:`Setup`)."""
    keys: list[list[str]]
    """Per partition, in order, the key of its result in each tree (:func:`_merges`)."""
    batches: list[tuple[int, int]]
    """The parted metric and batch of parts of each tree after the first."""


@dataclasses.dataclass(eq=False)
class Node:
    """Partitions ``start`` to ``stop`` (excluded), merged or not yet: the future of their
    result in each tree, and the bytes of them all once they are there."""

    start: int
    stop: int
    futures: list[Any]
    waiting: int
    """How many of the futures are not there yet."""
    nbytes: int = 0


def _merges(leaves: Leaves, setup: Any) -> list[tuple[Callable[..., Any], str, tuple[Any, ...]]]:
    """The merge of each tree: its function, the prefix of its tasks' keys, the arguments
    before the merged results."""
    run = leaves.run
    return [
        (_merge_group, f"scorekit-merge-{run}", (setup,)),
        *((_merge_batches, f"scorekit-batches-{run}-{j}-{k}", ()) for j, k in leaves.batches),
    ]


class _Tree:
    """The merge trees of a run, driven from here over futures as the summaries finish.

    Every tree has one shape: a node bundles the futures of a range of partitions
    in every tree, and a merge of nodes is one merge task per tree. Nodes are
    grouped in partition order, level by level, as soon as
    :func:`~scorekit.engines._parts.merge_take` can tell where a merge ends from
    the bytes the scheduler knows of the nodes there, so that merges start while
    other partitions are still summarized and no worker holds every partition's
    states at once. The shape depends on the bytes of the states only, not on the
    order in which tasks finish.
    """

    def __init__(self, client: Any, leaves: Leaves) -> None:
        from distributed import as_completed

        self.client = client
        setup, keys = client.get(leaves.graph, [leaves.setup, leaves.keys], sync=False)
        self.merges = _merges(leaves, setup)
        nodes = [Node(i, i + 1, list(f), len(f)) for i, f in enumerate(keys)]
        del keys
        self.levels: list[list[Node | None]] = [list(nodes)]
        self.fronts = [0]
        self.closed = [True]
        self.owner = {f.key: node for node in nodes for f in node.futures}
        futures = [f for node in nodes for f in node.futures]
        self.pending: Any = as_completed(futures, loop=client.loop)  # type: ignore[no-untyped-call]
        del nodes, futures

    def root(self) -> Node:
        """The node of every partition merged (its tasks submitted, maybe not finished)."""
        try:
            top = self._advance()
            if top is None:
                for batch in self.pending.batches():
                    self._finished(batch)
                    del batch
                    top = self._advance()
                    if top is not None:
                        break
        except BaseException:
            self._release()
            raise
        self.pending.clear()
        if top is None:
            raise RuntimeError("the merge trees of the Dask engine ended without a root")
        return top

    def _finished(self, futures: list[Any]) -> None:
        """Count finished futures; a node whose futures are all there learns its bytes."""
        there = []
        for future in futures:
            if future.status != "finished":
                future.result()  # raises the task's error, or the cluster's
            node = self.owner.pop(future.key)
            node.waiting -= 1
            if not node.waiting:
                there.append(node)
        if there:
            keys = [f.key for node in there for f in node.futures]
            sizes = self.client.nbytes(keys, summary=False)
            for node in there:
                node.nbytes = sum(sizes.get(f.key, 0) for f in node.futures)

    def _advance(self) -> Node | None:
        """Merge what can be merged at each level; the root, once there is one."""
        levels, fronts, closed = self.levels, self.fronts, self.closed
        for level, nodes in enumerate(levels):
            if closed[level] and len(nodes) == 1:
                return nodes[0]
            front = fronts[level]
            while True:
                there = []
                for node in nodes[front : front + SPLIT_EVERY]:
                    if node is None or node.waiting:
                        break
                    there.append(node.nbytes)
                last = closed[level] and front + len(there) == len(nodes)
                taken = merge_take(there, last, MERGE_BYTES)
                if not taken:
                    break
                group = [node for node in nodes[front : front + taken] if node is not None]
                nodes[front : front + taken] = [None] * taken
                front += taken
                up = group[0] if taken == 1 else self._merge(group)
                if level + 1 == len(levels):
                    levels.append([])
                    fronts.append(0)
                    closed.append(False)
                levels[level + 1].append(up)
            fronts[level] = front
            if closed[level] and front == len(nodes):
                closed[level + 1] = True
        return None

    def _merge(self, group: list[Node]) -> Node:
        """Submit the merge of consecutive nodes in every tree: the node of their result."""
        start, stop = group[0].start, group[-1].stop
        futures = [
            self.client.submit(
                merge,
                *args,
                [node.futures[t] for node in group],
                key=f"{prefix}-{start}-{stop}",
                priority=1,
            )
            for t, (merge, prefix, args) in enumerate(self.merges)
        ]
        node = Node(start, stop, futures, len(futures))
        for future in futures:
            self.owner[future.key] = node
        self.pending.update(futures)
        return node

    def _release(self) -> None:
        """Let go of every future the trees hold (the run failed)."""
        self.pending.clear()
        for nodes in self.levels:
            for node in nodes:
                for future in node.futures if node else ():
                    future.release()
        self.levels = []
        self.owner = {}


def _partition_table(
    frame: Any, label: str, index: int, meta: dict[bytes, bytes], offsets: bool
) -> Any:
    import pyarrow as pa

    table = pa.Table.from_pandas(frame, preserve_index=False)
    info = dict(meta)
    if offsets and len(frame):
        start = int(info.get(_io.OFFSET_KEY, b"0").decode()) + int(frame.index[0])
        info[_io.OFFSET_KEY] = str(start).encode()
    else:
        info.pop(_io.FORMAT_KEY, None)
        info[_io.SOURCE_KEY] = f"{label}, partition {index}".encode()
    return table.replace_schema_metadata(info)


Part = tuple[list[State], int, Notes]
"""What a task returns: the states, the rows they cover and the distinct warnings raised."""


Setup = tuple[list[Metric[Any]], dict[str, tuple[str, ...]], str, dict[bytes, bytes], bool]
"""What every task needs: metrics, mapping, source label, schema metadata, offsets or not."""


SUMMARY_ROWS = 1_000_000
"""The most rows summarized at once on a worker: a larger partition is summarized in slices."""


def _summarize_partition(frame: Any, setup: Setup, qrels: Any, index: int) -> Part:
    """The states of one partition, its row count and its warnings (runs on a worker).

    A partition of more than :data:`SUMMARY_ROWS` rows (a file read whole, a large
    block) is summarized a slice of that many rows at a time, the slices' states
    merged in order as the stream engine merges its chunks', so that the
    temporaries of a summary are those of one slice; not when a metric needs the
    rows of a group in one chunk (the partitions then hold whole groups).
    """
    _register_sizes()
    metrics, mapping, label, meta, offsets = setup
    table = _partition_table(frame, label, index, meta, offsets)
    rows = table.num_rows
    if rows <= SUMMARY_ROWS or any(group_role(m) for m in metrics):
        states, notes = summarize_chunk(metrics, table, mapping, qrels)
        return share_equal(metrics, states), rows, notes
    info = dict(table.schema.metadata or {})
    first = int(info.get(_io.OFFSET_KEY, b"0").decode())
    tree = MergeTree(metrics)
    notes = Notes()
    for start in range(0, rows, SUMMARY_ROWS):
        # each slice names its rows from the partition's first row, as the whole would
        info[_io.OFFSET_KEY] = str(first + start).encode()
        piece = table.slice(start, SUMMARY_ROWS).replace_schema_metadata(info)
        states, more = summarize_chunk(metrics, piece, mapping, qrels)
        del piece
        notes.update(more)
        tree.add(states)
        del states
    return share_equal(metrics, tree.result()), rows, notes


def _merge_group(setup: Setup, parts: list[Part]) -> Part:
    """Merge the states of consecutive partitions, in order (runs on a worker)."""
    _register_sizes()
    metrics = setup[0]
    states, rows, first = parts[0]
    notes = Notes()
    notes.update(first)
    for other, count, more in parts[1:]:
        states = merge_shared(metrics, states, other)
        rows += count
        notes.update(more)
    return states, rows, notes


# states made of independent parts ------------------------------------------------------------


Pieces = dict[int, Sequence[State] | None]
"""The parts of one partition's states: metric index -> its parts (None: not made of parts)."""


def _shells_of(part: Part, parted: list[int]) -> Part:
    """A partition's states with each parted state's parts left empty (runs on a worker)."""
    _register_sizes()
    states, rows, notes = part
    out = list(states)
    shells: dict[int, State] = {}
    for j in parted:
        if type(out[j]).parted:
            # a state several metrics share keeps one shell between them
            key = id(states[j])
            if key not in shells:
                shells[key] = states[j].split_parts()[0]
            out[j] = shells[key]
    return out, rows, notes


def _parts_of(part: Part, parted: list[int], shared: Mapping[int, int]) -> Pieces:
    """The parts of a partition's parted states, but those of the metrics ``shared`` maps
    to an earlier one, which must hold that one's state (runs on a worker)."""
    _register_sizes()
    states = part[0]
    if any(states[j] is not states[first] for j, first in shared.items()):
        # each batch of these parts says so, and the run goes again without sharing
        return {UNSHARED: None}
    return {
        j: states[j].split_parts()[1] if type(states[j]).parted else None
        for j in parted
        if j not in shared
    }


PART_TREES = 16
"""At most this many trees merge the parts of a parted state, each a batch of consecutive parts."""

UNSHARED = -1
"""The key of a batch of parts (and of a partition's parts) that says a partition's states of
metrics taken to share them were not one (:func:`~scorekit.engines._parts.sharing`)."""


Batch = dict[int, list[State | None]]
"""A batch of parts, by the number of parts of the states they were taken from."""


def _bounds(count: int, k: int) -> tuple[int, int] | None:
    """The parts of batch ``k`` of a state of ``count`` parts (None: no such batch)."""
    trees = min(count, PART_TREES)
    if k >= trees:
        return None
    return count * k // trees, count * (k + 1) // trees


def _batch_of(pieces: Pieces, metric: int, k: int) -> Batch:
    """Batch ``k`` of one metric's parts in one partition (runs on a worker).

    The batch is filed under the number of parts of the partition's state: the
    merged state's number is not known yet, and a state of another number of parts
    than the merged one holds no data (its shell merged into the others).
    """
    _register_sizes()
    if UNSHARED in pieces:
        return {UNSHARED: []}
    parts = pieces[metric]
    if parts is None:
        return {}
    count = len(parts)
    bounds = _bounds(count, k)
    if bounds is None:
        return {}
    return {count: list(parts[bounds[0] : bounds[1]])}


def _merge_batches(batches: list[Batch]) -> Batch:
    """The same batch of parts of consecutive partitions, merged part by part, in order.

    Batches of states of different numbers of parts are merged apart.
    """
    _register_sizes()
    if any(UNSHARED in batch for batch in batches):
        return {UNSHARED: []}
    out: Batch = {}
    for count in dict.fromkeys(c for batch in batches for c in batch):
        columns = [batch[count] for batch in batches if count in batch]
        out[count] = [merge_parts(column) for column in zip(*columns, strict=True)]
    return out


def _with_parts(
    client: Any,
    head: Any,
    held: dict[tuple[int, int], Any],
    scheduler: str | None,
    shared: Mapping[int, int],
) -> tuple[list[State], int, Notes]:
    """The merged states, from the futures of the roots of the merge trees (:class:`_Tree`):
    ``head`` of the whole states (the shells of parted ones), ``held`` of each parted
    metric's batches of parts.

    The parts of each parted metric were merged batch by batch, in trees of the
    shape of the whole states' tree, so the values are those of the whole
    states, bit for bit. The merged parts stay on the workers, a future each, in
    a :class:`~scorekit.engines._dask_parts.ClusterParts`: readers of the state run
    there, and only their totals come here (a cluster the engine started brings
    the parts here, one at a time, before it stops). A metric ``shared`` maps to
    an earlier one takes that one's merged state (or its parts under its own shell).
    """
    keys = list(held)
    firsts = [held[(j, 0)] for j in dict.fromkeys(j for j, _ in keys) if (j, 0) in held]
    if shared and any(client.gather([client.submit(_says_unshared, f) for f in firsts])):
        raise _Unshared()
    states, rows, notes = head.result()
    head.release()
    out = list(states)
    for j in dict.fromkeys(j for j, _ in keys):
        if not type(out[j]).parted:
            continue
        shell, empty = out[j].split_parts()
        count = len(empty)
        parts = []
        for k in range(PART_TREES):
            future = held.pop((j, k))
            bounds = _bounds(count, k)
            if bounds is not None:
                for i in range(bounds[1] - bounds[0]):
                    part = empty[bounds[0] + i]
                    parts.append(client.submit(_part_of, future, count, i, part, pure=False))
            future.release()
        out[j] = type(shell).from_parts(shell, ClusterParts(client, parts, scheduler))
    for future in held.values():
        future.release()
    for j, first in shared.items():
        if states[j] is states[first]:
            out[j] = out[first]
        elif type(out[j]).parted and type(out[first]).parted:
            out[j] = type(out[j]).from_parts(out[j].split_parts()[0], out[first].parts)
    return out, int(rows), notes


def _says_unshared(batch: Batch) -> bool:
    """Whether a merged batch of parts says a partition did not share (runs on a worker)."""
    return UNSHARED in batch


def _part_of(batch: Batch, count: int, index: int, empty: State) -> State:
    """Part ``index`` of a merged batch of parts of states of ``count`` parts; ``empty`` when
    no partition had such a state (runs on a worker)."""
    _register_sizes()
    merged = batch.get(count)
    found = None if merged is None else merged[index]
    return empty if found is None else found
