"""A task's metric merges gathered states as the metric it folds does, ``merge_taken`` included.

The merge tree hands the states it gathered for a metric that defers its
merges to the metric's ``merge_taken`` when it has one (a list given away,
emptied as the states are merged), else to ``merge_many``. A metric reading a
table's columns (:func:`task_metric`) has ``merge_taken`` exactly when the
metric it folds has, so exact histograms folded from a file's chunks let go of
each chunk's state as they merge, with the values of scikit-learn.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import parse_metric
from scorekit.api import evaluate_table
from scorekit.classification import ROCAUC, table_task
from scorekit.classification._table._wrapper import task_metric
from scorekit.core import MergeTree

TASK = table_task("f.parquet", "binary", ["y"], ["s"], None, None, None)


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, list[Any]]]:
    """Record each list ``ROCAUC.merge_taken`` is given, with its length then."""
    calls: list[tuple[int, list[Any]]] = []
    taken = ROCAUC.merge_taken

    def recording(self: Any, states: list[Any]) -> Any:
        calls.append((len(states), states))
        return taken(self, states)

    monkeypatch.setattr(ROCAUC, "merge_taken", recording)
    return calls


def test_merge_taken_is_the_folded_metrics_when_it_has_one() -> None:
    auc = task_metric(parse_metric("roc_auc"), TASK, None)
    taken = getattr(auc, "merge_taken", None)
    assert taken is not None and taken == auc.folded.merge_taken
    for name in ("accuracy", "f1"):
        assert getattr(task_metric(parse_metric(name), TASK, None), "merge_taken", None) is None
    # a folded wrapper with no merge_taken of its own: none either
    wrapper = task_metric(parse_metric("roc_auc"), TASK, None, folded=parse_metric("accuracy"))
    assert getattr(wrapper, "merge_taken", None) is None


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    sizes=st.lists(st.integers(0, 40), min_size=1, max_size=80),
    dtype=st.sampled_from([np.float32, np.float64]),
    ties=st.booleans(),
)
def test_the_merge_tree_gives_gathered_states_away_through_the_wrapper(
    seed: int, sizes: list[int], dtype: Any, ties: bool
) -> None:
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    y = rng.integers(0, 2, n)
    s = (np.round(rng.random(n), 1) if ties else rng.random(n)).astype(dtype)
    auc = task_metric(parse_metric("roc_auc"), TASK, None)
    with pytest.MonkeyPatch.context() as patch:
        calls = _spy(patch)
        tree = MergeTree([auc])
        for lo, hi in itertools.pairwise(np.cumsum([0, *sizes])):
            tree.add([auc.folded.summarize(y[lo:hi], s[lo:hi])])
        (merged,) = tree.result()
    whole = parse_metric("roc_auc").summarize(y, s)
    assert merged.equals(whole) and merged.score.dtype == whole.score.dtype
    # the states gathered went to merge_taken, which emptied each list it was given
    assert sum(size for size, _ in calls) >= len(sizes) - 1 if len(sizes) > 1 else not calls
    assert all(size > 1 and states == [] for size, states in calls)
    if np.unique(y).size == 2:
        assert auc.compute(merged) == pytest.approx(skm.roc_auc_score(y, s), rel=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_file_folded_in_chunks_gives_its_states_away(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dtype: Any
) -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 200).astype(np.int8)
    s = np.round(rng.random(200), 2).astype(dtype)
    path = tmp_path / "scores.parquet"
    pq.write_table(pa.table({"y": y, "s": s}), path)
    calls = _spy(monkeypatch)
    # scorekit eval --task binary: the stream engine folds the task's metric
    result = evaluate_table(
        str(path), task="binary", true=["y"], score=["s"], metrics=["roc_auc"], chunk_size=16
    )
    # the chunks' states were gathered and given away
    assert calls and all(size > 1 and states == [] for size, states in calls)
    assert sum(size for size, _ in calls) >= 200 // 16
    assert result.values["roc_auc"] == pytest.approx(skm.roc_auc_score(y, s), rel=1e-12)
