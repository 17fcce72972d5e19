"""Where the streaming engine reads from: in-memory tables, files, globs and directories.

:func:`open_source` turns what the user passed into a :class:`Source`: an
in-memory table (pyarrow, pandas or a dict of columns), or a list of files. A
source knows the columns it has and yields pyarrow tables of at most
``chunk_size`` rows, each carrying the schema metadata ``scorekit.source``,
``scorekit.format`` and ``scorekit.offset``, so an error in a chunk names the
file, line and column (see :func:`scorekit.io.where`). The file readers are in
:mod:`scorekit.io._readers`; a family may define a :class:`Source` of its own (text's
line-aligned files), which :func:`open_source` and :func:`as_table` take as it is.
"""

from __future__ import annotations

import abc
import glob
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scorekit.errors import ConfigError, InputError, message, raw
from scorekit.io import _columns as _c
from scorekit.io import _formats, _readers, _remote
from scorekit.io import _tables as _io
from scorekit.io._progress import Progress

__all__ = ["ReadPlan", "Source", "batch_table", "open_source", "with_meta"]

_GLOB = ("*", "?", "[")


@dataclass
class ReadPlan:
    """How to read: the columns that may be missing, and the column types learnt so far.

    ``optional`` columns are read as nulls from a file that does not have them.
    The first file of a format fixes the column types of the files after it. A
    value that does not fit its column's type widens the type here, and the read
    starts again (see :class:`scorekit.io._blocks.Widen`).
    """

    types: dict[str, dict[str, Any]] = field(default_factory=dict)
    optional: set[str] = field(default_factory=set)


class Source(abc.ABC):
    """Input of :func:`scorekit.evaluate`: its columns, size and chunks."""

    total_bytes: int | None = None
    total_rows: int | None = None
    name: str = "table"

    @abc.abstractmethod
    def columns(self) -> list[str]:
        """The columns present (in any of the files, for files)."""

    @abc.abstractmethod
    def chunks(
        self,
        wanted: Sequence[str],
        chunk_size: int,
        progress: Progress,
        plan: ReadPlan,
    ) -> Iterator[Any]:
        """Tables of at most ``chunk_size`` rows with only the ``wanted`` columns."""


def with_meta(table: Any, source: str, fmt: str | None, offset: int) -> Any:
    """``table`` marked as rows ``offset...`` of ``source`` in format ``fmt``, for errors."""
    meta = {_io.SOURCE_KEY: source.encode(), _io.OFFSET_KEY: str(offset).encode()}
    if fmt is not None:
        meta[_io.FORMAT_KEY] = fmt.encode()
    return table.replace_schema_metadata(meta)


class TableSource(Source):
    """An in-memory table, sliced into chunks (zero-copy).

    A table read from a file (:func:`scorekit.io.read_table`) keeps naming that
    file, and its chunks their lines, in error messages.

    A pandas DataFrame or a dict of columns is converted to pyarrow once, and only
    the columns the metrics read.
    """

    def __init__(self, source: Any) -> None:
        self.source = source
        self.total_rows = _length(source)

    def columns(self) -> list[str]:
        return _names(self.source)

    def chunks(
        self,
        wanted: Sequence[str],
        chunk_size: int,
        progress: Progress,
        plan: ReadPlan,
    ) -> Iterator[Any]:
        table = as_table(self.source, wanted)
        meta = table.schema.metadata or {}
        name = meta.get(_io.SOURCE_KEY, b"table").decode()
        fmt = meta[_io.FORMAT_KEY].decode() if _io.FORMAT_KEY in meta else None
        offset = int(meta.get(_io.OFFSET_KEY, b"0").decode())
        for start in range(0, table.num_rows, chunk_size):
            part = table.slice(start, chunk_size)
            progress.update(rows=part.num_rows)
            yield with_meta(part, name, fmt, offset + start)


