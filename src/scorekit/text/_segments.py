"""Per-segment statistics of the corpus text metrics, and their bootstrap replicates.

BLEU, chrF, TER, the error rates and ROUGE keep sums of per-segment statistics
as their state. :func:`segment_statistics` returns those statistics one row per
segment, :func:`score_statistics` the metric's value of summed rows, and
:func:`replicate_states` the states of bootstrap replicates in which segment
``i`` counts ``weights[b, i]`` times: the statistics are counted once per
batch and a replicate is ``weights @ statistics``.
"""

from __future__ import annotations

import inspect
from typing import Any, Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Metric, State, parse_metric
from scorekit.errors import ConfigError, InputError, message, raw

__all__ = ["replicate_states", "score_statistics", "segment_statistics", "unit_weights"]


class Segmented(Protocol):
    """A metric whose state is a sum of per-segment statistics."""

    @property
    def name(self) -> str: ...

    def _segment_statistics(
        self, references: Any, predictions: Any
    ) -> tuple[NDArray[Any], NDArray[np.int64]]:
        """Statistics ``(n, k)`` per segment and the number of references of each segment."""
        ...

    def _state_of_sums(self, sums: NDArray[Any], segments: int, lo: int, hi: int) -> Any:
        """The state of summed statistics of ``segments`` segments with lo..hi references."""
        ...

    def _values_of_sums(self, sums: NDArray[Any]) -> NDArray[np.float64]:
        """The metric's value of each row of summed statistics."""
        ...


def _segmented(metric: Any, where: str) -> Segmented:
    if not callable(getattr(metric, "_segment_statistics", None)):
        name = getattr(metric, "name", type(metric).__name__)
        raise ConfigError(
            message(
                where,
                "the metric keeps no per-segment statistics",
                name,
                "bleu, chrf, chrf++, ter, wer, cer, mer, wil, wip or a rouge metric",
            )
        )
    return metric  # type: ignore[no-any-return]


def segment_statistics(metric: Metric[Any], references: Any, predictions: Any) -> NDArray[Any]:
    """The statistics each segment adds to a corpus text metric's state, one row per segment.

    The columns are, for BLEU (as sacrebleu's): prediction length, closest
    reference length, matched n-grams per order, prediction n-grams per order;
    chrF: prediction, reference and matched n-grams of each order (characters,
    then words); TER: edits against the closest reference and the mean
    reference length; WER, CER, MER, WIL, WIP: hits, substitutions, deletions,
    insertions; ROUGE: 1 (the item), then precision, recall and F-measure per
    ROUGE type. Rows add up to the corpus statistics: :func:`score_statistics`
    of their sum is the corpus value. Integer statistics are ``int64``, TER's and
    ROUGE's ``float64``.

    Parameters
    ----------
    metric : Metric
        A BLEU, chrF, chrF++, TER, error-rate or ROUGE metric (or its name).
    references, predictions
        As the metric's ``summarize`` takes them.

    Returns
    -------
    ndarray of shape (n_segments, k)

    Raises
    ------
    ConfigError
        For a metric whose state is not a sum of per-segment statistics.

    Examples
    --------
    >>> from scorekit.text import BLEU
    >>> segment_statistics(BLEU(), ["the cat sat", "a dog"], ["the cat sat", "the dog"])
    array([[3, 3, 3, 2, 1, 0, 3, 2, 1, 0],
           [2, 2, 1, 0, 0, 0, 2, 1, 0, 0]])
    """
    metric = _parsed(metric)
    stats, _ = _segmented(metric, "segment_statistics")._segment_statistics(references, predictions)
    return stats


def score_statistics(metric: Metric[Any], sums: Any) -> NDArray[np.float64]:
    """The metric's value of summed per-segment statistics (one value per row of ``sums``).

    ``sums`` is one sum of rows of :func:`segment_statistics` (shape ``(k,)``)
    or several (shape ``(r, k)``), for example ``weights @ statistics`` for
    ``r`` bootstrap replicates. ROUGE with several types gives, per row, its
    mean precision, recall and F-measure per type (shape ``(r, types, 3)``).

    Examples
    --------
    >>> from scorekit.text import BLEU
    >>> refs, preds = ["the cat sat on a mat", "a quick fox"], ["the cat sat on the mat", "a fox"]
    >>> stats = segment_statistics(BLEU(), refs, preds)
    >>> float(score_statistics(BLEU(), stats.sum(axis=0))) == BLEU().score(refs, preds)
    True
    >>> score_statistics(BLEU(), np.stack([stats[0], stats.sum(axis=0)])).round(4)
    array([0.5373, 0.4586])
    """
    metric = _parsed(metric)
    seg = _segmented(metric, "score_statistics")
    arr = np.asarray(sums)
    if arr.ndim not in (1, 2) or arr.dtype.kind not in "iuf":
        raise InputError(
            message(
                metric.name,
                "summed statistics are not numbers of shape (k,) or (r, k)",
                raw(f"{arr.dtype} array of shape {list(arr.shape)}"),
                "rows of segment_statistics summed",
            )
        )
    values = seg._values_of_sums(np.atleast_2d(arr))
    return values[0] if arr.ndim == 1 else values


