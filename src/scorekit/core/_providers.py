"""The modules that register metrics and input kinds, loaded before a registry is read."""

from __future__ import annotations

import importlib
import warnings

from scorekit.errors import PluginWarning

__all__ = ["add_provider", "load_all", "load_providers", "providers_of_scorekit"]

_PROVIDERS: list[str] = []


def add_provider(module: str) -> None:
    """Name a module that registers metrics when imported, loaded before the registry is read.

    The package names its families here; a plug-in names its own module, so
    :func:`available`, :func:`get` and :func:`parse_metric` see its metrics.
    """
    if module not in _PROVIDERS:
        _PROVIDERS.append(module)


def load_all() -> None:
    """Import every provider named so far (each registers its metrics once)."""
    load_providers(list(_PROVIDERS))


def load_providers(modules: list[str]) -> None:
    """Import the providers ``modules``, scorekit's own first.

    A plug-in's provider that fails to import (a metric name already taken, an
    error of its own) is a :class:`~scorekit.errors.PluginWarning` naming it,
    and is dropped: the other metrics stay usable.
    """
    for module in sorted(modules, key=lambda m: not m.startswith("scorekit.")):
        if module not in _PROVIDERS:
            continue
        if module.startswith("scorekit."):
            importlib.import_module(module)
            continue
        try:
            importlib.import_module(module)
        except Exception as exc:  # a plug-in's error must not stop scorekit
            _PROVIDERS.remove(module)
            warnings.warn(
                f"plug-in module {module!r} failed to register its metrics: "
                f"{type(exc).__name__}: {exc}; it is skipped",
                PluginWarning,
                stacklevel=2,
            )


def providers_of_scorekit() -> list[str]:
    """The providers named by scorekit itself (its families), in order."""
    return [module for module in _PROVIDERS if module.startswith("scorekit.")]
