"""Information theory and decision-tree split criteria.

Entropy, Gini impurity, mutual information, cross-entropy and the KL / JS
divergences, of label columns or of probability vectors; the split criteria of
ID3 (information gain), C4.5 (split information, gain ratio) and CART (Gini
gain) for categorical and numeric features; and :func:`best_split` /
:func:`rank_features` over the columns of a table (:func:`rank_file`: of a
file). Entropies are in bits unless ``base`` says otherwise.
"""

from scorekit.information import _inputs  # noqa: F401  (registers the input kinds)
from scorekit.information._files import FeatureRanking, rank_file
from scorekit.information._measures import (
    Entropy,
    GiniImpurity,
    MutualInformation,
    cross_entropy,
    entropy,
    gini_impurity,
    js_divergence,
    kl_divergence,
    mutual_information,
)
from scorekit.information._rank import best_split, rank_features
from scorekit.information._splits import (
    GainRatio,
    GiniGain,
    InformationGain,
    Split,
    SplitInformation,
    gain_ratio,
    gini_gain,
    information_gain,
    split_information,
)
from scorekit.information._tables import CRITERIA, ClassCounts, Contingency

__all__ = [
    "CRITERIA",
    "ClassCounts",
    "Contingency",
    "Entropy",
    "FeatureRanking",
    "GainRatio",
    "GiniGain",
    "GiniImpurity",
    "InformationGain",
    "MutualInformation",
    "Split",
    "SplitInformation",
    "best_split",
    "cross_entropy",
    "entropy",
    "gain_ratio",
    "gini_gain",
    "gini_impurity",
    "information_gain",
    "js_divergence",
    "kl_divergence",
    "mutual_information",
    "rank_features",
    "rank_file",
    "split_information",
]
