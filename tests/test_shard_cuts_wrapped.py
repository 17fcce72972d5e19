"""Grouped and bootstrapped states of score ranges of shards cut at their own points merge.

Shards evaluated by separate runs with ``roc_auc:ranges=N,cuts=sample`` per
group (``--by``) or with intervals (``--ci --key``) choose their own cut
points. ``scorekit merge`` compares their configurations but the wrapped
metric's cut points, cuts the ranges of every group, replicate and file at
common cut points (the same for all, so merged groups agree), merges them and
configures the merged metric with those points: the values per group are those
of the group's rows, and the intervals those of the bootstrap of all the rows
cut at the common points, bit for bit.
"""

from __future__ import annotations

import contextlib
import io
import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, roc_auc_score

from scorekit import parse_metric
from scorekit.classification import ScoreRanges, average_precision, roc_auc
from scorekit.cli import main
from scorekit.core import Grouped, Metric
from scorekit.errors import ConfigError, InputError, StateMismatchError, UndefinedMetricWarning
from scorekit.statefiles import load_states, merge_states, save_states
from scorekit.stats import Bootstrap

AUC, AP = "roc_auc:ranges=4,cuts=sample", "average_precision:ranges=4,cuts=sample"
FUNCTIONS = {AUC: roc_auc, AP: average_precision}
REFERENCES = {AUC: roc_auc_score, AP: average_precision_score}


def _bits(value: Any) -> bytes:
    return np.float64(value).tobytes()


def _same(a: Any, b: Any) -> bool:
    """Equal bits, or both NaN."""
    return bool(np.isnan(a) and np.isnan(b)) or _bits(a) == _bits(b)


def _outcome(compute: Any) -> Any:
    """A computation's value, or its error's type and message (no sample of weight, say)."""
    try:
        return ("value", compute())
    except (InputError, ConfigError) as exc:
        return ("error", type(exc), str(exc))


def _same_outcome(a: Any, b: Any) -> bool:
    if a[0] == "error" or b[0] == "error":
        return bool(a == b)
    return _same(a[1], b[1])


def _quiet(argv: list[str]) -> str:
    """What ``scorekit argv`` prints, checking that it succeeds."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(argv) == 0, argv
    return out.getvalue()


def _write_shards(folder: Path, seed: int) -> list[dict[str, Any]]:
    """Three parquet shards of binary scores in their own places, a group and a key column."""
    rng = np.random.default_rng(seed)
    shards, start = [], 0
    for i, shift in enumerate((-2.0, 0.0, 2.0)):
        n = int(rng.integers(80, 300))
        y = rng.integers(0, 2, n)
        s = np.round(rng.normal(shift + y, 1.0), 2)  # ties within and across shards
        g = rng.choice(["a", "b", "c"], n)
        k = np.arange(start, start + n)
        start += n
        path = folder / f"shard{i}.parquet"
        pq.write_table(pa.table({"y": y, "s": s, "g": g, "k": k}), path)
        shards.append({"path": path, "y": y, "s": s, "g": g, "k": k})
    return shards


def _evaluate(folder: Path, shards: list[dict[str, Any]], flags: list[str], fmt: str) -> list[str]:
    """The state files of ``scorekit eval`` of each shard with ``flags``."""
    files = []
    for i, shard in enumerate(shards):
        form = fmt if fmt != "mixed" else ("json" if i % 2 else "binary")
        state = folder / f"{'-'.join(flags).strip('-') or 'plain'}{i}.state"
        argv = ["eval", str(shard["path"]), "--task", "binary", "--true", "y", "--score", "s"]
        argv += ["--metric", AUC, AP, *flags, "--save-state", str(state), "--state-format", form]
        _quiet([*argv, "--quiet"])
        files.append(str(state))
    return files


def _joined(shards: list[dict[str, Any]], name: str) -> Any:
    return np.concatenate([shard[name] for shard in shards])


def _innermost(metric: Any) -> Any:
    while hasattr(metric, "inner_states"):
        metric = metric.inner
    return metric


def _common_cuts(paths: list[str], key: str) -> Any:
    """The cut points the files' states of ``key`` are cut alike at (None: theirs alike)."""
    leaves = []
    for path in paths:
        file = load_states(path)
        metric, state = file.metrics[key], file.states[key]
        while hasattr(metric, "inner_states"):
            state = metric.inner_states(state)[0]
            metric = metric.inner
        leaves.append(state)
    return ScoreRanges.common_cuts(leaves)


