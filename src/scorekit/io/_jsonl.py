"""Reading JSON Lines files in batches with pyarrow's streaming JSON reader.

The column types come from the first block and are then given to the reader as
an explicit schema (other fields are ignored, even ones that appear later).
When a later value does not fit (a ``1.5`` below integers), the file is scanned
once in Python for the types of the whole file and the engine reads the input
again with them (:class:`~scorekit.io._blocks.Widen`); values that no type
holds (a string below numbers) are errors naming the line, as
:func:`scorekit.io._tables.read_table` reports them. pyarrow before version 19 has no
streaming JSON reader: there each file is read whole.

An uncompressed file of at most 64 MiB (:func:`~scorekit.io._blocks.read_small`)
is read into memory, checked whole by a :class:`~scorekit.io._scan.DepthGuard`
called directly, and parsed by :func:`pyarrow.json.read_json` in one
multithreaded call, with the types of the first block as above (taken by the
same streaming reader on the checked bytes). No Python transform is handed to
pyarrow on that path.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from scorekit.io import _tables as _io
from scorekit.io._blocks import (
    Widen,
    block_size,
    empty,
    head,
    open_file,
    open_text,
    read_batches,
    read_small,
    straddles,
)
from scorekit.io._scan import DepthGuard

__all__ = ["first_block", "jsonl_batches"]


_KEPT = 8
_FIRST: dict[tuple[Any, ...], dict[str, Any]] = {}
"""The first-block types of the files read last, by file (its identity, size and times of
change, as Python's import system tells a changed source file) and block size: a file's
columns and then its batches take them once."""
_LOCK = threading.Lock()


def _file_key(path: Path, block: int) -> tuple[Any, ...] | None:
    try:
        status = Path(path).stat()
    except OSError:
        return None
    return (
        str(path),
        block,
        status.st_dev,
        status.st_ino,
        status.st_size,
        status.st_mtime_ns,
        status.st_ctime_ns,
    )


def _remembered(
    path: Path,
    block: int,
    find: Callable[[Path, int], dict[str, Any]],
    key: tuple[Any, ...] | None = None,
) -> dict[str, Any]:
    """``find(path, block)``, the first-block types, found once for an unchanged file.

    ``key`` is the file's key taken before its bytes were read, when they were
    read before this call; the types are kept only if the file still has that
    key once they are found, so types found in bytes of another version of the
    file are never kept under this one's key.
    """
    key = _file_key(path, block) if key is None else key
    with _LOCK:
        known = None if key is None else _FIRST.get(key)
    if known is not None:
        return dict(known)
    types = find(path, block)
    if key is not None and _file_key(path, block) == key:
        with _LOCK:
            while len(_FIRST) >= _KEPT:
                del _FIRST[next(iter(_FIRST))]
            _FIRST[key] = dict(types)
    return types


def first_block(path: Path, block: int) -> dict[str, Any]:
    """The column types pyarrow infers from the first block of a JSON Lines file."""
    return _remembered(path, block, _first_block)


def _first_block(path: Path, block: int) -> dict[str, Any]:
    import pyarrow as pa
    from pyarrow import json as pajson

    if not head(path).strip():
        raise empty(path, "one JSON object per line")
    handle, stream = open_file(path)
    guard = DepthGuard(path)
    reader: Any = None
    try:
        reader = pajson.open_json(
            guard.wrap(stream), read_options=pajson.ReadOptions(block_size=block)
        )
        return {f.name: f.type for f in reader.schema}
    except (pa.ArrowException, OSError) as exc:
        if straddles(exc) and block < (1 << 31):
            return _first_block(path, block * 4)
        raise _io.json_error(path, exc) from None
    finally:
        # the reader reads ahead of its first block: it stops here
        guard.stop()
        if reader is not None:
            reader.close()
        reader = None
        guard.release()
        handle.close()


def jsonl_batches(
    path: Path, wanted: list[str], chunk_size: int, types: dict[str, Any]
) -> Iterator[tuple[Any, int]]:
    import pyarrow as pa
    from pyarrow import json as pajson

    if not hasattr(pajson, "open_json"):  # pragma: no cover - pyarrow < 19 reads it whole
        table = _io.read_table(path, columns=wanted)
        yield table, path.stat().st_size
        return
    sample = head(path)
    block = block_size(sample, chunk_size)
    smallest = block_size(sample, 1)
    before = _file_key(path, smallest)
    data = read_small(path)
    # the types come from the smallest block, as the file's columns do: a later value
    # they do not hold widens them (Widen)
    if data is None:
        first = first_block(path, smallest)
    else:
        if not sample.strip():
            raise empty(path, "one JSON object per line")
        guard = DepthGuard(path)
        # every line, the last one without its line end too, before pyarrow parses any
        guard(data)
        guard(b"")
        first = _remembered(path, smallest, lambda _, size: _first_types(path, data, size), before)
    _io.check_columns(path, list(first), wanted)
    for column in wanted:
        types.setdefault(column, first[column])

    def options() -> Any:
        schema = pa.schema([(c, types[c]) for c in wanted])
        return pajson.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore")

    guards: list[DepthGuard] = []

    def open_reader(stream: Any, block: int) -> Any:
        guards.append(DepthGuard(path))
        return pajson.open_json(
            guards[-1].wrap(stream),
            read_options=pajson.ReadOptions(block_size=block),
            parse_options=options(),
        )

    def failure(exc: Exception, block: int) -> Exception:
        scanned = _json_types(path, wanted)
        changed = {c: t for c, t in (scanned or {}).items() if t != types.get(c)}
        if changed:
            column, kind = next(iter(changed.items()))
            types.update(changed)
            return Widen(path, column, kind)
        return _io.json_error(path, exc)

    if data is not None:
        table, size = _read_whole(data, smallest, options(), failure), data.size
        # the file's bytes are let go while the table is used
        data = None
        yield table, size
        return
    batches = read_batches(path, block, open_reader, failure)
    try:
        yield from batches
    finally:
        for guard in guards:
            guard.stop()
        batches.close()
        for guard in guards:
            guard.release()


def _first_types(path: Path, data: Any, block: int) -> dict[str, Any]:
    """The column types of the first block of ``data``, the checked bytes of the whole file.

    The streaming reader that :func:`first_block` opens on the file is opened on
    the bytes in memory (where reading ahead calls no Python code), so the types
    are the same.
    """
    import pyarrow as pa
    from pyarrow import json as pajson

    reader: Any = None
    try:
        reader = pajson.open_json(
            pa.BufferReader(data), read_options=pajson.ReadOptions(block_size=block)
        )
        return {f.name: f.type for f in reader.schema}
    except (pa.ArrowException, OSError) as exc:
        if straddles(exc) and block < (1 << 31):
            return _first_types(path, data, block * 4)
        raise _io.json_error(path, exc) from None
    finally:
        if reader is not None:
            reader.close()


def _read_whole(
    data: Any, block: int, options: Any, failure: Callable[[Exception, int], Exception]
) -> Any:
    """The table of the checked bytes ``data`` of a whole file, parsed in one call."""
    import pyarrow as pa
    from pyarrow import json as pajson

    while True:
        try:
            return pajson.read_json(
                pa.BufferReader(data),
                read_options=pajson.ReadOptions(block_size=block),
                parse_options=options,
            )
        except (pa.ArrowException, OSError) as exc:
            if straddles(exc) and block < (1 << 31):
                block *= 4
                continue
            raise failure(exc, block) from None


def _json_kind(value: Any) -> Any:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        inner: Any = "null"
        for item in value:
            inner = _json_union(inner, _json_kind(item))
            if inner is None:
                return None
        return ("list", inner)
    return None


def _json_union(a: Any, b: Any) -> Any:
    if a is None or b is None:
        return None
    if a == "null":
        return b
    if b == "null" or a == b:
        return a
    if {a, b} == {"int", "float"}:
        return "float"
    if isinstance(a, tuple) and isinstance(b, tuple):
        inner = _json_union(a[1], b[1])
        return None if inner is None else ("list", inner)
    return None


def _json_arrow(kind: Any) -> Any:
    import pyarrow as pa

    if isinstance(kind, tuple):
        return pa.list_(_json_arrow(kind[1]))
    simple = {
        "null": pa.null(),
        "bool": pa.bool_(),
        "int": pa.int64(),
        "float": pa.float64(),
        "string": pa.string(),
    }
    return simple[kind]


def _json_types(path: Path, wanted: list[str]) -> dict[str, Any] | None:
    """The types of the wanted columns over the whole file, or None if values clash.

    Runs only when the types of the first block do not hold a later value.
    """
    kinds: dict[str, Any] = dict.fromkeys(wanted, "null")
    try:
        with open_text(path) as handle:
            for line in handle:
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except (ValueError, RecursionError):
                    return None
                if not isinstance(record, dict):
                    return None
                for column in wanted:
                    kinds[column] = _json_union(kinds[column], _json_kind(record.get(column)))
                    if kinds[column] is None:
                        return None
    except (OSError, RecursionError):
        return None
    return {c: _json_arrow(k) for c, k in kinds.items()}
