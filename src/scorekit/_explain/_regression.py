"""Explanations of the regression metrics for ``scorekit explain``."""

from __future__ import annotations

from scorekit._explain._entry import SK as _SK
from scorekit._explain._entry import Explanation

__all__ = ["EXPLANATIONS"]

_OUTPUTS = (
    "For 2-D targets (samples x outputs) multioutput='uniform_average' (default) averages the "
    "per-output values, 'raw_values' returns them and a sequence of output weights gives "
    "their weighted mean."
)
_SUMS = (
    "The state is the weighted sum of the error term per output and the total weight; "
    "merging adds them, so chunked and streamed values equal the in-memory one up to "
    "rounding of the sums."
)
_INPUT = (
    "Empty input and all-zero sample weights raise an InputError, as do NaN and infinite values."
)
_VARIANCE_OUTPUTS = (
    "multioutput also takes 'variance_weighted': outputs weighted by the variance of their "
    "targets (the uniform mean when every output is constant)."
)


def _convention(*parts: str) -> str:
    return " ".join(parts)


EXPLANATIONS: dict[str, Explanation] = {
    "mse": Explanation(
        definition="The mean of the squared differences between targets and predictions, so "
        "large errors count quadratically; in squared units of the target.",
        formula="MSE = sum_i w_i (y_i - yhat_i)^2 / sum_i w_i   (w_i = 1 unweighted)",
        convention=_convention(_OUTPUTS, _SUMS, _INPUT),
        reference=f"{_SK} mean_squared_error.",
    ),
    "rmse": Explanation(
        definition="The square root of the mean squared error, in the units of the target.",
        formula="RMSE = sqrt(sum_i w_i (y_i - yhat_i)^2 / sum_i w_i)",
        convention=_convention(
            "Shares its state with mse. With several outputs the root is taken per output "
            "before averaging, so the averaged RMSE is not the root of the averaged MSE.",
            _OUTPUTS,
            _INPUT,
        ),
        reference=f"{_SK} root_mean_squared_error.",
    ),
    "mae": Explanation(
        definition="The mean of the absolute differences between targets and predictions, in "
        "the units of the target; every unit of error counts the same.",
        formula="MAE = sum_i w_i |y_i - yhat_i| / sum_i w_i",
        convention=_convention(_OUTPUTS, _SUMS, _INPUT),
        reference=f"{_SK} mean_absolute_error.",
    ),
    "medae": Explanation(
        definition="The median of the absolute differences between targets and predictions: "
        "the typical error, unmoved by a few very large ones.",
        formula="MedAE = median_i |y_i - yhat_i|",
        convention=_convention(
            "An even number of errors gives the mean of the two middle ones. With "
            "sample_weight the weighted median is the smallest error whose cumulative weight "
            "reaches half the total weight, averaged with the next larger error when the "
            "half falls exactly on it (the averaged inverted CDF). The state keeps every "
            "absolute error (8 bytes per sample and output, plus 8 per sample for weights), "
            "so its memory grows with the data; without weights a streamed value equals the "
            "in-memory one exactly. Bounded memory: relative_accuracy=A keeps a DDSketch of "
            "the errors (logarithmic buckets, at most about ln(max/min) / (2A) per output) and "
            "returns Estimate(value, error_bound) with |value - MedAE| <= A * MedAE.",
            _OUTPUTS,
            _INPUT,
        ),
        reference=f"{_SK} median_absolute_error, weighted median included.",
    ),
    "mape": Explanation(
        definition="The mean absolute error relative to the size of each target, as a "
        "fraction: 0.1 means the predictions are off by 10 % of the target on average.",
        formula="MAPE = sum_i w_i |y_i - yhat_i| / max(|y_i|, eps) / sum_i w_i",
        convention=_convention(
            "A fraction, not a percentage. eps (default: float64 machine epsilon, about "
            "2.2e-16) floors the denominator, so at y = 0 a term is |yhat| / eps: 0 for an "
            "exact prediction, huge but finite otherwise. eps can be set; states built with "
            "different eps do not merge.",
            _OUTPUTS,
            _INPUT,
        ),
        reference=f"{_SK} mean_absolute_percentage_error (the same eps floor).",
    ),
    "smape": Explanation(
        definition="The absolute error relative to the mean magnitude of target and "
        "prediction, averaged over samples; swapping y and yhat leaves it unchanged.",
        formula="sMAPE = sum_i w_i |y_i - yhat_i| / ((|y_i| + |yhat_i|) / 2) / sum_i w_i",
        convention=_convention(
            "A fraction in [0, 2], not a percentage (0 to 200 %). A term with y = yhat = 0 "
            "is 0/0 and counts as 0, a perfect prediction; a term where only one of the two "
            "is 0 counts 2, the maximum.",
            _OUTPUTS,
            _SUMS,
            _INPUT,
        ),
        reference="The sMAPE of the M4 forecasting competition (Makridakis, Spiliotis and "
        "Assimakopoulos 2020) divided by 100. scikit-learn has no sMAPE; values are checked "
        "against the formula computed directly.",
    ),
    "wmape": Explanation(
        definition="The total absolute error divided by the total absolute target: a "
        "percentage error in which large targets weigh more and a single zero target does "
        "no harm.",
        formula="wMAPE = sum_i w_i |y_i - yhat_i| / sum_i w_i |y_i|",
        convention=_convention(
            "A fraction. The state holds both sums per output, so merged chunks give the "
            "ratio of the totals, never a mean of per-chunk ratios. When sum |y| = 0 (every "
            "target is 0) the ratio is undefined: 0.0 if every prediction is exact too and "
            "inf otherwise, with an UndefinedMetricWarning in both cases.",
            _OUTPUTS,
            _INPUT,
        ),
        reference="scikit-learn has no wMAPE; values are checked against the ratio of the two "
        "sums computed directly.",
    ),
    "r2": Explanation(
        definition="The coefficient of determination: the fraction of the variance of the "
        "targets that the predictions explain. 1 is perfect, 0 is no better than always "
        "predicting the mean, and worse predictions score below 0.",
        formula="R^2 = 1 - sum_i w_i (y_i - yhat_i)^2 / sum_i w_i (y_i - ybar)^2,  "
        "ybar = weighted mean of y",
        convention=_convention(
            "Constant y_true makes the denominator 0: force_finite=True (default) gives 1.0 "
            "for exact predictions and 0.0 otherwise, force_finite=False the formula's nan "
            "or -inf, both with an UndefinedMetricWarning. Fewer than two samples give nan "
            "with a warning. The state keeps, per output, the total weight W, the mean of "
            "the targets and M2, their weighted sum of squared deviations from that mean, "
            "plus the sum of squared residuals. Chunks a and b merge with Chan et al.'s "
            "pairwise formula, M2 = M2_a + M2_b + d^2 W_a W_b / (W_a + W_b) with d the "
            "difference of their means; sum(y^2) - n ybar^2 is never formed, so targets "
            "like 1e9 + noise keep their precision in any chunking.",
            _OUTPUTS,
            _VARIANCE_OUTPUTS,
            _INPUT,
        ),
        reference=f"{_SK} r2_score, force_finite included; Chan, Golub and LeVeque (1983) "
        "for the merge of variances.",
    ),
    "explained_variance": Explanation(
        definition="One minus the variance of the residuals over the variance of the targets. "
        "Unlike R^2 it does not penalise a constant bias of the predictions.",
        formula="EV = 1 - Var_w(y - yhat) / Var_w(y)",
        convention=_convention(
            "Constant y_true: force_finite=True (default) gives 1.0 when the residuals are "
            "constant too (predictions exact up to a shift) and 0.0 otherwise, "
            "force_finite=False the formula's nan or -inf, both with an "
            "UndefinedMetricWarning. Both variances are kept as (weight, mean, M2) moments "
            "per output and merged with Chan et al.'s pairwise formula, as for r2.",
            _OUTPUTS,
            _VARIANCE_OUTPUTS,
            _INPUT,
        ),
        reference=f"{_SK} explained_variance_score, force_finite included.",
    ),
    "max_error": Explanation(
        definition="The largest absolute difference between a target and its prediction: the "
        "worst case.",
        formula="max_error = max_i |y_i - yhat_i|",
        convention="1-D targets only and no sample weights, as in scikit-learn; 2-D targets "
        "raise an InputError. The state is the sample count and the largest error seen, so "
        "merging is exact in any order. Empty input and NaN or infinite values raise an "
        "InputError.",
        reference=f"{_SK} max_error.",
    ),
    "msle": Explanation(
        definition="The mean squared difference between log(1 + y) and log(1 + yhat): a "
        "relative error for non-negative targets that span orders of magnitude, where "
        "under-predicting costs more than over-predicting by the same amount.",
        formula="MSLE = sum_i w_i (ln(1 + y_i) - ln(1 + yhat_i))^2 / sum_i w_i",
        convention=_convention(
            "Natural logarithm. A value <= -1 in either input raises an InputError naming "
            "it, since log(1 + y) is undefined there; values in (-1, 0) are accepted, as in "
            "scikit-learn 1.9.",
            _OUTPUTS,
            _SUMS,
            _INPUT,
        ),
        reference=f"{_SK} mean_squared_log_error.",
    ),
    "rmsle": Explanation(
        definition="The square root of the mean squared logarithmic error.",
        formula="RMSLE = sqrt(sum_i w_i (ln(1 + y_i) - ln(1 + yhat_i))^2 / sum_i w_i)",
        convention=_convention(
            "Shares its state with msle and rejects values <= -1 in the same way. With "
            "several outputs the root is taken per output before averaging.",
            _OUTPUTS,
            _INPUT,
        ),
        reference=f"{_SK} root_mean_squared_log_error.",
    ),
}
