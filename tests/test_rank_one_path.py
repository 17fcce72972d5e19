"""``scorekit rank`` reaches its metrics by one fold: whole, per group, in chunks."""

from __future__ import annotations

from pathlib import Path

import pytest

from scorekit import api
from scorekit.errors import InputError

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\nq2 0 d4 1\nq3 0 d5 1\n"
SORTED = (
    "q1 Q0 d2 1 2.0 x\nq1 Q0 d1 2 1.0 x\n"
    "q2 Q0 d4 1 3.0 x\nq2 Q0 d9 2 2.0 x\nq2 Q0 d3 3 1.0 x\n"
    "q3 Q0 d5 1 1.0 x\n"
)
APART = (
    "q2 Q0 d4 1 3.0 x\nq1 Q0 d2 1 2.0 x\nq2 Q0 d9 2 2.0 x\n"
    "q3 Q0 d5 1 1.0 x\nq1 Q0 d1 2 1.0 x\nq2 Q0 d3 3 1.0 x\n"
)
TOPICS = "query,kind\nq1,short\nq2,long\nq3,short\n"
METRICS = ["map", "ndcg@10", "mrr", "p@2"]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    out = {}
    for name, text in [
        ("qrels", QRELS),
        ("sorted", SORTED),
        ("apart", APART),
        ("topics.csv", TOPICS),
    ]:
        path = tmp_path / name
        path.write_text(text)
        out[name.split(".")[0]] = str(path)
    return out


def test_a_whole_run_whose_queries_lie_apart_equals_the_sorted_run(files: dict[str, str]) -> None:
    want = api.evaluate_run(files["qrels"], files["sorted"], METRICS)
    got = api.evaluate_run(files["qrels"], files["apart"], METRICS)
    assert dict(got.values) == dict(want.values)
    assert got.rows == want.rows == 6
    by = {"by": ["kind"], "attributes": files["topics"]}
    grouped = api.evaluate_run(files["qrels"], files["apart"], METRICS, **by)
    in_order = api.evaluate_run(files["qrels"], files["sorted"], METRICS, **by)
    for key in METRICS:
        assert grouped[key].overall == want[key]
        assert grouped[key].by_group == in_order[key].by_group
    per_query = api.evaluate_run(files["qrels"], files["sorted"], ["map"], per_query=True)
    assert grouped["map"].by_group["long"] == per_query.per_query["q2"]["map"]


def test_a_run_given_as_a_dict_equals_its_file(files: dict[str, str]) -> None:
    run: dict[str, dict[str, float]] = {}
    for line in SORTED.splitlines():
        query, _, doc, _, score, _ = line.split()
        run.setdefault(query, {})[doc] = float(score)
    got = api.evaluate_run(files["qrels"], run, METRICS, per_query=True)
    want = api.evaluate_run(files["qrels"], files["sorted"], METRICS, per_query=True)
    assert dict(got.values) == dict(want.values)
    assert got.per_query == want.per_query
    assert got.rows == 6


@pytest.mark.parametrize("by", [False, True])
def test_a_duplicate_document_names_the_file_and_line_whole_and_per_group(
    files: dict[str, str], tmp_path: Path, by: bool
) -> None:
    path = tmp_path / "dup"
    path.write_text("q1 Q0 d2 1 2.0 x\nq1 Q0 d2 2 1.0 x\n")
    grouping = {"by": ["kind"], "attributes": files["topics"]} if by else {}
    with pytest.raises(InputError, match=rf"{path}, line 2: duplicate document; got doc 'd2'"):
        api.evaluate_run(files["qrels"], str(path), ["map"], **grouping)


def test_chunks_need_each_querys_rows_together(files: dict[str, str]) -> None:
    with pytest.raises(InputError, match="not grouped by query"):
        api.evaluate_run(files["qrels"], files["apart"], ["map"], chunk_size=2)
    whole = api.evaluate_run(files["qrels"], files["sorted"], METRICS)
    chunked = api.evaluate_run(files["qrels"], files["sorted"], METRICS, chunk_size=2)
    assert dict(chunked.values) == pytest.approx(dict(whole.values), rel=1e-12)
