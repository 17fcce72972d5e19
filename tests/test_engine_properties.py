"""One definition, every scale: every registered metric gives the same result streamed.

For each configuration reachable by name (as in ``test_properties.py``) and
random batches: ``scorekit.evaluate`` over the batch as an in-memory table in
random chunks equals ``metric.score`` on the arrays, and equals ``evaluate`` over
the table written to Parquet and to CSV (JSON Lines when a column holds lists or
text that a CSV cell cannot keep), read back in random chunks; and the batch cut
into 2 or 3 shards (ranking runs between queries), each evaluated and saved to a
state file, merged with ``merge_files``, equals it too. The Dask engine is
checked against the in-memory states in ``test_dask.py``.

States are compared too: integer fields (counts) must be exactly equal; float
fields (weighted counts, sums of errors, log-likelihoods) may differ in the
last bits because chunks add in another order, so they are compared to a
relative 1e-12. Values are compared the same way.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import evaluate
from scorekit.api import merge_files, save_states
from scorekit.core import Metric, State
from scorekit.engines._columns import resolve, wanted_columns
from scorekit.engines.stream import fold, read_chunks
from scorekit.errors import ScorekitError, UndefinedMetricWarning
from scorekit.io._sources import open_source
from strategies import batches
from tables import csv_safe, to_table, write
from test_properties import CONFIGS, _summarize

RTOL = 1e-12
VALUE_RTOL = 1e-9
EXAMPLES = int(os.environ.get("SCOREKIT_ENGINE_EXAMPLES", "2"))


def _quiet() -> Any:
    manager = warnings.catch_warnings()
    manager.__enter__()
    warnings.simplefilter("ignore", UndefinedMetricWarning)
    warnings.simplefilter("ignore", UserWarning)
    return manager


def _memory(metric: Metric[Any], args: tuple[Any, ...], weights: Any) -> tuple[str, Any, Any]:
    manager = _quiet()
    try:
        state = _summarize(metric, args, weights)
        return "value", metric.compute(state), state
    except ScorekitError as exc:
        return "error", type(exc).__name__, None
    finally:
        manager.__exit__(None, None, None)


def _streamed(metric: Metric[Any], source: Any, **kwargs: Any) -> tuple[str, Any, Any]:
    manager = _quiet()
    try:
        result = evaluate(source, [metric], progress=False, **kwargs)
        return "value", result.values[metric.name], result.states[metric.name]
    except ScorekitError as exc:
        return "error", type(exc).__name__, None
    finally:
        manager.__exit__(None, None, None)


def _field(a: State, b: State, name: str) -> tuple[Any, Any]:
    """A state field of both states, ready to compare.

    A ``NAME_lo`` field is the low-order part of the float ``NAME`` (a
    compensated, double-double sum): it holds the rounding error of ``NAME``,
    which depends on the order of additions, so only ``NAME + NAME_lo`` is
    compared, and ``NAME_lo`` alone not.
    """
    if name.endswith("_lo") and hasattr(a, name[:-3]):
        return getattr(a, name[:-3]) + getattr(a, name), getattr(b, name[:-3]) + getattr(b, name)
    return getattr(a, name), getattr(b, name)


def _magnitude(state: State) -> float:
    """The largest finite float in a state's numeric fields (the scale of its round-off)."""
    largest = 0.0
    for f in dataclasses.fields(state):
        value = np.asarray(getattr(state, f.name))
        if value.dtype.kind == "f" and value.size:
            finite = np.abs(value[np.isfinite(value)])
            largest = max(largest, float(finite.max()) if finite.size else 0.0)
    return largest


def _close(a: Any, b: Any, rtol: float = RTOL, scale: float = 0.0) -> bool:
    """Equal, with floats to a relative ``rtol``; integers, strings and bools exactly.

    Fields of a state are compared at the scale of the whole state: a running
    mean of residuals that cancel to ~1e-17 differs between merge orders by
    round-off of the other fields' size.
    """
    if isinstance(a, State):
        if type(a) is not type(b):
            return False
        whole = max(_magnitude(a), _magnitude(b))
        return all(_close(*_field(a, b, f.name), rtol, whole) for f in dataclasses.fields(a))
    if isinstance(a, dict):
        return (
            isinstance(b, dict)
            and set(a) == set(b)
            and all(_close(a[k], b[k], rtol, scale) for k in a)
        )
    if isinstance(a, tuple | list):
        return (
            isinstance(b, tuple | list)
            and len(a) == len(b)
            and all(_close(x, y, rtol, scale) for x, y in zip(a, b, strict=True))
        )
    if a is None or b is None or isinstance(a, str | bytes):
        return bool(a == b)
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and _close(
            dataclasses.asdict(a), dataclasses.asdict(b), rtol, scale
        )
    x, y = np.asarray(a), np.asarray(b)
    if x.shape != y.shape:
        return False
    if x.dtype.kind == "f" or y.dtype.kind == "f":
        x, y = x.astype(np.float64), y.astype(np.float64)
        finite = np.abs(np.concatenate([x.ravel(), y.ravel()]))
        finite = finite[np.isfinite(finite)]
        scale = max(scale, float(finite.max()) if finite.size else 0.0)
        return bool(np.allclose(x, y, rtol=rtol, atol=rtol * scale + 1e-300, equal_nan=True))
    if x.dtype.kind == "O" or y.dtype.kind == "O":
        return x.size == y.size and all(
            _close(p, q, rtol, scale) for p, q in zip(x.ravel(), y.ravel(), strict=True)
        )
    return bool(np.array_equal(x, y))


