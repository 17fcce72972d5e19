"""Service-level objectives (SLOs) for goodput: ``ttft=200ms tpot=50ms``."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from scorekit.errors import ConfigError, choices, message

__all__ = ["SLO_KEYS", "SLO_UNITS", "format_slo", "parse_slo"]

SLO_KEYS: tuple[str, ...] = ("ttft", "tpot", "itl", "e2e")
"""The latencies an SLO can bound, in the order reports list them."""

SLO_UNITS: dict[str, float] = {"s": 1.0, "ms": 1e3, "us": 1e6}
"""Time units an SLO value may carry, with how many of them make a second."""

_KEY_ALIASES = {"e2el": "e2e"}
_VALUE = re.compile(r"^\s*(?P<number>[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(?P<unit>[a-zµ]*)\s*$")
_EXAMPLE = "key=value with a unit, e.g. 'ttft=200ms'"


def _seconds(key: str, value: Any, name: str) -> float:
    if isinstance(value, bool):
        raise ConfigError(message(name, f"{key} must be a time", value, "seconds or '200ms'"))
    if isinstance(value, int | float):
        seconds = float(value)
    elif isinstance(value, str):
        match = _VALUE.match(value)
        if match is None:
            raise ConfigError(
                message(name, f"cannot read the time of {key}", value, "a number and a unit")
            )
        unit = match["unit"].replace("µ", "u")
        if unit not in SLO_UNITS:
            expected = "a unit, " + choices(SLO_UNITS)
            raise ConfigError(message(name, f"{key} needs a time unit", value, expected))
        seconds = float(match["number"]) / SLO_UNITS[unit]
    else:
        raise ConfigError(
            message(name, f"{key} must be a time", type(value).__name__, "seconds or '200ms'")
        )
    if not (math.isfinite(seconds) and seconds > 0):
        raise ConfigError(message(name, f"{key} must be a positive time", value, "a time > 0"))
    return seconds


def _key(key: Any, name: str) -> str:
    text = str(key).strip().lower()
    text = _KEY_ALIASES.get(text, text)
    if text not in SLO_KEYS:
        raise ConfigError(message(name, "unknown SLO", key, choices(SLO_KEYS)))
    return text


def parse_slo(
    spec: str | Sequence[str] | Mapping[str, float | str] | None, *, name: str = "slo"
) -> dict[str, float]:
    """Parse service-level objectives into ``{latency: seconds}``.

    Parameters
    ----------
    spec : str, sequence of str, mapping or None
        ``"ttft=200ms"`` items (several in one string separated by commas or
        spaces, or a list of them, as ``--slo ttft=200ms tpot=50ms`` gives), or
        a mapping ``{"ttft": 0.2}`` of seconds or of texts with a unit. Keys:
        ``ttft``, ``tpot``, ``itl``, ``e2e`` (``e2el`` is accepted for
        ``e2e``); units: ``s``, ``ms``, ``us``. A bare number in a text is an
        error: the unit must be given.
    name : str
        The name errors start with.

    Returns
    -------
    dict
        Seconds by latency, in the order ``ttft``, ``tpot``, ``itl``, ``e2e``;
        empty for None or an empty spec.

    Raises
    ------
    ConfigError
        An unknown key, a key given twice, a missing or unknown unit, or a time
        that is not positive.

    Examples
    --------
    >>> parse_slo(["ttft=200ms", "tpot=50ms"])
    {'ttft': 0.2, 'tpot': 0.05}
    >>> parse_slo("e2e=2s, itl=250us")
    {'itl': 0.00025, 'e2e': 2.0}
    >>> parse_slo({"ttft": 0.5})
    {'ttft': 0.5}
    """
    found: dict[str, float] = {}
    if spec is None:
        return found
    if isinstance(spec, Mapping):
        items: list[tuple[Any, Any]] = list(spec.items())
    else:
        parts = [spec] if isinstance(spec, str) else list(spec)
        items = []
        for part in parts:
            if not isinstance(part, str):
                raise ConfigError(message(name, "an SLO must be text", part, _EXAMPLE))
            for item in re.split(r"[,\s]+", part.strip()):
                if not item:
                    continue
                key, equals, value = item.partition("=")
                if not equals or not key or not value:
                    raise ConfigError(message(name, "malformed SLO", item, _EXAMPLE))
                items.append((key, value))
    for key, value in items:
        k = _key(key, name)
        if k in found:
            raise ConfigError(message(name, f"{k} is given twice", value, "each SLO once"))
        found[k] = _seconds(k, value, name)
    return {k: found[k] for k in SLO_KEYS if k in found}


def format_slo(slo: Mapping[str, float]) -> str:
    """SLOs as text, in milliseconds: ``ttft <= 200 ms, tpot <= 50 ms``.

    Examples
    --------
    >>> format_slo({"ttft": 0.2, "tpot": 0.05})
    'ttft <= 200 ms, tpot <= 50 ms'
    """
    return ", ".join(f"{k} <= {v * 1e3:g} ms" for k, v in slo.items())
