"""The bootstrap as a metric: a state that holds the replicates of another metric's state.

:class:`Bootstrap` wraps any registered metric. Its state (:class:`Replicates`)
keeps the wrapped metric's state of all the data, the states of the Poisson
replicates (unit ``i`` counted ``w[b, i]`` times in replicate ``b``, the weights
drawn from the seed and the unit's key only) and the leave-one-group-out states of
a grouped jackknife. Every part merges like the wrapped metric's state, so the
bootstrap streams, merges from shard files and runs on Dask like any metric, with
the same replicates for any chunking. Metrics whose state keeps one value per unit
(ranking's per-query values) keep only their own state: their replicates are
computed from it. Metrics that compute every replicate in one sorted pass (exact
ROC AUC and AP) keep their state and the rows with their unit keys (a
``UnitRows`` state): the weights are drawn again from the keys and the
replicates computed once, from the merged rows.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, cast

import numpy as np
from numpy.typing import NDArray

from scorekit._check import mix64
from scorekit.core import (
    Metric,
    State,
    caught,
    decode_value,
    encode_value,
    get,
    parse_metric,
    state_field,
)
from scorekit.errors import (
    ConfigError,
    InputError,
    ScorekitError,
    StateMismatchError,
    message,
    raw,
)
from scorekit.stats._limits import check_seed
from scorekit.stats._poisson import hash_keys, replicate_weights, unit_bases
from scorekit.stats._resampling import (
    compute_replicates,
    count_units,
    from_state,
    summarize_replicates,
    unit_keys,
    unit_of,
)
from scorekit.stats._rows import UnitRows, keeps_rows, replicates_of_rows, unit_rows

__all__ = ["Bootstrap", "Replicated", "Replicates", "describe_metric", "single_number"]

_NO_KEYS = np.zeros(0, dtype=np.int64)

MAX_RESAMPLES = 1_000_000
MAX_GROUPS = 10_000
KEY_SAMPLE = 1024
"""Hashed unit keys a keyed bootstrap keeps, to find two inputs that hold the same units."""
DEFAULT_GROUPS = 100


def describe_metric(metric: Metric[Any]) -> tuple[str, str]:
    """The name of a configured metric and its options as JSON (exact, rebuildable).

    The options are ``""`` when one has no JSON form (a function).
    """
    if not dataclasses.is_dataclass(metric):
        raise ConfigError(message("bootstrap", "cannot wrap", type(metric).__name__, "a metric"))
    options = {
        f.name: encode_value(getattr(metric, f.name)) for f in dataclasses.fields(metric) if f.init
    }
    try:
        text = json.dumps(options, sort_keys=True, allow_nan=True)
    except (TypeError, ValueError):
        text = ""  # a function among the options: the bootstrap works, its state file would not
    return metric.name, text


def _rebuild(name: str, options: str) -> Metric[Any]:
    cls = get(name).cls
    values = {k: decode_value(v) for k, v in json.loads(options).items()}
    return cls(**values)


@dataclass(frozen=True, eq=False)
class Replicates(State):
    """The state of a bootstrap: a metric's state, its replicates and its jackknife states.

    Attributes
    ----------
    metric, options
        The wrapped metric's registered name and options (JSON).
    seed, n_resamples, groups
        The replicates' seed, their number, and the jackknife's groups (0: none).
    key
        The key column that identifies units, or ``""`` for row positions.
    units
        Units summarized.
    state
        The wrapped metric's state of all the data; for metrics that compute
        every replicate in one sorted pass, a ``UnitRows`` state holding that
        state, the rows and their unit keys.
    replicates, leave_out
        The states of the replicates and of the data without each jackknife
        group (empty for metrics that compute replicates from ``state``).
        States written with a state per replicate by metrics that now keep
        rows still compute, and merge with states of rows.
    rows
        For row positions: the ``[first, stop)`` row ranges summarized (merging
        overlapping ranges means two inputs were keyed by the same positions).
    key_sample
        For keyed units summarized as one state per replicate: the smallest
        :data:`KEY_SAMPLE` mixed hashed keys, ascending as unsigned 64-bit
        integers (stored as their signed bits, as :attr:`sample` reads them).
        Two inputs whose samples share a key hold the same unit, and do not
        merge: the check is exact while the inputs hold at most
        :data:`KEY_SAMPLE` units each, and misses an overlap of a fraction
        ``f`` of larger inputs with probability about ``(1 - f) **
        KEY_SAMPLE`` (below 1e-4 for 1%).
        States of rows keep every key, and are checked exactly.
    """

    kind: ClassVar[str] = "Replicates"

    metric: str = state_field("same", check="text")
    options: str = state_field("same", check="text")
    seed: int = state_field("same", check="count")
    n_resamples: int = state_field("same", check="count")
    groups: int = state_field("same", check="count")
    key: str = state_field("same", check="text")
    units: int = state_field("sum", check="count")
    state: State = state_field("custom")
    replicates: tuple[State, ...] = state_field("custom")
    leave_out: tuple[State, ...] = state_field("custom")
    rows: NDArray[np.int64] = state_field("custom", check="count", ndim=2)
    key_sample: NDArray[np.int64] = state_field(
        "custom", check="integer", ndim=1, added=True, default_factory=lambda: _NO_KEYS
    )

    @property
    def whole(self) -> State:
        """The wrapped metric's state of all the data (inside the rows, for metrics keeping them).

        This is what the metric's figures and tables are drawn from.
        """
        return self.state.summary if isinstance(self.state, UnitRows) else self.state

    def _merge_custom(self, other: Replicates) -> dict[str, Any]:
        if isinstance(self.state, UnitRows) != isinstance(other.state, UnitRows):
            # a state of no rows is the identity; a state with one state per replicate
            # (2-D scores, or as earlier versions wrote for every metric) merges with one
            # of rows once the rows make their replicate states
            if _no_rows(self) or _no_rows(other):
                kept = other if _no_rows(self) else self
                names = ("state", "replicates", "leave_out", "rows", "key_sample")
                return {name: getattr(kept, name) for name in names}
            return _per_replicate(self)._merge_custom(_per_replicate(other))
        if self.key and isinstance(self.state, UnitRows) and isinstance(other.state, UnitRows):
            both = np.intersect1d(self.state.keys, other.state.keys, assume_unique=True)
            if len(both):
                raise StateMismatchError(
                    message(
                        f"bootstrap of {self.metric}",
                        f"two inputs, or two chunks of one, hold the same units (key {self.key!r})",
                        raw(
                            f"{len(both)} of the {other.units} units of one "
                            f"in the {self.units} of the other"
                        ),
                        "each unit's row once: disjoint inputs, and unique keys in each",
                    )
                )
        shared = np.intersect1d(self.sample, other.sample, assume_unique=True)
        if len(shared):
            raise StateMismatchError(
                message(
                    f"bootstrap of {self.metric}",
                    f"two inputs, or two chunks of one, hold the same units (key {self.key!r})",
                    raw(
                        f"at least {len(shared)} of the {other.units} units of one "
                        f"in the {self.units} of the other"
                    ),
                    "each unit's row once: disjoint inputs, and unique keys in each",
                )
            )
        rows = np.concatenate([self.rows, other.rows])
        if self.key == "" and len(rows) > 1:
            order = np.argsort(rows[:, 0], kind="stable")
            sorted_rows = rows[order]
            clash = np.flatnonzero(sorted_rows[1:, 0] < sorted_rows[:-1, 1])
            if len(clash):
                c = clash[0]
                first = int(sorted_rows[c + 1, 0])
                last = int(min(sorted_rows[c, 1], sorted_rows[c + 1, 1])) - 1
                raise StateMismatchError(
                    message(
                        f"bootstrap of {self.metric}",
                        "two inputs are keyed by the same row positions",
                        raw(f"rows {first} to {last} twice"),
                        "a key column (key=COL, --key COL) when shards are read separately",
                    )
                )
        return {
            "state": self.state.merge(other.state),
            "replicates": _pairwise(self.replicates, other.replicates),
            "leave_out": _pairwise(self.leave_out, other.leave_out),
            "rows": _coalesce(rows),
            "key_sample": np.union1d(self.sample, other.sample)[:KEY_SAMPLE].view(np.int64),
        }

    @property
    def sample(self) -> NDArray[np.uint64]:
        """The key sample as the unsigned 64-bit integers it holds."""
        keys: NDArray[np.uint64] = self.key_sample.view(np.uint64)
        return keys

    def row_count(self) -> int | None:
        """The rows summarized: the units, when the wrapped metric's unit is the row."""
        cls = _wrapped_class(self.metric)
        if cls is None or from_state(cls) or unit_of(cls) != "row":
            return None
        return self.units

    def _check(self) -> None:
        if not isinstance(self.state, State):
            raise self._invalid("state", "not a state", raw(type(self.state).__name__), "a state")
        if not 1 <= self.n_resamples <= MAX_RESAMPLES:
            raise self._invalid(
                "n_resamples", "no replicate count", self.n_resamples, f"1 to {MAX_RESAMPLES:,}"
            )
        if self.groups == 1 or self.groups > MAX_GROUPS:
            raise self._invalid(
                "groups", "not a jackknife's groups", self.groups, f"0 or 2 to {MAX_GROUPS:,}"
            )
        cls = _wrapped_class(self.metric)
        if cls is None:
            raise self._invalid("metric", "not a registered metric", self.metric)
        self._check_rows()
        self._check_key_sample(cls)
        if isinstance(self.state, UnitRows):
            for name in ("replicates", "leave_out"):
                if getattr(self, name):
                    raise self._invalid(
                        name, "replicate states beside rows", len(getattr(self, name)), "none"
                    )
            if self.state.units != self.units:
                raise self._invalid(
                    "units", "differs from the rows kept", self.units, str(self.state.units)
                )
            self._check_unit_keys(self.state)
            return
        for name in ("replicates", "leave_out"):
            states = getattr(self, name)
            if not isinstance(states, tuple) or any(
                type(s) is not type(self.state) for s in states
            ):
                raise self._invalid(
                    name, "not states of the wrapped metric's kind", None, self.state.kind
                )
        if from_state(cls):
            for name in ("replicates", "leave_out"):
                if getattr(self, name):
                    raise self._invalid(
                        name,
                        f"replicate states of a metric whose {unit_of(cls)} values make them",
                        len(getattr(self, name)),
                        "none (the replicates come from the state)",
                    )
            return
        if len(self.replicates) != self.n_resamples:
            raise self._invalid(
                "replicates",
                "wrong number of replicates",
                len(self.replicates),
                f"{self.n_resamples}, one state per resample (n_resamples)",
            )
        if len(self.leave_out) != self.groups:
            raise self._invalid(
                "leave_out",
                "wrong number of jackknife states",
                len(self.leave_out),
                f"{self.groups}, one state per jackknife group (groups)",
            )
        counted = self.state.row_count()
        if counted is not None and self.row_count() not in (None, counted):
            raise self._invalid(
                "units",
                f"differs from the rows of the {self.state.kind} state",
                self.units,
                str(counted),
            )

    def _check_rows(self) -> None:
        """Row ranges: none for keyed units; else ascending, disjoint, covering the units."""
        rows = self.rows
        if rows.ndim != 2 or rows.shape[1] != 2:
            raise self._invalid(
                "rows", "not [first, stop) row ranges", raw(f"shape {list(rows.shape)}")
            )
        if self.key or from_state(_wrapped_class(self.metric)):
            if len(rows):
                raise self._invalid(
                    "rows",
                    "row ranges for units not keyed by row position",
                    raw(f"{len(rows)} ranges"),
                    "none",
                )
            return
        if np.any(rows[:, 0] >= rows[:, 1]):
            i = int(np.flatnonzero(rows[:, 0] >= rows[:, 1])[0])
            raise self._invalid(
                "rows", "an empty or reversed row range", raw(str(rows[i].tolist())), "first < stop"
            )
        overlap = np.flatnonzero(rows[1:, 0] < rows[:-1, 1])
        if len(overlap):
            i = int(overlap[0])
            first = int(rows[i + 1, 0])
            last = int(min(rows[i, 1], rows[i + 1, 1])) - 1
            raise self._invalid(
                "rows",
                "row ranges out of order or overlapping",
                raw(f"rows {first} to {last} twice"),
                "ascending, disjoint ranges",
            )
        span = int((rows[:, 1] - rows[:, 0]).sum())
        if self.units > span:
            raise self._invalid(
                "units",
                "more units than the row ranges hold",
                self.units,
                f"at most {span}, the rows of {rows.tolist()[:3]}{'...' if len(rows) > 3 else ''}",
            )

    def _check_key_sample(self, cls: Any) -> None:
        """Ascending distinct hashed keys, one per unit up to :data:`KEY_SAMPLE`; or none.

        States of files written before the sample was kept have none, and are
        merged without it.
        """
        sample = self.sample
        if not len(sample):
            return
        if not self.key or isinstance(self.state, UnitRows) or from_state(cls):
            raise self._invalid(
                "key_sample",
                "a key sample where the units are kept or not keyed",
                raw(f"{len(sample)} keys"),
                "none",
            )
        if np.any(sample[1:] <= sample[:-1]):
            raise self._invalid(
                "key_sample", "keys not ascending and distinct", None, "ascending distinct keys"
            )
        expected = min(self.units, KEY_SAMPLE)
        if len(sample) != expected:
            raise self._invalid(
                "key_sample",
                f"another number of keys than of units (up to {KEY_SAMPLE:,})",
                raw(f"{len(sample)} keys for {self.units} units"),
                f"{expected} keys",
            )

    def _check_unit_keys(self, held: UnitRows) -> None:
        """Each unit once: distinct keys, and row positions inside the row ranges."""
        keys = held.unit_keys
        if len(keys) > 1:
            ordered = np.sort(keys)
            same = np.flatnonzero(ordered[1:] == ordered[:-1])
            if len(same):
                raise self._invalid(
                    "state",
                    "a unit is kept twice",
                    raw(f"{len(same)} units counted twice (key {self._unit_name()})"),
                    "each unit's row once",
                )
        if self.key or not len(keys):
            return
        rows = self.rows
        at = np.searchsorted(rows[:, 0].astype(np.uint64), keys, side="right") - 1
        inside = (at >= 0) & (keys < rows[np.maximum(at, 0), 1].astype(np.uint64))
        if not inside.all():
            raise self._invalid(
                "state",
                "a row position outside the row ranges",
                int(keys[np.flatnonzero(~inside)[0]]),
                f"positions within {rows.tolist()[:3]}{'...' if len(rows) > 3 else ''}",
            )

    def _unit_name(self) -> str:
        return repr(self.key) if self.key else "row position"


