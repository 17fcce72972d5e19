"""What the Spark engine's tasks send each other: states, counts, warnings and errors, as bytes.

A state travels as :meth:`~scorekit.core.State.to_dict`'s JSON document with each
numeric array taken out into a raw block, in the smallest type that gives it back
bit for bit (integers in the smallest integer type of their range, float64 values
that are float32 values as float32, an array of one repeated value as that
value): exact (every dtype and bit kept), compact (an exact ROC AUC state of a
million float32 scores takes 5 to 6 MB, its arrays written out 13 MB) and never
pickle. The head names the state's class, which rebuilds it without the checks of
a state file: the bytes are the engine's own, from its tasks or its files. Every
array rebuilt is a new one, of the state's type.

Every value is one tagged ``bytes``:

- ``S`` + the metric's index (4 bytes) + the length of the JSON head (8 bytes) + the
  head + the blocks, each at a multiple of 8 bytes;
- ``A`` + the metric's index + the index of an earlier metric whose state is the
  same, bit for bit (sent once);
- ``M`` + JSON ``{"rows": N, "notes": [[category, text], ...]}``, the rows a
  partition read and the distinct warnings its metrics raised;
- ``E`` + JSON ``{"kind": "InputError", "text": "..."}``, a scorekit error raised
  on an executor, raised again on the driver as the same class.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import struct
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from scorekit import errors
from scorekit.core import (
    STATE_FORMAT,
    State,
    decode_value,
    encode_value,
    narrowed,
    stored_sequence,
)
from scorekit.engines._fold import Notes
from scorekit.errors import InputError, ScorekitError, message, raw

__all__ = [
    "decode_error",
    "decode_meta",
    "decode_state",
    "encode_error",
    "encode_meta",
    "encode_state",
    "state_index",
]

STATE, META, ERROR, ALIAS = b"S", b"M", b"E", b"A"
UNSHARED = b"U"
"""The value of a metric taken to share an earlier metric's state made of parts, from a
partition where its state was not that one's: the run goes again without sharing."""
_INDEX = struct.Struct("<I")
INDEX_BYTES = _INDEX.size
"""The bytes of a metric's index, after the tag of a state or an alias."""
_HEAD = struct.Struct("<Q")
_BLOCK = "__block__"
_ALIGN = 8
_SMALL = 64
"""Arrays of fewer items travel in their own type: narrowing them would save nothing."""


def _array_block(value: Any) -> bool:
    return isinstance(value, np.ndarray) and value.dtype.kind in "biuf"


def _document(state: State, blocks: list[np.ndarray]) -> dict[str, Any]:
    """``state.to_dict()`` with each numeric array replaced by a reference to ``blocks``, and
    the state's class (module and name) beside its kind."""

    def encode(value: Any) -> Any:
        if isinstance(value, State):
            return {"__state__": _document(value, blocks)}
        if _array_block(value):
            blocks.append(value)
            return {_BLOCK: len(blocks) - 1}
        if isinstance(value, tuple) or stored_sequence(value):
            return {"__tuple__": [encode(value[i]) for i in range(len(value))]}
        return encode_value(value)

    cls = type(state)
    return {
        "scorekit_state": state.kind,
        "format": STATE_FORMAT,
        "class": [cls.__module__, cls.__qualname__],
        "fields": {f.name: encode(getattr(state, f.name)) for f in dataclasses.fields(state)},
    }


def _narrowest(array: np.ndarray) -> tuple[np.ndarray, bool]:
    """The array in the smallest type that gives it back bit for bit, and whether it is one value.

    The types of :func:`~scorekit.core.narrowed` (integers in the smallest integer
    type of their range, float64 values that are float32 values, every bit, as
    float32); an array of one repeated value (a broadcast view, or integers all
    equal) is that value alone; arrays of few items stay as they are.

    Examples
    --------
    >>> _narrowest(np.arange(100, dtype=np.int64) - 3)[0].dtype
    dtype('int8')
    >>> _narrowest(np.linspace(0, 1, 100))[0].dtype
    dtype('float64')
    >>> _narrowest(np.float32(np.linspace(0, 1, 100)).astype(np.float64))[0].dtype
    dtype('float32')
    >>> _narrowest(np.broadcast_to(np.float64(0.1), (100, 1)))
    (array([0.1]), True)
    """
    if array.size and all(step == 0 for step in array.strides):
        return np.array([array[(0,) * array.ndim]], dtype=array.dtype), True
    if array.size < _SMALL:
        return np.ascontiguousarray(array), False
    if array.dtype.kind in "iu" and array.dtype.itemsize > 1 and array.min() == array.max():
        return np.ascontiguousarray(array).reshape(-1)[:1], True
    return narrowed(array), False


