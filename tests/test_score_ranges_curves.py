"""ROC and PR curves read from score ranges: array for array the curves of the whole histogram."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.classification import (
    PRCurveMetric,
    ROCCurveMetric,
    range_cuts,
    ranges_pr_curve,
    ranges_roc_curve,
    split_ranges,
)
from scorekit.errors import InputError, UndefinedMetricWarning


def _caught(fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = fn(*args, **kwargs)
    return out, [str(w.message) for w in seen if w.category is UndefinedMetricWarning]


def _equal(a: Any, b: Any) -> bool:
    return len(a) == len(b) and all(
        np.array_equal(x, y, equal_nan=True) and x.dtype == y.dtype
        for x, y in zip(a, b, strict=True)
    )


@settings(max_examples=120, deadline=None)
@given(
    n=st.integers(1, 300),
    style=st.integers(0, 3),
    weighted=st.booleans(),
    one_class=st.booleans(),
    cut_kind=st.integers(0, 3),
    drop=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_curves_equal_the_whole_histogram_curves(
    n: int, style: int, weighted: bool, one_class: bool, cut_kind: int, drop: bool, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    y = np.full(n, int(rng.integers(0, 2))) if one_class else (rng.random(n) < 0.4).astype(int)
    if style == 0:
        s: np.ndarray = rng.random(n)
    elif style == 1:
        s = rng.integers(0, 5, n).astype(np.float64)  # heavy ties: long straight runs
    elif style == 2:
        s = rng.random(n).astype(np.float32)
    else:
        s = np.round(rng.normal(size=n), 1)
    w = rng.random(n) * rng.choice([0.0, 1.0], n) if weighted else None
    values = np.asarray(s, dtype=np.float64)
    cuts = (
        np.empty(0),
        range_cuts(values, int(rng.integers(2, 12))),
        np.unique(values),
        np.unique(rng.choice(values, 3)),
    )[cut_kind]
    for metric, reader in (
        (ROCCurveMetric(drop_intermediate=drop), ranges_roc_curve),
        (PRCurveMetric(drop_intermediate=drop), ranges_pr_curve),
    ):
        whole = metric.summarize(y, s, w)
        if whole.score.size == 0:
            continue
        ranges = split_ranges(whole, cuts)
        want, warned = _caught(metric.compute, whole)
        got, got_warned = _caught(reader, ranges.parts, drop_intermediate=drop)
        assert _equal(got, want)
        assert got_warned == warned
        assert type(got) is type(want)


def test_positive_label_and_errors() -> None:
    y, s = ["n", "y", "n", "y"], [0.2, 0.9, 0.6, 0.6]
    whole = ROCCurveMetric(pos_label="y").summarize(y, s)
    parts = split_ranges(whole, [0.5, 0.6]).parts
    assert _equal(
        ranges_roc_curve(parts, pos_label="y"), ROCCurveMetric(pos_label="y").compute(whole)
    )
    assert _equal(
        ranges_pr_curve(parts, pos_label="n"), PRCurveMetric(pos_label="n").compute(whole)
    )
    with pytest.raises(InputError, match="pos_label is needed"):
        ranges_roc_curve(parts)
    absent, warned = _caught(ranges_pr_curve, parts, pos_label="z")
    want, _ = _caught(PRCurveMetric(pos_label="z").compute, whole)
    assert _equal(absent, want) and warned
