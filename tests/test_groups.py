"""Per-group evaluation: ``evaluate(..., by=...)``, ``scorekit eval --by`` and :class:`Grouped`.

The value of each group equals the metric on that group's rows, the overall value the
metric on all the rows, the spread across groups fairlearn's ``MetricFrame``; the same in
chunks, from shard files and on Dask.
"""

from __future__ import annotations

import csv
import io
import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit
from scorekit.api import evaluate_table, load_states, merge_files, save_states
from scorekit.cli import main
from scorekit.core import ByGroup, Grouped, GroupStates, State, equal_values, parse_metric
from scorekit.errors import (
    ConfigError,
    InputError,
    StateMismatchError,
    UndefinedMetricWarning,
)

METRICS = ["accuracy", "f1", "recall", "mcc", "roc_auc", "average_precision", "mse"]
EXACT = ["accuracy", "f1", "recall", "mcc", "roc_auc", "average_precision"]
"""Metrics of integer statistics (unweighted): equal at every scale to the last bit."""


def _table(n: int = 240, seed: int = 0) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    score = np.round(rng.random(n), 2)
    return {
        "y_true": y,
        "y_pred": (score > 0.5).astype(np.int64),
        "y_score": score,
        "country": rng.choice(["de", "fr", "us"], n),
        "device": rng.choice([1, 2], n),
    }


def _columns(metric: str) -> dict[str, str]:
    if metric in ("roc_auc", "average_precision"):
        return {}
    if metric == "mse":
        return {"y_pred": "y_score"}
    return {}


def _rows(table: dict[str, Any], mask: np.ndarray) -> dict[str, Any]:
    return {k: np.asarray(v)[mask] for k, v in table.items()}


def _by_hand(table: dict[str, Any], metric: str, by: list[str]) -> dict[Any, Any]:
    keys = list(zip(*(table[c].tolist() for c in by), strict=True))
    out = {}
    for key in sorted(set(keys)):
        mask = np.array([k == key for k in keys])
        part = _rows(table, mask)
        found = scorekit.evaluate(part, metric, columns=_columns(metric) or None)[metric]
        out[key[0] if len(by) == 1 else key] = found
    return out


@pytest.mark.parametrize("by", [["country"], ["country", "device"]])
def test_each_group_is_the_metric_on_its_rows(by: list[str]) -> None:
    table = _table()
    for metric in METRICS:
        found = scorekit.evaluate(table, metric, by=by, columns=_columns(metric) or None)[metric]
        assert isinstance(found, ByGroup)
        whole = scorekit.evaluate(table, metric, columns=_columns(metric) or None)[metric]
        assert found.overall == whole
        assert found.by_group == _by_hand(table, metric, by)
        keys = list(zip(*(table[c].tolist() for c in by), strict=True))
        sizes = {k[0] if len(by) == 1 else k: keys.count(k) for k in set(keys)}
        assert found.sizes == sizes
        assert sum(found.sizes.values()) == len(table["y_true"])


def test_fairlearn_metric_frame() -> None:
    fairlearn = pytest.importorskip("fairlearn.metrics")
    from sklearn.metrics import accuracy_score, mean_squared_error, roc_auc_score

    table = _table(300, seed=3)
    frame = pd.DataFrame(table)
    cases = [
        ("accuracy", accuracy_score, "y_pred"),
        ("roc_auc", roc_auc_score, "y_score"),
        ("mse", mean_squared_error, "y_score"),
    ]
    for by in (["country"], ["country", "device"]):
        for name, function, second in cases:
            mf = fairlearn.MetricFrame(
                metrics=function,
                y_true=frame["y_true"],
                y_pred=frame[second],
                sensitive_features=frame[by] if len(by) > 1 else frame[by[0]],
            )
            found = scorekit.evaluate(table, name, by=by, columns=_columns(name) or None)[name]
            assert found.overall == pytest.approx(mf.overall, rel=1e-12)
            expected = mf.by_group.to_dict()
            assert found.by_group.keys() == expected.keys()
            for key, value in expected.items():
                assert found.by_group[key] == pytest.approx(value, rel=1e-12)
            for method in ("between_groups", "to_overall"):
                expected = mf.difference(method=method)
                assert found.difference(method=method) == pytest.approx(expected, rel=1e-12)
                expected = mf.ratio(method=method)
                assert found.ratio(method=method) == pytest.approx(expected, rel=1e-12)
            assert found.group_min() == pytest.approx(mf.group_min(), rel=1e-12)
            assert found.group_max() == pytest.approx(mf.group_max(), rel=1e-12)