def unit_weights(metric: Metric[Any], weights: Any, n: int) -> NDArray[np.int64]:
    """``weights`` checked as ``(replicates, n)`` integers >= 0, as an ``int64`` array."""
    unit = getattr(metric, "unit", "row")
    w = np.asarray(weights)
    if w.ndim != 2 or w.shape[1] != n:
        raise InputError(
            message(
                metric.name,
                "unit weights do not match the batch",
                raw(f"shape {list(w.shape)}"),
                f"shape (replicates, {n}): one weight per {unit} of the batch",
            )
        )
    if w.size and (w.dtype.kind not in "iub" or int(w.min()) < 0):
        bad = w.dtype if w.dtype.kind not in "iub" else int(w.min())
        raise InputError(
            message(metric.name, "unit weights are not integers >= 0", bad, "integers >= 0")
        )
    return np.asarray(w, dtype=np.int64)


def replicate_states(
    metric: Metric[Any], references: Any, predictions: Any, weights: Any
) -> list[Any]:
    """The states of bootstrap replicates of one batch, from statistics counted once.

    In replicate ``b`` segment ``i`` counts ``weights[b, i]`` times; its state
    equals the state of the batch with each segment repeated that often (the
    range of references per segment over the segments it keeps). A replicate
    of all zeros is the metric's empty state.
    """
    seg = _segmented(metric, "summarize_replicates")
    stats, refs = seg._segment_statistics(references, predictions)
    w = unit_weights(metric, weights, len(stats))
    sums = weighted_sums(w, stats)
    segments = w.sum(axis=1)
    kept = w > 0
    big = np.iinfo(np.int64).max
    lo = np.where(kept, refs, big).min(axis=1, initial=big)
    hi = np.where(kept, refs, 0).max(axis=1, initial=0)
    return [
        seg._state_of_sums(sums[b], int(segments[b]), int(lo[b]) if segments[b] else 0, int(hi[b]))
        for b in range(len(w))
    ]


def weighted_sums(weights: NDArray[np.int64], stats: NDArray[Any]) -> NDArray[Any]:
    """``weights @ stats``: exact for integer statistics (as ``int64``), float64 otherwise."""
    if stats.shape[1] == 0 or len(weights) == 0:
        return np.zeros((len(weights), stats.shape[1]), dtype=stats.dtype)
    if stats.dtype.kind in "iu":
        top = float(np.abs(stats).max(initial=0)) * float(weights.sum(axis=1).max(initial=0))
        if top < 2.0**53:  # every partial sum is an exact integer in float64
            out = weights.astype(np.float64) @ stats.astype(np.float64)
            return np.asarray(np.rint(out), dtype=np.int64)
        return np.asarray(weights @ stats, dtype=np.int64)
    return np.asarray(weights.astype(np.float64) @ stats.astype(np.float64), dtype=np.float64)


def _parsed(metric: Any) -> Any:
    return parse_metric(metric) if isinstance(metric, str) else metric


S = TypeVar("S", bound=State)


class SegmentSums(Metric[S]):
    """Mixin for metrics whose state is a sum of per-segment statistics: bootstrap by segment."""

    unit = "segment"

    def count_units(self, *batch: Any, **kwargs: Any) -> int:
        """The number of segments: one per prediction (references may hold several each)."""
        return len(_pair(self, batch, kwargs)[1])

    def summarize_replicates(
        self, *batch: Any, weights: NDArray[np.int64], **kwargs: Any
    ) -> list[S]:
        """The states of replicates of one batch: statistics counted once, ``weights @ stats``.

        Equal to summarizing the batch with segment ``i`` repeated
        ``weights[b, i]`` times (integer statistics exactly, float sums to
        rounding); a replicate of all zeros is the empty state.
        """
        references, predictions = _pair(self, batch, kwargs)
        return replicate_states(self, references, predictions, weights)


def _pair(metric: Metric[Any], batch: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """``(references, predictions)`` of a call, or the metric's error for other inputs."""
    try:
        bound = inspect.signature(metric.summarize).bind(*batch, **kwargs)
    except TypeError:
        metric._summarize_checked(batch, kwargs)  # raises the metric's own input error
        raise
    return bound.arguments["references"], bound.arguments["predictions"]
