"""The exact score histogram partitioned by score ranges: :class:`ScoreRanges`.

Cut points split the score axis into ranges ``(-inf, c[0])``, ``[c[0], c[1])``,
..., ``[c[-1], inf)``; each range holds the exact :class:`ScoreHistogram` of
the rows whose score lies in it, whatever their key, so every row of one score
lies in one range. Ranges merge independently (range ``i`` with range ``i``),
so no process needs to hold the whole histogram: the readers of
:mod:`scorekit.classification._ranges_read` walk the ranges one at a time and
give the values of the merged histogram, bit for bit.
Here: the state, :func:`split_ranges`, :func:`range_cuts` (cut points from a
sample of scores) and :func:`summarize_ranges` (a batch straight into ranges).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, cast

import numpy as np

from scorekit._check import as_array, as_labels, as_scores, as_weights, check_same_length
from scorekit.classification._histogram import Float, ScoreHistogram, _binary_summary, unit_counts
from scorekit.core import PartsOnRead, State, state_field
from scorekit.errors import ConfigError, InputError, StateMismatchError, message, raw

__all__ = [
    "SAMPLE",
    "ScoreRanges",
    "check_cuts",
    "range_cuts",
    "resolve_cuts",
    "split_ranges",
    "summarize_ranges",
]

_NAME = "score ranges"
# at most this many ranges: each is a histogram of its own
MAX_RANGES = 1 << 16


@dataclass(frozen=True, eq=False)
class ScoreRanges(State):
    """Exact score histogram as one :class:`ScoreHistogram` per score range.

    ``parts[i]`` holds the rows of the whole histogram whose score ``s``
    satisfies ``cuts[i - 1] <= s < cuts[i]`` (the first range has no lower
    end, the last no upper end), with the whole histogram's task and labels
    even when it holds no row. A part counts the samples of its rows as its
    ``n_samples`` (for weighted counts, the samples summarized in its range:
    see :func:`split_ranges`); ``n_samples`` counts every sample summarized.
    States merge range by range when their cut points are the same (a
    :class:`~scorekit.errors.StateMismatchError` names both cut lists
    otherwise); the state of no data (:meth:`empty`, no cut point and no task)
    merges with any.

    Examples
    --------
    >>> state = summarize_ranges([0, 1, 0, 1], [0.1, 0.8, 0.4, 0.35], cuts=[0.4])
    >>> [part.score.tolist() for part in state.parts]
    [[0.1, 0.35], [0.4, 0.8]]
    >>> state.join().score.tolist()
    [0.1, 0.4, 0.35, 0.8]
    """

    cuts: Float = state_field("custom", check="increasing", ndim=1)
    parts: Sequence[ScoreHistogram] = state_field("custom")
    n_samples: int = state_field("custom", check="count", counts_rows=True)

    @classmethod
    def empty(cls) -> ScoreRanges:
        """The state of no data: one range, no cut point, merging with any cut points."""
        return cls(cuts=np.empty(0, dtype=np.float64), parts=(ScoreHistogram.empty(),), n_samples=0)

    @property
    def has_data(self) -> bool:
        """Whether the state summarizes any sample (else it is the merge identity)."""
        return self.n_samples > 0 or any(part.task for part in self.parts)

    parted: ClassVar[bool] = True
    """The ranges are independent parts: an engine merges each range on its own."""

    @classmethod
    def aligned(cls, states: Sequence[ScoreRanges]) -> list[ScoreRanges]:
        """The states cut at common cut points (:func:`recut`), when theirs differ.

        States of shards evaluated by separate runs with ``cuts=sample`` have
        cut points of their own, each the quantiles of its shard's scores. The
        common cut points are the quantiles of all their cut points, as many
        as the most ranges a state has, so the ranges follow every shard's
        scores; cut alike, the states merge range by range, to the values of
        the whole data.

        Examples
        --------
        >>> a = summarize_ranges([0, 1], [0.2, 0.7], cuts=[0.5])
        >>> b = summarize_ranges([1, 0], [0.9, 0.1], cuts=[0.3, 0.6])
        >>> x, y = ScoreRanges.aligned([a, b])
        >>> y.cuts.tolist(), [part.score.tolist() for part in x.merge(y).parts]
        ([0.5, 0.6], [[0.1, 0.2], [], [0.7, 0.9]])
        """
        cuts = cls.common_cuts(states)
        if cuts is None:
            return list(states)
        return [recut(s, cuts) if s.has_data else s for s in states]

    @classmethod
    def common_cuts(cls, states: Sequence[ScoreRanges]) -> Float | None:
        """The cut points :meth:`aligned` cuts the states at; None when theirs are alike.

        Only states with data count (the state of no data merges with any).
        The states of one cut list count once, however many there are (the
        states of every group of a shard).

        Examples
        --------
        >>> a = summarize_ranges([0, 1], [0.2, 0.7], cuts=[0.5])
        >>> b = summarize_ranges([1, 0], [0.9, 0.1], cuts=[0.3, 0.6])
        >>> ScoreRanges.common_cuts([a, b, a]).tolist(), ScoreRanges.common_cuts([a, a])
        ([0.5, 0.6], None)
        """
        distinct: dict[bytes, Float] = {}
        for state in states:
            if state.has_data:
                distinct.setdefault(state.cuts.tobytes(), state.cuts)
        if len(distinct) < 2:
            return None
        found = list(distinct.values())
        every = np.unique(np.concatenate(found))
        ranges = max(c.size for c in found) + 1
        cuts: Float = every if every.size < ranges else range_cuts(every, ranges)
        return cuts

    def split_parts(self) -> tuple[ScoreRanges, Sequence[ScoreHistogram]]:
        """The state with empty ranges (its cut points and sample count) and its ranges.

        Examples
        --------
        >>> state = summarize_ranges([0, 1, 1], [0.2, 0.7, 0.5], cuts=[0.5])
        >>> shell, parts = state.split_parts()
        >>> [p.score.tolist() for p in parts], shell.n_samples, [p.task for p in shell.parts]
        ([[0.2], [0.5, 0.7]], 3, ['', ''])
        >>> ScoreRanges.from_parts(shell, parts).equals(state)
        True
        """
        empty = ScoreHistogram.empty()
        return dataclasses.replace(self, parts=(empty,) * len(self.parts)), self.parts

    @classmethod
    def from_parts(cls, shell: ScoreRanges, parts: Sequence[State]) -> ScoreRanges:
        """The state of a shell and its ranges; ``parts`` may load each range when read."""
        return dataclasses.replace(shell, parts=cast(Sequence[ScoreHistogram], parts))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict, with every range in memory (binary state files take one at a time)."""
        if isinstance(self.parts, tuple):
            return super().to_dict()
        return dataclasses.replace(self, parts=tuple(self.parts)).to_dict()

    def _check(self) -> None:
        parts = self.parts
        if not isinstance(parts, Sequence) or isinstance(parts, str | bytes):
            raise self._invalid(
                "parts", "not a tuple of score histograms", raw(type(parts).__name__), "a tuple"
            )
        if len(parts) != self.cuts.size + 1:
            raise self._invalid(
                "parts",
                "not one histogram per range",
                raw(f"{len(parts)} histograms for {self.cuts.size} cut points"),
                f"{self.cuts.size + 1} histograms",
            )
        tasks: set[str] = set()
        counted = 0
        whole = True
        # the ranges may be loaded one at a time: each is read once, held while checked
        for i in range(len(parts)):
            part = parts[i]
            if not isinstance(part, ScoreHistogram):
                raise self._invalid(
                    "parts",
                    "not a tuple of score histograms",
                    raw(f"a {type(part).__name__} as range {i}"),
                    "a tuple",
                )
            if part.task:
                tasks.add(part.task)
            if len(tasks) > 1:
                raise self._invalid("parts", "ranges of different tasks", sorted(tasks), "one task")
            part.validate()
            if part.per_sample:
                raise self._invalid(
                    "parts", "a range with per-sample values", part.per_sample, "none"
                )
            lo, hi = _bounds(self.cuts, i)
            # float64 bounds: float32 scores are compared as the float64 values they hold
            outside = (part.score < np.float64(lo)) | (part.score >= np.float64(hi))
            if outside.any():
                value = float(part.score[np.flatnonzero(outside)[0]])
                raise self._invalid(
                    "parts",
                    f"a score outside its range {i}",
                    value,
                    f"scores in [{lo!r}, {hi!r})",
                )
            whole = whole and part.counts.dtype.kind in "iu"
            counted += part.n_samples
            del part
        if whole and counted > self.n_samples:
            raise self._invalid(
                "n_samples",
                "fewer samples than the ranges count",
                self.n_samples,
                f"at least {counted}",
            )

    def _merge_custom(self, other: ScoreRanges) -> dict[str, Any]:
        if not other.has_data:
            return _fields(self)
        if not self.has_data:
            return _fields(other)
        _same_cuts(self.cuts, other.cuts)
        return {
            "cuts": self.cuts,
            "parts": tuple(a.merge(b) for a, b in zip(self.parts, other.parts, strict=True)),
            "n_samples": self.n_samples + other.n_samples,
        }

    @classmethod
    def merge_all(cls, states: Sequence[ScoreRanges]) -> ScoreRanges:
        """The merge of many states, range by range with :meth:`ScoreHistogram.merge_all`."""
        full = [s for s in states if s.has_data]
        if len(full) <= 1:
            return full[0] if full else (states[0] if states else cls.empty())
        cuts = full[0].cuts
        for other in full[1:]:
            _same_cuts(cuts, other.cuts)
        parts = tuple(
            ScoreHistogram.merge_all([s.parts[i] for s in full]) for i in range(cuts.size + 1)
        )
        return cls(cuts=cuts, parts=parts, n_samples=sum(s.n_samples for s in full))

    def join(self) -> ScoreHistogram:
        """The whole histogram: every range's rows in one :class:`ScoreHistogram`."""
        whole = ScoreHistogram.merge_all(list(self.parts))
        if not whole.task:
            return whole
        return dataclasses.replace(whole, n_samples=self.n_samples)


