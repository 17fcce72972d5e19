"""Table columns as the numpy arrays metrics take, with errors that point at the cell.

Labels keep their type (strings stay strings, integers stay integers); scores
and weights become float64. A problem names the file, the line (CSV, JSON
Lines) or row (Parquet) and the column, read from the table's metadata
(:func:`where`).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.errors import InputError, message, raw
from scorekit.io._tables import FORMAT_KEY, OFFSET_KEY, SOURCE_KEY, nonblank_line

_NUMBER = r"^\s*[-+]?((\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|inf|infinity|nan)\s*$"

__all__ = [
    "check_present",
    "is_numeric",
    "is_string_view",
    "label_array",
    "label_matrix",
    "score_array",
    "score_matrix",
    "source_of",
    "table_column",
    "weight_array",
    "where",
]


def where(table: Any, column: str, row: int) -> str:
    """``file, line N, column 'c'`` for a 0-based data row (``row N`` for Parquet).

    A chunk of a file records the file row of its first row as ``scorekit.offset``.
    """
    meta = table.schema.metadata or {}
    source = meta.get(SOURCE_KEY, b"table").decode()
    fmt = meta.get(FORMAT_KEY, b"").decode()
    row += int(meta.get(OFFSET_KEY, b"0").decode())
    place = f"row {row + 1}"
    if fmt in ("csv", "tsv", "jsonl"):
        line = nonblank_line(
            Path(source), row + (0 if fmt == "jsonl" else 1), spaces=fmt == "jsonl"
        )
        if line is not None:
            place = f"line {line}"
    return f"{source}, {place}, column {column!r}"


def table_column(table: Any, column: str) -> Any:
    """One column of a table; a missing one is an InputError naming the source and close names."""
    import pyarrow as pa

    if column not in table.column_names:
        meta = table.schema.metadata or {}
        source = meta.get(SOURCE_KEY, b"table").decode()
        close = difflib.get_close_matches(column, table.column_names, n=3, cutoff=0.6)
        hint = f" (close: {', '.join(repr(c) for c in close)})" if close else ""
        raise InputError(
            message(
                source,
                "no such column",
                column,
                f"one of the columns present: "
                f"{', '.join(repr(c) for c in table.column_names)}{hint}",
            )
        )
    col = table.column(column)
    if pa.types.is_dictionary(col.type):
        col = col.cast(col.type.value_type)
    return col


def _first(mask: Any) -> int:
    import pyarrow.compute as pc

    return int(pc.index(mask, True).as_py())


def check_present(table: Any, column: str, col: Any) -> None:
    """Raise InputError naming the line or row of the first empty cell or null of ``col``."""
    import pyarrow.compute as pc

    if col.null_count:
        row = _first(pc.is_null(col))
        raise InputError(
            message(
                where(table, column, row), "missing value", raw("an empty cell or null"), "a value"
            )
        )


def label_array(table: Any, column: str) -> NDArray[Any]:
    """One column as 1-D labels: strings stay strings, integers integers, booleans booleans.

    Empty cells, empty strings and NaN are errors naming the line or row.

    Examples
    --------
    >>> import pyarrow as pa
    >>> label_array(pa.table({"y": ["cat", "dog"]}), "y")
    array(['cat', 'dog'], dtype='<U3')
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    col = table_column(table, column)
    check_present(table, column, col)
    kind = col.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or is_string_view(kind):
        if len(col):
            empty = pc.equal(pc.utf8_length(col), 0)
            if pc.any(empty).as_py():
                row = _first(empty)
                raise InputError(
                    message(
                        where(table, column, row),
                        "missing value",
                        raw("an empty label"),
                        "a label",
                    )
                )
        return np.asarray(col.to_numpy(), dtype=str) if len(col) else np.empty(0, dtype=str)
    if pa.types.is_integer(kind) or pa.types.is_boolean(kind):
        out: NDArray[Any] = np.asarray(col.to_numpy())
        return out
    if pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        values = np.asarray(col.cast(pa.float64()).to_numpy(), dtype=np.float64)
        bad = ~np.isfinite(values)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            problem = "missing value" if np.isnan(values[row]) else "non-finite label"
            raise InputError(
                message(where(table, column, row), problem, raw(str(values[row])), "a label")
            )
        return values
    if pa.types.is_null(kind):
        return np.empty(0, dtype=np.float64)
    raise InputError(
        message(
            source_of(table),
            f"column {column!r} has an unsupported type for labels",
            raw(str(kind)),
            "integers, booleans, floats or strings",
        )
    )


def group_arrays(table: Any, columns: Sequence[str]) -> tuple[NDArray[Any], ...]:
    """The group columns of a per-group evaluation: strings, integers or booleans.

    A column that is all null, a missing value (naming its line or row) and a
    column of floats are errors.

    Examples
    --------
    >>> import pyarrow as pa
    >>> group_arrays(pa.table({"c": ["fr", "de"], "d": [1, 2]}), ["c", "d"])
    (array(['fr', 'de'], dtype='<U2'), array([1, 2]))
    >>> group_arrays(pa.table({"c": pa.array([None, None], pa.string())}), ["c"])
    Traceback (most recent call last):
    ...
    scorekit.errors.InputError: table: group column 'c' is all null; got 2 null values, \
expected strings, integers or booleans.
    """
    out = []
    for column in columns:
        col = table_column(table, column)
        if len(col) and col.null_count == len(col):
            raise InputError(
                message(
                    source_of(table),
                    f"group column {column!r} is all null",
                    raw(f"{len(col)} null values"),
                    "strings, integers or booleans",
                )
            )
        values = label_array(table, column)
        if values.dtype.kind == "f":
            raise InputError(
                message(
                    source_of(table),
                    f"group column {column!r} holds floats",
                    raw(str(col.type)),
                    "strings, integers or booleans as group values",
                )
            )
        out.append(values)
    return tuple(out)


