"""Trained fusion (BayesFuse, MAPFuse, PosFuse, ProbFuse, SegFuse, SlideFuse) and the Borda and
inverted min-max normalizations against ranx, on Hypothesis runs with tied scores.

ranx runs in one child process with numba's JIT off: the same ranx source as
plain Python, without compiling its kernels in every process. Compiled, ranx
keeps tied documents in the order it was given them (numba's sort is an
insertion sort on lists this short), so the runs are given to it in trec_eval's
order, scorekit's: score descending, doc id descending; with the JIT off ranx
sorts with numpy's argsort, which the worker makes stable to keep that order.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import ranking
from scorekit.cli import main
from scorekit.compat import ranx as ranx_compat
from scorekit.errors import ConfigError, InputError
from scorekit.ranking import train_fusion

Runs = list[dict[str, dict[str, float]]]

WORKER = r"""
import json, sys, types, warnings
warnings.simplefilter("ignore")
import numpy as np
import ranx.data_structures.common as common
from ranx import Qrels, Run, fuse, optimize_fusion
from ranx.fusion import probfuse_train, slidefuse_train
from ranx.normalization import norm_switch

# numba's compiled argsort keeps ties in order on short lists (an insertion sort); numpy's,
# which ranx calls with the JIT off, need not: give ranx the order its compiled code gives
common.np = types.SimpleNamespace(**{**vars(np), "argsort": lambda a: np.argsort(a, kind="stable")})

def normalized(runs, norm):
    if norm is None:
        return runs
    if norm == "borda":
        return norm_switch(norm)(runs)
    return [norm_switch(norm)(run) for run in runs]

def plain(x):
    return float(x) if getattr(x, "ndim", 0) == 0 else [float(v) for v in x]

def answer(ask):
    runs = [Run(r) for r in ask["runs"]]
    method, norm, params = ask["method"], ask["norm"], ask.get("params") or {}
    trained = None
    if "qrels" in ask:
        qrels = Qrels(ask["qrels"])
        train = [Run(r) for r in ask["train"]]
        if method == "probfuse":
            params = {"probs": probfuse_train(qrels, normalized(train, norm), ask["n_segments"])}
        elif method == "slidefuse":
            params = {"probs": slidefuse_train(qrels, normalized(train, norm)), "w": ask["w"]}
        else:
            params = optimize_fusion(qrels, train, norm=norm, method=method)
        trained = [plain(v) for v in next(iter(params.values()))]
    fused = fuse(runs, norm=norm, method=method, params=params)
    scores = {q: {d: float(v) for d, v in docs.items()} for q, docs in fused.to_dict().items()}
    return {"fused": scores, "trained": trained}

for line in sys.stdin:
    try:
        out = answer(json.loads(line))
    except Exception as exc:
        out = {"error": repr(exc)}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"""

NORMS = {
    None: None,
    "minmax": "min-max",
    "minmax_inverted": "min-max-inverted",
    "max": "max",
    "sum": "sum",
    "zmuv": "zmuv",
    "rank": "rank",
}
TRAINED = ("bayesfuse", "mapfuse", "posfuse", "probfuse", "segfuse", "slidefuse")


@pytest.fixture(scope="module")
def ranx_worker() -> Iterator[subprocess.Popen[str]]:
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    with subprocess.Popen(
        [sys.executable, "-c", WORKER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    ) as child:
        yield child
        assert child.stdin is not None
        child.stdin.close()


def ask_ranx(child: subprocess.Popen[str], **request: Any) -> dict[str, Any]:
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write(json.dumps(request) + "\n")
    child.stdin.flush()
    line = child.stdout.readline()
    assert line, "the ranx worker stopped"
    answer: dict[str, Any] = json.loads(line)
    assert "error" not in answer, answer
    return answer


def trec_order(run: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """The run with each query's documents by descending score, then descending doc id."""
    return {
        q: dict(sorted(docs.items(), key=lambda item: (item[1], item[0]), reverse=True))
        for q, docs in run.items()
    }


