"""A gain per relevance grade (trec_eval's ``ndcg`` parameters ``0=0,1=1,2=3``), read and written.

A table of gains is held as a sorted tuple of ``(grade, gain)`` pairs, so a metric
holding one stays hashable and prints the same way every time. It is written
``0=0;1=1;2=3`` inside a metric string (``ndcg:gains=0=0;1=1;2=3``), where a
comma separates options; commas are read too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from scorekit.errors import ConfigError, message

__all__ = ["format_gains", "parse_gains"]

Gains = tuple[tuple[float, float], ...]

_EXPECTED = "a {grade: gain} mapping or 'grade=gain;...' such as '0=0;1=1;2=3'"


def parse_gains(name: str, value: Any) -> Gains | None:
    """The ``(grade, gain)`` pairs of ``value``, sorted by grade; None stays None.

    Examples
    --------
    >>> parse_gains("ndcg", "0=0,1=1,2=3")
    ((0.0, 0.0), (1.0, 1.0), (2.0, 3.0))
    >>> parse_gains("ndcg", {2: 9, 1: 3})
    ((1.0, 3.0), (2.0, 9.0))
    """
    if value is None:
        return None
    if isinstance(value, str):
        pairs: list[Any] = []
        for item in value.replace(";", ",").split(","):
            grade, eq, gain = item.partition("=")
            if not eq:
                raise ConfigError(message(name, "malformed gains", value, _EXPECTED))
            pairs.append((grade.strip(), gain.strip()))
    elif isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, list | tuple):
        pairs = list(value)
    else:
        raise ConfigError(message(name, "malformed gains", value, _EXPECTED))
    table: dict[float, float] = {}
    for pair in pairs:
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise ConfigError(message(name, "malformed gains", value, _EXPECTED))
        level, worth = (_number(name, value, part) for part in pair)
        if level in table:
            raise ConfigError(message(name, "a grade given two gains", value, "each grade once"))
        table[level] = worth
    if not table:
        raise ConfigError(message(name, "no gain given", value, _EXPECTED))
    return tuple(sorted(table.items()))


def format_gains(table: Gains) -> str:
    """The pairs as ``grade=gain;...`` with integers written without a decimal point.

    Examples
    --------
    >>> format_gains(((0.0, 0.0), (1.0, 3.0), (4.0, 4.5)))
    '0=0;1=3;4=4.5'
    """
    return ";".join(f"{_text(g)}={_text(v)}" for g, v in table)


def _number(name: str, whole: Any, part: Any) -> float:
    try:
        number = float(part) if not isinstance(part, bool) else math.nan
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number):
        raise ConfigError(message(name, "malformed gains", whole, _EXPECTED))
    return number


def _text(x: float) -> str:
    return str(int(x)) if x == int(x) else repr(x)
