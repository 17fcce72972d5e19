"""The settings every resampling shares: its seed, and the ceilings of its size.

A seed is an integer in ``[0, 2**64)``: the Poisson weights mix the seed as 64
bits, so a larger seed would silently be its remainder modulo ``2**64``. Numpy
integers are seeds as Python integers are.

The ceilings keep a typing slip from running for hours or asking for hundreds of
GiB: at most :data:`MAX_DRAWS` resamples, trials or permutations, and at most
:data:`MAX_CELLS` cells in a matrix of drawn indices (resamples times units).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from scorekit.errors import ConfigError, message, raw

__all__ = ["MAX_CELLS", "MAX_DRAWS", "SEED_RULE", "check_cells", "check_draws", "check_seed"]

SEED_RULE = "an integer in [0, 2**64)"
"""What a seed is, as error messages say it."""

MAX_DRAWS = 1_000_000
"""The most resamples, trials or permutations a resampling draws."""

MAX_CELLS = 2**27
"""The most cells (resamples times units) of a matrix of drawn indices or swaps: 1 GiB of
64-bit indices."""


def check_seed(seed: Any, where: str, *, none: bool = False) -> int | None:
    """``seed`` as a Python int in ``[0, 2**64)``, else a ConfigError naming ``where``.

    Parameters
    ----------
    seed
        A Python or numpy integer (not a bool); ``None`` too with ``none=True``.
    where
        What the message names: the function or the command-line flag.
    none
        Whether ``None`` (fresh entropy) is a seed here.

    Returns
    -------
    int or None
        The seed as a Python integer.

    Raises
    ------
    ConfigError
        Not an integer, negative, or ``2**64`` and above.

    Examples
    --------
    >>> check_seed(np.int64(3), "bootstrap")
    3
    >>> check_seed(2**64, "--seed")
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: --seed: invalid seed; got 18446744073709551616, expected an \
integer in [0, 2**64).
    """
    if seed is None and none:
        return None
    rule = SEED_RULE + (" or None" if none else "")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise ConfigError(message(where, "invalid seed", seed, rule))
    if not 0 <= int(seed) < 2**64:
        raise ConfigError(message(where, "invalid seed", int(seed), rule))
    return int(seed)


def check_draws(count: Any, where: str, name: str, *, minimum: int = 1) -> int:
    """``count`` (resamples, trials, permutations) as an int in ``[minimum, MAX_DRAWS]``.

    Parameters
    ----------
    count
        A Python or numpy integer (not a bool).
    where, name
        The function and the parameter (or the command and its flag) the message names.
    minimum
        The smallest count allowed.

    Returns
    -------
    int
        The count as a Python integer.

    Raises
    ------
    ConfigError
        Not an integer, below ``minimum`` or above :data:`MAX_DRAWS`.

    Examples
    --------
    >>> check_draws(np.int32(200), "bootstrap", "n_resamples")
    200
    >>> check_draws(10**7, "bootstrap", "n_resamples")
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: bootstrap: invalid n_resamples; got 10000000, expected an \
integer in [1, 1,000,000].
    """
    rule = f"an integer in [{minimum:,}, {MAX_DRAWS:,}]"
    if isinstance(count, bool) or not isinstance(count, int | np.integer):
        raise ConfigError(message(where, f"invalid {name}", count, rule))
    if not minimum <= int(count) <= MAX_DRAWS:
        raise ConfigError(message(where, f"invalid {name}", int(count), rule))
    return int(count)


def check_cells(rows: int, units: int, where: str, name: str, unit: str = "unit") -> None:
    """Refuse a matrix of ``rows`` draws of ``units`` units above :data:`MAX_CELLS` cells.

    Parameters
    ----------
    rows
        Resamples or trials, one row of the matrix each.
    units
        Units drawn in each row.
    where, name
        The function and the parameter that sets ``rows`` (or a flag).
    unit
        What a unit is, in the plural (``"segments"``, ``"rows"``).

    Raises
    ------
    ConfigError
        ``rows * units`` above :data:`MAX_CELLS`.

    Examples
    --------
    >>> check_cells(1000, 3000, "paired_bs", "n_samples", "segments")
    >>> check_cells(10**6, 3000, "paired_bs", "n_samples", "segments")
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: paired_bs: too many n_samples for 3,000 segments: the drawn \
indices would take 22.4 GiB; got 1000000, expected at most 44,739 (n_samples times segments \
at most 134,217,728).
    """
    if rows * units <= MAX_CELLS:
        return
    gib = rows * units * 8 / 2**30
    raise ConfigError(
        message(
            where,
            f"too many {name} for {units:,} {unit}: the drawn indices would take {gib:,.1f} GiB",
            raw(str(rows)),
            f"at most {MAX_CELLS // max(units, 1):,} ({name} times {unit} at most {MAX_CELLS:,})",
        )
    )
