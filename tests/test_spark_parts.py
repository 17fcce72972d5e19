"""Merged score ranges kept on the executors of a Spark session, and read there.

On the caller's session the Spark engine leaves the merged ranges of a parted
state on the executors (:class:`SparkParts`): a reader going through
:func:`scorekit.core.scan` runs as one Spark job whose single task reads the
ranges one at a time and runs every step next to them; only the steps' totals
come back. The values equal the stream engine's, bit for bit. A session the
engine starts stops with the run or session, after bringing the ranges still in
use here, or letting them go when its states are not used after it; reading
ranges let go is a clear error.

The local Spark session the Spark modules share (``local[2]``, the ``spark``
fixture) serves the module; the tests of sessions the engine starts stop it
first, and come last.
"""

from __future__ import annotations

import gc
import os
import pickle
import shutil
import sys
import warnings
from collections.abc import Iterator
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
from pyspark import cloudpickle

import scorekit
from scorekit import engines, evaluate, parse_metric
from scorekit.core import State, scan
from scorekit.engines._parts import StoredParts
from scorekit.engines._spark_parts import SparkParts
from scorekit.engines.spark import spark_states
from scorekit.errors import ConfigError, InputError
from tables import binary_scores

# the steps below run on Spark's workers, which cannot import this module: they travel whole
cloudpickle.register_pickle_by_value(sys.modules[__name__])

pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support:FutureWarning")

NAMES = [
    "roc_auc:ranges=8",
    "average_precision:ranges=8",
    "roc_auc:ranges=8,max_fpr=0.5",
    "roc_curve:ranges=8",
    "best_threshold:ranges=8",
    "roc_auc",
]


@pytest.fixture
def no_session(spark_python: None) -> None:
    """No active session: the engine starts its own."""
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        active.stop()


def _bits(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_bits(v) for v in value)
    if hasattr(value, "__dataclass_fields__"):
        return tuple(_bits(getattr(value, f)) for f in value.__dataclass_fields__)
    if isinstance(value, np.ndarray | float | int | np.floating | np.integer):
        array = np.asarray(value)
        return array.dtype.str, array.shape, array.tobytes()
    return value


def _values(table: pa.Table, names: list[str], **options: Any) -> tuple[Any, dict[str, Any]]:
    columns = {"sample_weight": "sample_weight"} if "sample_weight" in table.column_names else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = evaluate(table, names, columns=columns, **options)
    return found, {name: _bits(found[name]) for name in names}


def _where(total: int, part: State) -> tuple[int, tuple[bool, int, int]]:
    """A step that adds up the samples and tells whether it ran in a Spark task."""
    from pyspark import TaskContext

    context = TaskContext.get()
    n = int(part.n_samples)
    return total + n, (context is not None, os.getpid(), n)


def _fails(total: int, part: State) -> tuple[int, None]:
    raise InputError("a step: refused; got a part, expected none.")


def _jobs(context: Any, group: str) -> int:
    return len(context.statusTracker().getJobIdsForGroup(group))


# values ---------------------------------------------------------------------------------------


@settings(
    max_examples=1, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 3000),
    distinct=st.sampled_from([1, 5, 64, 10**6]),
    weights=st.sampled_from(["none", "dyadic"]),
    float32=st.booleans(),
    partitions=st.sampled_from([1, 3, 7]),
)
def test_values_read_on_the_executors_equal_the_stream_engine(
    spark: Any, seed: int, n: int, distinct: int, weights: str, float32: bool, partitions: int
) -> None:
    table = binary_scores(seed, n, distinct=distinct, weights=weights, float32=float32)
    got, values = _values(table, NAMES, engine="spark", partitions=partitions, chunk_size=500)
    want, expected = _values(table, NAMES, chunk_size=500)
    assert values == expected
    for name in NAMES[:-1]:
        parts = got.states[name].parts
        # the caller's session keeps the merged ranges on its executors
        assert isinstance(parts, SparkParts) and parts.on_cluster and len(parts) == 8
        assert got.states[name].equals(want.states[name]), name
    # with ranges, the AUC is the whole histogram's, bit for bit
    assert values[NAMES[0]] == values["roc_auc"]


