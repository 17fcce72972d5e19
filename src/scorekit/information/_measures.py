"""Entropy, Gini impurity, mutual information, cross-entropy and the KL / JS divergences.

Label-based measures are metrics on mergeable count states; the measures of
probability vectors are plain functions (a probability vector is not a batch
of samples, so there is nothing to stream).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit._check import (
    as_labels,
    as_scores,
    as_weights,
    check_same_length,
    union_labels,
    unit_scaled,
)
from scorekit.core import SK, Explanation, Metric, register, sentences
from scorekit.errors import ConfigError, InputError, choices, message, raw
from scorekit.information._explanations import COUNTS
from scorekit.information._kernels import entropy_rows, gini_rows, split_score, value_counts
from scorekit.information._tables import (
    LOG_BASE,
    ClassCounts,
    Contingency,
    check_base,
    encode,
    require_data,
    warn_zero_weight,
)

__all__ = [
    "Entropy",
    "GiniImpurity",
    "MutualInformation",
    "cross_entropy",
    "entropy",
    "gini_impurity",
    "js_divergence",
    "kl_divergence",
    "mutual_information",
]

Kind = Literal["distribution", "labels"]
KINDS: tuple[Kind, ...] = ("distribution", "labels")


def _check_kind(metric: str, kind: Any) -> None:
    if kind not in KINDS:
        raise ConfigError(message(metric, "unknown input kind", kind, choices(KINDS)))


def summarize_classes(metric: str, y: Any, sample_weight: Any = None) -> ClassCounts:
    """Count the classes of one label column (weighted when ``sample_weight`` is given)."""
    labels = as_labels(metric, "y", y)
    w = as_weights(metric, sample_weight, len(labels), scaled=True)
    values, codes = encode(metric, "y", labels)
    counts = np.bincount(codes, weights=w, minlength=len(values))
    return ClassCounts(labels=values, counts=counts)


def summarize_pairs(
    metric: str, feature: str, x: NDArray[Any], y: NDArray[Any], sample_weight: Any
) -> Contingency:
    """The contingency table of a checked feature column ``x`` against labels ``y``."""
    n = check_same_length(metric, x=x, y=y)
    w = as_weights(metric, sample_weight, n, scaled=True)
    classes, ycodes = encode(metric, "y", y)
    values, counts = value_counts(x, ycodes, len(classes), w)
    table = np.ascontiguousarray(counts.T)
    return Contingency(feature=feature, values=values, classes=classes, table=table)


def _scaled(metric: str, counts: NDArray[Any]) -> NDArray[Any]:
    """Weighted (float) counts times a power of two that keeps their sums finite."""
    if counts.dtype.kind != "f":
        return counts
    return unit_scaled(metric, "the sum of sample weights", counts)[0]


def _class_total(metric: str, counts: NDArray[Any], n_labels: int) -> float | None:
    require_data(metric, n_labels)
    total = float(counts.sum())
    return None if total == 0 else total


@dataclass(frozen=True)
class _ClassMetric(Metric[ClassCounts]):
    def summarize(self, y: Any, sample_weight: Any = None) -> ClassCounts:
        """Count the classes of one batch of labels."""
        return summarize_classes(self.name, y, sample_weight)

    def empty(self) -> ClassCounts:
        """The state of no data."""
        return ClassCounts.empty()


@register("entropy", higher_is_better=None, bounds=(0.0, math.inf), inputs="target")
@dataclass(frozen=True)
class Entropy(_ClassMetric):
    """Shannon entropy of the class distribution of a label column.

    .. math:: H(Y) = -\\sum_c p_c \\log_b p_c, \\qquad p_c = n_c / n

    with weighted counts :math:`n_c` when ``sample_weight`` is given and
    :math:`0 \\log 0 = 0`.

    Parameters
    ----------
    base : float, default 2
        Logarithm base: 2 gives bits, ``math.e`` nats.

    Notes
    -----
    Empty input raises :class:`~scorekit.errors.InputError`; all-zero weights
    give nan with an :class:`~scorekit.errors.UndefinedMetricWarning`. A single
    class has entropy 0. The state is the count of each class, so streamed and
    merged values equal the in-memory one.

    References
    ----------
    Shannon, C. E. (1948). A mathematical theory of communication. Values agree
    with ``scipy.stats.entropy`` of the class proportions.

    Examples
    --------
    >>> Entropy().score(["a", "a", "b", "b"])
    1.0
    >>> round(Entropy(base=math.e).score([0, 0, 0, 1]), 6)
    0.562335
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The Shannon entropy of the class distribution of a label column: the "
        "average number of bits needed to name the class of a sample. 0 for a single class, "
        "log2(k) for k equally frequent classes.",
        formula="H(Y) = -sum_c p_c log_b p_c,  p_c = n_c / n,  0 log 0 = 0",
        convention=sentences(
            "base=2 (default) gives bits, base=math.e nats.",
            COUNTS,
            "The function scorekit.information.entropy also takes a probability vector "
            "(kind='distribution', its default), which must sum to 1 unless normalize=True. "
            "Beside it, cross_entropy H(p, q) = H(p) + KL(p || q) and kl_divergence "
            "KL(p || q) = sum_{p_i > 0} p_i log_b (p_i / q_i) are inf where some q_i = 0 < p_i, "
            "and js_divergence, the mean KL divergence of p and q from (p + q) / 2, is always "
            "finite and at most 1 in bits; all three also compare two label samples "
            "(kind='labels') over the union of their classes.",
        ),
        reference="scipy.stats.entropy of the class proportions with the same base (and "
        "scipy.stats.entropy(p, q) for the KL divergence); Shannon (1948).",
    )

    base: Annotated[float, LOG_BASE] = 2.0

    def compute(self, state: ClassCounts) -> float:
        """Entropy of the counted classes."""
        counts = _scaled(self.name, state.counts)
        if _class_total(self.name, counts, state.labels.size) is None:
            return warn_zero_weight(self.name)
        return float(entropy_rows(counts)) / math.log(self.base)


