"""Options of a metric declared on its fields and checked in one place.

The options of a metric are the fields of its frozen dataclass. The rule an option
follows is written beside its type with :data:`typing.Annotated`::

    max_order: Annotated[int, Range(1)] = 4                       # an integer >= 1
    p: Annotated[float, Range(0, 1, closed="neither")] = 0.9      # 0 < p < 1
    tokenize: Annotated[str, OneOf(TOKENIZERS)] = "13a"
    lowercase: Annotated[bool, Flag] = False
    labels: Annotated[tuple[Any, ...] | None, Check(labels_option)] = None

``Metric.__post_init__`` runs :func:`check_fields`: each marked field is checked and
normalized, in the order of the fields, and a wrong value is a
:class:`~scorekit.errors.ConfigError` in the house form. A metric's own
``__post_init__`` keeps the rules that tie several fields together, after calling
``super().__post_init__()``. A field declared again in a subclass without markers
(a new default) keeps the markers of its base's declaration. :func:`option_values`
reads the choices of an option from the same declaration
(``scorekit.core.option_choices`` gives them to commands).
"""

from __future__ import annotations

import abc
import dataclasses
import functools
import math
import types
import typing
from collections.abc import Callable, Iterable
from dataclasses import KW_ONLY, dataclass
from typing import Annotated, Any, Literal, NamedTuple, Protocol, Union

import numpy as np

from scorekit.errors import ConfigError, choices

__all__ = ["Check", "Flag", "OneOf", "Range", "check_fields", "option_values"]


class _Configured(Protocol):
    """What the markers need of a metric: its name in messages, in the house form."""

    def _error(self, problem: str, got: Any = None, expected: str | None = None) -> str: ...


class _Option(NamedTuple):
    """A marked field: its name, its markers and what its type admits."""

    name: str
    markers: tuple[_Marker, ...]
    optional: bool
    integer: bool


class _Marker(abc.ABC):
    """A rule on one option, written in the field's ``Annotated`` type."""

    @abc.abstractmethod
    def apply(self, metric: _Configured, option: _Option, value: Any) -> Any:
        """Check ``value`` of ``option`` and return the value the metric keeps."""


@dataclass(frozen=True)
class Range(_Marker):
    """A number from ``low`` to ``high``: an integer on an ``int`` field, else a real number.

    Booleans are not numbers here, and NaN is in no range. Ends left out (None)
    are open to infinity; infinity itself is admitted only as a closed end
    (``Range(0, math.inf)``). numpy integers of an ``int`` field become ``int``; numpy scalars
    of a ``float`` field become Python numbers; None passes when the type admits
    None. ``closed`` says which ends are included; ``problem`` and ``expected``
    replace the default message parts (``invalid <option>`` and the rule, e.g.
    ``an integer >= 1``; ``expected=""`` leaves the rule out); ``convert`` is
    applied to the value kept (e.g. ``float``).

    Examples
    --------
    >>> Range(1)
    Range(low=1, high=None, closed='both', problem=None, expected=None, convert=None)
    """

    low: float | None = None
    high: float | None = None
    _: KW_ONLY
    closed: Literal["both", "left", "right", "neither"] = "both"
    problem: str | None = None
    expected: str | None = None
    convert: Callable[[Any], Any] | None = None

    def apply(self, metric: _Configured, option: _Option, value: Any) -> Any:
        """The number kept for ``value``, or a ConfigError naming ``option``."""
        if value is None and option.optional:
            return None
        kinds = (int, np.integer) if option.integer else (int, float, np.integer, np.floating)
        if isinstance(value, kinds) and not isinstance(value, bool):
            kept = int(value) if option.integer else value
            if isinstance(kept, np.generic):
                kept = kept.item()
            if self._contains(kept):
                return kept if self.convert is None else self.convert(kept)
        problem = f"invalid {option.name}" if self.problem is None else self.problem
        raise ConfigError(metric._error(problem, value, self._rule(option)))

    def _contains(self, x: float) -> bool:
        low = -math.inf if self.low is None else self.low
        high = math.inf if self.high is None else self.high
        left = self.low is not None and self.closed in ("both", "left")
        right = self.high is not None and self.closed in ("both", "right")
        return (x >= low if left else x > low) and (x <= high if right else x < high)

    def _rule(self, option: _Option) -> str:
        if self.expected is not None:
            return self.expected
        rule = "an integer" if option.integer else "a number"
        left = self.closed in ("both", "left")
        right = self.closed in ("both", "right")
        if self.low is not None and self.high is not None:
            rule += f" in {'[' if left else '('}{self.low}, {self.high}{']' if right else ')'}"
        elif self.low is not None:
            rule += f" {'>=' if left else '>'} {self.low}"
        elif self.high is not None:
            rule += f" {'<=' if right else '<'} {self.high}"
        return rule + " or None" if option.optional else rule


