"""ROC curve and the area under it (ROC AUC), from a :class:`ScoreHistogram`.

Ties form one step of every curve, as in scikit-learn.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal, NamedTuple, cast

import numpy as np

from scorekit.classification._binned import (
    BinnedScores,
    binned_auc,
)
from scorekit.classification._histogram import (
    Float,
    ScoreHistogram,
    _binary_arrays,
    _column_arrays,
    _column_rows,
    _pooled_pair,
    _require_data,
)
from scorekit.classification._pairs import pair_auc, replicate_auc, rows_auc, split_binary
from scorekit.classification._ranges import ScoreRanges
from scorekit.classification._ranges_curves import ranges_curve_points
from scorekit.classification._ranges_read import ranges_roc_auc
from scorekit.classification._ranges_walk import Parts, roc_corners
from scorekit.classification._scores import (
    _OVR_SCORES,
    _VARIANTS,
    AVERAGES,
    Average,
    _average,
    _binary_state,
    _BinnedScoreMetric,
    _inputs,
    _many_classes,
    _multi_task_checks,
    _positive_index,
    _RangedHistogramMetric,
    _samples_mean,
    _sorted_labels,
    _warn,
)
from scorekit.core import SK, Check, Estimate, Explanation, OneOf, Range, register
from scorekit.errors import (
    ConfigError,
    InputError,
    choices,
    raw,
)

__all__ = [
    "ROCAUC",
    "ROCCurveMetric",
    "RocCurve",
    "ranges_roc_curve",
    "roc_auc",
    "roc_curve",
]

_MULTI_CLASS = ("raise", "ovr", "ovo")
_OVO_AVERAGES = ("macro", "weighted")


class RocCurve(NamedTuple):
    """Points of a ROC curve, by decreasing threshold (unpacks as ``fpr, tpr, thresholds``)."""

    fpr: Float
    tpr: Float
    thresholds: Float


def _roc_points(
    metric: str, thresholds: Float, tps: Float, fps: Float, drop_intermediate: bool, warn: bool
) -> RocCurve:
    if drop_intermediate and fps.size > 2:
        corner = np.logical_or(np.diff(fps, 2), np.diff(tps, 2))
        keep = np.flatnonzero(np.concatenate([[True], corner, [True]]))
        fps, tps, thresholds = fps[keep], tps[keep], thresholds[keep]
    tps = np.concatenate([[0.0], tps])
    fps = np.concatenate([[0.0], fps])
    thresholds = np.concatenate([[np.inf], thresholds])
    if fps[-1] <= 0:
        if warn:
            _warn(metric, "no negative samples in y_true; the false positive rate is undefined")
        fpr = np.full(fps.shape, np.nan)
    else:
        fpr = fps / fps[-1]
    if tps[-1] <= 0:
        if warn:
            _warn(metric, "no positive samples in y_true; the true positive rate is undefined")
        tpr = np.full(tps.shape, np.nan)
    else:
        tpr = tps / tps[-1]
    return RocCurve(fpr, tpr, thresholds)


def _auc_value(
    metric: str, arrays: tuple[Float, Float, Float], max_fpr: float | None
) -> tuple[float, bool]:
    """ROC AUC (McClish-corrected partial AUC with ``max_fpr``); flag if undefined."""
    thresholds, tps, fps = arrays
    if tps.size == 0 or tps[-1] <= 0 or fps[-1] <= 0:
        return math.nan, True
    fpr, tpr, _ = _roc_points(metric, thresholds, tps, fps, True, False)
    if max_fpr is None or max_fpr == 1:
        return float(np.trapezoid(tpr, fpr)), False
    stop = int(np.searchsorted(fpr, max_fpr, "right"))
    y_end = np.interp(max_fpr, fpr[stop - 1 : stop + 1], tpr[stop - 1 : stop + 1])
    tpr = np.append(tpr[:stop], y_end)
    fpr = np.append(fpr[:stop], max_fpr)
    area = float(np.trapezoid(tpr, fpr))
    lo, hi = 0.5 * max_fpr**2, max_fpr
    return 0.5 * (1 + (area - lo) / (hi - lo)), False


@register(
    "roc_auc",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="binary_scores",
    variant="average",
    variants=_VARIANTS,
    grows=True,
    bounded="bins=N",
)
@dataclass(frozen=True)
class ROCAUC(_BinnedScoreMetric):
    """Area under the ROC curve: the chance a positive outranks a negative (ties count 1/2).

    .. math:: \\mathrm{AUC} = P(s^+ > s^-) + \\tfrac12 P(s^+ = s^-)
              = \\int_0^1 \\mathrm{TPR}\\, d\\mathrm{FPR}

    computed exactly as the trapezoidal area under the ROC curve of
    :func:`roc_curve`, whose steps are the distinct scores.

    Parameters
    ----------
    average : {'macro', 'micro', 'weighted', 'samples'} or None, default 'macro'
        For 2-D scores: ``macro`` is the mean of per-column AUCs, ``weighted``
        weights them by the (weighted) number of positives, ``micro`` pools
        every (label, score) pair into one binary problem, ``samples`` averages
        per-sample AUCs (multi-label only), ``None`` returns one value per
        column. Ignored for 1-D scores. ``weighted`` is 0 only when no
        column has positive weight; scikit-learn also returns 0 when the
        total is within 1e-8 of 0 (tiny sample weights).
    max_fpr : float in (0, 1], optional
        Return the standardized partial AUC over ``FPR <= max_fpr`` with the
        McClish correction (0.5 for a random ranking, 1 for a perfect one).
        Not available for multiclass input.
    multi_class : {'raise', 'ovr', 'ovo'}, default 'raise'
        For 1-D labels with 2-D scores (multiclass): ``'ovr'`` computes each
        class against the rest; ``'ovo'`` is Hand & Till's mean over pairs of
        classes ``(a, b)`` of ``(AUC(a | b) + AUC(b | a)) / 2``, each on the
        samples of the two classes, averaged with ``'macro'`` (unweighted) or
        ``'weighted'`` (by the pair's share of the samples); ``'raise'``
        rejects multiclass input.
    labels : sequence, optional
        Multiclass only: the sorted classes of the columns of ``y_score``.
        Without it, integer labels in ``range(n_columns)`` name their column,
        and other labels must have exactly ``n_columns`` distinct values in
        every summarized batch (pass ``labels`` when streaming such data).
    bins : int, optional
        Bounded memory: count 1-D scores in ``bins`` equal-width bins over
        ``score_range`` instead of keeping every distinct score, and return
        an :class:`~scorekit.Estimate` ``(value, error_bound)``.
        At most ``2**20`` bins (more is a :class:`~scorekit.errors.ConfigError`).
    edges : array-like, optional
        Bounded memory with these bin edges (strictly increasing, at least
        two); :func:`quantile_edges` builds them from a sample of scores.
        Excludes ``bins``.
    score_range : (float, float), optional
        The range split by ``bins`` (default ``(0, 1)``); scores outside it
        are counted in the end bins.
    ranges : int, optional
        Keep the exact histogram of 1-D scores split into ``ranges`` score
        ranges of equal width over ``[0, 1]`` (a :class:`ScoreRanges`): the
        ranges merge one by one and the AUC is read one range at a time,
        equal to the AUC of the whole histogram. At most ``65536``.
    cuts : array-like or 'sample', optional
        The same with these cut points (strictly increasing; range ``i`` holds
        the scores in ``[cuts[i - 1], cuts[i])``); ``range_cuts`` chooses them
        from a sample of scores. Excludes ``ranges``, ``bins`` and ``edges``. ``"sample"``
        with ``ranges=N``: the ``N`` ranges are cut where the data's scores fall,
        from a sample of the distinct scores that the evaluation functions
        gather in a first pass (``score`` cuts at its own scores).

    Notes
    -----
    Input shapes decide the task: 1-D ``y_score`` is binary (the positive class
    is the greater label, as in scikit-learn), 2-D ``y_score`` with a 2-D 0/1
    ``y_true`` is multi-label, 2-D ``y_score`` with 1-D ``y_true`` is
    multiclass (rows must sum to 1). When ``y_true`` holds one class only (or
    a column has no positive or no negative) the AUC is undefined: nan and an
    :class:`~scorekit.errors.UndefinedMetricWarning`, as scikit-learn >= 1.6
    does. Where scikit-learn raises because a class in ``range(n_columns)`` is
    absent from ``y_true``, this metric computes (that class's AUC is nan).
    Empty input raises an InputError. The state is exact and grows with the
    number of distinct scores. With ``multi_class='ovo'`` the state keeps, per
    column and distinct score, the weight of every class (``k`` counts per
    row); pairs run over the classes present in ``y_true``, and sample weights
    weight each pairwise AUC and pair share (scikit-learn refuses weights
    with ``'ovo'``).

    With ``bins`` or ``edges`` the state is a :class:`BinnedScores` of fixed
    size (per bin: the count of each label, the smallest and largest score).
    With ``p_b`` and ``n_b`` the positives and negatives in bin ``b``, the
    value counts the pairs within a bin as half (the trapezoid between the
    ROC points at the bin edges) and

    .. math:: |\\mathrm{AUC} - \\widehat{\\mathrm{AUC}}|
              \\le \\frac{1}{2} \\sum_b \\frac{p_b n_b}{P N}

    (bins holding a single score are exact ties and add nothing). Quantile
    edges from a sample (:func:`quantile_edges`) give the smallest bound for
    a number of bins. Binned AUC takes 1-D scores only; ``max_fpr``,
    ``multi_class='ovr'`` and ``average='samples'`` are not available with it.
    Bins are :func:`numpy.histogram`'s, so states merge only when built with
    the same edges (else a StateMismatchError names the difference).

    References
    ----------
    Fawcett, T. (2006). An introduction to ROC analysis. *Pattern Recognition
    Letters* 27(8). Hand, D. J. and Till, R. J. (2001). A simple
    generalisation of the area under the ROC curve for multiple class
    classification problems. *Machine Learning* 45(2). McClish, D. K.
    (1989). Analyzing a portion of the ROC curve. *Medical Decision Making*
    9(3). Agrees with scikit-learn's ``roc_auc_score``.

    Examples
    --------
    >>> ROCAUC().score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> ROCAUC(multi_class="ovr").score(
    ...     [0, 1, 2, 2], [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.3, 0.6], [0.3, 0.3, 0.4]]
    ... )
    1.0
    >>> ROCAUC(multi_class="ovo").score(
    ...     [0, 1, 2, 2], [[0.5, 0.2, 0.3], [0.2, 0.5, 0.3], [0.3, 0.4, 0.3], [0.3, 0.3, 0.4]]
    ... )
    0.916...
    >>> ROCAUC(bins=4).score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    Estimate(value=0.875, error_bound=0.125)
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The area under the ROC curve: the probability that a random positive "
        "scores higher than a random negative, ties counting one half.",
        formula="AUC = P(s+ > s-) + 0.5 P(s+ = s-)",
        convention="Multiclass: one-vs-rest with 'macro' (mean of per-class AUCs), 'micro' "
        "(all n*k label-score pairs pooled) or 'weighted' (by prevalence); one-vs-one "
        "(multi_class='ovo', Hand & Till 2001) the 'macro' or 'weighted' (by pair share) mean "
        "over class pairs of (AUC(a|b) + AUC(b|a)) / 2; multi-label the "
        "same over indicator columns. max_fpr gives the McClish-standardised partial AUC. "
        "With a single class in y_true AUC is undefined: nan with an UndefinedMetricWarning. "
        "The exact state is a histogram of distinct scores, so merged shards give the "
        "in-memory value. Bounded memory: bins=N (equal width over score_range) or edges= "
        "(e.g. quantile_edges of a sample) keep per-bin counts only and return "
        "Estimate(value, error_bound), pairs within a bin counted half and "
        "error_bound = 1/2 sum_b p_b n_b / (P N).",
        reference=f"{SK} roc_auc_score (scikit-learn >= 1.6 behaviour for one class).",
    )

    average: Annotated[Average, OneOf(AVERAGES)] = "macro"
    max_fpr: Annotated[float | None, Range(0, 1, closed="right", expected="0 < max_fpr <= 1")] = (
        None
    )
    multi_class: Annotated[Literal["raise", "ovr", "ovo"], OneOf(_MULTI_CLASS)] = "raise"
    labels: Annotated[tuple[Any, ...] | None, Check(_sorted_labels)] = None
    bins: int | None = None
    edges: tuple[float, ...] | None = None
    score_range: tuple[float, float] | None = None
    ranges: int | None = None
    cuts: tuple[float, ...] | str | None = None

    def __post_init__(self) -> None:
        # one-vs-one refuses the other averages and any partial AUC, a max_fpr out of
        # range included; an unknown average is left to the check of its field
        if self.multi_class == "ovo" and self.average in AVERAGES:
            if self.average not in _OVO_AVERAGES:
                raise ConfigError(
                    self._error(
                        "one-vs-one ROC AUC averages 'macro' or 'weighted' only",
                        self.average,
                        choices(_OVO_AVERAGES),
                    )
                )
            if self.max_fpr is not None and self.max_fpr != 1:
                raise ConfigError(
                    self._error(
                        "partial AUC (max_fpr) is not available for one-vs-one",
                        self.max_fpr,
                        "max_fpr=None",
                    )
                )
        super().__post_init__()
        if self._resolve_edges():
            if self.max_fpr is not None and self.max_fpr != 1:
                raise ConfigError(
                    self._error(
                        "partial AUC (max_fpr) is not available with bins",
                        self.max_fpr,
                        "max_fpr=None",
                    )
                )
            if self.multi_class != "raise" or self.average == "samples":
                raise ConfigError(
                    self._error(
                        "bins and edges take 1-D binary scores only",
                        raw(f"multi_class={self.multi_class!r}, average={self.average!r}"),
                        "the defaults, or the exact metric for 2-D scores",
                    )
                )
        if self._resolve_cuts() and (self.multi_class != "raise" or self.average == "samples"):
            raise ConfigError(
                self._error(
                    "score ranges take 1-D binary scores only",
                    raw(f"multi_class={self.multi_class!r}, average={self.average!r}"),
                    "the defaults, or the metric without ranges or cuts for 2-D scores",
                )
            )

    _pair_kernel = staticmethod(replicate_auc)

    def _pair_index(self, state: ScoreHistogram) -> int | None:
        return 1 if self.max_fpr is None or self.max_fpr == 1 else None

    @property
    def inputs(self) -> str:
        """Binary scores by default and with bins; multiclass with ``'ovr'``; else multi-label."""
        if self.edges is not None or self.cuts is not None:
            return "binary_scores"
        if self.multi_class == "ovo" or (self.multi_class == "ovr" and self.average != "samples"):
            return "multiclass_scores"
        return _inputs(self.average)

    def _class_labels(self) -> tuple[Any, ...] | None:
        return self.labels

    def _one_vs_one(self) -> bool:
        return self.multi_class == "ovo"

    def _per_sample(self, task: str) -> str:
        if self.average == "samples" and task == "multiclass":
            raise InputError(
                self._error(
                    "average='samples' is not defined for multiclass ROC AUC",
                    "samples",
                    "one of 'micro', 'macro', 'weighted', None",
                )
            )
        return self.name if self.average == "samples" else ""

    def _check_multiclass(self, s: Float) -> None:
        if self.multi_class == "raise":
            raise InputError(
                self._error(
                    "2-D y_score with 1-D y_true is multiclass, which needs multi_class='ovr'",
                    raw(f"y_score of shape {s.shape}"),
                    "multi_class='ovr', or 1-D scores for a binary task",
                )
            )
        sums = s.sum(axis=1)
        bad = np.flatnonzero(~(np.abs(sums - 1) <= 1e-8 + 1e-5 * np.abs(sums)))
        if bad.size:
            i = int(bad[0])
            raise InputError(
                self._error(
                    "multiclass scores must be probabilities whose rows sum to 1",
                    raw(f"row {i} sums to {sums[i].item()!r}"),
                    "rows summing to 1",
                )
            )

    def compute(self, state: ScoreHistogram | BinnedScores | ScoreRanges) -> Any:
        """The AUC (a float), or per-column AUCs when ``average=None`` on 2-D scores.

        A binned state gives an :class:`~scorekit.Estimate` ``(value, error_bound)``;
        score ranges are read one range at a time.
        """
        name = self.name
        if isinstance(state, BinnedScores):
            return self._compute_binned(state)
        if isinstance(state, ScoreRanges):
            return ranges_roc_auc(state.parts, max_fpr=self.max_fpr, metric=name)
        _require_data(name, state)

        def value(arrays: tuple[Float, Float, Float]) -> tuple[float, bool]:
            return _auc_value(name, arrays, self.max_fpr)

        if state.task == "binary":
            if state.labels.size > 2:
                raise _many_classes(name, state.labels.size, _OVR_SCORES)
            if state.labels.size < 2:
                _warn(name, "only one class is present in y_true; ROC AUC is undefined")
                return math.nan
            pair = None
            index = self._pair_index(state)
            if index is not None:
                # float32 scores pair up as float64 ones do: the kernels only compare them
                scores = cast(Float, state.score)
                pair = split_binary(state.key, scores, state.counts, index)
            if pair is not None:
                return pair_auc(*pair)
            auc, undefined = value(_binary_arrays(state, 1))
            if undefined:
                _warn(name, "only one class has a positive weight; ROC AUC is undefined")
            return auc
        if state.task == "ovo":
            return _ovo_auc(name, state, self.average)
        if state.task == "multiclass" and self.max_fpr is not None and self.max_fpr != 1:
            raise InputError(
                self._error(
                    "partial AUC (max_fpr) is not available for multiclass input",
                    self.max_fpr,
                    "max_fpr=None",
                )
            )
        _multi_task_checks(name, state, self.average)
        if self.average == "samples":
            return _samples_mean(name, state)
        exact = self.max_fpr is None or self.max_fpr == 1
        if self.average == "micro":
            pooled = _pooled_pair(state) if exact else None
            if pooled is not None:
                un, cn, up, cp = pooled
                undefined = un.size == 0 or up.size == 0
                auc = math.nan if undefined else pair_auc(un, cn, up, cp)
            elif exact:
                auc, undefined = rows_auc(*_column_rows(state, None))
            else:
                auc, undefined = value(_column_arrays(state, None))
            if undefined:
                _warn(name, "the pooled labels hold one class only; ROC AUC is undefined")
            return auc
        values, support, bad = self._columns(state, value, rows_auc if exact else None)
        return _average(name, values, support, self.average, bad)

    def _compute_binned(self, state: BinnedScores) -> Estimate:
        name = self.name
        self._check_binned(state)
        undefined = Estimate(math.nan, math.nan)
        if state.labels.size < 2:
            _warn(name, "only one class is present in y_true; ROC AUC is undefined")
            return undefined
        neg, pos = state.counts[0], state.counts[1]
        if not (pos.sum() > 0 and neg.sum() > 0):
            _warn(name, "only one class has a positive weight; ROC AUC is undefined")
            return undefined
        return binned_auc(state, pos, neg)


