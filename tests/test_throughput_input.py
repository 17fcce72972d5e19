"""Serving records: bad input, each with its message, and the JSON Lines, CSV, Parquet readers."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from scorekit import throughput as T
from scorekit.errors import InputError

OK = {"prompt_tokens": 10, "output_tokens": 3, "start": 1.0, "first_token": 1.5, "end": 2.0}
GOOD = [OK, {**OK, "start": 2.0, "first_token": 2.25, "end": 3.0, "token_times": [2.25, 2.5, 3.0]}]


def _error(records: Any, metric: str = "ttft") -> str:
    with pytest.raises(InputError) as info:
        T.TTFT().summarize(records) if metric == "ttft" else T.report(records)
    return str(info.value)


# bad values in memory: the metric, the problem, the value and the row ---------------------


@pytest.mark.parametrize(
    ("change", "pattern"),
    [
        (
            {"end": 0.5},
            "ttft: end is before start at records[1]['end']; got end 0.5 < start 1.0, "
            "expected end >= start.",
        ),
        (
            {"output_tokens": -2},
            "ttft: negative token count at records[1]['output_tokens']; got -2, "
            "expected a count >= 0.",
        ),
        ({"prompt_tokens": -1}, "negative token count at records[1]['prompt_tokens']; got -1"),
        ({"prompt_tokens": 2.5}, "prompt_tokens is not a whole number at records[1]"),
        (
            {"first_token": 2.5},
            "ttft: first_token is outside [start, end] at records[1]['first_token']; got 2.5 "
            "with start 1.0 and end 2.0, expected start <= first_token <= end.",
        ),
        ({"first_token": 0.5}, "first_token is outside [start, end] at records[1]"),
        (
            {"token_times": [1.2, 1.9, 1.7]},
            "ttft: token times are not increasing at records[1]['token_times']; got 1.7 after "
            "1.9, expected non-decreasing arrival times.",
        ),
        (
            {"token_times": [1.2, 2.5]},
            "token time is outside [start, end] at records[1]['token_times']; got 2.5",
        ),
        ({"token_times": [0.9, 1.5]}, "token time is outside [start, end]"),
        ({"token_times": [1.2, None]}, "token time is not a number at records[1]['token_times']"),
        ({"start": None}, "missing value at records[1]['start']; got null"),
        ({"end": float("inf")}, "value is not finite at records[1]['end']; got inf"),
        ({"output_tokens": None}, "missing value at records[1]['output_tokens']"),
        ({"start": "soon"}, "start mixes value types at records[1]['start']; got 'soon'"),
        (
            {"token_times": "fast"},
            "token_times is not a JSON list of times at records[1]['token_times']; got 'fast'",
        ),
        ({"success": "maybe"}, "success is not a boolean at records[1]['success']; got 'maybe'"),
    ],
)
def test_bad_values_name_the_problem_and_the_record(change: dict[str, Any], pattern: str) -> None:
    records = [OK, {**OK, **change}]
    assert pattern in _error(records)


def test_mixed_types_name_the_first_odd_record() -> None:
    records = [{**OK, "success": True}, {**OK, "success": False}, {**OK, "success": "no"}]
    expected = "success mixes value types at records[2]['success']; got 'no', expected a boolean"
    assert expected in _error(records)


def test_failed_requests_need_only_their_times() -> None:
    failed = {"start": 1.0, "end": 3.0, "success": False, "prompt_tokens": None}
    failed |= {"output_tokens": None, "first_token": 9.0, "token_times": [9.0, 0.0]}
    assert T.failed_requests([OK, failed]) == 1  # tokens and token times of failures are ignored
    assert T.output_throughput([OK, failed]) == 3 / 2
    assert "end is before start" in _error([OK, {**failed, "end": 0.0}])


@pytest.mark.parametrize(
    ("records", "pattern"),
    [
        (
            [{"prompt_tokens": 1, "output_tokens": 1, "begin": 0.0, "finish": 1.0}],
            "ttft: the records lack required columns; got 'start', 'end' missing, expected the "
            "columns 'prompt_tokens', 'output_tokens', 'start', 'end'.",
        ),
        (pd.DataFrame({"start": [0.0], "end": [1.0]}), "'prompt_tokens', 'output_tokens' missing"),
        (
            {"start": [0.0, 1.0], "end": [1.0]},
            "columns differ in length; got start has 2, end has 1",
        ),
        ("records.jsonl", "records must be request records; got str"),
        (42, "records must be request records; got int"),
        ([OK, (1, 2, 3)], "records[1] is not a record; got tuple"),
        ({**{k: [v] for k, v in OK.items()}, "start": [True]}, "column 'start' of the records "),
        (
            pd.DataFrame({**{k: [v] for k, v in OK.items()}, "end": [-1.0]}),
            "end is before start at row 0 (from 0), column 'end'",
        ),
        ({**{k: [v] for k, v in OK.items()}, "token_times": [7]}, "must hold lists of times"),
        ({**{k: [v] for k, v in OK.items()}, "token_times": [["a"]]}, "must hold numbers"),
        ({**{k: [v] for k, v in OK.items()}, "success": [2]}, "success is not a boolean at row 0"),
        ({**{k: [v] for k, v in OK.items()}, "success": [1.5]}, "'success' of the records must be"),
        ({**{k: [v] for k, v in OK.items()}, "start": ["x"]}, "start is not a number at row 0"),
    ],
)
def test_bad_input_shapes(records: Any, pattern: str) -> None:
    assert pattern in _error(records)


def test_report_checks_records_the_same_way() -> None:
    assert "throughput: end is before start at records[0]" in _error([{**OK, "end": 0.0}], "report")


# files -----------------------------------------------------------------------------------


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    name = path.name
    if name.endswith(".jsonl") or name.endswith(".jsonl.gz"):
        text = "".join(json.dumps(r) + "\n" for r in records)
        if name.endswith(".gz"):
            with gzip.open(path, "wt", encoding="utf-8") as handle:
                handle.write(text)
        else:
            path.write_text(text, encoding="utf-8")
    elif name.endswith(".csv"):
        frame = pd.DataFrame(records)
        if "token_times" in frame:
            frame["token_times"] = [None if t is None else json.dumps(t) for t in frame.token_times]
        frame.to_csv(path, index=False)
    else:
        pq.write_table(pa.Table.from_pylist(records), path)
    return path


RECORDS = [
    {"id": "a", "prompt_tokens": 100, "output_tokens": 4, "start": 0.0, "first_token": 0.5,
     "end": 1.25, "token_times": [0.5, 0.75, 1.0, 1.25], "success": True, "error": None},
    {"id": "b", "prompt_tokens": 60, "output_tokens": 0, "start": 0.5, "first_token": None,
     "end": 2.0, "token_times": None, "success": False, "error": "HTTP 503"},
    {"id": "c", "prompt_tokens": 20, "output_tokens": 2, "start": 1.0, "first_token": 1.5,
     "end": 1.75, "token_times": [1.5, 1.75], "success": True, "error": None},
]  # fmt: skip


@pytest.mark.parametrize("name", ["r.jsonl", "r.jsonl.gz", "r.csv", "r.parquet"])
def test_files_give_the_in_memory_report(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path / name, RECORDS)
    table = T.read_records(path)
    assert table.num_rows == 3
    assert T.report(table, slo={"ttft": 0.6}) == T.report(RECORDS, slo={"ttft": 0.6})
    r = T.report(table)
    # wall 2.0 - 0.0; output 4 + 2; TPOT (1.25 - 0.5) / 3 and (1.75 - 1.5) / 1
    assert r.output_throughput == 3.0 and r.failure_reasons == {"HTTP 503": 1}
    assert r.tpot.max == 0.25 and r.itl.count == 4


def test_csv_token_times_are_json_lists(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text(
        'prompt_tokens,output_tokens,start,end,token_times\n5,3,0,1,"[0.25, 0.5, 1]"\n5,0,1,2,\n',
        encoding="utf-8",
    )
    assert T.read_records(path).column("token_times").to_pylist() == [[0.25, 0.5, 1.0], None]
    assert T.itl(T.read_records(path), statistic="max") == 0.5


@pytest.mark.parametrize(
    ("name", "content", "pattern"),
    [
        ("e.jsonl", "", "e.jsonl: file is empty; got no records"),
        ("e.jsonl", "\n\n", "file is empty"),
        ("e.csv", "", "file is empty"),
        ("h.csv", "prompt_tokens,output_tokens,start,end\n", "h.csv: file is empty; got 0 records"),
        (
            "m.jsonl",
            '{"prompt_tokens": 1, "output_tokens": 1, "start": 0}\n',
            "m.jsonl lacks required columns; got 'end' missing",
        ),
        (
            "b.jsonl",
            '{"prompt_tokens": 1, "output_tokens": 1, "start": 0, "end": 1}\n\n'
            '{"prompt_tokens": 1, "output_tokens": 1, "start": 5, "end": 1}\n',
            "read_records: end is before start at {path}, line 3, column 'end'; got end 1.0 < "
            "start 5.0",
        ),
        (
            "n.csv",
            "prompt_tokens,output_tokens,start,end\n1,1,0,1\n1,-4,0,1\n",
            "negative token count at {path}, line 3, column 'output_tokens'; got -4",
        ),
        (
            "t.csv",
            'prompt_tokens,output_tokens,start,end,token_times\n1,1,0,1,"[0.5, oops]"\n',
            "token_times is not a JSON list of times at {path}, line 2, column 'token_times'",
        ),
        (
            "f.jsonl",
            '{"prompt_tokens": 1, "output_tokens": 2, "start": 0, "end": 1, "first_token": 3}\n',
            "first_token is outside [start, end] at {path}, line 1, column 'first_token'",
        ),
        ("x.txt", "a", "unknown file type"),
        ("missing.jsonl", None, "no such file"),
    ],
)
def test_file_errors_name_the_path_and_line(
    tmp_path: Path, name: str, content: str | None, pattern: str
) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(pattern.format(path=path))):
        T.read_records(path)


def test_parquet_errors_name_the_row(tmp_path: Path) -> None:
    bad = [*RECORDS[:2], {**RECORDS[2], "token_times": [1.75, 1.5]}]
    path = _write(tmp_path / "r.parquet", bad)
    with pytest.raises(InputError, match=r"r\.parquet, row 3, column 'token_times'"):
        T.read_records(path)
    empty = tmp_path / "e.parquet"
    pq.write_table(pa.Table.from_pylist(RECORDS).slice(0, 0), empty)
    with pytest.raises(InputError, match="file is empty; got 0 records"):
        T.read_records(empty)


def test_errors_after_reading_still_name_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.jsonl", RECORDS)
    table = T.read_records(path)
    with pytest.raises(InputError, match=r"r\.jsonl, line 2, column 'end'"):
        index = table.column_names.index("end")
        T.TPOT().summarize(table.set_column(index, "end", pa.array([1.25, 0.25, 1.75])))
    twice = pa.table({"start": [0.0], "end": [1.0]}).append_column("end", pa.array([2.0]))
    with pytest.raises(InputError, match="column appears more than once; got 'end'"):
        T.TPOT().summarize(twice)
