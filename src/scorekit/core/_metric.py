"""The metric core: mergeable states, the ``Metric`` base, the registry and metric names.

A metric is defined once as three functions over a *state*::

    summarize(batch) -> State    one chunk of data -> its sufficient statistics
    merge(a, b)      -> State    associative, commutative, empty() is the identity
    compute(state)   -> result   the number(s) a user sees

Each field of a state declares how it merges (``sum``, ``min``, ``max``, ``concat``,
``same`` for settings that must agree, or ``custom``), so most states need no merge
code at all.
"""

from __future__ import annotations

import abc
import dataclasses
import difflib
import inspect
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Literal, Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

from scorekit.core._inputs import input_kinds
from scorekit.core._plugins import load_plugins, plugins_loaded
from scorekit.core._providers import load_all
from scorekit.core._replicates import row_replicates
from scorekit.core._statecheck import CHECKS, check_choice, check_value, decode, invalid
from scorekit.errors import ConfigError, InputError, StateMismatchError, choices, message, raw

__all__ = [
    "STATE_FORMAT",
    "Metric",
    "MetricInfo",
    "State",
    "UnitWeights",
    "available",
    "get",
    "parse_metric",
    "register",
    "state_field",
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
    (decoding refuses them elsewhere). A state decoded from a file is checked
    against these declarations (:meth:`State.validate`).

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

    def equals(self, other: object) -> bool:
        """True when ``other`` is a state of the same kind with equal fields."""
        if type(other) is not type(self):
            return False
        return all(
            equal_values(getattr(self, f.name), getattr(other, f.name))
            for f in dataclasses.fields(self)
        )

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
        if set(fields) != names:
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


# metrics ----------------------------------------------------------------------


class UnitWeights(Protocol):
    """The integer weights of the units of a batch in several replicates, given in blocks."""

    @property
    def replicates(self) -> int:
        """The number of replicates."""

    def blocks(self, order: NDArray[np.intp] | None = None) -> Iterator[NDArray[np.integer[Any]]]:
        """Blocks of replicates: arrays (replicates in the block, units), units in ``order``."""


class Metric(abc.ABC, Generic[S]):
    """Base class of every metric: a frozen, validated configuration plus three methods.

    Subclasses are frozen dataclasses that implement :meth:`summarize`,
    :meth:`compute` and :meth:`empty`; everything else derives from those.
    Registry metadata (name, direction, bounds, input kind) is attached by
    :func:`register`.
    """

    info: ClassVar[MetricInfo]

    @abc.abstractmethod
    def summarize(self, *batch: Any, **kwargs: Any) -> S:
        """Reduce one batch of data to its state."""

    @abc.abstractmethod
    def compute(self, state: S) -> Any:
        """Turn a state into the value a user sees."""

    @abc.abstractmethod
    def empty(self) -> S:
        """The state of no data: the identity of :meth:`merge`."""

    @property
    def grows(self) -> bool:
        """Whether this configuration's state grows with the data (as registered by default).

        A metric registered as growing may have a bounded configuration
        (``roc_auc:bins=N``), which overrides this to ``False``.
        """
        info = getattr(type(self), "info", None)
        return bool(info is not None and info.grows)

    @property
    def size_advice(self) -> tuple[str, str, str] | None:
        """What a large state is, what it grows with and what keeps it small (None: small).

        Engines note it once when the state grows past a size the user sets.
        By default, metrics registered as growing with a bounded form
        (``roc_auc:bins=N``) name that form.
        """
        info = getattr(type(self), "info", None)
        if info is None or not self.grows or not info.bounded:
            return None
        return (
            "exact state",
            "memory grows with the distinct scores",
            f"{info.name}:{info.bounded} keeps it bounded, with an error bound on the value",
        )

    def merge(self, a: S, b: S) -> S:
        """Merge two states (associative and commutative)."""
        return a.merge(b)

    defers_merges: ClassVar[bool] = False
    """Whether :class:`MergeTree` should gather many states for one :meth:`merge_many`."""

    def merge_many(self, states: Sequence[S]) -> S:
        """Merge several states, in order (the states of consecutive parts of the data)."""
        if not states:
            return self.empty()
        merged = states[0]
        for state in states[1:]:
            merged = self.merge(merged, state)
        return merged

    # bootstrap: units counted several times -------------------------------------

    unit: ClassVar[str] = "row"
    """What a bootstrap of this metric resamples, in the singular (``row``, ``query``...)."""

    replicates_from_state: ClassVar[bool] = False
    """Whether the state keeps one value per unit, so that replicates are computed from it.

    Such metrics (ranking's per-query values) implement :meth:`unit_keys` and
    :meth:`compute_replicates` instead of :meth:`summarize_replicates`.
    """

    @property
    def reads(self) -> type[Metric[Any]]:
        """The class whose ``summarize`` names the inputs this metric reads from a table."""
        return type(self)

    @property
    def wraps(self) -> Metric[Any] | None:
        """The metric this one wraps (a bootstrap's), whose state :meth:`wrap` turns into ours."""
        return None

    def wrap(self, state: Any) -> S:
        """This metric's state from the state of the metric it :attr:`wraps`."""
        raise ConfigError(self._error("wraps no metric"))

    key_role: ClassVar[str] = "unit_key"
    """The input that identifies units, read from the column :attr:`key_column` names."""

    key_conversion: ClassVar[str] = "labels"
    """How the column(s) of :attr:`key_role` become its input (a :mod:`scorekit.io` conversion)."""

    @property
    def key_column(self) -> str:
        """The column read as :attr:`key_role` (``""``: none)."""
        return ""

    @property
    def key_columns(self) -> tuple[str, ...]:
        """The columns read together as :attr:`key_role` (by default :attr:`key_column`)."""
        return (self.key_column,) if self.key_column else ()

    @property
    def key_roles(self) -> dict[str, tuple[str, tuple[str, ...]]]:
        """Every input naming units or groups: role -> (conversion, columns read as it).

        By default :attr:`key_role` when there is a :attr:`key_column`; a wrapper
        adds the roles of the metric it wraps (groups of keyed bootstraps read
        both the group and the unit key columns).
        """
        if not self.key_column:
            return {}
        return {self.key_role: (self.key_conversion, self.key_columns)}

    @property
    def positional(self) -> bool:
        """Whether ``summarize`` takes ``first_row=``, the position of the batch's first row.

        Such a metric also takes ``positions=``, the ascending positions of
        the batch's rows when they are some of the rows from ``first_row`` on
        (a group's rows, as :class:`Grouped` gives them).
        """
        return False

    def count_units(self, *batch: Any, **kwargs: Any) -> int:
        """The number of units in one batch (by default the length of the first input)."""
        return len(batch[0])

    def summarize_replicates(
        self, *batch: Any, weights: NDArray[np.int64], **kwargs: Any
    ) -> list[S]:
        """The states of ``len(weights)`` replicates of one batch.

        In replicate ``b`` the batch's unit ``i`` counts ``weights[b, i]`` times
        (an integer >= 0), as if it appeared that many times
        (:func:`~scorekit.core.row_replicates`: rows of weight 0 are left out,
        a replicate of no row is :meth:`empty`). Families whose units are not
        rows of their inputs override this.

        Examples
        --------
        >>> import numpy as np
        >>> from scorekit import parse_metric
        >>> metric = parse_metric("accuracy")
        >>> weights = np.array([[1, 1, 1], [0, 0, 2]])
        >>> states = metric.summarize_replicates([1, 0, 1], [1, 1, 1], weights=weights)
        >>> [float(metric.compute(s)) for s in states]
        [0.666..., 1.0]
        """
        return row_replicates(self, *batch, weights=weights, **kwargs)

    def replicate_values(
        self, *batch: Any, weights: UnitWeights, **kwargs: Any
    ) -> NDArray[np.float64] | None:
        """The values of the replicates of one in-memory batch, or None without a fast path.

        A metric that can compute many replicates from one pass over the batch
        (ROC AUC sorts the scores once) overrides this; the values equal those
        of :meth:`summarize_replicates` then :meth:`compute`. ``weights``
        gives the replicates' unit weights in blocks, in the unit order the
        metric asks for.
        """
        return None

    def unit_keys(self, state: S) -> NDArray[Any]:
        """The keys of the units a state keeps (metrics with :attr:`replicates_from_state`)."""
        raise ConfigError(self._error("keeps no value per unit in its state"))

    def compute_replicates(self, state: S, weights: NDArray[np.int64]) -> NDArray[np.float64]:
        """The values of replicates of a state that keeps one value per unit.

        ``weights[b, i]`` is how many times unit ``i`` (in the order of
        :meth:`unit_keys`) counts in replicate ``b``.
        """
        raise ConfigError(self._error("keeps no value per unit in its state"))

    def update(self, state: S, *batch: Any, **kwargs: Any) -> S:
        """Fold one more batch into ``state``."""
        return self.merge(state, self._summarize_checked(batch, kwargs))

    def score(self, *batch: Any, **kwargs: Any) -> Any:
        """Compute the metric on one in-memory batch: ``compute(summarize(batch))``.

        Inputs that do not fit :meth:`summarize` (too few, too many, an unknown
        keyword) raise an :class:`~scorekit.errors.InputError` naming the metric
        and the inputs it takes.

        Examples
        --------
        >>> from scorekit import parse_metric
        >>> parse_metric("accuracy").score([1, 0])
        Traceback (most recent call last):
        ...
        scorekit.errors.InputError: accuracy: wrong inputs; got 1 positional input, expected \
(y_true, y_pred, sample_weight=None).
        """
        return self.compute(self._summarize_checked(batch, kwargs))

    def _summarize_checked(self, batch: tuple[Any, ...], kwargs: dict[str, Any]) -> S:
        try:
            return self.summarize(*batch, **kwargs)
        except TypeError:
            signature = inspect.signature(self.summarize)
            try:
                signature.bind(*batch, **kwargs)
            except TypeError:
                given = f"{len(batch)} positional input{'s' if len(batch) != 1 else ''}"
                if kwargs:
                    noun = "keywords" if len(kwargs) > 1 else "keyword"
                    given += f" and {noun} " + ", ".join(map(repr, kwargs))
                raise InputError(
                    self._error("wrong inputs", raw(given), _plain(signature))
                ) from None
            raise

    @property
    def name(self) -> str:
        """The registered name of this metric."""
        return self.info.name

    @property
    def inputs(self) -> str:
        """The kind of input this configuration takes (see :data:`INPUT_KINDS`)."""
        return self.info.inputs

    def _error(self, problem: str, got: Any = None, expected: str | None = None) -> str:
        return message(self.name, problem, got, expected)


def _plain(signature: inspect.Signature) -> str:
    """A signature as ``(a, b, c=None)``, without annotations."""
    empty = inspect.Parameter.empty
    parameters = [p.replace(annotation=empty) for p in signature.parameters.values()]
    return str(signature.replace(parameters=parameters, return_annotation=empty))


class _KindDescriptions(Mapping[str, str]):
    """Input kind -> its description, for every registered kind (families loaded first)."""

    def _kinds(self) -> dict[str, str]:
        load_all()
        return {name: kind.description for name, kind in input_kinds().items()}

    def __getitem__(self, name: str) -> str:
        return self._kinds()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._kinds())

    def __len__(self) -> int:
        return len(self._kinds())


