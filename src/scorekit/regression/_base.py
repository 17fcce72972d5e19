"""Shared plumbing of the regression metrics: input coercion, output averaging, sum states.

Targets are 1-D ``(n,)`` or 2-D ``(n, n_outputs)`` real arrays and are handled
internally as ``(n, n_outputs)`` views of the caller's data. Kernels run over
blocks of rows (:func:`blockwise`): each block is converted to float64 (so
float32 and integer input are accumulated in float64 without a full-size copy),
its temporaries stay in cache, and the block sums are added pairwise. Per-output
values are combined as scikit-learn's ``multioutput`` argument says.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal, TypeVar

import numpy as np
from numpy.typing import NDArray

from scorekit._check import as_array, as_weights, check_finite, check_same_length
from scorekit.core import Check, Metric, State, state_field
from scorekit.errors import ConfigError, InputError, StateMismatchError, choices, message, raw

__all__ = [
    "BLOCK",
    "Block",
    "ErrorSums",
    "Multioutput",
    "as_float",
    "blockwise",
    "combine_outputs",
    "targets",
]

Multioutput = Literal["raw_values", "uniform_average", "variance_weighted"] | tuple[float, ...]

EPS = float(np.finfo(np.float64).eps)

S = TypeVar("S", bound=State)


def _numeric(metric: str, name: str, values: Any) -> NDArray[np.float64]:
    arr = as_array(metric, name, values)
    if arr.ndim not in (1, 2):
        raise InputError(
            message(
                metric,
                f"{name} must be 1-D or 2-D",
                raw(f"shape {arr.shape}"),
                "shape (n,) or (n, n_outputs)",
            )
        )
    if arr.dtype.kind not in "biuf":
        raise InputError(
            message(metric, f"{name} must be numeric", raw(str(arr.dtype)), "real numbers")
        )
    return arr[:, None] if arr.ndim == 1 else arr


def targets(
    metric: str, y_true: Any, y_pred: Any, sample_weight: Any = None
) -> tuple[NDArray[Any], NDArray[Any], NDArray[np.float64] | None]:
    """Coerce one batch to ``(n, n_outputs)`` real arrays and checked weights.

    The arrays keep their dtype (no copy of float64 input, no full-size upcast
    of float32 or integer input): kernels convert one block at a time with
    :func:`as_float`. Values are not checked for NaN/inf here: callers compute
    their statistics first and call :func:`ensure_finite` only when a
    statistic is not finite, which saves a pass over the data.
    """
    t = _numeric(metric, "y_true", y_true)
    p = _numeric(metric, "y_pred", y_pred)
    n = check_same_length(metric, y_true=t, y_pred=p)
    if t.shape[1] != p.shape[1]:
        raise InputError(
            message(
                metric,
                "y_true and y_pred differ in number of outputs",
                raw(f"{t.shape[1]} and {p.shape[1]}"),
                "the same number of columns",
            )
        )
    if t.shape[1] == 0:
        raise InputError(message(metric, "no outputs", raw(f"shape {t.shape}"), "n_outputs >= 1"))
    return t, p, as_weights(metric, sample_weight, n, scaled=True)


def _flat(x: NDArray[Any]) -> NDArray[Any]:
    return x[:, 0] if x.shape[1] == 1 else x


def ensure_finite(metric: str, y_true: NDArray[Any], y_pred: NDArray[Any]) -> None:
    """Raise an InputError naming the first NaN or infinite value of either input."""
    check_finite(metric, "y_true", _flat(y_true))
    check_finite(metric, "y_pred", _flat(y_pred))


def as_float(x: NDArray[Any]) -> NDArray[np.float64]:
    """``x`` as float64: the array itself when it already is float64, else a converted copy."""
    return np.asarray(x, dtype=np.float64)


BLOCK = 1 << 16
"""Elements (rows times outputs) per block of :func:`blockwise`: 512 KiB of float64."""


def block_rows(k: int) -> int:
    """Rows per block for data of ``k`` outputs (at least one row)."""
    return max(1, BLOCK // max(k, 1))


class Block:
    """One block of rows of a batch, with float64 scratch buffers reused from block to block.

    Kernels write their temporaries into :meth:`buffer` arrays instead of
    allocating new ones per block: allocating and freeing half a megabyte per
    block lets the C allocator return the memory to the system and fault it in
    again, which costs more than the arithmetic.
    """

    def __init__(self, rows: int, k: int) -> None:
        self._shape = (rows, k)
        self._buffers: dict[str, NDArray[np.float64]] = {}
        self.rows = slice(0, 0)
        self.size = 0
        self.w: NDArray[np.float64] | None = None

    def at(self, start: int, stop: int, w: NDArray[np.float64] | None) -> Block:
        """Point the block at rows ``start:stop`` with their weights (or None)."""
        self.rows, self.size = slice(start, stop), stop - start
        self.w = None if w is None else w[start:stop]
        return self

    def buffer(self, key: str) -> NDArray[np.float64]:
        """The scratch array named ``key``, shape ``(rows of this block, k)``."""
        buf = self._buffers.get(key)
        if buf is None:
            buf = self._buffers[key] = np.empty(self._shape, dtype=np.float64)
        return buf[: self.size]

    def take(self, x: NDArray[Any], key: str) -> NDArray[np.float64]:
        """This block's rows of ``x`` as float64: a view if ``x`` is float64, else converted."""
        part = x[self.rows]
        if part.dtype == np.float64:
            return part
        out = self.buffer(key)
        out[...] = part
        return out


