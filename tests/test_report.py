"""The HTML report: sections by task, escaping, self-containment, size, and every --report."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")

import scorekit
from scorekit import api
from scorekit.classification import AveragePrecision, ROCCurveMetric
from scorekit.cli import main
from scorekit.errors import ConfigError, InputError
from scorekit.report import MAX_BYTES, render
from scorekit.report._text import fmt

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


def _summary_rows(html: str) -> tuple[list[str], dict[str, list[str]]]:
    """The summary table's headers and its rows by metric (cells as text)."""
    table = html[html.index('<table class="summary">') :]
    table = table[: table.index("</table>")]
    headers = re.findall(r"<th>(.*?)</th>", table)
    rows = {}
    for row in re.findall(r"<tr><td>(.*?)</tr>", table, re.DOTALL):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", "<td>" + row, re.DOTALL)
        rows[cells[0]] = [re.sub(r"</?code>", "", c) for c in cells[1:]]
    return headers, rows


def test_intervals_are_shown_when_values_carry_them():
    value = SimpleNamespace(value=0.8, low=0.75, high=0.85)
    headers, rows = _summary_rows(render({"f1": value, "accuracy": 0.9}))
    assert headers == ["metric", "value", "low", "high", "settings"]
    assert rows["f1"][:3] == ["0.8", "0.75", "0.85"]
    assert rows["accuracy"][:3] == ["0.9", "", ""]


def test_an_evaluation_with_intervals_keeps_its_figures_and_one_without_has_no_columns():
    argv: dict[str, Any] = {
        "task": "binary",
        "true": ["label"],
        "pred": ["pred"],
        "score": ["score"],
    }
    path = str(DATA / "binary.csv")
    with_ci = api.evaluate_table(path, **argv, ci=api.CI(n_resamples=50, seed=1))
    html = render(with_ci)
    headers, rows = _summary_rows(html)
    assert headers == ["metric", "value", "low", "high", "settings"]
    for key, value in with_ci.values.items():
        assert rows[key][:3] == [fmt(value.value), fmt(value.low), fmt(value.high)], key
        assert rows[key][3].startswith(type(with_ci.metrics[key].inner).__name__), key
    assert "Intervals: 95% percentile." in html
    assert "ROC curve" in html and "Thresholds (roc_auc" in html  # the states of all rows
    plain = render(api.evaluate_table(path, **argv))
    assert _summary_rows(plain)[0] == ["metric", "value", "settings"]
    assert "Intervals:" not in plain and "ROC curve" in plain


def _threshold_rows(html: str) -> list[list[float]]:
    table = html[html.index("<h3>Thresholds") :]
    table = table[: table.index("</table>")]
    cells = re.findall(r"<tr>((?:<td>[^<]*</td>)+)</tr>", table)
    return [[float(v) for v in re.findall(r"<td>([^<]*)</td>", row)] for row in cells]


@pytest.mark.parametrize(
    ("labels", "pos_label"), [((0, 1), 0), ((0, 1), None), (("neg", "pos"), "neg"), ((1, 2), 1)]
)
def test_threshold_table_counts_the_positive_class_the_metric_names(labels, pos_label):
    rng = np.random.default_rng(7)
    y = np.asarray(labels)[rng.integers(0, 2, 300)]
    s = np.round(rng.random(300), 2)
    pos = 1 if pos_label is None else pos_label
    metric = AveragePrecision() if pos_label is None else AveragePrecision(pos_label=pos_label)
    html = render(scorekit.evaluate({"y_true": y, "y_score": s}, [metric]))
    assert f"positive class {pos})" in html
    rows = _threshold_rows(html)
    assert len(rows) > 5
    for t, tp, fp, precision, recall, fpr in rows:
        above = s >= t
        want_tp, want_fp = np.sum(above & (y == pos)), np.sum(above & (y != pos))
        assert (tp, fp) == (want_tp, want_fp)
        assert recall == pytest.approx(want_tp / np.sum(y == pos), abs=5e-4)
        assert fpr == pytest.approx(want_fp / np.sum(y != pos), abs=5e-4)
        assert precision == pytest.approx(want_tp / (want_tp + want_fp), abs=5e-4)
    assert rows[0][0] == s.min()  # the lowest threshold keeps every sample


