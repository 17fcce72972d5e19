"""scorekit.evaluate over files: every format, directories and globs, types that change
below the first block, long lines, and every kind of bad file."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from scorekit import evaluate
from scorekit.engines.stream import read_chunks
from scorekit.errors import ConfigError, InputError
from scorekit.io import _blocks
from scorekit.io._progress import Progress
from scorekit.io._sources import ReadPlan, open_source
from scorekit.io._tables import read_table
from tables import write

RNG = np.random.default_rng(11)
N = 1500
TABLE = pa.table(
    {
        "y_true": RNG.choice(["cat", "dog", "bird"], N),
        "y_pred": RNG.choice(["cat", "dog", "bird"], N),
        "target": np.round(RNG.normal(size=N), 3),
        "estimate": np.round(RNG.normal(size=N), 3),
        "note": RNG.choice(["a", "b, c", "d"], N),
    }
)
METRICS = ["accuracy", "f1:macro", "mcc"]
REGRESSION = {"y_true": "target", "y_pred": "estimate"}


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of about 1 kB, so that a file of a few thousand lines has many."""
    monkeypatch.setattr(_blocks, "_MIN_BLOCK", 256)


def _error(*args: Any, **kwargs: Any) -> str:
    with pytest.raises(InputError) as info:
        evaluate(*args, progress=False, **kwargs)
    return str(info.value)


@pytest.mark.parametrize(
    "name",
    [
        "t.csv",
        "t.tsv",
        "t.csv.gz",
        "t.tsv.gz",
        "t.parquet",
        "t.pq",
        "t.jsonl",
        "t.ndjson",
        "t.jsonl.gz",
    ],
)
@pytest.mark.parametrize("chunk_size", [7, 100_000])
def test_every_format_equals_the_table(tmp_path: Path, name: str, chunk_size: int) -> None:
    path = write(TABLE, tmp_path / name)
    expected = evaluate(TABLE, METRICS).values
    result = evaluate(path, METRICS, chunk_size=chunk_size, progress=False)
    assert result.values == expected and result.rows == N
    regression = evaluate(path, ["mse", "mae"], columns=REGRESSION, chunk_size=chunk_size)
    whole = evaluate(TABLE, ["mse", "mae"], columns=REGRESSION, chunk_size=chunk_size)
    assert regression.values == whole.values  # the same chunks add in the same order
    in_one = evaluate(TABLE, ["mse", "mae"], columns=REGRESSION, chunk_size=N).values
    assert regression.values == pytest.approx(in_one, rel=1e-12)


def test_only_the_columns_the_metrics_need_are_read(tmp_path: Path) -> None:
    lines = ["y_true,junk,y_pred"] + [f"1,{i},1" for i in range(2000)] + ["0,not a number,0"]
    path = tmp_path / "junk.csv"
    path.write_text("\n".join(lines) + "\n")
    assert evaluate(path, ["accuracy"], chunk_size=100).values == {"accuracy": 1.0}
    records = [{"y_true": 1, "y_pred": 1}] * 3000 + [{"y_true": 0, "y_pred": 1, "new": [1, 2]}]
    jsonl = tmp_path / "extra.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in records))
    result = evaluate(jsonl, ["accuracy"], chunk_size=100)
    assert result.values == {"accuracy": 3000 / 3001}
    nested = pa.table({"y_true": [1, 0], "y_pred": [1, 1], "meta": [{"a": 1}, {"a": 2}]})
    pq.write_table(nested, tmp_path / "nested.parquet")
    assert evaluate(tmp_path / "nested.parquet", ["accuracy"]).values == {"accuracy": 0.5}


def test_a_directory_reads_every_table_file_by_name(tmp_path: Path) -> None:
    write(TABLE.slice(0, 500), tmp_path / "part-0.csv")
    write(TABLE.slice(500, 500), tmp_path / "part-1.parquet")
    write(TABLE.slice(1000), tmp_path / "part-2.jsonl.gz")
    (tmp_path / "_SUCCESS").write_text("")
    (tmp_path / ".part-0.csv.crc").write_text("x")
    (tmp_path / ".hidden.csv").write_text("y_true,y_pred\nnot,read\n")
    (tmp_path / "README.md").write_text("# data\n")
    (tmp_path / "sub").mkdir()
    write(TABLE, tmp_path / "sub" / "nested.csv")
    source = open_source(tmp_path)
    assert [p.name for p in source.files] == ["part-0.csv", "part-1.parquet", "part-2.jsonl.gz"]
    result = evaluate(tmp_path, METRICS, chunk_size=128)
    assert result.rows == N
    assert result.values == evaluate(TABLE, METRICS).values


