"""Reading label and score tables: every format, the column helpers and every error path."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorekit.errors import InputError
from scorekit.io import (
    SUPPORTED_EXTENSIONS,
    label_array,
    label_matrix,
    read_table,
    score_array,
    score_matrix,
    weight_array,
)

TABLE = pa.table(
    {
        "label": pa.array([1, 0, 1, 1], pa.int64()),
        "name": ["cat", "dog", "cat", "bird"],
        "score": [0.9, 0.1, 0.65, 0.3],
        "flag": [True, False, True, True],
    }
)


def _write(table: pa.Table, path: Path) -> Path:
    """Write ``table`` in the format its file name says."""
    name = path.name
    if name.endswith((".parquet", ".pq")):
        pq.write_table(table, path)
    elif ".csv" in name or ".tsv" in name:
        sink = pa.BufferOutputStream()
        pacsv.write_csv(table, sink, pacsv.WriteOptions(delimiter="\t" if ".tsv" in name else ","))
        data = sink.getvalue().to_pybytes()
        path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    else:
        text = "".join(json.dumps(row) + "\n" for row in table.to_pylist())
        data = text.encode()
        path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return path


def _error(func: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(InputError) as info:
        func(*args, **kwargs)
    return str(info.value)


@pytest.mark.parametrize("ext", SUPPORTED_EXTENSIONS)
def test_every_format_reads_back_the_same_values(tmp_path: Path, ext: str) -> None:
    path = _write(TABLE, tmp_path / f"data{ext}")
    table = read_table(path)
    assert table.column_names == TABLE.column_names
    labels = label_array(table, "label")
    assert labels.dtype.kind == "i"
    np.testing.assert_array_equal(labels, [1, 0, 1, 1])
    names = label_array(table, "name")
    assert names.dtype.kind == "U"
    assert names.tolist() == ["cat", "dog", "cat", "bird"]
    assert label_array(table, "flag").dtype == np.bool_
    scores = score_array(table, "score")
    assert scores.dtype == np.float64
    np.testing.assert_array_equal(scores, [0.9, 0.1, 0.65, 0.3])


def test_columns_are_selected_in_the_order_given(tmp_path: Path) -> None:
    path = _write(TABLE, tmp_path / "data.csv")
    table = read_table(path, columns=["score", "label", "score"])
    assert table.column_names == ["score", "label"]
    assert table.num_rows == 4


@pytest.mark.parametrize("ext", [".csv", ".parquet", ".jsonl"])
def test_missing_column_names_it_lists_present_and_close_matches(tmp_path: Path, ext: str) -> None:
    path = _write(TABLE, tmp_path / f"data{ext}")
    text = _error(read_table, path, columns=["label", "scroe"])
    assert str(path) in text
    assert "no such column" in text
    assert "'scroe'" in text
    for name in TABLE.column_names:
        assert repr(name) in text
    assert "close: 'score'" in text


def test_missing_column_through_a_helper(tmp_path: Path) -> None:
    table = read_table(_write(TABLE, tmp_path / "data.csv"))
    text = _error(score_array, table, "scores")
    assert "no such column" in text and "close: 'score'" in text


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.csv"
    text = _error(read_table, path)
    assert str(path) in text and "no such file" in text


def test_directory_is_not_a_file(tmp_path: Path) -> None:
    folder = tmp_path / "folder.csv"
    folder.mkdir()
    assert "is a directory" in _error(read_table, folder)


@pytest.mark.parametrize("name", ["data.txt", "data", "data.json", "data.parquet.gz"])
def test_unknown_extension_lists_the_supported_ones(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text("a\n1\n")
    text = _error(read_table, path)
    assert "unknown file type" in text and str(path) in text
    for ext in (".csv", ".tsv", ".parquet", ".pq", ".jsonl", ".ndjson", ".jsonl.gz"):
        assert repr(ext) in text


def test_extension_is_case_insensitive(tmp_path: Path) -> None:
    path = tmp_path / "DATA.CSV"
    path.write_text("a\n1\n")
    assert read_table(path).num_rows == 1


@pytest.mark.parametrize(
    ("content", "line", "fields"),
    [
        ("a,b,c\n1,2,3\n4,5\n6,7,8\n", 3, "2 fields"),
        ("a,b,c\n1,2,3\n4,5,6\n7,8,9,10\n", 4, "4 fields"),
        ("a,b,c\n\n1,2,3\n\n4,5\n", 5, "2 fields"),
    ],
)
def test_ragged_csv_row_gives_its_line_number(
    tmp_path: Path, content: str, line: int, fields: str
) -> None:
    path = tmp_path / "ragged.csv"
    path.write_text(content)
    for columns in (None, ["a"]):
        text = _error(read_table, path, columns=columns)
        assert f"{path}, line {line}:" in text
        assert "wrong number of fields" in text
        assert fields in text and "3 fields as in the header" in text


def test_ragged_tsv_row(tmp_path: Path) -> None:
    path = tmp_path / "ragged.tsv"
    path.write_text("a\tb\n1\t2\n3\n")
    assert f"{path}, line 3:" in _error(read_table, path)


def test_ragged_row_far_into_a_large_file(tmp_path: Path) -> None:
    rows = [f"{i},{i % 2}" for i in range(50_000)]
    rows[41_234] = "1,2,3"
    path = tmp_path / "big.csv"
    path.write_text("x,y\n" + "\n".join(rows) + "\n")
    assert f"{path}, line 41236:" in _error(read_table, path)


@pytest.mark.parametrize(
    ("content", "line", "value"),
    [
        ("label,score\n1,0.5\n0,abc\n1,0.2\n", 3, "'abc'"),
        ("label,score\n1,0.5\n\n0,0.25\n1,n/a\n", 5, "'n/a'"),
        ("label,score\n1,0.5\n0,1.5.2\n", 3, "'1.5.2'"),
    ],
)
def test_non_numeric_score_names_line_column_and_value(
    tmp_path: Path, content: str, line: int, value: str
) -> None:
    path = tmp_path / "scores.csv"
    path.write_text(content)
    table = read_table(path)
    text = _error(score_array, table, "score")
    assert f"{path}, line {line}, column 'score'" in text
    assert "not a number" in text and value in text


def test_non_numeric_value_after_many_rows_is_found(tmp_path: Path) -> None:
    rows = [f"{i % 2},{i / 70_000}" for i in range(70_000)]
    rows[65_000] = "1,oops"
    path = tmp_path / "big.csv"
    path.write_text("label,score\n" + "\n".join(rows) + "\n")
    text = _error(score_array, read_table(path), "score")
    assert "line 65002, column 'score'" in text and "'oops'" in text


def test_numeric_strings_are_accepted_as_scores() -> None:
    table = pa.table({"s": ["0.5", " 2", "-1e-3", "+.25"]})
    np.testing.assert_array_equal(score_array(table, "s"), [0.5, 2.0, -1e-3, 0.25])


def test_non_numeric_in_parquet_names_the_row(tmp_path: Path) -> None:
    path = _write(pa.table({"score": ["0.1", "0.2", "high"]}), tmp_path / "s.parquet")
    text = _error(score_array, read_table(path), "score")
    assert f"{path}, row 3, column 'score'" in text and "'high'" in text


def test_jsonl_value_changing_type_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"y": 1, "s": 0.5}\n{"y": 0, "s": 0.25}\n{"y": 1, "s": "x"}\n')
    text = _error(read_table, path)
    assert f"{path}, line 3, column 's'" in text and "'x'" in text
    assert "a number" in text


def test_jsonl_invalid_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.ndjson"
    path.write_text('{"y": 1}\n{"y": \n')
    text = _error(read_table, path)
    assert f"{path}, line 2" in text and "invalid JSON" in text


def test_jsonl_line_that_is_not_an_object(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"y": 1}\n[1, 2]\n')
    text = _error(read_table, path)
    assert f"{path}, line 2" in text and "not a JSON object" in text


def test_corrupt_parquet(tmp_path: Path) -> None:
    path = tmp_path / "broken.parquet"
    path.write_bytes(b"not parquet at all")
    text = _error(read_table, path)
    assert str(path) in text and "cannot read as Parquet" in text
    assert "Traceback" not in text


def test_empty_csv(tmp_path: Path) -> None:
    path = tmp_path / "empty.csv"
    path.write_text("")
    assert "file is empty" in _error(read_table, path)


def test_header_only_csv_gives_empty_arrays(tmp_path: Path) -> None:
    path = tmp_path / "head.csv"
    path.write_text("label,score\n")
    table = read_table(path)
    assert label_array(table, "label").shape == (0,)
    assert score_array(table, "score").shape == (0,)


def test_duplicate_column_name_is_refused_when_used(tmp_path: Path) -> None:
    path = tmp_path / "dup.csv"
    path.write_text("a,a,b\n1,2,3\n")
    text = _error(read_table, path, columns=["a"])
    assert "more than once" in text and "'a'" in text
    assert read_table(path, columns=["b"]).column_names == ["b"]


@pytest.mark.parametrize(
    ("content", "column", "line"),
    [
        ("y,s\n1,0.5\n,0.2\n", "y", 3),
        ("y,s\n1,0.5\nNaN,0.2\n", "y", 3),
        ("y,s\na,0.5\nb,0.2\n,0.1\n", "y", 4),
        ("y,s\n1,0.5\n0,\n", "s", 3),
        ("y,s\n1,0.5\n0,nan\n", "s", 3),
    ],
)
def test_empty_and_nan_cells_are_missing_values(
    tmp_path: Path, content: str, column: str, line: int
) -> None:
    path = tmp_path / "cells.csv"
    path.write_text(content)
    table = read_table(path)
    reader = label_array if column == "y" else score_array
    text = _error(reader, table, column)
    assert f"line {line}, column {column!r}" in text and "missing value" in text


def test_missing_key_in_jsonl_is_a_missing_value(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text('{"y": 1, "s": 0.5}\n\n{"y": 0}\n')
    text = _error(score_array, read_table(path), "s")
    assert f"{path}, line 3, column 's'" in text and "missing value" in text


def test_nan_label_in_parquet(tmp_path: Path) -> None:
    path = _write(pa.table({"y": [1.0, float("nan"), 0.0]}), tmp_path / "y.parquet")
    text = _error(label_array, read_table(path), "y")
    assert "row 2, column 'y'" in text and "missing value" in text


def test_empty_string_label_in_parquet(tmp_path: Path) -> None:
    path = _write(pa.table({"y": ["a", "b", ""]}), tmp_path / "y.parquet")
    text = _error(label_array, read_table(path), "y")
    assert "row 3, column 'y'" in text and "empty label" in text


def test_infinite_score(tmp_path: Path) -> None:
    path = tmp_path / "inf.csv"
    path.write_text("s\n0.5\ninf\n")
    text = _error(score_array, read_table(path), "s")
    assert "line 3, column 's'" in text and "non-finite" in text


def test_label_column_of_an_unsupported_type(tmp_path: Path) -> None:
    path = _write(pa.table({"y": pa.array([[1], [2]])}), tmp_path / "l.parquet")
    text = _error(label_array, read_table(path), "y")
    assert "unsupported type" in text and "'y'" in text


def test_score_column_of_an_unsupported_type() -> None:
    text = _error(score_array, pa.table({"s": pa.array([[1.0], [2.0]])}), "s")
    assert "must be numeric" in text


def test_dictionary_encoded_labels_are_decoded(tmp_path: Path) -> None:
    column = pa.array(["b", "a", "b"]).dictionary_encode()
    path = _write(pa.table({"y": column}), tmp_path / "d.parquet")
    assert label_array(read_table(path), "y").tolist() == ["b", "a", "b"]


def test_label_matrix_accepts_ints_bools_and_zero_one_strings() -> None:
    table = pa.table({"a": [1, 0], "b": [False, True], "c": ["1", "0"], "d": [0.0, 1.0]})
    out = label_matrix(table, ["a", "b", "c", "d"])
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, [[1, 0, 1, 0], [0, 1, 0, 1]])


@pytest.mark.parametrize(
    ("values", "row", "shown"),
    [([0, 1, 2], 3, "2"), (["1", "yes"], 2, "'yes'"), ([0.0, 0.5], 2, "0.5")],
)
def test_label_matrix_refuses_values_other_than_zero_and_one(
    values: list[Any], row: int, shown: str
) -> None:
    table = pa.table({"a": [1] * len(values), "b": values})
    text = _error(label_matrix, table, ["a", "b"])
    assert f"row {row}, column 'b'" in text and "not a 0/1 indicator" in text
    assert f"got {shown}" in text


def test_score_matrix_stacks_columns() -> None:
    table = pa.table({"p0": [0.2, 0.6], "p1": [0.8, 0.4]})
    np.testing.assert_array_equal(score_matrix(table, ["p1", "p0"]), [[0.8, 0.2], [0.4, 0.6]])


def test_negative_weight(tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    path.write_text("w\n1\n0\n-2\n")
    table = read_table(path)
    text = _error(weight_array, table, "w")
    assert "line 4, column 'w'" in text and "negative sample weight" in text
    path.write_text("w\n1\n0\n2.5\n")
    np.testing.assert_array_equal(weight_array(read_table(path), "w"), [1.0, 0.0, 2.5])


def test_reading_does_not_change_the_file(tmp_path: Path) -> None:
    path = _write(TABLE, tmp_path / "data.csv")
    before = path.read_bytes()
    label_array(read_table(path), "label")
    assert path.read_bytes() == before


_FINITE = st.floats(allow_nan=False, allow_infinity=False, width=64)


@given(
    scores=st.lists(_FINITE, min_size=1, max_size=30),
    ext=st.sampled_from([".csv", ".tsv", ".parquet", ".jsonl.gz"]),
)
def test_scores_round_trip_exactly(tmp_path_factory: Any, scores: list[float], ext: str) -> None:
    folder = tmp_path_factory.mktemp("rt")
    labels = [f"c{i % 3}" for i in range(len(scores))]
    path = _write(pa.table({"y": labels, "s": scores}), folder / f"t{ext}")
    table = read_table(path, columns=["s", "y"])
    np.testing.assert_array_equal(score_array(table, "s"), np.asarray(scores))
    assert label_array(table, "y").tolist() == labels


def test_import_scorekit_does_not_import_pyarrow_or_the_cli() -> None:
    code = (
        "import sys, scorekit\n"
        "bad = [m for m in ('pyarrow', 'scorekit.cli', 'scorekit.io._tables', 'pandas') "
        "if m in sys.modules]\n"
        "print(','.join(bad))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == ""


# text files read whole or not at all ---------------------------------------------------


@pytest.mark.parametrize("gz", [False, True])
def test_read_table_unclosed_quote(tmp_path: Path, gz: bool) -> None:
    body = "y,p\n" + "a,b\n" * 10 + 'a,"b\n' + "a,b\n" * 10
    path = tmp_path / ("q.csv.gz" if gz else "q.csv")
    path.write_bytes(gzip.compress(body.encode()) if gz else body.encode())
    with pytest.raises(InputError, match=r"line 12, column 3: quoted field not closed"):
        read_table(path)


def test_read_table_quoted_fields_intact(tmp_path: Path) -> None:
    path = tmp_path / "ok.csv"
    path.write_text('y,p\n"a, b","say ""hi"""\r\nc,d"e\n\n')
    assert read_table(path).to_pydict() == {"y": ["a, b", "c"], "p": ['say "hi"', 'd"e']}


