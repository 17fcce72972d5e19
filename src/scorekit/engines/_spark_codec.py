"""What the Spark engine's tasks send each other: states, counts, warnings and errors, as bytes.

A state travels as :meth:`~scorekit.core.State.to_dict`'s JSON document with each
numeric array taken out into an npy block (``allow_pickle=False``), the layout of
the binary state files: exact (every dtype and bit kept), compact (an exact ROC AUC
state of a million distinct scores takes 24 MB, not the 45 MB of its JSON text) and
never pickle. It is rebuilt by :meth:`~scorekit.core.State.from_dict`, which checks
it as it checks a state file.

Every value is one tagged ``bytes``:

- ``S`` + the metric's index (4 bytes) + the state;
- ``M`` + JSON ``{"rows": N, "notes": [[category, text], ...]}``, the rows a
  partition read and the distinct warnings its metrics raised;
- ``E`` + JSON ``{"kind": "InputError", "text": "..."}``, a scorekit error raised
  on an executor, raised again on the driver as the same class.
"""

from __future__ import annotations

import dataclasses
import importlib
import io
import json
import struct
from typing import Any

import numpy as np

from scorekit import errors
from scorekit.core import STATE_FORMAT, State, encode_value, stored_sequence
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

STATE, META, ERROR = b"S", b"M", b"E"
_INDEX = struct.Struct("<I")
_HEAD = struct.Struct("<Q")
_BLOCK = "__block__"


def _array_block(value: Any) -> bool:
    return isinstance(value, np.ndarray) and value.dtype.kind in "biuf"


def _document(state: State, blocks: list[np.ndarray]) -> dict[str, Any]:
    """``state.to_dict()`` with each numeric array replaced by a reference to ``blocks``."""

    def encode(value: Any) -> Any:
        if isinstance(value, State):
            return {"__state__": _document(value, blocks)}
        if _array_block(value):
            blocks.append(value)
            return {_BLOCK: len(blocks) - 1}
        if isinstance(value, tuple) or stored_sequence(value):
            return {"__tuple__": [encode(value[i]) for i in range(len(value))]}
        return encode_value(value)

    return {
        "scorekit_state": state.kind,
        "format": STATE_FORMAT,
        "fields": {f.name: encode(getattr(state, f.name)) for f in dataclasses.fields(state)},
    }


def encode_state(index: int, state: State) -> bytes:
    """One metric's state as bytes: its index, the JSON document and the npy blocks.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> state = parse_metric("accuracy").summarize([1, 0, 1], [1, 1, 1])
    >>> data = encode_state(2, state)
    >>> state_index(data), decode_state(data).matrix.tolist()
    (2, [[0, 1], [0, 2]])
    """
    blocks: list[np.ndarray] = []
    head = json.dumps(_document(state, blocks), allow_nan=True).encode("utf-8")
    out = io.BytesIO()
    out.write(STATE + _INDEX.pack(index) + _HEAD.pack(len(head)) + head)
    for block in blocks:
        np.lib.format.write_array(out, np.ascontiguousarray(block), allow_pickle=False)
    # the walk's function refers to itself and to the list: let the arrays go now
    blocks.clear()
    return out.getvalue()


def state_index(data: bytes) -> int:
    """The index of the metric whose state ``data`` holds."""
    return int(_INDEX.unpack_from(data, 1)[0])


def decode_state(data: bytes) -> State:
    """The state :func:`encode_state` wrote, checked as :meth:`State.from_dict` checks it."""
    start = 1 + _INDEX.size
    (size,) = _HEAD.unpack_from(data, start)
    start += _HEAD.size
    document = json.loads(data[start : start + size].decode("utf-8"))
    stream = io.BytesIO(data)
    stream.seek(start + size)
    cache: list[np.ndarray] = []

    def block(number: Any) -> np.ndarray:
        while len(cache) <= number:
            cache.append(np.lib.format.read_array(stream, allow_pickle=False))
        found: np.ndarray = cache[number]
        return found

    def restore(value: Any) -> Any:
        if isinstance(value, dict):
            if set(value) == {_BLOCK}:
                return block(int(value[_BLOCK]))
            return {k: restore(v) for k, v in value.items()}
        if isinstance(value, list):
            return [restore(v) for v in value]
        return value

    # blocks are numbered in the order they were written, which is the order of the walk
    try:
        return State.from_dict(restore(document))
    finally:
        # restore refers to itself: without this the arrays and the bytes would wait for
        # the cycle collector
        cache.clear()
        stream.close()


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


def decode_meta(data: bytes) -> tuple[int, Notes]:
    """The rows and warnings :func:`encode_meta` wrote."""
    found = json.loads(data[1:].decode("utf-8"))
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


def decode_error(data: bytes) -> ScorekitError:
    """The error :func:`encode_error` wrote, of the same class (ScorekitError if unknown)."""
    found = json.loads(data[1:].decode("utf-8"))
    cls = getattr(errors, str(found.get("kind")), None)
    if not (isinstance(cls, type) and issubclass(cls, ScorekitError)):
        cls = ScorekitError
    return cls(str(found.get("text", "")))


def tag(data: bytes) -> bytes:
    """The kind of a value: :data:`STATE`, :data:`META` or :data:`ERROR`."""
    kind = data[:1]
    if kind not in (STATE, META, ERROR):
        raise InputError(
            message("the Spark engine", "unknown value from a task", raw(repr(kind)), "S, M or E")
        )
    return kind
