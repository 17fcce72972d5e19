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

from scorekit.core import MergeTree, Metric, State, input_kind, merge_states
from scorekit.engines._columns import summarize_counted
from scorekit.errors import ConfigError, ScorekitError, message

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "MergeTree",
    "Notes",
    "count_unit",
    "group_role",
    "merge_states",
    "positive_int",
    "side_input_names",
    "side_inputs",
    "sum_counts",
    "summarize_chunk",
]

DEFAULT_CHUNK_SIZE = 65_536
"""Rows per chunk when none is given."""


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


def side_inputs(metrics: Sequence[Metric[Any]], given: Mapping[str, Any]) -> dict[str, Any]:
    """The inputs given beside the table (ranking's ``qrels``), checked and loaded once.

    Each input kind of ``metrics`` that takes side inputs prepares them (loads
    a qrels file, say); a side input that no metric takes is left to the caller.
    """
    side = {k: v for k, v in given.items() if v is not None}
    done: set[str] = set()
    for metric in metrics:
        kind = input_kind(metric.inputs)
        if kind.name in done or kind.prepare is None:
            continue
        done.add(kind.name)
        side = kind.prepare(metric.name, side)
    return side


def side_input_names(metrics: Sequence[Metric[Any]]) -> set[str]:
    """The names of the side inputs the metrics' input kinds take."""
    return {name for m in metrics for name in input_kind(m.inputs).side_inputs}


def group_role(metric: Metric[Any]) -> str | None:
    """The role whose rows must meet in one chunk for this metric (None if any chunking does)."""
    return input_kind(metric.inputs).group_by


def count_unit(metrics: Sequence[Metric[Any]]) -> str | None:
    """What the metrics' input kinds count in ``K of N`` warnings (one unit), if anything."""
    units = {input_kind(m.inputs).unit for m in metrics} - {None}
    return next(iter(units)) if len(units) == 1 else None


# warnings -----------------------------------------------------------------------------------

_COUNT = re.compile(r"\b(\d+) of (\d+)\b")


class Notes:
    """Warnings raised while summarizing chunks, each message once with its counts summed.

    A chunk warns about its own part (``map: 3 of 40 queries have no relevant
    document``); messages that differ only in such ``K of N`` counts are one
    message about the whole data, with the ``K`` added up. ``N`` is added up
    too, except that a count of the input kind's unit (``queries``) is out of
    every unit counted in any chunk (:attr:`queries`), since chunks with no such
    case do not warn.
    Notes travel between Dask workers (plain data, pickled).

    Examples
    --------
    >>> notes = Notes()
    >>> notes.add(UserWarning, "map: 1 of 1 queries are empty.")
    >>> notes.queries = 3
    >>> notes.messages()
    [(<class 'UserWarning'>, 'map: 1 of 3 queries are empty.')]
    """

    def __init__(self, unit: str | None = "queries") -> None:
        self.shapes: dict[tuple[type[Warning], str], list[int]] = {}
        self.queries = 0
        self.unit = unit

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
        totals = {self.unit: self.queries} if self.queries and self.unit else {}
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
    metrics: Sequence[Metric[Any]],
    table: Any,
    mapping: Mapping[str, tuple[str, ...]],
    side: Mapping[str, Any] | None = None,
) -> tuple[list[State], Notes]:
    """The states of one chunk (or partition) and the warnings the metrics raised on it.

    A chunk of no rows may have lost its column types (a Dask partition of
    object columns): a metric that cannot read it contributes its empty state,
    the identity of merge.
    """
    notes = Notes(count_unit(metrics))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if table.num_rows:
            states, notes.queries = summarize_counted(metrics, table, mapping, side)
        else:
            states = []
            for metric in metrics:
                try:
                    states.extend(summarize_counted([metric], table, mapping, side)[0])
                except ScorekitError:
                    states.append(metric.empty())
    notes.record(caught)
    return states, notes
