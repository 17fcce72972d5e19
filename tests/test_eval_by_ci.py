"""``scorekit eval --by --ci``: a bootstrap interval overall and in each group of rows.

A group's rows keep the replicate weights of their positions in the file (or
of their keys), so each group's replicates are the metric on that group's rows
weighted as the whole-file bootstrap weighs them; the same in memory, in
chunks and through state files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest
import sklearn.metrics as reference
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit
from scorekit import api
from scorekit.cli import main
from scorekit.core import Grouped
from scorekit.errors import ConfigError
from scorekit.stats import Bootstrap
from scorekit.stats._poisson import replicate_weights, unit_bases


def _file(folder: Path, n: int, seed: int, name: str = "data.csv") -> Path:
    rng = np.random.default_rng(seed)
    table = pa.table(
        {
            "id": [f"r{i}" for i in range(n)],
            "y": np.r_[0, 1, 0, 1, rng.integers(0, 2, n - 4)],
            "s": rng.random(n).round(2),
            "g": np.r_[["a", "a", "b", "b"], rng.choice(["a", "b", "c"], n - 4)],
        }
    )
    path = folder / name
    pacsv.write_csv(table, path)
    return path


def _evaluate(path: Path, ci: api.CI, chunk_size: int | None = None) -> api.EvaluationResult:
    return api.evaluate_table(
        str(path),
        task="binary",
        true=["y"],
        score=["s"],
        metrics=["roc_auc", "average_precision"],
        ci=ci,
        by=["g"],
        chunk_size=chunk_size,
    )


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(12, 80), st.integers(1, 30))
def test_intervals_per_group_are_the_same_in_chunks(
    tmp_path_factory: Any, seed: int, n: int, size: int
) -> None:
    path = _file(tmp_path_factory.mktemp("by_ci"), n, seed)
    ci = api.CI(n_resamples=50, seed=seed % 7)
    whole, chunked = _evaluate(path, ci), _evaluate(path, ci, chunk_size=size)
    for name, value in whole.values.items():
        assert value.overall == chunked.values[name].overall
        assert value.by_group == chunked.values[name].by_group
        assert value.sizes == chunked.values[name].sizes


def test_a_groups_replicates_are_its_rows_under_the_whole_files_weights(tmp_path: Path) -> None:
    n, resamples = 60, 25
    path = _file(tmp_path, n, 3)
    table = pacsv.read_csv(path)
    y, s, g = (table[c].to_numpy(zero_copy_only=False) for c in ("y", "s", "g"))
    metric = Grouped(Bootstrap.of("roc_auc", n_resamples=resamples, seed=5), by="g")
    state = metric.summarize(y, s, group=g, first_row=0)
    found = metric.compute(state)
    weights = replicate_weights(unit_bases(5, np.arange(n, dtype=np.uint64)), 0, resamples)
    for group, replicated in found.by_group.items():
        rows = np.flatnonzero(g == group)
        assert replicated.value == pytest.approx(reference.roc_auc_score(y[rows], s[rows]))
        for r in range(resamples):
            w = weights[r, rows].astype(np.float64)
            sides = {int(v) for v in y[rows][w > 0]}
            if sides != {0, 1}:
                assert np.isnan(replicated.replicates[r])
                continue
            want = reference.roc_auc_score(y[rows], s[rows], sample_weight=w)
            assert replicated.replicates[r] == pytest.approx(want, rel=1e-12)


def _cli(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_command_state_files_and_shards(capsys: Any, tmp_path: Path) -> None:
    path = _file(tmp_path, 90, 11)
    args = ["eval", str(path), "--task", "binary", "--true", "y", "--score", "s"]
    args += ["--metric", "roc_auc", "--by", "g", "--ci", "--n-resamples", "200"]
    code, table, _ = _cli(capsys, *args)
    assert code == 0
    header = ["metric", "statistic", "g", "value", "low", "high", "rows"]
    assert table.splitlines()[0].split() == header
    assert "unit: row (by position)" in table
    code, direct, _ = _cli(capsys, *args, "--format", "json")
    document = json.loads(direct)["roc_auc"]
    assert [group["g"] for group in document["groups"]] == ["a", "b", "c"]
    assert {"value", "low", "high"} <= set(document["groups"][0]["value"])
    state = tmp_path / "state.json"
    assert _cli(capsys, *args, "--save-state", str(state))[0] == 0
    code, merged, _ = _cli(capsys, "merge", str(state), "--format", "json")
    assert code == 0 and json.loads(merged) == json.loads(direct)

    table_ = pacsv.read_csv(path)
    keyed = [*args, "--key", "id", "--format", "json"]
    shards = []
    for i, part in enumerate((table_.slice(0, 40), table_.slice(40))):
        shard = tmp_path / f"part{i}.csv"
        pacsv.write_csv(part, shard)
        saved = tmp_path / f"part{i}.json"
        keyed_shard = [*keyed[:1], str(shard), *keyed[2:]]
        assert _cli(capsys, *keyed_shard, "--save-state", str(saved))[0] == 0
        shards.append(str(saved))
    _, whole, _ = _cli(capsys, *keyed)
    code, merged, _ = _cli(capsys, "merge", *shards, "--format", "json")
    assert code == 0 and json.loads(merged) == json.loads(whole)

    positional = []
    for i in range(2):
        saved = tmp_path / f"pos{i}.json"
        shard_args = [args[0], str(tmp_path / f"part{i}.csv"), *args[2:]]
        assert _cli(capsys, *shard_args, "--save-state", str(saved))[0] == 0
        positional.append(str(saved))
    code, _, err = _cli(capsys, "merge", *positional)
    assert code == 2 and "two inputs are keyed by the same row positions" in err


def test_on_dask_rows_keyed_by_position_are_refused_and_keyed_rows_agree(
    tmp_path: Path, dask_cluster: Any
) -> None:
    path = _file(tmp_path, 60, 1)
    with pytest.raises(ConfigError, match=r"do not know the positions of their rows.*key=COL"):
        api.evaluate_table(
            str(path), task="binary", true=["y"], score=["s"], ci=api.CI(), by=["g"], engine="dask"
        )
    ci = api.CI(n_resamples=60, seed=3, key="id")
    whole = _evaluate(path, ci)
    on_dask = api.evaluate_table(
        str(path),
        task="binary",
        true=["y"],
        score=["s"],
        metrics=["roc_auc", "average_precision"],
        ci=ci,
        by=["g"],
        engine="dask",
        scheduler=dask_cluster.scheduler_address,
    )
    for name, found in whole.values.items():
        other = on_dask.values[name]
        assert other.overall == found.overall
        assert other.by_group == found.by_group and other.sizes == found.sizes


def test_evaluate_with_a_bootstrap_per_group_in_chunks(tmp_path: Path) -> None:
    path = _file(tmp_path, 70, 4)
    metric = Bootstrap.of("average_precision", n_resamples=40, seed=2)
    whole = scorekit.evaluate(str(path), [metric], by="g", columns={"y_true": "y", "y_score": "s"})
    chunked = scorekit.evaluate(
        str(path), [metric], by="g", columns={"y_true": "y", "y_score": "s"}, chunk_size=9
    )
    key = "average_precision"
    assert isinstance(whole.metrics[key], Grouped)
    assert isinstance(whole.metrics[key].inner, Bootstrap)
    found = [r.metrics[key].compute(r.states[key]) for r in (whole, chunked)]
    shown = {g: r.value for g, r in whole[key].by_group.items()}
    assert shown == {g: r.value for g, r in found[0].by_group.items()}
    assert shown["a"] == pytest.approx(_alone_ap(path, "a"))
    for group, replicated in found[0].by_group.items():
        other = found[1].by_group[group]
        assert replicated.value == other.value
        assert np.array_equal(replicated.replicates, other.replicates, equal_nan=True)


def _alone_ap(path: Path, group: str) -> float:
    table = pacsv.read_csv(path)
    rows = np.flatnonzero(table["g"].to_numpy(zero_copy_only=False) == group)
    y, s = table["y"].to_numpy()[rows], table["s"].to_numpy()[rows]
    return float(reference.average_precision_score(y, s))
