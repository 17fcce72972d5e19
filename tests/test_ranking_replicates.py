"""Bootstrap replicates of the ranking metrics, computed from their per-query states.

A replicate in which query ``i`` counts ``w[b, i]`` times must be the metric of
qrels and a run in which that query appears ``w[b, i]`` times under new ids.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.core import Metric, available
from scorekit.errors import ConfigError, InputError, UndefinedMetricWarning
from scorekit.ranking import MAP, NDCG
from strategies import batches

RANKING = [pytest.param(info, id=info.name) for info in available() if info.inputs == "qrels_run"]


def _repeated(
    args: tuple[dict[str, Any], dict[str, Any]], keys: np.ndarray, counts: np.ndarray
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Qrels and run with unit ``keys[i]`` copied ``counts[i]`` times as ``q#1``, ``q#2``..."""
    qrels, run = args
    units = set(keys.tolist())
    new_qrels = {q: v for q, v in qrels.items() if q not in units}
    new_run = {q: v for q, v in run.items() if q not in units}
    for q, c in zip(keys.tolist(), counts.tolist(), strict=True):
        for j in range(1, c + 1):
            if q in qrels:
                new_qrels[f"{q}#{j}"] = qrels[q]
            if q in run:
                new_run[f"{q}#{j}"] = run[q]
    return new_qrels, new_run


def _configure(info: Any, missing: str, k: int | None) -> Metric[Any]:
    options: dict[str, Any] = {"missing": missing}
    if k is not None and info.at is not None:
        options[info.at] = k
    metric: Metric[Any] = info.cls(**options)
    return metric


@pytest.mark.parametrize("info", RANKING)
def test_replicates_equal_the_metric_on_repeated_queries(info: Any) -> None:
    @settings(max_examples=12)
    @given(
        batches("qrels_run", min_rows=1, max_rows=25),
        st.sampled_from(["skip", "zero"]),
        st.sampled_from([None, 1, 3]),
        st.integers(0, 2**32 - 1),
    )
    def check(data: dict[str, Any], missing: str, k: int | None, seed: int) -> None:
        metric = _configure(info, missing, k)
        args = data["args"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            state = metric.summarize(*args)
            keys = metric.unit_keys(state)
            assert metric.count_units(*args) == len(keys)
            try:
                whole = metric.compute(state)
            except InputError as exc:
                # no query counts: the replicates refuse the state as compute does
                with pytest.raises(InputError, match=re.escape(str(exc)[:30])):
                    metric.compute_replicates(state, np.ones((2, len(keys)), dtype=np.int64))
                return
            rng = np.random.default_rng(seed)
            weights = rng.poisson(1.0, (5, len(keys)))
            weights[0] = 0
            weights[1] = 1
            got = metric.compute_replicates(state, weights)
            assert got.shape == (5,)
            assert np.isnan(got[0])
            assert got[1] == pytest.approx(whole, rel=1e-12)
            for b in range(1, len(weights)):
                if weights[b].sum() == 0:
                    assert np.isnan(got[b])
                    continue
                expected = metric.score(*_repeated(args, keys, weights[b]))
                assert got[b] == pytest.approx(expected, rel=1e-12, abs=1e-300)

    check()


def test_unit_keys_follow_the_missing_policy() -> None:
    qrels = {"a": {"x": 1}, "b": {"y": 1}, "c": {"z": 0}}
    run = {"a": {"x": 1.0}, "c": {"z": 1.0}, "d": {"x": 1.0}}
    skip, zero = MAP(), MAP(missing="zero")
    # c has no relevant document (undefined, counted 0), b is absent, d is not judged
    assert skip.unit_keys(skip.summarize(qrels, run)).tolist() == ["a", "c"]
    assert zero.unit_keys(zero.summarize(qrels, run)).tolist() == ["a", "b", "c"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        state = zero.summarize(qrels, run)
        assert zero.compute_replicates(state, np.array([[1, 1, 1], [2, 0, 0], [0, 5, 1]])) == (
            pytest.approx([1 / 3, 1.0, 0.0])
        )


def test_summarize_replicates_points_to_the_state() -> None:
    metric = NDCG(k=10)
    with pytest.raises(
        ConfigError, match=r"ndcg: replicates come from the state.*compute_replicates"
    ):
        metric.summarize_replicates({"a": {"x": 1}}, {"a": {"x": 1.0}}, weights=np.ones((2, 1)))


def test_bad_replicate_weights_are_refused() -> None:
    metric = MAP()
    state = metric.summarize({"a": {"x": 1}, "b": {"x": 1}}, {"a": {"x": 1.0}, "b": {"y": 1.0}})
    with pytest.raises(ConfigError, match=r"map: replicate weights are not one column per query"):
        metric.compute_replicates(state, np.ones((3, 3), dtype=np.int64))
    with pytest.raises(ConfigError, match=r"not one column per query; got shape \(2,\)"):
        metric.compute_replicates(state, np.ones(2, dtype=np.int64))
    with pytest.raises(ConfigError, match="negative replicate weight; got -1"):
        metric.compute_replicates(state, np.array([[1, -1]]))
    with pytest.raises(ConfigError, match="replicate weights are not counts"):
        metric.compute_replicates(state, np.array([[0.5, 1.0]]))
