"""Request records: the input of the serving metrics, from Python objects, tables or files.

One record per request, with the columns (or keys) of :data:`COLUMNS`:

- ``prompt_tokens``, ``output_tokens``: whole numbers >= 0 (numbers, not text:
  ``"3"`` in a list, a dict or a JSON Lines file is an error naming the record);
- ``start``, ``end``: seconds on any common clock (or Arrow / pandas timestamps,
  taken as seconds since the epoch);
- ``first_token`` (optional): the arrival time of the first output token, or null;
- ``token_times`` (optional): the arrival time of every streamed output chunk
  (absolute, same clock), a list per record; in CSV a JSON list in a cell;
- ``success`` (optional): false for a failed request; null or absent means true,
  unless ``error`` holds a non-empty reason; true together with a non-empty
  ``error`` contradicts itself and is an error naming the record;
- ``error`` (optional): the reason a request failed;
- ``record`` and ``warmup`` (optional, :data:`MARKS`): a record whose ``record`` is
  ``"metadata"`` (the description of a load test's run, see :func:`read_metadata`) or
  whose ``warmup`` is true (a warm-up request) is left out of every figure.

Other columns (``id``, ``model``, ...) are ignored. Every input becomes Arrow
arrays first (pyarrow converts Python lists in C), then numpy arrays checked in
one vectorised pass; only JSON list strings in CSV cells are parsed one by one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit import io
from scorekit.errors import InputError, message, raw
from scorekit.io import SUPPORTED_EXTENSIONS, read_table
from scorekit.throughput._input import (
    COLUMNS,
    MARKS,
    OPTIONAL,
    REQUIRED,
    Request,
    Source,
    columns,
    parse_json_lists,
)

__all__ = [
    "COLUMNS",
    "MARKS",
    "OPTIONAL",
    "REQUIRED",
    "Records",
    "Request",
    "as_records",
    "input_records",
    "read_metadata",
    "read_records",
]

_NUMBER = re.compile(r"^\s*[-+]?((\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|inf|infinity|nan)\s*$", re.I)
_TRUE = ("true", "1")
_FALSE = ("false", "0")


@dataclass(frozen=True)
class Records:
    """Checked request records as numpy columns (the internal form every metric reads).

    ``first`` is nan where the first-token time is unknown and for failed
    requests; it falls back to the first entry of ``token_times``. ``gaps`` are
    the differences between consecutive chunk times of successful requests,
    ``chunks`` the number of chunk times per request (0 for failed ones) and
    ``max_gap`` each request's largest gap (nan with fewer than two chunk times).
    ``rows`` is the input row of each record when some rows were set aside
    (:data:`MARKS`), else None (record i is row i), and ``input_rows`` the
    number of input rows, those set aside included (None: ``n``).
    """

    prompt: NDArray[np.int64]
    output: NDArray[np.int64]
    start: NDArray[np.float64]
    end: NDArray[np.float64]
    first: NDArray[np.float64]
    success: NDArray[np.bool_]
    error: NDArray[Any]
    gaps: NDArray[np.float64]
    chunks: NDArray[np.int64]
    max_gap: NDArray[np.float64]
    has_token_times: bool
    rows: NDArray[np.intp] | None = None
    input_rows: int | None = None

    @property
    def n(self) -> int:
        """The number of requests."""
        return len(self.start)

    @staticmethod
    def empty() -> Records:
        """No requests."""
        f, i = np.empty(0, dtype=np.float64), np.empty(0, dtype=np.int64)
        return Records(
            prompt=i,
            output=i,
            start=f,
            end=f,
            first=f,
            success=np.empty(0, dtype=bool),
            error=np.empty(0, dtype=object),
            gaps=f,
            chunks=i,
            max_gap=f,
            has_token_times=False,
        )


# Arrow arrays -> checked numpy arrays ------------------------------------------------


def _num(value: Any) -> str:
    return repr(float(value))


def _first(mask: NDArray[np.bool_]) -> int:
    return int(np.flatnonzero(mask)[0])


def _numbers(metric: str, name: str, arr: Any, source: Source) -> NDArray[np.float64]:
    """A numeric (or numeric text) column as float64, null -> nan; timestamps -> epoch seconds."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = arr.type
    if pa.types.is_null(kind):
        return np.full(len(arr), np.nan)
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        ok = pc.fill_null(pc.match_substring_regex(arr, _NUMBER.pattern, ignore_case=True), True)
        bad = ~np.asarray(ok.to_numpy(zero_copy_only=False), dtype=bool)
        if bad.any():
            row = _first(bad)
            raise InputError(
                message(
                    metric,
                    f"{name} is not a number at {source.where(row, name)}",
                    arr[row].as_py(),
                    "a number",
                )
            )
        arr = pc.cast(arr, pa.float64())
        kind = arr.type
    if pa.types.is_timestamp(kind):
        unit = {"s": 1.0, "ms": 1e3, "us": 1e6, "ns": 1e9}[kind.unit]
        ticks = np.asarray(arr.cast(pa.int64()).cast(pa.float64()).to_numpy(zero_copy_only=False))
        return np.asarray(ticks / unit, dtype=np.float64)
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        return np.asarray(arr.cast(pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)
    raise InputError(
        message(
            metric,
            f"column {name!r} of {source.name} must be numeric",
            raw(str(kind)),
            "numbers (seconds or token counts)",
        )
    )


def _finite(
    metric: str, name: str, values: NDArray[np.float64], source: Source, required: bool
) -> None:
    bad = np.isinf(values) | (np.isnan(values) if required else False)
    if bad.any():
        row = _first(bad)
        problem = "missing value" if np.isnan(values[row]) else "value is not finite"
        raise InputError(
            message(
                metric,
                f"{problem} at {source.where(row, name)}",
                raw(str(values[row]) if not np.isnan(values[row]) else "null"),
                "a finite number",
            )
        )


def _counts(
    metric: str, name: str, arr: Any, source: Source, success: NDArray[np.bool_]
) -> NDArray[np.int64]:
    import pyarrow as pa

    if not source.text_cells and (
        pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)
    ):
        text = np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        if text.any():
            row = _first(text)
            raise InputError(
                message(
                    metric,
                    f"{name} is text, not a number, at {source.where(row, name)}",
                    arr[row].as_py(),
                    "a whole number (a token count), not a string",
                )
            )
    values = _numbers(metric, name, arr, source)
    _finite(metric, name, values, source, required=False)
    _finite(metric, name, np.where(success, values, 0.0), source, required=True)
    values = np.where(np.isnan(values), 0.0, values)
    fractional = values != np.floor(values)
    if fractional.any():
        row = _first(fractional)
        raise InputError(
            message(
                metric,
                f"{name} is not a whole number at {source.where(row, name)}",
                raw(repr(float(values[row]))),
                "a token count",
            )
        )
    negative = values < 0
    if negative.any():
        row = _first(negative)
        raise InputError(
            message(
                metric,
                f"negative token count at {source.where(row, name)}",
                int(values[row]),
                "a count >= 0",
            )
        )
    return values.astype(np.int64)


