"""Probability losses: log loss (cross-entropy) and the Brier score.

Both keep the same exact, mergeable state, :class:`ProbaSums`: for every true
label seen and every column of the probabilities, the weighted sum of the loss
the sample would have if its label were that column's class. Which column is a
label's class (the sorted class order, the positive class) is then decided at
compute time from the union of labels, so any chunking gives the in-memory value.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit._check import (
    as_array,
    as_labels,
    as_scores,
    as_weights,
    check_same_length,
    union_labels,
)
from scorekit.core import SK, Check, Explanation, Metric, OneOf, State, register, state_field
from scorekit.errors import ConfigError, InputError, StateMismatchError, choices, message, raw

__all__ = ["Brier", "LogLoss", "ProbaSums", "brier", "log_loss"]

Float = NDArray[np.float64]
_EPS = float(np.finfo(np.float64).eps)
_SUM_TOL = 1e-8 + math.sqrt(float(np.finfo(np.float32).eps))


@dataclass(frozen=True, eq=False)
class ProbaSums(State):
    """Sufficient statistics of probability losses.

    ``sums[i, j]`` is the weighted sum, over samples whose true label is
    ``labels[i]``, of the loss they would have if that label were the class of
    column ``j``; ``weights[i]`` is their summed weight. 1-D probabilities of a
    positive class are stored as two columns ``[1 - p, p]`` (``binary=True``).
    ``n_samples`` counts the samples.
    """

    binary: bool | None = state_field("custom", check="flag", optional=True)
    n_columns: int = state_field("custom", check="count")
    labels: NDArray[Any] = state_field("custom", check="labels")
    sums: Float = state_field("custom", check="nonnegative", ndim=2)
    weights: Float = state_field("custom", check="weight", ndim=1)
    n_samples: int = state_field("custom", check="count")

    @classmethod
    def empty(cls) -> ProbaSums:
        """The state of no data."""
        return cls(
            binary=None,
            n_columns=0,
            labels=np.empty(0, dtype=np.int64),
            sums=np.zeros((0, 0)),
            weights=np.zeros(0),
            n_samples=0,
        )

    def _check(self) -> None:
        k = self.labels.size
        if self.binary is None:
            if k or self.sums.size or self.weights.size or self.n_samples or self.n_columns:
                raise self._invalid("binary", "null in a state with data", None, "true or false")
            return
        if self.binary and self.n_columns != 2:
            raise self._invalid(
                "n_columns", "not 2 in a binary state", self.n_columns, "2 columns [1 - p, p]"
            )
        if self.sums.shape != (k, self.n_columns):
            raise self._invalid(
                "sums",
                "shape does not match the labels and columns",
                raw(f"shape {list(self.sums.shape)}"),
                f"shape [{k}, {self.n_columns}]",
            )
        if self.weights.shape != (k,):
            raise self._invalid(
                "weights",
                "not one weight per label",
                raw(f"{self.weights.size} weights for {k} labels"),
                f"{k}",
            )

    def _merge_custom(self, other: ProbaSums) -> dict[str, Any]:
        if self.binary is None:
            return _fields(other)
        if other.binary is None:
            return _fields(self)
        if self.binary != other.binary or self.n_columns != other.n_columns:
            raise StateMismatchError(
                message(
                    "probability sums",
                    "cannot merge states of differently shaped probabilities",
                    raw(f"{other.n_columns} columns (binary={other.binary})"),
                    f"{self.n_columns} columns (binary={self.binary})",
                )
            )
        labels = union_labels("probability sums", self.labels, other.labels)
        sums = np.zeros((labels.size, self.n_columns))
        weights = np.zeros(labels.size)
        for part in (self, other):
            idx = np.searchsorted(labels, part.labels)
            sums[idx] += part.sums
            weights[idx] += part.weights
        return {
            "binary": self.binary,
            "n_columns": self.n_columns,
            "labels": labels,
            "sums": sums,
            "weights": weights,
            "n_samples": self.n_samples + other.n_samples,
        }


def _fields(state: ProbaSums) -> dict[str, Any]:
    return {
        "binary": state.binary,
        "n_columns": state.n_columns,
        "labels": state.labels,
        "sums": state.sums,
        "weights": state.weights,
        "n_samples": state.n_samples,
    }


def _one_hot_classes(metric: str, t: NDArray[Any], p: Float) -> NDArray[np.intp]:
    """The column of the 1 in each row of a one-hot ``y_true`` matching 2-D ``y_proba``."""
    if p.ndim != 2 or p.shape[1] != t.shape[1]:
        raise InputError(
            message(
                metric,
                "a one-hot y_true needs y_proba with one column per class",
                raw(f"y_true of shape {t.shape}, y_proba of shape {p.shape}"),
                f"y_proba of shape (n, {t.shape[1]}), or 1-D labels",
            )
        )
    ones = (t == 1).sum(axis=1) if t.dtype.kind in "biuf" else np.zeros(len(t))
    zeros = (t == 0).sum(axis=1) if t.dtype.kind in "biuf" else np.zeros(len(t))
    bad = np.flatnonzero((ones != 1) | (ones + zeros != t.shape[1]))
    if bad.size:
        i = int(bad[0])
        raise InputError(
            message(
                metric,
                "a 2-D y_true must be one-hot",
                raw(f"row {i} is {t[i].tolist()}"),
                "one 1 and otherwise 0 in each row",
            )
        )
    classes: NDArray[np.intp] = np.argmax(t, axis=1).astype(np.intp)
    return classes


def _summarize(
    metric: str,
    y_true: Any,
    y_proba: Any,
    sample_weight: Any,
    loss: Any,
) -> ProbaSums:
    """Validate one batch and sum ``loss(p) -> (n, k)`` per true label."""
    p = as_scores(metric, "y_proba", y_proba, ndim=(1, 2))
    t = as_array(metric, "y_true", y_true)
    if t.ndim == 2 and t.shape[1] > 1:
        t = _one_hot_classes(metric, t, p)
    t = as_labels(metric, "y_true", t)
    n = check_same_length(metric, y_true=t, y_proba=p)
    w = as_weights(metric, sample_weight, n)
    binary = p.ndim == 1 or p.shape[1] == 1
    if p.ndim == 2 and p.shape[1] == 1:
        p = p[:, 0]
    if p.size:
        for bad, rule in ((p < 0, "values >= 0"), (p > 1, "values <= 1")):
            if bad.any():
                pos = np.argwhere(bad)[0]
                where = int(pos[0]) if len(pos) == 1 else tuple(int(i) for i in pos)
                raise InputError(
                    message(
                        metric,
                        "y_proba must hold probabilities",
                        raw(f"{p[tuple(pos)].item()!r} at index {where}"),
                        rule,
                    )
                )
    if binary:
        cols = np.stack([1 - p, p], axis=1)
    else:
        cols = p
        sums = p.sum(axis=1)
        off = np.flatnonzero(~(np.abs(sums - 1) <= _SUM_TOL))
        if off.size:
            i = int(off[0])
            raise InputError(
                message(
                    metric,
                    "rows of y_proba must sum to 1",
                    raw(f"row {i} sums to {sums[i].item()!r}"),
                    f"sums within {_SUM_TOL:.1e} of 1",
                )
            )
    if n == 0:
        return ProbaSums.empty()
    k = cols.shape[1]
    labels, codes = np.unique(t, return_inverse=True)
    per_sample: Float = loss(cols)
    if w is not None:
        per_sample = per_sample * w[:, None]
    table = np.empty((labels.size, k))
    for j in range(k):
        table[:, j] = np.bincount(codes, weights=per_sample[:, j], minlength=labels.size)
    ones = np.ones(n) if w is None else w
    weights: Float = np.bincount(codes, weights=ones, minlength=labels.size).astype(np.float64)
    return ProbaSums(
        binary=binary, n_columns=k, labels=labels, sums=table, weights=weights, n_samples=n
    )


def _classes(metric: str, state: ProbaSums, labels: tuple[Any, ...] | None) -> NDArray[Any]:
    """The class of each column: ``labels`` sorted, else integers in range, else y_true's."""
    k = state.n_columns
    seen = state.labels
    if labels is not None:
        classes = np.unique(np.asarray(labels))
        if classes.size != len(labels):
            raise ConfigError(
                message(metric, "labels contain duplicates", list(labels), "distinct")
            )
        same_kind = (seen.dtype.kind == "U") == (classes.dtype.kind == "U")
        missing = np.setdiff1d(seen, classes) if same_kind else seen
        if missing.size:
            raise InputError(
                message(
                    metric,
                    "y_true contains a label not in labels",
                    missing[:5].tolist(),
                    choices(classes.tolist()),
                )
            )
        if classes.size < 2:
            raise InputError(
                message(metric, "labels need at least two classes", classes.tolist(), "2 or more")
            )
    elif seen.dtype.kind in "biu" and int(seen.min()) >= 0 and int(seen.max()) < k:
        classes = np.arange(k)
    else:
        classes = seen
        if classes.size == 1:
            raise InputError(
                message(
                    metric,
                    "y_true contains only one label",
                    classes.tolist(),
                    "two or more classes, or labels= listing them",
                )
            )
    if classes.size != k:
        raise InputError(
            message(
                metric,
                "the number of classes differs from the columns of y_proba",
                raw(f"{classes.size} classes {classes.tolist()[:10]} for {k} columns"),
                "one class per column; pass labels= to list them",
            )
        )
    return classes


