"""trec_eval's counts and its utility: num_q, num_ret, num_rel, num_rel_ret, num_nonrel_judged_ret.

These are figures about a run rather than means: trec_eval's summary line
sums them over the queries (``num_q`` counts the queries). A query of the
qrels that the run lacks, counted with ``missing='zero'`` (trec_eval
``-c``), is evaluated as a query with no document retrieved: it counts 1 for
``num_q``, its relevant documents for ``num_rel`` and its utility, and 0 for
the rest. The state keeps those values beside the absent queries
(:class:`FilledQueryValues`), so merged chunks still give the in-memory
figures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Check, Explanation, Range, register, sentences, state_field
from scorekit.errors import ConfigError, message
from scorekit.ranking._explanations import ORDER, TE
from scorekit.ranking._ranked import Judged
from scorekit.ranking._state import QueryValues, RankingMetric

__all__ = [
    "FilledQueryValues",
    "NumNonrelJudgedRet",
    "NumQ",
    "NumRel",
    "NumRelRet",
    "NumRet",
    "Utility",
    "relstrings",
]


@dataclass(frozen=True, eq=False)
class FilledQueryValues(QueryValues):
    """:class:`QueryValues` whose absent queries count a value of their own, not 0.

    ``fill`` holds, aligned with ``absent``, the value of each qrels query the
    run lacks (what trec_eval ``-c`` gives a query with no document
    retrieved); None means 0 for every one. Merging keeps the value of each
    query still absent.
    """

    fill: NDArray[np.float64] | None = state_field(
        "custom", check="finite", ndim=1, optional=True, default=None
    )

    def _check(self) -> None:
        super()._check()
        if self.fill is not None and self.fill.shape != self.absent.shape:
            raise self._invalid(
                "fill",
                "not one value per absent query",
                self.fill.size,
                f"{self.absent.size}",
            )

    def _merge_custom(self, other: QueryValues) -> dict[str, Any]:
        out = super()._merge_custom(other)
        fills = [s.fill for s in (self, other) if isinstance(s, FilledQueryValues)]
        if all(f is None for f in fills):
            out["fill"] = None
            return out
        names = np.concatenate([self.absent, other.absent])
        values = np.concatenate([_filled(self), _filled(other)])
        known, first = np.unique(names, return_index=True)
        at = np.searchsorted(known, out["absent"])
        out["fill"] = values[first][at] if len(known) else np.zeros(0)
        return out

    def table(self) -> tuple[NDArray[np.str_], NDArray[np.float64]]:
        """Every query that counts and its value (an absent query its ``fill``), sorted."""
        if self.missing != "zero" or self.fill is None:
            return super().table()
        extra = ~np.isin(self.absent, self.queries)
        queries = np.concatenate([self.queries, self.absent[extra]])
        values = np.concatenate([self.values, self.fill[extra]])
        order = np.argsort(queries, kind="stable")
        return queries[order], values[order]


def _filled(state: QueryValues) -> NDArray[np.float64]:
    fill = getattr(state, "fill", None)
    return np.zeros(len(state.absent)) if fill is None else fill


@dataclass(frozen=True)
class _Filled(RankingMetric):
    """A measure whose absent queries (``missing='zero'``) have a value of their own."""

    _divides_by_relevant: ClassVar[bool] = False

    def absent_values(self, judged: Judged) -> NDArray[np.float64]:
        """The value of each absent query of ``judged``: that of a query retrieving nothing."""
        return np.zeros(len(judged.absent))

    def empty(self) -> FilledQueryValues:
        """The state of no queries."""
        none = np.array([], dtype=str)
        return FilledQueryValues(self._setting(), self.missing, none, np.zeros(0), none, 0)

    def from_judged(self, judged: Judged) -> FilledQueryValues:
        """The state of a joined ranking, with the values of its absent queries."""
        state = super().from_judged(judged)
        fill = self.absent_values(judged) if self.missing == "zero" else None
        return FilledQueryValues(
            state.setting,
            state.missing,
            state.queries,
            state.values,
            state.absent,
            state.undefined,
            fill,
        )


@dataclass(frozen=True)
class _Count(_Filled):
    """A count per query whose summary is the sum over the queries (trec_eval's rule)."""

    def compute(self, state: QueryValues) -> float:
        """The sum over the queries that count (absent ones too, with ``missing='zero'``)."""
        self._check_some_query(state)
        _, values = state.table()
        return float(np.sum(values))

    def compute_replicates(
        self, state: QueryValues, weights: NDArray[np.int64]
    ) -> NDArray[np.float64]:
        """The sum of each replicate, query ``i`` counted ``weights[b, i]`` times.

        A replicate of no query is NaN, as the mean of one is.

        Examples
        --------
        >>> metric = NumRet()
        >>> state = metric.summarize({"a": {"x": 1}, "b": {"y": 1}},
        ...                          {"a": {"x": 2.0}, "b": {"x": 2.0, "y": 1.0}})
        >>> metric.compute_replicates(state, np.array([[1, 1], [0, 3], [0, 0]]))
        array([ 3.,  6., nan])
        """
        self._check_some_query(state)
        _, values = state.table()
        w = self._unit_weights(weights, len(values))
        out = np.full(len(w), np.nan)
        some = w.sum(axis=1) > 0
        out[some] = w[some] @ values
        return out


_SUMMED = "trec_eval's summary is the sum over the queries, not the mean."


@register("num_q", higher_is_better=None, bounds=(0.0, math.inf), inputs="qrels_run", grows=True)
@dataclass(frozen=True)
class NumQ(_Count):
    """The number of queries evaluated: 1 per query, summed (trec_eval's ``num_q``).

    Parameters
    ----------
    missing
        With ``'zero'`` the qrels queries absent from the run count too
        (trec_eval ``-c``).
    relevance_level, judged_only, max_docs
        See :class:`Precision` (they do not change the count).

    Examples
    --------
    >>> NumQ(missing="zero").score({"a": {"x": 1}, "b": {"y": 1}}, {"a": {"x": 1.0}})
    2.0
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The number of queries evaluated.",
        formula="num_q = sum_q 1",
        convention=sentences(_SUMMED, ORDER),
        reference=f"{TE} num_q.",
    )

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """1 per query."""
        return np.ones(judged.n_queries)

    def absent_values(self, judged: Judged) -> NDArray[np.float64]:
        """An absent query counts 1 too."""
        return np.ones(len(judged.absent))


@register("num_ret", higher_is_better=None, bounds=(0.0, math.inf), inputs="qrels_run", grows=True)
@dataclass(frozen=True)
class NumRet(_Count):
    """The number of documents retrieved per query, summed (trec_eval's ``num_ret``).

    Parameters
    ----------
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision`; ``judged_only`` (``-J``) and ``max_docs``
        (``-M``) count the documents that remain.

    Examples
    --------
    >>> NumRet().score({"q": {"a": 1}}, {"q": {"a": 2.0, "b": 1.0}})
    2.0
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The number of documents retrieved.",
        formula="num_ret = sum_q |retrieved_q|",
        convention=sentences(_SUMMED, ORDER),
        reference=f"{TE} num_ret.",
    )

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Retrieved documents per query."""
        return judged.per_query(np.ones(len(judged.rank), dtype=bool))


@register("num_rel", higher_is_better=None, bounds=(0.0, math.inf), inputs="qrels_run", grows=True)
@dataclass(frozen=True)
class NumRel(_Count):
    """The number of relevant documents per query in the qrels, summed (``num_rel``).

    Parameters
    ----------
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision`. With ``missing='zero'`` an absent query
        counts its relevant documents, as trec_eval ``-c`` does.

    Examples
    --------
    >>> NumRel().score({"q": {"a": 1, "b": 2, "c": 0}}, {"q": {"a": 2.0}})
    2.0
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The number of relevant documents in the qrels, retrieved or not.",
        formula="num_rel = sum_q |{judged d of q : grade(d) >= relevance_level}|",
        convention=sentences(_SUMMED, ORDER),
        reference=f"{TE} num_rel.",
    )

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Relevant judgments per query."""
        return judged.num_relevant(self.relevance_level)

    def absent_values(self, judged: Judged) -> NDArray[np.float64]:
        """An absent query counts its relevant judgments."""
        return judged.absent_relevant(self.relevance_level)


@register(
    "num_rel_ret", higher_is_better=None, bounds=(0.0, math.inf), inputs="qrels_run", grows=True
)
@dataclass(frozen=True)
class NumRelRet(_Count):
    """The number of relevant documents retrieved per query, summed (``num_rel_ret``).

    Parameters
    ----------
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision`.

    Examples
    --------
    >>> NumRelRet().score({"q": {"a": 1, "b": 2, "c": 0}}, {"q": {"a": 2.0, "c": 1.0}})
    1.0
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The number of relevant documents retrieved.",
        formula="num_rel_ret = sum_q |{retrieved d : grade(d) >= relevance_level}|",
        convention=sentences(_SUMMED, ORDER),
        reference=f"{TE} num_rel_ret.",
    )

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Relevant retrieved documents per query."""
        return judged.per_query(judged.relevant(self.relevance_level))


@register(
    "num_nonrel_judged_ret",
    higher_is_better=None,
    bounds=(0.0, math.inf),
    inputs="qrels_run",
    grows=True,
)
@dataclass(frozen=True)
class NumNonrelJudgedRet(_Count):
    """The number of judged non-relevant documents retrieved, summed (``num_nonrel_judged_ret``).

    A judged non-relevant document has a grade from 0 to below
    ``relevance_level``; unjudged documents and negative grades do not count.

    Parameters
    ----------
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision`.

    Examples
    --------
    >>> NumNonrelJudgedRet().score({"q": {"a": 1, "c": 0, "d": -1}},
    ...                            {"q": {"a": 3.0, "c": 2.0, "d": 1.0, "e": 0.5}})
    1.0
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The number of retrieved documents judged non-relevant.",
        formula="num_nonrel_judged_ret = sum_q |{retrieved d : 0 <= grade(d) < level}|",
        convention=sentences(
            _SUMMED, "Unjudged documents and negative grades do not count.", ORDER
        ),
        reference=f"{TE} num_nonrel_judged_ret.",
    )

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Judged non-relevant retrieved documents per query."""
        with np.errstate(invalid="ignore"):
            nonrel = judged.grade < self.relevance_level
        return judged.per_query(nonrel)


def _coefficients(metric: Any, value: Any) -> tuple[float, float, float, float]:
    """Four finite numbers, from a sequence or ``'a;b;c;d'`` (commas read too)."""
    expected = "four numbers such as '1;-1;0;0' (retrieved relevant, retrieved non-relevant, ...)"
    items: Any = value
    if isinstance(value, str):
        items = [part.strip() for part in value.replace(",", ";").split(";")]
    try:
        numbers = tuple(float(x) for x in items if not isinstance(x, bool))
    except (TypeError, ValueError):
        raise ConfigError(message(metric.name, "invalid coefficients", value, expected)) from None
    if len(numbers) != 4 or len(numbers) != len(items) or not all(map(math.isfinite, numbers)):
        raise ConfigError(message(metric.name, "invalid coefficients", value, expected))
    return numbers[0], numbers[1], numbers[2], numbers[3]


@register(
    "utility",
    higher_is_better=True,
    bounds=(-math.inf, math.inf),
    inputs="qrels_run",
    grows=True,
)
@dataclass(frozen=True)
class Utility(_Filled):
    """Set utility: a weighted sum of the cells of the retrieved/relevant table (``utility``).

    .. math:: u = c_1 a + c_2 b + c_3 c + c_4 d

    where, of the query's documents, :math:`a` are retrieved and relevant,
    :math:`b` retrieved and not relevant, :math:`c` relevant and not
    retrieved, and :math:`d = N - a - b - c` neither (N the collection size).

    Parameters
    ----------
    coefficients : sequence of 4 numbers or str, default (1, -1, 0, 0)
        :math:`c_1` to :math:`c_4`, written ``'2;-1;0;0'`` in a metric string
        (trec_eval's ``utility.2,-1,0,0``).
    num_docs : int, default 0
        N, the number of documents in the collection (trec_eval ``-N``),
        which only :math:`c_4` reads.
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision`.

    Notes
    -----
    The value over queries is the mean, as trec_eval's summary gives it. With
    ``missing='zero'`` an absent query retrieves nothing:
    :math:`c_3 R + c_4 (N - R)`.

    Examples
    --------
    >>> qrels = {"q": {"a": 1, "b": 0, "c": 1}}
    >>> run = {"q": {"a": 3.0, "b": 2.0, "x": 1.0}}
    >>> Utility().score(qrels, run)
    -1.0
    >>> Utility(coefficients="2;-1;-1;0").score(qrels, run)
    -1.0
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Set utility: each retrieved relevant document is worth c1, each retrieved "
        "non-relevant one c2, each relevant one missed c3, each other document c4.",
        formula="u = c1 a + c2 b + c3 c + c4 d  (a: retrieved relevant, b: retrieved "
        "non-relevant, c: relevant missed, d: the rest of the N documents)",
        convention=sentences(
            "Coefficients default to 1, -1, 0, 0; N (num_docs) defaults to 0, as trec_eval's -N.",
            ORDER,
        ),
        reference=f"{TE} utility.",
    )

    coefficients: Annotated[tuple[float, float, float, float], Check(_coefficients)] = (
        1.0,
        -1.0,
        0.0,
        0.0,
    )
    num_docs: Annotated[int, Range(0)] = 0

    def _extra_setting(self) -> str:
        extra = ", coefficients=" + ";".join(f"{c!r}" for c in self.coefficients)
        return extra + (f", num_docs={self.num_docs}" if self.num_docs else "")

    def _utility(
        self, ret: NDArray[np.float64], rel: NDArray[np.float64], rel_ret: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        c1, c2, c3, c4 = self.coefficients
        out: NDArray[np.float64] = (
            c1 * rel_ret
            + c2 * (ret - rel_ret)
            + c3 * (rel - rel_ret)
            + c4 * (self.num_docs + rel_ret - ret - rel)
        )
        return out

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """The utility per query."""
        level = self.relevance_level
        ret = judged.per_query(np.ones(len(judged.rank), dtype=bool))
        rel_ret = judged.per_query(judged.relevant(level))
        return self._utility(ret, judged.num_relevant(level), rel_ret)

    def absent_values(self, judged: Judged) -> NDArray[np.float64]:
        """The utility of retrieving nothing: c3 R + c4 (N - R)."""
        none = np.zeros(len(judged.absent))
        return self._utility(none, judged.absent_relevant(self.relevance_level), none)


def relstrings(
    qrels: Any,
    run: Any,
    length: int = 10,
    *,
    judged_only: bool = False,
    max_docs: int | None = None,
) -> dict[str, str]:
    """trec_eval's ``relstring``: the grades of each query's first documents, one character each.

    A grade from 0 to 9 is its digit, a greater one ``>``; a document the
    qrels do not list is ``-``, one they list with a negative grade (pooled,
    not judged) ``.``.

    Parameters
    ----------
    qrels, run
        As :func:`~scorekit.ranking.evaluate` takes them.
    length : int, default 10
        How many documents of each query (trec_eval's ``relstring.N``).
    judged_only, max_docs
        trec_eval's ``-J`` and ``-M``, as for the measures.

    Returns
    -------
    dict
        ``{query: string}`` for the queries of the run that have judgments.

    Examples
    --------
    >>> relstrings({"q": {"a": 2, "b": -1, "c": 12}}, {"q": {"a": 4, "x": 3, "b": 2, "c": 1}})
    {'q': '2-.>'}
    """
    from scorekit.ranking._data import as_qrels, as_run
    from scorekit.ranking._ranked import judge

    if isinstance(length, bool) or not isinstance(length, int | np.integer) or length < 0:
        raise ConfigError(message("relstring", "invalid length", length, "an integer >= 0"))
    judged = NumRet(judged_only=judged_only, max_docs=max_docs).view(
        judge(as_qrels(qrels), as_run(run))
    )
    keep = judged.rank <= length
    grade = judged.grade[keep]
    known = ~np.isnan(grade)
    digits = np.where(known, np.minimum(np.nan_to_num(grade), 10), 0).astype(np.int64)
    table = np.array([*"0123456789", ">"])
    chars = np.where(known, table[np.clip(digits, 0, 10)], np.where(judged.listed[keep], ".", "-"))
    bounds = np.searchsorted(judged.row_query[keep], np.arange(judged.n_queries + 1))
    text = "".join(chars.tolist())
    return {
        q: text[lo:hi]
        for q, lo, hi in zip(judged.queries.tolist(), bounds[:-1], bounds[1:], strict=True)
    }
