"""Ranking metrics per group of queries from one join of the run with its qrels.

The states of each group equal, field by field, the states of the group's own rows
joined with the qrels (what the per-group hook computed before); merged query values
equal a stable sort of the two states put together; values per group equal the
metric on the group's run, bit for bit, in any chunking.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit
from scorekit import ranking
from scorekit.core import available, equal_values, input_kind, parse_metric
from scorekit.errors import InputError
from scorekit.io import Chunk
from scorekit.ranking._state import QueryValues
from strategies import _qrels_run

MAPPING = {"query": ("query",), "doc": ("doc",), "score": ("score",)}


def _metrics() -> list[Any]:
    found = []
    for info in available():
        if info.inputs != "qrels_run":
            continue
        try:
            found.append(parse_metric(info.name))
        except Exception:
            found.append(parse_metric(f"{info.name}@3"))
    return found


METRICS = _metrics()
LISTED = [parse_metric(m) for m in ("ndcg@10", "map", "mrr", "p@3", "recall@5", "r_precision")]


def _table(qrels: dict[str, Any], run: dict[str, Any], seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    query, doc, score = [], [], []
    for q, docs in run.items():
        items = list(docs.items())
        if rng.random() < 0.5:  # most runs list a query's rows best first, some do not
            items.sort(key=lambda item: -item[1])
        for d, s in items:
            query.append(q)
            doc.append(d)
            score.append(s)
    return pa.table({"query": query, "doc": doc, "score": np.asarray(score, dtype=np.float64)})


def _parts(codes: np.ndarray) -> list[np.ndarray]:
    return [np.flatnonzero(codes == g).astype(np.intp) for g in np.unique(codes)]


def _hooked(metrics: list[Any], table: pa.Table, qrels: Any, parts: Any) -> list[list[Any]]:
    hook = input_kind("qrels_run").summarize
    assert hook is not None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return hook(metrics, Chunk(table), MAPPING, {"qrels": qrels}, parts=parts)


def _each_part(metrics: list[Any], table: pa.Table, qrels: Any, parts: Any) -> list[list[Any]]:
    hook = input_kind("qrels_run").summarize
    assert hook is not None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = hook(metrics, Chunk(table), MAPPING, {"qrels": qrels})
        return [whole] + [
            hook(metrics, Chunk(table.take(p)), MAPPING, {"qrels": qrels}) for p in parts
        ]


def _same_states(got: list[list[Any]], want: list[list[Any]]) -> None:
    assert len(got) == len(want)
    for got_part, want_part in zip(got, want, strict=True):
        for a, b in zip(got_part, want_part, strict=True):
            assert type(a) is type(b)
            for f in dataclasses.fields(a):
                x, y = getattr(a, f.name), getattr(b, f.name)
                assert equal_values(x, y), (b, f.name, x, y)
                if isinstance(y, np.ndarray) and y.dtype.kind == "f":
                    assert np.array_equal(x.view(np.int64), y.view(np.int64)), f.name


@st.composite
def _runs(draw: st.DrawFn) -> tuple[Any, pa.Table, np.ndarray]:
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    qrels, run = _qrels_run(rng, draw(st.integers(1, 25)), draw(st.integers(0, 3)))
    table = _table(qrels, run, seed)
    groups = draw(st.integers(1, 5))
    names = np.unique(table.column("query").to_numpy(zero_copy_only=False))
    of_query = rng.integers(0, groups, len(names))
    rows = np.searchsorted(names, table.column("query").to_numpy(zero_copy_only=False))
    codes = of_query[rows]
    if draw(st.booleans()) and table.num_rows > 1:
        # a group column that is not an attribute of the query: a query's rows in two groups
        codes = codes.copy()
        codes[rng.integers(0, table.num_rows)] = groups
    return ranking.as_qrels(qrels), table, codes


@settings(max_examples=40, deadline=None)
@given(_runs())
def test_each_group_gets_the_states_of_its_own_rows(found: tuple[Any, pa.Table, Any]) -> None:
    qrels, table, codes = found
    parts = _parts(codes)
    _same_states(_hooked(METRICS, table, qrels, parts), _each_part(METRICS, table, qrels, parts))


@settings(max_examples=100, deadline=None)
@given(_runs())
def test_listed_rows_metrics_per_group(found: tuple[Any, pa.Table, Any]) -> None:
    qrels, table, codes = found
    parts = _parts(codes)
    _same_states(_hooked(LISTED, table, qrels, parts), _each_part(LISTED, table, qrels, parts))


def _old_merge(a: QueryValues, b: QueryValues) -> dict[str, Any]:
    """The merge by definition: concatenate, stable sort, unite the absent queries."""
    queries = np.concatenate([a.queries, b.queries])
    values = np.concatenate([a.values, b.values])
    order = np.argsort(queries, kind="stable")
    return {
        "queries": queries[order],
        "values": values[order],
        "absent": np.setdiff1d(np.union1d(a.absent, b.absent), queries),
    }


def _ids(draw: st.DrawFn, pool: list[str], sort: bool) -> np.ndarray:
    picked = draw(st.lists(st.sampled_from(pool), unique=True, max_size=len(pool)))
    return np.array(sorted(picked) if sort else picked, dtype=str)


POOL = ["", "a", "aa", "ab", "b", "q1", "q10", "q2", "q20", "q200", "\u00e9", "z"]


@st.composite
def _state_pairs(draw: st.DrawFn) -> tuple[QueryValues, QueryValues]:
    sort = draw(st.booleans()) or draw(st.booleans())
    states = []
    for _ in range(2):
        queries = _ids(draw, POOL, sort)
        values = np.array(
            draw(st.lists(st.floats(0, 1), min_size=len(queries), max_size=len(queries))),
            dtype=np.float64,
        )
        absent = _ids(draw, POOL, draw(st.booleans()) or sort)
        states.append(QueryValues("map(relevance_level=1)", "skip", queries, values, absent, 0))
    return states[0], states[1]


@settings(max_examples=150, deadline=None)
@given(_state_pairs())
def test_query_values_merge_as_a_sort_of_both(pair: tuple[QueryValues, QueryValues]) -> None:
    a, b = pair
    if np.intersect1d(a.queries, b.queries).size:
        with pytest.raises(InputError, match="the same query is in both states") as caught:
            a.merge(b)
        assert repr(np.intersect1d(a.queries, b.queries)[0].item()) in str(caught.value)
        return
    merged = a.merge(b)
    for name, want in _old_merge(a, b).items():
        got = getattr(merged, name)
        assert got.dtype == want.dtype, name
        assert np.array_equal(got, want), name


def test_states_of_shard_files_merge_whatever_their_order() -> None:
    a = QueryValues("map(relevance_level=1)", "skip", np.array(["b", "a"]), np.array([0.5, 0.25]),
                    np.array(["z", "c"]), 0)  # fmt: skip
    b = QueryValues("map(relevance_level=1)", "skip", np.array(["c"]), np.array([1.0]),
                    np.array(["a", "d"]), 0)  # fmt: skip
    merged = a.merge(b)
    assert merged.queries.tolist() == ["a", "b", "c"]
    assert merged.values.tolist() == [0.25, 0.5, 1.0]
    assert merged.absent.tolist() == ["d", "z"]


@settings(max_examples=15, deadline=None)
@given(_runs(), st.integers(1, 40))
def test_values_per_group_are_the_metric_on_the_group(
    found: tuple[Any, pa.Table, Any], chunk_size: int
) -> None:
    qrels, table, codes = found
    names = ["ndcg@10", "map", "mrr", "bpref", "rbp", "p@5"]
    # the engine reads queries in order of their rows: sort the run by query
    order = np.argsort(table.column("query").to_numpy(zero_copy_only=False), kind="stable")
    table = table.take(order).append_column("kind", pa.array(codes[order]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = scorekit.evaluate(table, names, by="kind", qrels=qrels, chunk_size=chunk_size)
        except InputError as error:
            assert "no query to evaluate" in str(error)
            return
        for name in names:
            by_group = got[name].by_group
            for group in np.unique(codes).tolist():
                rows = table.filter(pa.compute.equal(table.column("kind"), group))
                try:
                    want = ranking.evaluate(
                        qrels,
                        ranking.Run(rows.column("query"), rows.column("doc"), rows.column("score")),
                        [name],
                    )
                except InputError:
                    assert np.isnan(by_group[group]) or group not in by_group
                    continue
                assert by_group[group] == want[name]  # fmt: skip
