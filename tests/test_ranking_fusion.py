"""Run fusion against ranx's fusion, the fused run's order and file, and ``scorekit fuse``."""

from __future__ import annotations

import contextlib
import io
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ranx import Run as RanxRun
from ranx import fuse as ranx_fuse

from scorekit import ranking
from scorekit.cli import main
from scorekit.errors import ConfigError, InputError

Runs = list[dict[str, dict[str, float]]]

METHODS = {
    "rrf": ("rrf", {}),
    "isr": ("isr", {}),
    "log_isr": ("log_isr", {}),
    "logn_isr": ("logn_isr", {"sigma": 0.01}),
    "combsum": ("sum", {}),
    "combmnz": ("mnz", {}),
    "combmax": ("max", {}),
    "combmin": ("min", {}),
    "combmed": ("med", {}),
    "combanz": ("anz", {}),
    "combgmnz": ("gmnz", {"gamma": 0.5}),
    "wsum": ("wsum", {"weights": [0.2, 0.3, 0.5]}),
    "wmnz": ("wmnz", {"weights": [0.2, 0.3, 0.5]}),
}
NORMS = {
    "minmax": "min-max",
    "max": "max",
    "sum": "sum",
    "zmuv": "zmuv",
    "rank": "rank",
    None: None,
}


def random_runs(seed: int, queries: int, docs: int) -> Runs:
    """Three runs of the same queries, distinct scores within each query."""
    rng = np.random.default_rng(seed)
    runs: Runs = []
    for _ in range(3):
        run: dict[str, dict[str, float]] = {}
        for q in range(queries):
            picked = rng.choice(docs + 5, size=rng.integers(1, docs + 1), replace=False)
            scores = rng.permutation(len(picked)) + rng.normal(size=len(picked)) * 0.1
            run[f"q{q}"] = {f"d{d}": float(s) for d, s in zip(picked, scores, strict=True)}
        runs.append(run)
    return runs


RANX_CASES = [("rrf", "minmax"), ("combsum", "sum"), ("combmnz", "zmuv"), ("wsum", "minmax")]


@pytest.mark.parametrize(("method", "norm"), RANX_CASES)
def test_fused_scores_equal_ranx(method: str, norm: str) -> None:
    for seed in range(3):
        runs = random_runs(seed, 3, 10)
        short, params = METHODS[method]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ranx_runs = [RanxRun(r) for r in runs]
            expected = ranx_fuse(ranx_runs, norm=NORMS[norm], method=short, params=params)
        got = ranking.fuse(runs, method, norm=norm, **params).to_dict()
        assert_same(got, expected.to_dict())
        assert_same(got, by_definition(runs, method, norm, **params))


def assert_same(got: dict[str, dict[str, float]], expected: dict[str, dict[str, float]]) -> None:
    assert got.keys() == expected.keys()
    for q, row in expected.items():
        assert got[q].keys() == row.keys()
        for d, value in row.items():
            assert got[q][d] == pytest.approx(value, rel=1e-12, abs=1e-300), (q, d)


def by_definition(runs: Runs, method: str, norm: str | None, **params: Any) -> dict[str, Any]:
    """ranx's fusion written out one query and one document at a time (its documented rules)."""
    weights = params.get("weights", [1.0] * len(runs))
    scored: list[dict[str, dict[str, float]]] = []
    for run in runs:
        out: dict[str, dict[str, float]] = {}
        for q, docs in run.items():
            ranked = sorted(docs, key=lambda d: (-docs[d], d))
            s = [docs[d] for d in ranked]
            n = len(s)
            if method == "rrf":
                v = [1 / (60 + i + 1) for i in range(n)]
            elif method in ("isr", "log_isr", "logn_isr"):
                v = [1 / (i + 1) ** 2 for i in range(n)]
            elif norm == "minmax":
                v = [(x - min(s)) / max(max(s) - min(s), 1e-9) for x in s]
            elif norm == "max":
                v = [x / max(max(s), 1e-9) for x in s]
            elif norm == "sum":
                v = [(x - min(s)) / max(sum(s) - min(s) * n, 1e-9) for x in s]
            elif norm == "zmuv":
                mean = sum(s) / n
                std = (sum((x - mean) ** 2 for x in s) / n) ** 0.5
                v = [(x - mean) / max(std, 1e-9) for x in s]
            elif norm == "rank":
                v = [1 - i / n for i in range(n)]
            else:
                v = s
            out[q] = dict(zip(ranked, v, strict=True))
        scored.append(out)
    fused: dict[str, dict[str, float]] = {}
    for q in sorted({q for run in runs for q in run}):
        docs = {d for run in scored for d in run.get(q, {})}
        for d in docs:
            here = [
                (run[q][d], w)
                for run, w in zip(scored, weights, strict=True)
                if d in run.get(q, {})
            ]
            values = [x for x, _ in here]
            total, count = sum(values), len(values)
            value = {
                "rrf": total,
                "combsum": total,
                "isr": total * count,
                "combmnz": total * count,
                "log_isr": total * np.log(count),
                "logn_isr": total * np.log(count + params.get("sigma", 0.01)),
                "combmax": max(values),
                "combmin": min(values),
                "combmed": float(np.median(values)),
                "combanz": total / count,
                "combgmnz": total * count ** params.get("gamma", 1.0),
                "wsum": sum(w * x for x, w in here),
                "wmnz": total * sum(w for _, w in here),
            }[method]
            fused.setdefault(q, {})[d] = value
    return fused


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    queries=st.integers(1, 4),
    docs=st.integers(1, 12),
    method=st.sampled_from(sorted(METHODS)),
    norm=st.sampled_from(list(NORMS)),
)
def test_every_method_and_norm_by_definition(
    seed: int, queries: int, docs: int, method: str, norm: str | None
) -> None:
    runs = random_runs(seed, queries, docs)
    params = METHODS[method][1]
    got = ranking.fuse(runs, method, norm=norm, **params).to_dict()
    expected = by_definition(runs, method, norm, **params)
    for q, row in expected.items():
        for d, value in row.items():
            assert got[q][d] == pytest.approx(value, rel=1e-9, abs=1e-12), (q, d)


