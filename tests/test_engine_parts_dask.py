"""The Dask engine merges states made of independent parts part by part.

ROC AUC and average precision with ``ranges=N`` keep the exact histogram split by
score ranges; on Dask each range is merged in a tree of its own and the merged
ranges reach the client one at a time, into files. The values equal the stream
engine's bit for bit (integer counts, and weights whose sums are exact), the
client's state holds its ranges in files, and metrics of whole states in the same
call are merged as before.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

from distributed import Client, LocalCluster

from scorekit import evaluate, parse_metric
from scorekit.classification import ScoreRanges
from scorekit.core import State
from scorekit.engines import dask as dask_engine
from scorekit.engines._columns import resolve
from scorekit.engines._dask_parts import ClusterParts
from scorekit.engines._fold import side_inputs
from scorekit.engines._parts import StoredParts, parted_metrics
from scorekit.engines.dask import PART_TREES, _batch_of, _merge_batches, dask_states
from scorekit.engines.stream import fold
from scorekit.errors import InputError, StateMismatchError
from tables import binary_scores

NAMES = ["roc_auc:ranges=8", "average_precision:ranges=8", "roc_auc", "average_precision"]


@pytest.fixture(scope="module")
def client(dask_cluster: LocalCluster) -> Iterator[Client]:
    with Client(dask_cluster) as made:
        yield made


def _mapping(metrics: list[Any], table: pa.Table) -> dict[str, tuple[str, ...]]:
    weighted = "sample_weight" in table.column_names
    columns = {"sample_weight": "sample_weight"} if weighted else None
    return resolve(metrics, columns, table.column_names)


def _stream(metrics: list[Any], table: pa.Table) -> list[State]:
    mapping = _mapping(metrics, table)
    states, _ = fold(metrics, [table], mapping, {})
    return states


def _dask(metrics: list[Any], table: pa.Table, rows: int) -> tuple[list[State], int]:
    mapping = _mapping(metrics, table)
    return dask_states(table, metrics, mapping, partition_hint=rows)


def _bits(value: Any) -> bytes:
    return np.asarray(value, dtype=np.float64).tobytes()


@settings(max_examples=6, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 3000),
    distinct=st.sampled_from([1, 4, 16, 1000, 10**6]),
    weights=st.sampled_from(["none", "dyadic"]),
    float32=st.booleans(),
    rows=st.sampled_from([97, 400, 5000]),
)
def test_ranges_merged_part_by_part_equal_the_stream_engine(
    client: Client, seed: int, n: int, distinct: int, weights: str, float32: bool, rows: int
) -> None:
    table = binary_scores(seed, n, distinct=distinct, weights=weights, float32=float32)
    metrics = [parse_metric(name) for name in NAMES]
    states, count = _dask(metrics, table, rows)
    expected = _stream(metrics, table)
    assert count == n
    for metric, got, want in zip(metrics, states, expected, strict=True):
        assert got.equals(want), metric.name
        assert _outcome(metric, got) == _outcome(metric, want), metric.name
    for j in parted_metrics(metrics):
        parts = states[j].parts
        # the client's own cluster keeps the merged ranges on its workers
        assert isinstance(parts, ClusterParts) and parts.on_cluster and len(parts) == 8
    # with ranges, the AUC is the whole histogram's, bit for bit
    assert _outcome(metrics[0], states[0]) == _outcome(metrics[2], states[2])


@pytest.mark.parametrize("seed", [0, 1])
def test_any_weights_agree_with_the_stream_engine(client: Client, seed: int) -> None:
    table = binary_scores(seed, 4000, distinct=50, weights="any", float32=False)
    metrics = [parse_metric(name) for name in NAMES]
    states, _ = _dask(metrics, table, 300)
    expected = _stream(metrics, table)
    for metric, got, want in zip(metrics, states, expected, strict=True):
        # weights of tied scores add in another order than the stream engine's
        assert metric.compute(got) == pytest.approx(metric.compute(want), rel=1e-12, abs=0)
    # the parts are merged in the tree the whole states go through: same bits
    assert _bits(metrics[0].compute(states[0])) == _bits(metrics[2].compute(states[2]))


def test_a_cluster_the_run_connects_to_brings_its_ranges_to_files(
    dask_cluster: LocalCluster,
) -> None:
    table = binary_scores(3, 2000, distinct=300, weights="none", float32=True)
    metric = parse_metric("roc_auc:ranges=8")
    mapping = _mapping([metric], table)
    # a client the run opens closes with it: the ranges come here before it does
    (state,), _ = dask_states(
        table, [metric], mapping, scheduler=dask_cluster.scheduler_address, partition_hint=250
    )
    assert isinstance(state, ScoreRanges)
    parts = state.parts
    assert isinstance(parts, ClusterParts) and not parts.on_cluster
    stored = parts._stored
    assert isinstance(stored, StoredParts)
    files = sorted(stored._folder.iterdir())
    assert len(files) == 8 and all(f.stat().st_size > 0 for f in files)
    # each range is read from its file when indexed; the state checks as a decoded one
    state.validate()
    whole = metric.summarize(table["y_true"].to_numpy(), table["y_score"].to_numpy())
    assert all(parts[i].equals(whole.parts[i]) for i in range(8))
    # pickled and JSON forms hold the ranges themselves
    back = pickle.loads(pickle.dumps(state))
    assert isinstance(back.parts, tuple) and back.equals(whole)
    assert State.from_json(state.to_json()).equals(whole)
    folder = stored._folder
    del state, parts, back, stored
    import gc

    gc.collect()
    assert not folder.exists()


def test_partitions_without_rows_in_a_range_and_empty_partitions(client: Client) -> None:
    # every score in one range, few rows over many partitions
    table = pa.table({"y_true": [0, 1, 1], "y_score": [0.61, 0.62, 0.61]})
    metrics = [parse_metric("roc_auc:ranges=8"), parse_metric("average_precision:ranges=8")]
    states, rows = _dask(metrics, table, 1)
    assert rows == 3
    for metric, got, want in zip(metrics, states, _stream(metrics, table), strict=True):
        assert got.equals(want)
        assert _bits(metric.compute(got)) == _bits(metric.compute(want))
    assert [states[0].parts[i].n_samples for i in range(8)] == [0, 0, 0, 0, 3, 0, 0, 0]


# A batch whose rows all have zero weight keeps no histogram row, and each range still
# counts the samples whose score lies in it, as the whole table's ranges count them
# (tests/test_score_ranges.py draws such batches on the stream engine).


def _partitioned(pieces: list[dict[str, list[Any]]]) -> Any:
    """A Dask DataFrame of one partition per piece, in order."""
    import dask.dataframe as dd
    import pandas as pd

    frames = [pd.DataFrame(piece) for piece in pieces]
    start = 0
    for frame in frames:
        frame.index += start
        start += len(frame)
    return dd.concat([dd.from_pandas(f, npartitions=1) for f in frames])


def _same_as_the_stream_engine(
    pieces: list[dict[str, list[Any]]], ranges: list[int]
) -> list[State]:
    """The Dask states of the pieces as partitions, checked against the stream engine's
    state of their whole table, field for field and bit for bit; the ranges' sample
    counts are ``ranges``."""
    frame = _partitioned(pieces)
    assert frame.npartitions == len(pieces)
    table = pa.table({name: [v for p in pieces for v in p[name]] for name in pieces[0]})
    metrics = [parse_metric(name) for name in NAMES]
    mapping = _mapping(metrics, table)
    states, rows = dask_states(frame, metrics, mapping)
    assert rows == table.num_rows
    expected = _stream(metrics, table)
    assert [expected[0].parts[i].n_samples for i in range(8)] == ranges
    for metric, got, want in zip(metrics, states, expected, strict=True):
        assert got.equals(want), metric.name
        assert _outcome(metric, got) == _outcome(metric, want), metric.name
    assert [states[0].parts[i].n_samples for i in range(8)] == ranges
    assert states[0].n_samples == table.num_rows
    assert _outcome(metrics[0], states[0]) == _outcome(metrics[2], states[2])
    return states


def _outcome(metric: Any, state: State) -> bytes | str:
    """The bits of the value, or the message of the error computing it raises (every
    weight 0)."""
    try:
        return _bits(metric.compute(state))
    except InputError as exc:
        return str(exc)


def test_a_partition_of_zero_weight_rows_counts_them_in_their_range(client: Client) -> None:
    # two rows, one per partition; the second, of weight 0, is the only sample of range 0
    table = binary_scores(0, 2, distinct=1, weights="dyadic", float32=False)
    assert table["sample_weight"].to_pylist() == [0.25, 0.0]
    assert table["y_score"].to_pylist() == [1.0, 0.0]
    metrics = [parse_metric(name) for name in NAMES]
    states, rows = _dask(metrics, table, 97)
    assert rows == 2
    expected = _stream(metrics, table)
    for metric, got, want in zip(metrics, states, expected, strict=True):
        assert got.equals(want), metric.name
        assert _bits(metric.compute(got)) == _bits(metric.compute(want)), metric.name
    first = states[0].parts[0]
    assert (first.n_samples, first.task, first.score.size) == (1, "binary", 0)
    assert [states[0].parts[i].n_samples for i in range(8)] == [1, 0, 0, 0, 0, 0, 0, 1]


def test_a_partition_of_zero_weight_rows_in_a_middle_range(client: Client) -> None:
    pieces = [
        {"y_true": [0, 1], "y_score": [0.1, 0.9], "sample_weight": [0.5, 1.0]},
        # both rows in range 4, [0.5, 0.625), of weight 0: no row of the histogram
        {"y_true": [1, 0], "y_score": [0.55, 0.6], "sample_weight": [0.0, 0.0]},
        {"y_true": [0, 1], "y_score": [0.3, 0.7], "sample_weight": [0.25, 2.0]},
    ]
    states = _same_as_the_stream_engine(pieces, [1, 0, 1, 0, 2, 1, 0, 1])
    middle = states[0].parts[4]
    assert (middle.task, middle.score.size) == ("binary", 0)


def test_partitions_of_which_some_hold_zero_weight_rows_of_a_range(client: Client) -> None:
    pieces = [
        # every row of weight 0: two in range 2, one in range 6
        {"y_true": [1, 0, 1], "y_score": [0.3, 0.3, 0.8], "sample_weight": [0.0, 0.0, 0.0]},
        # range 2 holds a weighted row and one of weight 0
        {"y_true": [0, 1, 1], "y_score": [0.26, 0.35, 0.95], "sample_weight": [0.5, 0.0, 1.5]},
        # range 2 holds one row of weight 0 among weighted rows of other ranges
        {"y_true": [1, 0, 0], "y_score": [0.05, 0.3, 0.6], "sample_weight": [0.75, 0.0, 0.25]},
        # no row in range 2
        {"y_true": [0, 1], "y_score": [0.4, 0.45], "sample_weight": [1.0, 0.125]},
    ]
    states = _same_as_the_stream_engine(pieces, [1, 0, 5, 2, 1, 0, 1, 1])
    assert states[0].parts[2].score.tolist() == [0.26]
    assert states[0].parts[6].score.size == 0


def test_partitions_of_zero_weight_rows_in_ranges_that_hold_weighted_rows(client: Client) -> None:
    # each zero-weight row shares its partition with a weighted row
    pieces = [
        {"y_true": [1, 0], "y_score": [0.3, 0.81], "sample_weight": [0.0, 0.5]},
        {"y_true": [0, 1], "y_score": [0.3, 0.2], "sample_weight": [2.0, 0.0]},
        {"y_true": [1, 1], "y_score": [0.99, 0.32], "sample_weight": [0.0, 1.0]},
    ]
    states = _same_as_the_stream_engine(pieces, [0, 1, 3, 0, 0, 0, 1, 1])
    assert states[0].parts[7].score.size == 0


def test_one_class_is_undefined_as_in_the_stream_engine(client: Client) -> None:
    table = pa.table({"y_true": [1] * 40, "y_score": np.linspace(0, 1, 40)})
    with pytest.warns(UserWarning, match="undefined"):
        dask_value = evaluate(table, ["roc_auc:ranges=8"], engine="dask", chunk_size=7)
    with pytest.warns(UserWarning, match="undefined"):
        stream_value = evaluate(table, ["roc_auc:ranges=8"], chunk_size=7)
    assert np.isnan(dask_value["roc_auc:ranges=8"]) and np.isnan(stream_value["roc_auc:ranges=8"])


def test_evaluate_with_other_metrics_and_cut_points(client: Client) -> None:
    table = binary_scores(5, 3000, distinct=997, weights="dyadic", float32=False)
    names = ["roc_auc:ranges=16", "average_precision:ranges=3", "roc_auc"]
    got = evaluate(table, names, engine="dask", chunk_size=200)
    want = evaluate(table, names, chunk_size=200)
    assert [_bits(got[n]) for n in names] == [_bits(want[n]) for n in names]
    metric = parse_metric("roc_auc", cuts=[0.1, 0.5, 0.52])
    (state,), _ = _dask([metric], table, 300)
    assert isinstance(state.parts, ClusterParts) and len(state.parts) == 4
    assert state.equals(_stream([metric], table)[0])


@pytest.mark.parametrize("ranges", [PART_TREES - 1, PART_TREES + 1, 3 * PART_TREES + 5])
def test_parts_merged_in_batches_equal_the_stream_engine(client: Client, ranges: int) -> None:
    table = binary_scores(11, 2500, distinct=1000, weights="dyadic", float32=False)
    metrics = [parse_metric(f"roc_auc:ranges={ranges}"), parse_metric("roc_auc")]
    states, _ = _dask(metrics, table, 500)
    assert isinstance(states[0].parts, ClusterParts) and len(states[0].parts) == ranges
    assert states[0].equals(_stream(metrics[:1], table)[0])
    assert _bits(metrics[0].compute(states[0])) == _bits(metrics[1].compute(states[1]))


def test_a_state_of_no_data_with_another_number_of_parts_is_batched_apart() -> None:
    """The merged state's number of parts is not known when the batches are taken out:
    a partition's state of no data (one range) is batched and merged apart from the
    partitions' of four ranges, and those give the same parts as their whole merge."""
    metric = parse_metric("roc_auc:ranges=4")
    a = metric.summarize([0, 1, 1, 0], [0.1, 0.6, 0.9, 0.3])
    b = metric.summarize([1, 0, 1], [0.35, 0.8, 0.05])
    pieces = [{0: s.split_parts()[1]} for s in (a, metric.empty(), b)]
    merged = [_merge_batches([_batch_of(p, 0, k) for p in pieces]) for k in range(PART_TREES)]
    assert [sorted(m) for m in merged] == [[1, 4], [4], [4], [4]] + [[]] * (PART_TREES - 4)
    parts = [part for m in merged[:4] for part in m[4]]
    assert ScoreRanges.from_parts(a.merge(b).split_parts()[0], parts).equals(a.merge(b))
    assert len(merged[0][1]) == 1 and merged[0][1][0].score.size == 0


