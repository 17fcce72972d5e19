"""A metric from a per-item scoring function: :func:`from_function`."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Explanation, Metric, MetricInfo, State, state_field
from scorekit.errors import ConfigError, InputError, message, raw
from scorekit.text._pairs import text_pairs

__all__ = ["FunctionMeans", "FunctionMetric", "from_function"]

Scorer = Callable[[Any, str], Any]


@dataclass(frozen=True, eq=False)
class FunctionMeans(State):
    """The sum of the per-item scores of a scoring function and the item count.

    ``function`` names the metric the scores come from; states of different
    functions do not merge.
    """

    function: str = state_field("same", check="text")
    count: int = state_field("sum", check="count", counts_rows=True)
    total: float = state_field("sum", check="finite")


@dataclass(frozen=True)
class FunctionMetric(Metric[FunctionMeans]):
    """The mean over items of ``fn(reference, prediction)``; built by :func:`from_function`.

    Examples
    --------
    >>> overlap = from_function(lambda r, p: float(r == p), "exact")
    >>> overlap.score(["a", "b"], ["a", "c"])
    0.5
    """

    fn: Scorer

    explanation: ClassVar[Explanation] = Explanation(
        definition="The mean over items of a scoring function of the reference(s) and the "
        "prediction.",
        formula="value = sum_i fn(reference_i, prediction_i) / n",
        convention="The state keeps the sum and the count, so chunks and shards merge exactly "
        "up to float rounding; an item whose score raises or is not a finite number is an "
        "error naming the item.",
        reference="The function given to scorekit.text.from_function.",
    )

    def empty(self) -> FunctionMeans:
        """The state of no items."""
        return FunctionMeans(function=self.name, count=0, total=0.0)

    def segment_values(self, references: Any, predictions: Any) -> NDArray[np.float64]:
        """The function's value on each item, checked to be a finite number.

        An item's reference is its string, or the list of its strings when it
        has several.
        """
        refs, counts, preds = text_pairs(self.name, references, predictions)
        out = np.empty(len(preds))
        at = 0
        for i, (pred, k) in enumerate(zip(preds, counts.tolist(), strict=True)):
            ref: Any = refs[at] if k == 1 else refs[at : at + k]
            at += k
            try:
                value = self.fn(ref, pred)
            except Exception as exc:  # the user's function: any failure names the item
                raise InputError(
                    message(
                        self.name,
                        f"the scoring function raised {type(exc).__name__} on item {i}",
                        raw(f"{exc!s:.200} (prediction {pred!r:.80})"),
                        "a number for every item",
                    )
                ) from exc
            if isinstance(value, bool | np.bool_) or not isinstance(
                value, int | float | np.integer | np.floating
            ):
                raise InputError(
                    message(
                        self.name,
                        f"the scoring function returned a non-number on item {i}",
                        raw(f"{value!r:.80} ({type(value).__name__})"),
                        "a finite number",
                    )
                )
            if not math.isfinite(float(value)):
                raise InputError(
                    message(
                        self.name,
                        f"the scoring function returned {float(value)} on item {i}",
                        raw(f"{float(value)} for prediction {pred!r:.80}"),
                        "a finite number",
                    )
                )
            out[i] = float(value)
        lo, hi = self.info.bounds
        outside = (out < lo) | (out > hi)
        if outside.any():
            i = int(np.flatnonzero(outside)[0])
            raise InputError(
                message(
                    self.name,
                    f"the scoring function returned a value outside its bounds on item {i}",
                    float(out[i]),
                    f"a value in [{lo}, {hi}]",
                )
            )
        return out

    def summarize(self, references: Any, predictions: Any) -> FunctionMeans:
        """Sum the function's values over one batch."""
        values = self.segment_values(references, predictions)
        total = 0.0
        for v in values.tolist():
            total += v
        return FunctionMeans(function=self.name, count=len(values), total=total)

    def compute(self, state: FunctionMeans) -> float:
        """The mean value."""
        if state.count == 0:
            raise InputError(message(self.name, "empty input", raw("0 items"), "at least one item"))
        return state.total / state.count


def from_function(
    fn: Scorer,
    name: str,
    *,
    higher_is_better: bool | None = True,
    bounds: tuple[float, float] = (-math.inf, math.inf),
) -> FunctionMetric:
    """A metric whose value is the mean of ``fn(reference, prediction)`` over the items.

    Any per-segment scorer (a BERTScore or COMET model you load, an LLM judge)
    becomes a metric of references and predictions with a mean state, so it
    runs in chunks, over files and on Dask like the built-in text metrics, and
    its states merge. ``fn`` gets an item's reference string (the list of them
    when the item has several) and its prediction, and returns a finite
    number. The metric is not entered in the registry: pass the object itself
    to :func:`scorekit.evaluate` (state files, which name metrics from the
    registry, cannot save it).

    Parameters
    ----------
    fn : callable
        ``fn(reference, prediction) -> float``.
    name : str
        The metric's name in results and errors.
    higher_is_better : bool or None, default True
        The direction of the values.
    bounds : tuple of float, default (-inf, inf)
        The range every value lies in; a value outside is an error naming the item.

    Examples
    --------
    >>> def length_ratio(ref, pred):
    ...     return len(pred.split()) / max(len(ref.split()), 1)
    >>> metric = from_function(length_ratio, "length_ratio", higher_is_better=None)
    >>> metric.score(["a b", "c d e f"], ["a b", "c d"])
    0.75
    >>> metric.name, metric.segment_values(["a b"], ["a"]).tolist()
    ('length_ratio', [0.5])
    """
    if not callable(fn):
        raise ConfigError(message("from_function", "fn is not callable", fn, "a function"))
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(message("from_function", "invalid name", name, "a non-empty string"))
    if higher_is_better is not None and not isinstance(higher_is_better, bool):
        raise ConfigError(
            message(name, "invalid higher_is_better", higher_is_better, "True, False or None")
        )
    try:
        lo, hi = (float(b) for b in bounds)
    except (TypeError, ValueError):
        raise ConfigError(message(name, "invalid bounds", bounds, "(low, high) numbers")) from None
    if math.isnan(lo) or math.isnan(hi) or lo > hi:
        raise ConfigError(message(name, "invalid bounds", bounds, "(low, high) with low <= high"))
    info = MetricInfo(
        name=name,
        cls=FunctionMetric,
        higher_is_better=higher_is_better,
        bounds=(lo, hi),
        inputs="references_predictions",
        summary=f"The mean of {getattr(fn, '__qualname__', type(fn).__name__)} over the items.",
    )
    cls = type(f"FunctionMetric_{name}", (FunctionMetric,), {"info": info, "__module__": __name__})
    object.__setattr__(info, "cls", cls)
    metric: FunctionMetric = cls(fn=fn)
    return metric