@dataclass(frozen=True, init=False)
class OneOf(_Marker):
    """One of ``values`` (compared with ``==``; list None among them to admit it).

    The message reads ``unknown <option>`` and lists the values, unless
    ``problem`` and ``expected`` say otherwise. The value is kept as given.

    Examples
    --------
    >>> OneOf(["exp", "floor"]).values
    ('exp', 'floor')
    """

    values: tuple[Any, ...]
    problem: str | None
    expected: str | None

    def __init__(
        self, values: Iterable[Any], *, problem: str | None = None, expected: str | None = None
    ) -> None:
        object.__setattr__(self, "values", tuple(values))
        object.__setattr__(self, "problem", problem)
        object.__setattr__(self, "expected", expected)

    def apply(self, metric: _Configured, option: _Option, value: Any) -> Any:
        """``value`` if it is one of the values, else a ConfigError naming ``option``."""
        if value in self.values:
            return value
        problem = f"unknown {option.name}" if self.problem is None else self.problem
        expected = choices(self.values) if self.expected is None else self.expected
        raise ConfigError(metric._error(problem, value, expected))


@dataclass(frozen=True)
class Flag(_Marker):
    """True or False (numpy's booleans too), kept as a Python bool.

    Written bare (``Annotated[bool, Flag]``) or with the message parts
    ``problem`` (default ``<option> must be a bool``) and ``expected``. None
    passes when the type admits None.

    Examples
    --------
    >>> Flag().expected
    'True or False'
    """

    problem: str | None = None
    expected: str = "True or False"

    def apply(self, metric: _Configured, option: _Option, value: Any) -> Any:
        """``value`` as a bool, or a ConfigError naming ``option``."""
        if value is None and option.optional:
            return None
        if isinstance(value, bool | np.bool_):
            return bool(value)
        problem = f"{option.name} must be a bool" if self.problem is None else self.problem
        raise ConfigError(metric._error(problem, value, self.expected))


@dataclass(frozen=True)
class Check(_Marker):
    """A rule of its own: ``function(metric, value)`` raises or returns the value kept.

    For what the other markers do not say (a label list, a policy with NaN among
    its values, a rule that reads a class attribute). The function is given every
    value, None included.

    Examples
    --------
    >>> Check(lambda metric, value: value).function(None, 3)
    3
    """

    function: Callable[[Any, Any], Any]

    def apply(self, metric: _Configured, option: _Option, value: Any) -> Any:
        """What the function returns for ``value``."""
        return self.function(metric, value)


