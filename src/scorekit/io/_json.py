"""Whole JSON documents read safely: size-capped reads, and errors naming line and column.

:func:`read_json` reads a JSON file (a SQuAD dataset, predictions) through
:func:`~scorekit.io.read_limited` and turns every way Python's ``json`` module
fails into an :class:`~scorekit.errors.InputError` naming the file, line and
column: invalid JSON, nesting deeper than Python's ``json`` recurses (found
again with :func:`~scorekit.io._scan.too_deep` to name where it passes
:data:`~scorekit.io._scan.MAX_JSON_DEPTH`), and integers longer than Python
converts (``sys.get_int_max_str_digits``).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

from scorekit.errors import InputError, message, raw
from scorekit.io._limits import read_text
from scorekit.io._scan import MAX_JSON_DEPTH, json_depth_error, too_deep

__all__ = ["long_number_error", "parse_json", "read_json"]


def _place(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def long_number_error(where: str, text: str, exc: ValueError) -> InputError:
    """The error for an integer of ``text`` longer than Python converts.

    ``where`` names the file (and line, for one line of JSON Lines); the line
    and column of the first such number in ``text`` are added when found.

    Examples
    --------
    >>> text = '{"a": ' + "9" * 5000 + "}"
    >>> try:
    ...     json.loads(text)
    ... except ValueError as exc:
    ...     print(long_number_error("f.json", text, exc))
    f.json, line 1, column 7: number too long to read; got an integer of 5000 digits, ...
    """
    limit = sys.get_int_max_str_digits()
    found = re.search(rf"(?<![\d.eE+-])-?\d{{{limit + 1},}}(?![\d.eE])", text) if limit else None
    if found is not None:
        line, column = _place(text, found.start())
        at = (
            f"{where}, column {column}"
            if ", line " in where
            else f"{where}, line {line}, column {column}"
        )
        digits = len(found.group().lstrip("-"))
        got = raw(f"an integer of {digits} digits")
    else:
        at, got = where, raw(str(exc).split(";")[0])
    return InputError(
        message(at, "number too long to read", got, f"integers of at most {limit} digits")
    )


def _too_deep_error(path: str, text: str) -> InputError:
    data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    offset = too_deep(data, MAX_JSON_DEPTH)
    if offset is None:
        return json_depth_error(path, 1, None, MAX_JSON_DEPTH)
    prefix = data[:offset].tobytes().decode("utf-8", errors="replace")
    line = prefix.count("\n") + 1
    column = len(prefix) - (prefix.rfind("\n") + 1) + 1
    return json_depth_error(path, line, column, MAX_JSON_DEPTH)


def parse_json(text: str, path: str | Path) -> Any:
    """The JSON document ``text`` of the file ``path``; every failure an :class:`InputError`.

    Examples
    --------
    >>> parse_json('{"a": [1, 2]}', "f.json")
    {'a': [1, 2]}
    >>> parse_json('{"a": ' + "[" * 100_000, "f.json")
    Traceback (most recent call last):
    ...
    scorekit.errors.InputError: f.json, line 1, column 506: JSON nested too deeply; ...
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            message(
                f"{path}, line {exc.lineno}, column {exc.colno}",
                "invalid JSON",
                raw(exc.msg),
                "a JSON document",
            )
        ) from None
    except RecursionError:
        raise _too_deep_error(str(path), text) from None
    except ValueError as exc:
        raise long_number_error(str(path), text, exc) from None


def read_json(path: str | Path, what: str) -> Any:
    """The JSON document of the file ``path`` (UTF-8, a byte-order mark allowed; gzip read).

    The file is read with :func:`~scorekit.io.read_limited`: a regular file of
    at most :func:`~scorekit.io.max_file_size` bytes. ``what`` names what the
    file should be (``"a SQuAD file"``) in errors.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "p.json"
    >>> _ = path.write_text('{"q1": "Paris"}')
    >>> read_json(path, "a predictions file")
    {'q1': 'Paris'}
    """
    return parse_json(read_text(path, what, "a UTF-8 JSON file"), path)
