"""Reading TREC run and qrels files with pyarrow, with errors that name the file and line.

A run line is ``qid iter docid rank score tag`` and a qrels line is ``qid iter docid
relevance``; fields are separated by any run of spaces or tabs. As trec_eval does,
anything after the sixth field of a run line is ignored, the ``iter`` and ``rank``
fields are ignored, and blank lines are skipped. Files may be gzip-compressed
(``.gz``), use Windows line endings and start with a UTF-8 byte-order mark.

Two paths read the same files to the same columns: a fast one for files whose
fields are separated by one space or one tab throughout (pyarrow's CSV parser, in
parallel), and a general one that splits each line on whitespace. The general path
runs whenever the fast one cannot parse a file, and it alone reports errors, so an
error always names the first offending line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit import io
from scorekit.errors import InputError, message, raw

__all__ = ["Columns", "line_of", "read_qrels_file", "read_run_file", "read_run_tag"]

_RUN_FIELDS = ("query", "iter", "doc", "rank", "score", "tag")
_QRELS_FIELDS = ("query", "iter", "doc", "relevance")


@dataclass(frozen=True)
class Columns:
    """The columns read from a TREC file: query and doc ids (pyarrow strings) and values.

    ``path`` is kept so that later errors (a duplicate document, say) can name
    the line of a row with :func:`line_of`.
    """

    query: Any
    doc: Any
    values: NDArray[np.float64]
    path: Path


def line_of(path: Path, row: int) -> int:
    """The 1-based line number of data row ``row`` (blank lines are not rows)."""

    return io.nonblank_line(path, row) or row + 1


def _check_path(path: Path) -> None:
    path = Path(io.local_path(path))
    if not path.exists():
        raise InputError(message(str(path), "no such file", None, "an existing file"))
    if path.is_dir():
        raise InputError(message(str(path), "is a directory", None, "a file"))


def _empty(path: Path, what: str) -> InputError:
    return InputError(message(str(path), "file is empty", None, f"lines of {what}"))


def _fast(path: Path, names: tuple[str, ...], value: str) -> Any | None:
    """Parse with one delimiter throughout, or return None when the file needs the general path."""
    import pyarrow as pa
    from pyarrow import csv

    with _open(path) as handle:
        head = handle.read(4096)
    first = head.lstrip(b"\xef\xbb\xbf").split(b"\n", 1)[0]
    delimiter = "\t" if b"\t" in first else " "
    # ids are read as bytes and checked as UTF-8 once, whole (see ``_text``)
    types = {"query": pa.binary(), "doc": pa.binary(), value: pa.float64()}
    try:
        table = csv.read_csv(
            path,
            read_options=csv.ReadOptions(column_names=list(names)),
            parse_options=csv.ParseOptions(delimiter=delimiter, quote_char=False),
            convert_options=csv.ConvertOptions(
                column_types=types,
                include_columns=["query", "doc", value],
                null_values=[],
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if table.num_rows == 0:
        return None
    for name in ("query", "doc"):
        column = table.column(name)
        if column.null_count or _has_empty(column):
            return None
    return table


def _text(column: Any) -> Any | None:
    """A combined binary column as a string array, or None if it is not valid UTF-8.

    Bytes below 128 are valid UTF-8 whatever their order, so a column of ASCII
    ids (the usual case) is relabelled without copying and without checking
    each string; other columns are checked by pyarrow's cast.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(column)
    offsets = np.frombuffer(
        column.buffers()[1], dtype=np.int32, count=n + 1, offset=4 * column.offset
    )
    first, last = int(offsets[0]), int(offsets[-1])
    data = column.buffers()[2]
    if data is None or last == first:
        return pa.array([""] * n, pa.string()) if n else pa.array([], pa.string())
    raw_bytes = np.frombuffer(data, dtype=np.uint8, count=last - first, offset=first)
    whole = (last - first) // 8
    high = np.bitwise_or.reduce(raw_bytes[: 8 * whole].view(np.uint64)) if whole else 0
    tail = np.bitwise_or.reduce(raw_bytes[8 * whole :]) if last - first > 8 * whole else 0
    if not (int(high) & 0x8080808080808080 or int(tail) & 0x80):
        return pa.Array.from_buffers(pa.string(), n, column.buffers(), offset=column.offset)
    try:
        return pc.cast(column, pa.string())
    except pa.ArrowInvalid:
        return None


def _has_empty(column: Any) -> bool:
    """Whether any string of a chunked string column is empty (read from the offsets)."""
    for chunk in column.chunks:
        n = len(chunk)
        if n == 0:
            continue
        offsets = np.frombuffer(
            chunk.buffers()[1], dtype=np.int32, count=n + 1, offset=4 * chunk.offset
        )
        if (offsets[1:] == offsets[:-1]).any():
            return True
    return False


def _open(path: Path) -> Any:
    import gzip

    path = Path(io.local_path(path))
    if path.name.lower().endswith(".gz"):
        return gzip.open(path, "rb")
    return path.open("rb")


def _lines(path: Path) -> Any:
    """The non-blank lines of a file as a pyarrow string array, one per data row."""
    import pyarrow as pa
    import pyarrow.compute as pc
    from pyarrow import csv

    try:
        table = csv.read_csv(
            path,
            read_options=csv.ReadOptions(column_names=["line"]),
            parse_options=csv.ParseOptions(delimiter="\x01", quote_char=False),
            convert_options=csv.ConvertOptions(column_types={"line": pa.string()}),
        )
    except (pa.ArrowException, OSError) as exc:
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if "Empty CSV file" in text:
            return pa.array([], pa.string())
        if "UTF8" in text or "utf8" in text or "UTF-8" in text:
            raise InputError(
                message(str(path), "not valid UTF-8 text", raw(text), "a UTF-8 text file")
            ) from None
        raise InputError(message(str(path), "cannot read", raw(text), "a text file")) from None
    lines = table.column("line").combine_chunks()
    blank = pc.equal(pc.utf8_length(pc.utf8_trim_whitespace(lines)), 0)
    return lines.filter(pc.invert(blank))


