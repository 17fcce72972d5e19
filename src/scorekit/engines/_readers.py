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
:class:`~scorekit.engines._sources.ReadPlan` and raises :class:`Widen`; the engine
then reads the input again from the start with that type, so the result is the
one of reading the whole file at once. A row longer than the block makes the
reader start the file again with a larger block, skipping the rows already read.
"""

from __future__ import annotations

import csv as pycsv
import gzip
import json
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scorekit import _io
from scorekit.errors import InputError, choices, message, raw

__all__ = ["EXTENSIONS", "Widen", "batches", "columns_of", "format_of", "supported"]

_TREC_EXTENSIONS = (".run", ".txt")

EXTENSIONS: tuple[str, ...] = (*_io.SUPPORTED_EXTENSIONS, ".run", ".run.gz")
"""File endings read from a directory (``.txt`` TREC runs only when named or globbed)."""

_MIN_BLOCK = 1 << 20
_MAX_BLOCK = 1 << 26
_HEAD = 1 << 16
_BOM = b"\xef\xbb\xbf"


class Widen(Exception):
    """A value did not fit its column's type; the plan now holds a wider type."""

    def __init__(self, path: Path, column: str, kind: Any) -> None:
        super().__init__(f"{path}: column {column!r} is read again as {kind}")
        self.path = path
        self.column = column
        self.kind = kind


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
        return _header(path, _head(path), "\t" if fmt == "tsv" else ",")
    if fmt == "jsonl":
        return list(_json_first_block(path, _block_size(_head(path), 1)))
    return ["query", "doc", "score"]


def batches(
    path: Path, fmt: str, wanted: list[str], chunk_size: int, plan: Any
) -> Iterator[tuple[Any, int]]:
    """Batches of the ``wanted`` columns of one file, each with the bytes read so far."""
    if fmt == "parquet":
        return _parquet(path, wanted, chunk_size)
    if fmt in ("csv", "tsv"):
        return _csv(path, fmt, wanted, chunk_size, plan.types.setdefault(fmt, {}))
    if fmt == "jsonl":
        return _jsonl(path, wanted, chunk_size, plan.types.setdefault(fmt, {}))
    return _trec(path, chunk_size)


# shared helpers ---------------------------------------------------------------------


def _open(path: Path) -> tuple[Any, Any]:
    """The raw file (whose position counts the bytes read) and the stream to parse."""
    import pyarrow as pa

    try:
        handle = pa.OSFile(str(path))
    except (pa.ArrowException, OSError) as exc:
        raise InputError(
            message(str(path), "cannot open", raw(str(exc)), "a readable file")
        ) from None
    if path.name.lower().endswith(".gz"):
        return handle, pa.CompressedInputStream(handle, "gzip")
    return handle, handle


def _head(path: Path) -> bytes:
    """The first 64 kB of the file's content (decompressed)."""
    try:
        if path.name.lower().endswith(".gz"):
            with gzip.open(path, "rb") as handle:
                data: bytes = handle.read(_HEAD)
        else:
            with path.open("rb") as handle:
                data = handle.read(_HEAD)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(
            message(str(path), "cannot read", raw(str(exc)), "a readable file")
        ) from None
    return data


def _block_size(head: bytes, chunk_size: int) -> int:
    """A block of about ``chunk_size`` rows, at least 1 MiB and four times the longest line."""
    lines = head.split(b"\n")
    complete = max(len(lines) - 1, 1)
    per_row = len(head) / complete
    longest = max((len(line) for line in lines), default=0)
    block = max(int(per_row * chunk_size * 1.25), 4 * longest + 1024, _MIN_BLOCK)
    return min(block, max(_MAX_BLOCK, 4 * longest + 1024))


def _straddles(exc: Exception) -> bool:
    return "straddl" in str(exc)


def _first_line(text: str) -> str:
    return str(text).strip().splitlines()[0] if str(text).strip() else ""


def _empty(path: Path, expected: str) -> InputError:
    return InputError(message(str(path), "file is empty", None, expected))


def _skip(batch: Any, seen: int, done: int) -> Any | None:
    """Drop the rows of ``batch`` (starting at file row ``seen``) before row ``done``."""
    n = batch.num_rows
    if seen + n <= done:
        return None
    if seen < done:
        return batch.slice(done - seen)
    return batch