def _bounds(cuts: Float, i: int) -> tuple[float, float]:
    lo = float(cuts[i - 1]) if i > 0 else -np.inf
    hi = float(cuts[i]) if i < cuts.size else np.inf
    return lo, hi


def _same_cuts(mine: Float, theirs: Float) -> None:
    if not np.array_equal(mine, theirs):
        raise StateMismatchError(
            message(
                _NAME,
                "cannot merge states of different cut points",
                theirs.tolist(),
                f"{mine.tolist()} as in the other state (recut gives a state other cut points)",
            )
        )


def _fields(state: ScoreRanges) -> dict[str, Any]:
    return {"cuts": state.cuts, "parts": state.parts, "n_samples": state.n_samples}


def check_cuts(metric: str, cuts: Any) -> Float:
    """Cut points as a float64 array: finite, strictly increasing, fewer than 65,536.

    Examples
    --------
    >>> check_cuts("roc_auc", [0.25, 0.5])
    array([0.25, 0.5 ])
    >>> check_cuts("roc_auc", [0.5, 0.25])
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: roc_auc: cuts must increase strictly; got 0.25 after 0.5, \
expected strictly increasing cut points.
    """
    try:
        arr = np.asarray(cuts, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError(
            message(metric, "cuts must be numbers", raw(repr(cuts)[:60]), "finite numbers")
        ) from None
    if arr.ndim != 1:
        raise ConfigError(
            message(metric, "cuts must be 1-D", raw(f"shape {arr.shape}"), "a list of numbers")
        )
    if arr.size >= MAX_RANGES:
        raise ConfigError(
            message(metric, "too many cut points", arr.size, f"fewer than {MAX_RANGES}")
        )
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise ConfigError(
            message(metric, "cuts must be finite", float(arr[bad[0]]), "finite numbers")
        )
    down = np.flatnonzero(arr[1:] <= arr[:-1])
    if down.size:
        i = int(down[0])
        raise ConfigError(
            message(
                metric,
                "cuts must increase strictly",
                raw(f"{float(arr[i + 1])!r} after {float(arr[i])!r}"),
                "strictly increasing cut points",
            )
        )
    # -0.0 and 0.0 cut alike; one representation keeps equal cut lists equal
    out: Float = arr + 0.0
    return out


def _check_ranges(metric: str, ranges: Any) -> None:
    if isinstance(ranges, bool) or not isinstance(ranges, int | np.integer) or ranges < 1:
        raise ConfigError(message(metric, "ranges must be a positive integer", ranges, ">= 1"))
    if ranges > MAX_RANGES:
        raise ConfigError(message(metric, "too many ranges", ranges, f"at most {MAX_RANGES}"))


SAMPLE = "sample"
"""The ``cuts`` option that chooses the cut points from a sample of the data's scores."""


def resolve_cuts(metric: str, ranges: Any, cuts: Any) -> tuple[float, ...] | str | None:
    """The cut points a metric's ``ranges`` / ``cuts`` options describe, or None.

    ``ranges=N`` cuts ``[0, 1]`` into ``N`` ranges of equal width; ``cuts``
    gives the cut points themselves (and excludes ``ranges``), or is
    ``"sample"`` with ``ranges=N``: ``N`` ranges cut where the data's scores
    fall, chosen before the fold from a sample of the distinct scores
    (returned as ``"sample"``; see :mod:`scorekit.classification._ranges_sample`).

    Examples
    --------
    >>> resolve_cuts("roc_auc", 4, None)
    (0.25, 0.5, 0.75)
    >>> resolve_cuts("roc_auc", None, [0.1, 0.7])
    (0.1, 0.7)
    >>> resolve_cuts("roc_auc", 64, "sample")
    'sample'
    >>> resolve_cuts("roc_auc", None, "sample")
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: roc_auc: cuts='sample' needs the number of ranges; \
expected ranges=N with cuts=sample, e.g. 'roc_auc:ranges=64,cuts=sample'.
    """
    if ranges is None and cuts is None:
        return None
    if isinstance(cuts, str):
        if cuts != SAMPLE:
            raise ConfigError(
                message(metric, "unknown cuts", cuts, "cut points, or 'sample' with ranges=N")
            )
        if ranges is None:
            raise ConfigError(
                message(
                    metric,
                    "cuts='sample' needs the number of ranges",
                    None,
                    f"ranges=N with cuts=sample, e.g. '{metric}:ranges=64,cuts=sample'",
                )
            )
        _check_ranges(metric, ranges)
        return SAMPLE
    if ranges is not None and cuts is not None:
        raise ConfigError(
            message(metric, "ranges and cuts exclude each other", ranges, "one of ranges or cuts")
        )
    if cuts is not None:
        return tuple(float(c) for c in check_cuts(metric, cuts))
    _check_ranges(metric, ranges)
    return tuple(float(c) for c in np.linspace(0.0, 1.0, int(ranges) + 1)[1:-1])


def range_cuts(scores: Any, ranges: int, *, metric: str = _NAME) -> Float:
    """Cut points splitting a sample of scores into ``ranges`` ranges of as many distinct values.

    The cut points are distinct sampled values at the quantiles ``i / ranges``
    of the sorted distinct values, so each range holds about as many distinct
    scores of the sample; fewer distinct values than ``ranges`` give fewer
    ranges (one range, no cut point, for a single value).

    Examples
    --------
    >>> range_cuts([0.1, 0.2, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7], 4).tolist()
    [0.2, 0.4, 0.6]
    >>> range_cuts([1.0, 1.0], 8).tolist()
    []
    """
    _check_ranges(metric, ranges)
    values = as_scores(metric, "scores", scores, ndim=(1, 2))
    distinct = np.unique(values.reshape(-1) + 0.0)
    positions = np.arange(1, int(ranges), dtype=np.int64) * distinct.size // int(ranges)
    cuts: Float = np.unique(distinct[positions[positions > 0]])
    return cuts


def split_ranges(
    state: ScoreHistogram, cuts: Any, *, metric: str = _NAME, scores: Any = None
) -> ScoreRanges:
    """Split a histogram at the cut points: the rows of each score range, one state per range.

    Each key's rows are sorted by score, so each range takes one slice of
    them; :meth:`ScoreRanges.join` gives ``state`` back. A part of weighted
    counts takes as its ``n_samples`` the samples of ``scores`` (the batch
    ``state`` summarizes) in its range, so that states summarized in any
    chunks merge to the same parts; without ``scores``, its rows.

    Examples
    --------
    >>> from scorekit.classification import ROCAUC
    >>> whole = ROCAUC().summarize([0, 1, 1], [0.2, 0.7, 0.5])
    >>> ranges = split_ranges(whole, [0.5])
    >>> [part.score.tolist() for part in ranges.parts]
    [[0.2], [0.5, 0.7]]
    >>> ranges.join().equals(whole)
    True
    """
    c = check_cuts(metric, cuts)
    if not state.task:
        nothing = tuple(ScoreHistogram.empty() for _ in range(c.size + 1))
        return ScoreRanges(cuts=c, parts=nothing, n_samples=state.n_samples)
    if state.per_sample:
        raise InputError(
            message(
                metric,
                "per-sample values cannot be split by score",
                raw(f"a state with per_sample={state.per_sample!r}"),
                "a state without average='samples'",
            )
        )
    key, score, counts = state.key, state.score, state.counts
    if key.size:
        starts = np.concatenate([[0], np.flatnonzero(np.diff(key)) + 1]).astype(np.intp)
    else:
        starts = np.empty(0, dtype=np.intp)
    ends = np.append(starts[1:], key.size) if starts.size else starts
    # per key run: where each range starts; rows of range i lie in [at[:, i], at[:, i + 1])
    at = np.empty((starts.size, c.size + 2), dtype=np.intp)
    for j, (a, b) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True)):
        at[j, 0], at[j, -1] = a, b
        at[j, 1:-1] = a + np.searchsorted(score[a:b], c, side="left")
    # a view of one count of one (not an empty array of weights, whose strides are 0 too)
    unit = counts.ndim == 2 and counts.dtype.kind in "iu" and counts.strides[0] == 0
    in_range = None
    if counts.dtype.kind not in "iu" and scores is not None:
        where = np.searchsorted(c, np.asarray(scores).reshape(-1), side="right")
        in_range = np.bincount(where, minlength=c.size + 1)
    parts = []
    for i in range(c.size + 1):
        spans = [np.arange(a, b) for a, b in zip(at[:, i], at[:, i + 1], strict=True)]
        rows = np.concatenate(spans).astype(np.intp) if spans else np.empty(0, dtype=np.intp)
        part_counts = unit_counts(rows.size, counts.shape[1]) if unit else counts[rows]
        # weighted counts: the part counts its rows
        if part_counts.dtype.kind in "iu":
            part_samples = int(part_counts.sum())
        else:
            part_samples = int(rows.size if in_range is None else in_range[i])
        parts.append(
            dataclasses.replace(
                state,
                n_samples=part_samples,
                key=key[rows],
                score=score[rows],
                counts=part_counts,
            )
        )
    return ScoreRanges(cuts=c, parts=tuple(parts), n_samples=state.n_samples)


