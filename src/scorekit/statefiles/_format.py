"""The layout version, the header fields merging compares, and what a loaded file holds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from scorekit.core import Metric, State, decode_value

__all__ = ["FILE_FORMAT", "HEADER", "MAGIC", "StateFile", "rebuild"]

FILE_FORMAT = 1
"""Version of the state-file layout written by :func:`~scorekit.statefiles.save_states`."""

MAGIC = "scorekit_states"
"""The key that marks a state file (its value is the layout version)."""

HEADER = ("command", "input", "columns", "options")
"""Header fields that must agree between the files of one merge."""


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
