"""Ranking metrics over (qrels, run): per-query values as the state, their mean as the value.

Every metric computes one value per evaluated query from a :class:`Judged` ranking
(see :mod:`scorekit.ranking._ranked`). The state is those values with their query
ids; states of disjoint query sets merge by concatenation, so a run streamed in
query-sorted chunks gives the in-memory result. Definitions follow trec_eval
(through pytrec_eval) wherever trec_eval has the measure.
"""

from __future__ import annotations

import abc
import dataclasses
import itertools
import math
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit._core import Metric, State, register, state_field
from scorekit.errors import (
    ConfigError,
    InputError,
    StateMismatchError,
    UndefinedMetricWarning,
    choices,
    message,
    raw,
)
from scorekit.ranking._data import Qrels, as_qrels, as_run
from scorekit.ranking._ranked import Judged, judge

__all__ = [
    "CG",
    "DCG",
    "ERR",
    "MAP",
    "MRR",
    "NDCG",
    "BPref",
    "FAtK",
    "HitRate",
    "Precision",
    "QueryValues",
    "RPrecision",
    "Recall",
]

Missing = Literal["skip", "zero"]
MISSING: tuple[Missing, ...] = ("skip", "zero")
GAINS = ("linear", "exp")


@dataclass(frozen=True, eq=False)
class QueryValues(State):
    """One value per query, with the settings that produced them.

    ``queries`` and ``values`` are aligned; ``absent`` lists the qrels queries
    that had no document in the run (they count as 0 when ``missing`` is
    ``"zero"``). Merging concatenates disjoint query sets and unites ``absent``;
    the settings must agree unless one state holds no query at all.
    """

    setting: str = state_field("custom")
    missing: str = state_field("same")
    queries: NDArray[np.str_] = state_field("custom")
    values: NDArray[np.float64] = state_field("custom")
    absent: NDArray[np.str_] = state_field("custom")

    def is_empty(self) -> bool:
        """True for the state of no queries."""
        return len(self.queries) == 0 and len(self.absent) == 0

    def _merge_custom(self, other: QueryValues) -> dict[str, Any]:
        setting = other.setting if self.is_empty() else self.setting
        if not (self.is_empty() or other.is_empty()) and self.setting != other.setting:
            raise StateMismatchError(
                message(
                    self.kind,
                    "cannot merge states with different settings",
                    other.setting,
                    f"{self.setting!r} as in the other state",
                )
            )
        both = np.intersect1d(self.queries, other.queries)
        if len(both):
            raise InputError(
                message(
                    self.setting,
                    "the same query is in both states",
                    both[0].item(),
                    "states of disjoint query sets (chunks split between queries)",
                )
            )
        queries = np.concatenate([self.queries, other.queries])
        values = np.concatenate([self.values, other.values])
        order = np.argsort(queries, kind="stable")
        return {
            "setting": setting,
            "queries": queries[order],
            "values": values[order],
            "absent": np.union1d(self.absent, other.absent),
        }

    def table(self) -> tuple[NDArray[np.str_], NDArray[np.float64]]:
        """Every query that counts and its value, in sorted query order."""
        queries, values = self.queries, self.values
        if self.missing == "zero":
            extra = np.setdiff1d(self.absent, queries)
            queries = np.concatenate([queries, extra])
            values = np.concatenate([values, np.zeros(len(extra))])
            order = np.argsort(queries, kind="stable")
            queries, values = queries[order], values[order]
        return queries, values


def _check_k(name: str, k: Any, required: bool) -> int | None:
    if k is None:
        if required:
            raise ConfigError(message(name, "needs a cutoff", None, f"k >= 1, e.g. '{name}@10'"))
        return None
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise ConfigError(message(name, "invalid cutoff k", k, "an integer >= 1"))
    return int(k)


def _check_level(name: str, level: Any) -> float:
    ok = isinstance(level, int | float | np.integer | np.floating) and not isinstance(level, bool)
    if not ok or not math.isfinite(level) or level <= 0:
        raise ConfigError(message(name, "invalid relevance_level", level, "a number > 0"))
    return float(level)


