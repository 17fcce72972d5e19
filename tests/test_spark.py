"""The Spark engine gives the stream engine's states, for every registered metric and source.

The local Spark session the Spark modules share (``local[2]``, the ``spark``
fixture) serves the module. Every input kind of the registry is evaluated on
Spark from a Spark DataFrame, an in-memory table or a Parquet file (the three in
turn), and its states compared with the stream engine's: integer states
bitwise, float sums to 1e-12 relative (they add in another order). States made
of parts (score ranges) are merged part by part and equal the stream engine's;
merges take partitions by their bytes, and metrics of one histogram merge its
ranges once. Commands run with ``--engine spark`` print what ``--engine
stream`` prints. Errors raised on the executors come back as the scorekit
errors they are; Spark's own failures, a missing pyspark and a missing Java
become one ``scorekit:`` error.
"""

from __future__ import annotations

import gc
import os
import shutil
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("pyspark", reason="the Spark engine needs pyspark (the spark extra)")
if not os.environ.get("JAVA_HOME") and shutil.which("java") is None:
    pytest.skip(
        "the Spark engine needs Java (none on PATH, JAVA_HOME unset)", allow_module_level=True
    )

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from conftest import ROOT
from scorekit import engines, evaluate, parse_metric
from scorekit.cli import main
from scorekit.core import State, state_field
from scorekit.engines import _spark_codec as codec
from scorekit.engines import spark as spark_engine
from scorekit.engines._columns import resolve
from scorekit.engines._parts import merge_starts
from scorekit.engines._spark_parts import SparkParts
from scorekit.engines.spark import spark_states
from scorekit.engines.stream import fold
from scorekit.errors import ConfigError, InputError, UndefinedMetricWarning
from tables import binary_scores
from test_dask import CONFIGS, _check, _kind_table
from test_engine_registry import CASES, _groups

DATA = ROOT / "examples" / "data"

# pyspark's own notice about the pandas version, raised where the tests build DataFrames
pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support:FutureWarning")


def _stream(source: Any, metrics: list[Any], columns: Any, qrels: Any, chunk: int) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return engines.engine("stream")(
            source, metrics, columns=columns, side={"qrels": qrels}, chunk_size=chunk
        )


