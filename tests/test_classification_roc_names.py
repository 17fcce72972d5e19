"""Multiclass ROC AUC under scikit-learn's scorer names: roc_auc_ovr, roc_auc_ovo and weighted."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import classification as C
from scorekit.cli import main
from scorekit.core import parse_metric
from scorekit.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
NAMES = {
    "roc_auc_ovr": ("ovr", "macro"),
    "roc_auc_ovr_weighted": ("ovr", "weighted"),
    "roc_auc_ovo": ("ovo", "macro"),
    "roc_auc_ovo_weighted": ("ovo", "weighted"),
}


@st.composite
def multiclass_probabilities(draw):
    c = draw(st.integers(3, 5))
    n = draw(st.integers(c, 30))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    t = rng.permutation(np.concatenate([np.arange(c), rng.integers(0, c, n - c)]))
    raw = rng.integers(1, 4, (n, c)).astype(float) if draw(st.booleans()) else rng.random((n, c))
    return t, raw / raw.sum(axis=1, keepdims=True)


@settings(max_examples=10, deadline=None)
@given(multiclass_probabilities(), st.sampled_from(sorted(NAMES)))
def test_named_roc_auc_equals_sklearn_scorer_settings(data, name):
    t, s = data
    multi_class, average = NAMES[name]
    want = skm.roc_auc_score(t, s, multi_class=multi_class, average=average)
    metric = parse_metric(name)
    assert metric.name == name and metric.inputs == "multiclass_scores"
    got = metric.score(t, s)
    same = C.ROCAUC(multi_class=multi_class, average=average).score(t, s)
    assert np.isclose(got, want, rtol=1e-12, atol=0)
    assert got == same


def test_named_roc_auc_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    path = ROOT / "examples" / "data" / "multiclass.parquet"
    columns = ["--true", "label", "--score", "p_bird", "p_cat", "p_dog"]
    flags = ["--format", "json", "--metric", *sorted(NAMES)]
    status = main(["eval", str(path), "--task", "multiclass", *columns, *flags])
    assert status == 0
    values = json.loads(capsys.readouterr().out)
    import pyarrow.parquet as pq

    table = pq.read_table(path).to_pydict()
    s = np.column_stack([table["p_bird"], table["p_cat"], table["p_dog"]])
    for name, (multi_class, average) in NAMES.items():
        want = skm.roc_auc_score(table["label"], s, multi_class=multi_class, average=average)
        assert values[name] == pytest.approx(want, rel=1e-12)
    assert main(["explain", "roc_auc_ovo"]) == 0
    assert "roc_auc_ovo" in capsys.readouterr().out


def test_named_roc_auc_refuses_other_settings() -> None:
    with pytest.raises(ConfigError, match="roc_auc_ovo: the name fixes multi_class and average"):
        parse_metric("roc_auc_ovo:average=micro")
    with pytest.raises(ConfigError, match="multi_class='ovr', average='weighted'"):
        C.ROCAUCOvRWeighted(multi_class="ovo")
    with pytest.raises(ConfigError, match="roc_auc_ovr: takes no :variant"):
        parse_metric("roc_auc_ovr:macro")
