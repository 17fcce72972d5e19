"""The score-range readers read the ranges only through ``core.scan``, as on a cluster.

A sequence whose ranges cannot be read here (indexing and iteration raise)
runs each step of a scan on pickled copies of the step, the carry and the
range, as a worker would, and the carries it ships back must stay small. Every
reader gives over it the values it gives over a tuple of the same ranges, bit
for bit, with the same warnings and the same errors.
"""

from __future__ import annotations

import math
import pickle
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import stats
from scorekit.classification import (
    ROCAUC,
    AveragePrecision,
    BestThreshold,
    PRCurveMetric,
    ROCCurveMetric,
    ScoreHistogram,
    ScoreRanges,
    ranges_delong,
    split_ranges,
    summarize_ranges,
)
from scorekit.classification._ranges_curves import OneVsRest
from scorekit.core import scan

_KIB = 1024


class ReadHere(AssertionError):
    """A range was read outside a scan."""


class Remote(Sequence[ScoreHistogram]):
    """Ranges kept elsewhere: each step of a scan runs on pickled copies, as on a worker."""

    def __init__(self, parts: Sequence[ScoreHistogram]) -> None:
        self._parts = tuple(parts)
        self.steps = 0
        self.scans = 0
        self.largest = 0

    def __len__(self) -> int:
        return len(self._parts)

    def __getitem__(self, i: Any) -> Any:
        raise ReadHere(f"range {i} read outside a scan")

    def __iter__(self) -> Iterator[ScoreHistogram]:
        raise ReadHere("the ranges iterated outside a scan")

    def scan(
        self, step: Callable[[Any, Any], Any], carry: Any, *, reverse: bool = False
    ) -> tuple[Any, list[Any]]:
        self.scans += 1
        outs = []
        shipped = pickle.dumps(step)
        for part in reversed(self._parts) if reverse else self._parts:
            sent = pickle.dumps(carry)
            self.largest = max(self.largest, len(sent))
            here = pickle.loads(shipped)
            carry, out = here(pickle.loads(sent), pickle.loads(pickle.dumps(part)))
            back = pickle.dumps(carry)
            self.largest = max(self.largest, len(back))
            carry = pickle.loads(back)
            outs.append(pickle.loads(pickle.dumps(out)))
            self.steps += 1
        return carry, outs


