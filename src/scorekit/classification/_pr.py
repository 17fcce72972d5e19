"""Precision-recall curve, average precision and break-even point, from a :class:`ScoreHistogram`.

Ties form one step of every curve, as in scikit-learn.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal, NamedTuple, cast

import numpy as np

from scorekit.classification._binned import (
    BinnedScores,
    binned_ap,
)
from scorekit.classification._histogram import (
    Float,
    ScoreHistogram,
    _binary_arrays,
    _column_arrays,
    _column_rows,
    _find,
    _pooled_pair,
    _require_data,
)
from scorekit.classification._pairs import pair_ap, replicate_ap, rows_ap, split_binary
from scorekit.classification._ranges import ScoreRanges
from scorekit.classification._ranges_curves import ranges_curve_points, recall_steps
from scorekit.classification._ranges_read import ranges_average_precision
from scorekit.classification._ranges_walk import Parts
from scorekit.classification._scores import (
    _VARIANTS,
    AVERAGES,
    Average,
    _average,
    _binary_state,
    _BinnedScoreMetric,
    _HistogramMetric,
    _inputs,
    _many_classes,
    _multi_task_checks,
    _positive_index,
    _RangedHistogramMetric,
    _samples_mean,
    _warn,
)
from scorekit.core import SK, Estimate, Explanation, OneOf, register
from scorekit.errors import (
    ConfigError,
    InputError,
    choices,
    raw,
)

__all__ = [
    "AveragePrecision",
    "BreakEvenPoint",
    "PRCurveMetric",
    "PrCurve",
    "average_precision",
    "break_even_point",
    "pr_curve",
    "ranges_pr_curve",
]

_INTERPOLATIONS = (None, "11point", "all")


class PrCurve(NamedTuple):
    """Points of a precision-recall curve (unpacks as ``precision, recall, thresholds``)."""

    precision: Float
    recall: Float
    thresholds: Float


def _pr_points(
    metric: str, thresholds: Float, tps: Float, fps: Float, drop_intermediate: bool, warn: bool
) -> PrCurve:
    if drop_intermediate and fps.size > 2:
        change = np.logical_or(np.diff(tps[:-1]), np.diff(tps[1:]))
        keep = np.flatnonzero(np.concatenate([[True], change, [True]]))
        fps, tps, thresholds = fps[keep], tps[keep], thresholds[keep]
    ps = tps + fps
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(ps != 0, tps / np.where(ps != 0, ps, 1.0), 0.0)
    if tps[-1] == 0:
        if warn:
            _warn(metric, "no positive samples in y_true; recall is set to 1 at every threshold")
        recall = np.ones(tps.shape)
    else:
        recall = tps / tps[-1]
    return PrCurve(
        np.concatenate([precision[::-1], [1.0]]),
        np.concatenate([recall[::-1], [0.0]]),
        thresholds[::-1].copy(),
    )


def _ap_value(
    metric: str, arrays: tuple[Float, Float, Float], interpolation: str | None
) -> tuple[float, bool]:
    """Average precision (step-wise, 11-point or all-point); flag if no positives."""
    thresholds, tps, fps = arrays
    if tps.size == 0 or tps[-1] <= 0:
        return 0.0, True
    precision, recall, _ = _pr_points(metric, thresholds, tps, fps, False, False)
    if interpolation is None:
        return float(max(0.0, -np.sum(np.diff(recall) * precision[:-1]))), False
    # operating points by decreasing threshold (recall non-decreasing), no end point
    p, r = precision[-2::-1], recall[-2::-1]
    if interpolation == "11point":
        best = np.maximum.accumulate(p[::-1])[::-1]
        at = np.searchsorted(r, np.arange(11) / 10, side="left")
        values = np.where(at < r.size, best[np.minimum(at, r.size - 1)], 0.0)
        return float(np.mean(values)), False
    mrec = np.concatenate([[0.0], r, [1.0]])
    mpre = np.concatenate([[0.0], p, [0.0]])
    mpre = np.maximum.accumulate(mpre[::-1])[::-1]
    step = np.flatnonzero(mrec[1:] != mrec[:-1])
    return float(np.sum((mrec[step + 1] - mrec[step]) * mpre[step + 1])), False


@register(
    "average_precision",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="binary_scores",
    variant="average",
    variants=_VARIANTS,
    grows=True,
    aliases=("ap",),
    bounded="bins=N",
)
@dataclass(frozen=True)
class AveragePrecision(_BinnedScoreMetric):
    """Average precision: precision at each threshold weighted by the recall it adds.

    .. math:: \\mathrm{AP} = \\sum_n (R_n - R_{n-1}) P_n

    over the distinct scores taken as thresholds in decreasing order (ties form
    one step), with no interpolation, as scikit-learn's
    ``average_precision_score``.

    Parameters
    ----------
    average : {'macro', 'micro', 'weighted', 'samples'} or None, default 'macro'
        For 2-D scores (multi-label, or multiclass one-vs-rest): as in
        :class:`ROCAUC`. Ignored for 1-D scores.
    pos_label : label, default 1
        The positive class of 1-D ``y_true``; fixed to 1 for 2-D scores.
    interpolation : {None, '11point', 'all'}, default None
        ``None`` is the step-wise sum above. ``'11point'`` (PASCAL VOC 2007) is
        the mean over ``t = 0, 0.1, ..., 1`` (``t = i / 10``) of the highest
        precision at recall ``>= t`` (0 if none). ``'all'`` (VOC 2010 onwards)
        makes precision non-increasing in recall (each precision replaced by
        the highest one at equal or greater recall), then sums the area of the
        resulting step function. Both use the operating points at the distinct
        scores (ties form one point) and not the recall-0 end point. Not
        available with ``average='samples'``.
    bins : int, optional
        Bounded memory: count 1-D scores in ``bins`` equal-width bins over
        ``score_range`` and return an :class:`~scorekit.Estimate`
        ``(value, error_bound)``.
        At most ``2**20`` bins (more is a :class:`~scorekit.errors.ConfigError`).
    edges : array-like, optional
        Bounded memory with these strictly increasing bin edges (for
        example from :func:`quantile_edges`). Excludes ``bins``.
    score_range : (float, float), optional
        The range split by ``bins`` (default ``(0, 1)``); scores outside it
        are counted in the end bins.
    ranges : int, optional
        Keep the exact histogram of 1-D scores split into ``ranges`` score
        ranges of equal width over ``[0, 1]`` (a :class:`ScoreRanges`): the
        ranges merge one by one and the AP is read one range at a time,
        equal to the AP of the whole histogram. At most ``65536``.
    cuts : array-like or 'sample', optional
        The same with these cut points (strictly increasing; range ``i`` holds
        the scores in ``[cuts[i - 1], cuts[i])``); ``range_cuts`` chooses them
        from a sample of scores. Excludes ``ranges``, ``bins`` and ``edges``. ``"sample"``
        with ``ranges=N``: the ``N`` ranges are cut where the data's scores fall,
        from a sample of the distinct scores that the evaluation functions
        gather in a first pass (``score`` cuts at its own scores).

    Notes
    -----
    With no positive sample the AP is 0.0 with an
    :class:`~scorekit.errors.UndefinedMetricWarning` (scikit-learn also returns
    0 and warns). Multiclass 2-D scores are binarized one-vs-rest with the
    class rule of :class:`ROCAUC` (no ``labels`` option: integer labels in
    ``range(n_columns)`` or exactly ``n_columns`` distinct labels); the rows
    need not sum to 1. Empty input raises an InputError.

    With ``bins`` or ``edges`` the state is a :class:`BinnedScores` of fixed
    size and the order of samples within a bin is unknown. Walking the bins
    by decreasing score, a bin with ``p`` positives and ``n`` negatives below
    ``a`` positives and ``c`` samples in higher bins adds at most
    ``p (a + p) / (c + p)`` (its positives tied at its top) and at least
    ``sum_{i=1..p} (a + i) / (c + n + i)`` (its negatives first, positives
    one by one) to ``P * AP``; with sample weights the lower term is the
    integral ``p - (c + n - a) ln(1 + p / (c + n))``. Every order and tie
    pattern within the bins gives an AP between the two sums, so the value
    returned is their midpoint and ``error_bound`` half their difference:
    the exact AP lies in ``value +- error_bound``. Bins holding a single
    score are exact. Binned AP takes 1-D scores only, without
    ``interpolation``.

    References
    ----------
    Zhu, M. (2004). Recall, precision and average precision. Everingham, M. et
    al. (2010). The PASCAL Visual Object Classes (VOC) Challenge. *IJCV* 88.
    Agrees with scikit-learn's ``average_precision_score``.

    Examples
    --------
    >>> round(AveragePrecision().score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), 4)
    0.8333
    >>> AveragePrecision(interpolation="all").score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.8333...
    >>> AveragePrecision(edges=[0, 0.2, 0.375, 0.6, 1]).score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    Estimate(value=0.8333333333333333, error_bound=0.0)
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The area under the step-wise precision-recall curve: precision at each "
        "threshold weighted by the gain in recall there.",
        formula="AP = sum_n (R_n - R_{n-1}) P_n over distinct thresholds, descending",
        convention="No interpolation by default (the step-wise sum); the 11-point and all-point "
        "(VOC) interpolations are options. Bounded memory: bins=N or edges= keep per-bin "
        "counts only and return Estimate(value, error_bound), the midpoint and half-width "
        "of the AP over the best and worst orders within bins.",
        reference=f"{SK} average_precision_score.",
    )

    average: Annotated[Average, OneOf(AVERAGES)] = "macro"
    pos_label: Any = 1
    interpolation: Annotated[Literal["11point", "all"] | None, OneOf(_INTERPOLATIONS)] = None
    bins: int | None = None
    edges: tuple[float, ...] | None = None
    score_range: tuple[float, float] | None = None
    ranges: int | None = None
    cuts: tuple[float, ...] | str | None = None

    _pair_kernel = staticmethod(replicate_ap)

    def _pair_index(self, state: ScoreHistogram) -> int | None:
        pos = _find(state.labels, self.pos_label)
        ok = self.interpolation is None and state.labels.size == 2 and pos >= 0
        return pos if ok else None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.interpolation is not None and self.average == "samples":
            raise ConfigError(
                self._error(
                    "interpolation is not available with average='samples'",
                    self.interpolation,
                    "interpolation=None or another average",
                )
            )
        binned = self._resolve_edges()
        if binned and (self.interpolation is not None or self.average == "samples"):
            raise ConfigError(
                self._error(
                    "bins and edges take the step-wise AP of 1-D scores only",
                    raw(f"interpolation={self.interpolation!r}, average={self.average!r}"),
                    "interpolation=None, or the exact metric",
                )
            )
        ranged = self._resolve_cuts()
        if ranged and (self.interpolation is not None or self.average == "samples"):
            raise ConfigError(
                self._error(
                    "score ranges take the step-wise AP of 1-D scores only",
                    raw(f"interpolation={self.interpolation!r}, average={self.average!r}"),
                    "interpolation=None, or the metric without ranges or cuts",
                )
            )

    @property
    def inputs(self) -> str:
        """Binary scores by default, with bins and with ranges; multi-label scores for the
        other averages."""
        if self.edges is not None or self.cuts is not None:
            return "binary_scores"
        return _inputs(self.average)

    def _per_sample(self, task: str) -> str:
        return self.name if self.average == "samples" else ""

    def compute(self, state: ScoreHistogram | BinnedScores | ScoreRanges) -> Any:
        """The AP (a float), or per-column values when ``average=None`` on 2-D scores.

        A binned state gives an :class:`~scorekit.Estimate` ``(value, error_bound)``;
        score ranges are read one range at a time.
        """
        name = self.name
        if isinstance(state, BinnedScores):
            return self._compute_binned(state)
        if isinstance(state, ScoreRanges):
            return ranges_average_precision(state.parts, pos_label=self.pos_label, metric=name)
        _require_data(name, state)

        def value(arrays: tuple[Float, Float, Float]) -> tuple[float, bool]:
            return _ap_value(name, arrays, self.interpolation)

        if state.task == "binary":
            labels = state.labels
            if labels.size > 2:
                raise _many_classes(self.name, labels.size, "2-D y_score (n, n_classes)")
            pos = _find(labels, self.pos_label)
            if labels.size == 2 and pos < 0:
                raise InputError(
                    self._error(
                        "pos_label is not a label of y_true",
                        self.pos_label,
                        choices(labels.tolist()),
                    )
                )
            pair = None
            index = self._pair_index(state)
            if index is not None:
                # float32 scores pair up as float64 ones do: the kernels only compare them
                scores = cast(Float, state.score)
                pair = split_binary(state.key, scores, state.counts, index)
            if pair is not None:
                return pair_ap(*pair)
            ap, undefined = value(_binary_arrays(state, pos))
            if undefined:
                _warn(name, "no positive sample in y_true; AP is set to 0")
            return ap
        if not (self.pos_label == 1 and isinstance(self.pos_label, int | float | np.number)):
            raise InputError(
                self._error(
                    "pos_label is fixed to 1 for 2-D scores",
                    self.pos_label,
                    "pos_label=1",
                )
            )
        _multi_task_checks(name, state, self.average)
        if self.average == "samples":
            return _samples_mean(name, state)
        exact = self.interpolation is None
        if self.average == "micro":
            pooled = _pooled_pair(state) if exact else None
            if pooled is not None:
                un, cn, up, cp = pooled
                undefined = up.size == 0
                ap = 0.0 if undefined else pair_ap(un, cn, up, cp)
            elif exact:
                ap, undefined = rows_ap(*_column_rows(state, None))
            else:
                ap, undefined = value(_column_arrays(state, None))
            if undefined:
                _warn(name, "no positive label at all; AP is set to 0")
            return ap
        values, support, bad = self._columns(state, value, rows_ap if exact else None)
        return _average(name, values, support, self.average, bad)

    def _compute_binned(self, state: BinnedScores) -> Estimate:
        name = self.name
        self._check_binned(state)
        labels = state.labels
        pos_idx = _find(labels, self.pos_label)
        if labels.size == 2 and pos_idx < 0:
            raise InputError(
                self._error(
                    "pos_label is not a label of y_true", self.pos_label, choices(labels.tolist())
                )
            )
        total = state.counts.sum(axis=0)
        pos = state.counts[pos_idx] if pos_idx >= 0 else np.zeros_like(total)
        if not pos.sum() > 0:
            _warn(name, "no positive sample in y_true; AP is set to 0")
            return Estimate(0.0, 0.0)
        return binned_ap(state, pos, total - pos)


