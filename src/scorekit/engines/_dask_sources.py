"""Sources the Dask engine reads on its workers: remote files, scorekit's own readers, any Source.

- Files given by URL (``s3://``, ``gs://``, ``https://``...): the client lists them
  and reads the first bytes of each for its columns; every file is then read on a
  worker, through fsspec, by scorekit's reader of its format
  (:func:`scorekit.io.local_path` copies it on that worker).
- A :class:`~scorekit.io.FileSource` (a TREC run of ``scorekit rank``) is read the same
  way, one partition per file, in the format the source gives each file.
- Any other :class:`~scorekit.io.Source` (the line-aligned files of ``scorekit text``)
  is read whole on one worker, in chunks, by its own ``chunks``.

The values are those of the stream engine: the same readers read the same files,
column types settled over the whole file (:func:`scorekit.engines.stream.read_chunks`).

dask is imported inside the functions.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from scorekit import io as _io
from scorekit.errors import InputError, message

__all__ = ["grouped_frame", "remote_columns", "remote_frame", "source_frame", "worker_read"]

_READ_ROWS = 1 << 20
GROUP_FILES = 256
"""The most small files read by one task."""


def _format(url: str, fmt: str | None = None) -> str:
    return fmt or _io.format_of(Path(PurePosixPath(url.split("?", 1)[0]).name))


def _columns_of_url(url: str) -> list[str]:
    """The columns of a remote file, from its first bytes (its footer for Parquet)."""
    fmt = _format(url)
    if fmt == "parquet":
        import fsspec  # type: ignore[import-untyped]
        import pyarrow as pa
        from pyarrow import parquet

        fs, path = fsspec.core.url_to_fs(url)
        try:
            with fs.open(path, "rb") as handle:
                return list(parquet.read_schema(handle).names)
        except (pa.ArrowException, OSError) as exc:
            raise _io.pyarrow_error(Path(url), "Parquet", exc) from None
    with tempfile.TemporaryDirectory(prefix="scorekit-head-") as folder:
        head = Path(folder) / PurePosixPath(url.split("?", 1)[0]).name
        head.write_bytes(_io.remote_head(url))
        return _io.columns_of(head, fmt)


def remote_columns(url: str) -> tuple[list[str], list[str]]:
    """The URLs of the files ``url`` names, and every column of any of them (in order)."""
    names = _io.remote_files(url, _io.listed_in_directories)
    columns: dict[str, None] = {}
    for name in names:
        columns.update(dict.fromkeys(_columns_of_url(name)))
    return names, list(columns)


def _reader_module(fmt: str) -> str:
    """The module that registers the format ``fmt`` (a family's, for its own formats)."""
    return str(_io.format_named(fmt).batches.__module__)


def worker_read(
    name: str, fmt: str, wanted: list[str], optional: set[str], module: str = ""
) -> Any:
    """One file (a path or a URL) read whole by scorekit's reader (runs on a worker).

    ``module`` registers the format (a family's TREC runs) and is imported
    first. An ``optional`` column the file lacks is null; a required one is an
    error naming the file. Column types are settled over the whole file, as the
    stream engine settles them.
    """
    import importlib

    import pyarrow as pa

    from scorekit.engines.stream import read_chunks

    if module:
        importlib.import_module(module)

    source = _io.FileSource([Path(_io.local_path(name))], name, fmt)
    present = set(source.columns())
    required = [c for c in wanted if c not in present and c not in optional]
    if required:
        raise InputError(
            message(
                name,
                "no such column",
                required[0],
                "one of the columns present: " + ", ".join(repr(c) for c in sorted(present)),
            )
        )
    parts = read_chunks(source, wanted, _READ_ROWS, list, progress=False, optional=optional)
    if parts:
        table = pa.concat_tables([p.replace_schema_metadata(None) for p in parts])
    else:
        table = pa.table({c: pa.array([]) for c in wanted})
    return table.select(wanted).to_pandas(types_mapper=_arrow_dtype())


def _read_group(
    names: list[str], formats: list[str], wanted: list[str], optional: set[str], modules: list[str]
) -> Any:
    """Several files read one after the other into one partition (runs on a worker)."""
    import pandas as pd

    frames = [
        worker_read(name, fmt, wanted, optional, module)
        for name, fmt, module in zip(names, formats, modules, strict=True)
    ]
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def file_groups(sizes: Sequence[int], threads: int, block: int) -> list[range]:
    """Consecutive files in groups of at most ``block`` bytes and :data:`GROUP_FILES` files,
    at least one group per thread when there are files enough.

    Examples
    --------
    >>> [list(g) for g in file_groups([10] * 7, threads=2, block=1000)]
    [[0, 1, 2], [3, 4, 5], [6]]
    >>> [list(g) for g in file_groups([600, 600, 10], threads=1, block=1000)]
    [[0], [1, 2]]
    """
    n = len(sizes)
    most = max(1, min(GROUP_FILES, n // max(1, threads)))
    groups: list[range] = []
    start, total = 0, 0
    for i, size in enumerate(sizes):
        if i > start and (i - start >= most or total + size > block):
            groups.append(range(start, i))
            start, total = i, 0
        total += size
    if n:
        groups.append(range(start, n))
    return groups


def grouped_frame(
    names: Sequence[str],
    formats: Sequence[str],
    sizes: Sequence[int],
    wanted: list[str],
    optional: set[str],
    threads: int,
    block: int,
) -> Any:
    """Small files as a Dask DataFrame of a few partitions, each several files read on a
    worker by scorekit's readers (:func:`file_groups`): one task per group, not per file."""
    import dask.dataframe as dd
    from dask.delayed import delayed

    read = delayed(_read_group, pure=True)
    modules = {fmt: _reader_module(fmt) for fmt in set(formats)}
    parts = [
        read(
            [names[i] for i in group],
            [formats[i] for i in group],
            list(wanted),
            set(optional),
            [modules[formats[i]] for i in group],
        )
        for group in file_groups(sizes, threads, block)
    ]
    return dd.from_delayed(parts, meta=_meta(wanted), verify_meta=False)


def _read_source(source: Any, wanted: list[str], optional: set[str]) -> Any:
    """A whole :class:`~scorekit.io.Source` read in chunks (runs on a worker)."""
    import pyarrow as pa

    from scorekit.engines.stream import read_chunks

    parts = read_chunks(source, wanted, _READ_ROWS, list, progress=False, optional=optional)
    if parts:
        table = pa.concat_tables([p.replace_schema_metadata(None) for p in parts])
    else:
        table = pa.table({c: pa.array([]) for c in wanted})
    return table.select(wanted).to_pandas(types_mapper=_arrow_dtype())


def _arrow_dtype() -> Any:
    import pandas as pd

    return pd.ArrowDtype


def _meta(wanted: Sequence[str]) -> Any:
    """An empty frame of the wanted columns: the partitions' types are known on the workers."""
    import pandas as pd

    return pd.DataFrame({c: pd.Series([], dtype=object) for c in wanted})


def remote_frame(
    names: Sequence[str], formats: Sequence[str | None], wanted: list[str], optional: set[str]
) -> Any:
    """A Dask DataFrame of one partition per file, each read on a worker by :func:`worker_read`."""
    import dask.dataframe as dd
    from dask.delayed import delayed

    read = delayed(worker_read, pure=True)
    named = [_format(name, fmt) for name, fmt in zip(names, formats, strict=True)]
    modules = {fmt: _reader_module(fmt) for fmt in set(named)}
    parts = [
        read(name, fmt, list(wanted), set(optional), modules[fmt])
        for name, fmt in zip(names, named, strict=True)
    ]
    return dd.from_delayed(parts, meta=_meta(wanted), verify_meta=False)


def source_frame(source: Any, wanted: list[str], optional: set[str]) -> Any:
    """A Dask DataFrame of a :class:`~scorekit.io.Source`, read on the workers.

    A :class:`~scorekit.io.FileSource` gives one partition per file; any other
    source is one partition, read whole on one worker.
    """
    import dask.dataframe as dd
    from dask.delayed import delayed

    if isinstance(source, _io.FileSource):
        return remote_frame([str(p) for p in source.files], list(source.formats), wanted, optional)
    part = delayed(_read_source, pure=False)(source, list(wanted), set(optional))
    return dd.from_delayed([part], meta=_meta(wanted), verify_meta=False)
