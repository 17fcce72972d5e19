"""What the engines share: checks of their options, the per-chunk work, merging, and warnings.

The streaming engine (:mod:`scorekit.engines.stream`) and the Dask engine
(:mod:`scorekit.engines.dask`) summarize chunks (partitions) with
:func:`summarize_chunk` and merge their states with :func:`merge_states`; the
warnings the metrics raise on each chunk are gathered in :class:`Notes`, which
shows each message once with its ``K of N`` counts summed over the chunks, so
the warning is the one the whole data gives in memory.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from scorekit.core import Metric, State
from scorekit.engines._columns import summarize_counted
from scorekit.errors import ConfigError, ScorekitError, choices, message, raw

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "ENGINES",
    "MergeTree",
    "Notes",
    "check_cluster",
    "load_qrels",
    "merge_states",
    "positive_int",
    "sum_counts",
    "summarize_chunk",
]

ENGINES = ("stream", "dask")
"""The engines :func:`scorekit.evaluate` runs on."""

DEFAULT_CHUNK_SIZE = 65_536
"""Rows per chunk when none is given."""

RANKING = "qrels_run"
"""The input kind of ranking metrics, whose rows of a query must meet in one state."""


# checks -------------------------------------------------------------------------------------


def positive_int(value: Any, name: str, *, unit: str = "") -> int:
    """``value`` as an int when it is a whole number >= 1, else a ConfigError naming ``name``.

    Examples
    --------
    >>> positive_int(3, "chunk_size")
    3
    >>> positive_int(0, "workers")
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: evaluate: invalid workers; got 0, expected an integer >= 1.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        rule = "an integer >= 1" + (f" ({unit})" if unit else "")
        raise ConfigError(message("evaluate", f"invalid {name}", value, rule))
    return int(value)


def check_cluster(engine: str, scheduler: Any, workers: Any) -> None:
    """Check the cluster options: Dask's only, and a scheduler or a local cluster's size.

    Examples
    --------
    >>> check_cluster("dask", None, 2)
    >>> check_cluster("stream", None, 2)
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: evaluate: scheduler and workers are options of the Dask engine; ...
    """
    if engine not in ENGINES:
        raise ConfigError(message("evaluate", "unknown engine", engine, choices(ENGINES)))
    if engine != "dask":
        if scheduler is not None or workers is not None:
            raise ConfigError(
                message(
                    "evaluate",
                    "scheduler and workers are options of the Dask engine",
                    raw(f"engine={engine!r}"),
                    "engine='dask'",
                )
            )
        return
    if scheduler is not None and workers is not None:
        raise ConfigError(
            message(
                "evaluate",
                "workers is the size of a local cluster and cannot go with a scheduler",
                raw(f"scheduler={scheduler!r}, workers={workers!r}"),
                "one of them",
            )
        )
    if workers is not None:
        positive_int(workers, "number of workers")
    if scheduler is not None and (not isinstance(scheduler, str) or not scheduler.strip()):
        raise ConfigError(
            message("evaluate", "invalid scheduler", scheduler, "an address like tcp://HOST:8786")
        )


def load_qrels(metrics: Sequence[Metric[Any]], qrels: Any) -> Any:
    """The judgments of the ranking metrics among ``metrics``, loaded once (None if none)."""
    ranked = [m for m in metrics if m.inputs == RANKING]
    if not ranked:
        return qrels
    if qrels is None:
        raise ConfigError(
            message(
                ranked[0].name,
                "needs relevance judgments",
                None,
                "qrels=... (a Qrels, a {query: {doc: grade}} dict or a TREC qrels path)",
            )
        )
    from scorekit.ranking import as_qrels

    return as_qrels(qrels)


# warnings -----------------------------------------------------------------------------------

_COUNT = re.compile(r"\b(\d+) of (\d+)\b")


