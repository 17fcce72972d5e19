"""Multi-label metrics (Wu & Zhou 2017): hamming loss, ranking losses, coverage.

Two families live here. Label-prediction measures (``hamming_loss``,
``subset_accuracy``, ``jaccard`` and the sample-averaged ``precision``,
``recall``, ``f1``) take two ``(n_samples, n_labels)`` 0/1 indicator matrices
and share the :class:`~scorekit.classification.ConfusionCounts` state of the
classification metrics. Score-based ranking measures (``one_error``,
``coverage_error``, ``coverage``, ``ranking_loss``,
``label_ranking_average_precision``) take an indicator matrix and a matrix of
real-valued label scores; each sample contributes one value, so their state,
:class:`PerSampleSums`, is a weighted sum of those values and the total weight.

Every function agrees with scikit-learn's function of the same meaning where
scikit-learn has one (see each class's References).
"""

from scorekit.multilabel import _inputs  # noqa: F401  (registers the input kinds)
from scorekit.multilabel._labels import (
    HammingLoss,
    Jaccard,
    SubsetAccuracy,
    f1,
    hamming_loss,
    jaccard,
    precision,
    recall,
    roc_auc,
    subset_accuracy,
)
from scorekit.multilabel._ranking import (
    Coverage,
    CoverageError,
    LabelRankingAveragePrecision,
    OneError,
    PerSampleSums,
    RankingLoss,
    coverage,
    coverage_error,
    label_ranking_average_precision,
    one_error,
    ranking_loss,
)

__all__ = [
    "Coverage",
    "CoverageError",
    "HammingLoss",
    "Jaccard",
    "LabelRankingAveragePrecision",
    "OneError",
    "PerSampleSums",
    "RankingLoss",
    "SubsetAccuracy",
    "coverage",
    "coverage_error",
    "f1",
    "hamming_loss",
    "jaccard",
    "label_ranking_average_precision",
    "one_error",
    "precision",
    "ranking_loss",
    "recall",
    "roc_auc",
    "subset_accuracy",
]