# Parquet ----------------------------------------------------------------------------


def _parquet(path: Path, wanted: list[str], chunk_size: int) -> Iterator[tuple[Any, int]]:
    import pyarrow as pa
    from pyarrow import parquet

    try:
        handle = parquet.ParquetFile(path)
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


# CSV and TSV --------------------------------------------------------------------------


def _header(path: Path, head: bytes, delimiter: str) -> list[str]:
    text = head.removeprefix(_BOM).decode("utf-8", errors="replace")
    if not text.strip():
        raise _empty(path, "a header line and data rows")
    line = text.lstrip("\r\n").splitlines()[0]
    return next(pycsv.reader([line], delimiter=delimiter))


# pyarrow's order of inference for CSV columns: a value that does not fit a type
# moves its column to the first later type that holds it.
def _lattice() -> list[Any]:
    import pyarrow as pa

    return [
        pa.null(),
        pa.int64(),
        pa.bool_(),
        pa.date32(),
        pa.time32("s"),
        pa.timestamp("s"),
        pa.timestamp("ns"),
        pa.float64(),
        pa.string(),
    ]


_CONVERSION = re.compile(
    r"In CSV column #(\d+): CSV conversion error to (.+?): invalid value '(.*)'"
)


def _csv_options(delimiter: str, wanted: list[str], types: dict[str, Any], block: int) -> Any:
    from pyarrow import csv

    return (
        csv.ReadOptions(block_size=block),
        csv.ParseOptions(delimiter=delimiter),
        csv.ConvertOptions(
            include_columns=wanted,
            column_types={c: types[c] for c in wanted if c in types},
            strings_can_be_null=True,
            null_values=[""],
        ),
    )


def _csv(
    path: Path, fmt: str, wanted: list[str], chunk_size: int, types: dict[str, Any]
) -> Iterator[tuple[Any, int]]:
    import pyarrow as pa
    from pyarrow import csv

    delimiter = "\t" if fmt == "tsv" else ","
    head = _head(path)
    names = _header(path, head, delimiter)
    _io._check_columns(path, names, wanted)
    block = _block_size(head, chunk_size)
    done = 0
    while True:
        handle, stream = _open(path)
        try:
            read, parse, convert = _csv_options(delimiter, wanted, types, block)
            reader = csv.open_csv(
                stream, read_options=read, parse_options=parse, convert_options=convert
            )
            for f in reader.schema:
                types.setdefault(f.name, f.type)
            seen = 0
            while True:
                try:
                    batch = reader.read_next_batch()
                except StopIteration:
                    return
                part = _skip(batch, seen, done)
                seen += batch.num_rows
                if part is not None:
                    done = seen
                    yield part, handle.tell()
        except (pa.ArrowException, OSError) as exc:
            if _straddles(exc) and block < (1 << 31):
                block *= 4
                continue
            raise _csv_error(path, fmt, names, types, block, exc) from None
        finally:
            handle.close()


def _csv_error(
    path: Path, fmt: str, names: list[str], types: dict[str, Any], block: int, exc: Exception
) -> Exception:
    text = str(exc)
    if "Empty CSV file" in text:
        return _empty(path, "a header line and data rows")
    found = _CONVERSION.search(text)
    if found:
        index, value = int(found[1]), found[3]
        if index < len(names):
            column = names[index]
            wider = _wider(types.get(column), value, "\t" if fmt == "tsv" else ",")
            if wider is not None:
                types[column] = wider
                return Widen(path, column, wider)
    if "CSV parse error" in text:
        return _ragged(path, "\t" if fmt == "tsv" else ",", names, block, exc)
    return _io._pyarrow_error(path, fmt.upper(), exc)


def _wider(kind: Any, value: str, delimiter: str) -> Any | None:
    """The first type after ``kind`` in pyarrow's inference order that holds ``value``."""
    lattice = _lattice()
    start = next((i + 1 for i, t in enumerate(lattice) if kind is not None and t == kind), None)
    if start is None:
        return None if kind is not None and kind == lattice[-1] else lattice[-1]
    for candidate in lattice[start:]:
        if _parses(value, candidate, delimiter):
            return candidate
    return lattice[-1]


