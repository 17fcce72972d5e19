"""Runs given as ``{query: {doc: score}}`` dicts: the ranks of the judged documents found by
one binary search for all of them give the same states as the general path (a built
:class:`Run`), bit for bit, and pytrec_eval's values."""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import ranking
from scorekit.compat import pytrec_eval as compat
from scorekit.core import equal_values
from scorekit.errors import InputError
from scorekit.ranking import Qrels, Run
from scorekit.ranking._listed import _ranks_in_rows, _sorted_rows, _sorting, judge_dicts

MEASURES = {"ndcg_cut.10": "ndcg@10", "map": "map", "recip_rank": "mrr", "P.5": "p@5"}
LISTED = ["ndcg@10", "map", "mrr", "p@5", "recall@3", "r_precision", "dcg@4", "hit_rate@2"]


@st.composite
def _dicts(draw: st.DrawFn, extreme: bool = True) -> tuple[dict[str, Any], dict[str, Any]]:
    """Queries of very different lengths, judged documents the run lacks, judged queries the
    run lacks and run queries without judgments; scores on a grid (ties) or not, and with
    ``extreme`` some near the ends of the float range (where pytrec_eval ranks otherwise)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    queries = draw(st.integers(1, 15))
    longest = draw(st.sampled_from([1, 4, 30, 120]))
    grid = draw(st.sampled_from([0, 0, 0, 5, 1000]))
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for q in range(queries):
        docs = int(rng.integers(1, longest + 1))
        names = [f"d{d}" for d in rng.permutation(docs + 3)]
        if rng.random() < 0.9:
            scores = rng.integers(0, grid, docs) if grid else rng.normal(0, 10, docs)
            if extreme and rng.random() < 0.2:
                scores = scores * 1e-300 if rng.random() < 0.5 else scores * 1e300
            run[f"q{q}"] = {n: float(s) for n, s in zip(names[:docs], scores, strict=True)}
        if rng.random() < 0.9:
            judged = [n for n in names if rng.random() < 0.4] or names[:1]
            grades = rng.integers(-1, 4, len(judged)).tolist()
            qrels[f"q{q}"] = dict(zip(judged, grades, strict=True))
    if draw(st.booleans()):
        run[f"q{queries}"] = {}
    return qrels, run


def _same(got: Any, want: Any) -> None:
    for f in dataclasses.fields(want):
        a, b = getattr(got, f.name), getattr(want, f.name)
        assert equal_values(a, b), (f.name, a, b)
        if isinstance(b, np.ndarray) and b.dtype.kind == "f":
            assert np.array_equal(a.view(np.int64), b.view(np.int64)), f.name


@settings(max_examples=150, deadline=None)
@given(_dicts())
def test_dicts_give_the_states_of_built_runs(found: tuple[Any, Any]) -> None:
    qrels, run = found
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = ranking.evaluate(Qrels.from_dict(qrels), Run.from_dict(run), LISTED)
        except InputError:
            return
        got = ranking.evaluate(qrels, run, LISTED)
    for name in LISTED:
        _same(got.states[name], want.states[name])
        assert (np.isnan(got[name]) and np.isnan(want[name])) or got[name] == want[name]


@settings(max_examples=100, deadline=None)
@given(_dicts())
def test_ranks_by_binary_search_are_those_of_a_sorted_row(found: tuple[Any, Any]) -> None:
    run = found[1]
    rows = [np.array(sorted(docs.values())) for docs in run.values() if docs]
    if not rows:
        return
    sizes = np.array([len(r) for r in rows])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    grid = _sorted_rows(np.concatenate(rows), starts, sizes)
    if grid is None:  # tied scores, or rows too unequal to pad
        return
    rng = np.random.default_rng(len(rows))
    counts = rng.integers(0, 5, len(rows))
    listed = np.concatenate(
        [rng.choice(np.append(r, np.nan), c) for r, c in zip(rows, counts, strict=True)]
    )
    got = _ranks_in_rows(grid, counts, listed)
    at = np.repeat(np.arange(len(rows)), counts)
    for rank, row, value in zip(got.tolist(), at.tolist(), listed.tolist(), strict=True):
        if not np.isnan(value):
            assert rank == 1 + int(np.count_nonzero(rows[row] > value))


@settings(max_examples=60, deadline=None)
@given(_dicts(extreme=False))
def test_dicts_equal_pytrec_eval(found: tuple[Any, Any]) -> None:
    qrels, run = found
    qrels = {q: d for q, d in qrels.items() if d}
    ref = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES)).evaluate(run)
    ours = compat.RelevanceEvaluator(qrels, set(MEASURES)).evaluate(run)
    assert ours.keys() == ref.keys()
    for q, row in ref.items():
        for key, value in row.items():
            assert ours[q][key] == pytest.approx(value, rel=1e-12, abs=1e-15), (q, key)


def test_a_tie_takes_the_general_path() -> None:
    qrels = {"q": {"a": 1, "b": 1}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 2.0}}
    assert judge_dicts(run, Qrels.from_dict(qrels)) is None
    # trec_eval breaks the tie by doc id, descending: b before a
    assert ranking.evaluate(qrels, run, ["mrr"])["mrr"] == 0.5


def test_a_doc_id_that_is_not_a_string_takes_the_general_path() -> None:
    qrels = {"q": {"5": 1}}
    run = {"q": {5: 1.0, "d": 2.0}}
    assert judge_dicts(run, Qrels.from_dict(qrels)) is None
    assert ranking.evaluate(qrels, run, ["mrr"])["mrr"] == 0.5


def test_one_document_per_query_and_a_wide_query() -> None:
    run = {"a": {"x": 1.0}, "b": {f"d{i}": float(i) for i in range(1000)}}
    qrels = {"a": {"x": 1}, "b": {"d999": 1, "d0": 1, "d500": 2}}
    judged = judge_dicts(run, Qrels.from_dict(qrels))
    assert judged is not None
    assert judged.rank.tolist() == [1, 1, 500, 1000]


class _Id(str):
    """An id of a subclass of str (pytrec_eval takes it, as it takes numpy's strings)."""


@pytest.mark.parametrize(
    ("qrels", "run", "text"),
    [
        ({"q": {"d": 1}}, {"q": {5: 1.0}}, "a document id of query 'q' in the run is not a string"),
        ({"q": {7: 1}}, {"q": {"d": 1.0}}, "a document id of query 'q' in the qrels"),
        ({"q": {"d": 1.5}}, {"q": {"d": 1.0}}, "the relevance of document 'd' of query 'q'"),
        ({"q": {"d": 1}}, {"q": {"d": "high"}}, "the score of document 'd' of query 'q'"),
        ({"q": {"d": 1}}, {3: {"d": 1.0}}, "a query id of the run is not a string"),
        ({"q": {"d": 1}}, {"q": [("d", 1.0)]}, "query 'q' of the run is not a mapping"),
    ],
)
def test_types_pytrec_eval_refuses_are_refused(qrels: Any, run: Any, text: str) -> None:
    with pytest.raises(TypeError, match=text) as caught:
        compat.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    assert isinstance(caught.value, InputError)


def test_types_pytrec_eval_takes_are_taken() -> None:
    from types import MappingProxyType

    qrels = {_Id("q"): MappingProxyType({"a": np.int64(1), "b": True, "c": 0})}
    run = {_Id("q"): {"a": np.float32(0.5), np.str_("b"): 2, "c": 1.0}}
    found = compat.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    assert found == {"q": {"map": pytest.approx((1 / 1 + 2 / 3) / 2)}}


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 5000), max_size=300),
    st.booleans(),
)
def test_sorting_distinct_keys_by_value_is_a_stable_sort(keys: list[int], distinct: bool) -> None:
    key = np.array(list(dict.fromkeys(keys)) if distinct else keys, dtype=np.int64)
    got = _sorting(key)
    assert got.tolist() == np.argsort(key, kind="stable").tolist()


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(st.integers(-3, 3), min_size=1, max_size=9), min_size=1, max_size=12),
    st.integers(0, 2**32 - 1),
)
def test_sorted_rows_pad_each_query_in_front_and_refuse_ties(
    rows: list[list[int]], seed: int
) -> None:
    rng = np.random.default_rng(seed)
    values = [np.asarray(r, dtype=np.float64) * 1.5 for r in rows]
    order = rng.permutation(len(values))
    scores = np.concatenate([values[i] for i in order])
    sizes = np.array([len(v) for v in values])
    starts = np.zeros(len(values), dtype=np.int64)
    starts[order] = np.concatenate([[0], np.cumsum(sizes[order])[:-1]])
    got = _sorted_rows(scores, starts, sizes)
    width = int(sizes.max())
    if len(sizes) * width > 2 * int(sizes.sum()) + 1024:
        assert got is None
        return
    tied = any(len(set(v.tolist())) < len(v) for v in values)
    if tied:
        assert got is None
        return
    assert got is not None
    want = np.array(
        [np.concatenate([np.full(width - len(v), -np.inf), np.sort(v)]) for v in values]
    )
    assert np.array_equal(got, want)


