"""Pinball loss, Tweedie deviances and D^2 scores: scikit-learn, merged states, edge cases."""

from __future__ import annotations

import itertools
import json
import math
import pickle
import warnings
from collections.abc import Callable
from decimal import Decimal, getcontext
from functools import reduce
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import parse_metric
from scorekit.cli import main
from scorekit.compat import sklearn as compat
from scorekit.core import State
from scorekit.errors import ConfigError, InputError, StateMismatchError, UndefinedMetricWarning
from scorekit.regression import (
    D2AbsoluteError,
    D2Pinball,
    D2Tweedie,
    GammaDeviance,
    PinballLoss,
    PoissonDeviance,
    TweedieDeviance,
    d2_absolute_error,
    d2_pinball,
    d2_tweedie,
    gamma_deviance,
    pinball_loss,
    poisson_deviance,
    tweedie_deviance,
)
from scorekit.regression._base import BLOCK
from scorekit.regression._d2 import averaged_quantile

RTOL = 1e-12
POWERS = [-2.0, -1.0, -0.5, 0.0, 1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0]
ALPHAS = [0.0, 0.05, 0.1, 0.25, 0.5, 0.7, 0.9, 0.95, 1.0]
HOUSES = Path(__file__).resolve().parent.parent / "examples" / "data" / "regression.csv"


def _close(a: Any, b: Any, rtol: float = RTOL, atol: float = 1e-13) -> None:
    a_arr, b_arr = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a_arr.shape == b_arr.shape
    np.testing.assert_allclose(a_arr, b_arr, rtol=rtol, atol=atol, equal_nan=True)


def _data(seed: int, n: int, k: int, style: int) -> tuple[np.ndarray, np.ndarray]:
    """Targets and predictions, both > 0 (every deviance's domain once shifted)."""
    rng = np.random.default_rng(seed)
    shape = (n,) if k == 0 else (n, k)
    if style == 0:
        y, p = rng.gamma(2.0, size=shape), rng.gamma(2.0, size=shape)
    elif style == 1:  # small integers: ties, exact predictions, constant columns
        y = rng.integers(1, 4, shape).astype(float)
        p = rng.integers(1, 4, shape).astype(float)
    elif style == 2:  # wide range
        y = np.exp(rng.normal(size=shape) * 3)
        p = y * np.exp(rng.normal(size=shape))
    else:  # tiny
        y, p = rng.random(shape) * 1e-6 + 1e-9, rng.random(shape) * 1e-6 + 1e-9
    return y, p


def _for_power(y: np.ndarray, power: float, seed: int) -> np.ndarray:
    """Targets in the domain of ``power``: any sign for p <= 0, zeros for 1 <= p < 2."""
    rng = np.random.default_rng(seed + 3)
    if power <= 0:
        return y - np.median(y) * rng.random()
    if power < 2:
        return np.where(rng.random(y.shape) < 0.2, 0.0, y)
    return y


def _weights(seed: int, n: int, kind: int) -> Any:
    rng = np.random.default_rng(seed + 7)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random(n) * 3
    w = rng.integers(0, 3, n).astype(float)  # integer weights with zeros
    w[0] = 1.0
    return w