def test_labels_without_a_positive_class_give_a_note_not_an_error():
    y = np.array(["neg", "pos", "pos", "neg"])
    state = ROCCurveMetric(pos_label="pos").summarize(y, [0.1, 0.8, 0.6, 0.3])
    html = render(SimpleNamespace(states={"curve": state}, values={}, metrics={}))
    assert "need the metric&#39;s pos_label" in html and "Score distributions" in html
    assert "ROC curve" not in html and "Thresholds" not in html


def test_regression_table_equals_numpy_and_says_what_states_cannot_draw():
    import pandas as pd

    frame = pd.read_csv(DATA / "regression.csv")
    true, pred = frame[["price", "days"]].to_numpy(), frame[["pred_price", "pred_days"]].to_numpy()
    result = api.evaluate_table(
        str(DATA / "regression.csv"),
        task="regression",
        true=["price", "days"],
        pred=["pred_price", "pred_days"],
        metrics=["mae", "medae", "medae:relative_accuracy=0.01", "explained_variance"],
        chunk_size=70,
    )
    html = render(result)
    table = html[html.index("<h3>Per output") :]
    table = table[: table.index("</table>")]
    headers = re.findall(r"<th>(.*?)</th>", table)
    rows = {
        cells[0]: dict(zip(headers[1:], map(float, cells[1:]), strict=True))
        for cells in (re.findall(r"<td>(.*?)</td>", r) for r in table.split("<tr>")[2:])
    }
    assert list(rows) == ["price", "days"]
    err = pred - true
    for j, name in enumerate(rows):
        row = rows[name]
        assert row["mae"] == pytest.approx(np.abs(err[:, j]).mean(), rel=5e-4)
        assert row["medae"] == pytest.approx(np.median(np.abs(err[:, j])), rel=5e-4)
        assert row["medae:relative_accuracy=0.01"] == pytest.approx(
            np.median(np.abs(err[:, j])), rel=0.02
        )
        assert row["mean error (pred - true)"] == pytest.approx(err[:, j].mean(), rel=5e-4)
        assert row["SD of error"] == pytest.approx(err[:, j].std(), rel=5e-4)
        assert row["SD of true"] == pytest.approx(true[:, j].std(), rel=5e-4)
    assert "Absolute errors (medae: every error)" in html
    assert "Absolute errors (medae:relative_accuracy=0.01: quantile sketch)" in html
    assert "no predicted-vs-true scatter" in html


def _worst_table(html: str, caption: str) -> list[list[str]]:
    table = html[html.index(f"<h3>{caption}") :]
    table = table[: table.index("</table>")]
    return [re.findall(r"<td>(.*?)</td>", r) for r in table.split("<tr>")[2:]]


def test_text_report_shows_per_segment_values_and_the_worst_segments():
    from scorekit.text import BLEU, TER, read_parallel

    hyps, refs = read_parallel(str(DATA / "hyps.txt"), [str(DATA / "refs_a.txt")])
    hyps = [*hyps, HOSTILE]
    refs = [*refs, ["a quiet line"]]
    result = scorekit.evaluate({"references": refs, "predictions": hyps}, ["bleu", "ter"])
    html = render(result, texts=(refs, hyps))
    assert "bleu per segment" in html and "ter per segment" in html
    for metric, caption, worst_first in ((BLEU(), "bleu", min), (TER(), "ter", max)):
        each = [metric.score([r], [h]) for r, h in zip(refs, hyps, strict=True)]
        rows = _worst_table(html, f"Worst segments by {caption}")
        assert len(rows) == len(hyps)
        assert float(rows[0][1]) == pytest.approx(worst_first(each), abs=5e-5)
        for line, value, *_ in rows:
            assert float(value) == pytest.approx(each[int(line) - 1], abs=5e-5)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and HOSTILE not in html
    assert "bleu per segment" not in render(result)  # without the texts: the corpus values only


def test_rouge_types_and_intervals_in_a_text_report():
    refs = [["the cat sat on the mat"], ["a dog barks"], ["hello world"]]
    hyps = ["the cat sat on a mat", "a dog", "goodbye"]
    both = scorekit.evaluate({"references": refs, "predictions": hyps}, ["rouge1", "rougeL"])
    html = render(both, texts=(refs, hyps))
    assert "rouge1 per segment" in html and "rougeL per segment" in html
    assert [r[0] for r in _worst_table(html, "Worst segments by rouge1")] == ["3", "2", "1"]


