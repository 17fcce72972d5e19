"""Merging state files of exact ROC AUC and AP: the states of the pairwise merges, faster.

``merge_states`` gathers the exact histograms of every file and merges them
together once; files of score ranges (``ranges=N``) merge range by range, one
range of every file at a time, into merged ranges kept in a temporary file;
equal states of two metrics of one file (``roc_auc`` and ``average_precision``
of the same data) are merged once. Each must give the states and the values
of merging the files' states pairwise in order, bit for bit.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import weakref
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit.statefiles._parts as parts_module
from scorekit import parse_metric
from scorekit.core import State
from scorekit.errors import InputError
from scorekit.statefiles import load_states, merge_states, save_states


def _data(rng: np.random.Generator, n: int, style: int) -> tuple[Any, Any, Any]:
    y = rng.integers(0, 2, n)
    if style == 0:
        s: Any = rng.random(n).astype(np.float32)  # float32 scores, ties across shards
    elif style == 1:
        s = np.round(rng.random(n), 2)  # many ties
    else:
        s = rng.random(n)
    w = None if rng.random() < 0.5 else rng.random(n) * 10.0 ** rng.integers(-4, 4, n)
    return y, s, w


def _shards(
    folder: Path, rng: np.random.Generator, specs: list[str], count: int, fmt: str = "binary"
) -> tuple[list[Path], list[dict[str, State]]]:
    style = int(rng.integers(0, 3))
    paths, states = [], []
    for i in range(count):
        y, s, w = _data(rng, int(rng.integers(1, 300)), style)
        entry = {
            k: (parse_metric(k), parse_metric(k).summarize(y, s, sample_weight=w)) for k in specs
        }
        states.append({k: v[1] for k, v in entry.items()})
        form = fmt if fmt != "mixed" else ("json" if i % 2 else "binary")
        paths.append(save_states(folder / f"s{i}.st", entry, rows=len(y), state_format=form))
    return paths, states


def _fold(key: str, states: list[dict[str, State]]) -> State:
    metric = parse_metric(key)
    return functools.reduce(metric.merge, [s[key] for s in states])


def _check(merged: dict[str, State], states: list[dict[str, State]], specs: list[str]) -> None:
    for key in specs:
        whole = _fold(key, states)
        assert merged[key].equals(whole), key
        for f in dataclasses.fields(whole):
            value = getattr(whole, f.name)
            if isinstance(value, np.ndarray):  # the same types too
                assert getattr(merged[key], f.name).dtype == value.dtype, (key, f.name)
        metric = parse_metric(key)
        a, b = metric.compute(merged[key]), metric.compute(whole)
        assert np.array_equal(a, b, equal_nan=True), key


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 9))
def test_exact_histograms_merge_as_pairwise_merges(
    tmp_path_factory: Any, seed: int, count: int
) -> None:
    folder = tmp_path_factory.mktemp("whole")
    specs = ["roc_auc", "average_precision", "accuracy"]
    rng = np.random.default_rng(seed)
    paths, states = _shards(folder, rng, ["roc_auc", "average_precision"], count)
    _, merged, _ = merge_states(paths)
    _check(merged, states, specs[:2])
    # equal states of the two metrics in every file: merged once, one state
    assert merged["roc_auc"] is merged["average_precision"]


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    count=st.integers(1, 9),
    fmt=st.sampled_from(["binary", "mixed"]),
)
def test_score_ranges_merge_range_by_range_as_pairwise_merges(
    tmp_path_factory: Any, seed: int, count: int, fmt: str
) -> None:
    folder = tmp_path_factory.mktemp("ranges")
    specs = ["roc_auc:ranges=4", "average_precision:ranges=4"]
    paths, states = _shards(folder, np.random.default_rng(seed), specs, count, fmt)
    _, merged, _ = merge_states(paths)
    _check(merged, states, specs)
    state = merged[specs[0]]
    assert not isinstance(state.parts, tuple)  # the merged ranges are read when asked for
    # equal states of binary files are merged once (JSON files are not compared)
    assert (state is merged[specs[1]]) == (fmt == "binary" or count == 1)


def test_states_that_differ_in_one_file_merge_apart(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    specs = ["roc_auc", "average_precision"]
    paths, states = _shards(tmp_path, rng, specs, 3)
    y, s, _ = _data(rng, 50, 2)
    other = {k: parse_metric(k).summarize(y, s if k == "roc_auc" else s / 2) for k in specs}
    states.append(other)
    entry = {k: (parse_metric(k), other[k]) for k in specs}
    paths.append(save_states(tmp_path / "other.st", entry, rows=50, state_format="binary"))
    _, merged, _ = merge_states(paths)
    assert merged["roc_auc"] is not merged["average_precision"]
    _check(merged, states, specs)


@pytest.mark.usefixtures("quick_gc")
def test_the_merge_of_ranges_holds_one_range_of_each_file(tmp_path: Path, monkeypatch) -> None:
    specs = ["roc_auc:ranges=8"]
    paths, states = _shards(tmp_path, np.random.default_rng(2), specs, 5)
    read = parts_module.FileParts._read
    alive: list[weakref.ref[State]] = []
    held: list[int] = []

    def counting(self: Any, index: int) -> State:
        gc.collect()
        held.append(sum(ref() is not None for ref in alive))
        part = read(self, index)
        alive.append(weakref.ref(part))
        return part

    monkeypatch.setattr(parts_module.FileParts, "_read", counting)
    _, merged, _ = merge_states(paths)
    assert len(held) == 8 * 5
    # when a range of a file is read, only the same range of the files before it is held
    assert max(held) < 5, held
    _check(merged, states, specs)


def test_a_corrupt_range_names_the_file(tmp_path: Path) -> None:
    specs = ["roc_auc:ranges=4"]
    paths, _ = _shards(tmp_path, np.random.default_rng(3), specs, 3)
    data = bytearray(paths[1].read_bytes())
    data[200] ^= 0xFF  # inside the first blocks
    paths[1].write_bytes(bytes(data))
    with pytest.raises(InputError, match=str(paths[1])):
        merge_states(paths)


def test_a_range_holding_scores_of_another_range_is_refused(tmp_path: Path) -> None:
    metric = parse_metric("roc_auc:ranges=2")
    good = metric.summarize([0, 1, 0, 1], [0.1, 0.2, 0.7, 0.9])
    swapped = dataclasses.replace(good, parts=(good.parts[1], good.parts[0]))
    a = save_states(tmp_path / "a.st", {"r": (metric, good)}, state_format="binary")
    b = save_states(tmp_path / "b.st", {"r": (metric, swapped)}, state_format="binary")
    with pytest.raises(InputError, match="outside its range") as info:
        merge_states([a, b])
    assert str(b) in str(info.value)


def test_ranges_of_other_cut_points_merge_cut_alike(tmp_path: Path) -> None:
    four = parse_metric("roc_auc:ranges=4")
    state = four.summarize([0, 1], [0.1, 0.8])
    a = save_states(tmp_path / "a.st", {"r": (four, state)}, state_format="binary")
    other = dataclasses.replace(four, cuts=(0.2, 0.5, 0.9))
    b = save_states(
        tmp_path / "b.st",
        {"r": (other, other.summarize([1, 0, 1], [0.3, 0.55, 0.95]))},
        state_format="binary",
    )
    _, merged, _ = merge_states([a, b])
    # the quantiles of both files' cut points [0.2, 0.25, 0.5, 0.75, 0.9], four ranges
    assert merged["r"].cuts.tolist() == [0.25, 0.5, 0.75]
    whole = four.summarize([0, 1, 1, 0, 1], [0.1, 0.8, 0.3, 0.55, 0.95])
    assert [p.score.tolist() for p in merged["r"].parts] == [p.score.tolist() for p in whole.parts]
    assert merged["r"].join().equals(whole.join())
    assert four.compute(merged["r"]) == four.compute(whole)


def test_merged_ranges_save_and_load_as_the_pairwise_merge(tmp_path: Path) -> None:
    specs = ["roc_auc:ranges=4", "average_precision:ranges=4"]
    paths, states = _shards(tmp_path, np.random.default_rng(4), specs, 4)
    metrics, merged, header = merge_states(paths)
    out = save_states(
        tmp_path / "whole.st",
        {k: (metrics[k], merged[k]) for k in specs},
        rows=header["rows"],
        state_format="binary",
    )
    again = load_states(out)
    _check(again.states, states, specs)
    assert again.states[specs[0]].parts == merged[specs[0]].parts


def test_equal_states_of_one_binary_file_are_read_once(tmp_path: Path) -> None:
    y, s = [0, 1, 1, 0, 1], np.array([0.1, 0.4, 0.4, 0.35, 0.8], dtype=np.float32)
    metrics = {k: parse_metric(k) for k in ("roc_auc", "average_precision")}
    entry = {k: (m, m.summarize(y, s)) for k, m in metrics.items()}
    loaded = load_states(save_states(tmp_path / "a.st", entry, state_format="binary")).states
    assert loaded["roc_auc"].score is loaded["average_precision"].score
    assert loaded["roc_auc"].equals(entry["roc_auc"][1])
    assert loaded["average_precision"].equals(entry["average_precision"][1])
    entry["average_precision"] = (
        metrics["average_precision"],
        metrics["average_precision"].summarize(y, s / 2),
    )
    loaded = load_states(save_states(tmp_path / "b.st", entry, state_format="binary")).states
    assert loaded["roc_auc"].score is not loaded["average_precision"].score
    assert loaded["average_precision"].equals(entry["average_precision"][1])


def test_counts_held_in_small_types_add_up_past_them(tmp_path: Path) -> None:
    # each file's counts fit uint8 (as the file stores them); their sums do not
    specs = ["roc_auc", "average_precision"]
    rng = np.random.default_rng(6)
    paths, states = [], []
    for i in range(4):
        y, s = rng.integers(0, 2, 400), rng.choice([0.25, 0.5], 400).astype(np.float32)
        entry = {k: (parse_metric(k), parse_metric(k).summarize(y, s)) for k in specs}
        states.append({k: v[1] for k, v in entry.items()})
        paths.append(save_states(tmp_path / f"s{i}.st", entry, state_format="binary"))
    _, merged, _ = merge_states(paths)
    _check(merged, states, specs)
    assert int(merged["roc_auc"].counts.max()) > 255


def test_files_of_no_metric_merge_to_no_state(tmp_path: Path) -> None:
    a = save_states(tmp_path / "a.json", {}, rows=1)
    b = save_states(tmp_path / "b.json", {}, rows=2)
    metrics, merged, header = merge_states([a, b])
    assert metrics == {} and merged == {} and header["rows"] == 3


# float32 scores: the merged scores are float64 only where a file's scores were float64

_KINDS = ("float32", "float64", "float64 of float32 values")


def _scores_of(kind: str, rng: np.random.Generator, n: int) -> Any:
    s = rng.random(n) if rng.random() < 0.5 else np.round(rng.random(n), 2)  # ties or not
    if kind == "float32":
        return s.astype(np.float32)
    if kind == "float64":
        return s
    return s.astype(np.float32).astype(np.float64)  # a binary file stores them as float32


def _score_dtypes(state: State) -> list[np.dtype[Any]]:
    """The score types of a merged histogram, or of each range of data of merged ranges."""
    parts = getattr(state, "parts", None)
    if parts is None:
        return [state.score.dtype]
    return [part.score.dtype for part in parts if part.task]


def _typed_shards(
    folder: Path, rng: np.random.Generator, kinds: list[str], specs: list[str], fmt: str
) -> tuple[list[Path], list[dict[str, State]]]:
    paths, states = [], []
    for i, kind in enumerate(kinds):
        n = int(rng.integers(1, 200))
        y, s = rng.integers(0, 2, n), _scores_of(kind, rng, n)
        w = None if rng.random() < 0.5 else rng.random(n)
        entry = {
            k: (parse_metric(k), parse_metric(k).summarize(y, s, sample_weight=w)) for k in specs
        }
        states.append({k: v[1] for k, v in entry.items()})
        form = fmt if fmt != "mixed" else ("json" if i % 2 else "binary")
        paths.append(save_states(folder / f"t{i}.st", entry, rows=n, state_format=form))
    return paths, states


@pytest.mark.parametrize("fmt", ["json", "binary"])
@pytest.mark.parametrize("ranged", [False, True], ids=["histograms", "ranges"])
@pytest.mark.parametrize(
    ("kinds", "expected"),
    [
        (["float32", "float32"], np.float32),
        (["float32", "float64"], np.float64),
        (["float64", "float32"], np.float64),
        (["float32", "float64 of float32 values", "float32"], np.float64),
    ],
)
def test_merged_float32_scores_stay_float32_unless_a_file_had_float64(
    tmp_path: Path, fmt: str, ranged: bool, kinds: list[str], expected: type
) -> None:
    specs = ["roc_auc:ranges=3", "average_precision:ranges=3"] if ranged else ["roc_auc"]
    paths, states = _typed_shards(tmp_path, np.random.default_rng(7), kinds, specs, fmt)
    _, merged, _ = merge_states(paths)
    _check(merged, states, specs)
    for key in specs:
        in_memory = _score_dtypes(_fold(key, states))
        assert in_memory and set(in_memory) == {np.dtype(expected)}, (key, in_memory)
        assert _score_dtypes(merged[key]) == in_memory, key


@pytest.mark.filterwarnings("ignore::scorekit.errors.UndefinedMetricWarning")  # one class
@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    kinds=st.lists(st.sampled_from(_KINDS), min_size=1, max_size=6),
    fmt=st.sampled_from(["json", "binary", "mixed"]),
    ranged=st.booleans(),
)
def test_merging_files_gives_the_score_types_of_merging_in_memory(
    tmp_path_factory: Any, seed: int, kinds: list[str], fmt: str, ranged: bool
) -> None:
    folder = tmp_path_factory.mktemp("typed")
    specs = ["roc_auc:ranges=3"] if ranged else ["roc_auc", "average_precision"]
    paths, states = _typed_shards(folder, np.random.default_rng(seed), kinds, specs, fmt)
    _, merged, _ = merge_states(paths)
    _check(merged, states, specs)
    wide = np.float64 if any(kind != "float32" for kind in kinds) else np.float32
    for key in specs:
        found = _score_dtypes(merged[key])
        assert found and set(found) == {np.dtype(wide)}, (key, found)
        assert found == _score_dtypes(_fold(key, states)), key
