"""Ranking metrics streamed: queries carried across chunks and files, TREC runs, bad order."""

from __future__ import annotations

import gzip
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from scorekit import evaluate, parse_metric, ranking
from scorekit.core import input_kind
from scorekit.engines._grouping import Groups
from scorekit.errors import ConfigError, InputError, UndefinedMetricWarning
from tables import write

METRICS = ["ndcg@10", "map", "mrr", "p@5", "recall@100", "bpref", "err@20"]


def _data(queries: int = 40, seed: int = 3) -> tuple[dict[str, Any], dict[str, Any]]:
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for i in range(queries):
        q = f"q{i:03d}"
        docs = [f"d{j}" for j in range(int(rng.integers(1, 30)))]
        if i % 7:
            qrels[q] = {d: int(rng.integers(0, 3)) for d in docs[::2]}
            qrels[q][docs[0]] = 2
        if i % 11:
            run[q] = {d: float(rng.integers(0, 5)) for d in docs}
    return qrels, run


QRELS, RUN = _data()


def _rows(run: dict[str, Any], order: list[str] | None = None) -> pa.Table:
    query, doc, score = [], [], []
    for q in order or sorted(run):
        for d, s in run[q].items():
            query.append(q)
            doc.append(d)
            score.append(s)
    return pa.table({"query": query, "doc": doc, "score": score})


def _expected() -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return dict(ranking.evaluate(QRELS, RUN, METRICS))


def _evaluate(source: Any, **kwargs: Any) -> dict[str, Any]:
    kwargs.setdefault("qrels", QRELS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return evaluate(source, METRICS, progress=False, **kwargs).values


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 17, 100_000])
def test_a_run_in_chunks_equals_the_whole_run(chunk_size: int) -> None:
    assert _evaluate(_rows(RUN), chunk_size=chunk_size) == _expected()


def test_groups_in_any_order_of_queries() -> None:
    order = sorted(RUN, reverse=True)
    assert _evaluate(_rows(RUN, order), chunk_size=5) == _expected()


