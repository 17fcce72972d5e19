"""Binned ROC AUC and average precision: fixed-size states with a guaranteed error bound."""

from __future__ import annotations

import itertools
import json
import math
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, roc_auc_score

from scorekit import Estimate, State, parse_metric
from scorekit.classification import (
    ROCAUC,
    AveragePrecision,
    BinnedScores,
    average_precision,
    quantile_edges,
    roc_auc,
)
from scorekit.errors import ConfigError, InputError, StateMismatchError, UndefinedMetricWarning

TOL = 1e-12


@st.composite
def binary_data(draw: Any, weighted: bool = False) -> tuple[Any, Any, Any]:
    """Labels with both classes, scores on a grid (ties likely) or continuous, weights."""
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.integers(2, 80))
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    style = draw(st.integers(0, 2))
    if style == 0:
        s = rng.random(n)
    elif style == 1:
        s = rng.integers(0, 6, n) / 5
    else:
        s = rng.normal(0.5, 0.6, n)  # many scores outside (0, 1)
    w = None
    if weighted:
        w = rng.integers(0, 4, n).astype(np.float64) * draw(st.sampled_from([1.0, 0.37]))
        w[:2] = 1.0
    return y, s, w


# the bound holds -------------------------------------------------------------------------


@settings(max_examples=40)
@given(data=binary_data(), bins=st.integers(1, 12))
def test_exact_auc_and_ap_lie_within_the_bound(data: tuple[Any, Any, Any], bins: int) -> None:
    y, s, _ = data
    for fn, reference in ((roc_auc, roc_auc_score), (average_precision, average_precision_score)):
        value, bound = fn(y, s, bins=bins)
        exact = reference(y, s)
        assert bound >= 0
        assert value - bound - TOL <= exact <= value + bound + TOL, fn.__name__


@settings(max_examples=30)
@given(data=binary_data(weighted=True), bins=st.integers(1, 12))
def test_bound_holds_with_sample_weights(data: tuple[Any, Any, Any], bins: int) -> None:
    y, s, w = data
    for fn, reference in ((roc_auc, roc_auc_score), (average_precision, average_precision_score)):
        value, bound = fn(y, s, bins=bins, score_range=(-1, 2), sample_weight=w)
        exact = reference(y, s, sample_weight=w)
        assert value - bound - 1e-9 <= exact <= value + bound + 1e-9, fn.__name__


@settings(max_examples=30)
@given(data=binary_data(weighted=True), weighted=st.booleans())
def test_edges_at_every_distinct_score_are_exact(
    data: tuple[Any, Any, Any], weighted: bool
) -> None:
    y, s, w = data
    w = w if weighted else None
    distinct = np.unique(s)
    edges = np.append(distinct, distinct[-1] + 1)  # bin i holds exactly distinct[i]
    for fn, reference in ((roc_auc, roc_auc_score), (average_precision, average_precision_score)):
        value, bound = fn(y, s, edges=edges, sample_weight=w)
        assert bound == 0.0
        assert value == pytest.approx(reference(y, s, sample_weight=w), abs=TOL)


@settings(max_examples=40)
@given(data=binary_data(weighted=True), cuts=st.lists(st.integers(0, 80), max_size=3))
def test_split_and_merge_in_any_order_equal_one_batch(
    data: tuple[Any, Any, Any], cuts: list[int]
) -> None:
    y, s, w = data
    bounds = [0, *sorted(c % (len(y) + 1) for c in cuts), len(y)]
    parts = [slice(a, b) for a, b in itertools.pairwise(bounds)]
    for metric in (ROCAUC(bins=7), AveragePrecision(edges=[-0.5, 0.1, 0.4, 0.45, 1.5])):
        whole = metric.summarize(y, s, sample_weight=w)
        states = [metric.summarize(y[p], s[p], sample_weight=w[p]) for p in parts]
        forward = metric.empty()
        for part in states:
            forward = metric.merge(forward, part)
        backward = metric.empty()
        for part in reversed(states):
            backward = metric.merge(part, backward)
        for merged in (forward, backward):
            assert isinstance(merged, BinnedScores)
            np.testing.assert_allclose(merged.counts, whole.counts, rtol=1e-12)
            np.testing.assert_array_equal(merged.low, whole.low)
            np.testing.assert_array_equal(merged.high, whole.high)
            np.testing.assert_allclose(metric.compute(merged), metric.compute(whole), rtol=1e-12)
        again = State.from_json(forward.to_json())
        assert again.equals(forward)


