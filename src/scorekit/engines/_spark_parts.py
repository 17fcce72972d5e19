"""The merged parts of states kept on the executors of a Spark session, and read there.

The Spark engine merges each part of a parted state (score ranges) under a key
of its own. On a session the caller runs, or one whose states are not used
after it, the merged parts stay on the executors: :func:`kept_parts` arranges
them in an RDD persisted on the executors (memory, then disk), one partition
per metric holding its parts in order, a part as the pieces its merge task
wrote. A :class:`SparkParts` reads them there: :meth:`SparkParts.scan` is one
Spark job whose single task reads the metric's parts one at a time from that
partition and runs every step of the scan next to them, holding one decoded
part at a time; only the carry and the steps' outputs come back. A scan
backwards reads a second arrangement, in the reverse order, sorted from the
first on its first use. Reading part ``i`` fetches that part.

A session the engine started stops at the end of the run or session; before
it does, the parts still in use are brought here, one at a time, into files
(:class:`~scorekit.engines._parts.StoredParts`), or let go when the states are
not used after it (:func:`~scorekit.engines._parts.keeping_parts`). The parts
on the caller's session stay there while the state lives: they are unpersisted
when no sequence reads them any more.

pyspark is imported by the caller: this module needs only the context and the
frame it is given.
"""

from __future__ import annotations

import contextlib
import functools
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from scorekit.core import PartsOnRead, State, scan
from scorekit.engines import _spark_codec as codec
from scorekit.engines._parts import StoredParts, keep_for, lost_on_failure
from scorekit.errors import ConfigError, ScorekitError, message, raw

__all__ = ["SparkParts", "kept_parts"]

C = TypeVar("C")
R = TypeVar("R")

WHERE = "the Spark engine (--engine spark)"

Row = tuple[tuple[int, int, int], Any]
"""An element of an arrangement: (slot, part, piece) and the bytes of that piece."""


class _Arranged:
    """The merged parts of one run's parted metrics, persisted on the executors.

    ``ascending`` has one partition per metric (its slot), holding the metric's
    parts in order, the pieces of a part in order; ``descending``, made on
    first use, holds them last part first. Both are unpersisted when the
    object is no longer used (or its session has stopped).
    """

    def __init__(
        self, context: Any, ascending: Any, slots: int, job_error: Callable[[Any], Exception]
    ) -> None:
        self.context = context
        self.ascending = ascending
        self.slots = slots
        self.job_error = job_error
        self._descending: Any = None
        self._held = [ascending]
        self._free = weakref.finalize(self, _unpersist, context, self._held)

    def rows(self, reverse: bool) -> Any:
        """The arrangement of the parts in order, or in reverse order."""
        if not reverse:
            return self.ascending
        if self._descending is None:
            self._descending = self.ascending.repartitionAndSortWithinPartitions(
                self.slots, _slot, keyfunc=_down
            ).persist(_storage())
            self._held.append(self._descending)
        return self._descending

    @property
    def stopped(self) -> bool:
        """Whether the session of the parts has stopped."""
        return _stopped(self.context)

    def run(self, rows: Any, task: Callable[[Iterator[Row]], Iterable[Any]], slot: int) -> Any:
        """The one result of ``task`` run on the partition ``slot`` of ``rows`` (one job)."""
        try:
            (found,) = self.context.runJob(rows, task, [slot])
        except ScorekitError:
            raise
        except Exception as exc:  # Py4J and pyspark wrap a failed task whatever it raised
            raise self.job_error(exc) from None
        return found

    def local(self, slot: int) -> Iterator[tuple[int, bytes]]:
        """The parts of the partition ``slot``, brought here one at a time, with their index."""
        rows = self.ascending.mapPartitionsWithIndex(
            functools.partial(_only, slot), preservesPartitioning=True
        )
        try:
            yield from _joined(rows.toLocalIterator())
        except ScorekitError:
            raise
        except Exception as exc:  # Py4J and pyspark wrap a failed task whatever it raised
            raise self.job_error(exc) from None


def _unpersist(context: Any, held: list[Any]) -> None:
    if _stopped(context):
        return
    for rows in held:
        with contextlib.suppress(Exception):
            rows.unpersist(False)


def _stopped(context: Any) -> bool:
    return getattr(context, "_jsc", None) is None


def _storage() -> Any:
    from pyspark import StorageLevel

    return StorageLevel.MEMORY_AND_DISK


