"""How the Dask engine reads files: groups of small files, one reader over a list, sources on
the workers.

Many small files are read a group at a time on the workers (a few partitions, not one
per file); files of one schema by one Dask reader, large ones split inside the file;
a TREC run (``scorekit rank``), line-aligned text files (``scorekit text``) and any
other :class:`~scorekit.io.Source` are read on the workers, not on the client. Every
way gives the stream engine's values.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
from distributed import Client
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import evaluate, parse_metric
from scorekit.cli import main
from scorekit.engines import dask as dask_engine
from scorekit.engines._columns import resolve
from scorekit.engines._dask_sources import GROUP_FILES, file_groups
from scorekit.errors import InputError
from scorekit.io import Progress, ReadPlan, Source, with_meta

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "examples" / "data"
METRICS = ["accuracy", "f1:macro", "mcc", "confusion_matrix"]
COLUMNS = {"y_true": "y_true", "y_pred": "y_pred"}


@pytest.fixture(scope="module")
def scheduler(dask_cluster: Any) -> str:
    return str(dask_cluster.scheduler_address)


def _shards(folder: Path, n: int, fmt: str, seed: int = 0, rows: int = 30) -> pa.Table:
    rng = np.random.default_rng(seed)
    tables = []
    for i in range(n):
        y = rng.integers(0, 3, rows)
        table = pa.table({"y_true": y, "y_pred": np.where(rng.random(rows) < 0.6, y, 0)})
        if fmt == "parquet":
            pq.write_table(table, folder / f"part-{i:04d}.parquet", row_group_size=7)
        else:
            pacsv.write_csv(table, folder / f"part-{i:04d}.csv")
        tables.append(table)
    return pa.concat_tables(tables)


def _same(a: Any, b: Any) -> None:
    for name in METRICS:
        np.testing.assert_allclose(np.asarray(a.values[name]), np.asarray(b.values[name]), 1e-12)


# the groups of small files ----------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 2000), max_size=600),
    threads=st.integers(1, 16),
    block=st.integers(1, 5000),
)
def test_file_groups_cover_every_file_once_in_order(
    sizes: list[int], threads: int, block: int
) -> None:
    groups = file_groups(sizes, threads, block)
    assert [i for g in groups for i in g] == list(range(len(sizes)))
    assert all(len(g) >= 1 for g in groups)
    most = max(1, min(GROUP_FILES, len(sizes) // threads))
    for g in groups:
        assert len(g) <= most
        # a group past the block holds one file only
        assert len(g) == 1 or sum(sizes[i] for i in g) <= block
    if len(sizes) >= threads and all(s * most <= block for s in sizes):
        assert len(groups) >= min(threads, len(sizes))


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_many_small_files_are_a_few_partitions(fmt: str, tmp_path: Path, dask_cluster: Any) -> None:
    _shards(tmp_path, 40, fmt)
    metrics = [parse_metric(m) for m in METRICS]
    mapping = resolve(metrics, None, ["y_true", "y_pred"])
    with Client(dask_cluster, set_as_default=False) as client:
        threads = sum(client.nthreads().values())
        frame, _, _, _ = dask_engine._frame(str(tmp_path), mapping, set(), client, None)
    assert threads <= frame.npartitions <= 40 // 2
    leaves = dask_engine._graph(frame, metrics, mapping, None, "x", {}, False)
    summarize = [k for k in leaves.graph if str(k).startswith("scorekit-summarize")]
    assert len(summarize) == len(leaves.keys) == frame.npartitions


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_small_files_give_the_stream_values(
    fmt: str, seed: int, tmp_path: Path, scheduler: str
) -> None:
    n = int(np.random.default_rng(seed).integers(3, 30))
    _shards(tmp_path, n, fmt, seed, rows=int(np.random.default_rng(seed).integers(1, 40)))
    dask = evaluate(str(tmp_path), METRICS, columns=COLUMNS, engine="dask", scheduler=scheduler)
    stream = evaluate(str(tmp_path), METRICS, columns=COLUMNS, chunk_size=11)
    _same(dask, stream)
    assert dask.rows == stream.rows


def test_small_files_missing_a_required_column_name_the_file(
    tmp_path: Path, scheduler: str
) -> None:
    _shards(tmp_path, 5, "parquet")
    pq.write_table(pa.table({"y_true": [1, 0]}), tmp_path / "part-0002.parquet")
    with pytest.raises(InputError, match=r"part-0002\.parquet: no such column; got 'y_pred'"):
        evaluate(str(tmp_path), ["accuracy"], columns=COLUMNS, engine="dask", scheduler=scheduler)


# one reader over a list, large files split --------------------------------------------------


def test_files_of_one_schema_are_one_reader_split_by_row_groups(
    tmp_path: Path, scheduler: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a block of 4 kB: the files are "large", each split by its row groups
    monkeypatch.setattr(dask_engine, "_BLOCKSIZE", 4096)
    table = _shards(tmp_path, 3, "parquet", rows=3000)
    pairs = [(str(p), "parquet") for p in sorted(tmp_path.iterdir())]
    assert dask_engine._agreeing(pairs, ["y_true", "y_pred"])
    with dask.config.set({"dataframe.convert-string": False}):
        frame, _ = dask_engine._read_files(str(tmp_path), ["y_true", "y_pred"], set(), 2)
    assert frame.npartitions > 3
    got = evaluate(str(tmp_path), METRICS, columns=COLUMNS, engine="dask", scheduler=scheduler)
    expected = evaluate(table, METRICS, columns=COLUMNS)
    _same(got, expected)


def test_files_that_differ_are_not_one_reader(tmp_path: Path) -> None:
    pq.write_table(pa.table({"y_true": [1], "y_pred": [1]}), tmp_path / "a.parquet")
    pq.write_table(pa.table({"y_true": [1.5], "y_pred": [1]}), tmp_path / "b.parquet")
    pq.write_table(pa.table({"y_true": [1]}), tmp_path / "c.parquet")
    pacsv.write_csv(pa.table({"y_true": [1], "y_pred": [1]}), tmp_path / "d.csv")
    a, b, c, d = (str(tmp_path / n) for n in ("a.parquet", "b.parquet", "c.parquet", "d.csv"))
    wanted = ["y_true", "y_pred"]
    assert dask_engine._agreeing([(a, "parquet"), (a, "parquet")], wanted)
    assert not dask_engine._agreeing([(a, "parquet"), (b, "parquet")], wanted)
    assert not dask_engine._agreeing([(a, "parquet"), (c, "parquet")], wanted)
    assert not dask_engine._agreeing([(a, "parquet"), (d, "csv")], wanted)


# sources read on the workers -----------------------------------------------------------------


class _Marked(Source):
    """Rows of a table; reading them leaves a file named after the reading process."""

    def __init__(self, table: pa.Table, marks: str) -> None:
        self.table = table
        self.marks = marks
        self.name = "marked"

    def columns(self) -> list[str]:
        return list(self.table.column_names)

    def chunks(
        self, wanted: Sequence[str], chunk_size: int, progress: Progress, plan: ReadPlan
    ) -> Iterator[Any]:
        Path(self.marks, f"read-{os.getpid()}").touch()
        for start in range(0, self.table.num_rows, chunk_size):
            part = self.table.slice(start, chunk_size).select(list(wanted))
            yield with_meta(part, self.name, None, start)


def test_a_source_is_read_on_a_worker(tmp_path: Path, scheduler: str) -> None:
    rng = np.random.default_rng(5)
    table = pa.table({"y_true": rng.integers(0, 2, 500), "y_pred": rng.integers(0, 2, 500)})
    source = _Marked(table, str(tmp_path))
    got = evaluate(source, METRICS, columns=COLUMNS, engine="dask", scheduler=scheduler)
    readers = {int(p.name.split("-")[1]) for p in tmp_path.iterdir()}
    assert readers and os.getpid() not in readers
    _same(got, evaluate(table, METRICS, columns=COLUMNS))


def _cli(capsys: pytest.CaptureFixture[str], argv: list[str]) -> Any:
    status = main([*argv, "--format", "json", "--quiet"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return json.loads(out)


@pytest.mark.parametrize(
    "argv",
    [
        ["rank", str(DATA / "qrels.txt"), str(DATA / "run.txt"), "-m", "map", "ndcg@10", "p@5"],
        [
            "text",
            "--refs",
            str(DATA / "refs_a.txt"),
            str(DATA / "refs_b.txt"),
            "--hyps",
            str(DATA / "hyps.txt"),
            "-m",
            "bleu",
            "chrf",
            "ter",
        ],
    ],
    ids=["rank", "text"],
)
def test_rank_and_text_on_dask_give_the_stream_values(
    argv: list[str], scheduler: str, capsys: pytest.CaptureFixture[str]
) -> None:
    got = _cli(capsys, [*argv, "--engine", "dask", "--scheduler", scheduler])
    expected = _cli(capsys, [*argv, "--chunk-size", "17"])
    assert got.keys() == expected.keys() and got
    for key, value in expected.items():
        if isinstance(value, str):
            assert got[key] == value, key
        else:
            assert got[key] == pytest.approx(value, rel=1e-12), key


def test_rank_reads_its_run_on_the_workers(
    scheduler: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the client must not read the run's rows: its reader of TREC runs is out of order here
    from scorekit.io import _readers

    batches = _readers.batches

    def refuse(path: Path, fmt: str, *args: Any) -> Any:
        if fmt == "trec":
            raise AssertionError("the run was read on the client")
        return batches(path, fmt, *args)

    monkeypatch.setattr(_readers, "batches", refuse)
    argv = ["rank", str(DATA / "qrels.txt"), str(DATA / "run.txt"), "-m", "map"]
    got = _cli(capsys, [*argv, "--engine", "dask", "--scheduler", scheduler])
    assert got