INPUT_KINDS: Mapping[str, str] = _KindDescriptions()
"""Input kind -> description of its arguments, for every registered kind."""


@dataclass(frozen=True)
class MetricInfo:
    """Registry entry: what a metric is called and how it behaves."""

    name: str
    cls: type[Metric[Any]]
    higher_is_better: bool | None
    bounds: tuple[float, float]
    inputs: str
    summary: str
    aliases: tuple[str, ...] = ()
    at: str | None = None
    variant: str | None = None
    variants: tuple[str, ...] = ()
    grows: bool = False
    at_aliases: tuple[str, ...] = ()
    bounded: str | None = None
    variant_pattern: str | None = None
    variant_form: str | None = None


_REGISTRY: dict[str, MetricInfo] = {}
_ALIASES: dict[str, str] = {}
_AT_ALIASES: dict[str, str] = {}
_SPELLINGS: list[Callable[[str], str | None]] = []
_SPELLED: set[str] = set()


def register_spelling(translate: Callable[[str], str | None], names: Iterable[str] = ()) -> None:
    """Accept another tool's metric names: ``translate`` maps one to a scorekit metric string.

    :func:`parse_metric` asks each registered translation, in order, about a
    string that is not a scorekit metric name (``P_5``, ``nDCG@10``); the
    first answer that is not None is parsed instead. ``names`` are the bare
    names the translation knows (``ndcg_cut``, ``nDCG``), offered as close
    matches of an unknown name.

    Examples
    --------
    >>> register_spelling(lambda s: "accuracy" if s == "ACC" else None, names=["ACC"])
    >>> parse_metric("ACC").name
    'accuracy'
    """
    if translate not in _SPELLINGS:
        _SPELLINGS.append(translate)
    _SPELLED.update(names)


