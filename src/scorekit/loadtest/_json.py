"""JSON from prompt files and servers: each failure a ValueError with a short reason."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

__all__ = ["MAX_DEPTH", "NESTED_TOO_DEEPLY", "depth_over", "loads"]

NESTED_TOO_DEEPLY = "nested too deeply"
"""Why JSON nested deeper than Python's recursion limit is not read."""

MAX_DEPTH = 100
"""Levels of arrays and objects a prompt may nest (a chat request needs about five)."""


def loads(text: str) -> Any:
    """``json.loads(text)``, where JSON too deep or a number too long is a short ValueError.

    Python's reader raises RecursionError for arrays or objects nested about a
    thousand deep, and a bare ValueError with a long advice for integers of more
    than :func:`sys.get_int_max_str_digits` digits. Syntax errors stay
    :class:`json.JSONDecodeError`.

    Examples
    --------
    >>> loads('{"a": [1]}')
    {'a': [1]}
    >>> loads("[" * 100_000 + "]" * 100_000)
    Traceback (most recent call last):
    ...
    ValueError: nested too deeply
    """
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(NESTED_TOO_DEEPLY) from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        limit = getattr(sys, "get_int_max_str_digits", lambda: None)()
        raise ValueError(f"a number of more than {limit} digits" if limit else str(exc)) from None


def depth_over(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests lists, tuples and mappings more than ``limit`` levels deep.

    The walk is iterative and stops at the first path past the limit, so a cyclic
    or very deep value is answered without recursion.

    Examples
    --------
    >>> depth_over({"a": [[1]]}, 3), depth_over({"a": [[1]]}, 2)
    (False, True)
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if level > limit:
            return True
        stack.extend((child, level + 1) for child in children)
    return False