def _quiet(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _d2_rtol(y: np.ndarray, w: Any) -> float:
    """The tolerance of a Tweedie D^2 against scikit-learn's closed form.

    Its deviance around the mean subtracts numbers of the size of ``y`` to
    leave one of the size of the spread squared, so it keeps about
    ``(spread / max|y|)^2`` of float64's digits (the state keeps them all).
    """
    kept = y if w is None else y[np.asarray(w) > 0]
    spread = float(np.min(np.ptp(kept.reshape(len(kept), -1), axis=0)))
    scale = float(np.max(np.abs(kept)))
    return max(1e-10, 1e-14 * (scale / spread) ** 2) if spread else 1e-10


def _constant(y: np.ndarray, w: Any) -> bool:
    kept = y if w is None else y[np.asarray(w) > 0]
    return bool((kept == kept.flat[0]).all())


# against scikit-learn -------------------------------------------------------------------

SETTINGS = settings(max_examples=60, deadline=None)
DATA = {
    "seed": st.integers(0, 2**32 - 1),
    "n": st.integers(2, 40),
    "style": st.integers(0, 3),
    "wkind": st.integers(0, 2),
}


@SETTINGS
@given(**DATA, k=st.integers(0, 3), alpha=st.sampled_from(ALPHAS), raw=st.booleans())
def test_pinball_and_d2_pinball_agree_with_sklearn(
    seed: int, n: int, style: int, wkind: int, k: int, alpha: float, raw: bool
) -> None:
    y, p = _data(seed, n, k, style)
    y = y - np.median(y)  # any sign
    w = _weights(seed, n, wkind)
    out = "raw_values" if raw else "uniform_average"
    kw = {"sample_weight": w, "multioutput": out}
    _close(pinball_loss(y, p, alpha=alpha, **kw), skm.mean_pinball_loss(y, p, alpha=alpha, **kw))
    _close(
        _quiet(d2_pinball, y, p, alpha=alpha, **kw),
        _quiet(skm.d2_pinball_score, y, p, alpha=alpha, **kw),
    )
    _close(_quiet(d2_absolute_error, y, p, **kw), _quiet(skm.d2_absolute_error_score, y, p, **kw))


@SETTINGS
@given(**DATA, power=st.sampled_from(POWERS))
def test_tweedie_deviance_and_d2_agree_with_sklearn(
    seed: int, n: int, style: int, wkind: int, power: float
) -> None:
    y, p = _data(seed, n, 0, style)
    y = _for_power(y, power, seed)
    w = _weights(seed, n, wkind)
    want = skm.mean_tweedie_deviance(y, p, sample_weight=w, power=power)
    _close(tweedie_deviance(y, p, sample_weight=w, power=power), want, rtol=1e-11)
    if power == 1:
        _close(poisson_deviance(y, p, sample_weight=w), want, rtol=1e-11)
    if power == 2:
        _close(gamma_deviance(y, p, sample_weight=w), want, rtol=1e-11)
    if _constant(y, w):
        return  # scikit-learn divides by zero: see test_d2_tweedie_constant_targets
    got = _quiet(d2_tweedie, y, p, sample_weight=w, power=power)
    want = _quiet(skm.d2_tweedie_score, y, p, sample_weight=w, power=power)
    _close(got, want, rtol=_d2_rtol(y, w))


@pytest.mark.parametrize("power", [-1.5, -1.0, -2.0])
def test_d2_tweedie_of_negative_power_with_a_mean_at_most_zero_is_sklearns_formula(
    power: float,
) -> None:
    """At a mean <= 0 scikit-learn evaluates the formula there: nan or a number."""
    y = np.array([-3.0, 1.0, -2.5, 0.5])
    p = np.array([0.5, 1.0, 2.0, 0.7])
    want = _quiet(skm.d2_tweedie_score, y, p, power=power)
    got = _quiet(d2_tweedie, y, p, power=power)
    _close(got, want)
    metric = D2Tweedie(power=power)
    state = reduce(metric.merge, [metric.summarize(y[i : i + 1], p[i : i + 1]) for i in range(4)])
    _close(metric.compute(state), want, rtol=1e-9)


@settings(max_examples=25, deadline=None)
@given(**DATA, k=st.integers(1, 3), power=st.sampled_from([0.0, 1.0, 1.5, 2.0]))
def test_multi_output_deviances_are_per_column_sklearn_values(
    seed: int, n: int, style: int, wkind: int, k: int, power: float
) -> None:
    y, p = _data(seed, n, k, style)
    w = _weights(seed, n, wkind)
    cols = range(k)
    want = [skm.mean_tweedie_deviance(y[:, j], p[:, j], sample_weight=w, power=power) for j in cols]
    got = tweedie_deviance(y, p, sample_weight=w, power=power, multioutput="raw_values")
    _close(got, want, rtol=1e-11)
    _close(tweedie_deviance(y, p, sample_weight=w, power=power), np.mean(want), rtol=1e-11)
    if any(_constant(y[:, j], w) for j in cols):
        return
    d2 = [skm.d2_tweedie_score(y[:, j], p[:, j], sample_weight=w, power=power) for j in cols]
    got = _quiet(d2_tweedie, y, p, sample_weight=w, power=power, multioutput="raw_values")
    _close(got, d2, rtol=_d2_rtol(y, w))


COMPAT = {
    "mean_pinball_loss": {"alpha": [0.1, 0.5, 0.9], "multioutput": True},
    "d2_pinball_score": {"alpha": [0.0, 0.3, 0.5, 1.0], "multioutput": True},
    "d2_absolute_error_score": {"multioutput": True},
    "mean_tweedie_deviance": {"power": [0, -1, 1, 1.5, 2, 3]},
    "mean_poisson_deviance": {},
    "mean_gamma_deviance": {},
    "d2_tweedie_score": {"power": [0, -1, 1, 1.5, 2, 3]},
}


@pytest.mark.parametrize("name", sorted(COMPAT))
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 25))
def test_drop_in_agrees_with_sklearn(name: str, seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    spec = COMPAT[name]
    two_d = spec.get("multioutput") and rng.random() < 0.5
    y, p = _data(seed, n, 2 if two_d else 0, int(rng.integers(0, 4)))
    kwargs: dict[str, Any] = {"sample_weight": _weights(seed, n, int(rng.integers(0, 3)))}
    for option in ("alpha", "power"):
        if option in spec:
            kwargs[option] = spec[option][int(rng.integers(0, len(spec[option])))]
    if "power" in kwargs:
        y = _for_power(y, kwargs["power"], seed)
    if name == "mean_poisson_deviance":
        y = _for_power(y, 1.0, seed)
    if spec.get("multioutput"):
        kwargs["multioutput"] = ["uniform_average", "raw_values", [0.3, 0.7]][
            int(rng.integers(0, 3 if two_d else 2))
        ]
    if name == "d2_tweedie_score" and n > 1 and _constant(y, kwargs["sample_weight"]):
        return
    reference = getattr(skm, name)
    try:
        want = ("value", _quiet(reference, y, p, **kwargs))
    except ValueError:
        want = ("error", None)
    try:
        got = ("value", _quiet(getattr(compat, name), y, p, **kwargs))
    except InputError:
        got = ("error", None)
    assert got[0] == want[0], (got, want)
    if want[0] == "value":
        assert type(got[1]) is type(want[1])
        rtol = _d2_rtol(y, kwargs["sample_weight"]) if name == "d2_tweedie_score" else 1e-10
        _close(got[1], want[1], rtol=rtol)


# merged states equal the whole ----------------------------------------------------------


def _chunks(metric: Any, y: Any, p: Any, w: Any, cuts: list[int]) -> State:
    n = len(y)
    bounds = [0, *sorted(cuts), n]
    parts = [
        metric.summarize(y[a:b], p[a:b], sample_weight=None if w is None else w[a:b])
        for a, b in itertools.pairwise(bounds)
    ]
    return reduce(metric.merge, parts, metric.empty())


@settings(max_examples=50, deadline=None)
@given(
    **DATA,
    k=st.integers(1, 3),
    cuts=st.lists(st.integers(0, 40), max_size=4),
    alpha=st.sampled_from(ALPHAS),
    power=st.sampled_from(POWERS),
)
def test_chunked_and_merged_equals_the_whole(
    seed: int,
    n: int,
    style: int,
    wkind: int,
    k: int,
    cuts: list[int],
    alpha: float,
    power: float,
) -> None:
    y, p = _data(seed, n, k, style)
    w = _weights(seed, n, wkind)
    cuts = [min(c, n) for c in cuts]
    yp = _for_power(y, power, seed)
    cases = [
        (PinballLoss(alpha=alpha, multioutput="raw_values"), y, 1e-12),
        (D2Pinball(alpha=alpha, multioutput="raw_values"), y, 1e-12),
        (D2AbsoluteError(multioutput="raw_values"), y, 1e-12),
        (TweedieDeviance(power=power, multioutput="raw_values"), yp, 1e-11),
        (D2Tweedie(power=power, multioutput="raw_values"), yp, 1e-10),
    ]
    for metric, yy, rtol in cases:
        whole = _quiet(metric.score, yy, p, sample_weight=w)
        state = _chunks(metric, yy, p, w, cuts)
        merged = _quiet(metric.compute, state)
        if isinstance(metric, D2Pinball | D2AbsoluteError) and w is None:
            # every target kept: the same quantile and baseline, only the sum of losses rounds
            np.testing.assert_allclose(merged, whole, rtol=1e-14, atol=1e-15)
        _close(merged, whole, rtol=rtol, atol=1e-12)
        assert State.from_json(state.to_json()).equals(state)
        assert pickle.loads(pickle.dumps(state)).equals(state)
        again = State.from_dict(json.loads(json.dumps(state.to_dict())))
        assert again.equals(state)
        again.validate()


def _exact_baseline(y: np.ndarray, power: float) -> float:
    """The deviance of ``y`` around its mean, in 60-digit decimal arithmetic."""
    getcontext().prec = 60
    ys = [Decimal(float(v)) for v in y]
    mu, p = sum(ys) / len(ys), Decimal(power)

    def unit(x: Decimal) -> Decimal:
        if power == 0:
            return (x - mu) ** 2
        if power == 1:
            return 2 * (x * (x / mu).ln() - x + mu)
        if power == 2:
            return 2 * ((mu / x).ln() + x / mu - 1)
        return 2 * (
            x ** (2 - p) / ((1 - p) * (2 - p))
            - x * mu ** (1 - p) / (1 - p)
            + mu ** (2 - p) / (2 - p)
        )

    return float(sum(unit(x) for x in ys))


@pytest.mark.parametrize("power", [0.0, 1.0, 1.5, 2.0, 3.0, 7.0, -1.0, -3.5])
def test_d2_tweedie_keeps_precision_on_large_offsets_in_any_chunking(power: float) -> None:
    """Targets 1e6 + noise: the closed form of their deviance cancels, the state does not."""
    rng = np.random.default_rng(5)
    y = 1e6 + rng.normal(size=1_000) * 100
    p = y + rng.normal(size=1_000) * 50
    metric = D2Tweedie(power=power)
    whole = metric.summarize(y, p)
    state = _chunks(metric, y, p, None, [230, 460, 461, 700, 990])
    _close(state.baseline, whole.baseline, rtol=1e-12)
    _close(whole.baseline, [_exact_baseline(y, power)], rtol=1e-12)
    _close(metric.compute(state), metric.compute(whole), rtol=1e-12)
    # scikit-learn's closed form loses digits here: it agrees to its own precision
    _close(metric.compute(whole), skm.d2_tweedie_score(y, p, power=power), rtol=1e-6)


def test_states_of_different_settings_or_outputs_do_not_merge() -> None:
    y, p = [1.0, 2.0], [1.5, 2.5]
    with pytest.raises(StateMismatchError, match="term"):
        PinballLoss().merge(PinballLoss().summarize(y, p), PinballLoss(alpha=0.9).summarize(y, p))
    with pytest.raises(StateMismatchError, match="term"):
        D2Pinball().merge(D2Pinball().summarize(y, p), D2Pinball(alpha=0.9).summarize(y, p))
    with pytest.raises(StateMismatchError, match="power"):
        D2Tweedie().merge(D2Tweedie().summarize(y, p), D2Tweedie(power=1).summarize(y, p))
    with pytest.raises(StateMismatchError, match="term"):
        TweedieDeviance().merge(
            TweedieDeviance().summarize(y, p), PoissonDeviance().summarize(y, p)
        )
    for metric in (D2Pinball(), D2Tweedie(), PinballLoss(), GammaDeviance()):
        a = metric.summarize([[1.0, 2.0]], [[1.0, 2.0]])
        with pytest.raises(StateMismatchError, match="numbers of outputs"):
            metric.merge(a, metric.summarize([1.0], [2.0]))


def test_related_metrics_share_their_states() -> None:
    y, p = np.array([1.0, 3.0, 0.0, 2.0]), np.array([1.5, 2.0, 0.5, 2.0])
    s = PoissonDeviance().summarize(y, p)
    assert TweedieDeviance(power=1).compute(s) == PoissonDeviance().compute(s)
    s = D2AbsoluteError().summarize(y, p)
    assert D2Pinball().compute(s) == D2AbsoluteError().compute(s)
    merged = D2Pinball().merge(s, D2AbsoluteError().summarize(y, p))
    assert merged.count == 8


# the exact quantile ---------------------------------------------------------------------


def _sk_quantile(values: np.ndarray, weights: np.ndarray | None, alpha: float) -> float:
    from sklearn.utils.stats import _weighted_percentile

    w = np.ones(len(values)) if weights is None else weights
    return float(_weighted_percentile(values, w, percentile_rank=alpha * 100, average=True))


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 30),
    alpha=st.one_of(st.sampled_from(ALPHAS), st.floats(0, 1)),
    wkind=st.integers(0, 3),
)
def test_averaged_quantile_is_sklearns(seed: int, n: int, alpha: float, wkind: int) -> None:
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 5, n).astype(float) if wkind == 3 else rng.normal(size=n)
    weights = _weights(seed, n, min(wkind, 2))
    if wkind == 3:
        weights = rng.integers(0, 3, n).astype(float)
        weights[rng.integers(0, n)] = 1.0
    assert averaged_quantile(values, weights, alpha) == _sk_quantile(values, weights, alpha)


