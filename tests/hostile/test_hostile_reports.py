"""Hostile cases: reports and figures drawn from names and numbers in the data."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from hostile import scorekit, write

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "examples" / "data"


def _facts(html: str) -> dict[str, str]:
    """The header table of a report: fact name -> value."""
    return dict(re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td></tr>", html))


def test_rank_report_of_a_whole_read_counts_the_rows(tmp_path: Path) -> None:
    """[silent] The report of ``rank`` read whole said ``rows 0``; chunked it said the rows."""
    rows = sum(1 for line in (DATA / "run.txt").read_text().splitlines() if line.strip())
    for extra in ([], ["--chunk-size", "50"]):
        report = tmp_path / f"r{len(extra)}.html"
        done = scorekit("rank", DATA / "qrels.txt", DATA / "run.txt", *extra, "--report", report)
        assert done.returncode == 0, done.stderr
        assert _facts(report.read_text(encoding="utf-8"))["rows"] == f"{rows:,}"


def test_class_names_with_dollars_are_drawn_as_written(tmp_path: Path) -> None:
    """[crash] ``$...$`` in a class name was read as mathtext: ``cost 510to``, or a parse error."""
    data = write(
        tmp_path / "m.csv",
        ["y,p", "cost $5 to $10,b", "b,b", "$\\frac$,cost $5 to $10", "b,$\\frac$"],
    )
    report = tmp_path / "m.html"
    done = scorekit(
        "eval", data, "--task", "multiclass", "--true", "y", "--pred", "p", "--report", report
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    html = report.read_text(encoding="utf-8")
    figures = "".join(re.findall(r"<svg.*?</svg>", html, flags=re.S))
    assert "cost $5 to $10" in figures and "$\\frac$" in figures
    assert "510to" not in figures


def test_plot_functions_draw_names_as_written() -> None:
    """[crash] The same names through :mod:`scorekit.plot` directly."""
    import matplotlib

    matplotlib.use("Agg")
    from scorekit import plot

    ax = plot.confusion_matrix(["$\\frac$", "b", "b"], ["b", "b", "$\\frac$"])
    ax.figure.canvas.draw()
    assert "$\\frac$" in [t.get_text() for t in ax.get_xticklabels()]


def test_throughput_report_of_latencies_equal_to_the_last_bit(tmp_path: Path) -> None:
    """[crash] TTFTs a few ulps apart raised "Too many bins for data range"."""
    first = 0.1
    records = [
        {
            "prompt_tokens": 5,
            "output_tokens": 3,
            "start": 0.0,
            "first_token": float(np.nextafter(first, 1.0)) if i % 2 else first,
            "end": 1.0,
        }
        for i in range(10)
    ]
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    report = tmp_path / "t.html"
    done = scorekit("throughput", path, "--report", report)
    assert done.returncode == 0, done.stderr
    assert "TTFT histogram" in report.read_text(encoding="utf-8")


def test_whole_numbers_in_reports_are_not_in_exponent_form() -> None:
    """[silent] A count summed in floats was shown as ``1.322e+04``."""
    from scorekit.report._text import fmt

    assert fmt(13220.0) == "13,220"
    assert fmt(13220.5) == "1.322e+04"
    assert fmt(0.5) == "0.5"


def test_roc_and_pr_legends_give_the_areas_of_the_curves() -> None:
    """[silent] The ROC and PR legends named the curves without their AUC or AP."""
    import matplotlib

    matplotlib.use("Agg")
    from sklearn.metrics import average_precision_score, roc_auc_score

    from scorekit import plot

    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 300)
    score = np.round(rng.random(300), 2)  # ties, as scores often have
    roc_label = plot.roc(y, score, name="m").lines[0].get_label()
    pr_label = plot.pr(y, score, name="m").lines[0].get_label()
    assert roc_label == f"m (AUC {roc_auc_score(y, score):.3f})"
    assert pr_label == f"m (AP {average_precision_score(y, score):.3f})"
    classes = rng.integers(0, 3, 300)
    proba = rng.dirichlet(np.ones(3), 300)
    from scorekit import parse_metric

    state = parse_metric("roc_auc", multi_class="ovr").summarize(classes, proba)
    labels = [line.get_label() for line in plot.roc(state).lines[:3]]
    expected = [roc_auc_score(classes == c, proba[:, c]) for c in range(3)]
    assert labels == [f"{c} (AUC {a:.3f})" for c, a in enumerate(expected)]


def test_reliability_diagram_defaults_to_the_curve_bins() -> None:
    """[silent] The reliability diagram used 10 bins where calibration_curve uses 5."""
    import inspect

    from scorekit import plot
    from scorekit.classification import calibration_curve

    drawn = inspect.signature(plot.calibration).parameters["n_bins"].default
    assert drawn == inspect.signature(calibration_curve).parameters["n_bins"].default == 5


def test_text_report_keeps_the_percent_scale(tmp_path: Path) -> None:
    """[silent] ``scorekit text --percent --report`` printed 56.43 and reported 0.5643."""
    report = tmp_path / "t.html"
    done = scorekit(
        "text",
        "--refs",
        DATA / "refs_a.txt",
        "--hyps",
        DATA / "hyps.txt",
        "-m",
        "bleu",
        "rouge1",
        "--percent",
        "--format",
        "json",
        "--report",
        report,
    )
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    rows = dict(
        re.findall(r'<tr><td>([^<]*)</td>\s*<td class="num">([^<]*)', report.read_text("utf-8"))
    )
    assert rows["bleu (%)"] == f"{printed['bleu (%)']:.4g}"
    assert float(rows["bleu (%)"]) > 1  # on sacrebleu's 0-100 scale, as printed


def test_sweep_report_leads_with_its_steps_and_pools_no_latencies(tmp_path: Path) -> None:
    """[silent] A sweep's report opened with one summary pooled over its steps, and its
    latency figures mixed the loads of the steps."""
    from scorekit import throughput
    from scorekit.report import report

    path = tmp_path / "records.jsonl"
    lines = []
    for step, latency in enumerate((0.2, 0.5, 1.5)):
        for i in range(20):
            start = 5.0 * step + 0.05 * i
            record = {"prompt_tokens": 5, "output_tokens": 10, "start": start, "step": step}
            record.update(first_token=start + latency / 4, end=start + latency)
            lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    records = throughput.read_records(path)
    html = Path(report(throughput.report(records), tmp_path / "s.html", records=records)).read_text(
        encoding="utf-8"
    )
    summary = html[html.index('<section id="summary">') : html.index("</section>")]
    assert re.findall(r"<tr><td>(step \d)</td>", summary) == ["step 0", "step 1", "step 2"]
    captions = re.findall(r"<figcaption>([^<]*)</figcaption>", html)
    assert [c for c in captions if "Latency" in c] == [f"Latency CDFs, step {k}" for k in range(3)]
    assert not any("histogram" in c for c in captions)