class SparkParts(PartsOnRead[State]):
    """The merged parts of a state on the executors of a Spark session.

    :meth:`scan` runs every step in one task next to the parts; item ``i``
    fetches part ``i``; iterating brings the parts here one at a time. A part
    that no partition of the input gave is the merged shell's empty one. A
    pickled sequence is a tuple of the parts (fetched).

    Made by :func:`kept_parts`.
    """

    def __init__(self, arranged: _Arranged, slot: int, empties: Sequence[State]) -> None:
        self._arranged: _Arranged | None = arranged
        self._slot = slot
        self._empties = tuple(empties)
        self._stored: StoredParts | None = None
        self._gone = False
        keep_for(arranged.context, self)

    @property
    def on_cluster(self) -> bool:
        """Whether the parts are still on the executors (not brought here, nor lost)."""
        return self._stored is None and not self._gone

    def __len__(self) -> int:
        return len(self._empties)

    def _read(self, index: int) -> State:
        if self._stored is not None:
            return self._stored[index]
        arranged = self._check()
        task = functools.partial(_fetch_task, index)
        value = arranged.run(arranged.ascending, task, self._slot)
        return self._empties[index] if value is None else codec.decode_state(value)

    def __iter__(self) -> Iterator[State]:
        if self._stored is not None:
            yield from self._stored
            return
        for index, value in self._local():
            yield self._empties[index] if value is None else codec.decode_state(value)

    def scan(
        self, step: Callable[[C, State], tuple[C, R]], carry: C, *, reverse: bool = False
    ) -> tuple[C, list[R]]:
        """:func:`scorekit.core.scan` with every step run in one task on the executors.

        The task reads the metric's parts one at a time, in order (or in reverse
        order), and runs each step on its part; the last carry and the outputs
        come here at the end. A scorekit error raised by a step is raised here
        as it is.
        """
        if self._stored is not None:
            return scan(self._stored, step, carry, reverse=reverse)
        arranged = self._check()
        task = functools.partial(_scan_task, step, carry, self._empties, reverse)
        done, found = arranged.run(arranged.rows(reverse), task, self._slot)
        if not done:
            raise codec.decode_error(found)
        last, outs = found
        return last, outs

    def localize(self) -> None:
        """Bring the parts here, one at a time, into files; the executors' copy is let go."""
        if self._stored is not None or self._gone:
            return
        stored = StoredParts()
        with lost_on_failure(self):
            for index, value in self._local():
                state = self._empties[index] if value is None else codec.decode_state(value)
                stored.put(index, state)
                del value, state
        self._stored = stored
        self._arranged = None

    def drop(self) -> None:
        """Let the parts go: they are lost (their session stops)."""
        self._arranged = None
        self._gone = True

    def _local(self) -> Iterator[tuple[int, bytes | None]]:
        """Each part's index and bytes, brought here in order (None: the shell's empty part)."""
        arranged = self._check()
        return _in_order(arranged.local(self._slot), len(self._empties), False)

    def _check(self) -> _Arranged:
        arranged = self._arranged
        if arranged is None or arranged.stopped:
            self.drop()
            raise ConfigError(
                message(
                    WHERE,
                    "the merged parts of this state were on a Spark session that has stopped",
                    raw(f"{len(self)} parts"),
                    "a state read while its session runs, or one of a run that ended normally",
                )
            )
        return arranged

    def __repr__(self) -> str:
        where = "on the executors" if self.on_cluster else "here" if self._stored else "lost"
        return f"SparkParts({len(self)} parts {where})"


