"""Binary state files: round trips of every metric's states, the kept dtypes, hostile files
refused with the path, and the merge that reads one file at a time."""

from __future__ import annotations

import dataclasses
import functools
import gc
import json
import struct
import warnings
import weakref
import zlib
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit.statefiles._merge as merge_module
from scorekit import parse_metric
from scorekit.cli import main
from scorekit.core import Metric, State, available, iter_variants, narrowed
from scorekit.errors import (
    ConfigError,
    InputError,
    ScorekitError,
    StateMismatchError,
    UndefinedMetricWarning,
)
from scorekit.statefiles import (
    AUTO_BINARY_BYTES,
    DEFAULT_BINARY_MEMORY,
    STATE_FORMAT_VARIABLE,
    binary_memory_limit,
    load_states,
    merge_states,
    save_states,
)
from scorekit.statefiles._format import BINARY_MAGIC
from strategies import batches, take

TRAILER = struct.Struct("<QI")
ROOT = Path(__file__).resolve().parent.parent


def _configs() -> Iterator[Any]:
    """Every registered metric in every configuration reachable by name (as the
    property tests enumerate them); a configuration that cannot be built fails its case."""
    for info in available():
        try:
            variants = list(iter_variants(info))
        except ScorekitError as exc:
            yield pytest.param(exc, id=f"{info.name}-broken")
            continue
        for i, metric in enumerate(variants):
            yield pytest.param(metric, id=f"{info.name}-{i}")


def _summarize(metric: Metric[Any], args: tuple[Any, ...], weights: Any) -> State:
    if weights is not None and "sample_weight" in metric.summarize.__code__.co_varnames:
        return metric.summarize(*args, sample_weight=weights)
    return metric.summarize(*args)


