"""Group columns: checked, and the rows of each group."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.errors import InputError, message, raw

GroupKey = Any
"""A group's key: its value (one group column) or the tuple of its values (several)."""


def _kind(values: NDArray[Any]) -> str:
    return {"U": "strings", "b": "booleans"}.get(values.dtype.kind, "integers")


def group_columns(where: str, by: Sequence[str], given: Any, rows: int | None = None) -> list[Any]:
    """The group columns of one batch as 1-D arrays of strings, integers or booleans.

    ``given`` is one column's values when ``by`` names one column, else a
    sequence of one column per name. Missing values (None, NaN, empty
    strings) and floats are refused, naming the column and the row.

    Examples
    --------
    >>> group_columns("f1", ("country",), ["fr", "de"])
    [array(['fr', 'de'], dtype='<U2')]
    >>> group_columns("f1", ("country",), ["fr", None])
    Traceback (most recent call last):
    ...
    scorekit.errors.InputError: f1: missing group value in column 'country'; got None at \
row 1, expected a string, an integer or a boolean.
    """
    if given is None:
        raise InputError(
            message(where, "no group values given", None, f"the values of {', '.join(by)}")
        )
    columns = isinstance(given, tuple) and len(given) == len(by)
    parts = [given] if len(by) == 1 and not (columns and np.ndim(given[0]) == 1) else list(given)
    if len(parts) != len(by):
        raise InputError(
            message(where, "wrong number of group columns", len(parts), f"{len(by)}: {list(by)}")
        )
    out = []
    for name, part in zip(by, parts, strict=True):
        values = _column(where, name, part)
        if rows is not None and len(values) != rows:
            raise InputError(
                message(
                    where,
                    f"group column {name!r} has the wrong length",
                    len(values),
                    f"{rows} rows",
                )
            )
        out.append(values)
    return out


def _column(where: str, name: str, part: Any) -> NDArray[Any]:
    if hasattr(part, "to_numpy") and not isinstance(part, np.ndarray):
        part = part.to_numpy(zero_copy_only=False) if hasattr(part, "null_count") else part
    values = np.asarray(part)
    if values.ndim != 1:
        raise InputError(
            message(where, f"group column {name!r} is not 1-D", raw(f"shape {values.shape}"), "1-D")
        )
    if values.dtype.kind == "O":
        bad = [i for i, v in enumerate(values.tolist()) if v is None or v != v or v == ""]
        if bad:
            _missing(where, name, values[bad[0]], bad[0])
        types = {type(v) for v in values.tolist()}
        if types <= {str}:
            values = values.astype(str)
        elif types <= {int, np.int64} and bool not in types:
            values = values.astype(np.int64)
        elif types <= {bool, np.bool_}:
            values = values.astype(bool)
        else:
            raise InputError(
                message(
                    where,
                    f"group column {name!r} mixes types",
                    raw(", ".join(sorted(t.__name__ for t in types))),
                    "strings, integers or booleans",
                )
            )
    kind = values.dtype.kind
    if kind == "f":
        nan = np.flatnonzero(np.isnan(values))
        if len(nan):
            _missing(where, name, float(values[nan[0]]), int(nan[0]))
        raise InputError(
            message(
                where,
                f"group column {name!r} holds floats",
                raw(str(values.dtype)),
                "strings, integers or booleans as group values",
            )
        )
    if kind == "U":
        empty = np.flatnonzero(values == "")
        if len(empty):
            _missing(where, name, "", int(empty[0]))
        return values
    if kind in "iu":
        return values.astype(np.int64)
    if kind == "b":
        return values
    raise InputError(
        message(
            where,
            f"group column {name!r} has an unsupported type",
            raw(str(values.dtype)),
            "strings, integers or booleans",
        )
    )


def _missing(where: str, name: str, value: Any, row: int) -> None:
    raise InputError(
        message(
            where,
            f"missing group value in column {name!r}",
            raw(f"{value!r} at row {row}"),
            "a string, an integer or a boolean",
        )
    )


def _take(value: Any, index: NDArray[np.intp], rows: int, where: str) -> Any:
    """The rows ``index`` of one input of a batch (an array, a list or a pyarrow array)."""
    if value is None or isinstance(value, str | bytes | int | float | bool):
        return value
    try:
        length = len(value)
    except TypeError:
        return value
    if length != rows:
        raise InputError(
            message(
                where, "an input has another length than the group columns", length, f"{rows} rows"
            )
        )
    if isinstance(value, np.ndarray):
        return value[index]
    if hasattr(value, "take") and (hasattr(value, "null_count") or hasattr(value, "num_rows")):
        import pyarrow as pa

        return value.take(pa.array(index))
    if hasattr(value, "iloc"):
        return value.iloc[index]
    items = list(value)
    return [items[i] for i in index.tolist()]


def _split(
    columns: Sequence[NDArray[Any]],
) -> tuple[tuple[NDArray[Any], ...], NDArray[np.int64], list[NDArray[np.intp]]]:
    """The groups of rows: their keys (one array per column), sizes and row indices.

    Groups come in increasing order of their values; each group's rows keep
    their order. Each row gets one integer code per group (:func:`group_codes`),
    and the rows are sorted by code once.

    Examples
    --------
    >>> keys, sizes, parts = _split([np.array(["fr", "de", "fr"]), np.array([1, 1, 2])])
    >>> [k.tolist() for k in keys], sizes.tolist(), [p.tolist() for p in parts]
    ([['de', 'fr', 'fr'], [1, 1, 2]], [1, 1, 1], [[1], [0], [2]])
    """
    if len(columns[0]) == 0:
        return tuple(columns), np.zeros(0, dtype=np.int64), []
    coded = [_factorize(c) for c in columns]
    return _split_codes([c for c, _ in coded], [d for _, d in coded])