def test_globs_match_files_in_sorted_order(tmp_path: Path) -> None:
    for i in range(3):
        write(TABLE.slice(500 * i, 500), tmp_path / f"part-{i}.parquet")
    (tmp_path / "deep").mkdir()
    write(TABLE, tmp_path / "deep" / "all.parquet")
    assert evaluate(str(tmp_path / "part-*.parquet"), METRICS).values == (
        evaluate(TABLE, METRICS).values
    )
    everything = evaluate(str(tmp_path / "**" / "*.parquet"), ["accuracy"])
    assert everything.rows == 2 * N


def test_errors_in_later_chunks_name_the_file_line(tmp_path: Path, small_blocks: None) -> None:
    lines = ["y_true,y_pred"] + ["0.5,0.25"] * 2500 + ["", "0.5,abc", "1,1"]
    path = tmp_path / "scores.csv"
    path.write_text("\n".join(lines) + "\n")
    assert _error(path, ["mse"], chunk_size=64) == (
        f"{path}, line 2503, column 'y_pred': not a number; got 'abc', expected a number."
    )
    table = pa.table({"y_true": [1.0] * 3000, "y_pred": [1.0] * 1233 + [None] + [1.0] * 1766})
    pq.write_table(table, tmp_path / "gap.parquet", row_group_size=500)
    assert _error(tmp_path / "gap.parquet", ["mse"], chunk_size=100) == (
        f"{tmp_path / 'gap.parquet'}, row 1234, column 'y_pred': missing value; "
        "got an empty cell or null, expected a value."
    )
    records = [{"y_true": 1.0, "y_pred": 2.0}] * 2000 + [{"y_true": 1.0, "y_pred": None}]
    jsonl = tmp_path / "gap.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert _error(jsonl, ["mse"], chunk_size=100).startswith(
        f"{jsonl}, line 2001, column 'y_pred': missing value"
    )


# types that change below the first block --------------------------------------------------


def _csv(path: Path, header: str, rows: list[str]) -> Path:
    path.write_text(header + "\n" + "\n".join(rows) + "\n")
    return path


def test_csv_integers_then_a_decimal_read_as_floats(tmp_path: Path, small_blocks: None) -> None:
    rows = [f"{i % 7},{i % 5}" for i in range(3000)] + ["1,1.5", "2,3"]
    path = _csv(tmp_path / "w.csv", "y_true,y_pred", rows)
    whole = read_table(path)
    assert whole.schema.field("y_pred").type == pa.float64()
    result = evaluate(path, ["mse", "max_error"], chunk_size=100)
    assert result.values == evaluate(whole, ["mse", "max_error"]).values
    assert result.rows == 3002


def test_csv_labels_become_strings_as_in_a_whole_read(tmp_path: Path, small_blocks: None) -> None:
    rows = [f"{i % 2},{(i // 3) % 2}" for i in range(3000)] + ["cat,cat", "0,dog"]
    path = _csv(tmp_path / "labels.csv", "y_true,y_pred", rows)
    whole = read_table(path)
    assert whole.schema.field("y_true").type == pa.string()
    assert whole.schema.field("y_pred").type == pa.string()
    result = evaluate(path, ["accuracy", "confusion_matrix"], chunk_size=100)
    expected = evaluate(whole, ["accuracy", "confusion_matrix"])
    assert result.values["accuracy"] == expected.values["accuracy"]
    np.testing.assert_array_equal(
        result.values["confusion_matrix"], expected.values["confusion_matrix"]
    )
    assert result.states["accuracy"].equals(expected.states["accuracy"])
    assert list(result.states["accuracy"].labels) == ["0", "1", "cat", "dog"]


