"""Shared plumbing of the score-based classification metrics (ROC and PR families).

The metric base classes over :class:`ScoreHistogram` (its ``summarize``), with
the ``ranges`` / ``cuts`` options that split it into :class:`ScoreRanges` and
the ``bins`` / ``edges`` options of ROC AUC and AP, the class and label checks,
and the averaging of per-column values.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeVar, cast

import numpy as np
from numpy.typing import NDArray

from scorekit._check import (
    as_array,
    as_labels,
    as_scores,
    as_weights,
    check_same_length,
)
from scorekit.classification._binned import (
    BinnedScores,
    bin_edges,
    require_binned,
    summarize_binned,
    warn_outside,
)
from scorekit.classification._histogram import (
    Float,
    ScoreHistogram,
    _binary_summary,
    _column_arrays,
    _column_rows,
    _column_summary,
    _find,
    _require_data,
    ovo_summary,
)
from scorekit.classification._pairs import replicate_pairs
from scorekit.classification._ranges import (
    SAMPLE,
    ScoreRanges,
    range_cuts,
    resolve_cuts,
    split_ranges,
)
from scorekit.classification._ranges_sample import ScoreSample, sample_size
from scorekit.core import Metric, State, UnitWeights
from scorekit.errors import (
    ConfigError,
    InputError,
    UndefinedMetricWarning,
    choices,
    message,
    raw,
)

Average = Literal["micro", "macro", "weighted", "samples"] | None
AVERAGES: tuple[str | None, ...] = ("micro", "macro", "weighted", "samples", None)
_VARIANTS = ("micro", "macro", "weighted", "samples")


_OVR_SCORES = "2-D y_score (n, n_classes) with multi_class='ovr'"
"""What ROC AUC expects of scores when ``y_true`` has more than two classes."""


def _many_classes(metric: str, count: int, expected: str) -> InputError:
    """The error of 1-D scores given with more than two classes in ``y_true``."""
    return InputError(
        message(
            metric,
            "y_true has more than two classes but y_score is 1-D",
            raw(f"{count} classes"),
            expected,
        )
    )


def _warn(metric: str, text: str) -> None:
    warnings.warn(f"{metric}: {text}.", UndefinedMetricWarning, stacklevel=4)


def _positive_index(metric: str, labels: NDArray[Any], pos_label: Any) -> int:
    """scikit-learn's rule: pos_label if given, else 1 for {0, 1}, {-1, 1} and subsets."""
    if pos_label is None:
        allowed = ([0, 1], [-1, 1], [0], [-1], [1])
        ok = labels.dtype.kind != "U" and any(
            labels.size == len(a) and bool(np.all(labels == np.asarray(a))) for a in allowed
        )
        if not ok:
            raise InputError(
                message(
                    metric,
                    "pos_label is needed for these labels",
                    labels.tolist(),
                    "labels in {0, 1} or {-1, 1}, or an explicit pos_label",
                )
            )
        pos_label = 1
    return _find(labels, pos_label)


def _binary_state(metric: str, state: ScoreHistogram) -> ScoreHistogram:
    _require_data(metric, state)
    if state.task != "binary":
        raise InputError(
            message(
                metric,
                "needs 1-D scores of one positive class",
                raw(f"a {state.task} score matrix"),
                "y_score of shape (n,)",
            )
        )
    if state.score.size == 0:
        raise InputError(
            message(metric, "every sample has zero weight", raw("sample_weight all 0"), "some > 0")
        )
    return state


def _average(metric: str, values: Float, support: Float, average: Average, bad: list[int]) -> Any:
    if bad:
        _warn(metric, f"undefined for columns {bad} (one class only); their value is nan or 0")
    if average is None:
        return values
    if average == "weighted":
        # scikit-learn takes a total support within 1e-8 of 0 as none; scorekit only 0,
        # so tiny sample weights still weigh (scorekit.compat.sklearn keeps the 1e-8)
        if not np.any(support):
            return 0.0
        values = np.where(support == 0, 0.0, values)
        return float(np.average(values, weights=support))
    return float(np.mean(values))


def _multi_task_checks(metric: str, state: ScoreHistogram, average: Average) -> None:
    if average == "samples" and state.per_sample != metric:
        raise InputError(
            message(
                metric,
                "average='samples' needs per-sample values in the state",
                raw("a state summarized without them"),
                "a state summarized with average='samples'",
            )
        )


def _samples_mean(metric: str, state: ScoreHistogram) -> float:
    values, weights = state.sample_values, state.sample_weights
    if weights.size == 0 or weights.sum() == 0:
        _warn(metric, "no sample has a positive weight; the samples average is undefined")
        return math.nan
    if np.isnan(values).any():
        _warn(metric, "undefined for samples whose labels are all 0 or all 1")
    return float(np.average(values, weights=weights))


