"""``scorekit throughput``: the report of request records on the command line, and its errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT
from scorekit import throughput as T
from scorekit.cli import main

DATA = ROOT / "examples" / "data"
REQUESTS = DATA / "requests.jsonl"

RECORDS = [
    {"prompt_tokens": 100, "output_tokens": 5, "start": 0.0, "first_token": 0.25, "end": 1.25,
     "token_times": [0.25, 0.5, 0.75, 1.0, 1.25]},
    {"prompt_tokens": 50, "output_tokens": 3, "start": 0.5, "first_token": 1.0, "end": 2.0,
     "token_times": [1.0, 1.25, 2.0]},
    {"prompt_tokens": 20, "output_tokens": 0, "start": 1.5, "end": 4.0, "success": False,
     "error": "timeout"},
]  # fmt: skip


def _run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _file(tmp_path: Path, records: list[dict[str, Any]], name: str = "r.jsonl") -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def test_table_on_hand_computed_records(capsys: Any, tmp_path: Path) -> None:
    code, out, err = _run(capsys, "throughput", _file(tmp_path, RECORDS), "--slo", "ttft=300ms")
    assert code == 0 and err == ""
    rows = {line[:30].strip(): line[30:].split() for line in out.splitlines() if line[:1] != " "}
    # wall 4.0 - 0.0 (the failed request ends last); output 5 + 3; prompt 100 + 50
    assert rows["requests"] == ["3", "(2", "succeeded,", "1", "failed)"]
    assert rows["wall time (s)"] == ["4.000"]
    assert rows["output throughput (tok/s)"] == ["2.00"]
    assert rows["prompt throughput (tok/s)"] == ["37.50"]
    assert rows["total token throughput (tok/s)"] == ["39.50"]
    assert rows["request throughput (req/s)"] == ["0.50"]
    assert rows["goodput (req/s)"] == ["0.25"]  # TTFT 0.25 s passes, 0.5 s does not
    assert "  failed                        1 x timeout" in out.splitlines()
    assert "1 of 2 (ttft <= 300 ms)" in out
    lat = {line.split()[0]: line.split()[1:] for line in out.splitlines()[-4:]}
    # TPOT (1.25 - 0.25) / 4 = 250 ms and (2 - 1) / 2 = 500 ms; ITL 250 x 5 and 750 ms
    # columns: count, mean, std (ddof=0), min, p50, p90, p99, max
    assert lat["tpot"] == [
        "2",
        "375.00",
        "125.00",
        "250.00",
        "375.00",
        "475.00",
        "497.50",
        "500.00",
    ]
    assert lat["itl"] == ["6", "333.33", "186.34", "250.00", "250.00", "500.00", "725.00", "750.00"]
    assert lat["ttft"][0] == "2" and lat["e2e"][:2] == ["2", "1375.00"]


def test_json_equals_the_report(capsys: Any) -> None:
    args = ["throughput", str(REQUESTS), "--slo", "ttft=500ms", "tpot=30ms", "--format", "json"]
    code, out, err = _run(capsys, *args)
    assert code == 0 and err == ""
    got = json.loads(out)
    expected = T.report(T.read_records(REQUESTS), slo=["ttft=500ms", "tpot=30ms"])
    assert got["requests"] == expected.requests == 200
    assert got["failures"] == 5 and got["failure_reasons"] == expected.failure_reasons
    assert got["slo"] == {"ttft": 0.5, "tpot": 0.03}
    for key in ("wall_time", "output_throughput", "prompt_throughput", "goodput"):
        assert got[key] == getattr(expected, key)
    assert got["itl"] == expected.itl.to_dict() and got["ttft"]["p99"] == expected.ttft.p99


def test_slo_forms_agree(capsys: Any) -> None:
    base = ["throughput", str(REQUESTS), "--format", "json"]
    one = json.loads(_run(capsys, *base, "--slo", "ttft=500ms,tpot=30ms")[1])
    two = json.loads(_run(capsys, *base, "--slo", "ttft=0.5s", "--slo", "tpot=30000us")[1])
    assert one["goodput"] == two["goodput"] and one["good_requests"] == two["good_requests"]
    assert json.loads(_run(capsys, *base)[1])["goodput"] is None


def test_the_readme_and_demo_numbers_come_from_the_bundled_file(capsys: Any) -> None:
    code, out, _ = _run(capsys, "demo", "--no-report")
    assert code == 0
    section = out[out.index("LLM serving") :]
    assert "$ scorekit throughput requests.jsonl --slo ttft=500ms tpot=30ms" in section
    report = T.report(T.read_records(REQUESTS), slo=["ttft=500ms", "tpot=30ms"])
    assert T.format_report(report) in section


@pytest.mark.parametrize(
    ("records", "extra", "pattern"),
    [
        (RECORDS, ["--slo", "ttft=200"], "scorekit: --slo: ttft needs a time unit; got '200'"),
        (RECORDS, ["--slo", "latency=1s"], "--slo: unknown SLO; got 'latency'"),
        (
            [RECORDS[0], {**RECORDS[1], "end": 0.25}],
            [],
            "end is before start at {path}, line 2, column 'end'; got end 0.25 < start 0.5",
        ),
        ([{**RECORDS[0], "output_tokens": -1}], [], "negative token count at {path}, line 1"),
        ([{"start": 0.0, "end": 1.0}], [], "lacks required columns"),
        ([], [], "file is empty"),
    ],
)
def test_errors_exit_2_with_one_message(
    capsys: Any, tmp_path: Path, records: list[dict[str, Any]], extra: list[str], pattern: str
) -> None:
    path = _file(tmp_path, records)
    code, out, err = _run(capsys, "throughput", path, *extra)
    assert code == 2 and out == ""
    assert pattern.format(path=path) in err
    assert err.count("scorekit:") == 1 and "Traceback" not in err


def test_missing_file_and_usage(capsys: Any, tmp_path: Path) -> None:
    code, out, err = _run(capsys, "throughput", str(tmp_path / "none.jsonl"))
    assert code == 2 and out == "" and "no such file" in err
    code, _, err = _run(capsys, "throughput")
    assert code == 2 and "RECORDS" in err


def test_all_failed_reports_and_warns(capsys: Any, tmp_path: Path) -> None:
    path = _file(tmp_path, [RECORDS[2], {**RECORDS[2], "error": "HTTP 503"}])
    code, out, err = _run(capsys, "throughput", path, "--format", "json")
    assert code == 0
    assert "scorekit: warning: throughput: all 2 requests failed." in err
    got = json.loads(out)
    assert got["output_throughput"] == 0.0 and got["ttft"]["mean"] is None
    assert got["failure_reasons"] == {"HTTP 503": 1, "timeout": 1}


def test_list_and_explain_know_the_serving_metrics(capsys: Any) -> None:
    code, out, _ = _run(capsys, "list", "--format", "json")
    rows = {row["name"]: row for row in json.loads(out)}
    for name in ("output_throughput", "prompt_throughput", "total_token_throughput"):
        assert rows[name]["inputs"] == "requests" and rows[name]["grows"] is False
    assert rows["ttft"]["variants"] == [f"ttft:{s}" for s in T.STATISTICS]
    assert rows["itl"]["grows"] is True and rows["failed_requests"]["direction"] == "lower"
    code, out, _ = _run(capsys, "explain", "tpot:p99")
    assert code == 0 and "(end_i - first_token_i) / (output_tokens_i - 1)" in out
    assert "parse_metric('tpot:p99').score(records)" in out
