"""The Dask engine caps the bytes of the states one merge task takes.

The merge trees are driven from the client as the summaries finish: consecutive
nodes (ranges of partitions) are merged, in order, while their states hold at most
``MERGE_BYTES`` together, two at least and ``SPLIT_EVERY`` at most. Whatever the
cap, the states equal the stream engine's (bit for bit where the sums are exact),
and the trees of the ranges of a state have the shape of the whole states' tree,
so ROC AUC and AP with ranges equal them without, bit for bit, with any weights.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask.dataframe as dd
from distributed import Client, LocalCluster

from scorekit import core, parse_metric
from scorekit.core import State
from scorekit.engines import dask as dask_engine
from scorekit.engines._columns import resolve
from scorekit.engines._parts import SPLIT_EVERY
from scorekit.engines._parts import merge_take as _group
from scorekit.engines.dask import dask_states
from scorekit.engines.stream import fold
from scorekit.errors import InputError
from tables import binary_scores

NAMES = ["roc_auc:ranges=8", "average_precision:ranges=8", "roc_auc", "average_precision"]
LIGHT = ["roc_auc:ranges=8", "roc_auc"]
OTHERS = ["accuracy", "f1", "log_loss"]

TINY = 1
HUGE = 1 << 62

Group = list[tuple[int, int, int]]
"""A recorded merge: the first and past-the-last partition and the bytes of each node."""


@pytest.fixture(scope="module")
def client(dask_cluster: LocalCluster) -> Iterator[Client]:
    with Client(dask_cluster) as made:
        yield made


@pytest.fixture
def merges(monkeypatch: pytest.MonkeyPatch) -> list[Group]:
    """The merges the trees submit, in the order they are submitted."""
    made: list[Group] = []
    merge = dask_engine._Tree._merge

    def recording(self: Any, group: list[Any]) -> Any:
        made.append([(node.start, node.stop, node.nbytes) for node in group])
        return merge(self, group)

    monkeypatch.setattr(dask_engine._Tree, "_merge", recording)
    return made


def _stream(metrics: list[Any], table: pa.Table, mapping: Any) -> list[State]:
    states, _ = fold(metrics, [table], mapping, {})
    return states


def _mapping(metrics: list[Any], table: pa.Table) -> dict[str, tuple[str, ...]]:
    weighted = "sample_weight" in table.column_names
    columns = {"sample_weight": "sample_weight"} if weighted else None
    return resolve(metrics, columns, table.column_names)


def _bits(value: Any) -> bytes:
    return np.asarray(value, dtype=np.float64).tobytes()


def _scores(seed: int, n: int, weights: str) -> pa.Table:
    table = binary_scores(seed, n, distinct=997, weights=weights, float32=False)
    rng = np.random.default_rng(seed)
    # a label decision and a probability for the metrics of whole states
    pred = (table["y_score"].to_numpy() > 0.5).astype(np.int64)
    proba = np.clip(rng.random(n), 1e-3, 1 - 1e-3)
    return table.append_column("y_pred", pa.array(pred)).append_column("proba", pa.array(proba))


def _run(table: pa.Table, names: list[str], partitions: int) -> tuple[list[Any], list[State], Any]:
    """The metrics, their Dask states over ``partitions`` partitions, and the mapping."""
    metrics = [parse_metric(name) for name in names]
    columns: dict[str, str] = {}
    if "sample_weight" in table.column_names:
        columns["sample_weight"] = "sample_weight"
    if "log_loss" in names:
        columns["y_proba"] = "proba"
    mapping = resolve(metrics, columns or None, table.column_names)
    rows = -(-table.num_rows // partitions)
    states, count = dask_states(table, metrics, mapping, partition_hint=rows)
    assert count == table.num_rows
    return metrics, states, mapping


def _levels(groups: list[Group]) -> list[Group]:
    """The merges of partitions themselves (the first level of the trees)."""
    return [g for g in groups if all(stop - start == 1 for start, stop, _ in g)]


def _check_greedy(groups: list[Group], cap: int) -> None:
    """Each merge holds at most ``cap`` bytes unless it takes two, and a merge of fewer
    than SPLIT_EVERY partitions followed by another one ends where the next one's first
    partition would pass the cap."""
    for group in groups:
        assert 2 <= len(group) <= SPLIT_EVERY
        assert all(a[1] == b[0] for a, b in itertools.pairwise(group))
        if len(group) > 2:
            assert sum(size for *_, size in group) <= cap
    first = sorted(_levels(groups))
    for group, following in itertools.pairwise(first):
        if len(group) < SPLIT_EVERY and group[-1][1] == following[0][0]:
            assert sum(size for *_, size in group) + following[0][2] > cap


# the grouping ----------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 100), max_size=12),
    last=st.booleans(),
    cap=st.integers(0, 400),
)
def test_a_merge_takes_nodes_in_order_up_to_the_cap(sizes: list[int], last: bool, cap: int) -> None:
    taken = _group(sizes, last, cap)
    assert 0 <= taken <= min(len(sizes), SPLIT_EVERY)
    if taken == 1:
        # one node at the end of a level goes up unmerged
        assert last and len(sizes) == 1
    if taken > 2:
        assert sum(sizes[:taken]) <= cap
    if 0 < taken < min(len(sizes), SPLIT_EVERY):
        # closed by bytes: the next node would not fit
        assert taken >= 2 and sum(sizes[: taken + 1]) > cap
    if taken == len(sizes) < SPLIT_EVERY:
        # a merge ends with the nodes there at the end of its level, or when they fill it
        assert last or not sizes or (taken >= 2 and sum(sizes) >= cap)
    if taken == 0 and sizes:
        # waiting: the nodes there hold less than the cap, and more may come
        assert not last and len(sizes) < SPLIT_EVERY
        assert len(sizes) < 2 or sum(sizes) < cap


def test_the_grouping_by_examples() -> None:
    assert _group([10] * 5, False, 1) == 2
    assert _group([10] * 9, False, HUGE) == SPLIT_EVERY
    assert _group([10] * 5, False, HUGE) == 0
    assert _group([10] * 5, True, HUGE) == 5
    # a node past the cap merges with one neighbour; small ones after it wait
    assert _group([500, 1, 1], False, 100) == 2
    assert _group([1, 500, 1], False, 100) == 2
    assert _group([40, 40, 40], False, 100) == 2
    assert _group([40, 40, 20, 1], False, 100) == 3
    # two nodes that fill the cap need not wait for a third
    assert _group([40, 60], False, 100) == 2 and _group([40, 50], False, 100) == 0
    assert _group([7], True, 100) == 1 and _group([7], False, 100) == 0


def test_the_cap_is_the_stream_engines() -> None:
    assert dask_engine.MERGE_BYTES == core.GATHER_BYTES


# the trees on a cluster --------------------------------------------------------------------


@pytest.mark.parametrize(("cap", "weights"), [(TINY, "dyadic"), (HUGE, "none")])
def test_states_equal_the_stream_engine_under_any_cap(
    client: Client,
    monkeypatch: pytest.MonkeyPatch,
    merges: list[Group],
    cap: int,
    weights: str,
) -> None:
    monkeypatch.setattr(dask_engine, "MERGE_BYTES", cap)
    table = _scores(3, 3000, weights)
    metrics, states, mapping = _run(table, LIGHT + OTHERS, 26)
    expected = _stream(metrics, table, mapping)
    for metric, got, want in zip(metrics, states, expected, strict=True):
        if metric.name == "log_loss":
            # sums of probabilities round: another order of merges shows in the last bits
            assert metric.compute(got) == pytest.approx(metric.compute(want), rel=1e-12, abs=0)
            continue
        assert got.equals(want), metric.name
        assert _bits(metric.compute(got)) == _bits(metric.compute(want)), metric.name
    # the ranges went through trees of the whole states' shape: the same bits
    assert _bits(metrics[0].compute(states[0])) == _bits(metrics[1].compute(states[1]))
    # 26 partitions merged into one: 25 partitions' worth of merges in all
    assert sum(len(g) - 1 for g in merges) == 25
    first = _levels(merges)
    if cap == TINY:
        assert all(len(g) == 2 for g in merges)
        assert len(first) == 13
    else:
        assert all(len(g) <= SPLIT_EVERY for g in merges)
        assert [len(g) for g in sorted(first)] == [8] * 3 + [2]
    _check_greedy(merges, cap)


@pytest.mark.parametrize(("cap", "seed"), [(TINY, 0), (HUGE, 1)])
def test_ranges_equal_the_whole_histogram_with_any_weights(
    client: Client, monkeypatch: pytest.MonkeyPatch, cap: int, seed: int
) -> None:
    monkeypatch.setattr(dask_engine, "MERGE_BYTES", cap)
    table = binary_scores(seed, 4000, distinct=50, weights="any", float32=False)
    names = [*LIGHT, "average_precision:ranges=3", "average_precision"]
    metrics = [parse_metric(name) for name in names]
    mapping = _mapping(metrics, table)
    states, _ = dask_states(table, metrics, mapping, partition_hint=400)
    expected = _stream(metrics, table, mapping)
    for metric, got, want in zip(metrics, states, expected, strict=True):
        assert metric.compute(got) == pytest.approx(metric.compute(want), rel=1e-12, abs=0)
    # the ranges went through trees of the whole states' shape: the same bits
    assert _bits(metrics[0].compute(states[0])) == _bits(metrics[1].compute(states[1]))
    assert _bits(metrics[2].compute(states[2])) == _bits(metrics[3].compute(states[3]))


def test_merges_closed_by_bytes(
    client: Client, monkeypatch: pytest.MonkeyPatch, merges: list[Group]
) -> None:
    table = _scores(5, 2400, "dyadic")
    monkeypatch.setattr(dask_engine, "MERGE_BYTES", HUGE)
    _run(table, LIGHT, 24)
    seen = {start: size for g in _levels(merges) for start, _, size in g}
    sizes = list(seen.values())
    assert len(sizes) == 24 and min(sizes) > 0
    # three partitions' states fit, and no eight do
    cap = int(3.5 * max(sizes))
    assert 8 * min(sizes) > cap
    merges.clear()
    monkeypatch.setattr(dask_engine, "MERGE_BYTES", cap)
    metrics, states, mapping = _run(table, LIGHT, 24)
    for metric, got, want in zip(metrics, states, _stream(metrics, table, mapping), strict=True):
        assert got.equals(want), metric.name
    # the sizes the tree saw are those of the states, as the first run saw them
    first = _levels(merges)
    assert {start: size for g in first for start, _, size in g}.items() <= seen.items()
    assert all(3 <= len(g) < SPLIT_EVERY for g in sorted(first)[:-1])
    _check_greedy(merges, cap)
    # nodes past the cap merge two at a time
    big = [g for g in merges if all(size > cap for *_, size in g)]
    assert big and all(len(g) == 2 for g in big)


def test_one_partition_merges_nothing(
    client: Client, monkeypatch: pytest.MonkeyPatch, merges: list[Group]
) -> None:
    monkeypatch.setattr(dask_engine, "MERGE_BYTES", TINY)
    table = _scores(7, 500, "dyadic")
    frame = dd.from_pandas(table.to_pandas(), npartitions=1)
    metrics = [parse_metric(name) for name in NAMES + OTHERS]
    mapping = resolve(
        metrics, {"sample_weight": "sample_weight", "y_proba": "proba"}, table.column_names
    )
    states, rows = dask_states(frame, metrics, mapping)
    assert rows == 500 and merges == []
    for metric, got, want in zip(metrics, states, _stream(metrics, table, mapping), strict=True):
        assert got.equals(want), metric.name


def test_a_bad_value_among_many_partitions_names_its_partition(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dask_engine, "MERGE_BYTES", TINY)
    table = _scores(9, 3000, "none")
    score = table["y_score"].to_numpy().copy()
    score[2345] = np.nan
    table = table.set_column(table.column_names.index("y_score"), "y_score", pa.array(score))
    with pytest.raises(InputError, match=r"partition 9, row 96, column 'y_score'"):
        _run(table, LIGHT, 12)


def test_a_grouped_ranking_metric_over_a_shuffled_frame(
    client: Client, monkeypatch: pytest.MonkeyPatch, merges: list[Group]
) -> None:
    monkeypatch.setattr(dask_engine, "MERGE_BYTES", TINY)
    rng = np.random.default_rng(4)
    queries = [f"q{i}" for i in range(60)]
    qrels = {
        q: {f"d{j}": int(rng.integers(0, 3)) for j in rng.choice(40, 8, replace=False)}
        for q in queries
    }
    n = 3000
    run = pd.DataFrame(
        {
            "query": rng.choice([*queries, "q-none"], n),
            "doc": [f"d{j}" for j in rng.integers(0, 40, n)],
            "score": rng.integers(0, 50, n) / 7,
        }
    ).drop_duplicates(["query", "doc"])
    metrics = [parse_metric("ndcg@10"), parse_metric("map"), parse_metric("recall@5")]
    mapping = resolve(metrics, None, list(run.columns))
    # the rows of every query are spread over the partitions before the shuffle
    frame = dd.from_pandas(run, npartitions=12, sort=False)
    states, rows = dask_states(frame, metrics, mapping, side={"qrels": qrels})
    assert rows == len(run)
    whole = {q: dict(zip(g["doc"], g["score"], strict=True)) for q, g in run.groupby("query")}
    for metric, got in zip(metrics, states, strict=True):
        want = metric.summarize(qrels, whole)
        a, b = got.table(), want.table()
        assert list(a[0]) == list(b[0]), metric.name
        assert _bits(a[1]) == _bits(b[1]), metric.name
        assert got.undefined == want.undefined
    assert merges and all(len(g) == 2 for g in merges)


def test_kinds_of_state_sized_before_the_rule_take_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from dask.sizeof import sizeof

    from scorekit.core import state_nbytes

    metric = parse_metric("roc_auc:ranges=4")
    state = metric.summarize(np.arange(400) % 2, np.linspace(0.0, 1.0, 400))
    # a worker that sized this kind of state by the generic rule keeps it cached
    monkeypatch.setitem(sizeof._lookup, type(state), sizeof._lookup[object])
    assert sizeof(state) < state_nbytes(state)
    monkeypatch.setattr(dask_engine, "_SIZED", [])
    dask_engine._register_sizes()
    assert sizeof(state) >= state_nbytes(state) > 0


def test_metrics_share_ranges_when_their_states_are_one() -> None:
    """ROC AUC, AP, the curve and the best threshold of one column in the same ranges keep one
    state; other ranges, or cut points from a sample beside fixed ones, keep their own."""
    from scorekit.engines._parts import parted_metrics, sharing

    names = [
        "roc_auc:ranges=4",
        "ap:ranges=4",
        "ap:ranges=2",
        "roc_curve:ranges=4",
        "best_threshold:ranges=4",
        "roc_auc:ranges=4,max_fpr=0.5",
        "roc_auc:ranges=4,cuts=sample",
        "ap:ranges=4,cuts=sample",
        "roc_auc",
    ]
    metrics = [parse_metric(name) for name in names]
    assert parted_metrics(metrics) == list(range(8))
    assert sharing(metrics, parted_metrics(metrics)) == {1: 0, 3: 0, 4: 0, 5: 0, 7: 6}
