"""trec_eval's gain measures beside ndcg: binG, G, ndcg_rel and Rndcg.

Each as trec_eval's ``m_*.c`` defines it (through pytrec_eval), with the gain
table and ideal ordering of :class:`~scorekit.ranking.NDCG` (trec_eval's
``setup_gains``, with its parameters ``grade=gain``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Explanation, register, sentences
from scorekit.errors import ConfigError, message, raw
from scorekit.ranking._explanations import ORDER, TE
from scorekit.ranking._graded import NDCG
from scorekit.ranking._ranked import Judged
from scorekit.ranking._state import _ratio, _running_count
from scorekit.ranking._trec_measures import _cumsum_by, _retrieved, _starts, _Trec

__all__ = ["RNDCG", "BinG", "G", "NDCGRel"]


@register("bin_g", higher_is_better=True, bounds=(0.0, 1.0), inputs="qrels_run", grows=True)
@dataclass(frozen=True)
class BinG(_Trec):
    """Binary G: each relevant document discounted by the non-relevant ones above it (``binG``).

    .. math:: \\text{binG} = \\frac{1}{R} \\sum_{d \\text{ relevant retrieved}}
        \\frac{1}{\\log_2(2 + n_d)}

    where :math:`n_d` counts the documents above d that are not relevant
    (unjudged ones included).

    Parameters
    ----------
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision`.

    Examples
    --------
    >>> BinG().score({"q": {"a": 1, "c": 1}}, {"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    0.815...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Binary G: the mean over the relevant documents of 1 / log2(2 + the "
        "non-relevant documents ranked above it); 0 for a relevant document not retrieved.",
        formula="binG = (1/R) sum_{d relevant retrieved} 1 / log2(2 + n_d)",
        convention=sentences("0 for a query without a relevant document.", ORDER),
        reference=f"{TE} binG.",
    )

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Binary G per query."""
        level = self.relevance_level
        rel = judged.relevant(level)
        above = judged.rank - _running_count(judged, rel)
        term = np.zeros(len(rel))
        term[rel] = 1.0 / np.log2(2.0 + above[rel])
        return _ratio(judged.per_query(rel, term), judged.num_relevant(level))


@dataclass(frozen=True)
class _TrecGain(NDCG):
    """trec_eval's gain measures beside ndcg: the gain table of :class:`NDCG`, no cutoff."""

    _listed_rows_suffice: ClassVar[bool] = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.k is not None:
            raise ConfigError(
                message(self.name, "takes no cutoff", raw(f"k={self.k}"), f"'{self.name}'")
            )

    def _query_values(self, judged: Judged) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        return self.values(judged), np.zeros(judged.n_queries, dtype=bool)

    def _ideal_rows(
        self, judged: Judged
    ) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]]:
        """The positive gains of each query's ideal ordering: query, gain, ideal rank."""
        ordered = self._trec_ideal(judged)
        if ordered is None:
            return judged.ideal_gains(self._gains(judged.judged_grade))
        return ordered

    def _dcg_rows(
        self, judged: Judged, q: NDArray[np.int64], gains: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Running DCG of the run and of the ideal, and where each query's ideal ends.

        Returns the run's DCG through each ranked row, the ideal DCG through
        each ideal position, and per query the ideal DCG of all its positive
        gains (0 without one).
        """
        rows = self._gains(judged.grade) / np.log2(judged.rank + 1.0)
        run = _cumsum_by(rows, judged.row_query)
        ideal_rank = np.arange(len(q)) - _starts(q, judged.n_queries)[q] + 1
        ideal = _cumsum_by(gains / np.log2(ideal_rank + 1.0), q)
        whole = np.zeros(judged.n_queries)
        if len(q):
            last = np.flatnonzero(np.append(q[1:] != q[:-1], True))
            whole[q[last]] = ideal[last]
        return run, ideal, whole


@register("g", higher_is_better=True, bounds=(-math.inf, math.inf), inputs="qrels_run", grows=True)
@dataclass(frozen=True)
class G(_TrecGain):
    """trec_eval's normalized gain ``G``: each document's gain discounted by the gain still owed.

    .. math:: G = \\frac{1}{\\sum_j I_j} \\sum_i
        \\frac{g_i}{\\log_2(2 + \\sum_{j \\le i} \\max(I_j, 1) - \\sum_{j \\le i} g_j)}

    where :math:`g_i` is the gain of the document at rank i and :math:`I_j`
    the gain at rank j of the ideal ordering (0 past its positive gains).

    Parameters
    ----------
    gain, gains
        The gain of each grade, as :class:`NDCG` (trec_eval's ``G.1=3,2=9``).
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision` (the gains do not depend on ``relevance_level``).

    Notes
    -----
    The ideal ordering is :class:`NDCG`'s (trec_eval's with ``gains``). 0
    when no judged document has a positive gain.

    Examples
    --------
    >>> G().score({"q": {"a": 1, "b": 0, "c": 2}}, {"q": {"b": 2.0, "a": 1.0, "z": 0.5}})
    0.166...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Normalized gain G: each retrieved document's gain divided by log2 of 2 "
        "plus how far the gain collected so far lags the ideal's; the sum over the ideal "
        "total.",
        formula="G = sum_i g_i / log2(2 + sum_{j<=i} max(I_j, 1) - sum_{j<=i} g_j) / sum_j I_j",
        convention=sentences("0 when no judged document has a positive gain.", ORDER),
        reference=f"{TE} G.",
    )

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """G per query."""
        q, ideal_gain, _ = self._ideal_rows(judged)
        n = judged.n_queries
        starts = _starts(q, n)
        size = np.diff(starts)
        row_q = judged.row_query
        within = judged.rank <= size[row_q]
        cost = np.ones(len(row_q))
        at = starts[:-1][row_q[within]] + judged.rank[within] - 1
        cost[within] = np.maximum(ideal_gain[at], 1.0)
        gains = self._gains(judged.grade)
        owed = _cumsum_by(cost, row_q) - _cumsum_by(gains, row_q)
        term = np.zeros(len(row_q))
        some = gains != 0
        term[some] = gains[some] / np.log2(2.0 + owed[some])
        total = np.bincount(q, weights=ideal_gain, minlength=n).astype(np.float64)
        return _ratio(judged.per_query(some, term), total)


