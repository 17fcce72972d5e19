"""Decision-tree split criteria (ID3, C4.5, CART) of one feature column.

Every criterion is computed from one :class:`Contingency` table of feature
values x classes. A categorical feature splits multiway, one branch per value;
a numeric feature splits in two at a midpoint between consecutive distinct
values, and cumulative class counts over the sorted values score every such
threshold at once.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

import numpy as np

from scorekit._check import as_labels
from scorekit.core import Explanation, Metric, OneOf, register, sentences
from scorekit.errors import UndefinedMetricWarning
from scorekit.information._explanations import SPLIT, TABLE
from scorekit.information._kernels import Scored, split_score
from scorekit.information._measures import summarize_pairs
from scorekit.information._tables import (
    FEATURES,
    LOG_BASE,
    Contingency,
    Feature,
    feature_values,
    require_data,
)

__all__ = [
    "GainRatio",
    "GiniGain",
    "InformationGain",
    "Split",
    "SplitInformation",
    "gain_ratio",
    "gini_gain",
    "information_gain",
    "split_information",
]


@dataclass(frozen=True)
class Split:
    """One feature's split: its criterion value and, for a numeric feature, the threshold.

    A numeric split sends ``x <= threshold`` to the left branch; a categorical
    split has one branch per value and ``threshold`` None.
    """

    feature: Any
    criterion: str
    score: float
    kind: str
    threshold: float | None = None


_FEATURE_DOC = """
    feature : {'categorical', 'numeric'}, default 'categorical'
        How ``x`` is split: multiway, one branch per distinct value (ID3, C4.5
        on nominal attributes), or in two at the best threshold ``x <= t`` with
        ``t`` a midpoint between consecutive distinct values (C4.5 on continuous
        attributes, CART). Numeric features must be finite numbers.
"""


@dataclass(frozen=True)
class _SplitMetric(Metric[Contingency]):
    """Shared plumbing of the criteria on a feature column ``x`` and a target ``y``."""

    feature: Annotated[Feature, OneOf(FEATURES, problem="unknown feature kind")] = "categorical"

    _criterion: ClassVar[str] = "information_gain"

    @property
    def inputs(self) -> str:
        """A feature column and a target column of class labels."""
        return "feature_target"

    def summarize(self, x: Any, y: Any, sample_weight: Any = None) -> Contingency:
        """Cross-tabulate one batch of feature values against class labels."""
        xs = feature_values(self.name, x, self.feature)
        ys = as_labels(self.name, "y", y)
        return summarize_pairs(self.name, self.feature, xs, ys, sample_weight)

    def empty(self) -> Contingency:
        """The state of no data."""
        return Contingency.empty(self.feature)

    def split(self, state: Contingency) -> Split:
        """The criterion's value and, for a numeric feature, the chosen threshold."""
        require_data(self.name, state.values.size)
        if not np.any(state.table):
            warnings.warn(
                f"{self.name}: all sample weights are 0; returning nan.",
                UndefinedMetricWarning,
                stacklevel=2,
            )
            return Split(None, self.name, math.nan, self.feature)
        table = state.table.T
        scored = split_score(self.name, self._criterion, self.feature, state.values, table)
        return finish(None, self._criterion, self.feature, scored, getattr(self, "base", 2.0))

    def compute(self, state: Contingency) -> float:
        """The criterion's value for the tabulated data."""
        return self.split(state).score


def finish(name: Any, criterion: str, feature: str, scored: Scored, base: float) -> Split:
    """A :class:`Split` from a kernel score in nats, converted to ``base`` where it applies."""
    score = scored.score
    if criterion in ("information_gain", "split_information"):
        score /= math.log(base)
    return Split(name, criterion, score, feature, scored.threshold)