@pytest.mark.parametrize("fmt", ["json", "binary", "mixed"])
def test_grouped_shards_merge_to_the_values_of_each_group(tmp_path: Path, fmt: str) -> None:
    shards = _write_shards(tmp_path, 3)
    files = _evaluate(tmp_path, shards, ["--by", "g"], fmt)
    found = json.loads(_quiet(["merge", *files, "--format", "json"]))
    y, s, g = _joined(shards, "y"), _joined(shards, "s"), _joined(shards, "g")
    for key, function in FUNCTIONS.items():
        values = {entry["g"]: entry["value"] for entry in found[key]["groups"]}
        assert sorted(values) == ["a", "b", "c"]
        for group, value in values.items():
            rows = g == group
            assert _bits(value) == _bits(function(y[rows], s[rows]))
            assert value == pytest.approx(REFERENCES[key](y[rows], s[rows]), rel=1e-12)
        assert _bits(found[key]["overall"]) == _bits(function(y, s))
    metrics, states, _ = merge_states(files)
    for key in FUNCTIONS:
        common = _common_cuts(files, key)
        assert common is not None  # the shards chose other cut points
        merged = metrics[key]
        assert isinstance(merged, Grouped) and merged.inner.cuts == tuple(common.tolist())
        # every group and the overall state: cut at the common points, as one run would cut
        whole = merged.summarize(y, s, group=g)
        got = merged.inner_states(states[key])
        assert [x.cuts.tolist() for x in got] == [common.tolist()] * 4
        for mine, theirs in zip(got, merged.inner_states(whole), strict=True):
            assert [p.score.tolist() for p in mine.parts] == [
                p.score.tolist() for p in theirs.parts
            ]
            assert mine.join().equals(theirs.join()) and mine.n_samples == theirs.n_samples


@pytest.mark.parametrize(("fmt", "method"), [("json", "percentile"), ("binary", "bca")])
def test_bootstrapped_shards_merge_to_the_bootstrap_of_all_rows(
    tmp_path: Path, fmt: str, method: str
) -> None:
    shards = _write_shards(tmp_path, 4)
    flags = ["--ci", "--key", "k", "--n-resamples", "100", "--ci-method", method]
    files = _evaluate(tmp_path, shards, flags, fmt)
    found = json.loads(_quiet(["merge", *files, "--format", "json"]))
    metrics, states, _ = merge_states(files)
    y, s, k = _joined(shards, "y"), _joined(shards, "s"), _joined(shards, "k")
    for key, function in FUNCTIONS.items():
        merged = metrics[key]
        assert isinstance(merged, Bootstrap)
        assert merged.inner.cuts == tuple(_common_cuts(files, key).tolist())
        assert states[key].options == merged.options
        # the bootstrap of one run over all the rows, cut at the common points
        alone = merged.summarize(y, s, unit_key=k)
        assert states[key].whole.join().equals(alone.whole.join())
        assert states[key].whole.cuts.tolist() == alone.whole.cuts.tolist()
        mine, theirs = merged.compute(states[key]), merged.compute(alone)
        assert _bits(mine.value) == _bits(theirs.value) == _bits(function(y, s))
        assert mine.replicates.tobytes() == theirs.replicates.tobytes()
        assert mine.jackknife.tobytes() == theirs.jackknife.tobytes()
        assert len(mine.jackknife) == (100 if method == "bca" else 0)
        assert _bits(found[key]["value"]) == _bits(theirs.value)
        assert found[key]["method"] == method and found[key]["low"] < found[key]["high"]


def test_grouped_bootstraps_merge_to_those_of_each_group(tmp_path: Path) -> None:
    shards = _write_shards(tmp_path, 5)
    flags = ["--by", "g", "--ci", "--key", "k", "--n-resamples", "40"]
    files = _evaluate(tmp_path, shards, flags, "mixed")
    metrics, states, _ = merge_states(files)
    y, s, g, k = (_joined(shards, name) for name in ("y", "s", "g", "k"))
    for key in FUNCTIONS:
        merged = metrics[key]
        assert isinstance(merged, Grouped) and isinstance(merged.inner, Bootstrap)
        common = _common_cuts(files, key)
        assert merged.inner.inner.cuts == tuple(common.tolist())
        alone = merged.summarize(y, s, group=g, unit_key=k)
        boot = merged.inner
        for mine, theirs in zip(
            merged.inner_states(states[key]), merged.inner_states(alone), strict=True
        ):
            assert mine.options == boot.options and mine.whole.cuts.tolist() == common.tolist()
            a, b = boot.compute(mine), boot.compute(theirs)
            assert _bits(a.value) == _bits(b.value)
            assert a.replicates.tobytes() == b.replicates.tobytes()


