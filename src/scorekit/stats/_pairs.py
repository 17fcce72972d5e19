"""What every paired test checks first: the two systems' per-unit values and the alternative."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit._check import as_scores, check_same_length
from scorekit.errors import ConfigError, InputError, choices, message

__all__ = ["ALTERNATIVES", "check_alternative", "check_units", "differences", "paired_values"]

ALTERNATIVES = ("two-sided", "greater", "less")
"""The alternative hypotheses of the tests, as SciPy names them: ``"greater"`` is that the
first system's values are larger."""


def check_alternative(alternative: Any, where: str) -> str:
    """``alternative`` if it is one of :data:`ALTERNATIVES`, else a ConfigError naming ``where``.

    Examples
    --------
    >>> check_alternative("less", "paired_t")
    'less'
    """
    if not isinstance(alternative, str) or alternative not in ALTERNATIVES:
        raise ConfigError(message(where, "unknown alternative", alternative, choices(ALTERNATIVES)))
    return alternative


def paired_values(
    where: str, a: Any, b: Any, names: tuple[str, str] = ("a", "b")
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Two 1-D finite float arrays of equal length, with at least two units."""
    x = as_scores(where, names[0], a)
    y = as_scores(where, names[1], b)
    check_same_length(where, **{names[0]: x, names[1]: y})
    check_units(where, len(x))
    return x, y


def differences(x: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
    """``x - y``; scaled by the largest magnitude of either when it or its sum overflows.

    The t statistic, the signed ranks and the randomization p-value do not
    depend on the scale of the differences, so values near the largest float
    (1e308) are compared as they are compared after scaling to at most 1.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        d = x - y
        if np.isfinite(d).all() and math.isfinite(float(np.abs(d).sum())):
            return d
    scale = max(float(np.max(np.abs(x))), float(np.max(np.abs(y))))
    scaled: NDArray[np.float64] = x / scale - y / scale
    return scaled


def check_units(where: str, n: int) -> None:
    """Refuse fewer than two units."""
    if n < 2:
        raise InputError(message(where, "too few units", n, "at least 2"))