def _spelled(spec: str) -> str | None:
    """The scorekit metric string of another tool's name, or None."""
    for translate in _SPELLINGS:
        out = translate(spec)
        if out is not None:
            return out
    return None


M = TypeVar("M", bound=type[Metric[Any]])


def register(
    name: str,
    *,
    higher_is_better: bool | None,
    bounds: tuple[float, float],
    inputs: str,
    aliases: tuple[str, ...] = (),
    at: str | None = None,
    variant: str | None = None,
    variants: tuple[str, ...] = (),
    grows: bool = False,
    at_aliases: tuple[str, ...] = (),
    bounded: str | None = None,
    variant_pattern: str | None = None,
    variant_form: str | None = None,
) -> Callable[[M], M]:
    """Class decorator that enters a metric in the registry.

    Parameters
    ----------
    name
        The metric's name in metric strings (``f1``, ``roc_auc``).
    higher_is_better
        Direction; ``None`` for values that are not scores (curves, matrices).
    bounds
        The closed range every value lies in.
    inputs
        The input kind of the default configuration, a key of :data:`INPUT_KINDS`.
    aliases
        Other names accepted for the metric.
    at
        The parameter set by ``name@k`` (for example ``"k"``).
    variant
        The parameter set by ``name:value`` (for example ``"average"``).
    variants
        The values ``name:value`` accepts.
    grows
        True when the exact state grows with the data (histograms, kept values).
    at_aliases
        Names that mean this metric only when followed by ``@k`` (``recall@10``
        is the ranking metric, ``recall`` the classification one).
    bounded
        For a metric that grows: the option that bounds its memory instead,
        with an error bound (``"bins=N"``, ``"relative_accuracy=A"``).
    variant_pattern
        A regular expression of further values of ``variant`` beyond
        ``variants`` (``"p.*"`` for percentiles); ``name:value`` passes a value
        it matches in full to the metric class, which checks it.
    variant_form
        How ``scorekit explain`` and errors show those further values (``"pN"``).
    """
    if not isinstance(inputs, str) or not inputs:
        raise ConfigError(message(name, "invalid input kind", inputs, "the name of an input kind"))

    def decorate(cls: M) -> M:
        doc = (cls.__doc__ or "").strip().splitlines()
        info = MetricInfo(
            name=name,
            cls=cls,
            higher_is_better=higher_is_better,
            bounds=bounds,
            inputs=inputs,
            summary=doc[0] if doc else name,
            aliases=aliases,
            at=at,
            variant=variant,
            variants=variants,
            grows=grows,
            at_aliases=at_aliases,
            bounded=bounded,
            variant_pattern=variant_pattern,
            variant_form=variant_form,
        )
        cls.info = info
        for key in (name, *aliases):
            owner = _REGISTRY.get(key) or _REGISTRY.get(_ALIASES.get(key, ""))
            if owner is not None and _qualified(owner.cls) != _qualified(cls):
                raise ConfigError(
                    message(
                        name,
                        "metric name already registered",
                        key,
                        f"a name not used by {owner.cls.__qualname__}",
                    )
                )
        _REGISTRY[name] = info
        for alias in aliases:
            _ALIASES[alias] = name
        for alias in at_aliases:
            _AT_ALIASES[alias] = name
        return cls

    return decorate