@register(
    "break_even_point",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="binary_scores",
    grows=True,
    aliases=("bep",),
)
@dataclass(frozen=True)
class BreakEvenPoint(_HistogramMetric):
    """Precision-recall break-even point: the value at which precision equals recall.

    .. math:: \\mathrm{BEP} = P(\\theta^*) = R(\\theta^*)

    Precision equals recall exactly where the (weighted) number of samples
    scored at or above the threshold equals the (weighted) number of
    positives. Walk the operating points of :func:`pr_curve` by decreasing
    threshold and take the first point ``b`` that selects at least that many:
    if it selects exactly that many, the BEP is its precision. Otherwise the
    BEP is where the straight segment from the previous point ``a`` (or from
    ``(R, P) = (0, 1)`` when ``b`` is the first point) to ``b`` crosses
    ``P = R``: with ``d = P - R``, ``BEP = P_a + d_a / (d_a - d_b) (P_b - P_a)``.
    Without ties this is the R-precision.

    Parameters
    ----------
    pos_label : label, optional
        The positive class; by default 1 for labels in {0, 1} or {-1, 1}
        (other labels need it), as scikit-learn's ``precision_recall_curve``.

    Notes
    -----
    Without positive samples the BEP is undefined: nan with an
    :class:`~scorekit.errors.UndefinedMetricWarning`.

    References
    ----------
    Joachims, T. (1998). Text categorization with support vector machines.
    *ECML*. Sebastiani, F. (2002). Machine learning in automated text
    categorization. *ACM Computing Surveys* 34(1).

    Examples
    --------
    >>> BreakEvenPoint().score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.5
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The value at which precision equals recall on the precision-recall curve.",
        formula="BEP = P(t*) = R(t*) where the curves cross, linearly interpolated between the "
        "two points that straddle the crossing",
        convention="Computed on the same points as pr_curve.",
        reference="scikit-learn has no such function; the points come from "
        "precision_recall_curve and the crossing is interpolated as described.",
    )

    pos_label: Any = None

    def compute(self, state: ScoreHistogram) -> float:
        """The break-even point in [0, 1]."""
        name = self.name
        state = _binary_state(name, state)
        _thresholds, tps, fps = _binary_arrays(
            state, _positive_index(name, state.labels, self.pos_label)
        )
        if tps[-1] <= 0:
            _warn(name, "no positive sample in y_true; the break-even point is undefined")
            return math.nan
        n_pos = tps[-1]
        selected = tps + fps
        i = int(np.flatnonzero(selected >= n_pos)[0])
        p_b, r_b = tps[i] / selected[i], tps[i] / n_pos
        if selected[i] == n_pos:
            return float(p_b)
        p_a, r_a = (1.0, 0.0) if i == 0 else (tps[i - 1] / selected[i - 1], tps[i - 1] / n_pos)
        d_a, d_b = p_a - r_a, p_b - r_b
        if d_a == d_b:
            return float(p_a)
        return float(p_a + d_a / (d_a - d_b) * (p_b - p_a))


@register(
    "pr_curve",
    higher_is_better=None,
    bounds=(-math.inf, math.inf),
    inputs="binary_scores",
    grows=True,
)
@dataclass(frozen=True)
class PRCurveMetric(_RangedHistogramMetric):
    """Precision-recall curve at every distinct score as threshold.

    .. math:: P(\\theta) = \\frac{TP(s \\ge \\theta)}{TP(s \\ge \\theta) + FP(s \\ge \\theta)},
              \\quad R(\\theta) = \\frac{TP(s \\ge \\theta)}{P}

    As scikit-learn's ``precision_recall_curve``: thresholds increase,
    precision and recall have one more element, the end point (1, 0); a
    threshold that selects nothing has precision 0.

    Parameters
    ----------
    pos_label : label, optional
        The positive class; by default 1 for labels in {0, 1} or {-1, 1}.
    drop_intermediate : bool, default False
        Keep only the first and last point of each run of equal recall.
    ranges, cuts : optional
        The exact histogram split by score ranges, as the ``ranges`` and
        ``cuts`` of :class:`ROCAUC` take them (``cuts="sample"`` too): the
        ranges merge one by one and the curve is read one range at a time,
        equal array for array to the curve of the whole histogram.

    Notes
    -----
    Without positives, recall is 1 at every threshold, with an
    :class:`~scorekit.errors.UndefinedMetricWarning` (scikit-learn warns too).

    References
    ----------
    Davis, J. and Goadrich, M. (2006). The relationship between
    precision-recall and ROC curves. *ICML*. Agrees with scikit-learn's
    ``precision_recall_curve``.

    Examples
    --------
    >>> precision, recall, thresholds = PRCurveMetric().score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> precision
    array([0.5       , 0.66666667, 0.5       , 1.        , 1.        ])
    >>> recall
    array([1. , 1. , 0.5, 0.5, 0. ])

    Read from score ranges, the curve is the same:

    >>> metric = PRCurveMetric(ranges=4)
    >>> metric.compute(metric.summarize([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])).recall
    array([1. , 1. , 0.5, 0.5, 0. ])
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Precision against recall as the decision threshold sweeps the scores.",
        formula="at threshold t: P(t) = TP(t) / (TP(t) + FP(t)), R(t) = TP(t) / P",
        convention="One point per distinct score; tied scores enter together.",
        reference=f"{SK} precision_recall_curve.",
    )

    pos_label: Any = None
    drop_intermediate: bool = False
    ranges: int | None = None
    cuts: tuple[float, ...] | str | None = None

    def compute(self, state: ScoreHistogram | ScoreRanges) -> PrCurve:
        """The curve as ``PrCurve(precision, recall, thresholds)``, from score ranges too."""
        name = self.name
        if isinstance(state, ScoreRanges):
            return ranges_pr_curve(
                state.parts,
                pos_label=self.pos_label,
                drop_intermediate=self.drop_intermediate,
                metric=name,
            )
        state = _binary_state(name, state)
        arrays = _binary_arrays(state, _positive_index(name, state.labels, self.pos_label))
        return _pr_points(name, *arrays, self.drop_intermediate, True)