# hand-computed cases ---------------------------------------------------------------------


def test_auc_by_hand() -> None:
    # bins [0, .5) and [.5, 1]: (p, n) = (1, 2) and (1, 0); P = N = 2
    y, s = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]
    result = roc_auc(y, s, bins=2)
    assert isinstance(result, Estimate)
    # value = (1 * (0 + 2/2) + 1 * (2 + 0)) / 4; bound = 1/2 * (1 * 2) / 4
    assert result == (0.75, 0.25)
    # four bins: 0.35 and 0.4 share [.25, .5); the exact 0.75 is the lower end
    assert roc_auc(y, s, bins=4) == (0.875, 0.125)
    assert roc_auc_score(y, s) == 0.875 - 0.125


def test_average_precision_by_hand() -> None:
    y, s = [0, 1, 0, 1], [0.3, 0.8, 0.6, 0.4]
    # by decreasing score: bin [.5, 1] has p = n = 1 under nothing (a = c = 0);
    # bin [0, .5) has p = n = 1 under a = 1, c = 2.
    upper = (1 * 1 / 1 + 1 * 2 / 3) / 2
    lower = (1 / 2 + 2 / 4) / 2
    value, bound = average_precision(y, s, bins=2)
    assert value == pytest.approx((upper + lower) / 2, abs=TOL)
    assert bound == pytest.approx((upper - lower) / 2, abs=TOL)
    assert average_precision_score(y, s) == pytest.approx(upper)  # positives on top


def test_average_precision_lower_sum_by_hand() -> None:
    # one bin: 3 negatives and 2 positives in [0, 1]; upper = 2 * 2 / 2 = 1,
    # lower = 1/2 * (1/4 + 2/5); weighted lower = 1/2 * (2 - 3 ln(5/3))
    y, s = [0, 0, 0, 1, 1], [0.9, 0.8, 0.7, 0.2, 0.1]
    value, bound = average_precision(y, s, bins=1)
    assert (value - bound, value + bound) == pytest.approx((0.5 * (1 / 4 + 2 / 5), 1.0))
    assert value - bound == pytest.approx(average_precision_score(y, s))  # the worst order
    value, bound = average_precision(y, s, bins=1, sample_weight=[1.0] * 5)
    assert value - bound == pytest.approx(0.5 * (2 - 3 * math.log(5 / 3)))
    assert value + bound == pytest.approx(1.0)


def test_single_score_bins_are_ties_and_exact() -> None:
    # every sample in one bin but all at 0.5: one tie group, AUC 1/2 and AP 1/2 exactly
    y, s = [0, 1, 0, 1], [0.5, 0.5, 0.5, 0.5]
    assert roc_auc(y, s, bins=3) == (0.5, 0.0)
    assert average_precision(y, s, bins=3) == (0.5, 0.0)