def table_groups(
    table: Any, names: Sequence[str]
) -> tuple[tuple[NDArray[Any], ...], NDArray[np.int64], list[NDArray[np.intp]]] | None:
    """:func:`_split` of the group columns ``names`` of a pyarrow table, read through
    each column's dictionary of distinct values.

    The keys are the values the ``groups`` conversion gives (strings, int64 or
    booleans), in the same order; only the distinct values are converted.
    None for a table without rows or with a column this does not read (nulls,
    an empty string, another type), which the conversion then reads and
    checks, naming the problem.

    Examples
    --------
    >>> import pyarrow as pa
    >>> table = pa.table({"c": ["fr", "de", "fr"], "d": pa.array([1, 1, 2], pa.int8())})
    >>> keys, sizes, parts = table_groups(table, ["c", "d"])
    >>> keys, sizes.tolist(), [p.tolist() for p in parts]
    ((array(['de', 'fr', 'fr'], dtype='<U2'), array([1, 1, 2])), [1, 1, 1], [[1], [0], [2]])
    >>> table_groups(pa.table({"c": ["fr", None]}), ["c"]) is None
    True
    """
    import pyarrow as pa

    if table.num_rows == 0 or not names or any(n not in table.column_names for n in names):
        return None
    codes, distincts = [], []
    for name in names:
        column = table.column(name)
        kind = column.type
        text = pa.types.is_string(kind) or pa.types.is_large_string(kind)
        if column.null_count or not (
            text or pa.types.is_integer(kind) or pa.types.is_boolean(kind)
        ):
            return None
        array = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
        encoded = array.dictionary_encode()
        values = encoded.dictionary.to_numpy(zero_copy_only=False)
        if text:
            values = np.asarray(values, dtype=str)
            if (values == "").any():
                return None
        elif pa.types.is_integer(kind):
            values = values.astype(np.int64)
        distinct = np.unique(values)
        remap = np.searchsorted(distinct, values).astype(np.int64, copy=False)
        codes.append(remap[encoded.indices.to_numpy()])
        distincts.append(distinct)
    return _split_codes(codes, distincts)


def _factorize(column: NDArray[Any]) -> tuple[NDArray[np.int64], NDArray[Any]]:
    """Each value's position among the sorted distinct values, and those values."""
    distinct = np.unique(column)
    return np.searchsorted(distinct, column).astype(np.int64, copy=False), distinct


def _split_codes(
    codes: Sequence[NDArray[np.int64]], distincts: Sequence[NDArray[Any]]
) -> tuple[tuple[NDArray[Any], ...], NDArray[np.int64], list[NDArray[np.intp]]]:
    """:func:`_split` of rows given as each column's codes into its sorted distinct values."""
    code, count = _combine(codes, [len(d) for d in distincts])
    order = np.argsort(code.astype(_code_type(count), copy=False), kind="stable")
    sizes = np.bincount(code, minlength=count).astype(np.int64)
    stops = np.cumsum(sizes)
    first = order[stops - sizes]
    parts = np.split(order, stops[:-1].tolist())
    keys = tuple(d[c[first]] for c, d in zip(codes, distincts, strict=True))
    return keys, sizes, parts


def group_codes(columns: Sequence[NDArray[Any]]) -> tuple[NDArray[np.int64], int]:
    """Each row's group as an integer in ``[0, groups)``, in the order of the groups' values.

    One column's codes are the positions of its values among its distinct
    values; several columns' codes combine in mixed radix (first column
    first) and are renumbered over the combinations present (also whenever
    the combined range outgrows the rows, so they never overflow); they keep
    the lexicographic order of the values.

    Examples
    --------
    >>> group_codes([np.array(["b", "a", "b"])])
    (array([1, 0, 1]), 2)
    >>> group_codes([np.array([2, 2, 1]), np.array([True, False, False])])
    (array([2, 1, 0]), 3)
    """
    coded = [_factorize(c) for c in columns]
    return _combine([c for c, _ in coded], [len(d) for _, d in coded])


def _combine(
    codes: Sequence[NDArray[np.int64]], counts: Sequence[int]
) -> tuple[NDArray[np.int64], int]:
    """One code per row from the codes of each column (see :func:`group_codes`)."""
    code, count = codes[0], counts[0]
    rows = len(code)
    for own, distinct in zip(codes[1:], counts[1:], strict=True):
        code = code * distinct + own
        count *= distinct
        if count > max(rows, 1 << 16):
            code, count = _compact(code, count)
    if len(codes) > 1:
        code, count = _compact(code, count)
    return code, count


def _compact(code: NDArray[np.int64], count: int) -> tuple[NDArray[np.int64], int]:
    """Codes renumbered ``0, 1, ...`` over the codes present, in the same order."""
    if count <= 4 * len(code) + 1024:
        present = np.zeros(count, dtype=bool)
        present[code] = True
        renumber = np.cumsum(present) - 1
        return renumber[code], int(renumber[-1]) + 1
    distinct, inverse = np.unique(code, return_inverse=True)
    return inverse.ravel().astype(np.int64, copy=False), len(distinct)


def _code_type(count: int) -> Any:
    """The smallest unsigned integer type of codes below ``count`` (a stable sort of
    8- or 16-bit integers is a radix sort)."""
    for kind in (np.uint8, np.uint16, np.uint32):
        if count <= np.iinfo(kind).max + 1:
            return kind
    return np.uint64


def _key_of(parts: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(p.item() if isinstance(p, np.generic) else p for p in parts)