def _is_pandas(source: Any) -> bool:
    module = type(source).__module__ or ""
    return module.startswith("pandas") and hasattr(source, "columns")


def _names(source: Any) -> list[str]:
    import pyarrow as pa

    if isinstance(source, pa.Table | pa.RecordBatch):
        return list(source.column_names)
    if _is_pandas(source):
        return [str(c) for c in source.columns]
    return list(source)


def _length(source: Any) -> int | None:
    import pyarrow as pa

    if isinstance(source, pa.Table | pa.RecordBatch) or _is_pandas(source):
        return len(source)
    for values in source.values():
        try:
            return len(values)
        except TypeError:
            return None
    return 0


class FileSource(Source):
    """Files read one after the other in batches, in the order given.

    Each file is read in the format its name says, or in the registered format
    named ``fmt`` whatever the names end in (a TREC run called ``results.test``).
    """

    def __init__(self, files: Sequence[Path], name: str, fmt: str | None = None) -> None:
        self.files = list(files)
        self.name = name
        if fmt is not None:
            _formats.format_named(fmt)
        self.formats = [fmt or _formats.format_of(p) for p in self.files]
        self.total_bytes = sum(_size(p) for p in self.files)
        self._headers: dict[int, list[str]] = {}

    def header(self, index: int) -> list[str]:
        """The columns of one file (read once)."""
        if index not in self._headers:
            self._headers[index] = _readers.columns_of(self.files[index], self.formats[index])
        return self._headers[index]

    def columns(self) -> list[str]:
        """Every column of any file, in order of first appearance.

        A file lacking a column the metrics can do without reads it as nulls
        (:class:`ReadPlan`); a file lacking any other column is an error naming it.
        """
        names: dict[str, None] = {}
        for index in range(len(self.files)):
            names.update(dict.fromkeys(self.header(index)))
        return list(names)

    def chunks(
        self,
        wanted: Sequence[str],
        chunk_size: int,
        progress: Progress,
        plan: ReadPlan,
    ) -> Iterator[Any]:
        done_bytes = 0
        first_types: dict[str, Any] = {}
        first_path: Path | None = None
        for index, (path, fmt) in enumerate(zip(self.files, self.formats, strict=True)):
            offset = 0
            absent: list[str] = []
            if plan.optional:
                have = set(self.header(index))
                absent = [c for c in wanted if c in plan.optional and c not in have]
            read = [c for c in wanted if c not in absent]
            reader = _readers.batches(path, fmt, read, chunk_size, plan)
            # closed here, not when collected: chunks left unread (a first chunk read alone)
            # stop the file's reader and close the file now
            try:
                for batch, position in reader:
                    table = _nulls(batch_table(batch), wanted, absent, plan.types.get(fmt, {}))
                    if first_path is None:
                        first_path, first_types = path, _kinds(table)
                    else:
                        _check_kinds(first_path, first_types, path, table)
                    for start in range(0, table.num_rows, chunk_size):
                        part = table.slice(start, chunk_size)
                        progress.update(rows=part.num_rows, bytes_read=done_bytes + position)
                        yield with_meta(part, str(path), fmt, offset)
                        offset += part.num_rows
            finally:
                close = getattr(reader, "close", None)
                if close is not None:
                    close()
            done_bytes += _size(path)
            progress.update(bytes_read=done_bytes)


def batch_table(batch: Any) -> Any:
    """A pyarrow RecordBatch (or Table) as a Table without schema metadata."""
    import pyarrow as pa

    if isinstance(batch, pa.Table):
        return batch.replace_schema_metadata(None)
    return pa.Table.from_batches([batch]).replace_schema_metadata(None)