def _outcome(fn: Callable[[], Any]) -> tuple[Any, ...]:
    """``("ok", value, warnings)`` or ``("error", type, message)``."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            value = fn()
        except ReadHere:
            raise
        except Exception as error:  # the same error is expected of both sequences
            return ("error", type(error), str(error))
    return ("ok", value, [(w.category, str(w.message)) for w in seen])


def _same(a: Any, b: Any) -> bool:
    """Equal bit for bit: arrays of one dtype with nan where nan, floats of one sign."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and np.array_equal(a, b, equal_nan=True)
        )
    if isinstance(a, tuple | list):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(_same(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, float | np.floating):
        return (
            type(a) is type(b)
            and (a == b or (math.isnan(a) and math.isnan(b)))
            and math.copysign(1.0, a) == math.copysign(1.0, b)
        )
    return type(a) is type(b) and bool(a == b)


def _with(state: ScoreRanges, parts: Sequence[ScoreHistogram]) -> ScoreRanges:
    shell, _ = state.split_parts()
    return ScoreRanges.from_parts(shell, parts)


def _readers(
    max_fpr: float, pos_label: Any, objective: str, drop: bool
) -> dict[str, Callable[[ScoreRanges], Any]]:
    return {
        "roc_auc": ROCAUC().compute,
        "partial": ROCAUC(max_fpr=max_fpr).compute,
        "ap": AveragePrecision(pos_label=pos_label).compute,
        "roc_curve": ROCCurveMetric(pos_label=pos_label, drop_intermediate=drop).compute,
        "pr_curve": PRCurveMetric(pos_label=pos_label, drop_intermediate=drop).compute,
        "best": BestThreshold(objective=objective, pos_label=pos_label).compute,  # type: ignore[arg-type]
        "delong": lambda state: ranges_delong(state.parts, pos_label=pos_label),
        "interval": lambda state: stats.delong_interval(state, pos_label=pos_label),
    }


def _check_all(
    state: ScoreRanges, max_fpr: float, pos_label: Any, objective: str, drop: bool
) -> None:
    for name, reader in _readers(max_fpr, pos_label, objective, drop).items():
        remote = Remote(state.parts)
        here = _outcome(lambda r=reader: r(state))
        there = _outcome(lambda r=reader, p=remote: r(_with(state, p)))
        assert _same(there, here), (name, there, here)
        # every range read in a step of a scan (an error stops its scan), with a small carry
        if there[0] == "ok":
            assert remote.steps == remote.scans * len(state.parts), name
        else:
            assert remote.steps <= remote.scans * len(state.parts), name
        assert remote.largest < 64 * _KIB, (name, remote.largest)


def _data(
    rng: np.random.Generator, n: int, classes: int, style: str, weights: str
) -> tuple[Any, Any, Any]:
    y = rng.integers(0, classes, n)
    if style == "ties":
        s: Any = rng.choice(np.array([0.0, 0.1, 0.25, 0.5, 0.75, 1.0]), n)
    elif style == "rounded":
        s = np.round(rng.normal(0.5, 0.3, n), 1)
    else:
        s = rng.random(n)
    if rng.random() < 0.4:
        s = np.asarray(s, dtype=np.float32)
    if weights == "int":
        w: Any = rng.integers(0, 4, n)
    elif weights == "float":
        w = rng.random(n) * (rng.random(n) > 0.15) * 10.0 ** rng.integers(-3, 4, n)
    else:
        w = None
    return y, s, w


def _cuts(rng: np.random.Generator, s: Any) -> list[float]:
    """Cut points at scores, outside the scores' range, anywhere; one to eight ranges."""
    pool = [-0.5, 1.5, *rng.random(4).tolist()]
    if len(s):
        pool += np.asarray(s, dtype=np.float64)[rng.integers(0, len(s), 4)].tolist()
    k = int(rng.integers(0, 8))
    return sorted(set(rng.choice(np.asarray(pool), k).tolist())) if k else []


def _state(rng: np.random.Generator, y: Any, s: Any, w: Any, chunks: int) -> ScoreRanges:
    """The ranges of the data, summarized in ``chunks`` pieces and merged."""
    cuts = _cuts(rng, s)
    bounds = np.sort(rng.integers(0, len(y) + 1, chunks - 1))
    pieces = [np.split(np.asarray(a), bounds) for a in (y, s)]
    ws: list[Any] = [None] * chunks if w is None else np.split(np.asarray(w), bounds)
    states = [
        summarize_ranges(a, b, cuts, c) for a, b, c in zip(*pieces, ws, strict=True) if len(a)
    ]
    state = states[0]
    for other in states[1:]:
        state = state.merge(other)
    return state


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 150),
    classes=st.sampled_from([1, 2, 2, 2, 3]),
    style=st.sampled_from(["ties", "rounded", "continuous"]),
    weights=st.sampled_from(["none", "none", "int", "float"]),
    chunks=st.integers(1, 3),
    max_fpr=st.sampled_from([0.01, 0.3, 0.5, 1.0]),
    objective=st.sampled_from(["f1", "youden", "cost"]),
    drop=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_every_reader_over_scans_equals_the_reader_over_a_tuple(
    n: int,
    classes: int,
    style: str,
    weights: str,
    chunks: int,
    max_fpr: float,
    objective: str,
    drop: bool,
    seed: int,
) -> None:
    rng = np.random.default_rng(seed)
    y, s, w = _data(rng, n, classes, style, weights)
    state = _state(rng, y, s, w, chunks)
    pos_label = [None, 0, 1, 2][int(rng.integers(0, 4))]
    if classes == 3 and pos_label is None:
        pos_label = int(rng.integers(0, 3))
    _check_all(state, max_fpr, pos_label, objective, drop)


@pytest.mark.parametrize("weights", ["none", "int", "float"])
def test_a_hundred_thousand_scores_travel_as_small_carries(weights: str) -> None:
    rng = np.random.default_rng(7)
    n = 100_000
    y = (rng.random(n) < 0.3).astype(int)
    s = rng.random(n)
    w = None if weights == "none" else _data(rng, n, 2, "continuous", weights)[2]
    state = summarize_ranges(y, s, np.linspace(0.0, 1.0, 9)[1:-1].tolist(), w)
    ranges = len(state.parts)
    for reader in (
        ROCAUC().compute,
        ROCAUC(max_fpr=0.2).compute,
        AveragePrecision().compute,
        BestThreshold().compute,
    ):
        remote = Remote(state.parts)
        assert _same(reader(_with(state, remote)), reader(state))
        assert remote.largest < 64 * _KIB, remote.largest
        assert remote.steps == remote.scans * ranges
    # unweighted: the survey, then the exact area; a float area needs the float totals too
    remote = Remote(state.parts)
    ROCAUC().compute(_with(state, remote))
    assert remote.scans == (2 if w is None else 3)


