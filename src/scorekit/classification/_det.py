"""The detection error tradeoff (DET) curve, from a :class:`ScoreHistogram`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import numpy as np

from scorekit.classification._histogram import Float, ScoreHistogram, _binary_arrays
from scorekit.classification._scores import _binary_state, _HistogramMetric, _positive_index
from scorekit.core import SK, Explanation, register
from scorekit.errors import InputError, choices, message, raw

__all__ = ["DETCurveMetric", "DetCurve", "det_curve"]


class DetCurve(NamedTuple):
    """A DET curve: false positive and false negative rates at decreasing thresholds."""

    fpr: Float
    fnr: Float
    thresholds: Float


@register(
    "det_curve",
    higher_is_better=None,
    bounds=(-math.inf, math.inf),
    inputs="binary_scores",
    grows=True,
)
@dataclass(frozen=True)
class DETCurveMetric(_HistogramMetric):
    """DET curve: false positive and false negative rates at every distinct score as threshold.

    .. math:: \\mathrm{FPR}(\\theta) = \\frac{FP(s \\ge \\theta)}{N},\\quad
              \\mathrm{FNR}(\\theta) = \\frac{FN(s \\ge \\theta)}{P}

    The points run from the highest threshold where no negative is predicted
    positive beyond the first (FPR at its smallest) to the first threshold
    where every positive is found (FNR = 0); FPR decreases along the arrays
    and thresholds increase.

    Parameters
    ----------
    pos_label : label, optional
        The positive class; by default 1 for labels in {0, 1} or {-1, 1}.
    drop_intermediate : bool, default False
        Drop the thresholds where the true positive count does not change from
        the previous or the next one (FNR constant), as scikit-learn.

    Notes
    -----
    ``y_true`` must hold exactly two classes (an
    :class:`~scorekit.errors.InputError` otherwise, as scikit-learn raises).
    Samples of zero weight add nothing.

    References
    ----------
    Martin, A. et al. (1997). The DET curve in assessment of detection task
    performance. *Eurospeech*. Agrees with scikit-learn's ``det_curve``.

    Examples
    --------
    >>> fpr, fnr, thresholds = DETCurveMetric().score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr
    array([0.5, 0.5, 0. ])
    >>> fnr
    array([0. , 0.5, 0.5])
    >>> thresholds
    array([0.35, 0.4 , 0.8 ])
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The detection error tradeoff: false positive rate against false negative "
        "rate as the decision threshold sweeps the scores.",
        formula="at threshold t: FPR(t) = FP(t) / N, FNR(t) = FN(t) / P, counting samples "
        "with score >= t as predicted positive",
        convention="One point per distinct score, from the last threshold where FPR is "
        "smallest to the first where FNR = 0, thresholds increasing; y_true must hold two "
        "classes.",
        reference=f"{SK} det_curve.",
    )

    pos_label: Any = None
    drop_intermediate: bool = False

    def compute(self, state: ScoreHistogram) -> DetCurve:
        """The curve as ``DetCurve(fpr, fnr, thresholds)``."""
        name = self.name
        state = _binary_state(name, state)
        if state.labels.size != 2:
            raise InputError(
                message(
                    name,
                    "y_true must hold two classes",
                    raw(f"{state.labels.size} classes {state.labels.tolist()}"),
                    "two classes",
                )
            )
        index = _positive_index(name, state.labels, self.pos_label)
        if index < 0:
            raise InputError(
                message(
                    name,
                    "pos_label is not a label of y_true",
                    self.pos_label,
                    choices(state.labels.tolist()),
                )
            )
        thresholds, tps, fps = _binary_arrays(state, index)
        tps = np.concatenate([[0.0], tps])
        fps = np.concatenate([[0.0], fps])
        thresholds = np.concatenate([[math.inf], thresholds])
        if self.drop_intermediate and fps.size > 2:
            keep = np.concatenate(
                [[True], (np.diff(tps[:-1]) != 0) | (np.diff(tps[1:]) != 0), [True]]
            )
            fps, tps, thresholds = fps[keep], tps[keep], thresholds[keep]
        fns = tps[-1] - tps
        first = int(np.searchsorted(fps, fps[0], side="right")) - 1
        last = int(np.searchsorted(tps, tps[-1])) + 1
        window = slice(max(first, 0), last)
        with np.errstate(divide="ignore", invalid="ignore"):
            fpr = fps[window][::-1] / fps[-1]
            fnr = fns[window][::-1] / tps[-1]
        return DetCurve(fpr, fnr, thresholds[window][::-1].copy())


def det_curve(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = False,
) -> DetCurve:
    """DET curve, as :class:`DETCurveMetric` (scikit-learn's ``det_curve``).

    Examples
    --------
    >>> det_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]).fnr
    array([0. , 0.5, 0.5])
    """
    m = DETCurveMetric(pos_label=pos_label, drop_intermediate=drop_intermediate)
    result: DetCurve = m.score(y_true, y_score, sample_weight=sample_weight)
    return result
