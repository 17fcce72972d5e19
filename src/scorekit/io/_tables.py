"""Reading tables of labels and scores from files, with errors that point at the cell.

:func:`read_table` picks a pyarrow reader by file extension (CSV, TSV, Parquet,
JSON Lines, optionally gzip-compressed); :mod:`._columns` turns table columns
into the numpy arrays metrics take. Every problem is an
:class:`~scorekit.errors.InputError` naming the file and, for content problems,
the line (CSV, JSON Lines) or row (Parquet) and the column.

pyarrow is imported inside the functions, so importing this module costs nothing
until a file is read.
"""

from __future__ import annotations

import contextlib
import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scorekit.errors import InputError, choices, message, raw
from scorekit.io._blocks import open_file, open_text
from scorekit.io._json import long_number_error
from scorekit.io._remote import local_path
from scorekit.io._scan import (
    DepthGuard,
    LineCount,
    check_rows,
    check_values,
    deep_line_error,
    unclosed_quote,
)

__all__ = ["SUPPORTED_EXTENSIONS", "nonblank_line", "read_table"]

SUPPORTED_EXTENSIONS: tuple[str, ...] = (
    ".csv",
    ".tsv",
    ".parquet",
    ".pq",
    ".jsonl",
    ".ndjson",
    ".csv.gz",
    ".tsv.gz",
    ".jsonl.gz",
    ".ndjson.gz",
)
"""File name endings of the built-in table formats."""

SOURCE_KEY = b"scorekit.source"
"""The schema metadata key of a table's source (a file name), for errors."""
FORMAT_KEY = b"scorekit.format"
"""The schema metadata key of a table's file format, for errors naming lines."""
OFFSET_KEY = b"scorekit.offset"
"""The schema metadata key of the position of a table's first row in its source."""


# a table this large (a whole file, say) leaves about as much again in decoding
# buffers that pyarrow's allocator keeps after reading
_RELEASE_FROM = 1 << 26


def release_read_buffers(table: Any = None) -> bool:
    """Hand the buffers pyarrow freed while reading a large table back to the system.

    Call it with a table just read, before working on it: for a table of at least
    64 MiB the allocator's unused memory is released (the peak memory of a whole-file
    evaluation drops by about the table's size); smaller tables cost nothing.
    Without a table the unused memory is released in any case. Says whether it
    released.

    Examples
    --------
    >>> import pyarrow as pa
    >>> release_read_buffers(pa.table({"y": [1, 0]}))
    False
    """
    if table is not None and table.nbytes < _RELEASE_FROM:
        return False
    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    return True


def table_format_of(path: Path) -> str:
    """The table format (CSV, TSV, Parquet, JSON Lines) that reads ``path``, from its name."""
    from scorekit.io._formats import format_named, format_of

    try:
        name = format_of(path)
    except InputError:
        name = None
    if name is None or format_named(name).read is None:
        raise InputError(
            message(
                str(path),
                "unknown file type",
                raw(f"extension {''.join(path.suffixes) or '(none)'!r}"),
                choices(SUPPORTED_EXTENSIONS),
            )
        )
    return name


def _read_whole(path: Path, name: str, wanted: list[str] | None) -> Any:
    """A whole file of format ``name``: its own reader, or its batches joined."""
    import pyarrow as pa

    from scorekit.io._formats import format_named

    fmt = format_named(name)
    if fmt.read is not None:
        return fmt.read(path, wanted)
    columns = fmt.columns(path) if wanted is None else wanted
    parts = [
        pa.Table.from_batches([b]) if isinstance(b, pa.RecordBatch) else b
        for b, _ in fmt.batches(path, list(columns), 1 << 16, {})
    ]
    if not parts:
        return pa.table({c: pa.array([], pa.null()) for c in columns})
    return pa.concat_tables(parts)