@dataclass(frozen=True)
class RankingMetric(Metric[QueryValues]):
    """Shared options: the cutoff ``k``, ``relevance_level`` and the ``missing`` policy."""

    k: int | None = None
    relevance_level: float = 1
    missing: Missing = "skip"

    _needs_k: ClassVar[bool] = False
    _divides_by_relevant: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", _check_k(self.name, self.k, self._needs_k))
        object.__setattr__(self, "relevance_level", _check_level(self.name, self.relevance_level))
        if self.missing not in MISSING:
            raise ConfigError(message(self.name, "unknown missing", self.missing, choices(MISSING)))

    def _setting(self) -> str:
        at = "" if self.k is None else f"@{self.k}"
        extra = self._extra_setting()
        return f"{self.name}{at}(relevance_level={self.relevance_level!r}{extra})"

    def _extra_setting(self) -> str:
        return ""

    @abc.abstractmethod
    def values(self, judged: Judged) -> NDArray[np.float64]:
        """One value per evaluated query of ``judged``."""

    def empty(self) -> QueryValues:
        """The state of no queries."""
        none = np.array([], dtype=str)
        return QueryValues(self._setting(), self.missing, none, np.zeros(0), none)

    def summarize(self, qrels: Any, run: Any) -> QueryValues:
        """Per-query values of a run against its qrels.

        ``qrels`` and ``run`` are :class:`~scorekit.ranking.Qrels` /
        :class:`~scorekit.ranking.Run` objects, ``{query: {doc: value}}``
        dicts, tables with ``query``/``doc``/``relevance`` (``score``) columns,
        or TREC file paths.
        """
        q = as_qrels(qrels)
        return self.for_qrels(q).from_judged(judge(q, as_run(run)))

    def for_qrels(self, qrels: Qrels) -> RankingMetric:
        """This metric with any setting that defaults from the qrels resolved."""
        return self

    def from_judged(self, judged: Judged) -> QueryValues:
        """The state of an already joined ranking (shared by several metrics).

        Settings that default from the qrels (ERR's ``max_grade``) must be
        resolved first with :meth:`for_qrels`.
        """
        values = self.values(judged)
        if self._divides_by_relevant and judged.n_queries:
            empty = judged.num_relevant(self.relevance_level) == 0
            if empty.any():
                warnings.warn(
                    f"{self.name}: {int(empty.sum())} of {judged.n_queries} queries have no "
                    f"relevant document (grade >= {self.relevance_level:g}); they count as 0, "
                    "as in trec_eval.",
                    UndefinedMetricWarning,
                    stacklevel=3,
                )
        return QueryValues(
            self._setting(), self.missing, judged.queries, values.astype(np.float64), judged.absent
        )

    def compute(self, state: QueryValues) -> float:
        """The mean over the queries (with ``missing='zero'``, absent ones count 0)."""
        if len(state.queries) == 0:
            raise InputError(
                message(
                    self.name,
                    "no query to evaluate",
                    raw(f"{len(state.absent)} qrels queries and none of them in the run"),
                    "a run that shares queries with the qrels",
                )
            )
        _, values = state.table()
        return float(np.mean(values))

    def _cut(self, judged: Judged) -> NDArray[np.bool_]:
        if self.k is None:
            return np.ones(len(judged.rank), dtype=bool)
        return np.asarray(judged.rank <= self.k)


def _ratio(num: NDArray[np.float64], den: NDArray[np.float64]) -> NDArray[np.float64]:
    out = np.zeros_like(num)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _gain(grade: NDArray[np.float64], kind: str) -> NDArray[np.float64]:
    g = np.where(np.isnan(grade) | (grade <= 0), 0.0, grade)
    return np.exp2(g) - 1.0 if kind == "exp" else g


# set-based ----------------------------------------------------------------------------------