def recut(state: ScoreRanges, cuts: Any, *, metric: str = _NAME) -> ScoreRanges:
    """The same rows cut at other cut points; each new range is made when it is read.

    A new range takes, from each old range it overlaps, the rows of its own
    scores, read one old range at a time (:class:`RecutRanges`), so a state
    whose ranges are read from a file or from disk stays there. The metrics
    read from the state are unchanged, bit for bit: ranges are read as the
    one histogram they join to, whatever the cut points. Each old range's
    samples that no row stands for (rows of weight 0) are counted in the
    first new range it overlaps.

    Parameters
    ----------
    state
        A state of score ranges.
    cuts
        The new cut points, strictly increasing.
    metric
        The metric named in errors.

    Examples
    --------
    >>> state = summarize_ranges([0, 1, 1, 0], [0.1, 0.8, 0.4, 0.6], cuts=[0.5])
    >>> cut = recut(state, [0.3, 0.7])
    >>> [part.score.tolist() for part in cut.parts], cut.join().equals(state.join())
    ([[0.1], [0.6, 0.4], [0.8]], True)
    """
    c = check_cuts(metric, cuts)
    if np.array_equal(c, state.cuts):
        return state
    if not state.has_data:
        nothing = tuple(ScoreHistogram.empty() for _ in range(c.size + 1))
        return ScoreRanges(cuts=c, parts=nothing, n_samples=state.n_samples)
    parts = RecutRanges(state.parts, state.cuts, c)
    return ScoreRanges(cuts=c, parts=parts, n_samples=state.n_samples)