def blockwise(
    n: int, k: int, w: NDArray[np.float64] | None, fn: Callable[[Block], NDArray[np.float64]]
) -> NDArray[np.float64]:
    """Add up ``fn(block)`` over consecutive blocks of rows of ``n``-row data.

    One block (``n`` up to :data:`BLOCK` elements) is a single call, so small
    inputs are summed exactly as one whole-array reduction. Larger inputs are
    cut into blocks whose temporaries stay in cache; the block results are then
    added as a balanced tree, so the rounding error grows with the logarithm of
    the number of blocks, as in numpy's pairwise summation.
    """
    step = block_rows(k)
    block = Block(min(n, step), k)
    if n <= step:
        return fn(block.at(0, n, w))
    parts = np.stack([fn(block.at(i, min(i + step, n), w)) for i in range(0, n, step)])
    while len(parts) > 1:
        half = len(parts) // 2
        head = parts[:half] + parts[half : 2 * half]
        parts = head if len(parts) % 2 == 0 else np.concatenate([head, parts[2 * half :]])
    return np.asarray(parts[0], dtype=np.float64)


def wsum(
    x: NDArray[np.float64],
    w: NDArray[np.float64] | None,
    out: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """Per-output (weighted) column sums of an ``(n, k)`` array, shape ``(k,)``.

    Weighted sums multiply (into ``out`` when given, which may be ``x``
    itself) and then sum, pairwise for one output, rather than call BLAS: a
    block is too small to gain from BLAS threads, and on a busy machine their
    start-up per call costs more than the sum itself.
    """
    prod = x if w is None else np.multiply(x, w[:, None], out=out)
    if prod.shape[1] == 1:
        return np.array([prod[:, 0].sum()], dtype=np.float64)
    return np.asarray(prod.sum(axis=0), dtype=np.float64)


def total_weight(n: int, w: NDArray[np.float64] | None) -> float:
    """Total weight of a batch: ``n`` without weights."""
    return float(n) if w is None else float(w.sum())


def require_data(metric: str, count: int, weight: float) -> None:
    """Raise on a state of no samples, or of samples whose weights are all 0."""
    if count == 0:
        raise InputError(message(metric, "empty input", raw("0 samples"), "at least one sample"))
    if weight == 0:
        raise InputError(
            message(
                metric,
                "all sample weights are 0",
                raw(f"{count} samples of weight 0"),
                "at least one positive weight",
            )
        )


def check_multioutput(metric: str, value: Any, allowed: tuple[str, ...]) -> Multioutput:
    """Validate ``multioutput``: one of ``allowed`` or a sequence of output weights."""
    if value is None:
        raise ConfigError(
            message(
                metric,
                "invalid multioutput",
                raw("None"),
                f"{choices(allowed)} or a sequence of output weights",
            )
        )
    if isinstance(value, str):
        if value not in allowed:
            raise ConfigError(message(metric, "unknown multioutput", value, choices(allowed)))
        return value  # type: ignore[return-value]
    try:
        weights = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError(
            message(
                metric,
                "invalid multioutput",
                value,
                f"{choices(allowed)} or a sequence of output weights",
            )
        ) from None
    if (
        weights.ndim != 1
        or weights.size == 0
        or not np.isfinite(weights).all()
        or (weights < 0).any()
        or weights.sum() == 0
    ):
        raise ConfigError(
            message(
                metric,
                "invalid multioutput weights",
                value,
                "a 1-D sequence of finite weights >= 0, not all 0",
            )
        )
    return tuple(float(v) for v in weights)


def combine_outputs(
    metric: str,
    values: NDArray[np.float64],
    multioutput: Multioutput,
    variances: NDArray[np.float64] | None = None,
) -> float | NDArray[np.float64]:
    """Average per-output values as scikit-learn's ``multioutput`` does."""
    if multioutput == "raw_values":
        return np.array(values, dtype=np.float64)
    if multioutput == "uniform_average":
        return float(np.mean(values))
    if multioutput == "variance_weighted":
        if variances is None or not (variances != 0).any():
            return float(np.mean(values))
        return float(np.average(values, weights=variances))
    weights = np.asarray(multioutput, dtype=np.float64)
    if len(values) == 1:
        raise InputError(
            message(
                metric,
                "output weights need multi-output input",
                raw("1 output"),
                "2-D targets with one column per weight",
            )
        )
    if len(weights) != len(values):
        raise InputError(
            message(
                metric,
                "multioutput weights differ in length from the outputs",
                raw(f"{len(weights)} weights for {len(values)} outputs"),
                "one weight per output",
            )
        )
    return float(np.average(values, weights=weights))


def _multioutput_option(metric: Any, value: Any) -> Multioutput:
    """The multioutput option of a regression metric, checked against the ones it takes."""
    return check_multioutput(metric.name, value, metric._multioutputs)


@dataclass(frozen=True)
class RegressionMetric(Metric[S]):
    """Shared configuration of the regression metrics: ``multioutput``."""

    multioutput: Annotated[Multioutput, Check(_multioutput_option)] = "uniform_average"

    _multioutputs: ClassVar[tuple[str, ...]] = ("raw_values", "uniform_average")

    @property
    def inputs(self) -> str:
        """The input kind: 2-D targets for per-output configurations."""
        if self.multioutput in ("raw_values", "variance_weighted") and self.info.inputs == (
            "regression"
        ):
            return "regression_multi"
        return self.info.inputs


# the state of the mean-type metrics ---------------------------------------------


@dataclass(frozen=True, eq=False)
class ErrorSums(State):
    """Weighted sums of per-sample error terms, per output.

    ``term`` names the error term (for example ``"squared"`` or
    ``"absolute_percentage(eps=2.22e-16)"``); states of different terms do not
    merge. ``sums`` has shape ``(k,)``, or ``(2, k)`` for ratio metrics
    (numerator and denominator sums); the empty state has no outputs yet and
    takes the shape of whatever it is merged with. ``count`` is the number of
    samples and ``weight`` their total weight (``count`` without weights).
    """

    term: str = state_field("same", check="text")
    count: int = state_field("custom", check="count")
    weight: float = state_field("custom", check="weight")
    sums: NDArray[np.float64] = state_field("custom", check="nonnegative", ndim=(1, 2))

    def _check(self) -> None:
        if self.sums.ndim == 2 and self.sums.shape[0] != 2:
            raise self._invalid(
                "sums",
                "wrong shape",
                raw(f"shape {list(self.sums.shape)}"),
                "one sum per output, or a numerator and a denominator row: shape [2, k]",
            )

    @classmethod
    def empty(cls, term: str) -> ErrorSums:
        """The state of no data for the given error term."""
        return cls(term=term, count=0, weight=0.0, sums=np.zeros(0, dtype=np.float64))

    def _merge_custom(self, other: ErrorSums) -> dict[str, Any]:
        if other.sums.size == 0:
            return {"count": self.count, "weight": self.weight, "sums": self.sums}
        if self.sums.size == 0:
            return {"count": other.count, "weight": other.weight, "sums": other.sums}
        check_outputs(self.kind, self.sums.shape[-1], other.sums.shape[-1])
        return {
            "count": self.count + other.count,
            "weight": self.weight + other.weight,
            "sums": self.sums + other.sums,
        }


def check_outputs(kind: str, mine: int, theirs: int) -> None:
    """Refuse to merge states built from different numbers of outputs."""
    if mine != theirs:
        raise StateMismatchError(
            message(
                kind,
                "cannot merge states with different numbers of outputs",
                theirs,
                f"{mine} as in the other state",
            )
        )


def eps_term(name: str, eps: float) -> str:
    """The state term of an eps-guarded error, recording ``eps`` exactly."""
    return f"{name}(eps={eps!r})"
