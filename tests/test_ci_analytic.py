"""``--ci-method analytic``: each metric's standard interval read from its merged state.

Wilson's score interval for accuracy and binary precision and recall, DeLong's for
exact binary ROC AUC (score ranges too), the same in memory, in chunks, per group
and on Dask as :func:`scorekit.stats.analytic_interval` on the arrays.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import scorekit
from scorekit import stats
from scorekit.api import CI
from scorekit.cli import main
from scorekit.errors import ConfigError, InputError

DATA = Path(__file__).resolve().parent.parent / "examples" / "data"


def _data(n: int = 4000, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    score = np.round(rng.normal(size=n) + 0.8 * y, 2)
    return {"y": y, "s": score, "g": np.where(rng.random(n) < 0.3, "a", "b")}


def _expected(name: str, y: np.ndarray, s: np.ndarray) -> stats.Interval:
    if name.startswith("roc_auc"):
        return stats.delong_interval(y, s)
    return stats.analytic_interval(name, y, (s >= 0.5).astype(np.int64))


def _same(found: dict[str, Any], want: stats.Interval) -> None:
    assert found["method"] == want.method
    for field in ("value", "low", "high"):
        if want.method == "wilson":
            assert found[field] == getattr(want, field)
        else:
            assert math.isclose(found[field], getattr(want, field), rel_tol=1e-12, abs_tol=1e-15)


NAMES = ["accuracy", "precision", "recall", "roc_auc", "roc_auc:ranges=8,cuts=sample"]


@pytest.fixture
def parquet(tmp_path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    data = _data()
    path = tmp_path / "scores.parquet"
    pq.write_table(pa.table(data), path, row_group_size=500)
    return path, data


def _eval(capsys: Any, path: Path, *extra: str) -> dict[str, Any]:
    argv = ["eval", str(path), "--task", "binary", "--true", "y", "--score", "s"]
    argv += ["--threshold", "0.5", "--metric", *NAMES, "--ci", "--ci-method", "analytic"]
    assert main([*argv, "--format", "json", *extra]) == 0
    found: dict[str, Any] = json.loads(capsys.readouterr().out)
    return found


@pytest.mark.parametrize("chunk_size", [None, 333])
def test_the_intervals_are_those_of_the_arrays(
    capsys: Any, parquet: tuple[Path, dict[str, np.ndarray]], chunk_size: int | None
) -> None:
    path, data = parquet
    extra = [] if chunk_size is None else ["--chunk-size", str(chunk_size)]
    found = _eval(capsys, path, *extra)
    for name in NAMES:
        _same(found[name], _expected(name, data["y"], data["s"]))


def test_each_group_gets_its_own_interval(
    capsys: Any, parquet: tuple[Path, dict[str, np.ndarray]]
) -> None:
    path, data = parquet
    found = _eval(capsys, path, "--by", "g", "--chunk-size", "700")
    for name in NAMES:
        _same(found[name]["overall"], _expected(name, data["y"], data["s"]))
        for group in found[name]["groups"]:
            rows = data["g"] == group["g"]
            _same(group["value"], _expected(name, data["y"][rows], data["s"][rows]))


def test_a_group_of_one_class_has_an_undefined_interval() -> None:
    table = {"y_true": [0, 1, 0, 1, 1, 1], "y_score": [0.1, 0.8, 0.3, 0.6, 0.9, 0.7]}
    table["g"] = ["a", "a", "a", "a", "b", "b"]
    ci = CI(method="analytic")
    metric = scorekit.core.Grouped(scorekit.parse_metric("roc_auc"), by="g")
    state = metric.summarize(table["y_true"], table["y_score"], group=table["g"])
    with pytest.warns(UserWarning, match="group g='b': delong_interval: y_true must hold exactly"):
        found = ci.analytic(metric, state)
    assert found.overall.value == 1.0 and found.by_group["a"].value == 1.0
    assert math.isnan(found.by_group["b"].low) and found.by_group["b"].method == "delong"


def test_the_dask_engine_needs_no_key(
    capsys: Any, dask_cluster: Any, parquet: tuple[Path, dict[str, np.ndarray]]
) -> None:
    path, data = parquet
    found = _eval(capsys, path, "--engine", "dask", "--scheduler", dask_cluster.scheduler_address)
    for name in NAMES:
        _same(found[name], _expected(name, data["y"], data["s"]))


def test_what_analytic_intervals_refuse(
    capsys: Any, parquet: tuple[Path, dict[str, np.ndarray]], tmp_path: Path
) -> None:
    path, _ = parquet
    argv = ["eval", str(path), "--task", "binary", "--true", "y", "--score", "s", "--ci"]
    assert main([*argv, "--ci-method", "analytic", "--n-resamples", "200"]) == 2
    assert "--n-resamples sets the bootstrap" in capsys.readouterr().err
    assert main([*argv, "--ci-method", "analytic", "--metric", "f1", "--threshold", "0.5"]) == 2
    err = capsys.readouterr().err
    assert "analytic interval of f1: no standard analytic interval" in err
    weighted = tmp_path / "weighted.parquet"
    table = pa.table({**_data(200), "w": np.full(200, 2.0)})
    pq.write_table(table, weighted)
    argv = ["eval", str(weighted), "--task", "binary", "--true", "y", "--score", "s"]
    code = main([*argv, "--weight", "w", "--metric", "roc_auc", "--ci", "--ci-method", "analytic"])
    assert code == 2 and "unweighted" in capsys.readouterr().err
    qa = ["qa", str(DATA / "squad_dev.json"), str(DATA / "squad_preds.json"), "--ci"]
    assert main([*qa, "--ci-method", "analytic"]) == 2
    assert "exact match and F1 have no standard analytic interval" in capsys.readouterr().err
    with pytest.raises(ConfigError, match="unknown interval method"):
        CI(method="wald")


def test_the_description_names_the_intervals() -> None:
    text = CI(confidence=0.9, method="analytic").describe(["row"])
    assert text.startswith("90% analytic intervals: Wilson's score interval")


def test_states_saved_with_analytic_intervals_merge(capsys: Any, tmp_path: Path) -> None:
    data = _data(600, seed=4)
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table(data), path)
    argv = ["eval", str(path), "--task", "binary", "--true", "y", "--score", "s"]
    argv += ["--metric", "roc_auc", "--ci", "--ci-method", "analytic", "--format", "json"]
    assert main([*argv, "--save-state", str(tmp_path / "d.state")]) == 0
    direct = json.loads(capsys.readouterr().out)
    assert main(["merge", str(tmp_path / "d.state"), "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["roc_auc"] == direct["roc_auc"]
    assert "95% analytic intervals" in captured.err


def test_a_small_group_keeps_its_value_and_the_differences() -> None:
    table = {
        "y_true": [1, 0, 0, 0, 1, 0, 1, 0],
        "y_score": [0.9, 0.1, 0.5, 0.3, 0.8, 0.2, 0.4, 0.6],
        "g": ["a"] * 4 + ["b"] * 4,
    }
    plain = scorekit.evaluate(table, "roc_auc", by="g")["roc_auc"]
    metric = scorekit.core.Grouped(scorekit.parse_metric("roc_auc"), by="g")
    state = metric.summarize(table["y_true"], table["y_score"], group=table["g"])
    with pytest.warns(UserWarning, match="too few positive units"):
        found = CI(method="analytic").analytic(metric, state)
    assert found.by_group["a"].value == plain.by_group["a"] == 1.0
    assert math.isnan(found.by_group["a"].low) and not math.isnan(found.by_group["b"].low)
    assert found.difference() == plain.difference() == 0.25


def test_task_and_option_refusals_stay_errors() -> None:
    ci = CI(method="analytic")
    table = {"y_true": [0, 1, 2, 1, 0, 2], "y_pred": [0, 1, 1, 1, 0, 2]}
    precision = scorekit.parse_metric("precision")
    with pytest.raises(InputError, match="average='binary'"):
        ci.analytic(precision, precision.summarize(table["y_true"], table["y_pred"]))
    auc = scorekit.parse_metric("roc_auc:multi_class=ovr")
    scores = np.eye(3)[[0, 1, 2, 1, 0, 2]] * 0.7 + 0.1
    with pytest.raises(InputError, match="1-D scores"):
        ci.analytic(auc, auc.summarize(table["y_true"], scores))
    counted = scorekit.parse_metric("accuracy:normalize=false")
    with pytest.raises(ConfigError, match="of the proportion, not the count"):
        ci.analytic(counted, counted.summarize([1, 0, 1], [1, 1, 1]))
