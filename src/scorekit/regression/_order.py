"""Order statistics of the absolute error: median absolute error and max error."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit.core import (
    SK,
    Estimate,
    Explanation,
    Metric,
    QuantileSketch,
    Range,
    State,
    register,
    sentences,
    state_field,
)
from scorekit.errors import InputError, message, raw
from scorekit.regression._base import (
    EPS,
    Block,
    Multioutput,
    RegressionMetric,
    block_rows,
    blockwise,
    check_outputs,
    combine_outputs,
    ensure_finite,
    require_data,
    targets,
)
from scorekit.regression._explanations import INPUT, OUTPUTS

__all__ = ["AbsErrors", "MaxAbsError", "MaxError", "MedAE", "max_error", "medae"]


@dataclass(frozen=True, eq=False)
class AbsErrors(State):
    """Every absolute error, kept for an exact median.

    ``errors`` has shape ``(n, k)`` (float64, 8 bytes per sample and output);
    ``weights`` has shape ``(n,)`` for weighted data and ``(0,)`` when every
    weight is 1. Merging concatenates, so memory grows with the data.
    """

    errors: NDArray[np.float64] = state_field("custom", check="nonnegative", ndim=2)
    weights: NDArray[np.float64] = state_field("custom", check="weight", ndim=1)

    def _check(self) -> None:
        if self.weights.size not in (0, len(self.errors)):
            raise self._invalid(
                "weights",
                "not one weight per row of errors",
                raw(f"{self.weights.size} weights for {len(self.errors)} rows"),
                f"{len(self.errors)} weights, or none when every weight is 1",
            )

    @classmethod
    def empty(cls) -> AbsErrors:
        """The state of no data."""
        return cls(errors=np.zeros((0, 0), dtype=np.float64), weights=np.zeros(0))

    @property
    def weighted(self) -> bool:
        """True when the state holds one explicit weight per kept error."""
        return len(self.errors) > 0 and len(self.weights) == len(self.errors)

    def _merge_custom(self, other: AbsErrors) -> dict[str, Any]:
        if len(other.errors) == 0 and (other.errors.shape[1] == 0 or len(self.errors)):
            return {"errors": self.errors, "weights": self.weights}
        if len(self.errors) == 0:
            return {"errors": other.errors, "weights": other.weights}
        check_outputs(self.kind, self.errors.shape[1], other.errors.shape[1])
        errors = np.concatenate([self.errors, other.errors])
        if self.weighted or other.weighted:
            parts = [s.weights if s.weighted else np.ones(len(s.errors)) for s in (self, other)]
            weights = np.concatenate(parts)
        else:
            weights = np.zeros(0)
        return {"errors": errors, "weights": weights}


_SORT_BELOW = 2048


def _difference_overflow(metric: str) -> InputError:
    return InputError(
        message(
            metric,
            "y_true - y_pred overflows float64",
            raw(f"a difference beyond {np.finfo(np.float64).max:.1e}"),
            "smaller values (rescale the data)",
        )
    )


def median(values: NDArray[np.float64]) -> float:
    """The median of finite values, as :func:`numpy.median` computes it, bit for bit.

    One partition around the upper middle element; for an even count the lower
    middle element is the largest value below it. (A partition around both
    middle elements at once is several times slower in numpy.)
    """
    half = len(values) // 2
    part = np.partition(values, half)
    upper = part[half]
    if len(values) % 2:
        return float(upper)
    return float((part[:half].max() + upper) / 2)


def weighted_median(values: NDArray[np.float64], weights: NDArray[np.float64]) -> float:
    """The weighted median by the averaged inverted CDF, as scikit-learn's ``_weighted_percentile``.

    Let ``x`` be the smallest value whose cumulative weight ``G(x)`` (of all
    values ``<= x``) reaches half the total. The result is ``x`` when ``G(x)``
    exceeds the half by more than float64 eps, else the mean of ``x`` and the
    next larger value of positive weight. Values are found by weighted
    quickselect (``np.partition`` halves the candidates each round), so no full
    sort of the data is needed.
    """
    keep = weights > 0
    v, w = (values, weights) if keep.all() else (values[keep], weights[keep])
    with np.errstate(over="ignore"):
        total = float(w.sum())
    if not math.isfinite(total):
        # weights adding up past float64: scaled down by a power of two, which is exact
        w = np.ldexp(w, -(math.frexp(float(w.max()))[1] + w.size.bit_length()))
        total = float(w.sum())
    target = 0.5 * total
    below = 0.0
    upper = math.inf
    while len(v) > _SORT_BELOW:
        pivot = np.partition(v, len(v) // 2)[len(v) // 2]
        lt = v < pivot
        w_lt = float(np.sum(w, where=lt))
        if below + w_lt >= target:
            upper = float(pivot)
            v, w = v[lt], w[lt]
            continue
        gt = v > pivot
        reached = below + w_lt + float(np.sum(w, where=~(lt | gt)))
        if reached >= target:
            nxt = float(v[gt].min()) if gt.any() else upper
            return _averaged(float(pivot), reached - target, nxt)
        below = reached
        v, w = v[gt], w[gt]
    order = np.argsort(v, kind="stable")
    vs = v[order]
    cdf = below + np.cumsum(w[order])
    i = min(int(np.searchsorted(cdf, target, side="left")), len(vs) - 1)
    j = int(np.searchsorted(vs, vs[i], side="right")) - 1
    nxt = float(vs[j + 1]) if j + 1 < len(vs) else upper
    return _averaged(float(vs[i]), float(cdf[j]) - target, nxt)


def _averaged(value: float, excess: float, nxt: float) -> float:
    if excess > EPS or math.isinf(nxt):
        return value
    return (value + nxt) / 2


@register(
    "medae",
    higher_is_better=False,
    bounds=(0.0, math.inf),
    inputs="regression",
    aliases=("median_absolute_error",),
    variant="multioutput",
    variants=("uniform_average", "raw_values"),
    grows=True,
    bounded="relative_accuracy=A",
)
@dataclass(frozen=True)
class MedAE(RegressionMetric[AbsErrors | QuantileSketch]):
    """Median absolute error.

    .. math:: \\mathrm{MedAE} = \\operatorname{median}_i |y_i - \\hat y_i|

    With ``sample_weight`` the weighted median uses the averaged inverted CDF
    (the mean of the two middle values when the half weight falls exactly on
    a data point), as scikit-learn's ``median_absolute_error``.

    Parameters
    ----------
    multioutput : {'uniform_average', 'raw_values'} or sequence of float
        How per-output medians combine, as in scikit-learn.
    relative_accuracy : float in (0, 1), optional
        Bounded memory: keep a DDSketch (:class:`~scorekit.QuantileSketch`) of
        the absolute errors instead of every error, and return an
        :class:`~scorekit.Estimate` ``(value, error_bound)``. The value is
        within relative error ``relative_accuracy`` of the exact median of
        ``|y - yhat|``: ``|value - MedAE| <= relative_accuracy * MedAE``, and
        ``error_bound = relative_accuracy * value / (1 - relative_accuracy)``
        (plus a few units of float64 rounding) bounds that distance from the
        value alone. ``None`` (default) keeps
        every error and is exact.

    Notes
    -----
    The state keeps every absolute error (8 bytes per sample and output, plus
    8 per sample for weights); memory grows linearly with the data. Without
    weights the streamed value is exactly the in-memory one. With weights it
    is exact when chunks are merged in data order; in another order the
    cumulative weights may differ by rounding, which can only matter when
    half the total weight falls within float64 eps of a data point.

    With ``relative_accuracy`` the state is a :class:`~scorekit.QuantileSketch`
    whose size is the number of logarithmic buckets the errors reach: at most
    about ``ln(max / min) / (2 relative_accuracy)`` per output (about 1,150
    buckets for errors spanning 1e-3 to 1e7 at 1 %), whatever the number of
    samples; errors below 2.2e-308 count as exact zeros. Weights are
    supported (a weighted sketch, same bound), with the same rounding caveat
    as above for where half the weight falls.

    Examples
    --------
    >>> MedAE().score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.5
    >>> MedAE().score([1, 2, 3, 4], [0, 0, 0, 0], sample_weight=[1, 1, 1, 5])
    4.0
    >>> value, bound = MedAE(relative_accuracy=0.01).score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    >>> round(value, 4), round(bound, 4)
    (0.5015, 0.0051)
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The median of the absolute differences between targets and predictions: "
        "the typical error, unmoved by a few very large ones.",
        formula="MedAE = median_i |y_i - yhat_i|",
        convention=sentences(
            "An even number of errors gives the mean of the two middle ones. With "
            "sample_weight the weighted median is the smallest error whose cumulative weight "
            "reaches half the total weight, averaged with the next larger error when the "
            "half falls exactly on it (the averaged inverted CDF). The state keeps every "
            "absolute error (8 bytes per sample and output, plus 8 per sample for weights), "
            "so its memory grows with the data; without weights a streamed value equals the "
            "in-memory one exactly. Bounded memory: relative_accuracy=A keeps a DDSketch of "
            "the errors (logarithmic buckets, at most about ln(max/min) / (2A) per output) and "
            "returns Estimate(value, error_bound) with |value - MedAE| <= A * MedAE.",
            OUTPUTS,
            INPUT,
        ),
        reference=f"{SK} median_absolute_error, weighted median included.",
    )

    relative_accuracy: Annotated[
        float | None,
        Range(0, 1, closed="neither", expected="a number in (0, 1), e.g. 0.01", convert=float),
    ] = None

    def empty(self) -> AbsErrors | QuantileSketch:
        """The state of no data."""
        if self.relative_accuracy is not None:
            return QuantileSketch.empty(self.relative_accuracy)
        return AbsErrors.empty()

    def summarize(
        self, y_true: Any, y_pred: Any, sample_weight: Any = None
    ) -> AbsErrors | QuantileSketch:
        """Keep the absolute errors (and weights) of one batch, or their sketch."""
        errors, w = self._errors(y_true, y_pred, sample_weight)
        if self.relative_accuracy is not None:
            return QuantileSketch.of(errors, self.relative_accuracy, w)
        return AbsErrors(errors=errors, weights=np.zeros(0) if w is None else w.copy())

    def _errors(
        self, y_true: Any, y_pred: Any, sample_weight: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
        t, p, w = targets(self.name, y_true, y_pred, sample_weight)
        n, k = t.shape
        errors = np.empty((n, k), dtype=np.float64)

        def probe_of(block: Block) -> NDArray[np.float64]:
            out = errors[block.rows]
            np.subtract(t[block.rows], p[block.rows], out=out, dtype=np.float64)
            np.abs(out, out=out)
            return np.asarray(out.sum(axis=0), dtype=np.float64)  # NaN/inf probe, from cache

        with np.errstate(invalid="ignore", over="ignore"):
            probe = blockwise(n, k, None, probe_of)
        if not np.isfinite(probe).all():
            ensure_finite(self.name, t, p)
            if not np.isfinite(errors).all():
                raise _difference_overflow(self.name)
        return errors, w

    def compute(self, state: AbsErrors | QuantileSketch) -> Any:
        """The (weighted) median per output, combined as ``multioutput`` says.

        A sketch gives an :class:`~scorekit.Estimate` ``(value, error_bound)``.
        """
        if isinstance(state, QuantileSketch):
            return self._compute_sketch(state)
        n = len(state.errors)
        if not state.weighted:
            require_data(self.name, n, float(n))
            values = np.array([median(col) for col in state.errors.T], dtype=np.float64)
        else:
            require_data(self.name, n, float(state.weights.max(initial=0.0)))
            values = np.array(
                [weighted_median(col, state.weights) for col in state.errors.T],
                dtype=np.float64,
            )
        return combine_outputs(self.name, np.asarray(values, dtype=np.float64), self.multioutput)

    def _compute_sketch(self, state: QuantileSketch) -> Estimate:
        alpha = self.relative_accuracy
        if alpha is None or state.relative_accuracy != alpha:
            raise InputError(
                message(
                    self.name,
                    "the sketch was built with another relative accuracy",
                    state.relative_accuracy,
                    f"relative_accuracy={alpha!r} as configured",
                )
            )
        require_data(self.name, state.n_samples, float(state.weight.sum()))
        values = state.median()
        # |value - m| <= alpha m and m <= value / (1 - alpha); a few eps cover rounding
        bounds = alpha * values / (1 - alpha) + 8 * EPS * values
        return Estimate(
            combine_outputs(self.name, values, self.multioutput),
            combine_outputs(self.name, bounds, self.multioutput),
        )


@dataclass(frozen=True, eq=False)
class MaxAbsError(State):
    """The number of samples and the largest absolute error seen."""

    count: int = state_field("sum", check="count")
    value: float = state_field("max", check="nonnegative")

    def _check(self) -> None:
        if self.count == 0 and self.value:
            raise self._invalid("value", "an error without samples", self.value, "0 for count 0")

    @classmethod
    def empty(cls) -> MaxAbsError:
        """The state of no data (0 is the identity of max over absolute errors)."""
        return cls(count=0, value=0.0)


@register(
    "max_error",
    higher_is_better=False,
    bounds=(0.0, math.inf),
    inputs="regression",
)
@dataclass(frozen=True)
class MaxError(Metric[MaxAbsError]):
    """Max error: the largest absolute residual.

    .. math:: \\max_i |y_i - \\hat y_i|

    Matches scikit-learn's ``max_error``: single-output only, no sample weights.

    Examples
    --------
    >>> MaxError().score([3, 2, 7, 1], [4, 2, 7, 1])
    1.0
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The largest absolute difference between a target and its prediction: the "
        "worst case.",
        formula="max_error = max_i |y_i - yhat_i|",
        convention="1-D targets only and no sample weights, as in scikit-learn; 2-D targets "
        "raise an InputError. The state is the sample count and the largest error seen, so "
        "merging is exact in any order. Empty input and NaN or infinite values raise an "
        "InputError.",
        reference=f"{SK} max_error.",
    )

    def empty(self) -> MaxAbsError:
        """The state of no data."""
        return MaxAbsError.empty()

    def summarize(self, y_true: Any, y_pred: Any) -> MaxAbsError:
        """The largest absolute error of one batch."""
        t, p, _ = targets(self.name, y_true, y_pred)
        if t.shape[1] != 1:
            raise InputError(
                message(
                    self.name,
                    "multi-output targets are not supported",
                    raw(f"{t.shape[1]} outputs"),
                    "1-D targets",
                )
            )
        n = len(t)
        if n == 0:
            return MaxAbsError(count=0, value=0.0)
        step = block_rows(1)
        peaks = np.empty((n + step - 1) // step, dtype=np.float64)
        buffer = np.empty(min(n, step), dtype=np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            for i, start in enumerate(range(0, n, step)):
                rows = slice(start, start + step)
                d = buffer[: len(t[rows])]
                np.subtract(t[rows, 0], p[rows, 0], out=d, dtype=np.float64)
                peaks[i] = np.abs(d, out=d).max()  # NaN propagates through max
        value = float(peaks.max())
        if not math.isfinite(value):
            ensure_finite(self.name, t, p)
            raise _difference_overflow(self.name)
        return MaxAbsError(count=n, value=value)

    def compute(self, state: MaxAbsError) -> float:
        """The largest absolute error."""
        require_data(self.name, state.count, float(state.count))
        return float(state.value)


def medae(
    y_true: Any,
    y_pred: Any,
    *,
    multioutput: Multioutput | Any = "uniform_average",
    sample_weight: Any = None,
    relative_accuracy: float | None = None,
) -> Any:
    """Median absolute error; see :class:`MedAE`.

    With ``relative_accuracy`` the memory is bounded (a DDSketch) and the
    result an :class:`~scorekit.Estimate` within that relative error.

    Examples
    --------
    >>> medae([1, 2, 3], [1, 5, 4])
    1.0
    >>> value, bound = medae([1, 2, 3], [1, 5, 4], relative_accuracy=0.05)
    >>> round(value, 4), value - bound <= 1.0 <= value + bound
    (0.95, True)
    """
    metric = MedAE(multioutput=multioutput, relative_accuracy=relative_accuracy)
    return metric.score(y_true, y_pred, sample_weight=sample_weight)


def max_error(y_true: Any, y_pred: Any) -> float:
    """Largest absolute residual; see :class:`MaxError`.

    Examples
    --------
    >>> max_error([1, 2, 3], [1, 5, 4])
    3.0
    """
    return float(MaxError().score(y_true, y_pred))