def read_table(path: str | Path, columns: Sequence[str] | None = None) -> Any:
    """Read a table file with pyarrow, choosing the reader by extension.

    Parameters
    ----------
    path : str or Path
        A ``.csv``, ``.tsv``, ``.parquet``/``.pq`` or ``.jsonl``/``.ndjson``
        file; CSV, TSV and JSON Lines may be gzip-compressed (``.gz``).
    columns : sequence of str, optional
        Read only these columns, in this order. A missing column is an error
        that lists the columns present and the close matches.

    Returns
    -------
    pyarrow.Table
        The table; its schema metadata records the file, so the column helpers
        of this module can name the line or row of a bad cell.

    Raises
    ------
    InputError
        Missing file, unknown extension, a missing or duplicated column, a
        ragged CSV row (with its line number) or unreadable content.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "preds.csv"
    >>> _ = path.write_text("label,score\\n1,0.9\\n0,0.2\\n")
    >>> table = read_table(path, columns=["score"])
    >>> table.column_names, table.num_rows
    (['score'], 2)
    """
    path = Path(local_path(path))
    fmt = table_format_of(path)
    if not path.exists():
        raise InputError(message(str(path), "no such file", None, "an existing file"))
    if path.is_dir():
        raise InputError(message(str(path), "is a directory", None, "a file"))
    wanted = None if columns is None else list(dict.fromkeys(columns))
    table = _read_whole(path, fmt, wanted)
    if wanted is not None:
        table = table.select(wanted)
    meta = {SOURCE_KEY: str(path).encode(), FORMAT_KEY: fmt.encode()}
    return table.replace_schema_metadata(meta)


def check_columns(path: Path, present: list[str], wanted: list[str] | None) -> None:
    """Raise InputError naming the file when a wanted column is missing or a name is repeated."""
    names = set(present)
    dupes = sorted({c for c in present if present.count(c) > 1})
    for col in wanted if wanted is not None else []:
        if col not in names:
            close = difflib.get_close_matches(col, present, n=3, cutoff=0.6)
            hint = f" (close: {', '.join(repr(c) for c in close)})" if close else ""
            raise InputError(
                message(
                    str(path),
                    "no such column",
                    col,
                    f"one of the columns present: {', '.join(repr(c) for c in present)}{hint}",
                )
            )
        if col in dupes:
            raise InputError(
                message(str(path), "column name appears more than once", col, "unique names")
            )


