"""The input kind of the serving metrics: one record per request, in columns of a table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorekit.core import InputKind, Metric, State, register_input_kind
from scorekit.throughput._input import COLUMNS, OPTIONAL
from scorekit.throughput._records import as_records


def _records(table: Any, mapping: Mapping[str, tuple[str, ...]]) -> Any:
    """The chunk's columns renamed to the record fields they hold."""
    names = {mapping[role][0]: role for role in mapping}
    keep = [name for name in table.column_names if name in names]
    renamed = table.select(keep).rename_columns([names[n] for n in keep])
    return renamed.replace_schema_metadata(table.schema.metadata)


def _summarize(
    metrics: Sequence[Metric[Any]],
    chunk: Any,
    mapping: Mapping[str, tuple[str, ...]],
    side: Mapping[str, Any],
) -> list[State]:
    if not metrics:
        return []
    # checked once for every metric, with the first metric's name (the one that would fail first)
    records = as_records(metrics[0].name, _records(chunk.table, mapping))
    return [metric.summarize(records) for metric in metrics]


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