def test_csv_zeros_and_ones_then_true_read_as_booleans(tmp_path: Path, small_blocks: None) -> None:
    rows = [f"{i % 2},{(i // 2) % 2}" for i in range(3000)] + ["true,false"]
    path = _csv(tmp_path / "flags.csv", "y_true,y_pred", rows)
    whole = read_table(path)
    assert whole.schema.field("y_true").type == pa.bool_()
    result = evaluate(path, ["accuracy", "f1"], chunk_size=100)
    assert result.values == evaluate(whole, ["accuracy", "f1"]).values
    assert result.states["f1"].labels.dtype == np.bool_


def test_a_second_file_follows_the_types_of_the_first(tmp_path: Path) -> None:
    _csv(tmp_path / "a.csv", "y_true,y_pred", ["1,2", "3,4"])
    _csv(tmp_path / "b.csv", "y_true,y_pred", ["1.5,2", "3,4"])
    result = evaluate(tmp_path, ["mse"])
    assert result.values == {"mse": pytest.approx((1 + 1 + 0.25 + 1) / 4)}


def test_jsonl_integers_then_a_decimal(tmp_path: Path, small_blocks: None) -> None:
    records = [{"y_true": i % 3, "y_pred": i % 4} for i in range(3000)]
    records.append({"y_true": 1.5, "y_pred": 2})
    path = tmp_path / "w.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    whole = read_table(path)
    result = evaluate(path, ["mse"], chunk_size=100)
    assert result.values == evaluate(whole, ["mse"]).values


def test_jsonl_string_below_numbers_names_the_line(tmp_path: Path, small_blocks: None) -> None:
    records = [{"y_true": i % 3, "y_pred": 1} for i in range(3000)]
    records.append({"y_true": "two", "y_pred": 2})
    path = tmp_path / "x.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert _error(path, ["mse"]) == (
        f"{path}, line 3001, column 'y_true': value is a string where earlier lines have a "
        "number; got 'two', expected a number."
    )


@pytest.mark.parametrize("name", ["long.csv", "long.jsonl"])
def test_a_line_longer_than_the_block(tmp_path: Path, small_blocks: None, name: str) -> None:
    records = [{"y_true": 1, "y_pred": i % 2, "note": "x"} for i in range(5000)]
    records[4000]["note"] = "y" * 300_000
    path = write(pa.Table.from_pylist(records), tmp_path / name)
    result = evaluate(path, ["accuracy"], chunk_size=64)
    assert result.rows == 5000
    assert result.values == {"accuracy": 0.5}


# bad input ------------------------------------------------------------------------------


def test_missing_column(tmp_path: Path) -> None:
    path = _csv(tmp_path / "a.csv", "y_true,y_prd", ["1,1"])
    assert _error(path, ["accuracy"]) == (
        "accuracy: no column for its input 'y_pred'; got 'y_pred', expected one of the columns "
        "present: 'y_true', 'y_prd'; map it with columns={'y_pred': NAME}."
    )
    folder = tmp_path / "parts"
    folder.mkdir()
    _csv(folder / "0.csv", "y_true,y_pred", ["1,1"])
    second = _csv(folder / "1.csv", "y_true,y_prd", ["1,1"])
    assert _error(folder, ["accuracy"]) == (
        f"{second}: no such column; got 'y_pred', expected one of the columns present: "
        "'y_true', 'y_prd' (close: 'y_prd', 'y_true')."
    )


def test_column_of_the_wrong_type(tmp_path: Path) -> None:
    table = pa.table({"y_true": [1.0, 2.0], "y_pred": pa.array([[1.0], [2.0]])})
    pq.write_table(table, tmp_path / "lists.parquet")
    assert _error(tmp_path / "lists.parquet", ["mse"]) == (
        f"{tmp_path / 'lists.parquet'}: column 'y_pred' must be numeric; "
        "got list<element: double>, expected a column of numbers."
    )
    path = _csv(tmp_path / "text.csv", "y_true,y_pred", ["1,2", "3,four"])
    assert _error(path, ["mse"]) == (
        f"{path}, line 3, column 'y_pred': not a number; got 'four', expected a number."
    )


