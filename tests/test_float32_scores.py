"""float32 score columns stay float32 where only their order counts, with the same results."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import sklearn.metrics as skm

import scorekit
from scorekit import io
from scorekit.cli import main

# 0.7 rounds down to float32 (0.69999998...): in float64 that score is below a
# threshold of 0.7, rounded to float32 the threshold would equal it
SCORES = np.array([0.7, 0.9, 0.25, 0.7, 0.1, 0.4, 0.25, 0.95, 0.6, 0.05], dtype=np.float32)
LABELS = np.array([0, 1, 0, 1, 0, 1, 1, 1, 0, 0], dtype=np.int8)


@pytest.fixture
def parquet(tmp_path: Path) -> str:
    path = tmp_path / "scores.parquet"
    pq.write_table(pa.table({"y": LABELS, "s": SCORES}), path)
    return str(path)


def test_score_array_keeps_float32_when_asked() -> None:
    table = pa.table({"s": SCORES, "d": SCORES.astype(np.float64), "i": np.arange(10)})
    kept = io.score_array(table, "s", keep_float32=True)
    assert kept.dtype == np.float32 and np.array_equal(kept, SCORES)
    assert io.score_array(table, "s").dtype == np.float64
    assert io.score_array(table, "d", keep_float32=True).dtype == np.float64
    assert io.score_array(table, "i", keep_float32=True).dtype == np.float64


def test_score_array_float32_still_refuses_nan() -> None:
    bad = pa.table({"s": np.array([0.5, np.nan], dtype=np.float32)})
    with pytest.raises(scorekit.InputError, match="missing value"):
        io.score_array(bad, "s", keep_float32=True)


@pytest.mark.parametrize("chunk_size", [100, 3])
def test_file_auc_and_ap_equal_scikit_learn(parquet: str, chunk_size: int) -> None:
    result = scorekit.evaluate(
        parquet,
        ["roc_auc", "average_precision", "log_loss"],
        columns={"y_true": "y", "y_score": "s", "y_proba": "s"},
        chunk_size=chunk_size,
        progress=False,
    )
    wide = SCORES.astype(np.float64)
    assert result["roc_auc"] == skm.roc_auc_score(LABELS, wide)
    assert result["average_precision"] == pytest.approx(
        skm.average_precision_score(LABELS, wide), rel=1e-12
    )
    assert result["log_loss"] == pytest.approx(skm.log_loss(LABELS, wide), rel=1e-12)


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert main(argv) == 0
    out: dict = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.parametrize("chunk", [[], ["--chunk-size", "4"]])
def test_eval_threshold_compares_in_float64(
    parquet: str, capsys: pytest.CaptureFixture[str], chunk: list[str]
) -> None:
    argv = ["eval", parquet, "--task", "binary", "--true", "y", "--score", "s"]
    got = _json(capsys, [*argv, "--threshold", "0.7", "--format", "json", *chunk])
    pred = (SCORES.astype(np.float64) >= 0.7).astype(int)
    assert pred[0] == 0  # float32(0.7) is below 0.7
    assert got["accuracy"] == skm.accuracy_score(LABELS, pred)
    assert got["f1"] == skm.f1_score(LABELS, pred)
    assert got["roc_auc"] == skm.roc_auc_score(LABELS, SCORES.astype(np.float64))


def test_eval_binary_probabilities_of_float32_column(
    parquet: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["eval", parquet, "--task", "binary", "--true", "y", "--score", "s"]
    got = _json(capsys, [*argv, "--metric", "log_loss", "brier", "--format", "json"])
    wide = SCORES.astype(np.float64)
    assert got["log_loss"] == pytest.approx(skm.log_loss(LABELS, wide), rel=1e-12)
    assert got["brier"] == pytest.approx(skm.brier_score_loss(LABELS, wide), rel=1e-12)
