"""Bootstrap replicates of every metric whose unit is a row of its inputs.

For every registered metric and configuration reachable by name,
``summarize_replicates(metric, batch, weights)[b]`` must compute to the value of the
batch with row ``i`` repeated ``weights[b, i]`` times (its sample weight with
it), including rows of weight 0 and a replicate of no row, which behaves as an
empty batch does (the same error or the same undefined value).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings

from scorekit.core import Metric, State, available, iter_variants
from scorekit.errors import ScorekitError, UndefinedMetricWarning
from scorekit.stats._resampling import count_units, summarize_replicates
from strategies import batches
from test_properties import _close, _takes_weight

OWN_TESTS = {
    "qrels_run": "per-query states: tests/test_ranking_replicates.py",
    "requests": "the request as unit: tests/test_throughput_replicates.py",
    "references_predictions": "segments of the text family, tested with it",
    "qa_answers": "questions of the QA family, tested with it",
    "log_probs": "sequences of perplexity, tested with the text family",
}

CONFIGS = [
    pytest.param(
        metric,
        id=f"{info.name}-{i}",
        marks=(
            [pytest.mark.skip(reason=OWN_TESTS[info.inputs])] if info.inputs in OWN_TESTS else []
        ),
    )
    for info in available()
    for i, metric in enumerate(iter_variants(info))
]


def _result(make: Callable[[], State], metric: Metric[Any]) -> tuple[str, Any]:
    """The value of the state ``make()`` builds, or the kind and text of the error raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return "value", metric.compute(make())
        except ScorekitError as exc:
            return "error", f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize("metric", CONFIGS)
def test_replicates_equal_the_metric_of_repeated_rows(metric: Metric[Any]) -> None:
    weighted = _takes_weight(metric)

    @settings(max_examples=4)
    @given(batches(metric.inputs, min_rows=1, max_rows=30))
    def check(data: dict[str, Any]) -> None:
        args, sample_weight = data["args"], data["weights"] if weighted else None
        n = count_units(metric, *args)
        assert n == len(args[0])
        rng = np.random.default_rng(data["cuts"][0] * 1_000_003 + n)
        counts = rng.poisson(1.0, (4, n))
        counts[0] = 0
        extra = {} if sample_weight is None else {"sample_weight": sample_weight}
        try:
            states = summarize_replicates(metric, *args, weights=counts, **extra)
        except ScorekitError as exc:
            states = [exc] * len(counts)
        assert len(states) == len(counts)
        for state, w in zip(states, counts, strict=True):
            index = np.repeat(np.arange(n), w)
            rows = tuple(a[index] for a in args)
            if sample_weight is not None:
                rows_extra = {"sample_weight": sample_weight[index]}
            else:
                rows_extra = {}

            def replicate(state: Any = state) -> State:
                if isinstance(state, Exception):
                    raise state
                return state

            got = _result(replicate, metric)
            if w.sum() == 0:
                want = _result(metric.empty, metric)
            else:
                want = _result(lambda r=rows, e=rows_extra: metric.summarize(*r, **e), metric)
            assert got[0] == want[0], (w.tolist(), got, want)
            if got[0] == "error":
                assert got[1] == want[1]
            else:
                assert _close(got[1], want[1], rtol=1e-12), (w.tolist(), got, want)

    check()