class Notes:
    """Warnings raised while summarizing chunks, each message once with its counts summed.

    A chunk warns about its own part (``map: 3 of 40 queries have no relevant
    document``); messages that differ only in such ``K of N`` counts are one
    message about the whole data, with the ``K`` added up. ``N`` is added up
    too, except that a count of ``queries`` is out of every query judged in any
    chunk (:attr:`queries`), since chunks with no such query do not warn.
    Notes travel between Dask workers (plain data, pickled).

    Examples
    --------
    >>> notes = Notes()
    >>> notes.add(UserWarning, "map: 1 of 1 queries are empty.")
    >>> notes.queries = 3
    >>> notes.messages()
    [(<class 'UserWarning'>, 'map: 1 of 3 queries are empty.')]
    """

    def __init__(self) -> None:
        self.shapes: dict[tuple[type[Warning], str], list[int]] = {}
        self.queries = 0

    def add(self, category: type[Warning], text: str) -> None:
        """Count one warning."""
        shape = _COUNT.sub("{}", text)
        counts = [int(n) for pair in _COUNT.findall(text) for n in pair]
        key = (category, shape)
        before = self.shapes.get(key)
        if before is None:
            self.shapes[key] = counts
        elif len(before) == len(counts):
            self.shapes[key] = [a + b for a, b in zip(before, counts, strict=True)]

    def record(self, caught: Iterable[warnings.WarningMessage]) -> None:
        """Count the warnings caught while summarizing one chunk."""
        for w in caught:
            self.add(w.category, str(w.message))

    def update(self, other: Notes) -> None:
        """Add the warnings and judged queries of other chunks."""
        for (category, shape), counts in other.shapes.items():
            key = (category, shape)
            before = self.shapes.get(key)
            if before is None:
                self.shapes[key] = list(counts)
            elif len(before) == len(counts):
                self.shapes[key] = [a + b for a, b in zip(before, counts, strict=True)]
        self.queries += other.queries

    def messages(self) -> list[tuple[type[Warning], str]]:
        """Category and text of every distinct warning, in the order first raised."""
        totals = {"queries": self.queries} if self.queries else {}
        return [(cat, _fill(shape, counts, totals)) for (cat, shape), counts in self.shapes.items()]

    def emit(self, stacklevel: int = 2) -> None:
        """Raise every distinct warning once."""
        for category, text in self.messages():
            warnings.warn(text, category, stacklevel=stacklevel + 1)


def sum_counts(texts: Sequence[str]) -> list[str]:
    """Distinct warnings, with the ``K of N`` counts of repeats summed.

    Chunks warn about their own part (``3 of 40 queries have no relevant
    document``); messages that differ only in such counts are one message
    about the whole data, with the counts added up.

    Examples
    --------
    >>> sum_counts(["map: 1 of 4 queries are empty.", "map: 2 of 5 queries are empty.", "x"])
    ['map: 3 of 9 queries are empty.', 'x']
    """
    notes = Notes()
    for text in texts:
        notes.add(Warning, text)
    return [text for _, text in notes.messages()]


def _fill(shape: str, counts: list[int], totals: Mapping[str, int]) -> str:
    parts = shape.split("{}")
    text = parts[0]
    for i, rest in enumerate(parts[1:]):
        words = rest.split(maxsplit=1)
        unit = words[0] if words and rest[:1].isspace() else ""
        whole = totals.get(unit, counts[2 * i + 1])
        text += f"{counts[2 * i]} of {whole}" + rest
    return text


# the per-chunk work ---------------------------------------------------------------------------


def summarize_chunk(
    metrics: Sequence[Metric[Any]], table: Any, mapping: Mapping[str, tuple[str, ...]], qrels: Any
) -> tuple[list[State], Notes]:
    """The states of one chunk (or partition) and the warnings the metrics raised on it.

    A chunk of no rows may have lost its column types (a Dask partition of
    object columns): a metric that cannot read it contributes its empty state,
    the identity of merge.
    """
    notes = Notes()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if table.num_rows:
            states, notes.queries = summarize_counted(metrics, table, mapping, qrels=qrels)
        else:
            states = []
            for metric in metrics:
                try:
                    states.extend(summarize_counted([metric], table, mapping, qrels=qrels)[0])
                except ScorekitError:
                    states.append(metric.empty())
    notes.record(caught)
    return states, notes


def merge_states(
    metrics: Sequence[Metric[Any]], left: Sequence[State], right: Sequence[State]
) -> list[State]:
    """The states of two consecutive parts of the data merged, metric by metric, left first."""
    return [m.merge(a, b) for m, a, b in zip(metrics, left, right, strict=True)]


class MergeTree:
    """Merges a sequence of state lists pairwise, like a binary counter.

    Equal-sized neighbours are merged as soon as both exist, so ``n`` chunks cost
    ``n - 1`` merges, at most ``log2(n)`` partial states are kept, and states that
    grow with the data (histograms, per-query values) are merged in ``O(total *
    log n)`` instead of ``O(total * n)``. Earlier data is always the left operand.
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

    def _merge(self, left: list[State], right: list[State]) -> list[State]:
        return merge_states(self.metrics, left, right)

    def result(self) -> list[State]:
        """The states of all the parts added, merged in order (the empty states if none)."""
        if not self.stack:
            return [m.empty() for m in self.metrics]
        states = self.stack[-1][1]
        for _, older in reversed(self.stack[:-1]):
            states = self._merge(older, states)
        return states