def state_buffers(index: int, state: State) -> list[Any]:
    """One metric's state as the buffers :func:`encode_state` joins, without joining them.

    The first buffer holds the tag, the index, the length of the JSON head and
    the head: the state's document (arrays as references to blocks) and, per
    block, its type, its shape, the type it travels in, whether it is one
    repeated value, and where its bytes start. Each block's bytes follow,
    aligned to 8 bytes, in the smallest type that gives the array back bit for
    bit (:func:`_narrowest`): a histogram of float32 scores counted once each
    travels in 6 bytes a row, not 17.
    """
    blocks: list[np.ndarray] = []
    document = _document(state, blocks)
    listed: list[list[Any]] = []
    data: list[Any] = []
    at = 0
    for block in blocks:
        stored, filled = _narrowest(block)
        pad = -at % _ALIGN
        if pad:
            data.append(bytes(pad))
            at += pad
        listed.append([block.dtype.str, list(block.shape), stored.dtype.str, filled, at])
        data.append(stored.reshape(-1).view(np.uint8).data)
        at += stored.nbytes
    # the walk's function refers to itself and to the list: let the arrays go now
    blocks.clear()
    head = json.dumps({"document": document, "blocks": listed}, allow_nan=True).encode("utf-8")
    first = STATE + _INDEX.pack(index) + _HEAD.pack(len(head)) + head
    return [first + bytes(-len(first) % _ALIGN), *data]


def encode_state(index: int, state: State) -> bytes:
    """One metric's state as bytes: its index, the JSON document and the blocks of its arrays.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> state = parse_metric("accuracy").summarize([1, 0, 1], [1, 1, 1])
    >>> data = encode_state(2, state)
    >>> state_index(data), decode_state(data).matrix.tolist()
    (2, [[0, 1], [0, 2]])
    """
    return b"".join(state_buffers(index, state))


def state_index(data: Any) -> int:
    """The index of the metric whose state (or alias) ``data`` holds."""
    return int(_INDEX.unpack_from(data, 1)[0])


def decode_state(data: Any) -> State:
    """The state :func:`encode_state` wrote (from any bytes-like value).

    The bytes come from the engine's own tasks or files, never from a user: the
    state is rebuilt as the class it was written from, its fields as they were,
    without the checks of a state file (:meth:`State.from_dict`, which rebuilds
    a state whose class this process has not loaded). Every array is a new,
    writable one in the type the state had.
    """
    start = 1 + _INDEX.size
    (size,) = _HEAD.unpack_from(data, start)
    start += _HEAD.size
    found = json.loads(bytes(memoryview(data)[start : start + size]).decode("utf-8"))
    base = start + size
    base += -base % _ALIGN
    blocks = found["blocks"]

    def block(number: int) -> np.ndarray:
        dtype, shape, stored, filled, at = blocks[number]
        kind = np.dtype(dtype)
        count = 1 if filled else int(np.prod(shape, dtype=np.int64))
        values = np.frombuffer(data, dtype=np.dtype(stored), count=count, offset=base + at)
        out: np.ndarray = (
            np.full(shape, values[0], dtype=kind) if filled else values.astype(kind).reshape(shape)
        )
        return out

    return _rebuilt(found["document"], block)


def _rebuilt(document: dict[str, Any], block: Callable[[int], np.ndarray]) -> State:
    """A state from its document, its arrays read by ``block``."""

    def restore(value: Any) -> Any:
        if isinstance(value, dict):
            if set(value) == {_BLOCK}:
                return block(int(value[_BLOCK]))
            return {k: restore(v) for k, v in value.items()}
        if isinstance(value, list):
            return [restore(v) for v in value]
        return value

    def field(value: Any) -> Any:
        if isinstance(value, dict) and set(value) == {_BLOCK}:
            return block(int(value[_BLOCK]))
        if isinstance(value, dict) and set(value) == {"__state__"}:
            return _rebuilt(value["__state__"], block)
        if isinstance(value, dict) and set(value) == {"__tuple__"}:
            return tuple(field(v) for v in value["__tuple__"])
        return decode_value(value)

    cls = _state_class(document)
    if cls is None:
        return State.from_dict(restore(document))
    return cls(**{name: field(value) for name, value in document["fields"].items()})


