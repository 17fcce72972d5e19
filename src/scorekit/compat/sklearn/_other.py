"""scikit-learn's ranking and clustering functions on scorekit.ranking and scorekit.information."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from scorekit import information as _i
from scorekit import ranking as _rk
from scorekit.errors import ConfigError, InputError, message, raw


def _check_grades(name: str, y_true: Any, y_score: Any, *, negative: str | None) -> None:
    shape = np.shape(y_true)
    if len(shape) != 2 or np.shape(y_score) != shape:
        got = raw(f"shapes {shape} and {np.shape(y_score)}")
        raise InputError(
            message(
                name,
                "y_true and y_score must be 2-D of one shape",
                got,
                "(n_samples, n_labels) each",
            )
        )
    if shape[1] <= 1:
        got = raw(f"{shape[1]} label per sample")
        raise InputError(
            message(name, "ranking needs more than one label per sample", got, "n_labels > 1")
        )
    if negative is not None and np.size(y_true) and np.min(y_true) < 0:
        raise InputError(message(name, "negative relevance", float(np.min(y_true)), negative))


def dcg_score(
    y_true: Any,
    y_score: Any,
    *,
    k: Any = None,
    log_base: Any = 2,
    sample_weight: Any = None,
    ignore_ties: bool = False,
) -> Any:
    """scikit-learn's ``dcg_score``: :func:`scorekit.ranking.dcg`.

    Ties are averaged (``ties="average"``) unless ``ignore_ties``. scorekit's
    discount is log2 and grades <= 0 gain 0, so another ``log_base`` and
    negative relevances raise an error instead of a different number.

    Examples
    --------
    >>> dcg_score([[3, 2, 0]], [[0.9, 0.3, 0.5]])
    4.0
    """
    name = "dcg_score"
    if log_base != 2:
        raise ConfigError(message(name, "scorekit's DCG discount is log2", log_base, "log_base=2"))
    _check_grades(name, y_true, y_score, negative="relevances >= 0 (scorekit gains 0 below 0)")
    return _rk.dcg(
        y_true,
        y_score,
        k=k,
        ties="trec" if ignore_ties else "average",
        sample_weight=sample_weight,
    )


def ndcg_score(
    y_true: Any,
    y_score: Any,
    *,
    k: Any = None,
    sample_weight: Any = None,
    ignore_ties: bool = False,
) -> Any:
    """scikit-learn's ``ndcg_score``: :func:`scorekit.ranking.ndcg`.

    Ties are averaged (``ties="average"``) unless ``ignore_ties``, where tied
    scores rank later labels first.

    Examples
    --------
    >>> ndcg_score([[3, 2, 0]], [[0.9, 0.3, 0.5]])
    0.938...
    """
    _check_grades("ndcg_score", y_true, y_score, negative="relevances >= 0")
    return _rk.ndcg(
        y_true,
        y_score,
        k=k,
        ties="trec" if ignore_ties else "average",
        sample_weight=sample_weight,
    )


def mutual_info_score(labels_true: Any, labels_pred: Any, *, contingency: Any = None) -> Any:
    """scikit-learn's ``mutual_info_score``: :func:`scorekit.information.mutual_information`.

    In nats (natural logarithm), clipped at 0 as in scikit-learn. A
    precomputed ``contingency`` table is not accepted.

    Examples
    --------
    >>> mutual_info_score([0, 0, 1, 1], [0, 0, 1, 1])
    0.693...
    """
    if contingency is not None:
        got = raw("a contingency table")
        raise ConfigError(
            message(
                "mutual_info_score",
                "contingency is not supported",
                got,
                "contingency=None and the two label columns",
            )
        )
    value = _i.mutual_information(labels_true, labels_pred, base=math.e)
    return max(float(value), 0.0)
