"""``--report`` on the commands beyond one evaluation: comparisons of systems and load tests."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")

from scorekit.cli import main
from scorekit.report import MAX_BYTES
from scorekit.report._text import fmt

DATA = Path(__file__).resolve().parent.parent / "examples" / "data"
FEW = ["--n-resamples", "200"]


def _run(capsys: Any, *argv: Any) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _ok(capsys: Any, *argv: Any) -> str:
    code, _, err = _run(capsys, *argv)
    assert code == 0, err
    return err


def _table(html: str, caption: str) -> list[list[str]]:
    """The body rows of the table under the heading ``caption``, cells unescaped."""
    found = re.search(rf"<h3>{re.escape(caption)}</h3>\s*<table>(.*?)</table>", html, re.DOTALL)
    assert found, caption
    rows = re.findall(r"<tr>(.*?)</tr>", found.group(1), re.DOTALL)[1:]
    return [re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL) for row in rows]


def _summary(html: str) -> list[list[str]]:
    """The body rows of the report's summary table, cells unescaped."""
    found = re.search(r'<table class="summary">(.*?)</table>', html, re.DOTALL)
    assert found
    rows = re.findall(r"<tr>(.*?)</tr>", found.group(1), re.DOTALL)[1:]
    return [
        re.findall(r"<td[^>]*>(?:<code>)?(.*?)(?:</code>)?</td>", row, re.DOTALL) for row in rows
    ]


def _self_contained(html: str) -> None:
    assert html.startswith("<!DOCTYPE html>")
    assert "<script" not in html.lower() and "<link" not in html
    assert not re.findall(r"""(?:src|href)\s*=\s*["'](?!#|data:)""", html)
    assert len(html.encode("utf-8")) < MAX_BYTES


