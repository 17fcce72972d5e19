"""prediction_sample: a bounded bottom-k sample of (true, predicted) pairs that merges exactly."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit
from scorekit.api import load_states
from scorekit.cli import main
from scorekit.core import State
from scorekit.errors import ConfigError, InputError, StateMismatchError
from scorekit.regression import PairSample, PredictionSample, Sample, prediction_sample

DATA = Path(__file__).resolve().parent.parent / "examples" / "data"


@st.composite
def pairs(draw: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of few distinct values (so pairs repeat), one or two outputs, and weights."""
    n = draw(st.integers(0, 40))
    k = draw(st.sampled_from([1, 2]))
    values = st.sampled_from([-2.0, -0.0, 0.0, 0.5, 1.0, 3.25, 1e300])
    t = np.array(draw(st.lists(values, min_size=n * k, max_size=n * k))).reshape(n, k)
    p = np.array(draw(st.lists(values, min_size=n * k, max_size=n * k))).reshape(n, k)
    w = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=n, max_size=n)))
    return t, p, w


def _counts(t: np.ndarray, p: np.ndarray, w: np.ndarray) -> Counter[tuple[float, ...]]:
    """The total weight of every distinct pair of positive weight (-0.0 counted as 0.0)."""
    found: Counter[tuple[float, ...]] = Counter()
    for row_t, row_p, weight in zip(t + 0.0, p + 0.0, w, strict=True):
        if weight > 0:
            found[(*row_t.tolist(), *row_p.tolist())] += float(weight)
    return found


def _pairs_of(state: PairSample) -> list[tuple[float, ...]]:
    return [(*a.tolist(), *b.tolist()) for a, b in zip(state.y_true, state.y_pred, strict=True)]


@settings(max_examples=40, deadline=None)
@given(pairs(), st.integers(1, 6), st.integers(0, 3), st.data())
def test_merged_samples_are_the_sample_of_all_the_rows(data, size, seed, draw):
    t, p, w = data
    metric = PredictionSample(size=size, seed=seed)
    whole = metric.summarize(t, p, sample_weight=w)
    n = len(t)
    cuts = sorted(draw.draw(st.lists(st.integers(0, n), min_size=2, max_size=2)))
    bounds = [(0, cuts[0]), (cuts[0], cuts[1]), (cuts[1], n)]
    parts = [metric.summarize(t[a:b], p[a:b], sample_weight=w[a:b]) for a, b in bounds]
    for order in ([0, 1, 2], [2, 0, 1], [1, 2, 0]):
        merged = metric.empty()
        for i in order:
            merged = metric.merge(merged, parts[i])
        assert merged.equals(whole)
    # the sample holds min(size, distinct pairs) pairs, each with the exact weight of its rows
    counts = _counts(t, p, w)
    kept = _pairs_of(whole)
    assert len(kept) == min(size, len(counts)) == len(set(kept))
    assert whole.weight.tolist() == [counts[pair] for pair in kept]
    assert whole.rows == int((w > 0).sum())
    # a larger sample starts with the smaller one: one order of the distinct pairs per seed
    larger = PredictionSample(size=size + 3, seed=seed).summarize(t, p, sample_weight=w)
    assert _pairs_of(larger)[: len(kept)] == kept
    whole.validate()


def test_the_sample_is_spread_like_the_data():
    rng = np.random.default_rng(4)
    y = rng.normal(size=20_000)
    pred = y + rng.normal(scale=0.5, size=y.size)
    for seed in range(3):
        sample = prediction_sample(y, pred, size=2000, seed=seed)
        assert sample.y_true.shape == (2000,) and sample.rows == 20_000
        # a quantile of the sample is near the data's: 2,000 of 20,000 rows, chosen by hash
        for q in (0.1, 0.5, 0.9):
            assert abs(np.mean(y <= np.quantile(sample.y_true, q)) - q) < 0.04
        residual = sample.y_pred - sample.y_true
        assert abs(residual.std() - 0.5) < 0.04
    other = prediction_sample(y, pred, size=2000, seed=1)
    assert not np.array_equal(prediction_sample(y, pred, size=2000).y_true, other.y_true)


