"""Binary state files: the arrays of the states in npy blocks, the rest in the JSON header.

Layout (``scorekit_states`` 1, binary)::

    BINARY_MAGIC                      17 bytes, never UTF-8 text
    block 0, block 1, ...             npy records (no pickle), each starting at a multiple of 64
    header                            the JSON document of a JSON state file, UTF-8, with
                                      "blocks": [[offset, length, crc32], ...] and each array
                                      of a state as {"__block__": i, "dtype": d, "shape": [n]}
    head length, head crc32           8 + 4 bytes, little-endian
    BINARY_MAGIC                      the end marker: a file without it was cut off

A block holds an array in its smallest exact type (float64 values that are all
float32 values as float32, integers in the smallest integer type holding them);
``dtype`` is the type the state holds, restored on reading. Reading checks the
end marker, the checksums, each block's npy header (no object dtype, the shape
the header names, data within the block) and the memory the arrays will take
before reading one; the states are then decoded and validated as those of a
JSON file, by :meth:`State.from_dict`. Blocks of the same bytes (the equal
states of ``roc_auc`` and ``average_precision`` of the same data) are read once
into one array that their states share. :func:`read_binary` may leave the parts
of a parted state (score ranges) unread, for :class:`Blocks` to read one part
at a time.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import numpy as np
from numpy.typing import NDArray

from scorekit.core import (
    STATE_FORMAT,
    State,
    decode_value,
    encode_value,
    narrowed,
    stored_sequence,
)
from scorekit.errors import InputError, ScorekitError, message, raw
from scorekit.io import max_file_size, require_regular
from scorekit.statefiles._format import BINARY_MAGIC, binary_memory_limit

__all__ = [
    "BlockWriter",
    "Blocks",
    "array_bytes",
    "encode_state",
    "head_digest",
    "part_fields",
    "read_binary",
]

_TRAILER = struct.Struct("<QI")
_ALIGN = 64
_MAX_DIMS = 32
_CHUNK = 1 << 22
_EXPECTED = "a complete binary state file written by save_states or --save-state"


# writing ---------------------------------------------------------------------------------


def _allowed(array: NDArray[Any]) -> bool:
    """Whether an array goes to a block: a bool, integer or float dtype a state file reads."""
    if array.dtype.kind not in "biuf":
        return False
    try:
        decode_value({"__ndarray__": [], "dtype": array.dtype.str, "shape": [0]})
    except ScorekitError:
        return False
    return True


def array_bytes(state: State) -> int:
    """Bytes of the arrays of ``state`` (nested states and tuples included) that go to blocks.

    Parts read on access are read one at a time, each counted and let go.
    """
    total = 0
    pending: list[Any] = [state]
    while pending:
        value = pending.pop()
        if isinstance(value, State):
            pending.extend(getattr(value, f.name) for f in dataclasses.fields(value))
        elif stored_sequence(value):
            for i in range(len(value)):
                total += array_bytes(value[i])
        elif isinstance(value, tuple):
            pending.extend(value)
        elif isinstance(value, np.ndarray) and _allowed(value):
            total += value.size * value.dtype.itemsize
    return total


class _Counted:
    """A binary file wrapper that keeps the CRC-32 and count of the bytes written or read."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle
        self.crc = 0
        self.size = 0

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        self.crc = zlib.crc32(view, self.crc)
        self.size += view.nbytes
        return int(self.handle.write(view))

    def read(self, size: int = -1) -> bytes:
        data: bytes = self.handle.read(size)
        self.crc = zlib.crc32(data, self.crc)
        self.size += len(data)
        return data

    def readinto(self, buffer: memoryview) -> int:
        got = 0
        while got < buffer.nbytes:
            n = self.handle.readinto(buffer[got:])
            if not n:
                break
            got += n
        self.crc = zlib.crc32(buffer[:got], self.crc)
        self.size += got
        return got


