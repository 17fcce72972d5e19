"""Score ranges cut where the data's scores fall: ``ranges=N,cuts=sample``.

The cut points come from a sample of the distinct scores that is the same set
however the data is chunked or merged, gathered by a first pass over the source
on the engine that folds the metrics; the values are those of the exact metrics.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit
from scorekit.classification import ROCAUC, AveragePrecision, ScoreRanges
from scorekit.classification._ranges_sample import DistinctSample, ScoreSample, _hashes
from scorekit.cli import main
from scorekit.core import Grouped
from scorekit.errors import ConfigError, StateMismatchError
from scorekit.stats import Bootstrap

SCORES = st.lists(
    st.one_of(
        st.sampled_from([-3.5, -0.0, 0.0, 0.25, 1.0, 7.0]),
        st.floats(-1e6, 1e6, allow_nan=False, width=32),
    ),
    max_size=80,
)


@settings(max_examples=80, deadline=None)
@given(SCORES, st.integers(1, 12), st.lists(st.integers(0, 80), max_size=6), st.randoms())
def test_the_sample_is_the_same_set_for_any_chunking(
    scores: list[float], size: int, bounds: list[int], rnd: Any
) -> None:
    cuts = sorted({min(b, len(scores)) for b in bounds})
    pieces = [scores[a:b] for a, b in zip([0, *cuts], [*cuts, len(scores)], strict=True)]
    metric = ScoreSample(size=size)
    states = [metric.summarize([0] * len(p), p) for p in pieces]
    rnd.shuffle(states)
    merged = metric.merge_many(states)
    distinct = np.unique(np.asarray(scores, dtype=np.float64) + 0.0)
    # the sample: the distinct values of least hash, ties of hash by value
    order = np.lexsort((distinct, _hashes(distinct)))[:size]
    assert merged.values.tolist() == sorted(distinct[order].tolist())
    assert merged.equals(DistinctSample.of(scores, size=size))


def test_the_sample_is_spread_over_the_distinct_scores() -> None:
    rng = np.random.default_rng(0)
    scores = rng.normal(size=200_000) * 5.0
    values = ScoreSample(size=4096).summarize(np.zeros(scores.size), scores).values
    assert values.size == 4096
    # uniform over the distinct scores: their ranks are spread evenly
    ranks = np.searchsorted(np.sort(scores), values) / scores.size
    assert abs(float(np.mean(ranks)) - 0.5) < 0.02
    assert np.histogram(ranks, bins=8, range=(0, 1))[0].min() > 400


def _table(n: int, seed: int = 1) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    logits = rng.normal(size=n) * 3.0 + y * 1.5
    return {"y_true": y, "y_score": np.round(logits, 2)}


@pytest.mark.parametrize("chunk_size", [97, 1000, 50_000])
def test_evaluate_cuts_ranges_from_the_data(chunk_size: int) -> None:
    table = _table(20_000)
    names = ["roc_auc:ranges=8,cuts=sample", "average_precision:ranges=8,cuts=sample"]
    found = scorekit.evaluate(
        table, [*names, "roc_auc", "average_precision"], chunk_size=chunk_size
    )
    assert found.values[names[0]] == found.values["roc_auc"]
    assert found.values[names[1]] == found.values["average_precision"]
    metric = found.metrics[names[0]]
    assert isinstance(metric, ROCAUC) and isinstance(metric.cuts, tuple)
    assert len(metric.cuts) == 7
    state = found.states[names[0]]
    assert isinstance(state, ScoreRanges)
    # the logits spread over the ranges: none holds more than twice its share
    sizes = [part.score.size for part in state.parts]
    assert max(sizes) < 2 * sum(sizes) / len(sizes)
    # the same cut points however the data is chunked
    again = scorekit.evaluate(table, names[0], chunk_size=chunk_size * 3 + 1)
    assert again.metrics[names[0]].cuts == metric.cuts


def test_groups_and_intervals_take_the_sampled_cuts(tmp_path: Path) -> None:
    table = _table(3000, seed=2)
    table["g"] = np.where(np.arange(3000) % 3 == 0, "a", "b")
    grouped = scorekit.evaluate(table, ["roc_auc:ranges=4,cuts=sample", "roc_auc"], by="g")
    ranged, exact = grouped.values["roc_auc:ranges=4,cuts=sample"], grouped.values["roc_auc"]
    assert ranged.by_group == exact.by_group and ranged.overall == exact.overall


def test_in_memory_scores_cut_at_their_own_sample() -> None:
    table = _table(500, seed=3)
    metric = ROCAUC(ranges=4, cuts="sample")
    assert metric.score(table["y_true"], table["y_score"]) == ROCAUC().score(
        table["y_true"], table["y_score"]
    )
    assert metric.sampler == ScoreSample(size=4096)
    settled = metric.sampled(metric.sampler.summarize(table["y_true"], table["y_score"]))
    assert isinstance(settled.cuts, tuple) and len(settled.cuts) == 3 and settled.ranges is None
    # states of batches cut at their own samples do not merge: the error says why
    a = metric.summarize(table["y_true"][:250], table["y_score"][:250])
    b = metric.summarize(table["y_true"][250:], table["y_score"][250:])
    with pytest.raises(StateMismatchError, match="cut points"):
        metric.merge(a, b)


def test_the_options_are_checked() -> None:
    with pytest.raises(ConfigError, match="needs the number of ranges"):
        scorekit.parse_metric("roc_auc:cuts=sample")
    with pytest.raises(ConfigError, match="unknown cuts"):
        AveragePrecision(ranges=4, cuts="quantiles")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="ranges must be a positive integer"):
        scorekit.parse_metric("roc_auc:ranges=0,cuts=sample")
    with pytest.raises(ConfigError, match="exclude bins"):
        scorekit.parse_metric("roc_auc:ranges=4,cuts=sample,bins=10")


def test_the_command_line_cuts_ranges_from_the_data(tmp_path: Path, capsys: Any) -> None:
    table = _table(5000, seed=4)
    path = tmp_path / "scores.parquet"
    pq.write_table(pa.table(table), path, row_group_size=700)
    argv = ["eval", str(path), "--task", "binary", "--true", "y_true", "--score", "y_score"]
    names = ["roc_auc:ranges=16,cuts=sample", "average_precision:ranges=16,cuts=sample"]
    assert main([*argv, "--metric", "roc_auc", "average_precision", "--format", "json"]) == 0
    exact = json.loads(capsys.readouterr().out)
    code = main([*argv, "--metric", *names, "--chunk-size", "900", "--format", "json"])
    ranged = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [ranged[n] for n in names] == [exact[n] for n in ("roc_auc", "average_precision")]


def test_the_dask_engine_samples_on_the_workers(dask_cluster: Any, tmp_path: Path) -> None:
    table = _table(6000, seed=5)
    for i in range(3):
        part = {k: v[i * 2000 : (i + 1) * 2000] for k, v in table.items()}
        pq.write_table(pa.table(part), tmp_path / f"part{i}.parquet", row_group_size=512)
    names = ["roc_auc:ranges=8,cuts=sample", "roc_auc"]
    on_dask = scorekit.evaluate(
        str(tmp_path), names, engine="dask", scheduler=dask_cluster.scheduler_address
    )
    streamed = scorekit.evaluate(str(tmp_path), names, chunk_size=1000)
    assert on_dask.values[names[0]] == streamed.values[names[0]] == streamed.values["roc_auc"]
    assert on_dask.metrics[names[0]].cuts == streamed.metrics[names[0]].cuts


def test_a_first_pass_and_its_fold_share_one_dask_client(dask_cluster: Any) -> None:
    from scorekit import engines
    from scorekit.engines import dask as dask_engine

    address = dask_cluster.scheduler_address
    with dask_engine._client(address, None) as a, dask_engine._client(address, None) as b:
        assert a is not b
    with engines.session("dask", scheduler=address, workers=None):
        with dask_engine._client(address, None) as a, dask_engine._client(address, None) as b:
            assert a is b
        # a run with other options has a client of its own
        assert dask_engine._HELD.get()[0] == (address, None)  # type: ignore[index]
    assert dask_engine._HELD.get() is None
    table = _table(3000, seed=6)
    names = ["roc_auc:ranges=4,cuts=sample", "roc_auc"]
    opened: list[Any] = []
    real = dask_engine._client.__wrapped__  # type: ignore[attr-defined]

    def counting(scheduler: Any, workers: Any) -> Any:
        opened.append((scheduler, workers))
        return contextlib.contextmanager(real)(scheduler, workers)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dask_engine, "_client", counting)
        found = scorekit.evaluate(table, names, engine="dask", scheduler=address)
    assert found.values[names[0]] == found.values["roc_auc"]
    # the session's client, then each run's (which is the session's)
    assert len(opened) == 3


def test_wrappers_pass_the_first_pass_on() -> None:
    table = _table(2000, seed=8)
    table["g"] = np.where(np.arange(2000) % 4 == 0, "a", "b")
    name = "roc_auc:ranges=4,cuts=sample"
    for metric in (Grouped(name, by="g"), Bootstrap(name, n_resamples=50)):
        (whole,) = scorekit.evaluate(table, metric).values.values()
        chunked = scorekit.evaluate(table, metric, chunk_size=300)
        (found,) = chunked.values.values()
        if isinstance(metric, Grouped):
            assert found.by_group == whole.by_group and found.overall == whole.overall
        else:
            assert found.value == whole.value
            assert np.array_equal(found.replicates, whole.replicates)
        (settled,) = chunked.metrics.values()
        inner = settled.inner
        assert isinstance(inner.cuts, tuple) and len(inner.cuts) == 3