@register("gini_impurity", higher_is_better=None, bounds=(0.0, 1.0), inputs="target")
@dataclass(frozen=True)
class GiniImpurity(_ClassMetric):
    """Gini impurity of the class distribution of a label column (CART's node impurity).

    .. math:: G(Y) = 1 - \\sum_c p_c^2, \\qquad p_c = n_c / n

    Notes
    -----
    Empty input raises :class:`~scorekit.errors.InputError`; all-zero weights
    give nan with an :class:`~scorekit.errors.UndefinedMetricWarning`.

    References
    ----------
    Breiman, Friedman, Olshen and Stone (1984), *Classification and Regression
    Trees*; the impurity of scikit-learn's ``DecisionTreeClassifier(criterion="gini")``.

    Examples
    --------
    >>> GiniImpurity().score([0, 0, 1, 1])
    0.5
    >>> GiniImpurity().score(["x", "x", "x"])
    0.0
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The probability that two samples drawn at random, with replacement, from a "
        "label column belong to different classes: CART's node impurity.",
        formula="G(Y) = 1 - sum_c p_c^2,  p_c = n_c / n",
        convention=sentences(
            "0 for a single class and 1 - 1/k for k equally frequent classes; no logarithm, "
            "so no base.",
            COUNTS,
            "The function scorekit.information.gini_impurity also takes a probability "
            "vector (kind='distribution').",
        ),
        reference="The node impurity of scikit-learn's "
        "DecisionTreeClassifier(criterion='gini'); Breiman, Friedman, Olshen and Stone "
        "(1984), Classification and Regression Trees.",
    )

    def compute(self, state: ClassCounts) -> float:
        """Gini impurity of the counted classes."""
        counts = _scaled(self.name, state.counts)
        if _class_total(self.name, counts, state.labels.size) is None:
            return warn_zero_weight(self.name)
        return float(gini_rows(counts))


@register("mutual_information", higher_is_better=True, bounds=(0.0, math.inf), inputs="labels")
@dataclass(frozen=True)
class MutualInformation(Metric[Contingency]):
    """Mutual information between two label columns.

    .. math:: I(X; Y) = \\sum_{x, y} p_{xy} \\log_b \\frac{p_{xy}}{p_x p_y} = H(Y) - H(Y \\mid X)

    Symmetric in its two arguments.

    Parameters
    ----------
    base : float, default 2
        Logarithm base: 2 gives bits, ``math.e`` nats (scikit-learn's unit).

    Notes
    -----
    The state is the contingency table of the two columns; merging adds counts.
    Empty input raises :class:`~scorekit.errors.InputError`.

    References
    ----------
    Cover and Thomas (2006), *Elements of Information Theory*, ch. 2. With
    ``base=math.e`` it equals scikit-learn's ``mutual_info_score``.

    Examples
    --------
    >>> MutualInformation().score([0, 0, 1, 1], [0, 0, 1, 1])
    1.0
    >>> MutualInformation().score([0, 1, 0, 1], [0, 0, 1, 1])
    0.0
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="How much knowing one label column tells about another: the entropy of y "
        "removed by knowing x. 0 for independent columns, and symmetric in its two arguments.",
        formula="I(X; Y) = sum_{x,y} p_xy log_b (p_xy / (p_x p_y)) = H(Y) - H(Y | X)",
        convention="base=2 (default) gives bits; base=math.e gives nats, scikit-learn's unit. "
        "It equals information_gain of a categorical feature. The state is the contingency "
        "table of the two columns; merging adds counts. Empty input raises an InputError; "
        "all-zero weights give nan with an UndefinedMetricWarning.",
        reference=f"{SK} mutual_info_score, which is in nats (equal with base=math.e); Cover "
        "and Thomas (2006), Elements of Information Theory, ch. 2.",
    )

    base: Annotated[float, LOG_BASE] = 2.0

    def summarize(self, x: Any, y: Any, sample_weight: Any = None) -> Contingency:
        """Cross-tabulate one batch of label pairs."""
        xs = as_labels(self.name, "x", x)
        ys = as_labels(self.name, "y", y)
        return summarize_pairs(self.name, "categorical", xs, ys, sample_weight)

    def empty(self) -> Contingency:
        """The state of no data."""
        return Contingency.empty("categorical")

    def compute(self, state: Contingency) -> float:
        """Mutual information of the tabulated pairs."""
        if _class_total(self.name, _scaled(self.name, state.table), state.values.size) is None:
            return warn_zero_weight(self.name)
        scored = split_score(
            self.name, "information_gain", "categorical", state.values, state.table.T
        )
        return scored.score / math.log(self.base)


