"""Column conversions: a table's column(s) -> the argument a metric's ``summarize`` takes.

Each conversion has a name (``labels``, ``scores``, ``weights``, ``strings``,
``texts``, ``references``, ``sequences``, ``label_matrix``, ``score_matrix``) and
turns one or more columns of a pyarrow table into arrays or lists, with errors
that name the file, line and column. An input kind maps each of its roles to a
conversion; families register conversions of their own with
:func:`register_conversion`. A :class:`Chunk` converts each column once for every
metric that reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.errors import ConfigError, InputError, message, raw
from scorekit.io import _columns as _c

__all__ = ["Chunk", "conversions", "convert", "register_conversion"]

Conversion = Callable[[Any, tuple[str, ...]], Any]

_CONVERSIONS: dict[str, Conversion] = {}


def register_conversion(name: str, function: Conversion) -> None:
    """Name a conversion ``function(table, column_names) -> value`` for input kinds to use."""
    _CONVERSIONS[name] = function


def conversions() -> list[str]:
    """The names of the registered conversions."""
    return list(_CONVERSIONS)


def convert(table: Any, conversion: str, names: tuple[str, ...]) -> Any:
    """The column(s) ``names`` of ``table`` converted by the conversion called ``conversion``.

    Examples
    --------
    >>> import pyarrow as pa
    >>> convert(pa.table({"y": [1.5, 2.0]}), "scores", ("y",))
    array([1.5, 2. ])
    """
    function = _CONVERSIONS.get(conversion)
    if function is None:
        raise ConfigError(
            message("evaluate", "unknown column conversion", conversion, "a registered one")
        )
    return function(table, names)


class Chunk:
    """One chunk of a table with its converted columns, each converted once for all metrics."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self._cache: dict[tuple[str, tuple[str, ...]], Any] = {}

    @property
    def num_rows(self) -> int:
        """The rows in the chunk."""
        return int(self.table.num_rows)

    def get(self, conversion: str, names: tuple[str, ...]) -> Any:
        """The column(s) ``names`` converted by ``conversion``, converted once."""
        key = (conversion, names)
        if key not in self._cache:
            self._cache[key] = convert(self.table, conversion, names)
        return self._cache[key]

    def memo(self, key: tuple[str, tuple[str, ...]], build: Callable[[], Any]) -> Any:
        """A value derived from the chunk (a run built from three columns), built once."""
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]


def _single(table: Any, conversion: str, names: tuple[str, ...]) -> str:
    if len(names) != 1:
        raise ConfigError(
            message(
                _c.source_of(table),
                f"one column needed for {conversion}",
                list(names),
                "a single column name",
            )
        )
    return names[0]


def _is_list(kind: Any) -> bool:
    import pyarrow as pa

    return bool(
        pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind)
    )


def _is_text(kind: Any) -> bool:
    import pyarrow as pa

    return bool(
        pa.types.is_string(kind) or pa.types.is_large_string(kind) or _c.is_string_view(kind)
    )


def _strings(table: Any, name: str) -> Any:
    import pyarrow as pa

    col = _c.table_column(table, name)
    _c.check_present(table, name, col)
    if not _is_text(col.type):
        col = col.cast(pa.string())
    return col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col


def _type_error(table: Any, name: str, col: Any, what: str, expected: str) -> InputError:
    """The error of a column of the wrong type: ``column 'name' must hold <what>``."""
    return InputError(
        message(
            _c.source_of(table), f"column {name!r} must hold {what}", raw(str(col.type)), expected
        )
    )


def _texts(table: Any, name: str) -> list[str]:
    col = _c.table_column(table, name)
    if not _is_text(col.type):
        raise _type_error(table, name, col, "text", "a column of strings")
    _c.check_present(table, name, col)
    values: list[str] = col.to_pylist()
    return values