def _general(path: Path, names: tuple[str, ...], what: str) -> tuple[Any, Any, Any]:
    """Split every line on whitespace; return the query, doc and value fields as strings."""
    import pyarrow as pa
    import pyarrow.compute as pc

    lines = _lines(path)
    if len(lines) == 0:
        raise _empty(path, what)
    parts = pc.ascii_split_whitespace(pc.ascii_trim_whitespace(lines))
    counts = np.asarray(pc.list_value_length(parts).to_numpy(zero_copy_only=False))
    need = len(names)
    exact = what == "qrels"
    bad = (counts != need) if exact else (counts < need)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        rule = f"{need} fields" if exact else f"at least {need} fields"
        raise InputError(
            message(
                f"{path}, line {line_of(path, row)}",
                f"malformed {what} line",
                raw(f"{counts[row]} fields: {lines[row].as_py()!r}"),
                f"{rule}: {' '.join(names)}",
            )
        )
    flat = parts.values
    starts = np.asarray(parts.offsets.to_numpy()[:-1], dtype=np.int64)
    value_at = names.index("score" if "score" in names else "relevance")
    return (
        flat.take(pa.array(starts)),
        flat.take(pa.array(starts + 2)),
        flat.take(pa.array(starts + value_at)),
    )


_NUMBER = r"^[-+]?((\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)$"


def _numbers(path: Path, text: Any, field: str) -> NDArray[np.float64]:
    """Parse a string column as finite numbers, naming the line of the first bad one.

    The strings are converted as the fast path's CSV parser converts them; only
    when that fails is each one matched against a number pattern, to find it.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        values = np.asarray(pc.cast(text, pa.float64()).to_numpy(), dtype=np.float64)
    except pa.ArrowInvalid as exc:
        ok = np.asarray(pc.match_substring_regex(text, _NUMBER).to_numpy(zero_copy_only=False))
        where, got = str(path), raw(str(exc).strip().splitlines()[0])
        if not ok.all():
            row = int(np.flatnonzero(~ok)[0])
            where, got = f"{path}, line {line_of(path, row)}", text[row].as_py()
        raise InputError(
            message(where, f"{field} is not a finite number", got, "a number such as 1 or 0.25")
        ) from None
    return _finite(path, values, field)


def _finite(path: Path, values: NDArray[np.float64], field: str) -> NDArray[np.float64]:
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(
            message(
                f"{path}, line {line_of(path, row)}",
                f"{field} is not a finite number",
                raw(str(values[row])),
                "a finite number",
            )
        )
    return values


def _read(path: str | Path, names: tuple[str, ...], value: str, what: str) -> Columns:
    path = Path(io.local_path(path))
    _check_path(path)
    table = _fast(path, names, value)
    if table is not None:
        query = _text(table.column("query").combine_chunks())
        doc = _text(table.column("doc").combine_chunks())
        if query is not None and doc is not None:
            values = np.asarray(table.column(value).to_numpy(), dtype=np.float64)
            return Columns(query, doc, _finite(path, values, value), path)
    query, doc, text = _general(path, names, what)
    return Columns(query, doc, _numbers(path, text, value), path)


def read_run_file(path: str | Path) -> Columns:
    """Read a TREC run file: ``qid iter docid rank score tag [anything]`` per line.

    The columns as read (``query`` and ``doc`` as pyarrow string arrays,
    ``values`` the scores), for building a table; :func:`read_run` builds a
    checked :class:`Run` from them.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("q1 Q0 d1 1 2.5 bm25\\nq1\\tQ0\\td2\\t2\\t  1.5\\tbm25 extra\\n")
    >>> columns = read_run_file(path)
    >>> columns.doc.to_pylist(), columns.values.tolist()
    (['d1', 'd2'], [2.5, 1.5])
    """
    return _read(path, _RUN_FIELDS, "score", "run")


def read_qrels_file(path: str | Path) -> Columns:
    """Read a TREC qrels file: ``qid iter docid relevance`` per line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels.txt"
    >>> _ = path.write_text("q1 0 d1 2\\nq1 0 d7 0\\n")
    >>> read_qrels_file(path).values.tolist()
    [2.0, 0.0]
    """
    return _read(path, _QRELS_FIELDS, "relevance", "qrels")


def read_run_tag(path: str | Path) -> str:
    """The tag of a TREC run file: the sixth field of its first line (trec_eval's ``runid``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("\\nq1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 1.5 bm25\\n")
    >>> read_run_tag(path)
    'bm25'
    """
    path = Path(path)
    _check_path(path)
    text = io.head(path).removeprefix(io.BOM).decode("utf-8", errors="replace")
    for line in text.splitlines():
        fields = line.split()
        if fields:
            if len(fields) < len(_RUN_FIELDS):
                raise InputError(
                    message(
                        f"{path}, line 1",
                        "malformed run line",
                        raw(f"{len(fields)} fields: {line!r}"),
                        f"at least {len(_RUN_FIELDS)} fields: {' '.join(_RUN_FIELDS)}",
                    )
                )
            return fields[5]
    raise _empty(path, "run")
