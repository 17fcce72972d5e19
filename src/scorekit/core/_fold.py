"""The one fold of states: many states of consecutive parts of the data merged into one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scorekit.core._metric import Metric
from scorekit.core._state import State

__all__ = ["MergeTree", "merge_states"]


def merge_states(
    metrics: Sequence[Metric[Any]], left: Sequence[State], right: Sequence[State]
) -> list[State]:
    """The states of two consecutive parts of the data merged, metric by metric, left first."""
    return [m.merge(a, b) for m, a, b in zip(metrics, left, right, strict=True)]


FAN_IN = 64
"""States gathered for one ``merge_many`` by metrics that defer their merges."""


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
        for metric, a, b in zip(self.metrics, left, right, strict=True):
            if getattr(metric, "defers_merges", False):
                # gather the states and merge them together, FAN_IN at a time; the
                # gathered lists are the tree's own, so the left one takes the right's
                pending = a if isinstance(a, list) else [a]
                pending.extend(b if isinstance(b, list) else [b])
                out.append(_merge_gathered(metric, pending) if len(pending) >= FAN_IN else pending)
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
        return [
            _merge_gathered(metric, s) if isinstance(s, list) else s
            for metric, s in zip(self.metrics, states, strict=True)
        ]

    def partial_states(self) -> list[list[State]]:
        """Per metric, the states held now (merged or waiting to be merged)."""
        held: list[list[State]] = [[] for _ in self.metrics]
        for _, states in self.stack:
            for i, s in enumerate(states):
                held[i].extend(s if isinstance(s, list) else [s])
        return held


def _merge_gathered(metric: Metric[Any], states: list[Any]) -> Any:
    """The merge of states the tree gathered and gives away (by ``merge_taken`` if any)."""
    taken = getattr(metric, "merge_taken", None)
    return metric.merge_many(states) if taken is None else taken(states)
