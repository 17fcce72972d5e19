"""Regression metrics against scikit-learn, hand computation and two-pass float64 references."""

from __future__ import annotations

import itertools
import math
import pickle
import warnings
from collections.abc import Callable
from functools import reduce
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn import metrics as skm
from sklearn.exceptions import UndefinedMetricWarning as SklearnUndefinedMetricWarning

from scorekit import parse_metric
from scorekit.core import State
from scorekit.errors import (
    ConfigError,
    InputError,
    StateMismatchError,
    UndefinedMetricWarning,
)
from scorekit.regression import (
    MAE,
    MAPE,
    MSE,
    MSLE,
    R2,
    RMSE,
    SMAPE,
    WMAPE,
    ExplainedVariance,
    MaxError,
    MedAE,
    explained_variance,
    mae,
    mape,
    max_error,
    medae,
    mse,
    msle,
    r2,
    rmse,
    rmsle,
    smape,
    wmape,
)
from scorekit.regression._base import BLOCK

RTOL = 1e-12

# (scorekit function, scikit-learn function, multioutput choices, takes weights)
PAIRS: list[tuple[Callable[..., Any], Callable[..., Any], tuple[str, ...]]] = [
    (mse, skm.mean_squared_error, ("uniform_average", "raw_values")),
    (rmse, skm.root_mean_squared_error, ("uniform_average", "raw_values")),
    (mae, skm.mean_absolute_error, ("uniform_average", "raw_values")),
    (mape, skm.mean_absolute_percentage_error, ("uniform_average", "raw_values")),
    (medae, skm.median_absolute_error, ("uniform_average", "raw_values")),
    (r2, skm.r2_score, ("uniform_average", "raw_values", "variance_weighted")),
    (
        explained_variance,
        skm.explained_variance_score,
        ("uniform_average", "raw_values", "variance_weighted"),
    ),
    (msle, skm.mean_squared_log_error, ("uniform_average", "raw_values")),
    (rmsle, skm.root_mean_squared_log_error, ("uniform_average", "raw_values")),
]
IDS = [f.__name__ for f, _, _ in PAIRS]


def _data(seed: int, n: int, k: int, style: int, positive: bool) -> tuple[Any, Any]:
    rng = np.random.default_rng(seed)
    shape = (n,) if k == 0 else (n, k)
    if style == 0:
        y = rng.normal(size=shape)
        p = y + rng.normal(size=shape) * 0.3
    elif style == 1:  # small integer grid: ties, exact predictions, constant columns
        y = rng.integers(0, 3, shape).astype(float)
        p = rng.integers(0, 3, shape).astype(float)
    elif style == 2:
        y = rng.normal(size=shape) * 1e6 + 1e8
        p = y + rng.normal(size=shape) * 1e3
    else:
        y = rng.random(shape) * 1e-6
        p = rng.random(shape) * 1e-6
    if positive:
        y, p = np.abs(y), np.abs(p)
    return y, p


def _weights(seed: int, n: int, kind: int) -> Any:
    rng = np.random.default_rng(seed + 7)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random(n) * 3
    if kind == 2:  # integer weights with zeros, one kept positive
        w = rng.integers(0, 3, n).astype(float)
        w[0] = 1.0
        return w
    return np.ones(n)


def _close(a: Any, b: Any, rtol: float = RTOL) -> None:
    a_arr, b_arr = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a_arr.shape == b_arr.shape
    np.testing.assert_allclose(a_arr, b_arr, rtol=rtol, atol=1e-13, equal_nan=True)


@pytest.mark.parametrize(("ours", "ref", "outputs"), PAIRS, ids=IDS)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 40),
    k=st.integers(0, 3),
    style=st.integers(0, 3),
    wkind=st.integers(0, 3),
    out=st.integers(0, 2),
)
def test_agrees_with_sklearn(
    ours: Callable[..., Any],
    ref: Callable[..., Any],
    outputs: tuple[str, ...],
    seed: int,
    n: int,
    k: int,
    style: int,
    wkind: int,
    out: int,
) -> None:
    positive = ours in (msle, rmsle)
    y, p = _data(seed, n, k, style, positive)
    w = _weights(seed, n, wkind)
    multioutput = outputs[out % len(outputs)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        got = ours(y, p, sample_weight=w, multioutput=multioutput)
        want = ref(y, p, sample_weight=w, multioutput=multioutput)
    if ours in (r2, explained_variance) and style == 1:
        # integer data: exact constant columns; both sides use force_finite
        _close(got, want)
    else:
        _close(got, want, rtol=1e-10 if style == 2 and ours in (r2, explained_variance) else RTOL)


@pytest.mark.parametrize(("ours", "ref", "outputs"), PAIRS, ids=IDS)
def test_custom_output_weights_match_sklearn(
    ours: Callable[..., Any], ref: Callable[..., Any], outputs: tuple[str, ...]
) -> None:
    y, p = _data(3, 30, 3, 0, ours in (msle, rmsle))
    _close(ours(y, p, multioutput=[0.2, 0.0, 0.8]), ref(y, p, multioutput=[0.2, 0.0, 0.8]))


@pytest.mark.parametrize(
    ("ours", "ref"), [(r2, skm.r2_score), (explained_variance, skm.explained_variance_score)]
)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 12),
    k=st.integers(0, 3),
    wkind=st.integers(0, 3),
    out=st.integers(0, 2),
)
def test_force_finite_false_matches_sklearn_on_constant_columns(
    ours: Callable[..., Any],
    ref: Callable[..., Any],
    seed: int,
    n: int,
    k: int,
    wkind: int,
    out: int,
) -> None:
    y, p = _data(seed, n, k, 1, False)  # a 0/1/2 grid: constant columns and exact predictions
    w = _weights(seed, n, wkind)
    multioutput = ("uniform_average", "raw_values", "variance_weighted")[out]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            got = ours(y, p, sample_weight=w, multioutput=multioutput, force_finite=False)
            want = ref(y, p, sample_weight=w, multioutput=multioutput, force_finite=False)
    _close(got, want)


