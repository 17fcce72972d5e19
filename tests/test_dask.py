"""The Dask engine on a real local cluster of worker processes.

Every registered metric configuration gives on random partitionings the state it
has in memory (integer fields exactly, float sums to 1e-12 relative), from a Dask
DataFrame, an in-memory table and files; killing a worker in the middle of a
computation still gives the in-memory result.
"""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask
import dask.dataframe as dd
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from distributed import Client, LocalCluster

from scorekit import evaluate, parse_metric
from scorekit.core import Metric, State, available, iter_variants
from scorekit.engines import dask as dask_engine
from scorekit.engines._columns import column_roles, resolve
from scorekit.engines.dask import dask_states
from scorekit.errors import (
    ConfigError,
    InputError,
    ScorekitError,
    UndefinedMetricWarning,
)
from strategies import make_batch

CONFIGS: dict[str, list[Metric[Any]]] = {}
for _info in available():
    for _metric in iter_variants(_info):
        CONFIGS.setdefault(_metric.inputs, []).append(_metric)

SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def cluster(dask_cluster: LocalCluster) -> Iterator[tuple[LocalCluster, Client]]:
    """The shared cluster, with a client that is the default scheduler of this module."""
    with Client(dask_cluster) as client:
        yield dask_cluster, client


# tables of the batches the property tests use ---------------------------------------------


def _takes_weight(metric: Metric[Any]) -> bool:
    return "sample_weight" in inspect.signature(metric.summarize).parameters


