"""Borda, Condorcet, RBC and Mixed fusion against ranx's fusion on Hypothesis runs.

ranx runs in one child process with numba's JIT off (``tests/ranx_worker.py``):
the same ranx source as plain Python, without the tens of seconds its numba
kernels for Borda and Condorcet take to compile in every process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from functools import cmp_to_key
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import ranking
from scorekit.cli import main
from scorekit.errors import ConfigError

Runs = list[dict[str, dict[str, float]]]


@st.composite
def runs_of(draw: st.DrawFn, n_runs: int | None = None) -> Runs:
    """Runs of the same queries with distinct scores; documents drawn from a small pool."""
    count = n_runs if n_runs is not None else draw(st.integers(2, 4))
    queries = draw(st.integers(1, 3))
    pool = draw(st.integers(2, 7))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    out: Runs = []
    for _ in range(count):
        run: dict[str, dict[str, float]] = {}
        for q in range(queries):
            picked = rng.choice(pool, size=rng.integers(1, pool + 1), replace=False)
            scores = rng.permutation(len(picked)) + rng.random(len(picked)) * 0.5
            run[f"q{q}"] = {f"d{d}": float(s) for d, s in zip(picked, scores, strict=True)}
        out.append(run)
    return out


@pytest.fixture(scope="module")
def ranx_worker() -> Iterator[subprocess.Popen[str]]:
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    worker = Path(__file__).with_name("ranx_worker.py")
    with subprocess.Popen(
        [sys.executable, str(worker)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    ) as child:
        yield child
        assert child.stdin is not None
        child.stdin.close()


def _ranx(
    child: subprocess.Popen[str], runs: Runs, method: str, norm: str | None, params: dict
) -> dict:
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write(json.dumps([runs, method, norm, params]) + "\n")
    child.stdin.flush()
    answer: dict = json.loads(child.stdout.readline())
    return answer


def _same(got: dict, want: dict) -> None:
    assert got.keys() == want.keys()
    for q, docs in want.items():
        assert got[q].keys() == docs.keys()
        for d, value in docs.items():
            assert got[q][d] == pytest.approx(value, rel=1e-12, abs=1e-300), (q, d)


def _strict_order(docs: list[str], compare) -> list[str] | None:
    """The order the comparison defines when it is a strict total order, else None."""
    order = sorted(docs, key=cmp_to_key(compare))
    for i, x in enumerate(order):
        for y in order[i + 1 :]:
            if compare(x, y) != -1 or compare(y, x) != 1:
                return None
    return order


def _ranx_contest(runs: Runs, q: str, weights: list[float]):
    """ranx's comparison of two documents: x first when its votes are at least the rest."""

    def index(run: dict[str, float], d: str) -> int:
        ranked = sorted(run, key=lambda x: -run[x])
        return ranked.index(d) if d in run else 1_000_000

    def compare(x: str, y: str) -> int:
        pairs = zip(runs, weights, strict=True)
        x_votes = sum(w for r, w in pairs if index(r[q], x) < index(r[q], y))
        return -1 if x_votes >= sum(weights) - x_votes else 1

    return compare


@settings(max_examples=10, deadline=None)
@given(runs=runs_of(n_runs=3))
def test_borda_condorcet_rbc_mixed_equal_ranx(
    ranx_worker: subprocess.Popen[str], runs: Runs
) -> None:
    weights = [0.5, 2.0, 1.25]
    for method, short, ours, params, norm in [
        ("bordafuse", "bordafuse", {}, {}, None),
        ("weighted_bordafuse", "w_bordafuse", {"weights": weights}, {"weights": weights}, None),
        ("rbc", "rbc", {"phi": 0.8}, {"phi": 0.8}, None),
        ("mixed", "mixed", {"weights": weights}, {"weights": weights}, "min-max"),
    ]:
        want = _ranx(ranx_worker, runs, short, norm, params)
        got = ranking.fuse(runs, method, norm="minmax" if norm else None, **ours)  # type: ignore[arg-type]
        _same(got.to_dict(), want)
    for method, w in [("condorcet", [1.0, 1.0, 1.0]), ("weighted_condorcet", weights)]:
        params: dict[str, object] = {"weights": w} if method == "weighted_condorcet" else {}
        got = ranking.fuse(runs, method, norm=None, **params).to_dict()  # type: ignore[arg-type]
        want = _ranx(ranx_worker, runs, "w_condorcet" if params else "condorcet", None, params)
        for q in want:
            docs = sorted({d for r in runs for d in r[q]})
            assert sorted(got[q].values()) == list(range(1, len(docs) + 1))
            order = _strict_order(docs, _ranx_contest(runs, q, w))
            if order is not None:
                assert got[q] == want[q]
                assert sorted(order, key=lambda d: -got[q][d]) == order


