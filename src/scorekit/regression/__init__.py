"""Regression metrics: squared, absolute, percentage and logarithmic errors, R^2, deviances, D^2.

Every function follows scikit-learn's signature for the metric of the same
meaning (``sample_weight``, ``multioutput``), so switching is a change of
import. Targets are 1-D ``(n,)`` or 2-D ``(n, n_outputs)``; statistics are
accumulated in float64.

Examples
--------
>>> from scorekit import regression
>>> regression.mse([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
0.375
>>> regression.r2([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
0.948...
"""

from scorekit.regression import _inputs  # noqa: F401  (registers the input kinds)
from scorekit.regression._base import ErrorSums
from scorekit.regression._d2 import (
    D2AbsoluteError,
    D2Pinball,
    TargetValues,
    d2_absolute_error,
    d2_pinball,
)
from scorekit.regression._d2_tweedie import D2Tweedie, DevianceMoments, d2_tweedie
from scorekit.regression._deviance import (
    GammaDeviance,
    PinballLoss,
    PoissonDeviance,
    TweedieDeviance,
    gamma_deviance,
    pinball_loss,
    poisson_deviance,
    tweedie_deviance,
)
from scorekit.regression._log import MSLE, RMSLE, msle, rmsle
from scorekit.regression._means import MAE, MSE, RMSE, mae, mse, rmse
from scorekit.regression._order import AbsErrors, MaxAbsError, MaxError, MedAE, max_error, medae
from scorekit.regression._percent import MAPE, SMAPE, WMAPE, mape, smape, wmape
from scorekit.regression._sample import PairSample, PredictionSample, Sample, prediction_sample
from scorekit.regression._variance import (
    R2,
    ExplainedVariance,
    ExplainedVarianceSums,
    R2Sums,
    explained_variance,
    r2,
)

__all__ = [
    "MAE",
    "MAPE",
    "MSE",
    "MSLE",
    "R2",
    "RMSE",
    "RMSLE",
    "SMAPE",
    "WMAPE",
    "AbsErrors",
    "D2AbsoluteError",
    "D2Pinball",
    "D2Tweedie",
    "DevianceMoments",
    "ErrorSums",
    "ExplainedVariance",
    "ExplainedVarianceSums",
    "GammaDeviance",
    "MaxAbsError",
    "MaxError",
    "MedAE",
    "PairSample",
    "PinballLoss",
    "PoissonDeviance",
    "PredictionSample",
    "R2Sums",
    "Sample",
    "TargetValues",
    "TweedieDeviance",
    "d2_absolute_error",
    "d2_pinball",
    "d2_tweedie",
    "explained_variance",
    "gamma_deviance",
    "mae",
    "mape",
    "max_error",
    "medae",
    "mse",
    "msle",
    "pinball_loss",
    "poisson_deviance",
    "prediction_sample",
    "r2",
    "rmse",
    "rmsle",
    "smape",
    "tweedie_deviance",
    "wmape",
]