@register(
    "p",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="qrels_run",
    aliases=("precision_at",),
    at="k",
    at_aliases=("precision",),
)
@dataclass(frozen=True)
class Precision(RankingMetric):
    """Precision at k: the relevant documents among the top k, over k.

    .. math:: P@k = |\\{\\text{relevant in top } k\\}| / k

    Parameters
    ----------
    k : int, default 10
        The cutoff. The denominator is ``k`` even when fewer documents were
        retrieved, as trec_eval's ``P_k``.
    relevance_level : float, default 1
        The smallest grade that counts as relevant.
    missing : {'skip', 'zero'}, default 'skip'
        Qrels queries absent from the run: left out, or counted as 0
        (trec_eval ``-c``).

    Notes
    -----
    Agrees with trec_eval's ``P_k`` (pytrec_eval). Documents without a judgment
    are non-relevant. Available as ``p@k``, ``precision@k`` and ``precision_at@k``
    (``precision`` without ``@k`` is the classification metric).

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7, "d4": 0.1}}
    >>> Precision(k=2).score(qrels, run)
    0.5
    """

    k: int | None = 10
    _needs_k: ClassVar[bool] = True
    _divides_by_relevant: ClassVar[bool] = False

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Relevant in the top k over k, per query."""
        hits = judged.per_query(self._cut(judged) & judged.relevant(self.relevance_level))
        return hits / float(self.k or 1)


@register(
    "recall_at",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="qrels_run",
    at="k",
    at_aliases=("recall",),
)
@dataclass(frozen=True)
class Recall(RankingMetric):
    """Recall at k: the relevant documents among the top k, over all relevant ones.

    .. math:: R@k = |\\{\\text{relevant in top } k\\}| / |\\{\\text{relevant}\\}|

    Parameters
    ----------
    k : int, default 10
        The cutoff.
    relevance_level, missing
        See :class:`Precision`.

    Notes
    -----
    Available as ``recall@k`` and ``recall_at@k`` (``recall`` without ``@k`` is
    the classification metric). Agrees with trec_eval's ``recall_k``. The denominator counts every
    relevant document in the qrels, retrieved or not; a query with none is 0
    with an :class:`~scorekit.errors.UndefinedMetricWarning`.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1, "d9": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7}}
    >>> Recall(k=2).score(qrels, run)
    0.333...
    """

    k: int | None = 10
    _needs_k: ClassVar[bool] = True

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Relevant in the top k over all relevant, per query."""
        hits = judged.per_query(self._cut(judged) & judged.relevant(self.relevance_level))
        return _ratio(hits, judged.num_relevant(self.relevance_level))


@register("f", higher_is_better=True, bounds=(0.0, 1.0), inputs="qrels_run", at="k")
@dataclass(frozen=True)
class FAtK(RankingMetric):
    """F-beta at k: the weighted harmonic mean of precision at k and recall at k.

    .. math:: F_\\beta@k = (1 + \\beta^2) \\frac{P@k \\cdot R@k}{\\beta^2 P@k + R@k}

    Parameters
    ----------
    k : int, default 10
        The cutoff.
    beta : float, default 1
        Weight of recall.
    relevance_level, missing
        See :class:`Precision`.

    Notes
    -----
    0 when no relevant document is in the top k. trec_eval has no F at a
    cutoff (its ``set_F`` uses the whole retrieved set), so this one is checked
    against its definition from :class:`Precision` and :class:`Recall`.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1, "d9": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7}}
    >>> FAtK(k=2).score(qrels, run)
    0.4
    """

    k: int | None = 10
    beta: float = 1.0
    _needs_k: ClassVar[bool] = True

    def __post_init__(self) -> None:
        super().__post_init__()
        b = self.beta
        if isinstance(b, bool) or not isinstance(b, int | float) or not math.isfinite(b) or b <= 0:
            raise ConfigError(message(self.name, "invalid beta", b, "a number > 0"))

    def _extra_setting(self) -> str:
        return f", beta={float(self.beta)!r}"

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """F-beta of P@k and R@k, per query."""
        hits = judged.per_query(self._cut(judged) & judged.relevant(self.relevance_level))
        p = hits / float(self.k or 1)
        r = _ratio(hits, judged.num_relevant(self.relevance_level))
        b2 = float(self.beta) ** 2
        return _ratio((1 + b2) * p * r, b2 * p + r)


