"""Grouped input in chunks: the rows of each group brought together in one table.

An input kind with ``group_by`` (ranking's ``query``) computes one value per
group, so the rows of a group must reach ``summarize`` together. The streaming
engine reads input grouped by that role (a run sorted by query, as search
systems write them): :class:`Groups` holds back the rows of the last group of
each chunk and puts them in front of the next chunk, across chunk and file
boundaries. A group that appears again after other groups is an error naming the
file and line where it reappears. To tell, the keys of the groups already
finished are kept (a set of strings: memory grows with the number of groups, as
per-group states do anyway).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from scorekit.core import InputKind
from scorekit.errors import InputError, message, raw
from scorekit.io import Chunk, where

__all__ = ["Groups"]


class Groups:
    """Regroup chunks so that each group's rows are in one table.

    :meth:`push` takes a chunk and returns the complete groups read so far (or
    None); :meth:`flush` returns the last group at the end. Returned tables have
    one column per role of the input kind, named like the role (read through
    :attr:`mapping`), already converted and checked, so errors about values name
    the line of the input chunk. Columns of roles the kind does not have (the
    group columns of a per-group evaluation) travel along as they were read,
    named ``<role>:<i>``, and are converted where they are used.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from scorekit.core import input_kind
    >>> groups = Groups(input_kind("qrels_run"), {"query": ("q",), "doc": ("d",), "score": ("s",)})
    >>> first = pa.table({"q": ["a", "a", "b"], "d": ["x", "y", "x"], "s": [3, 2, 1]})
    >>> groups.push(first).column("query").to_pylist()
    ['a', 'a']
    >>> groups.push(pa.table({"q": ["b", "c"], "d": ["y", "x"], "s": [1, 1]})).num_rows
    2
    >>> groups.flush().column("query").to_pylist()
    ['c']
    """

    def __init__(self, kind: InputKind, mapping: Mapping[str, tuple[str, ...]]) -> None:
        if kind.group_by is None:
            raise ValueError(f"input kind {kind.name!r} has no group_by role")
        self.kind = kind
        self.role = kind.group_by
        self.source = {role: tuple(mapping[role]) for role in kind.roles if role in mapping}
        self.mapping: dict[str, tuple[str, ...]] = {role: (role,) for role in self.source}
        """The role -> column mapping of the tables this object returns."""
        self.others = {
            role: tuple(names) for role, names in mapping.items() if role not in kind.roles
        }
        for role, names in self.others.items():
            self.mapping[role] = tuple(f"{role}:{i}" for i in range(len(names)))
        self.carry: list[Any] = []
        self.open: str | None = None
        self.closed: set[str] = set()

    def push(self, table: Any) -> Any | None:
        """Add one chunk; return the rows of the queries it completes, or None."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if table.num_rows == 0:
            return None
        chunk = Chunk(table)
        query = chunk.get("strings", self.source[self.role])
        columns = {
            role: _arrow(chunk.get(self.kind.roles[role], names))
            for role, names in self.source.items()
        }
        for role, names in self.others.items():
            for name, kept in zip(names, self.mapping[role], strict=True):
                columns[kept] = table.column(name)
        rows = pa.table(columns)
        n = len(query)
        if n > 1:
            change = np.asarray(
                pc.not_equal(query.slice(1), query.slice(0, n - 1)).to_numpy(zero_copy_only=False)
            )
            starts = np.concatenate([[0], np.flatnonzero(change) + 1])
        else:
            starts = np.zeros(1, dtype=np.int64)
        heads: list[str] = query.take(pa.array(starts)).to_pylist()
        self._check(table, heads, starts)
        if len(heads) == 1 and heads[0] == self.open:
            self.carry.append(rows)
            return None
        last = int(starts[-1])
        ready = [*self.carry, rows.slice(0, last)]
        self.carry = [rows.slice(last)]
        order = [self.open] if self.open is not None else []
        order += heads
        self.closed.update(q for q in order[:-1] if q is not None)
        self.open = heads[-1]
        out = pa.concat_tables(ready)
        return out if out.num_rows else None

    def flush(self) -> Any | None:
        """The rows of the last query, once the input has ended."""
        import pyarrow as pa

        if not self.carry:
            return None
        out = pa.concat_tables(self.carry)
        self.carry = []
        if self.open is not None:
            self.closed.add(self.open)
        self.open = None
        return out

    def _check(self, table: Any, heads: list[str], starts: Any) -> None:
        here: set[str] = set()
        for j, name in enumerate(heads):
            if j == 0 and name == self.open:
                continue
            if name in self.closed or name in here or name == self.open:
                column = self.source[self.role][0]
                role = self.role
                hint = f" ({self.kind.group_hint})" if self.kind.group_hint else ""
                raise InputError(
                    message(
                        where(table, column, int(starts[j])),
                        f"input is not grouped by {role}",
                        raw(f"{role} {name!r} again after other {self.kind.unit or role + 's'}"),
                        f"the rows of each {role} together{hint}",
                    )
                )
            here.add(name)


def _arrow(values: Any) -> Any:
    import pyarrow as pa

    return values if isinstance(values, pa.Array | pa.ChunkedArray) else pa.array(values)