def _spark(source: Any, metrics: list[Any], columns: Any, qrels: Any, **options: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        states, rows, _ = spark_states(
            source, metrics, columns=columns, side={"qrels": qrels}, **options
        )
    return states, rows


def _frame(spark: Any, table: pa.Table) -> Any:
    return spark.createDataFrame(table)


# every metric, Spark == stream ---------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(CONFIGS))
def test_every_metric_equals_the_stream_engine(spark: Any, tmp_path: Path, kind: str) -> None:
    metrics = CONFIGS[kind]
    index = sorted(CONFIGS).index(kind)
    table, columns, qrels, _, _ = _kind_table(kind, metrics, 1 + index % 2)
    expected, rows = _stream(table, metrics, columns, qrels, 9)
    assert rows == table.num_rows
    # each kind read from one of the three sources, in turn: a DataFrame in its two
    # partitions (for ranking, by query) summarized 5 rows at a time, an in-memory table
    # in chunks of 4, or a Parquet file of row groups
    if index % 3 == 0:
        got, count = _spark(_frame(spark, table), metrics, columns, qrels, chunk_size=5)
    else:
        source: Any = table
        if index % 3 == 2:
            source = tmp_path / "part.parquet"
            pq.write_table(table, source, row_group_size=7)
        # a table in more partitions than a merge takes (a merge on the executors, then
        # the driver's: 3 partitions, 2 a merge as a merge takes 1 byte), a file in fewer
        # (the driver's merge only)
        cap = 1 if index % 3 == 1 else spark_engine.MERGE_BYTES
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(spark_engine, "MERGE_BYTES", cap)
            got, count = _spark(source, metrics, columns, qrels, partitions=3, chunk_size=4)
    assert count == table.num_rows
    _check(metrics, got, expected)


def test_states_travel_exactly() -> None:
    for kind in sorted(CONFIGS):
        metrics = CONFIGS[kind]
        table, columns, qrels, _, _ = _kind_table(kind, metrics, 2)
        states, _ = _stream(table, metrics, columns, qrels, 11)
        back = [codec.decode_state(codec.encode_state(i, s)) for i, s in enumerate(states)]
        assert [codec.state_index(codec.encode_state(i, s)) for i, s in enumerate(states)] == list(
            range(len(states))
        )
        _check(metrics, back, states)
        for a, b in zip(states, back, strict=True):
            assert a.to_json() == b.to_json()


@settings(max_examples=25, deadline=None)
@given(kind=st.sampled_from(sorted(CONFIGS)), seed=st.integers(0, 12))
def test_states_travel_exactly_on_random_batches(kind: str, seed: int) -> None:
    metrics = CONFIGS[kind]
    table, columns, qrels, _, _ = _kind_table(kind, metrics, seed)
    states, _ = _stream(table, metrics, columns, qrels, 1 + seed)
    back = [codec.decode_state(codec.encode_state(i, s)) for i, s in enumerate(states)]
    _check(metrics, back, states)


@dataclass(frozen=True, eq=False)
class _Blocks(State):
    """A state of any arrays, to send every dtype, shape and bit pattern through the codec."""

    first: np.ndarray = state_field("same")
    more: tuple[np.ndarray, ...] = state_field("same")


_DTYPES = ["<i1", "<i2", "<i4", "<i8", "<u1", "<u2", "<u4", "<u8", "<f2", "<f4", "<f8", ">i8"]
_DTYPES += [">f8", "?"]


@st.composite
def _arrays(draw: Any) -> np.ndarray:
    """Arrays of any bits, of values a smaller type holds, of one value, or views."""
    dtype = np.dtype(draw(st.sampled_from(_DTYPES)))
    n = draw(st.integers(0, 300))
    columns = draw(st.sampled_from([None, 1, 3]))
    size = n * (columns or 1)
    form = draw(st.sampled_from(["bits", "narrow", "single", "one", "broadcast", "strided"]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if form == "narrow" and dtype.kind in "iuf":
        if dtype.kind == "f":
            data = rng.integers(-(2**31), 2**31, size, dtype=np.int64).astype(np.uint32)
            with np.errstate(all="ignore"):  # float32 values, NaNs with payloads
                values = data.view(np.float32).astype(dtype)
        else:
            info = np.iinfo(dtype)
            low = max(int(info.min), -(2**15))
            values = rng.integers(low, min(int(info.max), 2**15) + 1, size).astype(dtype)
    elif form == "single" and dtype.kind in "iuf":
        values = np.full(size, rng.integers(0, 100), dtype=dtype)
    else:
        values = np.frombuffer(rng.bytes(size * dtype.itemsize), dtype=dtype).copy()
        if dtype.kind == "b":
            values = values.view(np.uint8) % 2 == 1
        elif dtype.kind == "f" and form == "one":
            values[: n // 2] = -0.0
    shaped = values.reshape((n, columns) if columns else (n,))
    if form == "broadcast" and size:
        return np.broadcast_to(shaped[:1], shaped.shape)
    if form == "strided" and shaped.ndim == 2 and columns and columns > 1:
        return shaped[:, ::2]
    return shaped


def _bits(array: np.ndarray) -> tuple[str, tuple[int, ...], bytes]:
    return array.dtype.str, array.shape, np.ascontiguousarray(array).tobytes()


@settings(max_examples=100, deadline=None)
@given(first=_arrays(), more=st.lists(_arrays(), max_size=3))
def test_arrays_travel_bit_for_bit(first: np.ndarray, more: list[np.ndarray]) -> None:
    state = _Blocks(first=first, more=tuple(more))
    data = codec.encode_state(5, state)
    back = codec.decode_state(memoryview(data))
    assert isinstance(back, _Blocks) and codec.state_index(data) == 5
    for a, b in zip([first, *more], [back.first, *back.more], strict=True):
        assert _bits(b) == _bits(a)
        # a new array, not a view of the bytes received
        assert b.flags.writeable and b.flags.c_contiguous
        assert b.base is None or b.base.base is None
    # the blocks take the bytes of their smallest exact types, each aligned to 8 bytes
    head = int.from_bytes(data[5:13], "little")
    blocks = sum(codec._narrowest(a)[0].nbytes + 7 for a in [first, *more])
    assert len(data) <= 13 + head + 7 + blocks


def test_a_state_of_a_class_not_loaded_is_rebuilt_from_its_document(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    metrics = CONFIGS["binary_scores"]
    table, columns, qrels, _, _ = _kind_table("binary_scores", metrics, 3)
    states, _ = _stream(table, metrics, columns, qrels, 5)
    data = [codec.encode_state(i, s) for i, s in enumerate(states)]
    direct = [codec.decode_state(d) for d in data]
    monkeypatch.setattr(codec, "_state_class", lambda document: None)
    checked = [codec.decode_state(d) for d in data]
    for a, b, c in zip(states, direct, checked, strict=True):
        assert type(b) is type(a) and type(c) is type(a)
        assert a.to_json() == b.to_json() == c.to_json()


@settings(max_examples=100, deadline=None)
@given(array=_arrays())
def test_arrays_travel_in_their_smallest_exact_type(array: np.ndarray) -> None:
    stored, single = codec._narrowest(array)
    if single:
        assert stored.size == 1 and np.all(
            np.ascontiguousarray(array).view(np.uint8).reshape(array.size, -1)
            == stored.view(np.uint8)
        )
        return
    assert stored.dtype.itemsize <= array.dtype.itemsize and stored.shape == array.shape
    assert _bits(stored.astype(array.dtype)) == _bits(array)
    if array.size >= 64 and array.dtype.isnative and array.dtype.kind in "iu":
        low, high = int(array.min()), int(array.max())
        if low >= -(2**15) and high < 2**15 and array.dtype.itemsize > 2:
            assert stored.dtype.itemsize <= 2
        if array.dtype.itemsize > 1:
            assert low != high


def test_arrays_of_some_values_are_narrowed() -> None:
    ints = np.arange(1000, dtype=np.int64) * 60
    assert codec._narrowest(ints)[0].dtype == np.dtype("<u2")
    assert codec._narrowest(ints - 30000)[0].dtype == np.dtype("<i2")
    assert codec._narrowest(-ints)[0].dtype == np.dtype("<i4")
    assert codec._narrowest(ints << 30)[0].dtype == np.dtype("<i8")
    floats = np.linspace(0, 1, 1000, dtype=np.float32).astype(np.float64)
    assert codec._narrowest(floats)[0].dtype == np.dtype("<f4")
    floats[3] = np.nextafter(floats[3], 2.0)  # one value that float32 rounds
    assert codec._narrowest(floats)[0].dtype == np.dtype("<f8")
    huge = np.full(100, 1e300)
    huge[0] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # float32 overflows, and says nothing
        assert codec._narrowest(huge)[0].dtype == np.dtype("<f8")
    assert codec._narrowest(np.arange(10, dtype=np.int64))[0].dtype == np.dtype("<i8")  # few


def test_an_alias_names_an_earlier_equal_state() -> None:
    metrics = [parse_metric(n) for n in ("roc_auc", "accuracy", "average_precision", "roc_auc")]
    y, s = [0, 1, 1, 0], [0.2, 0.9, 0.4, 0.4]
    states = [m.summarize(y, [round(v) for v in s] if i == 1 else s) for i, m in enumerate(metrics)]
    values = list(spark_engine._state_values(states, {}))
    kinds = [codec.tag(b"".join(v)) for _, _, v in values]
    assert kinds == [codec.STATE, codec.STATE, codec.ALIAS, codec.ALIAS]
    assert [codec.alias_of(v[0]) for _, _, v in values[2:]] == [0, 0]
    # an equal state of other settings (two labels where the first state has one) is no alias
    other = metrics[0].summarize([1, 1, 1, 1], s)
    one = metrics[0].summarize([1, 1, 1, 1], s)
    assert not other.equals(states[0])
    pair = spark_engine._state_values([states[0], one], {})
    assert [codec.tag(b"".join(v)) for *_, v in pair] == [codec.STATE, codec.STATE]


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 40), min_size=1, max_size=6),
    piece=st.integers(1, 9),
    batch=st.integers(1, 30),
    split=st.booleans(),
)
def test_values_travel_in_pieces_and_batches(
    sizes: list[int], piece: int, batch: int, split: bool
) -> None:
    values = [bytes(range(i, i + n)) for i, n in enumerate(sizes)]
    pairs = [(i, -1 if i % 2 else i, [v[:3], v[3:]] if split else v) for i, v in enumerate(values)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(spark_engine, "PIECE", piece)
        patch.setattr(spark_engine, "BATCH", batch)
        batches = spark_engine._rows(pairs, 7)
    for one in batches:
        lengths = [len(v) for v in one.column("value").to_pylist()]
        assert max(lengths) <= piece
        assert one.num_rows == 1 or sum(lengths) <= batch
    back = spark_engine._values(pa.Table.from_batches(batches))
    assert {where: bytes(v) for where, v in back.items()} == {
        (i, -1 if i % 2 else i, 7): v for i, v in enumerate(values)
    }


SHARED = ["roc_auc", "average_precision", "roc_auc:max_fpr=0.5", "accuracy", "brier"]


@settings(
    max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 600),
    partitions=st.sampled_from([3, 9]),
    cap=st.sampled_from([1, 2**40]),
    alike=st.booleans(),
)
def test_equal_states_travel_once_and_merge_as_the_stream_engine(
    spark: Any, seed: int, n: int, partitions: int, cap: int, alike: bool
) -> None:
    """Spark's states are the stream engine's, merged by the driver alone, or by trees of
    one or more levels (9 partitions, 2 a merge of at most 1 byte: 9, 5, 3, then 2 for
    the driver; 8 a merge of at most 1 TiB: 9, then 2 for the driver)."""
    table = binary_scores(seed, n, distinct=50, weights="dyadic", float32=True)
    y = table.column("y_true").to_numpy()
    table = table.append_column("y_pred", pa.array(y ^ (np.arange(n) % 3 == 0)))
    metrics = [parse_metric(name) for name in SHARED]
    columns = {"y_pred": "y_pred", "y_proba": "y_score"}
    expected, _ = _stream(table, metrics, columns, None, 7)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(spark_engine, "MERGE_BYTES", cap)
        if not alike:  # the driver's merge merges each metric's states, equal or not
            patch.setattr(spark_engine, "merges_alike", lambda a, b: False)
        got, rows = _spark(table, metrics, columns, None, partitions=partitions, chunk_size=20)
    assert rows == n
    _check(metrics, got, expected)
    if alike:  # the states of the three exact ROC AUC and AP metrics are one, merged once
        assert got[1] is got[0] and got[2] is got[0]


def test_a_ranking_table_is_cut_between_queries(spark: Any) -> None:
    metrics = CONFIGS["qrels_run"]
    for seed in (2, 5):
        table, columns, qrels, _, _ = _kind_table("qrels_run", metrics, seed)
        expected, _ = _stream(table, metrics, columns, qrels, 1000)
        # chunks of 3 rows would cut queries: the pieces sent to the tasks hold whole queries
        got, rows = _spark(table, metrics, columns, qrels, chunk_size=3, partitions=3)
        assert rows == table.num_rows
        _check(metrics, got, expected)


def _labels_table(n: int = 300) -> pa.Table:
    rng = np.random.default_rng(3)
    return pa.table(
        {
            "y_true": rng.integers(0, 3, n),
            "y_pred": rng.integers(0, 3, n),
            "score": rng.random(n),
            "target": rng.normal(size=n),
            "group": np.array(["a", "b", "c"])[rng.integers(0, 3, n)],
        }
    )


@pytest.mark.parametrize("fmt", ["csv", "jsonl.gz"])
def test_text_files_read_as_the_stream_engine_reads_them(
    spark: Any, tmp_path: Path, fmt: str
) -> None:
    table = _labels_table()
    for i, (lo, hi) in enumerate(((0, 120), (120, 121), (121, 300))):
        part = table.slice(lo, hi - lo)
        path = tmp_path / f"part-{i}.{fmt}"
        if fmt == "csv":
            pacsv.write_csv(part, path)
        else:
            import gzip
            import json

            lines = "".join(json.dumps(row) + "\n" for row in part.to_pylist())
            path.write_bytes(gzip.compress(lines.encode()))
    metrics = [parse_metric(m) for m in ("f1:macro", "mcc", "confusion_matrix", "accuracy")]
    expected, _ = _stream(tmp_path, metrics, None, None, 50)
    got, rows = _spark(tmp_path, metrics, None, None)
    assert rows == 300
    _check(metrics, got, expected)


def test_by_groups_and_empty_input(spark: Any) -> None:
    table = _labels_table()
    frame = _frame(spark, table)
    stream = evaluate(table, ["accuracy", "mse"], columns={"y_pred": "y_pred"}, by="group")
    found = evaluate(frame, ["accuracy", "mse"], by="group", engine="spark", partitions=4)
    assert found.rows == stream.rows == 300
    for key in ("accuracy", "mse"):
        assert found[key].by_group == pytest.approx(stream[key].by_group, rel=1e-12)
        assert found[key].sizes == stream[key].sizes
    empty = frame.limit(0)
    states, rows, _ = spark_states(empty, [parse_metric("mse")])
    assert rows == 0
    assert states[0].to_json() == parse_metric("mse").empty().to_json()


# the commands ---------------------------------------------------------------------------------


def _command(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(argv) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_eval_with_engine_spark(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    source = pacsv.read_csv(DATA / "binary.csv")
    path = tmp_path / f"binary.{fmt}"
    if fmt == "csv":
        pacsv.write_csv(source, path)
    else:
        pq.write_table(source, path, row_group_size=50)
    head = ["eval", str(path), "--task", "binary", "--true", "label", "--score", "score"]
    flags = ["--metric", "roc_auc", "average_precision", "--by", "pred"]
    # the units of a bootstrap on Spark are keyed by a column, not by row position
    ci = ["--ci", "--n-resamples", "30", "--seed", "2", "--key", "id"]
    for extra in ([], ci):
        want = _command([*head, *flags, *extra, "--engine", "stream"], capsys)
        assert _command([*head, *flags, *extra, "--engine", "spark"], capsys) == want


def test_rank_with_engine_spark(spark: Any, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["rank", str(DATA / "qrels.txt"), str(DATA / "run.txt"), "-m", "map", "ndcg@10"]
    for extra in ([], ["--ci", "--n-resamples", "30", "--seed", "2"]):
        want = _command([*argv, *extra, "--engine", "stream"], capsys)
        assert _command([*argv, *extra, "--engine", "spark"], capsys) == want


@pytest.mark.parametrize("case", ["text", "text --by", "throughput", "throughput --by"])
def test_other_commands_with_engine_spark(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    # text files of lines are read here and summarized on the executors; request records
    # are files read on the executors
    argv = [_groups(tmp_path) if a == "GROUPS" else a for a in CASES[case]]
    argv += ["--format", "json", "--quiet"]
    want = _command([*argv, "--engine", "stream"], capsys)
    assert _command([*argv, "--engine", "spark"], capsys) == want


# errors ---------------------------------------------------------------------------------------


def test_a_bad_value_names_the_file_as_the_stream_engine_does(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("y_true,y_pred\n1.5,2\n0.5,1\nx,3\n")
    metric = [parse_metric("mse")]
    with pytest.raises(InputError) as stream:
        _stream(path, metric, None, None, 2)
    with pytest.raises(InputError) as found:
        _spark(path, metric, None, None)
    assert str(found.value) == str(stream.value)
    assert "bad.csv" in str(found.value)


def test_a_query_in_two_files_is_refused(spark: Any, tmp_path: Path) -> None:
    # each file is folded on its own: a query split between two files cannot be merged
    # into a wrong number, its two states are refused on the executors, naming it
    (tmp_path / "a.csv").write_text("query,doc,score\nq1,d1,0.9\nq2,d2,0.5\n")
    (tmp_path / "b.csv").write_text("query,doc,score\nq2,d3,0.7\nq3,d1,0.2\n")
    qrels = {"q1": {"d1": 1}, "q2": {"d3": 1}, "q3": {"d1": 1}}
    with pytest.raises(InputError, match="q2"):
        evaluate(tmp_path, ["map"], qrels=qrels, engine="spark")


def test_a_failed_job_is_one_scorekit_error(spark: Any) -> None:
    from pyspark.sql import functions as F

    frame = spark.createDataFrame([(1, 1), (0, 1)], "y_true int, y_pred int")
    broken = F.udf(lambda x: 1 // 0, "int")
    with pytest.raises(ConfigError, match="the Spark job failed; got ZeroDivisionError"):
        spark_states(frame.withColumn("y_true", broken("y_true")), [parse_metric("accuracy")])


def test_options_that_contradict_the_session(spark: Any) -> None:
    table = {"y_true": [1, 0], "y_pred": [1, 1]}
    with pytest.raises(ConfigError, match="already running, on another master"):
        evaluate(table, "accuracy", engine="spark", scheduler="local[3]")
    with pytest.raises(ConfigError, match="cannot go with a master"):
        evaluate(table, "accuracy", engine="spark", scheduler="local[2]", workers=2)
    with pytest.raises(ConfigError, match="invalid partitions"):
        evaluate(table, "accuracy", engine="spark", partitions=0)
    with pytest.raises(ConfigError, match="partitions is an option of the Spark engine"):
        evaluate(table, "accuracy", partitions=2)
    # the active session is the one asked for by name too
    assert evaluate(table, "accuracy", engine="spark", scheduler="local[2]").rows == 2


def test_without_pyspark(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyspark", None)
    with pytest.raises(ConfigError, match=r"needs pyspark; got pyspark is not installed"):
        evaluate({"y_true": [1], "y_pred": [1]}, "accuracy", engine="spark")


def test_a_pyspark_before_4_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import pyspark

    monkeypatch.setattr(pyspark, "__version__", "3.5.1")
    with pytest.raises(ConfigError, match=r"needs pyspark 4.0 or later; got pyspark 3.5.1"):
        evaluate({"y_true": [1], "y_pred": [1]}, "accuracy", engine="spark")


def test_without_java_the_command_says_so(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_HOME", "PYSPARK_PYTHON")}
    env["PATH"] = str(Path(sys.executable).parent)
    argv = ["eval", str(DATA / "binary.csv"), "--task", "binary", "--true", "label"]
    done = subprocess.run(
        [sys.executable, "-m", "scorekit", *argv, "--pred", "pred", "--engine", "spark"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0
    assert done.stderr.startswith("scorekit: evaluate: the Spark engine needs Java"), done.stderr
    assert "Traceback" not in done.stderr and "py4j" not in done.stderr.lower()


def test_warnings_of_the_executors_once(spark: Any) -> None:
    frame = spark.createDataFrame([(0, 0)] * 6, "y_true int, y_pred int")
    with warnings.catch_warnings(record=True) as found:
        warnings.simplefilter("always")
        stream = evaluate({"y_true": [0] * 6, "y_pred": [0] * 6}, "f1")
    expected = [str(w.message) for w in found if issubclass(w.category, UndefinedMetricWarning)]
    with warnings.catch_warnings(record=True) as found:
        warnings.simplefilter("always")
        result = evaluate(frame, "f1", engine="spark", partitions=3)
    got = [str(w.message) for w in found if issubclass(w.category, UndefinedMetricWarning)]
    assert result.values == stream.values
    assert got == expected


def test_columns_are_resolved_before_the_job(spark: Any) -> None:
    frame = spark.createDataFrame([(1, 1)], "label int, guess int")
    metrics = [parse_metric("accuracy")]
    with pytest.raises(InputError, match="no column for its input 'y_true'"):
        spark_states(frame, metrics)
    mapping = resolve(metrics, {"y_true": "label", "y_pred": "guess"}, frame.columns)
    assert mapping == {"y_true": ("label",), "y_pred": ("guess",)}
    states, rows, _ = spark_states(frame, metrics, columns={"y_true": "label", "y_pred": "guess"})
    assert rows == 1 and metrics[0].compute(states[0]) == 1.0


# states made of parts: score ranges merged range by range ------------------------------------

# each partition sends its state's shell and each range as values of their own; the ranges
# are merged on the executors in partition order and stay there, on the module's session
# (the readers run there); the states equal the stream engine's (bit for bit, with weights
# whose sums are exact), beside metrics of whole states in the same call
PARTED = ["roc_auc:ranges=8", "average_precision:ranges=8", "roc_auc"]


def _parts_table(seed: int, n: int, distinct: int, weights: bool, float32: bool) -> pa.Table:
    rng = np.random.default_rng(seed)
    score = rng.integers(0, distinct + 1, n) / distinct
    columns: dict[str, Any] = {
        "y_true": rng.integers(0, 2, n),
        "y_score": score.astype(np.float32) if float32 else score,
    }
    if weights:
        columns["sample_weight"] = rng.integers(0, 9, n) / 8
    return pa.table(columns)


def _parts_stream(metrics: list[Any], table: pa.Table) -> list[State]:
    states, _ = fold(metrics, [table], resolve(metrics, None, table.column_names), {})
    return states


def _parts_bits(value: Any) -> bytes:
    return np.asarray(value, dtype=np.float64).tobytes()


def _parts_check(metrics: list[Any], got: list[State], want: list[State]) -> None:
    for metric, a, b in zip(metrics, got, want, strict=True):
        assert a.equals(b), metric.name
        assert _parts_bits(metric.compute(a)) == _parts_bits(metric.compute(b)), metric.name
        if type(a).parted:
            assert isinstance(a.parts, SparkParts)


@settings(
    max_examples=2, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 2000),
    distinct=st.sampled_from([1, 5, 64, 10**6]),
    weights=st.booleans(),
    float32=st.booleans(),
    chunk=st.sampled_from([50, 700]),
)
def test_table_ranges_equal_the_stream_engine(
    spark: Any, seed: int, n: int, distinct: int, weights: bool, float32: bool, chunk: int
) -> None:
    table = _parts_table(seed, n, distinct, weights, float32)
    metrics = [parse_metric(name) for name in PARTED]
    states, rows, _ = spark_states(table, metrics, chunk_size=chunk, partitions=5)
    assert rows == n
    _parts_check(metrics, states, _parts_stream(metrics, table))


def test_dataframe_ranges_equal_the_stream_engine(spark: Any) -> None:
    table = _parts_table(11, 3000, 40, True, True)
    frame = spark.createDataFrame(table.to_pandas()).repartition(5)
    metrics = [parse_metric(name) for name in PARTED]
    states, rows, _ = spark_states(frame, metrics, chunk_size=256)
    assert rows == 3000
    # the DataFrame's rows come in Spark's order; the exact counts do not depend on it
    _parts_check(metrics, states, _parts_stream(metrics, table))
    assert len(states[0].parts) == 8


def test_scores_in_one_range_and_evaluate(spark: Any) -> None:
    table = pa.table({"y_true": [0, 1, 1, 0], "y_score": [0.61, 0.62, 0.61, 0.7]})
    names = ["roc_auc:ranges=8", "average_precision:ranges=8"]
    got = evaluate(table, names, engine="spark", chunk_size=1)
    want = evaluate(table, names, chunk_size=1)
    assert [_parts_bits(got[n]) for n in names] == [_parts_bits(want[n]) for n in names]
    metric = parse_metric("roc_auc:ranges=8")
    (state,), _, _ = spark_states(table, [metric], chunk_size=1, partitions=4)
    assert [state.parts[i].n_samples for i in range(8)] == [0, 0, 0, 0, 3, 1, 0, 0]


def test_cut_points_from_a_sample_on_the_active_session(spark: Any) -> None:
    table = _parts_table(7, 3000, 10**6, False, True)
    names = ["roc_auc:ranges=6,cuts=sample", "best_threshold:ranges=6,cuts=sample", "roc_auc"]
    frame = spark.createDataFrame(table.to_pandas()).repartition(3)
    with engines.session("spark", workers=2):
        # the active session, on the same master, is held as it is: runs in the block use it
        got = evaluate(frame, names, engine="spark")
    assert not spark.sparkContext._jsc.sc().isStopped()
    want = evaluate(table, names, chunk_size=500)
    assert got.metrics[names[0]].cuts == want.metrics[names[0]].cuts
    assert got[names[0]] == want[names[0]] == want["roc_auc"]
    assert got[names[1]] == want[names[1]]


@pytest.mark.parametrize("kind", [pa.binary(), pa.large_binary()])
def test_values_are_read_from_binary_and_large_binary_columns(kind: Any) -> None:
    from scorekit.engines.spark import _views

    values = [b"ab", b"", bytes(range(256)), b"f"]
    column = pa.array(values, type=kind)
    assert [bytes(v) for v in _views(column)] == values
    assert [bytes(v) for v in _views(column.slice(1, 2))] == values[1:3]


# merges capped by bytes, and ranges merged once for the metrics that share them -----------


def _levels(monkeypatch: pytest.MonkeyPatch) -> tuple[list[list[int]], list[list[int]]]:
    """Record the bytes of each level the engine measured, and where each level's merges start."""
    sizes: list[list[int]] = []
    starts: list[list[int]] = []
    measure, merger = spark_engine._sizes, spark_engine._merger

    def sizes_of(frame: Any, width: int, kept: list[Any]) -> list[int]:
        found = measure(frame, width, kept)
        sizes.append(found)
        return found

    def merger_of(setup: Any, begins: list[int]) -> Any:
        starts.append(list(begins))
        return merger(setup, begins)

    monkeypatch.setattr(spark_engine, "_sizes", sizes_of)
    monkeypatch.setattr(spark_engine, "_merger", merger_of)
    return sizes, starts


def _persisted(spark: Any) -> set[int]:
    """The RDDs Spark keeps, once the states of earlier tests no longer used have let theirs go."""
    gc.collect()
    return set(spark.sparkContext._jsc.getPersistentRDDs().keySet())


def test_merges_take_the_partitions_that_hold_the_bytes_a_merge_takes(
    spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eleven partitions, merged as many at a time as hold MERGE_BYTES (two at least, eight at
    most), level after level, until the partitions of one merge, which the driver merges
    (merges of two, as a merge takes one byte, are in the test of equal states above)."""
    table = _parts_table(5, 1100, 10**6, True, False)
    metrics = [parse_metric(name) for name in ("roc_auc", "ap")]
    want = _parts_stream(metrics, table)
    before = _persisted(spark)
    found = {}
    for name, cap in (("eights", 2**40), ("between", None)):
        sizes, starts = _levels(monkeypatch)
        if cap is None:  # about three first-level partitions' bytes a merge
            cap = 3 * int(np.median(found["eights"][0][0]))
        monkeypatch.setattr(spark_engine, "MERGE_BYTES", cap)
        states, rows, _ = spark_states(table, metrics, chunk_size=100, partitions=11)
        assert rows == 1100
        _parts_check(metrics, states, want)
        found[name] = (list(sizes), list(starts))
        # every level of more than two partitions is grouped by the bytes measured
        assert [len(s) for s in sizes] == [11, *(len(s) for s in starts)][: len(sizes)]
        assert starts == [merge_starts(s, cap) for s in sizes][: len(starts)]
        # the driver merges the last level: two partitions, or those of one merge
        if len(sizes) == len(starts):
            assert len(starts[-1]) <= 2
        else:
            assert len(sizes) == len(starts) + 1 and len(merge_starts(sizes[-1], cap)) == 1
        assert min(sizes[0]) > 0
    assert found["eights"][1] == [[0, 8]]
    between = found["between"][1][0]
    assert 2 < len(between) < 6
    assert _persisted(spark) - before == set()


def test_each_partition_goes_to_the_merge_of_its_run_of_partitions(spark: Any) -> None:
    frame = spark.createDataFrame([(p,) for p in range(11)], "part int")
    starts = [0, 3, 5, 10]
    found = frame.select("part", spark_engine._group_of(starts, 11).alias("group")).collect()
    want = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2, 3]
    assert sorted((row["part"], row["group"]) for row in found) == list(enumerate(want))
    # one merge takes every partition, whatever its number
    found = frame.select(spark_engine._group_of([0], 2).alias("group")).collect()
    assert {row["group"] for row in found} == {0}


def test_ranges_merge_to_one_partition_by_bytes_and_once_for_metrics_that_share(
    spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = _parts_table(9, 1500, 10**6, True, True)
    metrics = [parse_metric(name) for name in PARTED]
    want = _parts_stream(metrics, table)
    sizes, starts = _levels(monkeypatch)
    kept = spark_engine.kept_parts
    arranged: list[list[int]] = []

    def kept_of(context: Any, frame: Any, empties: Any, error: Any) -> Any:
        arranged.append(sorted(empties))
        return kept(context, frame, empties, error)

    monkeypatch.setattr(spark_engine, "kept_parts", kept_of)
    monkeypatch.setattr(spark_engine, "MERGE_BYTES", 1)
    before = _persisted(spark)
    states, rows, _ = spark_states(table, metrics, chunk_size=100, partitions=5)
    assert rows == 1500
    _parts_check(metrics, states, want)
    # 5 partitions, 3, 2, then one: the last merge on the executors, to keep the ranges there
    assert starts == [[0, 2, 4], [0, 2], [0]]
    assert [len(s) for s in sizes] == [5, 3]
    # ROC AUC and AP share one histogram: their ranges travel, merge and stay once
    assert arranged == [[0]]
    assert states[1].parts is states[0].parts
    # of the levels and the merged values, Spark keeps the ranges alone, while their state lives
    held = _persisted(spark) - before
    assert len(held) == 1
    del states
    assert not _persisted(spark) & held


@pytest.mark.parametrize("partitions", [1, 3])
def test_metrics_taken_to_share_that_do_not_run_again_each_its_own(
    spark: Any, monkeypatch: pytest.MonkeyPatch, partitions: int
) -> None:
    """ROC AUC in 4 ranges and AP in 2, taken to share their states, keep states of their own:
    the run goes again without sharing."""
    table = _parts_table(3, 800, 10**6, False, False)
    metrics = [parse_metric(name) for name in ("roc_auc:ranges=4", "ap:ranges=2", "roc_auc")]
    assert spark_engine.sharing(metrics, [0, 1]) == {}
    monkeypatch.setattr(spark_engine, "sharing", lambda metrics, parted: {1: 0})
    want = _parts_stream(metrics, table)
    runs = []
    with_parts = spark_engine._with_parts

    def counted(*args: Any) -> Any:
        runs.append(1)
        return with_parts(*args)

    monkeypatch.setattr(spark_engine, "_with_parts", counted)
    states, rows, _ = spark_states(table, metrics, chunk_size=100, partitions=partitions)
    assert rows == 800 and len(runs) == 2
    _parts_check(metrics, states, want)
    assert len(states[0].parts) == 4 and len(states[1].parts) == 2
