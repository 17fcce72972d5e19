"""Per-group evaluation: one state of a metric per group of rows, merged group by group.

:class:`Grouped` wraps any metric whose inputs are rows. Its state,
:class:`GroupStates`, holds the wrapped metric's state of all the rows and one
state per distinct value (or tuple of values) of the group columns, with the
rows of each group. Two states merge group by group, so a grouped evaluation in
chunks, from shard files or on a cluster is the in-memory one. The engines see
a metric that reads one more input, ``group`` (the group columns, through
:attr:`Metric.key_column`), and nothing else changes.

:class:`ByGroup` is what :meth:`Grouped.compute` returns: the value on all the
rows, one value per group, the group sizes, and the spread of the values across
groups (:meth:`ByGroup.difference`, :meth:`ByGroup.ratio`, as fairlearn's
``MetricFrame``).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Real
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit.core._caught import caught, reraise
from scorekit.core._inputs import input_kind
from scorekit.core._metric import Metric
from scorekit.core._registry import parse_metric
from scorekit.core._state import State, state_field
from scorekit.errors import ConfigError, InputError, StateMismatchError, message, raw

__all__ = ["ByGroup", "GroupStates", "Grouped", "group_columns", "summarize_hooked"]

GroupKey = Any
"""A group's key: its value (one group column) or the tuple of its values (several)."""


def _kind(values: NDArray[Any]) -> str:
    return {"U": "strings", "b": "booleans"}.get(values.dtype.kind, "integers")


def group_columns(where: str, by: Sequence[str], given: Any, rows: int | None = None) -> list[Any]:
    """The group columns of one batch as 1-D arrays of strings, integers or booleans.

    ``given`` is one column's values when ``by`` names one column, else a
    sequence of one column per name. Missing values (None, NaN, empty
    strings) and floats are refused, naming the column and the row.

    Examples
    --------
    >>> group_columns("f1", ("country",), ["fr", "de"])
    [array(['fr', 'de'], dtype='<U2')]
    >>> group_columns("f1", ("country",), ["fr", None])
    Traceback (most recent call last):
    ...
    scorekit.errors.InputError: f1: missing group value in column 'country'; got None at \
row 1, expected a string, an integer or a boolean.
    """
    if given is None:
        raise InputError(
            message(where, "no group values given", None, f"the values of {', '.join(by)}")
        )
    columns = isinstance(given, tuple) and len(given) == len(by)
    parts = [given] if len(by) == 1 and not (columns and np.ndim(given[0]) == 1) else list(given)
    if len(parts) != len(by):
        raise InputError(
            message(where, "wrong number of group columns", len(parts), f"{len(by)}: {list(by)}")
        )
    out = []
    for name, part in zip(by, parts, strict=True):
        values = _column(where, name, part)
        if rows is not None and len(values) != rows:
            raise InputError(
                message(
                    where,
                    f"group column {name!r} has the wrong length",
                    len(values),
                    f"{rows} rows",
                )
            )
        out.append(values)
    return out


def _column(where: str, name: str, part: Any) -> NDArray[Any]:
    if hasattr(part, "to_numpy") and not isinstance(part, np.ndarray):
        part = part.to_numpy(zero_copy_only=False) if hasattr(part, "null_count") else part
    values = np.asarray(part)
    if values.ndim != 1:
        raise InputError(
            message(where, f"group column {name!r} is not 1-D", raw(f"shape {values.shape}"), "1-D")
        )
    if values.dtype.kind == "O":
        bad = [i for i, v in enumerate(values.tolist()) if v is None or v != v or v == ""]
        if bad:
            _missing(where, name, values[bad[0]], bad[0])
        types = {type(v) for v in values.tolist()}
        if types <= {str}:
            values = values.astype(str)
        elif types <= {int, np.int64} and bool not in types:
            values = values.astype(np.int64)
        elif types <= {bool, np.bool_}:
            values = values.astype(bool)
        else:
            raise InputError(
                message(
                    where,
                    f"group column {name!r} mixes types",
                    raw(", ".join(sorted(t.__name__ for t in types))),
                    "strings, integers or booleans",
                )
            )
    kind = values.dtype.kind
    if kind == "f":
        nan = np.flatnonzero(np.isnan(values))
        if len(nan):
            _missing(where, name, float(values[nan[0]]), int(nan[0]))
        raise InputError(
            message(
                where,
                f"group column {name!r} holds floats",
                raw(str(values.dtype)),
                "strings, integers or booleans as group values",
            )
        )
    if kind == "U":
        empty = np.flatnonzero(values == "")
        if len(empty):
            _missing(where, name, "", int(empty[0]))
        return values
    if kind in "iu":
        return values.astype(np.int64)
    if kind == "b":
        return values
    raise InputError(
        message(
            where,
            f"group column {name!r} has an unsupported type",
            raw(str(values.dtype)),
            "strings, integers or booleans",
        )
    )


