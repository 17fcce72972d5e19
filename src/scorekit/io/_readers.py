"""The built-in formats: Parquet, CSV/TSV and JSON Lines, read in batches.

Each reader yields ``(batch, bytes_read)`` pairs of pyarrow record batches (or
tables) holding only the wanted columns, and reads the file with bounded memory:

- Parquet through :meth:`pyarrow.parquet.ParquetFile.iter_batches`, one row group
  at a time.
- CSV and TSV through pyarrow's streaming CSV reader, with the options
  :func:`scorekit.io._tables.read_table` uses. The block size is chosen from the first
  64 kB of the file so that a block holds about ``chunk_size`` rows (at least
  1 MiB).
- JSON Lines through pyarrow's streaming JSON reader (pyarrow >= 19; older
  versions read the whole file at once); an uncompressed file of at most 64 MiB
  is read into memory and parsed in one multithreaded call
  (:func:`scorekit.io._jsonl.jsonl_batches`).

A streaming reader fixes each column's type from the first block. When a later
value does not fit (a ``1.5`` below a block of integers, ``cat`` below a block of
numbers), the reader records the wider type that holds both in the
:class:`~scorekit.io._sources.ReadPlan` and raises
:class:`~scorekit.io._blocks.Widen`; the engine then reads the input again
from the start with that type, so the result is the one of reading the whole
file at once. A row longer than the block makes the reader start the file again
with a larger block, skipping the rows already read.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scorekit.io import _tables as _io
from scorekit.io._blocks import Widen, block_size, head
from scorekit.io._csv import csv_batches, header
from scorekit.io._formats import Format, format_named, register_format
from scorekit.io._jsonl import first_block, jsonl_batches
from scorekit.io._remote import local_path

__all__ = ["Widen", "batches", "columns_of"]


def columns_of(path: Path, fmt: str) -> list[str]:
    """The columns of a file of format ``fmt`` (of its first block, for JSON Lines)."""
    return format_named(fmt).columns(Path(local_path(path)))


def batches(
    path: Path, fmt: str, wanted: list[str], chunk_size: int, plan: Any
) -> Iterator[tuple[Any, int]]:
    """Batches of the ``wanted`` columns of one file, each with the bytes read so far."""
    types: dict[str, Any] = {} if plan is None else plan.types.setdefault(fmt, {})
    return format_named(fmt).batches(Path(local_path(path)), wanted, chunk_size, types)


def _parquet_columns(path: Path) -> list[str]:
    import pyarrow as pa
    from pyarrow import parquet

    try:
        return list(parquet.read_schema(path).names)
    except (pa.ArrowException, OSError) as exc:
        raise _io.pyarrow_error(path, "Parquet", exc) from None


def _delimited(fmt: str, delimiter: str) -> Format:
    return Format(
        name=fmt,
        extensions=(f".{fmt}",),
        columns=lambda path: header(path, head(path), delimiter),
        batches=lambda path, wanted, size, types: csv_batches(path, fmt, wanted, size, types),
        compressible=True,
        read=lambda path, wanted: _io.read_csv(path, delimiter, wanted),
    )


register_format(_delimited("csv", ","))
register_format(_delimited("tsv", "\t"))
register_format(
    Format(
        name="parquet",
        extensions=(".parquet", ".pq"),
        columns=_parquet_columns,
        batches=lambda path, wanted, size, types: _parquet(path, wanted, size),
        read=lambda path, wanted: _io.read_parquet(path, wanted),
    )
)
register_format(
    Format(
        name="jsonl",
        extensions=(".jsonl", ".ndjson"),
        columns=lambda path: list(first_block(path, block_size(head(path), 1))),
        batches=lambda path, wanted, size, types: jsonl_batches(path, wanted, size, types),
        compressible=True,
        read=lambda path, wanted: _io.read_jsonl(path, wanted),
    )
)


# Parquet ----------------------------------------------------------------------------


def _parquet(path: Path, wanted: list[str], chunk_size: int) -> Iterator[tuple[Any, int]]:
    import pyarrow as pa
    from pyarrow import parquet

    try:
        # without pre-buffering, pyarrow keeps no read-ahead of the whole file: memory
        # stays that of one row group, buffered in 1 MiB reads
        handle = parquet.ParquetFile(path, pre_buffer=False, buffer_size=1 << 20)
    except (pa.ArrowException, OSError) as exc:
        raise _io.pyarrow_error(path, "Parquet", exc) from None
    try:
        _io.check_columns(path, list(handle.schema_arrow.names), wanted)
        total = max(int(handle.metadata.num_rows), 1)
        size = path.stat().st_size
        parts = handle.iter_batches(batch_size=chunk_size, columns=wanted)
        done = 0
        while True:
            try:
                batch = next(parts)
            except StopIteration:
                return
            except (pa.ArrowException, OSError) as exc:
                raise _io.pyarrow_error(path, "Parquet", exc) from None
            done += batch.num_rows
            yield batch, size * done // total
    finally:
        close = getattr(handle, "close", None)
        if close is not None:
            close()