@pytest.mark.parametrize(("ours", "ref", "outputs"), PAIRS, ids=IDS)
@pytest.mark.parametrize("k", [0, 2])
def test_one_sample_matches_sklearn(
    ours: Callable[..., Any], ref: Callable[..., Any], outputs: tuple[str, ...], k: int
) -> None:
    y, p = (
        (np.array([3.0]), np.array([1.5]))
        if k == 0
        else (np.array([[3.0, 0.5]]), np.array([[1.5, 0.5]]))
    )
    for multioutput in outputs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = ours(y, p, multioutput=multioutput)
            want = ref(y, p, multioutput=multioutput)
        _close(got, want)
    assert max_error([3.0], [1.5]) == skm.max_error([3.0], [1.5]) == 1.5


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), style=st.integers(0, 3))
def test_max_error_agrees_with_sklearn(seed: int, n: int, style: int) -> None:
    y, p = _data(seed, n, 0, style, False)
    assert max_error(y, p) == skm.max_error(y, p)


@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 40),
    k=st.integers(0, 3),
    style=st.integers(0, 3),
    wkind=st.integers(0, 3),
)
def test_smape_and_wmape_match_hand_computation(
    seed: int, n: int, k: int, style: int, wkind: int
) -> None:
    y, p = _data(seed, n, k, style, False)
    w = _weights(seed, n, wkind)
    wt = np.ones(n) if w is None else w
    y2, p2 = y.reshape(n, -1), p.reshape(n, -1)
    den = (np.abs(y2) + np.abs(p2)) / 2
    terms = np.array(
        [
            [0.0 if d == 0 else abs(a - b) / d for a, b, d in zip(ra, rb, rd, strict=True)]
            for ra, rb, rd in zip(y2, p2, den, strict=True)
        ]
    )
    expected_smape = np.array([math.fsum(wt * c) / math.fsum(wt) for c in terms.T])
    _close(smape(y, p, sample_weight=w, multioutput="raw_values"), expected_smape)
    num = np.array([math.fsum(wt * np.abs(a - b)) for a, b in zip(y2.T, p2.T, strict=True)])
    tot = np.array([math.fsum(wt * np.abs(a)) for a in y2.T])
    if (tot > 0).all():
        _close(wmape(y, p, sample_weight=w, multioutput="raw_values"), num / tot)


# worked values -----------------------------------------------------------------


def test_worked_values() -> None:
    y, p = [3, -0.5, 2, 7], [2.5, 0.0, 2, 8]
    assert mse(y, p) == 0.375
    assert mae(y, p) == 0.5
    assert medae(y, p) == 0.5
    assert max_error(y, p) == 1.0
    assert rmse([0, 0], [3, 4]) == pytest.approx(math.sqrt(12.5))
    assert smape([1.0, 0.0, 2.0], [3.0, 0.0, 2.0]) == pytest.approx(1 / 3)
    assert wmape(y, p) == pytest.approx(2.0 / 12.5)
    assert mape([100, 200], [110, 180]) == pytest.approx(0.1)


def test_parse_metric_names_and_aliases() -> None:
    y, p = [[0.5, 1], [-1, 1], [7, -6]], [[0, 2], [-1, 2], [8, -5]]
    got = parse_metric("r2:variance_weighted").score(y, p)
    assert got == pytest.approx(skm.r2_score(y, p, multioutput="variance_weighted"), rel=RTOL)
    raw = parse_metric("mean_squared_error:raw_values").score(y, p)
    _close(raw, skm.mean_squared_error(y, p, multioutput="raw_values"))
    assert parse_metric("rmsle").name == "rmsle"
    with pytest.raises(ConfigError, match="unknown multioutput"):
        parse_metric("mse:variance_weighted")


