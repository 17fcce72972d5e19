"""The HTML report: sections by task, escaping, self-containment, size, and every --report."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")

import scorekit
from scorekit.cli import main
from scorekit.errors import ConfigError
from scorekit.report import MAX_BYTES, render

DATA = Path(__file__).resolve().parent.parent / "examples" / "data"
HOSTILE = "<script>alert(1)</script>"


def _external_references(html: str) -> list[str]:
    """Every src/href/url() that is not a fragment or an inline data URL."""
    found = re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)["']""", html)
    found += re.findall(r"url\(([^)]*)\)", html)
    return [ref for ref in found if not ref.startswith(("#", "data:"))]


def _check_self_contained(html: str) -> None:
    assert html.startswith("<!DOCTYPE html>")
    assert "<script" not in html.lower()
    assert _external_references(html) == []
    assert "@import" not in html and "<link" not in html and "<iframe" not in html
    assert len(html.encode("utf-8")) < MAX_BYTES


def test_binary_report_has_the_classification_sections(tmp_path):
    out = tmp_path / "b.html"
    code = main(
        [
            "eval",
            str(DATA / "binary.csv"),
            "--task",
            "binary",
            "--true",
            "label",
            "--pred",
            "pred",
            "--score",
            "score",
            "--report",
            str(out),
        ]
    )
    assert code == 0
    html = out.read_text(encoding="utf-8")
    _check_self_contained(html)
    for caption in (
        "ROC curve",
        "Precision-recall curve",
        "Calibration (reliability diagram)",
        "Score distributions",
        "Thresholds",
        "Per class",
        "binary.csv",
        scorekit.__version__,
    ):
        assert caption in html, caption
    assert html.count("Classification scores") == 1  # roc_auc and average_precision: one state
    assert html.count("<svg") >= 6


def test_hostile_class_names_are_text(tmp_path):
    data = tmp_path / "hostile.csv"
    rows = [("a", "a"), (HOSTILE, HOSTILE), ("a", HOSTILE), (HOSTILE, "a")]
    data.write_text("y,p\n" + "".join(f'"{t}","{p}"\n' for t, p in rows), encoding="utf-8")
    out = tmp_path / "h.html"
    argv = ["eval", str(data), "--task", "multiclass", "--true", "y", "--pred", "p"]
    assert main([*argv, "--report", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    _check_self_contained(html)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert HOSTILE not in html


def test_regression_report_shows_errors_and_outputs(tmp_path):
    out = tmp_path / "r.html"
    argv = ["eval", str(DATA / "regression.csv"), "--task", "regression"]
    argv += ["--true", "price", "days", "--pred", "pred_price", "pred_days", "--report", str(out)]
    assert main(argv) == 0
    html = out.read_text(encoding="utf-8")
    _check_self_contained(html)
    assert "Absolute errors" in html and "Per output" in html


def test_rank_report_summarises_queries(tmp_path):
    out = tmp_path / "rank.html"
    argv = ["rank", str(DATA / "qrels.txt"), str(DATA / "run.txt"), "-m", "ndcg@5", "ndcg@10"]
    assert main([*argv, "--report", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    _check_self_contained(html)
    assert "Worst queries by ndcg@5" in html and "Best queries by ndcg@10" in html
    assert "ndcg@k" in html


def test_throughput_report_whole_and_from_states(tmp_path):
    whole, chunked = tmp_path / "t.html", tmp_path / "tc.html"
    records = str(DATA / "requests.jsonl")
    assert main(["throughput", records, "--slo", "ttft=200ms", "--report", str(whole)]) == 0
    assert (
        main(["throughput", records, "--chunk-size", "7", "--quiet", "--report", str(chunked)]) == 0
    )
    html = whole.read_text(encoding="utf-8")
    _check_self_contained(html)
    for caption in ("Latency CDFs", "TTFT histogram", "requests in flight", "SLO attainment"):
        assert caption in html, caption
    assert "Latency CDFs" in chunked.read_text(encoding="utf-8")


def test_text_qa_and_merge_reports(tmp_path):
    text, qa, merged = tmp_path / "x.html", tmp_path / "q.html", tmp_path / "m.html"
    argv = ["text", "--hyps", str(DATA / "hyps.txt"), "--refs", str(DATA / "refs_a.txt")]
    assert main([*argv, "-m", "bleu", "rougeL", "--report", str(text)]) == 0
    shown = text.read_text(encoding="utf-8")
    assert "signature: nrefs:1|" in shown and "rougeL: precision" in shown
    argv = ["qa", str(DATA / "squad_dev.json"), str(DATA / "squad_preds.json")]
    assert main([*argv, "--report", str(qa)]) == 0
    assert "exact" in qa.read_text(encoding="utf-8")
    shards = []
    for i, (lo, hi) in enumerate(((0, 1), (1, 2))):
        shard = tmp_path / f"s{i}.json"
        csv = tmp_path / f"part{i}.csv"
        lines = (DATA / "binary.csv").read_text(encoding="utf-8").splitlines()
        body = lines[1:]
        half = len(body) // 2
        csv.write_text("\n".join([lines[0], *body[lo * half : hi * half or None]]) + "\n")
        argv = ["eval", str(csv), "--task", "binary", "--true", "label", "--score", "score"]
        assert main([*argv, "--save-state", str(shard)]) == 0
        shards.append(str(shard))
    assert main(["merge", *shards, "--report", str(merged)]) == 0
    html = merged.read_text(encoding="utf-8")
    _check_self_contained(html)
    assert "ROC curve" in html and "s1.json" in html


def test_size_does_not_grow_with_the_rows():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200_000)
    s = rng.random(200_000)
    result = scorekit.evaluate({"y_true": y, "y_score": s}, ["roc_auc"])
    html = render(result)
    small = render(scorekit.evaluate({"y_true": y[:2000], "y_score": s[:2000]}, ["roc_auc"]))
    _check_self_contained(html)
    assert len(html) < 3 * len(small)


def test_intervals_are_shown_when_values_carry_them():
    value = SimpleNamespace(value=0.8, low=0.75, high=0.85)
    html = render({"f1": value})
    assert "[0.75, 0.85]" in html


def test_missing_dependencies_say_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "jinja2", None)
    with pytest.raises(ConfigError, match=r"pip install 'scorekit\[report\]'"):
        render({"accuracy": 1.0})
    assert (
        main(
            [
                "qa",
                str(DATA / "squad_dev.json"),
                str(DATA / "squad_preds.json"),
                "--report",
                str(tmp_path / "q.html"),
            ]
        )
        == 2
    )