def check_fields(metric: _Configured) -> None:
    """Check and normalize every option of ``metric`` declared with a marker.

    Markers apply in the order of the fields and, on one field, in the order
    written; each returns the value the next one is given, and the last value is
    stored on the (frozen) metric. Called by ``Metric.__post_init__``.

    Parameters
    ----------
    metric : Metric
        A metric whose dataclass fields may carry :class:`Range`, :class:`OneOf`,
        :class:`Flag` or :class:`Check` in their ``Annotated`` types.

    Raises
    ------
    ConfigError
        The first option whose value breaks its rule, in the house form
        ``<metric>: <problem>; got <value>, expected <rule>.``

    Examples
    --------
    >>> import numpy as np
    >>> from scorekit import parse_metric
    >>> bleu = parse_metric("bleu")
    >>> object.__setattr__(bleu, "max_order", np.int64(3))
    >>> check_fields(bleu)
    >>> bleu.max_order, type(bleu.max_order).__name__
    (3, 'int')
    >>> object.__setattr__(bleu, "tokenize", "spaces")
    >>> check_fields(bleu)
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: bleu: unknown tokenize; got 'spaces', expected one of '13a', ...
    """
    for option in _options(type(metric)):
        given = getattr(metric, option.name)
        value = given
        for marker in option.markers:
            value = marker.apply(metric, option, value)
        if value is not given:
            object.__setattr__(metric, option.name, value)


def option_values(cls: type[_Configured], option: str) -> tuple[Any, ...] | None:
    """The values the first :class:`OneOf` of ``option`` on ``cls`` lists (None: no OneOf).

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> option_values(type(parse_metric("bleu")), "smooth")
    ('exp', 'floor', 'add-k', 'none')
    """
    for declared in _options(cls):
        if declared.name == option:
            listed = [m for m in declared.markers if isinstance(m, OneOf)]
            return listed[0].values if listed else None
    return None


@functools.cache
def _options(cls: type[_Configured]) -> tuple[_Option, ...]:
    """The marked fields of a metric class (read once per class)."""
    if not dataclasses.is_dataclass(cls):
        return ()
    found = []
    for field in dataclasses.fields(cls):
        # a field declared again without markers (a new default) keeps its base's rule
        for klass in cls.__mro__:
            admitted, markers = _parts(_hints(klass).get(field.name, Any))
            if markers:
                break
        if not markers:
            continue
        integer = int in admitted and float not in admitted
        numeric = int in admitted or float in admitted
        if not numeric and any(isinstance(m, Range) for m in markers):
            raise TypeError(f"{cls.__qualname__}.{field.name}: Range needs an int or float field")
        found.append(_Option(field.name, markers, type(None) in admitted, integer))
    return tuple(found)


def _parts(hint: Any) -> tuple[tuple[Any, ...], tuple[_Marker, ...]]:
    """The types ``hint`` admits and the markers on it (on the whole or on a union member)."""
    origin = typing.get_origin(hint)
    if origin is Annotated:
        admitted, markers = _parts(typing.get_args(hint)[0])
        own = (_marker(item) for item in hint.__metadata__)
        return admitted, markers + tuple(m for m in own if m is not None)
    if origin is Union or origin is types.UnionType:
        admitted, markers = (), ()
        for member in typing.get_args(hint):
            more, found = _parts(member)
            admitted, markers = admitted + more, markers + found
        return admitted, markers
    return (hint,), ()


def _marker(item: Any) -> _Marker | None:
    """``item`` as a marker: an instance, or a marker class written bare (``Flag``)."""
    if isinstance(item, _Marker):
        return item
    if isinstance(item, type) and issubclass(item, _Marker):
        return item()
    return None


@functools.cache
def _hints(cls: type[Any]) -> dict[str, Any]:
    """The evaluated annotations of ``cls`` and its bases, ``Annotated`` kept."""
    try:
        return typing.get_type_hints(cls, include_extras=True)
    except (NameError, AttributeError, TypeError):
        pass
    # a name imported for type checkers only: evaluate the annotations one by one,
    # leaving out those that do not evaluate
    hints: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        for name, annotation in vars(klass).get("__annotations__", {}).items():
            probe = type(
                klass.__name__,
                (),
                {"__module__": klass.__module__, "__annotations__": {name: annotation}},
            )
            try:
                hints.update(typing.get_type_hints(probe, include_extras=True))
            except (NameError, AttributeError, TypeError):
                hints.pop(name, None)
    return hints