@st.composite
def ranked_runs(draw: st.DrawFn, queries: list[str], count: int, empty: bool) -> Runs:
    """``count`` runs of ``queries``, docs from a small pool, scores from few values (ties)."""
    pool = draw(st.integers(2, 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    levels = draw(st.integers(1, 6))
    out: Runs = []
    for _ in range(count):
        run: dict[str, dict[str, float]] = {}
        for q in queries:
            size = int(rng.integers(0 if empty else 1, pool + 1))
            picked = rng.choice(pool, size=size, replace=False)
            scores = rng.integers(0, levels, size=size) * 0.75 - 1.0
            run[q] = {f"d{d}": float(s) for d, s in zip(picked, scores, strict=True)}
        if not any(run.values()):
            run[queries[0]] = {"d0": 1.0}
        out.append(trec_order(run))
    return out


@st.composite
def trained_case(draw: st.DrawFn, empty: bool = False) -> dict[str, Any]:
    """Training runs, qrels of their queries, and runs to fuse (of empty rankings with
    ``empty``, and then a query without documents in every run)."""
    count = draw(st.integers(2, 3))
    train_queries = [f"t{i}" for i in range(draw(st.integers(1, 4)))]
    test_queries = [f"q{i}" for i in range(draw(st.integers(1, 3)))]
    train = draw(ranked_runs(train_queries, count, empty=True))
    runs = draw(ranked_runs(test_queries, count, empty=empty))
    if empty:
        for run in runs:
            run["none"] = {}
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    qrels: dict[str, dict[str, int]] = {}
    for q in train_queries:
        judged = rng.choice(12, size=int(rng.integers(1, 8)), replace=False)
        qrels[q] = {f"d{d}": int(rng.integers(0, 3)) for d in judged}
    return {"train": train, "runs": runs, "qrels": qrels}


def same(got: dict[str, dict[str, float]], want: dict[str, dict[str, float]]) -> None:
    assert got.keys() == want.keys()
    for q, docs in want.items():
        assert got[q].keys() == docs.keys(), q
        for d, value in docs.items():
            assert got[q][d] == pytest.approx(value, rel=1e-12, abs=1e-12), (q, d)


def same_values(got: list[Any], want: list[Any]) -> None:
    assert len(got) == len(want)
    for mine, theirs in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(mine), np.asarray(theirs), rtol=1e-12, atol=1e-15)


@settings(max_examples=25, deadline=None)
@given(
    case=trained_case(),
    method=st.sampled_from(TRAINED),
    norm=st.sampled_from(list(NORMS)),
    n_segments=st.integers(1, 6),
    window=st.integers(0, 4),
)
def test_trained_fusion_equals_ranx(
    ranx_worker: subprocess.Popen[str],
    case: dict[str, Any],
    method: str,
    norm: str | None,
    n_segments: int,
    window: int,
) -> None:
    options: dict[str, Any] = {}
    if method == "probfuse":
        options["n_segments"] = n_segments
    if method == "slidefuse":
        options["window"] = window
    want = ask_ranx(
        ranx_worker,
        runs=case["runs"],
        train=case["train"],
        qrels=case["qrels"],
        method=method,
        norm=NORMS[norm],
        n_segments=n_segments,
        w=window,
    )
    trained = train_fusion(
        case["qrels"],
        case["train"],
        method,
        norm=norm,
        n_segments=options.get("n_segments"),
    )
    same_values(trained, want["trained"])
    fused = ranking.fuse(
        case["runs"],
        method,
        norm=norm,
        qrels=case["qrels"],
        train_runs=case["train"],
        **options,
    )
    same(fused.to_dict(), want["fused"])
    window_only = {"window": window} if method == "slidefuse" else {}
    again = ranking.fuse(case["runs"], method, norm=norm, trained=trained, **window_only)
    assert again.to_dict() == fused.to_dict()


@settings(max_examples=15, deadline=None)
@given(
    case=trained_case(empty=True),
    method=st.sampled_from(TRAINED[1:]),
    norm=st.sampled_from(["min-max", "min-max-inverted", "zmuv", None]),
)
def test_compat_fuse_and_optimize_fusion_equal_ranx(
    ranx_worker: subprocess.Popen[str], case: dict[str, Any], method: str, norm: str | None
) -> None:
    # an empty ranking adds nothing to posfuse...slidefuse, as in ranx (not to bayesfuse)
    fixed = {"probfuse": {"min_n_segments": 3, "max_n_segments": 3}}
    fixed["slidefuse"] = {"min_w": 2, "max_w": 2}
    want = ask_ranx(ranx_worker, **case, method=method, norm=norm, n_segments=3, w=2)
    params = ranx_compat.optimize_fusion(
        case["qrels"], case["train"], norm=norm, method=method, **fixed.get(method, {})
    )
    assert set(params) == ({"probs", "w"} if method == "slidefuse" else {_KEYS[method]})
    same_values(params[_KEYS[method]], want["trained"])
    fused = ranx_compat.fuse([ranx_compat.Run(r) for r in case["runs"]], norm, method, params)
    assert fused["none"] == {} and want["fused"]["none"] == {}
    same(fused.to_dict(), want["fused"])


_KEYS = {"mapfuse": "map_scores", "posfuse": "probs", "probfuse": "probs"}
_KEYS |= {"segfuse": "probs", "slidefuse": "probs", "bayesfuse": "log_odds"}


@settings(max_examples=25, deadline=None)
@given(
    runs=st.integers(2, 3).flatmap(lambda n: ranked_runs(["q0", "q1", "q2"], n, empty=False)),
    method=st.sampled_from(
        ["rrf", "isr", "combsum", "combmnz", "combmax", "combmed", "combanz", "bordafuse"]
    ),
)
def test_inverted_minmax_equals_ranx(
    ranx_worker: subprocess.Popen[str], runs: Runs, method: str
) -> None:
    short = {"combsum": "sum", "combmnz": "mnz", "combmax": "max", "combmed": "med"}
    short |= {"combanz": "anz"}
    want = ask_ranx(
        ranx_worker, runs=runs, method=short.get(method, method), norm="min-max-inverted"
    )
    got = ranking.fuse(runs, method, norm="min-max-inverted")
    same(got.to_dict(), want["fused"])


@settings(max_examples=25, deadline=None)
@given(
    runs=st.integers(2, 3).flatmap(lambda n: ranked_runs(["q0", "q1"], n, empty=False)),
    method=st.sampled_from(["combsum", "combmnz", "combmax", "combmin", "combmed", "wsum"]),
)
def test_borda_norm_equals_ranx(
    ranx_worker: subprocess.Popen[str], runs: Runs, method: str
) -> None:
    short = {"combsum": "sum", "combmnz": "mnz", "combmax": "max", "combmin": "min"}
    short |= {"combmed": "med"}
    weights = [0.5, 2.0, 1.25][: len(runs)]
    params = {"weights": weights} if method == "wsum" else {}
    want = ask_ranx(
        ranx_worker, runs=runs, method=short.get(method, method), norm="borda", params=params
    )
    got = ranking.fuse(runs, method, norm="borda", **params)  # type: ignore[arg-type]
    same(got.to_dict(), want["fused"])


def by_hand_bayes(odds: list[float], positions: list[int | None]) -> float:
    """The sum over the runs of the log-odds at each position (None: not retrieved)."""
    floor = math.log(0.001 / 0.999)
    return sum(odds[p] if p is not None else floor for p in positions)


def test_trained_methods_by_hand() -> None:
    qrels = {"t": {"a": 1, "b": 0, "c": 2}}
    train = [{"t": {"a": 3.0, "b": 2.0, "c": 1.0}}, {"t": {"b": 3.0, "c": 2.0}}]
    runs = [{"q": {"x": 2.0, "y": 1.0}}, {"q": {"y": 5.0, "z": 4.0}}]
    probs = train_fusion(qrels, train, "posfuse")
    assert [p.tolist() for p in probs] == [[1.0, 0.0, 1.0], [0.0, 1.0]]
    fused = ranking.fuse(runs, "posfuse", qrels=qrels, train_runs=train).to_dict()
    assert fused == {"q": {"x": 1.0, "y": 0.0 + 0.0, "z": 1.0}}
    # AP of the first run (1 + 2/3) / 2, of the second 0.5 / 2
    maps = train_fusion(qrels, train, "mapfuse")
    assert maps == pytest.approx([(1 + 2 / 3) / 2, 0.25], rel=1e-15)
    fused = ranking.fuse(runs, "mapfuse", trained=maps).to_dict()
    assert fused["q"]["y"] == pytest.approx(maps[0] / 2 + maps[1] / 1, rel=1e-15)
    odds = train_fusion(qrels, train, "bayesfuse")
    # the top 5 positions hold 2 relevant documents of 5 in run 1 and 1 of 5 in run 2
    assert odds[0][:5].tolist() == [math.log(0.4 / 0.6)] * 5
    assert odds[1][0] == math.log(0.2 / 0.8) and len(odds[0]) == 1000
    assert odds[0][5] == math.log(0.001 / 0.999)
    fused = ranking.fuse(runs, "bayesfuse", trained=odds).to_dict()
    assert fused["q"]["x"] == pytest.approx(by_hand_bayes(odds[0].tolist(), [0, None]))
    # ProbFuse, 2 segments: of ceil(3 / 2) = 2 positions, [1, 0] and [1]; of 1, [0] and [1]
    segs = train_fusion(qrels, train, "probfuse", n_segments=2)
    assert segs[0].tolist() == [0.5, 1.0] and segs[1].tolist() == [0.0, 1.0]
    fused = ranking.fuse(runs, "probfuse", trained=segs).to_dict()
    assert fused["q"] == {"x": 0.5 / 1, "y": 1.0 / 2 + 0.0 / 1, "z": 1.0 / 2}
    # SegFuse: the first segment holds 5 positions, its hits divided by 5
    seg = train_fusion(qrels, train, "segfuse")
    assert seg[0].tolist() == [0.4] + [0.0] * 9
    fused = ranking.fuse(runs, "segfuse", norm=None, trained=seg).to_dict()
    assert fused["q"]["x"] == pytest.approx(0.4 * (2.0 + 1.0))
    # SlideFuse with window 1 over PosFuse's [1, 0, 1] and [0, 1]
    fused = ranking.fuse(runs, "slidefuse", qrels=qrels, train_runs=train, window=1).to_dict()
    assert fused["q"] == {"x": 0.5, "y": 0.5 + 0.5, "z": 0.5}


def test_training_reads_the_qrels_queries_of_the_runs() -> None:
    # one run file of training and test queries; the qrels judge the training ones
    qrels = {"t": {"a": 1}}
    runs = [{"t": {"a": 2.0, "b": 1.0}, "q": {"x": 1.0}}, {"t": {"b": 2.0}, "q": {"x": 3.0}}]
    probs = train_fusion(qrels, runs, "posfuse")
    assert [p.tolist() for p in probs] == [[1.0, 0.0], [0.0]]
    fused = ranking.fuse(runs, "posfuse", qrels=qrels).to_dict()
    assert fused == {"q": {"x": 1.0}, "t": {"a": 1.0, "b": 0.0}}
    # a qrels query a run lacks counts in the mean (MAP 0 there)
    both = {"t": {"a": 1}, "u": {"z": 1}}
    assert train_fusion(both, runs, "mapfuse") == [0.5, 0.0]


def test_trained_fusion_errors(tmp_path: Path) -> None:
    a = {"q": {"d1": 2.0, "d2": 1.0}}
    qrels = {"q": {"d1": 1}}
    with pytest.raises(ConfigError, match=r"fuse \(posfuse\): needs qrels to train on"):
        ranking.fuse([a, a], "posfuse")
    with pytest.raises(ConfigError, match=r"takes qrels or trained, not both"):
        ranking.fuse([a, a], "posfuse", qrels=qrels, trained=[[1.0], [1.0]])
    with pytest.raises(ConfigError, match=r"fuse \(rrf\): takes no qrels \(it trains nothing\)"):
        ranking.fuse([a, a], "rrf", qrels=qrels)
    with pytest.raises(ConfigError, match=r"fuse \(probfuse\): needs n_segments to train"):
        ranking.fuse([a, a], "probfuse", qrels=qrels)
    with pytest.raises(ConfigError, match=r"invalid n_segments; got 0"):
        ranking.fuse([a, a], "probfuse", qrels=qrels, n_segments=0)
    with pytest.raises(ConfigError, match=r"fuse \(slidefuse\): needs window"):
        ranking.fuse([a, a], "slidefuse", qrels=qrels)
    with pytest.raises(ConfigError, match=r"invalid window; got -1"):
        ranking.fuse([a, a], "slidefuse", qrels=qrels, window=-1)
    with pytest.raises(ConfigError, match=r"fuse \(posfuse\): takes no window"):
        ranking.fuse([a, a], "posfuse", qrels=qrels, window=2)
    with pytest.raises(ConfigError, match=r"train_runs differ in number from the runs; got 1"):
        ranking.fuse([a, a], "posfuse", qrels=qrels, train_runs=[a])
    with pytest.raises(ConfigError, match=r"invalid trained values; got list of length 1"):
        ranking.fuse([a, a], "posfuse", trained=[[1.0]])
    with pytest.raises(ConfigError, match=r"invalid trained values of run 2; got \[nan\]"):
        ranking.fuse([a, a], "posfuse", trained=[[1.0], [float("nan")]])
    with pytest.raises(ConfigError, match=r"segfuse.*expected 10 finite numbers per run"):
        ranking.fuse([a, a], "segfuse", trained=[[1.0], [1.0]])
    with pytest.raises(ConfigError, match=r"mapfuse.*expected a finite number per run"):
        ranking.fuse([a, a], "mapfuse", trained=[[1.0], [1.0]])
    with pytest.raises(InputError, match=r"training run 1 shares no query with the qrels; got run"):
        ranking.fuse([a, a], "bayesfuse", qrels={"other": {"d1": 1}})
    with pytest.raises(ConfigError, match=r"train_fusion: not a trained method; got 'rrf'"):
        train_fusion(qrels, [a, a], "rrf")
    missing = tmp_path / "qrels.txt"
    with pytest.raises(InputError, match=r"qrels\.txt"):
        ranking.fuse([a, a], "posfuse", qrels=missing)


def write_qrels(qrels: dict[str, dict[str, int]], path: Path) -> Path:
    lines = [f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()]
    path.write_text("".join(lines))
    return path


def test_fuse_command_trains_on_the_judged_queries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = [
        {
            "t1": {"a": 3.0, "b": 2.0, "c": 1.0},
            "t2": {"c": 2.0, "e": 1.0},
            "q": {"x": 2.0, "y": 1.0},
        },
        {"t1": {"b": 3.0, "c": 2.0}, "t2": {"e": 4.0, "c": 4.0}, "q": {"y": 5.0, "z": 4.0}},
    ]
    paths = [ranking.write_run(run, tmp_path / f"run{i}.txt") for i, run in enumerate(runs)]
    qrels = {"t1": {"a": 1, "c": 2}, "t2": {"e": 1}}
    judged = write_qrels(qrels, tmp_path / "qrels.txt")
    out = tmp_path / "fused.txt"
    for method, extra, options in [
        ("posfuse", [], {}),
        ("probfuse", ["--segments", "2"], {"n_segments": 2}),
        ("slidefuse", ["--window", "1"], {"window": 1}),
        ("segfuse", ["--norm", "minmax_inverted"], {"norm": "minmax_inverted"}),
        ("bayesfuse", [], {}),
        ("mapfuse", ["--norm", "rank"], {"norm": "rank"}),
    ]:
        argv = ["fuse", *map(str, paths), "-o", str(out), "--method", method]
        assert main([*argv, "--qrels", str(judged), *extra]) == 0
        assert "wrote" in capsys.readouterr().out
        want = ranking.fuse(runs, method, qrels=qrels, **options).to_dict()
        assert ranking.read_run(out).to_dict() == want
    train = [ranking.write_run(run, tmp_path / f"train{i}.txt") for i, run in enumerate(runs[::-1])]
    argv = ["fuse", *map(str, paths), "-o", str(out), "--method", "posfuse", "--qrels", str(judged)]
    assert main([*argv, "--train-runs", *map(str, train)]) == 0
    want = ranking.fuse(runs, "posfuse", qrels=qrels, train_runs=runs[::-1]).to_dict()
    assert ranking.read_run(out).to_dict() == want
    capsys.readouterr()
    argv = ["fuse", *map(str, paths), "-o", str(out), "--method"]
    assert main([*argv, "posfuse"]) == 2
    assert "scorekit: fuse (posfuse): needs qrels to train on" in capsys.readouterr().err
    assert main([*argv, "probfuse", "--qrels", str(judged)]) == 2
    assert "fuse (probfuse): needs n_segments to train" in capsys.readouterr().err
    assert main([*argv, "slidefuse", "--qrels", str(judged)]) == 2
    assert "fuse (slidefuse): needs window" in capsys.readouterr().err
    assert main([*argv, "rrf", "--qrels", str(judged)]) == 2
    assert "fuse (rrf): takes no qrels (it trains nothing)" in capsys.readouterr().err
    other = write_qrels({"zz": {"a": 1}}, tmp_path / "other.txt")
    assert main([*argv, "posfuse", "--qrels", str(other)]) == 2
    err = capsys.readouterr().err
    assert "training run 1 shares no query with the qrels; got run queries ['q', 't1', 't2']" in err
    assert main([*argv, "posfuse", "--qrels", str(tmp_path / "missing.txt")]) == 2
    assert "missing.txt" in capsys.readouterr().err


# ranx's own unit-test cases: three runs of two queries, the first document relevant
RANX_QRELS = {"q1": {"d1": 1}, "q2": {"d1": 1}}
RANX_RUNS = [
    {"q1": {"d1": 1.0, "d2": 2.0, "d3": 3.0}, "q2": {"d1": 1.0, "d2": 2.0}},
    {"q1": {"d1": 3.0, "d2": 2.0}, "q2": {"d1": 1.0, "d3": 3.0}},
    {"q1": {"d3": 1.0}, "q2": {"d2": 2.0, "d3": 3.0}},
]


def test_ranx_cases_probfuse_slidefuse_segfuse() -> None:
    probs = train_fusion(RANX_QRELS, RANX_RUNS, "probfuse", norm=None, n_segments=2)
    assert [p.tolist() for p in probs] == [[0.0, 1.0], [0.5, 0.5], [0.0, 0.0]]
    got = ranking.fuse(RANX_RUNS, "probfuse", norm=None, trained=probs).to_dict()
    p0, p1, p2 = probs
    assert got["q1"] == {"d1": p0[1] / 2 + p1[0], "d2": p0[0] + p1[1] / 2, "d3": p0[0] + p2[0]}
    assert got["q2"] == {
        "d1": p0[1] / 2 + p1[1] / 2,
        "d2": p0[0] + p2[1] / 2,
        "d3": p1[0] + p2[0],
    }
    probs = train_fusion(RANX_QRELS, RANX_RUNS, "slidefuse", norm=None)
    assert [p.tolist() for p in probs] == [[0.0, 0.5, 1.0], [0.5, 0.5], [0.0, 0.0]]
    p0, p1, p2 = (p.tolist() for p in probs)
    fused = {
        w: ranking.fuse(RANX_RUNS, "slidefuse", norm=None, trained=probs, window=w) for w in (1, 2)
    }
    assert fused[1].to_dict() == {
        "q1": {
            "d1": sum(p0[1:3]) / 2 + sum(p1) / 2,
            "d2": sum(p0) / 3 + sum(p1) / 2,
            "d3": sum(p0[:2]) / 2 + sum(p2) / 2,
        },
        "q2": {
            "d1": sum(p0[:2]) / 2 + sum(p1) / 2,
            "d2": sum(p0[:2]) / 2 + sum(p2) / 2,
            "d3": sum(p1) / 2 + sum(p2) / 2,
        },
    }
    assert fused[2].to_dict()["q1"] == {
        "d1": sum(p0) / 3 + sum(p1) / 2,
        "d2": sum(p0) / 3 + sum(p1) / 2,
        "d3": sum(p0) / 3 + sum(p2) / 2,
    }
    probs = train_fusion(RANX_QRELS, RANX_RUNS, "segfuse", norm=None)
    assert [p.tolist() for p in probs] == [[0.2] + [0.0] * 9] * 2 + [[0.0] * 10]
    got = ranking.fuse(RANX_RUNS, "segfuse", norm=None, trained=probs).to_dict()
    r0, r1, r2 = RANX_RUNS
    assert got["q1"]["d3"] == 0.2 * (1 + r0["q1"]["d3"]) + 0.0 * (1 + r2["q1"]["d3"])
    assert got["q2"]["d1"] == 0.2 * (1 + r0["q2"]["d1"]) + 0.2 * (1 + r1["q2"]["d1"])


def test_ranx_cases_bayesfuse() -> None:
    qrels = {
        "q1": dict.fromkeys(("d1", "d2", "d8", "d9", "d10"), 1),
        "q2": dict.fromkeys(("d2", "d4", "d7"), 1),
        "q3": dict.fromkeys(("d1", "d3", "d4", "d5", "d6", "d8", "d9"), 1),
    }
    descending = {f"d{i}": float(11 - i) for i in range(1, 11)}
    first = {"q1": descending, "q2": descending, "q3": descending}
    order = {
        "q1": ["d1", "d2", "d8", "d9", "d10", "d3", "d4", "d5", "d6", "d7"],
        "q2": ["d2", "d4", "d7", "d1", "d3", "d5", "d6", "d8", "d9", "d10"],
    }
    second = {q: {d: float(10 - i) for i, d in enumerate(docs)} for q, docs in order.items()}
    second["q3"] = descending
    odds = train_fusion(qrels, [first, second], "bayesfuse", norm=None)
    for run, top, next_five in [(0, 8 / 15, 7 / 15), (1, 12 / 15, 3 / 15)]:
        assert odds[run][:5].tolist() == [math.log(top / (1 - top))] * 5
        assert odds[run][5:10] == pytest.approx([math.log(next_five / (1 - next_five))] * 5)
        assert (odds[run][10:] < 0).all()
    got = ranking.fuse([first, second], "bayesfuse", norm=None, trained=odds).to_dict()
    for q in ("q1", "q2", "q3"):
        for d in descending:
            p0 = list(descending).index(d)
            p1 = order[q].index(d) if q in order else p0
            assert got[q][d] == odds[0][p0] + odds[1][p1], (q, d)


def test_ranx_cases_norms() -> None:
    from scorekit.ranking._data import as_run
    from scorekit.ranking._fusion_norms import renormalized

    runs = [as_run(run) for run in RANX_RUNS]
    borda = [run.to_dict() for run in renormalized(runs, "borda", "combsum")]
    borda = [
        {q: {d: pytest.approx(v, rel=1e-15) for d, v in docs.items()} for q, docs in run.items()}
        for run in borda
    ]
    assert borda[0] == {
        "q1": {"d1": 1 / 3, "d2": 2 / 3, "d3": 1.0},
        "q2": {"d1": 2 / 3, "d2": 1.0, "d3": 1 / 3},
    }
    assert borda[1] == {
        "q1": {"d1": 1.0, "d2": 2 / 3, "d3": 1 / 3},
        "q2": {"d1": 2 / 3, "d2": 1 / 3, "d3": 1.0},
    }
    assert borda[2] == {
        "q1": {"d1": 1.5 / 3, "d2": 1.5 / 3, "d3": 1.0},
        "q2": {"d1": 1 / 3, "d2": 2 / 3, "d3": 1.0},
    }
    inverted = renormalized(runs[:1], "minmax_inverted", "combsum")[0]
    assert inverted.to_dict() == {
        "q1": {"d1": 1.0, "d2": 0.5, "d3": 0.0},
        "q2": {"d1": 1.0, "d2": 0.0},
    }
    assert inverted.ranking("q1") == ["d1", "d2", "d3"]


def test_long_rankings_and_huge_scores() -> None:
    qrels = {"t": {"d0": 1, "d1200": 1, "d6000": 1}}
    long = {"t": {f"d{i}": float(-i) for i in range(6001)}}
    runs = [long, {"t": {"d0": 1.0}}]
    odds = train_fusion(qrels, runs, "bayesfuse")
    fused = ranking.fuse(runs, "bayesfuse", trained=odds).to_dict()["t"]
    # past position 1000 a document counts as not retrieved
    floor = math.log(0.001 / 0.999)
    assert fused["d1200"] == floor + floor and fused["d999"] == odds[0][999] + floor
    seg = train_fusion(qrels, runs, "segfuse", norm=None)
    # d1200 in the segment 635-1275 of 640 positions; d6000 past 5115
    assert seg[0].tolist() == [0.2] + [0.0] * 6 + [1 / 640, 0.0, 0.0]
    fused = ranking.fuse(runs, "segfuse", norm=None, trained=seg).to_dict()["t"]
    assert fused["d6000"] == 0.0 and fused["d1000"] == (-1000.0 + 1.0) / 640
    huge = [{"q": {"a": 1e308, "b": -1e308}}, {"q": {"a": 1e308}}]
    trained = [[1.0] + [0.0] * 9] * 2
    with pytest.raises(InputError, match=r"fuse \(segfuse\): the fused score .* overflows"):
        ranking.fuse(huge, "segfuse", norm=None, trained=trained)
    with pytest.raises(InputError, match=r"a query's scores overflow the floats"):
        ranking.fuse(huge, "segfuse", norm="minmax", trained=trained)


def test_rank_based_methods_read_the_borda_ranking() -> None:
    # with Borda's norm a run ranks the documents it lacks after its own, by doc id descending
    a = {"q": {"x": 3.0, "y": 1.0}}
    b = {"q": {"z": 2.0}}
    got = ranking.fuse([a, b], "rrf", norm="borda").to_dict()["q"]
    # a: x, y, z; b: z, then y and x (tied at Borda's 0.5) by doc id descending
    assert got == {"x": 1 / 61 + 1 / 63, "y": 1 / 62 + 1 / 62, "z": 1 / 63 + 1 / 61}
    inverted = ranking.fuse([a, b], "rrf", norm="min-max-inverted").to_dict()["q"]
    assert inverted == {"x": 1 / 62, "y": 1 / 61, "z": 1 / 61}
