"""The parts of a parted state (score ranges) read from a file one at a time.

:class:`FileParts` reads the parts of a state of a binary state file when each
is asked for, so merging files of ``roc_auc:ranges=N`` holds one range of each
file at a time. :class:`PartFile` keeps merged parts in a temporary file, each
read again when asked for, so the merged state of many ranges
holds none of their large arrays in memory.
"""

from __future__ import annotations

import copy
import dataclasses
import shutil
import tempfile
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from scorekit.core import PartsOnRead, State
from scorekit.errors import InputError, ScorekitError
from scorekit.statefiles._binary import Blocks

__all__ = ["FileParts", "PartError", "PartFile", "Reordered"]


class PartError(InputError):
    """A part of a state file that cannot be read or breaks its rules (names the file)."""


class _Alone(Sequence[State]):
    """The parts of ``shell`` (all empty) with ``part`` in place ``index``."""

    def __init__(self, shell: Sequence[State], index: int, part: State) -> None:
        self._shell, self._place, self._part = shell, index, part

    def __len__(self) -> int:
        return len(self._shell)

    def __getitem__(self, index: Any) -> Any:
        return self._part if index == self._place else self._shell[index]


class FileParts(PartsOnRead[State]):
    """The parts of one state of a binary state file, each read and checked when asked for.

    A part is decoded and validated as a state of a JSON file, and checked
    against its place in the state (a range's scores within its bounds) by
    validating ``shell`` with that part alone; errors name ``where`` (the file
    and the metric).
    """

    def __init__(self, where: str, blocks: Blocks, stored: list[Any], shell: State) -> None:
        self.where = where
        self.blocks = blocks
        self.stored = stored
        self.shell = shell
        self._count = len(stored)

    def __len__(self) -> int:
        return self._count

    def _read(self, index: int) -> State:
        doc = copy.deepcopy(self.stored[index])
        try:
            self.blocks.fill([doc])
        except InputError as exc:  # it names the file
            raise PartError(str(exc)) from None
        try:
            part = State.from_dict(doc["__state__"])
            alone = _Alone(self.shell.split_parts()[1], index, part)
            type(self.shell).from_parts(self.shell, alone).validate()
        except ScorekitError as exc:
            raise PartError(f"{self.where}: {exc}") from None
        return part

    def __repr__(self) -> str:
        return f"FileParts({self._count} parts of {self.where})"


class PartFile(PartsOnRead[State]):
    """Parts kept in one temporary file, their large arrays on disk, each read when asked for.

    :meth:`append` writes the bytes of a part's large arrays to the file and
    keeps the rest of the part (its small fields and read-only views of a
    single value, such as counts of one sample each) in memory; reading part
    ``i`` reads its arrays back, bit for bit, into a part equal to the one
    appended. The file is this process's own and is removed when the
    sequence is no longer used.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> metric = parse_metric("roc_auc")
    >>> parts = PartFile()
    >>> parts.append(metric.summarize([0, 1], [0.25, 0.75]))
    >>> len(parts), parts[0].score.tolist()
    (1, [0.25, 0.75])
    """

    def __init__(self) -> None:
        folder = Path(tempfile.mkdtemp(prefix="scorekit-merge-"))
        self._path = folder / "parts"
        self._handle = self._path.open("w+b")
        self._parts: list[tuple[type[State], dict[str, Any], dict[str, _Stored]]] = []
        self._cleanup = weakref.finalize(self, _remove, self._handle, str(folder))

    def append(self, part: State) -> None:
        """Write the large arrays of the next part to the file; keep the rest."""
        kept: dict[str, Any] = {}
        stored: dict[str, _Stored] = {}
        handle = self._handle
        for f in dataclasses.fields(part):
            value = getattr(part, f.name)
            if (
                isinstance(value, np.ndarray)
                and value.nbytes >= _LARGE
                and value.dtype.kind in "biuf"
                and all(value.strides)
            ):
                handle.seek(0, 2)
                at = handle.tell()
                handle.write(np.ascontiguousarray(value).reshape(-1).view(np.uint8).data)
                stored[f.name] = _Stored(at, value.dtype, value.shape)
            else:
                kept[f.name] = value
        handle.flush()
        self._parts.append((type(part), kept, stored))

    def __len__(self) -> int:
        return len(self._parts)

    def _read(self, index: int) -> State:
        kind, kept, stored = self._parts[index]
        values = dict(kept)
        handle = self._handle
        for name, (at, dtype, shape) in stored.items():
            array = np.empty(shape, dtype=dtype)
            handle.seek(at)
            view = array.reshape(-1).view(np.uint8).data
            got = 0
            while got < view.nbytes:
                n = handle.readinto(view[got:])
                if not n:
                    raise InputError(f"{self._path}: a temporary file of merged parts ends early")
                got += n
            values[name] = array
        return kind(**values)

    def __repr__(self) -> str:
        return f"PartFile({len(self)} parts in {str(self._path)!r})"


class Reordered(PartsOnRead[State]):
    """The parts of ``parts`` in another order: part ``i`` is ``parts[places[i]]``.

    Range files given in any order keep their ranges in the order of the
    files; read in this order, they are the ranges of the state.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> metric = parse_metric("roc_auc")
    >>> kept = (metric.summarize([0], [0.75]), metric.summarize([1], [0.25]))
    >>> [part.score.tolist() for part in Reordered(kept, [1, 0])]
    [[0.25], [0.75]]
    """

    def __init__(self, parts: Sequence[State], places: Sequence[int]) -> None:
        self._parts, self._places = parts, list(places)

    def __len__(self) -> int:
        return len(self._places)

    def _read(self, index: int) -> State:
        return self._parts[self._places[index]]

    def __repr__(self) -> str:
        return f"Reordered({len(self)} parts of {self._parts!r})"


_LARGE = 1 << 12
"""Bytes from which an array of a part goes to the file."""


class _Stored(NamedTuple):
    at: int
    dtype: np.dtype[Any]
    shape: tuple[int, ...]


def _remove(handle: Any, folder: str) -> None:
    handle.close()
    shutil.rmtree(folder, ignore_errors=True)
