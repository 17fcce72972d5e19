"""Any accepted form of request records -> Arrow arrays of the known columns.

Lists of dicts or :class:`Request` objects, dicts of columns, pandas DataFrames
and pyarrow Tables or RecordBatches all become one pyarrow Array per known
column (pyarrow converts Python lists in C), together with a :class:`Source`
that names the place of a record in error messages.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from scorekit import io
from scorekit.errors import InputError, message, raw

__all__ = [
    "COLUMNS",
    "MARKS",
    "OPTIONAL",
    "REQUIRED",
    "Request",
    "Source",
    "columns",
    "parse_json_lists",
]

REQUIRED: tuple[str, ...] = ("prompt_tokens", "output_tokens", "start", "end")
"""Columns every record must have."""
MARKS: tuple[str, ...] = ("record", "warmup")
"""Columns that set a record aside: ``record`` ``"metadata"`` (a load test's description of
its run; a ``record`` column of other values or of numbers marks nothing) and ``warmup``
true (a request sent before the measured load) are left out of every figure."""
OPTIONAL: tuple[str, ...] = ("first_token", "token_times", "success", "error", *MARKS)
"""Columns a record may have; absent means null."""
COLUMNS: tuple[str, ...] = REQUIRED + OPTIONAL
"""The fields of a request record: the required ones, then the optional ones."""


@dataclass(frozen=True)
class Request:
    """One request to a language-model server, as the serving metrics read it.

    Parameters
    ----------
    prompt_tokens, output_tokens : int
        Tokens in the prompt and tokens generated (>= 0).
    start, end : float
        When the request was sent and when its last byte arrived, in seconds.
    first_token : float, optional
        When the first output token arrived (within ``[start, end]``).
    token_times : sequence of float, optional
        When each streamed output chunk arrived (non-decreasing, within
        ``[start, end]``); the first entry is normally ``first_token``.
    success : bool, optional
        False for a failed request. None (not recorded) means true unless
        ``error`` is given.
    error : str, optional
        Why the request failed.

    Examples
    --------
    >>> r = Request(prompt_tokens=12, output_tokens=3, start=0.0, end=0.5,
    ...             first_token=0.1, token_times=[0.1, 0.3, 0.5])
    >>> r.end - r.first_token
    0.4
    """

    prompt_tokens: int
    output_tokens: int
    start: float
    end: float
    first_token: float | None = None
    token_times: Sequence[float] | None = None
    success: bool | None = None
    error: str | None = None


# where a value is ------------------------------------------------------------------


class Source:
    """Names the place of a record in error messages: a list item, a table row or a file line."""

    def __init__(self, kind: str, table: Any = None) -> None:
        self.kind = kind
        self.table = table
        self.rows: Any = None
        """The original row of each row kept, when records were set aside (:data:`MARKS`)."""
        self.count = 0
        """The number of rows of the input, those set aside included."""
        meta = getattr(getattr(table, "schema", None), "metadata", None) or {}
        self.path = meta.get(b"scorekit.source", b"").decode() or None

    @property
    def name(self) -> str:
        return self.path or "the records"

    @property
    def text_cells(self) -> bool:
        """Whether values come from a text-celled file (CSV, TSV), where numbers are text."""
        return (
            self.path is not None
            and re.search(r"\.(csv|tsv|txt)(\.gz)?$", self.path, re.I) is not None
        )

    def where(self, row: int, column: str) -> str:
        if self.rows is not None:
            row = int(self.rows[row])
        if self.path is not None:
            return str(io.where(self.table, column, row))
        if self.kind == "list":
            return f"records[{row}][{column!r}]"
        return f"row {row} (from 0), column {column!r}"


# any input -> Arrow arrays ------------------------------------------------------------


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool | np.bool_):
        return "boolean"
    if isinstance(value, int | float | np.integer | np.floating):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Sequence | np.ndarray):
        return "list"
    return type(value).__name__


def _array(metric: str, name: str, values: Any, source: Source) -> Any:
    """One column as a pyarrow Array (NaN becomes null)."""
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray):
        return values.chunk(0) if values.num_chunks == 1 else values.combine_chunks()
    if isinstance(values, pa.Array):
        return values
    try:
        return pa.array(values, from_pandas=True)
    except (pa.ArrowException, TypeError, ValueError, OverflowError) as exc:
        items = list(values) if not isinstance(values, str | bytes) else [values]
        kinds = [_kind(v) for v in items]
        first = next((k for k in kinds if k != "null"), "null")
        row = next((i for i, k in enumerate(kinds) if k not in ("null", first)), None)
        if row is not None:
            raise InputError(
                message(
                    metric,
                    f"{name} mixes value types at {source.where(row, name)}",
                    items[row],
                    f"a {first} like the rows before",
                )
            ) from None
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(
            message(metric, f"cannot read column {name!r}", raw(text), "numbers, lists or text")
        ) from None


def _row_dict(metric: str, index: int, row: Any) -> Mapping[str, Any]:
    if isinstance(row, Mapping):
        return row
    if isinstance(row, Request):
        return row.__dict__
    raise InputError(
        message(
            metric,
            f"records[{index}] is not a record",
            raw(type(row).__name__),
            "a dict or a scorekit.throughput.Request",
        )
    )


def _is_column(value: Any) -> bool:
    """Whether a value of a dict of columns is a column (a sequence or array), not one value."""
    if isinstance(value, str | bytes):
        return False
    try:
        len(value)
    except TypeError:
        return False
    return True


def columns(metric: str, records: Any) -> tuple[dict[str, Any], int, Source]:
    """The known columns of any accepted input as pyarrow Arrays, the row count and the source.

    Records set aside by :data:`MARKS` (a metadata record, warm-up requests) are dropped
    here; the source then names the remaining records by their original place.
    """
    cols, n, source = _all_columns(metric, records)
    source.count = n
    return _drop_marked(metric, cols, n, source)


def _drop_marked(
    metric: str, cols: dict[str, Any], n: int, source: Source
) -> tuple[dict[str, Any], int, Source]:
    import pyarrow as pa
    import pyarrow.compute as pc

    if not any(mark in cols for mark in MARKS):
        return cols, n, source
    keep = np.ones(n, dtype=bool)
    record = cols.pop("record", None)
    if record is not None and (
        pa.types.is_string(record.type) or pa.types.is_large_string(record.type)
    ):
        marked = pc.fill_null(pc.equal(record, "metadata"), False)
        keep &= ~np.asarray(marked.to_numpy(zero_copy_only=False), dtype=bool)
    warmup = cols.pop("warmup", None)
    if warmup is not None and not pa.types.is_null(warmup.type):
        if not pa.types.is_boolean(warmup.type):
            raise InputError(
                message(
                    metric,
                    f"warmup is not true or false at {source.where(0, 'warmup')}",
                    raw(str(warmup.type)),
                    "true, false or null",
                )
            )
        marked = pc.fill_null(warmup, False)
        keep &= ~np.asarray(marked.to_numpy(zero_copy_only=False), dtype=bool)
    if keep.all():
        return cols, n, source
    rows = np.flatnonzero(keep)
    taken = pa.array(rows)
    source.rows = rows
    return {c: a.take(taken) for c, a in cols.items()}, len(rows), source


def _all_columns(metric: str, records: Any) -> tuple[dict[str, Any], int, Source]:
    import pyarrow as pa

    if isinstance(records, pa.RecordBatch):
        records = pa.Table.from_batches([records])
    if isinstance(records, pa.Table):
        source = Source("table", records)
        names = records.column_names
        for name in COLUMNS:
            if names.count(name) > 1:
                raise InputError(
                    message(metric, "column appears more than once", name, "unique column names")
                )
        present = [c for c in COLUMNS if c in names]
        cols = {c: _array(metric, c, records.column(c), source) for c in present}
        return cols, records.num_rows, source
    module = type(records).__module__
    if module.startswith("pandas") and hasattr(records, "columns"):
        source = Source("table")
        present = [c for c in COLUMNS if c in records.columns]
        cols = {c: _array(metric, c, records[c], source) for c in present}
        return cols, len(records), source
    if isinstance(records, Mapping):
        source = Source("columns")
        scalar = [c for c in COLUMNS if c in records and not _is_column(records[c])]
        if scalar:
            raise InputError(
                message(
                    metric,
                    "records must be a list of records or a dict of columns",
                    raw(f"a dict whose {scalar[0]!r} is {records[scalar[0]]!r}, not a column"),
                    "[record, ...] for one record, or {column: [value, ...]}",
                )
            )
        cols = {c: _array(metric, c, records[c], source) for c in COLUMNS if c in records}
        lengths = {c: len(a) for c, a in cols.items()}
        if len(set(lengths.values())) > 1:
            shown = ", ".join(f"{c} has {n}" for c, n in lengths.items())
            raise InputError(
                message(metric, "columns differ in length", raw(shown), "one value per request")
            )
        return cols, next(iter(lengths.values()), 0), source
    if isinstance(records, Sequence) and not isinstance(records, str | bytes):
        source = Source("list")
        rows = [_row_dict(metric, i, r) for i, r in enumerate(records)]
        keys = set().union(*(r.keys() for r in rows)) if rows else set()
        cols = {
            c: _array(metric, c, [r.get(c) for r in rows], source) for c in COLUMNS if c in keys
        }
        return cols, len(rows), source
    raise InputError(
        message(
            metric,
            "records must be request records",
            raw(type(records).__name__),
            "a list of dicts or Requests, a dict of columns, a pandas DataFrame, "
            "or a pyarrow Table or RecordBatch",
        )
    )


def parse_json_lists(metric: str, arr: Any, source: Source) -> Any:
    """A text column of JSON lists (CSV cells such as ``[0.1, 0.2]``) as an Arrow list column."""
    import pyarrow as pa

    parsed: list[Any] = []
    for row, text in enumerate(arr.to_pylist()):
        if text is None or not text.strip():
            parsed.append(None)
            continue
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = text
        if not isinstance(value, list) or not all(_kind(v) in ("number", "null") for v in value):
            raise InputError(
                message(
                    metric,
                    f"token_times is not a JSON list of times at "
                    f"{source.where(row, 'token_times')}",
                    text,
                    "a list like [0.12, 0.15, 0.19]",
                )
            )
        parsed.append(value)
    return pa.array(parsed, type=pa.list_(pa.float64()))
