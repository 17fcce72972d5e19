"""Bounded alternatives on the command line: ``roc_auc:bins=N``, ``medae:relative_accuracy=A``.

The options after the colon reach the metric through the one metric grammar; the
printed estimate holds the exact value within its bound, chunked or not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm

from scorekit.cli import main

DATA = Path(__file__).resolve().parent.parent / "examples" / "data"


def _json(capsys: Any, *argv: str) -> dict[str, Any]:
    assert main([*argv, "--format", "json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.parametrize("chunk", [None, "7"])
def test_binned_auc_and_ap_hold_the_exact_value(capsys: Any, chunk: str | None) -> None:
    table = pd.read_csv(DATA / "binary.csv")
    argv = ["eval", str(DATA / "binary.csv"), "--task", "binary", "--true", "label"]
    argv += ["--score", "score", "--metric", "roc_auc:bins=64", "average_precision:bins=16"]
    if chunk is not None:
        argv += ["--chunk-size", chunk]
    got = _json(capsys, *argv)
    auc = skm.roc_auc_score(table["label"], table["score"])
    ap = skm.average_precision_score(table["label"], table["score"])
    for key, exact in (("roc_auc:bins=64", auc), ("average_precision:bins=16", ap)):
        value, bound = got[key]["value"], got[key]["error_bound"]
        assert 0 < bound < 0.1
        assert abs(value - exact) <= bound + 1e-12, (key, value, bound, exact)


def test_sketched_median_error_within_its_bound(capsys: Any) -> None:
    table = pd.read_csv(DATA / "regression.csv")
    argv = ["eval", str(DATA / "regression.csv"), "--task", "regression", "--true", "price"]
    argv += ["--pred", "pred_price", "--metric", "medae", "medae:relative_accuracy=0.01"]
    got = _json(capsys, *argv, "--chunk-size", "5")
    exact = float(np.median(np.abs(table["price"] - table["pred_price"])))
    assert got["medae"] == pytest.approx(exact, rel=1e-12)
    sketch = got["medae:relative_accuracy=0.01"]
    assert abs(sketch["value"] - exact) <= sketch["error_bound"]
    assert sketch["error_bound"] <= 0.011 * sketch["value"]


def test_unknown_option_is_a_clear_error(capsys: Any) -> None:
    argv = ["eval", str(DATA / "binary.csv"), "--task", "binary", "--true", "label"]
    code = main([*argv, "--score", "score", "--metric", "roc_auc:bns=64"])
    err = capsys.readouterr().err
    assert code != 0
    assert "roc_auc: unknown option; got 'bns'" in err and "'bins'" in err