def _errors(arr: Any, n: int) -> tuple[NDArray[Any], NDArray[np.bool_]]:
    """Failure reasons (object array of str or None) and whether each is a non-empty text."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if arr is None or pa.types.is_null(arr.type):
        return np.full(n, None, dtype=object), np.zeros(n, dtype=bool)
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        arr = pc.cast(arr, pa.string())
    given = pc.fill_null(pc.greater(pc.utf8_length(arr), 0), False)
    text = np.asarray(arr.to_numpy(zero_copy_only=False), dtype=object)
    return text, np.asarray(given.to_numpy(zero_copy_only=False), dtype=bool)


def _success(
    metric: str, arr: Any, has_error: NDArray[np.bool_], source: Source
) -> NDArray[np.bool_]:
    """The success flags; a null flag is true unless the record gives an error."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(has_error)
    if arr is None or pa.types.is_null(arr.type):
        return ~has_error
    null = np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    kind = arr.type
    if pa.types.is_boolean(kind):
        flag = np.asarray(pc.fill_null(arr, True).to_numpy(zero_copy_only=False), dtype=bool)
    elif pa.types.is_integer(kind) or pa.types.is_string(kind) or pa.types.is_large_string(kind):
        text = pc.utf8_lower(pc.utf8_trim_whitespace(pc.cast(arr, pa.string())))
        values = np.asarray(pc.fill_null(text, "1").to_numpy(zero_copy_only=False), dtype=object)
        good = np.isin(values, (*_TRUE, *_FALSE))
        if not good.all():
            row = _first(~good)
            raise InputError(
                message(
                    metric,
                    f"success is not a boolean at {source.where(row, 'success')}",
                    arr[row].as_py(),
                    "true or false (or 1 or 0)",
                )
            )
        flag = np.isin(values, _TRUE)
    else:
        raise InputError(
            message(
                metric,
                f"column 'success' of {source.name} must be boolean",
                raw(str(kind)),
                "true or false",
            )
        )
    conflict = ~null & flag & has_error
    if conflict.any():
        row = _first(conflict)
        raise InputError(
            message(
                metric,
                f"a successful request gives an error at {source.where(row, 'error')}",
                raw("success true and a non-empty error"),
                "success false (or null) for a request that failed, or no error",
            )
        )
    return np.asarray(np.where(null, ~has_error, flag), dtype=bool) if n else flag


