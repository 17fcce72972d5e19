"""The index of scorekit's own metrics: their registry metadata, read without importing a family.

What ``scorekit list`` shows of a metric is its registry entry (name,
aliases, direction, bounds, input kind, variants, summary), not its class;
importing every family to fill the registry costs most of that command's time.
The metadata of the metrics of scorekit's own providers (the families named
with :func:`~scorekit.core.add_provider` by ``scorekit/__init__.py``) is
therefore kept in ``metrics.json`` beside this module, one list per provider,
and :func:`catalog` reads it for every family not yet imported. Everything
else comes from the live registry, as :func:`~scorekit.core.available` gives
it: the metrics of families already imported, of plug-ins and of providers
the index does not name, and metrics registered at run time.

The file is written from the live registry by ``python -m
scorekit.core._index --write``; a test fails when it differs from the
registry, so adding or changing a metric of scorekit ends with that command.
"""

from __future__ import annotations

import json
import math
import os
import sys
from dataclasses import dataclass, fields
from typing import Any

from scorekit.core import _providers, _registry
from scorekit.core._metric import MetricInfo
from scorekit.core._plugins import load_plugins

__all__ = ["FORMAT", "PATH", "REGENERATE", "MetricEntry", "build", "catalog", "read", "render"]

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "metrics.json")
"""The index file, inside the package (the wheel ships it)."""

FORMAT = 1
"""The layout of the index file; a file of another layout is not read."""

REGENERATE = "python -m scorekit.core._index --write"
"""The command that writes the index from the live registry."""

_PACKAGE = __name__.partition(".")[0]
"""The package whose providers the index covers (``scorekit``)."""


@dataclass(frozen=True)
class MetricEntry:
    """A registered metric's metadata without its class: a registry entry, as the index keeps it.

    The fields are those of :class:`~scorekit.core.MetricInfo` (see
    :func:`~scorekit.core.register`), with ``module``, the module that defines
    the metric's class, in place of the class.

    Examples
    --------
    >>> from scorekit.core import get
    >>> entry = MetricEntry.of(get("ndcg"))
    >>> entry.name, entry.module.split(".")[:2], entry.at
    ('ndcg', ['scorekit', 'ranking'], 'k')
    """

    name: str
    module: str
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

    @classmethod
    def of(cls, info: MetricInfo) -> MetricEntry:
        """The entry of a registered metric."""
        values = {f.name: getattr(info, f.name) for f in fields(cls) if f.name != "module"}
        return cls(module=info.cls.__module__, **values)

    def to_plain(self) -> dict[str, Any]:
        """The entry as JSON data: tuples as lists, an infinite bound as ``"inf"`` or ``"-inf"``.

        Examples
        --------
        >>> entry = MetricEntry("m", "pkg.mod", False, (0.0, math.inf), "regression", "M.")
        >>> entry.to_plain()["bounds"]
        [0.0, 'inf']
        >>> MetricEntry.from_plain(entry.to_plain()) == entry
        True
        """
        plain: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "bounds":
                value = [_bound_plain(b) for b in value]
            elif isinstance(value, tuple):
                value = list(value)
            plain[f.name] = value
        return plain

    @classmethod
    def from_plain(cls, plain: dict[str, Any]) -> MetricEntry:
        """The entry of its JSON data (:meth:`to_plain`)."""
        values: dict[str, Any] = {
            k: tuple(v) if isinstance(v, list) else v for k, v in plain.items()
        }
        low, high = (float(b) if isinstance(b, str) else b for b in plain["bounds"])
        values["bounds"] = (low, high)
        return cls(**values)


def _bound_plain(x: float) -> float | str:
    return ("inf" if x > 0 else "-inf") if math.isinf(x) else x


def _owner(module: str, providers: list[str]) -> str | None:
    """The provider whose package holds ``module`` (the longest such name), or None."""
    holders = [p for p in providers if module == p or module.startswith(p + ".")]
    return max(holders, key=len) if holders else None


def _own_providers() -> list[str]:
    """The named providers that are scorekit's own (its families), in the order they were named."""
    return [p for p in _providers._PROVIDERS if p.partition(".")[0] == _PACKAGE]