# zero cases --------------------------------------------------------------------


def test_mape_at_zero_target_uses_eps_like_sklearn() -> None:
    y, p = [1.0, 0.0, 2.4, 7.0], [1.2, 0.1, 2.4, 8.0]
    assert mape(y, p) == skm.mean_absolute_percentage_error(y, p)
    assert mape([0.0], [0.0]) == 0.0
    assert mape([0.0, 2.0], [0.5, 2.0], eps=1.0) == 0.25


def test_smape_zero_over_zero_counts_zero() -> None:
    assert smape([0.0, 0.0], [0.0, 0.0]) == 0.0
    assert smape([0.0, 1.0], [0.0, 3.0]) == 0.5
    assert smape([0.0], [5.0]) == 2.0


def test_wmape_zero_denominator() -> None:
    with pytest.warns(UndefinedMetricWarning, match="sum of |y_true| is 0"):
        assert wmape([0.0, 0.0], [0.0, 0.0]) == 0.0
    with pytest.warns(UndefinedMetricWarning):
        assert wmape([0.0, 0.0], [1.0, 0.0]) == math.inf


@pytest.mark.parametrize("force_finite", [True, False])
@pytest.mark.parametrize(
    ("y", "p"),
    [([2.0, 2.0, 2.0], [2.0, 2.0, 2.0]), ([2.0, 2.0, 2.0], [1.0, 2.0, 3.0]), ([5, 5], [6, 6])],
)
def test_constant_targets_follow_force_finite(
    y: list[float], p: list[float], force_finite: bool
) -> None:
    for ours, ref in ((r2, skm.r2_score), (explained_variance, skm.explained_variance_score)):
        with pytest.warns(UndefinedMetricWarning, match="constant"):
            got = ours(y, p, force_finite=force_finite)
        with np.errstate(all="ignore"):
            want = ref(y, p, force_finite=force_finite)
        assert got == want or (math.isnan(got) and math.isnan(want))


def test_constant_target_that_rounds_is_still_constant() -> None:
    # the rounded mean of three 0.1s is 0.1 + 1 ulp; scikit-learn returns about -5e31
    with pytest.warns(UndefinedMetricWarning):
        assert r2([0.1, 0.1, 0.1], [0.0, 0.0, 0.0]) == 0.0
    state = R2().merge(R2().summarize([0.1] * 3, [0.0] * 3), R2().summarize([0.1], [0.0]))
    assert state.m2[0] == 0.0


def test_r2_single_sample_is_nan_with_warning() -> None:
    with pytest.warns(UndefinedMetricWarning, match="fewer than two samples"):
        assert math.isnan(r2([1.0], [2.0]))
    with pytest.warns(SklearnUndefinedMetricWarning):
        assert math.isnan(skm.r2_score([1.0], [2.0]))
    with pytest.warns(UndefinedMetricWarning, match="constant"):
        assert explained_variance([1.0], [2.0]) == 1.0
    assert skm.explained_variance_score([1.0], [2.0]) == 1.0


def test_variance_weighted_with_all_constant_outputs_falls_back_to_uniform() -> None:
    y, p = [[1.0, 2.0], [1.0, 2.0]], [[1.0, 3.0], [1.0, 2.0]]
    with pytest.warns(UndefinedMetricWarning):
        got = r2(y, p, multioutput="variance_weighted")
    assert got == skm.r2_score(y, p, multioutput="variance_weighted") == 0.5


def test_zero_weights_are_ignored() -> None:
    y, p = np.array([1.0, 2.0, 3.0, 40.0]), np.array([1.5, 2.0, 2.0, 0.0])
    w = np.array([1.0, 2.0, 1.0, 0.0])
    for fn in (mse, mae, medae, r2, explained_variance, mape, smape, wmape):
        assert fn(y, p, sample_weight=w) == pytest.approx(
            fn(y[:3], p[:3], sample_weight=w[:3]), rel=1e-13
        ), fn.__name__


def test_weighted_median_tie_on_half_weight() -> None:
    y, p = [1, 2, 3, 4], [0, 0, 0, 0]
    assert medae(y, p, sample_weight=[1, 1, 1, 1]) == 2.5
    assert medae(y, p, sample_weight=[1, 1, 1, 5]) == 4.0
    w = [2.0, 1.0, 1.0, 0.0]
    assert medae(y, p, sample_weight=w) == skm.median_absolute_error(y, p, sample_weight=w)


