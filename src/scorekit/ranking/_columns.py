"""Columns of qrels and runs: ids as strings, values as numbers, query codes and row hashes.

The helpers :class:`~scorekit.ranking.Qrels` and :class:`~scorekit.ranking.Run`
build on: they check and convert the query, doc and value columns once, number
each row's query among the sorted distinct ids, and hash ids straight from
pyarrow's buffers (to find repeated (query, doc) pairs and join runs with qrels
without comparing strings row by row).
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import chain
from operator import countOf, methodcaller
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.errors import InputError, message, raw

__all__ = [
    "GROUPED_QUERIES",
    "NUMBER_TYPES",
    "all_strings",
    "as_ids",
    "as_values",
    "block_repeats",
    "first_non_number",
    "grouped_keys",
    "hash_strings",
    "numbers",
    "query_codes",
    "repeats",
]


def as_ids(what: str, role: str, column: Any) -> Any:
    """A column of ids as a pyarrow string array (numbers become their ``str``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if not isinstance(column, pa.Array):
        values = getattr(column, "to_numpy", None)
        data = values() if callable(values) else np.asarray(column)
        data = np.asarray(data)
        if data.size == 0:
            return pa.array([], pa.string())
        if data.dtype.kind in "iub":
            data = data.astype(str)
        try:
            column = pa.array(data.tolist() if data.dtype.kind == "O" else data)
        except (pa.ArrowException, TypeError):
            column = pa.array([str(v) for v in data.tolist()])
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    if pa.types.is_integer(column.type):
        column = pc.cast(column, pa.string())
    if pa.types.is_large_string(column.type):
        column = column.cast(pa.string())
    if not pa.types.is_string(column.type):
        raise InputError(
            message(what, f"{role} ids must be strings or integers", raw(str(column.type)), "ids")
        )
    if column.null_count:
        row = int(np.flatnonzero(np.asarray(column.is_null().to_numpy(zero_copy_only=False)))[0])
        raise InputError(message(what, f"missing {role} id", raw(f"null at row {row}"), "an id"))
    return column


def as_values(what: str, name: str, column: Any) -> NDArray[np.float64]:
    """A column of values (grades or scores) as floats; nulls and non-numbers are errors."""
    import pyarrow as pa

    if isinstance(column, pa.ChunkedArray | pa.Array):
        if column.null_count:
            raise InputError(message(what, f"missing {name}", raw("a null value"), "a number"))
        kind = column.type
        if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
            raise InputError(
                message(what, f"{name} must be numeric", raw(str(kind)), "finite numbers")
            )
        return np.asarray(column.to_numpy(), dtype=np.float64)
    data = column.to_numpy() if hasattr(column, "to_numpy") else column
    try:
        arr = np.asarray(data)
    except (TypeError, ValueError):
        # values of unequal shapes (a list among numbers): keep them as objects
        arr = np.empty(len(data), dtype=object)
        for i, v in enumerate(data):
            arr[i] = v
    if arr.dtype.kind not in "iufb" or arr.dtype.kind == "b":
        try:
            arr = np.asarray(arr, dtype=np.float64)
        except (TypeError, ValueError):
            bad = next((v for v in arr.ravel().tolist() if not _is_number(v)), None)
            raise InputError(
                message(what, f"{name} is not a number", bad, "finite numbers")
            ) from None
    return np.asarray(arr, dtype=np.float64)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)


def query_codes(query: Any) -> tuple[NDArray[np.int64], NDArray[np.str_], Any]:
    """Index each row's query among the sorted distinct ids.

    A run lists each query's rows together, so only the first id of every block
    of equal ids is hashed; a file in no particular order is encoded row by row.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(query)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=str), pa.array([], pa.string())
    change = pc.not_equal(query.slice(1), query.slice(0, n - 1))
    heads = np.flatnonzero(
        np.concatenate([[True], np.asarray(change.to_numpy(zero_copy_only=False), dtype=bool)])
    )
    blocks = 4 * len(heads) <= n
    encoded = pc.dictionary_encode(query.take(pa.array(heads)) if blocks else query)
    names = np.asarray(encoded.dictionary.to_numpy(zero_copy_only=False), dtype=str)
    by_name = np.argsort(names, kind="stable")
    rank_of = np.empty(len(names), dtype=np.int64)
    rank_of[by_name] = np.arange(len(names))
    codes = rank_of[np.asarray(encoded.indices.to_numpy(), dtype=np.int64)]
    if blocks:
        codes = np.repeat(codes, np.diff(np.append(heads, n)))
    return codes, names[by_name], encoded.dictionary.take(pa.array(by_name))


_MULTIPLIERS = (
    np.uint64(0x9E3779B97F4A7C15),
    np.uint64(0xBF58476D1CE4E5B9),
    np.uint64(0x94D049BB133111EB),
)
_LOW_BYTES = np.array([(1 << (8 * i)) - 1 for i in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
"""``_LOW_BYTES[i]`` keeps the first ``i`` bytes of a little-endian 8-byte word."""


_BLOCK = 1 << 15
"""Strings hashed at a time: the scratch arrays of a block stay in the CPU's cache."""