def _imported(module: str) -> bool:
    """Whether ``module`` is imported, so its metrics are in the live registry."""
    return module in sys.modules


def build() -> dict[str, list[MetricEntry]]:
    """The index of the live registry: each of scorekit's providers -> its metrics' entries.

    Every named provider is imported first (no plug-in is loaded). A metric
    belongs to the provider whose package defines its class; the entries of
    each provider are sorted by name.

    Returns
    -------
    dict of str to list of MetricEntry
        The providers in the order they were named.

    Examples
    --------
    >>> index = build()
    >>> "ndcg" in {e.name for e in index["scorekit.ranking"]}
    True
    """
    _providers.load_all()
    own = _own_providers()
    index: dict[str, list[MetricEntry]] = {p: [] for p in own}
    registry = _registry._REGISTRY
    for name in sorted(registry):
        owner = _owner(registry[name].cls.__module__, own)
        if owner is not None:
            index[owner].append(MetricEntry.of(registry[name]))
    return index


def render(index: dict[str, list[MetricEntry]]) -> str:
    """The text of the index file: JSON, one line per metric.

    Examples
    --------
    >>> entry = MetricEntry("m", "pkg.mod", True, (0.0, 1.0), "labels", "M.")
    >>> text = render({"pkg": [entry], "other": []})
    >>> json.loads(text)["providers"]["pkg"][0]["name"]
    'm'
    >>> read_text(text) == {"pkg": [entry], "other": []}
    True
    """
    note = (
        f"The metadata of scorekit's own metrics, for `scorekit list`; written by `{REGENERATE}`."
    )
    lines = ["{", f'  "format": {FORMAT},', f'  "note": {json.dumps(note)},', '  "providers": {']
    for i, (provider, entries) in enumerate(index.items()):
        comma = "," if i < len(index) - 1 else ""
        rows = [
            "      " + json.dumps(e.to_plain(), ensure_ascii=False, allow_nan=False)
            for e in entries
        ]
        if rows:
            lines += [f"    {json.dumps(provider)}: [", ",\n".join(rows), f"    ]{comma}"]
        else:
            lines.append(f"    {json.dumps(provider)}: []{comma}")
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def read_text(text: str) -> dict[str, list[MetricEntry]] | None:
    """The index of an index file's text; None for text that is not an index of :data:`FORMAT`."""
    try:
        data = json.loads(text)
        if data.get("format") != FORMAT:
            return None
        return {
            str(provider): [MetricEntry.from_plain(e) for e in entries]
            for provider, entries in data["providers"].items()
        }
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


def read(path: str = PATH) -> dict[str, list[MetricEntry]] | None:
    """The index of the file ``path``; None when it cannot be read or is not an index.

    Examples
    --------
    >>> index = read()
    >>> index is not None and "scorekit.classification" in index
    True
    """
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except OSError:
        return None
    return read_text(text)


def _read() -> dict[str, list[MetricEntry]] | None:
    """The package's index, as :func:`catalog` reads it (None: none readable)."""
    return read()


def catalog() -> list[MetricEntry]:
    """Every registered metric's entry (installed plug-ins' included), sorted by name.

    The same entries as :func:`~scorekit.core.available` gives, without
    importing a family of scorekit's: the metrics of each family not yet
    imported are read from the index (``metrics.json``, written by ``python -m
    scorekit.core._index --write``), the others from the live registry, after
    loading the installed plug-ins and importing every provider the index does
    not name. Without a readable index, every provider is imported.

    Returns
    -------
    list of MetricEntry
        One entry per metric name.

    Examples
    --------
    >>> from scorekit.core import available
    >>> [e.name for e in catalog()] == [i.name for i in available()]
    True
    """
    load_plugins()
    index = _read() or {}
    _providers.load_providers([m for m in _providers._PROVIDERS if m not in index])
    named = list(_providers._PROVIDERS)
    unloaded = [p for p in named if p in index and not _imported(p)]
    entries = {e.name: e for p in unloaded for e in index[p]}
    for name, info in list(_registry._REGISTRY.items()):
        if _owner(info.cls.__module__, unloaded) is None:
            entries[name] = MetricEntry.of(info)
    return [entries[n] for n in sorted(entries)]
