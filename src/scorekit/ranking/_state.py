"""Ranking metric state and base: per-query values as the state, their mean as the value.

Every metric computes one value per evaluated query from a :class:`Judged` ranking
(see :mod:`scorekit.ranking._ranked`). The state is those values with their query
ids; states of disjoint query sets merge by concatenation, so a run streamed in
query-sorted chunks gives the in-memory result. Definitions follow trec_eval
(through pytrec_eval) wherever trec_eval has the measure. The metrics themselves
are in :mod:`scorekit.ranking._binary` (binary relevance) and
:mod:`scorekit.ranking._graded` (graded relevance); this module holds their
state, their base class and the helpers they share.
"""

from __future__ import annotations

import abc
import re
import warnings
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Check, Flag, Metric, OneOf, Range, State, get, state_field
from scorekit.errors import (
    ConfigError,
    InputError,
    StateMismatchError,
    UndefinedMetricWarning,
    message,
    raw,
)
from scorekit.ranking._data import Qrels, as_qrels, as_run
from scorekit.ranking._ranked import Judged, judge

__all__ = ["GAINS", "MISSING", "QueryValues", "RankingMetric"]

_SETTING_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""The registered name of the measure that opens a state's ``setting``."""
_BOUND_SLACK = 1e-9
"""How far past its bounds a query's value may lie (the rounding of its computation)."""

Missing = Literal["skip", "zero"]
MISSING: tuple[Missing, ...] = ("skip", "zero")
"""The ``missing`` policies: qrels queries absent from the run are skipped or count as 0."""
GAINS = ("linear", "exp")
"""The ``gain`` of the graded metrics: a document of grade g gains g, or 2^g - 1."""


@dataclass(frozen=True, eq=False)
class QueryValues(State):
    """One value per query, with the settings that produced them.

    ``queries`` and ``values`` are aligned; ``absent`` lists the qrels queries
    that had no document in the run (they count as 0 when ``missing`` is
    ``"zero"``); ``undefined`` counts the queries whose value is undefined and
    counted as 0 (no relevant document, say), which the metric warns about when
    computing. Merging concatenates disjoint query sets, adds ``undefined`` and
    unites ``absent``, less the queries some state evaluated (a chunk of a run
    lacks the queries of other chunks), so merged chunks give the in-memory
    state; the settings must agree unless one state holds no query at all.
    """

    setting: str = state_field("custom", check="text")
    missing: str = state_field("same", check="text", allowed=MISSING)
    queries: NDArray[np.str_] = state_field("custom", check="labels")
    values: NDArray[np.float64] = state_field("custom", check="finite", ndim=1)
    absent: NDArray[np.str_] = state_field("custom", check="labels")
    undefined: int = state_field("sum", check="count", default=0)

    def _check(self) -> None:
        if self.values.shape != self.queries.shape:
            raise self._invalid(
                "values",
                "not one value per query",
                raw(f"{self.values.size} values for {self.queries.size} queries"),
                f"{self.queries.size}",
            )
        if self.undefined > self.queries.size:
            raise self._invalid(
                "undefined",
                "more undefined queries than queries",
                self.undefined,
                f"at most {self.queries.size}",
            )
        self._check_bounds()

    def _check_bounds(self) -> None:
        """Each query's value lies in the bounds registered for the measure of ``setting``."""
        name = _SETTING_NAME.match(self.setting)
        if name is None or not self.values.size:
            return
        try:
            low, high = get(name.group(0)).bounds
        except ConfigError:
            return
        outside = np.flatnonzero(
            (self.values < low - _slack(low)) | (self.values > high + _slack(high))
        )
        if len(outside):
            i = outside[0]
            raise self._invalid(
                "values",
                f"a query's {name.group(0)} outside the measure's bounds",
                raw(f"{float(self.values[i])!r} for query {self.queries[i].item()!r}"),
                f"values in [{low:g}, {high:g}]",
            )

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
        found = _interleave(self.queries, other.queries)
        if found is None:
            return self._merge_unsorted(other, setting)
        where, shared = found
        if shared is not None:
            raise self._shared(shared)
        queries = _place(where, self.queries, other.queries)
        return {
            "setting": setting,
            "queries": queries,
            "values": _place(where, self.values, other.values),
            "absent": _absent(self.absent, other.absent, queries),
        }

    def _merge_unsorted(self, other: QueryValues, setting: str) -> dict[str, Any]:
        """The merge of states whose queries are not each in increasing order."""
        both = np.intersect1d(self.queries, other.queries)
        if len(both):
            raise self._shared(both[0].item())
        queries = np.concatenate([self.queries, other.queries])
        values = np.concatenate([self.values, other.values])
        order = np.argsort(queries, kind="stable")
        return {
            "setting": setting,
            "queries": queries[order],
            "values": values[order],
            "absent": np.setdiff1d(np.union1d(self.absent, other.absent), queries),
        }

    def _shared(self, query: str) -> InputError:
        return InputError(
            message(
                self.setting,
                "the same query is in both states",
                query,
                "states of disjoint query sets (chunks split between queries)",
            )
        )

    def table(self) -> tuple[NDArray[np.str_], NDArray[np.float64]]:
        """Every query that counts and its value, in sorted query order."""
        queries, values = self.queries, self.values
        if self.missing == "zero" and (len(self.absent) or not _increasing(queries)):
            extra = np.setdiff1d(self.absent, queries)
            queries = np.concatenate([queries, extra])
            values = np.concatenate([values, np.zeros(len(extra))])
            order = np.argsort(queries, kind="stable")
            queries, values = queries[order], values[order]
        return queries, values


