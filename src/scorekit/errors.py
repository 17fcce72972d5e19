"""Exceptions and warnings raised by scorekit.

Every error a user can cause is a :class:`ScorekitError` and a :class:`ValueError`,
so code written for scikit-learn's ``ValueError`` keeps working. Messages follow one
form: ``<metric>: <problem>; got <value>, expected <rule>.``
"""

from __future__ import annotations

import unicodedata
from typing import Any

__all__ = [
    "ConfigError",
    "InputError",
    "PluginWarning",
    "ScorekitError",
    "StateMismatchError",
    "TooFewUnitsError",
    "UndefinedMetricWarning",
    "message",
    "printable",
]


class ScorekitError(ValueError):
    """Base class of every error scorekit raises for a user mistake."""


class InputError(ScorekitError):
    """The data given to a metric is malformed (shape, type, value or file content)."""


class ConfigError(ScorekitError):
    """A metric was configured with an invalid option or an unknown name."""


class StateMismatchError(ScorekitError):
    """Two states with different settings, kinds or versions were merged."""


class TooFewUnitsError(InputError):
    """The data hold too few units of a class for a statistic (a variance): it is undefined.

    A caller that computes the statistic per group gives such a group no value
    instead of stopping.
    """


class UndefinedMetricWarning(UserWarning):
    """A metric is undefined for the data (0/0, a single class) and a fallback was used."""


class PluginWarning(UserWarning):
    """An installed plug-in could not be loaded (the other plug-ins still are)."""


def _show(value: Any, limit: int = 80) -> str:
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text


def message(metric: str, problem: str, got: Any = None, expected: str | None = None) -> str:
    """Format an error message in the house form.

    Examples
    --------
    >>> message("f1", "unknown average", "mean", "one of 'binary', 'micro'")
    "f1: unknown average; got 'mean', expected one of 'binary', 'micro'."
    """
    text = f"{metric}: {problem}"
    if got is not None:
        text += f"; got {got if isinstance(got, _Raw) else _show(got)}"
        if expected:
            text += f", expected {expected}"
    elif expected:
        text += f"; expected {expected}"
    return text + "."


class _Raw(str):
    """A string shown in a message as it is, without quotes."""


def raw(text: str) -> str:
    """Mark ``text`` to appear unquoted after ``got`` in :func:`message`.

    Its control characters are written as Python escapes (:func:`printable`),
    so that a message stays one line and text from a file or a server cannot
    move the cursor or color a terminal.
    """
    return _Raw(printable(text))


def printable(text: object) -> str:
    """``text`` as shown on a terminal or in a report: its control characters (an escape
    sequence, a carriage return, a line feed, a tab, ...) written as Python escapes, every
    other character as it is.

    Examples
    --------
    >>> printable("m\\x1b[31m red\\r\\n")
    'm\\\\x1b[31m red\\\\r\\\\n'
    >>> printable("llama-3 8B")
    'llama-3 8B'
    """
    shown = str(text)
    if not any(unicodedata.category(char) == "Cc" for char in shown):
        return shown
    return "".join(
        repr(char)[1:-1] if unicodedata.category(char) == "Cc" else char for char in shown
    )


def choices(values: Any) -> str:
    """Render allowed values as ``one of 'a', 'b'`` from the values themselves."""
    return "one of " + ", ".join(_show(v) for v in values)
