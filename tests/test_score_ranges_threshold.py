"""The best threshold and the ROC / PR curve metrics with ``ranges=`` / ``cuts=``: the state is
split by score ranges, read one range at a time, and the result is that of the joined histogram
and of the metric without ranges, bit for bit, warnings and errors included."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit
from scorekit.classification import (
    BestThreshold,
    PRCurveMetric,
    ROCCurveMetric,
    ScoreRanges,
    best_threshold,
    pr_curve,
    roc_curve,
)
from scorekit.cli import main
from scorekit.core import parse_metric
from scorekit.errors import ConfigError, InputError, UndefinedMetricWarning

_OBJECTIVES = ("f1", "youden", "cost")


def _caught(fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, list[str]]:
    """The result (or the error's type and message) and the UndefinedMetricWarnings."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            out = fn(*args, **kwargs)
        except (InputError, ConfigError) as exc:
            out = (type(exc).__name__, str(exc))
    return out, [str(w.message) for w in seen if issubclass(w.category, UndefinedMetricWarning)]


def _same(a: Any, b: Any) -> bool:
    """Equal field for field (both nan counts as equal), arrays element for element."""
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and np.array_equal(a, b, equal_nan=True)
        )
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def _data(rng: np.random.Generator, n: int, classes: int, kind: str, weights: str) -> tuple:
    y = rng.integers(0, classes, n)
    if kind == "few":
        s: Any = rng.choice(np.array([0.0, 0.1, 0.25, 0.5, 0.75, 1.0]), n)
    elif kind == "rounded":
        s = np.round(rng.random(n), 1)
    else:
        s = rng.random(n)
    if rng.random() < 0.4:
        s = np.asarray(s, dtype=np.float32)
    if weights == "int":
        w: Any = rng.integers(0, 4, n)
    elif weights == "float":
        w = rng.random(n) * (rng.random(n) > 0.15) * 10.0 ** rng.integers(-3, 4, n)
    elif weights == "huge":
        # sums past float64: infinite counts, nan objective values, the overflow error
        w = rng.random(n) * 10.0 ** rng.integers(300, 309, n)
    else:
        w = None
    return y, s, w


def _cuts(rng: np.random.Generator, s: Any) -> tuple[float, ...]:
    """Cut points: some at scores, some outside the scores' range, some anywhere."""
    pool = [-0.5, 1.5, *rng.random(3).tolist()]
    if len(s):
        pool += np.asarray(s, dtype=np.float64)[rng.integers(0, len(s), 3)].tolist()
    k = int(rng.integers(1, 6))
    return tuple(np.unique(rng.choice(np.asarray(pool), k)).tolist())


def _plan(rng: np.random.Generator, n: int, chunks: int) -> tuple[Any, Any, bool]:
    """Where the chunks end, the order they merge in, and whether in one merge_many."""
    return np.sort(rng.integers(0, n + 1, chunks - 1)), rng.permutation(chunks), rng.random() < 0.5


def _merged(metric: Any, y: Any, s: Any, w: Any, plan: tuple[Any, Any, bool]) -> Any:
    bounds, order, at_once = plan
    parts = [np.split(np.asarray(a), bounds) for a in (y, s)]
    ws = [None] * len(order) if w is None else np.split(np.asarray(w), bounds)
    states = [metric.summarize(a, b, c) for a, b, c in zip(*parts, ws, strict=True)]
    if at_once:
        return metric.merge_many([states[i] for i in order])
    state = metric.empty()
    for i in order:
        state = metric.merge(state, states[i])
    return state


def _check(ranged: Any, exact: Any, y: Any, s: Any, w: Any, plan: tuple[Any, Any, bool]) -> None:
    """The ranged result is the joined histogram's and the exact metric's on the same chunks;
    the exact metric's on the whole data too, but for float weights summed in other orders."""
    state, _ = _caught(_merged, ranged, y, s, w, plan)
    exact_state, _ = _caught(_merged, exact, y, s, w, plan)
    if not isinstance(state, ScoreRanges):
        # a chunk whose weights sum past float64 is refused as it is summarized
        assert state == exact_state and state[0] == "InputError"
        return
    got = _caught(ranged.compute, state)
    joined = _caught(exact.compute, state.join())
    assert _same(got, joined), (got, joined)
    chunked = _caught(exact.compute, exact_state)
    assert _same(got, chunked), (got, chunked)
    whole = w is None or np.asarray(w).dtype.kind in "iu"
    if whole or (len(plan[1]) == 1 and np.isfinite(np.sum(w))):
        direct = _caught(exact.score, y, s, sample_weight=w)
        assert _same(got, direct), (got, direct)


