"""Request records checked once per chunk and shared by the groups of ``--by``.

The records input kind's summarize hook takes the rows of each group (``parts``):
the chunk's records are checked once and each group takes its records from them.
That must give what checking each group's rows alone gives: the same records
(rows set aside by ``record``/``warmup`` included), hence the same states.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit
from scorekit.core import available, parse_metric
from scorekit.io import Chunk
from scorekit.throughput import COLUMNS
from scorekit.throughput._inputs import _of_row, _part, _records, _summarize
from scorekit.throughput._records import Records, input_records
from strategies import _requests

_NAMES = ["e2e_latency:p90", "ttft:p99", "itl:max", "tpot:std", "goodput"]


def _metrics() -> list[Any]:
    found = [parse_metric(n) for n in _NAMES]
    for info in available():
        if info.inputs == "requests":
            found.append(parse_metric(info.name))
    return found


@st.composite
def _tables(draw: st.DrawFn) -> tuple[pa.Table, list[np.ndarray]]:
    """Records of a few models, some set aside, and the rows of each model (maybe shuffled)."""
    n = draw(st.integers(1, 80))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    table = _requests(rng, n, 3)
    groups = draw(st.integers(1, 5))
    models = rng.integers(0, groups, n)
    table = table.append_column("model", pa.array([f"m{g}" for g in models]))
    marks = draw(st.sampled_from(["none", "record", "warmup", "both"]))
    if marks in ("record", "both"):
        kinds = rng.choice(["metadata", "request", None], n, p=[0.2, 0.4, 0.4]).tolist()
        table = table.append_column("record", pa.array(kinds, pa.string()))
    if marks in ("warmup", "both"):
        flags = [None if r < 0.3 else bool(r < 0.5) for r in rng.random(n)]
        table = table.append_column("warmup", pa.array(flags, pa.bool_()))
    parts = [np.flatnonzero(models == g) for g in np.unique(models)]
    if draw(st.booleans()):
        parts = [rng.permutation(p) for p in parts]
    return table, parts


def _same_records(a: Records, b: Records) -> None:
    for name in Records.__dataclass_fields__:
        x, y = getattr(a, name), getattr(b, name)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            assert x.dtype == y.dtype, name
            assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), name
        else:
            assert x == y, name


@settings(max_examples=150, deadline=None)
@given(_tables())
def test_each_part_equals_its_rows_checked_alone(drawn: tuple[pa.Table, list[np.ndarray]]) -> None:
    table, parts = drawn
    mapping = {c: (c,) for c in COLUMNS if c in table.column_names}
    records, rows, count = input_records("ttft", _records(table, mapping))
    for index in parts:
        alone = input_records("ttft", _records(table.take(index), mapping))
        part = _part(records, _of_row(records, rows, count), index)
        _same_records(part, alone[0])
        assert np.array_equal(input_records("ttft", part)[1], alone[1])
        assert input_records("ttft", part)[2] == alone[2] == len(index)


@settings(max_examples=60, deadline=None)
@given(_tables())
def test_the_hook_with_parts_gives_the_states_of_each_part(
    drawn: tuple[pa.Table, list[np.ndarray]],
) -> None:
    table, parts = drawn
    metrics = _metrics()
    mapping = {c: (c,) for c in COLUMNS if c in table.column_names}
    found = _summarize(metrics, Chunk(table), mapping, {}, parts=parts)
    expected = [_summarize(metrics, Chunk(table), mapping, {})]
    expected += [_summarize(metrics, Chunk(table.take(p)), mapping, {}) for p in parts]
    assert len(found) == len(expected) == len(parts) + 1
    for got, want in zip(found, expected, strict=True):
        assert len(got) == len(want) == len(metrics)
        for a, b in zip(got, want, strict=True):
            assert a.equals(b)
    assert _summarize([], Chunk(table), mapping, {}, parts=parts) == [[]] * (len(parts) + 1)


@settings(max_examples=25, deadline=None)
@given(_tables(), st.integers(3, 90))
def test_values_by_group_equal_each_group_evaluated_alone(
    drawn: tuple[pa.Table, list[np.ndarray]], chunk: int
) -> None:
    table, _ = drawn
    names = ["e2e_latency", "e2e_latency:p90", "ttft:mean", "output_throughput", "itl:p50"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grouped = scorekit.evaluate(table, names, by="model", chunk_size=chunk).values
        for model in pc.unique(table.column("model")).to_pylist():
            alone = table.filter(pc.equal(table.column("model"), model))
            values = scorekit.evaluate(alone, names, chunk_size=chunk).values
            for name in names:
                want, got = values[name], grouped[name].by_group[model]
                assert got == want or (np.isnan(got) and np.isnan(want)), (name, model)


def test_an_error_names_the_row_of_the_chunk(tmp_path: Any) -> None:
    rows = [
        {"prompt_tokens": 1, "output_tokens": 1, "start": 0.0, "end": 1.0, "model": m}
        for m in ["a", "b", "a", "b"]
    ]
    rows[3]["end"] = -1.0
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(scorekit.errors.InputError, match=r"r.jsonl, line 4, column 'end'"):
        scorekit.evaluate(str(path), ["e2e_latency"], by="model")