def _missing(where: str, name: str, value: Any, row: int) -> None:
    raise InputError(
        message(
            where,
            f"missing group value in column {name!r}",
            raw(f"{value!r} at row {row}"),
            "a string, an integer or a boolean",
        )
    )


def _take(value: Any, index: NDArray[np.intp], rows: int, where: str) -> Any:
    """The rows ``index`` of one input of a batch (an array, a list or a pyarrow array)."""
    if value is None or isinstance(value, str | bytes | int | float | bool):
        return value
    try:
        length = len(value)
    except TypeError:
        return value
    if length != rows:
        raise InputError(
            message(
                where, "an input has another length than the group columns", length, f"{rows} rows"
            )
        )
    if isinstance(value, np.ndarray):
        return value[index]
    if hasattr(value, "take") and (hasattr(value, "null_count") or hasattr(value, "num_rows")):
        import pyarrow as pa

        return value.take(pa.array(index))
    if hasattr(value, "iloc"):
        return value.iloc[index]
    items = list(value)
    return [items[i] for i in index.tolist()]


def _split(
    columns: Sequence[NDArray[Any]],
) -> tuple[tuple[NDArray[Any], ...], NDArray[np.int64], list[NDArray[np.intp]]]:
    """The groups of rows: their keys (one array per column), sizes and row indices.

    Groups come in increasing order of their values; each group's rows keep
    their order.
    """
    rows = len(columns[0])
    if rows == 0:
        return tuple(columns), np.zeros(0, dtype=np.int64), []
    codes = np.stack([np.unique(c, return_inverse=True)[1].ravel() for c in columns], axis=1)
    first, code = np.unique(codes, axis=0, return_index=False, return_inverse=True)
    code = code.ravel()
    order = np.argsort(code, kind="stable")
    stops = np.searchsorted(code[order], np.arange(1, len(first) + 1))
    starts = np.concatenate([[0], stops[:-1]])
    parts = [order[a:b] for a, b in zip(starts.tolist(), stops.tolist(), strict=True)]
    keys = tuple(c[order[starts]] for c in columns)
    return keys, (stops - starts).astype(np.int64), parts


