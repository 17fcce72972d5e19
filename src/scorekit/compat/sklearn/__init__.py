"""scikit-learn's ``sklearn.metrics`` on scorekit: switching is a change of import.

Every function of ``sklearn.metrics`` that scorekit computes is here under
scikit-learn's name, with scikit-learn's signature (parameter names, order,
keyword-only markers, defaults) and return types; each calls the scorekit
function named in :data:`NAMES` and only translates arguments and results.

Differences from scikit-learn:

- warnings are :class:`scorekit.errors.UndefinedMetricWarning`, and errors are
  scorekit's :class:`~scorekit.errors.InputError` / :class:`~scorekit.errors.ConfigError`
  (both :class:`ValueError`, as scikit-learn's are), with scorekit's messages;
- an argument value scikit-learn accepts and scorekit cannot reproduce
  (``dcg_score(log_base=10)``, ``mutual_info_score(contingency=...)``) raises
  :class:`~scorekit.errors.ConfigError` naming the function, the argument and the value;
- ``d2_tweedie_score`` of constant ``y_true`` is 1.0 for exact predictions and 0.0
  otherwise, with a warning, where scikit-learn raises ZeroDivisionError; it and the
  Tweedie, Poisson and Gamma deviances also take 2-D targets, where scikit-learn raises;
- a function of ``sklearn.metrics`` that scorekit does not compute (clustering
  scores, pairwise distances, scorers, displays, ...) raises
  :class:`MissingFunctionError` naming it, on attribute access and on
  ``from scorekit.compat.sklearn import ...`` alike. scikit-learn is never imported.

Examples
--------
>>> from scorekit.compat import sklearn as metrics
>>> metrics.f1_score([0, 1, 1, 0], [0, 1, 0, 0])
0.666...
>>> metrics.NAMES["f1_score"]
'scorekit.classification.f1'
>>> try:
...     metrics.silhouette_score
... except metrics.MissingFunctionError as error:
...     print(error)
scorekit.compat.sklearn: sklearn.metrics.silhouette_score is not computed by scorekit;
got 'silhouette_score', expected a name of scorekit.compat.sklearn.NAMES
(or import silhouette_score from sklearn.metrics).
"""

from __future__ import annotations

from typing import NoReturn

from scorekit.compat.sklearn._classification import (
    accuracy_score,
    average_precision_score,
    balanced_accuracy_score,
    brier_score_loss,
    class_likelihood_ratios,
    classification_report,
    cohen_kappa_score,
    confusion_matrix,
    det_curve,
    f1_score,
    fbeta_score,
    log_loss,
    matthews_corrcoef,
    precision_recall_curve,
    precision_recall_fscore_support,
    precision_score,
    recall_score,
    roc_auc_score,
    roc_curve,
    top_k_accuracy_score,
    zero_one_loss,
)
from scorekit.compat.sklearn._multilabel import (
    coverage_error,
    hamming_loss,
    jaccard_score,
    label_ranking_average_precision_score,
    label_ranking_loss,
    multilabel_confusion_matrix,
)
from scorekit.compat.sklearn._other import (
    dcg_score,
    mutual_info_score,
    ndcg_score,
)
from scorekit.compat.sklearn._regression import (
    d2_absolute_error_score,
    d2_pinball_score,
    d2_tweedie_score,
    explained_variance_score,
    max_error,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_gamma_deviance,
    mean_pinball_loss,
    mean_poisson_deviance,
    mean_squared_error,
    mean_squared_log_error,
    mean_tweedie_deviance,
    median_absolute_error,
    r2_score,
    root_mean_squared_error,
    root_mean_squared_log_error,
)
from scorekit.errors import ConfigError, message


class MissingFunctionError(ConfigError, ImportError):
    """A function of ``sklearn.metrics`` that scorekit does not compute.

    A :class:`~scorekit.errors.ConfigError` and an :class:`ImportError`, so its
    message reaches the user both from ``metrics.name`` and from
    ``from scorekit.compat.sklearn import name`` (Python replaces an
    :class:`AttributeError` of a module's ``__getattr__`` by a bare ImportError
    in from-imports). For the same reason ``hasattr`` raises it for these names
    instead of returning False: test ``name in NAMES`` to ask whether scorekit
    computes a function.
    """