def test_column_types_that_differ_between_files(tmp_path: Path) -> None:
    pq.write_table(pa.table({"y_true": [1, 0], "y_pred": [1, 1]}), tmp_path / "a.parquet")
    pq.write_table(pa.table({"y_true": ["1"], "y_pred": ["0"]}), tmp_path / "b.parquet")
    assert _error(tmp_path, ["accuracy"]) == (
        f"{tmp_path / 'b.parquet'}, column 'y_true': column type differs from the first file; "
        f"got string here, int64 in {tmp_path / 'a.parquet'}, "
        "expected the same type of value in every file."
    )


def test_corrupt_parquet(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.parquet"
    garbage.write_bytes(b"PAR1" + bytes(range(256)) * 4)
    assert _error(garbage, ["accuracy"]).startswith(f"{garbage}: cannot read as Parquet; got ")
    whole = tmp_path / "whole.parquet"
    pq.write_table(pa.table({"y_true": [1, 0] * 500, "y_pred": [1, 1] * 500}), whole)
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(whole.read_bytes()[:-40])
    text = _error(cut, ["accuracy"])
    assert text.startswith(f"{cut}: cannot read as Parquet; got ")
    assert text.endswith("expected a valid Parquet file.")


def test_ragged_csv_row_names_its_line(tmp_path: Path, small_blocks: None) -> None:
    short = _csv(tmp_path / "short.csv", "y_true,y_pred", ["1,1", "", "0,1,1", "1,0"])
    assert _error(short, ["accuracy"]) == (
        f"{short}, line 4: row has the wrong number of fields; got 3 fields: '0,1,1', "
        "expected 2 fields as in the header."
    )
    rows = ["1,1"] * 3000 + ["1"] + ["0,0"] * 10
    late = _csv(tmp_path / "late.tsv", "y_true\ty_pred", [r.replace(",", "\t") for r in rows])
    assert _error(late, ["accuracy"], chunk_size=50) == (
        f"{late}, line 3002: row has the wrong number of fields; got 1 fields: '1', "
        "expected 2 fields as in the header."
    )


def test_empty_directory_and_directory_without_tables(tmp_path: Path) -> None:
    assert _error(tmp_path, ["accuracy"]).startswith(
        f"{tmp_path}: no readable file in the directory; expected files ending in .csv, .tsv"
    )
    (tmp_path / "notes.txt").write_text("not a table\n")
    (tmp_path / "_SUCCESS").write_text("")
    assert "no readable file in the directory" in _error(tmp_path, ["accuracy"])


def test_glob_matching_nothing_and_missing_paths(tmp_path: Path) -> None:
    pattern = str(tmp_path / "*.parquet")
    assert _error(pattern, ["accuracy"]) == (
        f"{pattern}: the pattern matches no file; expected a glob of files."
    )
    missing = tmp_path / "missing.csv"
    assert _error(missing, ["accuracy"]) == (
        f"{missing}: no such file; expected an existing file, directory or glob."
    )
    odd = tmp_path / "data.xlsx"
    odd.write_bytes(b"PK")
    assert _error(odd, ["accuracy"]).startswith(f"{odd}: unknown file type; got extension '.xlsx'")


def test_empty_and_unreadable_text_files(tmp_path: Path) -> None:
    (tmp_path / "e.csv").write_text("")
    assert _error(tmp_path / "e.csv", ["accuracy"]) == (
        f"{tmp_path / 'e.csv'}: file is empty; expected a header line and data rows."
    )
    (tmp_path / "e.jsonl").write_text("\n\n")
    assert _error(tmp_path / "e.jsonl", ["accuracy"]) == (
        f"{tmp_path / 'e.jsonl'}: file is empty; expected one JSON object per line."
    )
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"y_true": 1, "y_pred": 1}\n{"y_true": 1, "y_pred": \n')
    assert _error(bad, ["accuracy"]).startswith(f"{bad}, line 2: invalid JSON")
    broken = tmp_path / "broken.csv.gz"
    broken.write_bytes(gzip.compress(b"y_true,y_pred\n" + b"1,1\n" * 1000)[:-30])
    assert _error(broken, ["accuracy"]).startswith(f"{broken}: ")


def test_header_only_file_is_an_empty_input(tmp_path: Path) -> None:
    path = _csv(tmp_path / "h.csv", "y_true,y_pred", [])
    path.write_text("y_true,y_pred\n")
    assert _error(path, ["accuracy"]) == (
        "accuracy: empty input; got 0 samples, expected at least one sample."
    )


def test_options_of_other_engines_are_refused(tmp_path: Path) -> None:
    path = write(TABLE, tmp_path / "t.csv")
    with pytest.raises(ConfigError, match="scheduler is an option of the Dask engine"):
        evaluate(path, ["accuracy"], scheduler="tcp://127.0.0.1:8786")


def test_bytes_read_reach_the_file_sizes(tmp_path: Path) -> None:
    paths = [
        write(TABLE, tmp_path / "a.csv.gz"),
        write(TABLE, tmp_path / "b.parquet"),
        write(TABLE, tmp_path / "c.jsonl"),
    ]
    source = open_source(tmp_path)
    total = sum(p.stat().st_size for p in paths)
    assert source.total_bytes == total
    bar = Progress(total_bytes=total, enabled=False)
    seen = []
    for chunk in source.chunks(["y_true"], 100, bar, ReadPlan()):
        seen.append(bar.bytes)
        assert chunk.num_rows <= 100
    assert bar.rows == 3 * N
    assert bar.bytes == total
    assert seen == sorted(seen) and seen[0] < total


def test_read_chunks_calls_again_with_settled_types(tmp_path: Path, small_blocks: None) -> None:
    rows = [f"{i % 2},{i % 3}" for i in range(3000)] + ["x,1.5"]
    path = _csv(tmp_path / "two.csv", "a,b", rows)
    calls: list[list[tuple[str, str]]] = []

    def use(chunks: Any) -> int:
        calls.append([])
        total = 0
        for chunk in chunks:
            calls[-1].append((str(chunk.schema.field("a").type), str(chunk.schema.field("b").type)))
            total += chunk.num_rows
        return total

    assert read_chunks(path, ["a", "b"], 500, use) == 3001
    # the first read stops at the first column that does not fit; the types of both
    # columns are settled before the second read, which sees them from the start
    assert len(calls) == 2
    assert calls[0][0] == ("int64", "int64")
    assert set(calls[1]) == {("string", "double")}


# optional columns over several files ---------------------------------------------------------

_PLAIN = {"prompt_tokens": 3, "output_tokens": 2, "start": 0.0, "first_token": 0.1, "end": 0.5}
_TIMED = {
    "prompt_tokens": 3,
    "output_tokens": 3,
    "start": 1.0,
    "first_token": 1.1,
    "end": 1.6,
    "token_times": [1.1, 1.35, 1.6],
}


def _jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.mark.parametrize("names", [("a", "b"), ("b", "a")])
def test_optional_column_in_some_files_only(tmp_path: Path, names: tuple[str, str]) -> None:
    # the files' columns are the union of their headers; a file without token_times
    # reads it as nulls, as the same records in one file do
    _jsonl(tmp_path / f"{names[0]}.jsonl", [_PLAIN])
    _jsonl(tmp_path / f"{names[1]}.jsonl", [_TIMED])
    (tmp_path / "whole").mkdir()
    records = [_PLAIN, _TIMED] if names[0] == "a" else [_TIMED, _PLAIN]
    one = _jsonl(tmp_path / "whole" / "one.jsonl", records)
    whole = evaluate(one, ["itl:max", "itl:mean"], progress=False).values
    assert whole == {"itl:max": pytest.approx(0.25), "itl:mean": pytest.approx(0.25)}
    for size in (1, 10):
        got = evaluate(
            str(tmp_path / "*.jsonl"), ["itl:max", "itl:mean"], chunk_size=size, progress=False
        )
        assert got.values == whole


def test_required_column_missing_from_one_file_names_it(tmp_path: Path) -> None:
    _jsonl(tmp_path / "a.jsonl", [_TIMED])
    partial = {k: v for k, v in _PLAIN.items() if k != "end"}
    bad = _jsonl(tmp_path / "b.jsonl", [partial])
    with pytest.raises(InputError, match="no such column") as info:
        evaluate(str(tmp_path / "*.jsonl"), ["itl:max"], progress=False)
    assert str(bad) in str(info.value) and "'end'" in str(info.value)