def _references(table: Any, names: tuple[str, ...]) -> list[Any]:
    if len(names) == 1:
        col = _c.table_column(table, names[0])
        if _is_text(col.type):
            return _texts(table, names[0])
        if _is_list(col.type) and _is_text(col.type.value_type):
            _c.check_present(table, names[0], col)
            lists: list[Any] = col.to_pylist()
            for row, item in enumerate(lists):
                if not item or any(v is None for v in item):
                    raise InputError(
                        message(
                            _c.where(table, names[0], row),
                            "empty or null reference",
                            item,
                            "a non-empty list of strings",
                        )
                    )
            return lists
        raise _type_error(
            table, names[0], col, "text or lists of text", "strings or lists of strings"
        )
    columns = []
    for name in names:
        col = _c.table_column(table, name)
        if not _is_text(col.type) and col.null_count != len(col):
            raise _type_error(table, name, col, "text", "a column of strings")
        columns.append(col.to_pylist())
    out: list[Any] = []
    for row, cells in enumerate(zip(*columns, strict=True)):
        refs = [c for c in cells if c is not None]
        if not refs:
            raise InputError(
                message(
                    _c.where(table, names[0], row),
                    "no reference in any reference column",
                    raw("all empty"),
                    "at least one reference per row",
                )
            )
        out.append(refs)
    return out


def _sequences(table: Any, name: str) -> list[NDArray[np.float64]]:
    import pyarrow as pa

    col = _c.table_column(table, name)
    if not _is_list(col.type):
        raise _type_error(
            table, name, col, "lists of numbers", "one list of log-probabilities per row"
        )
    _c.check_present(table, name, col)
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    if pa.types.is_fixed_size_list(arr.type):
        width = arr.type.list_size
        offsets = np.arange(len(arr) + 1, dtype=np.int64) * width
    else:
        offsets = np.asarray(arr.offsets.to_numpy(), dtype=np.int64)
        offsets = offsets - offsets[0]
    flat = arr.flatten()
    values = np.asarray(flat.cast(pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)
    return [values[offsets[i] : offsets[i + 1]] for i in range(len(arr))]


def _matrix(table: Any, conversion: str, names: tuple[str, ...]) -> NDArray[Any]:
    import pyarrow as pa

    if len(names) == 1:
        col = _c.table_column(table, names[0])
        if _is_list(col.type):
            _c.check_present(table, names[0], col)
            arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
            sizes = np.asarray(arr.value_lengths().to_numpy(zero_copy_only=False))
            if len(sizes) and (sizes != sizes[0]).any():
                row = int(np.flatnonzero(sizes != sizes[0])[0])
                raise InputError(
                    message(
                        _c.where(table, names[0], row),
                        "rows of different lengths",
                        int(sizes[row]),
                        f"{int(sizes[0])} values in every row, as in the first",
                    )
                )
            width = int(sizes[0]) if len(sizes) else 0
            flat = np.asarray(arr.flatten().to_numpy(zero_copy_only=False))
            wide = pa.table(
                {f"{names[0]}[{j}]": pa.array(flat[j::width]) for j in range(width)}
            ).replace_schema_metadata(table.schema.metadata)
            columns = list(wide.column_names)
            if conversion == "label_matrix":
                return _c.label_matrix(wide, columns)
            return _c.score_matrix(wide, columns)
    if conversion == "label_matrix":
        return _c.label_matrix(table, list(names))
    return _c.score_matrix(table, list(names))


def _one(function: Callable[[Any, str], Any], conversion: str) -> Conversion:
    return lambda table, names: function(table, _single(table, conversion, names))


register_conversion("labels", _one(_c.label_array, "labels"))
register_conversion("scores", _one(_c.score_array, "scores"))
register_conversion(
    "float32_scores",
    lambda table, names: _c.score_array(
        table, _single(table, "float32_scores", names), keep_float32=True
    ),
)
register_conversion("weights", _one(_c.weight_array, "weights"))
register_conversion("strings", _one(_strings, "strings"))
register_conversion("texts", _one(_texts, "texts"))
register_conversion("sequences", _one(_sequences, "sequences"))
register_conversion("references", _references)
register_conversion("groups", _c.group_arrays)
register_conversion("label_matrix", lambda table, names: _matrix(table, "label_matrix", names))
register_conversion("score_matrix", lambda table, names: _matrix(table, "score_matrix", names))
