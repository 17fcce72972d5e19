"""trec_eval's set measures and gm_bpref.

The set measures take the whole retrieved list as a set (``set_P``,
``set_recall``, ``set_F``, ``set_map``, ``set_relative_P``); ``gm_bpref`` is the
geometric mean of bpref over the queries. Each as trec_eval's ``m_*.c``
defines it (through pytrec_eval).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Annotated, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Explanation, Range, register, sentences
from scorekit.errors import UndefinedMetricWarning
from scorekit.ranking._binary import BPref
from scorekit.ranking._explanations import NO_RELEVANT, ORDER, TE
from scorekit.ranking._measures import GM_FLOOR
from scorekit.ranking._ranked import Judged
from scorekit.ranking._state import QueryValues, _ratio
from scorekit.ranking._trec_measures import _retrieved, _Trec

__all__ = ["GMBPref", "SetF", "SetMAP", "SetP", "SetRecall", "SetRelativeP"]


@dataclass(frozen=True)
class _SetMeasure(_Trec):
    """A measure of the retrieved set: documents retrieved, relevant, and both, per query."""

    def _counts(
        self, judged: Judged
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        level = self.relevance_level
        return (
            _retrieved(judged),
            judged.num_relevant(level),
            judged.per_query(judged.relevant(level)),
        )


_SET = "The retrieved list is taken as a set, whatever its length (trec_eval -M cuts it)."


@register("set_p", higher_is_better=True, bounds=(0.0, 1.0), inputs="qrels_run", grows=True)
@dataclass(frozen=True)
class SetP(_SetMeasure):
    """Set precision: the relevant share of all documents retrieved (``set_P``).

    Parameters
    ----------
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision`.

    Examples
    --------
    >>> SetP().score({"q": {"a": 1, "b": 0}}, {"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    0.333...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Set precision: the fraction of the retrieved documents that are relevant.",
        formula="set_P = rel_ret / ret",
        convention=sentences(_SET, "0 when nothing is retrieved.", ORDER),
        reference=f"{TE} set_P.",
    )

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Relevant retrieved over retrieved, per query."""
        ret, _, rel_ret = self._counts(judged)
        return _ratio(rel_ret, ret)


@register("set_recall", higher_is_better=True, bounds=(0.0, 1.0), inputs="qrels_run", grows=True)
@dataclass(frozen=True)
class SetRecall(_SetMeasure):
    """Set recall: the retrieved share of the relevant documents (``set_recall``).

    Parameters
    ----------
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision`.

    Examples
    --------
    >>> SetRecall().score({"q": {"a": 1, "d": 1}}, {"q": {"a": 3.0, "b": 2.0}})
    0.5
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Set recall: the fraction of the relevant documents that are retrieved.",
        formula="set_recall = rel_ret / R",
        convention=sentences(_SET, "0 for a query without a relevant document.", ORDER),
        reference=f"{TE} set_recall.",
    )

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Relevant retrieved over relevant, per query."""
        _, rel, rel_ret = self._counts(judged)
        return _ratio(rel_ret, rel)


@register("set_f", higher_is_better=True, bounds=(0.0, 1.0), inputs="qrels_run", grows=True)
@dataclass(frozen=True)
class SetF(_SetMeasure):
    """Set F: the weighted harmonic mean of set precision and set recall (``set_F``).

    .. math:: F = \\frac{(w + 1) P R}{w P + R}

    Parameters
    ----------
    weight : float, default 1
        trec_eval's parameter w, the weight of recall against precision
        (F-beta with :math:`\\beta^2 = w`).
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision`.

    Notes
    -----
    0 when nothing relevant is retrieved. Written ``set_f:weight=0.5`` or
    trec_eval's ``set_F.0.5`` (which it prints as ``set_F``).

    Examples
    --------
    >>> SetF().score({"q": {"a": 1, "d": 1}}, {"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    0.4
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Set F: the weighted harmonic mean of the set precision and set recall.",
        formula="set_F = (w + 1) P R / (w P + R)",
        convention=sentences(
            "w (weight) defaults to 1; 0 when nothing relevant is retrieved.", _SET, ORDER
        ),
        reference=f"{TE} set_F.",
    )

    weight: Annotated[float, Range(0, convert=float)] = 1.0

    def _extra_setting(self) -> str:
        return f", weight={self.weight!r}"

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Set F per query."""
        ret, rel, rel_ret = self._counts(judged)
        p, r = _ratio(rel_ret, ret), _ratio(rel_ret, rel)
        w = self.weight
        return _ratio((w + 1.0) * p * r, w * p + r)


@register("set_map", higher_is_better=True, bounds=(0.0, 1.0), inputs="qrels_run", grows=True)
@dataclass(frozen=True)
class SetMAP(_SetMeasure):
    """Set MAP: set precision times set recall (``set_map``).

    .. math:: \\text{set\\_map} = \\text{rel\\_ret}^2 / (\\text{ret} \\cdot R)

    Parameters
    ----------
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision`.

    Examples
    --------
    >>> SetMAP().score({"q": {"a": 1, "d": 1}}, {"q": {"a": 3.0, "b": 2.0}})
    0.25
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Unranked average precision: each relevant retrieved document has the set "
        "precision, each relevant one missed 0.",
        formula="set_map = rel_ret^2 / (ret R)",
        convention=sentences(_SET, "0 when nothing is retrieved or nothing is relevant.", ORDER),
        reference=f"{TE} set_map.",
    )

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Set MAP per query."""
        ret, rel, rel_ret = self._counts(judged)
        return _ratio(rel_ret * rel_ret, ret * rel)


@register(
    "set_relative_p", higher_is_better=True, bounds=(0.0, 1.0), inputs="qrels_run", grows=True
)
@dataclass(frozen=True)
class SetRelativeP(_SetMeasure):
    """Set relative precision: relevant retrieved over min(retrieved, R) (``set_relative_P``).

    Parameters
    ----------
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision`.

    Examples
    --------
    >>> SetRelativeP().score({"q": {"a": 1, "d": 1}}, {"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    0.5
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Set precision relative to the best a set of that size could reach.",
        formula="set_relative_P = rel_ret / min(ret, R)",
        convention=sentences(_SET, "0 when nothing is retrieved or nothing is relevant.", ORDER),
        reference=f"{TE} set_relative_P.",
    )

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Relevant retrieved over min(retrieved, R), per query."""
        ret, rel, rel_ret = self._counts(judged)
        return _ratio(rel_ret, np.minimum(ret, rel))


# gm_bpref -------------------------------------------------------------------------------------


@register("gm_bpref", higher_is_better=True, bounds=(0.0, 1.0), inputs="qrels_run", grows=True)
@dataclass(frozen=True)
class GMBPref(BPref):
    """The geometric mean of the queries' bpref, as trec_eval's ``gm_bpref``.

    .. math:: \\exp\\Big(\\frac{1}{Q}\\sum_q \\ln \\max(\\text{bpref}_q, 10^{-5})\\Big)

    Parameters
    ----------
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision`.

    Notes
    -----
    Each bpref as :class:`BPref`, floored at 1e-5 before its logarithm (as
    :class:`GMMAP` floors AP); the per-query values are the bprefs.

    Examples
    --------
    >>> qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1, "d": 0}}
    >>> run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"d": 2.0, "c": 1.0}}
    >>> round(GMBPref().score(qrels, run), 6)
    0.003162
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Geometric mean bpref: the geometric mean over queries of each query's "
        "bpref, which rewards consistency across queries.",
        formula="gm_bpref = exp(mean_q ln max(bpref_q, 1e-5))",
        convention=sentences("bpref as in bpref, floored at 1e-5 (trec_eval).", NO_RELEVANT),
        reference=f"{TE} gm_bpref.",
    )

    def compute(self, state: QueryValues) -> float:
        """The geometric mean of the queries' bpref, each floored at 1e-5."""
        self._check_some_query(state)
        if state.undefined:
            warnings.warn(
                self._undefined_text(state.undefined, len(state.queries)),
                UndefinedMetricWarning,
                stacklevel=2,
            )
        _, values = state.table()
        return float(np.exp(np.mean(np.log(np.maximum(values, GM_FLOOR)))))

    def compute_replicates(
        self, state: QueryValues, weights: NDArray[np.int64]
    ) -> NDArray[np.float64]:
        """The geometric mean of each replicate, query ``i`` counted ``weights[b, i]`` times."""
        self._check_some_query(state)
        _, values = state.table()
        w = self._unit_weights(weights, len(values))
        total = w.sum(axis=1)
        out = np.full(len(w), np.nan)
        some = total > 0
        out[some] = np.exp((w[some] @ np.log(np.maximum(values, GM_FLOOR))) / total[some])
        return out
