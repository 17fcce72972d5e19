"""Bootstrap replicates of the serving metrics: the request is the unit.

A replicate in which request ``i`` counts ``w[b, i]`` times must be the metric
of the records with that request repeated ``w[b, i]`` times, in every input form.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.core import Metric, available, iter_variants, parse_metric
from scorekit.errors import ConfigError, InputError
from scorekit.throughput import TTFT, OutputThroughput, RequestThroughput, as_records
from strategies import batches
from test_properties import _close, _outcome

METRICS = [
    pytest.param(metric, id=f"{info.name}-{i}")
    for info in available()
    if info.inputs == "requests"
    for i, metric in enumerate(iter_variants(info))
] + [pytest.param(parse_metric("goodput:ttft=200ms,tpot=50ms"), id="goodput-slo")]


def _repeat(records: Any, index: np.ndarray) -> Any:
    """The input rows at ``index``, in the input's own form."""
    if isinstance(records, list):
        return [records[i] for i in index.tolist()]
    if isinstance(records, dict):
        return {c: [v[i] for i in index.tolist()] for c, v in records.items()}
    if hasattr(records, "iloc"):
        return records.iloc[index]
    return records.take(index)


def _with_marks(records: list[Any], seed: int) -> list[Any]:
    """Records with a metadata record first and some warm-up copies of requests inserted."""
    rng = np.random.default_rng(seed)
    out: list[Any] = [{"record": "metadata", "model": "m"}]
    for r in records:
        row = dict(r if isinstance(r, dict) else r.__dict__)
        if rng.random() < 0.2:
            out.append({**row, "warmup": True})
        out.append(row)
    return out


@pytest.mark.parametrize("metric", METRICS)
def test_replicates_equal_the_metric_of_repeated_requests(metric: Metric[Any]) -> None:
    @settings(max_examples=10)
    @given(batches("requests", min_rows=1, max_rows=25), st.integers(0, 3))
    def check(data: dict[str, Any], form: int) -> None:
        (records,) = data["args"]
        seed = int(data["cuts"][0]) * 7919 + data["n"]
        if form == 1 and isinstance(records, list):
            records = _with_marks(records, seed)
        if form == 2 and isinstance(records, list):
            rows = [r if isinstance(r, dict) else r.__dict__ for r in records]
            records = {c: [r.get(c) for r in rows] for c in rows[0]}
        n = metric.count_units(records)
        weights = np.random.default_rng(seed).poisson(1.0, (4, n))
        weights[0] = 0
        states = metric.summarize_replicates(records, weights=weights)
        assert len(states) == len(weights)
        for state, w in zip(states, weights, strict=True):
            expected = metric.summarize(_repeat(records, np.repeat(np.arange(n), w)))
            got, want = _outcome(metric, state), _outcome(metric, expected)
            assert got[0] == want[0] and _close(got[1], want[1], rtol=1e-12), (got, want)
            assert state.equals(expected)

    check()


def test_a_replicate_spans_the_requests_it_contains() -> None:
    records = [
        {"prompt_tokens": 10, "output_tokens": 4, "start": 0.0, "end": 1.0},
        {"prompt_tokens": 10, "output_tokens": 6, "start": 2.0, "end": 4.0},
        {"prompt_tokens": 10, "output_tokens": 8, "start": 3.0, "end": 10.0},
    ]
    metric = OutputThroughput()
    weights = np.array([[1, 1, 1], [0, 2, 0], [3, 1, 0], [0, 0, 0]])
    states = metric.summarize_replicates(records, weights=weights)
    assert [s.wall_time for s in states[:3]] == [10.0, 2.0, 4.0]
    with pytest.warns(UserWarning, match="no requests"):
        values = [metric.compute(s) for s in states]
    assert values[:3] == [1.8, 6.0, 4.5]
    assert np.isnan(values[3])


def test_marked_records_are_units_that_add_nothing() -> None:
    records = [
        {"record": "metadata"},
        {"prompt_tokens": 1, "output_tokens": 2, "start": 0.0, "end": 1.0, "first_token": 0.5},
        {"prompt_tokens": 1, "output_tokens": 2, "start": 0.0, "end": 1.0, "warmup": True},
        {"prompt_tokens": 1, "output_tokens": 2, "start": 0.0, "end": 2.0, "first_token": 0.25},
    ]
    metric = TTFT()
    assert metric.count_units(records) == 4
    states = metric.summarize_replicates(records, weights=np.array([[5, 0, 5, 1], [0, 2, 0, 1]]))
    assert states[0].values.tolist() == [0.25]
    assert sorted(states[1].values.tolist()) == [0.25, 0.5, 0.5]
    # records checked once (as the input kind does for a chunk) keep their input rows
    checked = as_records("ttft", records)
    assert checked.n == 2 and metric.count_units(checked) == 4
    again = metric.summarize_replicates(checked, weights=np.array([[5, 0, 5, 1], [0, 2, 0, 1]]))
    assert all(a.equals(b) for a, b in zip(again, states, strict=True))


def test_bad_replicate_weights_and_inputs_are_refused() -> None:
    records = [{"prompt_tokens": 1, "output_tokens": 1, "start": 0.0, "end": 1.0}] * 3
    metric = RequestThroughput()
    with pytest.raises(ConfigError, match=r"request_throughput: replicate weights are not one "):
        metric.summarize_replicates(records, weights=np.ones((2, 2), dtype=np.int64))
    with pytest.raises(ConfigError, match="negative replicate weight; got -1"):
        metric.summarize_replicates(records, weights=np.array([[1, -1, 1]]))
    with pytest.raises(InputError, match=r"wrong inputs; got 2 positional inputs"):
        metric.summarize_replicates(records, records, weights=np.ones((1, 3), dtype=np.int64))
