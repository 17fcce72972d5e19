"""Cut points of score ranges chosen from the data: a mergeable sample of distinct scores.

``roc_auc:ranges=64:cuts=sample`` asks for 64 score ranges cut where the
scores of the whole data fall, not at equal widths of ``[0, 1]`` (logits,
margins, distances). The cut points must be the same in every chunk, file and
worker, so they are chosen before the fold, from :class:`DistinctSample`: the
``size`` distinct scores of least hash. A hash orders the distinct values at
random but the same way everywhere, so the sample of any chunking, merged in
any order, is the same set of values: a uniform sample of the distinct
scores, which :func:`~scorekit.classification.range_cuts` cuts at its
quantiles, so that each range holds about as many distinct scores (and so
about as much of the exact histogram) as the others.
:class:`ScoreSample` is the metric folded for it; the evaluation functions
fold it over the data first (:attr:`scorekit.core.Metric.sampler`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit._check import as_scores
from scorekit.core import Metric, State, state_field

__all__ = ["DistinctSample", "ScoreSample", "sample_size"]

Float = NDArray[np.float64]

# the golden-ratio increment and the two multipliers of the splitmix64 finaliser
_STEP = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def _hashes(values: Float) -> NDArray[np.uint64]:
    """A 64-bit hash of each float64 value's bits (-0.0 hashed as 0.0)."""
    z = (values + 0.0).view(np.uint64) + _STEP
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    out: NDArray[np.uint64] = z ^ (z >> np.uint64(31))
    return out


def _least(values: Float, size: int) -> Float:
    """The ``size`` distinct values of least hash (ties by value), in increasing order."""
    distinct = np.unique(values + 0.0)
    if distinct.size <= size:
        return distinct
    h = _hashes(distinct)
    order = np.lexsort((distinct, h))[:size]
    chosen: Float = np.sort(distinct[order])
    return chosen


def sample_size(ranges: int) -> int:
    """The distinct scores sampled to cut ``ranges`` ranges: 64 per range, at least 4,096.

    Examples
    --------
    >>> sample_size(8), sample_size(1024)
    (4096, 65536)
    """
    return max(4096, 64 * int(ranges))


@dataclass(frozen=True, eq=False)
class DistinctSample(State):
    """The ``size`` distinct scores of least hash: the same set however the data is chunked.

    Examples
    --------
    >>> a = DistinctSample.of([0.5, 0.1, 0.5], size=2)
    >>> b = DistinctSample.of([0.9, 0.3], size=2)
    >>> merged = a.merge(b)
    >>> merged.values.size, merged.equals(DistinctSample.of([0.1, 0.3, 0.5, 0.9], size=2))
    (2, True)
    """

    values: Float = state_field("custom", check="increasing", ndim=1)
    size: int = state_field("same", check="count")

    @classmethod
    def of(cls, scores: Any, *, size: int) -> DistinctSample:
        """The sample of one batch of finite scores."""
        flat = np.asarray(scores, dtype=np.float64).reshape(-1)
        return cls(values=_least(flat, size), size=int(size))

    def _merge_custom(self, other: DistinctSample) -> dict[str, Any]:
        return {"values": _least(np.concatenate([self.values, other.values]), self.size)}


@dataclass(frozen=True)
class ScoreSample(Metric[DistinctSample]):
    """The sample of distinct scores from which a ranged metric's cut points are chosen.

    It reads the ``y_score`` of the metric it serves (and its ``y_true`` and
    ``sample_weight``, unused), so it folds wherever that metric folds.

    Examples
    --------
    >>> metric = ScoreSample(size=3)
    >>> metric.compute(metric.summarize([0, 1, 1, 0], [0.4, 0.2, 0.2, 0.9])).tolist()
    [0.2, 0.4, 0.9]
    """

    size: int = 4096
    defers_merges: ClassVar[bool] = False

    @property
    def name(self) -> str:
        """The metric's name in errors."""
        return "score sample"

    @property
    def inputs(self) -> str:
        """Binary scores, as the metric it serves."""
        return "binary_scores"

    def empty(self) -> DistinctSample:
        """The sample of no data."""
        return DistinctSample(values=np.empty(0, dtype=np.float64), size=self.size)

    def summarize(self, y_true: Any, y_score: Any, sample_weight: Any = None) -> DistinctSample:
        """The sample of one batch's scores (1-D or 2-D)."""
        scores = as_scores(self.name, "y_score", y_score, ndim=(1, 2), float32=True)
        return DistinctSample.of(scores, size=self.size)

    def compute(self, state: DistinctSample) -> Float:
        """The sampled distinct scores, in increasing order."""
        return state.values
