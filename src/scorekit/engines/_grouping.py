"""Ranking input in chunks: the rows of each query brought together in one table.

Ranking metrics compute one value per query, so the rows of a query must reach
``summarize`` together. The streaming engine reads input grouped by query (a run
sorted by query, as search systems write them): :class:`QueryGroups` holds back
the rows of the last query of each chunk and puts them in front of the next
chunk, across chunk and file boundaries. A query that appears again after other
queries is an error naming the file and line where it reappears. To tell, the ids
of the queries already finished are kept (a set of strings: memory grows with the
number of queries, as the per-query states of ranking metrics do anyway).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from scorekit import _io
from scorekit.engines._columns import Chunk
from scorekit.errors import InputError, message, raw

__all__ = ["QueryGroups"]

_ROLES = ("query", "doc", "score")


class QueryGroups:
    """Regroup chunks of a run so that each query's rows are in one table.

    :meth:`push` takes a chunk and returns the complete queries read so far (or
    None); :meth:`flush` returns the last query at the end. Returned tables have
    the columns ``query``, ``doc`` and ``score`` (read through :attr:`mapping`),
    already checked, so errors about values name the line of the input chunk.

    Examples
    --------
    >>> import pyarrow as pa
    >>> groups = QueryGroups({"query": ("q",), "doc": ("d",), "score": ("s",)})
    >>> first = pa.table({"q": ["a", "a", "b"], "d": ["x", "y", "x"], "s": [3, 2, 1]})
    >>> groups.push(first).column("query").to_pylist()
    ['a', 'a']
    >>> groups.push(pa.table({"q": ["b", "c"], "d": ["y", "x"], "s": [1, 1]})).num_rows
    2
    >>> groups.flush().column("query").to_pylist()
    ['c']
    """

    mapping: ClassVar[dict[str, tuple[str, ...]]] = {role: (role,) for role in _ROLES}
    """The role -> column mapping of the tables this class returns."""

    def __init__(self, mapping: Mapping[str, tuple[str, ...]]) -> None:
        self.source = {role: tuple(mapping[role]) for role in _ROLES}
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
        query = chunk.get("strings", self.source["query"])
        rows = pa.table(
            {
                "query": query,
                "doc": chunk.get("strings", self.source["doc"]),
                "score": chunk.get("scores", self.source["score"]),
            }
        )
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
                column = self.source["query"][0]
                raise InputError(
                    message(
                        _io._where(table, column, int(starts[j])),
                        "input is not grouped by query",
                        raw(f"query {name!r} again after other queries"),
                        "the rows of each query together (sort the run by query)",
                    )
                )
            here.add(name)