def all_strings(ids: Any) -> bool:
    """Whether every id of ``ids`` is a string (``str.join`` stops at the first that is not).

    Examples
    --------
    >>> all_strings(["q1", "q2"]), all_strings(["q1", 2])
    (True, False)
    """
    try:
        if isinstance(ids, list | tuple) and len(ids) > _JOINED:
            # a batch at a time: the joined string of every id would be as large as them all
            for start in range(0, len(ids), _JOINED):
                "".join(ids[start : start + _JOINED])
        else:
            "".join(ids)
    except TypeError:
        return False
    return True


_JOINED = 1 << 16
"""Ids joined at a time by :func:`all_strings`."""


NUMBER_TYPES = (int, float, np.integer, np.floating)
"""The types of the values :func:`numbers` takes: Python and numpy integers and floats (a
bool is an int)."""


def numbers(inners: list[Mapping[Any, Any]], total: int) -> NDArray[np.float64] | None:
    """The values of the mappings ``inners`` (``total`` of them), in order, as floats, when
    each is of a type of :data:`NUMBER_TYPES`; None when one is not (or when the mappings
    do not hold ``total`` values).

    pyarrow's conversion to doubles reads and checks the values in one pass: it
    takes Python and numpy integers and floats alone (no string, Decimal,
    Fraction or numpy bool), and reads a ``None`` as a null, refused here.
    When it refuses a value, or may have misread one, the types of all of
    them are looked at: it refuses an integer beyond 2**53 (which it cannot
    hold exactly), and reads a numpy uint64 near 2**64 as a negative whole
    number.

    Examples
    --------
    >>> numbers([{"a": 1.5, "b": 2}, {"c": True}], 3)
    array([1.5, 2. , 1. ])
    >>> numbers([{"a": 1.5}, {"b": "2"}], 2) is None
    True
    """
    import pyarrow as pa

    def values() -> Any:
        # each view made as it is read: a list of them all would set off collections of the
        # garbage collector
        return chain.from_iterable(map(methodcaller("values"), inners))

    try:
        column = pa.array(values(), type=pa.float64(), size=total)
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        column = None
    if column is not None and column.null_count == 0 and len(column) == total:
        # the column's own buffer, which nothing else holds: writable when pyarrow made it so
        data = column.buffers()[1]
        found: NDArray[np.float64] = (
            np.frombuffer(data, dtype=np.float64, count=total, offset=8 * column.offset)
            if total
            else np.zeros(0, dtype=np.float64)
        )
        below = found[found < 0]
        if not (below == np.floor(below)).any():
            return found
    # floats, the usual type, are counted first; then the set of all the types is looked at
    if countOf(map(type, values()), float) != total and not all(
        issubclass(kind, NUMBER_TYPES) for kind in set(map(type, values()))
    ):
        return None
    try:
        return np.fromiter(values(), dtype=np.float64, count=total)
    except (TypeError, ValueError):
        return None


def first_non_number(pairs: Mapping[Any, Mapping[Any, Any]]) -> tuple[Any, Any, Any] | None:
    """The query, doc and value of the first value of ``{query: {doc: value}}`` that is not
    of a type of :data:`NUMBER_TYPES`, or None.

    Examples
    --------
    >>> first_non_number({"q1": {"a": 1.0}, "q2": {"b": 2, "c": "3"}})
    ('q2', 'c', '3')
    >>> first_non_number({"q1": {"a": 1.0}}) is None
    True
    """
    for query, docs in pairs.items():
        for doc, value in docs.items():
            if not isinstance(value, NUMBER_TYPES):
                return query, doc, value
    return None