def _increasing(a: NDArray[Any]) -> bool:
    """Whether the 1-D array ``a`` is strictly increasing."""
    return bool(np.all(a[1:] > a[:-1]))


def _interleave(
    a: NDArray[Any], b: NDArray[Any]
) -> tuple[tuple[NDArray[np.intp], NDArray[np.intp]], str | None] | None:
    """Where the items of two increasing arrays go in their sorted union, and the
    smallest item they share (None when none); None when one is not increasing.

    Without a shared item this is the order a stable sort of the two arrays
    together gives, found by one binary search instead of a sort.
    """
    if not (_increasing(a) and _increasing(b)):
        return None
    into_a, same = _find(a, b)
    if same.any():
        return (into_a, into_a), str(b[np.argmax(same)])
    return _positions(len(a), into_a), None


def _find(a: NDArray[Any], b: NDArray[Any]) -> tuple[NDArray[np.intp], NDArray[np.bool_]]:
    """Where each item of ``b`` would go in the increasing ``a``, and whether it is there."""
    into_a = np.searchsorted(a, b)
    inside = into_a < len(a)
    same = np.zeros(len(b), dtype=bool)
    same[inside] = a[into_a[inside]] == b[inside]
    return into_a, same


def _positions(n: int, into_a: NDArray[np.intp]) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """The places in the union of ``n`` items ``a`` and items ``b``, none of them equal to
    an item of ``a``, that go before ``a[into_a]``: ``a``'s and ``b``'s."""
    before = np.cumsum(np.bincount(into_a, minlength=n + 1))[:n]
    return np.arange(n) + before, into_a + np.arange(len(into_a))


def _place(
    where: tuple[NDArray[np.intp], NDArray[np.intp]], a: NDArray[Any], b: NDArray[Any]
) -> NDArray[Any]:
    """``a`` and ``b`` put together at the positions :func:`_interleave` found."""
    out = np.empty(len(a) + len(b), dtype=np.result_type(a, b))
    out[where[0]] = a
    out[where[1]] = b
    return out


def _absent(a: NDArray[Any], b: NDArray[Any], queries: NDArray[Any]) -> NDArray[Any]:
    """The union of two states' absent queries less the ``queries`` evaluated (sorted).

    For increasing ``a`` and ``b`` (a state's absent queries as the states are
    made) the union is put together by binary searches, as ``np.union1d`` would
    sort it; ``queries`` is increasing.
    """
    if not (_increasing(a) and _increasing(b)):
        return np.setdiff1d(np.union1d(a, b), queries)
    into_a, same = _find(a, b)
    new = ~same
    union = _place(_positions(len(a), into_a[new]), a, b[new])
    at, evaluated = _find(union, queries)
    keep = np.ones(len(union), dtype=bool)
    keep[at[evaluated]] = False
    kept: NDArray[Any] = union[keep]
    return kept