#: The public names of ``sklearn.metrics`` (scikit-learn 1.9), computed here or not.
SKLEARN_NAMES: tuple[str, ...] = (
    "ConfusionMatrixDisplay",
    "DetCurveDisplay",
    "DistanceMetric",
    "PrecisionRecallDisplay",
    "PredictionErrorDisplay",
    "RocCurveDisplay",
    "accuracy_score",
    "adjusted_mutual_info_score",
    "adjusted_rand_score",
    "auc",
    "average_precision_score",
    "balanced_accuracy_score",
    "brier_score_loss",
    "calinski_harabasz_score",
    "check_scoring",
    "class_likelihood_ratios",
    "classification_report",
    "cluster",
    "cohen_kappa_score",
    "completeness_score",
    "confusion_matrix",
    "confusion_matrix_at_thresholds",
    "consensus_score",
    "coverage_error",
    "d2_absolute_error_score",
    "d2_brier_score",
    "d2_log_loss_score",
    "d2_pinball_score",
    "d2_tweedie_score",
    "davies_bouldin_score",
    "dcg_score",
    "det_curve",
    "euclidean_distances",
    "explained_variance_score",
    "f1_score",
    "fbeta_score",
    "fowlkes_mallows_score",
    "get_scorer",
    "get_scorer_names",
    "hamming_loss",
    "hinge_loss",
    "homogeneity_completeness_v_measure",
    "homogeneity_score",
    "jaccard_score",
    "label_ranking_average_precision_score",
    "label_ranking_loss",
    "log_loss",
    "make_scorer",
    "matthews_corrcoef",
    "max_error",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_gamma_deviance",
    "mean_pinball_loss",
    "mean_poisson_deviance",
    "mean_squared_error",
    "mean_squared_log_error",
    "mean_tweedie_deviance",
    "median_absolute_error",
    "metric_at_thresholds",
    "multilabel_confusion_matrix",
    "mutual_info_score",
    "nan_euclidean_distances",
    "ndcg_score",
    "normalized_mutual_info_score",
    "pair_confusion_matrix",
    "pairwise_distances",
    "pairwise_distances_argmin",
    "pairwise_distances_argmin_min",
    "pairwise_distances_chunked",
    "pairwise_kernels",
    "precision_recall_curve",
    "precision_recall_fscore_support",
    "precision_score",
    "r2_score",
    "rand_score",
    "recall_score",
    "roc_auc_score",
    "roc_curve",
    "root_mean_squared_error",
    "root_mean_squared_log_error",
    "silhouette_samples",
    "silhouette_score",
    "top_k_accuracy_score",
    "v_measure_score",
    "zero_one_loss",
)

