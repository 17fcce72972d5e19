"""Merged score ranges kept on the workers of a Dask cluster, and read there.

On the caller's own cluster the Dask engine leaves the merged ranges of a
parted state on the workers (:class:`ClusterParts`): readers going through
:func:`scorekit.core.scan` run each step next to its range, and only the
steps' totals come back. A cluster the engine connects to or starts stops with
the run or session, after bringing the ranges still in use here; one that fails
lets them go, and reading them then is a clear error.
"""

from __future__ import annotations

import gc
import json
import pickle
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

pytest.importorskip("distributed")
pytest.importorskip("dask.dataframe")

from distributed import Client, LocalCluster

import scorekit
from scorekit import engines, parse_metric
from scorekit.core import State, scan
from scorekit.engines._dask_parts import ClusterParts
from scorekit.errors import ConfigError
from tables import binary_scores


@pytest.fixture(scope="module")
def client(dask_cluster: LocalCluster) -> Iterator[Client]:
    with Client(dask_cluster) as made:
        yield made


def _where(total: int, part: State) -> tuple[int, tuple[str, int]]:
    """A step that adds up the samples and tells where it ran."""
    from distributed import get_worker

    try:
        address = get_worker().address
    except ValueError:
        address = "here"
    return total + int(part.n_samples), (address, int(part.n_samples))


def _fails(total: int, part: State) -> tuple[int, None]:
    raise scorekit.errors.InputError("a step: refused; got a part, expected none.")


def _table(seed: int = 5, n: int = 3000) -> Any:
    return binary_scores(seed, n, distinct=500, weights="none", float32=False)


def test_steps_run_on_the_workers_and_only_their_totals_come_back(
    client: Client, dask_cluster: LocalCluster
) -> None:
    table = _table()
    metric = parse_metric("roc_auc:ranges=8")
    found = scorekit.evaluate(table, [metric], engine="dask", chunk_size=400)
    parts = found.states[metric.name].parts
    assert isinstance(parts, ClusterParts) and parts.on_cluster
    total, outs = scan(parts, _where, 0)
    workers = set(dask_cluster.scheduler_info["workers"])
    assert total == table.num_rows
    assert {address for address, _ in outs} <= workers
    # the same scan over the ranges fetched here gives the same totals
    here = tuple(parts[i] for i in range(len(parts)))
    assert scan(here, _where, 0) == (total, [("here", n) for _, n in outs])
    whole = parse_metric("roc_auc").summarize(table["y_true"], table["y_score"])
    assert found.values[metric.name] == parse_metric("roc_auc").compute(whole)


def test_an_error_of_a_step_is_raised_here_as_it_is(client: Client) -> None:
    metric = parse_metric("average_precision:ranges=4")
    found = scorekit.evaluate(_table(6), [metric], engine="dask", chunk_size=500)
    parts = found.states[metric.name].parts
    assert isinstance(parts, ClusterParts) and parts.on_cluster
    with pytest.raises(scorekit.errors.InputError, match="a step: refused"):
        scan(parts, _fails, 0)


def test_a_session_brings_the_ranges_here_before_its_cluster_stops(
    dask_cluster: LocalCluster,
) -> None:
    table = _table(7)
    metric = parse_metric("roc_auc:ranges=8")
    address = dask_cluster.scheduler_address
    with engines.session("dask", scheduler=address):
        found = scorekit.evaluate(table, [metric], engine="dask", scheduler=address, chunk_size=500)
        parts = found.states[metric.name].parts
        assert isinstance(parts, ClusterParts) and parts.on_cluster
        inside = scan(parts, _where, 0)[0]
    assert not parts.on_cluster
    assert scan(parts, _where, 0)[0] == inside == table.num_rows
    again = scorekit.evaluate(table, [metric], chunk_size=500)
    assert found.states[metric.name].equals(again.states[metric.name])
    assert pickle.loads(pickle.dumps(found.states[metric.name])).equals(again.states[metric.name])


