"""Reading CSV, TSV and TREC run files in batches with pyarrow's streaming CSV reader.

CSV and TSV are read with the options of :func:`scorekit.io._tables.read_table` (an
empty cell is missing; types inferred). The streaming reader fixes each column's
type from the first block; a later value that does not fit moves the column to
the first later type of pyarrow's order of inference that holds it (``int64``,
``bool``, dates and times, ``double``, ``string``) and raises
:class:`~scorekit.io._blocks.Widen`, so the engine reads the input again
with the type reading the whole file would have given.

TREC runs are read as space- or tab-separated fields when every line has one
delimiter between fields; any other file (runs of spaces, extra fields, a bad
line) is read whole by :func:`scorekit.ranking.read_run`, whose errors name the
line.
"""

from __future__ import annotations

import csv as pycsv
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scorekit.errors import InputError
from scorekit.io import _tables as _io
from scorekit.io._blocks import (
    BOM,
    Widen,
    block_size,
    empty,
    head,
    open_file,
    read_batches,
)
from scorekit.io._scan import LineCount, check_rows, check_values, unclosed_quote

__all__ = ["csv_batches", "header"]


def header(path: Path, sample: bytes, delimiter: str) -> list[str]:
    """The column names on the first line of ``sample``, the start of the file.

    Examples
    --------
    >>> from pathlib import Path
    >>> header(Path("a.csv"), b'label,"score, final"\\n1,0.5\\n', ",")
    ['label', 'score, final']
    """
    text = sample.removeprefix(BOM).decode("utf-8", errors="replace")
    if not text.strip():
        raise empty(path, "a header line and data rows")
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


# pyarrow's message names the row too in some reads ("Row #N: "), as it does in a process
# that has run a Dask cluster
_CONVERSION = re.compile(
    r"In CSV column #(\d+): (?:Row #\d+: )?CSV conversion error to (.+?): invalid value '(.*)'"
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


def csv_batches(
    path: Path, fmt: str, wanted: list[str], chunk_size: int, types: dict[str, Any]
) -> Iterator[tuple[Any, int]]:
    from pyarrow import csv

    delimiter = "\t" if fmt == "tsv" else ","
    sample = head(path)
    names = header(path, sample, delimiter)
    _io.check_columns(path, names, wanted)
    block = block_size(sample, chunk_size)

    counts: list[LineCount] = []

    def open_reader(stream: Any, block: int) -> Any:
        read, parse, convert = _csv_options(delimiter, wanted, types, block)
        counts.append(LineCount(path))
        reader = csv.open_csv(
            counts[-1].wrap(stream),
            read_options=read,
            parse_options=parse,
            convert_options=convert,
        )
        for f in reader.schema:
            types.setdefault(f.name, f.type)
        return reader

    def failure(exc: Exception, block: int) -> Exception:
        if counts:
            counts[-1].check()
        return _csv_error(path, fmt, names, types, block, exc)

    def finish(rows: int) -> None:
        counts[-1].check()
        check_rows(path, delimiter, rows, counts[-1])

    batches = read_batches(path, block, open_reader, failure, finish)
    try:
        for batch, done in batches:
            counts[-1].check()
            check_values(path, delimiter, batch)
            yield batch, done
    finally:
        # a bad value found here leaves the reader suspended: it stops reading ahead and
        # closes its file now, not when the error's traceback is collected
        for count in counts:
            count.stop()
        batches.close()
        for count in counts:
            count.release()


def _csv_error(
    path: Path, fmt: str, names: list[str], types: dict[str, Any], block: int, exc: Exception
) -> Exception:
    text = str(exc)
    if "Empty CSV file" in text:
        return empty(path, "a header line and data rows")
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
    if "out of sync" in text:
        quote = unclosed_quote(path, "\t" if fmt == "tsv" else ",")
        if quote is not None:
            return quote
    return _io.pyarrow_error(path, fmt.upper(), exc)


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

    handle, stream = open_file(path)
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
    error = _io.bad_row_error(path, bad, delimiter)
    if error is not None:
        return error
    return _io.pyarrow_error(path, "TSV" if delimiter == "\t" else "CSV", exc)
