"""The one way the library collects the warnings of a call, to word them again or to drop them.

A metric's ``compute`` says a value is undefined only by warning. Where the
library shows such a warning in other words (a group's name in front, the
worked example of ``scorekit explain``), counts it (the replicates of a
bootstrap), keeps it per chunk (the engines) or keeps only some of them
(scikit-learn's ``warn_for``), it collects them with :func:`caught`; the
command line shows what remains once, in ``scorekit.cli.main``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from typing import TypeVar

__all__ = ["caught", "reraise"]

T = TypeVar("T")


def caught(call: Callable[[], T]) -> tuple[T, list[warnings.WarningMessage]]:
    """The value of ``call()`` and every warning it raised, whatever the warning filters.

    The warnings are not shown; an exception of ``call`` propagates (its
    warnings are dropped).

    Examples
    --------
    >>> def half(x):
    ...     warnings.warn("rounded")
    ...     return x // 2
    >>> value, found = caught(lambda: half(5))
    >>> value, [str(w.message) for w in found]
    (2, ['rounded'])
    """
    with warnings.catch_warnings(record=True) as found:
        warnings.simplefilter("always")
        value = call()
    return value, list(found)


def reraise(
    found: Iterable[warnings.WarningMessage], prefix: str = "", *, stacklevel: int = 2
) -> None:
    """Raise the warnings ``found`` again, each with ``prefix`` in front of its text.

    Examples
    --------
    >>> _, found = caught(lambda: warnings.warn("no positive sample"))
    >>> with warnings.catch_warnings(record=True) as shown:
    ...     warnings.simplefilter("always")
    ...     reraise(found, "group a: ")
    >>> str(shown[0].message)
    'group a: no positive sample'
    """
    for w in found:
        warnings.warn(f"{prefix}{w.message}", w.category, stacklevel=stacklevel + 1)
