"""scikit-learn's regression functions on scorekit.regression."""

from __future__ import annotations

from typing import Any

from scorekit import regression as _r


def mean_squared_error(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, multioutput: Any = "uniform_average"
) -> Any:
    """scikit-learn's ``mean_squared_error``: :func:`scorekit.regression.mse`.

    Examples
    --------
    >>> mean_squared_error([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.375
    """
    return _r.mse(y_true, y_pred, sample_weight=sample_weight, multioutput=multioutput)


def root_mean_squared_error(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, multioutput: Any = "uniform_average"
) -> Any:
    """scikit-learn's ``root_mean_squared_error``: :func:`scorekit.regression.rmse`."""
    return _r.rmse(y_true, y_pred, sample_weight=sample_weight, multioutput=multioutput)


def mean_absolute_error(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, multioutput: Any = "uniform_average"
) -> Any:
    """scikit-learn's ``mean_absolute_error``: :func:`scorekit.regression.mae`."""
    return _r.mae(y_true, y_pred, sample_weight=sample_weight, multioutput=multioutput)


def median_absolute_error(
    y_true: Any, y_pred: Any, *, multioutput: Any = "uniform_average", sample_weight: Any = None
) -> Any:
    """scikit-learn's ``median_absolute_error``: :func:`scorekit.regression.medae`."""
    return _r.medae(y_true, y_pred, multioutput=multioutput, sample_weight=sample_weight)


def mean_absolute_percentage_error(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, multioutput: Any = "uniform_average"
) -> Any:
    """scikit-learn's ``mean_absolute_percentage_error``: :func:`scorekit.regression.mape`.

    A fraction, not a percentage, as in scikit-learn.
    """
    return _r.mape(y_true, y_pred, sample_weight=sample_weight, multioutput=multioutput)


def mean_squared_log_error(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, multioutput: Any = "uniform_average"
) -> Any:
    """scikit-learn's ``mean_squared_log_error``: :func:`scorekit.regression.msle`."""
    return _r.msle(y_true, y_pred, sample_weight=sample_weight, multioutput=multioutput)


def root_mean_squared_log_error(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, multioutput: Any = "uniform_average"
) -> Any:
    """scikit-learn's ``root_mean_squared_log_error``: :func:`scorekit.regression.rmsle`."""
    return _r.rmsle(y_true, y_pred, sample_weight=sample_weight, multioutput=multioutput)


def r2_score(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    multioutput: Any = "uniform_average",
    force_finite: bool = True,
) -> Any:
    """scikit-learn's ``r2_score``: :func:`scorekit.regression.r2`.

    Examples
    --------
    >>> r2_score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.948...
    """
    return _r.r2(
        y_true,
        y_pred,
        sample_weight=sample_weight,
        multioutput=multioutput,
        force_finite=force_finite,
    )


def explained_variance_score(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    multioutput: Any = "uniform_average",
    force_finite: bool = True,
) -> Any:
    """scikit-learn's ``explained_variance_score``.

    Calls :func:`scorekit.regression.explained_variance`.
    """
    return _r.explained_variance(
        y_true,
        y_pred,
        sample_weight=sample_weight,
        multioutput=multioutput,
        force_finite=force_finite,
    )


def max_error(y_true: Any, y_pred: Any) -> Any:
    """scikit-learn's ``max_error``: :func:`scorekit.regression.max_error`."""
    return _r.max_error(y_true, y_pred)


def mean_pinball_loss(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    alpha: float = 0.5,
    multioutput: Any = "uniform_average",
) -> Any:
    """scikit-learn's ``mean_pinball_loss``: :func:`scorekit.regression.pinball_loss`.

    Examples
    --------
    >>> mean_pinball_loss([1, 2, 3], [0, 2, 3], alpha=0.9)
    0.3
    """
    return _r.pinball_loss(
        y_true, y_pred, sample_weight=sample_weight, alpha=alpha, multioutput=multioutput
    )


def mean_tweedie_deviance(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, power: float = 0
) -> Any:
    """scikit-learn's ``mean_tweedie_deviance``: :func:`scorekit.regression.tweedie_deviance`.

    scorekit also takes 2-D targets (their per-output deviances averaged),
    where scikit-learn raises.
    """
    return _r.tweedie_deviance(y_true, y_pred, sample_weight=sample_weight, power=power)


def mean_poisson_deviance(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> Any:
    """scikit-learn's ``mean_poisson_deviance``: :func:`scorekit.regression.poisson_deviance`."""
    return _r.poisson_deviance(y_true, y_pred, sample_weight=sample_weight)


def mean_gamma_deviance(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> Any:
    """scikit-learn's ``mean_gamma_deviance``: :func:`scorekit.regression.gamma_deviance`."""
    return _r.gamma_deviance(y_true, y_pred, sample_weight=sample_weight)


def d2_tweedie_score(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, power: float = 0
) -> Any:
    """scikit-learn's ``d2_tweedie_score``: :func:`scorekit.regression.d2_tweedie`.

    Constant ``y_true`` gives 1.0 for exact predictions and 0.0 otherwise,
    with a warning, where scikit-learn raises ZeroDivisionError.
    """
    return _r.d2_tweedie(y_true, y_pred, sample_weight=sample_weight, power=power)


def d2_pinball_score(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    alpha: float = 0.5,
    multioutput: Any = "uniform_average",
) -> Any:
    """scikit-learn's ``d2_pinball_score``: :func:`scorekit.regression.d2_pinball`.

    Examples
    --------
    >>> d2_pinball_score([1, 2, 3], [1, 3, 3])
    0.5
    """
    return _r.d2_pinball(
        y_true, y_pred, sample_weight=sample_weight, alpha=alpha, multioutput=multioutput
    )


def d2_absolute_error_score(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, multioutput: Any = "uniform_average"
) -> Any:
    """scikit-learn's ``d2_absolute_error_score``: :func:`scorekit.regression.d2_absolute_error`."""
    return _r.d2_absolute_error(
        y_true, y_pred, sample_weight=sample_weight, multioutput=multioutput
    )