def test_scores_outside_the_range_go_to_the_end_bins() -> None:
    s = np.array([-3.0, 0.0, 0.05, 0.5, 0.999, 1.0, 7.0])
    y = np.array([0, 1, 0, 1, 0, 1, 1])
    state = ROCAUC(bins=10).summarize(y, s)
    expected, _ = np.histogram(np.clip(s, 0, 1), bins=10, range=(0, 1))
    np.testing.assert_array_equal(state.counts.sum(axis=0), expected)
    assert state.low[0] == -3.0 and state.high[-1] == 7.0
    assert (state.outside, state.score_min, state.score_max) == (2, -3.0, 7.0)
    with pytest.warns(
        UserWarning, match=r"roc_auc: 2 of 7 scores lie outside the bin edges \[0, 1\]"
    ):
        ROCAUC(bins=10).compute(state)
    # the counts of chunks add up: the warning is the one of the whole data
    both = state.merge(ROCAUC(bins=10).summarize(y, s))
    with pytest.warns(UserWarning, match=r"roc_auc: 4 of 14 scores lie outside"):
        ROCAUC(bins=10).compute(both)
    with pytest.warns(UserWarning, match="got scores from -3 to 7, expected scores within"):
        value, bound = roc_auc(y, s, bins=10)
    assert value - bound <= roc_auc_score(y, s) <= value + bound


@pytest.mark.parametrize(("lo", "hi", "bins"), [(0, 1, 10), (0, 1, 1000), (-3.7, 11.1, 77)])
def test_equal_width_bins_agree_with_a_search_of_the_edges(lo: float, hi: float, bins: int) -> None:
    rng = np.random.default_rng(bins)
    edges = np.linspace(lo, hi, bins + 1)
    s = np.concatenate(
        [
            rng.uniform(lo - 1, hi + 1, 5_000),
            edges,
            np.nextafter(edges, -np.inf),
            np.nextafter(edges, np.inf),
        ]
    )
    state = ROCAUC(bins=bins, score_range=(lo, hi)).summarize(np.arange(s.size) % 2, s)
    idx = np.searchsorted(edges[1:-1], s, side="right")
    np.testing.assert_array_equal(state.counts.sum(axis=0), np.bincount(idx, minlength=bins))
    low = np.full(bins, np.inf)
    np.minimum.at(low, idx, s)
    np.testing.assert_array_equal(state.low, low)


def test_equal_width_bins_over_a_score_range() -> None:
    metric = ROCAUC(bins=4, score_range=(-2, 2))
    assert metric.edges == (-2.0, -1.0, 0.0, 1.0, 2.0)
    assert metric.bins is None and metric.score_range is None
    assert parse_metric("roc_auc", bins=4, score_range=(-2, 2)) == metric


def test_quantile_edges_tighten_the_bound() -> None:
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 20_000)
    s = rng.beta(0.3, 4.0, y.size) ** 2 + 0.05 * y  # crowded near 0
    edges = quantile_edges(s[:2_000], 20)
    assert edges.size == 21 and np.all(np.diff(edges) > 0)
    _, bound_equal = roc_auc(y, s, bins=20)
    value, bound_quantile = roc_auc(y, s, edges=edges)
    assert bound_quantile < bound_equal / 5
    assert abs(value - roc_auc_score(y, s)) <= bound_quantile


def test_quantile_edges_values() -> None:
    np.testing.assert_array_equal(quantile_edges([4, 1, 3, 2, 5], 2), [1.0, 3.0, 5.0])
    np.testing.assert_array_equal(quantile_edges([1, 1, 1, 2], 4), [1.0, 1.0 + 0.25, 2.0])
    single = quantile_edges([0.7, 0.7], 3)
    assert single.size == 2 and single[0] == 0.7 and single[1] > 0.7


def test_string_labels_and_pos_label_for_binned_ap() -> None:
    y = ["no", "yes", "no", "yes", "yes"]
    s = [0.1, 0.9, 0.4, 0.35, 0.6]
    exact = average_precision_score([t == "yes" for t in y], s)
    value, bound = average_precision(y, s, pos_label="yes", bins=5)
    assert value - bound <= exact <= value + bound
    with pytest.raises(InputError, match="pos_label is not a label"):
        average_precision(y, s, pos_label="maybe", bins=5)


