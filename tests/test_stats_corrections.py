"""The corrections of p-values of several systems against statsmodels' multipletests."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from conftest import ROOT
from scorekit import stats
from scorekit.api import Paired
from scorekit.cli import main
from scorekit.errors import ConfigError, InputError

# scorekit's name of each correction, its function and statsmodels' name
METHODS = [
    ("holm", stats.holm, "holm"),
    ("bonferroni", stats.bonferroni, "bonferroni"),
    ("hochberg", stats.hochberg, "simes-hochberg"),
    ("sidak", stats.sidak, "sidak"),
    ("holm_sidak", stats.holm_sidak, "holm-sidak"),
    ("bh", stats.benjamini_hochberg, "fdr_bh"),
    ("by", stats.benjamini_yekutieli, "fdr_by"),
    ("two_stage_bh", stats.two_stage_bh, "fdr_tsbh"),
]

PVALUES = st.lists(
    st.floats(0, 1)
    | st.sampled_from([0.0, 1.0, 0.01, 0.025, 0.05, 0.5])
    | st.floats(0, 1e-300, allow_subnormal=True),
    min_size=1,
    max_size=50,
)


def _statsmodels(p: list[float], method: str, alpha: float) -> Any:
    # statsmodels' Holm branch runs a full garbage collection per call: skip it, it is slow
    # here; its Sidak branches take log1p(-1) of a p-value of 1
    with mock.patch("gc.collect"), np.errstate(divide="ignore"):
        return multipletests(np.array(p), alpha=alpha, method=method)[1]


def _close(got: Any, want: Any) -> None:
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_every_correction_is_tested() -> None:
    assert {name for name, _, _ in METHODS} == set(stats.CORRECTIONS)
    assert set(stats.CORRECTION_ALIASES.values()) <= set(stats.CORRECTIONS)


@settings(max_examples=150, deadline=None)
@given(
    p=PVALUES | st.lists(st.sampled_from([0.0, 0.01, 0.04, 0.3, 1.0]), min_size=1, max_size=50),
    alpha=st.sampled_from([0.05, 0.01, 0.1, 0.2]),
)
def test_corrections_match_statsmodels(p: list[float], alpha: float) -> None:
    for name, function, reference in METHODS:
        want = _statsmodels(p, reference, alpha)
        got = function(p, alpha) if name == "two_stage_bh" else function(p)
        _close(got, want)
        _close(stats.adjust(p, name, alpha=alpha), want)
        if reference != name:
            _close(stats.adjust(p, reference, alpha=alpha), want)
        assert got.dtype == np.float64 and got.shape == (len(p),)


def test_two_stage_bh_scales_by_the_estimated_true_nulls() -> None:
    # BH at 0.05 rejects two of four: the adjusted p-values are BH's times 2 / 4
    p = [0.001, 0.01, 0.3, 0.8]
    np.testing.assert_array_equal(
        stats.two_stage_bh(p, alpha=0.05), stats.benjamini_hochberg(p) * 0.5
    )
    # none rejected, or all: BH's
    np.testing.assert_array_equal(
        stats.two_stage_bh([0.5, 0.9]), stats.benjamini_hochberg([0.5, 0.9])
    )
    np.testing.assert_array_equal(
        stats.two_stage_bh([0.001, 0.002]), stats.benjamini_hochberg([0.001, 0.002])
    )


def test_compare_uses_one_minus_confidence_for_two_stage_bh() -> None:
    qrels = {f"q{i}": {f"d{j}": int((i + j) % 3 == 0) for j in range(6)} for i in range(20)}
    rng = np.random.default_rng(3)
    runs = [
        {
            q: {d: float(rng.random() + 0.3 * k * g) for d, g in docs.items()}
            for q, docs in qrels.items()
        }
        for k in range(5)
    ]
    for confidence in (0.95, 0.8):
        got = stats.compare(
            "map", qrels, *runs, test="t", correction="fdr_tsbh", confidence=confidence
        )
        p = [c.pvalue for c in got]
        want = _statsmodels(p, "fdr_tsbh", 1.0 - confidence)
        _close([c.adjusted for c in got], want)


def test_rank_adjusts_p_values_by_benjamini_hochberg(capsys: Any) -> None:
    runs = [ROOT / "examples" / "runs" / name for name in ("rerank.txt", "noisy.txt")]
    data = ROOT / "examples" / "data"
    argv = [data / "qrels.txt", data / "run.txt", *runs, "-m", "map", "--test", "t"]
    code = main(["rank", *map(str, argv), "--correction", "bh", "--format", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    doc = json.loads(captured.out)
    assert doc["correction"] == "bh"
    rows = doc["comparisons"]
    assert [r["system"] for r in rows] == ["rerank.txt", "noisy.txt"]
    want = multipletests([r["pvalue"] for r in rows], method="fdr_bh")[1]
    _close([r["adjusted"] for r in rows], want)
    # the table of the same command, and statsmodels' spelling of the correction
    assert main(["rank", *map(str, argv), "--correction", "fdr_bh"]) == 0
    table = capsys.readouterr().out
    assert "p-values adjusted by bh" in table


def test_bad_corrections_give_clear_errors(capsys: Any) -> None:
    with pytest.raises(ConfigError, match="adjust: unknown correction; got 'anova', expected one"):
        stats.adjust([0.1], "anova")
    with pytest.raises(ConfigError, match=r"adjust: invalid alpha; got 1\.5"):
        stats.adjust([0.1], "bh", alpha=1.5)
    with pytest.raises(ConfigError, match="two_stage_bh: invalid alpha; got 0"):
        stats.two_stage_bh([0.1], alpha=0)
    with pytest.raises(
        InputError, match=r"sidak: p-values must lie in \[0, 1\]; got -0.1 at index 1"
    ):
        stats.sidak([0.2, -0.1])
    with pytest.raises(InputError, match="benjamini_hochberg: no p-values"):
        stats.benjamini_hochberg([])
    with pytest.raises(InputError, match="hochberg: pvalues contains nan"):
        stats.hochberg([np.nan])
    with pytest.raises(ConfigError, match="--correction: unknown correction; got 'fdr'"):
        Paired("t", "fdr")
    assert Paired("t", "holm-sidak").correction == "holm_sidak"
    y = [0, 1, 1, 0] * 5
    with pytest.raises(ConfigError, match="unknown correction; got 'fdr_gbs'"):
        stats.compare("accuracy", y, y, y, correction="fdr_gbs")
    data = ROOT / "examples" / "data"
    argv = ["rank", str(data / "qrels.txt"), str(data / "run.txt"), str(data / "run.txt")]
    assert main([*argv, "--test", "t", "--correction", "hommel"]) == 2
    assert "invalid choice: 'hommel'" in capsys.readouterr().err