# functions ------------------------------------------------------------------------------


def pr_curve(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = False,
    ranges: int | None = None,
    cuts: Any = None,
) -> PrCurve:
    """Precision-recall curve, as :class:`PRCurveMetric` (``precision_recall_curve``).

    Examples
    --------
    >>> pr_curve(["n", "y", "y"], [0.2, 0.9, 0.5], pos_label="y").thresholds
    array([0.2, 0.5, 0.9])
    """
    m = PRCurveMetric(
        pos_label=pos_label, drop_intermediate=drop_intermediate, ranges=ranges, cuts=cuts
    )
    curve: PrCurve = m.score(y_true, y_score, sample_weight=sample_weight)
    return curve


def average_precision(
    y_true: Any,
    y_score: Any,
    *,
    average: Average = "macro",
    pos_label: Any = 1,
    sample_weight: Any = None,
    interpolation: Literal["11point", "all"] | None = None,
    bins: int | None = None,
    edges: Any = None,
    score_range: tuple[float, float] | None = None,
    ranges: int | None = None,
    cuts: Any = None,
) -> Any:
    """Average precision, as :class:`AveragePrecision` (``average_precision_score``).

    With ``bins`` or ``edges`` the memory is bounded and the result an
    :class:`~scorekit.Estimate` whose ``error_bound`` bounds the distance to
    the exact AP.

    Examples
    --------
    >>> average_precision([0, 1, 0, 1], [0.3, 0.8, 0.6, 0.4])
    0.833...
    >>> average_precision([0, 1, 0, 1], [0.3, 0.8, 0.6, 0.4], interpolation="11point")
    0.848...
    >>> value, bound = average_precision([0, 1, 0, 1], [0.3, 0.8, 0.6, 0.4], bins=2)
    >>> round(value - bound, 4), round(value + bound, 4)
    (0.5, 0.8333)
    """
    m = AveragePrecision(
        average=average,
        pos_label=pos_label,
        interpolation=interpolation,
        bins=bins,
        edges=edges,
        score_range=score_range,
        ranges=ranges,
        cuts=cuts,
    )
    return m.score(y_true, y_score, sample_weight=sample_weight)


