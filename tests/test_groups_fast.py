"""The rows of each group found in one pass: the same groups, keys, sizes and rows as the
definition (every row's tuple of values, groups in increasing order, rows in order)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.core._groups._columns import _split, group_codes, group_columns, table_groups
from scorekit.io._columns import group_arrays


def _by_definition(
    columns: list[np.ndarray],
) -> tuple[list[tuple[Any, ...]], list[int], list[list[int]]]:
    """Groups as Python sees them: sorted distinct row tuples, each with its rows in order."""
    rows: dict[tuple[Any, ...], list[int]] = {}
    for i, key in enumerate(zip(*(c.tolist() for c in columns), strict=True)):
        rows.setdefault(key, []).append(i)
    keys = sorted(rows)
    return keys, [len(rows[k]) for k in keys], [rows[k] for k in keys]


def _column(kind: str, values: list[int]) -> np.ndarray:
    array = np.asarray(values, dtype=np.int64)
    if kind == "strings":
        # lengths differ and some ids are prefixes of others ("a", "aa", "ab")
        names = np.array(["", "a", "aa", "ab", "b", "ba", "\u00e9", "z", "zz"])
        return np.char.add("g", names[array % len(names)])
    if kind == "booleans":
        return array % 2 == 1
    if kind == "negative":
        return array * -7 + 3
    return array * 1_000_003


@st.composite
def _columns(draw: st.DrawFn) -> list[np.ndarray]:
    rows = draw(st.integers(1, 80))
    width = draw(st.integers(1, 3))
    spread = draw(st.sampled_from([1, 2, 5, 40]))
    kinds = st.sampled_from(["strings", "booleans", "negative", "integers"])
    return [
        _column(draw(kinds), draw(st.lists(st.integers(0, spread), min_size=rows, max_size=rows)))
        for _ in range(width)
    ]


def _check(columns: list[np.ndarray]) -> None:
    keys, sizes, parts = _split(columns)
    want_keys, want_sizes, want_parts = _by_definition(columns)
    assert [tuple(k) for k in zip(*(c.tolist() for c in keys), strict=True)] == want_keys
    assert sizes.dtype == np.int64 and sizes.tolist() == want_sizes
    assert [p.tolist() for p in parts] == want_parts
    assert all(p.dtype == np.intp for p in parts)
    for key, column in zip(keys, columns, strict=True):
        assert key.dtype == column.dtype


@settings(max_examples=150, deadline=None)
@given(_columns())
def test_groups_are_the_distinct_rows_in_order(columns: list[np.ndarray]) -> None:
    _check(columns)


@settings(max_examples=100, deadline=None)
@given(_columns())
def test_codes_follow_the_order_of_the_values(columns: list[np.ndarray]) -> None:
    code, count = group_codes(columns)
    keys, _, _ = _by_definition(columns)
    tuples = list(zip(*(c.tolist() for c in columns), strict=True))
    assert count == len(keys)
    assert code.tolist() == [keys.index(t) for t in tuples]


def test_many_columns_of_many_values_do_not_overflow() -> None:
    rng = np.random.default_rng(0)
    columns = [rng.integers(0, 2**40, 5_000) for _ in range(6)]
    columns[3][:2500] = 7  # some rows share a prefix of values
    columns[4][:10] = columns[4][10:20]
    _check(columns)


@pytest.mark.parametrize("groups", [1, 3, 255, 256, 70_000])
def test_the_code_width_changes_nothing(groups: int) -> None:
    rng = np.random.default_rng(groups)
    column = rng.integers(0, groups, 150_000)
    keys, sizes, parts = _split([column])
    assert keys[0].tolist() == np.unique(column).tolist()
    assert sizes.tolist() == np.bincount(column)[np.unique(column)].tolist()
    order = np.argsort(column, kind="stable")
    assert np.array_equal(np.concatenate(parts), order)
    assert [column[p[0]] for p in parts] == keys[0].tolist()


def test_no_rows() -> None:
    keys, sizes, parts = _split([np.array([], dtype=str), np.array([], dtype=np.int64)])
    assert [len(k) for k in keys] == [0, 0] and len(sizes) == 0 and parts == []


def test_nan_free_equal_strings_of_other_widths_are_one_group() -> None:
    a = np.array(["x", "xy", "x"], dtype="<U5")
    keys, sizes, parts = _split([a])
    assert keys[0].tolist() == ["x", "xy"] and sizes.tolist() == [2, 1]
    assert [p.tolist() for p in parts] == [[0, 2], [1]]


@st.composite
def _tables(draw: st.DrawFn) -> tuple[pa.Table, list[str]]:
    rows = draw(st.integers(1, 60))
    width = draw(st.integers(1, 3))
    chunks = draw(st.integers(1, 3))
    columns = {}
    for i in range(width):
        kind = draw(st.sampled_from(["string", "large_string", "int8", "uint64", "int64", "bool"]))
        picks = draw(st.lists(st.integers(0, 6), min_size=rows, max_size=rows))
        if kind in ("string", "large_string"):
            # a trailing NUL is stripped by numpy's strings: "a\x00" and "a" are one group
            names = ["a", "a\x00", "ab", "b", "\u00e9t\u00e9", "Z", "zz"]
            values: list[Any] = [names[p] for p in picks]
        elif kind == "bool":
            values = [p % 2 == 0 for p in picks]
        elif kind == "uint64":
            values = [2**64 - 1 - p if p % 2 else p for p in picks]
        else:
            values = [p - 3 for p in picks]
        cut = sorted(draw(st.lists(st.integers(0, rows), min_size=chunks - 1, max_size=chunks - 1)))
        bounds = [0, *cut, rows]
        typ = getattr(pa, kind if kind != "bool" else "bool_")()
        columns[f"c{i}"] = pa.chunked_array(
            [pa.array(values[a:b], typ) for a, b in itertools.pairwise(bounds)], typ
        )
    return pa.table(columns), list(columns)


@settings(max_examples=200, deadline=None)
@given(_tables())
def test_groups_of_a_table_are_those_of_its_converted_columns(found: Any) -> None:
    table, names = found
    got = table_groups(table, names)
    assert got is not None
    want = _split(group_columns("m", tuple(names), tuple(group_arrays(table, names))))
    for a, b in zip(got[0], want[0], strict=True):
        assert a.dtype == b.dtype and a.tolist() == b.tolist()
    assert got[1].tolist() == want[1].tolist()
    assert [p.tolist() for p in got[2]] == [p.tolist() for p in want[2]]


@pytest.mark.parametrize(
    "column",
    [
        pa.array(["a", None]),
        pa.array(["a", ""]),
        pa.array([1.5, 2.0]),
        pa.array([None, None], pa.string()),
        pa.array(["a", "b"]).dictionary_encode(),
    ],
)
def test_columns_the_conversion_checks_are_left_to_it(column: Any) -> None:
    assert table_groups(pa.table({"g": column}), ["g"]) is None
    assert table_groups(pa.table({"g": column}).slice(0, 0), ["g"]) is None