def test_huge_and_tiny_values() -> None:
    y = np.array([1e300, -1e300, 5e299])
    p = y * (1 + 1e-3)
    assert mae(y, p) == pytest.approx(skm.mean_absolute_error(y, p), rel=RTOL)
    with pytest.raises(InputError, match=r"mse: the .* sum of its error terms overflows float64"):
        mse(y, p)  # an MSE beyond float64 is an error, not inf and a RuntimeWarning
    scaled = math.sqrt(skm.mean_squared_error(y * 1e-200, p * 1e-200)) * 1e200
    assert rmse(y, p) == pytest.approx(scaled, rel=1e-12)
    big = y * 1e-150
    assert r2(big, big * (1 + 1e-3)) == pytest.approx(skm.r2_score(big, big * (1 + 1e-3)), rel=1e-9)
    tiny = np.array([1e-310, 3e-310, 2e-310])
    assert mae(tiny, tiny * 2) == pytest.approx(skm.mean_absolute_error(tiny, tiny * 2))


# numerical stability of streamed variance ------------------------------------------


def _two_pass(y: np.ndarray) -> tuple[float, float]:
    y = np.asarray(y, dtype=np.float64)
    mean = math.fsum(y) / len(y)
    return mean, math.fsum((y - mean) ** 2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@given(seed=st.integers(0, 2**32 - 1), n_chunks=st.integers(1, 12))
def test_r2_streams_large_offset_targets_like_two_pass(
    dtype: type, seed: int, n_chunks: int
) -> None:
    rng = np.random.default_rng(seed)
    n = 2000
    y = (1e9 + rng.normal(size=n) * 50).astype(dtype)
    p = (y.astype(np.float64) + rng.normal(size=n) * 10).astype(dtype)
    cuts = np.sort(rng.integers(0, n, n_chunks - 1))
    metric = R2()
    state = reduce(
        metric.merge,
        (metric.summarize(a, b) for a, b in zip(np.split(y, cuts), np.split(p, cuts), strict=True)),
        metric.empty(),
    )
    y64, p64 = y.astype(np.float64), p.astype(np.float64)
    mean, m2 = _two_pass(y64)
    sse = math.fsum((y64 - p64) ** 2)
    assert state.mean[0] + state.mean_lo[0] == pytest.approx(mean, rel=1e-15, abs=1e-9)
    assert state.m2[0] == pytest.approx(m2, rel=1e-13)
    assert metric.compute(state) == pytest.approx(1 - sse / m2, rel=1e-12)
    ev = ExplainedVariance()
    ev_state = reduce(
        ev.merge,
        (ev.summarize(a, b) for a, b in zip(np.split(y, cuts), np.split(p, cuts), strict=True)),
    )
    _, res_m2 = _two_pass(y64 - p64)
    assert ev.compute(ev_state) == pytest.approx(1 - res_m2 / m2, rel=1e-12)


def test_naive_sum_of_squares_would_fail_where_streaming_holds() -> None:
    rng = np.random.default_rng(0)
    y = 1e9 + rng.normal(size=10_000)
    naive = float((y * y).sum() - len(y) * y.mean() ** 2)
    _, exact = _two_pass(y)
    assert abs(naive - exact) > 0.01 * exact
    metric = R2()
    state = reduce(metric.merge, (metric.summarize(c, c) for c in np.array_split(y, 7)))
    assert state.m2[0] == pytest.approx(exact, rel=1e-10)


# states -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "metric",
    [MSE(), MAE(), MAPE(), SMAPE(), WMAPE(), MSLE(), R2(), ExplainedVariance(), MedAE()],
    ids=lambda m: m.name,
)
@pytest.mark.parametrize("weighted", [False, True])
def test_streamed_equals_in_memory_multioutput(metric: Any, weighted: bool) -> None:
    rng = np.random.default_rng(4)
    y = np.abs(rng.normal(size=(101, 3)))
    p = np.abs(y + rng.normal(size=(101, 3)))
    w = rng.random(101) if weighted else None
    m = type(metric)(multioutput="raw_values")
    whole = m.score(y, p, sample_weight=w)
    parts = [
        m.summarize(y[a:b], p[a:b], sample_weight=None if w is None else w[a:b])
        for a, b in ((0, 0), (0, 40), (40, 41), (41, 101), (101, 101))
    ]
    state = reduce(m.merge, parts, m.empty())
    if isinstance(metric, MedAE):
        np.testing.assert_array_equal(m.compute(state), whole)
    else:
        _close(m.compute(state), whole)
    again = State.from_json(state.to_json())
    assert again.equals(state)
    assert pickle.loads(pickle.dumps(state)).equals(state)


def test_medae_mixed_weighted_and_unweighted_chunks() -> None:
    y, p = np.arange(10.0), np.zeros(10)
    m = MedAE()
    state = m.merge(m.summarize(y[:4], p[:4]), m.summarize(y[4:], p[4:], sample_weight=np.ones(6)))
    assert m.compute(state) == m.score(y, p) == 4.5


