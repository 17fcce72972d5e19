"""The input kinds of the ranking metrics, and TREC run files as a format.

``qrels_run`` metrics read a run from ``query``, ``doc`` and ``score`` columns and
their judgments (``qrels``) once, beside the table; the rows of a query must be
summarized together, so engines group chunks by ``query``. The run of a chunk is
built and joined with the qrels once for all the ranking metrics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorekit.core import InputKind, Metric, State, register_input_kind
from scorekit.errors import ConfigError, message
from scorekit.ranking._data import Run, as_qrels
from scorekit.ranking._listed import judge_for
from scorekit.ranking._state import RankingMetric

_RUN = ("query", "doc", "score")


def _prepare(name: str, side: dict[str, Any]) -> dict[str, Any]:
    qrels = side.get("qrels")
    if qrels is None:
        raise ConfigError(
            message(
                name,
                "needs relevance judgments",
                None,
                "qrels=... (a Qrels, a {query: {doc: grade}} dict or a TREC qrels path)",
            )
        )
    return {**side, "qrels": as_qrels(qrels)}


def _summarize(
    metrics: Sequence[Metric[Any]],
    chunk: Any,
    mapping: Mapping[str, tuple[str, ...]],
    side: Mapping[str, Any],
) -> list[State]:
    qrels = side["qrels"]
    key = ("run", tuple(name for role in _RUN for name in mapping[role]))

    def build() -> Run:
        return Run(
            chunk.get("strings", mapping["query"]),
            chunk.get("strings", mapping["doc"]),
            chunk.get("scores", mapping["score"]),
        )

    run = chunk.memo(key, build)
    judged = judge_for(metrics, qrels, run)
    states: list[State] = []
    for metric in metrics:
        if isinstance(metric, RankingMetric):
            states.append(metric.for_qrels(qrels).from_judged(judged))
        else:
            states.append(metric.summarize(qrels, run))
    return states


register_input_kind(
    InputKind(
        name="qrels_run",
        description="qrels, run: relevance grades and scored documents per query (dicts, "
        "tables or TREC files)",
        roles={"query": "strings", "doc": "strings", "score": "scores"},
        every_role=True,
        side_inputs=("qrels",),
        group_by="query",
        group_hint="sort the run by query",
        prepare=_prepare,
        summarize=_summarize,
        unit="queries",
    )
)

register_input_kind(
    InputKind(
        name="paired_scores",
        description="x, y: 1-D scores of the same items under two rankings",
        roles={"x": "scores", "y": "scores"},
    )
)
