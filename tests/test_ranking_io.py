"""Reading runs and qrels, ranking rows and joining them: every fast path against its general one.

TREC files are read by pyarrow's CSV parser when one delimiter separates every
field and by a whitespace split otherwise; runs are ranked by moving whole query
blocks when the file is grouped and sorted and by a full sort otherwise; pairs
are compared by 64-bit hashes and confirmed on the ids. Each pair of paths must
give the same columns, rankings, errors and metric values.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from scorekit import ranking
from scorekit.errors import InputError
from scorekit.ranking import _columns, _data, _order, _trec
from scorekit.ranking._trec import read_qrels_file, read_run_file

RUN_FIELDS = ("query", "iter", "doc", "rank", "score", "tag")


def _rows(seed: int = 0, queries: int = 12, docs: int = 30) -> list[tuple[str, str, float]]:
    """Run rows with ties, ids of many lengths (past 8 and 16 bytes) and non-ASCII ids."""
    rng = random.Random(seed)
    stems = ["d", "doc-", "é", "z", "longer_document_id_", "ü_ü_ü_ü_ü_ü_"]
    rows = []
    for q in range(queries):
        chosen = rng.sample(range(10 * docs), docs)
        for i, d in enumerate(chosen):
            doc = f"{stems[i % len(stems)]}{d}"
            rows.append((f"q{q * 7 % queries}", doc, float(rng.choice([1, 2, 2.5, 3, 3, 4]))))
    return rows


def _sorted_file_order(rows: list[tuple[str, str, float]]) -> list[tuple[str, str, float]]:
    """Rows grouped by query in order of first appearance, by descending score."""
    first: dict[str, int] = {}
    for q, _, _ in rows:
        first.setdefault(q, len(first))
    return sorted(rows, key=lambda r: (first[r[0]], -r[2]))


def _write_run(path: Path, rows: list[tuple[str, str, float]], sep: str = " ") -> Path:
    lines = [sep.join([q, "Q0", d, str(i + 1), repr(s), "tag"]) for i, (q, d, s) in enumerate(rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _expected_ranking(rows: list[tuple[str, str, float]], query: str) -> list[str]:
    """trec_eval's order: score descending, ties by doc id descending (as bytes)."""
    mine = [(d, s) for q, d, s in rows if q == query]
    mine.sort(key=lambda r: (r[1], r[0].encode()), reverse=True)
    return [d for d, _ in mine]


def _run_table(rows: list[tuple[str, str, float]]) -> Any:
    q, d, s = zip(*rows, strict=True)
    return pa.table({"query": list(q), "doc": list(d), "score": list(s)})


# reading ------------------------------------------------------------------------------


def test_fast_and_general_paths_read_the_same_columns(tmp_path: Path) -> None:
    rows = _sorted_file_order(_rows())
    fast = _write_run(tmp_path / "fast.txt", rows)
    messy = tmp_path / "messy.txt"
    lines = fast.read_text(encoding="utf-8").splitlines()
    spaced = ["  " + line.replace(" ", " \t ", 2) + "\t" for line in lines]
    messy.write_text("\n\n".join(spaced) + "\n", encoding="utf-8")
    assert _trec._fast(fast, RUN_FIELDS, "score") is not None
    assert _trec._fast(messy, RUN_FIELDS, "score") is None
    a, b = read_run_file(fast), read_run_file(messy)
    assert a.query.to_pylist() == b.query.to_pylist() == [r[0] for r in rows]
    assert a.doc.to_pylist() == b.doc.to_pylist() == [r[1] for r in rows]
    assert a.values.tolist() == b.values.tolist() == [r[2] for r in rows]
    tabs = _write_run(tmp_path / "tabs.txt", rows, sep="\t")
    assert _trec._fast(tabs, RUN_FIELDS, "score") is not None
    assert read_run_file(tabs).doc.to_pylist() == [r[1] for r in rows]


def test_an_empty_field_leaves_the_fast_path_and_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 2.0 tag\nq1 Q0  3 1.5 tag\n")
    assert _trec._fast(path, RUN_FIELDS, "score") is None
    with pytest.raises(InputError, match=r"line 3\b.*malformed run line"):
        read_run_file(path)


@pytest.mark.parametrize("sep", [" ", "  "])
def test_duplicates_name_their_line_on_both_paths(tmp_path: Path, sep: str) -> None:
    lines = [
        "q1 Q0 d1 1 3 t",
        "q1 Q0 d2 2 2 t",
        "q2 Q0 d1 1 3 t",
        "q1 Q0 d2 3 1 t",
        "q2 Q0 d2 2 1 t",
    ]
    if sep != " ":
        lines = ["", *lines[:2], "", *lines[2:]]  # blank lines are not rows
    text = "\n".join(line.replace(" ", sep) for line in lines) + "\n"
    path = tmp_path / "run.txt"
    path.write_text(text)
    assert (_trec._fast(path, RUN_FIELDS, "score") is None) == (sep != " ")
    expected = 4 if sep == " " else 6
    with pytest.raises(InputError, match=rf"line {expected}\b.*duplicate document.*'d2'.*'q1'"):
        ranking.read_run(path)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(f"q1{sep}0{sep}d1{sep}1\nq2{sep}0{sep}d1{sep}1\nq1{sep}0{sep}d1{sep}0\n")
    with pytest.raises(InputError, match=r"line 3\b.*duplicate document"):
        ranking.read_qrels(qrels)