def test_a_merged_file_merges_again_with_other_shards(tmp_path: Path) -> None:
    shards = _write_shards(tmp_path, 6)
    for flags in (["--by", "g"], ["--ci", "--key", "k", "--n-resamples", "50"]):
        files = _evaluate(tmp_path, shards, flags, "binary")
        whole = _quiet(["merge", *files, "--format", "json"])
        merged = str(tmp_path / "first-two.state")
        _quiet(["merge", *files[:2], "--save-state", merged, "--format", "json"])
        assert load_states(merged).metrics[AUC].shard_config() == (
            load_states(files[0]).metrics[AUC].shard_config()
        )
        again = _quiet(["merge", merged, files[2], "--format", "json"])
        # the cut points differ (chosen from other lists), the values do not
        assert json.loads(again) == json.loads(whole)


@st.composite
def _splits(draw: Any) -> dict[str, Any]:
    sizes = draw(st.lists(st.integers(0, 90), min_size=2, max_size=3))
    sizes[0] = max(sizes[0], 1)  # some data (every value of no data is an error)
    return {
        "seed": draw(st.integers(0, 2**32 - 1)),
        "sizes": sizes,
        "distinct": draw(st.sampled_from([2, 5, 40, 10**6])),
        "groups": draw(st.integers(1, 4)),
        "ranges": draw(st.integers(1, 6)),
        "weights": draw(st.booleans()),
        "fmt": draw(st.sampled_from(["json", "binary"])),
    }


def _run(metric: Metric[Any], y: Any, s: Any, w: Any, **inputs: Any) -> tuple[Any, Any]:
    """A run over one shard: cut points from its own sample, then its state."""
    settled = metric.sampled(metric.sampler.summarize(y, s)) if metric.sampler else metric
    return settled, settled.summarize(y, s, sample_weight=w, **inputs)