def test_chunks_files_and_shards_give_the_in_memory_sample(tmp_path):
    rng = np.random.default_rng(8)
    n = 3000
    y = np.round(rng.normal(100, 20, n), 1)
    table = {"y_true": y, "y_pred": np.round(y + rng.normal(0, 5, n), 1)}
    metric = PredictionSample(size=50, seed=7)
    whole = metric.summarize(table["y_true"], table["y_pred"])
    chunked = scorekit.evaluate(table, [metric], chunk_size=128)
    (state,) = chunked.states.values()
    assert state.equals(whole)
    head = "y,pred\n"
    for i, (lo, hi) in enumerate(((0, 1000), (1000, n))):
        rows = "".join(
            f"{float(a)!r},{float(b)!r}\n"
            for a, b in zip(y[lo:hi], table["y_pred"][lo:hi], strict=True)
        )
        (tmp_path / f"s{i}.csv").write_text(head + rows)
    argv = ["eval", "--task", "regression", "--true", "y", "--pred", "pred"]
    argv += ["--metric", "mae", "prediction_sample:size=50,seed=7"]
    shards = []
    for i in range(2):
        shard = tmp_path / f"s{i}.json"
        data = str(tmp_path / f"s{i}.csv")
        assert main(["eval", data, *argv[1:], "--save-state", str(shard)]) == 0
        shards.append(str(shard))
    report, saved = tmp_path / "merged.html", tmp_path / "merged.json"
    assert main(["merge", *shards, "--report", str(report), "--save-state", str(saved)]) == 0
    _, states, _ = load_states(saved)
    assert states["prediction_sample:size=50,seed=7"].equals(whole)
    html = report.read_text(encoding="utf-8")
    assert "Predicted against true (50 sampled pairs of 3,000 rows)" in html
    assert "Residuals (predicted - true)" in html
    assert "kept no sample" not in html


def test_figures_draw_the_sample_from_its_state_value_or_result():
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from scorekit import plot

    y = np.array([3.0, -0.5, 2.0, 7.0, 2.0, 2.0])
    pred = np.array([2.5, 0.0, 2.0, 8.0, 2.0, 2.0])
    metric = PredictionSample(size=4)
    state = metric.summarize(y, pred)
    result = scorekit.evaluate({"y_true": y, "y_pred": pred}, [metric, "mse"])
    expected = sorted(zip(state.y_true[:, 0].tolist(), state.y_pred[:, 0].tolist(), strict=True))
    for drawn in (state, metric.compute(state), result):
        ax = plot.predicted_vs_true(drawn)
        points = ax.collections[0].get_offsets()
        assert sorted(map(tuple, points.tolist())) == expected
        assert ax.get_title() == "4 distinct pairs sampled of 6 rows"
        # the pair (2, 2) of three rows is drawn larger than the others
        sizes = ax.collections[0].get_sizes()
        assert sizes[points[:, 0].tolist().index(2.0)] > sizes.min()
        ax = plot.residuals(drawn)
        residual = sorted(ax.collections[0].get_offsets()[:, 1].tolist())
        assert residual == sorted(b - a for a, b in expected)
        plt.close("all")
    with pytest.raises(InputError, match="the predictions are missing"):
        plot.predicted_vs_true(scorekit.evaluate({"y_true": y, "y_pred": pred}, ["mse"]))
    for draw in (plot.predicted_vs_true, plot.residuals):
        with pytest.raises(InputError, match="the prediction sample holds no pairs"):
            draw(metric.empty())


