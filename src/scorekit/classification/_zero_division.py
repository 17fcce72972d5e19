"""The ``zero_division`` policy of ratios of confusion counts, and the mean that skips nan.

Shared by the precision/recall/F family, the classification report and the
multi-label measures: a ratio whose denominator is 0 takes the value the
caller chose (``'warn'`` gives 0, the caller then warns).
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit.errors import ConfigError, message

__all__ = ["ZeroDivision", "check_zero_division", "nanaverage", "zero_division_ratio"]

ZeroDivision = Literal["warn"] | float
"""The value of a 0/0 ratio: ``'warn'`` (0 with a warning), 0, 1 or nan."""


def check_zero_division(metric: str, value: Any) -> None:
    """Raise a :class:`~scorekit.errors.ConfigError` unless ``value`` is 'warn', 0, 1 or nan.

    Parameters
    ----------
    metric : str
        The metric name the message starts with.
    value : object
        The ``zero_division`` setting to check.

    Examples
    --------
    >>> check_zero_division("f1", "warn")
    >>> check_zero_division("f1", 2)
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: f1: invalid zero_division; got 2, expected 'warn', 0, 1 or nan.
    """
    ok = value == "warn" or (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and (value in (0, 1) or math.isnan(value))
    )
    if not ok:
        raise ConfigError(message(metric, "invalid zero_division", value, "'warn', 0, 1 or nan"))


def _zero_division_option(metric: Any, value: Any) -> Any:
    """A zero_division option of ``metric``, as given (see :func:`check_zero_division`)."""
    check_zero_division(metric.name, value)
    return value


def _zd_value(zero_division: ZeroDivision) -> float:
    return 0.0 if zero_division == "warn" else float(zero_division)


def zero_division_ratio(
    num: NDArray[np.float64], den: NDArray[np.float64], zero_division: ZeroDivision
) -> tuple[NDArray[np.float64], bool]:
    """``num / den`` elementwise, with ``zero_division``'s value where ``den`` is 0.

    Parameters
    ----------
    num, den : array_like
        Numerators and denominators of one shape.
    zero_division : {'warn', 0, 1, nan}
        The value of a ratio whose denominator is 0 (``'warn'`` gives 0).

    Returns
    -------
    values : ndarray of float64
        The ratios.
    undefined : bool
        True when some denominator was 0 (the caller warns for ``'warn'``).

    Examples
    --------
    >>> zero_division_ratio(np.array([1.0, 0.0]), np.array([4.0, 0.0]), "warn")
    (array([0.25, 0.  ]), True)
    >>> zero_division_ratio(np.array([0.0]), np.array([0.0]), 1)
    (array([1.]), True)
    """
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    mask = den == 0
    out = num / np.where(mask, 1.0, den)
    if mask.any():
        out = np.where(mask, _zd_value(zero_division), out)
    return out, bool(mask.any())


def nanaverage(values: NDArray[np.float64], weights: NDArray[np.float64] | None = None) -> float:
    """The (weighted) mean of the values that are not nan; nan when none is.

    Weights of the kept values that sum to 0 give the unweighted mean.

    Examples
    --------
    >>> nanaverage(np.array([1.0, np.nan, 0.0]))
    0.5
    >>> nanaverage(np.array([1.0, 0.0]), np.array([3.0, 1.0]))
    0.75
    >>> nanaverage(np.array([np.nan]))
    nan
    """
    if values.size == 0:
        return math.nan
    keep = ~np.isnan(values)
    if not keep.any():
        return math.nan
    if weights is None:
        return float(np.mean(values[keep]))
    w = weights[keep]
    if w.sum() == 0:
        return float(np.mean(values[keep]))
    return float(np.average(values[keep], weights=w))