@pytest.fixture(scope="module")
def systems(tmp_path_factory: Any) -> Path:
    """Labels and the predictions of three systems of different skill."""
    rng = np.random.default_rng(11)
    n = 150
    y = rng.integers(0, 2, n)
    columns = {"y": y}
    for name, skill in (("base", 0.65), ("good", 0.85), ("same", 0.66)):
        columns[name] = np.where(rng.random(n) < skill, y, 1 - y)
    path = Path(tmp_path_factory.mktemp("compare")) / "systems.csv"
    lines = [",".join(columns)]
    lines += [",".join(str(int(c[i])) for c in columns.values()) for i in range(n)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _json_rows(capsys: Any, argv: list[Any]) -> list[dict[str, Any]]:
    import json

    code, out, err = _run(capsys, *argv, "--format", "json")
    assert code == 0, err
    return list(json.loads(out)["comparisons"])


def test_eval_comparison_writes_the_comparison_report(capsys, systems, tmp_path):
    argv = ["eval", systems, "--task", "binary", "--true", "y", "--pred", "base", "good", "same"]
    argv += ["--metric", "accuracy", "f1", "--test", "paired_bootstrap", "--correction", "holm"]
    argv += FEW
    out = tmp_path / "compare.html"
    err = _ok(capsys, *argv, "--report", out)
    assert f"report written to {out}" in err
    html = out.read_text(encoding="utf-8")
    _self_contained(html)
    assert "Values of the systems" in html and "Differences from the baseline" in html
    assert "Test: paired_bootstrap (200 resamples, seed 0); correction for several" in html
    assert "systems: holm." in html
    tests = _table(html, "Tests")
    expected = _json_rows(capsys, argv)
    assert len(tests) == len(expected) == 4
    for cells, row in zip(tests, expected, strict=True):
        assert cells[:3] == [row["metric"], row["system"], "base"]
        assert cells[3] == fmt(row["value"]) and cells[5] == fmt(row["difference"])
        assert cells[6] == f"[{fmt(row['low'])}, {fmt(row['high'])}]"
        assert cells[7] == fmt(row["pvalue"]) and cells[8] == fmt(row["adjusted"])
    adjusted = [float(c[8]) for c in tests]
    assert all(a >= float(c[7]) for a, c in zip(adjusted, tests, strict=True))
    summary = re.search(r'<table class="summary">(.*?)</table>', html, re.DOTALL)
    assert summary and "accuracy: good" in summary.group(1)


def test_rank_and_text_comparisons_write_reports(capsys, tmp_path):
    rng = np.random.default_rng(5)
    lines = (DATA / "run.txt").read_text().splitlines()
    shuffled = []
    for line in lines:
        q, z, d, r, s, _ = line.split()
        shuffled.append(f"{q} {z} {d} {r} {float(s) + rng.normal(0, 2):.4f} noisy")
    noisy = tmp_path / "noisy.txt"
    noisy.write_text("\n".join(shuffled) + "\n")
    out = tmp_path / "rank.html"
    argv = ["rank", DATA / "qrels.txt", DATA / "run.txt", noisy, "-m", "ndcg@10", "map"]
    _ok(capsys, *argv, "--test", "t", "--report", out)
    html = out.read_text(encoding="utf-8")
    _self_contained(html)
    rows = _table(html, "Tests")
    assert [(r[0], r[1], r[-1]) for r in rows] == [
        ("ndcg@10", "noisy.txt", "t"),
        ("map", "noisy.txt", "t"),
    ]
    # ndcg@10 and map are means over the queries: the t-test gives the interval
    low, high = (float(x) for x in rows[0][6].strip("[]").split(","))
    assert low <= float(rows[0][5]) <= high
    assert "correction for several systems: none." in html and "noisy.txt" in html

    worse = tmp_path / "worse.txt"
    worse.write_text((DATA / "hyps.txt").read_text().replace("the", "a"))
    out = tmp_path / "text.html"
    argv = ["text", "--refs", DATA / "refs_a.txt", "--hyps", DATA / "hyps.txt", worse, "-m", "bleu"]
    _ok(capsys, *argv, *FEW, "--report", out)
    html = out.read_text(encoding="utf-8")
    rows = _table(html, "Tests")
    assert [(r[0], r[1], r[2]) for r in rows] == [("bleu", "worse.txt", "hyps.txt")]
    assert float(rows[0][5]) < 0


def test_comparison_report_errors_are_reported_not_raised(capsys, systems, tmp_path):
    argv = ["eval", systems, "--task", "binary", "--true", "y", "--pred", "base", "good"]
    code, _, err = _run(capsys, *argv, "--test", "t", "--report", tmp_path / "no" / "r.html")
    assert code == 2 and "Traceback" not in err
    # a missing folder is found before the comparison is run, by the rule of every output
    assert err.splitlines()[-1].startswith("scorekit: eval --report: its folder does not exist;")


def test_throughput_report_latency_table_shows_the_percentiles_asked_for(capsys, tmp_path):
    import json

    records = DATA / "requests.jsonl"
    out = tmp_path / "t.html"
    argv = ["throughput", records, "--percentiles", "50,95,99.9"]
    _ok(capsys, *argv, "--report", out)
    code, text, err = _run(capsys, *argv, "--format", "json")
    assert code == 0, err
    doc = json.loads(text)
    html = out.read_text(encoding="utf-8")
    header = re.search(r"<h3>Latency summary</h3>\s*<table><tr>(.*?)</tr>", html, re.DOTALL)
    assert header
    names = re.findall(r"<th>(.*?)</th>", header.group(1))
    stats = ["mean", "std", "min", "p50", "p95", "p99.9", "max"]
    assert names == ["latency", "count", *(f"{s} ms" for s in stats)]
    rows = _table(html, "Latency summary")
    assert [r[0] for r in rows] == ["TTFT", "TPOT", "ITL", "E2E"]
    for row in rows:
        found = doc[row[0].lower()]
        assert int(row[1].replace(",", "")) == found["count"]
        assert row[2:] == [fmt(found[s] * 1000) for s in stats]


def _loadtest(url: str, folder: Path, name: str, *extra: Any) -> list[Any]:
    """The argv of a small load test against ``url`` writing ``name``.jsonl and ``name``.html."""
    argv: list[Any] = ["loadtest", "--url", url, "--model", "m", "--dataset", "random"]
    argv += ["--num-prompts", "4", "--input-len", "6", "--output-len", "3", "--seed", "2"]
    argv += ["--pause", "0", "--quiet", "--out", folder / f"{name}.jsonl"]
    return [*argv, "--report", folder / f"{name}.html", *extra]


def test_loadtest_report_has_the_serving_sections_and_the_sweep(capsys, tmp_path):
    from openai_server import OpenAIServer

    server = OpenAIServer(ttft=0.02, interval=0.005).start()
    try:
        argv = _loadtest(server.url, tmp_path, "sweep", "--rate", "100,inf")
        code, table, err = _run(capsys, *argv, "--percentiles", "50,95", "--slo", "ttft=2s")
        assert code == 0, err
        argv = _loadtest(server.url, tmp_path, "one", "--concurrency", "2")
        code, _, err = _run(capsys, *argv, "--percentiles", "90")
        assert code == 0, err
    finally:
        server.stop()
    lines = table.splitlines()
    latencies = [f"{name} {q}" for name in ("TTFT", "TPOT", "ITL", "E2E") for q in ("p50", "p95")]
    assert lines[0].split() == [
        *["step", "requests", "failed", "req/s", "out", "tok/s", "goodput"],
        *" ".join(latencies).split(),
    ]
    assert [" ".join(row.split()[:2]) for row in lines[1:3]] == ["rate 100", "rate inf"]
    html = (tmp_path / "sweep.html").read_text(encoding="utf-8")
    _self_contained(html)
    # a sweep's report leads with its steps; no figure or table pools their loads
    captions = ["Latency CDFs, rate 100", "Latency CDFs, rate inf"]
    for caption in [*captions, "Output tokens per second and requests in flight"]:
        assert f"<figcaption>{caption}</figcaption>" in html
    assert "<figcaption>Latency CDFs</figcaption>" not in html
    assert "Serving: sweep" in html and "Output tokens per second against TTFT" in html
    assert "SLO attainment" not in html and "Latency summary" not in html
    steps = _summary(html)
    assert [r[0] for r in steps] == ["rate 100", "rate inf"]
    assert [r[1] for r in steps] == ["4", "4"]
    assert [r[5] for r in steps] != ["", ""]  # each step's goodput under the SLO
    shown = re.search(r'<table class="summary">\s*<tr>(.*?)</tr>', html, re.DOTALL)
    assert shown and "<th>TTFT p95 ms</th>" in shown.group(1)
    # the records give the same sweep table from scorekit throughput
    records = tmp_path / "sweep.jsonl"
    code, again, err = _run(
        capsys, "throughput", records, "--percentiles", "50,95", "--slo", "ttft=2s"
    )
    assert code == 0, err
    assert again.split("\n\n", 1)[1] == table
    html = (tmp_path / "one.html").read_text(encoding="utf-8")
    assert "Serving: sweep" not in html and "<th>p90 ms</th>" in html
    assert [r[0] for r in _table(html, "Latency summary")] == ["TTFT", "TPOT", "ITL", "E2E"]


def test_eval_regression_report_draws_the_pairs_in_chunks_too(capsys, tmp_path):
    argv = ["eval", DATA / "regression.csv", "--task", "regression", "--true", "price", "days"]
    argv += ["--pred", "pred_price", "pred_days"]
    pages = []
    for extra in ([], ["--chunk-size", "64"], ["--metric", "mae", "r2"]):
        out = tmp_path / f"r{len(pages)}.html"
        code, printed, err = _run(capsys, *argv, *extra, "--report", out)
        assert code == 0, err
        assert "prediction_sample" not in printed and "mae" in printed
        pages.append(out.read_text(encoding="utf-8"))
    for html in pages:
        _self_contained(html)
        assert "Predicted against true (300 sampled pairs of 300 rows)" in html
        assert "Residuals (predicted - true) (300 sampled pairs of 300 rows)" in html
        assert "kept no sample" not in html
    # the figures' points are the same whichever way the data was read
    points = [re.findall(r'<use xlink:href="#[^"]+" x="([^"]+)" y="([^"]+)"', p) for p in pages]
    assert points[0] and points[0] == points[1]
    assert points[2] == points[0][: len(points[2])]  # no medae: no figure of absolute errors