def _wrapped_class(name: str) -> Any:
    """The registered class of the wrapped metric, or None when the name is not registered."""
    try:
        return get(name).cls
    except ConfigError:
        return None


def _no_rows(state: Replicates) -> bool:
    """Whether a bootstrap state keeps rows and none of them (the state of no data)."""
    return isinstance(state.state, UnitRows) and state.state.units == 0


def _per_replicate(state: Replicates) -> Replicates:
    """A state of rows as one state per replicate and jackknife group (others as they are)."""
    if not isinstance(state.state, UnitRows):
        return state
    if not state.options:
        raise StateMismatchError(
            message(
                f"bootstrap of {state.metric}",
                "cannot merge a state of rows with one of a state per replicate",
                raw("a metric whose options have no JSON form"),
                "states written by the same version",
            )
        )
    boot = Bootstrap(
        state.metric,
        options=state.options,
        n_resamples=state.n_resamples,
        seed=state.seed,
        key=state.key,
        groups=state.groups,
    )
    rows = state.state
    kwargs = {} if rows.sample_weight is None else {"sample_weight": rows.sample_weight}
    replicates, leave_out = boot.replicate_states(rows.inputs, kwargs, rows.unit_keys)
    sample = _key_sample(rows.unit_keys) if state.key else _NO_KEYS
    return dataclasses.replace(
        state,
        state=rows.summary,
        replicates=replicates,
        leave_out=leave_out,
        key_sample=sample,
    )