def hash_strings(column: Any, seed: NDArray[np.uint64] | None = None) -> NDArray[np.uint64]:
    """A 64-bit hash of every string of a pyarrow string array, from its buffers.

    The bytes are read eight at a time straight from the array's data buffer,
    one pass per 8 bytes of the longest string, with numpy integer arithmetic
    (wrapping modulo 2**64), over blocks of strings small enough for the
    scratch arrays to stay in cache. Equal strings with equal ``seed`` (one
    per string, e.g. the hash of another id of the same row) get equal hashes.
    """
    from numpy.lib.stride_tricks import as_strided

    n = len(column)
    raw_offsets = column.buffers()[1]
    if n == 0 or raw_offsets is None:
        return np.zeros(n, dtype=np.uint64) if seed is None else seed.copy()
    offsets = np.frombuffer(raw_offsets, dtype=np.int32, count=n + 1, offset=4 * column.offset)
    first, size = int(offsets[0]), int(offsets[-1] - offsets[0])
    padded = np.zeros((size + 15) // 8 * 8, dtype=np.uint8)
    if size:
        padded[:size] = np.frombuffer(column.buffers()[2], dtype=np.uint8, count=size, offset=first)
    words = as_strided(padded.view("<u8"), shape=(len(padded) - 7,), strides=(1,), writeable=False)
    out = np.empty(n, dtype=np.uint64)
    spare = np.empty(min(n, _BLOCK), dtype=np.uint64)
    for start in range(0, n, _BLOCK):
        stop = min(n, start + _BLOCK)
        bounds = offsets[start : stop + 1].astype(np.int64)
        bounds -= first
        part = None if seed is None else seed[start:stop]
        _hash_block(words, bounds, out[start:stop], spare[: stop - start], part)
    return out


def _hash_block(
    words: NDArray[np.uint64],
    bounds: NDArray[np.int64],
    out: NDArray[np.uint64],
    spare: NDArray[np.uint64],
    seed: NDArray[np.uint64] | None,
) -> None:
    """Hash the strings between consecutive ``bounds`` (offsets into ``words``) into ``out``."""
    lengths = np.diff(bounds)
    np.multiply(lengths.view(np.uint64), _MULTIPLIERS[0], out=out)
    if seed is not None:
        out += seed
    at = bounds[:-1]
    rows: NDArray[np.int64] | None = None
    left = lengths
    while True:
        # the next 8 bytes of every string with bytes left, zeroed past its end
        longest = int(left.max())
        word = words[at]
        if rows is None:
            h, scratch = out, spare
        else:
            h, scratch = out[rows], spare[: len(rows)]
        np.take(_LOW_BYTES, left if longest <= 8 else np.minimum(left, 8), out=scratch)
        word &= scratch
        h ^= word
        h *= _MULTIPLIERS[1]
        np.right_shift(h, np.uint64(31), out=scratch)
        h ^= scratch
        if rows is not None:
            out[rows] = h
        if longest <= 8:
            return
        more = left > 8
        rows = np.flatnonzero(more) if rows is None else rows[more]
        at = at[more] + 8
        left = left[more] - 8


GROUPED_QUERIES = (1 << 24) - 1
"""Query codes below this fit the high bits of :func:`grouped_keys` (one code left spare)."""


def grouped_keys(doc_hashes: NDArray[np.uint64], codes: NDArray[np.int64]) -> NDArray[np.uint64]:
    """A 64-bit key per row: its query code in the high 24 bits, its doc's hash below.

    Rows of one query share their high bits, so sorting or searching the keys
    of a query touches one narrow range. Codes must be below
    ``GROUPED_QUERIES + 1``; equal (code, doc) give equal keys, and unequal
    ones rarely do (callers confirm on the ids).
    """
    keys: NDArray[np.uint64] = codes.astype(np.uint64) << np.uint64(40)
    keys |= doc_hashes >> np.uint64(24)
    return keys


def repeats(keys: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """The values that occur more than once in ``keys`` (sorted, each once)."""
    ordered = np.sort(keys)
    same = ordered[1:] == ordered[:-1]
    return np.unique(ordered[1:][same])


def block_repeats(keys: NDArray[np.uint64], starts: NDArray[np.int64]) -> NDArray[np.uint64] | None:
    """The values that occur more than once within a block of ``keys`` (sorted, each once).

    The blocks start at ``starts`` and end where the next one starts. Each
    block is sorted on its own, as a row of a grid padded with the largest
    value: many short sorts instead of one long one. The high 32 bits of the
    keys are sorted first (half the memory to move); only the blocks where two
    of them meet are sorted again on the whole keys. Returns None when the
    blocks differ so much in length that the padding would outweigh the keys.
    """
    n = len(keys)
    if len(starts) == 0:
        return np.zeros(0, dtype=np.uint64)
    lengths = np.diff(np.append(starts, n))
    width = int(lengths.max())
    if len(starts) * width > 2 * n + 1024:
        return None
    high = (keys >> np.uint64(32)).astype(np.uint32)
    narrow, filled = _block_grid(high, starts, lengths, width)
    narrow.sort(axis=1)
    meet = narrow[:, 1:] == narrow[:, :-1]
    if filled is not None:
        meet &= filled[:, 1:]
    rows = np.flatnonzero(meet.any(axis=1))
    if len(rows) == 0:
        return np.zeros(0, dtype=np.uint64)
    grid, filled = _block_grid(keys, starts[rows], lengths[rows], width)
    grid.sort(axis=1)
    # the padding sorts last: a block's keys fill its row's first slots
    same = grid[:, 1:] == grid[:, :-1]
    if filled is not None:
        same &= filled[:, 1:]
    if not same.any():
        return np.zeros(0, dtype=np.uint64)
    return np.unique(grid[:, 1:][same])


def _block_grid(
    keys: NDArray[Any], starts: NDArray[np.int64], lengths: NDArray[np.int64], width: int
) -> tuple[NDArray[Any], NDArray[np.bool_] | None]:
    """The blocks as rows of a grid padded with the dtype's largest value, and the mask of
    the filled cells (None when every block fills its row)."""
    if (lengths == width).all() and len(starts) * width == len(keys):
        return keys.reshape(len(starts), width).copy(), None
    column = np.arange(width, dtype=np.int64)
    filled = column < lengths[:, None]
    grid = np.full((len(starts), width), np.iinfo(keys.dtype).max, dtype=keys.dtype)
    grid[filled] = keys[(starts[:, None] + column)[filled]]
    return grid, filled