def test_states_of_different_metrics_or_outputs_do_not_merge() -> None:
    with pytest.raises(StateMismatchError, match="term"):
        MSE().merge(MSE().summarize([1.0], [2.0]), MAE().summarize([1.0], [2.0]))
    with pytest.raises(StateMismatchError, match="term"):
        MAPE().merge(MAPE().summarize([1.0], [2.0]), MAPE(eps=1e-3).summarize([1.0], [2.0]))
    for metric in (MSE(), R2(), ExplainedVariance(), MedAE()):
        a = metric.summarize([[1.0, 2.0]], [[1.0, 2.0]])
        b = metric.summarize([1.0], [2.0])
        with pytest.raises(StateMismatchError, match="numbers of outputs"):
            metric.merge(a, b)


def test_rmse_shares_the_mse_state() -> None:
    s = MSE().summarize([1.0, 2.0], [2.0, 4.0])
    assert RMSE().compute(s) == math.sqrt(MSE().compute(s))


def test_inputs_are_not_mutated_and_containers_accepted() -> None:
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    y = np.array([1.0, 2.0, 3.5, 4.0])
    p = np.array([1.5, 2.0, 3.0, 5.0])
    y0, p0 = y.copy(), p.copy()
    expected = skm.r2_score(y, p)
    w = np.array([0.5, 1.0, 0.0, 2.0])
    w0 = w.copy()
    for metric in (mse, mae, medae, r2, explained_variance, mape, smape, wmape, msle):
        metric(y, p)
        metric(y, p, sample_weight=w)
    max_error(y, p)
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_array_equal(p, p0)
    np.testing.assert_array_equal(w, w0)
    assert r2(pd.Series(y), pd.Series(p)) == pytest.approx(expected, rel=RTOL)
    assert r2(pa.array(y), pa.array(p)) == pytest.approx(expected, rel=RTOL)
    assert r2(list(y), tuple(p)) == pytest.approx(expected, rel=RTOL)
    assert r2(y.astype(np.float32), p.astype(np.float32)) == pytest.approx(expected, rel=1e-7)
    frame = pd.DataFrame({"a": y, "b": p})
    _close(mse(frame, frame[["b", "a"]], multioutput="raw_values"), [0.375, 0.375])


# bad input ------------------------------------------------------------------------

ALL = [mse, rmse, mae, medae, mape, smape, wmape, r2, explained_variance, max_error, msle, rmsle]


@pytest.mark.parametrize("fn", ALL, ids=lambda f: f.__name__)
def test_length_mismatch(fn: Callable[..., Any]) -> None:
    with pytest.raises(InputError, match=rf"{fn.__name__}: inputs differ in length; got y_true"):
        fn([1.0, 2.0, 3.0], [1.0, 2.0])


@pytest.mark.parametrize("fn", ALL, ids=lambda f: f.__name__)
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("where", ["y_true", "y_pred"])
def test_non_finite_values(fn: Callable[..., Any], bad: float, where: str) -> None:
    y, p = [1.0, 2.0, 3.0], [1.5, 2.0, 3.0]
    (y if where == "y_true" else p)[1] = bad
    with pytest.raises(InputError, match=rf"{fn.__name__}: {where} contains {bad}.*at index 1"):
        fn(y, p)


@pytest.mark.parametrize("fn", ALL, ids=lambda f: f.__name__)
def test_empty_input(fn: Callable[..., Any]) -> None:
    with pytest.raises(InputError, match=rf"{fn.__name__}: empty input; got 0 samples"):
        fn([], [])


@pytest.mark.parametrize("fn", [msle, rmsle])
@pytest.mark.parametrize("where", ["y_true", "y_pred"])
@pytest.mark.parametrize("bad", [-1.0, -3.5])
def test_msle_rejects_values_at_or_below_minus_one(
    fn: Callable[..., Any], where: str, bad: float
) -> None:
    y, p = [1.0, 2.0, 3.0], [1.0, 2.0, 3.0]
    (y if where == "y_true" else p)[2] = bad
    with pytest.raises(InputError, match=rf"{where} contains a value <= -1.*at index 2"):
        fn(y, p)
    with pytest.raises(ValueError):
        skm.mean_squared_log_error(y, p)


def test_msle_accepts_values_between_minus_one_and_zero_like_sklearn() -> None:
    y, p = [-0.5, 1.0, 3.0], [0.0, 1.0, 2.0]
    assert msle(y, p) == pytest.approx(skm.mean_squared_log_error(y, p), rel=RTOL)


@pytest.mark.parametrize("fn", [mse, medae, r2, explained_variance, wmape])
def test_all_zero_weights(fn: Callable[..., Any]) -> None:
    with pytest.raises(InputError, match="all sample weights are 0"):
        fn([1.0, 2.0], [1.0, 3.0], sample_weight=[0.0, 0.0])


