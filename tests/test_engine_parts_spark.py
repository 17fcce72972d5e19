"""The Spark engine merges states made of independent parts part by part.

With ``roc_auc:ranges=N`` / ``average_precision:ranges=N`` each partition sends its
state's shell and each range as values of their own; the ranges are merged on the
executors in partition order, and reach the driver one at a time, into files. The
states equal the stream engine's (integer counts and weights whose sums are exact,
bit for bit), beside metrics of whole states in the same call.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("pyspark", reason="the Spark engine needs pyspark (the spark extra)")
if not os.environ.get("JAVA_HOME") and shutil.which("java") is None:
    pytest.skip(
        "the Spark engine needs Java (none on PATH, JAVA_HOME unset)", allow_module_level=True
    )

import pyarrow as pa

from scorekit import evaluate, parse_metric
from scorekit.core import State
from scorekit.engines._columns import resolve
from scorekit.engines._fold import StoredParts
from scorekit.engines.spark import spark_states
from scorekit.engines.stream import fold

pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support:FutureWarning")

NAMES = ["roc_auc:ranges=8", "average_precision:ranges=8", "roc_auc"]


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    """A local Spark session of two cores, the active session of the module's tests."""
    from pyspark.sql import SparkSession

    before = os.environ.get("PYSPARK_PYTHON")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("scorekit-tests")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.log.level", "ERROR")
        .getOrCreate()
    )
    try:
        yield session
    finally:
        session.stop()
        if before is None:
            os.environ.pop("PYSPARK_PYTHON", None)
        else:
            os.environ["PYSPARK_PYTHON"] = before


def _table(seed: int, n: int, distinct: int, weights: bool, float32: bool) -> pa.Table:
    rng = np.random.default_rng(seed)
    score = rng.integers(0, distinct + 1, n) / distinct
    columns: dict[str, Any] = {
        "y_true": rng.integers(0, 2, n),
        "y_score": score.astype(np.float32) if float32 else score,
    }
    if weights:
        columns["sample_weight"] = rng.integers(0, 9, n) / 8
    return pa.table(columns)


def _stream(metrics: list[Any], table: pa.Table) -> list[State]:
    states, _ = fold(metrics, [table], resolve(metrics, None, table.column_names), {})
    return states


def _bits(value: Any) -> bytes:
    return np.asarray(value, dtype=np.float64).tobytes()


def _check(metrics: list[Any], got: list[State], want: list[State]) -> None:
    for metric, a, b in zip(metrics, got, want, strict=True):
        assert a.equals(b), metric.name
        assert _bits(metric.compute(a)) == _bits(metric.compute(b)), metric.name
        if type(a).parted:
            assert isinstance(a.parts, StoredParts)


@settings(max_examples=2, deadline=None)
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
    table = _table(seed, n, distinct, weights, float32)
    metrics = [parse_metric(name) for name in NAMES]
    states, rows, _ = spark_states(table, metrics, chunk_size=chunk, partitions=5)
    assert rows == n
    _check(metrics, states, _stream(metrics, table))


def test_dataframe_ranges_equal_the_stream_engine(spark: Any) -> None:
    table = _table(11, 3000, 40, True, True)
    frame = spark.createDataFrame(table.to_pandas()).repartition(5)
    metrics = [parse_metric(name) for name in NAMES]
    states, rows, _ = spark_states(frame, metrics, chunk_size=256)
    assert rows == 3000
    # the DataFrame's rows come in Spark's order; the exact counts do not depend on it
    _check(metrics, states, _stream(metrics, table))
    assert len(states[0].parts) == 8


def test_scores_in_one_range_and_evaluate(spark: Any) -> None:
    table = pa.table({"y_true": [0, 1, 1, 0], "y_score": [0.61, 0.62, 0.61, 0.7]})
    names = ["roc_auc:ranges=8", "average_precision:ranges=8"]
    got = evaluate(table, names, engine="spark", chunk_size=1)
    want = evaluate(table, names, chunk_size=1)
    assert [_bits(got[n]) for n in names] == [_bits(want[n]) for n in names]
    metric = parse_metric("roc_auc:ranges=8")
    (state,), _, _ = spark_states(table, [metric], chunk_size=1, partitions=4)
    assert [state.parts[i].n_samples for i in range(8)] == [0, 0, 0, 0, 3, 1, 0, 0]