def _outcome(metric: Metric[Any], state: State) -> tuple[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        warnings.simplefilter("ignore", UserWarning)
        try:
            return "value", metric.compute(state)
        except ScorekitError as exc:
            return "error", type(exc).__name__


def _same(a: Any, b: Any) -> bool:
    """Equal outcomes, values compared exactly (NaN equal to NaN)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, tuple | list) and not isinstance(a, str):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray | float | np.floating):
        x, y = np.asarray(a), np.asarray(b)
        return x.shape == y.shape and bool(np.array_equal(x, y, equal_nan=x.dtype.kind == "f"))
    return bool(a == b)


@pytest.mark.parametrize("metric", list(_configs()))
def test_every_metric_merges_to_the_same_values_through_binary_and_json(
    metric: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    if isinstance(metric, Exception):
        raise metric
    folder = tmp_path_factory.mktemp("shards")

    @settings(max_examples=2, deadline=None)
    @given(batches(metric.inputs, max_rows=40))
    def check(data: dict[str, Any]) -> None:
        args, weights = data["args"], data["weights"]
        i, j = data["cuts"]
        parts = [
            _summarize(metric, take(args, lo, hi), None if weights is None else weights[lo:hi])
            for lo, hi in ((0, i), (i, j), (j, data["n"]))
        ]
        merged = functools.reduce(metric.merge, parts)
        found = {}
        for fmt in ("binary", "json"):
            paths = [
                save_states(folder / f"{fmt}{n}.st", {"m": (metric, s)}, state_format=fmt)
                for n, s in enumerate(parts)
            ]
            assert paths[0].read_bytes().startswith(BINARY_MAGIC) == (fmt == "binary")
            loaded = load_states(paths[0]).states["m"]
            assert loaded.equals(parts[0])
            _, states, _ = merge_states(paths, allow_duplicates=True)
            assert states["m"].equals(merged), fmt
            found[fmt] = _outcome(metric, states["m"])
        assert found["binary"][0] == found["json"][0]
        assert _same(found["binary"][1], found["json"][1])
        assert _same(found["binary"][1], _outcome(metric, merged)[1])

    check()


# the arrays of a binary file ----------------------------------------------------------------


def _histogram(n: int, seed: int = 0, dtype: Any = np.float32) -> tuple[Metric[Any], State]:
    rng = np.random.default_rng(seed)
    metric = parse_metric("roc_auc")
    return metric, metric.summarize(rng.integers(0, 2, n), rng.random(n, dtype=dtype))


def _parts(path: Path) -> tuple[dict[str, Any], list[bytes]]:
    """The header (a dict) and the blocks (bytes) of a binary state file."""
    data = path.read_bytes()
    end = len(data) - len(BINARY_MAGIC) - TRAILER.size
    length, _ = TRAILER.unpack(data[end : end + TRAILER.size])
    head = json.loads(data[end - length : end])
    return head, [data[o : o + n] for o, n, _ in head["blocks"]]


def _build(path: Path, head: dict[str, Any], blocks: list[bytes]) -> Path:
    """A binary state file of ``head`` and ``blocks``, with right offsets and checksums."""
    out = bytearray(BINARY_MAGIC)
    table = []
    for block in blocks:
        out += b"\0" * (-len(out) % 64)
        table.append([len(out), len(block), zlib.crc32(block)])
        out += block
    text = json.dumps({**head, "blocks": table}).encode()
    out += text + TRAILER.pack(len(text), zlib.crc32(text)) + BINARY_MAGIC
    path.write_bytes(bytes(out))
    return path


def _npy(array: np.ndarray, allow_pickle: bool = False) -> bytes:
    buffer = BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


def _refs(head: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The block references of the first metric's state, by field."""
    fields = head["metrics"][0]["state"]["fields"]
    return {k: v for k, v in fields.items() if isinstance(v, dict) and "__block__" in v}


@pytest.mark.parametrize("held", ["<f4", "<f8"])
def test_float32_scores_are_stored_as_float32_and_read_back_exactly(
    tmp_path: Path, held: str
) -> None:
    # float32 scores are held as float32; float32 values held as float64 are stored
    # as float32 too and read back as float64
    metric, state = _histogram(50_000)
    assert state.score.dtype == np.float32
    if held == "<f8":
        state = dataclasses.replace(state, score=state.score.astype(np.float64))
    path = save_states(tmp_path / "s.st", {"roc_auc": (metric, state)}, state_format="binary")
    head, blocks = _parts(path)
    refs = _refs(head)
    stored = {
        name: np.lib.format.read_array(BytesIO(blocks[ref["__block__"]])).dtype
        for name, ref in refs.items()
    }
    assert stored["score"] == np.float32 and refs["score"]["dtype"] == held
    assert stored["key"] == np.int8 and stored["counts"] == np.uint8
    pairs = state.key.size
    assert path.stat().st_size <= 13 * pairs + 4096
    loaded = load_states(path).states["roc_auc"]
    assert loaded.equals(state) and loaded.score.dtype == np.dtype(held)
    assert metric.compute(loaded) == metric.compute(state)


def test_an_array_held_as_float32_stays_float32(tmp_path: Path) -> None:
    metric, state = _histogram(1000)
    held = dataclasses.replace(state, score=state.score.astype(np.float32))
    path = save_states(tmp_path / "s.st", {"roc_auc": (metric, held)}, state_format="binary")
    loaded = load_states(path).states["roc_auc"]
    assert loaded.score.dtype == np.float32 and loaded.equals(held)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["<f8", ">f8", "<f4", "<i8", ">i4", "<u8", "<i2", "|b1"]),
    st.integers(0, 2**32 - 1),
    st.integers(0, 3),
)
def test_narrowing_keeps_every_value_exactly(dtype: str, seed: int, style: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 50))
    kind = np.dtype(dtype).kind
    if kind == "f":
        pools = [
            rng.random(n).astype(np.float32).astype(np.float64),
            rng.random(n),
            np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, 1e-320][: n or 1]),
            rng.normal(size=n) * 1e30,
        ]
    elif kind == "b":
        pools = [rng.integers(0, 2, n).astype(bool)] * 4
    else:
        info = np.iinfo(np.dtype(dtype))
        pools = [
            rng.integers(0, 2, n),
            rng.integers(-300, 300, n),
            rng.integers(0, 70_000, n),
            rng.integers(max(info.min, -(2**62)), min(info.max, 2**62), n),
        ]
    with np.errstate(over="ignore"):
        array = np.asarray(pools[style]).astype(dtype)
    if kind in "iu" and style == 1 and kind == "u":
        array = np.abs(array)
    small = narrowed(array)
    assert small.dtype.itemsize <= array.dtype.itemsize and small.dtype.isnative
    back = small.astype(array.dtype)
    assert back.dtype == array.dtype
    assert back.tobytes() == np.ascontiguousarray(array).tobytes()