def test_ranks_of_more_values_than_one_search_block() -> None:
    rng = np.random.default_rng(5)
    rows = [np.sort(rng.normal(size=int(rng.integers(1, 40)))) for _ in range(3000)]
    width = max(len(r) for r in rows)
    grid = np.array([np.concatenate([np.full(width - len(r), -np.inf), r]) for r in rows])
    counts = rng.integers(0, 30, len(rows))
    listed = np.concatenate(
        [rng.choice(np.append(r, np.nan), c) for r, c in zip(rows, counts, strict=True)]
    )
    assert len(listed) > 1 << 15
    got = _ranks_in_rows(grid, counts, listed)
    at = np.repeat(np.arange(len(rows)), counts)
    want = [
        1 + int(np.count_nonzero(rows[r] > v)) if not np.isnan(v) else width + 1
        for r, v in zip(at.tolist(), listed.tolist(), strict=True)
    ]
    assert got.tolist() == want


@settings(max_examples=60, deadline=None)
@given(_dicts())
def test_ids_checked_by_the_caller_give_the_same_states(found: tuple[Any, Any]) -> None:
    qrels, run = found
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = ranking.evaluate(qrels, run, LISTED, missing="zero")
        except InputError:
            return
        got = ranking.evaluate(qrels, run, LISTED, missing="zero", check_ids=False)
    for name in LISTED:
        _same(got.states[name], want.states[name])


