"""Classification metrics: confusion counts, P/R/F, agreement, curves and AUC, probabilities.

Every function here follows scikit-learn's signature for the metric of the same
meaning, so switching is a change of import.
"""

from scorekit.classification._counts import ConfusionCounts
from scorekit.classification._labels import (
    MCC,
    Accuracy,
    BalancedAccuracy,
    CohenKappa,
    ConfusionMatrix,
    ErrorRate,
    F1,
    FBeta,
    Precision,
    Recall,
    accuracy,
    balanced_accuracy,
    classification_report,
    cohen_kappa,
    confusion_matrix,
    error_rate,
    f1,
    fbeta,
    mcc,
    precision,
    precision_recall_fscore_support,
    recall,
)

__all__ = [
    "MCC",
    "Accuracy",
    "BalancedAccuracy",
    "CohenKappa",
    "ConfusionCounts",
    "ConfusionMatrix",
    "ErrorRate",
    "F1",
    "FBeta",
    "Precision",
    "Recall",
    "accuracy",
    "balanced_accuracy",
    "classification_report",
    "cohen_kappa",
    "confusion_matrix",
    "error_rate",
    "f1",
    "fbeta",
    "mcc",
    "precision",
    "precision_recall_fscore_support",
    "recall",
]
