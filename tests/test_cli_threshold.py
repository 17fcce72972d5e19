"""scorekit eval --threshold and --best-threshold."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import sklearn.metrics as skm

from scorekit.cli import main

Y = [1, 0, 1, 0, 1, 0, 1, 1]
S = [0.9, 0.2, 0.4, 0.6, 0.7, 0.1, 0.55, 0.3]


@pytest.fixture
def data(tmp_path: Path) -> str:
    path = tmp_path / "d.csv"
    rows = [f"{y},{s},{'ab'[y]}" for y, s in zip(Y, S, strict=True)]
    path.write_text("y,s,c\n" + "\n".join(rows) + "\n")
    return str(path)


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("chunk", [[], ["--chunk-size", "3"]])
def test_threshold_gives_label_metrics_from_scores(data, capsys, chunk):
    argv = ["eval", data, "--task", "binary", "--true", "y", "--score", "s"]
    got = _json(capsys, [*argv, "--threshold", "0.5", "--format", "json", *chunk])
    pred = (np.array(S) >= 0.5).astype(int)
    assert got["accuracy"] == skm.accuracy_score(Y, pred)
    assert got["f1"] == skm.f1_score(Y, pred)
    assert got["roc_auc"] == skm.roc_auc_score(Y, S)
    named = _json(
        capsys,
        [
            "eval",
            data,
            "--task",
            "binary",
            "--true",
            "c",
            "--score",
            "s",
            "--pos-label",
            "b",
            "--threshold",
            "0.5",
            "--metric",
            "recall",
            "--format",
            "json",
            *chunk,
        ],
    )
    assert named["recall"] == skm.recall_score(Y, pred)


def test_best_threshold_reports_the_choice(data, capsys):
    argv = ["eval", data, "--task", "binary", "--true", "y", "--score", "s", "--format", "json"]
    got = _json(capsys, [*argv, "--best-threshold", "f1"])
    threshold, value, *_ = got["best_threshold:f1"]
    values, thresholds = skm.metric_at_thresholds(Y, S, skm.f1_score)
    assert threshold == thresholds[int(np.argmax(values))]
    assert value == pytest.approx(values.max(), rel=1e-12)
    assert main([*argv[:-2], "--best-threshold", "f1", "--metric", "roc_auc"]) == 0
    assert f"[threshold] {threshold:.4f}" in capsys.readouterr().out
    assert "roc_auc" in got
    assert main([*argv[:-2], "--best-threshold", "youden", "--metric", "f1"]) == 2
    assert "needs predicted labels" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (["--pred", "y", "--threshold", "0.5"], "--threshold turns binary --score values"),
        (["--threshold", "nan"], "invalid --threshold"),
    ],
)
def test_threshold_errors(data, capsys, extra, match):
    assert main(["eval", data, "--task", "binary", "--true", "y", "--score", "s", *extra]) == 2
    assert match in capsys.readouterr().err


def test_text_labels_need_pos_label(data, capsys):
    argv = ["eval", data, "--task", "binary", "--true", "c", "--score", "s", "--threshold", "0.5"]
    assert main([*argv, "--metric", "f1"]) == 2
    assert "--threshold needs the positive class of text labels" in capsys.readouterr().err
