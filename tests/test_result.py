"""The one result type: every api function returns it; a mapping, to_dict and to_pandas."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import scorekit
from scorekit import api
from scorekit.core import ByGroup, EvaluationResult, Grouped, plain_value
from scorekit.stats import Interval

DATA = Path(__file__).parent / "data"


def _table(tmp_path: Path) -> str:
    path = tmp_path / "t.csv"
    rows = ["y,p,s,g"] + [
        f"{i % 2},{(i // 3) % 2},{(i * 7 % 11) / 11},{'ab'[i % 2 == 0 and i % 3 == 0]}"
        for i in range(40)
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return str(path)


def test_a_result_reads_as_a_mapping_of_name_to_value() -> None:
    result = scorekit.evaluate({"y_true": [1, 0, 1, 1], "y_pred": [1, 1, 1, 0]}, ["accuracy", "f1"])
    assert list(result) == ["accuracy", "f1"]
    assert len(result) == 2 and "f1" in result and "mae" not in result
    assert dict(result) == result.values == {"accuracy": 0.5, "f1": result["f1"]}
    assert dict(result.items()) == result.values and list(result.keys()) == ["accuracy", "f1"]


def test_to_dict_is_json_ready_for_numbers_arrays_and_non_finite_values() -> None:
    result = EvaluationResult(
        {"a": np.float64(0.25), "b": np.array([1.0, np.nan]), "c": float("inf"), "d": np.int64(3)}
    )
    found = result.to_dict()
    assert found == {"a": 0.25, "b": [1.0, None], "c": None, "d": 3}
    assert type(found["d"]) is int
    json.dumps(found, allow_nan=False)


def test_to_dict_of_intervals_groups_and_comparisons(tmp_path: Path) -> None:
    path = _table(tmp_path)
    ci = api.CI(n_resamples=50, seed=3)
    found = api.evaluate_table(
        path, task="binary", true=["y"], pred=["p"], metrics=["accuracy"], ci=ci, by=["g"]
    )
    value = found["accuracy"]
    assert isinstance(value, ByGroup) and isinstance(value.overall, Interval)
    shown = found.to_dict()["accuracy"]
    assert shown == plain_value(value.as_dict())
    assert set(shown["overall"]) == {"value", "low", "high", "confidence", "method"}
    compared = api.compare_table(
        path,
        task="binary",
        true="y",
        systems=["p", "y"],
        scores=False,
        metrics=["accuracy"],
        paired=api.Paired(test="paired_bootstrap", n_resamples=50, seed=1),
    )
    assert compared.values == {} and compared.systems == ["p", "y"]
    rows = compared.to_dict()["comparisons"]
    assert [r["metric"] for r in rows] == ["accuracy"]
    assert rows[0]["system"] == "y" and rows[0]["difference"] == pytest.approx(
        compared.comparisons[0][1].difference
    )
    json.dumps(compared.to_dict(), allow_nan=False)


def test_to_pandas_has_a_row_per_value_group_and_comparison(tmp_path: Path) -> None:
    pytest.importorskip("pandas")
    table = {"y_true": [1, 0, 1, 1, 0, 0], "y_pred": [1, 1, 1, 0, 0, 0], "g": list("aabbab")}
    plain = scorekit.evaluate(table, ["accuracy", "f1"]).to_pandas()
    assert list(plain.columns) == ["metric", "value"]
    assert plain.set_index("metric")["value"].to_dict() == pytest.approx(
        {"accuracy": 4 / 6, "f1": scorekit.evaluate(table, ["f1"])["f1"]}
    )
    grouped = scorekit.evaluate(table, [Grouped("accuracy", by="g")]).to_pandas()
    assert grouped["group"].iloc[0] == "overall"
    by_group = grouped.iloc[1:].set_index("g")
    assert by_group.loc["a", "value"] == pytest.approx(2 / 3)
    assert by_group.loc["b", "rows"] == 3
    path = _table(tmp_path)
    ci = api.CI(n_resamples=50, seed=3)
    frame = api.evaluate_table(
        path, task="binary", true=["y"], pred=["p"], metrics=["accuracy"], ci=ci
    ).to_pandas()
    assert {"metric", "value", "low", "high", "confidence", "method"} <= set(frame.columns)
    assert frame["low"].iloc[0] <= frame["value"].iloc[0] <= frame["high"].iloc[0]


@pytest.mark.filterwarnings("ignore::scorekit.errors.UndefinedMetricWarning")
def test_every_command_function_returns_the_one_result_type(tmp_path: Path) -> None:
    path = _table(tmp_path)
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 1\nq3 0 d3 1\n", encoding="utf-8")
    run = tmp_path / "run"
    lines = ["q1 Q0 d2 1 2.0 x", "q1 Q0 d1 2 1.0 x", "q2 Q0 d1 1 1.0 x", "q3 Q0 d3 1 1.0 x"]
    run.write_text("\n".join(lines) + "\n", encoding="utf-8")
    hyps, refs = tmp_path / "h.txt", tmp_path / "r.txt"
    hyps.write_text("a cat sat\nthe dog\n", encoding="utf-8")
    refs.write_text("a cat sat down\nthe dog ran\n", encoding="utf-8")
    ci = api.CI(n_resamples=30, seed=0)
    found = [
        api.evaluate_table(path, task="binary", true=["y"], pred=["p"]),
        api.evaluate_run(str(qrels), str(run), ["map"], per_query=True),
        api.evaluate_run(str(qrels), str(run), ["map"], ci=ci),
        api.evaluate_text(str(hyps), [str(refs)], ["bleu"]),
    ]
    for result in found:
        assert isinstance(result, EvaluationResult)
        assert set(result.states) == set(result.values) == set(result.metrics)
    assert found[1].per_query is not None and set(found[1].per_query) == {"q1", "q2", "q3"}
    interval = found[2]["map"]
    assert isinstance(interval, Interval) and found[2].settings == ci
    assert math.isclose(interval.value, found[1]["map"])