def _token_times(
    metric: str, arr: Any, source: Source, n: int
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """The flattened chunk times and the number of times per record (0 for null)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if arr is None or pa.types.is_null(arr.type):
        return np.empty(0, dtype=np.float64), np.zeros(n, dtype=np.int64)
    kind = arr.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        arr = parse_json_lists(metric, arr, source)
        kind = arr.type
    if not (
        pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind)
    ):
        raise InputError(
            message(
                metric,
                f"column 'token_times' of {source.name} must hold lists of times",
                raw(str(kind)),
                "a list of numbers per request",
            )
        )
    lengths = np.asarray(
        pc.fill_null(pc.list_value_length(arr), 0).to_numpy(zero_copy_only=False), dtype=np.int64
    )
    flat = pc.list_flatten(arr)
    item = flat.type
    if not (pa.types.is_integer(item) or pa.types.is_floating(item) or pa.types.is_null(item)):
        raise InputError(
            message(
                metric,
                f"token_times of {source.name} must hold numbers",
                raw(f"lists of {item}"),
                "lists of times in seconds",
            )
        )
    values = np.asarray(flat.cast(pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)
    return values, lengths


def _check_times(
    metric: str,
    source: Source,
    times: NDArray[np.float64],
    chunks: NDArray[np.int64],
    start: NDArray[np.float64],
    end: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    """Check the flattened chunk times of each request; return the gaps, each request's
    largest gap (nan with fewer than two times) and the offset of each request's times.

    Works on whole arrays: consecutive differences once, request boundaries masked out,
    and the range checked on each request's first and last time (they are in order).
    """
    ends = np.cumsum(chunks)
    offsets = ends - chunks

    def owner(i: int) -> int:
        return int(np.searchsorted(ends, i, side="right"))

    if times.size and not np.isfinite(times.sum()) and not np.isfinite(times).all():
        i = _first(~np.isfinite(times))
        where = source.where(owner(i), "token_times")
        shown = "null" if np.isnan(times[i]) else str(times[i])
        raise InputError(
            message(metric, f"token time is not a number at {where}", raw(shown), "finite times")
        )
    diffs = times[1:] - times[:-1]
    within = np.ones(diffs.size, dtype=bool)
    last = ends[chunks > 0] - 1
    within[last[last < diffs.size]] = False
    steps = np.where(within, diffs, 0.0)  # 0 across request boundaries
    if steps.size and steps.min() < 0:
        i = _first(steps < 0)
        raise InputError(
            message(
                metric,
                f"token times are not increasing at {source.where(owner(i), 'token_times')}",
                raw(f"{_num(times[i + 1])} after {_num(times[i])}"),
                "non-decreasing arrival times",
            )
        )
    rows = np.flatnonzero(chunks > 0)
    early = times[offsets[rows]] < start[rows]
    late = times[ends[rows] - 1] > end[rows]
    if early.any() or late.any():
        k = _first(early | late)
        row = int(rows[k])
        value = times[offsets[row]] if early[k] else times[ends[row] - 1]
        raise InputError(
            message(
                metric,
                f"token time is outside [start, end] at {source.where(row, 'token_times')}",
                raw(f"{_num(value)} with start {_num(start[row])} and end {_num(end[row])}"),
                "start <= each token time <= end",
            )
        )
    max_gap = np.full(len(chunks), np.nan)
    multi = np.flatnonzero(chunks >= 2)
    if multi.size:
        max_gap[multi] = np.maximum.reduceat(steps, offsets[multi])
    return np.asarray(diffs[within], dtype=np.float64), max_gap, offsets


def as_records(metric: str, records: Any) -> Records:
    """Convert and check request records; errors name ``metric``, the problem and the row.

    Parameters
    ----------
    metric : str
        The name errors start with.
    records
        A list of dicts or :class:`Request` objects, a dict of columns, a pandas
        DataFrame, or a pyarrow Table or RecordBatch (for example from
        :func:`read_records`, whose errors then name the file and line);
        :class:`Records` are returned as they are (they are checked already).

    Returns
    -------
    Records

    Examples
    --------
    >>> r = as_records("ttft", [{"prompt_tokens": 5, "output_tokens": 2, "start": 0.0,
    ...                          "end": 1.0, "token_times": [0.25, 1.0]}])
    >>> r.first, r.gaps
    (array([0.25]), array([0.75]))
    """
    return input_records(metric, records)[0]


def input_records(metric: str, records: Any) -> tuple[Records, NDArray[np.intp], int]:
    """Checked records, the input row each comes from, and the number of input rows.

    Rows set aside by :data:`MARKS` are input rows no record comes from.

    Examples
    --------
    >>> recs, rows, count = input_records("ttft", [
    ...     {"record": "metadata"},
    ...     {"prompt_tokens": 5, "output_tokens": 2, "start": 0.0, "end": 1.0}])
    >>> recs.n, rows, count
    (1, array([1]), 2)
    """
    if not isinstance(records, Records):
        cols, n, source = columns(metric, records)
        rows = None if source.rows is None else np.asarray(source.rows, dtype=np.intp)
        records = replace(_checked(metric, cols, n, source), rows=rows, input_rows=source.count)
    rows = np.arange(records.n) if records.rows is None else records.rows
    return records, rows, records.n if records.input_rows is None else records.input_rows


def _checked(metric: str, cols: dict[str, Any], n: int, source: Source) -> Records:
    """Records from the known columns of ``n`` kept rows, checked."""
    if n == 0:
        return Records.empty()
    missing = [c for c in REQUIRED if c not in cols]
    if missing:
        raise InputError(
            message(
                metric,
                f"{source.name} lack{'s' if source.path else ''} required columns",
                raw(", ".join(repr(c) for c in missing) + " missing"),
                f"the columns {', '.join(repr(c) for c in REQUIRED)}",
            )
        )
    error, has_error = _errors(cols.get("error"), n)
    success = _success(metric, cols.get("success"), has_error, source)
    prompt = _counts(metric, "prompt_tokens", cols["prompt_tokens"], source, success)
    output = _counts(metric, "output_tokens", cols["output_tokens"], source, success)
    start = _numbers(metric, "start", cols["start"], source)
    _finite(metric, "start", start, source, required=True)
    end = _numbers(metric, "end", cols["end"], source)
    _finite(metric, "end", end, source, required=True)
    before = end < start
    if before.any():
        row = _first(before)
        raise InputError(
            message(
                metric,
                f"end is before start at {source.where(row, 'end')}",
                raw(f"end {_num(end[row])} < start {_num(start[row])}"),
                "end >= start",
            )
        )
    first = np.full(n, np.nan)
    if "first_token" in cols:
        first = _numbers(metric, "first_token", cols["first_token"], source)
        first = np.where(success, first, np.nan)
        _finite(metric, "first_token", first, source, required=False)
        outside = (first < start) | (first > end)
        if outside.any():
            row = _first(outside)
            raise InputError(
                message(
                    metric,
                    f"first_token is outside [start, end] at {source.where(row, 'first_token')}",
                    raw(
                        f"{_num(first[row])} with start {_num(start[row])} and end {_num(end[row])}"
                    ),
                    "start <= first_token <= end",
                )
            )
    times, chunks = _token_times(metric, cols.get("token_times"), source, n)
    if not success.all():
        times = times[np.repeat(success, chunks)]
        chunks = np.where(success, chunks, 0)
    gaps, max_gap, offsets = _check_times(metric, source, times, chunks, start, end)
    # the first chunk's arrival stands in for a missing first_token
    fallback = np.isnan(first) & (chunks > 0)
    if fallback.any():
        first = np.where(fallback, times[np.minimum(offsets, max(len(times) - 1, 0))], first)
    return Records(
        prompt=prompt,
        output=output,
        start=start,
        end=end,
        first=first,
        success=success,
        error=error,
        gaps=gaps,
        chunks=chunks,
        max_gap=max_gap,
        has_token_times="token_times" in cols,
    )


# files --------------------------------------------------------------------------------


def _has_content(path: Path) -> bool:

    try:
        with io.open_text(path) as handle:
            return any(line.strip() for line in handle)
    except OSError:
        return True


def read_records(path: str | Path) -> Any:
    """Read request records from a JSON Lines, CSV/TSV or Parquet file and check them.

    In CSV, ``token_times`` cells hold JSON lists (``"[0.12, 0.15]"``); they
    become an Arrow list column. Every record is checked as the metrics check
    it, so a bad value is reported here with its file, line and column.

    Parameters
    ----------
    path : str or Path
        A ``.jsonl``/``.ndjson``, ``.csv``, ``.tsv`` or ``.parquet`` file
        (text formats may be gzip-compressed).

    Returns
    -------
    pyarrow.Table
        The records, to pass to any serving metric or to :func:`report`;
        errors found later still name the file and line.

    Raises
    ------
    InputError
        A missing or empty file, a missing column, or a bad value (end before
        start, a negative token count, a first-token time outside the
        request, token times out of order, ...).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "requests.csv"
    >>> _ = path.write_text("prompt_tokens,output_tokens,start,end,token_times\\n"
    ...                     '8,3,0.0,0.5,"[0.1, 0.3, 0.5]"\\n')
    >>> read_records(path).column("token_times").to_pylist()
    [[0.1, 0.3, 0.5]]
    """
    import pyarrow as pa

    path = Path(path)
    name = path.name.lower()
    if (
        path.is_file()
        and any(name.endswith(ext) for ext in SUPPORTED_EXTENSIONS)
        and not name.endswith((".parquet", ".pq"))
        and not _has_content(path)
    ):
        raise InputError(
            message(str(path), "file is empty", raw("no records"), "one request record per line")
        )
    table = read_table(path)
    if table.num_rows == 0:
        raise InputError(
            message(str(path), "file is empty", raw("0 records"), "at least one request record")
        )
    meta = table.schema.metadata
    if "token_times" in table.column_names:
        col = table.column("token_times")
        if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
            source = Source("table", table)
            parsed = parse_json_lists("read_records", col.combine_chunks(), source)
            index = table.column_names.index("token_times")
            table = table.set_column(index, "token_times", parsed).replace_schema_metadata(meta)
    as_records("read_records", table)
    return table


def read_metadata(path: str | Path) -> dict[str, Any] | None:
    """The metadata record of a records file (its first record, ``"record": "metadata"``).

    ``scorekit loadtest`` starts its records file with a description of the run (the
    scorekit version, url, model, endpoint, flags, dataset and its hash, seed, start
    time, tokenizer). Other files, and files of other formats, have none.

    Parameters
    ----------
    path : str or Path
        A records file.

    Returns
    -------
    dict or None
        The metadata record, or None when the first record is a request.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "records.jsonl"
    >>> _ = path.write_text('{"record": "metadata", "model": "m"}\\n'
    ...                     '{"prompt_tokens": 1, "output_tokens": 1, "start": 0, "end": 1}\\n')
    >>> read_metadata(path)
    {'record': 'metadata', 'model': 'm'}
    """
    import json

    path = Path(path)
    if not re.search(r"\.(jsonl|ndjson|json)(\.gz)?$", path.name, re.I) or not path.is_file():
        return None
    try:
        with io.open_text(path) as handle:
            line = next((line for line in handle if line.strip()), "")
    except (OSError, UnicodeDecodeError):
        return None
    try:
        first = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if isinstance(first, dict) and first.get("record") == "metadata":
        return first
    return None
