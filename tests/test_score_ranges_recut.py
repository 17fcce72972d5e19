"""Score ranges cut at other cut points: :func:`recut` and states of different cuts merged.

A state cut again holds the same rows (its joined histogram is the same, field
for field), each range the rows of its own scores, and the same number of
samples; the metrics read from it are the same bits. Shards evaluated by
separate runs with ``cuts=sample`` choose their own cut points; ``scorekit
merge`` cuts them alike and gives the values of the whole data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import parse_metric
from scorekit.classification import (
    ScoreRanges,
    average_precision,
    recut,
    roc_auc,
    summarize_ranges,
)
from scorekit.cli import main
from scorekit.errors import StateMismatchError


def _bits(value: Any) -> bytes:
    return np.asarray(value, dtype=np.float64).tobytes()


def _data(seed: int, n: int, distinct: int, weights: str) -> tuple[Any, Any, Any]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = rng.integers(0, distinct + 1, n) / distinct * 4 - 2  # scores in [-2, 2], ties
    w = None
    if weights == "dyadic":
        w = rng.integers(0, 9, n) / 8  # zeros too
    return y, s, w


def _cuts(draw_cuts: list[float]) -> list[float]:
    return sorted(set(draw_cuts))


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(0, 300),
    distinct=st.sampled_from([1, 3, 20, 10**6]),
    weights=st.sampled_from(["none", "dyadic"]),
    old=st.lists(st.floats(-2.5, 2.5), max_size=6),
    new=st.lists(st.floats(-2.5, 2.5), max_size=6),
)
def test_recut_keeps_the_rows_and_the_values(
    seed: int, n: int, distinct: int, weights: str, old: list[float], new: list[float]
) -> None:
    y, s, w = _data(seed, n, distinct, weights)
    state = summarize_ranges(y, s, _cuts(old), sample_weight=w)
    cut = recut(state, _cuts(new))
    assert cut.cuts.tolist() == _cuts(new) and len(cut.parts) == len(_cuts(new)) + 1
    assert cut.n_samples == state.n_samples
    assert sum(p.n_samples for p in cut.parts) == sum(p.n_samples for p in state.parts)
    if n == 0:
        return
    assert cut.join().equals(state.join())
    edges = [-np.inf, *_cuts(new), np.inf]
    for i, part in enumerate(cut.parts):
        assert np.all((part.score >= edges[i]) & (part.score < edges[i + 1]))
    for name in ("roc_auc:ranges=2", "average_precision:ranges=2"):
        metric = parse_metric(name)
        if len(np.unique(y)) == 2 and (w is None or w[y == 1].sum() > 0 < w[y == 0].sum()):
            assert _bits(metric.compute(cut)) == _bits(metric.compute(state))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    sizes=st.lists(st.integers(1, 200), min_size=2, max_size=4),
    distinct=st.sampled_from([3, 50, 10**6]),
    weights=st.sampled_from(["none", "dyadic"]),
)
def test_shards_of_their_own_cuts_merge_to_the_whole(
    seed: int, sizes: list[int], distinct: int, weights: str
) -> None:
    y, s, w = _data(seed, sum(sizes), distinct, weights)
    rng = np.random.default_rng(seed)
    states, at = [], 0
    for size in sizes:
        rows = slice(at, at + size)
        cuts = np.unique(rng.choice(s[rows], size=min(size, 3)))
        states.append(
            summarize_ranges(y[rows], s[rows], cuts, sample_weight=None if w is None else w[rows])
        )
        at += size
    aligned = ScoreRanges.aligned(states)
    common = aligned[0].cuts
    assert all(np.array_equal(a.cuts, common) for a in aligned)
    every = np.unique(np.concatenate([st.cuts for st in states]))
    assert set(common.tolist()) <= set(every.tolist())
    assert common.size == min(every.size, max(st.cuts.size for st in states))
    merged = aligned[0]
    for other in aligned[1:]:
        merged = merged.merge(other)
    whole = summarize_ranges(y, s, common, sample_weight=w)
    assert merged.join().equals(whole.join())
    assert [p.score.tolist() for p in merged.parts] == [p.score.tolist() for p in whole.parts]
    assert merged.n_samples == whole.n_samples
    if len(np.unique(y)) == 2 and (w is None or w[y == 1].sum() > 0 < w[y == 0].sum()):
        got = parse_metric("roc_auc:ranges=2").compute(merged)
        assert _bits(got) == _bits(roc_auc(y, s, sample_weight=w))


def test_states_of_other_cuts_still_refuse_a_plain_merge() -> None:
    a = summarize_ranges([0, 1], [0.2, 0.7], cuts=[0.5])
    b = summarize_ranges([1, 0], [0.9, 0.1], cuts=[0.3])
    with pytest.raises(StateMismatchError, match="recut gives a state other cut points"):
        a.merge(b)
    assert recut(b, a.cuts).merge(a).join().equals(b.merge(recut(a, b.cuts)).join())


def test_recut_reads_the_old_ranges_it_overlaps_only() -> None:
    state = summarize_ranges([0, 1] * 50, np.linspace(0, 1, 100), cuts=[0.25, 0.5, 0.75])
    read: list[int] = []

    class Watched(tuple):  # type: ignore[type-arg]
        def __getitem__(self, index: Any) -> Any:
            read.append(index)
            return tuple.__getitem__(self, index)

    watched = ScoreRanges(cuts=state.cuts, parts=Watched(state.parts), n_samples=state.n_samples)
    cut = recut(watched, [0.3, 0.4])
    scores = np.linspace(0, 1, 100)
    assert sorted(cut.parts[1].score.tolist()) == [v for v in scores if 0.3 <= v < 0.4]
    assert read == [1]
    read.clear()
    assert len(cut.parts[0].score) == 30 and read == [0, 1]
    read.clear()
    assert len(cut.parts[-1].score) == 60 and read == [1, 2, 3]
    assert cut.parts[-1:][0].score.size == 60 and cut.parts[-1].equals(list(cut.parts)[-1])


@pytest.mark.parametrize("fmt", ["json", "binary"])
def test_merge_of_shards_cut_at_their_own_samples(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    rng = np.random.default_rng(5)
    ys, ss, files = [], [], []
    for i, shift in enumerate((-3.0, 0.0, 3.0)):  # logits of each shard in their own place
        y = rng.integers(0, 2, 3000)
        s = np.round(rng.normal(shift + y, 1.0), 3)
        path = tmp_path / f"shard{i}.parquet"
        pq.write_table(pa.table({"y": y, "s": s}), path)
        ys.append(y)
        ss.append(s)
        state = tmp_path / f"shard{i}.state"
        names = ["roc_auc:ranges=8,cuts=sample", "average_precision:ranges=8,cuts=sample"]
        argv = ["eval", str(path), "--task", "binary", "--true", "y", "--score", "s"]
        argv += ["--metric", *names, "--save-state", str(state), "--state-format", fmt]
        assert main([*argv, "--quiet"]) == 0
        files.append(str(state))
    capsys.readouterr()
    assert main(["merge", *files, "--format", "json"]) == 0
    found = json.loads(capsys.readouterr().out)
    y, s = np.concatenate(ys), np.concatenate(ss)
    assert _bits(found["roc_auc:ranges=8,cuts=sample"]) == _bits(roc_auc(y, s))
    assert _bits(found["average_precision:ranges=8,cuts=sample"]) == _bits(average_precision(y, s))