def break_even_point(
    y_true: Any, y_score: Any, *, pos_label: Any = None, sample_weight: Any = None
) -> float:
    """Precision-recall break-even point, as :class:`BreakEvenPoint`.

    Examples
    --------
    >>> break_even_point([0, 1, 0, 1, 1], [0.1, 0.9, 0.8, 0.7, 0.3])
    0.666...
    """
    m = BreakEvenPoint(pos_label=pos_label)
    return float(m.score(y_true, y_score, sample_weight=sample_weight))


def ranges_pr_curve(
    parts: Parts,
    *,
    pos_label: Any = None,
    drop_intermediate: bool = False,
    metric: str = "pr_curve",
) -> PrCurve:
    """The precision-recall curve of the ranges, as :class:`~scorekit.classification.PRCurveMetric`.

    Parameters
    ----------
    parts : sequence of ScoreHistogram
        The ranges' histograms in increasing score order, each read on its own.
    pos_label : label, optional
        The positive class; by default 1 for labels in {0, 1} or {-1, 1}.
    drop_intermediate : bool, default False
        Keep only the first and last point of each run of equal recall.
    metric : str
        The name in errors and warnings.

    Returns
    -------
    PrCurve
        ``(precision, recall, thresholds)`` by increasing threshold, equal
        array for array to the curve of the joined histogram.

    Examples
    --------
    >>> from scorekit.classification import summarize_ranges
    >>> state = summarize_ranges([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], cuts=[0.3, 0.5])
    >>> ranges_pr_curve(state.parts).recall
    array([1. , 1. , 0.5, 0.5, 0. ])
    """
    arrays = ranges_curve_points(
        parts, recall_steps, pos_label=pos_label, drop_intermediate=drop_intermediate, metric=metric
    )
    return _pr_points(metric, *arrays, False, True)