def test_labels_minus_one_and_one() -> None:
    y, s = [-1, 1, -1, 1], [0.2, 0.7, 0.6, 0.9]
    assert roc_auc(y, s, edges=[0, 0.5, 0.65, 0.8, 1]) == (1.0, 0.0)


# undefined and empty -----------------------------------------------------------------------


def test_one_class_warns() -> None:
    with pytest.warns(UndefinedMetricWarning, match="only one class"):
        value, bound = roc_auc([1, 1], [0.2, 0.3], bins=4)
    assert math.isnan(value) and math.isnan(bound)
    with pytest.warns(UndefinedMetricWarning, match="no positive sample"):
        assert average_precision([0, 0], [0.2, 0.3], bins=4) == (0.0, 0.0)


def test_empty_and_zero_weight_input_raise() -> None:
    metric = ROCAUC(bins=3)
    with pytest.raises(InputError, match="empty input"):
        metric.compute(metric.empty())
    with pytest.raises(InputError, match="zero weight"):
        metric.score([0, 1], [0.1, 0.9], sample_weight=[0, 0])


def test_three_classes_raise() -> None:
    with pytest.raises(InputError, match="more than two classes"):
        roc_auc([0, 1, 2], [0.1, 0.5, 0.9], bins=3)


# bad configuration and input ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"bins": 0}, "invalid bins"),
        ({"bins": -3}, "invalid bins"),
        ({"bins": 2.5}, "invalid bins"),
        ({"bins": True}, "invalid bins"),
        ({"edges": [0, 0.5, 0.5, 1]}, "strictly increasing"),
        ({"edges": [0, 0.7, 0.3]}, "strictly increasing"),
        ({"edges": [0, float("nan"), 1]}, "finite"),
        ({"edges": [0.5]}, "at least 2"),
        ({"edges": [[0, 1], [2, 3]]}, "at least 2"),
        ({"edges": ["a", "b"]}, "must be numbers"),
        ({"bins": 3, "edges": [0, 1]}, "exclude each other"),
        ({"edges": [0, 1], "score_range": (0, 2)}, "score_range applies to bins"),
        ({"score_range": (0, 2)}, "score_range needs bins"),
        ({"bins": 3, "score_range": (1, 0)}, "invalid score_range"),
        ({"bins": 3, "score_range": (0, float("inf"))}, "invalid score_range"),
        ({"bins": 3, "score_range": 5}, "invalid score_range"),
    ],
)
def test_bad_bin_options(options: dict[str, Any], problem: str) -> None:
    for cls in (ROCAUC, AveragePrecision):
        with pytest.raises(ConfigError, match=problem):
            cls(**options)


def test_options_that_do_not_combine_with_bins() -> None:
    with pytest.raises(ConfigError, match="max_fpr"):
        ROCAUC(bins=10, max_fpr=0.5)
    with pytest.raises(ConfigError, match="1-D binary scores"):
        ROCAUC(bins=10, multi_class="ovr")
    with pytest.raises(ConfigError, match="1-D binary scores"):
        ROCAUC(bins=10, average="samples")
    with pytest.raises(ConfigError, match="step-wise AP"):
        AveragePrecision(bins=10, interpolation="11point")


def test_binned_metrics_take_binary_scores() -> None:
    for metric in (ROCAUC(bins=4, average="micro"), AveragePrecision(bins=4, average="weighted")):
        assert metric.inputs == "binary_scores"
    assert ROCAUC(average="micro").inputs == "multilabel_scores"


def test_nan_scores_and_2d_scores_raise() -> None:
    with pytest.raises(InputError, match="y_score contains nan"):
        roc_auc([0, 1], [0.1, float("nan")], bins=3)
    with pytest.raises(InputError, match="1-D scores"):
        average_precision([[0, 1], [1, 0]], [[0.1, 0.9], [0.8, 0.2]], bins=3)