@register(
    "information_gain",
    higher_is_better=True,
    bounds=(0.0, math.inf),
    inputs="feature_target",
    variant="feature",
    variants=("categorical", "numeric"),
    grows=True,
)
@dataclass(frozen=True)
class InformationGain(_SplitMetric):
    """Information gain of splitting the target on a feature (ID3).

    .. math:: IG(Y, X) = H(Y) - \\sum_v \\frac{|Y_v|}{|Y|} H(Y_v)

    where :math:`Y_v` is the target on the samples of branch :math:`v` and
    sizes are weighted when ``sample_weight`` is given.

    Parameters
    ----------{feature}
    base : float, default 2
        Logarithm base of the entropies (2: bits).

    Notes
    -----
    Arguments are ``(x, y)``: the feature column, then the target. The state is
    the feature-value x class contingency table (it grows with the number of
    distinct feature values); merging adds counts, so chunked values equal the
    in-memory one. A constant feature, or a target with one class, has gain 0.
    For a multiway split, IG equals the mutual information :math:`I(X; Y)`.
    For ties between thresholds, the lowest threshold wins.

    References
    ----------
    Quinlan, J. R. (1986). Induction of decision trees. *Machine Learning* 1,
    81-106. Numeric splits match the impurity decrease of scikit-learn's
    ``DecisionTreeClassifier(criterion="entropy", max_depth=1)`` (in bits).

    Examples
    --------
    >>> outlook = ["sunny", "sunny", "overcast", "rain", "rain", "rain", "overcast",
    ...            "sunny", "sunny", "rain", "sunny", "overcast", "overcast", "rain"]
    >>> play = ["no", "no", "yes", "yes", "yes", "no", "yes",
    ...         "no", "yes", "yes", "yes", "yes", "yes", "no"]
    >>> round(InformationGain().score(outlook, play), 4)
    0.2467
    >>> InformationGain(feature="numeric").score([1.0, 2.0, 3.0, 4.0], [0, 0, 1, 1])
    1.0
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The reduction in the entropy of the target achieved by splitting the "
        "samples on a feature: ID3's criterion for choosing the attribute tested at a node.",
        formula="IG(Y, X) = H(Y) - sum_v (|Y_v| / |Y|) H(Y_v), over the branches v of the split",
        convention=sentences(
            SPLIT,
            "A numeric feature keeps the threshold of highest gain. Entropies are in base 2 "
            "(bits) by default. A constant feature or a one-class target has gain 0, and a "
            "multiway split's gain equals the mutual information of x and y.",
            TABLE,
        ),
        reference="Quinlan (1986), Induction of decision trees (ID3). Numeric splits equal the "
        "impurity decrease of scikit-learn's DecisionTreeClassifier(criterion='entropy', "
        "max_depth=1), in bits.",
    )

    base: Annotated[float, LOG_BASE] = 2.0


@register(
    "split_information",
    higher_is_better=None,
    bounds=(0.0, math.inf),
    inputs="feature_target",
    variant="feature",
    variants=("categorical", "numeric"),
    grows=True,
)
@dataclass(frozen=True)
class SplitInformation(_SplitMetric):
    """Split information: the entropy of the branch sizes of a split (C4.5).

    .. math:: SI(X) = -\\sum_v \\frac{|Y_v|}{|Y|} \\log_b \\frac{|Y_v|}{|Y|}

    Parameters
    ----------{feature}
    base : float, default 2

    Notes
    -----
    For a numeric feature the split is the binary one at the threshold of
    highest information gain (as C4.5 chooses it); the target ``y`` is needed
    for that choice. A constant feature has split information 0.

    References
    ----------
    Quinlan, J. R. (1993). *C4.5: Programs for Machine Learning*, section 2.2.

    Examples
    --------
    >>> SplitInformation().score(["a", "a", "b", "b"], [0, 1, 0, 1])
    1.0
    >>> SplitInformation().score(["a", "a", "a"], [0, 1, 0])
    0.0
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The entropy of the branch sizes of a split: how finely and evenly it "
        "divides the samples, whatever their classes. C4.5 divides information gain by it to "
        "penalise features with many values.",
        formula="SI(X) = -sum_v (|Y_v| / |Y|) log_b (|Y_v| / |Y|)",
        convention=sentences(
            SPLIT,
            "A categorical feature has one branch per value, so SI is the entropy of x. A "
            "numeric feature uses the two branches of the threshold of highest information "
            "gain, as C4.5 chooses it, which is why the target y is needed. A constant "
            "feature has SI 0. base=2 (default) gives bits.",
            TABLE,
        ),
        reference="Quinlan (1993), C4.5: Programs for Machine Learning, section 2.2; equal to "
        "scipy.stats.entropy of the branch sizes.",
    )

    base: Annotated[float, LOG_BASE] = 2.0

    _criterion: ClassVar[str] = "split_information"