def _ovo_auc(name: str, state: ScoreHistogram, average: Any) -> float:
    """Hand & Till's mean of pairwise AUCs over the classes present, as scikit-learn."""
    lo, hi = np.searchsorted(state.key, [0, 1])
    support = state.counts[lo:hi].sum(axis=0).astype(np.float64)
    present = np.flatnonzero(support > 0)
    if present.size < 2:
        _warn(name, "only one class is present in y_true; ROC AUC is undefined")
        return math.nan
    rows = {}
    for c in present.tolist():
        lo, hi = np.searchsorted(state.key, [c, c + 1])
        rows[c] = state.counts[lo:hi]
    values, prevalence = [], []
    for i, a in enumerate(present.tolist()):
        for b in present.tolist()[i + 1 :]:
            a_vs_b, _ = rows_auc(rows[a][:, b], rows[a][:, a])
            b_vs_a, _ = rows_auc(rows[b][:, a], rows[b][:, b])
            values.append((a_vs_b + b_vs_a) / 2)
            prevalence.append(support[a] + support[b])
    weights = np.asarray(prevalence) if average == "weighted" else None
    return float(np.average(np.asarray(values), weights=weights))


@register(
    "roc_curve",
    higher_is_better=None,
    bounds=(-math.inf, math.inf),
    inputs="binary_scores",
    grows=True,
)
@dataclass(frozen=True)
class ROCCurveMetric(_RangedHistogramMetric):
    """ROC curve: false and true positive rates at every distinct score as threshold.

    .. math:: \\mathrm{FPR}(\\theta) = \\frac{FP(s \\ge \\theta)}{N},\\quad
              \\mathrm{TPR}(\\theta) = \\frac{TP(s \\ge \\theta)}{P}

    Thresholds decrease; the first is ``inf`` (nothing predicted positive, the
    point (0, 0)); ties form one step.

    Parameters
    ----------
    pos_label : label, optional
        The positive class; by default 1 for labels in {0, 1} or {-1, 1}.
        With it, ``y_true`` may hold more than two classes (the others are
        negatives).
    drop_intermediate : bool, default True
        Drop points collinear with their neighbours (scikit-learn's rule:
        where neither FP nor TP count has a non-zero second difference); the
        shape and area of the curve do not change.
    ranges, cuts : optional
        The exact histogram split by score ranges, as the ``ranges`` and
        ``cuts`` of :class:`ROCAUC` take them (``cuts="sample"`` too): the
        ranges merge one by one and the curve is read one range at a time,
        equal array for array to the curve of the whole histogram.

    Notes
    -----
    Without negatives (positives) the FPR (TPR) is nan, with an
    :class:`~scorekit.errors.UndefinedMetricWarning`, as in scikit-learn.

    References
    ----------
    Fawcett, T. (2006). An introduction to ROC analysis. *Pattern Recognition
    Letters* 27(8). Agrees with scikit-learn's ``roc_curve``.

    Examples
    --------
    >>> fpr, tpr, thresholds = ROCCurveMetric().score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr
    array([0. , 0. , 0.5, 0.5, 1. ])
    >>> thresholds
    array([ inf, 0.8 , 0.4 , 0.35, 0.1 ])

    Read from score ranges, the curve is the same:

    >>> metric = ROCCurveMetric(cuts=(0.3, 0.5))
    >>> metric.compute(metric.summarize([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])).fpr
    array([0. , 0. , 0.5, 0.5, 1. ])
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The receiver operating characteristic: false positive rate against true "
        "positive rate as the decision threshold sweeps the scores.",
        formula="at threshold t: FPR(t) = FP(t) / N, TPR(t) = TP(t) / P, counting samples "
        "with score >= t as predicted positive",
        convention="One point per distinct score, thresholds in descending order; tied scores "
        "form a single (diagonal) step.",
        reference=f"{SK} roc_curve.",
    )

    pos_label: Any = None
    drop_intermediate: bool = True
    ranges: int | None = None
    cuts: tuple[float, ...] | str | None = None

    def compute(self, state: ScoreHistogram | ScoreRanges) -> RocCurve:
        """The curve as ``RocCurve(fpr, tpr, thresholds)``; score ranges are read one at a time."""
        name = self.name
        if isinstance(state, ScoreRanges):
            return ranges_roc_curve(
                state.parts,
                pos_label=self.pos_label,
                drop_intermediate=self.drop_intermediate,
                metric=name,
            )
        state = _binary_state(name, state)
        arrays = _binary_arrays(state, _positive_index(name, state.labels, self.pos_label))
        return _roc_points(name, *arrays, self.drop_intermediate, True)


# functions ------------------------------------------------------------------------------


def roc_curve(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = True,
    ranges: int | None = None,
    cuts: Any = None,
) -> RocCurve:
    """ROC curve, as :class:`ROCCurveMetric` (scikit-learn's ``roc_curve``).

    Examples
    --------
    >>> curve = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> curve.tpr
    array([0. , 0.5, 0.5, 1. , 1. ])
    """
    m = ROCCurveMetric(
        pos_label=pos_label, drop_intermediate=drop_intermediate, ranges=ranges, cuts=cuts
    )
    curve: RocCurve = m.score(y_true, y_score, sample_weight=sample_weight)
    return curve


def roc_auc(
    y_true: Any,
    y_score: Any,
    *,
    average: Average = "macro",
    sample_weight: Any = None,
    max_fpr: float | None = None,
    multi_class: Literal["raise", "ovr", "ovo"] = "raise",
    labels: Any = None,
    bins: int | None = None,
    edges: Any = None,
    score_range: tuple[float, float] | None = None,
    ranges: int | None = None,
    cuts: Any = None,
) -> Any:
    """Area under the ROC curve, as :class:`ROCAUC` (scikit-learn's ``roc_auc_score``).

    With ``bins`` or ``edges`` the memory is bounded and the result an
    :class:`~scorekit.Estimate` whose ``error_bound`` bounds the distance to
    the exact AUC.

    Examples
    --------
    >>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> roc_auc([[0, 1], [1, 0], [1, 1]], [[0.2, 0.9], [0.7, 0.4], [0.6, 0.5]], average=None)
    array([1., 1.])
    >>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], edges=[0, 0.2, 0.375, 0.6, 1])
    Estimate(value=0.75, error_bound=0.0)
    """
    m = ROCAUC(
        average=average,
        max_fpr=max_fpr,
        multi_class=multi_class,
        labels=labels,
        bins=bins,
        edges=edges,
        score_range=score_range,
        ranges=ranges,
        cuts=cuts,
    )
    return m.score(y_true, y_score, sample_weight=sample_weight)


def ranges_roc_curve(
    parts: Parts,
    *,
    pos_label: Any = None,
    drop_intermediate: bool = True,
    metric: str = "roc_curve",
) -> RocCurve:
    """The ROC curve of the ranges, as :class:`~scorekit.classification.ROCCurveMetric`.

    Parameters
    ----------
    parts : sequence of ScoreHistogram
        The ranges' histograms in increasing score order, each read on its own.
    pos_label : label, optional
        The positive class; by default 1 for labels in {0, 1} or {-1, 1}.
    drop_intermediate : bool, default True
        Keep only the corners of the curve.
    metric : str
        The name in errors and warnings.

    Returns
    -------
    RocCurve
        ``(fpr, tpr, thresholds)`` by decreasing threshold, equal array for
        array to the curve of the joined histogram.

    Examples
    --------
    >>> from scorekit.classification import summarize_ranges
    >>> state = summarize_ranges([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], cuts=[0.3, 0.5])
    >>> ranges_roc_curve(state.parts).tpr
    array([0. , 0.5, 0.5, 1. , 1. ])
    """
    arrays = ranges_curve_points(
        parts, roc_corners, pos_label=pos_label, drop_intermediate=drop_intermediate, metric=metric
    )
    return _roc_points(metric, *arrays, False, True)
