"""Qrels and runs built from dicts equal the same rows built from a table, in every detail."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import ranking
from scorekit.errors import InputError
from scorekit.ranking import Qrels, Run, _columns, _data, _ranked


def _rows(data: dict[str, dict[str, float]]) -> pa.Table:
    query = [q for q, inner in data.items() for _ in inner]
    doc = [d for inner in data.values() for d in inner]
    value = [v for inner in data.values() for v in inner.values()]
    return pa.table(
        {
            "query": pa.array(query, pa.string()),
            "doc": pa.array(doc, pa.string()),
            "score": pa.array(value, pa.float64()),
        }
    )


def _ranked_pairs(run: Run) -> list[tuple[str, str]]:
    order, starts, qids = run.ranked()
    docs = run.doc.take(pa.array(order)).to_pylist()
    queries = np.repeat(qids, np.diff(starts)).tolist()
    return list(zip(queries, docs, strict=True))


def _dict(rng: np.random.Generator, sizes: list[int], grid: int) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for q in rng.permutation(len(sizes)).tolist():
        size = sizes[q]
        names = [f"d{d}" for d in rng.permutation(max(size, 1) * 2)[:size]]
        scores = rng.integers(0, grid, size) if grid else rng.random(size)
        out[f"q{q}"] = {n: float(s) for n, s in zip(names, scores, strict=True)}
    return out


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    sizes=st.lists(st.integers(0, 12), min_size=1, max_size=8),
    long=st.sampled_from([0, 40]),
    grid=st.sampled_from([0, 2, 5]),
)
def test_dict_and_table_runs_rank_alike(seed: int, sizes: list[int], long: int, grid: int) -> None:
    rng = np.random.default_rng(seed)
    # one long query among short ones leaves too much padding for the per-query grid
    data = _dict(rng, [*sizes, long], grid)
    from_dict = Run.from_dict(data)
    from_table = Run.from_table(_rows(data))
    assert from_dict.queries().tolist() == from_table.queries().tolist()
    assert _ranked_pairs(from_dict) == _ranked_pairs(from_table)
    codes, names, ids = from_dict._query_index()
    expected_codes, expected_names, _ = from_table._query_index()
    assert codes.tolist() == expected_codes.tolist()
    assert names.tolist() == expected_names.tolist() == ids.to_pylist()


@pytest.mark.filterwarnings("ignore::scorekit.errors.UndefinedMetricWarning")
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), sizes=st.lists(st.integers(1, 9), min_size=1, max_size=6))
def test_dict_and_table_inputs_evaluate_alike(seed: int, sizes: list[int]) -> None:
    rng = np.random.default_rng(seed)
    sizes = [*sizes, 0]
    run = _dict(rng, sizes, 3)
    qrels = {
        q: {
            d: float(g)
            for d, g in zip(inner, rng.integers(-1, 3, len(inner)).tolist(), strict=True)
        }
        for q, inner in _dict(rng, sizes, 0).items()
    }
    metrics = ["ndcg@5", "map", "mrr", "p@3", "bpref"]
    qrels_table = _rows(qrels).rename_columns(["query", "doc", "relevance"])
    ours = ranking.evaluate(qrels, run, metrics, per_query=True).per_query
    expected = ranking.evaluate(
        Qrels.from_table(qrels_table), Run.from_table(_rows(run)), metrics, per_query=True
    ).per_query
    assert ours == expected


def test_ids_equal_after_str_are_checked_for_duplicates() -> None:
    run = Run.from_dict({1: {"a": 0.5}, "1": {"b": 0.7}})
    assert run.ranking("1") == ["b", "a"]
    with pytest.raises(InputError, match="duplicate document"):
        Run.from_dict({1: {"a": 0.5}, "1": {"a": 0.7}})
    with pytest.raises(InputError, match="duplicate document"):
        Qrels.from_dict({"q": {1: 1, "1": 0}})


def test_queries_without_documents_are_not_queries_of_the_run() -> None:
    run = Run.from_dict({"q2": {}, "q1": {"d": 1.0}, "q0": {}})
    assert run.queries().tolist() == ["q1"]
    qrels = Qrels.from_dict({"q0": {"d": 1}, "q1": {"d": 1}, "q3": {}})
    assert qrels.queries().tolist() == ["q0", "q1"]
    result = ranking.evaluate(qrels, run, ["map"], missing="zero", per_query=True)
    assert result.per_query == {"q0": {"map": 0.0}, "q1": {"map": 1.0}}


def test_values_that_are_not_numbers_name_the_metric_input() -> None:
    with pytest.raises(InputError, match="relevance is not a finite number"):
        Qrels.from_dict({"q": {"d": None}})
    with pytest.raises(InputError, match="relevance is not a number"):
        Qrels.from_dict({"q": {"d": 1, "e": [2, 3]}})
    assert Run.from_dict({"q": {"a": True, "b": "0.5"}}).values.tolist() == [1.0, 0.5]


@settings(max_examples=40, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 9), min_size=1, max_size=8),
    values=st.integers(1, 6),
    seed=st.integers(0, 2**32 - 1),
    top=st.booleans(),
)
def test_repeats_in_blocks_equal_repeats_of_all(
    lengths: list[int], values: int, seed: int, top: bool
) -> None:
    rng = np.random.default_rng(seed)
    block = np.repeat(np.arange(len(lengths)), lengths).astype(np.uint64)
    # keys never repeat across blocks; the largest key may occur, as the grid's padding does
    low = rng.integers(0, values, len(block)).astype(np.uint64)
    keys = (block << np.uint64(40)) | low
    if top:
        keys[-1] = np.iinfo(np.uint64).max
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    found, counts = np.unique(keys, return_counts=True)
    expected = found[counts > 1].tolist()
    in_blocks = _columns.block_repeats(keys, starts)
    assert in_blocks is not None
    assert in_blocks.tolist() == expected
    assert _columns.repeats(keys).tolist() == expected
    # blocks too unequal for a grid are left to the caller
    lopsided = np.array([0, len(keys) - 1], dtype=np.int64)
    assert len(keys) < 1100 or _columns.block_repeats(keys, lopsided) is None


@pytest.mark.filterwarnings("ignore::scorekit.errors.UndefinedMetricWarning")
def test_many_queries_use_pair_hashes_with_the_same_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(3)
    run = _dict(rng, [5, 0, 7, 3, 9], 3)
    qrels = {q: {d: int(i % 3) for i, d in enumerate(inner)} for q, inner in run.items()}
    metrics = ["ndcg@5", "map", "mrr"]
    expected = ranking.evaluate(qrels, run, metrics, per_query=True).per_query
    table = _rows(run)
    monkeypatch.setattr(_columns, "GROUPED_QUERIES", 2)
    monkeypatch.setattr(_data, "GROUPED_QUERIES", 2)
    monkeypatch.setattr(_ranked, "GROUPED_QUERIES", 2)
    assert ranking.evaluate(qrels, run, metrics, per_query=True).per_query == expected
    duplicated = pa.concat_tables([table, table.slice(3, 1)])
    with pytest.raises(InputError, match="duplicate document"):
        Run.from_table(duplicated)


def test_a_repeat_in_a_short_block_names_its_row() -> None:
    query = ["a"] * 6 + ["b"] * 2 + ["c"] * 3
    doc = ["1", "2", "3", "4", "5", "6", "x", "y", "z", "w", "z"]
    with pytest.raises(InputError, match=r"query 'c', doc 'z'.*duplicate document"):
        Run(query, doc, np.arange(11.0))
    assert len(Run(query, [*doc[:-1], "v"], np.arange(11.0)).queries()) == 3


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 60),
    groups=st.integers(1, 4),
    spread=st.sampled_from([4, 1 << 20, 1 << 63]),
)
def test_find_locates_every_pair_as_a_dict_does(
    seed: int, n: int, groups: int, spread: int
) -> None:
    rng = np.random.default_rng(seed)
    # a narrow spread of hashes crowds the slots and may repeat a pair
    hashes = rng.integers(0, spread, n, dtype=np.uint64)
    codes = rng.integers(0, groups, n).astype(np.int64)
    wanted = np.concatenate([hashes, rng.integers(0, spread, 20, dtype=np.uint64)])
    wanted_codes = np.concatenate([codes, rng.integers(0, groups, 20)]).astype(np.int64)
    where: dict[tuple[int, int], int] = {}
    for i, pair in enumerate(zip(codes.tolist(), hashes.tolist(), strict=True)):
        where.setdefault(pair, i)
    found = _ranked._find(hashes, codes, wanted, wanted_codes, groups)
    if len(where) < n:
        assert found is None
        return
    assert found is not None
    pairs = zip(wanted_codes.tolist(), wanted.tolist(), strict=True)
    assert found.tolist() == [where.get(pair, -1) for pair in pairs]


@pytest.mark.filterwarnings("ignore::scorekit.errors.UndefinedMetricWarning")
def test_qrels_queries_outside_the_run_sharing_its_docs_change_nothing() -> None:
    rng = np.random.default_rng(11)
    run = _dict(rng, [6, 4, 8], 3)
    qrels = {q: {d: i % 3 for i, d in enumerate(inner)} for q, inner in run.items()}
    extra = {f"x{i}": dict.fromkeys(inner, 1) for i, inner in enumerate(run.values())}
    metrics = ["ndcg@5", "map", "mrr"]
    expected = ranking.evaluate(qrels, run, metrics, per_query=True).per_query
    assert ranking.evaluate({**qrels, **extra}, run, metrics, per_query=True).per_query == expected


@pytest.mark.filterwarnings("ignore::scorekit.errors.UndefinedMetricWarning")
@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    sizes=st.lists(st.integers(1, 9), min_size=1, max_size=8),
    data=st.data(),
)
def test_a_doc_id_that_is_not_a_string_in_any_query_is_read_through_str(
    seed: int, sizes: list[int], data: st.DataObject
) -> None:
    """One integer doc id, in any query, among string ids: the qrels and the values are those
    of the same dicts with the id as a string."""
    rng = np.random.default_rng(seed)
    run = _dict(rng, sizes, 0)
    qrels = {q: {d: float(i % 3) for i, d in enumerate(inner)} for q, inner in run.items()}
    q = data.draw(st.sampled_from(sorted(qrels)))
    d = data.draw(st.sampled_from(sorted(qrels[q])))
    number = int(d[1:])
    given_qrels = {**qrels, q: {(number if k == d else k): v for k, v in qrels[q].items()}}
    as_text = {**qrels, q: {(str(number) if k == d else k): v for k, v in qrels[q].items()}}
    got, want = Qrels.from_dict(given_qrels), Qrels.from_dict(as_text)
    assert got.doc.to_pylist() == want.doc.to_pylist()
    assert got.values.tolist() == want.values.tolist()
    run_as_text = {**run, q: {(str(number) if k == d else k): v for k, v in run[q].items()}}
    metrics = ["ndcg@5", "map", "mrr"]
    found = ranking.evaluate(given_qrels, run_as_text, metrics, per_query=True).per_query
    assert found == ranking.evaluate(as_text, run_as_text, metrics, per_query=True).per_query