def test_ranges_no_longer_used_are_not_brought_here(
    dask_cluster: LocalCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    metric = parse_metric("roc_auc:ranges=4")
    address = dask_cluster.scheduler_address
    brought: list[ClusterParts] = []
    original = ClusterParts.localize

    def localize(self: ClusterParts) -> None:
        brought.append(self)
        original(self)

    monkeypatch.setattr(ClusterParts, "localize", localize)
    with engines.session("dask", scheduler=address):
        found = scorekit.evaluate(_table(8), [metric], engine="dask", scheduler=address)
        value = found.values[metric.name]
        kept = scorekit.evaluate(_table(9), [metric], engine="dask", scheduler=address)
        del found
        gc.collect()
    # only the state still in use came here
    assert brought == [kept.states[metric.name].parts] and np.isfinite(value)


def test_a_failed_session_lets_the_ranges_go_and_says_so_when_read(
    dask_cluster: LocalCluster,
) -> None:
    metric = parse_metric("roc_auc:ranges=4")
    address = dask_cluster.scheduler_address
    kept: list[Any] = []
    with (
        pytest.raises(RuntimeError, match="stop here"),
        engines.session("dask", scheduler=address),
    ):
        found = scorekit.evaluate(_table(9), [metric], engine="dask", scheduler=address)
        kept.append(found.states[metric.name])
        raise RuntimeError("stop here")
    parts = kept[0].parts
    assert isinstance(parts, ClusterParts) and not parts.on_cluster
    with pytest.raises(ConfigError, match="on a cluster that has stopped"):
        parts[0]
    with pytest.raises(ConfigError, match="on a cluster that has stopped"):
        scan(parts, _where, 0)


@pytest.mark.parametrize("save", [False, True])
def test_eval_brings_ranges_here_only_to_save_them(
    dask_cluster: LocalCluster,
    count_calls: Any,
    tmp_path: Any,
    capsys: pytest.CaptureFixture[str],
    save: bool,
) -> None:
    import pyarrow.parquet as pq

    from scorekit.cli import main

    table = _table(10, 4000)
    path = tmp_path / "scores.parquet"
    pq.write_table(table, path)
    counted = count_calls(ClusterParts, "localize", "drop")
    argv = ["eval", str(path), "--task", "binary", "--true", "y_true", "--score", "y_score"]
    argv += ["--metric", "roc_auc:ranges=8", "--metric", "average_precision:ranges=8"]
    argv += ["--engine", "dask", "--scheduler", dask_cluster.scheduler_address]
    argv += ["--format", "json", "--chunk-size", "700"]
    if save:
        argv += ["--save-state", str(tmp_path / "state.sk")]
    assert main(argv) == 0
    found = json.loads(capsys.readouterr().out)
    here = scorekit.evaluate(table, ["roc_auc", "average_precision"])
    assert found["roc_auc:ranges=8"] == here.values["roc_auc"]
    assert found["average_precision:ranges=8"] == here.values["average_precision"]
    # the values were read on the cluster; its ranges come here only to be saved
    # the two metrics hold one histogram: one set of ranges on the cluster
    assert counted == ({"localize": 1, "drop": 0} if save else {"localize": 0, "drop": 1})


def test_metrics_of_one_histogram_merge_and_keep_their_ranges_once(client: Client) -> None:
    table = _table(11)
    names = ["roc_auc:ranges=8", "average_precision:ranges=8", "roc_auc:ranges=8,max_fpr=0.5"]
    found = scorekit.evaluate(table, names, engine="dask", chunk_size=600)
    parts = [found.states[name].parts for name in names]
    assert isinstance(parts[0], ClusterParts) and parts[1] is parts[0] and parts[2] is parts[0]
    here = scorekit.evaluate(table, names, chunk_size=600)
    assert found.values == here.values
    for name in names:
        assert found.states[name].equals(here.states[name])


@pytest.mark.parametrize("chunk_size", [700, 5000])
def test_metrics_taken_to_share_states_that_do_not_get_trees_of_their_own(
    client: Client, monkeypatch: pytest.MonkeyPatch, chunk_size: int
) -> None:
    from scorekit.engines import dask as dask_engine

    table = _table(12)
    names = ["roc_auc:cuts=[0.3,0.5,0.7]", "roc_auc:cuts=[0.2,0.4,0.6]"]
    calls: list[dict[int, int]] = []
    original = dask_engine._graph

    def graph(*args: Any) -> Any:
        calls.append(dict(args[-1]))
        return original(*args)

    # two metrics wrongly taken to share: every partition says they do not
    monkeypatch.setattr(dask_engine, "sharing", lambda metrics, parted: {1: 0})
    monkeypatch.setattr(dask_engine, "_graph", graph)
    # several partitions, or one (whose tree is its leaf)
    found = scorekit.evaluate(table, names, engine="dask", chunk_size=chunk_size)
    assert calls == [{1: 0}, {}]
    here = scorekit.evaluate(table, names, chunk_size=chunk_size)
    assert found.values == here.values
    assert found.states[names[0]].parts is not found.states[names[1]].parts


def _count_rows(carry: list[int], part: State) -> tuple[list[int], None]:
    """A step that changes its carry in place."""
    carry.append(int(part.n_samples))
    return carry, None


def test_a_step_changing_its_carry_leaves_the_earlier_results_as_they_were(
    client: Client,
) -> None:
    from scorekit.engines._dask_parts import _step

    metric = parse_metric("roc_auc:ranges=4")
    found = scorekit.evaluate(_table(13), [metric], engine="dask", chunk_size=800)
    parts = found.states[metric.name].parts
    assert isinstance(parts, ClusterParts) and parts.on_cluster
    counts, _ = scan(parts, _count_rows, [])
    assert counts == [int(parts[i].n_samples) for i in range(len(parts))]
    # a carry held by the cluster (an earlier step's result) is not changed by the next
    held: list[int] = [7]
    carry, _ = _step(_count_rows, held, parts[0])
    assert held == [7] and carry == [7, counts[0]]
    assert scan(parts, _count_rows, []) == (counts, [None] * len(parts))


def test_a_cluster_lost_while_its_ranges_come_here_loses_them_all(
    dask_cluster: LocalCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scorekit.engines import _parts as parts_module

    names = ["roc_auc:ranges=4", "roc_auc:cuts=[0.3,0.5,0.7]"]
    address = dask_cluster.scheduler_address
    kept: list[Any] = []

    class Lost(Exception):
        pass

    def fail(self: ClusterParts) -> None:
        self.drop()
        raise Lost

    monkeypatch.setattr(ClusterParts, "localize", fail)
    with (
        pytest.raises(Lost),
        engines.session("dask", scheduler=address),
    ):
        found = scorekit.evaluate(_table(14), names, engine="dask", scheduler=address)
        kept.extend(found.states[name].parts for name in names)
    assert all(isinstance(p, ClusterParts) and not p.on_cluster for p in kept)
    for parts in kept:
        with pytest.raises(ConfigError, match="on a cluster that has stopped"):
            parts[0]
    assert not parts_module._OWNED