@pytest.mark.parametrize("sep", [" ", " \t"])
@pytest.mark.parametrize("score", ["nan", "-inf", "1e999", "1.5x", "0x10"])
def test_bad_scores_name_their_line_on_both_paths(tmp_path: Path, sep: str, score: str) -> None:
    lines = ["q1 Q0 d1 1 3 t", "", f"q1 Q0 d2 2 {score} t", "q1 Q0 d3 3 1 t"]
    path = tmp_path / "run.txt"
    path.write_text("\n".join(line.replace(" ", sep) for line in lines) + "\n")
    with pytest.raises(InputError, match=r"line 3: score is not a finite number"):
        read_run_file(path)


def test_table_duplicates_name_the_first_repeating_row() -> None:
    table = pa.table(
        {"query": ["a", "b", "a", "b", "a"], "doc": ["x", "x", "y", "x", "x"], "score": [1.0] * 5}
    )
    with pytest.raises(InputError, match=r"query 'b', doc 'x'.*duplicate document"):
        ranking.Run.from_table(table)


def test_from_table_reads_pyarrow_and_pandas_columns() -> None:
    rows = _rows(queries=3, docs=5)
    table = _run_table(rows)
    a = ranking.Run.from_table(table)
    b = ranking.Run.from_table(table.to_pandas())
    assert a.to_dict() == b.to_dict()
    with pytest.raises(InputError, match="no score column; got 'score'"):
        ranking.Run.from_table(table.drop_columns(["score"]))


# ranking ------------------------------------------------------------------------------


def test_sorted_and_shuffled_runs_rank_alike_with_ties_by_doc_id() -> None:
    rows = _sorted_file_order(_rows())
    shuffled = rows[:]
    random.Random(1).shuffle(shuffled)
    grouped = ranking.Run.from_table(_run_table(rows))
    mixed = ranking.Run.from_table(_run_table(shuffled))
    for q in grouped.queries().tolist():
        expected = _expected_ranking(rows, q)
        assert grouped.ranking(q) == expected
        assert mixed.ranking(q) == expected
    qrels = {q: {d: i % 3 for i, (qq, d, _) in enumerate(rows) if qq == q} for q, _, _ in rows}
    metrics = ["ndcg@10", "map", "mrr", "p@5", "bpref"]
    a = ranking.evaluate(qrels, grouped, metrics, per_query=True)
    b = ranking.evaluate(qrels, mixed, metrics, per_query=True)
    assert a.per_query == b.per_query


def test_block_order_and_full_sort_give_the_same_order_arrays() -> None:
    rows = _sorted_file_order(_rows(seed=3))
    run = ranking.Run.from_table(_run_table(rows))
    codes, qids, _ = run._query_index()
    order, tied = _order._grouped_order(codes, run.values, len(qids))
    assert tied is not None and tied.any()  # ties within queries, found in file order
    full = np.lexsort((-run.values, codes))
    assert np.array_equal(run.values[order], run.values[full])
    assert np.array_equal(codes[order], codes[full])
    sorted_order, starts, _ = run.ranked()
    for i, q in enumerate(qids.tolist()):
        docs = run.doc.take(pa.array(sorted_order[starts[i] : starts[i + 1]])).to_pylist()
        assert docs == _expected_ranking(rows, q)


def test_interleaved_queries_are_coded_row_by_row() -> None:
    rows = _rows(queries=4, docs=6)
    interleaved = [rows[i] for j in range(6) for i in range(j, len(rows), 6)]
    run = ranking.Run.from_table(_run_table(interleaved))
    codes, names, ids = run._query_index()
    assert names.tolist() == sorted({r[0] for r in rows}) == ids.to_pylist()
    assert [names[c] for c in codes] == [r[0] for r in interleaved]
    for q in names.tolist():
        assert run.ranking(q) == _expected_ranking(rows, q)


# hashing and joining ------------------------------------------------------------------


def test_string_hashes_depend_on_every_byte_and_the_length() -> None:
    ids = [
        "",
        "a",
        "a\x00",
        "ab",
        "abcdefgh",
        "abcdefghi",
        "abcdefgh\x00",
        "abcdefghijklmnop",
        "abcdefghijklmnoq",
        "abcdefghijklmnopq",
        "é",
        "e",
        "x" * 100,
        "x" * 99 + "y",
    ]
    hashes = _columns.hash_strings(pa.array(ids))
    assert len(set(hashes.tolist())) == len(ids)
    # the same strings elsewhere in another array (and in a slice) hash alike
    other = pa.array(["pad", "more padding", *reversed(ids)]).slice(2)
    assert _columns.hash_strings(other).tolist() == hashes[::-1].tolist()
    assert _columns.hash_strings(pa.array([], pa.string())).tolist() == []