def _state_class(document: dict[str, Any]) -> type[State] | None:
    """The class a state was written from, when this process has loaded its module."""
    module, name = document.get("class") or ["", ""]
    value: Any = sys.modules.get(module)
    for part in name.split(".") if value is not None else []:
        value = getattr(value, part, None)
    if isinstance(value, type) and issubclass(value, State):
        fields = {f.name for f in dataclasses.fields(value)}
        if value.kind == document.get("scorekit_state") and fields == set(document["fields"]):
            return value
    return None


def encode_alias(index: int, same: int) -> bytes:
    """The value of metric ``index`` whose state equals that of metric ``same`` (an earlier one).

    Examples
    --------
    >>> data = encode_alias(3, 1)
    >>> tag(data) == ALIAS, state_index(data), alias_of(data)
    (True, 3, 1)
    """
    return ALIAS + _INDEX.pack(index) + _INDEX.pack(same)


def alias_of(data: Any) -> int:
    """The metric whose state an alias names."""
    return int(_INDEX.unpack_from(data, 1 + _INDEX.size)[0])


def encode_meta(rows: int, notes: Notes) -> bytes:
    """The rows read and the distinct warnings raised, as bytes.

    Examples
    --------
    >>> notes = Notes()
    >>> notes.add(UserWarning, "f1: no positive sample.")
    >>> rows, back = decode_meta(encode_meta(3, notes))
    >>> rows, back.messages()
    (3, [(<class 'UserWarning'>, 'f1: no positive sample.')])
    """
    listed = [[f"{c.__module__}:{c.__qualname__}", text] for c, text in notes.messages()]
    return META + json.dumps({"rows": int(rows), "notes": listed}).encode("utf-8")


def decode_meta(data: Any) -> tuple[int, Notes]:
    """The rows and warnings :func:`encode_meta` wrote."""
    found = json.loads(bytes(memoryview(data)[1:]).decode("utf-8"))
    notes = Notes()
    for name, text in found["notes"]:
        notes.add(_category(name), text)
    return int(found["rows"]), notes


def _category(name: str) -> type[Warning]:
    module, _, qualname = name.partition(":")
    try:
        value: Any = importlib.import_module(module)
        for part in qualname.split("."):
            value = getattr(value, part)
    except (ImportError, AttributeError):
        return UserWarning
    if isinstance(value, type) and issubclass(value, Warning):
        return value
    return UserWarning


def encode_error(exc: ScorekitError) -> bytes:
    """A scorekit error raised on an executor, as bytes.

    Examples
    --------
    >>> error = decode_error(encode_error(InputError("f1: bad label; got 3.")))
    >>> type(error).__name__, str(error)
    ('InputError', 'f1: bad label; got 3.')
    """
    kind = type(exc).__name__
    return ERROR + json.dumps({"kind": kind, "text": str(exc)}).encode("utf-8")


def decode_error(data: Any) -> ScorekitError:
    """The error :func:`encode_error` wrote, of the same class (ScorekitError if unknown)."""
    found = json.loads(bytes(memoryview(data)[1:]).decode("utf-8"))
    cls = getattr(errors, str(found.get("kind")), None)
    if not (isinstance(cls, type) and issubclass(cls, ScorekitError)):
        cls = ScorekitError
    return cls(str(found.get("text", "")))


def tag(data: Any) -> bytes:
    """The kind of a value: :data:`STATE`, :data:`ALIAS`, :data:`META`, :data:`ERROR` or
    :data:`UNSHARED`."""
    kind = bytes(memoryview(data)[:1])
    if kind not in (STATE, ALIAS, META, ERROR, UNSHARED):
        raise InputError(
            message(
                "the Spark engine", "unknown value from a task", raw(repr(kind)), "S, A, M, E or U"
            )
        )
    return kind