class BlockWriter:
    """Writes arrays as npy blocks to a binary state file and returns their references."""

    def __init__(self, handle: IO[bytes]) -> None:
        self.handle = handle
        self.blocks: list[list[int]] = []
        handle.write(BINARY_MAGIC)
        self.at = len(BINARY_MAGIC)

    def put(self, array: NDArray[Any]) -> dict[str, Any]:
        """Write ``array`` as the next block; its reference in the header."""
        stored = narrowed(array)
        pad = -self.at % _ALIGN
        self.handle.write(b"\x00" * pad)
        offset = self.at + pad
        counted = _Counted(self.handle)
        np.lib.format.write_array(counted, stored, allow_pickle=False)
        del stored
        self.blocks.append([offset, counted.size, counted.crc])
        self.at = offset + counted.size
        return {
            "__block__": len(self.blocks) - 1,
            "dtype": array.dtype.str,
            "shape": list(array.shape),
        }

    def finish(self, head: bytes) -> None:
        """Write the header and the end marker."""
        self.handle.write(head)
        self.handle.write(_TRAILER.pack(len(head), zlib.crc32(head)))
        self.handle.write(BINARY_MAGIC)


def encode_state(state: State, put: Callable[[NDArray[Any]], Any]) -> dict[str, Any]:
    """:meth:`State.to_dict`, with each numeric array replaced by ``put(array)``."""

    def encode(value: Any) -> Any:
        if isinstance(value, State):
            return {"__state__": encode_state(value, put)}
        if isinstance(value, np.ndarray) and _allowed(value):
            return put(value)
        if isinstance(value, tuple):
            return {"__tuple__": [encode(v) for v in value]}
        if stored_sequence(value):
            # parts read on access: each is read, its arrays written, and let go
            return {"__tuple__": [encode(value[i]) for i in range(len(value))]}
        return encode_value(value)

    return {
        "scorekit_state": state.kind,
        "format": STATE_FORMAT,
        "fields": {f.name: encode(getattr(state, f.name)) for f in dataclasses.fields(state)},
    }


# reading ---------------------------------------------------------------------------------


def _error(path: Path, problem: str, got: Any = None, expected: str = _EXPECTED) -> InputError:
    return InputError(message(str(path), problem, got, expected))


def _read_head(path: Path, handle: IO[bytes], size: int) -> bytes:
    end = len(BINARY_MAGIC) + _TRAILER.size
    if size < len(BINARY_MAGIC) + end:
        raise _error(path, "truncated state file", raw(f"{size} bytes"), _EXPECTED)
    handle.seek(size - end)
    length, crc = _TRAILER.unpack(handle.read(_TRAILER.size))
    if handle.read(len(BINARY_MAGIC)) != BINARY_MAGIC:
        raise _error(path, "truncated state file (its end marker is missing)", None)
    start = size - end - length
    if length > size or start < len(BINARY_MAGIC):
        raise _error(path, "corrupt state file (its header length is wrong)", raw(str(length)))
    if length > max_file_size():
        raise _error(
            path,
            f"state file header too large (more than {max_file_size()} bytes)",
            raw(f"{length} bytes"),
            "a header within --max-file-size or SCOREKIT_MAX_FILE_SIZE",
        )
    handle.seek(start)
    head = handle.read(length)
    if zlib.crc32(head) != crc:
        raise _error(path, "corrupt state file (its header checksum differs)", None)
    return head


def head_digest(path: Path) -> str:
    """The SHA-256 of a binary state file's header, which holds the CRC-32 of every block.

    It tells the content of the file apart without reading its blocks: two
    files of the same digest hold the same header and blocks of the same
    checksums.
    """
    size = require_regular(path, "a state file").st_size
    try:
        with path.open("rb") as handle:
            return hashlib.sha256(_read_head(path, handle, size)).hexdigest()
    except OSError as exc:
        raise _error(path, "cannot read", raw(str(exc)), "a readable state file") from None


def _blocks(path: Path, data: dict[str, Any], head_start: int) -> list[tuple[int, int, int]]:
    blocks = data.pop("blocks", None)
    ok = isinstance(blocks, list) and all(
        isinstance(b, list)
        and len(b) == 3
        and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in b)
        for b in blocks
    )
    if not ok:
        raise _error(
            path, "malformed state file: a wrong list of blocks", None, "[[offset, length, crc32]]"
        )
    at = len(BINARY_MAGIC)
    for i, (offset, length, _) in enumerate(blocks):
        if offset < at or offset + length > head_start:
            raise _error(
                path,
                f"corrupt state file (block {i} lies outside the data)",
                raw(f"bytes {offset} to {offset + length}"),
                f"blocks in order between bytes {len(BINARY_MAGIC)} and {head_start}",
            )
        at = offset + length
    return [(b[0], b[1], b[2]) for b in blocks]