def _qualified(cls: type[Any]) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def available() -> list[MetricInfo]:
    """Every registered metric (installed plug-ins' included), sorted by name."""
    load_plugins()
    load_all()
    return [_REGISTRY[n] for n in sorted(_REGISTRY)]


def get(name: str) -> MetricInfo:
    """The registry entry for a metric name or alias (without ``@k`` or ``:variant``).

    A name not registered loads the installed plug-ins (once) and is looked
    up again.
    """
    load_all()
    key = _ALIASES.get(name, name)
    if key not in _REGISTRY and not plugins_loaded():
        load_plugins()
        load_all()
        key = _ALIASES.get(name, name)
    if key not in _REGISTRY:
        known = sorted(set(_REGISTRY) | set(_ALIASES) | _SPELLED)
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
        hint = f"a registered name (close: {', '.join(close)})" if close else "a registered name"
        raise ConfigError(
            message("scorekit", "unknown metric", name, hint + "; see `scorekit list`")
        )
    return _REGISTRY[key]


_NAME = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*\+*)(?:@(?P<at>[^:]+))?(?::(?P<variant>.+))?$")


def parse_metric(spec: str | Metric[Any], **options: Any) -> Metric[Any]:
    """Build a metric from its string form: ``name[@k][:variant][,option=value...]``.

    After the colon come the variant (``f1:macro``) and options of the metric as
    ``option=value``, separated by commas: ``roc_auc:bins=64``,
    ``f1:macro,zero_division=1``. A value is read as an integer, a float,
    ``true``/``false``, ``none``, or else as a word. A metric whose variant is
    free text (``goodput:ttft=200ms,tpot=50ms``) takes everything after the colon
    as its variant. Keyword ``options`` are added to those of the string.

    Examples
    --------
    >>> parse_metric("f1:macro")
    F1(average='macro', ...)
    >>> parse_metric("accuracy").name
    'accuracy'
    >>> parse_metric("f1:macro,zero_division=1").zero_division
    1
    """
    if isinstance(spec, Metric):
        return spec
    if not isinstance(spec, str):
        raise ConfigError(message("scorekit", "metric must be a name", spec, "a string like 'f1'"))
    load_all()
    match = _NAME.match(spec.strip())
    name = "" if match is None else match["name"]
    known = name in _REGISTRY or name in _ALIASES or name in _AT_ALIASES
    if not known and not plugins_loaded():
        # an installed plug-in may register the name, an @-alias or a spelling of it
        load_plugins()
        load_all()
    if match is not None and match["at"] is not None:
        name = _AT_ALIASES.get(name, name)
    if name not in _REGISTRY and name not in _ALIASES:
        translated = _spelled(spec.strip())
        if translated is not None:
            return parse_metric(translated, **options)
        head = re.match(r"[A-Za-z_][A-Za-z0-9_]*", spec.strip())
        if match is None and head is not None and head[0] not in _REGISTRY:
            get(head[0])
    if match is None:
        raise ConfigError(message("scorekit", "malformed metric name", spec, _GRAMMAR))
    info = get(name)
    kwargs = dict(options)
    if match["at"] is not None:
        if info.at is None:
            raise ConfigError(message(info.name, "takes no @ parameter", spec, f"'{info.name}'"))
        at, comma, rest = match["at"].partition(",")
        if comma:
            raise ConfigError(
                message(
                    info.name,
                    "options after @k follow a colon, not a comma",
                    spec,
                    f"'{name}@{at}:{rest}'",
                )
            )
        try:
            kwargs[info.at] = int(match["at"])
        except ValueError:
            raise ConfigError(
                message(info.name, f"{info.at} after @ must be an integer", match["at"], "e.g. @10")
            ) from None
    if match["variant"] is not None:
        kwargs.update(_after_colon(info, spec, match["variant"]))
    try:
        return info.cls(**kwargs)
    except TypeError as exc:
        raise ConfigError(
            message(info.name, "invalid option", str(exc), "a documented parameter")
        ) from None