@register(
    "gain_ratio",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="feature_target",
    variant="feature",
    variants=("categorical", "numeric"),
    grows=True,
)
@dataclass(frozen=True)
class GainRatio(_SplitMetric):
    """Gain ratio: information gain divided by split information (C4.5).

    .. math:: GR(Y, X) = \\frac{IG(Y, X)}{SI(X)}

    Parameters
    ----------{feature}

    Notes
    -----
    When the split information is 0 (a constant feature: one branch) the
    ratio is undefined; it is set to 0 with an
    :class:`~scorekit.errors.UndefinedMetricWarning`. For a numeric feature the
    threshold is the one of highest information gain and the ratio is taken
    there, as in C4.5 (which does not maximise the ratio over thresholds). The
    value lies in [0, 1] since :math:`IG \\le SI`, and does not depend on the
    logarithm base.

    References
    ----------
    Quinlan, J. R. (1993). *C4.5: Programs for Machine Learning*; Quinlan, J. R.
    (1996). Improved use of continuous attributes in C4.5. *JAIR* 4, 77-90.

    Examples
    --------
    >>> GainRatio().score(["a", "a", "b", "b"], [0, 0, 1, 1])
    1.0
    >>> round(GainRatio().score(["a", "b", "c", "c"], [0, 1, 1, 1]), 6)
    0.540852
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Information gain divided by split information: C4.5's correction of ID3's "
        "preference for features with many distinct values.",
        formula="GR(Y, X) = IG(Y, X) / SI(X)",
        convention=sentences(
            SPLIT,
            "When SI = 0 (a constant feature: one branch) the ratio is undefined and set to 0 "
            "with an UndefinedMetricWarning. A numeric feature takes the ratio at the "
            "threshold of highest information gain, as C4.5 does: the ratio is not maximised "
            "over thresholds, and no correction for the number of candidate thresholds is "
            "made. The value lies in [0, 1], since IG <= SI, and does not depend on the "
            "logarithm base (there is no base option).",
            TABLE,
        ),
        reference="Quinlan (1993), C4.5: Programs for Machine Learning; computed from the same "
        "table as information_gain and split_information.",
    )

    _criterion: ClassVar[str] = "gain_ratio"


@register(
    "gini_gain",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="feature_target",
    variant="feature",
    variants=("categorical", "numeric"),
    grows=True,
)
@dataclass(frozen=True)
class GiniGain(_SplitMetric):
    """Gini gain: the decrease in Gini impurity achieved by a split (CART).

    .. math:: \\Delta G(Y, X) = G(Y) - \\sum_v \\frac{|Y_v|}{|Y|} G(Y_v),
              \\qquad G(Y) = 1 - \\sum_c p_c^2

    Parameters
    ----------{feature}

    Notes
    -----
    CART splits in two; use ``feature='numeric'`` for its binary threshold
    search. For a numeric feature the threshold maximises the Gini gain.

    References
    ----------
    Breiman, Friedman, Olshen and Stone (1984), *Classification and Regression
    Trees*. Numeric splits match the impurity decrease of scikit-learn's
    ``DecisionTreeClassifier(criterion="gini", max_depth=1)``.

    Examples
    --------
    >>> GiniGain().score(["a", "a", "b", "b"], [0, 0, 1, 1])
    0.5
    >>> GiniGain(feature="numeric").score([1, 2, 3, 4], [0, 1, 1, 1])
    0.375
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The decrease in Gini impurity achieved by splitting the samples on a "
        "feature: CART's criterion.",
        formula="DeltaG(Y, X) = G(Y) - sum_v (|Y_v| / |Y|) G(Y_v),  G = 1 - sum_c p_c^2",
        convention=sentences(
            SPLIT,
            "A numeric feature keeps the threshold of highest Gini gain; that binary search "
            "is CART's (gini_gain:numeric), while the categorical default is a multiway "
            "split. The value lies in [0, 1].",
            TABLE,
        ),
        reference="Breiman, Friedman, Olshen and Stone (1984), Classification and Regression "
        "Trees. Numeric splits equal the impurity decrease of scikit-learn's "
        "DecisionTreeClassifier(criterion='gini', max_depth=1).",
    )

    _criterion: ClassVar[str] = "gini_gain"


for _cls in (InformationGain, SplitInformation, GainRatio, GiniGain):
    _cls.__doc__ = (_cls.__doc__ or "").replace("{feature}", _FEATURE_DOC.rstrip())


def information_gain(
    x: Any,
    y: Any,
    *,
    feature: Feature = "categorical",
    base: float = 2.0,
    sample_weight: Any = None,
) -> float:
    """Information gain of splitting ``y`` on ``x`` (see :class:`InformationGain`).

    Examples
    --------
    >>> information_gain(["a", "a", "b", "b"], [0, 0, 1, 1])
    1.0
    """
    return float(
        InformationGain(feature=feature, base=base).score(x, y, sample_weight=sample_weight)
    )


def split_information(
    x: Any,
    y: Any,
    *,
    feature: Feature = "categorical",
    base: float = 2.0,
    sample_weight: Any = None,
) -> float:
    """Split information of the split of ``y`` on ``x`` (see :class:`SplitInformation`).

    Examples
    --------
    >>> split_information(["a", "b", "c", "d"], [0, 0, 1, 1])
    2.0
    """
    return float(
        SplitInformation(feature=feature, base=base).score(x, y, sample_weight=sample_weight)
    )


def gain_ratio(
    x: Any, y: Any, *, feature: Feature = "categorical", sample_weight: Any = None
) -> float:
    """Gain ratio of splitting ``y`` on ``x`` (see :class:`GainRatio`).

    Examples
    --------
    >>> gain_ratio(["a", "b", "c", "d"], [0, 0, 1, 1])
    0.5
    """
    return float(GainRatio(feature=feature).score(x, y, sample_weight=sample_weight))


def gini_gain(
    x: Any, y: Any, *, feature: Feature = "categorical", sample_weight: Any = None
) -> float:
    """Gini gain of splitting ``y`` on ``x`` (see :class:`GiniGain`).

    Examples
    --------
    >>> gini_gain([0.5, 1.5, 2.5], ["n", "y", "y"], feature="numeric")
    0.4444444444444444
    """
    return float(GiniGain(feature=feature).score(x, y, sample_weight=sample_weight))