def _classes(
    metric: str, y: NDArray[Any], k: int, labels: tuple[Any, ...] | None
) -> tuple[NDArray[Any], NDArray[np.intp]]:
    """The classes of the score columns and the column of each sample."""
    if labels is not None:
        classes = np.asarray(labels)
        if classes.size != k:
            raise InputError(
                message(
                    metric,
                    "labels and the columns of y_score differ in number",
                    raw(f"{classes.size} labels for {k} columns"),
                    "one label per column",
                )
            )
        if (classes.dtype.kind == "U") != (y.dtype.kind == "U"):
            raise InputError(
                message(metric, "y_true and labels differ in type", y[:1].tolist(), "same type")
            )
        codes = np.minimum(np.searchsorted(classes, y), k - 1)
        bad = np.flatnonzero(classes[codes] != y)
        if bad.size:
            i = int(bad[0])
            raise InputError(
                message(
                    metric,
                    "y_true contains a label not in labels",
                    raw(f"{y[i].item()!r} at index {i}"),
                    choices(classes.tolist()),
                )
            )
        return classes, codes.astype(np.intp)
    if y.dtype.kind in "biu" and (y.size == 0 or (int(y.min()) >= 0 and int(y.max()) < k)):
        return np.arange(k, dtype=np.int64), y.astype(np.intp)
    classes = np.unique(y)
    if classes.size != k:
        raise InputError(
            message(
                metric,
                "the classes in y_true do not match the columns of y_score",
                raw(f"{classes.size} classes for {k} columns"),
                "labels= listing the class of each column, or integer labels in range(n_columns)",
            )
        )
    return classes, np.searchsorted(classes, y).astype(np.intp)


def _sorted_labels(metric: Any, labels: Any) -> tuple[Any, ...] | None:
    """A labels option of a score metric: distinct sorted labels as a tuple; None stays None."""
    if labels is None:
        return None
    name = metric.name
    arr = as_labels(name, "labels", labels)
    if arr.size == 0:
        raise ConfigError(message(name, "labels is empty", [], "at least one label, or None"))
    uniq = np.unique(arr)
    if uniq.size != arr.size:
        raise ConfigError(message(name, "labels contain duplicates", arr.tolist(), "distinct"))
    if not np.array_equal(uniq, arr):
        raise ConfigError(message(name, "labels must be sorted", arr.tolist(), f"{uniq.tolist()}"))
    return tuple(arr.tolist())


# metrics --------------------------------------------------------------------------------


S = TypeVar("S", bound=State)