def _key_sample(keys: NDArray[np.uint64]) -> NDArray[np.int64]:
    """The smallest :data:`KEY_SAMPLE` of the mixed hashed keys, ascending.

    The keys are mixed first (a bijection), so that the sample is a random one
    of the units even where the hashes of similar keys are close.
    """
    return np.unique(mix64(np.asarray(keys, dtype=np.uint64)))[:KEY_SAMPLE].view(np.int64)


def _pairwise(a: tuple[State, ...], b: tuple[State, ...]) -> tuple[State, ...]:
    return tuple(x.merge(y) for x, y in zip(a, b, strict=True))


def _coalesce(rows: NDArray[np.int64]) -> NDArray[np.int64]:
    """Row ranges sorted, adjacent ones joined."""
    if len(rows) < 2:
        return rows.reshape(-1, 2).astype(np.int64)
    rows = rows[np.argsort(rows[:, 0], kind="stable")]
    out = [rows[0].tolist()]
    for first, stop in rows[1:].tolist():
        if first == out[-1][1]:
            out[-1][1] = stop
        else:
            out.append([first, stop])
    return np.array(out, dtype=np.int64)


@dataclass(frozen=True)
class Replicated:
    """What a bootstrap computes: the value on all the data, the replicates and the jackknife.

    Attributes
    ----------
    value : float
        The metric on all the data.
    replicates : ndarray
        The metric on each replicate (NaN where undefined).
    jackknife : ndarray
        The metric without each jackknife group (empty without groups).
    units : int
        Units summarized.
    unit : str
        What a unit is (``row``, ``query``, ``segment``...).
    """

    value: float
    replicates: NDArray[np.float64] = dataclasses.field(repr=False)
    jackknife: NDArray[np.float64] = dataclasses.field(repr=False)
    units: int
    unit: str


