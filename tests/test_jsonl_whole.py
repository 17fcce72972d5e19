"""JSON Lines files read whole in one call against the same files read block by block.

A small uncompressed file is read into memory, checked for depth and parsed by
``pyarrow.json.read_json`` at once; every other file streams through pyarrow's
streaming reader with a :class:`~scorekit.io._scan.DepthGuard`. Both paths must give
the same column types, the same values and the same errors.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit
from scorekit.errors import InputError
from scorekit.io import _blocks, _jsonl
from scorekit.io._blocks import Widen, read_small
from scorekit.io._jsonl import _first_types, first_block, jsonl_batches


@contextmanager
def _reading(whole: bool, block: int = 1 << 20) -> Iterator[None]:
    """Files read whole (``whole``) or block by block, with blocks of at least ``block`` bytes."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_blocks, "_MIN_BLOCK", block)
        patch.setattr(_blocks, "_SMALL", 1 << 40 if whole else 0)
        yield


def _read(path: Path, wanted: list[str], chunk_size: int = 64) -> tuple[Any, dict[str, Any]]:
    """The table of ``wanted`` and the types read, widened as the engine widens them."""
    types: dict[str, Any] = {}
    for _ in range(len(wanted) + 2):
        try:
            parts = [batch for batch, _ in jsonl_batches(path, wanted, chunk_size, types)]
        except Widen:
            continue
        tables = [p if isinstance(p, pa.Table) else pa.Table.from_batches([p]) for p in parts]
        return pa.concat_tables(tables).combine_chunks(), types
    raise AssertionError("the types did not settle")


def _outcome(path: Path, wanted: list[str], whole: bool, block: int) -> tuple[str, Any]:
    # each way of reading finds the first block's types itself
    _jsonl._FIRST.clear()
    with _reading(whole, block):
        try:
            table, types = _read(path, wanted)
        except InputError as exc:
            return "error", str(exc)
    return "table", (table, types)


def _same(path: Path, wanted: list[str], block: int) -> None:
    kind, whole = _outcome(path, wanted, True, block)
    kind2, streamed = _outcome(path, wanted, False, block)
    assert kind == kind2, (whole, streamed)
    if kind == "error":
        assert whole == streamed
        return
    (table, types), (table2, types2) = whole, streamed
    assert types == types2
    assert table.schema == table2.schema
    assert table.equals(table2)


_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet='ab"[]{}\\ é\t', max_size=6),
    st.lists(st.integers(-5, 5), max_size=3),
)
_record = st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), _values, max_size=4)


@st.composite
def _files(draw: st.DrawFn) -> tuple[str, int]:
    """The text of a JSON Lines file (one column of one kind, or anything) and a block size."""
    mixed = draw(st.booleans())
    if mixed:
        records = draw(st.lists(_record, min_size=1, max_size=40))
    else:
        kind = draw(st.sampled_from([st.integers(-50, 50), st.floats(-1e6, 1e6), _values]))
        values = draw(st.lists(kind, min_size=1, max_size=40))
        records = [{"a": v, "b": i} for i, v in enumerate(values)]
    end = draw(st.sampled_from(["\n", "\r\n"]))
    blank = draw(st.integers(0, len(records)))
    lines = [json.dumps(r, ensure_ascii=draw(st.booleans())) for r in records]
    lines.insert(blank, draw(st.sampled_from(["", "  "])))
    text = end.join(lines) + draw(st.sampled_from(["", end]))
    return text, draw(st.integers(16, 400))


@settings(max_examples=150, deadline=None)
@given(_files())
def test_whole_read_equals_the_streamed_read(tmp_path_factory: Any, drawn: tuple[str, int]) -> None:
    text, block = drawn
    path = tmp_path_factory.mktemp("j") / "f.jsonl"
    path.write_text(text, encoding="utf-8")
    if not text.strip():
        return
    with _reading(False, block):
        try:
            present = list(first_block(path, block))
        except InputError:
            present = ["a", "b"]
    for wanted in ([c for c in present if c in "abcd"], ["a"], ["b", "a"]):
        _same(path, wanted, block)


@settings(max_examples=150, deadline=None)
@given(_files())
def test_first_block_types_equal_the_streaming_readers(
    tmp_path_factory: Any, drawn: tuple[str, int]
) -> None:
    text, block = drawn
    if not text.strip():
        return
    path = tmp_path_factory.mktemp("j") / "f.jsonl"
    path.write_text(text, encoding="utf-8")
    data = pa.py_buffer(path.read_bytes())
    try:
        streamed: Any = first_block(path, block)
    except InputError as exc:
        streamed = str(exc)
    try:
        whole: Any = _first_types(path, data, block)
    except InputError as exc:
        whole = str(exc)
    assert whole == streamed