@dataclass(frozen=True)
class _ScoreMetric(Metric[S]):
    """Shared plumbing of the score-based metrics: the exact histogram of one batch.

    Subclasses whose state is always a :class:`ScoreHistogram` derive from
    :class:`_HistogramMetric`; ROC AUC and AP, which also have a binned state,
    derive from this class and choose the state in their own ``summarize``.
    """

    defers_merges: ClassVar[bool] = True

    def merge_many(self, states: Sequence[S]) -> S:
        """Merge several states in order: exact histograms with one sort per key."""
        if len(states) > 1 and all(isinstance(s, ScoreHistogram) for s in states):
            merged: Any = ScoreHistogram.merge_all(list(cast(Sequence[ScoreHistogram], states)))
            return cast(S, merged)
        if len(states) > 1 and all(isinstance(s, ScoreRanges) for s in states):
            ranged: Any = ScoreRanges.merge_all(cast(Sequence[ScoreRanges], states))
            return cast(S, ranged)
        return super().merge_many(states)

    def merge_taken(self, states: list[S]) -> S:
        """:meth:`merge_many` of a list given away, which the merge may empty.

        Exact histograms empty it and let go of each state once its rows are
        copied into the merged arrays, before those are sorted, so states held
        nowhere else are freed as the merge goes. :class:`~scorekit.core.MergeTree`
        hands over the states it gathered this way.

        Examples
        --------
        >>> from scorekit.classification import ROCAUC
        >>> metric = ROCAUC()
        >>> states = [metric.summarize([0, 1], [0.2, 0.8]), metric.summarize([1, 0], [0.6, 0.4])]
        >>> metric.compute(metric.merge_taken(states)), states
        (1.0, [])
        """
        if len(states) > 1 and all(isinstance(s, ScoreHistogram) for s in states):
            taken = cast(list[ScoreHistogram], states)
            merged: Any = ScoreHistogram.merge_all(taken, release=True)
            return cast(S, merged)
        return self.merge_many(states)

    def _class_labels(self) -> tuple[Any, ...] | None:
        return None

    def _per_sample(self, task: str) -> str:
        return ""

    def _one_vs_one(self) -> bool:
        return False

    def _check_multiclass(self, s: Float) -> None:
        """Reject 2-D scores with 1-D labels when the configuration does not allow them."""

    def _histogram(self, y_true: Any, y_score: Any, sample_weight: Any = None) -> ScoreHistogram:
        """Histogram one batch of ``(y_true, y_score)``."""
        name = self.name
        s = as_scores(name, "y_score", y_score, ndim=(1, 2), float32=True)
        if s.ndim == 2 and s.shape[1] == 1:
            s = s[:, 0]
        if s.ndim == 2:
            s = s.astype(np.float64, copy=False)
        t = as_array(name, "y_true", y_true)
        multilabel = t.ndim == 2 and t.shape[1] > 1
        if not multilabel:
            t = as_labels(name, "y_true", t)
        n = check_same_length(name, y_true=t, y_score=s)
        w = as_weights(name, sample_weight, n)
        if s.ndim == 1:
            if multilabel:
                raise InputError(
                    message(
                        name,
                        "y_true is a 2-D indicator matrix but y_score is 1-D",
                        raw(f"shapes {t.shape} and {s.shape}"),
                        "y_score of the same shape as y_true",
                    )
                )
            return ScoreHistogram.empty() if n == 0 else _binary_summary(t, s, w)
        if n == 0:
            return ScoreHistogram.empty()
        k = s.shape[1]
        if multilabel:
            if t.shape != s.shape:
                raise InputError(
                    message(
                        name,
                        "y_true and y_score differ in shape",
                        raw(f"{t.shape} and {s.shape}"),
                        "equal shapes",
                    )
                )
            if t.dtype.kind not in "biuf" or not np.all((t == 0) | (t == 1)):
                bad = np.argwhere(~((t == 0) | (t == 1)))[0] if t.dtype.kind in "biuf" else [0, 0]
                raise InputError(
                    message(
                        name,
                        "y_true must be a 0/1 indicator matrix",
                        raw(f"{t[tuple(bad)].item()!r} at index {tuple(int(b) for b in bad)}"),
                        "0 or 1",
                    )
                )
            if n == 0:
                return ScoreHistogram.empty()
            per_sample = self._per_sample("multilabel")
            return _column_summary("multilabel", np.arange(k), t == 1, s, w, per_sample)
        self._check_multiclass(s)
        classes, codes = _classes(name, t, k, self._class_labels())
        if n == 0:
            return ScoreHistogram.empty()
        if self._one_vs_one():
            return ovo_summary(classes, codes, s, w)
        pos = codes[:, None] == np.arange(k)
        per_sample = self._per_sample("multiclass")
        return _column_summary("multiclass", classes, pos, s, w, per_sample)

    def _columns(
        self, state: ScoreHistogram, value: Any, rows: Any = None
    ) -> tuple[Float, Float, list[int]]:
        """Per-column values, positive support and the columns where undefined.

        ``value`` reads a column's cumulative curve arrays; ``rows``, when given,
        reads its negative and positive counts by ascending score instead.
        """
        k = state.n_columns
        values = np.empty(k)
        bad = []
        for c in range(k):
            if rows is not None:
                values[c], undefined = rows(*_column_rows(state, c))
            else:
                values[c], undefined = value(_column_arrays(state, c))
            if undefined:
                bad.append(c)
        # each column's rows are one run of the sorted keys: its positive weight is a sum
        bounds = np.searchsorted(state.key, np.arange(k + 1)).tolist()
        positives = state.counts[:, 1]
        support = np.array(
            [positives[lo:hi].sum() for lo, hi in itertools.pairwise(bounds)], dtype=np.float64
        )
        return values, support, bad


@dataclass(frozen=True)
class _HistogramMetric(_ScoreMetric[ScoreHistogram]):
    """Shared plumbing of the metrics whose state is :class:`ScoreHistogram`."""

    def empty(self) -> ScoreHistogram:
        """The state of no data."""
        return ScoreHistogram.empty()

    def summarize(self, y_true: Any, y_score: Any, sample_weight: Any = None) -> ScoreHistogram:
        """Histogram one batch of ``(y_true, y_score)``."""
        return self._histogram(y_true, y_score, sample_weight)