def _pos_labels(rng: np.random.Generator) -> list[Any]:
    return [None, 0, 1, int(rng.integers(2, 9))]


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 120),
    classes=st.sampled_from([1, 2, 2, 2, 3]),
    kind=st.sampled_from(["few", "rounded", "continuous"]),
    weights=st.sampled_from(["none", "int", "float", "float", "huge"]),
    chunks=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
)
def test_ranged_best_threshold_is_the_joined_and_the_exact_choice(
    n: int, classes: int, kind: str, weights: str, chunks: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    y, s, w = _data(rng, n, classes, kind, weights)
    cuts = _cuts(rng, s)
    for objective in _OBJECTIVES:
        costs = {"cost_fp": float(rng.random() * 3), "cost_fn": float(rng.random() * 3)}
        for pos_label in _pos_labels(rng):
            options = {"objective": objective, "pos_label": pos_label, **costs}
            exact = BestThreshold(**options)
            for ranged in (BestThreshold(**options, cuts=cuts), BestThreshold(**options, ranges=7)):
                _check(ranged, exact, y, s, w, _plan(rng, n, chunks))


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 120),
    classes=st.sampled_from([1, 2, 2, 3]),
    kind=st.sampled_from(["few", "rounded", "continuous"]),
    weights=st.sampled_from(["none", "int", "float", "float", "huge"]),
    chunks=st.integers(1, 4),
    drop=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_ranged_curves_are_the_joined_and_the_exact_curves(
    n: int, classes: int, kind: str, weights: str, chunks: int, drop: bool, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    y, s, w = _data(rng, n, classes, kind, weights)
    cuts = _cuts(rng, s)
    for cls in (ROCCurveMetric, PRCurveMetric):
        for pos_label in _pos_labels(rng):
            exact = cls(pos_label=pos_label, drop_intermediate=drop)
            ranged = cls(pos_label=pos_label, drop_intermediate=drop, cuts=cuts)
            _check(ranged, exact, y, s, w, _plan(rng, n, chunks))


def test_ties_at_the_cut_points_and_in_the_objective() -> None:
    # every score is a cut point; F1 ties between 0.5 and 0.25 go to the higher threshold
    y, s = [1, 0, 1, 0, 1, 0], [0.75, 0.75, 0.5, 0.25, 0.25, 0.0]
    for objective in _OBJECTIVES:
        want = best_threshold(y, s, objective=objective)
        assert best_threshold(y, s, objective=objective, cuts=[0.0, 0.25, 0.5, 0.75]) == want
        assert best_threshold(y, s, objective=objective, ranges=4) == want
    assert roc_curve(y, s, cuts=[0.25, 0.75]).tpr.tolist() == roc_curve(y, s).tpr.tolist()
    assert pr_curve(y, s, ranges=2).precision.tolist() == pr_curve(y, s).precision.tolist()


def test_edge_cases_match_the_joined_histogram() -> None:
    cases: list[tuple[Any, Any, Any]] = [
        ([1, 1, 1], [0.2, 0.7, 0.7], None),  # one class: no negative sample
        ([0, 0], [0.3, 0.9], None),  # no positive sample
        ([1], [0.4], None),  # one row
        ([0, 1, 1, 0], [0.6, 0.65, 0.7, 0.7], None),  # all scores in one range
        ([0, 1, 1, 0], [0.1, 0.8, 0.4, 0.4], [1.0, 0.0, 2.0, 0.0]),  # zero weights
        ([0, 1, 1, 0], [0.1, 0.8, 0.4, 0.4], [0, 0, 0, 0]),  # every weight zero
        ([], [], None),  # empty input
    ]
    for y, s, w in cases:
        for objective in _OBJECTIVES:
            exact = BestThreshold(objective=objective)
            ranged = BestThreshold(objective=objective, cuts=(0.5, 0.75))
            state = ranged.summarize(y, s, w)
            got = _caught(ranged.compute, state)
            assert _same(got, _caught(exact.compute, state.join()))
            assert _same(got, _caught(exact.score, y, s, sample_weight=w))
    got, warned = _caught(BestThreshold(ranges=3).score, [1, 1], [0.2, 0.7])
    assert warned == ["best_threshold: y_true has no negative sample; rates over them count 0."]
    assert (got.threshold, got.f1, got.specificity) == (0.2, 1.0, 0.0)
    with pytest.raises(InputError, match="empty input"):
        BestThreshold(ranges=3).score([], [])
    with pytest.raises(InputError, match="every sample has zero weight"):
        BestThreshold(ranges=3).score([0, 1], [0.2, 0.7], sample_weight=[0, 0])


def test_errors_are_those_of_the_exact_metric() -> None:
    ranged = BestThreshold(ranges=4, pos_label=5)
    with pytest.raises(InputError, match="pos_label is not a label of y_true"):
        ranged.score([0, 1], [0.2, 0.7])
    with pytest.raises(InputError, match="pos_label is needed"):
        BestThreshold(cuts=(0.5,)).score(["a", "b"], [0.2, 0.7])
    huge = [1e308, 1e308, 1e308]
    for objective in _OBJECTIVES:
        for options in ({}, {"cuts": (0.5,)}, {"ranges": 2, "cost_fp": 0.0}):
            metric = BestThreshold(objective=objective, **options)  # type: ignore[arg-type]
            with pytest.raises(InputError, match="weights overflow"):
                metric.score([1, 1, 0], [0.9, 0.8, 0.1], sample_weight=huge)
    for metric in (BestThreshold(ranges=4), ROCCurveMetric(ranges=4), PRCurveMetric(cuts=(0.5,))):
        with pytest.raises(InputError, match="score ranges take 1-D binary scores only"):
            metric.summarize([0, 1], [[0.8, 0.2], [0.3, 0.7]])
    with pytest.raises(ConfigError, match="exclude each other"):
        BestThreshold(ranges=4, cuts=(0.5,))
    with pytest.raises(ConfigError, match="ranges must be a positive integer"):
        ROCCurveMetric(ranges=0)
    with pytest.raises(ConfigError, match="cuts must increase strictly"):
        PRCurveMetric(cuts=(0.5, 0.2))
    with pytest.raises(ConfigError, match="cuts must be finite"):
        best_threshold([0, 1], [0.2, 0.7], cuts=[math.inf])


def test_metric_strings_and_functions_reach_the_ranges() -> None:
    metric = parse_metric("best_threshold:youden,ranges=16")
    assert isinstance(metric, BestThreshold) and metric.objective == "youden"
    assert metric.cuts is not None and len(metric.cuts) == 15 and metric.ranges is None
    assert parse_metric("roc_curve:ranges=4") == ROCCurveMetric(cuts=(0.25, 0.5, 0.75))
    assert parse_metric("pr_curve:ranges=2,pos_label=0") == PRCurveMetric(pos_label=0, ranges=2)
    assert isinstance(metric.empty(), ScoreRanges)
    assert not isinstance(BestThreshold().empty(), ScoreRanges)
    rng = np.random.default_rng(3)
    y, s = rng.integers(0, 2, 300), np.round(rng.random(300), 2)
    assert best_threshold(y, s, cuts=[0.2, 0.5]) == best_threshold(y, s)
    state = metric.summarize(y, s)
    back = ScoreRanges.from_json(state.to_json())
    assert metric.compute(back) == best_threshold(y, s, objective="youden")


def test_evaluate_and_the_cli_fold_the_ranges(tmp_path: Path, capsys: Any) -> None:
    rng = np.random.default_rng(11)
    n = 2_000
    y = (rng.random(n) < 0.35).astype(int)
    s = np.round(rng.random(n), 2)
    names = ["best_threshold:ranges=4", "best_threshold", "roc_curve:ranges=8", "roc_curve"]
    table = {"y_true": y, "y_score": s}
    values = scorekit.evaluate(table, names, engine="stream", chunk_size=300)
    assert values["best_threshold:ranges=4"] == values["best_threshold"] == best_threshold(y, s)
    assert _same(tuple(values["roc_curve:ranges=8"]), tuple(roc_curve(y, s)))
    path = tmp_path / "d.csv"
    path.write_text("y,s\n" + "".join(f"{a},{b}\n" for a, b in zip(y, s, strict=True)))
    argv = ["eval", str(path), "--task", "binary", "--true", "y", "--score", "s"]
    argv += ["--metric", "best_threshold:cost,ranges=4", "--metric", "best_threshold:cost"]
    for extra in ([], ["--chunk-size", "250"], ["--engine", "stream", "--chunk-size", "700"]):
        assert main([*argv, "--format", "json", *extra]) == 0
        got = json.loads(capsys.readouterr().out)
        assert got["best_threshold:cost,ranges=4"] == got["best_threshold:cost"]
        assert tuple(got["best_threshold:cost"]) == best_threshold(y, s, objective="cost")
