"""Graded ranking metrics: gains from the relevance grades, discounted by rank.

Cumulative gain, DCG and nDCG sum a gain per document (its grade, or
2^grade - 1) over the top k; ERR models a user who stops at each document with
a probability that grows with its grade. nDCG follows trec_eval (through
pytrec_eval); trec_eval has no ERR.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Check, Explanation, OneOf, Range, register, sentences
from scorekit.errors import ConfigError, message, raw
from scorekit.ranking._data import Qrels
from scorekit.ranking._explanations import GAIN, ORDER, TE
from scorekit.ranking._gains import format_gains, gains_option, trec_gain_order
from scorekit.ranking._ranked import Judged
from scorekit.ranking._state import GAINS, QueryValues, RankingMetric, _gain, _ratio

__all__ = ["CG", "DCG", "ERR", "NDCG"]


@dataclass(frozen=True)
class _GainMetric(RankingMetric):
    """Shared ``gain`` and ``gains`` options of the graded metrics."""

    gain: Annotated[Literal["linear", "exp"], OneOf(GAINS)] = "linear"
    gains: Annotated[Any, Check(gains_option)] = None
    _divides_by_relevant: ClassVar[bool] = False

    _listed_rows_suffice: ClassVar[bool] = True

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.gains is not None and self.gain != "linear":
            raise ConfigError(
                message(
                    self.name,
                    "gains per grade replace the gain function",
                    raw(f"gain={self.gain!r} with gains"),
                    "gain='linear' (the default) with gains",
                )
            )

    def _extra_setting(self) -> str:
        extra = f", gain={self.gain!r}"
        if self.gains is not None:
            extra += f", gains={format_gains(self.gains)}"
        return extra

    def _gains(self, grade: NDArray[np.float64]) -> NDArray[np.float64]:
        """The gain of each grade (NaN for unjudged documents and negative grades: 0)."""
        if self.gains is None:
            return _gain(grade, self.gain)
        out: NDArray[np.float64] = np.where(np.isnan(grade) | (grade <= 0), 0.0, grade)
        for g, value in self.gains:
            out[grade == g] = value
        return out

    def _discount(self, rank: NDArray[np.int64]) -> NDArray[np.float64]:
        return np.ones(len(rank))

    def _dcg(self, judged: Judged, discount: bool = True) -> NDArray[np.float64]:
        # the gains and discounts of the rows within the cutoff alone
        cut = self._cut(judged)
        gains = self._gains(judged.grade[cut])
        if discount:
            gains = gains / self._discount(judged.rank[cut])
        return np.bincount(judged.row_query[cut], weights=gains, minlength=judged.n_queries).astype(
            np.float64
        )


@dataclass(frozen=True)
class _DiscountMetric(_GainMetric):
    """The ``log_base`` of the discount of DCG and nDCG."""

    log_base: Annotated[float, Range(1, closed="neither", convert=float)] = 2

    def _extra_setting(self) -> str:
        extra = super()._extra_setting()
        return extra if self.log_base == 2 else extra + f", log_base={self.log_base!r}"

    def _discount(self, rank: NDArray[np.int64]) -> NDArray[np.float64]:
        """log_b(rank + 1): log2 for base 2, else ln(rank + 1) / ln(b), as scikit-learn."""
        out: NDArray[np.float64]
        if self.log_base == 2:
            out = np.log2(rank + 1.0)
        else:
            out = np.log(rank + 1.0) / np.log(self.log_base)
        return out


@register(
    "cg", higher_is_better=True, bounds=(0.0, math.inf), inputs="qrels_run", grows=True, at="k"
)
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

    explanation: ClassVar[Explanation] = Explanation(
        definition="Cumulative gain at k: the sum of the gains of the top k documents.",
        formula="CG@k = sum_{i <= k} gain_i",
        convention=sentences(GAIN, "Without k, the whole run.", ORDER),
        reference="Järvelin and Kekäläinen (2002); checked against the definition.",
    )

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """The summed gains of the top k, per query."""
        return self._dcg(judged, discount=False)


@register(
    "dcg", higher_is_better=True, bounds=(0.0, math.inf), inputs="qrels_run", grows=True, at="k"
)
@dataclass(frozen=True)
class DCG(_DiscountMetric):
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

    explanation: ClassVar[Explanation] = Explanation(
        definition="Discounted cumulative gain at k: gains discounted by the log of the rank.",
        formula="DCG@k = sum_{i <= k} gain_i / log2(i + 1)",
        convention=sentences(GAIN, "Without k, the whole run.", ORDER),
        reference="Järvelin and Kekäläinen (2002), with trec_eval's log2(i + 1) discount.",
    )

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """DCG@k per query."""
        return self._dcg(judged)


@register("ndcg", higher_is_better=True, bounds=(0.0, 1.0), inputs="qrels_run", grows=True, at="k")
@dataclass(frozen=True)
class NDCG(_DiscountMetric):
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

    With ``gains`` (trec_eval's ``ndcg`` parameters) the ideal ordering is
    trec_eval's: it sorts the query's gain table (the given grades in their
    order, then grades 0 to the query's top grade) with a comparison that
    truncates the gain difference to an integer, so gains less than 1 apart
    may stay out of order, and walks it from the end, taking the judged
    documents of each grade and stopping at the first grade whose gain is
    <= 0 (at once, when the last gain of the table is <= 0, whether or not
    a document has that grade). Gains at least 1 apart give the true ideal ordering; closer ones
    give trec_eval's (and pytrec_eval's) value, which depends on the order
    the gains are given in. Fractional grades in the qrels, or fractional
    grades in ``gains``, which trec_eval does not read, take the true ideal
    ordering.

    Examples
    --------
    >>> qrels = {"q": {"d1": 3, "d2": 2, "d3": 3, "d4": 0, "d5": 1, "d6": 2, "d7": 3, "d8": 0}}
    >>> run = {"q": {"d1": 6, "d2": 5, "d3": 4, "d4": 3, "d5": 2, "d6": 1}}
    >>> round(NDCG(k=6).score(qrels, run), 3)
    0.818
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Normalised DCG at k: DCG@k divided by the DCG@k of the ideal ordering of "
        "the query's judged documents.",
        formula="nDCG@k = DCG@k / IDCG@k ;  IDCG from all judged grades > 0, best first",
        convention=sentences(
            GAIN,
            "ndcg@k is trec_eval's ndcg_cut_k; ndcg without k is trec_eval's ndcg (the whole "
            "run against every judgment). A query with no positive grade is 0 with an "
            "UndefinedMetricWarning.",
            ORDER,
        ),
        reference=f"{TE} ndcg and ndcg_cut_k.",
    )

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """nDCG@k per query."""
        return self._query_values(judged)[0]

    def _query_values(self, judged: Judged) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        ideal = self.ideal(judged)
        return _ratio(self._dcg(judged), ideal), np.asarray(ideal <= 0)

    def _undefined_text(self, count: int, total: int) -> str:
        return (
            f"{self.name}: {count} of {total} queries have no judged document of positive "
            "grade (IDCG = 0); they count as 0, as in trec_eval."
        )

    def ideal(self, judged: Judged) -> NDArray[np.float64]:
        """IDCG@k per query, from every judged document of the query."""
        ordered = self._trec_ideal(judged)
        if ordered is None:
            q, gains, rank = judged.ideal_gains(self._gains(judged.judged_grade))
        else:
            q, gains, rank = ordered
        if self.k is not None:
            keep = rank <= self.k
            q, gains, rank = q[keep], gains[keep], rank[keep]
        weights = gains / self._discount(rank)
        ideal: NDArray[np.float64] = np.bincount(
            q, weights=weights, minlength=judged.n_queries
        ).astype(np.float64)
        return ideal

    def _trec_ideal(
        self, judged: Judged
    ) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]] | None:
        """trec_eval's ideal gains with ``gains``: query, gain and 1-based rank, or None.

        None when there are no ``gains`` or a grade is fractional (then the
        true ideal ordering applies).
        """
        if self.gains is None or any(g != int(g) or g < 0 for g, _ in self.gains):
            return None
        keep = judged.judged_grade >= 0
        grade = judged.judged_grade[keep]
        q = judged.judged_query[keep]
        if np.any(grade != np.floor(grade)):
            return None
        levels = grade.astype(np.int64)
        top = np.full(judged.n_queries, -1, dtype=np.int64)
        np.maximum.at(top, q, levels)
        row_top = top[q]
        position = np.zeros(len(levels), dtype=np.int64)
        gain = np.zeros(len(levels))
        stop = np.full(judged.n_queries, np.iinfo(np.int64).max)
        for level in np.unique(row_top).tolist():
            walk = trec_gain_order(self.gains, level)[::-1]
            at = np.zeros(level + 1, dtype=np.int64)
            worth = np.zeros(level + 1)
            for i, (g, value) in enumerate(walk):
                if 0 <= g <= level:
                    at[g], worth[g] = i, value
            rows = row_top == level
            position[rows] = at[levels[rows]]
            gain[rows] = worth[levels[rows]]
            if walk[0][1] <= 0:
                # trec_eval reads the last gain of the table before it skips grades no
                # document has: when it is <= 0, the ideal ordering is empty
                stop[top == level] = -1
        np.minimum.at(stop, q[gain <= 0], position[gain <= 0])
        taken = position < stop[q]
        q, gain, position = q[taken], gain[taken], position[taken]
        order = np.lexsort((position, q))
        q, gain = q[order], gain[order]
        starts = np.searchsorted(q, np.arange(judged.n_queries))
        rank = np.arange(len(q)) - starts[q] + 1
        return q.astype(np.int64), gain, rank.astype(np.int64)


@register("err", higher_is_better=True, bounds=(0.0, 1.0), inputs="qrels_run", grows=True, at="k")
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

    explanation: ClassVar[Explanation] = Explanation(
        definition="Expected reciprocal rank: the expected 1/rank at which a user stops, when "
        "a document of grade g satisfies them with probability (2^g - 1) / 2^g_max.",
        formula="ERR@k = sum_{r <= k} (1/r) R_r prod_{i < r} (1 - R_i),  "
        "R_i = (2^g_i - 1) / 2^g_max",
        convention=sentences(
            "g_max (max_grade) defaults to the largest grade in the qrels given; states "
            "computed with different g_max do not merge. Unjudged documents have R = 0.",
            ORDER,
        ),
        reference="Chapelle, Metzler, Zhang and Grinspan (CIKM 2009); checked by hand.",
    )

    max_grade: Annotated[float | None, Range(0, closed="neither")] = None
    _divides_by_relevant: ClassVar[bool] = False

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
