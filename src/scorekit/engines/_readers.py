"""File readers of the streaming engine: Parquet, CSV/TSV, JSON Lines and TREC runs in batches.

Each reader yields ``(batch, bytes_read)`` pairs of pyarrow record batches (or
tables) holding only the wanted columns, and reads the file with bounded memory:

- Parquet through :meth:`pyarrow.parquet.ParquetFile.iter_batches`, one row group
  at a time.
- CSV and TSV through pyarrow's streaming CSV reader, with the options
  :func:`scorekit._io.read_table` uses. The block size is chosen from the first
  64 kB of the file so that a block holds about ``chunk_size`` rows (at least
  1 MiB).
- JSON Lines through pyarrow's streaming JSON reader (pyarrow >= 19; older
  versions read the whole file at once).
- TREC run files (``.run``, ``.txt``) through the CSV reader when their fields are
  separated by single spaces or tabs, else with :func:`scorekit.ranking.read_run`
  (the whole file).

A streaming reader fixes each column's type from the first block. When a later
value does not fit (a ``1.5`` below a block of integers, ``cat`` below a block of
numbers), the reader records the wider type that holds both in the
:class:`~scorekit.engines._sources.ReadPlan` and raises
:class:`~scorekit.engines._blocks.Widen`; the engine then reads the input again
from the start with that type, so the result is the one of reading the whole
file at once. A row longer than the block makes the reader start the file again
with a larger block, skipping the rows already read.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scorekit import _io
from scorekit.engines._blocks import Widen, block_size, head
from scorekit.engines._csv import csv_batches, header, trec_batches
from scorekit.engines._jsonl import first_block, jsonl_batches
from scorekit.errors import InputError, choices, message, raw

__all__ = ["EXTENSIONS", "Widen", "batches", "columns_of", "format_of", "supported"]

_TREC_EXTENSIONS = (".run", ".txt")

EXTENSIONS: tuple[str, ...] = (*_io.SUPPORTED_EXTENSIONS, ".run", ".run.gz")
"""File endings read from a directory (``.txt`` TREC runs only when named or globbed)."""


# formats ------------------------------------------------------------------------


def format_of(path: Path) -> str:
    """The reader for a file: ``parquet``, ``csv``, ``tsv``, ``jsonl`` or ``trec``.

    Examples
    --------
    >>> from pathlib import Path
    >>> format_of(Path("part-0.parquet")), format_of(Path("run.bm25.txt.gz"))
    ('parquet', 'trec')
    """
    name = path.name.lower()
    base = name[:-3] if name.endswith(".gz") else name
    if base.endswith(_TREC_EXTENSIONS):
        return "trec"
    try:
        return _io._format_of(path)
    except InputError:
        raise InputError(
            message(
                str(path),
                "unknown file type",
                raw(f"extension {''.join(path.suffixes) or '(none)'!r}"),
                choices((*EXTENSIONS, ".txt", ".txt.gz")),
            )
        ) from None


def supported(path: Path) -> bool:
    """Whether a directory listing includes ``path`` (any table file, or a ``.run`` file)."""
    name = path.name.lower()
    return name.endswith(EXTENSIONS)


def columns_of(path: Path, fmt: str) -> list[str]:
    """The columns of a file (of its first block, for JSON Lines)."""
    import pyarrow as pa

    if fmt == "parquet":
        from pyarrow import parquet

        try:
            return list(parquet.read_schema(path).names)
        except (pa.ArrowException, OSError) as exc:
            raise _io._pyarrow_error(path, "Parquet", exc) from None
    if fmt in ("csv", "tsv"):
        return header(path, head(path), "\t" if fmt == "tsv" else ",")
    if fmt == "jsonl":
        return list(first_block(path, block_size(head(path), 1)))
    return ["query", "doc", "score"]


def batches(
    path: Path, fmt: str, wanted: list[str], chunk_size: int, plan: Any
) -> Iterator[tuple[Any, int]]:
    """Batches of the ``wanted`` columns of one file, each with the bytes read so far."""
    if fmt == "parquet":
        return _parquet(path, wanted, chunk_size)
    if fmt in ("csv", "tsv"):
        return csv_batches(path, fmt, wanted, chunk_size, plan.types.setdefault(fmt, {}))
    if fmt == "jsonl":
        return jsonl_batches(path, wanted, chunk_size, plan.types.setdefault(fmt, {}))
    return trec_batches(path, chunk_size)


# Parquet ----------------------------------------------------------------------------


def _parquet(path: Path, wanted: list[str], chunk_size: int) -> Iterator[tuple[Any, int]]:
    import pyarrow as pa
    from pyarrow import parquet

    try:
        # without pre-buffering, pyarrow keeps no read-ahead of the whole file: memory
        # stays that of one row group, buffered in 1 MiB reads
        handle = parquet.ParquetFile(path, pre_buffer=False, buffer_size=1 << 20)
    except (pa.ArrowException, OSError) as exc:
        raise _io._pyarrow_error(path, "Parquet", exc) from None
    try:
        _io._check_columns(path, list(handle.schema_arrow.names), wanted)
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
                raise _io._pyarrow_error(path, "Parquet", exc) from None
            done += batch.num_rows
            yield batch, size * done // total
    finally:
        close = getattr(handle, "close", None)
        if close is not None:
            close()
