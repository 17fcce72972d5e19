"""Per-group states and values: :class:`GroupStates` and :class:`ByGroup`."""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit.core._groups._columns import GroupKey, _key_of, _kind
from scorekit.core._state import State, state_field
from scorekit.errors import (
    ConfigError,
    StateMismatchError,
    UndefinedMetricWarning,
    choices,
    message,
    raw,
)

SpreadMethod = Literal["between_groups", "to_overall"]
SPREAD_METHODS: tuple[str, ...] = ("between_groups", "to_overall")
"""How :meth:`ByGroup.difference` and :meth:`ByGroup.ratio` compare the groups."""


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
        self._check_sizes(groups)
        self._check_parts(groups)

    def row_count(self) -> int:
        """The rows of all the groups."""
        return int(self.sizes.sum())

    def _check_sizes(self, groups: list[tuple[Any, ...]]) -> None:
        """Every group has rows, as many as its state counts; all of them, the overall's."""
        empty = np.flatnonzero(self.sizes == 0)
        if len(empty):
            raise self._invalid(
                "sizes",
                f"group {_label(self.by.tolist(), groups[empty[0]])} has no rows",
                0,
                "a group's rows, >= 1 (a group exists only with rows)",
            )
        counted = [state.row_count() for state in self.states]
        known = np.array([c is not None for c in counted], dtype=bool)
        if known.any():
            rows = np.array([c if c is not None else -1 for c in counted], dtype=np.int64)
            wrong = np.flatnonzero(known & (rows != self.sizes))
            if len(wrong):
                i = wrong[0]
                group = _label(self.by.tolist(), groups[i])
                raise self._invalid(
                    "sizes",
                    f"group {group} has another size than its state's rows",
                    int(self.sizes[i]),
                    f"{int(rows[i])}, the rows its {self.overall.kind} state counts",
                )
        total = self.overall.row_count()
        if total is not None and total != int(self.sizes.sum()):
            raise self._invalid(
                "sizes",
                "the groups' rows do not add up to the rows of the overall state",
                raw(f"{int(self.sizes.sum())} rows in the groups"),
                f"{total}, the rows the overall {self.overall.kind} state counts",
            )

    def _check_parts(self, groups: list[tuple[Any, ...]]) -> None:
        """The groups' states combine into the overall state (fields merged by rule)."""
        found = self.overall.parts_disagree(self.states)
        if found is None:
            return
        name, combined, whole = found
        raise self._invalid(
            "states",
            f"the groups' states disagree with the overall state in {name!r}",
            raw(f"{_plain(combined)} from the {len(groups)} groups"),
            f"{_plain(whole)}, the overall {self.overall.kind} state's",
        )


def _dtype(a: NDArray[Any], b: NDArray[Any]) -> Any:
    if not len(a):
        return b.dtype if b.dtype.kind != "U" else str
    return a.dtype if a.dtype.kind != "U" else str


def _plain(value: Any) -> Any:
    """A field's value as a message shows it: a number, or a short list."""
    array = np.asarray(value)
    if array.ndim == 0:
        return array.item()
    text = str(array.tolist())
    return text if len(text) <= 80 else text[:77] + "..."


def _label(by: Sequence[str], key: tuple[Any, ...]) -> str:
    """A group as warnings name it: ``country='fr'`` or ``country='fr', device='phone'``."""
    return ", ".join(f"{name}={value!r}" for name, value in zip(by, key, strict=True))


def _point(value: Any) -> Any:
    """A value's point value: its ``value`` for an interval or an estimate, else itself."""
    point = getattr(value, "value", None)
    return point if isinstance(point, Real) and hasattr(value, "low") else value


def _undefined(text: str, stacklevel: int = 3) -> None:
    warnings.warn(text, UndefinedMetricWarning, stacklevel=stacklevel)


