"""The one fold of states: many states of consecutive parts of the data merged into one."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from scorekit.core._metric import Metric
from scorekit.core._state import State

__all__ = [
    "FAN_IN",
    "GATHER_BYTES",
    "MergeTree",
    "merge_shared",
    "merge_states",
    "merges_alike",
    "same_state",
    "share_equal",
    "state_nbytes",
]


def merge_states(
    metrics: Sequence[Metric[Any]], left: Sequence[State], right: Sequence[State]
) -> list[State]:
    """The states of two consecutive parts of the data merged, metric by metric, left first."""
    return [m.merge(a, b) for m, a, b in zip(metrics, left, right, strict=True)]


_MERGING = ("merge", "merge_many", "merge_taken", "defers_merges")
"""What decides how a metric merges its states."""


def merges_alike(a: Any, b: Any) -> bool:
    """Whether two metrics merge states by the same code (equal states then merge equal):
    the same merge methods, and so for the metrics they fold into (``folded``) when they
    wrap one. A metric's merge depends on its states alone, not on its settings.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> merges_alike(parse_metric("roc_auc"), parse_metric("average_precision"))
    True
    >>> merges_alike(parse_metric("roc_auc"), parse_metric("accuracy"))
    False
    """
    while True:
        if any(getattr(type(a), n, None) is not getattr(type(b), n, None) for n in _MERGING):
            return False
        a, b = getattr(a, "folded", None), getattr(b, "folded", None)
        if a is None or b is None:
            return a is b


def share_equal(metrics: Sequence[Metric[Any]], states: Sequence[State]) -> list[State]:
    """The states, each equal to the state of an earlier metric that merges alike replaced by it.

    Metrics that summarize the same columns the same way (ROC AUC and average
    precision of one score column, exact or in the same ranges) then hold one
    state object between them: an engine that keeps partitions' states until
    they merge holds it once, and pickles it once. States are values that
    nothing changes in place, so sharing changes no result.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> metrics = [parse_metric("roc_auc"), parse_metric("average_precision")]
    >>> a, b = share_equal(metrics, [m.summarize([0, 1], [0.2, 0.9]) for m in metrics])
    >>> a is b
    True
    """
    out = list(states)
    for j in range(1, len(out)):
        for i in range(j):
            if out[i] is out[j]:
                break
            if merges_alike(metrics[i], metrics[j]) and same_state(out[i], out[j]):
                out[j] = out[i]
                break
    return out


def same_state(a: State, b: State) -> bool:
    """Whether two states are one: equal, of one class, with arrays of the same types.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> metric = parse_metric("roc_auc")
    >>> a = metric.summarize([0, 1], [0.2, 0.9])
    >>> same_state(a, metric.summarize([0, 1], [0.2, 0.9]))
    True
    >>> same_state(a, metric.summarize([0, 1], [0.2, 0.9], sample_weight=[1.0, 1.0]))
    False
    """
    return a is b or (type(a) is type(b) and _same_types(a, b) and a.equals(b))


def _same_types(a: Any, b: Any) -> bool:
    """Whether two equal states hold arrays of the same types (float32 scores are equal
    to the same scores as float64, but a state of its own would keep its type)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
    if isinstance(a, State):
        return type(a) is type(b) and all(
            _same_types(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a)
        )
    if isinstance(a, tuple | list):
        return isinstance(b, tuple | list) and len(a) == len(b) and all(map(_same_types, a, b))
    return True


def merge_shared(
    metrics: Sequence[Metric[Any]], left: Sequence[State], right: Sequence[State]
) -> list[State]:
    """:func:`merge_states`, merging once the states metrics share (:func:`share_equal`).

    A metric whose two states are both those of an earlier metric that merges alike
    gets that metric's merged state, which is what its own merge would give.
    """
    out: list[State] = []
    for j, k in enumerate(_merged_by(metrics, left, right)):
        out.append(out[k] if k < j else metrics[j].merge(left[j], right[j]))
    return out


def _merged_by(
    metrics: Sequence[Metric[Any]], left: Sequence[Any], right: Sequence[Any]
) -> list[int]:
    """For each metric, the metric whose merge it takes: itself, or the first earlier one
    that merges alike and whose two operands are the same objects as its own."""
    first: dict[tuple[int, int], list[int]] = {}
    out: list[int] = []
    for j, (a, b) in enumerate(zip(left, right, strict=True)):
        earlier = first.setdefault((id(a), id(b)), [])
        k = next((k for k in earlier if merges_alike(metrics[k], metrics[j])), j)
        if k == j:
            earlier.append(j)
        out.append(k)
    return out


FAN_IN = 64
"""States gathered for one ``merge_many`` by metrics that defer their merges."""

GATHER_BYTES = 256 << 20
"""Bytes of gathered states past which they are merged, however few (states of
fixed size, such as fine bin counts, would otherwise be held 64 at a time)."""


def state_nbytes(state: State) -> int:
    """The bytes of the arrays a state holds (its fields, one level into tuples and lists,
    and the states it holds)."""
    total = 0
    for field in dataclasses.fields(state):
        value = getattr(state, field.name)
        items = value if isinstance(value, tuple | list) else (value,)
        for item in items:
            if isinstance(item, State):
                total += state_nbytes(item)
            else:
                total += _held_bytes(item)
    return total


