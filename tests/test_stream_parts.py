"""The stream engine keeps no more than one score range of an exact state in memory.

ROC AUC and average precision with ``ranges=N`` (or ``cuts=``) keep the exact
histogram split by score ranges. Past a size, the stream engine writes each
chunk's ranges unmerged to a file and merges each range on its own at the end,
in the tree the whole states go through: the values and the merged ranges are
the same, bit for bit, as without the spill (float weights included); the
files are removed after a run, a failed run and an interrupted one; and no
two ranges are ever loaded at once.
"""

from __future__ import annotations

import gc
import os
import warnings
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit
from scorekit import parse_metric
from scorekit.classification import AveragePrecision, ScoreRanges, roc_auc
from scorekit.cli import main
from scorekit.core import State
from scorekit.engines._columns import resolve
from scorekit.engines._parts import PartedFold, SpilledParts, StoredParts, spill_size
from scorekit.engines.stream import fold
from scorekit.errors import ConfigError, InputError, ScorekitError, StateMismatchError
from tables import binary_scores

NAMES = [
    "roc_auc:ranges=8",
    "average_precision:ranges=8",
    "roc_auc:ranges=3,max_fpr=0.5",
    "roc_auc",
    "average_precision",
]


@pytest.fixture(autouse=True)
def temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Temporary files of the run go to a folder of the test's own."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr("tempfile.tempdir", None)
    return folder


def _left(folder: Path) -> list[Path]:
    gc.collect()
    return sorted(folder.iterdir())


def _chunks(table: pa.Table, size: int) -> list[pa.Table]:
    return [table.slice(i, size) for i in range(0, table.num_rows, size)]


def _mapping(metrics: list[Any], table: pa.Table) -> dict[str, tuple[str, ...]]:
    weights = "sample_weight" in table.column_names
    return resolve(
        metrics, {"sample_weight": "sample_weight"} if weights else None, table.column_names
    )


def _fold(names: list[Any], table: pa.Table, size: int, spill: int | None) -> list[State]:
    metrics = [parse_metric(n) if isinstance(n, str) else n for n in names]
    mapping = _mapping(metrics, table)
    states, rows = fold(metrics, _chunks(table, size), mapping, {}, spill=spill)
    assert rows == table.num_rows
    return states


def _bits(value: Any) -> bytes:
    return np.asarray(value, dtype=np.float64).tobytes()


def _same(names: list[Any], spilled: list[State], whole: list[State]) -> None:
    for name, a, b in zip(names, spilled, whole, strict=True):
        metric = parse_metric(name) if isinstance(name, str) else name
        assert _outcome(metric, a) == _outcome(metric, b), name
        if isinstance(b, ScoreRanges):
            assert isinstance(a, ScoreRanges)
            assert np.array_equal(a.cuts, b.cuts) and a.n_samples == b.n_samples
            assert len(a.parts) == len(b.parts)
            for i in range(len(b.parts)):
                assert a.parts[i].equals(b.parts[i]), (name, i)


# same bits ------------------------------------------------------------------------------------


RANGED = ["roc_auc:ranges=8", "average_precision:ranges=8", "roc_auc:ranges=3,max_fpr=0.5"]


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(0, 1000),
    distinct=st.sampled_from([1, 3, 16, 1000, 10**6]),
    weights=st.sampled_from(["none", "dyadic", "any"]),
    float32=st.booleans(),
    size=st.sampled_from([15, 77, 400, 5000]),
    spill=st.sampled_from([0, 1, 20_000]),
)
def test_spilled_states_equal_the_whole_ones_bit_for_bit(
    seed: int, n: int, distinct: int, weights: str, float32: bool, size: int, spill: int
) -> None:
    table = binary_scores(seed, n, distinct=distinct, weights=weights, float32=float32)
    whole = _fold(RANGED, table, size, spill=1 << 60)
    spilled = _fold(RANGED, table, size, spill=spill)
    _same(RANGED, spilled, whole)
    assert isinstance(whole[0].parts, tuple)
    if n and spill <= 1:
        assert isinstance(spilled[0].parts, StoredParts)