def kept_parts(
    context: Any,
    frame: Any,
    counts: Mapping[int, Sequence[State]],
    job_error: Callable[[Any], Exception],
) -> dict[int, SparkParts]:
    """The merged parts of each parted metric, kept on the executors.

    Parameters
    ----------
    context
        The session's ``SparkContext``.
    frame
        The merged values of the parts: rows ``key, sub, part, piece, value``,
        the pieces of a value together and in order (one merge task wrote them).
    counts
        Each parted metric's index -> the empty parts of its merged shell (a part
        beyond them belongs to a state of no data; one missing is the empty one).
    job_error
        The engine's translation of a failed Spark job into its error.

    Returns
    -------
    dict
        Metric index -> its :class:`SparkParts`.

    Raises
    ------
    ScorekitError
        The first error a merge of parts raised, as it was raised.
    """
    keys = sorted(counts)
    slots = {key: (slot, len(counts[key])) for slot, key in enumerate(keys)}
    rows = frame.select("key", "sub", "piece", "value").rdd.mapPartitions(
        functools.partial(_keyed, slots)
    )
    ascending = rows.repartitionAndSortWithinPartitions(
        max(1, len(keys)), _slot, keyfunc=_up
    ).persist(_storage())
    arranged = _Arranged(context, ascending, max(1, len(keys)), job_error)
    # one pass puts every part on the executors' storage; a part's merge may have failed
    try:
        errors = ascending.mapPartitions(_errors).collect()
    except ScorekitError:
        raise
    except Exception as exc:  # Py4J and pyspark wrap a failed task whatever it raised
        raise job_error(exc) from None
    if errors:
        raise codec.decode_error(min(errors, key=lambda e: e[0])[1])
    return {key: SparkParts(arranged, slots[key][0], counts[key]) for key in keys}


# the executors' side -------------------------------------------------------------------------


def _slot(key: tuple[int, int, int]) -> int:
    """The partition of a row: its metric's slot."""
    return key[0]


def _up(key: tuple[int, int, int]) -> tuple[int, int]:
    """Parts in order, a part's pieces in order."""
    return key[1], key[2]


def _down(key: tuple[int, int, int]) -> tuple[int, int]:
    """Parts last first, a part's pieces in order."""
    return -key[1], key[2]


def _keyed(slots: Mapping[int, tuple[int, int]], rows: Iterable[Any]) -> Iterator[Row]:
    """Rows of the merged frame as ((slot, part, piece), bytes), without the parts beyond
    the merged shell's."""
    for key, sub, piece, value in rows:
        found = slots.get(int(key))
        if found is not None and 0 <= int(sub) < found[1]:
            yield (found[0], int(sub), int(piece)), bytes(value)


def _errors(rows: Iterable[Row]) -> Iterator[tuple[tuple[int, int], bytes]]:
    """The first error value of a partition, with its slot and part."""
    for (slot, sub, piece), value in rows:
        if piece == 0 and codec.tag(value) == codec.ERROR:
            yield (slot, sub), value
            return


def _only(slot: int, index: int, rows: Iterable[Row]) -> Iterable[Row]:
    """The rows of the partition ``slot``; none of the others."""
    return rows if index == slot else ()


def _joined(rows: Iterable[Row]) -> Iterator[tuple[int, bytes]]:
    """Each part's index and bytes, its pieces put together, in the order they come."""
    current: int | None = None
    pieces: list[bytes] = []
    for (_, sub, _), value in rows:
        if sub != current:
            if current is not None:
                yield current, pieces[0] if len(pieces) == 1 else b"".join(pieces)
            current, pieces = sub, []
        pieces.append(value)
    if current is not None:
        yield current, pieces[0] if len(pieces) == 1 else b"".join(pieces)


def _in_order(
    found: Iterator[tuple[int, bytes]], count: int, reverse: bool
) -> Iterator[tuple[int, bytes | None]]:
    """Every index below ``count`` in order (or reverse order) with its part's bytes, None for
    a part not found; ``found`` gives the parts in that order."""
    head = next(found, None)
    for index in range(count - 1, -1, -1) if reverse else range(count):
        if head is not None and head[0] == index:
            yield head
            head = next(found, None)
        else:
            yield index, None


def _fetch_task(index: int, rows: Iterable[Row]) -> list[bytes | None]:
    """The bytes of part ``index`` (None when the partition has none)."""
    for sub, value in _joined(row for row in rows if row[0][1] == index):
        if sub == index:
            return [value]
    return [None]


def _scan_task(
    step: Callable[[Any, State], tuple[Any, Any]],
    carry: Any,
    empties: Sequence[State],
    reverse: bool,
    rows: Iterable[Row],
) -> list[tuple[bool, Any]]:
    """Every step of a scan over the parts of one partition, one decoded part at a time:
    ``(True, (carry, outputs))``, or ``(False, error)`` for a scorekit error of a step."""
    outs: list[Any] = []
    try:
        for index, value in _in_order(_joined(rows), len(empties), reverse):
            part = empties[index] if value is None else codec.decode_state(value)
            del value
            carry, out = step(carry, part)
            del part
            outs.append(out)
    except ScorekitError as exc:
        return [(False, codec.encode_error(exc))]
    return [(True, (carry, outs))]