def test_difference_and_ratio_edges() -> None:
    by = ("g",)
    assert math.isnan(ByGroup(0.0, {"a": 0.0, "b": 0.0}, {"a": 1, "b": 1}, by).ratio())
    assert ByGroup(0.0, {"a": -1.0, "b": 0.0}, {"a": 1, "b": 1}, by).ratio() == -math.inf
    undefined = ByGroup(0.5, {"a": math.nan, "b": 0.2, "c": 0.8}, {"a": 1, "b": 1, "c": 1}, by)
    assert undefined.difference() == pytest.approx(0.6)
    assert undefined.ratio() == pytest.approx(0.25)
    assert math.isnan(ByGroup(math.nan, {"a": math.nan}, {"a": 1}, by).difference())
    vector = ByGroup(np.zeros(2), {"a": np.zeros(2)}, {"a": 1}, by)
    with pytest.raises(ConfigError, match="needs one number per group"):
        vector.difference()
    assert "difference" not in vector.as_dict()


@settings(max_examples=8, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 1), st.integers(0, 4), st.sampled_from("abc")), max_size=40),
    st.integers(2, 9),
)
def test_chunks_equal_in_memory(rows: list[tuple[int, int, str]], size: int) -> None:
    if not rows:
        return
    truth, pred, group = (list(c) for c in zip(*rows, strict=True))
    table = {"y_true": truth, "y_score": [p / 4 for p in pred], "g": group}
    metrics = ["roc_auc", "brier"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        columns = {"y_proba": "y_score"}
        whole = scorekit.evaluate(table, metrics, by="g", columns=columns)
        parts = scorekit.evaluate(table, metrics, by="g", chunk_size=size, columns=columns)
    for key in metrics:
        a, b = whole[key], parts[key]
        assert a.sizes == b.sizes
        assert whole.states[key].sizes.tolist() == parts.states[key].sizes.tolist()
        assert a.by_group.keys() == b.by_group.keys()
        for g, value in a.by_group.items():
            if key == "roc_auc":
                assert value == b.by_group[g] or (math.isnan(value) and math.isnan(b.by_group[g]))
            else:
                assert value == pytest.approx(b.by_group[g], rel=1e-12, abs=1e-15)


def test_grouped_state_merges_in_any_order_and_round_trips() -> None:
    table = _table(90)
    metric = Grouped("roc_auc", by=("country", "device"))
    parts = [
        metric.summarize(
            table["y_true"][i : i + 30],
            table["y_score"][i : i + 30],
            group=(table["country"][i : i + 30], table["device"][i : i + 30]),
        )
        for i in (0, 30, 60)
    ]
    left = parts[0].merge(parts[1]).merge(parts[2])
    right = parts[2].merge(parts[0].merge(parts[1]))
    whole = metric.summarize(
        table["y_true"], table["y_score"], group=(table["country"], table["device"])
    )
    assert left.equals(right)
    assert left.equals(whole)
    assert metric.empty().merge(whole).equals(whole)
    back = State.from_json(whole.to_json())
    assert isinstance(back, GroupStates)
    assert back.equals(whole)


def test_corrupt_state_is_refused() -> None:
    metric = Grouped("accuracy", by="g")
    state = metric.summarize([1, 0, 1], [1, 1, 1], group=["a", "b", "c"])
    data = state.to_dict()
    data["fields"]["keys"]["__tuple__"][0]["__ndarray__"] = ["c", "b", "a"]
    with pytest.raises(InputError, match="increasing order"):
        State.from_dict(data)
    data = state.to_dict()
    data["fields"]["sizes"]["__ndarray__"] = [1, -1, 1]
    with pytest.raises(InputError, match="sizes"):
        State.from_dict(data)


def test_groups_of_other_types_do_not_merge() -> None:
    metric = Grouped("accuracy", by="g")
    ints = metric.summarize([1, 0], [1, 1], group=[1, 2])
    words = metric.summarize([1, 0], [1, 1], group=["a", "b"])
    with pytest.raises(StateMismatchError, match="groups of different types"):
        ints.merge(words)


def test_save_states_and_merge_shards(tmp_path: Path) -> None:
    table = _table(120)
    metrics = ["accuracy", "roc_auc"]
    whole = scorekit.evaluate(table, metrics, by=["country", "device"])
    paths = []
    for i, rows in enumerate((slice(0, 50), slice(50, 120))):
        part = {k: v[rows] for k, v in table.items()}
        result = scorekit.evaluate(part, metrics, by=["country", "device"])
        paths.append(save_states(tmp_path / f"s{i}.json", result))
    loaded = load_states(paths[0])
    assert isinstance(loaded.metrics["accuracy"], Grouped)
    merged = merge_files(paths)
    for key in metrics:
        assert merged.values[key] == whole.values[key]


def test_undefined_group_warns_with_its_name() -> None:
    table = {"y_true": [1, 1, 0, 1], "y_score": [0.9, 0.8, 0.3, 0.6], "g": ["a", "a", "b", "b"]}
    with pytest.warns(UndefinedMetricWarning, match="group g='a'"):
        found = scorekit.evaluate(table, "roc_auc", by="g")["roc_auc"]
    assert math.isnan(found.by_group["a"])
    assert found.by_group["b"] == 1.0
    assert found.difference() == 0.0


def test_bad_by() -> None:
    table = _table(20)
    with pytest.raises(InputError, match="no column for its input 'group'; got 'nation'"):
        scorekit.evaluate(table, "accuracy", by="nation")
    nulls = {**table, "country": [None] * 20}
    with pytest.raises(InputError, match="group column 'country' is all null"):
        scorekit.evaluate(nulls, "accuracy", by="country")
    some = {**table, "country": ["fr"] * 19 + [None]}
    with pytest.raises(InputError, match="missing value"):
        scorekit.evaluate(some, "accuracy", by="country")
    floats = {**table, "country": np.linspace(0, 1, 20)}
    with pytest.raises(InputError, match="group column 'country' holds floats"):
        scorekit.evaluate(floats, "accuracy", by="country")
    with pytest.raises(ConfigError, match="invalid by"):
        scorekit.evaluate(table, "accuracy", by=["country", "country"])
    with pytest.raises(ConfigError, match="per group with missing='zero'"):
        Grouped("map:missing=zero", by="topic")
    with pytest.raises(ConfigError, match="is grouped already"):
        Grouped(Grouped("accuracy", by="country"), by="device")
    with pytest.raises(InputError, match="missing group value in column 'g'; got None at row 1"):
        Grouped("accuracy", by="g").summarize([1, 0], [1, 0], group=["a", None])


# the command line ---------------------------------------------------------------------------


def _csv(tmp_path: Path, table: dict[str, Any], name: str = "preds.csv") -> Path:
    path = tmp_path / name
    pd.DataFrame(table).to_csv(path, index=False)
    return path


def _run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _eval(path: Path, *more: str) -> list[str]:
    return [
        "eval", str(path), "--task", "binary", "--true", "y_true", "--pred", "y_pred",
        "--score", "y_score", "--metric", "accuracy", "roc_auc", "--by", *more,
    ]  # fmt: skip


def test_cli_formats_and_scales_agree(capsys: Any, tmp_path: Path) -> None:
    table = _table(150)
    path = _csv(tmp_path, table)
    code, out, _ = _run(capsys, *_eval(path, "country", "device", "--format", "json"))
    assert code == 0
    found = json.loads(out)
    expected = scorekit.evaluate(
        table, ["accuracy", "roc_auc"], by=["country", "device"], columns={"y_score": "y_score"}
    )
    for key in ("accuracy", "roc_auc"):
        value = expected[key]
        assert found[key]["overall"] == value.overall
        assert found[key]["rows"] == 150
        assert found[key]["difference"] == value.difference()
        groups = {
            (g["country"], g["device"]): (g["value"], g["rows"]) for g in found[key]["groups"]
        }
        assert groups == {k: (v, value.sizes[k]) for k, v in value.by_group.items()}
    code, chunked, _ = _run(
        capsys, *_eval(path, "country", "device", "--format", "json", "--chunk-size", "7")
    )
    assert json.loads(chunked) == found
    code, out, _ = _run(capsys, *_eval(path, "country", "--format", "csv"))
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["metric", "statistic", "country", "value", "rows"]
    first = [r for r in rows if r["metric"] == "accuracy"]
    assert [r["statistic"] for r in first] == [
        "overall", "group", "group", "group", "difference", "ratio",
    ]  # fmt: skip
    assert [r["country"] for r in first[1:4]] == ["de", "fr", "us"]
    assert sum(int(r["rows"]) for r in first[1:4]) == int(first[0]["rows"]) == 150
    code, out, _ = _run(capsys, *_eval(path, "country"))
    assert out.splitlines()[0].split() == ["metric", "statistic", "country", "value", "rows"]
    assert "difference" in out


def test_cli_save_state_and_merge(capsys: Any, tmp_path: Path) -> None:
    table = _table(120)
    whole = _csv(tmp_path, table)
    shards = [
        _csv(tmp_path, {k: v[rows] for k, v in table.items()}, f"part{i}.csv")
        for i, rows in enumerate((slice(0, 70), slice(70, 120)))
    ]
    states = []
    for i, shard in enumerate(shards):
        state = tmp_path / f"part{i}.json"
        code, _, err = _run(capsys, *_eval(shard, "country", "--save-state", str(state)))
        assert code == 0, err
        states.append(str(state))
    code, merged, _ = _run(capsys, "merge", *states, "--format", "json")
    assert code == 0
    code, direct, _ = _run(capsys, *_eval(whole, "country", "--format", "json"))
    assert json.loads(merged) == json.loads(direct)


def test_cli_bad_by(capsys: Any, tmp_path: Path) -> None:
    table = _table(30)
    path = _csv(tmp_path, table)
    code, _, err = _run(capsys, *_eval(path, "nation"))
    assert code == 2
    assert "nation" in err and "scorekit:" in err
    empty = _csv(tmp_path, {**table, "country": [""] * 30}, "empty.csv")
    code, _, err = _run(capsys, *_eval(empty, "country"))
    assert code == 2
    assert "group column 'country' is all null" in err
    code, _, err = _run(capsys, *_eval(path, "country", "--ci", "--engine", "dask"))
    assert code == 2
    assert "its partitions do not know the positions of their rows" in err and "--key" in err


def test_cli_group_with_one_class_warns(capsys: Any, tmp_path: Path) -> None:
    table = _table(40)
    table["y_true"] = np.where(table["country"] == "fr", 1, table["y_true"])
    path = _csv(tmp_path, table)
    code, out, err = _run(capsys, *_eval(path, "country", "--format", "json"))
    assert code == 0
    assert "group country='fr'" in err and "roc_auc" in err.lower()
    found = json.loads(out)
    fr = next(g for g in found["roc_auc"]["groups"] if g["country"] == "fr")
    assert fr["value"] is None


# Dask -----------------------------------------------------------------------------------------


def test_dask_equals_in_memory(dask_cluster: Any, tmp_path: Path) -> None:
    table = _table(200)
    frame = pd.DataFrame(table)
    for i in range(3):
        frame.iloc[i * 70 : (i + 1) * 70].to_parquet(tmp_path / f"part{i}.parquet", index=False)
    metrics = ["accuracy", "roc_auc"]
    by = ["country", "device"]
    whole = scorekit.evaluate(table, metrics, by=by)
    found = scorekit.evaluate(
        str(tmp_path / "*.parquet"),
        metrics,
        by=by,
        engine="dask",
        scheduler=dask_cluster.scheduler_address,
    )
    for key in metrics:
        assert found[key] == whole[key]
    path = _csv(tmp_path, table)
    memory = evaluate_table(
        str(path), task="binary", true=["y_true"], score=["y_score"], metrics=["roc_auc"], by=by
    )
    dask = evaluate_table(
        str(path),
        task="binary",
        true=["y_true"],
        score=["y_score"],
        metrics=["roc_auc"],
        by=by,
        engine="dask",
        chunk_size=50,
        scheduler=dask_cluster.scheduler_address,
    )
    assert dask.values["roc_auc"] == memory.values["roc_auc"]


def test_commands_by_group_on_dask_equal_in_memory(dask_cluster: Any, tmp_path: Path) -> None:
    from scorekit import api

    address = {"engine": "dask", "scheduler": dask_cluster.scheduler_address}
    records = tmp_path / "records.jsonl"
    rng = np.random.default_rng(5)
    with records.open("w") as f:
        for i in range(30):
            first = i + float(rng.random())
            record = {
                "prompt_tokens": 4,
                "output_tokens": 2,
                "start": float(i),
                "end": first + 1,
                "first_token": first,
                "model": "ab"[i % 3 % 2],
            }
            f.write(json.dumps(record) + "\n")  # fmt: skip
    memory = api.evaluate_records(str(records), by="model")
    dask = api.evaluate_records(str(records), by="model", **address)
    for key, value in memory.values.items():
        _close(dask.values[key], value)
    qrels, run, topics = tmp_path / "qrels", tmp_path / "run", tmp_path / "topics.csv"
    qrels.write_text("".join(f"q{q} 0 d{d} {(q + d) % 3}\n" for q in range(8) for d in range(4)))
    run.write_text(
        "".join(
            f"q{q} Q0 d{d} {d + 1} {float(rng.random()):.3f} x\n"
            for q in range(8)
            for d in range(5)
        )
    )
    topics.write_text("query,kind\n" + "".join(f"q{q},{'ab'[q % 2]}\n" for q in range(8)))
    args = (qrels, str(run), ["map", "ndcg@3"])
    grouping = {"by": ["kind"], "attributes": str(topics)}
    ranked = api.evaluate_run(*args, **grouping, **address).values
    for key, value in api.evaluate_run(*args, **grouping).values.items():
        _close(ranked[key], value)
    hyp, ref, groups = tmp_path / "h.txt", tmp_path / "r.txt", tmp_path / "g.txt"
    hyp.write_text("a cat sat\nthe dog ran off\nhello there\n")
    ref.write_text("a cat sat down\nthe dog ran\nhello\n")
    groups.write_text("x\ny\nx\n")
    text = {"by": "domain", "groups": str(groups)}
    found = api.evaluate_text(str(hyp), [str(ref)], ["bleu", "wer"], **text, **address).values
    whole = api.evaluate_text(str(hyp), [str(ref)], ["bleu", "wer"], **text).values
    for key in ("bleu", "wer"):
        _close(found[key], whole[key])


def _close(found: ByGroup, expected: ByGroup) -> None:
    """Equal sizes, values to a relative 1e-12 (Dask's percentiles sum in another order)."""
    assert found.sizes == expected.sizes
    assert found.overall == pytest.approx(expected.overall, rel=1e-12, nan_ok=True)
    for group, value in expected.by_group.items():
        assert found.by_group[group] == pytest.approx(value, rel=1e-12, nan_ok=True)


def test_grouped_metric_is_not_registered() -> None:
    assert parse_metric("accuracy").key_columns == ()
    assert Grouped("accuracy", by=["a", "b"]).key_columns == ("a", "b")


def test_text_and_qa_metrics_per_group() -> None:
    table = {
        "references": [
            "the cat sat on the mat",
            "a dog ran home",
            "hello world",
            "good day to you",
        ],
        "predictions": ["the cat sat on a mat", "a dog walked home", "hello", "good day to you"],
        "g": ["a", "a", "b", "b"],
    }
    for metric in ("wer", "chrf", "rougeL", "bleu"):
        found = scorekit.evaluate(table, metric, by="g")[metric]
        chunked = scorekit.evaluate(table, metric, by="g", chunk_size=1)[metric]
        for group, rows in (("a", slice(0, 2)), ("b", slice(2, 4))):
            part = {k: v[rows] for k, v in table.items()}
            assert found.by_group[group] == scorekit.evaluate(part, metric)[metric]
            assert chunked.by_group[group] == pytest.approx(found.by_group[group], rel=1e-12)
        assert found.overall == scorekit.evaluate(table, metric)[metric]
    qa = {
        "references": [["Paris"], ["blue", "navy"], ["4"]],
        "predictions": ["paris", "red", "four"],
        "g": [True, True, False],
    }
    found = scorekit.evaluate(qa, "exact_match", by="g")["exact_match"]
    assert found.by_group == {False: 0.0, True: 0.5}
    assert found.sizes == {False: 1, True: 2}


def test_request_metrics_per_group_and_bootstraps_by_position() -> None:
    records = {
        "prompt_tokens": [1, 2, 3],
        "output_tokens": [2, 4, 6],
        "start": [0.0, 1.0, 2.0],
        "end": [1.0, 3.0, 2.5],
        "g": ["a", "b", "a"],
    }
    found = scorekit.evaluate(records, "e2e_latency:p95", by="g")["e2e_latency:p95"]
    alone = {k: [v[0], v[2]] for k, v in records.items()}
    assert found.by_group["a"] == scorekit.evaluate(alone, "e2e_latency:p95")["e2e_latency:p95"]
    assert found.sizes == {"a": 2, "b": 1}
    boot = scorekit.stats.Bootstrap.of("accuracy", n_resamples=10)
    grouped = Grouped(boot, by="g")
    assert grouped.positional
    truth, guess = [1, 0, 1, 1, 0], [1, 1, 1, 0, 0]
    state = grouped.summarize(truth, guess, group=list("ababa"), first_row=7)
    # group a holds rows 7, 9 and 11 of the data: the bootstrap of those positions
    alone = boot.summarize([1, 1, 0], [1, 1, 0], first_row=7, positions=[7, 9, 11])
    assert equal_values(state.states[0].to_dict(), alone.to_dict())
    assert np.array_equal(
        boot.compute(state.states[0]).replicates, boot.compute(alone).replicates, equal_nan=True
    )
    with pytest.raises(InputError, match="row positions do not fit the batch"):
        boot.summarize([1, 1, 0], [1, 1, 0], first_row=7, positions=[9, 7, 11])


def test_sample_weights_follow_their_rows() -> None:
    table = {
        "y_true": [1, 0, 1, 1, 0, 1],
        "y_pred": [1, 1, 0, 1, 1, 1],
        "w": [1.0, 2.0, 3.0, 1.0, 1.0, 0.5],
        "c": ["a", "b", "a", "b", "a", "b"],
    }
    columns = {"sample_weight": "w"}
    found = scorekit.evaluate(table, ["accuracy", "f1"], by="c", columns=columns)
    for group in ("a", "b"):
        rows = [i for i, c in enumerate(table["c"]) if c == group]
        part = {k: [v[i] for i in rows] for k, v in table.items()}
        alone = scorekit.evaluate(part, ["accuracy", "f1"], columns=columns)
        assert found["accuracy"].by_group[group] == alone["accuracy"]
        assert found["f1"].by_group[group] == alone["f1"]
