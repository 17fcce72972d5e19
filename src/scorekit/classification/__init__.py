"""Classification metrics: confusion counts, P/R/F, agreement, curves and AUC, probabilities.

Every function here follows scikit-learn's signature for the metric of the same
meaning, so switching is a change of import. :class:`CountsMetric`,
:func:`multilabel_counts`, :func:`as_indicator` and the ``zero_division`` helpers
(:data:`ZeroDivision`, :func:`check_zero_division`, :func:`zero_division_ratio`,
:func:`nanaverage`) are the building blocks other metrics on confusion counts
(:mod:`scorekit.multilabel`) share.
"""

from scorekit.classification import _inputs  # noqa: F401  (registers the input kinds)
from scorekit.classification._binned import BinnedScores, quantile_edges
from scorekit.classification._calibration import (
    CalibrationBins,
    CalibrationCurve,
    CalibrationCurveMetric,
    CalibrationHistogram,
    ExpectedCalibrationError,
    MaxCalibrationError,
    calibration_curve,
    expected_calibration_error,
    max_calibration_error,
)
from scorekit.classification._counts import (
    ConfusionCounts,
    as_indicator,
    label_columns,
    multilabel_counts,
)
from scorekit.classification._det import DetCurve, DETCurveMetric, det_curve
from scorekit.classification._histogram import ScoreHistogram
from scorekit.classification._labels import (
    MCC,
    Accuracy,
    BalancedAccuracy,
    CohenKappa,
    ConfusionMatrix,
    CountsMetric,
    ErrorRate,
    accuracy,
    balanced_accuracy,
    cohen_kappa,
    confusion_matrix,
    error_rate,
    mcc,
)
from scorekit.classification._pr import (
    AveragePrecision,
    BreakEvenPoint,
    PrCurve,
    PRCurveMetric,
    average_precision,
    break_even_point,
    pr_curve,
)
from scorekit.classification._prf import (
    F1,
    FBeta,
    Precision,
    Recall,
    f1,
    fbeta,
    precision,
    precision_recall_fscore_support,
    recall,
)
from scorekit.classification._proba import Brier, LogLoss, ProbaSums, brier, log_loss
from scorekit.classification._rates import (
    FNR,
    FPR,
    NPV,
    ClassLikelihoodRatios,
    Specificity,
    class_likelihood_ratios,
    fnr,
    fpr,
    npv,
    specificity,
)
from scorekit.classification._report import classification_report
from scorekit.classification._roc import ROCAUC, RocCurve, ROCCurveMetric, roc_auc, roc_curve
from scorekit.classification._roc_names import (
    ROCAUCOvO,
    ROCAUCOvOWeighted,
    ROCAUCOvR,
    ROCAUCOvRWeighted,
)
from scorekit.classification._threshold import (
    OBJECTIVES,
    BestThreshold,
    ThresholdChoice,
    best_threshold,
)
from scorekit.classification._topk import TopKAccuracy, TopKCounts, top_k_accuracy
from scorekit.classification._zero_division import (
    ZeroDivision,
    check_zero_division,
    nanaverage,
    zero_division_ratio,
)

__all__ = [
    "F1",
    "FNR",
    "FPR",
    "MCC",
    "NPV",
    "OBJECTIVES",
    "ROCAUC",
    "Accuracy",
    "AveragePrecision",
    "BalancedAccuracy",
    "BestThreshold",
    "BinnedScores",
    "BreakEvenPoint",
    "Brier",
    "CalibrationBins",
    "CalibrationCurve",
    "CalibrationCurveMetric",
    "CalibrationHistogram",
    "ClassLikelihoodRatios",
    "CohenKappa",
    "ConfusionCounts",
    "ConfusionMatrix",
    "CountsMetric",
    "DETCurveMetric",
    "DetCurve",
    "ErrorRate",
    "ExpectedCalibrationError",
    "FBeta",
    "LogLoss",
    "MaxCalibrationError",
    "PRCurveMetric",
    "PrCurve",
    "Precision",
    "ProbaSums",
    "ROCAUCOvO",
    "ROCAUCOvOWeighted",
    "ROCAUCOvR",
    "ROCAUCOvRWeighted",
    "ROCCurveMetric",
    "Recall",
    "RocCurve",
    "ScoreHistogram",
    "Specificity",
    "ThresholdChoice",
    "TopKAccuracy",
    "TopKCounts",
    "ZeroDivision",
    "accuracy",
    "as_indicator",
    "average_precision",
    "balanced_accuracy",
    "best_threshold",
    "break_even_point",
    "brier",
    "calibration_curve",
    "check_zero_division",
    "class_likelihood_ratios",
    "classification_report",
    "cohen_kappa",
    "confusion_matrix",
    "det_curve",
    "error_rate",
    "expected_calibration_error",
    "f1",
    "fbeta",
    "fnr",
    "fpr",
    "label_columns",
    "log_loss",
    "max_calibration_error",
    "mcc",
    "multilabel_counts",
    "nanaverage",
    "npv",
    "pr_curve",
    "precision",
    "precision_recall_fscore_support",
    "quantile_edges",
    "recall",
    "roc_auc",
    "roc_curve",
    "specificity",
    "top_k_accuracy",
    "zero_division_ratio",
]