@pytest.mark.parametrize(
    ("weights", "problem"),
    [
        ([1.0, -1.0], "sample_weight is negative"),
        ([1.0], "sample_weight differs in length"),
        ([1.0, math.nan], "sample_weight contains nan"),
    ],
)
def test_bad_sample_weight(weights: list[float], problem: str) -> None:
    with pytest.raises(InputError, match=problem):
        mse([1.0, 2.0], [1.0, 3.0], sample_weight=weights)


def test_shape_and_type_errors() -> None:
    with pytest.raises(InputError, match="differ in number of outputs; got 2 and 3"):
        mse(np.zeros((4, 2)), np.zeros((4, 3)))
    with pytest.raises(InputError, match="y_pred must be 1-D or 2-D; got shape"):
        mae(np.zeros(4), np.zeros((4, 1, 1)))
    with pytest.raises(InputError, match="y_true must be numeric; got <U1"):
        r2(["a", "b"], [1.0, 2.0])
    with pytest.raises(InputError, match="max_error: multi-output targets are not supported"):
        max_error(np.zeros((3, 2)), np.zeros((3, 2)))
    with pytest.raises(InputError, match="no outputs"):
        mse(np.zeros((3, 0)), np.zeros((3, 0)))


def test_bad_configuration() -> None:
    with pytest.raises(ConfigError, match="mse: unknown multioutput; got 'mean'"):
        mse([1.0], [1.0], multioutput="mean")
    with pytest.raises(ConfigError, match="mae: unknown multioutput; got 'variance_weighted'"):
        MAE(multioutput="variance_weighted")
    with pytest.raises(ConfigError, match="invalid multioutput weights"):
        MSE(multioutput=[-1.0, 2.0])
    with pytest.raises(ConfigError, match="invalid multioutput weights"):
        MSE(multioutput=[0.0, 0.0])
    with pytest.raises(ConfigError, match=r"mape: invalid eps; got 0\.0"):
        MAPE(eps=0.0)
    with pytest.raises(ConfigError, match="r2: invalid force_finite"):
        R2(force_finite="yes")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="output weights need multi-output input"):
        mse([1.0, 2.0], [1.0, 3.0], multioutput=[1.0])
    with pytest.raises(InputError, match="2 weights for 3 outputs"):
        mse(np.zeros((2, 3)), np.ones((2, 3)), multioutput=[1.0, 2.0])


def test_max_error_state_is_a_max() -> None:
    m = MaxError()
    s = m.merge(m.summarize([1.0, 2.0], [1.0, 5.0]), m.summarize([0.0], [-4.0]))
    assert m.compute(s) == 4.0
    assert m.merge(m.empty(), s).equals(s)


@pytest.mark.parametrize("case", ["float", "integer_ties", "zero_weights", "exact_half"])
def test_weighted_medae_on_large_data_matches_sklearn(case: str) -> None:
    rng = np.random.default_rng(11)
    n = 30_001
    if case == "float":
        y, p, w = rng.normal(size=n), rng.normal(size=n), rng.random(n)
    elif case == "integer_ties":
        y = rng.integers(0, 50, n).astype(float)
        p = rng.integers(0, 50, n).astype(float)
        w = rng.random(n)
    elif case == "zero_weights":
        y, p = rng.normal(size=n), np.zeros(n)
        w = rng.integers(0, 3, n).astype(float)
    else:  # unit weights on an even count: the half falls exactly on a data point
        y, p, w = rng.normal(size=n - 1), np.zeros(n - 1), np.ones(n - 1)
    got = medae(y, p, sample_weight=w)
    assert got == skm.median_absolute_error(y, p, sample_weight=w)
    order = rng.permutation(len(y))
    assert medae(y[order], p[order], sample_weight=w[order]) == pytest.approx(got, rel=1e-15)
    if case == "exact_half":
        assert got == medae(y, p) == np.median(np.abs(y))


def test_weighted_medae_streamed_in_order_is_exact() -> None:
    rng = np.random.default_rng(5)
    y, p, w = rng.normal(size=(20_000, 2)), rng.normal(size=(20_000, 2)), rng.random(20_000)
    m = MedAE(multioutput="raw_values")
    cuts = [0, 3_000, 3_001, 12_000, 20_000]
    parts = [m.summarize(y[a:b], p[a:b], sample_weight=w[a:b]) for a, b in itertools.pairwise(cuts)]
    np.testing.assert_array_equal(m.compute(reduce(m.merge, parts)), m.score(y, p, sample_weight=w))


# blocked kernels: large, multi-block inputs ----------------------------------------

BIG = 3 * BLOCK + 17  # several blocks, the last one short


def _big_data(k: int, seed: int = 21) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    shape = (BIG,) if k == 0 else (BIG, k)
    y = np.abs(rng.normal(size=shape) * 5 + 3)
    p = np.abs(y + rng.normal(size=shape))
    return y, p, rng.random(BIG)