def test_qrels_from_dicts_build_their_doc_column_when_read() -> None:
    qrels = {"q2": {"b": 1, "a": 0}, "q1": {"c": 2}, "q3": {}}
    for check_ids in (True, False):
        built = Qrels.from_dict(qrels, check_ids=check_ids)
        assert built.doc.to_pylist() == ["b", "a", "c"]
        assert built.query.to_pylist() == ["q2", "q2", "q1"]
        assert built.to_dict() == {"q2": {"b": 1.0, "a": 0.0}, "q1": {"c": 2.0}}
    # ids that are not all strings are converted and checked as before
    assert Qrels.from_dict({"q": {5: 1, "a": 0}}).doc.to_pylist() == ["5", "a"]
    with pytest.raises(InputError, match="duplicate document"):
        Qrels.from_dict({"q": {5: 1, "5": 0}})


def test_one_evaluator_gives_each_run_what_a_new_one_gives() -> None:
    qrels = {"q1": {"a": 1, "b": 2}, "q2": {"c": 1}, "q3": {"d": 0}, "q4": {}}
    runs = [
        {"q1": {"a": 0.5, "b": 0.25, "x": 1.0}, "q2": {}, "q5": {"c": 1.0}},
        {"q3": {"d": 1.0}, "q2": {"c": 2.0, "e": 3.0}, "q4": {"a": 1.0}},
        {"q1": {"a": 1.0, "b": 1.0}},  # a tie: the general path
    ]
    measures = {"ndcg_cut.10", "map", "num_rel", "num_q"}
    evaluator = compat.RelevanceEvaluator(qrels, measures)
    qrels["q1"]["z"] = 3  # changes after the evaluator was made are not its judgments
    fresh = {"q1": {"a": 1, "b": 2}, "q2": {"c": 1}, "q3": {"d": 0}, "q4": {}}
    for run in runs:
        want = pytrec_eval.RelevanceEvaluator(fresh, measures).evaluate(run)
        assert evaluator.evaluate(run) == want
        assert compat.RelevanceEvaluator(fresh, measures).evaluate(run) == want


def test_a_run_of_defaultdicts_is_read_without_adding_to_it() -> None:
    from collections import defaultdict

    qrels = {"q": {"a": 1, "b": 1, "c": 0}}
    inner: defaultdict[str, float] = defaultdict(float, {"a": 2.0, "x": 3.0, "y": 1.0})
    run = {"q": inner}
    judged = judge_dicts(run, Qrels.from_dict(qrels))
    assert judged is not None
    assert judged.rank.tolist() == [2]
    assert dict(inner) == {"a": 2.0, "x": 3.0, "y": 1.0}
    assert ranking.evaluate(qrels, run, ["mrr"])["mrr"] == 0.5


@pytest.mark.parametrize("seed", range(6))
def test_queries_of_one_length_all_judged_read_the_scores_as_the_grid(seed: int) -> None:
    rng = np.random.default_rng(seed)
    docs = int(rng.integers(1, 40))
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for q in rng.permutation(60).tolist():
        names = [f"d{d}" for d in rng.permutation(docs + 5)]
        scores = rng.integers(0, 4 * docs, docs) if seed % 2 else rng.normal(size=docs)
        run[f"q{q}"] = dict(zip(names[:docs], scores.astype(float).tolist(), strict=True))
        judged = [n for n in names if rng.random() < 0.5] or names[:1]
        qrels[f"q{q}"] = dict(zip(judged, rng.integers(0, 3, len(judged)).tolist(), strict=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = ranking.evaluate(Qrels.from_dict(qrels), Run.from_dict(run), LISTED)
        got = ranking.evaluate(qrels, run, LISTED)
    for name in LISTED:
        _same(got.states[name], want.states[name])
    tied = any(len(set(r.values())) < len(r) for r in run.values())
    assert (judge_dicts(run, Qrels.from_dict(qrels)) is None) == tied
