"""Bootstraps of exact ROC AUC and AP keep their rows: replicates from one sorted pass.

The state of such a bootstrap keeps the metric's state, the rows and their unit
keys; the replicates are computed once, from the merged rows, with each unit's
Poisson weights drawn again from its key. They must equal the replicates of a
state per replicate (the metric of the rows with the replicate's weights as
sample weights), in memory, in chunks, keyed by position or by a key column,
per group, through state files, and merged with a state of a state per replicate.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, roc_auc_score

from scorekit import api, parse_metric, stats
from scorekit.cli import main
from scorekit.core import Grouped, Metric, State
from scorekit.errors import ScorekitError
from scorekit.stats import Bootstrap, Replicates, interval
from scorekit.stats._poisson import hash_keys, poisson_weights
from scorekit.stats._rows import UnitRows

# the one-pass metrics, and configurations of them whose replicates come from a state
# per replicate summarized from the kept rows (partial AUC, interpolated AP)
SPECS = [
    "roc_auc",
    "average_precision",
    "average_precision:pos_label=0",
    "roc_auc:max_fpr=0.5",
    "average_precision:interpolation=all",
]


def _reference(
    metric: Metric[Any],
    y: np.ndarray,
    s: np.ndarray,
    base: np.ndarray | None,
    weights: np.ndarray,
) -> np.ndarray:
    """Each replicate as a state of its own: the rows of positive weight, weighted."""
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for w in weights.astype(np.float64):
            keep = np.flatnonzero(w)
            if keep.size == 0:
                out.append(math.nan)
                continue
            sample = w[keep] if base is None else w[keep] * base[keep]
            try:
                out.append(float(metric.compute(metric.summarize(y[keep], s[keep], sample))))
            except ScorekitError:
                out.append(math.nan)
    return np.array(out)


def _data(seed: int, n: int, decimals: int, weighted: bool) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n), decimals)  # ties within and across classes
    w = rng.random(n) + 0.05 if weighted else None
    ids = np.array([f"u{k}" for k in rng.permutation(10 * n)[:n]])
    return y, s, w, ids


def _chunked(
    boot: Bootstrap,
    y: np.ndarray,
    s: np.ndarray,
    w: np.ndarray | None,
    ids: np.ndarray | None,
    cuts: list[int],
) -> Replicates:
    """The bootstrap state of the rows in chunks cut at ``cuts``, merged left to right."""
    bounds = [0, *sorted({c for c in cuts if 0 < c < len(y)}), len(y)]
    state = boot.empty()
    for a, b in itertools.pairwise(bounds):
        extra: dict[str, Any] = {} if w is None else {"sample_weight": w[a:b]}
        if ids is None:
            extra["first_row"] = a
        else:
            extra["unit_key"] = ids[a:b]
        state = boot.merge(state, boot.summarize(y[a:b], s[a:b], **extra))
    return state


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(2, 50),
    decimals=st.sampled_from([0, 1, 2, 6]),
    weighted=st.booleans(),
    keyed=st.booleans(),
    spec=st.sampled_from(SPECS),
    cuts=st.lists(st.integers(1, 49), max_size=4),
)
def test_replicates_of_kept_rows_equal_a_state_per_replicate(
    seed: int,
    n: int,
    decimals: int,
    weighted: bool,
    keyed: bool,
    spec: str,
    cuts: list[int],
) -> None:
    y, s, w, ids = _data(seed, n, decimals, weighted)
    resamples, groups = 30, 4
    boot = Bootstrap(
        spec, n_resamples=resamples, seed=seed, key="id" if keyed else "", groups=groups
    )
    assert boot.keeps_rows
    inner = boot.inner
    keys = hash_keys(ids, "test") if keyed else np.arange(n, dtype=np.uint64)
    whole_state = _chunked(boot, y, s, w, ids if keyed else None, [])
    chunked_state = _chunked(boot, y, s, w, ids if keyed else None, cuts)
    assert isinstance(whole_state.state, UnitRows) and not whole_state.replicates
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            whole = boot.compute(whole_state)
        except ScorekitError:
            return  # no value on all the data (one class for ROC AUC): nothing to resample
        chunked = boot.compute(chunked_state)
    # chunks keep the rows in order: the same numbers, bit for bit
    assert np.array_equal(chunked.replicates, whole.replicates, equal_nan=True)
    assert np.array_equal(chunked.jackknife, whole.jackknife, equal_nan=True)
    # the value is the metric's merged state (float sample weights: to rounding)
    assert chunked.value == pytest.approx(whole.value, rel=1e-12, nan_ok=True)
    want = _reference(inner, y, s, w, poisson_weights(seed, keys, 0, resamples))
    if spec == "roc_auc" and not weighted:
        # integer weights: exact numerators, the same rounding
        assert np.array_equal(whole.replicates, want, equal_nan=True)
    assert np.allclose(whole.replicates, want, rtol=1e-12, atol=1e-15, equal_nan=True)
    member = (keys % np.uint64(groups)).astype(np.int64)
    leave_out = (member[None, :] != np.arange(groups)[:, None]).astype(np.int64)
    jackknife = _reference(inner, y, s, w, leave_out)
    assert np.allclose(whole.jackknife, jackknife, rtol=1e-12, atol=1e-15, equal_nan=True)
    # scikit-learn on the replicates with both classes
    reference = {"roc_auc": roc_auc_score, "average_precision": average_precision_score}
    if spec in reference:
        counts = poisson_weights(seed, keys, 0, resamples).astype(np.float64)
        base = np.ones(n) if w is None else w
        for b in range(resamples):
            keep = counts[b] > 0
            if len(np.unique(y[keep])) == 2:
                got = reference[spec](y[keep], s[keep], sample_weight=(counts[b] * base)[keep])
                assert whole.replicates[b] == pytest.approx(got, rel=1e-9, abs=1e-12)


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(8, 60),
    spec=st.sampled_from(SPECS[:3]),
    cuts=st.lists(st.integers(1, 59), max_size=3),
)
def test_a_group_resamples_its_rows_under_the_whole_files_weights(
    seed: int, n: int, spec: str, cuts: list[int]
) -> None:
    y, s, _, _ = _data(seed, n, 1, False)
    g = np.array(["a", "b", "c"])[np.random.default_rng(seed + 1).integers(0, 3, n)]
    grouped = Grouped(Bootstrap(spec, n_resamples=25, seed=seed, groups=3), by="g")
    boot = grouped.inner
    assert isinstance(boot, Bootstrap)
    ci = api.CI(n_resamples=25, seed=seed, method="bca")
    bounds = [0, *sorted({c for c in cuts if 0 < c < n}), n]
    parts = [
        grouped.summarize(y[a:b], s[a:b], group=g[a:b], first_row=a)
        for a, b in itertools.pairwise(bounds)
    ]
    merged = parts[0]
    for part in parts[1:]:
        merged = grouped.merge(merged, part)
    whole = grouped.summarize(y, s, group=g, first_row=0)
    weights = poisson_weights(seed, np.arange(n, dtype=np.uint64), 0, 25)
    for key, part, again in zip(whole.groups(), whole.states, merged.states, strict=True):
        rows = np.flatnonzero(g == key[0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                found = boot.compute(part)
            except ScorekitError:
                continue
            chunked = boot.compute(again)
        assert np.array_equal(found.replicates, chunked.replicates, equal_nan=True)
        assert np.array_equal(found.jackknife, chunked.jackknife, equal_nan=True)
        want = _reference(boot.inner, y[rows], s[rows], None, weights[:, rows])
        assert np.allclose(found.replicates, want, rtol=1e-12, atol=1e-15, equal_nan=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            a = ci.group_intervals(grouped, whole)
        except ScorekitError:
            return
        b = ci.group_intervals(grouped, merged)
    assert a.overall == b.overall and a.by_group == b.by_group


def _old_form(boot: Bootstrap, state: Replicates) -> Replicates:
    """The same data as a state per replicate, the form every bootstrap had before."""
    rows = state.state
    assert isinstance(rows, UnitRows)
    kwargs = {} if rows.sample_weight is None else {"sample_weight": rows.sample_weight}
    replicates, leave_out = boot.replicate_states(rows.inputs, kwargs, rows.unit_keys)
    return dataclasses.replace(
        state, state=rows.summary, replicates=replicates, leave_out=leave_out
    )


@pytest.mark.parametrize("spec", ["roc_auc", "average_precision"])
def test_state_files_of_rows_and_of_a_state_per_replicate(spec: str) -> None:
    y, s, w, ids = _data(11, 300, 2, True)
    boot = Bootstrap(spec, n_resamples=40, seed=5, key="id", groups=10)
    whole = boot.compute(boot.summarize(y, s, sample_weight=w, unit_key=ids))
    first = boot.summarize(y[:120], s[:120], sample_weight=w[:120], unit_key=ids[:120])
    second = boot.summarize(y[120:], s[120:], sample_weight=w[120:], unit_key=ids[120:])
    # a state of rows round-trips through JSON and merges in any order
    loaded = State.from_json(second.to_json())
    assert isinstance(loaded, Replicates) and loaded.equals(second)
    merged = boot.merge(loaded, first)
    again = boot.compute(merged)
    assert again.value == pytest.approx(whole.value, rel=1e-12)
    assert np.allclose(again.replicates, whole.replicates, rtol=1e-12)
    assert np.allclose(again.jackknife, whole.jackknife, rtol=1e-12)
    # a state written with a state per replicate still loads and gives the same numbers,
    # alone and merged with a state of rows
    old = State.from_json(_old_form(boot, first).to_json())
    assert isinstance(old, Replicates) and not isinstance(old.state, UnitRows)
    alone = boot.compute(old)
    part = boot.compute(first)
    assert np.allclose(alone.replicates, part.replicates, rtol=1e-12, equal_nan=True)
    assert np.allclose(alone.jackknife, part.jackknife, rtol=1e-12, equal_nan=True)
    for mixed in (boot.merge(old, second), boot.merge(second, old)):
        assert not isinstance(mixed.state, UnitRows)
        found = boot.compute(mixed)
        assert np.allclose(found.replicates, whole.replicates, rtol=1e-12)
        assert np.allclose(found.jackknife, whole.jackknife, rtol=1e-12)
        for method in ("percentile", "bca"):
            a, b = interval(found, 0.9, method), interval(whole, 0.9, method)
            assert (a.low, a.high) == pytest.approx((b.low, b.high), rel=1e-12)


def test_a_tampered_state_of_rows_is_refused() -> None:
    y, s, _, _ = _data(3, 40, 2, False)
    boot = Bootstrap("roc_auc", n_resamples=10)
    state = boot.summarize(y, s)
    rows = state.state
    assert isinstance(rows, UnitRows)
    short = dataclasses.replace(rows, keys=rows.keys[:-1])
    with pytest.raises(ScorekitError, match="input 0 has another number of rows than keys"):
        State.from_json(dataclasses.replace(state, state=short).to_json())
    bad = dataclasses.replace(rows, inputs=(rows.inputs[0], np.full(40, np.nan)))
    with pytest.raises(ScorekitError, match="non-finite"):
        State.from_json(dataclasses.replace(state, state=bad).to_json())
    with pytest.raises(ScorekitError, match="differs from the rows kept"):
        dataclasses.replace(state, units=39).validate()


def test_only_one_pass_metrics_keep_rows() -> None:
    assert Bootstrap("roc_auc").keeps_rows and Bootstrap("average_precision").keeps_rows
    for spec in ("roc_auc:bins=32", "accuracy", "f1:macro", "log_loss"):
        boot = Bootstrap(spec, n_resamples=5)
        assert not boot.keeps_rows
        assert not isinstance(boot.empty().state, UnitRows)
    # scores of several classes keep a state per replicate, which the state of no rows
    # leaves as it is when merged
    rng = np.random.default_rng(2)
    proba = rng.dirichlet(np.ones(3), 60)
    labels = np.r_[0, 1, 2, rng.integers(0, 3, 57)]
    ovr = Bootstrap("roc_auc:multi_class=ovr", n_resamples=5, groups=2)
    assert ovr.keeps_rows and isinstance(ovr.empty().state, UnitRows)
    state = ovr.summarize(labels, proba)
    assert not isinstance(state.state, UnitRows) and len(state.replicates) == 5
    for merged in (ovr.merge(ovr.empty(), state), ovr.merge(state, ovr.empty())):
        assert merged.equals(state)
    # a state of rows grows with the rows, not with the replicates
    y, s, _, _ = _data(4, 2000, 6, False)
    small, large = (Bootstrap("roc_auc", n_resamples=b).summarize(y, s) for b in (10, 10_000))
    assert small.state.equals(large.state)


def test_the_command_through_state_files_gives_the_whole_files_interval(
    capsys: Any, tmp_path: Path
) -> None:
    rng = np.random.default_rng(8)
    n = 400
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n) * 0.7 + 0.3 * y, 3)
    lines = ["id,y,s"] + [f"r{i},{y[i]},{s[i]}" for i in range(n)]
    whole = tmp_path / "all.csv"
    whole.write_text("\n".join(lines) + "\n")
    for name, rows in (("a", lines[1:150]), ("b", lines[150:])):
        (tmp_path / f"{name}.csv").write_text("\n".join([lines[0], *rows]) + "\n")
    flags = ["--task", "binary", "--true", "y", "--score", "s", "--metric", "roc_auc"]
    flags += ["average_precision", "--ci", "--n-resamples", "300", "--seed", "3", "--key", "id"]
    flags += ["--ci-method", "bca"]

    def run(*argv: Any) -> str:
        code = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        assert code == 0, err
        return out

    expected = json.loads(run("eval", whole, *flags, "--format", "json"))
    chunked = json.loads(run("eval", whole, *flags, "--chunk-size", "64", "--format", "json"))
    for name in ("a", "b"):
        run("eval", tmp_path / f"{name}.csv", *flags, "--save-state", tmp_path / f"{name}.json")
    merged = json.loads(run("merge", tmp_path / "a.json", tmp_path / "b.json", "--format", "json"))
    for metric, found in expected.items():
        for other in (chunked[metric], merged[metric]):
            for field in ("value", "low", "high"):
                assert other[field] == pytest.approx(found[field], rel=1e-12)
    # the same interval as the Python function on the same rows and keys
    ids = [f"r{i}" for i in range(n)]
    ci = stats.bootstrap(
        parse_metric("roc_auc"), y, s, n_resamples=300, seed=3, method="bca", key=ids
    )
    for field in ("value", "low", "high"):
        assert getattr(ci, field) == pytest.approx(expected["roc_auc"][field], rel=1e-12)
