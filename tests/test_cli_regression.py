"""The command line for the regression and information families.

``scorekit eval --task regression`` against scikit-learn on the bundled file, and
``scorekit features`` against :func:`scorekit.information.rank_features` and the
textbook values of the play-tennis table.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import sklearn.metrics as skm

from scorekit.cli import main
from scorekit.information import rank_features

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "examples" / "data"
HOUSES = DATA / "regression.csv"
TENNIS = DATA / "play_tennis.csv"


def _run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _json(capsys: Any, *argv: str) -> Any:
    code, out, err = _run(capsys, *argv, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def _error(capsys: Any, *argv: str) -> str:
    code, out, err = _run(capsys, *argv)
    assert code == 2, out
    assert out == ""
    assert err.startswith("scorekit: ") and "Traceback" not in err
    return err


# eval --task regression --------------------------------------------------------------

SKLEARN_1D = {
    "mae": skm.mean_absolute_error,
    "mse": skm.mean_squared_error,
    "rmse": skm.root_mean_squared_error,
    "medae": skm.median_absolute_error,
    "max_error": skm.max_error,
    "r2": skm.r2_score,
    "explained_variance": skm.explained_variance_score,
    "mape": skm.mean_absolute_percentage_error,
    "msle": skm.mean_squared_log_error,
    "rmsle": skm.root_mean_squared_log_error,
}


def test_regression_defaults_agree_with_sklearn(capsys: Any) -> None:
    df = pd.read_csv(HOUSES)
    t, p = df["price"].to_numpy(), df["pred_price"].to_numpy()
    args = ["eval", str(HOUSES), "--task", "regression", "--true", "price", "--pred", "pred_price"]
    got = _json(capsys, *args)
    assert set(got) == {*SKLEARN_1D} - {"msle", "rmsle"} | {"smape", "wmape"}
    for name, value in got.items():
        if name in SKLEARN_1D:
            assert value == pytest.approx(SKLEARN_1D[name](t, p), rel=1e-12, abs=0), name
    assert got["wmape"] == pytest.approx(np.abs(t - p).sum() / np.abs(t).sum(), rel=1e-12)
    smape = np.mean(np.abs(t - p) / ((np.abs(t) + np.abs(p)) / 2))
    assert got["smape"] == pytest.approx(smape, rel=1e-12)


def test_regression_with_weights_and_named_metrics(capsys: Any) -> None:
    df = pd.read_csv(HOUSES)
    t, p, w = df["price"].to_numpy(), df["pred_price"].to_numpy(), df["rooms"].to_numpy()
    names = ["mae", "mse", "medae", "r2", "msle", "rmsle", "explained_variance"]
    args = ["eval", str(HOUSES), "--task", "regression", "--true", "price"]
    got = _json(capsys, *args, "--pred", "pred_price", "--weight", "rooms", "--metric", *names)
    assert list(got) == names
    for name in names:
        expected = SKLEARN_1D[name](t, p, sample_weight=w)
        assert got[name] == pytest.approx(expected, rel=1e-12, abs=0), name


def test_multi_output_regression(capsys: Any) -> None:
    df = pd.read_csv(HOUSES)
    t = df[["price", "days"]].to_numpy(dtype=float)
    p = df[["pred_price", "pred_days"]].to_numpy(dtype=float)
    args = ["eval", str(HOUSES), "--task", "regression", "--true", "price", "days"]
    args += ["--pred", "pred_price", "pred_days"]
    metrics = ["r2", "r2:raw_values", "r2:variance_weighted", "mae:raw_values", "medae"]
    got = _json(capsys, *args, "--metric", *metrics)
    assert got["r2"] == pytest.approx(skm.r2_score(t, p), rel=1e-12)
    assert got["r2:raw_values"] == pytest.approx(
        skm.r2_score(t, p, multioutput="raw_values"), rel=1e-12
    )
    assert got["r2:variance_weighted"] == pytest.approx(
        skm.r2_score(t, p, multioutput="variance_weighted"), rel=1e-12
    )
    assert got["mae:raw_values"] == pytest.approx(
        skm.mean_absolute_error(t, p, multioutput="raw_values"), rel=1e-12
    )
    assert got["medae"] == pytest.approx(skm.median_absolute_error(t, p), rel=1e-12)
    # the defaults skip max_error, which has one output only, and say so
    code, out, err = _run(capsys, *args)
    assert code == 0
    assert "max_error" in err and "skipped" in err
    assert "max_error" not in out and "r2" in out


@pytest.mark.parametrize(
    ("extra", "pattern"),
    [
        (["--score", "pred_price"], "--task regression compares --pred with --true"),
        (["--pred", "pred_price", "pred_days"], "one column per --true column"),
        (["--pred", "pred_price", "--pos-label", "1"], "--pos-label is for --task binary"),
        (["--pred", "pred_price", "--metric", "accuracy"], "does not apply to --task regression"),
        (["--pred", "pred_price", "--metric", "f1:macro"], "expected a regression metric"),
        (["--pred", "pred_pryce"], "no such column"),
    ],
)
def test_regression_usage_errors(capsys: Any, extra: list[str], pattern: str) -> None:
    err = _error(capsys, "eval", str(HOUSES), "--task", "regression", "--true", "price", *extra)
    assert pattern in err


def test_regression_metric_on_a_classification_task(capsys: Any) -> None:
    args = ["eval", str(DATA / "binary.csv"), "--task", "binary", "--true", "label"]
    err = _error(capsys, *args, "--pred", "pred", "--metric", "mse")
    assert "mse: does not apply to --task binary" in err


@pytest.mark.parametrize(
    ("cell", "pattern"),
    [
        ("nan", "line 3, column 'yhat': missing value"),
        ("", "line 3, column 'yhat': missing value"),
        ("inf", "line 3, column 'yhat': non-finite value"),
        ("abc", "line 3, column 'yhat': not a number; got 'abc'"),
    ],
)
def test_bad_cells_name_the_file_line_and_column(
    tmp_path: Path, capsys: Any, cell: str, pattern: str
) -> None:
    path = tmp_path / "r.csv"
    path.write_text(f"y,yhat\n1.5,1.0\n2.0,{cell}\n3.0,2.5\n", encoding="utf-8")
    err = _error(capsys, "eval", str(path), "--task", "regression", "--true", "y", "--pred", "yhat")
    assert str(path) in err and pattern in err


def test_msle_of_values_below_minus_one_is_an_error_naming_the_metric(
    tmp_path: Path, capsys: Any
) -> None:
    path = tmp_path / "r.csv"
    path.write_text("y,yhat\n1.5,1.0\n-2.0,0.5\n", encoding="utf-8")
    args = ["eval", str(path), "--task", "regression", "--true", "y", "--pred", "yhat"]
    err = _error(capsys, *args, "--metric", "msle")
    assert "msle:" in err and "-2.0" in err


def test_regression_reads_parquet_and_json_lines(tmp_path: Path, capsys: Any) -> None:
    table = pa.table({"y": [3.0, -0.5, 2.0, 7.0], "yhat": [2.5, 0.0, 2.0, 8.0]})
    pq.write_table(table, tmp_path / "r.parquet")
    lines = "".join(json.dumps(row) + "\n" for row in table.to_pylist())
    (tmp_path / "r.jsonl").write_text(lines, encoding="utf-8")
    for name in ("r.parquet", "r.jsonl"):
        args = ["eval", str(tmp_path / name), "--task", "regression", "--true", "y"]
        got = _json(capsys, *args, "--pred", "yhat", "--metric", "mse", "r2")
        assert got == {"mse": 0.375, "r2": pytest.approx(0.9486081370449679, rel=1e-12)}


# features ------------------------------------------------------------------------------


def test_features_on_play_tennis_gives_the_textbook_gains(capsys: Any) -> None:
    code, out, err = _run(capsys, "features", str(TENNIS), "--target", "play")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["rank", "feature", "kind", "information_gain", "split"]
    assert lines[2].split() == ["1", "outlook", "categorical", "0.2467", "multiway"]
    assert lines[3].split() == ["2", "humidity", "numeric", "0.1518", "<=", "82.5"]
    assert [line.split()[1] for line in lines[2:]] == [
        "outlook",
        "humidity",
        "temperature",
        "windy",
    ]


@pytest.mark.parametrize("criterion", ["information_gain", "gain_ratio", "gini_gain"])
def test_features_agree_with_rank_features(capsys: Any, criterion: str) -> None:
    df = pd.read_csv(TENNIS)
    X = df.drop(columns="play")
    expected = rank_features(X, df["play"].to_numpy(), criterion=criterion)
    got = _json(capsys, "features", str(TENNIS), "--target", "play", "--criterion", criterion)
    assert got["criterion"] == criterion and got["target"] == "play" and got["rows"] == 14
    rows = got["features"]
    assert [r["feature"] for r in rows] == [s.feature for s in expected]
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]
    for row, split in zip(rows, expected, strict=True):
        assert row[criterion] == pytest.approx(split.score, rel=1e-12, abs=0)
        assert row["threshold"] == split.threshold
        assert row["kind"] == split.kind


def test_features_options(capsys: Any) -> None:
    args = ["features", str(TENNIS), "--target", "play"]
    top = _json(capsys, *args, "--top", "2")
    assert [r["feature"] for r in top["features"]] == ["outlook", "humidity"]
    only = _json(capsys, *args, "--features", "windy", "temperature")
    assert sorted(r["feature"] for r in only["features"]) == ["temperature", "windy"]
    rest = _json(capsys, *args, "--exclude", "outlook", "humidity")
    assert sorted(r["feature"] for r in rest["features"]) == ["temperature", "windy"]
    # temperature as a multiway split: every value its own branch
    multi = _json(capsys, *args, "--categorical", "temperature")
    temperature = next(r for r in multi["features"] if r["feature"] == "temperature")
    assert temperature["kind"] == "categorical" and temperature["threshold"] is None
    nats = _json(capsys, *args, "--base", "2.718281828459045", "--top", "1")
    assert nats["features"][0]["information_gain"] == pytest.approx(0.2467498 * np.log(2), 1e-6)


def test_features_csv_output(capsys: Any) -> None:
    code, out, _ = _run(capsys, "features", str(TENNIS), "--target", "play", "--format", "csv")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "rank,feature,kind,information_gain,threshold"
    assert lines[1].startswith("1,outlook,categorical,0.2467") and lines[1].endswith(",")
    assert lines[2].startswith("2,humidity,numeric,0.1518") and lines[2].endswith(",82.5")


def test_features_with_weights_equal_repeated_rows(tmp_path: Path, capsys: Any) -> None:
    df = pd.read_csv(TENNIS)
    weights = np.arange(1, 15) % 3 + 1
    df["w"] = weights
    df.to_csv(tmp_path / "weighted.csv", index=False)
    repeated = df.loc[df.index.repeat(weights)].drop(columns="w")
    repeated.to_csv(tmp_path / "repeated.csv", index=False)
    a = _json(
        capsys, "features", str(tmp_path / "weighted.csv"), "--target", "play", "--weight", "w"
    )
    b = _json(capsys, "features", str(tmp_path / "repeated.csv"), "--target", "play")
    assert [r["feature"] for r in a["features"]] == [r["feature"] for r in b["features"]]
    for x, y in zip(a["features"], b["features"], strict=True):
        assert x["information_gain"] == pytest.approx(y["information_gain"], rel=1e-12)
        assert x["threshold"] == y["threshold"]


def test_features_of_a_parquet_table_with_booleans(tmp_path: Path, capsys: Any) -> None:
    table = pa.table({"flag": [True, True, False, False], "y": ["a", "a", "b", "b"]})
    pq.write_table(table, tmp_path / "t.parquet")
    got = _json(capsys, "features", str(tmp_path / "t.parquet"), "--target", "y")
    assert got["features"] == [
        {
            "rank": 1,
            "feature": "flag",
            "kind": "categorical",
            "information_gain": 1.0,
            "threshold": None,
        }
    ]


def test_constant_feature_warns_under_gain_ratio(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "c.csv"
    path.write_text("same,x,y\n1,a,p\n1,b,q\n1,a,p\n", encoding="utf-8")
    code, out, err = _run(
        capsys, "features", str(path), "--target", "y", "--criterion", "gain_ratio"
    )
    assert code == 0
    assert "warning" in err and "'same'" in err
    row = next(line.split() for line in out.splitlines() if " same " in f" {line} ")
    assert row[2:4] == ["numeric", "0.0000"]


@pytest.mark.parametrize(
    ("content", "argv", "pattern"),
    [
        ("a,y\n1,p\n2,q\n", ["--target", "z"], "--target: no such column"),
        ("a,y\n1,p\n2,q\n", ["--target", "y", "--exclude", "b"], "--exclude: no such column"),
        ("a,y\n1,p\n2,q\n", ["--target", "y", "--features", "y"], "also the target"),
        ("a,y\n1,p\n2,q\n", ["--target", "y", "--categorical", "b"], "--categorical"),
        ("a,y\n1,p\n2,q\n", ["--target", "y", "--exclude", "a"], "no feature columns left"),
        ("a,y\n1,p\n2,p\n", ["--target", "y"], "column 'y': the target has a single class"),
        ("a,y\n1,p\nnan,q\n", ["--target", "y"], "line 3, column 'a': missing value"),
        ("a,y\n1,p\n,q\n", ["--target", "y"], "line 3, column 'a': missing value"),
        ("a,y\nu,p\n,q\n", ["--target", "y"], "line 3, column 'a': missing value"),
        ("a,y\n1,p\n2,\n", ["--target", "y"], "line 3, column 'y': missing value"),
        ("a,y,w\n1,p,1\n2,q,-1\n", ["--target", "y", "--weight", "w"], "negative sample weight"),
        ("a,y\n1,p\n2,q\n", ["--target", "y", "--top", "0"], "--top: expected a whole number"),
        ("a,y\n1,p\n2,q\n", ["--target", "y", "--base", "1"], "--base: expected a finite"),
        ("a,y\n1,p\n2,q\n", ["--target", "y", "--criterion", "gini"], "invalid choice"),
    ],
)
def test_features_errors(
    tmp_path: Path, capsys: Any, content: str, argv: list[str], pattern: str
) -> None:
    path = tmp_path / "f.csv"
    path.write_text(content, encoding="utf-8")
    code, out, err = _run(capsys, "features", str(path), *argv)
    assert code == 2 and out == ""
    assert err.startswith("usage:") or err.startswith("scorekit: ")
    assert "Traceback" not in err
    assert pattern in err


def test_features_of_a_missing_file(tmp_path: Path, capsys: Any) -> None:
    err = _error(capsys, "features", str(tmp_path / "none.csv"), "--target", "y")
    assert "none.csv" in err


def test_demo_ranks_the_play_tennis_features(capsys: Any) -> None:
    code, out, err = _run(capsys, "demo", "--no-report")
    assert code == 0, err
    assert "scorekit features play_tennis.csv --target play" in out
    assert any(
        line.split()[:4] == ["1", "outlook", "categorical", "0.2467"]
        for line in out.splitlines()
        if line.strip()
    )
    assert "Regression: house prices" in out