@pytest.mark.parametrize(("ours", "ref", "outputs"), PAIRS, ids=IDS)
@pytest.mark.parametrize("k", [0, 3])
@pytest.mark.parametrize("weighted", [False, True])
def test_multi_block_inputs_agree_with_sklearn(
    ours: Callable[..., Any],
    ref: Callable[..., Any],
    outputs: tuple[str, ...],
    k: int,
    weighted: bool,
) -> None:
    y, p, w = _big_data(k)
    sw = w if weighted else None
    for multioutput in outputs:
        _close(
            ours(y, p, sample_weight=sw, multioutput=multioutput),
            ref(y, p, sample_weight=sw, multioutput=multioutput),
        )


def test_multi_block_max_error_smape_wmape() -> None:
    y, p, w = _big_data(0)
    p[-1] = y[-1] + 1e3  # the largest error sits in the last, short block
    assert max_error(y, p) == skm.max_error(y, p) == 1e3
    den = np.abs(y) + np.abs(p)
    _close(smape(y, p, sample_weight=w), np.average(2 * np.abs(y - p) / den, weights=w))
    _close(wmape(y, p, sample_weight=w), math.fsum(w * np.abs(y - p)) / math.fsum(w * np.abs(y)))


@pytest.mark.parametrize(
    "fn",
    [mse, rmse, mae, medae, mape, smape, wmape, r2, explained_variance, max_error, msle, rmsle],
    ids=lambda f: f.__name__,
)
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8])
def test_narrow_dtypes_equal_their_float64_values(fn: Callable[..., Any], dtype: type) -> None:
    y, p, _ = _big_data(0, seed=5)
    scale = 1 if dtype == np.float32 else 40
    y_n, p_n = (y * scale).astype(dtype), (p * scale).astype(dtype)
    assert fn(y_n, p_n) == fn(y_n.astype(np.float64), p_n.astype(np.float64))


def test_unsigned_integers_do_not_wrap() -> None:
    y = np.array([0, 255, 10], dtype=np.uint8)
    p = np.array([255, 0, 10], dtype=np.uint8)
    assert mse(y, p) == 2 * 255**2 / 3
    assert mae(y, p) == 170.0
    assert medae(y, p) == 255.0
    assert max_error(y, p) == 255.0
    assert r2(y, p) == skm.r2_score(y.astype(float), p.astype(float))


def test_strided_and_fortran_ordered_inputs() -> None:
    y, p, w = _big_data(2, seed=8)
    yf, pf = np.asfortranarray(y), np.asfortranarray(p)
    for fn in (mse, mae, medae, r2, explained_variance, smape, wmape, msle):
        _close(fn(yf, pf, multioutput="raw_values"), fn(y, p, multioutput="raw_values"))
        _close(
            fn(y[::3], p[::3], sample_weight=w[::3], multioutput="raw_values"),
            fn(y[::3].copy(), p[::3].copy(), sample_weight=w[::3].copy(), multioutput="raw_values"),
        )


@pytest.mark.parametrize(
    "metric",
    [MSE(), MAE(), SMAPE(), WMAPE(), MSLE(), R2(), ExplainedVariance(), MedAE()],
    ids=lambda m: m.name,
)
def test_multi_block_streamed_equals_in_memory(metric: Any) -> None:
    y, p, w = _big_data(2, seed=13)
    m = type(metric)(multioutput="raw_values")
    whole = m.score(y, p, sample_weight=w)
    cuts = [0, 5, BLOCK + 3, 2 * BLOCK, BIG]
    parts = [m.summarize(y[a:b], p[a:b], sample_weight=w[a:b]) for a, b in itertools.pairwise(cuts)]
    got = m.compute(reduce(m.merge, parts))
    if isinstance(metric, MedAE):
        np.testing.assert_array_equal(got, whole)
    else:
        _close(got, whole)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("chunks", [1, 2, 7])
def test_r2_multi_block_large_offset_matches_two_pass(dtype: type, chunks: int) -> None:
    rng = np.random.default_rng(17)
    n = 5 * BLOCK + 11
    y = (1e9 + rng.normal(size=n) * 50).astype(dtype)
    p = (y.astype(np.float64) + rng.normal(size=n) * 10).astype(dtype)
    y64, p64 = y.astype(np.float64), p.astype(np.float64)
    mean, m2 = _two_pass(y64)
    sse = math.fsum((y64 - p64) ** 2)
    _, res_m2 = _two_pass(y64 - p64)
    for metric, want in ((R2(), 1 - sse / m2), (ExplainedVariance(), 1 - res_m2 / m2)):
        pairs = zip(np.array_split(y, chunks), np.array_split(p, chunks), strict=True)
        parts = [metric.summarize(a, b) for a, b in pairs]
        state = reduce(metric.merge, parts)
        assert state.m2[0] == pytest.approx(m2, rel=1e-13)
        assert state.mean[0] + state.mean_lo[0] == pytest.approx(mean, rel=1e-15, abs=1e-9)
        assert metric.compute(state) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 1_001, 2 * BLOCK, 2 * BLOCK + 1])
