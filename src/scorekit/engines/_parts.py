"""States made of independent parts: which metrics have them, their merge, and their files.

A state kind that declares ``parted`` splits into a shell and parts (score
ranges); the cluster engines merge each part in a tree of its own and bring the
merged parts to this process one at a time, into a :class:`StoredParts`.
"""

from __future__ import annotations

import shutil
import tempfile
import weakref
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, overload

from scorekit.core import Metric, State, equal_values
from scorekit.engines._spark_codec import decode_state, encode_state

__all__ = ["StoredParts", "merge_parts", "parted_metrics"]


def parted_metrics(metrics: Sequence[Metric[Any]]) -> list[int]:
    """The indices of the metrics whose states are made of independent parts.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> parted_metrics([parse_metric("roc_auc"), parse_metric("roc_auc:ranges=4")])
    [1]
    """
    return [i for i, metric in enumerate(metrics) if type(metric.empty()).parted]


def merge_parts(parts: Sequence[State | None]) -> State | None:
    """Parts of one index from consecutive parts of the data, merged in order, left first.

    ``None`` stands for a state that adds nothing to the part (the state of no
    data); all of them give ``None``.
    """
    merged: State | None = None
    for part in parts:
        if part is not None:
            merged = part if merged is None else merged.merge(part)
    return merged


class StoredParts(Sequence[State]):
    """The parts of a state kept in files, one file per part, each loaded when it is read.

    :meth:`append` writes a part to a file of a temporary directory (the JSON
    document of its fields with its arrays in npy blocks, never pickle) and
    keeps nothing of it in memory; reading item ``i`` loads and checks that part
    again. The directory is removed when the sequence is no longer used. A
    pickled sequence becomes a tuple of the parts, and an equal sequence is one
    of equal parts.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> metric = parse_metric("accuracy")
    >>> parts = StoredParts()
    >>> parts.append(metric.summarize([1, 0], [1, 1]))
    >>> parts.append(metric.summarize([1], [1]))
    >>> len(parts), parts[1].matrix.tolist()
    (2, [[1]])
    >>> parts == (metric.summarize([1, 0], [1, 1]), metric.summarize([1], [1]))
    True
    """

    def __init__(self) -> None:
        self._folder = Path(tempfile.mkdtemp(prefix="scorekit-parts-"))
        self._count = 0
        self._cleanup = weakref.finalize(self, shutil.rmtree, str(self._folder), True)

    def append(self, part: State) -> None:
        """Write the next part to its file."""
        self.put(self._count, part)

    def put(self, index: int, part: State) -> None:
        """Write part ``index`` to its file (parts may come in any order; see :meth:`missing`)."""
        self._file(index).write_bytes(encode_state(0, part))
        self._count = max(self._count, index + 1)

    def missing(self, count: int) -> list[int]:
        """The indices below ``count`` of the parts not written yet."""
        return [i for i in range(count) if not self._file(i).exists()]

    def _file(self, index: int) -> Path:
        return self._folder / f"{index}.part"

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> State: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[State, ...]: ...

    def __getitem__(self, index: int | slice) -> State | tuple[State, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(self._count)))
        position = int(index)
        if position < 0:
            position += self._count
        if not 0 <= position < self._count:
            raise IndexError(f"part {index} of {self._count}")
        return decode_state(self._file(position).read_bytes())

    def __iter__(self) -> Iterator[State]:
        for i in range(self._count):
            yield self[i]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        if len(other) != self._count:
            return False
        return all(equal_values(self[i], other[i]) for i in range(self._count))

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return (tuple, (tuple(self),))

    def __repr__(self) -> str:
        return f"StoredParts({self._count} parts in {str(self._folder)!r})"
