"""Explanations of the information measures and split criteria for ``scorekit explain``."""

from __future__ import annotations

from scorekit._explain._entry import SK as _SK
from scorekit._explain._entry import Explanation

__all__ = ["EXPLANATIONS"]

_COUNTS = (
    "Counts are weighted when sample_weight is given. The state is the count of each class, "
    "so chunked and streamed values equal the in-memory one. Empty input raises an "
    "InputError; all-zero weights give nan with an UndefinedMetricWarning."
)
_SPLIT = (
    "Arguments are (x, y): the feature column, then the target labels. feature='categorical' "
    "(default) splits multiway, one branch per distinct value; feature='numeric' "
    "(name:numeric) splits in two, x <= t against x > t, trying every midpoint t between "
    "consecutive distinct sorted values, and the lowest threshold wins ties. Branch sizes are "
    "weighted when sample_weight is given."
)
_TABLE = (
    "The state is the feature-value x class contingency table, which grows with the number "
    "of distinct feature values; merging adds counts, so chunked values equal the in-memory "
    "one. Empty input raises an InputError; all-zero weights give nan with an "
    "UndefinedMetricWarning. rank_features(X, y, criterion=...) scores every column of a "
    "table by the same criteria (numeric dtypes split at a threshold, other types multiway) "
    "and best_split returns the best column, the test ID3, C4.5 or CART would put at the root."
)


def _convention(*parts: str) -> str:
    return " ".join(parts)


EXPLANATIONS: dict[str, Explanation] = {
    "entropy": Explanation(
        definition="The Shannon entropy of the class distribution of a label column: the "
        "average number of bits needed to name the class of a sample. 0 for a single class, "
        "log2(k) for k equally frequent classes.",
        formula="H(Y) = -sum_c p_c log_b p_c,  p_c = n_c / n,  0 log 0 = 0",
        convention=_convention(
            "base=2 (default) gives bits, base=math.e nats.",
            _COUNTS,
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
    ),
    "gini_impurity": Explanation(
        definition="The probability that two samples drawn at random, with replacement, from a "
        "label column belong to different classes: CART's node impurity.",
        formula="G(Y) = 1 - sum_c p_c^2,  p_c = n_c / n",
        convention=_convention(
            "0 for a single class and 1 - 1/k for k equally frequent classes; no logarithm, "
            "so no base.",
            _COUNTS,
            "The function scorekit.information.gini_impurity also takes a probability "
            "vector (kind='distribution').",
        ),
        reference="The node impurity of scikit-learn's "
        "DecisionTreeClassifier(criterion='gini'); Breiman, Friedman, Olshen and Stone "
        "(1984), Classification and Regression Trees.",
    ),
    "mutual_information": Explanation(
        definition="How much knowing one label column tells about another: the entropy of y "
        "removed by knowing x. 0 for independent columns, and symmetric in its two arguments.",
        formula="I(X; Y) = sum_{x,y} p_xy log_b (p_xy / (p_x p_y)) = H(Y) - H(Y | X)",
        convention="base=2 (default) gives bits; base=math.e gives nats, scikit-learn's unit. "
        "It equals information_gain of a categorical feature. The state is the contingency "
        "table of the two columns; merging adds counts. Empty input raises an InputError; "
        "all-zero weights give nan with an UndefinedMetricWarning.",
        reference=f"{_SK} mutual_info_score, which is in nats (equal with base=math.e); Cover "
        "and Thomas (2006), Elements of Information Theory, ch. 2.",
    ),
    "information_gain": Explanation(
        definition="The reduction in the entropy of the target achieved by splitting the "
        "samples on a feature: ID3's criterion for choosing the attribute tested at a node.",
        formula="IG(Y, X) = H(Y) - sum_v (|Y_v| / |Y|) H(Y_v), over the branches v of the split",
        convention=_convention(
            _SPLIT,
            "A numeric feature keeps the threshold of highest gain. Entropies are in base 2 "
            "(bits) by default. A constant feature or a one-class target has gain 0, and a "
            "multiway split's gain equals the mutual information of x and y.",
            _TABLE,
        ),
        reference="Quinlan (1986), Induction of decision trees (ID3). Numeric splits equal the "
        "impurity decrease of scikit-learn's DecisionTreeClassifier(criterion='entropy', "
        "max_depth=1), in bits.",
    ),
    "split_information": Explanation(
        definition="The entropy of the branch sizes of a split: how finely and evenly it "
        "divides the samples, whatever their classes. C4.5 divides information gain by it to "
        "penalise features with many values.",
        formula="SI(X) = -sum_v (|Y_v| / |Y|) log_b (|Y_v| / |Y|)",
        convention=_convention(
            _SPLIT,
            "A categorical feature has one branch per value, so SI is the entropy of x. A "
            "numeric feature uses the two branches of the threshold of highest information "
            "gain, as C4.5 chooses it, which is why the target y is needed. A constant "
            "feature has SI 0. base=2 (default) gives bits.",
            _TABLE,
        ),
        reference="Quinlan (1993), C4.5: Programs for Machine Learning, section 2.2; equal to "
        "scipy.stats.entropy of the branch sizes.",
    ),
    "gain_ratio": Explanation(
        definition="Information gain divided by split information: C4.5's correction of ID3's "
        "preference for features with many distinct values.",
        formula="GR(Y, X) = IG(Y, X) / SI(X)",
        convention=_convention(
            _SPLIT,
            "When SI = 0 (a constant feature: one branch) the ratio is undefined and set to 0 "
            "with an UndefinedMetricWarning. A numeric feature takes the ratio at the "
            "threshold of highest information gain, as C4.5 does: the ratio is not maximised "
            "over thresholds, and no correction for the number of candidate thresholds is "
            "made. The value lies in [0, 1], since IG <= SI, and does not depend on the "
            "logarithm base (there is no base option).",
            _TABLE,
        ),
        reference="Quinlan (1993), C4.5: Programs for Machine Learning; computed from the same "
        "table as information_gain and split_information.",
    ),
    "gini_gain": Explanation(
        definition="The decrease in Gini impurity achieved by splitting the samples on a "
        "feature: CART's criterion.",
        formula="DeltaG(Y, X) = G(Y) - sum_v (|Y_v| / |Y|) G(Y_v),  G = 1 - sum_c p_c^2",
        convention=_convention(
            _SPLIT,
            "A numeric feature keeps the threshold of highest Gini gain; that binary search "
            "is CART's (gini_gain:numeric), while the categorical default is a multiway "
            "split. The value lies in [0, 1].",
            _TABLE,
        ),
        reference="Breiman, Friedman, Olshen and Stone (1984), Classification and Regression "
        "Trees. Numeric splits equal the impurity decrease of scikit-learn's "
        "DecisionTreeClassifier(criterion='gini', max_depth=1).",
    ),
}
