"""A gain per relevance grade (trec_eval's ``ndcg`` parameters ``0=0,1=1,2=3``), read and written.

A table of gains is held as a tuple of ``(grade, gain)`` pairs in the order given,
so a metric holding one stays hashable and prints the same way every time. The
order is kept because trec_eval's ideal ordering depends on it when gains are
less than 1 apart (:func:`trec_gain_order`). It is written ``0=0;1=1;2=3`` inside
a metric string (``ndcg:gains=0=0;1=1;2=3``), where a comma separates options;
commas are read too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from scorekit.errors import ConfigError, message

__all__ = ["format_gains", "gains_option", "parse_gains", "trec_gain_order"]

Gains = tuple[tuple[float, float], ...]

_EXPECTED = "a {grade: gain} mapping or 'grade=gain;...' such as '0=0;1=1;2=3'"


def parse_gains(name: str, value: Any) -> Gains | None:
    """The ``(grade, gain)`` pairs of ``value``, in the order given; None stays None.

    Examples
    --------
    >>> parse_gains("ndcg", "0=0,1=1,2=3")
    ((0.0, 0.0), (1.0, 1.0), (2.0, 3.0))
    >>> parse_gains("ndcg", {2: 9, 1: 3})
    ((2.0, 9.0), (1.0, 3.0))
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
    return tuple(table.items())


def gains_option(metric: Any, value: Any) -> Gains | None:
    """The gains option of ``metric``: :func:`parse_gains` under the metric's name."""
    return parse_gains(metric.name, value)


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


_INT_MIN = -(2**31)


def _compare(a: tuple[int, float], b: tuple[int, float]) -> int:
    """trec_eval's ``comp_rel_gain``: the gain difference converted to a C ``int``.

    The conversion truncates toward 0, so gains less than 1 apart compare
    equal; a difference beyond ``int`` is ``INT_MIN`` (x86's conversion).
    """
    d = a[1] - b[1]
    return int(d) if -(2.0**31) < d < 2.0**31 else _INT_MIN


def _merge_sort(items: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """The C library's ``qsort`` merge sort (glibc's ``msort``): halves, then a left-first merge."""
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = _merge_sort(items[:half]), _merge_sort(items[half:])
    out: list[tuple[int, float]] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if _compare(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def trec_gain_order(table: Gains, top: int) -> list[tuple[int, float]]:
    """trec_eval's sorted gain table of a query whose judged grades reach ``top``.

    The table is the given ``(grade, gain)`` pairs in their order, then each
    grade 0 to ``top`` not among them with gain = grade (``setup_gains``),
    sorted by ``qsort`` with trec_eval's comparison, which truncates the gain
    difference to an integer. Gains at least 1 apart come out in increasing
    order; gains closer than that keep an order that depends on the sort, as
    in trec_eval (linked against glibc, whose ``qsort`` is this merge sort).

    Examples
    --------
    >>> trec_gain_order(((1.0, 0.5), (2.0, 0.4)), 2)
    [(1, 0.5), (2, 0.4), (0, 0.0)]
    >>> trec_gain_order(((2.0, 3.0),), 2)
    [(0, 0.0), (1, 1.0), (2, 3.0)]
    """
    given = [(int(g), v) for g, v in table]
    named = {g for g, _ in given}
    defaults = [(level, float(level)) for level in range(top + 1) if level not in named]
    return _merge_sort(given + defaults)