def test_many_chunks_merge_in_the_tree_of_the_whole_states() -> None:
    # more chunks than the merge tree gathers for one merge_many (64), with spills
    # before, between and after its merges
    names = ["roc_auc:ranges=4", "average_precision:ranges=4"]
    # float weights of scores tied across many chunks: a sum grouped otherwise shows
    table = binary_scores(3, 1400, distinct=16, weights="any", float32=True)
    whole = _fold(names, table, 20, spill=1 << 60)
    for spill in (0, 10_000, 45_000):
        _same(names, _fold(names, table, 20, spill=spill), whole)


def test_values_equal_the_whole_histogram_and_scikit_learn() -> None:
    from sklearn.metrics import average_precision_score, roc_auc_score

    table = binary_scores(11, 8000, distinct=10**6, weights="none", float32=True)
    names = ["roc_auc:ranges=16", AveragePrecision(cuts=(0.1, 0.5, 0.9)), "roc_auc"]
    metrics = [parse_metric(n) if isinstance(n, str) else n for n in names]
    states = _fold(metrics, table, 800, spill=0)
    values = [m.compute(s) for m, s in zip(metrics, states, strict=True)]
    assert values[0] == values[2]
    y = table.column("y_true").to_numpy()
    s = table.column("y_score").to_numpy()
    assert values[0] == pytest.approx(roc_auc_score(y, s), rel=1e-12)
    assert values[1] == pytest.approx(average_precision_score(y, s), rel=1e-12)


def test_empty_ranges_empty_chunks_and_no_rows() -> None:
    # every score in the first range: the other ranges hold no row in any chunk
    y = np.array([0, 1] * 50)
    table = pa.table({"y_true": y, "y_score": np.linspace(0.0, 0.1, 100)})
    names = ["roc_auc:ranges=4", "average_precision:ranges=4"]
    whole = _fold(names, table, 9, spill=1 << 60)
    _same(names, _fold(names, table, 9, spill=0), whole)
    # chunks of no rows between others, and no rows at all
    metrics = [parse_metric(n) for n in names]
    mapping = resolve(metrics, None, table.column_names)
    pieces = [table.slice(0, 0), table.slice(0, 50), table.slice(50, 0), table.slice(50)]
    states, _ = fold(metrics, pieces, mapping, {}, spill=0)
    _same(names, states, whole)
    nothing, rows = fold(metrics, [table.slice(0, 0)], mapping, {}, spill=0)
    assert rows == 0 and all(s.equals(ScoreRanges.empty()) for s in nothing)


def _outcome(metric: Any, state: State) -> tuple[Any, ...]:
    with warnings.catch_warnings(record=True) as found:
        warnings.simplefilter("always")
        try:
            value = metric.compute(state)
        except ScorekitError as exc:
            return type(exc), str(exc)
    return _bits(value), sorted(str(w.message) for w in found)


@pytest.mark.parametrize("labels", ["both", "one"])
def test_zero_weights_and_one_class(labels: str) -> None:
    rng = np.random.default_rng(2)
    n = 600
    weight = rng.integers(0, 3, n).astype(float)
    weight[:200] = 0.0  # whole chunks of zero weight
    y = np.ones(n, dtype=int) if labels == "one" else rng.integers(0, 2, n)
    table = pa.table({"y_true": y, "y_score": rng.random(n), "sample_weight": weight})
    names = ["roc_auc:ranges=5", "average_precision:ranges=5"]
    whole = _fold(names, table, 50, spill=1 << 60)
    spilled = _fold(names, table, 50, spill=0)
    for name, a, b in zip(names, spilled, whole, strict=True):
        metric = parse_metric(name)
        assert _outcome(metric, a) == _outcome(metric, b)
    # only zero weights
    zeros = _fold(names, table.slice(0, 200), 50, spill=0)
    whole_zeros = _fold(names, table.slice(0, 200), 50, spill=1 << 60)
    for name, a, b in zip(names, zeros, whole_zeros, strict=True):
        metric = parse_metric(name)
        assert _outcome(metric, a) == _outcome(metric, b)