@pytest.mark.parametrize("n", [2 * BLOCK + 1, 100_003])
def test_multi_block_inputs_agree_with_sklearn(n: int) -> None:
    rng = np.random.default_rng(3)
    y, p, w = rng.gamma(2.0, size=n), rng.gamma(2.0, size=n), rng.random(n)
    for weights in (None, w):
        _close(
            d2_pinball(y, p, alpha=0.3, sample_weight=weights),
            skm.d2_pinball_score(y, p, alpha=0.3, sample_weight=weights),
            rtol=1e-11,
        )
        _close(
            d2_tweedie(y, p, power=1.5, sample_weight=weights),
            skm.d2_tweedie_score(y, p, power=1.5, sample_weight=weights),
            rtol=1e-11,
        )
        _close(
            gamma_deviance(y, p, sample_weight=weights),
            skm.mean_gamma_deviance(y, p, sample_weight=weights),
            rtol=1e-11,
        )


# edge cases -----------------------------------------------------------------------------

D2_FUNCTIONS = [
    (d2_pinball, skm.d2_pinball_score),
    (d2_absolute_error, skm.d2_absolute_error_score),
    (d2_tweedie, skm.d2_tweedie_score),
]


@pytest.mark.parametrize(("ours", "ref"), D2_FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("k", [0, 2])
def test_one_sample_is_nan_with_a_warning_as_sklearn(ours: Any, ref: Any, k: int) -> None:
    y, p = ([2.0], [3.0]) if k == 0 else ([[2.0, 1.0]], [[3.0, 1.0]])
    if ours is d2_tweedie and k:
        y, p = [2.0], [3.0]
    with pytest.warns(UndefinedMetricWarning, match="fewer than two samples"):
        got = ours(y, p)
    with pytest.warns(Warning):
        want = ref(y, p)
    assert math.isnan(got) and math.isnan(want)


@pytest.mark.parametrize("alpha", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("exact", [True, False])
def test_d2_pinball_of_constant_targets_is_sklearns_value_with_a_warning(
    alpha: float, exact: bool
) -> None:
    y = [2.0, 2.0, 2.0]
    p = y if exact else [2.0, 3.0, 1.0]
    with pytest.warns(UndefinedMetricWarning, match="is 0"):
        got = d2_pinball(y, p, alpha=alpha)
    assert got == skm.d2_pinball_score(y, p, alpha=alpha) == (1.0 if exact else 0.0)


@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_d2_pinball_at_the_ends_of_alpha_is_sklearns(alpha: float) -> None:
    y, p = [1.0, 2.0, 3.0, 5.0], [2.0, 2.0, 2.5, 4.0]
    with pytest.warns(UndefinedMetricWarning):
        got = d2_pinball(y, p, alpha=alpha)
    assert got == skm.d2_pinball_score(y, p, alpha=alpha)


@pytest.mark.parametrize("power", [0.0, 1.0, 1.5, 2.0, 3.0])
def test_d2_tweedie_constant_targets(power: float) -> None:
    """1.0 for exact predictions, else 0.0, with a warning; scikit-learn divides by zero."""
    y = np.full(5, 0.1)  # its rounded mean is not 0.1: the state still knows it is constant
    with pytest.raises(ZeroDivisionError):
        skm.d2_tweedie_score(np.full(3, 2.0), np.full(3, 2.0), power=power)
    with pytest.warns(UndefinedMetricWarning, match="constant"):
        assert d2_tweedie(y, [0.1, 0.2, 0.1, 0.3, 0.1], power=power) == 0.0
    with pytest.warns(UndefinedMetricWarning, match="constant"):
        assert d2_tweedie(np.full(3, 2.0), np.full(3, 2.0), power=power) == 1.0
    metric = D2Tweedie(power=power)
    state = reduce(metric.merge, [metric.summarize(y[i : i + 2], y[i : i + 2]) for i in (0, 2, 4)])
    assert state.baseline[0] == 0.0
    with pytest.warns(UndefinedMetricWarning, match="constant"):
        assert metric.compute(state) in (0.0, 1.0)


def test_zero_weights_are_left_out_of_the_quantile_and_the_mean() -> None:
    y, p = np.array([1.0, 2.0, 3.0, 100.0]), np.array([1.5, 2.0, 2.0, 1.0])
    w = np.array([1.0, 1.0, 1.0, 0.0])
    for ours, ref in D2_FUNCTIONS:
        _close(ours(y, p, sample_weight=w), ref(y, p, sample_weight=w))
        _close(ours(y, p, sample_weight=w), ours(y[:3], p[:3]))
    # the targets of positive weight are constant: a zero-weight outlier does not count
    with pytest.warns(UndefinedMetricWarning, match="constant"):
        assert d2_tweedie([2.0, 2.0, 7.0], [2.0, 2.0, 1.0], sample_weight=[1, 1, 0]) == 1.0


def test_poisson_deviance_of_zero_targets_counts_zero_log_zero_as_zero() -> None:
    y, p = [0.0, 0.0, 3.0], [0.5, 2.0, 3.0]
    assert poisson_deviance(y, p) == pytest.approx(2 * (0.5 + 2.0) / 3, rel=1e-15)
    _close(poisson_deviance(y, p), skm.mean_poisson_deviance(y, p))


def test_worked_values() -> None:
    assert pinball_loss([1, 2, 3], [0, 2, 3], alpha=0.9) == pytest.approx(0.3, rel=1e-15)
    assert pinball_loss([1, 2, 3], [2, 3, 4], alpha=0.9) == pytest.approx(0.1, rel=1e-15)
    assert gamma_deviance([2.0, 4.0], [2.0, 4.0]) == 0.0
    # the Gamma deviance is scale-free
    _close(gamma_deviance([2.0, 5.0], [3.0, 4.0]), gamma_deviance([2e6, 5e6], [3e6, 4e6]))
    assert tweedie_deviance([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]) == 0.375
    assert d2_absolute_error([1, 2, 3], [1, 2, 3]) == 1.0
    assert d2_pinball([1, 2, 3], [1, 3, 3]) == 0.5


def test_names_aliases_and_options() -> None:
    assert parse_metric("mean_pinball_loss").name == "pinball_loss"
    assert parse_metric("pinball_loss:alpha=0.9").alpha == 0.9
    assert parse_metric("mean_tweedie_deviance:power=1.5").power == 1.5
    assert parse_metric("mean_poisson_deviance").name == "poisson_deviance"
    assert parse_metric("mean_gamma_deviance").name == "gamma_deviance"
    assert parse_metric("d2_absolute_error_score").name == "d2_absolute_error"
    assert parse_metric("d2_pinball_score:alpha=0.1").alpha == 0.1
    assert parse_metric("d2_tweedie_score:power=2").power == 2.0
    assert parse_metric("d2_tweedie:raw_values").multioutput == "raw_values"
    assert parse_metric("tweedie_deviance:power=1").inputs == "regression_positive"
    assert parse_metric("tweedie_deviance").inputs == "regression"


# errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize("power", [0.5, 0.01, 0.999])
@pytest.mark.parametrize("cls", [TweedieDeviance, D2Tweedie])
def test_power_between_zero_and_one_is_a_config_error(cls: Any, power: float) -> None:
    with pytest.raises(ConfigError, match=rf"power in \(0, 1\); got {power}") as info:
        cls(power=power)
    assert cls(power=0).power == 0.0
    assert ">= 1" in str(info.value) and cls.__name__ != "" and "<= 0" in str(info.value)


@pytest.mark.parametrize("value", [math.nan, math.inf, "1", None, True])
def test_bad_power_and_alpha_values(value: Any) -> None:
    with pytest.raises(ConfigError, match="tweedie_deviance: invalid power"):
        TweedieDeviance(power=value)
    with pytest.raises(ConfigError, match="pinball_loss: invalid alpha"):
        PinballLoss(alpha=value)


@pytest.mark.parametrize("alpha", [-0.1, 1.5])
def test_alpha_outside_zero_one(alpha: float) -> None:
    for fn in (pinball_loss, d2_pinball):
        with pytest.raises(
            ConfigError, match=r"invalid alpha; got .*, expected a number in \[0, 1\]"
        ):
            fn([1.0, 2.0], [1.0, 2.0], alpha=alpha)


DOMAIN = [
    # (power, y_true, y_pred, the input named, the value, the domain)
    (
        -1.0,
        [-1.0, 2.0],
        [1.0, 0.0],
        "y_pred",
        "0.0 at index 1",
        "y_pred > 0 (y_true any real number)",
    ),
    (1.0, [-1.0, 2.0], [1.0, 1.0], "y_true", "-1.0 at index 0", "y_true >= 0 and y_pred > 0"),
    (1.0, [1.0, 2.0], [1.0, -3.0], "y_pred", "-3.0 at index 1", "y_true >= 0 and y_pred > 0"),
    (1.5, [0.0, -2.0], [1.0, 1.0], "y_true", "-2.0 at index 1", "y_true >= 0 and y_pred > 0"),
    (2.0, [0.0, 2.0], [1.0, 1.0], "y_true", "0.0 at index 0", "y_true > 0 and y_pred > 0"),
    (3.0, [1.0, 2.0], [1.0, 0.0], "y_pred", "0.0 at index 1", "y_true > 0 and y_pred > 0"),
]


@pytest.mark.parametrize(("power", "y", "p", "name", "value", "rule"), DOMAIN)
def test_domain_errors_name_the_metric_value_and_domain(
    power: float, y: list[float], p: list[float], name: str, value: str, rule: str
) -> None:
    with pytest.raises(ValueError):
        skm.mean_tweedie_deviance(y, p, power=power)
    calls: list[tuple[str, Callable[[], Any]]] = [
        ("tweedie_deviance", lambda: tweedie_deviance(y, p, power=power)),
        ("d2_tweedie", lambda: d2_tweedie(y, p, power=power)),
    ]
    if power == 1:
        calls.append(("poisson_deviance", lambda: poisson_deviance(y, p)))
    if power == 2:
        calls.append(("gamma_deviance", lambda: gamma_deviance(y, p)))
    for metric, call in calls:
        with pytest.raises(InputError) as info:
            call()
        text = str(info.value)
        assert text.startswith(f"{metric}: {name} contains a value"), text
        assert f"power={power!r}" in text and f"got {value}" in text
        assert text.endswith(f"expected {rule}."), text


def test_domain_error_of_a_later_column_names_row_and_column() -> None:
    y = np.ones((4, 2))
    y[2, 1] = -1.0
    with pytest.raises(InputError, match=r"got -1.0 at row 2, column 1"):
        poisson_deviance(y, np.ones((4, 2)))


@pytest.mark.parametrize(
    "fn",
    [pinball_loss, tweedie_deviance, d2_pinball, d2_absolute_error, d2_tweedie, gamma_deviance],
)
def test_empty_non_finite_and_zero_weights_are_input_errors(fn: Any) -> None:
    with pytest.raises(InputError, match="empty input"):
        fn([], [])
    for bad in (math.nan, math.inf):
        with pytest.raises(InputError, match="y_pred"):
            fn([1.0, 2.0], [1.0, bad])
        with pytest.raises(InputError, match="y_true"):
            fn([bad, 2.0], [1.0, 2.0], sample_weight=[0.0, 1.0])
    with pytest.raises(InputError, match="all sample weights are 0"):
        fn([1.0, 2.0], [1.0, 2.0], sample_weight=[0.0, 0.0])
    with pytest.raises(InputError, match="differ in length"):
        fn([1.0, 2.0], [1.0])


def test_inputs_are_not_mutated_and_the_state_holds_no_view_of_them() -> None:
    y, p = np.array([1.0, 2.0, 4.0]), np.array([1.5, 2.0, 3.0])
    state = D2Pinball().summarize(y, p)
    y[0] = 99.0
    assert state.targets[0, 0] == 1.0
    yc, pc = y.copy(), p.copy()
    for fn in (d2_tweedie, gamma_deviance, pinball_loss):
        fn(y, p)
    np.testing.assert_array_equal(y, yc)
    np.testing.assert_array_equal(p, pc)


# the command line -----------------------------------------------------------------------


def test_eval_reaches_every_new_metric_chunked_and_by_group(capsys: Any) -> None:
    import pandas as pd

    df = pd.read_csv(HOUSES)
    y, p = df["price"].to_numpy(float), df["pred_price"].to_numpy(float)
    specs = {
        "mean_pinball_loss:alpha=0.9": lambda a, b: skm.mean_pinball_loss(a, b, alpha=0.9),
        "poisson_deviance": skm.mean_poisson_deviance,
        "gamma_deviance": skm.mean_gamma_deviance,
        "tweedie_deviance:power=3": lambda a, b: skm.mean_tweedie_deviance(a, b, power=3),
        "d2_absolute_error": skm.d2_absolute_error_score,
        "d2_pinball:alpha=0.25": lambda a, b: skm.d2_pinball_score(a, b, alpha=0.25),
        "d2_tweedie:power=1.5": lambda a, b: skm.d2_tweedie_score(a, b, power=1.5),
    }
    argv = ["eval", str(HOUSES), "--task", "regression", "--true", "price", "--pred", "pred_price"]
    code = main([*argv, "--metric", *specs, "--chunk-size", "37", "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0
    values = json.loads(out)
    for spec, ref in specs.items():
        _close(values[spec], ref(y, p), rtol=1e-10)
    code = main([*argv, "--metric", "d2_tweedie:power=2", "--by", "rooms", "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0
    result = json.loads(out)["d2_tweedie:power=2"]
    for group in result["groups"]:
        rows = (df["rooms"] == group["rooms"]).to_numpy()
        if rows.sum() > 1:
            _close(group["value"], skm.d2_tweedie_score(y[rows], p[rows], power=2), rtol=1e-10)


@pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.float32])
@pytest.mark.parametrize("weighted", [False, True])
def test_narrow_dtypes_equal_their_float64_values(dtype: Any, weighted: bool) -> None:
    rng = np.random.default_rng(8)
    y, p = rng.integers(1, 50, 300).astype(dtype), rng.integers(1, 50, 300).astype(dtype)
    w = rng.random(300) * (rng.random(300) < 0.8) if weighted else None
    calls: list[Callable[..., Any]] = [
        lambda a, b: d2_tweedie(a, b, power=1.5, sample_weight=w),
        lambda a, b: d2_tweedie(a, b, sample_weight=w),
        lambda a, b: d2_pinball(a, b, alpha=0.3, sample_weight=w),
        lambda a, b: pinball_loss(a, b, alpha=0.7, sample_weight=w),
        lambda a, b: gamma_deviance(a, b, sample_weight=w),
        lambda a, b: tweedie_deviance(a, b, power=-1, sample_weight=w),
    ]
    for call in calls:
        assert call(y, p) == call(y.astype(np.float64), p.astype(np.float64))
