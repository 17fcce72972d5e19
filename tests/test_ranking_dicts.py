"""Qrels and runs from pytrec_eval-style dicts, and the ranking order of unsorted runs."""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import ranking
from scorekit.errors import InputError
from scorekit.ranking import Qrels, Run


def test_ids_that_are_not_strings_become_their_str() -> None:
    run = Run.from_dict({1: {2: 0.5, "d": 0.1}, "q": {b"x": 1.0}})
    assert run.query.to_pylist() == ["1", "1", "q"]
    assert run.doc.to_pylist() == ["2", "d", "b'x'"]
    assert run.values.tolist() == [0.5, 0.1, 1.0]


def test_empty_and_bad_dicts() -> None:
    assert len(Qrels.from_dict({}).query) == 0
    assert len(Run.from_dict({"q": {}}).doc) == 0
    with pytest.raises(InputError, match="query 'q' does not map docs to values"):
        Run.from_dict({"q": [1, 2]})
    with pytest.raises(InputError, match="score"):
        Run.from_dict({"q": {"d": "high"}})


@pytest.mark.filterwarnings("ignore::scorekit.errors.UndefinedMetricWarning")
@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    queries=st.integers(1, 12),
    docs=st.integers(1, 30),
    grid=st.sampled_from([0, 3, 50]),
)
def test_unsorted_runs_equal_pytrec_eval(seed: int, queries: int, docs: int, grid: int) -> None:
    rng = np.random.default_rng(seed)
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for q in range(queries):
        names = [f"d{d}" for d in rng.permutation(docs)]
        scores = rng.integers(0, grid, docs) if grid else rng.random(docs)
        run[f"q{q}"] = {n: float(s) for n, s in zip(names, scores, strict=True)}
        judged = names[: max(1, docs // 2)]
        qrels[f"q{q}"] = {
            n: int(g) for n, g in zip(judged, rng.integers(0, 3, len(judged)), strict=True)
        }
    measures = {"ndcg_cut.10": "ndcg@10", "map": "map", "recip_rank": "mrr", "P.5": "p@5"}
    ref = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
    ours = ranking.evaluate(qrels, run, list(measures.values()), per_query=True).per_query
    for trec, name in measures.items():
        key = trec.replace(".", "_")
        for q, row in ref.items():
            assert ours[q][name] == pytest.approx(row[key], rel=1e-12, abs=1e-15), (name, q)
