"""``scorekit rank``: trec_eval's numbers from its own test files, formats and user errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import DATA, ROOT
from scorekit import ranking
from scorekit.cli import main

TREC = DATA / "trec_eval"
DATA = ROOT / "examples" / "data"


def _run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _error(capsys: Any, *argv: str) -> str:
    code, out, err = _run(capsys, *argv)
    assert code == 2, out
    assert out == ""
    assert err.startswith(("scorekit: ", "usage: ")) and "Traceback" not in err
    return err


def _reference(name: str) -> dict[tuple[str, str], str]:
    lines = (TREC / name).read_text().splitlines()
    return {(m.strip(), q): v for m, q, v in (line.split("\t") for line in lines)}


METRICS = ["map", "p@5", "p@10", "recall@100", "ndcg@10", "ndcg", "mrr", "r_precision", "bpref"]


@pytest.mark.parametrize(
    ("out", "qrels", "run", "options"),
    [
        ("out.test.aq", "qrels.test", "results.test", []),
        ("out.test.aqc", "qrels.test", "results.trunc", ["--missing", "zero"]),
        ("out.test.aql", "qrels.rel_level", "results.test", ["-l", "2"]),
    ],
)
def test_trec_format_reproduces_trec_eval(
    capsys: Any, out: str, qrels: str, run: str, options: list[str]
) -> None:
    args = ["rank", str(TREC / qrels), str(TREC / run), "-m", *METRICS, *options]
    code, text, err = _run(capsys, *args, "--per-query", "--format", "trec")
    assert code == 0, err
    expected = _reference(out)
    lines = [line.split("\t") for line in text.splitlines()]
    compared = 0
    for measure, query, value in lines:
        assert measure == measure.strip() + " " * (len(measure) - len(measure.strip()))
        assert len(measure) == 22 or len(measure.strip()) >= 22
        key = (measure.strip(), query)
        assert key in expected, key
        assert value == expected[key], (key, value, expected[key])
        compared += 1
    assert compared == len(METRICS) * 4 + 1  # three queries and "all", plus num_q


def test_table_of_means_equals_evaluate(capsys: Any) -> None:
    qrels, run = TREC / "qrels.test", TREC / "results.test"
    code, out, _ = _run(capsys, "rank", str(qrels), str(run), "--format", "json")
    assert code == 0
    got = json.loads(out)
    expected = ranking.evaluate(qrels, run, list(got))
    assert list(got) == ["map", "ndcg@10", "mrr", "p@10", "recall@100", "bpref"]
    assert got == pytest.approx(dict(expected), rel=1e-12)


def test_per_query_json_csv_and_table(capsys: Any) -> None:
    args = ["rank", str(TREC / "qrels.test"), str(TREC / "results.test"), "-m", "map", "mrr@10"]
    doc = json.loads(_run(capsys, *args, "--per-query", "--format", "json")[1])
    assert sorted(doc["per_query"]) == ["301", "302", "303"]
    assert doc["mean"]["map"] == pytest.approx(0.1785, abs=5e-5)
    assert set(doc["per_query"]["302"]) == {"map", "mrr@10"}
    csv_lines = _run(capsys, *args, "--per-query", "--format", "csv")[1].splitlines()
    assert csv_lines[0] == "query,map,mrr@10"
    assert [line.split(",")[0] for line in csv_lines[1:]] == ["301", "302", "303", "all"]
    table = _run(capsys, *args, "--per-query")[1].splitlines()
    assert table[0].split() == ["query", "map", "mrr@10"]
    assert table[-1].split()[0] == "all"


def test_exp_gain_option(capsys: Any) -> None:
    qrels, run = TREC / "qrels.rel_level", TREC / "results.test"
    args = ["rank", str(qrels), str(run), "-m", "ndcg@10", "--gain", "exp", "--format", "json"]
    got = json.loads(_run(capsys, *args)[1])["ndcg@10"]
    assert got == pytest.approx(ranking.evaluate(qrels, run, ["ndcg@10"], gain="exp")["ndcg@10"])
    linear = ranking.evaluate(qrels, run, ["ndcg@10"])["ndcg@10"]
    assert got != pytest.approx(linear)


def test_gzip_and_bundled_files(tmp_path: Path, capsys: Any) -> None:
    import gzip

    packed = tmp_path / "run.txt.gz"
    packed.write_bytes(gzip.compress((DATA / "run.txt").read_bytes()))
    plain = _run(capsys, "rank", str(DATA / "qrels.txt"), str(DATA / "run.txt"))
    zipped = _run(capsys, "rank", str(DATA / "qrels.txt"), str(packed))
    assert plain[0] == zipped[0] == 0
    assert plain[1] == zipped[1]


def test_demo_ranks_the_bundled_run(capsys: Any) -> None:
    code, out, err = _run(capsys, "demo", "--no-report")
    assert code == 0, err
    assert "scorekit rank qrels.txt run.txt" in out
    expected = ranking.evaluate(DATA / "qrels.txt", DATA / "run.txt", ["map", "ndcg@10"])
    lines = [line.split() for line in out.splitlines()]
    assert ["map", f"{expected['map']:.4f}"] in lines
    assert ["ndcg@10", f"{expected['ndcg@10']:.4f}"] in lines


def _files(tmp_path: Path, qrels: str, run: str) -> tuple[str, str]:
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text(qrels, encoding="utf-8")
    r.write_text(run, encoding="utf-8")
    return str(q), str(r)


GOOD_QRELS = "1 0 a 1\n1 0 b 0\n"


@pytest.mark.parametrize(
    ("qrels", "run", "extra", "pattern"),
    [
        (GOOD_QRELS, "1 Q0 a 1 0.5 t\n1 Q0 b 2\n", [], "line 2: malformed run line"),
        (GOOD_QRELS, "1 Q0 a 1 high t\n", [], "line 1: score is not a finite number"),
        ("1 0 a x\n", "1 Q0 a 1 0.5 t\n", [], "line 1: relevance is not a finite number"),
        ("1 0 a 1 extra\n", "1 Q0 a 1 0.5 t\n", [], "malformed qrels line"),
        (GOOD_QRELS, "1 Q0 a 1 0.5 t\n1 Q0 a 2 0.4 t\n", [], "line 2: duplicate document"),
        (GOOD_QRELS, "", [], "file is empty"),
        (GOOD_QRELS, "2 Q0 a 1 0.5 t\n", [], "no query to evaluate"),
        (GOOD_QRELS, "1 Q0 a 1 0.5 t\n", ["-m", "p@0"], "invalid cutoff k"),
        (GOOD_QRELS, "1 Q0 a 1 0.5 t\n", ["-m", "ndgc@10"], "unknown metric"),
        (GOOD_QRELS, "1 Q0 a 1 0.5 t\n", ["-m", "accuracy"], "is not a ranking metric"),
        (GOOD_QRELS, "1 Q0 a 1 0.5 t\n", ["-l", "0"], "expected a finite number > 0"),
        (GOOD_QRELS, "1 Q0 a 1 0.5 t\n", ["--missing", "all"], "invalid choice"),
    ],
)
def test_user_errors(
    tmp_path: Path, capsys: Any, qrels: str, run: str, extra: list[str], pattern: str
) -> None:
    q, r = _files(tmp_path, qrels, run)
    err = _error(capsys, "rank", q, r, *extra)
    assert pattern in err
    if "line" in pattern or "empty" in pattern:
        assert "qrels.txt" in err or "run.txt" in err


def test_missing_file(tmp_path: Path, capsys: Any) -> None:
    err = _error(capsys, "rank", str(tmp_path / "q.txt"), str(DATA / "run.txt"))
    assert "q.txt" in err and "no such file" in err


def test_windows_line_endings_bom_and_trailing_space(tmp_path: Path, capsys: Any) -> None:
    clean = _files(tmp_path, GOOD_QRELS, "1 Q0 a 1 0.5 t\n1 Q0 b 2 0.7 t\n")
    code, expected, _ = _run(capsys, "rank", *clean, "--format", "json")
    assert code == 0
    q, r = tmp_path / "q2.txt", tmp_path / "r2.txt"
    q.write_bytes(b"\xef\xbb\xbf1 0 a 1  \r\n1\t0\tb\t0\r\n")
    r.write_bytes(b"\xef\xbb\xbf1 Q0 a 1 0.5 t \r\n\r\n1\tQ0\tb 2 0.7\tt\r\n")
    code, got, err = _run(capsys, "rank", str(q), str(r), "--format", "json")
    assert code == 0, err
    assert json.loads(got) == json.loads(expected)
