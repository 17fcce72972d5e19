"""DeLong's variance of a binary ROC AUC read from score ranges, one range at a time.

DeLong's variance of an AUC is ``S10 / m + S01 / n``, the sample variances
(``ddof=1``) of the structural components of the ``m`` positive and ``n``
negative units: ``V10`` of a positive is the share of negatives below its score
(ties count 1/2), ``V01`` of a negative the share of positives above its score.
Every unit of one label and one score has the same component, so the exact
histogram holds them all: one value per histogram row, counted as often as the
row's count. :func:`ranges_delong` reads them from the ranges' histograms in
increasing score order, through :func:`scorekit.core.scan`: each range is read
in a step, and only the running totals of negatives and positives and the
partial sums travel between ranges, as in the readers of
:mod:`scorekit.classification._ranges_read`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from scorekit.classification._histogram import ScoreHistogram, Scores, _find
from scorekit.classification._pairs import _EXACT_INT
from scorekit.classification._pairwise import PairwiseSum
from scorekit.classification._ranges_read import ranges_roc_auc
from scorekit.classification._ranges_walk import Parts, _below, _sides, _survey
from scorekit.core import scan
from scorekit.errors import ConfigError, InputError, TooFewUnitsError, choices, message, raw

__all__ = ["DeLongMoments", "ranges_delong"]

# the products of the exact route stay below this: int64 arithmetic is exact
_INT64_LIMIT = 1 << 63


class DeLongMoments(NamedTuple):
    """A binary ROC AUC with DeLong's variance and the units it counts."""

    auc: float
    """The AUC, as :class:`~scorekit.classification.ROCAUC` computes it."""
    variance: float
    """DeLong's variance of the AUC: ``S10 / positives + S01 / negatives``."""
    positives: int
    """Positive units ``m``."""
    negatives: int
    """Negative units ``n``."""


def ranges_delong(parts: Parts, *, pos_label: Any = None, metric: str = "delong") -> DeLongMoments:
    """Binary ROC AUC and DeLong's variance of unweighted score ranges.

    For each distinct positive score with count ``c``, ``V10 = (negatives
    strictly below + negatives tied / 2) / n``, counted ``c`` times; for each
    distinct negative score, ``V01 = (positives strictly above + positives
    tied / 2) / m``; ``S10`` and ``S01`` are their sample variances
    (``ddof=1``) over units and the variance is ``S10 / m + S01 / n``, as
    :func:`scorekit.stats.delong_interval` takes it from the per-unit arrays.

    Parameters
    ----------
    parts : sequence of ScoreHistogram
        The ranges' histograms in increasing score order (a whole histogram is
        one range: ``[state]``); each is read on its own, in three passes:
        labels and totals, the AUC's area, the squared deviations.
    pos_label : label, optional
        The positive class; by default the greater of the two labels, as
        :class:`~scorekit.classification.ROCAUC` takes it.
    metric : str
        The name in errors.

    Returns
    -------
    DeLongMoments
        ``(auc, variance, positives, negatives)``.

    Raises
    ------
    InputError
        No data, 2-D scores, labels other than two classes, fewer than 2
        positive or 2 negative units, or more units than int64 counts.
    ConfigError
        Weighted counts (DeLong's variance is defined for unweighted units),
        or ``pos_label`` not a label of the state.

    Notes
    -----
    Each histogram row gives ``2 n V10`` (or ``2 m V01``) as an exact integer,
    and while ``2 m n < 2**63`` its deviation from the mean, ``2 m n (V10 -
    AUC)``, is an exact int64 too (the mean is the exact area over ``2 m n``),
    so the only roundings are those of the squared deviations, summed with
    numpy's pairwise sum over the rows of each label (:class:`PairwiseSum`,
    fed in score order): the variance is then the same, bit for bit, whatever
    the ranges and whatever the chunks merged. It is not bit-identical to the
    per-unit computation, which rounds each placement and their mean before
    subtracting, and adds one squared deviation per unit where this multiplies
    it by the row's count: the two agree to about 1e-13 relative. Past
    ``2 m n >= 2**63`` the deviations are taken in float64 from the placements
    and the AUC, as the per-unit computation takes them. The AUC is the value
    :class:`~scorekit.classification.ROCAUC` computes from the joined
    histogram: the exact area rounded once while ``m + n`` is below two
    billion, else the float64 area of ROCAUC. With the smaller label as
    ``pos_label`` it is the exact area rounded once while ``2 m n < 2**63``,
    else one minus ROCAUC's value.

    Examples
    --------
    >>> from scorekit.classification._ranges import summarize_ranges
    >>> state = summarize_ranges([0, 0, 0, 1, 1, 1], [0.1, 0.4, 0.4, 0.35, 0.4, 0.8], cuts=[0.3])
    >>> found = ranges_delong(state.parts)
    >>> found.auc, round(found.variance, 6), found.positives, found.negatives
    (0.6666666666666666, 0.064815, 3, 3)
    """
    survey = _survey(metric, parts)
    if not survey.ints:
        raise ConfigError(
            message(
                metric,
                "DeLong's variance is defined for unweighted units, and the state holds "
                "weighted counts",
                raw("float64 sums of sample weights"),
                "the state of unweighted scores (summarized without sample_weight)",
            )
        )
    labels = survey.labels
    if labels.size != 2:
        # one class is too few units of the other; more than two is another task
        error = TooFewUnitsError if labels.size < 2 else InputError
        raise error(
            message(
                metric,
                "y_true must hold exactly two classes",
                labels.tolist()[:5],
                "both a positive and a negative class",
            )
        )
    index = 1 if pos_label is None else _find(labels, pos_label)
    if index < 0:
        raise ConfigError(
            message(metric, "pos_label is not a class of y_true", pos_label, choices(labels))
        )
    positive, negative = labels[index], labels[1 - index]
    m, n = survey.side(positive).total, survey.side(negative).total
    for name, count in (("positive", m), ("negative", n)):
        if count < 2:
            raise TooFewUnitsError(
                message(
                    metric,
                    f"too few {name} units for a variance",
                    count,
                    f"at least 2 {name} units",
                )
            )
    if 2 * (m + n) >= _INT64_LIMIT:
        raise InputError(
            message(
                metric,
                "too many units for int64 running counts",
                m + n,
                f"fewer than {_INT64_LIMIT // 4} units",
            )
        )
    scale = 2 * m * n
    area = _twice_area(parts, positive) if scale < _INT64_LIMIT else None
    if area is not None and (m + n < _EXACT_INT or index == 0):
        # the exact area rounded once: ROCAUC's value (ROCAUC takes no other positive label)
        auc = area / scale
    elif index == 1:
        auc = ranges_roc_auc(parts, metric=metric)
    else:
        # the AUC of the other label's scores is the complement: pairs above and below swap
        auc = 1.0 - ranges_roc_auc(parts, metric=metric)
    rows_pos, rows_neg = survey.side(positive).rows, survey.side(negative).rows
    s10, s01 = _squared_deviations(parts, positive, (m, n), area, auc, (rows_pos, rows_neg))
    if area is not None:
        # the deviations were 2 m n times the placements' deviations
        s10, s01 = s10 / float(scale) ** 2, s01 / float(scale) ** 2
    variance = s10 / (m - 1) / m + s01 / (n - 1) / n
    return DeLongMoments(float(auc), float(variance), int(m), int(n))