def _divide(a: float, b: float) -> float:
    """``a / b`` as IEEE 754 divides (x/0 is a signed infinity, 0/0 nan), as fairlearn's pandas."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(a) / np.float64(b))


def _between(by: str, low: float, high: float) -> float:
    """The smallest group value over the largest (x/0 an infinity and 0/0 nan, warned)."""
    found = _divide(low, high)
    if high == 0:
        problem = "every group's value is 0 (0/0)" if low == 0 else "the largest group value is 0"
        if low != 0:
            problem += f" and the smallest {low:g}"
        _undefined(f"ratio across the groups of {by}: {problem}; the ratio is {found}.", 4)
    return found


def _to_overall(by: str, numbers: list[float], overall: float) -> float:
    """The smallest of each group's value over ``overall``, a quotient r > 1 taken as 1/r."""
    if math.isnan(overall) or overall == 0:
        _undefined(
            f"ratio to the overall value across the groups of {by}: the overall value is "
            f"{overall:g}; a group's value over it is nan or infinite (a quotient of +inf "
            "counts as 0, its inverse).",
            4,
        )
    quotients = []
    for value in numbers:
        q = _divide(value, overall)
        if q > 1:
            q = 1 / q
        if not math.isnan(q):
            quotients.append(q)
    return min(quotients) if quotients else math.nan


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

    def _reference(self, what: str, method: str) -> float | None:
        """The value each group is compared with: None between groups, else the overall value."""
        if method not in SPREAD_METHODS:
            raise ConfigError(message(what, "invalid method", method, choices(SPREAD_METHODS)))
        if method == "between_groups":
            return None
        value = _point(self.overall)
        if np.ndim(value) != 0 or isinstance(value, str | bytes) or not isinstance(value, Real):
            raise ConfigError(
                message(
                    what,
                    "needs one number overall with method='to_overall'",
                    raw(f"a value of shape {list(np.shape(value))}"),
                    "a metric with one number (choose an average, for example f1:macro)",
                )
            )
        return float(value)

    def difference(self, method: SpreadMethod = "between_groups") -> float:
        """The largest gap of a group's value, as fairlearn's ``MetricFrame.difference``.

        ``method='between_groups'`` (the default) is the largest group value
        minus the smallest; ``method='to_overall'`` is the largest absolute
        difference between a group's value and the value on all the rows.
        Groups whose value is undefined (NaN) are left out, as pandas' ``max``
        and ``min`` leave them out in fairlearn; with none left, or an overall
        value of NaN with ``to_overall``, the difference is NaN.

        Examples
        --------
        >>> found = ByGroup(0.6, {"de": 0.5, "fr": 1.0}, {"de": 3, "fr": 1}, ("country",))
        >>> found.difference(), found.difference(method="to_overall")
        (0.5, 0.4)
        """
        reference = self._reference("difference", method)
        numbers = self._numbers("difference")
        if reference is None:
            reference = min(numbers) if numbers else math.nan
        gaps = [abs(v - reference) for v in numbers]
        gaps = [g for g in gaps if not math.isnan(g)]
        return max(gaps) if gaps else math.nan

    def ratio(self, method: SpreadMethod = "between_groups") -> float:
        """The smallest ratio of values, as fairlearn's ``MetricFrame.ratio``.

        ``method='between_groups'`` (the default) is the smallest group value
        over the largest; ``method='to_overall'`` divides each group's value
        by the value on all the rows, takes ``1 / r`` of a quotient ``r``
        above 1, and keeps the smallest. Groups whose value is undefined (NaN)
        are left out. A division by 0 gives NaN (0/0) or an infinity, as the
        division does in fairlearn (a quotient of ``+inf`` becomes 0 with
        ``to_overall``), with an :class:`~scorekit.errors.UndefinedMetricWarning`;
        so does a ratio of no defined group value.

        Examples
        --------
        >>> found = ByGroup(0.6, {"de": 0.5, "fr": 1.0}, {"de": 3, "fr": 1}, ("country",))
        >>> found.ratio(), round(found.ratio(method="to_overall"), 4)
        (0.5, 0.6)
        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     ByGroup(0.0, {"de": 0.0, "fr": 0.0}, {"de": 2, "fr": 2}, ("country",)).ratio()
        nan
        >>> print(caught[0].message)
        ratio across the groups of country: every group's value is 0 (0/0); the ratio is nan.
        """
        reference = self._reference("ratio", method)
        numbers = self._numbers("ratio")
        by = ", ".join(self.by)
        if not numbers:
            _undefined(f"ratio across the groups of {by}: no group has a value; the ratio is nan.")
            return math.nan
        if reference is None:
            return _between(by, min(numbers), max(numbers))
        return _to_overall(by, numbers, reference)

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
