"""The DDSketch state and the bounded-memory median absolute error built on it."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from ddsketch import DDSketch, LogCollapsingLowestDenseDDSketch
from ddsketch.mapping import LogarithmicMapping
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import median_absolute_error

from scorekit import Estimate, State
from scorekit.core import QuantileSketch
from scorekit.core._sketch import _Mapping
from scorekit.errors import ConfigError, InputError, StateMismatchError
from scorekit.regression import MedAE, medae

ALPHAS = st.sampled_from([0.001, 0.01, 0.02, 0.05, 0.2])
QUANTILES = st.sampled_from([0.0, 0.01, 0.1, 0.25, 0.5, 0.5001, 0.75, 0.9, 0.99, 1.0])


@st.composite
def values(draw: Any, signed: bool = True) -> np.ndarray:
    """Values over many orders of magnitude, with zeros, ties and (optionally) negatives."""
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.integers(1, 150))
    rng = np.random.default_rng(seed)
    x = 10.0 ** rng.uniform(-8, 8, n)
    if draw(st.booleans()):
        x = np.round(x, 1)  # ties and exact zeros
    if signed:
        x = x * rng.choice([-1.0, 1.0], n)
    x[rng.random(n) < 0.1] = 0.0
    return x


def _reference(x: np.ndarray, alpha: float, w: np.ndarray | None, cls: Any = DDSketch) -> Any:
    sketch = cls(alpha)
    for i, v in enumerate(x.tolist()):
        sketch.add(v, 1.0 if w is None else float(w[i]))
    return sketch


# agreement with the ddsketch package -----------------------------------------------------


@settings(max_examples=60)
@given(x=values(), alpha=ALPHAS, q=QUANTILES, weighted=st.booleans())
def test_quantile_agrees_with_ddsketch(
    x: np.ndarray, alpha: float, q: float, weighted: bool
) -> None:
    w = np.arange(1, x.size + 1, dtype=np.float64) % 4 + 1 if weighted else None
    ours = QuantileSketch.of(x, alpha, w).quantile(q)[0]
    theirs = _reference(x, alpha, w).get_quantile_value(q)
    assert ours == pytest.approx(theirs, rel=1e-12, abs=0.0)


@settings(max_examples=20)
@given(x=values(), alpha=st.sampled_from([0.01, 0.05]), q=QUANTILES)
def test_quantile_agrees_with_collapsing_sketch_below_its_bin_limit(
    x: np.ndarray, alpha: float, q: float
) -> None:
    theirs = _reference(x, alpha, None, LogCollapsingLowestDenseDDSketch)
    ours = QuantileSketch.of(x, alpha).quantile(q)[0]
    assert ours == pytest.approx(theirs.get_quantile_value(q), rel=1e-12, abs=0.0)


def test_keys_match_the_logarithmic_mapping_at_bucket_boundaries() -> None:
    theirs = LogarithmicMapping(0.01)
    ours = _Mapping(0.01)
    # values at and next to the bucket boundaries, where rounding decides the key
    keys = np.arange(-4000, 4000)
    edges = np.array([theirs._pow_gamma(k) for k in keys.tolist()])
    probe = np.concatenate([edges, np.nextafter(edges, 0), np.nextafter(edges, np.inf)])
    expected = np.array([theirs.key(v) for v in probe.tolist()])
    np.testing.assert_array_equal(ours.keys(probe), expected)
    np.testing.assert_allclose(
        ours.values(keys), [theirs.value(k) for k in keys.tolist()], rtol=1e-14
    )


# the paper's guarantee -----------------------------------------------------------------------


@settings(max_examples=60)
@given(x=values(), alpha=ALPHAS, q=QUANTILES)
def test_quantile_within_relative_accuracy_of_the_exact_neighbourhood(
    x: np.ndarray, alpha: float, q: float
) -> None:
    estimate = QuantileSketch.of(x, alpha).quantile(q)[0]
    lower = float(np.quantile(x, q, method="lower"))
    higher = float(np.quantile(x, q, method="higher"))
    slack = alpha * max(abs(lower), abs(higher)) * (1 + 1e-12)
    assert min(lower, higher) - slack <= estimate <= max(lower, higher) + slack


@settings(max_examples=60)
@given(x=values(signed=False), alpha=ALPHAS)
def test_median_within_relative_accuracy_of_numpy_median(x: np.ndarray, alpha: float) -> None:
    exact = float(np.median(x))
    estimate = QuantileSketch.of(x, alpha).median()[0]
    assert abs(estimate - exact) <= alpha * exact * (1 + 1e-12) + 1e-300


@settings(max_examples=40)
@given(x=values(signed=False), alpha=ALPHAS, seed=st.integers(0, 1000))
def test_weighted_median_within_relative_accuracy(x: np.ndarray, alpha: float, seed: int) -> None:
    w = np.random.default_rng(seed).integers(0, 5, x.size).astype(np.float64)
    w[0] = 1.0
    exact = median_absolute_error(x, np.zeros_like(x), sample_weight=w)
    estimate = QuantileSketch.of(x, alpha, w).median()[0]
    assert abs(estimate - exact) <= alpha * exact * (1 + 1e-12) + 1e-300


# merging --------------------------------------------------------------------------------------


@settings(max_examples=30)
@given(x=values(), cut=st.integers(0, 150), alpha=ALPHAS)
def test_merged_sketches_equal_the_sketch_of_all_data(
    x: np.ndarray, cut: int, alpha: float
) -> None:
    cut %= x.size + 1
    whole = QuantileSketch.of(x, alpha)
    a, b = QuantileSketch.of(x[:cut], alpha), QuantileSketch.of(x[cut:], alpha)
    empty = QuantileSketch.empty(alpha)
    for merged in (a.merge(b), b.merge(a), empty.merge(a).merge(b), a.merge(empty).merge(b)):
        assert merged.equals(whole)
    again = State.from_json(a.merge(b).to_json())
    assert again.equals(whole)


def test_merge_refuses_other_accuracy_or_columns() -> None:
    a = QuantileSketch.of([1.0, 2.0], 0.01)
    with pytest.raises(StateMismatchError, match="relative_accuracy"):
        a.merge(QuantileSketch.of([1.0, 2.0], 0.02))
    with pytest.raises(StateMismatchError, match="numbers of columns"):
        a.merge(QuantileSketch.of([[1.0, 2.0]], 0.01))


def test_sketch_size_is_bounded_by_the_range_not_the_count() -> None:
    rng = np.random.default_rng(1)
    alpha = 0.01
    sketch = QuantileSketch.empty(alpha)
    for _ in range(10):
        sketch = sketch.merge(QuantileSketch.of(10 ** rng.uniform(-3, 3, 100_000), alpha))
    gamma = (1 + alpha) / (1 - alpha)
    assert sketch.n_samples == 1_000_000
    assert sketch.size <= math.log(1e6) / math.log(gamma) + 2  # 691 buckets at most
    assert sketch.size > 680


def test_negative_zero_and_positive_stores_by_hand() -> None:
    sketch = QuantileSketch.of([-8.0, -1.0, 0.0, 0.0, 1.0, 8.0, 8.0], 0.05)
    assert sketch.negative.tolist() == [True, True, False, False]
    assert sketch.count.tolist() == [1, 1, 1, 2]
    assert sketch.zeros.tolist() == [2]
    assert sketch.quantile(0.5)[0] == 0.0
    assert sketch.quantile(0.0)[0] == pytest.approx(-8.0, rel=0.05)
    assert sketch.quantile(1.0)[0] == pytest.approx(8.0, rel=0.05)
    # two columns, one weighted sketch each; the median of [1, 2, 3, 4] averages 2 and 3
    two = QuantileSketch.of([[1.0, 10.0], [2.0, 10.0], [3.0, 30.0], [4.0, 30.0]], 0.01)
    np.testing.assert_allclose(two.median(), [2.5, 20.0], rtol=0.01)
    np.testing.assert_array_equal(two.weight, [4.0, 4.0])


def test_bad_sketch_input() -> None:
    for alpha in (0, 1, -0.1, 1.5, True, "0.01", None):
        with pytest.raises(ConfigError, match="invalid relative_accuracy"):
            QuantileSketch.of([1.0], alpha)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="finite"):
        QuantileSketch.of([1.0, math.nan])
    with pytest.raises(InputError, match="invalid weights"):
        QuantileSketch.of([1.0, 2.0], weights=[1.0, -1.0])
    with pytest.raises(ConfigError, match="invalid quantile"):
        QuantileSketch.of([1.0]).quantile(1.5)
    assert math.isnan(QuantileSketch.of(np.zeros((0, 1))).median()[0])


# the bounded median absolute error ---------------------------------------------------------


@settings(max_examples=40)
@given(x=values(signed=False), alpha=ALPHAS, seed=st.integers(0, 1000), weighted=st.booleans())
def test_medae_sketch_bounds_the_exact_value(
    x: np.ndarray, alpha: float, seed: int, weighted: bool
) -> None:
    rng = np.random.default_rng(seed)
    y_pred = rng.normal(size=x.size)
    y_true = y_pred + x * rng.choice([-1.0, 1.0], x.size)
    w = rng.integers(1, 4, x.size).astype(np.float64) if weighted else None
    exact = medae(y_true, y_pred, sample_weight=w)
    result = medae(y_true, y_pred, sample_weight=w, relative_accuracy=alpha)
    assert isinstance(result, Estimate)
    value, bound = result
    assert abs(value - exact) <= alpha * exact * (1 + 1e-9) + 1e-12
    assert value - bound - 1e-12 <= exact <= value + bound + 1e-12


def test_medae_sketch_multioutput_and_merge() -> None:
    rng = np.random.default_rng(3)
    y_true = rng.normal(size=(5_000, 3)) * [1.0, 10.0, 100.0]
    y_pred = np.zeros_like(y_true)
    metric = MedAE(multioutput="raw_values", relative_accuracy=0.01)
    exact = medae(y_true, y_pred, multioutput="raw_values")
    state = metric.merge(metric.summarize(y_true[:1234], y_pred[:1234]), metric.empty())
    state = metric.merge(state, metric.summarize(y_true[1234:], y_pred[1234:]))
    value, bound = metric.compute(state)
    assert value.shape == bound.shape == (3,)
    assert np.all(np.abs(value - exact) <= 0.01 * exact)
    np.testing.assert_allclose(bound, 0.01 * value / 0.99)
    mean, mean_bound = medae(y_true, y_pred, relative_accuracy=0.01)
    assert mean == pytest.approx(value.mean()) and mean_bound == pytest.approx(bound.mean())
    weighted = MedAE(multioutput=(1.0, 0.0, 1.0), relative_accuracy=0.01).score(y_true, y_pred)
    assert weighted.value == pytest.approx((value[0] + value[2]) / 2)


def test_medae_sketch_of_exact_predictions_is_zero() -> None:
    assert medae([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], relative_accuracy=0.01) == (0.0, 0.0)
    # half the errors zero: the median averages 0 and the smallest non-zero error
    value, bound = medae([0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 2.0, 4.0], relative_accuracy=0.01)
    assert value == pytest.approx(1.0, rel=0.01) and abs(value - 1.0) <= bound


def test_medae_sketch_bad_config_and_input() -> None:
    for alpha in (0, 1, -0.5, True, "0.1"):
        with pytest.raises(ConfigError, match="invalid relative_accuracy"):
            MedAE(relative_accuracy=alpha)  # type: ignore[arg-type]
    metric = MedAE(relative_accuracy=0.02)
    with pytest.raises(InputError, match="empty input"):
        metric.compute(metric.empty())
    with pytest.raises(InputError, match="weights are 0"):
        metric.score([1.0, 2.0], [0.0, 0.0], sample_weight=[0.0, 0.0])
    with pytest.raises(InputError, match="nan"):
        metric.score([1.0, math.nan], [0.0, 0.0])
    with pytest.raises(InputError, match="another relative accuracy"):
        metric.compute(MedAE(relative_accuracy=0.01).summarize([1.0], [0.0]))
    with pytest.raises(StateMismatchError, match="relative_accuracy"):
        metric.merge(
            metric.summarize([1.0], [0.0]), MedAE(relative_accuracy=0.01).summarize([1.0], [0.0])
        )
