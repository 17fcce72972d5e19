"""scorekit: evaluation metrics for machine learning, defined once as mergeable states.

Families live in submodules, imported on first use::

    >>> import scorekit
    >>> scorekit.classification.f1([0, 1, 1, 0], [0, 1, 1, 1])
    0.8
    >>> scorekit.parse_metric("f1:macro").score([0, 1, 2], [0, 1, 1])
    0.555...

Every metric is a :class:`Metric` with ``summarize`` (data -> state), ``merge``
(state, state -> state) and ``compute`` (state -> value), so a value computed on
chunks, files or workers equals the in-memory one.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from scorekit._version import __version__
from scorekit.core import (
    Estimate,
    Metric,
    MetricInfo,
    QuantileSketch,
    State,
    add_provider,
    available,
    get,
    load_plugins,
    parse_metric,
)
from scorekit.errors import (
    ConfigError,
    InputError,
    PluginWarning,
    ScorekitError,
    StateMismatchError,
    UndefinedMetricWarning,
)

if TYPE_CHECKING:
    from scorekit.api import evaluate
    from scorekit.core import EvaluationResult

__all__ = [
    "ConfigError",
    "Estimate",
    "EvaluationResult",
    "InputError",
    "Metric",
    "MetricInfo",
    "PluginWarning",
    "QuantileSketch",
    "ScorekitError",
    "State",
    "StateMismatchError",
    "UndefinedMetricWarning",
    "__version__",
    "available",
    "classification",
    "evaluate",
    "get",
    "information",
    "load_plugins",
    "multilabel",
    "parse_metric",
    "plot",
    "qa",
    "ranking",
    "regression",
    "report",
    "text",
    "throughput",
]

_SUBMODULES = (
    "classification",
    "multilabel",
    "information",
    "qa",
    "ranking",
    "regression",
    "text",
    "throughput",
)


for _family in _SUBMODULES:
    add_provider(f"scorekit.{_family}")

_ENGINE_NAMES = ("evaluate", "EvaluationResult")
_FIGURES = ("plot", "report")


def __getattr__(name: str) -> Any:
    if name in _ENGINE_NAMES:
        api = importlib.import_module("scorekit.api")
        value = getattr(api, name)
        globals()[name] = value
        return value
    if name in _SUBMODULES or name in _FIGURES:
        module = importlib.import_module(f"scorekit.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'scorekit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_SUBMODULES) | set(_ENGINE_NAMES) | set(_FIGURES))
