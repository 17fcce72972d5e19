"""The metric registry and the metric-name grammar: :func:`register`, :func:`get`,
:func:`available`, :func:`parse_metric` (``name[@k][:variant][,option=value...]``) and other
tools' spellings of metric names (:func:`register_spelling`).
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import inspect
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

from scorekit.core._inputs import input_kinds
from scorekit.core._metric import Metric, MetricInfo
from scorekit.core._plugins import load_plugins, plugins_loaded
from scorekit.core._providers import load_all
from scorekit.core._providers import providers_of_scorekit as _providers_of_scorekit
from scorekit.errors import ConfigError, choices, message

__all__ = [
    "INPUT_KINDS",
    "MetricInfo",
    "available",
    "get",
    "iter_variants",
    "parse_metric",
    "register",
    "register_spelling",
]


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


_BUILTIN: frozenset[str] | None = None


def _builtin_names() -> frozenset[str]:
    """The names and aliases of scorekit's own metrics, read from the index (no family imported).

    The index is ``_index/metrics.json`` beside this module (see
    :mod:`scorekit.core._index`); without a readable one, scorekit's own
    providers are imported and the names are those they register.
    """
    global _BUILTIN
    if _BUILTIN is None:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_index", "metrics.json")
        names: set[str] = set()
        try:
            with open(path, encoding="utf-8") as file:
                for entries in json.load(file)["providers"].values():
                    for entry in entries:
                        names.update([entry["name"], *entry.get("aliases", [])])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            for module in _providers_of_scorekit():
                importlib.import_module(module)
            names = {
                key
                for info in _REGISTRY.values()
                if _qualified(info.cls).startswith("scorekit.")
                for key in (info.name, *info.aliases)
            }
        _BUILTIN = frozenset(names)
    return _BUILTIN


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
        own = [key for key in (name, *aliases) if key in _builtin_names()]
        if own and not _qualified(cls).startswith("scorekit."):
            raise ConfigError(
                message(
                    name,
                    "a name of a metric of scorekit's own",
                    own[0],
                    "another name (scorekit's metric keeps its own)",
                )
            )
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
        close: list[str] = []
        named: set[str] = set()
        for found in difflib.get_close_matches(name, known, n=12, cutoff=0.5):
            spelled = _spelled(found) if found in _SPELLED else None
            metric = _ALIASES.get(found, found) if spelled is None else spelled.split(":")[0]
            metric = _ALIASES.get(metric, metric)
            if metric not in named and len(close) < 3:
                named.add(metric)  # one name per metric, not its aliases too
                close.append(found)
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
    for item in _items(info, text):
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

    return set(inspect.signature(cls).parameters)


def _items(info: MetricInfo, text: str) -> list[str]:
    """The comma-separated items of the text after the colon; a ``[...]`` list is one item."""
    items, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth < 0:
                break
        elif char == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    if depth != 0:
        raise ConfigError(
            message(info.name, "unbalanced brackets in an option", text, "a list like [0.2,0.5]")
        )
    items.append(text[start:])
    return items


def _option_value(text: str) -> Any:
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        return tuple(_option_value(v.strip()) for v in inner.split(",")) if inner else ()
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
