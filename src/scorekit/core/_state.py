"""Mergeable states: :class:`State`, the merge rule of each field, and their plain-data form.

Each field of a state declares how it merges (``sum``, ``min``, ``max``, ``concat``,
``same`` for settings that must agree, or ``custom``), so most states need no merge
code at all. States round-trip through plain JSON data (:func:`encode_value`,
:func:`decode_value`), so shards can be merged later from files.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeVar

import numpy as np

from scorekit.core._statecheck import (
    CHECKS,
    check_choice,
    check_value,
    decode,
    invalid,
    totals_agree,
)
from scorekit.errors import ConfigError, InputError, StateMismatchError, choices, message, raw

__all__ = [
    "STATE_FORMAT",
    "State",
    "decode_value",
    "encode_value",
    "equal_values",
    "narrowed",
    "state_field",
    "stored_sequence",
]

STATE_FORMAT = 1
"""Version of the serialised state format; states of another version do not load."""

MergeRule = Literal["sum", "min", "max", "concat", "same", "custom"]
_RULES = ("sum", "min", "max", "concat", "same", "custom")


def state_field(
    rule: MergeRule,
    *,
    check: str | None = None,
    ndim: int | tuple[int, ...] | None = None,
    optional: bool = False,
    allowed: tuple[Any, ...] | None = None,
    objects: bool = False,
    counts_rows: bool = False,
    added: bool = False,
    **kwargs: Any,
) -> Any:
    """Declare a state field together with the rule that merges it and what it holds.

    ``sum``, ``min`` and ``max`` combine values element-wise; ``concat`` joins
    arrays along their first axis (or tuples); ``same`` marks a setting that both
    states must share (merging states that differ raises
    :class:`~scorekit.errors.StateMismatchError`); ``custom`` fields are merged by
    the state's ``_merge_custom`` method.

    ``check`` names what the field holds (``"count"``: integers >= 0,
    ``"weight"``: finite numbers >= 0, ``"labels"``, ``"text"``, ... see
    :data:`scorekit.core._statecheck.CHECKS`); ``ndim`` makes it an array of
    that many dimensions (a tuple: any of them) instead of a scalar;
    ``optional`` lets it be ``None``; ``allowed`` lists the values a setting
    may take; ``objects`` lets the field hold arrays of dtype ``object``
    (decoding refuses them elsewhere); ``counts_rows`` marks the integer
    field that counts the rows the state summarizes (:meth:`State.row_count`);
    ``added`` marks a field added to a kind after files were written without
    it: such a field needs a default, which a file without the field gets.
    A state decoded from a file is checked against these declarations
    (:meth:`State.validate`).

    Examples
    --------
    >>> f = state_field("sum", check="count", ndim=1)
    >>> f.metadata["merge"], f.metadata["check"], f.metadata["ndim"]
    ('sum', 'count', 1)
    """
    if rule not in _RULES:
        raise ConfigError(message("state_field", "unknown merge rule", rule, choices(_RULES)))
    if check is not None and check not in CHECKS:
        raise ConfigError(message("state_field", "unknown check", check, choices(CHECKS)))
    metadata = dict(kwargs.pop("metadata", {}) or {})
    metadata["merge"] = rule
    if check is not None:
        metadata["check"] = check
    if ndim is not None:
        metadata["ndim"] = ndim
    if optional:
        metadata["optional"] = True
    if allowed is not None:
        metadata["allowed"] = tuple(allowed)
    if objects:
        metadata["objects"] = True
    if counts_rows:
        metadata["counts_rows"] = True
    if added:
        if "default" not in kwargs and "default_factory" not in kwargs:
            raise ConfigError(
                message("state_field", "an added field needs a default", None, "default=...")
            )
        metadata["added"] = True
    return field(metadata=metadata, **kwargs)


_STATE_TYPES: dict[str, type[State]] = {}

S = TypeVar("S", bound="State")


@dataclass(frozen=True, eq=False)
class State:
    """Base class of metric states: plain data with declared merge rules.

    States are immutable. ``a.merge(b)`` returns a new state; ``equals`` compares
    two states field by field (arrays exactly). States round-trip through pickle
    and through :meth:`to_dict` / :meth:`from_dict` (JSON-ready).
    """

    kind: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        kind = cls.__dict__.get("kind") or cls.__name__
        cls.kind = kind
        _STATE_TYPES[kind] = cls

    # merging -----------------------------------------------------------------

    def merge(self: S, other: S) -> S:
        """Return the state of the union of the data behind ``self`` and ``other``."""
        if type(other) is not type(self):
            raise StateMismatchError(
                message(
                    self.kind,
                    "cannot merge states of different kinds",
                    type(other).__name__,
                    f"a {type(self).__name__}",
                )
            )
        values: dict[str, Any] = {}
        custom = False
        for f in dataclasses.fields(self):
            rule = f.metadata.get("merge", "same")
            a, b = getattr(self, f.name), getattr(other, f.name)
            if rule == "custom":
                custom = True
            elif rule == "same":
                if not equal_values(a, b):
                    raise StateMismatchError(
                        message(
                            self.kind,
                            f"cannot merge states with different {f.name!r}",
                            b,
                            f"{a!r} as in the other state",
                        )
                    )
                values[f.name] = a
            else:
                values[f.name] = _combine(rule, a, b)
        if custom:
            values.update(self._merge_custom(other))
        return dataclasses.replace(self, **values)

    def _merge_custom(self: S, other: S) -> dict[str, Any]:
        """Merge the fields declared ``custom``; return their new values by name."""
        raise TypeError(f"{type(self).__name__} declares custom fields but no _merge_custom")

    # independent parts ----------------------------------------------------------

    parted: ClassVar[bool] = False
    """Whether states of this kind are made of independent parts (:meth:`split_parts`).

    Part ``i`` of the merge of two such states is the merge of their parts ``i``,
    so an engine may merge the parts one index at a time, each in a process of
    its own, and never hold the whole state in one place.
    """

    def split_parts(self) -> tuple[State, Sequence[State]]:
        """The state's shell and its independent parts (kinds that declare :attr:`parted`).

        The shell is a state of this kind whose parts are all empty: shells merge
        as whole states, and their merge refuses (with a
        :class:`~scorekit.errors.StateMismatchError`) states whose parts do not
        line up, unless one of them is the state of no data. For two states
        ``a`` and ``b`` with as many parts, ``a.merge(b)`` equals
        ``from_parts(shell_a.merge(shell_b), [pa[i].merge(pb[i]) for each i])``;
        a state with another number of parts than the merged shell holds no data
        and adds nothing to any part.

        Returns
        -------
        tuple
            ``(shell, parts)``: the shell and the sequence of part states.

        Raises
        ------
        TypeError
            The kind is not made of parts.
        """
        raise TypeError(f"{type(self).__name__} is not made of independent parts")

    @classmethod
    def from_parts(cls: type[S], shell: S, parts: Sequence[State]) -> S:
        """The state of a merged shell and its merged parts, in order (see :meth:`split_parts`).

        ``parts`` may be any sequence with ``len()`` and indexing, such as one
        that loads each part from a file when it is read.
        """
        raise TypeError(f"{cls.__name__} is not made of independent parts")

    def equals(self, other: object) -> bool:
        """True when ``other`` is a state of the same kind with equal fields."""
        if type(other) is not type(self):
            return False
        return all(
            equal_values(getattr(self, f.name), getattr(other, f.name))
            for f in dataclasses.fields(self)
        )

    def row_count(self) -> int | None:
        """The rows the state summarizes, or None when it does not count them.

        A kind counts its rows in the field declared ``counts_rows`` (or
        overrides this method); wrappers holding the states of parts of the
        rows (per-group states) check their sizes against it.

        Returns
        -------
        int or None
        """
        for f in dataclasses.fields(self):
            if f.metadata.get("counts_rows", False):
                return int(getattr(self, f.name))
        return None

    def parts_disagree(self, parts: Sequence[State]) -> tuple[str, Any, Any] | None:
        """The first field that states of a partition of the rows do not combine into.

        States of disjoint parts of the rows merge into the state of all of
        them, so each field merged by ``sum``, ``min`` or ``max`` of ``parts``
        combines to this state's value (integers exactly, sums of numbers >= 0
        to rounding), and each ``same`` field equals this state's. Fields
        merged otherwise (``concat``, ``custom``) are not compared.

        Parameters
        ----------
        parts : sequence of State
            States of the same kind, of disjoint parts of this state's rows
            that together make all of them (at least one).

        Returns
        -------
        tuple or None
            ``(field, combined, value)``: the field's name, what the parts
            combine to and this state's value; None when every field agrees.

        Examples
        --------
        >>> from scorekit import parse_metric
        >>> metric = parse_metric("bleu")
        >>> a, b = metric.summarize(["a cat"], ["a cat"]), metric.summarize(["a dog"], ["dog"])
        >>> metric.merge(a, b).parts_disagree([a, b]) is None
        True
        >>> a.parts_disagree([a, b])[0]
        'segments'
        """
        if not parts:
            return None
        for f in dataclasses.fields(self):
            rule = f.metadata.get("merge", "same")
            whole = getattr(self, f.name)
            values = [getattr(part, f.name) for part in parts]
            if rule == "same":
                for value in values:
                    if not equal_values(value, whole):
                        return f.name, value, whole
            elif rule in ("sum", "min", "max"):
                combined = _combine_all(rule, values)
                if combined is None:
                    continue
                if not _agrees(rule, f.metadata.get("check"), combined, whole):
                    return f.name, combined, whole
        return None

    # serialisation -----------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (arrays become tagged lists) that :meth:`from_dict` reverses."""
        return {
            "scorekit_state": self.kind,
            "format": STATE_FORMAT,
            "fields": {
                f.name: encode_value(getattr(self, f.name)) for f in dataclasses.fields(self)
            },
        }

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> State:
        """Rebuild a state from :meth:`to_dict` output, checking kind and format."""
        if not isinstance(data, Mapping) or "scorekit_state" not in data:
            raise InputError(
                message("state", "not a scorekit state", type(data).__name__, "a state dict")
            )
        kind = data["scorekit_state"]
        if data.get("format") != STATE_FORMAT:
            raise StateMismatchError(
                message(
                    "state",
                    "unsupported state format",
                    data.get("format"),
                    f"format {STATE_FORMAT}",
                )
            )
        cls = _STATE_TYPES.get(kind)
        if cls is None:
            raise InputError(message("state", "unknown state kind", kind, choices(_STATE_TYPES)))
        names = {f.name for f in dataclasses.fields(cls)}
        fields = data.get("fields", {})
        if not isinstance(fields, Mapping):
            raise InputError(
                message(
                    kind,
                    "state fields are not a JSON object",
                    raw(type(fields).__name__),
                    "an object",
                )
            )
        # files written before a field was added to the kind lack it; it gets its default
        later = {f.name for f in dataclasses.fields(cls) if f.metadata.get("added")}
        if not set(fields) <= names or not names - later <= set(fields):
            raise InputError(
                message(
                    kind, "state fields do not match", sorted(fields), f"the fields {sorted(names)}"
                )
            )
        values = {
            f.name: decode(
                fields[f.name],
                f"{kind}, field {f.name!r}",
                objects=f.metadata.get("objects", False),
                mappings=False,
                state=State.from_dict,
            )
            for f in dataclasses.fields(cls)
            if f.name in fields
        }
        state = cls(**values)
        state.validate()
        return state

    # checking ----------------------------------------------------------------

    def validate(self) -> None:
        """Check that the state holds what its fields declare and that its totals agree.

        Each field is checked against its declaration (``state_field(...,
        check=..., ndim=..., allowed=...)``), then the kind's own invariants
        (shapes consistent with its labels or bins, totals that add up) by
        :meth:`_check`. States decoded by :meth:`from_dict` are validated;
        states built by metrics always pass, and summarize and merge do not
        spend time on it.

        Raises
        ------
        InputError
            Naming the state kind and the field, with the offending value.

        Examples
        --------
        >>> from scorekit import parse_metric
        >>> state = parse_metric("accuracy").summarize([1, 0, 1], [1, 1, 1])
        >>> state.validate()
        >>> import dataclasses, numpy as np
        >>> bad = dataclasses.replace(state, matrix=np.array([[0, 1], [-498, 2]]))
        >>> bad.validate()
        Traceback (most recent call last):
        ...
        scorekit.errors.InputError: ConfusionCounts, field 'matrix': negative value; got -498 \
at index (1, 0), expected finite numbers >= 0.
        """
        for f in dataclasses.fields(self):
            meta = f.metadata
            value = getattr(self, f.name)
            where = self._where(f.name)
            if value is None and meta.get("optional", False):
                continue
            check = meta.get("check")
            if check is not None:
                check_value(where, value, check, meta.get("ndim"))
            if "allowed" in meta:
                check_choice(where, value, meta["allowed"])
        self._check()

    def _check(self) -> None:
        """Check the invariants that tie fields together (none in the base class).

        A kind overrides this to check shapes against its labels or bins and
        totals that must add up, raising :meth:`_invalid` for the field at fault.
        """

    def _check_as(self, name: str, check: str, ndim: int | tuple[int, ...] | None = None) -> None:
        """Check field ``name`` against a rule of ``CHECKS`` that holds only in some states."""
        check_value(self._where(name), getattr(self, name), check, ndim)

    def _same_shape(self, *names: str) -> None:
        """Check that the array fields ``names`` have the shape of the first."""
        first = getattr(self, names[0]).shape
        for name in names[1:]:
            shape = getattr(self, name).shape
            if shape != first:
                raise self._invalid(
                    name,
                    f"shape differs from {names[0]!r}",
                    raw(f"shape {list(shape)}"),
                    f"shape {list(first)}",
                )

    def _where(self, name: str) -> str:
        return f"{self.kind}, field {name!r}"

    def _invalid(
        self, name: str, problem: str, got: Any = None, expected: str | None = None
    ) -> InputError:
        """The error for field ``name`` breaking an invariant of the state."""
        return invalid(self._where(name), problem, got, expected)

    def to_json(self) -> str:
        """Serialise to a JSON string (exact for floats, which JSON writes in full)."""
        return json.dumps(self.to_dict(), allow_nan=True)

    @staticmethod
    def from_json(text: str) -> State:
        """Rebuild a state from :meth:`to_json` output."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(
                message("state", "invalid JSON", f"{exc.msg} at line {exc.lineno}", "a state")
            ) from None
        return State.from_dict(data)


def equal_values(a: Any, b: Any) -> bool:
    """Whether two state values are equal: arrays by shape and elements (NaN equal to NaN).

    Tuples, lists and dicts are compared item by item, so they may hold arrays.

    Examples
    --------
    >>> equal_values({"a": np.array([1.0, np.nan])}, {"a": np.array([1.0, np.nan])})
    True
    >>> equal_values({"a": np.array([1, 2])}, {"b": np.array([1, 2])})
    False
    """
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a_arr, b_arr = np.asarray(a), np.asarray(b)
        if a_arr.shape != b_arr.shape:
            return False
        if a_arr.dtype.kind in "fc" or b_arr.dtype.kind in "fc":
            return bool(np.array_equal(a_arr, b_arr, equal_nan=True))
        return bool(np.array_equal(a_arr, b_arr))
    if isinstance(a, State):
        return a.equals(b)
    if isinstance(a, tuple | list) and isinstance(b, tuple | list):
        return len(a) == len(b) and all(equal_values(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal_values(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    return bool(a == b)


def _combine(rule: str, a: Any, b: Any) -> Any:
    if rule == "sum":
        return a + b
    if rule == "min":
        return np.minimum(a, b) if isinstance(a, np.ndarray) else min(a, b)
    if rule == "max":
        return np.maximum(a, b) if isinstance(a, np.ndarray) else max(a, b)
    # concat
    if isinstance(a, np.ndarray):
        return np.concatenate([a, b])
    return tuple(a) + tuple(b)


def _combine_all(rule: str, values: list[Any]) -> Any:
    """The values of parts combined by ``rule`` at once, or None when they cannot be.

    Values of different shapes or of no numeric type do not combine (their
    merge would fail, or they hold no total to compare).
    """
    try:
        arrays = [np.asarray(v) for v in values]
    except (TypeError, ValueError):
        return None
    first = arrays[0]
    if first.dtype.kind not in "biuf" or any(
        a.shape != first.shape or a.dtype.kind not in "biuf" for a in arrays
    ):
        return None
    stacked = np.stack(arrays)
    if rule == "sum":
        return stacked.sum(axis=0)
    return stacked.min(axis=0) if rule == "min" else stacked.max(axis=0)


_SUMS_TO_ROUNDING = ("weight", "nonnegative")
"""Checks of float fields whose sums over parts agree to rounding (no cancellation)."""


def _agrees(rule: str, check: str | None, combined: Any, whole: Any) -> bool:
    """Whether the parts' combined value of a field is the whole's value."""
    value = np.asarray(whole)
    if value.shape != combined.shape:
        return False
    exact = rule != "sum" or (combined.dtype.kind in "biu" and value.dtype.kind in "biu")
    if exact:
        return equal_values(np.asarray(combined, dtype=value.dtype), value)
    if check not in _SUMS_TO_ROUNDING:
        return True  # a float sum of signed terms may cancel: its rounding has no bound here
    return totals_agree(combined, value)


def encode_value(value: Any) -> Any:
    """A state value as plain JSON data (arrays keep dtype and shape, tuples stay tuples)."""
    if isinstance(value, State):
        return {"__state__": value.to_dict()}
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "O":
            items = value.tolist()
            return {"__ndarray__": items, "dtype": "object", "shape": list(value.shape)}
        return {"__ndarray__": value.tolist(), "dtype": value.dtype.str, "shape": list(value.shape)}
    if isinstance(value, tuple):
        return {"__tuple__": [encode_value(v) for v in value]}
    if isinstance(value, np.generic):
        return value.item()
    return value


def decode_value(value: Any) -> Any:
    """The inverse of :func:`encode_value`, refusing any tagged form it does not write.

    Raises
    ------
    InputError
        An unknown ``__tag__``, an array whose dtype is not a bool, integer,
        float or string one (or ``object``), whose shape does not match its
        data, or whose items do not fit its dtype.

    Examples
    --------
    >>> decode_value({"__tuple__": [1, {"__ndarray__": [1.5], "dtype": "<f8", "shape": [1]}]})
    (1, array([1.5]))
    >>> decode_value({"__ndarray__": [0], "dtype": "<M8[ns]", "shape": [1]})
    Traceback (most recent call last):
    ...
    scorekit.errors.InputError: value: array dtype not allowed; got '<M8[ns]', expected ...
    """
    return decode(value, "value", objects=True, state=State.from_dict)


def stored_sequence(value: Any) -> bool:
    """Whether a state value is a sequence of parts read on access (written as a tuple).

    Examples
    --------
    >>> stored_sequence((1, 2)), stored_sequence(range(3)), stored_sequence("ab")
    (False, True, False)
    """
    return isinstance(value, Sequence) and not isinstance(value, tuple | list | str | bytes)


_NARROWED_CHUNK = 1 << 22
"""Values compared at a time when checking that float64 values are float32 ones."""


def _fits_float32(array: np.ndarray) -> bool:
    """Whether every value of a native float64 array is a float32 value (bit for bit)."""
    flat = array.reshape(-1)
    with np.errstate(over="ignore", invalid="ignore"):
        for start in range(0, flat.size, _NARROWED_CHUNK):
            part = flat[start : start + _NARROWED_CHUNK]
            back = part.astype(np.float32).astype(np.float64)
            if not np.array_equal(back.view(np.int64), part.view(np.int64)):
                return False
    return True


def narrowed(array: np.ndarray) -> np.ndarray:
    """The array in its smallest exact type, native byte order, C-contiguous.

    Integers go to the smallest integer type holding their range, float64 values
    that are all float32 values (bit for bit) to float32: what binary state files
    and the Spark engine store, the state's own type restored on reading.

    Examples
    --------
    >>> narrowed(np.array([0.5, 0.25])).dtype, narrowed(np.array([3, 70000])).dtype
    (dtype('float32'), dtype('uint32'))
    >>> narrowed(np.array([0.1])).dtype, narrowed(np.array([-1, 5])).dtype
    (dtype('float64'), dtype('int8'))
    """
    native = array.dtype.newbyteorder("=")
    if array.size and array.dtype.kind in "iu" and array.dtype.itemsize > 1:
        # min and max read a broadcast view (counts of one sample each) without copying it
        lo, hi = int(array.min()), int(array.max())
        kinds = (np.uint8, np.uint16, np.uint32) if lo >= 0 else (np.int8, np.int16, np.int32)
        for small in kinds:
            info = np.iinfo(small)
            if np.dtype(small).itemsize >= array.dtype.itemsize:
                break
            if info.min <= lo and hi <= info.max:
                return array.astype(small, order="C")
    out = np.ascontiguousarray(array, dtype=native)
    if out.size and out.dtype == np.float64 and _fits_float32(out):
        return out.astype(np.float32)
    return out