def _nulls(table: Any, wanted: Sequence[str], absent: list[str], types: dict[str, Any]) -> Any:
    """``table`` with the ``absent`` columns as nulls (of the type learnt), in ``wanted`` order."""
    if not absent:
        return table
    import pyarrow as pa

    n = table.num_rows
    columns = {
        name: pa.nulls(n, types.get(name, pa.null())) if name in absent else table.column(name)
        for name in wanted
    }
    return pa.table(columns)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _kind(kind: Any) -> str:
    import pyarrow as pa

    if pa.types.is_null(kind):
        return "null"
    if pa.types.is_dictionary(kind):
        return _kind(kind.value_type)
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or _c.is_string_view(kind):
        return "text"
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        return "list"
    if _c.is_numeric(kind):
        return "number"
    return str(kind)


def _kinds(table: Any) -> dict[str, Any]:
    return {f.name: f.type for f in table.schema}


def _check_kinds(first: Path, types: dict[str, Any], path: Path, table: Any) -> None:
    """Columns read from several files must hold the same kind of value in each."""
    for f in table.schema:
        before = types.get(f.name)
        if before is None:
            continue
        a, b = _kind(before), _kind(f.type)
        if "null" in (a, b) or a == b:
            continue
        raise InputError(
            message(
                f"{path}, column {f.name!r}",
                "column type differs from the first file",
                raw(f"{f.type} here, {before} in {first}"),
                "the same type of value in every file",
            )
        )


# opening a source ----------------------------------------------------------------


def open_source(source: Any) -> Source:
    """The :class:`Source` for a table, a dict of columns, a path, a glob or a directory.

    Examples
    --------
    >>> open_source({"y_true": [1, 0], "y_pred": [1, 1]}).columns()
    ['y_true', 'y_pred']
    """
    import pyarrow as pa

    if isinstance(source, Source):
        return source
    if isinstance(source, str | os.PathLike):
        return _file_source(source)
    if isinstance(source, pa.Table | pa.RecordBatch | Mapping) or _is_pandas(source):
        if isinstance(source, Mapping):
            _check_keys(source)
        return TableSource(source)
    return TableSource(as_table(source))


def as_table(source: Any, columns: Sequence[str] | None = None) -> Any:
    """An in-memory source as a pyarrow table: pyarrow, pandas or a dict of columns.

    With ``columns``, only those columns, converted once.

    Examples
    --------
    >>> as_table({"a": [1, 2], "b": ["x", "y"]}, ["b"]).to_pydict()
    {'b': ['x', 'y']}
    """
    import pyarrow as pa

    wanted = None if columns is None else list(columns)
    if isinstance(source, Source):
        return _whole(source, wanted)
    if isinstance(source, pa.Table | pa.RecordBatch) or _is_pandas(source):
        _check_unique(_names(source), wanted)
    if isinstance(source, pa.Table):
        return source if wanted is None else source.select(wanted)
    if isinstance(source, pa.RecordBatch):
        table = pa.Table.from_batches([source])
        return table if wanted is None else table.select(wanted)
    if _is_pandas(source):
        if wanted is not None:
            labels = {str(c): c for c in source.columns}
            source = source[[labels[c] for c in wanted]]
        return pa.Table.from_pandas(source, preserve_index=False)
    module = type(source).__module__ or ""
    if module.startswith("dask"):
        raise ConfigError(
            message(
                "evaluate",
                "a Dask DataFrame runs on the Dask engine",
                raw(type(source).__name__),
                "engine='dask'",
            )
        )
    if isinstance(source, Mapping):
        _check_keys(source)
        return _from_columns(source if wanted is None else {c: source[c] for c in wanted})
    raise InputError(
        message(
            "evaluate",
            "cannot read the source",
            raw(type(source).__name__),
            "a pyarrow Table, a pandas DataFrame, a dict of columns, a path, a glob or a directory",
        )
    )


def _check_unique(names: list[str], wanted: list[str] | None) -> None:
    """Refuse a table whose column of a wanted name (any, without ``wanted``) is not unique."""
    seen: set[str] = set()
    for name in names:
        if name in seen and (wanted is None or name in wanted):
            raise InputError(
                message(
                    "evaluate",
                    "the table has a column name more than once",
                    name,
                    "unique column names (rename the columns of the table)",
                )
            )
        seen.add(name)