def test_qrels_and_run_pairs_hash_alike() -> None:
    qrels = ranking.Qrels.from_dict({"q1": {"d1": 1, "d2": 0}, "q10": {"d1": 2}})
    run = ranking.Run.from_dict({"q10": {"d1": 0.5, "d3": 0.2}, "q1": {"d2": 0.1}})

    def pairs(table: Any) -> list[tuple[str, str]]:
        return list(zip(table.query.to_pylist(), table.doc.to_pylist(), strict=True))

    by_pair = dict(zip(pairs(qrels), qrels._pair_hashes().tolist(), strict=True))
    for pair, h in zip(pairs(run), run._pair_hashes().tolist(), strict=True):
        if pair in by_pair:
            assert by_pair[pair] == h
        else:
            assert h not in by_pair.values()


def test_hash_collisions_fall_back_to_the_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = _sorted_file_order(_rows(seed=5, queries=5, docs=12))
    qrels = {q: {d: i % 4 - 1 for i, (qq, d, _) in enumerate(rows) if qq == q} for q, _, _ in rows}
    metrics = ["ndcg@10", "map", "mrr", "recall@5"]
    expected = ranking.evaluate(qrels, _run_table(rows), metrics, per_query=True).per_query

    def constant(column: Any, seed: Any = None) -> Any:
        return np.zeros(len(column), dtype=np.uint64)

    monkeypatch.setattr(_data, "hash_strings", constant)
    run = ranking.Run.from_table(_run_table(rows))  # every pair collides, none repeats
    assert ranking.evaluate(qrels, run, metrics, per_query=True).per_query == expected
    with pytest.raises(InputError, match=r"query 'q1', doc 'd1'.*duplicate document"):
        ranking.Run(["q0", "q1", "q0", "q1"], ["d1", "d1", "d2", "d1"], [1.0, 2.0, 0.5, 1.0])


def test_some_run_hashes_collide_with_qrels_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    qrels = {"q1": {"d1": 2, "d2": 1}, "q2": {"d3": 1}}
    run = {"q1": {"d1": 0.9, "d4": 0.8, "d2": 0.1}, "q2": {"d5": 0.7, "d3": 0.6}}
    expected = ranking.evaluate(qrels, run, ["map", "ndcg@10"], per_query=True).per_query
    # a pair's hash is its doc's number alone: the qrels pairs stay apart, while
    # (q1, d4) meets (q1, d1) and (q2, d5) meets (q1, d2) without being them
    numbers = {"d1": 1, "d2": 2, "d3": 3, "d4": 1, "d5": 2}

    def coarse(column: Any, seed: Any = None) -> Any:
        return np.array([numbers.get(s, 0) for s in column.to_pylist()], dtype=np.uint64)

    monkeypatch.setattr(_data, "hash_strings", coarse)
    judged = ranking.Qrels.from_dict(qrels)._pair_hashes()
    assert len(set(judged.tolist())) == len(judged)
    got = ranking.evaluate(qrels, run, ["map", "ndcg@10"], per_query=True).per_query
    assert got == expected


def test_reading_a_file_and_a_table_give_the_same_values(tmp_path: Path) -> None:
    rows = _sorted_file_order(_rows(seed=7))
    path = _write_run(tmp_path / "run.txt", rows)
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text(
        "".join(f"{q} 0 {d} {i % 3}\n" for i, (q, d, _) in enumerate(rows) if i % 4 == 0),
        encoding="utf-8",
    )
    metrics = ["ndcg@10", "map", "mrr"]
    from_files = ranking.evaluate(qrels_path, path, metrics, per_query=True)
    qrels = ranking.read_qrels(qrels_path)
    from_table = ranking.evaluate(qrels.to_dict(), _run_table(rows), metrics, per_query=True)
    assert from_files.per_query == from_table.per_query
    assert read_qrels_file(qrels_path).values.tolist() == qrels.values.tolist()


@pytest.mark.parametrize(
    ("line", "pattern"),
    [
        ("q Q0 a 1 n/a t\n", "line 1: score is not a finite number; got 'n/a'"),
        ("q Q0 a 1 NA t\n", "line 1: score is not a finite number; got 'NA'"),
        ("q\tQ0\tb\t1\t\tt\n", "line 1: malformed run line; got 5 fields"),
    ],
)
def test_null_words_and_empty_fields_are_not_read_as_missing_scores(
    tmp_path: Path, line: str, pattern: str
) -> None:
    path = tmp_path / "run.txt"
    path.write_text(line, encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(pattern)):
        ranking.read_run(path)


def test_a_table_without_its_score_column_names_it() -> None:
    with pytest.raises(InputError, match="Run: no score column; got 'score'"):
        ranking.Run.from_table(pa.table({"query": ["q"], "doc": ["d"], "points": [1.0]}))