def _ragged(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """Padded log-probabilities with a mask as one sequence per row."""
    if len(args) == 2:
        values, mask = args
        return ([row[keep] for row, keep in zip(values, mask, strict=True)],)
    return args


def _column(value: Any, name: str, wide: bool) -> dict[str, Any]:
    if isinstance(value, np.ndarray) and value.ndim == 2:
        if wide:
            return {f"{name}_{j}": value[:, j] for j in range(value.shape[1])}
        return {name: pa.array(list(value))}
    if isinstance(value, list) and value and isinstance(value[0], np.ndarray):
        return {name: pa.array([v.tolist() for v in value], type=pa.list_(pa.float64()))}
    return {name: pa.array(value)}


def _kind_table(
    kind: str, metrics: list[Metric[Any]], seed: int
) -> tuple[pa.Table, dict[str, Any], Any, tuple[Any, ...], Any]:
    """One batch of ``kind`` as a table: (table, columns, qrels, args, weights)."""
    args = make_batch(kind, seed, 30 + 7 * seed, 2 + seed % 3, seed % 4)
    if kind == "qrels_run":
        qrels, run = args
        rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
        query, doc, score = zip(*rows, strict=True)
        table = pa.table({"query": list(query), "doc": list(doc), "score": list(score)})
        return table, {}, qrels, args, None
    if kind == "requests":
        return _records_table(args[0]), {}, None, args, None
    if kind == "log_probs":
        args = _ragged(args)
    wide = seed % 2 == 1
    data: dict[str, Any] = {}
    names = []
    for i, value in enumerate(args):
        part = _column(value, f"c{i}", wide)
        data.update(part)
        names.append(list(part) if len(part) > 1 else next(iter(part)))
    columns: dict[str, Any] = {}
    for metric in metrics:
        roles = [r for r in column_roles(metric) if r != "sample_weight"]
        for role, name in zip(roles, names, strict=False):
            columns.setdefault(role, name)
    weights = None
    if seed % 3 != 2 and any(_takes_weight(m) for m in metrics):
        n = len(args[0])
        weights = np.random.default_rng(seed + 7).random(n) * 3
        data["w"] = weights
        columns["sample_weight"] = "w"
    return pa.table(data), columns, None, args, weights


def _records_table(records: Any) -> pa.Table:
    """Request records (dicts, Request objects, a DataFrame or a table) as a table."""
    if isinstance(records, pa.Table):
        return records
    if isinstance(records, pd.DataFrame):
        return pa.Table.from_pandas(records, preserve_index=False)
    rows = [r if isinstance(r, dict) else dataclasses.asdict(r) for r in records]
    return pa.Table.from_pylist(rows)


def _in_memory(metric: Metric[Any], args: tuple[Any, ...], weights: Any) -> State:
    if weights is not None and _takes_weight(metric):
        return metric.summarize(*args, sample_weight=weights)
    return metric.summarize(*args)


def _pieces(table: pa.Table, rng: np.random.Generator) -> Any:
    """A Dask DataFrame of ``table`` cut at random rows (some partitions empty)."""
    frame = table.to_pandas(types_mapper=pd.ArrowDtype)
    parts = int(rng.integers(1, 9))
    cuts = np.sort(rng.integers(0, len(frame) + 1, parts - 1))
    bounds = np.concatenate([[0], cuts, [len(frame)]])
    pieces = [frame.iloc[lo:hi] for lo, hi in itertools.pairwise(bounds)]
    return dd.from_map(pd.DataFrame, pieces, meta=frame.iloc[:0])


# comparison -----------------------------------------------------------------------------


def _floats(value: Any) -> Iterator[np.ndarray]:
    if isinstance(value, State):
        for f in dataclasses.fields(value):
            yield from _floats(getattr(value, f.name))
    elif isinstance(value, tuple | list):
        for v in value:
            yield from _floats(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _floats(v)
    else:
        x = np.asarray(value)
        if x.dtype.kind == "f" and x.size:
            yield x


def _same_field(a: Any, b: Any, scale: float) -> bool:
    if isinstance(a, State):
        return _same_state(a, b)
    if isinstance(a, tuple | list):
        return len(a) == len(b) and all(_same_field(x, y, scale) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return set(a) == set(b) and all(_same_field(a[k], b[k], scale) for k in a)
    x, y = np.asarray(a), np.asarray(b)
    if x.shape != y.shape or x.dtype.kind != y.dtype.kind:
        return False
    if x.dtype.kind in "fc":
        # float sums add in another order: equal to 1e-12 relative, and to 1e-12 of the
        # state's largest float for terms that cancel (compensation terms, signed sums)
        return bool(np.allclose(x, y, rtol=1e-12, atol=1e-12 * scale, equal_nan=True))
    return bool(np.array_equal(x, y))


def _same_state(a: State, b: State) -> bool:
    finite = [np.abs(x[np.isfinite(x)]) for x in _floats(b)]
    scale = max((float(x.max()) for x in finite if x.size), default=0.0)
    return type(a) is type(b) and all(
        _same_field(getattr(a, f.name), getattr(b, f.name), scale) for f in dataclasses.fields(a)
    )


def _outcome(metric: Metric[Any], state: State) -> tuple[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        warnings.simplefilter("ignore", UserWarning)
        try:
            return "value", metric.compute(state)
        except ScorekitError as exc:
            return "error", type(exc).__name__


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return set(a) == set(b) and all(_same_value(a[k], b[k]) for k in a)
    if isinstance(a, tuple | list):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b, strict=True))
    if a is None or isinstance(a, str):
        return a == b
    x, y = np.asarray(a), np.asarray(b)
    if x.dtype.kind in "biufc" and y.dtype.kind in "biufc":
        return x.shape == y.shape and bool(
            np.allclose(x, y, rtol=1e-10, atol=1e-12, equal_nan=True)
        )
    return bool(np.array_equal(x, y))


def _check(metrics: list[Metric[Any]], got: list[State], expected: list[State]) -> None:
    assert len(got) == len(expected) == len(metrics)
    for metric, state, want in zip(metrics, got, expected, strict=True):
        assert _same_state(state, want), (metric, state, want)
        first, second = _outcome(metric, state), _outcome(metric, want)
        assert first[0] == second[0], (metric, first, second)
        assert _same_value(first[1], second[1]), (metric, first, second)


# every metric, Dask == in memory ------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(CONFIGS))
def test_every_metric_equals_in_memory(cluster: Any, kind: str) -> None:
    metrics = CONFIGS[kind]
    for seed in SEEDS:
        table, columns, qrels, args, weights = _kind_table(kind, metrics, seed)
        mapping = resolve(metrics, columns, table.column_names)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            expected = [_in_memory(m, args, weights) for m in metrics]
            rng = np.random.default_rng(seed)
            if seed == 1:
                source: Any = table
                hint: int | None = int(rng.integers(1, table.num_rows + 1))
            else:
                source, hint = _pieces(table, rng), None
            states, rows = dask_states(
                source, metrics, mapping, side={"qrels": qrels}, partition_hint=hint
            )
        assert rows == table.num_rows
        _check(metrics, states, expected)


def test_registry_is_covered() -> None:
    kinds = {m.inputs for info in available() for m in iter_variants(info)}
    assert kinds == set(CONFIGS)
    assert sum(len(v) for v in CONFIGS.values()) >= 150


# sources -------------------------------------------------------------------------------------


def _labels_table(n: int = 400, seed: int = 5) -> pa.Table:
    rng = np.random.default_rng(seed)
    animals = np.array(["cat", "dog", "emu"])
    return pa.table(
        {
            "y_true": animals[rng.integers(0, 3, n)],
            "y_pred": animals[rng.integers(0, 3, n)],
            "target": np.round(rng.normal(size=n), 3),
            "guess": np.round(rng.normal(size=n), 3),
        }
    )


FILE_METRICS = ["accuracy", "f1:macro", "mcc", "confusion_matrix"]


@pytest.mark.parametrize("fmt", ["parquet", "csv", "tsv", "jsonl", "csv.gz"])
def test_files_equal_in_memory(cluster: Any, tmp_path: Path, fmt: str) -> None:
    table = _labels_table()
    pieces = [table.slice(0, 150), table.slice(150, 1), table.slice(151, 249)]
    for i, piece in enumerate(pieces):
        path = tmp_path / f"part-{i}.{fmt}"
        frame = piece.to_pandas()
        if fmt == "parquet":
            pq.write_table(piece, path, row_group_size=40)
        elif fmt == "jsonl":
            frame.to_json(path, orient="records", lines=True)
        else:
            frame.to_csv(path, sep="\t" if fmt == "tsv" else ",", index=False)
    (tmp_path / "notes.txt").write_text("not a table\n")
    labels = [parse_metric(m) for m in FILE_METRICS]
    mapping = resolve(labels, None, table.column_names)
    expected = [m.summarize(table["y_true"].to_numpy(), table["y_pred"].to_numpy()) for m in labels]
    for source in (str(tmp_path / f"part-*.{fmt}"), tmp_path):
        states, rows = dask_states(source, labels, mapping)
        assert rows == 400
        _check(labels, states, expected)
    regression = [parse_metric("mse"), parse_metric("mae")]
    mapping = resolve(regression, {"y_true": "target", "y_pred": "guess"}, table.column_names)
    states, rows = dask_states(tmp_path / f"part-*.{fmt}", regression, mapping)
    assert rows == 400
    target, guess = table["target"].to_numpy(), table["guess"].to_numpy()
    assert regression[0].compute(states[0]) == pytest.approx(np.mean((target - guess) ** 2))
    assert regression[1].compute(states[1]) == pytest.approx(np.mean(np.abs(target - guess)))


def test_json_lines_of_text(cluster: Any, tmp_path: Path) -> None:
    # lists of references stay lists (Dask would make strings of object columns)
    references, predictions = make_batch("qa_answers", 3, 40, 2, 0)
    for i, (lo, hi) in enumerate(((0, 25), (25, 40))):
        lines = [
            json.dumps({"references": r, "predictions": p})
            for r, p in zip(references[lo:hi], predictions[lo:hi], strict=True)
        ]
        (tmp_path / f"part-{i}.jsonl").write_text("\n".join(lines) + "\n")
    metrics = CONFIGS["qa_answers"] + CONFIGS["references_predictions"]
    mapping = resolve(metrics, None, ["references", "predictions"])
    states, rows = dask_states(tmp_path, metrics, mapping)
    assert rows == 40
    _check(metrics, states, [m.summarize(references, predictions) for m in metrics])


def test_warnings_of_the_partitions_once_and_none_of_dask_or_pandas(
    cluster: Any, tmp_path: Path
) -> None:
    # Greek text: ROUGE's default tokenizer warns on every partition. The column named like a
    # date stays text (pandas parses such columns of JSON unless told not to).
    frame = pd.DataFrame({"greek": ["καλημέρα κόσμε"] * 40, "date": ["2024-01-02"] * 40})
    path = tmp_path / "greek.jsonl"
    frame.to_json(path, orient="records", lines=True, force_ascii=False)
    metrics = [parse_metric("rouge1")]
    columns = {"references": "greek", "predictions": "date"}
    with pytest.warns(UserWarning, match="rouge1: rouge-score's default tokenizer") as once:
        expected = [metrics[0].summarize(list(frame["greek"]), list(frame["date"]))]
    for source, options in [(str(path), {}), (pa.Table.from_pandas(frame), {"chunk_size": 10})]:
        # Dask's warning about a large graph, at a threshold below any graph of a table
        with (
            dask.config.set({"distributed.admin.large-graph-warning-threshold": "1kB"}),
            warnings.catch_warnings(record=True) as caught,
        ):
            warnings.simplefilter("always")
            states, rows = dask_engine.run(source, metrics, columns=columns, **options)
        assert rows == 40
        _check(metrics, states, expected)
        assert [str(w.message) for w in caught] == [str(w.message) for w in once]
        assert caught[0].filename == __file__


def test_files_with_different_optional_columns(cluster: Any, tmp_path: Path) -> None:
    # request records: one file without token_times, one with; either order, as streamed
    plain = {"prompt_tokens": 3, "output_tokens": 3, "end": 0.6}
    first = [{**plain, "start": 0.0, "first_token": 0.1} for _ in range(4)]
    timed = {"start": 1.0, "first_token": 1.1, "end": 1.6, "token_times": [1.1, 1.35, 1.6]}
    second = [{**plain, **timed} for _ in range(4)]
    metrics = [parse_metric(m) for m in ("itl:max", "output_throughput", "ttft:mean")]
    for order in ((first, second), (second, first)):
        folder = tmp_path / str(len(list(tmp_path.iterdir())))
        folder.mkdir()
        for name, records in zip(("a.jsonl", "b.jsonl"), order, strict=True):
            (folder / name).write_text("".join(json.dumps(r) + "\n" for r in records))
        result = evaluate(str(folder / "*.jsonl"), metrics, engine="dask")
        assert result.rows == 8
        expected = [m.summarize(order[0] + order[1]) for m in metrics]
        _check(metrics, [result.states[m.name] for m in metrics], expected)
        assert result.values["itl"] == pytest.approx(0.25)
    # a required column missing from one file names that file
    (folder / "c.jsonl").write_text(json.dumps({"prompt_tokens": 1, "start": 0, "end": 1}) + "\n")
    mapping = resolve(metrics, None, ["prompt_tokens", "output_tokens", "start", "end"])
    with pytest.raises(InputError, match=r"c\.jsonl: no such column; got 'output_tokens'"):
        dask_states(str(folder / "*.jsonl"), metrics, mapping)


def test_ranking_rows_of_a_query_meet(cluster: Any) -> None:
    qrels = {
        "q1": {"a": 1, "b": 0, "c": 2},
        "q2": {"d": 1},
        "q3": {"e": 1},
        "q4": {"f": 1},
        "q6": {"g": 0},
    }
    run = pd.DataFrame(
        {
            "qid": ["q1", "q2", "q1", "q3", "q1", "q2", "q3", "q5", "q6"],
            "docno": ["a", "d", "b", "x", "c", "y", "e", "z", "g"],
            "sim": [0.3, 0.9, 0.8, 0.7, 0.1, 0.95, 0.2, 0.5, 0.4],
        }
    )
    metrics = [parse_metric("ndcg@10"), parse_metric("map"), parse_metric("p@2", missing="zero")]
    mapping = resolve(metrics, {"query": "qid", "doc": "docno", "score": "sim"}, run.columns)
    # every query is split between partitions before the shuffle
    frame = dd.from_pandas(run, npartitions=4, sort=False)
    # the states count the queries without a relevant document; computing warns
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedMetricWarning)
        states, rows = dask_states(frame, metrics, mapping, side={"qrels": qrels})
    assert [s.undefined for s in states] == [1, 1, 0]
    with pytest.warns(UndefinedMetricWarning) as caught:
        metrics[1].compute(states[1])
    assert [str(w.message) for w in caught] == [
        "map: 1 of 4 queries have no relevant document (grade >= 1); they count as 0, "
        "as in trec_eval."
    ]
    whole = {q: dict(zip(g.docno, g.sim, strict=True)) for q, g in run.groupby("qid")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        _check(metrics, states, [m.summarize(qrels, whole) for m in metrics])
    assert rows == 9
    # q1 ranks b(0) a(1) c(2), gain = grade: nDCG = (1/log2(3) + 2/log2(4)) / (2 + 1/log2(3))
    ndcg_q1 = (1 / np.log2(3) + 2 / 2) / (2 + 1 / np.log2(3))
    q, v = states[0].table()
    assert list(q) == ["q1", "q2", "q3", "q6"]
    # q2 ranks y (unjudged) above d, q3 ranks x (unjudged) above e: 1/log2(3) each
    assert v[0] == pytest.approx(ndcg_q1)
    assert v[1] == v[2] == pytest.approx(1 / np.log2(3))
    assert v[3] == 0.0


def test_scheduler_address_and_own_cluster(cluster: Any) -> None:
    local, _ = cluster
    table = _labels_table(60)
    metrics = [parse_metric("accuracy")]
    mapping = resolve(metrics, None, table.column_names)
    expected = metrics[0].score(table["y_true"].to_numpy(), table["y_pred"].to_numpy())
    states, _ = dask_states(table, metrics, mapping, scheduler=local.scheduler_address)
    assert metrics[0].compute(states[0]) == expected
    # workers=N starts (and closes) a local cluster for the call
    states, rows = dask_states(table, metrics, mapping, workers=1, partition_hint=25)
    assert (rows, metrics[0].compute(states[0])) == (60, expected)
    with pytest.raises(ConfigError, match="scheduler"):
        dask_states(table, metrics, mapping, scheduler=local.scheduler_address, workers=2)
    with pytest.raises(ConfigError, match="workers"):
        dask_states(table, metrics, mapping, workers=0)
    with (
        dask.config.set({"distributed.comm.timeouts.connect": "1s"}),
        pytest.raises(ConfigError, match=r"cannot connect to the Dask scheduler.*127.0.0.1:9"),
    ):
        dask_states(table, metrics, mapping, scheduler="tcp://127.0.0.1:9")
    with pytest.raises(ConfigError, match="partition_hint"):
        dask_states(table, metrics, mapping, partition_hint=0)


# bad input -----------------------------------------------------------------------------------


def test_bad_values_name_partition_row_and_column(cluster: Any) -> None:
    frame = pd.DataFrame({"y_true": [1.0, 0.0, 1.0, 1.0], "y_pred": [1.0, 1.0, np.nan, 0.0]})
    metrics = [parse_metric("accuracy")]
    mapping = resolve(metrics, None, list(frame.columns))
    with pytest.raises(InputError, match=r"partition 1, row 1, column 'y_pred'.*missing value"):
        dask_states(dd.from_pandas(frame, npartitions=2), metrics, mapping)
    with pytest.raises(InputError, match=r"no such column.*'y_pred'"):
        dask_states(dd.from_pandas(frame[["y_true"]], npartitions=1), metrics, mapping)


def test_in_memory_table_from_a_file_names_the_line(cluster: Any, tmp_path: Path) -> None:
    from scorekit.io._tables import read_table

    path = tmp_path / "preds.csv"
    path.write_text("y_true,y_pred\n1,1\n0,1\n1,0\n1,x\n0,0\n")
    table = read_table(path)
    metrics = [parse_metric("mse")]
    mapping = resolve(metrics, None, table.column_names)
    with pytest.raises(InputError, match=r"preds.csv, line 5, column 'y_pred'.*not a number"):
        dask_states(table, metrics, mapping, partition_hint=2)


def test_bad_files(cluster: Any, tmp_path: Path) -> None:
    metrics = [parse_metric("accuracy")]
    mapping = resolve(metrics, None, ["y_true", "y_pred"])
    with pytest.raises(InputError, match="the pattern matches no file"):
        dask_states(str(tmp_path / "*.parquet"), metrics, mapping)
    with pytest.raises(InputError, match="no readable file in the directory"):
        dask_states(tmp_path, metrics, mapping)
    (tmp_path / "a.csv").write_text("y_true,y_pred\n1,1\n0,1,7\n")
    with pytest.raises(InputError, match=r"a.csv: cannot read.*Expected 2 columns, got 3"):
        dask_states(tmp_path / "a.csv", metrics, mapping)
    (tmp_path / "b.parquet").write_bytes(b"PAR1 this is not parquet")
    with pytest.raises(InputError, match=r"b.parquet: cannot read"):
        dask_states(tmp_path / "b.parquet", metrics, mapping)
    (tmp_path / "c.csv").write_text("label,guess\n1,1\n")
    with pytest.raises(InputError, match=r"no such column.*'y_true'"):
        dask_states(tmp_path / "c.csv", metrics, mapping)


def test_without_dask_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    metrics = [parse_metric("accuracy")]
    with pytest.raises(ConfigError, match=r'pip install "scorekit\[dask\]"'):
        dask_states({"y_true": [1], "y_pred": [1]}, metrics, {"y_true": ("y_true",)})


def test_import_scorekit_does_not_import_dask() -> None:
    code = (
        "import sys, scorekit, scorekit.engines, scorekit.engines.dask; "
        "print(sorted(m for m in ('dask', 'distributed', 'pandas') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"


# a worker dies -------------------------------------------------------------------------------


def _slow_piece(piece: pd.DataFrame, index: int, marks: str) -> pd.DataFrame:
    """Load one partition slowly, leaving a mark when it starts and when it ends."""
    Path(marks, f"start-{index}-{os.getpid()}-{time.monotonic_ns()}").touch()
    time.sleep(0.2)
    Path(marks, f"end-{index}-{os.getpid()}-{time.monotonic_ns()}").touch()
    return piece


def _running(marks: Path) -> dict[int, set[int]]:
    """Worker pid -> partitions it started and has not finished."""
    begun: dict[tuple[int, int], int] = {}
    for mark in marks.iterdir():
        what, index, pid, _ = mark.name.split("-")
        key = (int(index), int(pid))
        begun[key] = begun.get(key, 0) + (1 if what == "start" else -1)
    running: dict[int, set[int]] = {}
    for (index, pid), count in begun.items():
        if count > 0:
            running.setdefault(pid, set()).add(index)
    return running


def test_killed_worker_gives_the_same_result(cluster: Any, tmp_path: Path) -> None:
    rng = np.random.default_rng(11)
    n, parts = 2000, 16
    table = pa.table(
        {
            "y_true": rng.integers(0, 4, n),
            "y_pred": rng.integers(0, 4, n),
            "a": rng.normal(size=n),
            "b": rng.normal(size=n),
        }
    )
    frame = table.to_pandas(types_mapper=pd.ArrowDtype)
    pieces = [frame.iloc[i * n // parts : (i + 1) * n // parts] for i in range(parts)]
    marks = tmp_path / "marks"
    marks.mkdir()
    source = dd.from_map(
        _slow_piece, pieces, list(range(parts)), args=[str(marks)], meta=frame.iloc[:0]
    )
    metrics = [parse_metric("f1:macro"), parse_metric("confusion_matrix"), parse_metric("mse")]
    mapping = resolve(metrics, {"y_true": "y_true", "y_pred": "y_pred"}, table.column_names)
    expected = [
        m.summarize(table["y_true"].to_numpy(), table["y_pred"].to_numpy()) for m in metrics
    ]
    victim: int | None = None
    killed: set[int] = set()
    result: dict[str, Any] = {}

    def run() -> None:
        result["out"] = dask_states(source, metrics, mapping)

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 30
    while victim is None and time.monotonic() < deadline:
        running = _running(marks)
        started = sum(1 for m in marks.iterdir() if m.name.startswith("start"))
        if started >= 4 and running:
            victim, killed = next(iter(running.items()))
        else:
            time.sleep(0.02)
    assert victim is not None, "no partition was running"
    os.kill(victim, signal.SIGKILL)
    assert thread.is_alive(), "the computation ended before the worker was killed"
    thread.join(60)
    states, rows = result["out"]
    assert rows == n
    _check(metrics, states, expected)
    # the partitions the dead worker was loading were loaded again elsewhere
    starts = [m.name.split("-") for m in marks.iterdir() if m.name.startswith("start")]
    again = {int(index) for _, index, pid, _ in starts if int(pid) != victim}
    assert killed <= again
    assert len(starts) > parts