def _held_bytes(value: Any) -> int:
    """The bytes an array holds: a broadcast view (a stride of 0) holds one element per
    position of its other dimensions, not one per element it shows."""
    if not isinstance(value, np.ndarray):
        return int(getattr(value, "nbytes", 0))
    held = value.itemsize
    for size, stride in zip(value.shape, value.strides, strict=True):
        held *= size if stride else min(size, 1)
    return int(held)


class MergeTree:
    """Merges a sequence of state lists pairwise, like a binary counter.

    Equal-sized neighbours are merged as soon as both exist, so ``n`` chunks cost
    ``n - 1`` merges, at most ``log2(n)`` partial states are kept, and states that
    grow with the data (histograms, per-query values) are merged in ``O(total *
    log n)`` instead of ``O(total * n)``. Earlier data is always the left operand.

    A metric that sets ``defers_merges`` (its state is sorted runs that merge
    best many at a time) gets up to :data:`FAN_IN` states at once in one
    ``merge_many`` call instead of pairwise merges. The tree keeps no hold on
    the states it gathers for one: a metric with a ``merge_taken`` method
    (``merge_many`` of a list given away, which it may empty) gets the list
    itself, so it can let go of each state as it merges it.
    """

    def __init__(self, metrics: Sequence[Metric[Any]]) -> None:
        self.metrics = list(metrics)
        self.stack: list[tuple[int, list[State]]] = []

    def add(self, states: list[State]) -> None:
        """Add the states of the next part of the data."""
        level = 0
        while self.stack and self.stack[-1][0] == level:
            _, older = self.stack.pop()
            states = self._merge(older, states)
            level += 1
        self.stack.append((level, states))

    def _merge(self, left: list[Any], right: list[Any]) -> list[Any]:
        out: list[Any] = []
        # a metric whose two operands are both an earlier metric's that merges alike
        # (states shared by :func:`share_equal`) takes that metric's merge
        by = _merged_by(self.metrics, left, right)
        # a gathered list that several merges take is copied by each, not extended
        taken = [id(left[j]) for j, k in enumerate(by) if k == j]
        for j, (metric, a, b) in enumerate(zip(self.metrics, left, right, strict=True)):
            if by[j] < j:
                out.append(out[by[j]])
            elif getattr(metric, "defers_merges", False):
                # gather the states and merge them together, FAN_IN at a time; the
                # gathered lists are the tree's own, so the left one takes the right's
                if isinstance(a, _Gathered) and taken.count(id(a)) == 1:
                    pending = a
                else:
                    pending = _Gathered(a if isinstance(a, list) else [a])
                pending.add(b if isinstance(b, list) else [b])
                full = len(pending) >= FAN_IN or pending.nbytes >= GATHER_BYTES
                out.append(_merge_gathered(metric, pending) if full else pending)
            else:
                out.append(metric.merge(a, b))
        return out

    def result(self) -> list[State]:
        """The states of all the parts added, merged in order (the empty states if none).

        The tree hands its states over to the merge and is empty afterwards.
        """
        if not self.stack:
            return [m.empty() for m in self.metrics]
        stack, self.stack = self.stack, []
        _, states = stack.pop()
        while stack:
            _, older = stack.pop()
            states = self._merge(older, states)
            del older
        out: list[State] = []
        done: dict[int, int] = {}
        for j, (metric, s) in enumerate(zip(self.metrics, states, strict=True)):
            if not isinstance(s, list):
                out.append(s)
            elif id(s) in done:
                # a list shared with an earlier metric that merges alike (``_merge``)
                out.append(out[done[id(s)]])
            else:
                done[id(s)] = j
                out.append(_merge_gathered(metric, s))
        return out

    def held_bytes(self, index: int) -> int:
        """The bytes of the states held now for metric ``index`` (:func:`state_nbytes`)."""
        total = 0
        for _, states in self.stack:
            held = states[index]
            total += _Gathered.bytes_of(held) if isinstance(held, list) else state_nbytes(held)
        return total

    def partial_states(self) -> list[list[State]]:
        """Per metric, the states held now (merged or waiting to be merged)."""
        held: list[list[State]] = [[] for _ in self.metrics]
        for _, states in self.stack:
            for i, s in enumerate(states):
                held[i].extend(s if isinstance(s, list) else [s])
        return held


class _Gathered(list[Any]):
    """States gathered for one merge, with the bytes they hold counted as they come."""

    def __init__(self, states: list[Any]) -> None:
        super().__init__(states)
        self.nbytes = self.bytes_of(states)

    @staticmethod
    def bytes_of(states: list[Any]) -> int:
        """The bytes of gathered states: counted already, or counted now."""
        if isinstance(states, _Gathered):
            return states.nbytes
        return sum(state_nbytes(s) for s in states)

    def add(self, states: list[Any]) -> None:
        """Gather more states."""
        self.extend(states)
        self.nbytes += self.bytes_of(states)


def _merge_gathered(metric: Metric[Any], states: list[Any]) -> Any:
    """The merge of states the tree gathered and gives away (by ``merge_taken`` if any)."""
    taken = getattr(metric, "merge_taken", None)
    return metric.merge_many(states) if taken is None else taken(states)
