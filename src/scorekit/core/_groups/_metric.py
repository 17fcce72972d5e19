"""The per-group metric: :class:`Grouped`, and per-group summaries through an input kind's hook."""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit.core._caught import caught, reraise
from scorekit.core._groups._columns import GroupKey, _split, _take, group_columns, table_groups
from scorekit.core._groups._values import ByGroup, GroupStates, _label
from scorekit.core._inputs import input_kind
from scorekit.core._metric import Metric
from scorekit.core._registry import parse_metric
from scorekit.core._state import State
from scorekit.errors import ConfigError, InputError, message, raw


@dataclass(frozen=True)
class Grouped(Metric[GroupStates]):
    """A metric on all the rows and on each group of rows, as one mergeable metric.

    Parameters
    ----------
    metric : str or Metric
        The metric, as a metric string (``"f1:macro"``) or a configured metric.
    by : str or tuple of str
        The column(s) whose values form the groups; ``summarize`` takes their
        values as ``group=`` (one array for one column, a sequence of arrays
        for several). Group values are strings, integers or booleans; a missing
        value (null, NaN, empty string) is an error naming its row, as is a
        float column.

    Notes
    -----
    The state holds the metric's state of all the rows and of each group, so
    memory grows with the number of groups. A group whose value is undefined
    (one class for ROC AUC, no positive sample for recall) warns with the
    group's name; the value follows the metric's own policy. A metric keyed
    by row position (a bootstrap without a key column) is given each group's
    rows with their positions in the data, so a row keeps its replicate
    weights in its group however the data is chunked; for input kinds that
    summarize through their family's hook (request records, ranking runs) it
    needs a key column instead.

    Examples
    --------
    >>> grouped = Grouped("accuracy", by="country")
    >>> state = grouped.summarize([1, 0, 1, 1], [1, 1, 1, 0], group=["fr", "fr", "de", "de"])
    >>> found = grouped.compute(state)
    >>> found.overall, found.by_group, found.sizes
    (0.5, {'de': 0.5, 'fr': 0.5}, {'de': 2, 'fr': 2})
    """

    metric: Any
    by: Any = ()

    inner: Metric[Any] = field(init=False, repr=False, compare=False)

    key_role: ClassVar[str] = "group"
    key_conversion: ClassVar[str] = "groups"

    def __post_init__(self) -> None:
        by = (self.by,) if isinstance(self.by, str) else self.by
        if (
            not isinstance(by, Sequence)
            or not by
            or not all(isinstance(b, str) and b for b in by)
            or len(set(by)) != len(by)
        ):
            raise ConfigError(
                message("evaluate", "invalid by", self.by, "a column name or distinct names")
            )
        inner = self.metric if isinstance(self.metric, Metric) else parse_metric(self.metric)
        if isinstance(inner, Grouped):
            raise ConfigError(
                message(inner.name, "is grouped already", raw(f"by {list(inner.by)}"), "one by")
            )
        if inner.wraps is not None or not input_kind(inner.inputs).roles:
            raise ConfigError(
                message(
                    inner.name,
                    "cannot be evaluated per group: its inputs are not rows",
                    raw(f"input kind {inner.inputs!r}"),
                    "a metric of rows: labels, scores, values, texts, requests or a run",
                )
            )
        if getattr(inner, "missing", None) == "zero":
            raise ConfigError(
                message(
                    inner.name,
                    "cannot be evaluated per group with missing='zero'",
                    raw("qrels queries absent from the run have no rows to say their group"),
                    "missing='skip'",
                )
            )
        if inner.positional and input_kind(inner.inputs).summarize is not None:
            raise ConfigError(
                message(
                    inner.name,
                    "cannot be evaluated per group with units keyed by row position",
                    raw(f"input kind {inner.inputs!r}, summarized through its family's hook"),
                    "units keyed by a column (a bootstrap with key=COL)",
                )
            )
        object.__setattr__(self, "metric", inner)
        object.__setattr__(self, "inner", inner)
        object.__setattr__(self, "by", tuple(by))

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def inputs(self) -> str:
        return self.inner.inputs

    @property
    def reads(self) -> type[Metric[Any]]:
        """The class whose ``summarize`` names the inputs read (the wrapped metric's)."""
        return self.inner.reads

    @property
    def key_column(self) -> str:
        """The first group column (all of them: :attr:`key_columns`)."""
        return str(self.by[0])

    @property
    def positional(self) -> bool:
        """Whether the wrapped metric keys units by row position (``first_row=``)."""
        return self.inner.positional

    @property
    def unit(self) -> str:
        """The wrapped metric's unit (``row``, ``segment``...)."""
        return str(getattr(self.inner, "unit", "row"))

    @property
    def key_columns(self) -> tuple[str, ...]:
        """The group columns, read together as the input ``group``."""
        return tuple(self.by)

    @property
    def key_roles(self) -> dict[str, tuple[str, tuple[str, ...]]]:
        """The group columns, and the key columns of the wrapped metric (a keyed bootstrap)."""
        return {**self.inner.key_roles, self.key_role: (self.key_conversion, tuple(self.by))}

    @property
    def grows(self) -> bool:
        """Whether the wrapped metric's state grows with the data."""
        return self.inner.grows

    @property
    def size_advice(self) -> tuple[str, str, str] | None:
        """The wrapped metric's, for a state of it per group."""
        advice = self.inner.size_advice
        if advice is None:
            return None
        return (f"per-group {advice[0]}", f"{advice[1]}, in every group", advice[2])

    def _where(self) -> str:
        return f"{self.inner.name} by {', '.join(self.by)}"

    def empty(self) -> GroupStates:
        return self._state(
            self.inner.empty(),
            tuple(np.empty(0, dtype=str) for _ in self.by),
            np.zeros(0, dtype=np.int64),
            (),
        )

    def _state(
        self,
        overall: State,
        keys: tuple[NDArray[Any], ...],
        sizes: NDArray[np.int64],
        states: tuple[State, ...],
    ) -> GroupStates:
        return GroupStates(
            metric=self.inner.name,
            by=np.array(self.by, dtype=str),
            overall=overall,
            keys=keys,
            sizes=sizes,
            states=states,
        )

    def summarize(self, *batch: Any, group: Any = None, **kwargs: Any) -> GroupStates:
        """The wrapped metric's state of the batch and of each group of its rows."""
        where = self._where()
        columns = group_columns(where, self.by, group)
        rows = len(columns[0])
        overall = self.inner.summarize(*batch, **kwargs)
        first_row = int(kwargs.pop("first_row", 0))
        keys, sizes, parts = _split(columns)
        states = []
        for index in parts:
            part = [_take(b, index, rows, where) for b in batch]
            options = {k: _take(v, index, rows, where) for k, v in kwargs.items()}
            if self.inner.positional:
                # a group's rows keep the positions they have in the data
                options.update(first_row=first_row, positions=first_row + index)
            states.append(self.inner.summarize(*part, **options))
        return self._state(overall, keys, sizes, tuple(states))

    def compute(self, state: GroupStates) -> ByGroup:
        """The value overall and per group; a group's warnings name the group."""
        return self.values_of(state, self.inner.compute)

    @property
    def sampler(self) -> Metric[Any] | None:
        """The grouped metric's first pass, over all the rows (one setting for every group)."""
        return self.inner.sampler

    def sampled(self, state: Any) -> Metric[Any]:
        """The grouping of the metric as its first pass's ``state`` settles it."""
        if self.inner.sampler is None:
            return self
        return type(self)(self.inner.sampled(state), by=self.by)

    # shards evaluated apart: the wrapped metric's shard options, and its states -----------

    def with_shard_options(self, **values: Any) -> Grouped:
        """The grouping of the wrapped metric with other values of its shard options.

        Examples
        --------
        >>> grouped = Grouped("roc_auc:cuts=[0.5]", by="g")
        >>> grouped.with_shard_options(cuts=(0.2, 0.6)).inner.cuts
        (0.2, 0.6)
        """
        return type(self)(self.inner.with_shard_options(**values), by=self.by)

    def inner_states(self, state: GroupStates) -> list[State]:
        """The wrapped metric's states ``state`` holds: all the rows', then each group's."""
        return [state.overall, *state.states]

    def with_inner_states(
        self, state: GroupStates, change: Callable[[State], State]
    ) -> GroupStates:
        """``state`` with ``change`` applied to each state of the wrapped metric it holds.

        ``change`` keeps what a state summarizes and may give it another
        layout (score ranges cut at other points), the same for every group.

        Examples
        --------
        >>> from scorekit.classification import recut
        >>> grouped = Grouped("roc_auc:cuts=[0.5]", by="g")
        >>> state = grouped.summarize([1, 0, 1, 0], [0.9, 0.4, 0.2, 0.6], group=list("aabb"))
        >>> cut = grouped.with_inner_states(state, lambda s: recut(s, [0.3, 0.7]))
        >>> [s.cuts.tolist() for s in grouped.inner_states(cut)]
        [[0.3, 0.7], [0.3, 0.7], [0.3, 0.7]]
        >>> grouped.compute(cut).by_group == grouped.compute(state).by_group
        True
        """
        return dataclasses.replace(
            state,
            overall=change(state.overall),
            states=tuple(change(part) for part in state.states),
        )

    def values_of(self, state: GroupStates, value: Callable[[Any], Any]) -> ByGroup:
        """``value`` of the overall state and of each group's (an interval, say), with the sizes.

        ``value`` warns about a group's state in its own words, which do not name
        the group: each warning is raised again with the group's name in front.
        """
        overall = value(state.overall)
        values: dict[GroupKey, Any] = {}
        sizes: dict[GroupKey, int] = {}
        for key, size, part in zip(state.groups(), state.sizes.tolist(), state.states, strict=True):
            group = key[0] if len(self.by) == 1 else key
            values[group], found = caught(functools.partial(value, part))
            reraise(found, f"group {_label(self.by, key)}: ", stacklevel=3)
            sizes[group] = int(size)
        return ByGroup(overall, values, sizes, tuple(self.by))