def test_read_table_line_of_spaces_named(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("y,p\n\na,b\n  \na,b\n")
    with pytest.raises(InputError, match=r"s\.csv, line 4: row has the wrong number"):
        read_table(path)


def test_read_table_jsonl_depth_limit(tmp_path: Path) -> None:
    from scorekit.io import MAX_JSON_DEPTH

    ok = "[" * (MAX_JSON_DEPTH - 1) + "]" * (MAX_JSON_DEPTH - 1)
    deep = "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)
    path = tmp_path / "d.jsonl"
    path.write_text(f'{{"y": 1, "x": {ok}}}\n')
    assert read_table(path, ["y"]).num_rows == 1
    path.write_text(f'{{"y": 1, "x": {ok}}}\n{{"y": 2, "x": {deep}}}\n')
    with pytest.raises(InputError, match=rf"line 2, column {MAX_JSON_DEPTH + 14}: JSON nested"):
        read_table(path, ["y"])


def test_read_json_errors(tmp_path: Path) -> None:
    from scorekit.io import read_json

    path = tmp_path / "a.json"
    path.write_text('{\n  "a": [1,\n}')
    with pytest.raises(InputError, match=r"a\.json, line 3, column 1: invalid JSON"):
        read_json(path, "a test file")
    path.write_text('{"a": ' + "7" * 5000 + "}")
    with pytest.raises(InputError, match=r"line 1, column 7: number too long to read"):
        read_json(path, "a test file")
    path.write_text("\ufeff" + json.dumps({"a": [1.5, "x"]}))
    assert read_json(path, "a test file") == {"a": [1.5, "x"]}