def test_states_with_other_edges_do_not_merge() -> None:
    a = ROCAUC(bins=10).summarize([0, 1], [0.2, 0.8])
    b = ROCAUC(bins=20).summarize([0, 1], [0.2, 0.8])
    c = ROCAUC(edges=[0, 0.25, 0.5, 0.75, 1]).summarize([0, 1], [0.2, 0.8])
    d = ROCAUC(edges=[0, 0.25, 0.6, 0.75, 1]).summarize([0, 1], [0.2, 0.8])
    with pytest.raises(StateMismatchError, match=r"21 edges from 0\.0 to 1\.0.*11 edges"):
        a.merge(b)
    with pytest.raises(StateMismatchError, match=r"edge 2 = 0\.6, expected 0\.5"):
        c.merge(d)
    with pytest.raises(InputError, match="binned with other edges"):
        ROCAUC(bins=20).compute(a)
    with pytest.raises(StateMismatchError, match="different kinds"):
        a.merge(ROCAUC().summarize([0, 1], [0.2, 0.8]))


def test_state_is_fixed_size_and_round_trips() -> None:
    rng = np.random.default_rng(0)
    metric = AveragePrecision(bins=16)
    state = metric.summarize(rng.integers(0, 2, 50_000), rng.random(50_000))
    assert state.counts.shape == (2, 16) and state.counts.dtype == np.int64
    assert state.low.shape == state.high.shape == (16,)
    data = json.loads(state.to_json())
    again = State.from_dict(data)
    assert again.equals(state)
    assert metric.compute(again) == metric.compute(state)


# the command line ------------------------------------------------------------------------


def test_cli_shows_an_estimate_with_its_bound() -> None:
    from scorekit.cli._output import cell as _cell
    from scorekit.cli._output import plain as _plain

    assert _cell(Estimate(0.83123, 0.0004)) == ["0.8312 (± 0.0004)"]
    assert _cell(Estimate(0.83123, 1.2e-6)) == ["0.8312 (± 1.2e-06)"]
    assert _cell(Estimate(0.5, 0.0)) == ["0.5000 (± 0.0000)"]
    assert _plain(Estimate(0.75, 0.25)) == {"value": 0.75, "error_bound": 0.25}
    assert _plain(Estimate(math.nan, math.nan)) == {"value": None, "error_bound": None}
    per_column = Estimate(np.array([0.1, 0.2]), np.array([0.01, 0.02]))
    assert _cell(per_column) == ["[0.1 0.2]", "± [0.01 0.02]"]
    assert _plain(per_column) == {"value": [0.1, 0.2], "error_bound": [0.01, 0.02]}
    result = roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], bins=4)
    assert json.loads(json.dumps(_plain(result))) == {"value": 0.875, "error_bound": 0.125}


def test_cli_list_names_the_bounded_option(capsys: Any) -> None:
    from scorekit.cli import main

    assert main(["list", "--format", "json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["roc_auc"]["bounded"] == "bins=N"
    assert rows["average_precision"]["bounded"] == "bins=N"
    assert rows["medae"]["bounded"] == "relative_accuracy=A"
    assert rows["accuracy"]["bounded"] is None and rows["accuracy"]["grows"] is False
    assert main(["list"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line}
    assert "yes (bins=N)" in lines["roc_auc"]
    assert "yes (relative_accuracy=A)" in lines["medae"]
    assert " yes " in lines["roc_curve"] and "(" not in lines["roc_curve"].split("yes")[1][:3]


def test_a_few_scores_beyond_sample_quantile_edges_do_not_warn() -> None:
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 20_000)
    s = rng.random(20_000)
    edges = quantile_edges(s[:2_000], 50)
    outside = int(np.count_nonzero((s < edges[0]) | (s > edges[-1])))
    assert 0 < outside <= 200
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value, bound = roc_auc(y, s, edges=edges)
    assert value - bound <= roc_auc_score(y, s) <= value + bound
