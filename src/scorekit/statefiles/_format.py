"""The layout versions, the header fields merging compares, and what a loaded file holds."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, NamedTuple

from scorekit.core import Metric, State, decode_value
from scorekit.errors import ConfigError, choices, message
from scorekit.io import MAX_FILE_SIZE_VARIABLE, max_file_size

__all__ = [
    "AUTO_BINARY_BYTES",
    "BINARY_MAGIC",
    "DEFAULT_BINARY_MEMORY",
    "FILE_FORMAT",
    "HEADER",
    "MAGIC",
    "RANGE_FILE_FORMAT",
    "STATE_FORMATS",
    "STATE_FORMAT_VARIABLE",
    "StateFile",
    "binary_memory_limit",
    "chosen_format",
    "rebuild",
]

FILE_FORMAT = 1
"""Version of the state-file layout written by :func:`~scorekit.statefiles.save_states`."""

RANGE_FILE_FORMAT = 2
"""Version of the layout of a range file: version 1 with a ``range`` field in the header.

A range file (``scorekit merge --part I``) holds range ``I`` of the states
split by score ranges; a scorekit that reads version 1 only refuses it rather
than merge it as a shard.
"""

MAGIC = "scorekit_states"
"""The key that marks a state file (its value is the layout version)."""

BINARY_MAGIC = b"\x93scorekit-states\n"
"""The bytes that open and close a binary state file (never UTF-8 text, so never JSON)."""

HEADER = ("command", "input", "columns", "options")
"""Header fields that must agree between the files of one merge."""

STATE_FORMATS = ("auto", "json", "binary")
"""How a state file is written: ``json``, ``binary``, or ``auto`` (binary for large arrays)."""

STATE_FORMAT_VARIABLE = "SCOREKIT_STATE_FORMAT"
"""The environment variable that sets the default of ``state_format`` (``--state-format``)."""

AUTO_BINARY_BYTES = 1 << 20
"""Bytes of numeric arrays from which ``state_format="auto"`` writes a binary file: 1 MiB."""

DEFAULT_BINARY_MEMORY = 8 << 30
"""Bytes the arrays of a binary state file may take once read, by default: 8 GiB."""


class StateFile(NamedTuple):
    """The content of one state file; unpacks as ``metrics, states, meta``.

    Attributes
    ----------
    metrics : dict of str to Metric
        The configured metrics, by metric string, in file order.
    states : dict of str to State
        Their states.
    meta : dict
        The header (``scorekit_states``, ``state_format``, ``scorekit``,
        ``command``, ``input``, ``columns``, ``rows``) and ``path``, the file
        it was read from.
    """

    metrics: dict[str, Metric[Any]]
    states: dict[str, State]
    meta: dict[str, Any]

    @property
    def path(self) -> str:
        """The file the states were read from."""
        return str(self.meta["path"])


def rebuild(cls: type[Metric[Any]], config: Mapping[str, Any]) -> Metric[Any]:
    """The metric of a saved configuration (decoded as :meth:`State.from_dict` decodes)."""
    return cls(**{name: decode_value(value) for name, value in config.items()})


def chosen_format(state_format: str | None) -> str:
    """The state format asked for: ``state_format``, else ``SCOREKIT_STATE_FORMAT``, else auto.

    Examples
    --------
    >>> chosen_format("json"), chosen_format(None) in STATE_FORMATS
    ('json', True)
    """
    where = "state_format"
    if state_format is None:
        state_format = os.environ.get(STATE_FORMAT_VARIABLE) or "auto"
        where = STATE_FORMAT_VARIABLE
    if state_format not in STATE_FORMATS:
        raise ConfigError(
            message(where, "unknown state file format", state_format, choices(STATE_FORMATS))
        )
    return state_format


def binary_memory_limit() -> int:
    """Bytes the arrays of one binary state file may take once read.

    What a binary file costs is the memory of its arrays, not its size on
    disk (its arrays are stored in their smallest exact types and widened as
    they are read): ``SCOREKIT_MAX_FILE_SIZE`` (``--max-file-size``) bounds that
    memory when it is set, :data:`DEFAULT_BINARY_MEMORY` otherwise.

    Examples
    --------
    >>> binary_memory_limit() >= 1 << 20
    True
    """
    if os.environ.get(MAX_FILE_SIZE_VARIABLE):
        return max_file_size()
    return DEFAULT_BINARY_MEMORY