def test_ranx_short_names_and_weighted_sums() -> None:
    runs = random_runs(7, 3, 8)
    weights = [1.0, 2.0, 0.5]
    assert ranking.fuse(runs, "sum").to_dict() == ranking.fuse(runs, "combsum").to_dict()
    weighted = ranking.fuse(runs, "combsum", weights=weights).to_dict()
    assert weighted == ranking.fuse(runs, "wsum", weights=weights).to_dict()
    mnz = ranking.fuse(runs, "combmnz", weights=weights).to_dict()
    assert mnz == ranking.fuse(runs, "wmnz", weights=weights).to_dict()


def test_queries_of_some_runs_only_are_fused_over_those_runs() -> None:
    a = {"q1": {"x": 2.0, "y": 1.0}, "q2": {"z": 5.0}}
    b = {"q1": {"y": 3.0, "x": 1.0}, "q3": {"w": 1.0, "v": 0.5}}
    fused = ranking.fuse([a, b], "rrf").to_dict()
    assert sorted(fused) == ["q1", "q2", "q3"]
    assert fused["q1"] == {"x": 1 / 61 + 1 / 62, "y": 1 / 62 + 1 / 61}
    assert fused["q2"] == {"z": 1 / 61}
    assert fused["q3"] == {"w": 1 / 61, "v": 1 / 62}
    alone = ranking.fuse([{"q3": b["q3"]}, {"q3": {}}], "rrf").to_dict()
    assert alone["q3"] == fused["q3"]


def test_ties_of_the_fused_run_rank_as_trec_eval(tmp_path: Path) -> None:
    a = {"q": {"d1": 2.0, "d2": 1.0}}
    b = {"q": {"d2": 2.0, "d1": 1.0}}
    fused = ranking.fuse([a, b], "rrf")
    assert fused.ranking("q") == ["d2", "d1"]
    path = ranking.write_run(fused, tmp_path / "fused.txt", tag="rrf")
    lines = path.read_text().splitlines()
    assert [line.split()[2:4] for line in lines] == [["d2", "1"], ["d1", "2"]]
    back = ranking.read_run(path).to_dict()
    assert back == fused.to_dict()


def test_bad_fusions(tmp_path: Path) -> None:
    a = {"q": {"d1": 2.0}}
    with pytest.raises(ConfigError, match="needs two runs or more; got 1"):
        ranking.fuse([a], "rrf")
    with pytest.raises(ConfigError, match="unknown method; got 'votefuse'"):
        ranking.fuse([a, a], "votefuse")
    with pytest.raises(ConfigError, match="unknown norm; got 'l2'"):
        ranking.fuse([a, a], "combsum", norm="l2")
    with pytest.raises(ConfigError, match="needs weights"):
        ranking.fuse([a, a], "wsum")
    with pytest.raises(ConfigError, match="invalid weights"):
        ranking.fuse([a, a], "wsum", weights=[1.0])
    with pytest.raises(ConfigError, match="takes no weights"):
        ranking.fuse([a, a], "rrf", weights=[1.0, 1.0])
    with pytest.raises(ConfigError, match="invalid sigma"):
        ranking.fuse([a, a], "logn_isr", sigma=2.0)
    dup = tmp_path / "dup.txt"
    dup.write_text("q Q0 d1 1 2.0 x\nq Q0 d1 2 1.0 x\n")
    with pytest.raises(InputError, match=r"dup.txt, line 2: duplicate document; got doc 'd1'"):
        ranking.fuse([a, dup], "rrf")
    import pandas as pd

    table = pd.DataFrame({"query": ["q", "q"], "doc": ["d", "d"], "score": [1.0, 2.0]})
    with pytest.raises(InputError, match=r"run 2: .*duplicate document"):
        ranking.fuse([a, table], "rrf")


def run_cli(*args: Any) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in args])
    return status, out.getvalue(), err.getvalue()


def test_fuse_command(tmp_path: Path) -> None:
    runs = random_runs(11, 3, 10)
    paths = []
    for i, run in enumerate(runs):
        paths.append(ranking.write_run(run, tmp_path / f"run{i}.txt", tag=f"r{i}"))
    out = tmp_path / "fused.txt"
    status, text, _ = run_cli("fuse", *paths, "-o", out, "--method", "combmnz", "--norm", "zmuv")
    assert status == 0 and "to " in text
    expected = ranking.fuse(paths, "combmnz", norm="zmuv").to_dict()
    assert ranking.read_run(out).to_dict() == expected
    assert {line.split()[5] for line in out.read_text().splitlines()} == {"fused"}
    status, _, _ = run_cli(
        "fuse",
        *paths,
        "-o",
        out,
        "--method",
        "wsum",
        "--weights",
        1,
        2,
        3,
        "--norm",
        "none",
        "--tag",
        "w",
    )
    assert status == 0
    assert (
        ranking.read_run(out).to_dict()
        == ranking.fuse(paths, "wsum", norm=None, weights=[1.0, 2.0, 3.0]).to_dict()
    )
    status, _, err = run_cli("fuse", paths[0], "-o", out)
    assert status == 2 and "scorekit: fuse: needs two runs or more" in err
    status, _, err = run_cli("fuse", paths[0], tmp_path / "missing.txt", "-o", out)
    assert status == 2 and "missing.txt" in err