def _parses(value: str, kind: Any, delimiter: str) -> bool:
    import io

    import pyarrow as pa
    from pyarrow import csv

    out = io.StringIO()
    pycsv.writer(out, delimiter=delimiter, lineterminator="\n").writerows([["c"], [value]])
    try:
        csv.read_csv(
            io.BytesIO(out.getvalue().encode()),
            parse_options=csv.ParseOptions(delimiter=delimiter),
            convert_options=csv.ConvertOptions(
                column_types={"c": kind}, strings_can_be_null=True, null_values=[""]
            ),
        )
    except pa.ArrowException:
        return False
    return True


def _ragged(path: Path, delimiter: str, names: list[str], block: int, exc: Exception) -> InputError:
    """Parse again single-threaded, streaming, to learn the line of the first bad row."""
    import pyarrow as pa
    from pyarrow import csv

    bad: list[Any] = []

    def handler(row: Any) -> str:
        bad.append(row)
        return "skip"

    handle, stream = _open(path)
    try:
        reader = csv.open_csv(
            stream,
            read_options=csv.ReadOptions(use_threads=False, block_size=block),
            parse_options=csv.ParseOptions(delimiter=delimiter, invalid_row_handler=handler),
            convert_options=csv.ConvertOptions(
                include_columns=names[:1], column_types={names[0]: pa.string()}
            ),
        )
        while not bad:
            reader.read_next_batch()
    except (StopIteration, pa.ArrowException, OSError):
        pass
    finally:
        handle.close()
    if bad and bad[0].number is not None and bad[0].number > 0:
        row = bad[0]
        line = _io._nonblank_line(path, row.number - 1) or row.number
        return InputError(
            message(
                f"{path}, line {line}",
                "row has the wrong number of fields",
                raw(f"{row.actual_columns} fields: {row.text!r}"),
                f"{row.expected_columns} fields as in the header",
            )
        )
    return _io._pyarrow_error(path, "TSV" if delimiter == "\t" else "CSV", exc)


# JSON Lines ---------------------------------------------------------------------------


def _json_first_block(path: Path, block: int) -> dict[str, Any]:
    """The column types pyarrow infers from the first block of a JSON Lines file."""
    import pyarrow as pa
    from pyarrow import json as pajson

    if not _head(path).strip():
        raise _empty(path, "one JSON object per line")
    handle, stream = _open(path)
    try:
        reader = pajson.open_json(stream, read_options=pajson.ReadOptions(block_size=block))
        return {f.name: f.type for f in reader.schema}
    except (pa.ArrowException, OSError) as exc:
        if _straddles(exc) and block < (1 << 31):
            return _json_first_block(path, block * 4)
        raise _io._json_error(path, exc) from None
    finally:
        handle.close()


def _jsonl(
    path: Path, wanted: list[str], chunk_size: int, types: dict[str, Any]
) -> Iterator[tuple[Any, int]]:
    import pyarrow as pa
    from pyarrow import json as pajson

    if not hasattr(pajson, "open_json"):  # pragma: no cover - pyarrow < 19 reads it whole
        table = _io.read_table(path, columns=wanted)
        yield table, path.stat().st_size
        return
    block = _block_size(_head(path), chunk_size)
    first = _json_first_block(path, block)
    _io._check_columns(path, list(first), wanted)
    for column in wanted:
        types.setdefault(column, first[column])
    done = 0
    while True:
        schema = pa.schema([(c, types[c]) for c in wanted])
        handle, stream = _open(path)
        try:
            reader = pajson.open_json(
                stream,
                read_options=pajson.ReadOptions(block_size=block),
                parse_options=pajson.ParseOptions(
                    explicit_schema=schema, unexpected_field_behavior="ignore"
                ),
            )
            seen = 0
            while True:
                try:
                    batch = reader.read_next_batch()
                except StopIteration:
                    return
                part = _skip(batch, seen, done)
                seen += batch.num_rows
                if part is not None:
                    done = seen
                    yield part, handle.tell()
        except (pa.ArrowException, OSError) as exc:
            if _straddles(exc) and block < (1 << 31):
                block *= 4
                continue
            scanned = _json_types(path, wanted)
            changed = {c: t for c, t in (scanned or {}).items() if t != types.get(c)}
            if changed:
                column, kind = next(iter(changed.items()))
                types.update(changed)
                raise Widen(path, column, kind) from None
            raise _io._json_error(path, exc) from None
        finally:
            handle.close()


