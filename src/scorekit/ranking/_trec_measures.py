"""trec_eval's measures at a recall level or a cutoff: iprec_at_recall, 11pt_avg, Rprec_mult,
relative_P and unj.

Each as trec_eval's ``m_*.c`` defines it (through pytrec_eval); each keeps one
value per query and averages them, as trec_eval's summary does. The helpers
here (running sums and maxima within each query) serve the other trec_eval
modules too.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Check, Explanation, OneOf, Range, register, sentences
from scorekit.errors import ConfigError, message
from scorekit.ranking._explanations import ORDER, TE
from scorekit.ranking._ranked import Judged
from scorekit.ranking._state import RankingMetric, _ratio, _running_count

__all__ = [
    "ELEVEN_POINTS",
    "ElevenPointAverage",
    "IPrecAtRecall",
    "RPrecMult",
    "RelativeP",
    "Unjudged",
]

ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
"""trec_eval's recall levels of ``iprec_at_recall`` and ``11pt_avg``."""

_CELLS = 1 << 22


def _retrieved(judged: Judged) -> NDArray[np.float64]:
    """Per query: the documents retrieved."""
    return np.bincount(judged.row_query, minlength=judged.n_queries).astype(np.float64)


def _starts(group: NDArray[np.int64], n: int) -> NDArray[np.int64]:
    """Where each of the ``n`` groups starts in ``group`` (sorted group indices)."""
    out: NDArray[np.int64] = np.searchsorted(group, np.arange(n + 1)).astype(np.int64)
    return out