def _twice_below(
    un: Scores, cn: NDArray[Any], up: Scores, carry: np.int64
) -> tuple[NDArray[np.int64], np.int64]:
    """Twice the ``un`` weight strictly below each ``up`` score plus the weight tied with it,
    given the weight ``carry`` of the ranges below, and the running total after this range."""
    below, ties, weight, total = _below(un, cn.astype(np.int64), up, carry)
    twice = below.astype(np.int64) * 2
    twice[ties] += weight
    return twice, np.int64(total)


def _area_step(
    positive: Any, carry: tuple[int, np.int64], part: ScoreHistogram
) -> tuple[tuple[int, np.int64], None]:
    area, below = carry
    un, cn, up, cp = _sides(part, positive)
    twice, below = _twice_below(un, cn, up, below)
    # each product and partial sum is at most 2 m n < 2**63
    area += int(np.dot(cp.astype(np.int64), twice))
    return (area, below), None


def _twice_area(parts: Parts, positive: Any) -> int:
    """``2 m n AUC``: twice the pairs a positive outranks, ties once, as an exact integer."""
    (area, _), _ = scan(parts, partial(_area_step, positive), (0, np.int64(0)))
    return area


@dataclass
class _Deviations:
    """The sums of squared deviations of the rows below, with the running totals they need."""

    sum10: PairwiseSum
    sum01: PairwiseSum
    negatives: np.int64 = field(default_factory=lambda: np.int64(0))
    positives: np.int64 = field(default_factory=lambda: np.int64(0))


def _deviation_step(
    positive: Any,
    totals: tuple[int, int],
    area: int | None,
    auc: float,
    carry: _Deviations,
    part: ScoreHistogram,
) -> tuple[_Deviations, None]:
    """One range's ``count * deviation**2`` of its positive and its negative rows, summed."""
    m, n = totals
    un, cn, up, cp = _sides(part, positive)
    # 2 n V10 of each positive row; 2 m V01 = 2 m - (twice the positives below + tied)
    twice10, carry.negatives = _twice_below(un, cn, up, carry.negatives)
    twice_pos_below, carry.positives = _twice_below(up, cp, un, carry.positives)
    twice01 = np.int64(2 * m) - twice_pos_below
    if area is not None:
        d10 = (twice10 * np.int64(m) - np.int64(area)).astype(np.float64)
        d01 = (twice01 * np.int64(n) - np.int64(area)).astype(np.float64)
    else:
        d10 = twice10 / float(2 * n) - auc
        d01 = twice01 / float(2 * m) - auc
    carry.sum10.add(cp.astype(np.float64) * (d10 * d10))
    carry.sum01.add(cn.astype(np.float64) * (d01 * d01))
    return carry, None


def _squared_deviations(
    parts: Parts,
    positive: Any,
    totals: tuple[int, int],
    area: int | None,
    auc: float,
    rows: tuple[int, int],
) -> tuple[float, float]:
    """The sums of ``count * deviation**2`` of the positive and the negative rows.

    With the exact ``area``, the deviations are ``2 m n`` times those of the
    placements, exact integers; without it, those of the placements in float64.
    """
    step = partial(_deviation_step, positive, totals, area, auc)
    found, _ = scan(parts, step, _Deviations(PairwiseSum(rows[0]), PairwiseSum(rows[1])))
    return found.sum10.result(), found.sum01.result()