class _RangedMetric(_ScoreMetric[S]):
    """Shared plumbing of an exact histogram metric that may be split by score ranges.

    Subclasses are frozen dataclasses with the fields ``ranges`` and ``cuts``;
    :meth:`_resolve_cuts` turns the first into the second in their
    ``__post_init__`` (:class:`_RangedHistogramMetric` calls it in its own).
    With cut points the state is the exact histogram split by score ranges,
    :class:`ScoreRanges` (1-D binary scores only).
    """

    ranges: int | None
    cuts: tuple[float, ...] | str | None

    # shards cut at their own samples merge: their ranges are cut alike (ScoreRanges.aligned)
    shard_options: ClassVar[tuple[str, ...]] = ("cuts",)

    def _resolve_cuts(self) -> bool:
        """Set ``cuts`` from ``ranges`` (then cleared); True if the state is split by ranges.

        With ``cuts="sample"`` the ranges stay: the cut points are chosen from
        the data (:attr:`sampler`, :meth:`sampled`).
        """
        cuts = resolve_cuts(self.name, self.ranges, self.cuts)
        object.__setattr__(self, "cuts", cuts)
        if cuts is None:
            return False
        if cuts != SAMPLE:
            object.__setattr__(self, "ranges", None)
        return True

    @property
    def sampler(self) -> Metric[Any] | None:
        """With ``cuts="sample"``, the sample of distinct scores the cut points come from."""
        if self.cuts != SAMPLE:
            return None
        return ScoreSample(size=sample_size(cast(int, self.ranges)))

    def sampled(self, state: Any) -> Metric[Any]:
        """With ``cuts="sample"``, this metric cut at the quantiles of the sampled scores.

        Examples
        --------
        >>> from scorekit.classification import ROCAUC
        >>> metric = ROCAUC(ranges=2, cuts="sample")
        >>> sample = metric.sampler.summarize([0, 1, 1, 0], [-2.0, 3.5, 0.5, 1.0])
        >>> metric.sampled(sample).cuts
        (1.0,)
        """
        if self.cuts != SAMPLE:
            return self
        cuts = range_cuts(state.values, cast(int, self.ranges), metric=self.name)
        settled: Metric[Any] = dataclasses.replace(
            cast(Any, self), ranges=None, cuts=tuple(cuts.tolist())
        )
        return settled

    def _exact_empty(self) -> ScoreHistogram | ScoreRanges:
        """The exact state of no data: :class:`ScoreRanges` with cut points."""
        return ScoreRanges.empty() if self.cuts is not None else ScoreHistogram.empty()

    def _exact_summary(
        self, y_true: Any, y_score: Any, sample_weight: Any = None
    ) -> ScoreHistogram | ScoreRanges:
        """The exact histogram of one batch; with cut points, split at them.

        Cut points still to be chosen from a sample (``cuts="sample"``) are
        cut from this batch's scores: the evaluation functions choose them once
        for all the data, so that the states of every batch merge.
        """
        state = self._histogram(y_true, y_score, sample_weight)
        if self.cuts is None:
            return state
        if state.task not in ("", "binary"):
            raise InputError(
                self._error(
                    "score ranges take 1-D binary scores only",
                    raw(f"a {state.task} score matrix"),
                    "y_score of shape (n,), or the metric without ranges or cuts",
                )
            )
        cuts: Any = self.cuts
        sampler = self.sampler
        if sampler is not None:
            # the cut points this batch's own sample settles, as a first pass would
            cuts = cast(Any, self.sampled(sampler.summarize(y_true, y_score))).cuts
        return split_ranges(state, cuts, metric=self.name, scores=y_score)


class _RangedHistogramMetric(_RangedMetric[ScoreHistogram | ScoreRanges]):
    """Shared plumbing of the exact histogram metrics with the ``ranges`` / ``cuts`` options.

    The state is a :class:`ScoreHistogram`, or a :class:`ScoreRanges` with
    ``ranges`` or ``cuts``.
    """

    def __post_init__(self) -> None:
        super().__post_init__()
        self._resolve_cuts()

    def empty(self) -> ScoreHistogram | ScoreRanges:
        """The state of no data (a :class:`ScoreRanges` with ``ranges`` or ``cuts``)."""
        return self._exact_empty()

    def summarize(
        self, y_true: Any, y_score: Any, sample_weight: Any = None
    ) -> ScoreHistogram | ScoreRanges:
        """The exact histogram of one batch; with ``ranges`` or ``cuts``, split at the cuts."""
        return self._exact_summary(y_true, y_score, sample_weight)