def test_small_files_only_are_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"a": 1}\n' * 10)
    data = read_small(path)
    assert data is not None
    assert data.to_pybytes() == path.read_bytes()
    with _reading(False):
        assert read_small(path) is None
    compressed = tmp_path / "r.jsonl.gz"
    compressed.write_bytes(b"")
    assert read_small(compressed) is None
    with _reading(True, 1):
        patch = pytest.MonkeyPatch()
        patch.setattr(_blocks, "_SMALL", 89)
        try:
            assert read_small(path) is None
            patch.setattr(_blocks, "_SMALL", 90)
            assert read_small(path) is not None
        finally:
            patch.undo()


def test_a_fifo_is_not_read_whole(tmp_path: Path) -> None:
    fifo = tmp_path / "f.jsonl"
    os.mkfifo(fifo)
    assert read_small(fifo) is None


def test_the_first_block_is_found_again_for_a_changed_file(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"a": 1}\n')
    assert first_block(path, 1024) == {"a": pa.int64()}
    assert first_block(path, 1024) == {"a": pa.int64()}
    path.write_text('{"a": 1.5}\n')
    assert first_block(path, 1024) == {"a": pa.float64()}
    # the same size, a later time of change
    path.write_text('{"a": "x"}\n')
    assert first_block(path, 1024) == {"a": pa.string()}
    other = tmp_path / "u.jsonl"
    other.write_text('{"b": true}\n')
    for i in range(3 * _jsonl._KEPT):
        assert first_block(other, 1024 + i) == {"b": pa.bool_()}
        assert first_block(path, 1024 + i) == {"a": pa.string()}
    assert len(_jsonl._FIRST) == _jsonl._KEPT


def test_the_first_blocks_of_files_read_in_threads(tmp_path: Path) -> None:
    kinds = {"i": ("1", pa.int64()), "f": ("1.5", pa.float64()), "s": ('"x"', pa.string())}
    files = {}
    for name, (value, kind) in kinds.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text(f'{{"{name}": {value}}}\n' * 50)
        files[path] = {name: kind}

    def read(i: int) -> bool:
        path = list(files)[i % len(files)]
        return first_block(path, 1024 + i % 13) == files[path]

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(read, range(400)))


# errors ---------------------------------------------------------------------------------


def _lines(tmp_path: Path, lines: list[str], end: str = "\n") -> Path:
    path = tmp_path / "e.jsonl"
    path.write_text(end.join(lines) + end, encoding="utf-8")
    return path


def _errors(path: Path, wanted: list[str], block: int = 1 << 20) -> str:
    kind, whole = _outcome(path, wanted, True, block)
    kind2, streamed = _outcome(path, wanted, False, block)
    assert kind == kind2 == "error"
    assert whole == streamed
    assert str(path) in whole
    return str(whole)


_GOOD = '{"y": 1, "p": 0.5}'


def test_a_deep_line_is_refused_before_parsing(tmp_path: Path) -> None:
    deep = "[" * 30_000 + "]" * 30_000
    for end in ("\n", "\r\n"):
        path = _lines(tmp_path, [_GOOD] * 50 + [f'{{"y": 0, "p": 1, "x": {deep}}}'], end)
        message = _errors(path, ["y", "p"])
        assert "line 51, column 522" in message
        assert "JSON nested too deeply" in message
    # the last line, without its line end
    path = tmp_path / "last.jsonl"
    path.write_text(_GOOD + "\n" + '{"y": 0, "x": ' + deep + "}")
    deep_last = r"last.jsonl, line 2, column 514: JSON nested"
    with _reading(True), pytest.raises(InputError, match=deep_last):
        _read(path, ["y"])