def test_condorcet_orders_cycles_and_ties_by_copeland_then_doc_id() -> None:
    # a cycle: a > b (runs 1, 3), b > c (runs 1, 2), c > a (runs 2, 3)
    runs = [
        {"q": {"a": 3.0, "b": 2.0, "c": 1.0}},
        {"q": {"b": 3.0, "c": 2.0, "a": 1.0}},
        {"q": {"c": 3.0, "a": 2.0, "b": 1.0}},
    ]
    assert ranking.fuse(runs, "condorcet").ranking("q") == ["c", "b", "a"]
    runs.append({"q": {"a": 3.0, "c": 2.0, "b": 1.0}})
    # four runs: a beats b 3-1 and c 2-2 ties, b and c tie 2-2
    assert ranking.fuse(runs, "condorcet").ranking("q") == ["a", "c", "b"]


def test_borda_of_a_query_some_runs_lack_counts_the_runs_that_have_it() -> None:
    a = {"q1": {"x": 2.0, "y": 1.0}, "q2": {"z": 1.0}}
    b = {"q1": {"y": 5.0}}
    fused = ranking.fuse([a, b], "bordafuse").to_dict()
    assert fused == {"q1": {"x": 2.0 + 1.0, "y": 1.0 + 2.0}, "q2": {"z": 1.0}}
    weighted = ranking.fuse([a, b], "bordafuse", weights=[2.0, 1.0]).to_dict()
    assert weighted["q1"] == {"x": 2 * 2.0 + 1.0, "y": 2 * 1.0 + 2.0}


def test_fusion_options_errors() -> None:
    a = {"q": {"d1": 2.0, "d2": 1.0}}
    with pytest.raises(ConfigError, match=r"fuse \(rbc\): needs phi"):
        ranking.fuse([a, a], "rbc")
    with pytest.raises(ConfigError, match=r"fuse \(rbc\): invalid phi; got 1.5"):
        ranking.fuse([a, a], "rbc", phi=1.5)
    with pytest.raises(ConfigError, match=r"fuse \(mixed\): needs weights"):
        ranking.fuse([a, a], "mixed")
    with pytest.raises(ConfigError, match=r"fuse \(weighted_condorcet\): needs weights"):
        ranking.fuse([a, a], "w_condorcet")
    with pytest.raises(ConfigError, match=r"fuse \(rrf\): takes no weights"):
        ranking.fuse([a, a], "rrf", weights=[1.0, 2.0])


def test_fuse_command_with_rbc_and_borda(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one, two, out = tmp_path / "one.txt", tmp_path / "two.txt", tmp_path / "fused.txt"
    one.write_text("q Q0 a 1 3.0 x\nq Q0 b 2 2.0 x\n")
    two.write_text("q Q0 b 1 9.0 y\nq Q0 c 2 1.0 y\n")
    assert (
        main(["fuse", str(one), str(two), "-o", str(out), "--method", "rbc", "--phi", "0.5"]) == 0
    )
    lines = out.read_text().splitlines()
    assert lines[0].split()[2:5] == ["b", "1", repr(0.25 + 0.5)]
    assert main(["fuse", str(one), str(two), "-o", str(out), "--method", "bordafuse"]) == 0
    assert [line.split()[2] for line in out.read_text().splitlines()] == ["b", "a", "c"]
    capsys.readouterr()
    assert main(["fuse", str(one), str(two), "-o", str(out), "--method", "rbc"]) == 2
    assert "scorekit: fuse (rbc): needs phi" in capsys.readouterr().err
