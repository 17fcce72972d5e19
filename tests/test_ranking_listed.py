"""The listed rows of a run at their ranks give every measure that reads them its full-run value."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import ranking
from scorekit.ranking import Qrels, Run
from scorekit.ranking._evaluate import ranking_metrics
from scorekit.ranking._listed import _TIED_ROWS, judge_dicts, judge_listed
from scorekit.ranking._ranked import judge

LISTED = [
    "ndcg@10",
    "ndcg",
    "dcg@5",
    "cg@3",
    "map",
    "map@5",
    "gm_map",
    "mrr",
    "mrr@3",
    "p@5",
    "recall@5",
    "f@5",
    "success@3",
    "r_precision",
]


def _data(seed: int, queries: int, docs: int, grid: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Runs with ties (``grid`` distinct scores, or none with 0), grades -1 to 3, some
    judged documents unretrieved, some run queries unjudged, some qrels queries not run."""
    rng = np.random.default_rng(seed)
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for q in range(queries):
        n = int(rng.integers(0, docs + 1))
        names = [f"d{d}" for d in rng.permutation(2 * docs)]
        scores = rng.integers(0, grid, n) if grid else rng.random(n)
        if q % 5 != 4:
            run[f"q{q}"] = {d: float(s) for d, s in zip(names[:n], scores, strict=True)}
        if q % 7 != 6:
            judged = names[: int(rng.integers(1, 2 * docs))]
            qrels[f"q{q}"] = {d: int(rng.integers(-1, 4)) for d in judged}
    return qrels, run


def _full(qrels: Any, run: Any, metrics: list[str]) -> dict[str, Any]:
    q, r = ranking.as_qrels(qrels), ranking.as_run(run)
    judged = judge(q, r)
    return {k: m.from_judged(judged) for k, m in ranking_metrics(metrics).items()}


def _same(ours: dict[str, Any], full: dict[str, Any]) -> None:
    for key, state in full.items():
        assert ours[key].queries.tolist() == state.queries.tolist(), key
        assert ours[key].absent.tolist() == state.absent.tolist(), key
        assert ours[key].values.tolist() == state.values.tolist(), key
        assert ours[key].undefined == state.undefined, key


@pytest.mark.filterwarnings("ignore::scorekit.errors.UndefinedMetricWarning")
@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    queries=st.integers(1, 10),
    docs=st.integers(1, 25),
    grid=st.sampled_from([0, 2, 6]),
)
def test_listed_rows_equal_the_full_ranking(seed: int, queries: int, docs: int, grid: int) -> None:
    """Dicts (with and without ties), sorted and unsorted tables: bit for bit the same."""
    qrels, run = _data(seed, queries, docs, grid)
    if not any(run.values()):
        return
    full = _full(qrels, run, LISTED)
    result = ranking.evaluate(qrels, run, LISTED)
    _same(result.states, full)
    table = Run.from_dict(run)
    judged = judge_listed(Qrels.from_dict(qrels), table)
    _same({k: m.from_judged(judged) for k, m in ranking_metrics(LISTED).items()}, full)
    # the same rows as a TREC file lists them: query blocks, best first, ties in any order
    order = table.ranked()[0]
    shuffled = np.random.default_rng(seed).permutation(len(order))
    ties_shuffled = order[
        np.lexsort((shuffled, table.values[order] * -1, table._query_index()[0][order]))
    ]
    sorted_run = Run(
        table.query.take(ties_shuffled), table.doc.take(ties_shuffled), table.values[ties_shuffled]
    )
    judged = judge_listed(Qrels.from_dict(qrels), sorted_run)
    _same({k: m.from_judged(judged) for k, m in ranking_metrics(LISTED).items()}, full)