#: scikit-learn name -> the scorekit function it calls.
NAMES: dict[str, str] = {
    "accuracy_score": "scorekit.classification.accuracy",
    "average_precision_score": "scorekit.classification.average_precision",
    "balanced_accuracy_score": "scorekit.classification.balanced_accuracy",
    "brier_score_loss": "scorekit.classification.brier",
    "class_likelihood_ratios": "scorekit.classification.class_likelihood_ratios",
    "classification_report": "scorekit.classification.classification_report",
    "cohen_kappa_score": "scorekit.classification.cohen_kappa",
    "confusion_matrix": "scorekit.classification.confusion_matrix",
    "coverage_error": "scorekit.multilabel.coverage_error",
    "d2_absolute_error_score": "scorekit.regression.d2_absolute_error",
    "d2_pinball_score": "scorekit.regression.d2_pinball",
    "d2_tweedie_score": "scorekit.regression.d2_tweedie",
    "dcg_score": "scorekit.ranking.dcg",
    "det_curve": "scorekit.classification.det_curve",
    "explained_variance_score": "scorekit.regression.explained_variance",
    "f1_score": "scorekit.classification.f1",
    "fbeta_score": "scorekit.classification.fbeta",
    "hamming_loss": "scorekit.multilabel.hamming_loss",
    "jaccard_score": "scorekit.multilabel.jaccard",
    "label_ranking_average_precision_score": "scorekit.multilabel.label_ranking_average_precision",
    "label_ranking_loss": "scorekit.multilabel.ranking_loss",
    "log_loss": "scorekit.classification.log_loss",
    "matthews_corrcoef": "scorekit.classification.mcc",
    "max_error": "scorekit.regression.max_error",
    "mean_absolute_error": "scorekit.regression.mae",
    "mean_absolute_percentage_error": "scorekit.regression.mape",
    "mean_gamma_deviance": "scorekit.regression.gamma_deviance",
    "mean_pinball_loss": "scorekit.regression.pinball_loss",
    "mean_poisson_deviance": "scorekit.regression.poisson_deviance",
    "mean_squared_error": "scorekit.regression.mse",
    "mean_squared_log_error": "scorekit.regression.msle",
    "mean_tweedie_deviance": "scorekit.regression.tweedie_deviance",
    "median_absolute_error": "scorekit.regression.medae",
    "multilabel_confusion_matrix": "scorekit.classification.multilabel_counts",
    "mutual_info_score": "scorekit.information.mutual_information",
    "ndcg_score": "scorekit.ranking.ndcg",
    "precision_recall_curve": "scorekit.classification.pr_curve",
    "precision_recall_fscore_support": "scorekit.classification.precision_recall_fscore_support",
    "precision_score": "scorekit.classification.precision",
    "r2_score": "scorekit.regression.r2",
    "recall_score": "scorekit.classification.recall",
    "roc_auc_score": "scorekit.classification.roc_auc",
    "roc_curve": "scorekit.classification.roc_curve",
    "root_mean_squared_error": "scorekit.regression.rmse",
    "root_mean_squared_log_error": "scorekit.regression.rmsle",
    "top_k_accuracy_score": "scorekit.classification.top_k_accuracy",
    "zero_one_loss": "scorekit.classification.error_rate",
}

#: The names of :data:`SKLEARN_NAMES` that scorekit does not compute.
MISSING: tuple[str, ...] = tuple(name for name in SKLEARN_NAMES if name not in NAMES)


def __getattr__(name: str) -> NoReturn:
    if name in MISSING:
        raise MissingFunctionError(
            message(
                __name__,
                f"sklearn.metrics.{name} is not computed by scorekit",
                name,
                f"a name of {__name__}.NAMES (or import {name} from sklearn.metrics)",
            )
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "MISSING",
    "NAMES",
    "SKLEARN_NAMES",
    "MissingFunctionError",
    "accuracy_score",
    "average_precision_score",
    "balanced_accuracy_score",
    "brier_score_loss",
    "class_likelihood_ratios",
    "classification_report",
    "cohen_kappa_score",
    "confusion_matrix",
    "coverage_error",
    "d2_absolute_error_score",
    "d2_pinball_score",
    "d2_tweedie_score",
    "dcg_score",
    "det_curve",
    "explained_variance_score",
    "f1_score",
    "fbeta_score",
    "hamming_loss",
    "jaccard_score",
    "label_ranking_average_precision_score",
    "label_ranking_loss",
    "log_loss",
    "matthews_corrcoef",
    "max_error",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_gamma_deviance",
    "mean_pinball_loss",
    "mean_poisson_deviance",
    "mean_squared_error",
    "mean_squared_log_error",
    "mean_tweedie_deviance",
    "median_absolute_error",
    "multilabel_confusion_matrix",
    "mutual_info_score",
    "ndcg_score",
    "precision_recall_curve",
    "precision_recall_fscore_support",
    "precision_score",
    "r2_score",
    "recall_score",
    "roc_auc_score",
    "roc_curve",
    "root_mean_squared_error",
    "root_mean_squared_log_error",
    "top_k_accuracy_score",
    "zero_one_loss",
]
