"""The fast paths of the score metrics against scikit-learn and against the general paths.

Binary ROC AUC and AP read the two sorted histograms of a binary state; one-vs-rest
and micro values read each column's aligned counts; merging histograms merges sorted
runs; float32 scores are sorted as float32. Each must give scikit-learn's value and
the states the general code gives.
"""

from __future__ import annotations

import itertools
import os
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit
import scorekit.classification as C
from scorekit.classification import ROCAUC
from scorekit.core import MergeTree, equal_values
from scorekit.engines import Notes, SizeWatch

RTOL = 1e-12


def _scores(rng: np.random.Generator, n: int, style: int) -> np.ndarray:
    if style == 0:
        return rng.random(n)
    if style == 1:
        return rng.integers(0, 5, n).astype(np.float64)
    if style == 2:
        return rng.random(n).astype(np.float32)
    if style == 3:
        return np.round(rng.normal(size=n), 1).astype(np.float32)
    return rng.normal(size=n) * 1e300


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 80),
    style=st.integers(0, 4),
    weighted=st.booleans(),
    pos_label=st.sampled_from([0, 1]),
)
def test_binary_auc_and_ap_equal_scikit_learn(
    seed: int, n: int, style: int, weighted: bool, pos_label: int
) -> None:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = _scores(rng, n, style)
    w = rng.integers(0, 4, n).astype(np.float64) if weighted else None
    if w is not None:
        w[:2] = 1.0
    assert C.roc_auc(y, s, sample_weight=w) == pytest.approx(
        skm.roc_auc_score(y, s, sample_weight=w), rel=RTOL, abs=1e-15
    )
    assert C.average_precision(y, s, sample_weight=w, pos_label=pos_label) == pytest.approx(
        skm.average_precision_score(y, s, sample_weight=w, pos_label=pos_label),
        rel=RTOL,
        abs=1e-15,
    )


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(12, 80), style=st.integers(0, 3))
def test_one_vs_rest_and_micro_equal_scikit_learn(seed: int, n: int, style: int) -> None:
    rng = np.random.default_rng(seed)
    k = 4
    y = np.concatenate([np.arange(k), rng.integers(0, k, n - k)])
    raw = np.abs(_scores(rng, n * k, style).astype(np.float64)).reshape(n, k) + 0.5
    p = raw / raw.sum(axis=1, keepdims=True)
    for average in ("macro", "weighted"):
        assert C.roc_auc(y, p, multi_class="ovr", average=average) == pytest.approx(
            skm.roc_auc_score(y, p, multi_class="ovr", average=average), rel=RTOL
        )
    onehot = np.eye(k)[y]
    assert C.roc_auc(onehot, p, average="micro") == pytest.approx(
        skm.roc_auc_score(onehot, p, average="micro"), rel=RTOL
    )
    assert C.average_precision(onehot, p, average="micro") == pytest.approx(
        skm.average_precision_score(onehot, p, average="micro"), rel=RTOL
    )
    assert C.average_precision(onehot, p, average="macro") == pytest.approx(
        skm.average_precision_score(onehot, p, average="macro"), rel=RTOL
    )


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 120),
    style=st.integers(0, 4),
    cuts=st.lists(st.integers(0, 120), max_size=5),
)
def test_merged_chunks_equal_the_whole(seed: int, n: int, style: int, cuts: list[int]) -> None:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    s = _scores(rng, n, style)
    metric = ROCAUC()
    whole = metric.summarize(y, s)
    bounds = sorted({0, n, *(c % (n + 1) for c in cuts)})
    tree = MergeTree([metric])
    for lo, hi in itertools.pairwise(bounds):
        tree.add([metric.summarize(y[lo:hi], s[lo:hi])])
    (merged,) = tree.result()
    for field in ("key", "score", "counts", "labels"):
        assert equal_values(getattr(merged, field), getattr(whole, field)), field
    assert merged.n_samples == whole.n_samples