def source_of(table: Any) -> str:
    """The source a table was read from (a file name) as its metadata records; else ``table``."""
    meta = table.schema.metadata or {}
    return str(meta.get(SOURCE_KEY, b"table").decode())


def is_numeric(kind: Any) -> bool:
    """Whether a pyarrow type holds numbers: integers, floats, booleans, decimals or nulls."""
    import pyarrow as pa

    return bool(
        pa.types.is_integer(kind)
        or pa.types.is_floating(kind)
        or pa.types.is_boolean(kind)
        or pa.types.is_decimal(kind)
        or pa.types.is_null(kind)
    )


def is_string_view(kind: Any) -> bool:
    """Whether a pyarrow type is ``string_view`` (False on pyarrow versions without it)."""
    import pyarrow as pa

    check = getattr(pa.types, "is_string_view", None)
    return bool(check(kind)) if check is not None else False


def score_array(table: Any, column: str, keep_float32: bool = False) -> NDArray[np.float64]:
    """One column as finite float64 scores.

    A value that is not a number, an empty cell, NaN or an infinite value is an
    error naming the line or row, the column and the value. With
    ``keep_float32`` a float32 column stays float32 (half the memory, and no
    widening pass), for metrics that only order and compare scores and widen
    exactly where they need to.

    Examples
    --------
    >>> import pyarrow as pa
    >>> score_array(pa.table({"p": [1, 0]}), "p")
    array([1., 0.])
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    col = table_column(table, column)
    kind = col.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or is_string_view(kind):
        ok = pc.match_substring_regex(col, _NUMBER, ignore_case=True)
        bad = pc.invert(pc.fill_null(ok, True))
        if len(col) and pc.any(bad).as_py():
            row = _first(bad)
            value = col[row].as_py()
            raise InputError(message(where(table, column, row), "not a number", value, "a number"))
        check_present(table, column, col)
        values = np.asarray(col.to_numpy(), dtype=str).astype(np.float64)
    elif keep_float32 and pa.types.is_float32(kind):
        check_present(table, column, col)
        values = np.asarray(col.to_numpy(), dtype=np.float32)
    elif is_numeric(kind):
        check_present(table, column, col)
        values = np.asarray(col.cast(pa.float64()).to_numpy(), dtype=np.float64)
    else:
        raise InputError(
            message(
                source_of(table),
                f"column {column!r} must be numeric",
                raw(str(kind)),
                "a column of numbers",
            )
        )
    bad_values = ~np.isfinite(values)
    if bad_values.any():
        row = int(np.flatnonzero(bad_values)[0])
        problem = "missing value" if np.isnan(values[row]) else "non-finite value"
        raise InputError(
            message(where(table, column, row), problem, raw(str(values[row])), "a finite number")
        )
    return values


def weight_array(table: Any, column: str) -> NDArray[np.float64]:
    """One column as sample weights: finite float64 values >= 0."""
    values = score_array(table, column)
    negative = values < 0
    if negative.any():
        row = int(np.flatnonzero(negative)[0])
        raise InputError(
            message(
                where(table, column, row),
                "negative sample weight",
                raw(str(values[row])),
                "a weight >= 0",
            )
        )
    return values


def score_matrix(table: Any, columns: Sequence[str]) -> NDArray[np.float64]:
    """Several columns as a 2-D float64 array (samples x columns).

    Examples
    --------
    >>> import pyarrow as pa
    >>> score_matrix(pa.table({"a": [0.2, 0.7], "b": [0.8, 0.3]}), ["a", "b"])
    array([[0.2, 0.8],
           [0.7, 0.3]])
    """
    parts = [score_array(table, c) for c in columns]
    if not parts:
        return np.empty((table.num_rows, 0), dtype=np.float64)
    return np.column_stack(parts)


def label_matrix(table: Any, columns: Sequence[str]) -> NDArray[np.int64]:
    """Several 0/1 (or boolean) columns as a 2-D int64 indicator matrix.

    Examples
    --------
    >>> import pyarrow as pa
    >>> label_matrix(pa.table({"a": [1, 0], "b": [True, True]}), ["a", "b"])
    array([[1, 1],
           [0, 1]])
    """
    parts = []
    for column in columns:
        values = label_array(table, column)
        if values.dtype.kind == "b":
            parts.append(values.astype(np.int64))
            continue
        if values.dtype.kind == "U":
            text = np.char.strip(values)
            wrong = ~np.isin(text, ["0", "1"])
            if not wrong.any():
                parts.append((text == "1").astype(np.int64))
                continue
            row = int(np.flatnonzero(wrong)[0])
            raise InputError(
                message(
                    where(table, column, row),
                    "not a 0/1 indicator",
                    str(values[row]),
                    "0 or 1 in every cell",
                )
            )
        bad = (values != 0) & (values != 1)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InputError(
                message(
                    where(table, column, row),
                    "not a 0/1 indicator",
                    values[row].item(),
                    "0 or 1 in every cell",
                )
            )
        parts.append(values.astype(np.int64))
    if not parts:
        return np.empty((table.num_rows, 0), dtype=np.int64)
    return np.column_stack(parts)