@register(
    "ndcg_rel",
    higher_is_better=True,
    bounds=(-math.inf, math.inf),
    inputs="qrels_run",
    grows=True,
)
@dataclass(frozen=True)
class NDCGRel(_TrecGain):
    """nDCG averaged over the relevant documents, as trec_eval's ``ndcg_rel``.

    .. math:: \\frac{1}{M} \\Big( \\sum_{d \\text{ retrieved}, g_d > 0}
        \\frac{DCG@r_d}{IDCG@\\min(r_d, M)} + (M - m) \\frac{DCG}{IDCG} \\Big)

    where M counts the judged documents of positive gain, m those retrieved,
    :math:`r_d` is the rank of d, and DCG / IDCG without a cutoff are those
    of the whole run and ideal ordering.

    Parameters
    ----------
    gain, gains
        The gain of each grade, as :class:`NDCG` (trec_eval's ``ndcg_rel.1=3``).
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision` (the gains do not depend on ``relevance_level``).

    Notes
    -----
    A document not retrieved contributes the nDCG of the whole run. 0 when no
    judged document has a positive gain.

    Examples
    --------
    >>> NDCGRel().score({"q": {"a": 1, "c": 1}}, {"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    0.959...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="nDCG averaged over the relevant documents: at each retrieved document of "
        "positive gain, and for each one not retrieved the nDCG of the whole run.",
        formula="ndcg_rel = (1/M) (sum_{d retrieved, g_d > 0} DCG@r_d / IDCG@min(r_d, M) "
        "+ (M - m) DCG / IDCG)",
        convention=sentences("0 when no judged document has a positive gain.", ORDER),
        reference=f"{TE} ndcg_rel.",
    )

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """ndcg_rel per query."""
        q, gains, _ = self._ideal_rows(judged)
        n = judged.n_queries
        run, ideal, whole = self._dcg_rows(judged, q, gains)
        starts = _starts(q, n)
        size = np.diff(starts)
        row_q = judged.row_query
        positive = self._gains(judged.grade) > 0
        has = positive & (size[row_q] > 0)
        at = starts[:-1][row_q[has]] + np.minimum(judged.rank[has], size[row_q[has]]) - 1
        term = np.zeros(len(row_q))
        term[has] = run[has] / ideal[at]
        total = judged.per_query(has, term)
        end = np.zeros(n)
        ends = np.flatnonzero(np.append(row_q[1:] != row_q[:-1], True)) if len(row_q) else row_q
        end[row_q[ends]] = run[ends]
        total += _ratio((size - judged.per_query(positive)) * end, whole)
        out = np.zeros(n)
        fine = (total > 0) & (size > 0)
        out[fine] = total[fine] / size[fine]
        return out


@register(
    "rndcg", higher_is_better=True, bounds=(-math.inf, math.inf), inputs="qrels_run", grows=True
)
@dataclass(frozen=True)
class RNDCG(_TrecGain):
    """nDCG averaged at the R levels of the gains, as trec_eval's ``Rndcg``.

    The R levels are the ranks where the ideal ordering's gain changes (the
    last of each gain, the last positive one included); Rndcg is the mean of
    nDCG at those ranks, with one more point at the end of the run when the
    run is longer than the ideal ordering's positive part.

    Parameters
    ----------
    gain, gains
        The gain of each grade, as :class:`NDCG` (trec_eval's ``Rndcg.1=3``).
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision`.

    Notes
    -----
    0 for a query without a relevant document (grade >= ``relevance_level``).
    With 5 documents of grade 3, 3 of grade 2 and 10 of grade 1 and a run of
    100, Rndcg is the mean of nDCG at 5, 8, 18 and 100 (the IDCG of ranks
    past 18 stays that of 18).

    Examples
    --------
    >>> RNDCG().score({"q": {"a": 1, "b": 0, "c": 2}}, {"q": {"b": 2.0, "a": 1.0, "z": 0.5}})
    0.119...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="nDCG averaged at the ranks where the ideal ordering's gain changes, and at "
        "the end of a run longer than the ideal's positive part.",
        formula="Rndcg = mean_{r in levels} DCG@min(r, ret) / IDCG@r  (+ DCG / IDCG at the end)",
        convention=sentences("0 for a query without a relevant document.", ORDER),
        reference=f"{TE} Rndcg.",
    )

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Rndcg per query."""
        q, gains, rank = self._ideal_rows(judged)
        n = judged.n_queries
        run, ideal, whole = self._dcg_rows(judged, q, gains)
        size = np.diff(_starts(q, n))
        ret = _retrieved(judged)
        row_start = _starts(judged.row_query, n)[:-1]
        change = np.ones(len(q), dtype=bool)
        if len(q):
            change[:-1] = (q[1:] != q[:-1]) | (gains[1:] != gains[:-1])
        bq, br = q[change], rank[change]
        depth = np.minimum(br, ret[bq]).astype(np.int64)
        dcg = np.zeros(len(bq))
        some = depth > 0
        dcg[some] = run[row_start[bq[some]] + depth[some] - 1]
        points = dcg / ideal[change]
        longer = np.flatnonzero((ret > size + 1) & (whole > 0))
        last = np.zeros(len(longer))
        if len(longer):
            last = run[row_start[longer] + ret[longer].astype(np.int64) - 1] / whole[longer]
        where = np.concatenate([bq, longer])
        total = np.bincount(where, weights=np.concatenate([points, last]), minlength=n)
        count = np.bincount(where, minlength=n).astype(np.float64)
        out = _ratio(total.astype(np.float64), count)
        out[judged.num_relevant(self.relevance_level) == 0] = 0.0
        return out
