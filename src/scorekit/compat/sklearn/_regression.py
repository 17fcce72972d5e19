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
