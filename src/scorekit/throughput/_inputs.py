"""The input kind of the serving metrics: one record per request, in columns of a table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.core import InputKind, Metric, register_input_kind
from scorekit.throughput._input import COLUMNS, OPTIONAL
from scorekit.throughput._records import Records, input_records
from scorekit.throughput._units import take_records


def _records(table: Any, mapping: Mapping[str, tuple[str, ...]]) -> Any:
    """The chunk's columns renamed to the record fields they hold."""
    names = {mapping[role][0]: role for role in mapping}
    keep = [name for name in table.column_names if name in names]
    renamed = table.select(keep).rename_columns([names[n] for n in keep])
    return renamed.replace_schema_metadata(table.schema.metadata)


def _of_row(records: Records, rows: NDArray[np.intp], count: int) -> NDArray[np.intp] | None:
    """The record of each of the ``count`` input rows (-1: set aside); None if none is."""
    if records.rows is None:
        return None
    of_row = np.full(count, -1, dtype=np.intp)
    of_row[rows] = np.arange(records.n)
    return of_row


def _part(records: Records, of_row: NDArray[np.intp] | None, index: NDArray[np.intp]) -> Records:
    """The records of the chunk's rows ``index``, as checking those rows alone gives them.

    ``of_row`` is the record of each row of the chunk (-1 for a row set aside by
    :data:`~scorekit.throughput.MARKS`), None when no row is set aside; the part's
    records keep the order of ``index`` and name the part's rows they come from
    when some of its rows were set aside.
    """
    if of_row is None:
        return replace(take_records(records, index), rows=None, input_rows=len(index))
    found = of_row[index]
    kept = found >= 0
    part = take_records(records, found[kept]) if kept.any() else Records.empty()
    marked = None if kept.all() else np.flatnonzero(kept)
    return replace(part, rows=marked, input_rows=len(index))


def _summarize(
    metrics: Sequence[Metric[Any]],
    chunk: Any,
    mapping: Mapping[str, tuple[str, ...]],
    side: Mapping[str, Any],
    parts: Sequence[NDArray[np.intp]] | None = None,
) -> list[Any]:
    """The states of ``metrics`` on the chunk's records; with ``parts`` (the rows of each
    group), those of the whole chunk followed by those of each part.

    The records are checked once, for the whole chunk, and each part takes its
    records from them (:func:`_part`), which equals checking the part's rows.
    """
    if not metrics:
        return [] if parts is None else [[] for _ in range(len(parts) + 1)]
    # checked once for every metric, with the first metric's name (the one that would fail first)
    records, rows, count = input_records(metrics[0].name, _records(chunk.table, mapping))
    overall = [metric.summarize(records) for metric in metrics]
    if parts is None:
        return overall
    of_row = _of_row(records, rows, count)
    found: list[Any] = [overall]
    for index in parts:
        part = _part(records, of_row, np.asarray(index, dtype=np.intp))
        found.append([metric.summarize(part) for metric in metrics])
    return found


register_input_kind(
    InputKind(
        name="requests",
        description="records: one per request with prompt_tokens, output_tokens, start, end "
        "(optional first_token, token_times, success, error)",
        roles=dict.fromkeys(COLUMNS, "records"),
        optional=OPTIONAL,
        every_role=True,
        summarize=_summarize,
    )
)