@pytest.mark.parametrize("offsets", [False, True])
def test_a_large_partition_is_summarized_in_slices_of_the_same_states(
    monkeypatch: pytest.MonkeyPatch, offsets: bool
) -> None:
    table = binary_scores(5, 2500, distinct=1000, weights="dyadic", float32=True)
    metrics = [parse_metric(name) for name in NAMES]
    mapping = _mapping(metrics, table)
    frame = table.to_pandas()
    frame.index += 40
    setup = (metrics, mapping, "scores.parquet", {}, offsets)
    qrels = side_inputs(metrics, {})
    whole, rows, _ = dask_engine._summarize_partition(frame, setup, qrels, 3)
    monkeypatch.setattr(dask_engine, "SUMMARY_ROWS", 300)
    sliced, sliced_rows, _ = dask_engine._summarize_partition(frame, setup, qrels, 3)
    assert sliced_rows == rows == 2500
    assert all(a.equals(b) for a, b in zip(sliced, whole, strict=True))
    # a bad score in a later slice is named at its row in the partition, as unsliced
    frame.loc[frame.index[2222], "y_score"] = np.nan
    with pytest.raises(InputError) as found:
        dask_engine._summarize_partition(frame, setup, qrels, 3)
    place = "row 2263" if offsets else "partition 3, row 2223"
    assert place in str(found.value)
    monkeypatch.setattr(dask_engine, "SUMMARY_ROWS", 10**6)
    with pytest.raises(InputError) as unsliced:
        dask_engine._summarize_partition(frame, setup, qrels, 3)
    assert str(unsliced.value) == str(found.value)