def test_auto_is_binary_for_large_arrays_and_json_otherwise(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv(STATE_FORMAT_VARIABLE, raising=False)
    metric, large = _histogram(AUTO_BINARY_BYTES // 8)
    small = metric.summarize([0, 1, 1], [0.1, 0.5, 0.9])
    assert save_states(tmp_path / "a.st", {"m": (metric, large)}).read_bytes()[:17] == BINARY_MAGIC
    assert save_states(tmp_path / "b.st", {"m": (metric, small)}).read_bytes()[:1] == b"{"
    gz = save_states(tmp_path / "c.json.gz", {"m": (metric, large)})
    assert gz.read_bytes()[:2] == b"\x1f\x8b"
    assert load_states(gz).states["m"].equals(large)
    monkeypatch.setenv(STATE_FORMAT_VARIABLE, "json")
    assert save_states(tmp_path / "d.st", {"m": (metric, large)}).read_bytes()[:1] == b"{"
    monkeypatch.setenv(STATE_FORMAT_VARIABLE, "binary")
    assert save_states(tmp_path / "e.st", {"m": (metric, small)}).read_bytes()[:1] == b"\x93"
    assert load_states(tmp_path / "e.st").states["m"].equals(small)


def test_a_wrong_format_choice_is_a_config_error(tmp_path: Path, monkeypatch) -> None:
    metric, state = _histogram(10)
    with pytest.raises(ConfigError, match="not gzip-compressed"):
        save_states(tmp_path / "a.st.gz", {"m": (metric, state)}, state_format="binary")
    with pytest.raises(ConfigError, match=r"unknown state file format.*'npz'"):
        save_states(tmp_path / "a.st", {"m": (metric, state)}, state_format="npz")
    monkeypatch.setenv(STATE_FORMAT_VARIABLE, "pickle")
    with pytest.raises(ConfigError, match="SCOREKIT_STATE_FORMAT: unknown state file format"):
        save_states(tmp_path / "a.st", {"m": (metric, state)})


def test_state_format_flag_chooses_the_saved_format(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.delenv(STATE_FORMAT_VARIABLE, raising=False)
    base = [
        "eval",
        str(ROOT / "examples" / "data" / "binary.csv"),
        "--task",
        "binary",
        "--true",
        "label",
    ]
    base += ["--score", "score", "--metric", "roc_auc"]
    for fmt, first in (("binary", b"\x93"), ("json", b"{")):
        path = tmp_path / f"{fmt}.st"
        assert main([*base, "--save-state", str(path), "--state-format", fmt]) == 0
        assert path.read_bytes()[:1] == first
    assert STATE_FORMAT_VARIABLE not in __import__("os").environ
    out = tmp_path / "merged.st"
    argv = ["merge", str(tmp_path / "binary.st"), str(tmp_path / "json.st")]
    argv += ["--allow-duplicates", "--save-state", str(out), "--state-format", "binary"]
    assert main(argv) == 0
    assert out.read_bytes()[:1] == b"\x93"
    assert "800 rows" in capsys.readouterr().err


def test_the_memory_limit_of_a_binary_file(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("SCOREKIT_MAX_FILE_SIZE", raising=False)
    assert binary_memory_limit() == DEFAULT_BINARY_MEMORY > 1 << 30
    metric, state = _histogram(20_000)
    path = save_states(tmp_path / "s.st", {"m": (metric, state)}, state_format="binary")
    monkeypatch.setenv("SCOREKIT_MAX_FILE_SIZE", "200K")
    assert path.stat().st_size < 200 << 10  # the file fits, its arrays once read do not
    with pytest.raises(InputError) as info:
        load_states(path)
    assert str(path) in str(info.value) and "once read" in str(info.value)


# hostile files --------------------------------------------------------------------------


@pytest.fixture
def good(tmp_path: Path) -> Path:
    metric, state = _histogram(300, seed=3)
    return save_states(tmp_path / "good.st", {"roc_auc": (metric, state)}, state_format="binary")


def _refused(path: Path, match: str, kind: type[Exception] = InputError) -> None:
    with pytest.raises(kind) as info:
        load_states(path)
    text = str(info.value)
    assert str(path) in text, text
    assert match in text, text


def test_every_truncation_is_refused_with_the_path(good: Path, tmp_path: Path) -> None:
    data = good.read_bytes()
    cut = tmp_path / "cut.st"
    for size in sorted({*range(0, len(data), max(1, len(data) // 97)), len(data) - 1}):
        cut.write_bytes(data[:size])
        with pytest.raises(InputError) as info:
            load_states(cut)
        assert str(cut) in str(info.value)


def test_every_corrupted_byte_is_refused_or_harmless(good: Path, tmp_path: Path) -> None:
    data = good.read_bytes()
    bad = tmp_path / "bad.st"
    original = load_states(good).states["roc_auc"]
    rng = np.random.default_rng(5)
    for at in rng.choice(len(data), size=150, replace=False):
        flipped = bytearray(data)
        flipped[at] ^= 1 << int(rng.integers(0, 8))
        bad.write_bytes(bytes(flipped))
        try:
            state = load_states(bad).states["roc_auc"]
        except ScorekitError as exc:
            assert str(bad) in str(exc), (at, str(exc))
        else:
            assert state.equals(original), at  # padding between blocks


def test_wrong_versions_are_refused(good: Path, tmp_path: Path) -> None:
    head, blocks = _parts(good)
    _refused(
        _build(tmp_path / "v.st", {**head, "scorekit_states": 2}, blocks),
        "another format version",
        StateMismatchError,
    )
    _refused(
        _build(tmp_path / "f.st", {**head, "state_format": 9}, blocks),
        "another state format",
        StateMismatchError,
    )


def test_hostile_shapes_dtypes_and_values_are_refused(good: Path, tmp_path: Path) -> None:
    head, blocks = _parts(good)
    refs = _refs(head)
    score, counts = refs["score"]["__block__"], refs["counts"]["__block__"]
    n = json.loads(json.dumps(refs["score"]["shape"]))[0]

    def variant(name: str, field: str, ref: dict[str, Any] | None, block: bytes | None) -> Path:
        h = json.loads(json.dumps(head))
        b = list(blocks)
        if ref is not None:
            h["metrics"][0]["state"]["fields"][field] = ref
        if block is not None:
            b[h["metrics"][0]["state"]["fields"][field]["__block__"]] = block
        return _build(tmp_path / name, h, b)

    _refused(
        variant("huge.st", "score", {"__block__": score, "dtype": "<f8", "shape": [2**40]}, None),
        "state file too large",
    )
    huge = {"__block__": score, "dtype": "<f8", "shape": [2**29]}
    _refused(variant("huge1.st", "score", huge, None), "another shape than its reference")
    _refused(
        variant("huge2.st", "score", huge, _npy(np.zeros(4, np.float32))[:80]),
        "is not an npy record",
    )
    header_only = _npy(np.zeros(0, np.float32)).replace(b"(0,)", b"(536870912,)")
    _refused(
        variant("huge3.st", "score", {**huge, "dtype": "<f4"}, header_only),
        "does not hold its array",
    )
    _refused(
        variant(
            "many.st", "score", {"__block__": score, "dtype": "<f8", "shape": [2**26] * 3}, None
        ),
        "state file too large",
    )
    nan = np.full(n, np.nan, np.float32)
    _refused(variant("nan.st", "score", None, _npy(nan)), "not a finite number")
    negative = np.full((n, 1), -1, np.int8)
    _refused(
        variant("neg.st", "counts", {**refs["counts"], "dtype": "<i8"}, _npy(negative)),
        "negative value",
    )
    _refused(
        variant("obj.st", "counts", None, _npy(np.array([{"a": 1}] * n, dtype=object), True)),
        "objects are never read",
    )
    pickled = BytesIO()
    np.save(pickled, np.array([[1]] * n, dtype=object), allow_pickle=True)
    _refused(variant("pickle.st", "counts", None, pickled.getvalue()), "no pickle")
    _refused(
        variant("narrow.st", "score", {**refs["score"], "dtype": "<f4"}, _npy(np.zeros(n))),
        "does not widen exactly",
    )
    _refused(
        variant("kind.st", "counts", None, _npy(np.ones((n, 1), np.float32))),
        "does not widen exactly",
    )
    _refused(
        variant("dtype.st", "score", {**refs["score"], "dtype": "<M8[ns]"}, None),
        "dtype not allowed",
    )
    _refused(variant("ref.st", "score", {**refs["score"], "__block__": 99}, None), "no block")
    _refused(variant("keys.st", "score", {**refs["score"], "x": 1}, None), "malformed __block__")
    unsorted = np.sort(np.frombuffer(blocks[score][-4 * n :], np.float32))[::-1].copy()
    _refused(variant("order.st", "score", None, _npy(unsorted)), "rows not sorted")
    _refused(variant("counts.st", "counts", None, _npy(np.full((n, 1), 2, np.uint8))), "n_samples")
    del counts


def test_a_header_that_is_not_json_or_lies_about_its_blocks(good: Path, tmp_path: Path) -> None:
    data = good.read_bytes()
    head, blocks = _parts(good)
    text = b"not json"
    wrong = tmp_path / "text.st"
    tail = TRAILER.pack(len(text), zlib.crc32(text)) + BINARY_MAGIC
    wrong.write_bytes(
        data[: -len(BINARY_MAGIC) - TRAILER.size - len(json.dumps(head))] + text + tail
    )
    with pytest.raises(InputError) as info:
        load_states(wrong)
    assert str(wrong) in str(info.value)
    table = [[10**12, 5, 0]]
    body = json.dumps({**head, "blocks": table}).encode()
    lying = tmp_path / "lying.st"
    lying.write_bytes(
        BINARY_MAGIC + body + TRAILER.pack(len(body), zlib.crc32(body)) + BINARY_MAGIC
    )
    _refused(lying, "lies outside the data")
    del blocks


# merging one file at a time -------------------------------------------------------------

SPECS = ["roc_auc", "accuracy", "mse", "f1:macro"]


def _shard_files(folder: Path, count: int, fmt: str) -> tuple[list[Path], list[dict[str, State]]]:
    rng = np.random.default_rng(11)
    paths, states = [], []
    for i in range(count):
        n = int(rng.integers(0, 400))
        y = rng.integers(0, 3, n)
        s = rng.random(n, dtype=np.float32)
        data = {
            "roc_auc": (y == 1, s),
            "accuracy": (y, np.where(s > 0.5, y, 0)),
            "mse": (s.astype(np.float64), s * 0.5),
            "f1:macro": (y, rng.integers(0, 3, n)),
        }
        entry = {k: (parse_metric(k), parse_metric(k).summarize(*data[k])) for k in SPECS}
        states.append({k: v[1] for k, v in entry.items()})
        paths.append(save_states(folder / f"s{i}.st", entry, rows=n, state_format=fmt))
    return paths, states


@pytest.mark.parametrize("fmt", ["binary", "json"])
def test_merging_many_files_equals_merging_their_states_at_once(tmp_path: Path, fmt: str) -> None:
    paths, states = _shard_files(tmp_path, 12, fmt)
    metrics, merged, header = merge_states(paths)
    assert header["rows"] == sum(load_states(p).meta["rows"] for p in paths)
    for key in SPECS:
        metric = parse_metric(key)
        whole = functools.reduce(metric.merge, [s[key] for s in states])
        assert merged[key].equals(whole), key
        if key == "roc_auc":
            assert merged[key].equals(type(whole).merge_all([s[key] for s in states]))
        assert metrics[key].compute(merged[key]) == metric.compute(whole)


@pytest.mark.usefixtures("quick_gc")
def test_the_merge_holds_one_file_at_a_time(tmp_path: Path, monkeypatch) -> None:
    paths, _ = _shard_files(tmp_path, 6, "binary")
    read = merge_module.read_states
    loaded: list[tuple[str, weakref.ref[State]]] = []
    alive_at_read: list[dict[str, int]] = []

    def counting(path: Any, lazy: bool = False) -> Any:
        gc.collect()
        alive: dict[str, int] = {}
        for key, ref in loaded:
            alive[key] = alive.get(key, 0) + (ref() is not None)
        alive_at_read.append(alive)
        file, prints = read(path, lazy)
        loaded.extend((k, weakref.ref(s)) for k, s in file.states.items())
        return file, prints

    monkeypatch.setattr(merge_module, "read_states", counting)
    _, states, _ = merge_states(paths)
    assert len(alive_at_read) == 6
    # when a file is read, at most the first file's states (the running ones) are alive;
    # the exact ROC AUC histograms wait for their merge as copies in their files' types
    for alive in alive_at_read:
        assert sum(alive.values()) <= len(SPECS), alive_at_read
    assert all(sum(a.values()) == 0 for a in alive_at_read[2:]), alive_at_read
    del states


def test_a_json_file_and_a_binary_file_merge_together(tmp_path: Path) -> None:
    paths, states = _shard_files(tmp_path, 2, "binary")
    json_file = save_states(
        tmp_path / "s1.json",
        {k: (parse_metric(k), states[1][k]) for k in SPECS},
        rows=7,
        state_format="json",
    )
    _, merged, header = merge_states([paths[0], json_file])
    assert header["rows"] == load_states(paths[0]).meta["rows"] + 7
    for key in SPECS:
        assert merged[key].equals(parse_metric(key).merge(states[0][key], states[1][key]))


def test_identical_binary_files_are_refused_as_copies(tmp_path: Path) -> None:
    (a,), _ = _shard_files(tmp_path, 1, "binary")
    copy = tmp_path / "copy.st"
    copy.write_bytes(a.read_bytes())
    with pytest.raises(StateMismatchError, match="identical content"):
        merge_states([a, copy])


def test_json_files_written_before_binary_files_existed_still_merge() -> None:
    old = sorted((ROOT / "examples" / "states").glob("binary-*.json"))
    assert len(old) == 3 and all(p.read_bytes()[:1] == b"{" for p in old)
    metrics, states, header = merge_states(old)
    assert header["rows"] == 400
    assert round(float(metrics["roc_auc"].compute(states["roc_auc"])), 4) == 0.8373


def test_a_failed_binary_write_leaves_no_file(tmp_path: Path, monkeypatch) -> None:
    import scorekit.statefiles._write as write_module

    metric, state = _histogram(1000)

    def failing(state: State, put: Any) -> Any:
        put(state.score)
        raise RuntimeError("interrupted")

    monkeypatch.setattr(write_module, "encode_state", failing)
    with pytest.raises(RuntimeError):
        save_states(tmp_path / "s.st", {"m": (metric, state)}, state_format="binary")
    assert list(tmp_path.iterdir()) == []
