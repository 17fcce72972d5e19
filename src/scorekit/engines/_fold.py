"""What the engines share: checks of their options, the per-chunk work, merging, and warnings.

The streaming engine (:mod:`scorekit.engines.stream`) and the Dask engine
(:mod:`scorekit.engines.dask`) summarize chunks (partitions) with
:func:`summarize_chunk` and merge their states with :func:`merge_states`; the
warnings the metrics raise on each chunk are gathered in :class:`Notes`, which
shows each distinct message once. Warnings about the data as a whole (``K of N
queries ...``) come from the metrics' ``compute``, from counts their states hold.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from scorekit.core import (
    MergeTree,
    Metric,
    State,
    caught,
    input_kind,
    merge_states,
    state_nbytes,
)
from scorekit.engines._columns import summarize_table
from scorekit.errors import ConfigError, ScorekitError, message, raw
from scorekit.io import format_bytes

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "MergeTree",
    "Notes",
    "SizeWatch",
    "check_cluster",
    "group_role",
    "merge_states",
    "positive_int",
    "side_input_names",
    "side_inputs",
    "state_nbytes",
    "summarize_chunk",
]

DEFAULT_CHUNK_SIZE = 65_536
"""Rows per chunk when none is given."""


# checks -------------------------------------------------------------------------------------


MAX_COUNT = 1 << 40
"""The largest chunk size, partition count or worker count an engine accepts."""


def positive_int(value: Any, name: str, *, unit: str = "") -> int:
    """``value`` as an int in ``[1, MAX_COUNT]``, else a ConfigError naming ``name``.

    Examples
    --------
    >>> positive_int(3, "chunk_size")
    3
    >>> positive_int(0, "workers")
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: evaluate: invalid workers; got 0, expected an integer >= 1.
    >>> positive_int(2**63, "chunk_size", unit="rows")
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: evaluate: chunk_size is too large; got 9223372036854775808, \
expected at most 2**40 = 1,099,511,627,776 rows.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        rule = "an integer >= 1" + (f" ({unit})" if unit else "")
        raise ConfigError(message("evaluate", f"invalid {name}", value, rule))
    if value > MAX_COUNT:
        rule = f"at most 2**40 = {MAX_COUNT:,}" + (f" {unit}" if unit else "")
        raise ConfigError(message("evaluate", f"{name} is too large", value, rule))
    return int(value)


def check_cluster(
    scheduler: Any, workers: Any, *, local: str, remote: str, invalid: str, address: str
) -> None:
    """Check a cluster engine's options: where its cluster is, or the size of a local one.

    ``local`` names the local cluster whose size ``workers`` is, ``remote`` what
    ``scheduler`` names, ``invalid`` the error of a scheduler that is not a
    string, and ``address`` what one looks like.

    Examples
    --------
    >>> where = dict(
    ...     local="a local cluster",
    ...     remote="scheduler",
    ...     invalid="invalid scheduler",
    ...     address="an address like tcp://HOST:8786",
    ... )
    >>> check_cluster(None, 2, **where)
    >>> check_cluster("tcp://h:8786", 2, **where)
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: evaluate: workers is the size of a local cluster and cannot go \
with a scheduler; got scheduler='tcp://h:8786', workers=2, expected one of them.
    """
    if scheduler is not None and workers is not None:
        raise ConfigError(
            message(
                "evaluate",
                f"workers is the size of {local} and cannot go with a {remote}",
                raw(f"scheduler={scheduler!r}, workers={workers!r}"),
                "one of them",
            )
        )
    if workers is not None:
        positive_int(workers, "number of workers")
    if scheduler is not None and (not isinstance(scheduler, str) or not scheduler.strip()):
        raise ConfigError(message("evaluate", invalid, scheduler, address))


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


# warnings -----------------------------------------------------------------------------------