def test_shells_of_different_cut_points_refuse_to_merge() -> None:
    a = parse_metric("roc_auc", cuts=[0.5]).summarize([0, 1], [0.2, 0.7])
    b = parse_metric("roc_auc", cuts=[0.4]).summarize([0, 1], [0.2, 0.7])
    with pytest.raises(StateMismatchError, match="cut points"):
        a.split_parts()[0].merge(b.split_parts()[0])
    # the shell of no data merges with any
    empty = parse_metric("roc_auc", cuts=[0.4]).empty()
    assert empty.split_parts()[0].merge(a.split_parts()[0]).n_samples == 2


@pytest.mark.parametrize("state_format", ["binary", "json"])
def test_state_files_and_the_spark_codec_write_the_ranges(
    client: Client, tmp_path: Any, state_format: str
) -> None:
    from scorekit.engines import _spark_codec as codec
    from scorekit.statefiles import load_states, save_states
    from scorekit.statefiles._format import BINARY_MAGIC

    table = binary_scores(7, 1500, distinct=200, weights="dyadic", float32=True)
    names = ["roc_auc:ranges=8", "roc_auc"]
    metrics = [parse_metric(name) for name in names]
    states, rows = _dask(metrics, table, 200)
    assert isinstance(states[0].parts, ClusterParts)
    whole = _stream(metrics, table)
    entries = {n: (m, s) for n, m, s in zip(names, metrics, states, strict=True)}
    path = save_states(tmp_path / "states.sk", entries, rows=rows, state_format=state_format)
    _, loaded, _ = load_states(path)
    binary = Path(path).read_bytes().startswith(BINARY_MAGIC)
    assert binary == (state_format == "binary")
    assert loaded["roc_auc:ranges=8"].equals(whole[0]) and loaded["roc_auc"].equals(whole[1])
    back = codec.decode_state(codec.encode_state(0, states[0]))
    assert isinstance(back.parts, tuple) and back.equals(whole[0])