def test_a_walk_down_the_scores_is_one_scan_from_the_top() -> None:
    state = summarize_ranges([0, 1, 0, 1, 1], [0.1, 0.2, 0.45, 0.7, 0.9], [0.3, 0.6])
    remote = Remote(state.parts)
    point = BestThreshold(objective="youden").compute(_with(state, remote))
    assert point == BestThreshold(objective="youden").compute(state)
    # the labels, then the totals and the best point, each walked in one scan from the top
    assert remote.scans == 3
    assert remote.steps == 3 * len(state.parts)


class _Counted(Sequence[ScoreHistogram]):
    """Ranges read here, counting the reads."""

    def __init__(self, parts: Sequence[ScoreHistogram]) -> None:
        self._parts = tuple(parts)
        self.reads = 0

    def __len__(self) -> int:
        return len(self._parts)

    def __getitem__(self, i: Any) -> Any:
        self.reads += 1
        return self._parts[i]


def _count(total: int, part: ScoreHistogram) -> tuple[int, list[Any]]:
    return total + int(part.counts.sum()), part.labels.tolist()


def test_one_vs_rest_pools_the_labels_where_the_ranges_are() -> None:
    state = summarize_ranges([0, 2, 1, 0, 2], [0.1, 0.1, 0.7, 0.6, 0.8], [0.5])
    remote = Remote(state.parts)
    pooled = OneVsRest(remote, 1)
    assert scan(pooled, _count, 0) == (5, [[1, 0], [1, 0]])
    assert (remote.scans, remote.steps) == (1, 2)
    assert scan(OneVsRest(state.parts, 1), _count, 0) == scan(pooled, _count, 0)
    with pytest.raises(ReadHere):
        pooled[0]


@pytest.mark.parametrize(
    "state",
    [
        ScoreRanges.empty(),
        summarize_ranges([], [], [0.5]),
        summarize_ranges([1, 1, 1], [0.2, 0.6, 0.9], [0.5]),
        summarize_ranges([0, 0], [0.2, 0.6], [0.5, 0.7]),
        summarize_ranges([0, 1, 1], [0.2, 0.6, 0.9], [0.5], [0.0, 0.0, 0.0]),
        summarize_ranges([0, 1, 1], [0.2, 0.6, 0.9], [0.5], [0.0, 1.0, 0.0]),
        summarize_ranges(["a", "b", "c"], [0.2, 0.6, 0.9], [0.5]),
        split_ranges(
            ROCAUC(average="micro").summarize([[0, 1], [1, 0]], [[0.2, 0.8], [0.6, 0.4]]), [0.5]
        ),
    ],
    ids=[
        "empty",
        "no_rows",
        "one_class",
        "only_negatives",
        "zero_weights",
        "one_weighted_class",
        "strings",
        "matrix",
    ],
)
@pytest.mark.parametrize("pos_label", [None, 1, "b"])
def test_errors_and_warnings_are_those_over_a_tuple(state: ScoreRanges, pos_label: Any) -> None:
    _check_all(state, 0.4, pos_label, "f1", True)


def test_a_partial_auc_stops_scanning_past_max_fpr() -> None:
    rng = np.random.default_rng(3)
    y = (rng.random(2000) < 0.5).astype(int)
    s = np.clip(rng.normal(0.4 + 0.2 * y, 0.15), 0.0, 1.0)
    state = summarize_ranges(y, s, np.linspace(0.0, 1.0, 11)[1:-1].tolist())
    ranges = len(state.parts)
    remote = Remote(state.parts)
    metric = ROCAUC(max_fpr=0.05)
    assert _same(metric.compute(_with(state, remote)), metric.compute(state))
    # the labels, the totals, and one walk from the top whose steps pass by the ranges
    # below max_fpr once it is reached
    assert remote.scans <= 4
    assert remote.steps == remote.scans * ranges
    local = _Counted(state.parts)
    assert _same(metric.compute(_with(state, local)), metric.compute(state))
    # read here, the walk stops reading past max_fpr
    assert local.reads < remote.steps