def test_edge_inputs_give_the_stream_engine_values(spark: Any) -> None:
    one_class = pa.table({"y_true": [1, 1, 1], "y_score": [0.2, 0.2, 0.9]})
    tied = pa.table({"y_true": [0, 1, 1, 0], "y_score": [0.5] * 4})
    tiny = pa.table({"y_true": [0, 1, 0, 1], "y_score": [1e-300, 5e-324, 0.0, 1e-310]})
    huge = pa.table({"y_true": [0, 1, 0, 1], "y_score": [1e300, -1e300, 1.7e308, 3.0]})
    names = ["roc_auc:ranges=4", "average_precision:ranges=4", "roc_curve:ranges=4"]
    for table in (one_class, tied, tiny, huge):
        try:
            _, want = _values(table, names, chunk_size=2)
        except scorekit.errors.ScorekitError:
            # a metric refuses this input: each its own run, the same error on Spark
            for name in names:
                try:
                    _, alone = _values(table, [name], chunk_size=2)
                except scorekit.errors.ScorekitError as exc:
                    with pytest.raises(type(exc)):
                        _values(table, [name], engine="spark", chunk_size=2)
                    continue
                assert _values(table, [name], engine="spark", chunk_size=2)[1] == alone
            continue
        assert _values(table, names, engine="spark", chunk_size=2)[1] == want


def test_ranges_no_partition_gave_are_the_empty_ones(spark: Any) -> None:
    table = pa.table({"y_true": [0, 1, 1, 0], "y_score": [0.61, 0.62, 0.61, 0.7]})
    metric = parse_metric("roc_auc:ranges=8")
    (state,), _, _ = spark_states(table, [metric], chunk_size=1, partitions=4)
    parts = state.parts
    assert isinstance(parts, SparkParts)
    assert [parts[i].n_samples for i in range(8)] == [0, 0, 0, 0, 3, 1, 0, 0]
    assert [p.n_samples for p in parts] == [0, 0, 0, 0, 3, 1, 0, 0]
    assert scan(parts, _where, 0)[0] == 4
    assert [n for _, _, n in scan(parts, _where, 0, reverse=True)[1]] == [0, 0, 1, 3, 0, 0, 0, 0]
    with pytest.raises(IndexError):
        parts[8]


# scans ----------------------------------------------------------------------------------------


def test_a_scan_is_one_job_whose_steps_run_on_an_executor(spark: Any) -> None:
    table = binary_scores(5, 3000, distinct=500, weights="none", float32=False)
    metric = parse_metric("roc_auc:ranges=8")
    found = evaluate(table, [metric], engine="spark", chunk_size=400, partitions=3)
    parts = found.states[metric.name].parts
    assert isinstance(parts, SparkParts) and parts.on_cluster
    context = spark.sparkContext
    for number, reverse in enumerate((False, True, True)):
        group = f"scan-{number}-{id(parts)}"
        context.setJobGroup(group, "a scan of the ranges")
        try:
            total, outs = scan(parts, _where, 0, reverse=reverse)
        finally:
            context.setLocalProperty("spark.jobGroup.id", None)
        assert _jobs(context, group) == 1
        assert total == 3000
        assert all(in_task for in_task, _, _ in outs)
        # one task ran every step
        assert len({pid for _, pid, _ in outs}) == 1
        here = [parts[i] for i in range(len(parts))]
        counts = [int(p.n_samples) for p in (here[::-1] if reverse else here)]
        assert [n for _, _, n in outs] == counts
        # the same scan over the ranges fetched here gives the same totals
        assert scan(tuple(here), _where, 0, reverse=reverse) == (
            total,
            [(False, os.getpid(), n) for n in counts],
        )
    assert found[metric.name] == evaluate(table, ["roc_auc"])["roc_auc"]


def test_an_error_of_a_step_is_raised_here_as_it_is(spark: Any) -> None:
    table = binary_scores(6, 2000, distinct=100, weights="none", float32=True)
    metric = parse_metric("average_precision:ranges=4")
    (state,), _, _ = spark_states(table, [metric], chunk_size=500)
    parts = state.parts
    assert isinstance(parts, SparkParts)
    for reverse in (False, True):
        with pytest.raises(InputError, match="a step: refused"):
            scan(parts, _fails, 0, reverse=reverse)
    # the parts are still there
    assert scan(parts, _where, 0)[0] == 2000