@settings(max_examples=10, deadline=None)
@given(case=_splits())
def test_any_split_of_shards_merges_to_each_group_and_the_whole_bootstrap(
    tmp_path_factory: pytest.TempPathFactory, case: dict[str, Any]
) -> None:
    folder = tmp_path_factory.mktemp("split")
    rng = np.random.default_rng(case["seed"])
    n = sum(case["sizes"])
    y = rng.integers(0, 2, n)
    s = rng.integers(0, case["distinct"] + 1, n) / case["distinct"] * 4 - 2
    s = s + np.repeat(rng.normal(0, 1, len(case["sizes"])), case["sizes"])  # shards apart
    g = rng.integers(0, case["groups"], n)
    k = rng.permutation(n)
    w = rng.integers(0, 4, n) if case["weights"] else None  # integer weights, zeros too
    spec = f"roc_auc:ranges={case['ranges']},cuts=sample"
    wrappers: dict[str, Metric[Any]] = {
        "plain": parse_metric(spec),
        "by": Grouped(spec, by="g"),
        "ci": Bootstrap(spec, key="k", n_resamples=20, groups=5),
        "by-ci": Grouped(Bootstrap(spec, key="k", n_resamples=10, groups=0), by="g"),
    }
    files, at = [], 0
    for i, size in enumerate(case["sizes"]):
        rows = slice(at, at + size)
        at += size
        entry = {}
        for key, wrapper in wrappers.items():
            inputs = {"group": g[rows]} if "by" in key else {}
            inputs |= {"unit_key": k[rows]} if "ci" in key else {}
            weights = None if w is None else w[rows]
            entry[key] = _run(wrapper, y[rows], s[rows], weights, **inputs)
        path = folder / f"shard{i}.state"
        files.append(save_states(path, entry, rows=size, state_format=case["fmt"]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        metrics, states, header = merge_states(files, allow_duplicates=True)  # empty shards
        assert header["rows"] == n
        by, ci, both = metrics["by"], metrics["ci"], metrics["by-ci"]
        cuts = metrics["plain"].cuts
        assert _innermost(by).cuts == _innermost(ci).cuts == _innermost(both).cuts == cuts
        assert states["plain"].cuts.tolist() == list(cuts)
        found_plain = _outcome(lambda: metrics["plain"].compute(states["plain"]))
        assert _same_outcome(found_plain, _outcome(lambda: roc_auc(y, s, sample_weight=w)))
        for group in np.unique(g).tolist():
            rows = g == group
            weights = None if w is None else w[rows]
            found = by.compute(states["by"]).by_group[group]
            assert _same(found, roc_auc(y[rows], s[rows], sample_weight=weights))
        found_all = _outcome(lambda: by.compute(states["by"]).overall)
        assert _same_outcome(found_all, _outcome(lambda: roc_auc(y, s, sample_weight=w)))
        alone = ci.summarize(y, s, sample_weight=w, unit_key=k)
        mine, theirs = (
            _outcome(lambda: ci.compute(states["ci"])),
            _outcome(lambda: ci.compute(alone)),
        )
        assert mine[0] == theirs[0]
        if mine[0] == "value":
            assert _same(mine[1].value, theirs[1].value)
            assert mine[1].replicates.tobytes() == theirs[1].replicates.tobytes()
            assert mine[1].jackknife.tobytes() == theirs[1].jackknife.tobytes()
        alone_groups = both.summarize(y, s, sample_weight=w, group=g, unit_key=k)
        boot = both.inner
        pairs = zip(
            both.inner_states(states["by-ci"]), both.inner_states(alone_groups), strict=True
        )
        for held, other in pairs:
            a = _outcome(lambda held=held: boot.compute(held))
            b = _outcome(lambda other=other: boot.compute(other))
            assert a[0] == b[0]
            if a[0] == "value":
                assert _same(a[1].value, b[1].value)
                assert a[1].replicates.tobytes() == b[1].replicates.tobytes()


# refusals ---------------------------------------------------------------------------


def _save_pair(
    tmp_path: Path, first: Metric[Any], second: Metric[Any], **inputs: Any
) -> list[Path]:
    """Two shard files of ``first`` and ``second`` under one key, each cut at its own points."""
    paths = []
    for i, (metric, shift) in enumerate(((first, -1.0), (second, 1.0))):
        rng = np.random.default_rng(i)
        y = rng.integers(0, 2, 50)
        s = rng.normal(shift + y, 1.0)
        extra = {name: value(i, 50) for name, value in inputs.items()}
        entry = {"auc": _run(metric, y, s, None, **extra)}
        paths.append(save_states(tmp_path / f"s{i}.json", entry, rows=50))
    return paths


def _keys(i: int, n: int) -> Any:
    return np.arange(i * n, (i + 1) * n)


def _groups(i: int, n: int) -> Any:
    return np.arange(n) % 2


@pytest.mark.parametrize(
    ("first", "second", "inputs", "named"),
    [
        (
            Grouped("roc_auc:ranges=4,cuts=sample", by="g"),
            Grouped("roc_auc:ranges=4,cuts=sample,max_fpr=0.5", by="g"),
            {"group": _groups},
            "'metric.max_fpr'",
        ),
        (
            Grouped("roc_auc:ranges=4,cuts=sample", by="g"),
            Grouped("roc_auc:ranges=4,cuts=sample", by="h"),
            {"group": _groups},
            "'by'",
        ),
        (
            Bootstrap("roc_auc:ranges=4,cuts=sample", key="k", n_resamples=20),
            Bootstrap("roc_auc:ranges=4,cuts=sample,max_fpr=0.5", key="k", n_resamples=20),
            {"unit_key": _keys},
            "'options.max_fpr'",
        ),
        (
            Bootstrap("roc_auc:ranges=4,cuts=sample", key="k", n_resamples=20),
            Bootstrap("roc_auc:ranges=4,cuts=sample", key="k", n_resamples=20, seed=3),
            {"unit_key": _keys},
            "'seed'",
        ),
    ],
)
def test_other_options_than_the_cut_points_are_refused(
    tmp_path: Path, first: Metric[Any], second: Metric[Any], inputs: Any, named: str
) -> None:
    paths = _save_pair(tmp_path, first, second, **inputs)
    with pytest.raises(StateMismatchError, match=f"the files configure {named} differently") as e:
        merge_states(paths)
    assert str(paths[0]) in str(e.value) and str(paths[1]) in str(e.value)
    # the same configurations, each cut at its own points, merge at common ones
    same = [str(path) for path in _save_pair(tmp_path, first, first, **inputs)]
    common = _common_cuts(same, "auc")
    assert common is not None
    metrics = merge_states(same)[0]
    assert _innermost(metrics["auc"]).cuts == tuple(common.tolist())
    assert metrics["auc"].shard_config() == load_states(same[1]).metrics["auc"].shard_config()


def test_bootstraps_keyed_by_row_position_are_refused_for_their_rows(tmp_path: Path) -> None:
    boot = Bootstrap("roc_auc:ranges=4,cuts=sample", n_resamples=20)
    paths = _save_pair(tmp_path, boot, boot)
    with pytest.raises(StateMismatchError, match="keyed by the same row positions") as e:
        merge_states(paths)
    assert "cut points" not in str(e.value)


def test_grouped_ranges_are_not_merged_range_by_range(tmp_path: Path) -> None:
    grouped = Grouped("roc_auc:ranges=4,cuts=sample", by="g")
    paths = _save_pair(tmp_path, grouped, grouped, group=_groups)
    with pytest.raises(ConfigError, match="per group or per resample"):
        merge_states(paths, part=0)


def test_unsettled_cuts_keep_their_configuration(tmp_path: Path) -> None:
    # summarized without a first pass: each batch chose its own cut points
    grouped = Grouped(parse_metric("roc_auc:ranges=3,cuts=sample"), by="g")
    paths, ys, ss = [], [], []
    for i, shift in enumerate((-2.0, 2.0)):
        rng = np.random.default_rng(i)
        y, g = rng.integers(0, 2, 60), np.arange(60) % 3
        s = rng.normal(shift + y, 1.0)
        ys.append(y)
        ss.append(s)
        state = grouped.summarize(y, s, group=g)
        paths.append(save_states(tmp_path / f"u{i}.json", {"auc": (grouped, state)}))
    assert _common_cuts([str(path) for path in paths], "auc") is not None
    ys, ss = np.concatenate(ys), np.concatenate(ss)
    metrics, states, _ = merge_states(paths)
    assert metrics["auc"].inner.cuts == "sample"
    cuts = {x.cuts.tobytes() for x in metrics["auc"].inner_states(states["auc"])}
    assert len(cuts) == 1
    found = metrics["auc"].compute(states["auc"])
    for group in range(3):
        rows = np.concatenate([np.arange(60) % 3 == group] * 2)
        assert _bits(found.by_group[group]) == _bits(roc_auc(ys[rows], ss[rows]))


def test_wrappers_pass_the_wrapped_metrics_shard_options_on() -> None:
    auc = parse_metric("roc_auc:cuts=[0.5]")
    grouped, boot = Grouped(auc, by="g"), Bootstrap(auc, key="k", n_resamples=20)
    both = Grouped(boot, by="g")
    assert "cuts" not in auc.shard_config() and auc.shard_config()["max_fpr"] is None
    assert grouped.shard_config() == {"metric." + k: v for k, v in auc.shard_config().items()} | {
        "by": ("g",)
    }
    assert {k: v for k, v in boot.shard_config().items() if k.startswith("options.")} == {
        "options." + k: v for k, v in auc.shard_config().items()
    }
    assert "options" not in boot.shard_config() and boot.shard_config()["key"] == "k"
    assert "metric.options.max_fpr" in both.shard_config()
    moved = both.with_shard_options(cuts=(0.25, 0.75))
    assert moved.inner.inner.cuts == (0.25, 0.75) and moved.by == ("g",)
    assert moved.inner.options != boot.options and moved.inner.n_resamples == 20
    assert moved.shard_config() == both.shard_config()
    with pytest.raises(ConfigError, match="accuracy: not an option that may differ between shards"):
        parse_metric("accuracy").with_shard_options(cuts=(0.5,))
    with pytest.raises(ConfigError, match="roc_auc: not an option that may differ"):
        grouped.with_shard_options(max_fpr=0.5)