def test_evaluate_and_the_variable_spill(monkeypatch: pytest.MonkeyPatch) -> None:
    table = binary_scores(5, 5000, distinct=10**6, weights="none", float32=False)
    names = ["roc_auc:ranges=8", "average_precision:ranges=8", "roc_auc"]
    whole = scorekit.evaluate(table, names, chunk_size=700)
    assert isinstance(whole.states["roc_auc:ranges=8"].parts, tuple)
    monkeypatch.setenv("SCOREKIT_SPILL_SIZE", "1")
    assert spill_size() == 1
    spilled = scorekit.evaluate(table, names, chunk_size=700)
    assert isinstance(spilled.states["roc_auc:ranges=8"].parts, StoredParts)
    for name in names:
        assert _bits(spilled[name]) == _bits(whole[name])
    assert spilled["roc_auc:ranges=8"] == roc_auc(table["y_true"], table["y_score"])


def test_an_invalid_spill_size_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCOREKIT_SPILL_SIZE", "lots")
    with pytest.raises(ConfigError, match="SCOREKIT_SPILL_SIZE"):
        spill_size()


def test_cut_points_that_differ_are_refused_after_the_spill() -> None:
    metric = parse_metric("roc_auc:ranges=2")
    folded = PartedFold([metric])
    folded.add([metric.summarize([0, 1], [0.2, 0.7])])
    folded.spill()
    other = parse_metric("roc_auc:ranges=3").summarize([0, 1], [0.2, 0.7])
    folded.add([other])
    with pytest.raises(StateMismatchError, match="cut points"):
        folded.result()
    assert not folded.spilled.folder.exists()


# the command ----------------------------------------------------------------------------------


def test_eval_of_parquet_files_in_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(8)
    folder = tmp_path / "data"
    folder.mkdir()
    for i in range(3):
        n = 4000
        y = (rng.random(n) < 0.4).astype(np.int8)
        s = rng.random(n).astype(np.float32)
        pq.write_table(pa.table({"y": y, "s": s}), folder / f"part{i}.parquet")
    argv = ["eval", str(folder), "--task", "binary", "--true", "y", "--score", "s"]
    argv += ["--chunk-size", "1000", "--format", "json", "--quiet", "--metric"]
    outputs = []
    for spill in ("1T", "1"):
        monkeypatch.setenv("SCOREKIT_SPILL_SIZE", spill)
        code = main([*argv, "roc_auc:ranges=8", "average_precision:ranges=8", "roc_auc"])
        assert code == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert '"roc_auc:ranges=8"' in outputs[0]


# files ----------------------------------------------------------------------------------------


def test_files_are_removed_when_the_state_goes(temporary: Path) -> None:
    table = binary_scores(1, 3000, distinct=10**6, weights="none", float32=True)
    states = _fold(NAMES, table, 500, spill=0)
    # the spilled pieces are gone; each parted state keeps one folder of merged ranges,
    # one for the states that metrics share
    kept = _left(temporary)
    ranged = {id(s): s for s in states if isinstance(s, ScoreRanges)}
    assert [p.name.startswith("scorekit-parts-") for p in kept] == [True] * len(ranged)
    files = sorted(len(list(p.iterdir())) for p in kept)
    assert files == sorted(len(s.parts) for s in ranged.values())
    del states, ranged
    assert _left(temporary) == []


class _Broken(Exception):
    pass


def _failing(table: pa.Table, error: BaseException) -> Iterator[pa.Table]:
    chunks = _chunks(table, 300)
    yield from chunks[:5]
    raise error