def _slack(bound: float) -> float:
    """How far past ``bound`` a value may lie: its rounding."""
    return _BOUND_SLACK * max(1.0, abs(bound)) if np.isfinite(bound) else 0.0


def _k_option(metric: Any, k: Any) -> int | None:
    """The cutoff k: an integer >= 1, or None for a metric that does not need one."""
    name = metric.name
    if k is None:
        if metric._needs_k:
            raise ConfigError(message(name, "needs a cutoff", None, f"k >= 1, e.g. '{name}@10'"))
        return None
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise ConfigError(message(name, "invalid cutoff k", k, "an integer >= 1"))
    return int(k)


@dataclass(frozen=True)
class RankingMetric(Metric[QueryValues]):
    """Shared options: the cutoff ``k``, ``relevance_level``, the ``missing`` policy,
    ``judged_only`` (trec_eval ``-J``) and ``max_docs`` (trec_eval ``-M``)."""

    k: Annotated[int | None, Check(_k_option)] = None
    relevance_level: Annotated[float, Range(0, closed="neither", convert=float)] = 1
    missing: Annotated[Missing, OneOf(MISSING)] = "skip"
    judged_only: Annotated[bool, Flag(problem="invalid judged_only", expected="a bool")] = False
    max_docs: Annotated[int | None, Range(1)] = None

    _needs_k: ClassVar[bool] = False
    _divides_by_relevant: ClassVar[bool] = True
    _listed_rows_suffice: ClassVar[bool] = False
    """Whether the values depend only on the ranks of the listed documents and the judgments."""

    def _setting(self) -> str:
        at = "" if self.k is None else f"@{self.k}"
        extra = self._extra_setting()
        if self.judged_only:
            extra += ", judged_only=True"
        if self.max_docs is not None:
            extra += f", max_docs={self.max_docs}"
        return f"{self.name}{at}(relevance_level={self.relevance_level!r}{extra})"

    def view(self, judged: Judged) -> Judged:
        """The ranking this metric reads: unjudged documents dropped with ``judged_only``
        (trec_eval ``-J``; negative grades count as unjudged), then each query cut
        to its first ``max_docs`` documents (trec_eval ``-M``)."""
        if self.judged_only:
            judged = judged.keep(~np.isnan(judged.grade))
        if self.max_docs is not None:
            judged = judged.keep(judged.rank <= self.max_docs)
        return judged

    def _extra_setting(self) -> str:
        return ""

    def reads_listed_rows(self) -> bool:
        """Whether the values can be computed from the listed documents' rows alone.

        True for measures that read only the ranks and grades of the documents
        the qrels list, and the judgments (not the unjudged documents, nor the
        number retrieved), without ``judged_only`` or ``max_docs`` (which
        rank the documents again). Such a metric gives the same values from
        :func:`~scorekit.ranking._listed.judge_listed`, which ranks only
        those rows.

        Examples
        --------
        >>> from scorekit.ranking import MAP, RBP
        >>> MAP().reads_listed_rows(), MAP(max_docs=5).reads_listed_rows()
        (True, False)
        >>> RBP().reads_listed_rows()
        False
        """
        return self._listed_rows_suffice and not self.judged_only and self.max_docs is None

    @abc.abstractmethod
    def values(self, judged: Judged) -> NDArray[np.float64]:
        """One value per evaluated query of ``judged``."""

    def empty(self) -> QueryValues:
        """The state of no queries."""
        none = np.array([], dtype=str)
        return QueryValues(self._setting(), self.missing, none, np.zeros(0), none, 0)

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
        if not judged.complete and not self.reads_listed_rows():
            raise TypeError(f"{self.name} reads the whole ranking, not its listed rows alone")
        values, undefined = self._query_values(self.view(judged))
        return QueryValues(
            self._setting(),
            self.missing,
            judged.queries,
            values.astype(np.float64),
            judged.absent,
            int(np.count_nonzero(undefined)),
        )

    def _query_values(self, judged: Judged) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """Per query: the value, and whether it is undefined (and counted as 0)."""
        return self.values(judged), self._undefined(judged)

    def _undefined(self, judged: Judged) -> NDArray[np.bool_]:
        """Per query: is the value undefined (and counted as 0)?

        For a metric that divides by the relevant documents, it is for a query
        without any.
        """
        if not self._divides_by_relevant:
            return np.zeros(judged.n_queries, dtype=bool)
        return np.asarray(judged.num_relevant(self.relevance_level) == 0)

    def _undefined_text(self, count: int, total: int) -> str:
        """The warning about ``count`` of ``total`` queries whose value is undefined."""
        return (
            f"{self.name}: {count} of {total} queries have no relevant document "
            f"(grade >= {self.relevance_level:g}); they count as 0, as in trec_eval."
        )

    def compute(self, state: QueryValues) -> float:
        """The mean over the queries (with ``missing='zero'``, absent ones count 0).

        Warns (:class:`~scorekit.errors.UndefinedMetricWarning`) when some
        queries have an undefined value, counted as 0.
        """
        self._check_some_query(state)
        if state.undefined:
            warnings.warn(
                self._undefined_text(state.undefined, len(state.queries)),
                UndefinedMetricWarning,
                stacklevel=2,
            )
        _, values = state.table()
        return float(np.mean(values))

    def _check_some_query(self, state: QueryValues) -> None:
        """Raise when no query counts: none evaluated and (unless ``missing='zero'``) none absent.

        With ``missing='zero'``, qrels queries absent from the run count as 0
        even when the run shares no query with the qrels (trec_eval ``-c``).
        """
        if len(state.queries) == 0 and not (self.missing == "zero" and len(state.absent)):
            raise InputError(
                message(
                    self.name,
                    "no query to evaluate",
                    raw(f"{len(state.absent)} qrels queries and none of them in the run"),
                    "a run that shares queries with the qrels (or missing='zero')",
                )
            )

    # bootstrap: each query is a unit -------------------------------------------

    unit: ClassVar[str] = "query"
    replicates_from_state: ClassVar[bool] = True

    def count_units(self, qrels: Any, run: Any) -> int:
        """The number of queries the mean of one batch runs over (see :meth:`unit_keys`)."""
        return len(self.unit_keys(self.summarize(qrels, run)))

    def unit_keys(self, state: QueryValues) -> NDArray[np.str_]:
        """The query ids the mean runs over, in the order of :meth:`compute_replicates`.

        These are the evaluated queries (those of the run with judgments),
        including those whose value is undefined and counted as 0; with
        ``missing='zero'`` also the qrels queries absent from the run, which
        count as 0. With ``missing='skip'`` absent queries are no units: they
        take no part in the mean. Sorted, as :meth:`QueryValues.table`.

        Examples
        --------
        >>> from scorekit.ranking import MAP
        >>> metric = MAP(missing="zero")
        >>> state = metric.summarize({"a": {"d": 1}, "b": {"d": 1}}, {"a": {"d": 1.0}})
        >>> metric.unit_keys(state).tolist()
        ['a', 'b']
        """
        return state.table()[0]

    def compute_replicates(
        self, state: QueryValues, weights: NDArray[np.int64]
    ) -> NDArray[np.float64]:
        """The value of each replicate: the mean with query ``i`` counted ``weights[b, i]`` times.

        .. math:: v_b = \\sum_i w_{bi} x_i / \\sum_i w_{bi}

        computed for every replicate at once (one matrix product). The
        replicate is exactly the metric on a run and qrels in which each
        query appears ``weights[b, i]`` times under distinct ids. A replicate
        whose weights are all 0 holds no query: its value is NaN (the metric
        of no query is undefined; :meth:`compute` raises for it). Replicates
        do not warn about undefined queries; :meth:`compute` on the state
        does.

        Parameters
        ----------
        state : QueryValues
            The state of the whole data.
        weights : ndarray of int, shape (B, n)
            Non-negative counts, one column per unit of :meth:`unit_keys`.

        Returns
        -------
        ndarray of float, shape (B,)

        Raises
        ------
        InputError
            The state holds no query (as :meth:`compute`).
        ConfigError
            ``weights`` is not a 2-d array of one column per unit, or holds a
            negative or non-integer count.

        Examples
        --------
        >>> import numpy as np
        >>> from scorekit.ranking import MRR
        >>> metric = MRR()
        >>> state = metric.summarize(
        ...     {"a": {"x": 1}, "b": {"y": 1}}, {"a": {"x": 2.0}, "b": {"x": 2.0, "y": 1.0}}
        ... )
        >>> metric.compute_replicates(state, np.array([[1, 1], [0, 3], [0, 0]]))
        array([0.75, 0.5 ,  nan])
        """
        self._check_some_query(state)
        _, values = state.table()
        w = self._unit_weights(weights, len(values))
        total = w.sum(axis=1)
        out = np.full(len(w), np.nan)
        some = total > 0
        out[some] = (w[some] @ values) / total[some]
        return out

    def _unit_weights(self, weights: Any, n: int) -> NDArray[np.float64]:
        w = np.asarray(weights)
        if w.ndim != 2 or w.shape[1] != n:
            raise ConfigError(
                self._error(
                    "replicate weights are not one column per query",
                    raw(f"shape {w.shape}"),
                    f"(replicates, {n})",
                )
            )
        if w.dtype.kind not in "iub" and not (w.dtype.kind == "f" and np.all(w == np.round(w))):
            raise ConfigError(self._error("replicate weights are not counts", w.dtype, "integers"))
        if w.size and w.min() < 0:
            raise ConfigError(
                self._error("negative replicate weight", w.min().item(), "counts >= 0")
            )
        return w.astype(np.float64)

    def summarize_replicates(
        self, *batch: Any, weights: NDArray[np.int64], **kwargs: Any
    ) -> list[QueryValues]:
        """Not available: replicates of a ranking metric come from its state.

        The state keeps one value per query, so a replicate is a weighted mean
        of those values: use :meth:`unit_keys` and :meth:`compute_replicates`
        on the state of the data (:attr:`replicates_from_state` is True).

        Raises
        ------
        ConfigError
            Always, saying so.
        """
        raise ConfigError(
            self._error(
                "replicates come from the state, not from summarize_replicates",
                raw("summarize_replicates"),
                "unit_keys(state) and compute_replicates(state, weights)",
            )
        )

    def _cut(self, judged: Judged) -> NDArray[np.bool_]:
        if self.k is None:
            return np.ones(len(judged.rank), dtype=bool)
        return np.asarray(judged.rank <= self.k)

    def _hits(self, judged: Judged) -> NDArray[np.float64]:
        """Per query: the relevant documents within the cutoff."""
        return judged.per_query(self._cut(judged) & judged.relevant(self.relevance_level))


def _ratio(num: NDArray[np.float64], den: NDArray[np.float64]) -> NDArray[np.float64]:
    out = np.zeros_like(num)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _gain(grade: NDArray[np.float64], kind: str) -> NDArray[np.float64]:
    g = np.where(np.isnan(grade) | (grade <= 0), 0.0, grade)
    return np.exp2(g) - 1.0 if kind == "exp" else g


def _running_count(judged: Judged, mask: NDArray[np.bool_]) -> NDArray[np.float64]:
    """Per ranked row: how many rows of its query up to and including it are in ``mask``."""
    total = np.cumsum(mask, dtype=np.int64)
    before = total - mask
    q = judged.row_query
    first = np.flatnonzero(np.concatenate([[True], q[1:] != q[:-1]])) if len(q) else q
    offset = np.repeat(before[first], np.diff(np.concatenate([first, [len(mask)]])))
    return (total - offset).astype(np.float64)