def test_qa_report_lists_per_question_scores():
    import json

    from scorekit import qa

    dataset = json.loads((DATA / "squad_dev.json").read_text(encoding="utf-8"))
    predictions = json.loads((DATA / "squad_preds.json").read_text(encoding="utf-8"))
    predictions["q1"] = HOSTILE
    values = qa.squad(dataset, predictions)
    html = render(values, squad={"dataset": dataset, "predictions": predictions})
    assert "F1 per question" in html
    rows = _worst_table(html, "Worst questions by F1")
    ids = [q["id"] for a in dataset["data"] for p in a["paragraphs"] for q in p["qas"]]
    assert len(ids) <= 10 and sorted(r[0] for r in rows) == sorted(ids)  # every question shown
    f1 = [float(r[-1]) for r in rows]
    assert f1 == sorted(f1)
    assert np.mean([float(r[-1]) for r in rows]) == pytest.approx(values["f1"], abs=5e-4)
    assert np.mean([float(r[-2]) for r in rows]) == pytest.approx(values["exact"], abs=5e-4)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and HOSTILE not in html
    thresholded = render(
        values,
        squad={
            "dataset": dataset,
            "predictions": predictions,
            "na_probs": dict.fromkeys(ids, 0.9),
            "na_prob_thresh": 0.5,
        },
    )
    assert "(no answer)" in thresholded


def _sweep_records():
    import pyarrow as pa

    from scorekit import throughput

    records = throughput.read_records(DATA / "requests.jsonl")
    step = np.repeat([0, 1, 2], -(-records.num_rows // 3))[: records.num_rows]
    return records.append_column("step", pa.array(step, type=pa.int64()))


def test_sweep_records_give_throughput_against_latency():
    import pyarrow.compute as pc

    from scorekit import throughput

    records = _sweep_records()
    html = render(throughput.report(records), records=records)
    assert "Output tokens per second against TTFT" in html
    _, by_step = _summary_rows(html)  # a sweep's summary is its table of steps
    rows = [[step, *cells] for step, cells in by_step.items()]
    assert [r[0] for r in rows] == ["step 0", "step 1", "step 2"]
    for k, row in enumerate(rows):
        part = throughput.report(records.filter(pc.equal(records.column("step"), k)))
        assert int(row[1].replace(",", "")) == part.requests
        assert float(row[4]) == pytest.approx(part.output_throughput, rel=5e-4)
        assert float(row[8]) == pytest.approx(part.ttft.p99 * 1000, abs=0.05)
    named = render(throughput.report(records), sweep=[("rate 1", part), ("rate 2", part)])
    assert list(_summary_rows(named)[1]) == ["rate 1", "rate 2"]
    assert "Serving: sweep" not in render(throughput.report(records))


def test_comparison_report(tmp_path):
    from scorekit import stats
    from scorekit.report import comparison

    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 200)
    a = np.where(rng.random(200) < 0.7, y, 1 - y)
    b = np.where(rng.random(200) < 0.8, y, 1 - y)
    rows = stats.compare("accuracy", y, a, b, names=["base", HOSTILE], n_resamples=200)
    rows += stats.compare("accuracy", y, a, b, names=["base", HOSTILE], test="mcnemar")
    html = Path(comparison(rows, tmp_path / "c.html")).read_text(encoding="utf-8")
    _check_self_contained(html)
    assert "Values of the systems" in html and "Differences from the baseline" in html
    tests = _worst_table(html, "Tests")
    assert [r[-1] for r in tests] == ["paired_bootstrap", "mcnemar"]
    assert tests[1][6] == ""  # McNemar's test gives no interval
    first = rows[0]
    assert tests[0][5] == fmt(first.difference)
    assert tests[0][6] == f"[{fmt(first.low)}, {fmt(first.high)}]"
    assert tests[0][7] == fmt(first.pvalue)
    assert HOSTILE not in html and "&lt;script&gt;" in html
    with pytest.raises(InputError, match="not comparisons"):
        comparison([], tmp_path / "e.html")


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