def _whole(source: Source, wanted: list[str] | None) -> Any:
    """Every chunk of a :class:`Source` joined into one table."""
    import pyarrow as pa

    columns = source.columns() if wanted is None else wanted
    parts = list(source.chunks(columns, 1 << 20, Progress(enabled=False), ReadPlan()))
    if not parts:
        return pa.table({c: pa.array([], pa.null()) for c in columns})
    return pa.concat_tables(parts).replace_schema_metadata(None)


def _check_keys(columns: Mapping[Any, Any]) -> None:
    for name in columns:
        if not isinstance(name, str):
            raise InputError(message("evaluate", "column names must be strings", name, "a str key"))


def _from_columns(columns: Mapping[Any, Any]) -> Any:
    import pyarrow as pa

    arrays: dict[str, Any] = {}
    length: int | None = None
    first = ""
    for name, values in columns.items():
        array = _column_array(name, values)
        if length is None:
            length, first = len(array), name
        elif len(array) != length:
            raise InputError(
                message(
                    "evaluate",
                    f"column {name!r} has a different length",
                    raw(f"{len(array)} rows, {length} in {first!r}"),
                    "columns of equal length",
                )
            )
        arrays[name] = array
    return pa.table(arrays)


def _column_array(name: str, values: Any) -> Any:
    import pyarrow as pa

    if isinstance(values, pa.Array | pa.ChunkedArray):
        return values
    if isinstance(values, np.ndarray) and values.ndim == 2:
        flat = pa.array(np.ascontiguousarray(values).reshape(-1))
        return pa.FixedSizeListArray.from_arrays(flat, values.shape[1])
    if isinstance(values, np.ndarray) and values.ndim > 2:
        raise InputError(
            message(
                "evaluate",
                f"column {name!r} has too many dimensions",
                raw(f"shape {values.shape}"),
                "1-D values or a 2-D matrix",
            )
        )
    module = type(values).__module__ or ""
    if module.startswith("pandas"):
        values = values.to_numpy()
    try:
        if isinstance(values, list | tuple) and values and isinstance(values[0], np.ndarray):
            return pa.array([np.asarray(v).tolist() for v in values])
        return pa.array(values)
    except (pa.ArrowException, TypeError, ValueError) as exc:
        raise InputError(
            message(
                "evaluate",
                f"cannot make a column of {name!r}",
                raw(str(exc).splitlines()[0] if str(exc) else type(exc).__name__),
                "values of one type",
            )
        ) from None


def _file_source(source: str | os.PathLike[str]) -> FileSource:
    url = _remote.as_url(source)
    if url is not None:
        names = _remote.remote_files(url, _formats.listed_in_directories)
        copies = [Path(_remote.local_path(name)) for name in names]
        for p in copies:
            _formats.format_of(p)
        return FileSource(copies, url)
    text = os.fspath(source)
    path = Path(text)
    if path.is_dir():
        files = sorted(
            p
            for p in path.iterdir()
            if p.is_file()
            and not p.name.startswith((".", "_"))
            and _formats.listed_in_directories(p)
        )
        if not files:
            raise InputError(
                message(
                    text,
                    "no readable file in the directory",
                    None,
                    "files ending in " + ", ".join(_formats.directory_extensions()),
                )
            )
        return FileSource(files, text)
    if path.exists():
        return FileSource([path], text)
    if any(c in text for c in _GLOB):
        matches = sorted(Path(p) for p in glob.glob(text, recursive=True))
        files = [p for p in matches if p.is_file()]
        if not files:
            raise InputError(message(text, "the pattern matches no file", None, "a glob of files"))
        for p in files:
            _formats.format_of(p)
        return FileSource(files, text)
    raise InputError(message(text, "no such file", None, "an existing file, directory or glob"))
