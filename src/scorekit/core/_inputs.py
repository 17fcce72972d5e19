"""The input-kind registry: what a metric reads, and how an engine feeds it from a table.

Every metric declares an input kind (``labels``, ``binary_scores``, ``qrels_run``...).
An :class:`InputKind` names the kind's *roles* (the arguments of ``summarize``:
``y_true``, ``y_score``...) with the conversion that turns table columns into each,
the roles a table may lack, the inputs given once beside the table (ranking's
``qrels``), the role whose equal values must meet in one chunk (``group_by``), and
optionally how to summarize a chunk for all the kind's metrics at once. Families
register their kinds when imported; engines read only this registry.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scorekit.core._providers import load_all
from scorekit.errors import ConfigError, choices, message

__all__ = ["InputKind", "input_kind", "input_kinds", "register_input_kind"]


@dataclass(frozen=True)
class InputKind:
    """One kind of metric input.

    Attributes
    ----------
    name : str
        The kind's name, as metrics declare it (``register(..., inputs=name)``).
    description : str
        One line for ``scorekit explain``: the arguments and their shapes.
    roles : dict
        Role -> the name of the column conversion that produces it (see
        :func:`scorekit.io.register_conversion`); empty for kinds that are not read
        from tables.
    optional : tuple of str
        Roles a table may lack (read as nulls from files without them).
    every_role : bool
        Whether the kind's metrics read all its roles; otherwise a metric reads
        the roles that are parameters of its ``summarize`` (plus ``sample_weight``,
        when mapped).
    side_inputs : tuple of str
        Inputs given once beside the table, by keyword (ranking's ``qrels``).
    group_by : str or None
        A role whose rows with equal values must be summarized together (ranking's
        ``query``): engines keep such rows in one chunk or partition.
    prepare : callable, optional
        ``prepare(metric_name, side_inputs) -> side_inputs``: check and load the
        side inputs once, before any chunk is read.
    summarize : callable, optional
        ``summarize(metrics, chunk, mapping, side_inputs) -> states``: the
        states of all the kind's metrics on one chunk, sharing work between
        them. By default each metric's ``summarize`` is called with the
        converted roles. A hook that also takes the keyword ``parts`` (the row
        indices of each group of a per-group evaluation) is called once per chunk
        for all the groups and returns their states, a list per group.
    group_hint : str
        How a user groups the rows, named in the error about rows out of group
        (``"sort the run by query"``).
    unit : str or None
        What the rows of a ``group_by`` group are, in the plural, for messages
        (``"queries"``); the role's name with an ``s`` when None.
    """

    name: str
    description: str
    roles: Mapping[str, str] = field(default_factory=dict)
    optional: tuple[str, ...] = ()
    every_role: bool = False
    side_inputs: tuple[str, ...] = ()
    group_by: str | None = None
    prepare: Callable[[str, dict[str, Any]], dict[str, Any]] | None = None
    summarize: Callable[..., list[Any]] | None = None
    group_hint: str = ""
    unit: str | None = None

    def roles_of(self, cls: type[Any]) -> dict[str, str]:
        """The roles a metric class of this kind reads, with the conversion of each."""
        if self.every_role:
            return dict(self.roles)
        params = inspect.signature(cls.summarize).parameters
        roles = {name: self.roles[name] for name in params if name in self.roles}
        if "sample_weight" in params:
            roles["sample_weight"] = "weights"
        return roles

    def is_optional(self, role: str) -> bool:
        """Whether a table may lack the column of ``role``."""
        return role == "sample_weight" or role in self.optional


_KINDS: dict[str, InputKind] = {}


def register_input_kind(kind: InputKind) -> InputKind:
    """Add an input kind to the registry (a family does this when imported).

    Examples
    --------
    >>> from scorekit.core import input_kind
    >>> input_kind("binary_scores").roles_of  # doctest: +ELLIPSIS
    <bound method InputKind.roles_of of InputKind(name='binary_scores', ...)>
    """
    if not isinstance(kind, InputKind):
        raise ConfigError(message("register_input_kind", "not an InputKind", kind, "an InputKind"))
    _KINDS[kind.name] = kind
    return kind


def input_kind(name: str) -> InputKind:
    """The registered input kind called ``name``."""
    if name not in _KINDS:
        load_all()
    try:
        return _KINDS[name]
    except KeyError:
        raise ConfigError(
            message("scorekit", "unknown input kind", name, choices(_KINDS))
        ) from None


def input_kinds() -> dict[str, InputKind]:
    """Every registered input kind, by name."""
    return dict(_KINDS)


def describe_kinds(kinds: Sequence[InputKind]) -> dict[str, str]:
    """Name -> description of ``kinds``."""
    return {k.name: k.description for k in kinds}