def _states(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The state documents of the metric entries, in file order."""
    entries = data.get("metrics")
    return [
        e["state"]
        for e in (entries if isinstance(entries, list) else [])
        if isinstance(e, dict) and isinstance(e.get("state"), dict)
    ]


def _references(roots: list[Any], skip: frozenset[int] = frozenset()) -> list[tuple[Any, Any, Any]]:
    """Every ``__block__`` reference in ``roots``: ``(container, key or index, reference)``.

    The walk goes through the states' fields, tuples and nested states, in
    the order of the file, and not into the data of arrays written inline nor
    into the containers whose ``id`` is in ``skip``.
    """
    found: list[tuple[Any, Any, Any]] = []
    pending: list[Any] = [r for r in roots if isinstance(r, dict | list)]
    pending.reverse()
    while pending:
        value = pending.pop()
        items = list(value.items() if isinstance(value, dict) else enumerate(value))
        inner = []
        for key, item in items:
            if id(item) in skip:
                continue
            if isinstance(item, dict) and "__block__" in item:
                found.append((value, key, item))
            elif isinstance(item, list) or (isinstance(item, dict) and "__ndarray__" not in item):
                inner.append(item)
        pending.extend(reversed(inner))
    return found


def part_fields(state: Any) -> list[str]:
    """The fields of a state document that hold a tuple of states (the parts of a parted kind).

    Examples
    --------
    >>> part_fields({"fields": {"cuts": [], "parts": {"__tuple__": [{"__state__": {}}]}}})
    ['parts']
    """
    fields = state.get("fields") if isinstance(state, dict) else None
    if not isinstance(fields, dict):
        return []
    found = []
    for name, value in fields.items():
        items = value.get("__tuple__") if isinstance(value, dict) else None
        if (
            isinstance(items, list)
            and items
            and all(isinstance(i, dict) and set(i) == {"__state__"} for i in items)
        ):
            found.append(name)
    return found


def _target(path: Path, ref: Any, count: int) -> tuple[int, np.dtype[Any], list[int]]:
    """The block, dtype and shape of a reference, checked as the JSON reader checks arrays."""
    keys = {"__block__", "dtype", "shape"}
    if set(ref) != keys:
        raise _error(
            path, "malformed __block__ form", raw(f"keys {sorted(ref)}"), f"the keys {sorted(keys)}"
        )
    index, dtype, shape = ref["__block__"], ref["dtype"], ref["shape"]
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count:
        raise _error(path, "a reference to no block", index, f"a block number below {count}")
    try:
        decode_value({"__ndarray__": [], "dtype": dtype, "shape": [0]})
    except ScorekitError:
        raise _error(
            path,
            "array dtype not allowed",
            dtype,
            "a bool, integer, float32/float64 dtype such as '<i8', '<f8'",
        ) from None
    if not (
        isinstance(shape, list)
        and len(shape) <= _MAX_DIMS
        and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape)
    ):
        raise _error(path, "array shape is not a list of integers >= 0", shape, "e.g. [3, 2]")
    return index, np.dtype(dtype), shape


def _widens(stored: np.dtype[Any], target: np.dtype[Any]) -> bool:
    """Whether every value of ``stored`` is exactly a value of ``target``."""
    if stored.kind == target.kind or (stored.kind == "u" and target.kind == "i"):
        return bool(np.can_cast(stored, target, casting="safe"))
    return False


def _read_block(
    path: Path,
    handle: IO[bytes],
    number: int,
    block: tuple[int, int, int],
    dtype: np.dtype[Any],
    shape: list[int],
) -> NDArray[Any]:
    offset, length, crc = block
    where = f"block {number}"
    handle.seek(offset)
    counted = _Counted(handle)
    try:
        version = np.lib.format.read_magic(counted)
        if version not in ((1, 0), (2, 0)):
            raise ValueError(f"npy format version {version}, not 1.0 or 2.0")
        header = (
            np.lib.format.read_array_header_1_0
            if version == (1, 0)
            else np.lib.format.read_array_header_2_0
        )
        found_shape, fortran, stored = header(counted)
    except Exception as exc:  # numpy parses the header text: any failure means a bad record
        shown = str(exc).encode("ascii", "backslashreplace").decode()[:120]
        raise _error(
            path,
            f"corrupt state file ({where} is not an npy record)",
            raw(f"{type(exc).__name__}: {shown}"),
        ) from None
    if stored.hasobject or stored.kind not in "biuf" or stored.fields is not None:
        raise _error(
            path,
            f"{where} holds an array of dtype {stored.str!r} (objects are never read: no pickle)",
            None,
            "bool, integer or float blocks",
        )
    if list(found_shape) != shape:
        raise _error(
            path,
            f"corrupt state file ({where} has another shape than its reference)",
            raw(f"shape {list(found_shape)}"),
            f"shape {shape}",
        )
    if not _widens(stored, dtype):
        raise _error(
            path,
            f"{where} holds dtype {stored.str!r}, which does not widen exactly to {dtype.str!r}",
            None,
            "a block of the state's type or a narrower type of the same kind",
        )
    count = math.prod(shape)
    if counted.size + count * stored.itemsize != length:
        raise _error(
            path,
            f"corrupt state file ({where} does not hold its array)",
            raw(f"{length} bytes for {count} items of {stored.itemsize} bytes"),
        )
    array = np.empty(count, dtype=stored)
    if counted.readinto(array.view(np.uint8).data) != array.nbytes:
        raise _error(path, f"truncated state file ({where} ends early)", None)
    if counted.crc != crc:
        raise _error(path, f"corrupt state file ({where}'s checksum differs)", None)
    array = array.reshape(shape, order="F" if fortran else "C")
    if array.dtype != dtype:
        array = array.astype(dtype)
    return array


def _same_bytes(handle: IO[bytes], a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    """Whether two blocks hold the same bytes: same length and checksum, then compared."""
    if a[1:] != b[1:]:
        return False
    for at in range(0, a[1], _CHUNK):
        size = min(_CHUNK, a[1] - at)
        handle.seek(a[0] + at)
        left = handle.read(size)
        handle.seek(b[0] + at)
        if left != handle.read(size):
            return False
    return True


def _roots(
    handle: IO[bytes], blocks: list[tuple[int, int, int]], used: list[int]
) -> dict[int, int]:
    """For each block of ``used``, the first block of the same bytes (itself when none before).

    Two metrics of the same data (``roc_auc`` and ``average_precision``) write
    equal arrays: read once, they share one array, and their states are known
    to be equal without comparing them.
    """
    first: dict[tuple[int, int], int] = {}
    root: dict[int, int] = {}
    for index in sorted(set(used)):
        # each block is compared with one block at most: the first of its length and checksum
        earlier = first.setdefault(blocks[index][1:], index)
        same = earlier != index and _same_bytes(handle, blocks[earlier], blocks[index])
        root[index] = earlier if same else index
    return root


class Blocks:
    """The blocks of one binary state file, read into arrays when asked.

    Each :meth:`fill` opens the file, reads the blocks its references name
    (each block of the same bytes and type once, as one shared array) and
    checks them as :func:`read_binary` does.
    """

    def __init__(self, path: Path, blocks: list[tuple[int, int, int]], roots: dict[int, int]):
        self.path = path
        self.blocks = blocks
        self.roots = roots

    def fill(self, roots: list[Any], skip: frozenset[int] = frozenset()) -> None:
        """Replace every ``__block__`` reference in ``roots`` (not under ``skip``) by its array."""
        path = self.path
        refs = _references(roots, skip)
        if not refs:
            return
        targets = [_target(path, ref, len(self.blocks)) for _, _, ref in refs]
        memory = sum(math.prod(shape) * dtype.itemsize for _, dtype, shape in targets)
        limit = binary_memory_limit()
        if memory > limit:
            raise _error(
                path,
                f"state file too large (its arrays take {memory} bytes once read, "
                f"more than {limit})",
                None,
                "arrays within the limit; raise it with --max-file-size or SCOREKIT_MAX_FILE_SIZE",
            )
        read: dict[tuple[int, str, tuple[int, ...]], NDArray[Any]] = {}
        try:
            with path.open("rb") as handle:
                # in the order of the blocks in the file
                for i in sorted(range(len(refs)), key=lambda i: targets[i][0]):
                    container, key, _ = refs[i]
                    index, dtype, shape = targets[i]
                    root = self.roots.get(index, index)
                    seen = (root, dtype.str, tuple(shape))
                    if seen not in read:
                        read[seen] = _read_block(
                            path, handle, index, self.blocks[root], dtype, shape
                        )
                    container[key] = read[seen]
        except OSError as exc:
            raise _error(path, "cannot read", raw(str(exc)), "a readable state file") from None

    def fingerprint(self, state: Any) -> str:
        """A text equal for two state documents exactly when their states are equal.

        The fields and the bytes of the blocks, told by the first block of the
        same bytes, are compared; another layout of the same values differs.
        """

        def show(value: Any) -> Any:
            if isinstance(value, dict) and "__block__" in value:
                index = value["__block__"]
                same = self.roots.get(index, index) if isinstance(index, int) else index
                return {**value, "__block__": same}
            if isinstance(value, dict):
                return {k: show(v) for k, v in value.items()}
            if isinstance(value, list):
                return [show(v) for v in value]
            return value

        return json.dumps(show(state), sort_keys=True, allow_nan=True)


def read_binary(
    path: Path,
    parse: Callable[[Path, str], dict[str, Any]],
    lazy: Callable[[dict[str, Any]], bool] | None = None,
) -> tuple[dict[str, Any], Blocks, list[str]]:
    """The JSON document of a binary state file, with its blocks read into arrays.

    ``parse`` turns the header text into the document (as for a JSON file);
    each ``{"__block__": ...}`` becomes the array it refers to, so the states
    decode and validate as those of a JSON file. The parts of the states of
    the metric entries for which ``lazy(entry)`` holds (the fields
    :func:`part_fields` names) are left unread, for the returned
    :class:`Blocks` to read one at a time. Also returned: the
    :meth:`Blocks.fingerprint` of each metric entry's state (``""`` for an entry without one).
    """
    size = require_regular(path, "a state file").st_size
    try:
        with path.open("rb") as handle:
            head = _read_head(path, handle, size)
            head_start = size - len(BINARY_MAGIC) - _TRAILER.size - len(head)
            try:
                text = head.decode("utf-8")
            except UnicodeDecodeError:
                raise _error(path, "corrupt state file (its header is not UTF-8)", None) from None
            data = parse(path, text)
            blocks = _blocks(path, data, head_start)
            states = _states(data)
            refs = _references(states)
            targets = [_target(path, ref, len(blocks)) for _, _, ref in refs]
            used = [t[0] for t in targets]
            if len(set(used)) != len(used):
                raise _error(path, "malformed state file: a block referred to twice", None)
            reader = Blocks(path, blocks, _roots(handle, blocks, used))
    except OSError as exc:
        raise _error(path, "cannot read", raw(str(exc)), "a readable state file") from None
    # the limit bounds the arrays read at a time: all of them, or with parts left
    # unread, the other arrays now and each part when it is read
    memory = sum(math.prod(shape) * dtype.itemsize for _, dtype, shape in targets)
    limit = binary_memory_limit()
    entries = data.get("metrics")
    skip: set[int] = set()
    for entry in entries if isinstance(entries, list) else []:
        if lazy is not None and isinstance(entry, dict) and lazy(entry):
            fields = entry["state"]["fields"]
            skip.update(id(fields[name]) for name in part_fields(entry["state"]))
    if memory > limit and not skip:
        raise _error(
            path,
            f"state file too large (its arrays take {memory} bytes once read, more than {limit})",
            None,
            "arrays within the limit; raise it with --max-file-size or SCOREKIT_MAX_FILE_SIZE",
        )
    prints = [
        reader.fingerprint(e["state"])
        if isinstance(e, dict) and isinstance(e.get("state"), dict)
        else ""
        for e in (entries if isinstance(entries, list) else [])
    ]
    reader.fill(states, frozenset(skip))
    return data, reader, prints
