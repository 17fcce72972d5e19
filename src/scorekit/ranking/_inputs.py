"""The input kinds of the ranking metrics, and TREC run files as a format.

``qrels_run`` metrics read a run from ``query``, ``doc`` and ``score`` columns and
their judgments (``qrels``) once, beside the table; the rows of a query must be
summarized together, so engines group chunks by ``query``. The run of a chunk is
built and joined with the qrels once for all the ranking metrics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.core import InputKind, Metric, State, register_input_kind
from scorekit.errors import ConfigError, message
from scorekit.ranking._data import Run, as_qrels
from scorekit.ranking._listed import judge_for
from scorekit.ranking._ranked import Judged
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
    parts: Sequence[NDArray[np.intp]] | None = None,
) -> list[Any]:
    """The states of ``metrics`` on the chunk's run; with ``parts`` (the rows of each
    group), those of the whole chunk followed by those of each part.

    When every query's rows lie in one part and every metric is a
    :class:`RankingMetric`, the run is joined with the qrels once and each part's
    states come from its queries' share of that join (:meth:`Judged.select`),
    which is the join of the part's rows; otherwise each part is summarized
    from its own rows.
    """
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
    overall = _states(metrics, qrels, run, judged)
    if parts is None:
        return overall
    shares = _query_shares(run, judged, parts)
    if shares is None or not all(isinstance(m, RankingMetric) for m in metrics):
        rows = [type(chunk)(chunk.table.take(index)) for index in parts]
        return [overall, *(_summarize(metrics, part, mapping, side) for part in rows)]
    _, names, _ = qrels._query_index()
    at = np.searchsorted(names, judged.queries)
    found: list[Any] = [overall]
    for share in shares:
        absent = np.ones(len(names), dtype=bool)
        absent[at[share]] = False
        found.append(_states(metrics, qrels, run, judged.select(share, names[absent])))
    return found


def _states(metrics: Sequence[Metric[Any]], qrels: Any, run: Run, judged: Judged) -> list[State]:
    states: list[State] = []
    for metric in metrics:
        if isinstance(metric, RankingMetric):
            states.append(metric.for_qrels(qrels).from_judged(judged))
        else:
            states.append(metric.summarize(qrels, run))
    return states


def _query_shares(
    run: Run, judged: Judged, parts: Sequence[NDArray[np.intp]]
) -> list[NDArray[np.bool_]] | None:
    """For each part of the run's rows, which of ``judged``'s queries are its own; None
    when some query has rows in two parts."""
    codes, names, _ = run._query_index()
    part = np.zeros(len(codes), dtype=np.int64)
    for i, index in enumerate(parts):
        part[index] = i
    of_query = np.zeros(len(names), dtype=np.int64)
    of_query[codes] = part
    if not np.array_equal(of_query[codes], part):
        return None
    mine = of_query[np.searchsorted(names, judged.queries)]
    return [mine == i for i in range(len(parts))]


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