def single_number(metric: Metric[Any], value: Any) -> float:
    """A metric's value as a float, or a ConfigError when it is not one number."""
    if isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool):
        return float(value)
    shape = getattr(value, "shape", None)
    if shape == ():
        return float(value)
    raise ConfigError(
        message(
            metric.name,
            "cannot be bootstrapped: its value is not a single number",
            raw(f"a value of shape {list(shape)}" if shape else type(value).__name__),
            "a metric with one number (choose an average, for example f1:macro)",
        )
    )


@dataclass(frozen=True)
class Bootstrap(Metric[Replicates]):
    """The Poisson bootstrap of another metric, as a mergeable metric.

    Parameters
    ----------
    metric : str or Metric
        The wrapped metric, as a metric string (``"roc_auc"``, ``"f1:macro"``) or
        a configured metric (kept as given; its name and options become the
        fields ``metric`` and ``options``).
    options : str
        Extra options of the wrapped metric as JSON (what :func:`describe_metric`
        gives); ``"{}"`` takes the metric string as it is.
    n_resamples : int
        Replicates (at least 1; fewer than 100 give rough intervals).
    seed : int
        The seed of the weights; with the same seed and keys the replicates are
        identical however the data is chunked.
    key : str
        The input that identifies units (a column name, given to ``summarize`` as
        ``unit_key``), or ``""``: the unit is the row, keyed by its position.
    groups : int
        Groups of the jackknife kept for BCa intervals (0: none). With row
        positions, unit ``i`` is in group ``i % groups``, so inputs of at most
        ``groups`` units give the exact leave-one-out jackknife.

    Notes
    -----
    The state keeps one state of the wrapped metric per replicate and
    jackknife group, except for metrics that compute many replicates of
    binary scores in one sorted pass (exact ROC AUC and AP,
    :attr:`keeps_rows`): their state of 1-D scores keeps the metric's state
    and the rows with their unit keys, and :meth:`compute`
    draws each unit's weights again from its key, so memory grows with the
    rows, not with the replicates, and the replicates are those of the data in
    memory for any chunking.

    Examples
    --------
    >>> boot = Bootstrap("accuracy", n_resamples=200, seed=1)
    >>> result = boot.compute(boot.summarize([1, 0, 1, 1] * 25, [1, 1, 1, 0] * 25))
    >>> result.value, result.replicates.shape, round(float(result.replicates.mean()), 1)
    (0.5, (200,), 0.5)
    """

    metric: str
    options: str = "{}"
    n_resamples: int = 1000
    seed: int = 0
    key: str = ""
    groups: int = DEFAULT_GROUPS

    inner: Metric[Any] = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if (
            isinstance(self.n_resamples, bool)
            or not isinstance(self.n_resamples, int)
            or not (1 <= self.n_resamples <= MAX_RESAMPLES)
        ):
            raise ConfigError(
                message(
                    "bootstrap",
                    "invalid n_resamples",
                    self.n_resamples,
                    f"an integer in [1, {MAX_RESAMPLES:,}]",
                )
            )
        object.__setattr__(self, "seed", check_seed(self.seed, "bootstrap"))
        if (
            isinstance(self.groups, bool)
            or not isinstance(self.groups, int)
            or not (self.groups == 0 or 2 <= self.groups <= MAX_GROUPS)
        ):
            raise ConfigError(
                message(
                    "bootstrap",
                    "invalid groups",
                    self.groups,
                    f"0 or an integer in [2, {MAX_GROUPS}]",
                )
            )
        if not isinstance(self.key, str):
            raise ConfigError(message("bootstrap", "invalid key", self.key, "a column name"))
        given: Any = self.metric
        if isinstance(given, Metric):
            inner = given
        elif self.options == "{}":
            inner = parse_metric(given)
        else:
            inner = _rebuild(given, self.options)
        name, options = describe_metric(inner)
        object.__setattr__(self, "inner", inner)
        object.__setattr__(self, "metric", name)
        object.__setattr__(self, "options", options)
        if from_state(inner) and self.key:
            raise ConfigError(
                message(
                    f"bootstrap of {name}",
                    f"a key column is not needed: its units are {unit_of(inner)} ids",
                    self.key,
                    "no key",
                )
            )

    @classmethod
    def of(cls, metric: str | Metric[Any], **kwargs: Any) -> Bootstrap:
        """The bootstrap of a metric string or a configured metric."""
        return cls(cast(str, metric), **kwargs)

    # the metric protocol --------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def inputs(self) -> str:
        return self.inner.inputs

    @property
    def unit(self) -> str:
        return unit_of(self.inner)

    @property
    def reads(self) -> type[Metric[Any]]:
        """The class whose ``summarize`` names the inputs read (the wrapped metric's)."""
        return self.inner.reads

    @property
    def sampler(self) -> Metric[Any] | None:
        """The wrapped metric's first pass (cut points from a sample of all the rows)."""
        return self.inner.sampler

    def sampled(self, state: Any) -> Metric[Any]:
        """The bootstrap of the wrapped metric as its first pass's ``state`` settles it."""
        if self.inner.sampler is None:
            return self
        settled = cast(str, self.inner.sampled(state))
        return dataclasses.replace(self, metric=settled, options="{}")

    # shards evaluated apart: the wrapped metric's shard options, and its states -----------

    shard_options: ClassVar[tuple[str, ...]] = ("options",)
    """The wrapped metric's options are compared one by one (:meth:`shard_config`), its own
    shard options aside."""

    def shard_config(self) -> dict[str, Any]:
        """The settings that must agree between shard files: the bootstrap's, and the wrapped
        metric's options but its shard options (as ``"options.name"``).

        Examples
        --------
        >>> config = Bootstrap("roc_auc:ranges=4,cuts=sample", key="k").shard_config()
        >>> config["key"], config["options.max_fpr"], "options.cuts" in config
        ('k', None, False)
        """
        found = super().shard_config()
        found.update({f"options.{k}": v for k, v in self.inner.shard_config().items()})
        return found

    def with_shard_options(self, **values: Any) -> Bootstrap:
        """The bootstrap of the wrapped metric with other values of its shard options.

        Examples
        --------
        >>> boot = Bootstrap("roc_auc:cuts=[0.5]", key="k")
        >>> boot.with_shard_options(cuts=(0.2, 0.6)).inner.cuts
        (0.2, 0.6)
        """
        inner = self.inner.with_shard_options(**values)
        return dataclasses.replace(self, metric=cast(str, inner), options="{}")

    def inner_states(self, state: Replicates) -> list[State]:
        """The wrapped metric's states ``state`` holds: all the data's, the replicates' and
        the jackknife's."""
        return [state.whole, *state.replicates, *state.leave_out]

    def with_inner_states(self, state: Replicates, change: Callable[[State], State]) -> Replicates:
        """``state`` with ``change`` applied to each state of the wrapped metric it holds.

        ``change`` keeps what a state summarizes and may give it another
        layout (score ranges cut at other points); the state is one of this
        bootstrap (its ``options`` this bootstrap's), the rows a state of rows
        keeps as they are.

        Examples
        --------
        >>> from scorekit.classification import recut
        >>> boot = Bootstrap("roc_auc:cuts=[0.5]", key="k", n_resamples=20)
        >>> state = boot.summarize([1, 0, 1, 0], [0.9, 0.4, 0.2, 0.6], unit_key=[1, 2, 3, 4])
        >>> other = boot.with_shard_options(cuts=(0.3, 0.7))
        >>> cut = other.with_inner_states(state, lambda s: recut(s, other.inner.cuts))
        >>> cut.whole.cuts.tolist(), cut.options == other.options
        ([0.3, 0.7], True)
        >>> import numpy as np
        >>> a, b = other.compute(cut).replicates, boot.compute(state).replicates
        >>> np.array_equal(a, b, equal_nan=True)
        True
        """
        held = state.state
        if isinstance(held, UnitRows):
            held = dataclasses.replace(held, summary=change(held.summary))
        else:
            held = change(held)
        return dataclasses.replace(
            state,
            options=self.options,
            state=held,
            replicates=tuple(change(s) for s in state.replicates),
            leave_out=tuple(change(s) for s in state.leave_out),
        )

    @property
    def wraps(self) -> Metric[Any] | None:
        """The wrapped metric, when its state alone makes the replicates (per-unit values)."""
        return self.inner if from_state(self.inner) else None

    def wrap(self, state: Any) -> Replicates:
        """The bootstrap state of a state of the wrapped metric that keeps per-unit values."""
        if not from_state(self.inner):
            raise ConfigError(
                message(
                    f"bootstrap of {self.metric}",
                    "needs its own summarize: the state keeps no value per unit",
                    raw(type(state).__name__),
                )
            )
        return self._state(state, (), (), 0, np.zeros((0, 2), dtype=np.int64))

    @property
    def grows(self) -> bool:
        """Whether the wrapped metric's state grows with the data."""
        return self.inner.grows

    @property
    def keeps_rows(self) -> bool:
        """Whether the state keeps the rows and their unit keys instead of replicate states.

        True for metrics that compute every replicate of binary scores in one
        sorted pass and whose exact state grows with the data anyway (exact
        ROC AUC and AP); they keep a state per replicate of 2-D scores.
        """
        return keeps_rows(self.inner)

    @property
    def size_advice(self) -> tuple[str, str, str]:
        """What the bootstrap state keeps, and what keeps it smaller."""
        bounded = self.inner.size_advice
        if self.keeps_rows:
            growth = (
                f"it keeps the inputs and the unit key of every {unit_of(self.inner)}, "
                f"or one {self.metric} state per replicate of 2-D scores"
            )
            advice = bounded[2] if bounded is not None else "it grows with the rows"
            return ("bootstrap state", growth, advice)
        copies = f"{self.n_resamples:,} replicates"
        if self.groups:
            copies += f" and {self.groups} jackknife groups"
        advice = "fewer resamples (n_resamples, --n-resamples) keep it smaller"
        if bounded is not None:
            advice += "; " + bounded[2]
        return ("bootstrap state", f"one {self.metric} state for each of {copies}", advice)

    @property
    def key_column(self) -> str:
        """The key column (``""``: units keyed by row position)."""
        return self.key

    @property
    def positional(self) -> bool:
        """Whether units are keyed by row position (``summarize`` takes ``first_row=``)."""
        return not self.key and not from_state(self.inner)

    def empty(self) -> Replicates:
        inner = self.inner
        if self.keeps_rows:
            empty = np.zeros((0, 2), dtype=np.int64)
            return self._state(UnitRows.empty(inner.empty()), (), (), 0, empty)
        per_unit = from_state(inner)
        return self._state(
            inner.empty(),
            () if per_unit else tuple(inner.empty() for _ in range(self.n_resamples)),
            () if per_unit else tuple(inner.empty() for _ in range(self.groups)),
            0,
            np.zeros((0, 2), dtype=np.int64),
        )

    def _state(
        self,
        state: State,
        replicates: tuple[State, ...],
        leave_out: tuple[State, ...],
        units: int,
        rows: NDArray[np.int64],
        key_sample: NDArray[np.int64] = _NO_KEYS,
    ) -> Replicates:
        return Replicates(
            metric=self.metric,
            options=self.options,
            seed=self.seed,
            n_resamples=self.n_resamples,
            groups=self.groups,
            key=self.key,
            units=units,
            state=state,
            replicates=replicates,
            leave_out=leave_out,
            rows=rows,
            key_sample=key_sample,
        )

    def summarize(
        self,
        *batch: Any,
        unit_key: Any = None,
        first_row: int = 0,
        positions: Any = None,
        **kwargs: Any,
    ) -> Replicates:
        """The replicate states of one batch (rows ``first_row`` onwards of the data).

        ``positions`` are the rows' own positions in the data when the batch
        is some of the rows from ``first_row`` on (a group's rows of a chunk),
        ascending; each row keeps the replicate weights of its position. A
        bootstrap that :attr:`keeps_rows` keeps the batch's rows and their
        unit keys instead of replicate states.
        """
        inner = self.inner
        state = inner.summarize(*batch, **kwargs)
        if from_state(inner):
            return self.wrap(state)
        n = count_units(inner, *batch, **kwargs)
        keys, _, rows = self.keys_of(n, unit_key, first_row, positions)
        if self.keeps_rows:
            kept = unit_rows(inner, state, batch, kwargs, keys)
            if kept is not None:
                return self._state(kept, (), (), n, rows)
        replicates, leave_out = self.replicate_states(batch, kwargs, keys)
        sample = _key_sample(keys) if self.key else _NO_KEYS
        return self._state(state, replicates, leave_out, n, rows, sample)

    def replicate_states(
        self, batch: tuple[Any, ...], kwargs: dict[str, Any], keys: NDArray[np.uint64]
    ) -> tuple[tuple[State, ...], tuple[State, ...]]:
        """The states of the replicates and of the jackknife groups left out, of one batch.

        ``keys`` are the units' keys (hashed key column values, or row
        positions); unit ``key`` is in jackknife group ``key % groups``.
        """
        n = len(keys)
        groups = (keys % np.uint64(max(self.groups, 1))).astype(np.int64)
        bases = unit_bases(self.seed, keys)
        replicates: list[State] = []
        step = max(1, (1 << 22) // max(n, 1))
        for start in range(0, self.n_resamples, step):
            weights = replicate_weights(bases, start, min(start + step, self.n_resamples))
            replicates.extend(self._replicates(batch, weights.astype(np.int64), kwargs))
        leave_out: list[State] = []
        if self.groups:
            for start in range(0, self.groups, step):
                g = np.arange(start, min(start + step, self.groups))[:, None]
                weights = (groups[None, :] != g).astype(np.int64)
                leave_out.extend(self._replicates(batch, weights, kwargs))
        return tuple(replicates), tuple(leave_out)

    def _replicates(
        self, batch: tuple[Any, ...], weights: NDArray[np.int64], kwargs: dict[str, Any]
    ) -> list[State]:
        """The replicate states of a batch; a replicate with no unit of it gets the empty state."""
        out: list[State] = [self.inner.empty()] * len(weights)
        counted = np.flatnonzero(weights.any(axis=1))
        if len(counted):
            states = summarize_replicates(self.inner, *batch, weights=weights[counted], **kwargs)
            for i, state in zip(counted.tolist(), states, strict=True):
                out[i] = state
        return out

    def keys_of(
        self, n: int, unit_key: Any, first_row: int = 0, positions: Any = None
    ) -> tuple[NDArray[np.uint64], NDArray[np.int64], NDArray[np.int64]]:
        """The keys of ``n`` units, their jackknife groups and the row range they cover."""
        where = f"bootstrap of {self.metric}"
        if positions is not None and not self.key:
            at = np.asarray(positions, dtype=np.int64)
            if at.shape != (n,) or (n and (at[0] < first_row or np.any(np.diff(at) <= 0))):
                raise InputError(
                    message(
                        where,
                        "row positions do not fit the batch",
                        raw(f"{at.size} positions for {n} units"),
                        f"{n} ascending positions from row {first_row} on",
                    )
                )
            # the range from the batch's first row covers every position given
            span = np.array([[first_row, int(at[-1]) + 1]], dtype=np.int64)
            rows = span if n else np.zeros((0, 2), np.int64)
            return at.astype(np.uint64), at % max(self.groups, 1), rows
        if self.key:
            if unit_key is None:
                raise InputError(message(where, "no key column given", None, repr(self.key)))
            keys = hash_keys(unit_key, where)
            if len(keys) != n:
                raise InputError(
                    message(where, "key column has the wrong length", len(keys), f"{n} units")
                )
            _refuse_duplicates(where, unit_key, keys)
            groups = (keys % np.uint64(max(self.groups, 1))).astype(np.int64)
            return keys, groups, np.zeros((0, 2), dtype=np.int64)
        if unit_key is not None:
            raise InputError(message(where, "a key column is given but key is not set", None))
        positions = np.arange(first_row, first_row + n, dtype=np.int64)
        rows = (
            np.array([[first_row, first_row + n]], dtype=np.int64)
            if n
            else np.zeros((0, 2), np.int64)
        )
        return positions.astype(np.uint64), positions % max(self.groups, 1), rows

    def compute(self, state: Replicates) -> Replicated:
        inner = self.inner
        held = state.state
        summary = held.summary if isinstance(held, UnitRows) else held
        value = single_number(inner, inner.compute(summary))
        # a replicate's undefined value follows the metric's policy (NaN or 0) silently: the
        # value of all the data has warned already, and a metric's compute says that a value
        # is undefined only by warning
        (replicates, jackknife, units), _ = caught(lambda: self._replicate_values(state))
        return Replicated(value, replicates, jackknife, units, unit_of(inner))

    def _replicate_values(self, state: Replicates) -> tuple[Any, Any, int]:
        """The replicate values, the leave-one-group-out values and the units of a state."""
        inner = self.inner
        held = state.state
        if isinstance(held, UnitRows):
            replicates, jackknife = replicates_of_rows(
                inner,
                held,
                seed=self.seed,
                n_resamples=self.n_resamples,
                groups=self.groups,
                value=self._value,
            )
            units = state.units
        elif from_state(inner):
            replicates, jackknife, units = self._from_state(state.state)
        else:
            replicates = np.array([self._value(s) for s in state.replicates])
            jackknife = np.array([self._value(s) for s in state.leave_out])
            units = state.units
        return replicates, jackknife, units

    def _value(self, state: State) -> float:
        """A replicate's value: NaN where the metric has none (a replicate of no data)."""
        try:
            value = self.inner.compute(state)
        except ScorekitError:
            return math.nan
        return single_number(self.inner, value)

    def _from_state(self, state: State) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
        inner = self.inner
        ids = unit_keys(inner, state)
        keys = hash_keys(ids, f"bootstrap of {self.metric}")
        bases = unit_bases(self.seed, keys)
        parts = []
        step = max(1, (1 << 22) // max(len(keys), 1))
        for start in range(0, self.n_resamples, step):
            weights = replicate_weights(bases, start, min(start + step, self.n_resamples))
            parts.append(
                np.asarray(
                    compute_replicates(inner, state, weights.astype(np.int64)), dtype=np.float64
                )
            )
        replicates = np.concatenate(parts) if parts else np.zeros(0)
        jackknife = np.zeros(0)
        if self.groups and len(keys):
            groups = keys % np.uint64(self.groups)
            weights = groups[None, :] != np.arange(self.groups, dtype=np.uint64)[:, None]
            jackknife = np.asarray(
                compute_replicates(inner, state, weights.astype(np.int64)), dtype=np.float64
            )
        return replicates, jackknife, len(keys)


def _refuse_duplicates(where: str, given: Any, keys: NDArray[np.uint64]) -> None:
    order = np.argsort(keys, kind="stable")
    same = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    if len(same):
        value = np.asarray(given)[order[same[0]]]
        raise InputError(
            message(
                where,
                "key column has duplicates",
                value.item() if hasattr(value, "item") else value,
                "one row per key",
            )
        )