def test_unweighted_median_is_numpy_median_bit_for_bit(n: int) -> None:
    rng = np.random.default_rng(n)
    y = rng.integers(0, 20, (n, 2)).astype(float)  # many ties
    p = rng.normal(size=(n, 2))
    got = medae(y, p, multioutput="raw_values")
    np.testing.assert_array_equal(got, np.median(np.abs(y - p), axis=0))
    np.testing.assert_array_equal(got, skm.median_absolute_error(y, p, multioutput="raw_values"))


# more input containers and zero cases ------------------------------------------------


def test_more_containers() -> None:
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    y, p = [1.0, 2.0, 3.0, 5.0], [1.0, 2.0, 3.0, 4.0]
    expected = skm.r2_score(y, p)
    assert r2(pa.chunked_array([y[:2], y[2:]]), p) == pytest.approx(expected, rel=RTOL)
    assert r2(pd.Series([1, 2, 3, 5], dtype="Int64"), p) == pytest.approx(expected, rel=RTOL)
    assert mse(y, p, sample_weight=pd.Series([1.0, 1.0, 1.0, 1.0])) == 0.25
    with pytest.raises(InputError, match="y_true contains nan; got nan at index 1"):
        mse(pd.Series([1.0, None, 3.0, 5.0], dtype="Float64"), p)
    with pytest.raises(InputError, match="y_pred contains nan; got nan at index 2"):
        mae(y, pa.array([1.0, 2.0, None, 4.0]))


def test_smape_terms_stay_in_range_at_the_ends_of_float64() -> None:
    assert smape([1e308], [-1e308]) == 2.0
    assert smape([1e308], [0.9e308]) == pytest.approx(2 * 0.1 / 1.9, rel=1e-15)
    assert smape([5e-324], [0.0]) == 2.0
    assert smape([5e-324], [5e-324]) == 0.0
    assert smape([-3e-320, 1.5e308], [1e-320, -1.7e308]) == 2.0


def test_r2_accepts_none_multioutput_like_sklearn() -> None:
    y, p = [[0.5, 1], [-1, 1], [7, -6]], [[0, 2], [-1, 2], [8, -5]]
    assert r2(y, p, multioutput=None) == skm.r2_score(y, p, multioutput=None)
    assert R2(multioutput=None).multioutput == "uniform_average"
    with pytest.raises(ConfigError, match="mse: invalid multioutput; got None, expected one of"):
        mse(y, p, multioutput=None)


# more bad input ----------------------------------------------------------------------

WEIGHTED = [mse, rmse, mae, medae, mape, smape, wmape, r2, explained_variance, msle, rmsle]


@pytest.mark.parametrize("fn", WEIGHTED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("where", ["y_true", "y_pred"])
def test_non_finite_value_of_zero_weight_is_still_an_error(
    fn: Callable[..., Any], where: str
) -> None:
    y, p = [1.0, 2.0, 3.0], [1.5, 2.0, 3.0]
    (y if where == "y_true" else p)[1] = math.nan
    with pytest.raises(InputError, match=rf"{fn.__name__}: {where} contains nan.*at index 1"):
        fn(y, p, sample_weight=[1.0, 0.0, 1.0])


@pytest.mark.parametrize("fn", ALL, ids=lambda f: f.__name__)
def test_non_finite_value_in_a_later_block_names_its_index(fn: Callable[..., Any]) -> None:
    y, p, _ = _big_data(0, seed=3)
    where = 2 * BLOCK + 9
    p[where] = math.inf
    with pytest.raises(InputError, match=rf"{fn.__name__}: y_pred contains inf.*at index {where}"):
        fn(y, p)


@pytest.mark.parametrize("fn", [msle, rmsle])
def test_log_domain_error_names_the_index_in_the_whole_input(fn: Callable[..., Any]) -> None:
    y, p, _ = _big_data(0, seed=4)
    p[7] = -2.0
    y[BLOCK + 5] = -1.0
    with pytest.raises(InputError, match=rf"y_true contains a value <= -1.*at index {BLOCK + 5}"):
        fn(y, p)
    y[BLOCK + 5] = 1.0
    with pytest.raises(InputError, match=r"y_pred contains a value <= -1.*; got -2.0 at index 7"):
        fn(y, p)


@pytest.mark.parametrize("fn", ALL, ids=lambda f: f.__name__)
def test_empty_multi_output_input(fn: Callable[..., Any]) -> None:
    if fn is max_error:
        with pytest.raises(InputError, match="multi-output targets are not supported"):
            fn(np.zeros((0, 2)), np.zeros((0, 2)))
    else:
        with pytest.raises(InputError, match=rf"{fn.__name__}: empty input"):
            fn(np.zeros((0, 2)), np.zeros((0, 2)))