def _shard_state(metric: Metric[Any], shard: Any, chunk_size: int, read: dict[str, Any]) -> Any:
    """The state ``evaluate`` folds over one shard.

    A shard alone may have no value (no judged query, a single class) while its
    state still merges: then the state comes from the engine's own fold, as
    ``evaluate`` computes it before the value.
    """
    try:
        result = evaluate(shard, [metric], chunk_size=chunk_size, progress=False, **read)
        return result.states[metric.name]
    except ScorekitError:
        source = open_source(shard)
        mapping = resolve([metric], read.get("columns"), source.columns())
        states, _ = read_chunks(
            source,
            wanted_columns(mapping),
            chunk_size,
            lambda chunks: fold([metric], chunks, mapping, {"qrels": read.get("qrels")}),
            progress=False,
        )
        return states[0]


def _cuts(table: Any, metric: Metric[Any], parts: list[int], read: dict[str, Any]) -> list[int]:
    """Where to cut the table into 2 or 3 shards: between queries for ranking runs."""
    n = table.num_rows
    if metric.inputs == "qrels_run":
        query = table.column(read["columns"]["query"]).to_pylist()
        starts = [i for i in range(1, n) if query[i] != query[i - 1]]
    else:
        starts = list(range(1, n))
    if not starts:
        return [0, n]
    picks = {starts[(p * len(starts)) // 9] for p in parts[: 1 + parts[2] % 2]}
    return [0, *sorted(picks), n]


def _merged(
    metric: Metric[Any],
    table: Any,
    bounds: list[int],
    chunk_size: int,
    read: dict[str, Any],
    folder: Path,
) -> tuple[str, Any, Any]:
    """Each shard evaluated and saved to a state file; the files merged."""
    manager = _quiet()
    try:
        paths = []
        for i, (lo, hi) in enumerate(itertools.pairwise(bounds)):
            state = _shard_state(metric, table.slice(lo, hi - lo), chunk_size, read)
            path = folder / f"shard-{i}.json"
            save_states(path, {metric.name: (metric, state)}, rows=hi - lo)
            paths.append(path)
        result = merge_files(paths, allow_duplicates=True)
        assert result.rows == table.num_rows
        return "value", result.values[metric.name], result.states[metric.name]
    except ScorekitError as exc:
        return "error", type(exc).__name__, None
    finally:
        manager.__exit__(None, None, None)


def _has_floats(value: Any) -> bool:
    """Whether a state holds float data (sums that depend on the order of additions)."""
    if isinstance(value, State):
        return any(_has_floats(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, tuple | list | dict):
        items = value.values() if isinstance(value, dict) else value
        return any(_has_floats(v) for v in items)
    if isinstance(value, float):
        return True
    return isinstance(value, np.ndarray) and value.dtype.kind in "fc" and value.size > 0


def _check(expected: tuple[str, Any, Any], got: tuple[str, Any, Any], where: str) -> None:
    """Same outcome; the same state; the same value.

    States: integer fields exactly, float fields to RTOL. Values computed from
    an integer state are then exactly the in-memory ones (the same computation
    on the same numbers). Values computed from float sums inherit the sums'
    last-bit differences, amplified by the computation's condition (mutual
    information near 0 is a difference of nearly equal entropies; r2 near 1 is
    1 - a small ratio), so they are compared to VALUE_RTOL.
    """
    assert got[0] == expected[0], (where, got, expected)
    if expected[0] == "error":
        assert got[1] == expected[1], (where, got[1], expected[1])
        return
    assert _close(got[2], expected[2]), (where, got[2], expected[2])
    rtol = VALUE_RTOL if _has_floats(expected[2]) else 0.0
    assert _close(got[1], expected[1], rtol), (where, got[1], expected[1])


@pytest.mark.parametrize("metric", CONFIGS)
def test_in_memory_equals_streamed_tables_and_files(metric: Metric[Any], tmp_path: Path) -> None:
    folder = tmp_path

    @settings(max_examples=EXAMPLES, deadline=None)
    @given(
        data=batches(metric.inputs),
        parts=st.lists(st.integers(1, 8), min_size=3, max_size=3),
        layout=st.sampled_from(["columns", "list"]),
    )
    def check(data: dict[str, Any], parts: list[int], layout: str) -> None:
        args, weights = data["args"], data["weights"]
        expected = _memory(metric, args, weights)
        table, columns, extra = to_table(
            metric.inputs, args, metric=metric, weights=weights, matrix=layout
        )
        # chunks of random sizes, at most 8 per read (a chunk of a few rows costs as
        # much work as a large one, so more would only make the test slow)
        chunks = [max(1, -(-table.num_rows // p)) for p in parts]
        read = {"columns": columns, **extra}
        _check(expected, _streamed(metric, table, chunk_size=chunks[0], **read), "table")
        bounds = _cuts(table, metric, parts, read)
        merged = _merged(metric, table, bounds, chunks[0], read, folder)
        _check(expected, merged, f"shards {bounds}")
        parquet = write(table, folder / "batch.parquet", row_group_size=max(chunks[1] // 2, 1))
        _check(expected, _streamed(metric, parquet, chunk_size=chunks[1], **read), "parquet")
        if csv_safe(table):
            flat, flat_columns, _ = to_table(
                metric.inputs, args, metric=metric, weights=weights, matrix="columns"
            )
            text = write(flat, folder / "batch.csv")
            read = {**read, "columns": flat_columns}
        else:
            text = write(table, folder / "batch.jsonl")
        _check(expected, _streamed(metric, text, chunk_size=chunks[2], **read), text.suffix)

    check()
