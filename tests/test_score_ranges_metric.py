"""ROC AUC and AP with ``ranges=`` / ``cuts=``: the state is split by score ranges, the value is
the exact metric's, and the engine folds the ranges like any other state."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit
from scorekit.classification import ROCAUC, AveragePrecision, average_precision, roc_auc
from scorekit.classification._ranges import ScoreRanges, range_cuts
from scorekit.core import State
from scorekit.errors import ConfigError, InputError, StateMismatchError

_PAIRS = (
    (ROCAUC(), "roc_auc"),
    (ROCAUC(max_fpr=0.2), "roc_auc"),
    (AveragePrecision(), "average_precision"),
)


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 400),
    ties=st.booleans(),
    ranges=st.integers(1, 40),
    chunks=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
)
def test_ranged_metrics_equal_the_exact_ones(
    n: int, ties: bool, ranges: int, chunks: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    s = np.round(rng.random(n), 1) if ties else rng.random(n).astype(np.float32)
    cuts = range_cuts(rng.choice(np.asarray(s, dtype=np.float64), min(n, 50)), ranges)
    bounds = np.sort(rng.integers(0, n + 1, chunks - 1))
    for exact, _ in _PAIRS:
        for options in ({"ranges": ranges}, {"cuts": tuple(cuts)}):
            ranged = type(exact)(**{**exact.__dict__, "cuts": None, **options})
            states = [
                ranged.summarize(a, b)
                for a, b in zip(np.split(y, bounds), np.split(s, bounds), strict=True)
            ]
            state = ranged.merge_many(states[::-1])
            assert isinstance(state, ScoreRanges)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got, want = ranged.compute(state), exact.score(y, s)
            if isinstance(exact, AveragePrecision) and ties:
                # compute's AP of tied positive scores takes a BLAS dot product
                assert got == pytest.approx(want, rel=1e-12)
            else:
                assert _same(got, want)


def test_functions_and_names_reach_the_ranges() -> None:
    y, s = [0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.4, 0.9]
    assert roc_auc(y, s, ranges=8) == roc_auc(y, s)
    assert roc_auc(y, s, cuts=[0.3, 0.4], max_fpr=0.5) == roc_auc(y, s, max_fpr=0.5)
    assert average_precision(y, s, cuts=[0.4]) == average_precision(y, s)
    metric = scorekit.parse_metric("roc_auc:ranges=16")
    assert isinstance(metric, ROCAUC) and metric.cuts is not None and len(metric.cuts) == 15
    assert isinstance(metric.empty(), ScoreRanges)
    state = metric.summarize(y, s)
    back = State.from_json(state.to_json())
    assert isinstance(back, ScoreRanges) and metric.compute(back) == roc_auc(y, s)


def test_the_stream_engine_folds_ranges() -> None:
    rng = np.random.default_rng(5)
    n = 20_000
    table = {"y_true": (rng.random(n) < 0.3).astype(int), "y_score": rng.random(n)}
    names = ["roc_auc:ranges=16", "average_precision:ranges=16", "roc_auc"]
    result = scorekit.evaluate(table, names, chunk_size=3_000).to_dict()
    values = result.get("values", result)
    want = roc_auc(table["y_true"], table["y_score"])
    assert values["roc_auc:ranges=16"] == want == values["roc_auc"]
    ap = average_precision(table["y_true"], table["y_score"])
    assert values["average_precision:ranges=16"] == ap


def test_configuration_errors() -> None:
    with pytest.raises(ConfigError, match="exclude each other"):
        ROCAUC(ranges=4, cuts=(0.5,))
    with pytest.raises(ConfigError, match="exclude bins and edges"):
        ROCAUC(ranges=4, bins=8)
    with pytest.raises(ConfigError, match="1-D binary scores only"):
        ROCAUC(ranges=4, multi_class="ovr")
    with pytest.raises(ConfigError, match="step-wise AP"):
        AveragePrecision(ranges=4, interpolation="11point")
    with pytest.raises(ConfigError, match="positive integer"):
        ROCAUC(ranges=0)
    with pytest.raises(ConfigError, match="too many ranges"):
        ROCAUC(ranges=1 << 20)
    with pytest.raises(ConfigError, match="increase strictly"):
        AveragePrecision(cuts=(0.5, 0.2))
    with pytest.raises(InputError, match="1-D binary scores only"):
        ROCAUC(ranges=4, average="micro").summarize([[0, 1], [1, 0]], [[0.2, 0.8], [0.6, 0.4]])
    a = ROCAUC(ranges=4).summarize([0, 1], [0.2, 0.7])
    b = ROCAUC(ranges=2).summarize([0, 1], [0.2, 0.7])
    with pytest.raises(StateMismatchError, match="cut points"):
        ROCAUC(ranges=4).merge(a, b)