class _BinnedScoreMetric(_RangedMetric[ScoreHistogram | BinnedScores | ScoreRanges]):
    """Shared plumbing of ROC AUC and AP: the exact histogram, or bin counts with bins or edges.

    Subclasses are frozen dataclasses with the fields ``bins``, ``edges`` and
    ``score_range``; :meth:`_resolve_edges` turns the first and the last into
    ``edges`` in their ``__post_init__``. With the fields ``ranges`` or
    ``cuts`` (:meth:`_resolve_cuts` turns the first into the second) the state
    is the exact histogram split by score ranges, :class:`ScoreRanges`.
    """

    bins: int | None
    edges: tuple[float, ...] | None
    score_range: tuple[float, float] | None

    def _resolve_edges(self) -> bool:
        """Set ``edges`` from ``bins`` and ``score_range`` (then cleared); True if binned."""
        edges = bin_edges(self.name, self.bins, self.edges, self.score_range)
        object.__setattr__(self, "edges", edges)
        if edges is None:
            return False
        object.__setattr__(self, "bins", None)
        object.__setattr__(self, "score_range", None)
        return True

    def _resolve_cuts(self) -> bool:
        """Set ``cuts`` from ``ranges`` (then cleared); True if split by ranges; no bins then."""
        if not super()._resolve_cuts():
            return False
        if self.edges is not None:
            cuts = self.cuts
            ranged = f"{self.ranges} ranges" if cuts == SAMPLE else f"{len(cuts or ())} cut points"
            raise ConfigError(
                self._error(
                    "score ranges are exact: they exclude bins and edges",
                    raw(f"{ranged} and {len(self.edges) - 1} bins"),
                    "ranges/cuts or bins/edges",
                )
            )
        return True

    @property
    def grows(self) -> bool:
        """The exact histogram grows with the distinct scores; bin counts do not."""
        return self.edges is None

    def empty(self) -> ScoreHistogram | BinnedScores | ScoreRanges:
        """The state of no data (a :class:`BinnedScores` with ``bins`` or ``edges``)."""
        if self.edges is not None:
            return BinnedScores.empty(self.edges)
        return self._exact_empty()

    def _pair_index(self, state: ScoreHistogram) -> int | None:
        """The positive label's index when the value comes from the two sorted classes."""
        return None

    _pair_kernel: ClassVar[Callable[..., Float] | None] = None

    def replicate_values(
        self, y_true: Any, y_score: Any, sample_weight: Any = None, *, weights: UnitWeights
    ) -> Float | None:
        """Every replicate of one binary batch from one sort of each class's scores.

        Exact binary 1-D scores only (other inputs return None: their replicates
        come from summarizing each replicate). Equal to summarizing each
        replicate's rows: exactly for ROC AUC with integer weights, to the last
        bits for AP.
        """
        kernel = type(self)._pair_kernel
        if self.edges is not None or self.cuts is not None or kernel is None:
            return None
        s = as_scores(self.name, "y_score", y_score, ndim=(1, 2), float32=True)
        if s.ndim != 1:
            return None
        state = self._histogram(y_true, s, sample_weight)
        if state.task != "binary" or state.labels.size != 2:
            return None
        index = self._pair_index(state)
        if index is None:
            return None
        t = as_labels(self.name, "y_true", as_array(self.name, "y_true", y_true))
        w = as_weights(self.name, sample_weight, s.size)
        positive = t == state.labels[index]
        return replicate_pairs(positive, s, w, weights, kernel)

    def summarize(
        self, y_true: Any, y_score: Any, sample_weight: Any = None
    ) -> ScoreHistogram | BinnedScores | ScoreRanges:
        """The exact histogram of one batch, or its bin counts with ``bins`` or ``edges``.

        With ``ranges`` or ``cuts``, the exact histogram split at the cut points.
        """
        if self.edges is not None:
            edges = np.asarray(self.edges, dtype=np.float64)
            return summarize_binned(self.name, edges, y_true, y_score, sample_weight)
        return self._exact_summary(y_true, y_score, sample_weight)

    def _check_binned(self, state: BinnedScores) -> None:
        """Reject a binned state of other edges, without data, or of more than two classes.

        Warns when many scores lie outside the edges.
        """
        if not np.array_equal(state.edges, np.asarray(self.edges)):
            raise InputError(
                self._error(
                    "the state was binned with other edges",
                    raw(f"{state.edges.size} edges from {float(state.edges[0])!r}"),
                    "a state summarized by this configuration",
                )
            )
        warn_outside(self.name, state, stacklevel=4)
        require_binned(self.name, state)
        if state.labels.size > 2:
            raise _many_classes(self.name, state.labels.size, "two classes")


def _inputs(average: Average) -> str:
    return "binary_scores" if average == "macro" else "multilabel_scores"