def _json_kind(value: Any) -> Any:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        inner: Any = "null"
        for item in value:
            inner = _json_union(inner, _json_kind(item))
            if inner is None:
                return None
        return ("list", inner)
    return None


def _json_union(a: Any, b: Any) -> Any:
    if a is None or b is None:
        return None
    if a == "null":
        return b
    if b == "null" or a == b:
        return a
    if {a, b} == {"int", "float"}:
        return "float"
    if isinstance(a, tuple) and isinstance(b, tuple):
        inner = _json_union(a[1], b[1])
        return None if inner is None else ("list", inner)
    return None


def _json_arrow(kind: Any) -> Any:
    import pyarrow as pa

    if isinstance(kind, tuple):
        return pa.list_(_json_arrow(kind[1]))
    simple = {
        "null": pa.null(),
        "bool": pa.bool_(),
        "int": pa.int64(),
        "float": pa.float64(),
        "string": pa.string(),
    }
    return simple[kind]


def _json_types(path: Path, wanted: list[str]) -> dict[str, Any] | None:
    """The types of the wanted columns over the whole file, or None if values clash.

    Runs only when the types of the first block do not hold a later value.
    """
    kinds: dict[str, Any] = dict.fromkeys(wanted, "null")
    try:
        with _io._open_text(path) as handle:
            for line in handle:
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    return None
                if not isinstance(record, dict):
                    return None
                for column in wanted:
                    kinds[column] = _json_union(kinds[column], _json_kind(record.get(column)))
                    if kinds[column] is None:
                        return None
    except OSError:
        return None
    return {c: _json_arrow(k) for c, k in kinds.items()}


# TREC runs ----------------------------------------------------------------------------


def _trec(path: Path, chunk_size: int) -> Iterator[tuple[Any, int]]:
    import numpy as np
    import pyarrow as pa
    from pyarrow import csv

    from scorekit.ranking._trec import _RUN_FIELDS, _has_empty, read_run_file

    head = _head(path)
    if not head.strip():
        raise _empty(path, "lines of run")
    first = head.removeprefix(_BOM).split(b"\n", 1)[0]
    delimiter = "\t" if b"\t" in first else " "
    block = _block_size(head, chunk_size)
    types = {"query": pa.string(), "doc": pa.string(), "score": pa.float64()}
    done = 0
    fast = True
    while fast:
        handle, stream = _open(path)
        try:
            reader = csv.open_csv(
                stream,
                read_options=csv.ReadOptions(column_names=list(_RUN_FIELDS), block_size=block),
                parse_options=csv.ParseOptions(delimiter=delimiter, quote_char=False),
                convert_options=csv.ConvertOptions(
                    column_types=types,
                    include_columns=["query", "doc", "score"],
                    null_values=[],
                    strings_can_be_null=False,
                    quoted_strings_can_be_null=False,
                ),
            )
            seen = 0
            while True:
                try:
                    batch = reader.read_next_batch()
                except StopIteration:
                    return
                table = pa.Table.from_batches([batch])
                score = np.asarray(table.column("score").to_numpy(), dtype=np.float64)
                if (
                    _has_empty(table.column("query"))
                    or _has_empty(table.column("doc"))
                    or not np.isfinite(score).all()
                ):
                    fast = False
                    break
                part = _skip(table, seen, done)
                seen += table.num_rows
                if part is not None:
                    done = seen
                    yield part, handle.tell()
        except (pa.ArrowException, OSError) as exc:
            if _straddles(exc) and block < (1 << 31):
                block *= 4
                continue
            fast = False
        finally:
            handle.close()
    columns = read_run_file(path)
    table = pa.table({"query": columns.query, "doc": columns.doc, "score": columns.values})
    yield table.slice(done), path.stat().st_size