def _require_data(metric: str, state: ProbaSums) -> None:
    if state.binary is None:
        raise InputError(message(metric, "empty input", raw("0 samples"), "at least one sample"))


def _total(state: ProbaSums, cols: NDArray[np.intp]) -> tuple[float, float]:
    """Summed loss with each seen label in column ``cols[i]``, and the summed weight."""
    loss = float(np.sum(state.sums[np.arange(state.labels.size), cols]))
    return loss, float(np.sum(state.weights))


def _mean(metric: str, loss: float, weight: float) -> float:
    if weight == 0:
        raise InputError(
            message(metric, "sample_weight sums to zero", raw("total weight 0"), "a positive total")
        )
    return loss / weight


def _log_loss_terms(cols: Float) -> Float:
    out: Float = -np.log(np.clip(cols, _EPS, 1 - _EPS))
    return out


def _brier_terms(cols: Float) -> Float:
    """Row-wise sum of squared errors if the class were each column, in turn."""
    sq = cols * cols
    left = np.cumsum(sq, axis=1) - sq
    right = np.cumsum(sq[:, ::-1], axis=1)[:, ::-1] - sq
    miss = 1 - cols
    out: Float = left + right + miss * miss
    return out


def _labels_option(metric: Any, labels: Any) -> tuple[Any, ...] | None:
    """A labels option: the labels as a tuple; None stays None."""
    if labels is None:
        return None
    return tuple(as_labels(metric.name, "labels", labels).tolist())