def test_dicts_with_ties_or_unusual_ids_take_the_general_path() -> None:
    qrels = {"q": {"a": 1, "b": 0}}
    judgments = Qrels.from_dict(qrels)
    assert judge_dicts({"q": {"a": 1.0, "b": 1.0}}, judgments) is None
    assert judge_dicts({"q": {"a": 1.0, 7: 2.0}}, judgments) is None
    assert judge_dicts({"q": {"a": float("nan")}}, judgments) is None
    assert judge_dicts({"q": {"a": "high"}}, judgments) is None
    assert judge_dicts({"q": [1.0]}, judgments) is None
    assert judge_dicts({"q": {"5": 1.0}}, Qrels.from_dict({"q": {5: 1}})) is None
    assert judge_dicts({"q": {}}, judgments) is not None
    judged = judge_dicts({"q": {"x": 3.0, "b": 2.0, "a": 1.0}}, judgments)
    assert judged is not None
    assert judged.rank.tolist() == [2, 3]
    assert judged.grade.tolist() == [0.0, 1.0]
    # the int doc id 7 is "7" to the general path, which matches it
    result = ranking.evaluate({"q": {"7": 1}}, {"q": {7: 2.0, "a": 3.0}}, ["mrr"])
    assert result["mrr"] == 0.5


def test_tied_listed_rows_compare_doc_ids_as_bytes() -> None:
    docs = ["b", "é", "a", "ab", "z"]
    run = Run(["q"] * 5, docs, [2.0, 1.0, 1.0, 1.0, 1.0])
    qrels = Qrels(["q"] * 3, ["é", "ab", "a"], [1, 1, 1])
    judged = judge_listed(qrels, run)
    # trec_eval: score descending, then doc id descending by bytes: b, é, z, ab, a
    assert judged.rank.tolist() == [2, 4, 5]
    assert judged.rank.tolist() == judge(qrels, run).rank[judge(qrels, run).listed].tolist()


def test_many_tied_listed_rows_rank_the_whole_run() -> None:
    n = _TIED_ROWS + 10
    docs = [f"d{i}" for i in range(n)]
    run = Run(["q"] * n, docs, np.zeros(n))
    qrels = Qrels(["q"] * n, docs, np.ones(n))
    assert run._order is None
    judged = judge_listed(qrels, run)
    assert run._order is not None
    assert sorted(judged.rank.tolist()) == list(range(1, n + 1))
    full = judge(qrels, run)
    assert judged.rank.tolist() == full.rank.tolist()


def test_measures_of_unlisted_rows_use_the_full_ranking(tmp_path: Path) -> None:
    """RBP counts unjudged documents; max_docs ranks again: both read the whole run."""
    qrels = {"q": {"c": 1}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    assert ranking_metrics(["rbp"])["rbp"].reads_listed_rows() is False
    result = ranking.evaluate(qrels, run, ["map", "rbp:p=0.5"], max_docs=2)
    assert result["map"] == 0.0
    assert result["rbp:p=0.5"] == 0.0
    assert ranking.evaluate(qrels, run, ["map", "rbp:p=0.5"])["rbp:p=0.5"] == 0.125
    path = tmp_path / "run.txt"
    path.write_text("q Q0 a 1 3 x\nq Q0 b 2 2 x\nq Q0 c 3 1 x\n")
    assert ranking.evaluate(qrels, path, ["mrr", "p@3"])["mrr"] == 1 / 3


def test_interleaved_queries_rank_the_whole_run() -> None:
    run = Run(["q", "r", "q", "r"], ["a", "a", "b", "b"], [1.0, 1.0, 2.0, 3.0])
    qrels = Qrels(["q", "r", "r"], ["a", "a", "x"], [1, 1, 1])
    judged = judge_listed(qrels, run)
    assert judged.row_query.tolist() == [0, 1]
    assert judged.rank.tolist() == [2, 2]
    assert judge_listed(Qrels(["z"], ["a"], [1]), run).rank.tolist() == []


def test_block_repeats_confirm_meeting_high_bits_on_the_whole_keys() -> None:
    from scorekit.ranking._columns import block_repeats

    high = np.uint64(7) << np.uint64(32)
    keys = np.array([high | np.uint64(1), high | np.uint64(2), 5, 9, 9, 4], dtype=np.uint64)
    assert block_repeats(keys, np.array([0, 3])).tolist() == [9]
    assert block_repeats(keys, np.array([0, 2])).tolist() == [9]
    assert block_repeats(keys[:3], np.array([0])).tolist() == []
