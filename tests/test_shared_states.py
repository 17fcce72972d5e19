"""Metrics that summarize the same columns the same way share one state object on Dask.

ROC AUC and average precision of one score column keep the same exact histogram
(whole or in the same score ranges): each partition's states, and the merged
ones, hold it once, and the values are those of states of their own.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import parse_metric
from scorekit.classification import ScoreHistogram, table_task
from scorekit.classification._table._wrapper import task_metric
from scorekit.core import MergeTree, merge_shared, merge_states, share_equal
from scorekit.engines._columns import resolve
from scorekit.engines.stream import fold
from tables import binary_scores


def _summaries(names: list[str], seed: int) -> tuple[list[Any], list[Any], list[Any]]:
    metrics = [parse_metric(name) for name in names]
    rng = np.random.default_rng(seed)
    halves = []
    for _ in range(2):
        y, s = rng.integers(0, 2, 200), rng.integers(0, 20, 200) / 20
        halves.append([m.summarize(y, s) for m in metrics])
    return metrics, halves[0], halves[1]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equal_states_of_metrics_that_merge_alike_are_shared_and_merged_once(seed: int) -> None:
    names = ["roc_auc", "average_precision", "roc_auc:ranges=4", "average_precision:ranges=4"]
    metrics, left, right = _summaries(names, seed)
    a, b = share_equal(metrics, left), share_equal(metrics, right)
    assert a[0] is a[1] and a[2] is a[3] and a[0] is not a[2]
    merged = merge_shared(metrics, a, b)
    assert merged[0] is merged[1] and merged[2] is merged[3]
    own = merge_states(metrics, left, right)
    for metric, shared, alone in zip(metrics, merged, own, strict=True):
        assert shared.equals(alone)
        assert metric.compute(shared) == metric.compute(alone)


def test_states_that_differ_or_merge_otherwise_are_not_shared() -> None:
    metrics, left, _ = _summaries(["roc_auc", "roc_auc:ranges=4", "average_precision"], 3)
    other = parse_metric("average_precision", pos_label=0).summarize([0, 1, 1], [0.1, 0.5, 0.7])
    shared = share_equal(metrics, [left[0], left[1], other])
    assert shared[1] is left[1] and shared[2] is other

    class OwnMerge(type(metrics[2])):  # type: ignore[misc]
        def merge(self, a: Any, b: Any) -> Any:
            return super().merge(a, b)

    fields = {f.name: getattr(metrics[2], f.name) for f in dataclasses.fields(metrics[2])}
    own = OwnMerge(**fields)
    shared = share_equal([metrics[0], own], [left[0], left[2]])
    assert isinstance(left[0], ScoreHistogram) and left[0].equals(left[2])
    assert shared[1] is left[2]
    merged = merge_shared([metrics[0], own], [left[0], left[0]], [left[0], left[0]])
    assert merged[0] is not merged[1] and merged[0].equals(merged[1])
    # wrapped by a task, the metrics they fold into decide
    task = table_task("f.csv", "binary", ["y"], ["p"], None, None, None)
    wrapped = [task_metric(m, task, None) for m in (metrics[0], own, metrics[2])]
    shared = share_equal(wrapped, [left[0], left[2], left[2]])
    assert shared[1] is left[2] and shared[2] is left[0]


def test_dask_states_of_auc_and_ap_share_one_histogram(dask_cluster: Any) -> None:
    pytest.importorskip("distributed")
    from distributed import Client

    from scorekit.engines.dask import dask_states

    table = binary_scores(4, 3000, distinct=500, weights="dyadic", float32=True)
    metrics = [parse_metric(n) for n in ("roc_auc", "average_precision", "roc_auc:bins=64")]
    columns = {"sample_weight": "sample_weight"}
    mapping = resolve(metrics, columns, table.column_names)
    with Client(dask_cluster):
        states, _ = dask_states(table, metrics, mapping, partition_hint=400)
    assert states[0] is states[1]
    expected, _ = fold(metrics, [table], mapping, {})
    for metric, got, want in zip(metrics, states, expected, strict=True):
        assert (
            np.float64(metric.compute(got)).tobytes() == np.float64(metric.compute(want)).tobytes()
        )


@settings(max_examples=8, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    chunks=st.integers(1, 150),
    shared=st.sampled_from(["all", "none", "some"]),
)
def test_a_merge_tree_of_states_shared_in_some_chunks_merges_as_one_of_its_own(
    seed: int, chunks: int, shared: str
) -> None:
    """Chunk states shared by metrics in some chunks and not in others (past the
    gathered merges of 64 states too) merge as the same states each metric's own."""
    names = ["roc_auc", "average_precision", "roc_auc", "accuracy"]
    metrics = [parse_metric(name) for name in names]
    rng = np.random.default_rng(seed)
    tree, alone = MergeTree(metrics), [MergeTree([m]) for m in metrics]
    for _ in range(chunks):
        n = int(rng.integers(1, 30))
        y, s = rng.integers(0, 2, n), rng.integers(0, 10, n) / 10
        states = [
            m.summarize(y, (s > 0.5).astype(int)) if m.name == "accuracy" else m.summarize(y, s)
            for m in metrics
        ]
        for own, state in zip(alone, states, strict=True):
            own.add([state])
        share = shared == "all" or (shared == "some" and rng.random() < 0.5)
        tree.add(share_equal(metrics, states) if share else states)
    merged = tree.result()
    for own, state in zip(alone, merged, strict=True):
        assert state.equals(own.result()[0])
    if shared == "all":
        assert merged[0] is merged[1] is merged[2] and merged[3] is not merged[0]


def test_equal_states_of_other_array_types_are_not_shared() -> None:
    metrics = [parse_metric("roc_auc"), parse_metric("average_precision")]
    y, s = [0, 1, 1, 0], np.float32([0.1, 0.7, 0.35, 0.8])
    narrow, wide = metrics[0].summarize(y, s), metrics[1].summarize(y, s.astype(np.float64))
    assert narrow.equals(wide) and narrow.score.dtype != wide.score.dtype
    shared = share_equal(metrics, [narrow, wide])
    assert shared[1] is wide
    assert share_equal(metrics, [narrow, metrics[1].summarize(y, s)])[1] is narrow