def _key_of(parts: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(p.item() if isinstance(p, np.generic) else p for p in parts)


@dataclass(frozen=True, eq=False)
class GroupStates(State):
    """The state of a per-group evaluation: a metric's state overall and per group.

    Attributes
    ----------
    metric
        The wrapped metric's registered name.
    by
        The group columns.
    overall
        The wrapped metric's state of all the rows.
    keys
        One array per group column: the groups' values, groups in increasing
        order of their values.
    sizes
        The rows of each group.
    states
        The wrapped metric's state of each group.
    """

    kind: ClassVar[str] = "GroupStates"

    metric: str = state_field("same", check="text")
    by: NDArray[np.str_] = state_field("same", check="classes", ndim=1)
    overall: State = state_field("custom")
    keys: tuple[NDArray[Any], ...] = state_field("custom")
    sizes: NDArray[np.int64] = state_field("custom", check="count", ndim=1)
    states: tuple[State, ...] = state_field("custom")

    def groups(self) -> list[tuple[Any, ...]]:
        """Every group's key as a tuple of plain values, in order."""
        return [_key_of(row) for row in zip(*self.keys, strict=True)] if self.keys else []

    def _merge_custom(self, other: GroupStates) -> dict[str, Any]:
        for name, a, b in zip(self.by.tolist(), self.keys, other.keys, strict=True):
            if len(a) and len(b) and _kind(a) != _kind(b):
                raise StateMismatchError(
                    message(
                        f"{self.metric} by {name}",
                        "cannot merge groups of different types",
                        raw(f"{_kind(b)} in one state and {_kind(a)} in the other"),
                        "the same type of group values in every shard",
                    )
                )
        merged: dict[tuple[Any, ...], tuple[int, State]] = {}
        for source in (self, other):
            for key, size, state in zip(
                source.groups(), source.sizes.tolist(), source.states, strict=True
            ):
                if key in merged:
                    have, kept = merged[key]
                    merged[key] = (have + size, kept.merge(state))
                else:
                    merged[key] = (size, state)
        order = sorted(merged)
        columns = [
            np.array([k[i] for k in order], dtype=_dtype(self.keys[i], other.keys[i]))
            for i in range(len(self.by))
        ]
        return {
            "overall": self.overall.merge(other.overall),
            "keys": tuple(columns),
            "sizes": np.array([merged[k][0] for k in order], dtype=np.int64),
            "states": tuple(merged[k][1] for k in order),
        }

    def _check(self) -> None:
        if len(self.by) == 0:
            raise self._invalid("by", "no group column", raw("[]"), "at least one column")
        if not isinstance(self.overall, State):
            raise self._invalid("overall", "not a state", raw(type(self.overall).__name__))
        if not isinstance(self.keys, tuple) or len(self.keys) != len(self.by):
            raise self._invalid("keys", "not one array per group column", None, f"{len(self.by)}")
        for i in range(len(self.keys)):
            column = self.keys[i]
            if not isinstance(column, np.ndarray) or column.ndim != 1:
                raise self._invalid("keys", "not a 1-D array", raw(type(column).__name__))
            if column.dtype.kind not in "Uiub":
                raise self._invalid(
                    "keys", "group values of an unsupported type", raw(str(column.dtype))
                )
            if len(column) != len(self.sizes):
                raise self._invalid("keys", "length differs from 'sizes'", len(column))
        groups = self.groups()
        if any(a >= b for a, b in itertools.pairwise(groups)):
            raise self._invalid("keys", "groups not distinct and in increasing order")
        if not isinstance(self.states, tuple) or len(self.states) != len(self.sizes):
            raise self._invalid("states", "not one state per group", None, f"{len(self.sizes)}")
        kind = type(self.overall)
        for state in self.states:
            if type(state) is not kind:
                raise self._invalid(
                    "states", "a group's state of another kind", raw(type(state).__name__)
                )


def _dtype(a: NDArray[Any], b: NDArray[Any]) -> Any:
    if not len(a):
        return b.dtype if b.dtype.kind != "U" else str
    return a.dtype if a.dtype.kind != "U" else str


def _label(by: Sequence[str], key: tuple[Any, ...]) -> str:
    """A group as warnings name it: ``country='fr'`` or ``country='fr', device='phone'``."""
    return ", ".join(f"{name}={value!r}" for name, value in zip(by, key, strict=True))


def _point(value: Any) -> Any:
    """A value's point value: its ``value`` for an interval or an estimate, else itself."""
    point = getattr(value, "value", None)
    return point if isinstance(point, Real) and hasattr(value, "low") else value


@dataclass(frozen=True)
class ByGroup:
    """A metric's value on all the rows and on each group, with the group sizes.

    Attributes
    ----------
    overall
        The value on all the rows.
    by_group : dict
        Group -> value. A group is its value for one group column, the tuple of
        its values for several.
    sizes : dict
        Group -> its rows.
    by : tuple of str
        The group columns.

    Examples
    --------
    >>> found = ByGroup(0.75, {"de": 0.5, "fr": 1.0}, {"de": 2, "fr": 2}, ("country",))
    >>> found.difference(), found.ratio()
    (0.5, 0.5)
    """

    overall: Any
    by_group: dict[GroupKey, Any]
    sizes: dict[GroupKey, int]
    by: tuple[str, ...]

    def _numbers(self, what: str) -> list[float]:
        out = []
        for group, given in self.by_group.items():
            value = _point(given)
            if np.ndim(value) != 0 or isinstance(value, str | bytes):
                raise ConfigError(
                    message(
                        what,
                        "needs one number per group",
                        raw(f"group {group!r}: a value of shape {list(np.shape(value))}"),
                        "a metric with one number (choose an average, for example f1:macro)",
                    )
                )
            number = float(value)
            if not math.isnan(number):
                out.append(number)
        return out

    def group_min(self) -> float:
        """The smallest value of a group (NaN values left out; NaN when none is left)."""
        numbers = self._numbers("group_min")
        return min(numbers) if numbers else math.nan

    def group_max(self) -> float:
        """The largest value of a group (NaN values left out; NaN when none is left)."""
        numbers = self._numbers("group_max")
        return max(numbers) if numbers else math.nan

    def difference(self) -> float:
        """The largest group value minus the smallest, as fairlearn's ``MetricFrame.difference``.

        Groups whose value is undefined (NaN) are left out, as pandas' ``max``
        and ``min`` leave them out in fairlearn.
        """
        numbers = self._numbers("difference")
        return max(numbers) - min(numbers) if numbers else math.nan

    def ratio(self) -> float:
        """The smallest group value over the largest, as fairlearn's ``MetricFrame.ratio``.

        Groups whose value is undefined (NaN) are left out. A largest value of
        0 gives NaN (0/0) or infinity, as the division does in fairlearn.
        """
        numbers = self._numbers("ratio")
        if not numbers:
            return math.nan
        low, high = min(numbers), max(numbers)
        if high == 0:
            return math.nan if low == 0 else -math.inf
        return low / high

    def groups(self) -> list[tuple[tuple[Any, ...], Any, int]]:
        """Every group as (its values, one per group column; its value; its rows), in order."""
        return [
            (group if isinstance(group, tuple) else (group,), value, self.sizes[group])
            for group, value in self.by_group.items()
        ]

    def spread(self) -> dict[str, float]:
        """``difference`` and ``ratio`` when the values are numbers, else nothing.

        Values with a point value and bounds (intervals) spread by their point values.
        """
        if not all(isinstance(_point(v), Real) for v in self.by_group.values()):
            return {}
        return {"difference": self.difference(), "ratio": self.ratio()}

    def as_dict(self) -> dict[str, Any]:
        """A plain form: ``overall``, ``rows``, ``by``, ``groups`` (each with its column
        values, ``value`` and ``rows``), and ``difference`` and ``ratio`` of numbers.

        Examples
        --------
        >>> ByGroup(0.75, {"de": 0.5, "fr": 1.0}, {"de": 2, "fr": 2}, ("country",)).as_dict()
        {'overall': 0.75, 'rows': 4, 'by': ['country'], 'groups': [{'country': 'de', \
'value': 0.5, 'rows': 2}, {'country': 'fr', 'value': 1.0, 'rows': 2}], 'difference': 0.5, \
'ratio': 0.5}
        """
        groups = [
            {**dict(zip(self.by, values, strict=True)), "value": value, "rows": rows}
            for values, value, rows in self.groups()
        ]
        return {
            "overall": self.overall,
            "rows": sum(self.sizes.values()),
            "by": list(self.by),
            "groups": groups,
            **self.spread(),
        }


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


def summarize_hooked(
    metrics: Sequence[Grouped],
    hook: Callable[..., list[State]],
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
    :attr:`Grouped.key_role`, read with the conversion
    :attr:`Grouped.key_conversion`. Rows of one ranking query share their
    group when the group is an attribute of the query, so each query is
    summarized whole.
    """
    first = metrics[0]
    where = first._where()
    if any(m.by != first.by for m in metrics):
        raise ConfigError(message(where, "metrics of different group columns", None, "one by"))
    names = mapping.get(first.key_role)
    if names is None:
        raise InputError(message(where, "no group columns mapped", None, ", ".join(first.by)))
    given = chunk.get(first.key_conversion, names)
    columns = group_columns(where, first.by, tuple(given), chunk.table.num_rows)
    plain = {role: cols for role, cols in mapping.items() if role != first.key_role}
    inners = [m.inner for m in metrics]
    overall = hook(inners, chunk, plain, side)
    keys, sizes, parts = _split(columns)
    per_group = [hook(inners, type(chunk)(chunk.table.take(index)), plain, side) for index in parts]
    return [
        metric._state(overall[i], keys, sizes, tuple(states[i] for states in per_group))
        for i, metric in enumerate(metrics)
    ]
