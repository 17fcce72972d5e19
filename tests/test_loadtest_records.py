"""A load test's records in the serving metrics: the metadata record and warm-up requests are
left out of every figure, in memory, from files, chunk by chunk and from merged states."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from scorekit import throughput
from scorekit.api import evaluate_records
from scorekit.errors import InputError

META = {"record": "metadata", "model": "m", "flags": {"rate": "1"}, "dataset": {"name": "x"}}
WARM = {"prompt_tokens": 9, "output_tokens": 9, "start": 0.0, "end": 50.0, "warmup": True}
REQUESTS = [
    {
        "prompt_tokens": 4,
        "output_tokens": 2,
        "start": 100.0,
        "end": 101.0,
        "token_times": [100.5, 101.0],
    },
    {
        "prompt_tokens": 6,
        "output_tokens": 3,
        "start": 100.5,
        "end": 102.0,
        "token_times": [101.0, 101.5, 102.0],
    },
]


def _plain():
    return throughput.report(REQUESTS)


def test_marked_records_are_left_out_of_lists_and_tables():
    expected = _plain()
    mixed = [META, WARM, *REQUESTS]
    assert throughput.report(mixed) == expected
    rows = [WARM, *REQUESTS]
    keys = dict.fromkeys(k for r in rows for k in r)
    table = pa.table({k: [r.get(k) for r in rows] for k in keys})
    assert throughput.report(table) == expected
    assert throughput.output_throughput(mixed) == throughput.output_throughput(REQUESTS)
    # a warm-up request marked false counts
    counted = throughput.report([{**WARM, "warmup": False}, *REQUESTS])
    assert counted.requests == 3


def test_marked_records_are_left_out_of_files_whole_and_in_chunks(tmp_path):
    path = tmp_path / "records.jsonl"
    lines = [META, WARM, *REQUESTS]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    expected = _plain()
    assert throughput.report(throughput.read_records(path)) == expected
    assert throughput.read_metadata(path) == META
    metrics = throughput.report_metrics()
    for chunk_size in (1, 2, 10):
        found = evaluate_records(str(path), metrics, compute=False, chunk_size=chunk_size)
        states, rows = found.states, found.rows
        assert rows == 2
        assert throughput.report_from_states(states) == expected


def test_errors_name_the_original_record():
    bad = {**REQUESTS[1], "output_tokens": -1}
    with pytest.raises(InputError, match=r"records\[3\]\['output_tokens'\]"):
        throughput.report([META, WARM, REQUESTS[0], bad])


def test_file_errors_name_the_original_line(tmp_path):
    path = tmp_path / "records.jsonl"
    bad = {**REQUESTS[1], "end": 1.0}
    path.write_text("".join(json.dumps(r) + "\n" for r in [META, WARM, bad]), encoding="utf-8")
    with pytest.raises(InputError, match=r"line 3"):
        throughput.read_records(path)


def test_a_record_column_of_other_values_marks_nothing_and_warmup_must_be_boolean():
    numbered = [{**r, "record": i} for i, r in enumerate(REQUESTS)]
    assert throughput.report(numbered) == _plain()
    with pytest.raises(InputError, match="warmup is not true or false"):
        throughput.report([{**REQUESTS[0], "warmup": "yes"}])


def test_read_metadata_of_other_files(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(REQUESTS[0]) + "\n", encoding="utf-8")
    assert throughput.read_metadata(path) is None
    csv = tmp_path / "r.csv"
    csv.write_text("prompt_tokens,output_tokens,start,end\n1,1,0,1\n", encoding="utf-8")
    assert throughput.read_metadata(csv) is None
    broken = tmp_path / "b.jsonl"
    broken.write_text("{not json\n", encoding="utf-8")
    assert throughput.read_metadata(broken) is None
