"""A sequence of the parts of a state, each made or read only when it is asked for."""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar, overload

from scorekit.core._state import State, equal_values

__all__ = ["PartsOnRead", "scan"]

P = TypeVar("P", bound=State)
C = TypeVar("C")
R = TypeVar("R")


def scan(
    parts: Sequence[P], step: Callable[[C, P], tuple[C, R]], carry: C, *, reverse: bool = False
) -> tuple[C, list[R]]:
    """Read parts in order with a carry: ``carry, out = step(carry, parts[i])`` for each ``i``
    (from the last part to the first with ``reverse``).

    A sequence that keeps its parts elsewhere (on the workers of a cluster)
    may run each step where its part is, by a ``scan`` method of its own; only
    the carries and the outputs then travel, never a part. ``step`` must be a
    function that can be pickled (a module-level function, or a
    :func:`functools.partial` of one), and its carries and outputs small.

    Returns
    -------
    tuple
        The last carry and the output of each step, in the order the steps ran
        (the last part's first with ``reverse``).

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> metric = parse_metric("accuracy")
    >>> parts = [metric.summarize([1, 0], [1, 1]), metric.summarize([1], [1])]
    >>> def step(total, part):
    ...     return total + int(part.matrix.sum()), int(part.matrix.trace())
    >>> scan(parts, step, 0)
    (3, [1, 1])
    >>> scan(parts, lambda seen, part: (seen + [int(part.matrix.sum())], None), [], reverse=True)[0]
    [1, 2]
    """
    own = getattr(parts, "scan", None)
    if own is not None:
        found: tuple[C, list[R]] = own(step, carry, reverse=reverse)
        return found
    outs: list[R] = []
    count = len(parts)
    for i in range(count - 1, -1, -1) if reverse else range(count):
        part = parts[i]
        carry, out = step(carry, part)
        del part
        outs.append(out)
    return carry, outs


class PartsOnRead(Sequence[P]):
    """The parts of a state, each read (from a file, from other parts) when it is asked for.

    A subclass gives :meth:`__len__` and :meth:`_read`; indexing (negative
    indices and slices too), iteration and equality (part by part, with any
    sequence of equal parts) follow, and a pickled sequence is a tuple of its
    parts.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> metric = parse_metric("accuracy")
    >>> class Twice(PartsOnRead):
    ...     def __len__(self):
    ...         return 2
    ...     def _read(self, index):
    ...         return metric.summarize([1] * (index + 1), [1] * (index + 1))
    >>> parts = Twice()
    >>> parts[-1].matrix.tolist(), len(parts[:1])
    ([[2]], 1)
    >>> parts == tuple(parts)
    True
    """

    @abc.abstractmethod
    def __len__(self) -> int:
        """The number of parts."""

    @abc.abstractmethod
    def _read(self, index: int) -> P:
        """Part ``index`` (in range), read or made from where it is kept."""

    @overload
    def __getitem__(self, index: int) -> P: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[P, ...]: ...

    def __getitem__(self, index: int | slice) -> P | tuple[P, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        position = int(index)
        count = len(self)
        if position < 0:
            position += count
        if not 0 <= position < count:
            raise IndexError(f"part {index} of {count}")
        return self._read(position)

    def __iter__(self) -> Iterator[P]:
        for i in range(len(self)):
            yield self[i]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        if len(other) != len(self):
            return False
        return all(equal_values(self[i], other[i]) for i in range(len(self)))

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return (tuple, (tuple(self),))
