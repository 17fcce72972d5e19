"""scorekit.compat.ranx against ranx where scorekit follows ranx, against pytrec_eval where not.

ranx runs in one child process with numba's JIT off (``tests/ranx_eval_worker.py``):
its kernels would otherwise compile for tens of seconds.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DATA
from scorekit.compat import ranx
from scorekit.errors import ConfigError, InputError

Judgments = dict[str, dict[str, int]]
Ranking = dict[str, dict[str, float]]


@pytest.fixture(scope="module")
def ranx_worker() -> Iterator[subprocess.Popen[str]]:
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    worker = Path(__file__).with_name("ranx_eval_worker.py")
    process = subprocess.Popen(
        [sys.executable, str(worker)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    yield process
    assert process.stdin is not None
    process.stdin.close()
    process.wait(timeout=30)


def _ranx(worker: subprocess.Popen[str], qrels: Judgments, run: Ranking, metrics: list[str]) -> Any:
    assert worker.stdin is not None and worker.stdout is not None
    worker.stdin.write(json.dumps([qrels, run, metrics]) + "\n")
    worker.stdin.flush()
    return json.loads(worker.stdout.readline())


def _ours(qrels: Judgments, run: Ranking, metrics: list[str]) -> dict[str, list[float]]:
    values = ranx.evaluate(qrels, run, metrics, return_mean=False, make_comparable=True)
    if len(metrics) == 1:
        values = {metrics[0]: values}
    return {m: v.tolist() for m, v in values.items()}


def _trec(qrels: Judgments, run: Ranking, measure: str, **options: Any) -> list[float]:
    table = pytrec_eval.RelevanceEvaluator(qrels, [measure], **options).evaluate(run)
    return [table[q][measure.replace(".", "_")] for q in sorted(qrels)]


_docs = [f"d{i}" for i in range(8)]


@st.composite
def _inputs(draw: st.DrawFn, ties: bool = False) -> tuple[Judgments, Ranking]:
    """Qrels with a relevant and a judged non-relevant document per query; distinct scores."""
    qrels: Judgments = {}
    run: Ranking = {}
    for q in ("q1", "q2", "q3")[: draw(st.integers(1, 3))]:
        judged = draw(st.lists(st.sampled_from(_docs), min_size=2, max_size=6, unique=True))
        grades = draw(st.lists(st.integers(0, 3), min_size=len(judged), max_size=len(judged)))
        grades[0], grades[1] = 0, max(grades[1], 1)
        qrels[q] = dict(zip(judged, grades, strict=True))
        if draw(st.booleans()) or q == "q1":
            docs = draw(st.lists(st.sampled_from(_docs), min_size=1, max_size=8, unique=True))
            scores = (
                draw(st.lists(st.sampled_from([0.5, 1.0]), min_size=len(docs), max_size=len(docs)))
                if ties
                else [1.0 - i / 16 for i in draw(st.permutations(range(len(docs))))]
            )
            run[q] = dict(zip(docs, scores, strict=True))
    return qrels, run


_FOLLOWS_RANX = [
    "ndcg@3", "ndcg", "ndcg_burges@5", "dcg@3", "dcg_burges", "map", "map@2", "mrr", "mrr@2",
    "precision@3", "recall@2", "recall", "f1@3", "hits", "hits@3", "hit_rate@1", "hit_rate",
    "r-precision", "bpref", "map-l2", "precision@2-l2", "recall@5-l2", "mrr-l3", "r-precision-l2",
]  # fmt: skip


@settings(max_examples=30, deadline=None)
@given(_inputs())
def test_equal_to_ranx(
    ranx_worker: subprocess.Popen[str], inputs: tuple[Judgments, Ranking]
) -> None:
    qrels, run = inputs
    want = _ranx(ranx_worker, qrels, run, _FOLLOWS_RANX)
    got = _ours(qrels, run, _FOLLOWS_RANX)
    for metric in _FOLLOWS_RANX:
        assert got[metric] == pytest.approx(want[metric], rel=1e-12, abs=1e-15), metric


@settings(max_examples=10, deadline=None)
@given(_inputs())
def test_rbp_equal_to_ranx_on_binary_qrels(
    ranx_worker: subprocess.Popen[str], inputs: tuple[Judgments, Ranking]
) -> None:
    qrels, run = inputs
    binary = {q: {d: min(g, 1) for d, g in docs.items()} for q, docs in qrels.items()}
    want = _ranx(ranx_worker, binary, run, ["rbp.8", "rbp.95"])
    got = _ours(qrels, run, ["rbp.8", "rbp.95"])
    for metric in ("rbp.8", "rbp.95"):
        assert got[metric] == pytest.approx(want[metric], rel=1e-12, abs=1e-15), metric


# departures: scorekit follows trec_eval ------------------------------------------------------


def test_ties_follow_trec_eval(ranx_worker: subprocess.Popen[str]) -> None:
    qrels: Judgments = {"q1": {"d1": 1, "d2": 0, "d3": 1}}
    run: Ranking = {"q1": {"d1": 0.5, "d2": 0.5, "d3": 0.5, "d9": 0.5}}
    ours = _ours(qrels, run, ["map", "ndcg@2"])
    assert ours["map"] == _trec(qrels, run, "map")
    assert ours["ndcg@2"] == pytest.approx(_trec(qrels, run, "ndcg_cut.2"), rel=1e-12)
    theirs = _ranx(ranx_worker, qrels, run, ["map", "ndcg@2"])
    assert theirs["map"] != pytest.approx(ours["map"])


@settings(max_examples=10, deadline=None)
@given(_inputs(ties=True))
def test_tied_runs_equal_pytrec_eval(inputs: tuple[Judgments, Ranking]) -> None:
    qrels, run = inputs
    ours = _ours(qrels, run, ["map", "ndcg@3", "precision@2", "mrr", "bpref"])
    judged = {q: qrels[q] for q in run}
    full = {q: run.get(q, {}) for q in qrels}
    for metric, measure in [
        ("map", "map"),
        ("ndcg@3", "ndcg_cut.3"),
        ("precision@2", "P.2"),
        ("mrr", "recip_rank"),
        ("bpref", "bpref"),
    ]:
        table = pytrec_eval.RelevanceEvaluator(judged, [measure]).evaluate(full)
        key = measure.replace(".", "_")
        want = [table[q][key] if q in table else 0.0 for q in sorted(qrels)]
        assert ours[metric] == pytest.approx(want, rel=1e-12, abs=1e-15), metric


@pytest.mark.parametrize(
    ("grades", "value"), [({"d5": 1, "d6": 2}, 1.0), ({"d5": 0, "d6": 0}, 0.0)]
)
def test_bpref_without_judged_non_relevant_or_relevant_follows_trec_eval(
    ranx_worker: subprocess.Popen[str], grades: dict[str, int], value: float
) -> None:
    qrels: Judgments = {"q": grades}
    run: Ranking = {"q": {"d4": 0.7, "d5": 0.6, "d6": 0.2}}
    assert math.isnan(_ranx(ranx_worker, qrels, run, ["bpref"])["bpref"][0])
    assert _ours(qrels, run, ["bpref"])["bpref"] == _trec(qrels, run, "bpref") == [value]


def test_graded_rbp_follows_trec_eval(ranx_worker: subprocess.Popen[str]) -> None:
    qrels: Judgments = {"q": {"d1": 3, "d2": 1, "d3": 2, "d4": 0}}
    run: Ranking = {"q": {"d1": 0.1, "d2": 0.9, "d3": 0.5, "d4": 0.7}}
    graded = _ranx(ranx_worker, qrels, run, ["rbp.8"])["rbp.8"]
    ours = _ours(qrels, run, ["rbp.8"])["rbp.8"]
    # trec_eval's binary rbp: relevant at ranks 1, 3 and 4
    assert ours == pytest.approx([0.2 * (1 + 0.8**2 + 0.8**3)], rel=1e-12)
    assert graded[0] > ours[0]


def test_ndcg_with_level_follows_trec_eval(ranx_worker: subprocess.Popen[str]) -> None:
    qrels: Judgments = {"q": {"d1": 3, "d2": 1, "d3": 2, "d4": 0}}
    run: Ranking = {"q": {"d1": 0.1, "d2": 0.9, "d3": 0.5, "d4": 0.7, "d8": 0.3}}
    ours = _ours(qrels, run, ["ndcg@3-l2"])["ndcg@3-l2"]
    assert ours == pytest.approx(_trec(qrels, run, "ndcg_cut.3", relevance_level=2), rel=1e-12)
    assert _ranx(ranx_worker, qrels, run, ["ndcg@3-l2"])["ndcg@3-l2"] != pytest.approx(ours)


def test_queries_follow_ranx() -> None:
    qrels: Judgments = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    run: Ranking = {"q1": {"d1": 1.0}, "q3": {"d2": 1.0}}
    assert ranx.evaluate(qrels, run, "map", make_comparable=True) == 0.5
    # pytrec_eval leaves q2 (judged, not retrieved) out: its mean would be 1.0
    assert pytrec_eval.RelevanceEvaluator(qrels, ["map"]).evaluate(run) == {"q1": {"map": 1.0}}
    with pytest.raises(InputError, match="different queries"):
        ranx.evaluate(qrels, run, "map")


# Qrels, Run and the shapes of evaluate's result ------------------------------------------------


def test_qrels_and_run_from_files(tmp_path: Path) -> None:
    qrels = ranx.Qrels.from_file(DATA / "trec_eval" / "qrels.test")
    run = ranx.Run.from_file(DATA / "trec_eval" / "results.test", name="test")
    lines = (DATA / "trec_eval" / "qrels.test").read_text().split("\n")
    assert qrels.size == len({line.split()[0] for line in lines if line.strip()}) == 3
    assert sum(len(qrels[q]) for q in qrels) == sum(1 for line in lines if line.strip())
    assert run.name == "test" and sorted(run.keys()) == sorted(qrels.keys())
    first = qrels.get_query_ids()[0]
    assert all(isinstance(g, int) for g in qrels[first].values())
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run.to_dict()))
    again = ranx.Run.from_file(path)
    assert again.to_dict() == run.to_dict()
    value = ranx.evaluate(qrels, run, "map", make_comparable=True)
    table = pytrec_eval.RelevanceEvaluator(qrels.to_dict(), ["map"]).evaluate(run.to_dict())
    judged = [table[q]["map"] if q in table else 0.0 for q in qrels.get_query_ids()]
    assert value == pytest.approx(float(np.mean(judged)), rel=1e-12)
    with pytest.raises(ConfigError, match="unknown file kind"):
        ranx.Qrels.from_file(path, kind="parquet")


def test_result_shapes_and_run_scores() -> None:
    qrels = ranx.Qrels({"q1": {"d1": 1}, "q2": {"d2": 1}})
    qrels.add("q3", ["d3", "d4"], [1, 0])
    run = ranx.Run({"q1": {"d1": 1.0}, "q2": {"d9": 1.0}})
    run.add_score("q3", "d4", 2.0)
    run.add_score("q3", "d3", 1.0)
    assert isinstance(ranx.evaluate(qrels, run, "mrr"), float)
    both = ranx.evaluate(qrels, run, ["mrr", "hits@1"], return_std=True)
    assert both["mrr"]["mean"] == pytest.approx(0.5)
    assert both["hits@1"]["std"] == pytest.approx(float(np.std([1.0, 0.0, 0.0])))
    assert run.mean_scores["mrr"] == pytest.approx(0.5)
    assert run.scores["mrr"] == {"q1": 1.0, "q2": 0.0, "q3": 0.5}
    arrays = ranx.evaluate(qrels, run, ["mrr"], return_mean=False)
    assert arrays.tolist() == [1.0, 0.0, 0.5]
    assert "q3" in run and run.make_comparable(ranx.Qrels({"q1": {"d1": 1}})).size == 1


@pytest.mark.parametrize(
    ("metrics", "text"),
    [
        ("ndcg@k", "unsupported metric"),
        ("err@10", "unsupported metric"),
        ("precision", "precision over the whole ranking"),
        ("f1", "f1 over the whole ranking"),
        ("bpref@10", "bpref takes no cutoff"),
        ("rbp", "rbp needs a persistence"),
        ([], "no metric named"),
        ([3], "unsupported metric"),
    ],
)
def test_bad_metrics_are_named(metrics: Any, text: str) -> None:
    with pytest.raises(ConfigError, match=text):
        ranx.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, metrics)


def test_bad_inputs() -> None:
    with pytest.raises(InputError, match="the qrels are not a mapping"):
        ranx.Qrels([("q", "d", 1)])  # type: ignore[arg-type]
    with pytest.raises(InputError, match="the run are not Qrels/Run or a dict"):
        ranx.evaluate({"q": {"d": 1}}, [("q", "d", 1.0)], "map")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="lengths differ"):
        ranx.Run().add("q", ["d1", "d2"], [1.0])
    with pytest.raises(InputError, match="no judged query"):
        ranx.evaluate({"q": {}}, {"q": {"d": 1.0}}, "map")


def test_queries_without_judgments_or_results() -> None:
    judged = ranx.evaluate({"q1": {}, "q2": {"d": 1}}, {"q1": {"d": 1.0}, "q2": {"d": 1.0}}, "map")
    assert judged == 1.0
    empty = ranx.evaluate({"q1": {"d": 1}}, {"q1": {}}, ["map", "hits"])
    assert empty == {"map": 0.0, "hits": 0.0}


def test_a_query_without_a_relevant_document_gives_0_without_a_warning() -> None:
    qrels: Judgments = {"q1": {"d0": 0, "d1": 0}, "q2": {"d0": 1}}
    run: Ranking = {"q1": {"d0": 1.0, "d1": 0.5}, "q2": {"d0": 1.0}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = ranx.evaluate(
            qrels, run, ["map", "ndcg@5", "recall", "r-precision"], return_mean=False
        )
    for values in got.values():
        assert values.tolist() == [0.0, 1.0]


def test_names() -> None:
    assert ranx.NAMES["ndcg@k"] == "ndcg@k"
    assert ranx.NAMES["r-precision"] == "r_precision"


def test_fuse_keeps_every_query_and_reads_ranx_params() -> None:
    a = {"q1": {"d1": 3.0, "d2": 2.0}, "q2": {}, "q3": {"d5": 1.0}}
    b = ranx.Run({"q1": {"d2": 0.9, "d3": 0.5}, "q2": {}, "q3": {}})
    fused = ranx.fuse([a, b], norm=None, method="rrf", params={"k": 10, "name": "mine"})
    assert fused.name == "mine" and fused.get_query_ids() == ["q1", "q2", "q3"]
    assert fused["q2"] == {} and fused["q3"] == {"d5": 1 / 11}
    assert fused["q1"] == {"d1": 1 / 11, "d2": 1 / 12 + 1 / 11, "d3": 1 / 12}
    weighted = ranx.fuse([a, b], method="wsum", params={"weights": [1.0, 2.0]})
    assert weighted["q1"] == {"d1": 1.0, "d2": 0.0 + 2.0, "d3": 0.0}
    same = ranx.fuse([a, b], norm="min-max-inverted", method="sum")
    assert same["q1"] == {"d1": 0.0, "d2": 1.0 + 0.0, "d3": 1.0}


def test_optimize_fusion_trains_and_fuse_reads_it() -> None:
    qrels = {"t": {"a": 1, "c": 1}}
    runs = [{"t": {"a": 3.0, "b": 2.0, "c": 1.0}, "q": {"x": 1.0}}, {"t": {"c": 2.0}, "q": {}}]
    params = ranx.optimize_fusion(
        qrels, runs, method="slidefuse", min_w=1, max_w=1, show_progress=False
    )
    assert params["w"] == 1 and [p.tolist() for p in params["probs"]] == [[1.0, 0.0, 1.0], [1.0]]
    fused = ranx.fuse(runs, method="slidefuse", params=params)
    # a list of one document reads its one position; "c" is at 2 of 3 and at 0 of 1
    assert fused["q"] == {"x": 1.0} and fused["t"]["c"] == (0.0 + 1.0) / 2 + 1.0
    odds = ranx.optimize_fusion(qrels, runs, norm=None, method="bayesfuse")["log_odds"]
    assert [len(o) for o in odds] == [1000, 1000]
    maps = ranx.optimize_fusion(qrels, runs, method="mapfuse")["map_scores"]
    assert maps == pytest.approx([(1 + 2 / 3) / 2, 1 / 2], rel=1e-15)


def test_fusion_errors() -> None:
    runs = [{"q": {"d1": 1.0}}, {"q": {"d1": 2.0}}]
    with pytest.raises(ConfigError, match=r"ranx.optimize_fusion \(wsum\): searching"):
        ranx.optimize_fusion({"q": {"d1": 1}}, runs, method="wsum")
    with pytest.raises(
        ConfigError, match=r"\(probfuse\): needs one value to train with; got 1..100"
    ):
        ranx.optimize_fusion(
            {"q": {"d1": 1}}, runs, method="probfuse", min_n_segments=1, max_n_segments=100
        )
    with pytest.raises(ConfigError, match=r"no optimization report"):
        ranx.optimize_fusion(
            {"q": {"d1": 1}}, runs, method="posfuse", return_optimization_report=True
        )
    with pytest.raises(InputError, match=r"training run 1 shares no query with the qrels"):
        ranx.optimize_fusion({"other": {"d1": 1}}, runs, method="posfuse")
    with pytest.raises(ConfigError, match=r"ranx.fuse \(rrf\): unknown parameter; got 'alpha'"):
        ranx.fuse(runs, method="rrf", params={"alpha": 1})
    with pytest.raises(ConfigError, match=r"fuse \(posfuse\): needs qrels to train on"):
        ranx.fuse(runs, method="posfuse")
    with pytest.raises(ConfigError, match=r"ranx.fuse: runs must be a list of runs"):
        ranx.fuse(runs[0], method="rrf")