def grouped(metrics: Mapping[str, Metric[Any]], by: Any) -> dict[str, Metric[Any]]:
    """Each metric of ``metrics`` evaluated per group of ``by`` (None: as they are)."""
    if by is None:
        return dict(metrics)
    return {key: Grouped(metric, by=by) for key, metric in metrics.items()}


@functools.lru_cache(maxsize=64)
def _takes_parts(hook: Callable[..., Any]) -> bool:
    """Whether an input kind's summarize hook takes the rows of each group (``parts=``)."""
    return "parts" in inspect.signature(hook).parameters


def summarize_hooked(
    metrics: Sequence[Grouped],
    hook: Callable[..., list[Any]],
    chunk: Any,
    mapping: Mapping[str, tuple[str, ...]],
    side: Mapping[str, Any],
) -> list[GroupStates]:
    """The states of per-group metrics of an input kind that summarizes through a hook.

    Request records and ranking runs are summarized by their input kind's
    ``hook(metrics, chunk, mapping, side)`` (records checked once, a run
    joined with its qrels once for all the metrics). Here the hook summarizes
    the whole chunk for the states of all the rows, and the chunk's rows of
    each group for the states of that group, so the family's own summarizing
    is used unchanged, once per group for all the ``metrics`` (which share
    their group columns). ``chunk`` is a :class:`scorekit.io.Chunk` (its
    ``table`` holds the rows); ``mapping`` maps the group columns to the role
    :attr:`Grouped.key_role`, read through their dictionaries of distinct
    values (:func:`table_groups`) or, for columns with nulls, empty strings or
    other types, with the conversion :attr:`Grouped.key_conversion`, which
    checks them. Rows of one ranking query share their
    group when the group is an attribute of the query, so each query is
    summarized whole.

    A hook that takes the keyword ``parts`` is called once: ``hook(metrics,
    chunk, mapping, side, parts=parts)``, with the row indices of each group
    (in group order), returns the states of the whole chunk followed by the
    states of each part, each list as the hook returns it without ``parts``
    for the chunk of those rows (the ranking hook joins the run with its
    qrels once and hands each group its queries).
    """
    first = metrics[0]
    where = first._where()
    if any(m.by != first.by for m in metrics):
        raise ConfigError(message(where, "metrics of different group columns", None, "one by"))
    names = mapping.get(first.key_role)
    if names is None:
        raise InputError(message(where, "no group columns mapped", None, ", ".join(first.by)))
    split = table_groups(chunk.table, names) if len(names) == len(first.by) else None
    if split is None:
        given = chunk.get(first.key_conversion, names)
        split = _split(group_columns(where, first.by, tuple(given), chunk.table.num_rows))
    keys, sizes, parts = split
    plain = {role: cols for role, cols in mapping.items() if role != first.key_role}
    inners = [m.inner for m in metrics]
    found: list[list[Any]]
    if _takes_parts(hook):
        found = hook(inners, chunk, plain, side, parts=parts)
    else:
        found = [hook(inners, chunk, plain, side)]
        found += [
            hook(inners, type(chunk)(chunk.table.take(index)), plain, side) for index in parts
        ]
    overall, per_group = found[0], found[1:]
    return [
        metric._state(overall[i], keys, sizes, tuple(states[i] for states in per_group))
        for i, metric in enumerate(metrics)
    ]