def test_report_of_a_regression_with_a_sample_has_the_pair_figures():
    pytest.importorskip("jinja2")
    from scorekit import api
    from scorekit.report import render

    argv = {"task": "regression", "true": ["price", "days"], "pred": ["pred_price", "pred_days"]}
    result = api.evaluate_table(
        str(DATA / "regression.csv"), metrics=["r2", "prediction_sample"], **argv
    )
    html = render(result)
    assert "Predicted against true (300 sampled pairs of 300 rows)" in html
    assert html.count("<svg") == 2 and "kept no sample" not in html
    assert ">price<" in html and ">days<" in html  # the outputs' names in the legend
    without = render(api.evaluate_table(str(DATA / "regression.csv"), metrics=["r2"], **argv))
    assert "kept no sample" in without and "Predicted against true" not in without


def test_bad_states_settings_and_inputs_are_errors():
    metric = PredictionSample(size=3)
    state = metric.summarize([1.0, 2.0, 3.0, 4.0], [1.0, 2.5, 2.0, 4.0])
    doc = state.to_dict()
    assert set(doc["fields"]) == {"size", "seed", "rows", "y_true", "y_pred", "weight"}

    def load(**changes: Any) -> None:
        changed = json.loads(json.dumps(doc))
        changed["fields"].update(changes)
        State.from_dict(changed)

    encoded = doc["fields"]
    reversed_pairs = {**encoded["y_true"], "__ndarray__": encoded["y_true"]["__ndarray__"][::-1]}
    flipped = {**encoded["y_pred"], "__ndarray__": encoded["y_pred"]["__ndarray__"][::-1]}
    with pytest.raises(InputError, match="in the order of their hash"):
        load(y_true=reversed_pairs, y_pred=flipped)
    with pytest.raises(InputError, match="more pairs than the sample's size"):
        load(size=2)
    with pytest.raises(InputError, match="fewer rows than sampled pairs"):
        load(rows=2)
    with pytest.raises(InputError, match="not one weight per pair"):
        load(weight={"__ndarray__": [1.0], "dtype": "<f8", "shape": [1]})
    with pytest.raises(InputError, match="negative value"):
        load(weight={"__ndarray__": [1.0, -1.0, 1.0], "dtype": "<f8", "shape": [3]})
    with pytest.raises(InputError, match="not the shape of y_true"):
        load(y_pred={"__ndarray__": [[1.0, 1.0]] * 3, "dtype": "<f8", "shape": [3, 2]})
    with pytest.raises(StateMismatchError):
        metric.merge(state, PredictionSample(size=3, seed=1).summarize([1.0], [1.0]))
    with pytest.raises(StateMismatchError, match="different numbers of outputs"):
        metric.merge(state, metric.summarize([[1.0, 2.0]], [[1.0, 2.0]]))
    for bad in (0, 2_000_000, 2.5, True):
        with pytest.raises(ConfigError, match="size out of range"):
            PredictionSample(size=bad)
    with pytest.raises(ConfigError, match="seed is not a 64-bit integer"):
        PredictionSample(seed="a")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="prediction_sample"):
        metric.summarize([1.0, float("nan")], [1.0, 2.0])
    with pytest.raises(InputError, match="prediction_sample"):
        metric.summarize([1.0, 2.0], [1.0])
    assert isinstance(metric.compute(metric.empty()), Sample)
    assert metric.compute(metric.empty()).rows == 0


def test_pairs_sharing_a_hash_stay_distinct(monkeypatch):
    from scorekit.regression import _sample

    real = _sample._hash
    monkeypatch.setattr(_sample, "_hash", lambda bits, seed: real(bits, seed) % np.uint64(3))
    rng = np.random.default_rng(2)
    t = rng.integers(0, 4, 200).astype(float)
    p = rng.integers(0, 4, 200).astype(float)
    metric = PredictionSample(size=5)
    whole = metric.summarize(t, p)
    merged = metric.merge(metric.summarize(t[150:], p[150:]), metric.summarize(t[:150], p[:150]))
    assert merged.equals(whole)
    counts = _counts(t[:, None], p[:, None], np.ones(200))
    kept = _pairs_of(whole)
    assert len(kept) == 5 == len(set(kept))
    assert whole.weight.tolist() == [counts[pair] for pair in kept]
    whole.validate()