class RecutRanges(PartsOnRead[ScoreHistogram]):
    """The ranges of new cut points, each made from the old ranges it overlaps when read.

    Range ``i`` holds the scores ``s`` with ``cuts[i - 1] <= s < cuts[i]``;
    the old ranges it overlaps are found from the old cut points, and each is
    read (``old[j]``), its rows of the new range's scores kept, and let go
    before the next. The pieces hold disjoint scores, so their merge adds no
    count to another.
    """

    def __init__(self, old: Sequence[ScoreHistogram], old_cuts: Float, cuts: Float) -> None:
        self.old, self.old_cuts, self.cuts = old, old_cuts, cuts

    def __len__(self) -> int:
        return int(self.cuts.size) + 1

    def _read(self, i: int) -> ScoreHistogram:
        lo, hi = _bounds(self.cuts, i)
        first = int(np.searchsorted(self.old_cuts, lo, side="right"))
        last = int(np.searchsorted(self.old_cuts, hi, side="left"))
        pieces: list[ScoreHistogram] = []
        for j in range(first, last + 1):
            old = self.old[j]
            if not old.task:
                continue
            inner = [x for x in (lo, hi) if math.isfinite(x)]
            piece = split_ranges(old, inner).parts[1 if math.isfinite(lo) else 0]
            # samples of the old range no row stands for: in the first new range it overlaps
            olo = _bounds(self.old_cuts, j)[0]
            if int(np.searchsorted(self.cuts, olo, side="right")) == i:
                counts = old.counts
                shown = int(counts.sum()) if counts.dtype.kind in "iu" else int(old.key.size)
                piece = dataclasses.replace(
                    piece, n_samples=piece.n_samples + old.n_samples - shown
                )
            pieces.append(piece)
            del old
        if not pieces:
            return ScoreHistogram.empty()
        return pieces[0] if len(pieces) == 1 else ScoreHistogram.merge_all(pieces)


def summarize_ranges(
    y_true: Any, y_score: Any, cuts: Any, sample_weight: Any = None, *, metric: str = _NAME
) -> ScoreRanges:
    """The ranges of one batch of binary scores: its exact histogram split at ``cuts``.

    Examples
    --------
    >>> state = summarize_ranges(["a", "b", "b"], [0.3, 0.9, 0.6], cuts=[0.5, 0.8])
    >>> [part.n_samples for part in state.parts], state.n_samples
    ([1, 1, 1], 3)
    """
    c = check_cuts(metric, cuts)
    s = as_scores(metric, "y_score", y_score, ndim=1, float32=True)
    t = as_labels(metric, "y_true", as_array(metric, "y_true", y_true))
    n = check_same_length(metric, y_true=t, y_score=s)
    w = as_weights(metric, sample_weight, n)
    whole = ScoreHistogram.empty() if n == 0 else _binary_summary(t, s, w)
    return split_ranges(whole, c, metric=metric, scores=s)