def _cumsum_by(values: NDArray[np.float64], group: NDArray[np.int64]) -> NDArray[np.float64]:
    """Running sums of ``values`` within each run of equal ``group`` (sorted), added in order.

    Each group's sums are those of a loop over its values (a row of a table
    cumulated along its axis), so they do not depend on the other groups.
    """
    out = np.zeros(len(values))
    if len(values) == 0:
        return out
    n = int(group[-1]) + 1
    starts = _starts(group, n)
    position = np.arange(len(values)) - starts[group]
    depth = int(position.max()) + 1
    block = max(1, _CELLS // depth)
    bounds = np.searchsorted(group, np.arange(0, n + block, block))
    for lo, hi in itertools.pairwise(bounds.tolist()):
        if lo == hi:
            continue
        local = group[lo:hi] - group[lo]
        table = np.zeros((int(local[-1]) + 1, depth))
        table[local, position[lo:hi]] = values[lo:hi]
        out[lo:hi] = np.cumsum(table, axis=1)[local, position[lo:hi]]
    return out


def _suffix_max_by(values: NDArray[np.float64], group: NDArray[np.int64]) -> NDArray[np.float64]:
    """The largest of ``values`` from each element to the end of its run of equal ``group``."""
    out: NDArray[np.float64] = values.copy()
    shift = 1
    while shift < len(out):
        same = group[shift:] == group[:-shift]
        np.maximum(out[:-shift], np.where(same, out[shift:], -np.inf), out=out[:-shift])
        shift *= 2
    return out


def _recall_levels(metric: Any, value: Any) -> tuple[float, ...]:
    """Recall levels in [0, 1], sorted: a sequence or ``'0.25;0.5;0.75'`` (commas read too)."""
    expected = "recall levels in [0, 1] such as '0.25;0.5;0.75'"
    items: Any = value
    if isinstance(value, str):
        items = [part.strip() for part in value.replace(",", ";").split(";")]
    elif isinstance(value, int | float):
        items = [value]
    try:
        levels = [float(x) for x in items if not isinstance(x, bool)]
    except (TypeError, ValueError):
        raise ConfigError(message(metric.name, "invalid recall levels", value, expected)) from None
    if not levels or len(levels) != len(items) or not all(0 <= x <= 1 for x in levels):
        raise ConfigError(message(metric.name, "invalid recall levels", value, expected))
    return tuple(sorted(set(levels)))


ROUNDINGS = ("nearest", "trec_eval_9")
"""How a recall level times R becomes a number of relevant documents: the nearest integer,
halves up (trec_eval 9.0.8 and later), or floor(x R + 0.9) (trec_eval 9.0.7 and earlier,
which pytrec_eval embeds)."""


def _relevant_count(x: NDArray[np.float64], rounding: str) -> NDArray[np.float64]:
    """The number of relevant documents of ``x`` = level times R (>= 0), as ``rounding`` says."""
    if rounding == "trec_eval_9":
        out: NDArray[np.float64] = np.trunc(x + 0.9)
        return out
    whole = np.floor(x)
    out = whole + (x - whole >= 0.5)
    return out


def _interpolated(
    judged: Judged, level: float, recalls: tuple[float, ...], rounding: str = "nearest"
) -> NDArray[np.float64]:
    """trec_eval's interpolated precision at each recall level: shape (queries, levels).

    At the level's number of relevant documents c = round(level R), the
    largest precision at or after the rank of the c-th relevant document
    retrieved (the first one for c = 0); 0 when fewer than c are retrieved.
    ``rounding='trec_eval_9'`` takes c = floor(level R + 0.9) instead.
    """
    n = judged.n_queries
    rel = judged.relevant(level)
    where = np.flatnonzero(rel)
    query = judged.row_query[where]
    precision = _running_count(judged, rel)[where] / judged.rank[where]
    best = _suffix_max_by(precision, query)
    starts = _starts(query, n)
    found = np.diff(starts)
    r = judged.num_relevant(level)
    out = np.zeros((n, len(recalls)))
    for j, share in enumerate(recalls):
        c = _relevant_count(share * r, rounding)
        take = (found > 0) & (c <= found)
        at = starts[:-1][take] + np.maximum(c[take], 1).astype(np.int64) - 1
        out[take, j] = best[at]
    return out


@dataclass(frozen=True)
class _Trec(RankingMetric):
    """A trec_eval measure whose query without a relevant document is 0 without a warning."""

    _divides_by_relevant: ClassVar[bool] = False


@register(
    "iprec_at_recall", higher_is_better=True, bounds=(0.0, 1.0), inputs="qrels_run", grows=True
)
@dataclass(frozen=True)
class IPrecAtRecall(_Trec):
    """Interpolated precision at a recall level, as trec_eval's ``iprec_at_recall``.

    .. math:: \\text{iprec}(x) = \\max_{i \\ge r_c} P@i, \\quad c = \\text{round}(x R)

    where :math:`r_c` is the rank of the c-th relevant document retrieved.

    Parameters
    ----------
    recall : float, default 0
        The recall level x in [0, 1] (trec_eval's levels are 0, 0.1, ..., 1);
        at 0, the best precision at any rank with a relevant document.
    rounding : {'nearest', 'trec_eval_9'}, default 'nearest'
        How x R becomes the count c: the nearest integer, halves up
        (trec_eval 9.0.8 and later), or floor(x R + 0.9) (trec_eval 9.0.7
        and earlier, and pytrec_eval, which embeds it).
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision`.

    Notes
    -----
    c = 0 takes the first relevant document. 0 when fewer than
    c relevant documents are retrieved, and for a query without any. Written
    ``iprec_at_recall:recall=0.1`` or trec_eval's ``iprec_at_recall_0.10``.

    Examples
    --------
    >>> qrels = {"q": {"a": 1, "b": 0, "c": 1, "d": 1}}
    >>> run = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "x": 1.0}}
    >>> IPrecAtRecall(recall=0.5).score(qrels, run)
    0.666...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Interpolated precision at a recall level: the best precision at or after "
        "the rank where that share of the relevant documents has been retrieved.",
        formula="iprec(x) = max_{i >= r_c} P@i,  c = round(x R), r_c the rank of the c-th "
        "relevant retrieved",
        convention=sentences(
            "c rounds halves up (rounding='trec_eval_9': floor(x R + 0.9)); c = 0 takes the "
            "first relevant document; 0 when fewer than c relevant documents are retrieved or "
            "the query has none.",
            ORDER,
        ),
        reference=f"{TE} iprec_at_recall.",
    )

    recall: Annotated[float, Range(0, 1, convert=float)] = 0.0
    rounding: Annotated[Literal["nearest", "trec_eval_9"], OneOf(ROUNDINGS)] = "nearest"

    def _extra_setting(self) -> str:
        extra = f", recall={self.recall!r}"
        return extra if self.rounding == "nearest" else extra + f", rounding={self.rounding!r}"

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Interpolated precision per query."""
        return _interpolated(judged, self.relevance_level, (self.recall,), self.rounding)[:, 0]


@register("eleven_pt_avg", higher_is_better=True, bounds=(0.0, 1.0), inputs="qrels_run", grows=True)
@dataclass(frozen=True)
class ElevenPointAverage(_Trec):
    """Interpolated precision averaged over recall levels, as trec_eval's ``11pt_avg``.

    .. math:: \\frac{1}{|X|} \\sum_{x \\in X} \\text{iprec}(x)

    Parameters
    ----------
    recalls : sequence of float or str, default 0, 0.1, ..., 1
        The recall levels X (``'0.25;0.5;0.75'`` in a metric string, trec_eval's
        ``11pt_avg.0.25,0.5,0.75``).
    rounding : {'nearest', 'trec_eval_9'}, default 'nearest'
        See :class:`IPrecAtRecall`.
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision`.

    Notes
    -----
    Each level as :class:`IPrecAtRecall`. Written ``eleven_pt_avg`` or
    trec_eval's ``11pt_avg``.

    Examples
    --------
    >>> qrels = {"q": {"a": 1, "b": 0, "c": 1}}
    >>> run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    >>> round(ElevenPointAverage().score(qrels, run), 6)
    0.909091
    >>> ElevenPointAverage(recalls="0.5;1").score(qrels, run)
    0.833...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Interpolated precision averaged over the recall levels 0, 0.1, ..., 1 (or "
        "those given): an estimate of the area under the recall-precision curve.",
        formula="11pt_avg = mean_{x in X} iprec(x)",
        convention=sentences("Each level as iprec_at_recall.", ORDER),
        reference=f"{TE} 11pt_avg.",
    )

    recalls: Annotated[tuple[float, ...], Check(_recall_levels)] = ELEVEN_POINTS
    rounding: Annotated[Literal["nearest", "trec_eval_9"], OneOf(ROUNDINGS)] = "nearest"

    def _extra_setting(self) -> str:
        extra = ""
        if self.recalls != ELEVEN_POINTS:
            extra += ", recalls=" + ";".join(f"{x!r}" for x in self.recalls)
        return extra if self.rounding == "nearest" else extra + f", rounding={self.rounding!r}"

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """The mean interpolated precision per query."""
        table = _interpolated(judged, self.relevance_level, self.recalls, self.rounding)
        total = np.zeros(judged.n_queries)
        for j in range(len(self.recalls) - 1, -1, -1):
            total += table[:, j]
        out: NDArray[np.float64] = total / len(self.recalls)
        return out


@register("rprec_mult", higher_is_better=True, bounds=(0.0, 1.0), inputs="qrels_run", grows=True)
@dataclass(frozen=True)
class RPrecMult(_Trec):
    """Precision at a multiple of R, as trec_eval's ``Rprec_mult``.

    .. math:: P@c, \\quad c = \\lfloor m R + 0.9 \\rfloor

    Parameters
    ----------
    mult : float, default 1
        The multiple m of the number of relevant documents R (trec_eval's
        levels are 0.2, 0.4, ..., 2); m = 1 is R-precision.
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision`.

    Notes
    -----
    Ranks past the end of the run count as non-relevant; 0 when c = 0.
    Written ``rprec_mult:mult=0.2`` or trec_eval's ``Rprec_mult_0.20``.

    Examples
    --------
    >>> qrels = {"q": {"a": 1, "b": 0, "c": 1}}
    >>> run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    >>> RPrecMult(mult=0.5).score(qrels, run)
    1.0
    >>> RPrecMult(mult=2.0).score(qrels, run)
    0.5
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Precision at a multiple of the number of relevant documents R.",
        formula="P@c,  c = floor(m R + 0.9)",
        convention=sentences(
            "Ranks past the end of the run count as non-relevant; 0 when c = 0.", ORDER
        ),
        reference=f"{TE} Rprec_mult.",
    )

    mult: Annotated[float, Range(0, closed="neither", convert=float)] = 1.0

    def _extra_setting(self) -> str:
        return f", mult={self.mult!r}"

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """P at the multiple of R, per query."""
        level = self.relevance_level
        cut = np.trunc(self.mult * judged.num_relevant(level) + 0.9)
        top = judged.rank <= cut[judged.row_query]
        return _ratio(judged.per_query(top & judged.relevant(level)), cut)


@register(
    "relative_p",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="qrels_run",
    grows=True,
    at="k",
)
@dataclass(frozen=True)
class RelativeP(_Trec):
    """Relative precision at k: P@k over the best P@k possible, as trec_eval's ``relative_P``.

    .. math:: |\\{\\text{relevant in top } k\\}| / \\min(k, R)

    Parameters
    ----------
    k : int, default 10
        The cutoff.
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision`.

    Notes
    -----
    Precision at k up to R, recall after it; 0 for a query without a
    relevant document.

    Examples
    --------
    >>> qrels = {"q": {"a": 1, "b": 0, "c": 1}}
    >>> run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    >>> RelativeP(k=2).score(qrels, run)
    0.5
    >>> RelativeP(k=3).score(qrels, run)
    1.0
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Relative precision at k: precision at k divided by the best precision at "
        "k the query allows.",
        formula="relative_P@k = |relevant in top k| / min(k, R)",
        convention=sentences("0 for a query without a relevant document.", ORDER),
        reference=f"{TE} relative_P.",
    )

    k: int | None = 10
    _needs_k: ClassVar[bool] = True

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Relevant in the top k over min(k, R), per query."""
        r = judged.num_relevant(self.relevance_level)
        return _ratio(self._hits(judged), np.minimum(float(self.k or 1), r))


@register(
    "unjudged",
    higher_is_better=False,
    bounds=(0.0, 1.0),
    inputs="qrels_run",
    grows=True,
    at="k",
    aliases=("unj",),
)
@dataclass(frozen=True)
class Unjudged(_Trec):
    """The fraction of the top k documents without a judgment, as trec_eval's ``unj``.

    .. math:: |\\{\\text{unjudged in top } k\\}| / k

    Parameters
    ----------
    k : int, default 10
        The cutoff; a run shorter than k counts the missing ranks as judged.
    missing, judged_only, max_docs
        See :class:`Precision`.

    Notes
    -----
    A document is unjudged when the qrels do not list it or list it with a
    negative grade. Its complement, with a different denominator, is
    ir_measures' ``Judged@k`` (:class:`JudgedAtK`).

    Examples
    --------
    >>> qrels = {"q": {"a": 1, "b": -1, "c": 0}}
    >>> run = {"q": {"a": 3.0, "b": 2.0, "x": 1.0}}
    >>> Unjudged(k=4).score(qrels, run)
    0.5
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The fraction of the top k that the qrels do not judge: a warning sign "
        "that the other measures rest on few judgments.",
        formula="unj@k = |unjudged in top k| / k",
        convention=sentences(
            "Unlisted documents and negative grades are unjudged; a run shorter than k fills "
            "the rest with judged documents.",
            ORDER,
        ),
        reference=f"{TE} unj.",
    )

    k: int | None = 10
    _needs_k: ClassVar[bool] = True

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Unjudged in the top k over k, per query."""
        unjudged = self._cut(judged) & np.isnan(judged.grade)
        return judged.per_query(unjudged) / float(self.k or 1)
