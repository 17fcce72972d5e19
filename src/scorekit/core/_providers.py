"""The modules that register metrics and input kinds, loaded before a registry is read."""

from __future__ import annotations

import importlib

__all__ = ["add_provider", "load_all"]

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
    for module in list(_PROVIDERS):
        importlib.import_module(module)