def pyarrow_error(path: Path, kind: str, exc: Exception) -> InputError:
    """The InputError of a file pyarrow cannot read as ``kind``, with pyarrow's first line."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return InputError(
        message(str(path), f"cannot read as {kind}", raw(text), f"a valid {kind} file")
    )


def read_csv(path: Path, delimiter: str, wanted: list[str] | None) -> Any:
    import pyarrow as pa
    from pyarrow import csv

    kind = "TSV" if delimiter == "\t" else "CSV"
    parse = csv.ParseOptions(delimiter=delimiter)
    count = LineCount(path)
    try:
        if wanted is not None:
            reader = csv.open_csv(path, parse_options=parse)
            present = list(reader.schema.names)
            reader.close()
            check_columns(path, present, wanted)
        convert = csv.ConvertOptions(
            include_columns=wanted, strings_can_be_null=True, null_values=[""]
        )
        handle, stream = open_file(path)
        try:
            table = csv.read_csv(
                count.wrap(stream),
                parse_options=parse,
                convert_options=convert,
            )
        finally:
            count.release()
            handle.close()
    except (pa.ArrowException, OSError) as exc:
        count.check()
        if "Empty CSV file" in str(exc):
            raise InputError(
                message(str(path), "file is empty", None, "a header line and data rows")
            ) from None
        if "CSV parse error" in str(exc):
            raise _ragged_row(path, delimiter, exc) from None
        raise pyarrow_error(path, kind, exc) from None
    count.check()
    check_rows(path, delimiter, table.num_rows, count)
    check_values(path, delimiter, table)
    return table


def _ragged_row(path: Path, delimiter: str, exc: Exception) -> InputError:
    """Re-parse single-threaded to learn the line number of the first bad row."""
    import pyarrow as pa
    from pyarrow import csv

    bad: list[Any] = []

    def handler(row: Any) -> str:
        bad.append(row)
        return "error"

    parse = csv.ParseOptions(delimiter=delimiter, invalid_row_handler=handler)
    with contextlib.suppress(pa.ArrowException, OSError):
        csv.read_csv(path, read_options=csv.ReadOptions(use_threads=False), parse_options=parse)
    error = bad_row_error(path, bad, delimiter)
    if error is not None:
        return error
    return pyarrow_error(path, "CSV", exc)


def bad_row_error(path: Path, bad: list[Any], delimiter: str = ",") -> InputError | None:
    """The error naming the line of the first row pyarrow found with the wrong field count.

    A row that spans lines holds a quote never closed: the error names where it opens.
    """
    if not (bad and bad[0].number is not None and bad[0].number > 0):
        return None
    row = bad[0]
    if "\n" in row.text or "\r" in row.text:
        quote = unclosed_quote(path, delimiter)
        if quote is not None:
            return quote
    line = nonblank_line(path, row.number - 1, spaces=False) or row.number
    return InputError(
        message(
            f"{path}, line {line}",
            "row has the wrong number of fields",
            raw(f"{row.actual_columns} fields: {row.text!r}"),
            f"{row.expected_columns} fields as in the header",
        )
    )


def read_parquet(path: Path, wanted: list[str] | None) -> Any:
    import pyarrow as pa
    from pyarrow import parquet

    try:
        present = list(parquet.read_schema(path).names)
        check_columns(path, present, wanted)
        return parquet.read_table(path, columns=wanted)
    except (pa.ArrowException, OSError) as exc:
        raise pyarrow_error(path, "Parquet", exc) from None


def read_jsonl(path: Path, wanted: list[str] | None) -> Any:
    import pyarrow as pa
    from pyarrow import json

    handle, stream = open_file(path)
    guard = DepthGuard(path)
    try:
        table = json.read_json(guard.wrap(stream))
    except (pa.ArrowException, OSError) as exc:
        raise json_error(path, exc) from None
    finally:
        guard.release()
        handle.close()
    check_columns(path, list(table.column_names), wanted)
    return table


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "list" if isinstance(value, list) else "object"


def json_error(path: Path, exc: Exception) -> InputError:
    """Find the first line that breaks JSON Lines (only runs once reading has failed)."""
    import json

    kinds: dict[str, str] = {}
    try:
        with open_text(path) as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as err:
                    return InputError(
                        message(
                            f"{path}, line {number}",
                            "invalid JSON",
                            raw(f"{err.msg} at column {err.colno}"),
                            "one JSON object per line",
                        )
                    )
                except RecursionError:
                    return deep_line_error(path, number, line)
                except ValueError as err:
                    return long_number_error(f"{path}, line {number}", line, err)
                if not isinstance(record, dict):
                    return InputError(
                        message(
                            f"{path}, line {number}",
                            "line is not a JSON object",
                            raw(_json_kind(record)),
                            "one JSON object per line",
                        )
                    )
                for key, value in record.items():
                    kind = _json_kind(value)
                    if kind == "null":
                        continue
                    first = kinds.setdefault(key, kind)
                    if first != kind:
                        return InputError(
                            message(
                                f"{path}, line {number}, column {key!r}",
                                f"value is a {kind} where earlier lines have a {first}",
                                value,
                                f"a {first}",
                            )
                        )
    except OSError:
        pass
    return pyarrow_error(path, "JSON Lines", exc)


def nonblank_line(path: Path, index: int, *, spaces: bool = True) -> int | None:
    """Line number of the 0-based ``index``-th non-blank line (one record per line).

    A line of spaces is blank unless ``spaces`` is False (CSV reads it as a row).
    """
    seen = -1
    try:
        with open_text(path) as handle:
            for number, line in enumerate(handle, start=1):
                if line.strip() if spaces else line.rstrip("\r\n"):
                    seen += 1
                    if seen == index:
                        return number
    except OSError:
        return None
    return None