def test_one_query_over_many_chunks_and_files(tmp_path: Path) -> None:
    table = _rows(RUN)
    rows = table.num_rows
    write(table.slice(0, rows // 3), tmp_path / "part-0.csv")
    write(table.slice(rows // 3, rows // 3), tmp_path / "part-1.parquet")
    write(table.slice(2 * (rows // 3)), tmp_path / "part-2.jsonl")
    assert _evaluate(tmp_path, chunk_size=4) == _expected()
    big = {"q": {f"d{j}": float(j % 13) for j in range(500)}}
    qrels = {"q": {f"d{j}": 1 for j in range(0, 500, 7)}}
    streamed = evaluate(_rows(big), ["map", "ndcg@10"], qrels=qrels, chunk_size=3).values
    assert streamed == dict(ranking.evaluate(qrels, big, ["map", "ndcg@10"]))


def test_mapped_columns_and_qrels_from_a_trec_file(tmp_path: Path) -> None:
    table = _rows(RUN).rename_columns(["qid", "docno", "sim"])
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items())
    )
    columns = {"query": "qid", "doc": "docno", "score": "sim"}
    assert _evaluate(table, columns=columns, qrels=qrels_path, chunk_size=9) == _expected()
    qrels = ranking.read_qrels(qrels_path)
    assert _evaluate(table, columns=columns, qrels=qrels, chunk_size=9) == _expected()


def _trec(run: dict[str, Any], sep: str = " ") -> str:
    lines = []
    for q in sorted(run):
        for rank, (d, s) in enumerate(run[q].items(), start=1):
            lines.append(sep.join([q, "Q0", d, str(rank), repr(s), "tag"]))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", ["run.txt", "run.run", "run.txt.gz"])
def test_trec_run_files(tmp_path: Path, name: str) -> None:
    text = _trec(RUN, "\t" if name == "run.run" else " ")
    path = tmp_path / name
    path.write_bytes(gzip.compress(text.encode()) if name.endswith(".gz") else text.encode())
    assert _evaluate(path, chunk_size=7) == _expected()


def test_trec_run_with_irregular_spacing_is_read_whole(tmp_path: Path) -> None:
    lines = _trec(RUN).splitlines()
    lines[len(lines) // 2] = lines[len(lines) // 2].replace(" ", "   ", 2) + " extra fields"
    path = tmp_path / "odd.run"
    path.write_text("\n".join(lines) + "\n")
    assert _evaluate(path, chunk_size=7) == _expected()
    lines[5] = "q001 Q0 d3"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as info:
        _evaluate(path)
    assert str(info.value).startswith(f"{path}, line 6: malformed run line; got 3 fields")


def test_a_query_seen_again_after_other_queries(tmp_path: Path) -> None:
    table = _rows(RUN)
    queries = table.column("query").to_pylist()
    first = queries[0]
    back = queries.index(queries[-1])  # start of the last query
    order = list(range(table.num_rows))
    moved = order[:1] + order[back:] + order[1:back]  # the first query's rows split in two
    shuffled = table.take(pa.array(moved))
    again = 1 + (table.num_rows - back) + 1  # row of the second part of the first query
    for chunk_size in (1, 4, 100_000):
        with pytest.raises(InputError) as info:
            _evaluate(shuffled, chunk_size=chunk_size)
        assert str(info.value) == (
            f"table, row {again}, column 'query': input is not grouped by query; "
            f"got query {first!r} again after other queries, expected the rows of each query "
            "together (sort the run by query)."
        )
    path = write(shuffled, tmp_path / "run.csv")
    with pytest.raises(InputError) as info:
        _evaluate(path, chunk_size=3)
    assert str(info.value).startswith(f"{path}, line {again + 1}, column 'query': input is not")
    folder = tmp_path / "parts"
    folder.mkdir()
    write(table, folder / "a.parquet")
    write(table.slice(0, 2), folder / "b.parquet")
    with pytest.raises(InputError) as info:
        _evaluate(folder)
    assert str(info.value).startswith(f"{folder / 'b.parquet'}, row 1, column 'query'")


def test_duplicate_document_names_query_and_doc() -> None:
    table = pa.table({"query": ["a", "a", "a"], "doc": ["x", "y", "x"], "score": [1.0, 2, 3]})
    with pytest.raises(InputError, match="duplicate document; got doc 'x' of query 'a' again"):
        evaluate(table, ["map"], qrels={"a": {"x": 1}}, chunk_size=1)


def test_ranking_needs_qrels() -> None:
    with pytest.raises(ConfigError, match="needs relevance judgments"):
        evaluate(_rows(RUN), ["ndcg@10"])


def test_ranking_and_other_metrics_in_one_pass() -> None:
    table = _rows(RUN)
    table = table.append_column("y_true", pa.array(np.ones(table.num_rows)))
    table = table.append_column("y_pred", table.column("score"))
    result = evaluate(table, ["map", "mae"], qrels=QRELS, chunk_size=6).values
    assert result["map"] == _expected()["map"]
    scores = np.asarray(table.column("score"))
    assert result["mae"] == pytest.approx(np.abs(1 - scores).mean(), rel=1e-12)


def _undefined(call: Any) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught if issubclass(w.category, UndefinedMetricWarning)]


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 100])
def test_no_relevant_document_warning_is_the_in_memory_one(chunk_size: int) -> None:
    # a and b have no relevant document, c has one: the warning counts 2 of the 3
    # queries whatever the chunks, as the whole run in memory does
    qrels = {"a": {"x": 0}, "b": {"y": 0}, "c": {"z": 1}}
    run = {"a": {"x": 1.0}, "b": {"y": 1.0}, "c": {"z": 1.0}}
    expected = (
        "map: 2 of 3 queries have no relevant document (grade >= 1); they count as 0, "
        "as in trec_eval."
    )
    assert _undefined(lambda: parse_metric("map").score(qrels, run)) == [expected]
    texts = _undefined(lambda: evaluate(_rows(run), ["map"], qrels=qrels, chunk_size=chunk_size))
    assert texts == [expected]


def test_query_groups_carry_the_open_query() -> None:
    groups = Groups(input_kind("qrels_run"), {"query": ("q",), "doc": ("d",), "score": ("s",)})
    assert groups.push(pa.table({"q": ["a", "a"], "d": ["1", "2"], "s": [1, 2]})) is None
    assert groups.push(pa.table({"q": ["a"], "d": ["3"], "s": [3]})) is None
    ready = groups.push(pa.table({"q": ["a", "b", "c"], "d": ["4", "1", "1"], "s": [4, 1, 1]}))
    assert ready.column("query").to_pylist() == ["a", "a", "a", "a", "b"]
    assert ready.column("doc").to_pylist() == ["1", "2", "3", "4", "1"]
    assert groups.push(pa.table({"q": pa.array([], pa.string()), "d": [], "s": []})) is None
    last = groups.flush()
    assert last.column("query").to_pylist() == ["c"]
    assert groups.flush() is None
