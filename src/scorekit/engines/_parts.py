"""States made of independent parts: which metrics have them, their merge, and their files.

A state kind that declares ``parted`` splits into a shell and parts (score
ranges); the cluster engines merge the parts in trees of their own (Dask: one per
batch of consecutive parts) and keep the merged parts on the cluster
(:mod:`scorekit.engines._dask_parts`, :mod:`scorekit.engines._spark_parts`). A
cluster or session the engine started brings the parts still in use to this
process, a part at a time, into a :class:`StoredParts` before it stops, or lets
them go (:func:`keeping_parts`). The stream engine folds such a state with a
:class:`PartedFold`: past a size, each chunk's parts go unmerged to a
:class:`SpilledParts` file, and each part is merged on its own at the end, in
the tree the whole states would have gone through, so that no more than one
part is held in memory.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import shutil
import tempfile
import weakref
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO, Protocol

import numpy as np

from scorekit.core import (
    GATHER_BYTES,
    MergeTree,
    Metric,
    PartsOnRead,
    State,
    merges_alike,
    state_nbytes,
)
from scorekit.engines._spark_codec import decode_state, encode_state
from scorekit.io import parse_size

__all__ = [
    "DEFAULT_SPILL_SIZE",
    "MERGE_BYTES",
    "SPILL_SIZE_VARIABLE",
    "SPLIT_EVERY",
    "STATES_KEPT",
    "KeptParts",
    "PartedFold",
    "SpilledParts",
    "StoredParts",
    "keep_for",
    "keeping_parts",
    "lost_on_failure",
    "merge_parts",
    "merge_starts",
    "merge_take",
    "owner_keeps",
    "parted_metrics",
    "sharing",
    "spill_size",
]

STATES_KEPT: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "scorekit_states_kept", default=True
)
"""Whether the states of the runs of an engine session are used once it ends: a cluster
that stops with the session brings the parts they keep on it here only if they are
(:func:`scorekit.engines.session`)."""


class KeptParts(Protocol):
    """Parts kept on a cluster that may stop before they are read: they can come here, or go."""

    def localize(self) -> None:
        """Bring the parts to this process (into a :class:`StoredParts`)."""

    def drop(self) -> None:
        """Let the parts go; reading them afterwards is an error that says so."""


_OWNED: dict[int, list[weakref.ref[Any]]] = {}
"""The parts made on each cluster the engine started (by the id of its client or context)."""

_KEEPS: dict[int, bool] = {}
"""Whether the states of each cluster the engine started are kept once it stops."""


@contextlib.contextmanager
def lost_on_failure(parts: KeptParts) -> Iterator[None]:
    """A block bringing ``parts`` here: if it fails (their cluster lost on the way), the
    parts not here yet are let go, and reading them says so."""
    try:
        yield
    except BaseException:
        parts.drop()
        raise


def keep_for(owner: object, parts: KeptParts) -> None:
    """Record ``parts`` as made on ``owner``: if a :func:`keeping_parts` block of ``owner``
    runs, they are brought here or let go when it ends; otherwise they stay where they are."""
    made = _OWNED.get(id(owner))
    if made is not None:
        made.append(weakref.ref(parts))


def owner_keeps(owner: object) -> bool | None:
    """Whether the states of the session of ``owner`` (a client or context) are used after it
    stops (:data:`STATES_KEPT` when its :func:`keeping_parts` block began); None when
    ``owner`` is in no such block (the engine did not start it, and does not stop it).

    Examples
    --------
    >>> owner = object()
    >>> with keeping_parts(owner):
    ...     owner_keeps(owner)
    True
    >>> owner_keeps(owner) is None
    True
    """
    return _KEEPS.get(id(owner))


@contextlib.contextmanager
def keeping_parts(owner: object) -> Iterator[None]:
    """Within the block, the parts made on ``owner`` (a cluster's client or a session's
    context the engine started and stops after) are brought here when it ends normally,
    and let go when it fails or when its session's states are not used after it
    (:data:`STATES_KEPT`).

    Each part sequence recorded by :func:`keep_for` and still in use is brought
    here (:meth:`KeptParts.localize`) or let go (:meth:`KeptParts.drop`), one
    after the other.
    """
    key = id(owner)
    made: list[weakref.ref[Any]] = []
    _OWNED[key] = made
    _KEEPS[key] = STATES_KEPT.get()
    try:
        yield
    except BaseException:
        _OWNED.pop(key, None)
        _KEEPS.pop(key, None)
        for ref in made:
            parts = ref()
            if parts is not None:
                parts.drop()
            del parts
        raise
    _OWNED.pop(key, None)
    # the choice made when the block began, which the parts were made under
    kept = _KEEPS.pop(key, True)
    for i, ref in enumerate(made):
        parts = ref()
        if parts is None:
            continue
        if not kept:
            parts.drop()
            continue
        try:
            parts.localize()
        except BaseException:
            # the cluster failed while the parts came here: the others are lost too
            for other in made[i + 1 :]:
                rest = other()
                if rest is not None:
                    rest.drop()
            raise
        del parts


DEFAULT_SPILL_SIZE = 256 << 20
"""Bytes the parted states of one fold may hold in memory before their parts go to disk."""

SPILL_SIZE_VARIABLE = "SCOREKIT_SPILL_SIZE"
"""The environment variable that sets :data:`DEFAULT_SPILL_SIZE` for a run."""


def parted_metrics(metrics: Sequence[Metric[Any]]) -> list[int]:
    """The indices of the metrics whose states are made of independent parts.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> parted_metrics([parse_metric("roc_auc"), parse_metric("roc_auc:ranges=4")])
    [1]
    """
    return [i for i, metric in enumerate(metrics) if type(metric.empty()).parted]


SPLIT_EVERY = 8
"""The most states one merge of a cluster engine combines (:data:`MERGE_BYTES` caps their
bytes)."""

MERGE_BYTES = GATHER_BYTES
"""The most bytes of states one merge of a cluster engine takes, as the stream engine
merges the states it gathers once they hold as many (:data:`~scorekit.core.GATHER_BYTES`);
whatever their bytes, a merge takes two at least (a state larger than this merges with
one neighbour) and :data:`SPLIT_EVERY` at most."""


def merge_take(sizes: Sequence[int], last: bool, cap: int) -> int:
    """How many nodes one merge takes from the front of a level, now: 0 to wait for more.

    ``sizes`` are the bytes of the nodes at the front that are there, in order,
    and ``last`` says that no other node of the level follows them. A merge takes
    the nodes in order while they hold at most ``cap`` bytes together, two at
    least and :data:`SPLIT_EVERY` at most; it waits while the nodes there hold
    less and more may come. One node left at the end of a level (1) goes up
    unmerged.

    Examples
    --------
    >>> merge_take([5, 5, 5], last=False, cap=12)
    2
    >>> merge_take([5, 5], last=False, cap=12), merge_take([5, 5], last=True, cap=10)
    (0, 2)
    >>> merge_take([5, 5], last=False, cap=10)
    2
    >>> merge_take([50, 1, 1], last=False, cap=12), merge_take([1] * 9, last=False, cap=12)
    (2, 8)
    >>> merge_take([5], last=True, cap=12)
    1
    """
    taken = total = 0
    for size in sizes:
        if taken == SPLIT_EVERY or (taken >= 2 and total + size > cap):
            return taken
        taken += 1
        total += size
    full = taken == SPLIT_EVERY or (taken >= 2 and total >= cap)
    return taken if last or full else 0


def merge_starts(sizes: Sequence[int], cap: int) -> list[int]:
    """Where each merge of a whole level starts, the level's nodes holding ``sizes`` bytes in
    order (:func:`merge_take` of what is left, merge after merge).

    Examples
    --------
    >>> merge_starts([5, 5, 5, 5, 5], cap=12)
    [0, 2, 4]
    >>> merge_starts([1] * 10, cap=100)
    [0, 8]
    """
    starts: list[int] = []
    front = 0
    while front < len(sizes):
        starts.append(front)
        front += merge_take(sizes[front:], True, cap)
    return starts


def sharing(metrics: Sequence[Metric[Any]], parted: Sequence[int]) -> dict[int, int]:
    """The parted metrics whose states are an earlier one's in every partition: each such
    metric's index -> that metric's.

    Metrics that merge alike and whose states of no data are equal (ROC AUC and AP of
    one score column in the same ranges) summarize the same rows to equal states, which
    :func:`~scorekit.core.share_equal` makes one; a cluster engine then merges their
    parts once and keeps them once. A partition whose states of such metrics are not
    one (other options that change the rows they keep) makes the engine run again
    without sharing.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> metrics = [parse_metric(m) for m in ("roc_auc:ranges=4", "ap:ranges=4", "ap:ranges=2")]
    >>> sharing(metrics, parted_metrics(metrics))
    {1: 0}
    """
    out: dict[int, int] = {}
    empties = {j: metrics[j].empty() for j in parted}
    probes = {j: _probe(metrics[j]) for j in parted}
    for b in parted:
        for a in parted:
            if a >= b:
                break
            if a in out:
                continue
            ea, eb = empties[a], empties[b]
            pa, pb = probes[a], probes[b]
            if (
                merges_alike(metrics[a], metrics[b])
                and type(ea) is type(eb)
                and ea.equals(eb)
                and (pa is None) == (pb is None)
                and (pa is None or (type(pa) is type(pb) and pa.equals(pb)))
            ):
                out[b] = a
                break
    return out


def _probe(metric: Metric[Any]) -> State | None:
    """A metric's state of three scored rows (None if it takes other inputs): metrics whose
    options keep other states (ranges of another number) keep other states of these."""
    try:
        state: State = metric.summarize([0, 1, 1], [0.25, 0.75, 0.5])
    except Exception:  # any refusal only means no sharing: the run checks each partition
        return None
    return state


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


class StoredParts(PartsOnRead[State]):
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

    def _read(self, index: int) -> State:
        return decode_state(self._file(index).read_bytes())

    def __repr__(self) -> str:
        return f"StoredParts({self._count} parts in {str(self._folder)!r})"


# the stream engine's fold of parted states ----------------------------------------------------


def spill_size() -> int:
    """Bytes the parted states of a fold may hold before they spill (``SCOREKIT_SPILL_SIZE``).

    Examples
    --------
    >>> spill_size() >= 1 << 20
    True
    """
    text = os.environ.get(SPILL_SIZE_VARIABLE)
    if not text:
        return DEFAULT_SPILL_SIZE
    return parse_size(text, SPILL_SIZE_VARIABLE)


class SpilledParts:
    """The parts of many states, appended unmerged to one file, read back one part at a time.

    :meth:`add` writes the parts of one state (each as :class:`StoredParts`
    writes a part) and returns its record number; :meth:`load` reads part
    ``index`` of a record. The file lives in a temporary directory (under
    ``TMPDIR``), removed by :meth:`close`, or when the object is no longer used.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> metric = parse_metric("roc_auc:ranges=2")
    >>> spill = SpilledParts()
    >>> record = spill.add(metric.summarize([0, 1, 1], [0.2, 0.7, 0.9]).split_parts()[1])
    >>> spill.load(record, 1).score.tolist()
    [0.7, 0.9]
    >>> spill.close()
    """

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="scorekit-spill-"))
        path = self.folder / "parts.bin"
        self._file: BinaryIO = path.open("w+b")
        self._records: list[np.ndarray | None] = []
        self._end = 0
        self._cleanup = weakref.finalize(self, _remove, self._file, str(self.folder))

    def add(self, parts: Sequence[State] | None) -> int:
        """Append the parts of one state (None: a state of no data); its record number."""
        if parts is None:
            self._records.append(None)
            return len(self._records) - 1
        offsets = np.empty(len(parts) + 1, dtype=np.int64)
        offsets[0] = self._end
        self._file.seek(self._end)
        for i in range(len(parts)):
            self._end += self._file.write(encode_state(0, parts[i]))
            offsets[i + 1] = self._end
        self._records.append(offsets)
        return len(self._records) - 1

    def count(self, record: int) -> int:
        """The number of parts of a record (0 for a state of no data)."""
        offsets = self._records[record]
        return 0 if offsets is None else offsets.size - 1

    def load(self, record: int, index: int) -> State | None:
        """Part ``index`` of a record, read from the file (None for a state of no data)."""
        offsets = self._records[record]
        if offsets is None:
            return None
        start, stop = int(offsets[index]), int(offsets[index + 1])
        self._file.seek(start)
        return decode_state(self._file.read(stop - start))

    @property
    def nbytes(self) -> int:
        """The bytes written to the file."""
        return self._end

    def close(self) -> None:
        """Remove the file and its directory."""
        self._cleanup()


def _remove(handle: BinaryIO, folder: str) -> None:
    handle.close()
    shutil.rmtree(folder, ignore_errors=True)


def _split(spilled: SpilledParts, state: State) -> tuple[State, int]:
    """A state's shell, its parts written to ``spilled`` (a state not made of parts
    whole, with a record of no parts); the shell and the record."""
    if not type(state).parted:
        return state, spilled.add(None)
    shell, parts = state.split_parts()
    return shell, spilled.add(parts)


def _split_each(spilled: SpilledParts, held: list[Any]) -> tuple[list[Any], list[int]]:
    """The shells and records of states, each distinct state split once: states that
    metrics share (:func:`~scorekit.core.share_equal`) keep one shell and one record."""
    done: dict[int, tuple[Any, int]] = {}
    for state in held:
        if id(state) not in done:
            done[id(state)] = _split(spilled, state)
    return [done[id(s)][0] for s in held], [done[id(s)][1] for s in held]


class PartedFold:
    """Parted metrics' states of consecutive chunks, merged as :class:`MergeTree` merges them.

    States are merged whole in memory until :meth:`spill` is called; from then
    on the tree merges the states' shells, and their parts go unmerged to a
    :class:`SpilledParts` file (the parts the tree held so far too, in its
    shape). :meth:`result` then merges each part on its own, in the same tree
    (same order, same groups of states for ``merge_many``), so its values are
    those of the whole states, bit for bit; each merged part goes to a
    :class:`StoredParts` before the next is read. A metric's ``merge_many``
    must merge a list of parts as it merges each part of a list of states.

    Metrics that share their states (ROC AUC and average precision of one
    score column in the same ranges, :func:`~scorekit.core.share_equal`) hold,
    write and merge them once, and get one merged state: the tree merges a
    shared state once, a shared state is split into one shell and one record,
    and a metric whose merged shell is an earlier metric's takes its result.
    The metrics' parts share one spill file, removed once every metric's
    merged parts are written.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> metric = parse_metric("roc_auc:ranges=2")
    >>> fold = PartedFold([metric])
    >>> fold.add([metric.summarize([0, 1], [0.2, 0.7])])
    >>> fold.spill()
    >>> fold.add([metric.summarize([1, 0], [0.9, 0.6])])
    >>> (state,) = fold.result()
    >>> metric.compute(state), type(state.parts).__name__
    (1.0, 'StoredParts')
    """

    def __init__(self, metrics: Sequence[Metric[Any]]) -> None:
        self.metrics = list(metrics)
        self.tree = MergeTree(self.metrics)
        self.spilled: SpilledParts | None = None
        # per entry of the tree when it spilled: its level and, per metric, the records
        # of what it held and whether that was a list of states
        self._start: list[tuple[int, list[tuple[list[int], bool]]]] = []
        # per chunk added after the spill: each metric's record
        self._records: list[list[int]] = []

    def add(self, states: Sequence[State]) -> None:
        """Add the states of the next chunk of the data, one per metric."""
        if self.spilled is None:
            self.tree.add(list(states))
            return
        shells, records = _split_each(self.spilled, list(states))
        self._records.append(records)
        self.tree.add(shells)

    def held_bytes(self) -> int:
        """The bytes of the states held in memory, a shared list or state once (shells only,
        once spilled)."""
        seen: set[int] = set()
        total = 0
        for _, entry in self.tree.stack:
            for held in entry:
                if id(held) in seen:
                    continue
                seen.add(id(held))
                if isinstance(held, list):
                    # a list the tree gathers counted its bytes as it grew
                    cached = getattr(held, "nbytes", None)
                    total += cached if cached is not None else sum(map(state_nbytes, held))
                else:
                    total += state_nbytes(held)
        return total

    def spill(self) -> None:
        """Move the parts held so far to a file, and the parts of every later state."""
        if self.spilled is not None:
            return
        spilled = self.spilled = SpilledParts()
        stack: list[tuple[int, list[Any]]] = []
        for level, entry in self.tree.stack:
            # a list of states gathered for several metrics is one list: split it once
            lists: dict[int, tuple[list[Any], list[int]]] = {}
            flat = [s for held in entry if isinstance(held, list) for s in held]
            flat += [held for held in entry if not isinstance(held, list)]
            shells, records = _split_each(spilled, flat)
            shell_of = {id(s): (sh, r) for s, sh, r in zip(flat, shells, records, strict=True)}
            kept: list[Any] = []
            marks: list[tuple[list[int], bool]] = []
            for held in entry:
                if isinstance(held, list):
                    if id(held) not in lists:
                        lists[id(held)] = (
                            [shell_of[id(s)][0] for s in held],
                            [shell_of[id(s)][1] for s in held],
                        )
                    shell_list, recs = lists[id(held)]
                    kept.append(shell_list)
                    marks.append((recs, True))
                else:
                    shell, record = shell_of[id(held)]
                    kept.append(shell)
                    marks.append(([record], False))
            self._start.append((level, marks))
            stack.append((level, kept))
            del flat, shells, shell_of, lists
        self.tree.stack = stack

    def result(self) -> list[State]:
        """The merged states; once spilled, their parts are in :class:`StoredParts`."""
        spilled = self.spilled
        if spilled is None:
            return self.tree.result()
        try:
            merged = self.tree.result()
            out: list[State] = []
            for j, state in enumerate(merged):
                earlier = next((i for i in range(j) if merged[i] is state), None)
                if earlier is not None:
                    out.append(out[earlier])
                    continue
                shell, empty = state.split_parts()
                stored = StoredParts()
                for i in range(len(empty)):
                    part = self._merged_part(spilled, j, i, len(empty), empty[i])
                    stored.append(part)
                    del part
                out.append(type(shell).from_parts(shell, stored))
            return out
        finally:
            self.close()

    def _merged_part(
        self, spilled: SpilledParts, metric: int, index: int, count: int, empty: State
    ) -> State:
        """Part ``index`` of every state of one metric added, merged in the tree of the whole
        states.

        A state of no data, or of another number of parts than the merged shell,
        adds its part ``empty``: nothing.
        """

        def load(record: int) -> State:
            if spilled.count(record) != count:
                return empty
            found = spilled.load(record, index)
            return empty if found is None else found

        tree = MergeTree([self.metrics[metric]])
        for level, marks in self._start:
            records, listed = marks[metric]
            loaded = [load(r) for r in records]
            entry: Any = loaded if listed else loaded[0]
            tree.stack.append((level, [entry]))
        for records in self._records:
            tree.add([load(records[metric])])
        (merged,) = tree.result()
        return merged

    def close(self) -> None:
        """Remove the spilled parts' file (the states :meth:`result` gave keep their own)."""
        if self.spilled is not None:
            self.spilled.close()
