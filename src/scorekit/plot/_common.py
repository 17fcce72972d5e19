"""What every figure shares: matplotlib on demand, the axes, states or raw inputs, intervals."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, TypeVar

from scorekit.core import EvaluationResult, Metric, State
from scorekit.errors import ConfigError, InputError, message, raw

__all__ = [
    "INSTALL",
    "as_written",
    "axes",
    "interval",
    "require_matplotlib",
    "state_of",
    "value_of",
]

INSTALL = "pip install 'scorekit[report]'"
"""How to install what figures and reports need."""


F = TypeVar("F", bound=Callable[..., Any])


def as_written(draw: F) -> F:
    """``draw`` with every text it adds shown as written: ``$`` is no mathtext delimiter.

    Class, system and group names come from the data; matplotlib would read
    ``cost $5 to $10`` as a formula (drawn ``cost 510to``) and fail on
    ``$\\frac$``. Tick labels and legends made by ``draw`` keep the setting.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> @as_written
    ... def draw():
    ...     import matplotlib.pyplot as plt
    ...     return plt.figure().text(0, 0, "$x$")
    >>> draw().get_parse_math()
    False
    """

    @functools.wraps(draw)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            import matplotlib
        except ImportError:
            return draw(*args, **kwargs)
        with matplotlib.rc_context({"text.parse_math": False}):
            return draw(*args, **kwargs)

    return run  # type: ignore[return-value]


def require_matplotlib(where: str = "scorekit.plot") -> Any:
    """The ``matplotlib`` module, or a ConfigError saying how to install it.

    Examples
    --------
    >>> require_matplotlib().__name__
    'matplotlib'
    """
    try:
        import matplotlib
    except ImportError as exc:
        raise ConfigError(
            message(where, "matplotlib is not installed", raw(str(exc)), INSTALL)
        ) from None
    return matplotlib


def axes(ax: Any, where: str) -> Any:
    """``ax``, or the axes of a new pyplot figure."""
    if ax is not None:
        return ax
    require_matplotlib(where)
    import matplotlib.pyplot as plt

    _, new = plt.subplots(figsize=(5, 4))
    return new


def state_of(where: str, first: Any, second: Any, metric: Metric[Any], weight: Any = None) -> Any:
    """``first`` when it is a state (or the only state of a result), else ``metric``'s summary."""
    if isinstance(first, EvaluationResult) or (
        hasattr(first, "states") and isinstance(getattr(first, "states", None), dict)
    ):
        kinds = [s for s in first.states.values() if isinstance(s, type(metric.empty()))]
        if not kinds:
            raise InputError(
                message(
                    where,
                    "the result holds no state this figure is drawn from",
                    sorted(first.states),
                    f"a metric keeping a {type(metric.empty()).__name__}",
                )
            )
        return kinds[0]
    if isinstance(first, State):
        return first
    if second is None:
        raise InputError(
            message(
                where, "the second input is missing", raw("None"), "y_true and y_score, or a state"
            )
        )
    return metric.summarize(first, second, weight)


def value_of(value: Any) -> float:
    """The number of a value, an estimate or a value with an interval."""
    for name in ("value", "estimate", "point"):
        if hasattr(value, name) and not callable(getattr(value, name)):
            return float(getattr(value, name))
    return float(value)


def interval(value: Any) -> tuple[float, float] | None:
    """The confidence interval a value carries (``low``/``high`` or ``ci``), else None.

    Examples
    --------
    >>> interval(0.5) is None
    True
    >>> from types import SimpleNamespace
    >>> interval(SimpleNamespace(value=0.5, low=0.4, high=0.6))
    (0.4, 0.6)
    """
    low, high = getattr(value, "low", None), getattr(value, "high", None)
    if low is None and getattr(value, "ci", None) is not None:
        low, high = value.ci
    if low is None or high is None:
        return None
    low, high = float(low), float(high)
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    return low, high