@register(
    "hit_rate",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="qrels_run",
    aliases=("success",),
    at="k",
)
@dataclass(frozen=True)
class HitRate(RankingMetric):
    """Hit rate at k: 1 if any relevant document is in the top k, else 0.

    Parameters
    ----------
    k : int, default 10
        The cutoff.
    relevance_level, missing
        See :class:`Precision`.

    Notes
    -----
    trec_eval's ``success_k``.

    Examples
    --------
    >>> qrels = {"q1": {"d3": 1}, "q2": {"d1": 1}}
    >>> run = {"q1": {"d1": 0.9, "d3": 0.5}, "q2": {"d1": 0.2, "d2": 0.9}}
    >>> HitRate(k=1).score(qrels, run)
    0.0
    >>> HitRate(k=2).score(qrels, run)
    1.0
    """

    k: int | None = 10
    _needs_k: ClassVar[bool] = True
    _divides_by_relevant: ClassVar[bool] = False

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """1.0 where a relevant document is in the top k."""
        hits = judged.per_query(self._cut(judged) & judged.relevant(self.relevance_level))
        return (hits > 0).astype(np.float64)


@register(
    "r_precision",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="qrels_run",
    aliases=("rprec",),
)
@dataclass(frozen=True)
class RPrecision(RankingMetric):
    """R-precision: precision at R, the number of relevant documents of the query.

    .. math:: RP = |\\{\\text{relevant in top } R\\}| / R

    Parameters
    ----------
    relevance_level, missing
        See :class:`Precision`.

    Notes
    -----
    trec_eval's ``Rprec``: missing ranks below the end of a short run count as
    non-relevant; a query with no relevant document is 0 with an
    :class:`~scorekit.errors.UndefinedMetricWarning`.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d3": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7}}
    >>> RPrecision().score(qrels, run)
    0.5
    """

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Relevant in the top R over R, per query."""
        r = judged.num_relevant(self.relevance_level)
        top = judged.rank <= r[judged.row_query]
        hits = judged.per_query(top & judged.relevant(self.relevance_level))
        return _ratio(hits, r)


# rank-based ---------------------------------------------------------------------------------


@register(
    "map",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="qrels_run",
    at="k",
)
@dataclass(frozen=True)
class MAP(RankingMetric):
    """Mean average precision: per query, the mean of precision at each relevant document.

    .. math:: AP = \\frac{1}{R} \\sum_{i:\\,\\text{rel}_i} P@i

    Parameters
    ----------
    k : int, optional
        Only relevant documents ranked within the top k contribute
        (trec_eval's ``map_cut_k``); the denominator is still R.
    relevance_level, missing
        See :class:`Precision`.

    Notes
    -----
    ``ranking.evaluate`` and ``scorekit rank`` also accept ``ap`` (elsewhere
    ``ap`` names the classification metric ``average_precision``).
    trec_eval's ``map``: R counts every relevant document in the qrels, so a
    relevant document never retrieved contributes 0. A query with no relevant
    document is 0 with an :class:`~scorekit.errors.UndefinedMetricWarning`.

    Examples
    --------
    >>> qrels = {"q1": {"a": 1, "b": 0, "c": 1, "d": 0, "e": 1, "f": 0}}
    >>> run = {"q1": {"a": 6, "b": 5, "c": 4, "d": 3, "e": 2, "f": 1}}
    >>> round(MAP().score(qrels, run), 4)
    0.7556
    """

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Average precision per query."""
        rel = judged.relevant(self.relevance_level)
        hits = _running_count(judged, rel)
        take = rel & self._cut(judged)
        precision = np.zeros(len(rel))
        precision[take] = hits[take] / judged.rank[take]
        total = judged.per_query(take, precision)
        return _ratio(total, judged.num_relevant(self.relevance_level))


def _running_count(judged: Judged, mask: NDArray[np.bool_]) -> NDArray[np.float64]:
    """Per ranked row: how many rows of its query up to and including it are in ``mask``."""
    total = np.cumsum(mask, dtype=np.int64)
    before = total - mask
    first = np.flatnonzero(judged.rank == 1)
    offset = np.repeat(before[first], np.diff(np.concatenate([first, [len(mask)]])))
    return (total - offset).astype(np.float64)


@register(
    "mrr",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="qrels_run",
    aliases=("recip_rank",),
    at="k",
)
@dataclass(frozen=True)
class MRR(RankingMetric):
    """Mean reciprocal rank: 1 / the rank of the first relevant document.

    Parameters
    ----------
    k : int, optional
        Only a first relevant document within the top k counts; otherwise 0.
    relevance_level, missing
        See :class:`Precision`.

    Notes
    -----
    trec_eval's ``recip_rank`` (no cutoff). 0 when no relevant document is
    retrieved.

    Examples
    --------
    >>> qrels = {"q1": {"c": 1}, "q2": {"a": 1}}
    >>> run = {"q1": {"a": 3, "b": 2, "c": 1}, "q2": {"a": 3, "b": 2}}
    >>> MRR().score(qrels, run)
    0.666...
    """

    _divides_by_relevant: ClassVar[bool] = False

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """The reciprocal rank of the first relevant document, per query."""
        take = judged.relevant(self.relevance_level) & self._cut(judged)
        best = np.full(judged.n_queries, np.inf)
        np.minimum.at(best, judged.row_query[take], judged.rank[take].astype(np.float64))
        return np.where(np.isinf(best), 0.0, 1.0 / best)


@register("bpref", higher_is_better=True, bounds=(0.0, 1.0), inputs="qrels_run")
@dataclass(frozen=True)
class BPref(RankingMetric):
    """Bpref: how rarely judged non-relevant documents are ranked above relevant ones.

    .. math:: \\text{bpref} = \\frac{1}{R} \\sum_{r \\text{ relevant retrieved}}
        \\left(1 - \\frac{\\min(n_r, R)}{\\min(N, R)}\\right)

    where :math:`n_r` counts the judged non-relevant documents ranked above
    ``r`` and :math:`N` the judged non-relevant documents of the query.

    Parameters
    ----------
    relevance_level, missing
        See :class:`Precision`.

    Notes
    -----
    Buckley and Voorhees (SIGIR 2004), as trec_eval's ``bpref``: unjudged
    documents are skipped, a relevant document with no judged non-relevant one
    above it counts 1 (also when N = 0), and a query with no relevant
    document is 0 with an :class:`~scorekit.errors.UndefinedMetricWarning`.

    Examples
    --------
    >>> qrels = {"q1": {"a": 1, "b": 0, "c": 1, "x": 0}}
    >>> run = {"q1": {"a": 4, "b": 3, "u": 2, "c": 1}}
    >>> BPref().score(qrels, run)
    0.75
    """

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Bpref per query."""
        level = self.relevance_level
        rel = judged.relevant(level)
        with np.errstate(invalid="ignore"):
            nonrel = (judged.grade >= 0) & (judged.grade < level)
        above = _running_count(judged, nonrel)
        r = judged.num_relevant(level)
        n = judged.num_nonrelevant(level)
        rq, nq = r[judged.row_query], n[judged.row_query]
        denom = np.minimum(rq, nq)
        penalty = np.zeros(len(rel))
        has = rel & (above > 0) & (denom > 0)
        penalty[has] = np.minimum(above[has], rq[has]) / denom[has]
        return _ratio(judged.per_query(rel, 1.0 - penalty), r)


# graded -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _GainMetric(RankingMetric):
    """Shared ``gain`` option of the graded metrics."""

    gain: Literal["linear", "exp"] = "linear"
    _divides_by_relevant: ClassVar[bool] = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.gain not in GAINS:
            raise ConfigError(message(self.name, "unknown gain", self.gain, choices(GAINS)))

    def _extra_setting(self) -> str:
        return f", gain={self.gain!r}"

    def _dcg(self, judged: Judged, discount: bool = True) -> NDArray[np.float64]:
        cut = self._cut(judged)
        gains = _gain(judged.grade, self.gain)
        if discount:
            gains = gains / np.log2(judged.rank + 1.0)
        return judged.per_query(cut, gains)


_GAIN_DOC = """
    gain : {'linear', 'exp'}, default 'linear'
        The gain of a document of grade g: g (trec_eval) or 2^g - 1 (Burges
        et al.). Unjudged documents and grades <= 0 gain 0."""


@register("cg", higher_is_better=True, bounds=(0.0, math.inf), inputs="qrels_run", at="k")
@dataclass(frozen=True)
class CG(_GainMetric):
    """Cumulative gain at k: the sum of the gains of the top k documents.

    Parameters
    ----------
    k : int, optional
        The cutoff (all retrieved documents without one).
    gain : {'linear', 'exp'}, default 'linear'
        The gain of a document of grade g: g or 2^g - 1.
    missing : {'skip', 'zero'}, default 'skip'
        See :class:`Precision`.

    Examples
    --------
    >>> CG(k=2).score({"q": {"a": 3, "b": 2, "c": 3}}, {"q": {"a": 3, "b": 2, "c": 1}})
    5.0
    """

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """The summed gains of the top k, per query."""
        return self._dcg(judged, discount=False)


@register("dcg", higher_is_better=True, bounds=(0.0, math.inf), inputs="qrels_run", at="k")
@dataclass(frozen=True)
class DCG(_GainMetric):
    """Discounted cumulative gain at k.

    .. math:: DCG@k = \\sum_{i=1}^{k} \\frac{\\text{gain}_i}{\\log_2(i + 1)}

    Parameters
    ----------
    k : int, optional
        The cutoff (all retrieved documents without one).
    gain : {'linear', 'exp'}, default 'linear'
        The gain of a document of grade g: g (trec_eval) or 2^g - 1.
    missing : {'skip', 'zero'}, default 'skip'
        See :class:`Precision`.

    Examples
    --------
    >>> qrels = {"q": {"d1": 3, "d2": 2, "d3": 3, "d4": 0, "d5": 1, "d6": 2, "d7": 3, "d8": 0}}
    >>> run = {"q": {"d1": 6, "d2": 5, "d3": 4, "d4": 3, "d5": 2, "d6": 1}}
    >>> round(DCG(k=6).score(qrels, run), 3)
    6.861
    """

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """DCG@k per query."""
        return self._dcg(judged)


@register("ndcg", higher_is_better=True, bounds=(0.0, 1.0), inputs="qrels_run", at="k")
@dataclass(frozen=True)
class NDCG(_GainMetric):
    """Normalised DCG at k: DCG@k over the DCG@k of the ideal ordering of the judgments.

    .. math:: nDCG@k = DCG@k / IDCG@k

    The ideal ordering sorts every judged document of the query (retrieved or
    not) by decreasing gain.

    Parameters
    ----------
    k : int, optional
        The cutoff: ``ndcg@10`` is trec_eval's ``ndcg_cut_10``; without one,
        trec_eval's ``ndcg`` over the whole run and all judgments.
    gain : {'linear', 'exp'}, default 'linear'
        The gain of a document of grade g: g (trec_eval) or 2^g - 1.
    missing : {'skip', 'zero'}, default 'skip'
        See :class:`Precision`.

    Notes
    -----
    As in trec_eval, gains are the grades themselves, so ``relevance_level``
    does not change nDCG. A query whose judgments all have grade <= 0 has
    IDCG = 0 and nDCG 0, with an :class:`~scorekit.errors.UndefinedMetricWarning`.

    Examples
    --------
    >>> qrels = {"q": {"d1": 3, "d2": 2, "d3": 3, "d4": 0, "d5": 1, "d6": 2, "d7": 3, "d8": 0}}
    >>> run = {"q": {"d1": 6, "d2": 5, "d3": 4, "d4": 3, "d5": 2, "d6": 1}}
    >>> round(NDCG(k=6).score(qrels, run), 3)
    0.818
    """

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """nDCG@k per query."""
        dcg = self._dcg(judged)
        ideal = self.ideal(judged)
        zero = ideal <= 0
        if zero.any():
            warnings.warn(
                f"{self.name}: {int(zero.sum())} of {judged.n_queries} queries have no judged "
                "document of positive grade (IDCG = 0); they count as 0, as in trec_eval.",
                UndefinedMetricWarning,
                stacklevel=3,
            )
        return _ratio(dcg, ideal)

    def ideal(self, judged: Judged) -> NDArray[np.float64]:
        """IDCG@k per query, from every judged document of the query."""
        q, gains, rank = judged.ideal_gains(_gain(judged.judged_grade, self.gain))
        keep = rank <= self.k if self.k is not None else np.ones(len(rank), dtype=bool)
        weights = (gains / np.log2(rank + 1.0))[keep]
        ideal: NDArray[np.float64] = np.bincount(
            q[keep], weights=weights, minlength=judged.n_queries
        ).astype(np.float64)
        return ideal


@register("err", higher_is_better=True, bounds=(0.0, 1.0), inputs="qrels_run", at="k")
@dataclass(frozen=True)
class ERR(RankingMetric):
    """Expected reciprocal rank (Chapelle et al. 2009) at k.

    .. math:: ERR@k = \\sum_{r=1}^{k} \\frac{1}{r} R_r \\prod_{i<r} (1 - R_i),
        \\quad R_i = \\frac{2^{g_i} - 1}{2^{g_{max}}}

    Parameters
    ----------
    k : int, optional
        The cutoff (the whole run without one).
    max_grade : float, optional
        :math:`g_{max}`. By default the largest grade in the qrels given;
        states computed with different values do not merge.
    missing : {'skip', 'zero'}, default 'skip'
        See :class:`Precision`.

    Notes
    -----
    Unjudged documents and grades <= 0 have :math:`R_i = 0`. trec_eval has no
    ERR; values are checked against the definition by hand.

    Examples
    --------
    >>> ERR().score({"q": {"a": 2, "b": 1}}, {"q": {"a": 2.0, "b": 1.0}})
    0.78125
    """

    max_grade: float | None = None
    _divides_by_relevant: ClassVar[bool] = False

    def __post_init__(self) -> None:
        super().__post_init__()
        g = self.max_grade
        if g is not None and (
            isinstance(g, bool) or not isinstance(g, int | float) or not math.isfinite(g) or g <= 0
        ):
            raise ConfigError(message(self.name, "invalid max_grade", g, "a number > 0 or None"))

    def for_qrels(self, qrels: Qrels) -> ERR:
        """This ERR with ``max_grade`` set to the largest grade of ``qrels`` if it was None."""
        if self.max_grade is not None:
            return self
        top = float(qrels.values.max()) if len(qrels) else 1.0
        return dataclasses.replace(self, max_grade=max(top, 1.0))

    def empty(self) -> QueryValues:
        """The state of no queries."""
        if self.max_grade is None:
            none = np.array([], dtype=str)
            return QueryValues(
                f"{self.name}(max_grade=auto)", self.missing, none, np.zeros(0), none
            )
        return super().empty()

    def _extra_setting(self) -> str:
        return f", max_grade={self.max_grade!r}"

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """ERR@k per query."""
        g_max = float(self.max_grade) if self.max_grade is not None else 1.0
        g = np.where(np.isnan(judged.grade) | (judged.grade <= 0), 0.0, judged.grade)
        stop = np.minimum((np.exp2(g) - 1.0) / np.exp2(g_max), 1.0)
        cut = self._cut(judged)
        reach = _reach(judged, stop, cut)
        return judged.per_query(cut, reach * stop / judged.rank)


_CELLS = 1 << 24


def _reach(
    judged: Judged, stop: NDArray[np.float64], cut: NDArray[np.bool_]
) -> NDArray[np.float64]:
    """Per ranked row within the cut: the product of (1 - stop) over the query's earlier rows.

    Rows are laid out as a (queries x ranks) table, a block of queries at a
    time, and multiplied along the ranks, which is exact.
    """
    reach = np.zeros(len(stop))
    rows = np.flatnonzero(cut)
    if len(rows) == 0:
        return reach
    depth = int(judged.rank[rows].max())
    block = max(1, _CELLS // (depth + 1))
    query = judged.row_query[rows]
    bounds = np.searchsorted(query, np.arange(0, judged.n_queries + block, block))
    for lo, hi in itertools.pairwise(bounds.tolist()):
        if lo == hi:
            continue
        part = rows[lo:hi]
        local = query[lo:hi] - query[lo]
        table = np.ones((int(local[-1]) + 1, depth + 1))
        table[local, judged.rank[part]] = 1.0 - stop[part]
        table[:, 0] = 1.0
        through = np.multiply.accumulate(table, axis=1)
        reach[part] = through[local, judged.rank[part] - 1]
    return reach