def test_float32_scores_keep_their_ties() -> None:
    s = np.array([0.1, 0.1, 0.30000001, 0.3, 0.7], dtype=np.float32)
    y = np.array([0, 1, 0, 1, 1])
    state = ROCAUC().summarize(y, s)
    assert state.score.dtype == np.float32  # kept as given: every float32 value and tie
    assert np.array_equal(np.unique(s), np.unique(state.score))
    assert np.unique(state.score).size == 3  # 0.30000001 and 0.3 are one float32 value
    wide = ROCAUC().summarize(y, s.astype(np.float64))
    assert np.array_equal(state.score.astype(np.float64), wide.score)
    assert C.roc_auc(y, s) == pytest.approx(skm.roc_auc_score(y, s), rel=RTOL)


def test_negative_zero_and_zero_are_one_score() -> None:
    y = np.array([0, 1, 0, 1])
    s = np.array([-0.0, 0.0, 1.0, 2.0])
    state = ROCAUC().summarize(y, s)
    assert not np.signbit(state.score).any()
    assert C.roc_auc(y, s) == skm.roc_auc_score(y, s) == 0.625


def test_the_exact_fraction_of_pairs() -> None:
    # 5 of 6 pairs ordered: the correctly rounded 5/6
    y = ["neg", "pos", "neg", "pos", "pos"]
    s = [0.2, 0.9, 0.6, 0.4, 0.8]
    assert C.roc_auc(y, s) == 5 / 6


def test_size_watch_names_the_bounded_form_once() -> None:
    metric = scorekit.parse_metric("roc_auc")
    watch = SizeWatch([metric], limit=1000)
    tree = MergeTree([metric])
    notes = Notes()
    rng = np.random.default_rng(0)
    for _ in range(4):
        tree.add([metric.summarize(rng.integers(0, 2, 100), rng.random(100))])
        watch.check(tree, notes)
    texts = [text for _, text in notes.messages()]
    assert len(texts) == 1
    assert texts[0].startswith("roc_auc: the exact state has grown past 1.0 kB")
    assert "roc_auc:bins=N keeps it bounded" in texts[0]


def test_size_watch_ignores_bounded_states() -> None:
    metric = scorekit.parse_metric("roc_auc:bins=10")
    watch = SizeWatch([metric], limit=10)
    tree = MergeTree([metric])
    notes = Notes()
    tree.add([metric.summarize([0, 1] * 50, np.linspace(0, 1, 100))])
    watch.check(tree, notes)
    assert watch.watched == {}
    assert notes.messages() == []
    grown = scorekit.parse_metric("accuracy")
    assert SizeWatch([grown], limit=1).watched == {}


def test_evaluate_warns_when_the_exact_state_passes_the_size(monkeypatch) -> None:
    monkeypatch.setenv("SCOREKIT_STATE_WARNING_SIZE", "1K")
    rng = np.random.default_rng(1)
    data = {"y_true": rng.integers(0, 2, 2000), "y_score": rng.random(2000)}
    with pytest.warns(UserWarning, match=r"roc_auc:bins=N keeps it bounded"):
        result = scorekit.evaluate(data, ["roc_auc"], chunk_size=500)
    assert result["roc_auc"] == pytest.approx(
        skm.roc_auc_score(data["y_true"], data["y_score"]), rel=RTOL
    )
    monkeypatch.setenv("SCOREKIT_STATE_WARNING_SIZE", "1G")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scorekit.evaluate(data, ["roc_auc"], chunk_size=500)


def test_cli_state_warning_flag(tmp_path, capsys, monkeypatch) -> None:
    from scorekit.cli import main

    # the flag sets the variable for the run; monkeypatch restores it afterwards
    monkeypatch.setenv("SCOREKIT_STATE_WARNING_SIZE", "1G")

    rng = np.random.default_rng(2)
    path = tmp_path / "d.csv"
    rows = ["y,s"] + [
        f"{a},{float(b)!r}" for a, b in zip(rng.integers(0, 2, 500), rng.random(500), strict=True)
    ]
    path.write_text("\n".join(rows) + "\n")
    args = ["eval", str(path), "--task", "binary", "--true", "y", "--score", "s"]
    args += ["--metric", "roc_auc", "--chunk-size", "100", "--quiet", "--state-warning", "2K"]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert err.count("roc_auc: the exact state has grown past 2.0 kB") == 1
    assert "roc_auc:bins=N keeps it bounded" in err