def test_a_deep_line_far_below_the_first_block(tmp_path: Path) -> None:
    deep = "[" * 600 + "]" * 600
    path = _lines(tmp_path, [_GOOD] * 3000 + [f'{{"y": 0, "p": 1, "x": {deep}}}'])
    assert "line 3001, column 522: JSON nested too deeply" in _errors(path, ["y"], block=256)


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        ('{"y": 1, "p": }', "line 40: invalid JSON"),
        ("[1, 2]", "line 40: line is not a JSON object"),
        ('{"y": "two", "p": 1}', "line 40, column 'y': value is a string where earlier"),
    ],
)
@pytest.mark.parametrize("block", [256, 1 << 20])
def test_errors_name_the_same_line(tmp_path: Path, bad: str, says: str, block: int) -> None:
    path = _lines(tmp_path, [_GOOD] * 39 + [bad] + [_GOOD] * 3000)
    assert says in _errors(path, ["y", "p"], block)


def test_a_long_number(tmp_path: Path) -> None:
    path = _lines(tmp_path, [_GOOD] * 39 + ['{"y": 1, "p": ' + "9" * 5000 + "}"] + [_GOOD] * 9)
    _same(path, ["y", "p"], 1 << 20)
    with _reading(True), pytest.raises(InputError, match=r"e.jsonl, line 40, column 'p'"):
        scorekit.evaluate(str(path), ["mse"], columns={"y_true": "y", "y_pred": "p"})


def test_an_empty_file(tmp_path: Path) -> None:
    path = _lines(tmp_path, ["", "  ", ""])
    assert _errors(path, ["y"]) == f"{path}: file is empty; expected one JSON object per line."


def test_a_missing_column(tmp_path: Path) -> None:
    path = _lines(tmp_path, [_GOOD] * 3)
    assert "no such column" in _errors(path, ["y", "q"])


@pytest.mark.parametrize("block", [256, 1 << 20])
def test_widened_types_and_long_lines(tmp_path: Path, block: int) -> None:
    lines = [json.dumps({"y": i % 3, "p": i % 2, "note": "x"}) for i in range(3000)]
    lines[2000] = json.dumps({"y": 1.5, "p": 1, "note": "y" * 300_000})
    lines.append(json.dumps({"y": None, "p": 0, "note": None}))
    path = _lines(tmp_path, lines)
    _same(path, ["y", "p", "note"], block)
    with _reading(True, block):
        table, types = _read(path, ["y", "p"])
    assert types == {"y": pa.float64(), "p": pa.int64()}
    assert table.column("y").to_pylist() == [
        None if i == 3000 else 1.5 if i == 2000 else float(i % 3) for i in range(3001)
    ]


# the request records of ``scorekit throughput --by`` -----------------------------------------


def _records(path: Path, n: int, seed: int) -> Path:
    rng = np.random.default_rng(seed)
    start = np.sort(rng.random(n) * n / 10)
    end = start + rng.gamma(2.0, 0.5, n)
    models = rng.choice([f"m{i}" for i in range(7)], n)
    with path.open("w") as handle:
        for s, e, m in zip(start.tolist(), end.tolist(), models.tolist(), strict=True):
            row = {"prompt_tokens": 100, "output_tokens": 20, "start": s, "end": e, "model": m}
            handle.write(json.dumps(row) + "\n")
    return path


@settings(max_examples=12, deadline=None)
@given(n=st.integers(1, 3000), seed=st.integers(0, 2**32 - 1), chunk=st.integers(50, 70_000))
def test_latency_by_model_equals_pandas(
    tmp_path_factory: Any, n: int, seed: int, chunk: int
) -> None:
    path = _records(tmp_path_factory.mktemp("r") / "records.jsonl", n, seed)
    names = ["e2e_latency", "e2e_latency:p90", "e2e_latency:max", "output_throughput"]
    results = []
    for whole in (True, False):
        with _reading(whole, 1 << 12):
            found = scorekit.evaluate(str(path), names, by="model", chunk_size=chunk)
            results.append({k: v.by_group for k, v in found.values.items()})
    # bit-identical whichever way the file is read
    assert results[0] == results[1]
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    by: dict[str, list[float]] = {}
    for row in rows:
        by.setdefault(row["model"], []).append(row["end"] - row["start"])
    frame = pd.read_json(path, lines=True)
    means = (frame["end"] - frame["start"]).groupby(frame["model"]).mean()
    assert set(results[0]["e2e_latency"]) == set(by)
    for model, values in by.items():
        kept = np.sort(np.array(values))
        assert results[0]["e2e_latency:p90"][model] == np.percentile(kept, 90)
        assert results[0]["e2e_latency:max"][model] == kept.max()
        assert results[0]["e2e_latency"][model] == np.mean(kept)
        assert results[0]["e2e_latency"][model] == pytest.approx(means[model], rel=1e-12)