@register("log_loss", higher_is_better=False, bounds=(0.0, math.inf), inputs="proba")
@dataclass(frozen=True)
class LogLoss(Metric[ProbaSums]):
    """Log loss (cross-entropy) of predicted class probabilities.

    .. math:: L = -\\frac{1}{\\sum_i w_i} \\sum_i w_i \\log \\hat p_{i, y_i}

    with probabilities clipped to ``[eps, 1 - eps]`` (``eps`` the float64
    machine epsilon) and the natural logarithm, as scikit-learn's ``log_loss``.

    Parameters
    ----------
    normalize : bool, default True
        Mean loss per (weighted) sample; ``False`` returns the weighted sum.
    labels : sequence, optional
        The classes of the columns of ``y_proba``, in sorted order (scikit-learn
        sorts them too). Without it, integer labels all in
        ``range(n_columns)`` name their column; other labels are sorted and
        must number exactly ``n_columns``.

    Notes
    -----
    ``y_proba`` is ``(n, k)`` class probabilities, or ``(n,)`` probabilities of
    the greater of two classes. Values outside [0, 1] raise an InputError, as
    in scikit-learn; rows that do not sum to 1 within ``1e-8 + sqrt(eps32)``
    (about 3.5e-4, so that rounded float32 softmax output passes) raise an
    InputError (scikit-learn only warns). Where scikit-learn
    raises because ``y_true`` lacks a class of ``range(n_columns)``, this
    metric computes. Probabilities are computed in float64 whatever the input
    dtype (scikit-learn clips float32 input at float32's epsilon).
    Indicator-matrix ``y_true`` is not supported.

    References
    ----------
    Bishop, C. M. (2006). *Pattern Recognition and Machine Learning*, p. 209.
    Agrees with scikit-learn's ``log_loss``.

    Examples
    --------
    >>> round(LogLoss().score(["spam", "ham", "ham", "spam"],
    ...                       [[.1, .9], [.9, .1], [.8, .2], [.35, .65]]), 5)
    0.21616
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The negative log-likelihood of the true labels under the predicted "
        "probabilities, averaged over samples (cross-entropy).",
        formula="log_loss = -(1/n) sum_i sum_k [y_i = k] ln p_ik",
        convention="Natural logarithm. Binary input may give the probability of the positive "
        "class only. Columns of multiclass probabilities follow the sorted classes.",
        reference=f"{SK} log_loss.",
    )

    normalize: bool = True
    labels: Annotated[tuple[Any, ...] | None, Check(_labels_option)] = None

    def summarize(self, y_true: Any, y_proba: Any, sample_weight: Any = None) -> ProbaSums:
        """Sum the log loss of one batch per true label and candidate column."""
        return _summarize(self.name, y_true, y_proba, sample_weight, _log_loss_terms)

    def empty(self) -> ProbaSums:
        """The state of no data."""
        return ProbaSums.empty()

    def compute(self, state: ProbaSums) -> float:
        """The mean (or summed) log loss."""
        _require_data(self.name, state)
        classes = _classes(self.name, state, self.labels)
        if self.labels is not None and list(self.labels) != classes.tolist():
            warnings.warn(
                f"{self.name}: labels {list(self.labels)} are used in sorted order "
                f"{classes.tolist()}; y_proba columns must follow that order.",
                UserWarning,
                stacklevel=2,
            )
        loss, weight = _total(state, np.searchsorted(classes, state.labels))
        return _mean(self.name, loss, weight) if self.normalize else loss


@register("brier", higher_is_better=False, bounds=(0.0, 2.0), inputs="binary_proba")
@dataclass(frozen=True)
class Brier(Metric[ProbaSums]):
    """Brier score: the mean squared error of predicted class probabilities.

    .. math:: B = \\frac{1}{\\sum_i w_i} \\sum_i w_i \\sum_c (y_{ic} - \\hat p_{ic})^2

    In [0, 2]; halved (to [0, 1], the binary ``mean((y - p)^2)``) when
    ``scale_by_half`` is True, or ``'auto'`` with fewer than three columns.

    Parameters
    ----------
    pos_label : label, optional
        For 1-D ``y_proba``: the class it is the probability of. By default 1
        for labels in {0, 1} or {-1, 1}, else the greater label; string labels
        need it, as in scikit-learn.
    labels : sequence, optional
        For 2-D ``y_proba``: the classes of its columns, as :class:`LogLoss`.
    scale_by_half : bool or 'auto', default 'auto'
        Halve the score; ``'auto'`` halves it for binary problems only.

    Notes
    -----
    Probabilities outside [0, 1] and 2-D rows not summing to 1 raise an
    InputError (scikit-learn raises for the first and warns for the second).
    1-D ``y_proba`` needs at most two classes in ``y_true``.

    References
    ----------
    Brier, G. W. (1950). Verification of forecasts expressed in terms of
    probability. *Monthly Weather Review* 78(1). Agrees with scikit-learn's
    ``brier_score_loss``.

    Examples
    --------
    >>> round(Brier().score([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3]), 4)
    0.0375
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The mean squared difference between the predicted probability and the "
        "observed outcome; lower is better, 0 is perfect.",
        formula="brier = (1/n) sum_i (p_i - y_i)^2, with y_i in {0, 1}",
        convention="Binary: p_i is the probability of the positive class.",
        reference=f"{SK} brier_score_loss.",
    )

    pos_label: Any = None
    labels: Annotated[tuple[Any, ...] | None, Check(_labels_option)] = None
    scale_by_half: Annotated[
        bool | Literal["auto"],
        OneOf(
            (True, False, "auto"), problem="invalid scale_by_half", expected="True, False or 'auto'"
        ),
    ] = "auto"

    @property
    def inputs(self) -> str:
        """Binary probabilities (1-D), or class probabilities when ``labels`` is set."""
        return "binary_proba" if self.labels is None else "proba"

    def summarize(self, y_true: Any, y_proba: Any, sample_weight: Any = None) -> ProbaSums:
        """Sum the squared errors of one batch per true label and candidate column."""
        return _summarize(self.name, y_true, y_proba, sample_weight, _brier_terms)

    def empty(self) -> ProbaSums:
        """The state of no data."""
        return ProbaSums.empty()

    def compute(self, state: ProbaSums) -> float:
        """The (optionally halved) Brier score."""
        _require_data(self.name, state)
        if state.binary:
            cols = self._binary_columns(state)
        else:
            classes = _classes(self.name, state, self.labels)
            cols = np.searchsorted(classes, state.labels)
        loss, weight = _total(state, cols)
        score = _mean(self.name, loss, weight)
        half = self.scale_by_half
        if half == "auto":
            half = state.n_columns < 3
        return 0.5 * score if half else score

    def _binary_columns(self, state: ProbaSums) -> NDArray[np.intp]:
        seen = state.labels
        if seen.size > 2:
            raise InputError(
                self._error(
                    "y_true has more than two classes but y_proba is 1-D",
                    raw(f"{seen.size} classes"),
                    "binary y_true, or 2-D y_proba (n, n_classes)",
                )
            )
        pos = self.pos_label
        if pos is None:
            if seen.dtype.kind == "U":
                raise InputError(
                    self._error(
                        "pos_label is needed for string labels",
                        seen.tolist(),
                        "an explicit pos_label",
                    )
                )
            allowed = ({0, 1}, {-1, 1}, {0}, {-1}, {1})
            pos = 1 if set(seen.tolist()) in allowed else seen[-1]
        if (seen.dtype.kind == "U") != isinstance(pos, str | np.str_):
            return np.zeros(seen.size, dtype=np.intp)
        cols: NDArray[np.intp] = (seen == pos).astype(np.intp)
        return cols


def log_loss(
    y_true: Any,
    y_pred: Any,
    *,
    normalize: bool = True,
    sample_weight: Any = None,
    labels: Any = None,
) -> float:
    """Log loss, as :class:`LogLoss` (scikit-learn's ``log_loss``).

    Examples
    --------
    >>> round(log_loss([0, 1, 1], [0.2, 0.7, 0.9]), 6)
    0.228393
    """
    m = LogLoss(normalize=normalize, labels=labels)
    return float(m.score(y_true, y_pred, sample_weight=sample_weight))


def brier(
    y_true: Any,
    y_proba: Any,
    *,
    sample_weight: Any = None,
    pos_label: Any = None,
    labels: Any = None,
    scale_by_half: bool | Literal["auto"] = "auto",
) -> float:
    """Brier score, as :class:`Brier` (scikit-learn's ``brier_score_loss``).

    Examples
    --------
    >>> round(brier(["eggs", "ham", "spam"],
    ...             [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.2, 0.2, 0.6]]), 4)
    0.1467
    """
    m = Brier(pos_label=pos_label, labels=labels, scale_by_half=scale_by_half)
    return float(m.score(y_true, y_proba, sample_weight=sample_weight))