@pytest.mark.parametrize("kind", ["binary", "weighted", "multiclass", "samples"])
def test_many_chunks_merge_as_the_whole(kind: str) -> None:
    rng = np.random.default_rng(3)
    n = 400
    if kind == "multiclass":
        y = rng.integers(0, 3, n)
        raw = rng.random((n, 3)) + 0.1
        s = raw / raw.sum(axis=1, keepdims=True)
        metric = ROCAUC(multi_class="ovr")
    elif kind == "samples":
        y = rng.integers(0, 2, (n, 3))
        s = np.round(rng.random((n, 3)), 2)
        metric = ROCAUC(average="samples")
    else:
        y = rng.integers(0, 3, n)  # a third label appears in some chunks only
        s = np.round(rng.random(n), 2)
        metric = ROCAUC()
    w = rng.integers(0, 3, n).astype(np.float64) if kind == "weighted" else None
    whole = metric.summarize(y, s, sample_weight=w)
    tree = MergeTree([metric])
    for lo in range(0, n, 10):  # 40 chunks: more than one gathered merge
        part = None if w is None else w[lo : lo + 10]
        tree.add([metric.summarize(y[lo : lo + 10], s[lo : lo + 10], sample_weight=part)])
    (merged,) = tree.result()
    for field in ("key", "score", "counts", "labels", "sample_values", "sample_weights"):
        assert equal_values(getattr(merged, field), getattr(whole, field)), field
    pairwise = whole.empty()
    for lo in range(0, n, 10):
        part = None if w is None else w[lo : lo + 10]
        pairwise = pairwise.merge(
            metric.summarize(y[lo : lo + 10], s[lo : lo + 10], sample_weight=part)
        )
    assert equal_values(pairwise.score, merged.score)
    assert equal_values(pairwise.counts, merged.counts)


def test_merging_many_refuses_states_of_other_classes() -> None:
    from scorekit.classification._histogram import ScoreHistogram
    from scorekit.errors import StateMismatchError

    metric = ROCAUC(multi_class="ovr")
    p = np.array([[0.2, 0.8], [0.6, 0.4]])
    a = metric.summarize([0, 1], p)
    b = ROCAUC(multi_class="ovr", labels=("x", "y")).summarize(["x", "y"], p)
    with pytest.raises(StateMismatchError, match="states differ in classes"):
        ScoreHistogram.merge_all([a, a, b])


def test_the_limits_a_flag_sets_last_for_the_run_only(tmp_path, capsys, monkeypatch) -> None:
    from scorekit.cli import main

    monkeypatch.setenv("SCOREKIT_STATE_WARNING_SIZE", "1G")
    monkeypatch.delenv("SCOREKIT_MAX_FILE_SIZE", raising=False)
    path = tmp_path / "d.csv"
    path.write_text("y,s\n1,0.5\n0,0.25\n")
    args = ["eval", str(path), "--task", "binary", "--true", "y", "--score", "s"]
    assert main([*args, "--metric", "roc_auc", "--state-warning", "2K"]) == 0
    assert os.environ["SCOREKIT_STATE_WARNING_SIZE"] == "1G"
    # set, then a usage error later on the line
    assert main([*args, "--state-warning", "2K", "--no-such-flag"]) == 2
    assert os.environ["SCOREKIT_STATE_WARNING_SIZE"] == "1G"
    dataset = tmp_path / "squad.json"
    dataset.write_text('{"data": []}')
    main(["qa", str(dataset), str(dataset), "--max-file-size", "1M"])
    assert "SCOREKIT_MAX_FILE_SIZE" not in os.environ
    capsys.readouterr()
