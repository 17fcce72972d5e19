"""The ``Metric`` base: a frozen configuration and the three functions over its state.

A metric is defined once as three functions over a *state*::

    summarize(batch) -> State    one chunk of data -> its sufficient statistics
    merge(a, b)      -> State    associative, commutative, empty() is the identity
    compute(state)   -> result   the number(s) a user sees

Its name, direction, bounds and input kind live in the registry
(:mod:`scorekit.core._registry`), which :func:`register` fills.
"""

from __future__ import annotations

import abc
import dataclasses
import inspect
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, cast

import numpy as np
from numpy.typing import NDArray

from scorekit.core._fields import check_fields
from scorekit.core._state import S
from scorekit.errors import ConfigError, InputError, message, raw

__all__ = ["Metric", "MetricInfo", "UnitWeights"]


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

    def __post_init__(self) -> None:
        """Check and normalize the options declared on the fields (:func:`check_fields`)."""
        check_fields(self)

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

    shard_options: ClassVar[tuple[str, ...]] = ()
    """Options that may differ between the state files of shards merged together: the
    states make up for them (the cut points of score ranges that each run chose from
    its own sample are cut alike). Every other option must agree (:meth:`shard_config`)."""

    def shard_config(self) -> dict[str, Any]:
        """The options that must agree between the state files of shards merged together.

        Every option but the :attr:`shard_options`, by name. An option whose
        value is a metric (the metric a wrapper holds) gives that metric's
        own ``shard_config`` as ``"option.name"``, so a wrapper passes on the
        shard options of the metric it wraps.

        Examples
        --------
        >>> from scorekit import parse_metric
        >>> config = parse_metric("roc_auc:ranges=4,cuts=sample").shard_config()
        >>> "cuts" in config, config["max_fpr"]
        (False, None)
        """
        found: dict[str, Any] = {}
        for f in dataclasses.fields(cast(Any, self)):
            if not f.init or f.name in self.shard_options:
                continue
            value = getattr(self, f.name)
            if isinstance(value, Metric):
                found.update({f"{f.name}.{k}": v for k, v in value.shard_config().items()})
            else:
                found[f.name] = value
        return found

    def with_shard_options(self, **values: Any) -> Metric[S]:
        """This configuration with other values of its :attr:`shard_options`.

        The configuration of states that were made up for them: the merge of
        shards cut at their own points, cut alike, has the common cut points.
        A wrapper gives the values to the metric it wraps.

        Examples
        --------
        >>> from scorekit import parse_metric
        >>> parse_metric("roc_auc:cuts=[0.5]").with_shard_options(cuts=(0.25, 0.75)).cuts
        (0.25, 0.75)
        """
        unknown = sorted(set(values) - set(self.shard_options))
        if unknown:
            raise ConfigError(
                self._error(
                    "not an option that may differ between shards",
                    unknown[0],
                    f"one of {list(self.shard_options)}",
                )
            )
        changed: Metric[S] = dataclasses.replace(cast(Any, self), **values)
        return changed

    def merge_many(self, states: Sequence[S]) -> S:
        """Merge several states, in order (the states of consecutive parts of the data)."""
        if not states:
            return self.empty()
        merged = states[0]
        for state in states[1:]:
            merged = self.merge(merged, state)
        return merged

    # keys: the inputs that name units or groups, read by the engines -----------------

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

    # a first pass: settings chosen from the whole data before the fold ---------------

    @property
    def sampler(self) -> Metric[Any] | None:
        """A metric to fold over the data first, whose state settles this one (None: none).

        A configuration that chooses a setting from the data (score ranges
        cut where the scores fall) gives the metric that gathers what it needs;
        the evaluation functions fold it over the same source, on the same
        engine, and then fold :meth:`sampled` of its merged state, so every
        chunk, file and worker is summarized with the same setting.
        """
        return None

    def sampled(self, state: Any) -> Metric[Any]:
        """This metric with the setting its :attr:`sampler`'s merged ``state`` gives."""
        return self

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