@pytest.mark.parametrize("error", [InputError("file.csv: bad row"), KeyboardInterrupt()])
def test_files_are_removed_after_an_error(temporary: Path, error: BaseException) -> None:
    table = binary_scores(4, 3000, distinct=10**6, weights="any", float32=False)
    metrics = [parse_metric(n) for n in NAMES]
    mapping = _mapping(metrics, table)
    written: list[Path] = []
    spill = SpilledParts.add

    def add(self: SpilledParts, parts: Any) -> int:
        written.append(self.folder)
        return spill(self, parts)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(SpilledParts, "add", add)
        with pytest.raises(type(error)):
            fold(metrics, _failing(table, error), mapping, {}, spill=0)
    assert written  # the parts went to disk before the error
    assert _left(temporary) == []


def test_files_are_removed_when_the_merge_fails(
    temporary: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = binary_scores(6, 2000, distinct=10**6, weights="none", float32=True)
    calls = {"n": 0}
    load = SpilledParts.load

    def failing(self: SpilledParts, record: int, index: int) -> Any:
        calls["n"] += 1
        if index == 2:
            raise _Broken
        return load(self, record, index)

    monkeypatch.setattr(SpilledParts, "load", failing)
    with pytest.raises(_Broken):
        _fold(["roc_auc:ranges=4"], table, 250, spill=0)
    assert calls["n"] > 0
    assert _left(temporary) == []


# memory ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("weights", ["none", "any"])
def test_one_range_in_memory_at_a_time(monkeypatch: pytest.MonkeyPatch, weights: str) -> None:
    """Every range loaded is let go (with its arrays: no view of them is kept) before a
    range of another index is loaded, while merging and while the readers compute."""
    live: list[tuple[int, weakref.ref[Any]]] = []
    order: list[int] = []
    load = SpilledParts.load
    item = StoredParts.__getitem__
    append = StoredParts.append

    def others_alive(index: int) -> list[int]:
        return [i for i, ref in live if i != index and ref() is not None]

    def watch(index: int, found: Any) -> None:
        live.append((index, weakref.ref(found)))
        for array in (found.score, found.counts, found.key):
            live.append((index, weakref.ref(array)))

    def counted(self: SpilledParts, record: int, index: int) -> Any:
        assert others_alive(index) == []
        found = load(self, record, index)
        watch(index, found)
        order.append(index)
        return found

    def read(self: StoredParts, index: Any) -> Any:
        # the merged ranges, read again by the readers
        assert others_alive(-1 - index) == []
        found = item(self, index)
        watch(-1 - index, found)
        return found

    def kept(self: StoredParts, part: State) -> None:
        # a merged range goes to its file; it must be let go before the next is merged
        append(self, part)
        live.append((1000 + len(self), weakref.ref(part)))

    monkeypatch.setattr(SpilledParts, "load", counted)
    monkeypatch.setattr(StoredParts, "__getitem__", read)
    monkeypatch.setattr(StoredParts, "append", kept)
    table = binary_scores(9, 4000, distinct=10**6, weights=weights, float32=True)
    names = ["roc_auc:ranges=6", "average_precision:ranges=6", "roc_auc:ranges=6,max_fpr=0.3"]
    states = _fold(names, table, 200, spill=0)
    # the three metrics share their states: the ranges are merged once, a range at a time
    assert states[0] is states[1] is states[2]
    assert order == sorted(order) and set(order) == set(range(6)) and len(order) == 6 * 20
    values = [parse_metric(n).compute(s) for n, s in zip(names, states, strict=True)]
    assert [i for i, _ in live if i < 0]  # the readers went through the stored ranges
    live.clear()
    whole = _fold(names, table, 200, spill=1 << 60)
    for name, value, state in zip(names, values, whole, strict=True):
        assert _bits(value) == _bits(parse_metric(name).compute(state))


def test_only_shells_are_held_once_spilled(monkeypatch: pytest.MonkeyPatch) -> None:
    held: list[int] = []
    add = PartedFold.add

    def watched(self: PartedFold, states: list[State]) -> None:
        add(self, states)
        if self.spilled is not None:
            for partial in self.tree.partial_states()[0]:
                held.append(sum(p.score.size for p in partial.parts))

    monkeypatch.setattr(PartedFold, "add", watched)
    table = binary_scores(10, 3000, distinct=10**6, weights="none", float32=True)
    _fold(["roc_auc:ranges=4"], table, 100, spill=0)
    assert len(held) >= 29 and set(held) == {0}


def test_the_temporary_directory_follows_tmpdir(temporary: Path) -> None:
    spilled = SpilledParts()
    try:
        assert spilled.folder.parent == temporary
        assert os.path.exists(spilled.folder)
    finally:
        spilled.close()
    assert not spilled.folder.exists()


# states shared by metrics ------------------------------------------------------------------


def _parted_values(metrics: list[Any], states: list[State]) -> list[bytes]:
    return [_bits(m.compute(s)) for m, s in zip(metrics, states, strict=True)]


@pytest.mark.parametrize("spill_at", [None, 0, 1, 3])
def test_metrics_that_share_states_on_some_chunks_only(spill_at: int | None) -> None:
    """Shared on some chunks, apart on others: each metric's value is that of a fold of
    its own, and a state shared throughout is one merged state."""
    rng = np.random.default_rng(4)
    names = ["roc_auc:ranges=3", "average_precision:ranges=3", "roc_auc:ranges=3"]
    metrics = [parse_metric(n) for n in names]
    joint = PartedFold(metrics)
    alone = [PartedFold([m]) for m in metrics]
    for chunk in range(6):
        y = rng.integers(0, 2, 50)
        s = np.round(rng.random(50), 2)
        one = metrics[0].summarize(y, s)
        # the third metric shares the first's state on even chunks only
        third = one if chunk % 2 == 0 else metrics[2].summarize(y[::-1], s)
        if chunk == spill_at:
            joint.spill()
            for fold_ in alone:
                fold_.spill()
        joint.add([one, one, third])
        for fold_, state in zip(alone, [one, one, third], strict=True):
            fold_.add([state])
    states = joint.result()
    expected = [fold_.result()[0] for fold_ in alone]
    assert states[0] is states[1] and states[2] is not states[0]
    assert _parted_values(metrics, states) == _parted_values(metrics, expected)


def test_shared_ranges_are_held_and_written_once(monkeypatch: pytest.MonkeyPatch) -> None:
    written: list[int] = []
    add = SpilledParts.add

    def counted(self: SpilledParts, parts: Any) -> int:
        written.append(0 if parts is None else len(parts))
        return add(self, parts)

    monkeypatch.setattr(SpilledParts, "add", counted)
    table = binary_scores(12, 4000, distinct=10**6, weights="none", float32=False)
    names = ["roc_auc:ranges=8", "average_precision:ranges=8"]
    spilled = _fold(names, table, 400, spill=0)
    assert len(written) == 10  # one record per chunk, not one per metric and chunk
    assert spilled[0] is spilled[1]
    written.clear()
    alone = [_fold([name], table, 400, spill=0)[0] for name in names]
    assert len(written) == 20
    for name, a, b in zip(names, spilled, alone, strict=True):
        metric = parse_metric(name)
        assert _bits(metric.compute(a)) == _bits(metric.compute(b))

    metrics = [parse_metric(n) for n in names]
    fold_ = PartedFold(metrics)
    state = metrics[0].summarize(table["y_true"].to_numpy(), table["y_score"].to_numpy())
    fold_.add([state, state])
    single = PartedFold(metrics[:1])
    single.add([state])
    assert fold_.held_bytes() == single.held_bytes() > 0