# functions ----------------------------------------------------------------------------


def _distribution(metric: str, name: str, p: Any, normalize: bool) -> NDArray[np.float64]:
    """A checked probability vector: finite, non-negative, summing to 1 (or normalised)."""
    arr = as_scores(metric, name, p)
    if arr.size == 0:
        raise InputError(message(metric, f"{name} is empty", raw("0 values"), "a distribution"))
    if arr.min() < 0:
        i = int(np.argmin(arr))
        raise InputError(
            message(
                metric,
                f"{name} has a negative probability",
                raw(f"{arr[i]} at index {i}"),
                "values >= 0",
            )
        )
    if normalize:
        scaled = unit_scaled(metric, name, arr)[0]
        total = float(scaled.sum())
        if total == 0:
            raise InputError(
                message(metric, f"{name} sums to 0", raw("all zeros"), "a positive sum")
            )
        out: NDArray[np.float64] = scaled / total
        return out
    with np.errstate(over="ignore"):
        total = float(arr.sum())
    if abs(total - 1.0) > 1e-8:
        raise InputError(
            message(
                metric,
                f"{name} does not sum to 1",
                raw(f"sum {total!r}"),
                "probabilities summing to 1 (or normalize=True)",
            )
        )
    return arr


def _label_distributions(
    metric: str, p: Any, q: Any
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Class proportions of two label samples over the union of their labels."""
    a = summarize_classes(metric, p)
    b = summarize_classes(metric, q)
    for name, state in (("p", a), ("q", b)):
        if state.labels.size == 0:
            raise InputError(message(metric, f"{name} is empty", raw("0 labels"), "labels"))
    labels = union_labels(metric, a.labels, b.labels)
    full_p = np.zeros(len(labels))
    full_q = np.zeros(len(labels))
    full_p[np.searchsorted(labels, a.labels)] = a.counts / a.counts.sum()
    full_q[np.searchsorted(labels, b.labels)] = b.counts / b.counts.sum()
    return full_p, full_q


def _pair(
    metric: str, p: Any, q: Any, kind: Any, normalize: bool, base: Any
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    _check_kind(metric, kind)
    check_base(metric, base)
    if kind == "labels":
        return _label_distributions(metric, p, q)
    pv = _distribution(metric, "p", p, normalize)
    qv = _distribution(metric, "q", q, normalize)
    if pv.shape != qv.shape:
        raise InputError(
            message(
                metric,
                "p and q differ in length",
                raw(f"{len(pv)} and {len(qv)}"),
                "one probability per outcome in each",
            )
        )
    return pv, qv


def _kl_nats(p: NDArray[np.float64], q: NDArray[np.float64]) -> float:
    """sum p log(p / q) over p > 0; inf where q = 0 < p."""
    on = p > 0
    if np.any(on & (q == 0)):
        return math.inf
    pp, qq = p[on], q[on]
    return max(float(np.sum(pp * np.log(pp / qq))), 0.0)


def entropy(
    values: Any,
    *,
    kind: Kind = "distribution",
    base: float = 2.0,
    sample_weight: Any = None,
    normalize: bool = False,
) -> float:
    """Shannon entropy of a probability vector (``kind='distribution'``) or of labels.

    .. math:: H(p) = -\\sum_i p_i \\log_b p_i

    Parameters
    ----------
    values : array-like
        A probability vector, or with ``kind='labels'`` a column of class labels
        whose class proportions are used (see :class:`Entropy`).
    kind : {'distribution', 'labels'}, default 'distribution'
        What ``values`` holds; never guessed from the values.
    base : float, default 2
        Logarithm base.
    sample_weight : array-like, optional
        Weights of the labels (``kind='labels'`` only).
    normalize : bool, default False
        Divide a distribution by its sum. Without it a vector that does not sum
        to 1 (within 1e-8) raises :class:`~scorekit.errors.InputError`.

    Examples
    --------
    >>> entropy([0.5, 0.25, 0.25])
    1.5
    >>> entropy(["yes", "no", "yes", "no"], kind="labels")
    1.0
    >>> entropy([2, 1, 1], normalize=True)
    1.5
    """
    _check_kind("entropy", kind)
    if kind == "labels":
        return float(Entropy(base=base).score(values, sample_weight=sample_weight))
    check_base("entropy", base)
    _no_weights("entropy", sample_weight)
    p = _distribution("entropy", "p", values, normalize)
    return float(entropy_rows(p)) / math.log(base)


def _no_weights(metric: str, sample_weight: Any) -> None:
    if sample_weight is not None:
        raise ConfigError(
            message(
                metric,
                "sample_weight applies to labels only",
                raw("sample_weight with kind='distribution'"),
                "kind='labels' or no sample_weight",
            )
        )


def gini_impurity(
    values: Any,
    *,
    kind: Kind = "distribution",
    sample_weight: Any = None,
    normalize: bool = False,
) -> float:
    """Gini impurity ``1 - sum p_i^2`` of a probability vector or of labels.

    Parameters are as in :func:`entropy` (see :class:`GiniImpurity`).

    Examples
    --------
    >>> gini_impurity([0.5, 0.5])
    0.5
    >>> round(gini_impurity(["a", "a", "b"], kind="labels"), 6)
    0.444444
    """
    _check_kind("gini_impurity", kind)
    if kind == "labels":
        return float(GiniImpurity().score(values, sample_weight=sample_weight))
    _no_weights("gini_impurity", sample_weight)
    p = _distribution("gini_impurity", "p", values, normalize)
    return float(gini_rows(p))


def cross_entropy(
    p: Any, q: Any, *, kind: Kind = "distribution", base: float = 2.0, normalize: bool = False
) -> float:
    """Cross-entropy of ``q`` relative to ``p``: the cost of coding ``p`` with ``q``.

    .. math:: H(p, q) = -\\sum_i p_i \\log_b q_i = H(p) + D_{KL}(p \\,\\|\\, q)

    Parameters
    ----------
    p, q : array-like
        Probability vectors over the same outcomes, or with ``kind='labels'``
        two label samples whose class proportions are compared over the union
        of their labels.
    kind : {'distribution', 'labels'}, default 'distribution'
    base : float, default 2
    normalize : bool, default False
        Divide each vector by its sum instead of requiring a sum of 1.

    Returns
    -------
    float
        ``inf`` when some outcome has ``q_i = 0 < p_i``.

    Examples
    --------
    >>> cross_entropy([0.5, 0.5], [0.25, 0.75])
    1.207518749639422
    >>> cross_entropy([1.0, 0.0], [0.0, 1.0])
    inf
    """
    pv, qv = _pair("cross_entropy", p, q, kind, normalize, base)
    return (float(entropy_rows(pv)) + _kl_nats(pv, qv)) / math.log(base)


def kl_divergence(
    p: Any, q: Any, *, kind: Kind = "distribution", base: float = 2.0, normalize: bool = False
) -> float:
    """Kullback-Leibler divergence of ``q`` from ``p``.

    .. math:: D_{KL}(p \\,\\|\\, q) = \\sum_{i: p_i > 0} p_i \\log_b \\frac{p_i}{q_i}

    Parameters are as in :func:`cross_entropy`.

    Returns
    -------
    float
        Non-negative, 0 only when ``p == q``; ``inf`` when some outcome has
        ``q_i = 0 < p_i`` (``q`` cannot code an outcome ``p`` produces).
        Terms with ``p_i = 0`` contribute 0. Agrees with
        ``scipy.stats.entropy(p, q, base=base)``.

    Examples
    --------
    >>> round(kl_divergence([0.5, 0.5], [0.25, 0.75]), 12)
    0.207518749639
    >>> kl_divergence([0.5, 0.5], [1.0, 0.0])
    inf
    """
    pv, qv = _pair("kl_divergence", p, q, kind, normalize, base)
    return _kl_nats(pv, qv) / math.log(base)


def js_divergence(
    p: Any, q: Any, *, kind: Kind = "distribution", base: float = 2.0, normalize: bool = False
) -> float:
    """Jensen-Shannon divergence: the mean KL divergence from the midpoint distribution.

    .. math:: JS(p, q) = \\tfrac12 D_{KL}(p \\,\\|\\, m) + \\tfrac12 D_{KL}(q \\,\\|\\, m),
              \\qquad m = \\tfrac12 (p + q)

    Symmetric, always finite, at most 1 in base 2. It is the square of
    ``scipy.spatial.distance.jensenshannon`` (which returns the distance).
    Parameters are as in :func:`cross_entropy`.

    Examples
    --------
    >>> js_divergence([1.0, 0.0], [0.0, 1.0])
    1.0
    >>> js_divergence([0.5, 0.5], [0.5, 0.5])
    0.0
    """
    pv, qv = _pair("js_divergence", p, q, kind, normalize, base)
    m = (pv + qv) / 2
    return (0.5 * _kl_nats(pv, m) + 0.5 * _kl_nats(qv, m)) / math.log(base)


def mutual_information(x: Any, y: Any, *, base: float = 2.0, sample_weight: Any = None) -> float:
    """Mutual information of two label columns (see :class:`MutualInformation`).

    Examples
    --------
    >>> mutual_information(["a", "a", "b", "b"], [0, 0, 1, 1])
    1.0
    """
    return float(MutualInformation(base=base).score(x, y, sample_weight=sample_weight))