_GRAMMAR = "name[@k][:variant][,option=value...], e.g. 'ndcg@10' or 'roc_auc:bins=64'"


def _after_colon(info: MetricInfo, spec: str, text: str) -> dict[str, Any]:
    """The variant and the ``option=value`` items after the colon of a metric string."""
    if info.variant is not None and not info.variants:
        return {info.variant: text}
    out: dict[str, Any] = {}
    fields = _option_names(info.cls)
    for item in text.split(","):
        key, eq, value = (part.strip() for part in item.partition("="))
        if not eq:
            if info.variant is None:
                raise ConfigError(message(info.name, "takes no :variant", spec, f"'{info.name}'"))
            if key not in info.variants and not _open_variant(info, key):
                allowed = choices(info.variants)
                if info.variant_form is not None:
                    allowed += f" or {info.variant_form}"
                raise ConfigError(message(info.name, f"unknown {info.variant}", key, allowed))
            if info.variant in out:
                raise ConfigError(message(info.name, f"{info.variant} given twice", spec, "one"))
            out[info.variant] = key
            continue
        if key not in fields:
            raise ConfigError(message(info.name, "unknown option", key, choices(sorted(fields))))
        if key in out:
            raise ConfigError(message(info.name, f"option {key!r} given twice", spec, "once each"))
        out[key] = _option_value(value)
    return out


def _open_variant(info: MetricInfo, key: str) -> bool:
    """Whether ``key`` is one of the further values ``info.variant_pattern`` admits."""
    pattern = info.variant_pattern
    return pattern is not None and re.fullmatch(pattern, key) is not None


def _option_names(cls: type[Any]) -> set[str]:
    if dataclasses.is_dataclass(cls):
        return {f.name for f in dataclasses.fields(cls) if f.init and not f.name.startswith("_")}
    import inspect

    return set(inspect.signature(cls).parameters)


def _option_value(text: str) -> Any:
    lowered = text.lower()
    words = {"true": True, "false": False, "none": None}
    if lowered in words:
        return words[lowered]
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def iter_variants(info: MetricInfo) -> Iterator[Metric[Any]]:
    """Every configuration reachable by name: the default and each ``:variant``."""
    yield info.cls()
    for v in info.variants:
        yield parse_metric(f"{info.name}:{v}")