class Notes:
    """Warnings raised while summarizing chunks, each distinct message once.

    Several chunks may raise the same warning; each distinct message is kept
    once, in the order first raised. Notes travel between Dask workers (plain
    data, pickled).

    Examples
    --------
    >>> notes = Notes()
    >>> notes.add(UserWarning, "f1: no positive sample.")
    >>> notes.add(UserWarning, "f1: no positive sample.")
    >>> notes.messages()
    [(<class 'UserWarning'>, 'f1: no positive sample.')]
    """

    def __init__(self) -> None:
        self.seen: dict[tuple[type[Warning], str], None] = {}

    def add(self, category: type[Warning], text: str) -> None:
        """Keep one warning (a repeat of a kept one changes nothing)."""
        self.seen.setdefault((category, text))

    def record(self, caught: Iterable[warnings.WarningMessage]) -> None:
        """Keep the warnings caught while summarizing one chunk."""
        for w in caught:
            self.add(w.category, str(w.message))

    def update(self, other: Notes) -> None:
        """Keep the warnings of other chunks."""
        for key in other.seen:
            self.seen.setdefault(key)

    def messages(self) -> list[tuple[type[Warning], str]]:
        """Category and text of every distinct warning, in the order first raised."""
        return list(self.seen)

    def emit(self, stacklevel: int = 2) -> None:
        """Raise every distinct warning once."""
        for category, text in self.messages():
            warnings.warn(text, category, stacklevel=stacklevel + 1)


# the per-chunk work ---------------------------------------------------------------------------


def summarize_chunk(
    metrics: Sequence[Metric[Any]],
    table: Any,
    mapping: Mapping[str, tuple[str, ...]],
    side: Mapping[str, Any] | None = None,
    first_row: int = 0,
) -> tuple[list[State], Notes]:
    """The states of one chunk (or partition) and the warnings the metrics raised on it.

    A chunk of no rows may have lost its column types (a Dask partition of
    object columns): a metric that cannot read it contributes its empty state,
    the identity of merge.
    """
    notes = Notes()

    def summarize() -> list[State]:
        if table.num_rows:
            return summarize_table(metrics, table, mapping, side, first_row)
        states: list[State] = []
        for metric in metrics:
            try:
                states.extend(summarize_table([metric], table, mapping, side, first_row))
            except ScorekitError:
                states.append(metric.empty())
        return states

    states, found = caught(summarize)
    notes.record(found)
    return states, notes


# exact states that grow with the data ---------------------------------------------------------


class SizeWatch:
    """Notes once per metric that its state has grown past a size, with what keeps it small.

    Metrics that give :attr:`~scorekit.core.Metric.size_advice` are watched:
    those registered as growing with a bounded form (``roc_auc:bins=N``), and
    bootstraps, whose state holds a copy of the metric's state per replicate.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> metric = parse_metric("roc_auc")
    >>> watch = SizeWatch([metric], limit=64)
    >>> tree = MergeTree([metric])
    >>> tree.add([metric.summarize([0, 1, 0, 1] * 10, [0.1 * i for i in range(40)])])
    >>> notes = Notes()
    >>> watch.check(tree, notes)
    >>> print(notes.messages()[0][1])  # doctest: +ELLIPSIS
    roc_auc: the exact state has grown past 64 B ...; roc_auc:bins=N keeps it bounded...
    """

    def __init__(self, metrics: Sequence[Metric[Any]], limit: int) -> None:
        self.limit = limit
        self.watched: dict[int, tuple[str, str, str]] = {}
        for i, metric in enumerate(metrics):
            advice = metric.size_advice
            if advice is not None:
                self.watched[i] = advice

    def check(self, tree: MergeTree, notes: Notes) -> None:
        """Note every watched metric whose partial states in ``tree`` exceed the size."""
        for i, (subject, growth, advice) in list(self.watched.items()):
            size = tree.held_bytes(i)
            if size > self.limit:
                del self.watched[i]
                notes.add(
                    UserWarning,
                    f"{tree.metrics[i].name}: the {subject} has grown past "
                    f"{format_bytes(self.limit)} ({growth}; "
                    f"the limit is SCOREKIT_STATE_WARNING_SIZE or --state-warning); {advice}.",
                )