def test_pickled_and_compared_as_their_ranges(spark: Any) -> None:
    table = binary_scores(7, 1500, distinct=40, weights="dyadic", float32=False)
    name = "roc_auc:ranges=6"
    metric = parse_metric(name)
    (state,), _, _ = spark_states(
        table, [metric], columns={"sample_weight": "sample_weight"}, chunk_size=300, partitions=2
    )
    want = _values(table, [name], chunk_size=300)[0].states[name]
    assert isinstance(state.parts, SparkParts)
    assert state.equals(want)
    again = pickle.loads(pickle.dumps(state))
    assert isinstance(again.parts, tuple) and again.equals(want)
    assert metric.compute(again) == metric.compute(state) == metric.compute(want)


def test_ranges_let_go_on_the_callers_session_are_unpersisted(spark: Any) -> None:
    table = binary_scores(8, 1000, distinct=50, weights="none", float32=False)
    metric = parse_metric("roc_auc:ranges=4")
    context = spark.sparkContext
    before = set(context._jsc.getPersistentRDDs().keySet())
    (state,), _, _ = spark_states(table, [metric], chunk_size=300)
    scan(state.parts, _where, 0, reverse=True)
    held = set(context._jsc.getPersistentRDDs().keySet()) - before
    assert len(held) == 2  # the ranges in order, and in reverse order
    del state
    gc.collect()
    assert not set(context._jsc.getPersistentRDDs().keySet()) & held


def test_ranges_that_fail_to_come_here_are_lost_and_say_so(
    spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = binary_scores(10, 800, distinct=50, weights="none", float32=False)
    (state,), _, _ = spark_states(table, [parse_metric("roc_auc:ranges=4")], chunk_size=300)
    parts = state.parts
    assert isinstance(parts, SparkParts)
    brought = parts._local

    def half_way() -> Iterator[tuple[int, bytes | None]]:
        found = brought()
        yield next(found)
        raise ConfigError("the Spark engine: a session lost on the way; got none.")

    monkeypatch.setattr(parts, "_local", half_way)
    with pytest.raises(ConfigError, match="lost on the way"):
        parts.localize()
    assert not parts.on_cluster and "lost" in repr(parts)
    with pytest.raises(ConfigError, match="session that has stopped"):
        parts[0]


# sessions the engine starts (these stop the module's session) ---------------------------------


def test_a_session_keeps_the_ranges_here_before_it_stops(no_session: None) -> None:
    table = binary_scores(9, 2000, distinct=300, weights="none", float32=True)
    names = ["roc_auc:ranges=8", "average_precision:ranges=8"]
    with engines.session("spark", workers=2):
        found = evaluate(table, names, engine="spark", chunk_size=500)
    want = evaluate(table, names, chunk_size=500)
    assert _bits(found[names[0]]) == _bits(want[names[0]])
    assert _bits(found[names[1]]) == _bits(want[names[1]])
    for name in names:
        parts = found.states[name].parts
        # a session that stops with the run whose states are kept brings its ranges here
        assert isinstance(parts, StoredParts)
        assert found.states[name].equals(want.states[name])


def test_a_session_lets_the_ranges_still_in_use_go_and_says_so_when_read(
    no_session: None, count_calls: Any
) -> None:
    table = binary_scores(10, 2000, distinct=300, weights="dyadic", float32=False)
    metric = parse_metric("average_precision:ranges=4")
    counted = count_calls(SparkParts, "localize", "drop")
    columns = {"sample_weight": "sample_weight"}
    with engines.session("spark", workers=2, keep_states=False):
        found = evaluate(table, [metric], engine="spark", columns=columns, chunk_size=500)
        gone = evaluate(table, [metric], engine="spark", columns=columns, chunk_size=700)
        parts = found.states[metric.name].parts
        assert isinstance(parts, SparkParts) and parts.on_cluster
        inside = scan(parts, _where, 0)
        assert inside[0] == 2000 and all(in_task for in_task, _, _ in inside[1])
        del gone
        gc.collect()
    # the ranges of the state still in use were let go, not brought here
    assert counted == {"localize": 0, "drop": 1}
    want = evaluate(table, [metric], columns=columns, chunk_size=500)
    assert _bits(found[metric.name]) == _bits(want[metric.name])
    assert not parts.on_cluster
    with pytest.raises(ConfigError, match="on a Spark session that has stopped"):
        parts[0]
    with pytest.raises(ConfigError, match="on a Spark session that has stopped"):
        scan(parts, _where, 0)
