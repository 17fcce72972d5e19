"""The state of the score-based classification metrics: :class:`ScoreHistogram`.

For each distinct score, the (weighted) number of samples of each kind at that
score. Merging adds counts on the union of scores, so streamed, chunked and
distributed results are the in-memory result (exactly for unweighted counts).
Here: the state, its summarize (from 1-D or 2-D scores) and merge, and the
readers that turn it into cumulative true/false positive counts by threshold.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from scorekit._check import (
    union_labels,
)
from scorekit.classification._grid import grid_rows
from scorekit.core import State, state_field, totals_agree
from scorekit.errors import (
    InputError,
    StateMismatchError,
    message,
    raw,
)

__all__ = [
    "ScoreHistogram",
]

Float = NDArray[np.float64]
Scores = NDArray[np.floating[Any]]
"""Scores of a histogram: float64, or float32 when every score summarized was float32."""
_MANY_LABELS = 16
_TASKS = ("", "binary", "multiclass", "multilabel", "ovo")


# the state ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ScoreHistogram(State):
    """Exact sufficient statistics of scores: a histogram over distinct score values.

    Rows ``(key[i], score[i], counts[i])`` are sorted by key, then score, with
    one row per distinct pair. For 1-D scores (``task='binary'``) the key is the
    index of the true label in ``labels`` (every ``y_true`` value seen, so the
    positive class is chosen at compute time), stored in the smallest integer
    type that holds it (int8 for two labels), and ``counts`` has one column.
    For 2-D scores (``'multiclass'``, ``'multilabel'``) the key is the column
    of ``y_score`` and ``counts`` holds ``[negatives, positives]``; for
    multiclass, ``labels`` are the classes of the columns. One-vs-one
    multiclass scores (``'ovo'``) keep per column one count per class:
    ``counts[i, t]`` is the weight of the samples of class ``labels[t]`` whose
    score in column ``key[i]`` is ``score[i]``. Counts are int64
    without sample weights (a read-only view of a single 1 when every row is
    one sample), float64 sums of weights with them. Samples of zero
    weight add no row. ``sample_values`` keeps per-sample values (with their
    weights) when ``average='samples'`` asked for them (``per_sample`` names
    the metric).

    ``score`` is float64, or float32 when 1-D scores were given as float32
    (half the memory; every float32 value and tie is kept). Merges keep
    float32 scores float32; a float32 state merged with a float64 one has
    float64 scores, which hold every value. The readers widen the thresholds
    they return to float64, so every value is that of the same scores given
    as float64.
    """

    task: str = state_field("custom", check="text", allowed=_TASKS)
    labels: NDArray[Any] = state_field("custom", check="classes")
    n_columns: int = state_field("custom", check="count")
    n_samples: int = state_field("custom", check="count", counts_rows=True)
    key: NDArray[np.int64] = state_field("custom", check="count", ndim=1)
    score: Scores = state_field("custom", check="finite", ndim=1)
    counts: NDArray[Any] = state_field("custom", check="weight", ndim=2)
    per_sample: str = state_field("custom", check="text")
    sample_values: Float = state_field("custom", check="unit", ndim=1)
    sample_weights: Float = state_field("custom", check="weight", ndim=1)

    @classmethod
    def empty(cls) -> ScoreHistogram:
        """The state of no data."""
        return cls(
            task="",
            labels=np.empty(0, dtype=np.int64),
            n_columns=0,
            n_samples=0,
            key=np.empty(0, dtype=np.int64),
            score=np.empty(0, dtype=np.float64),
            counts=np.zeros((0, 0), dtype=np.int64),
            per_sample="",
            sample_values=np.empty(0, dtype=np.float64),
            sample_weights=np.empty(0, dtype=np.float64),
        )

    def _check(self) -> None:
        rows = self.key.size
        if self.score.size != rows or self.counts.shape[0] != rows:
            raise self._invalid(
                "counts" if self.score.size == rows else "score",
                "rows of key, score and counts differ in number",
                raw(f"{rows}, {self.score.size} and {self.counts.shape[0]} rows"),
                "one key, score and row of counts per histogram row",
            )
        if not self.task:
            for name in ("labels", "key", "sample_values"):
                if getattr(self, name).size:
                    raise self._invalid(name, "data in a state of no data", raw("task ''"), "none")
            return
        if self.task == "binary":
            self._check_as("labels", "labels")
            width, keys = 1, self.labels.size
        else:
            width = self.n_columns if self.task == "ovo" else 2
            keys = self.n_columns
            if self.labels.size != self.n_columns:
                raise self._invalid(
                    "labels",
                    "not one label per column",
                    raw(f"{self.labels.size} labels for {self.n_columns} columns"),
                    f"{self.n_columns} labels",
                )
        if rows and self.counts.shape[1] != width:
            raise self._invalid(
                "counts",
                f"wrong number of columns for task {self.task!r}",
                raw(f"shape {list(self.counts.shape)}"),
                f"shape [{rows}, {width}]",
            )
        if rows and int(self.key.max()) >= keys:
            raise self._invalid(
                "key",
                "key out of range",
                int(self.key.max()),
                f"keys below {keys}, the number of {'labels' if width == 1 else 'columns'}",
            )
        step = np.diff(self.key)
        unsorted = (step < 0) | ((step == 0) & ~(self.score[1:] > self.score[:-1]))
        if unsorted.any():
            i = int(np.flatnonzero(unsorted)[0]) + 1
            raise self._invalid(
                "score",
                "rows not sorted by key and score, one per pair",
                raw(f"row {i}: key {int(self.key[i])}, score {float(self.score[i])!r}"),
                "distinct (key, score) rows in increasing order",
            )
        if self.counts.dtype.kind in "iu" and rows:
            per_key = np.bincount(self.key, weights=self.counts.sum(axis=1), minlength=keys)
            seen = per_key.sum() if width == 1 else per_key
            if not totals_agree(seen, np.full_like(seen, self.n_samples)):
                raise self._invalid(
                    "n_samples",
                    "does not match the counts",
                    self.n_samples,
                    f"the samples counted: {np.atleast_1d(seen)[0]:.0f}",
                )
        self._check_samples()

    def _check_samples(self) -> None:
        values, weights = self.sample_values, self.sample_weights
        if not self.per_sample:
            if values.size or weights.size:
                raise self._invalid(
                    "sample_values",
                    "per-sample values without per_sample",
                    raw(f"{values.size} values"),
                    "none",
                )
            return
        if weights.size != values.size or values.size > self.n_samples:
            raise self._invalid(
                "sample_weights",
                "not one weight per sample value",
                raw(f"{weights.size} weights, {values.size} values, {self.n_samples} samples"),
                "as many weights as values, at most one per sample",
            )

    def _merge_custom(self, other: ScoreHistogram) -> dict[str, Any]:
        if not self.task:
            return _fields(other)
        if not other.task:
            return _fields(self)
        labels = self._aligned(other)
        key, score, counts = _merge_many_rows(
            [(_keys_in(labels, p), p.score, p.counts) for p in (self, other)]
        )
        return {
            "task": self.task,
            "labels": labels,
            "n_columns": self.n_columns,
            "n_samples": self.n_samples + other.n_samples,
            "key": key,
            "score": score,
            "counts": counts,
            "per_sample": self.per_sample,
            "sample_values": np.concatenate([self.sample_values, other.sample_values]),
            "sample_weights": np.concatenate([self.sample_weights, other.sample_weights]),
        }

    @classmethod
    def merge_all(cls, states: list[ScoreHistogram], *, release: bool = False) -> ScoreHistogram:
        """The merge of many states, in order, with one sort per key.

        Equal to merging them pairwise in order, bit for bit (sums of weights
        too: equal scores add up first state first); the sorted runs of all the
        states are merged together, which costs far less than a chain or tree
        of pairwise merges.

        With ``release``, ``states`` is a list given away: it is emptied, and
        each state's rows are let go once they are copied into the merged
        arrays, before those are sorted. States held nowhere else are then
        freed as the merge goes, so it holds little more than the merged rows.
        """
        parts = [s for s in states if s.task]
        alone = parts[0] if parts else (states[0] if states else cls.empty())
        if release:
            states.clear()
        if len(parts) <= 1:
            return alone
        del alone
        first = parts[0]
        labels = first.labels
        for other in parts[1:]:
            labels = first._aligned(other, labels)
        fields: dict[str, Any] = {
            "task": first.task,
            "labels": labels,
            "n_columns": first.n_columns,
            "n_samples": sum(p.n_samples for p in parts),
            "per_sample": first.per_sample,
            "sample_values": np.concatenate([p.sample_values for p in parts]),
            "sample_weights": np.concatenate([p.sample_weights for p in parts]),
        }
        rows = [(_keys_in(labels, p), p.score, p.counts) for p in parts]
        if release:
            del first, other
            parts.clear()
        key, score, counts = _merge_many_rows(rows, release=release)
        return cls(key=key, score=score, counts=counts, **fields)

    def _aligned(self, other: ScoreHistogram, labels: NDArray[Any] | None = None) -> NDArray[Any]:
        """Check that ``other`` merges with this state; the merged labels.

        ``labels`` are this side's labels when they are already a union of several.
        """
        mine = self.labels if labels is None else labels
        name = "score histogram"
        if self.task != other.task:
            raise StateMismatchError(
                message(name, "cannot merge states of different tasks", other.task, self.task)
            )
        if self.per_sample != other.per_sample:
            raise StateMismatchError(
                message(
                    name,
                    "cannot merge states with and without per-sample values",
                    other.per_sample or "none",
                    repr(self.per_sample or "none"),
                )
            )
        if self.task == "binary":
            return union_labels(name, mine, other.labels)
        if self.n_columns != other.n_columns:
            raise StateMismatchError(
                message(name, "states differ in columns", other.n_columns, str(self.n_columns))
            )
        if not np.array_equal(self.labels, other.labels):
            raise StateMismatchError(
                message(
                    name,
                    "states differ in classes",
                    other.labels.tolist(),
                    f"{self.labels.tolist()}; pass labels= to fix the classes",
                )
            )
        return self.labels


def _keys_in(labels: NDArray[Any], state: ScoreHistogram) -> NDArray[np.int64]:
    """The keys of a state's rows once its labels are part of the merged ``labels``.

    A binary state's key is an index into its own labels; the other tasks' keys are
    columns, the same in every state.
    """
    if state.task != "binary" or np.array_equal(state.labels, labels):
        return state.key
    return np.searchsorted(labels, state.labels).astype(label_key_dtype(labels.size))[state.key]


def label_key_dtype(labels: int) -> np.dtype[Any]:
    """The smallest integer type of the keys of a binary state with this many labels."""
    for dtype in (np.int8, np.int16, np.int32):
        if labels <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


def _fields(state: ScoreHistogram) -> dict[str, Any]:
    return {
        "task": state.task,
        "labels": state.labels,
        "n_columns": state.n_columns,
        "n_samples": state.n_samples,
        "key": state.key,
        "score": state.score,
        "counts": state.counts,
        "per_sample": state.per_sample,
        "sample_values": state.sample_values,
        "sample_weights": state.sample_weights,
    }


def unit_counts(rows: int, width: int = 1) -> NDArray[np.int64]:
    """Counts of one sample in every row: a read-only view of a single 1, no memory per row."""
    return np.broadcast_to(np.ones((1, width), dtype=np.int64), (rows, width))


def _starts(sorted_values: NDArray[Any]) -> NDArray[np.intp]:
    """Indices where a run of equal values starts in a sorted array."""
    if sorted_values.size == 0:
        return np.empty(0, dtype=np.intp)
    new = np.empty(sorted_values.size, dtype=bool)
    new[0] = True
    np.not_equal(sorted_values[1:], sorted_values[:-1], out=new[1:])
    return np.flatnonzero(new)


def _reduce_rows(
    key: NDArray[np.int64], score: Scores, counts: NDArray[Any]
) -> tuple[NDArray[np.int64], Scores, NDArray[Any]]:
    """Sort rows by (key, score) and add the counts of equal rows."""
    if key.size == 0:
        return key.astype(np.int64), score, counts
    order = np.lexsort((score, key))
    key, score, counts = key[order], score[order], counts[order]
    new = np.ones(key.size, dtype=bool)
    new[1:] = (key[1:] != key[:-1]) | (score[1:] != score[:-1])
    starts = np.flatnonzero(new)
    return key[starts].astype(np.int64), score[starts], np.add.reduceat(counts, starts, axis=0)


Rows = tuple[NDArray[Any], Scores, NDArray[Any]]


def _merge_many_rows(parts: list[Rows], *, release: bool = False) -> Rows:
    """Merge row sets each sorted by (key, score), in order: one sort per key.

    Scores may be float32 or float64 (the merged scores take the wider type,
    which holds every value) and integer counts any integer type (as a state
    file stores them): the merged counts are int64.

    Each set's rows are copied into the merged arrays, where each key has a
    section holding its runs of every set in the order of the sets; the sets
    are copied last first, and with ``release`` each is let go once copied
    (``parts`` is a list given away: its entries are dropped as they are
    copied). Each key's section is then sorted in place. A stable sort finds
    the sorted runs and merges them (linear for two runs, where sorting afresh
    would not be); equal scores of a key, one row from each of several sets,
    are added in the order of the sets, as merging them pairwise in order adds
    them. Integer counts of mostly single samples are merged as plain score
    values, with no order to gather the counts by (and, for more than three
    runs, with numpy's default sort).
    """
    dtype = np.result_type(*(c.dtype for _, _, c in parts))
    if dtype.kind in "biu":
        # counts held in a smaller type (as a state file stores them) add up as int64
        dtype = np.dtype(np.int64)
    width = parts[0][2].shape[1] if parts[0][2].ndim == 2 else 1
    present = [_run_keys(k) for k, _, _ in parts if k.size]
    keys = np.unique(np.concatenate(present)) if present else np.empty(0, dtype=np.int64)
    del present
    edges = np.append(keys, keys[-1] + 1) if keys.size else keys
    bounds = [np.searchsorted(k, edges).tolist() for k, _, _ in parts]
    total = sum(int(k.size) for k, _, _ in parts)
    runs = len(parts)
    # integer counts of mostly single samples: merge the samples' scores as plain
    # values (each row repeated by its count), then count equal scores again
    samples = sum(_samples(c) for _, _, c in parts) if dtype.kind in "iu" else 0
    by_value = width == 1 and dtype.kind in "iu" and samples <= total + total // 4
    out_k = np.empty(total, dtype=np.result_type(*(k.dtype for k, _, _ in parts)))
    # each key's section holds its runs of every set, in order: merged by value, the
    # samples' scores (the counts are all one until equal scores meet); else the rows
    sizes = np.zeros((runs, keys.size), dtype=np.int64)
    for j, b in enumerate(bounds):
        set_c = parts[j][2]
        for i in range(keys.size):
            sizes[j, i] = _samples(set_c[b[i] : b[i + 1]]) if by_value else b[i + 1] - b[i]
        del set_c
    offsets = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(sizes.sum(axis=0))])
    # where each set's run of each key goes
    places = (offsets[:-1] + np.cumsum(sizes, axis=0) - sizes).tolist()
    out_s = np.empty(int(offsets[-1]), dtype=np.result_type(*(s.dtype for _, s, _ in parts)))
    out_c = None if by_value else np.empty((total, width), dtype)
    zeros: list[float | None] = [None] * keys.size
    # the last sets first: the memory of the states made last is handed back first,
    # which lets the allocator give the top of its heap back as the merge goes
    for j in reversed(range(runs)):
        set_s, set_c = parts[j][1:]
        if release:
            parts[j] = _NO_ROWS
        for i, (lo, hi) in enumerate(itertools.pairwise(bounds[j])):
            if lo == hi:
                continue
            at = places[j][i]
            if out_c is not None:
                out_s[at : at + hi - lo] = set_s[lo:hi]
                out_c[at : at + hi - lo] = set_c[lo:hi].reshape(hi - lo, width)
                continue
            n = set_c[lo:hi]
            run = set_s[lo:hi] if _all_ones(n) else np.repeat(set_s[lo:hi], n[:, 0])
            out_s[at : at + run.size] = run
            zero = _zero_of(set_s[lo:hi])
            if zero is not None:  # the first set's zero is the last one found
                zeros[i] = zero
            del n, run
        del set_s, set_c
    offsets = offsets.tolist()
    at = 0
    for i, key in enumerate(keys.tolist()):
        off, m = offsets[i], offsets[i + 1] - offsets[i]
        section = out_s[off : off + m]
        order = _sort_section(section, runs, by_value)
        c: NDArray[Any] | None = None
        if order is None or out_c is None:
            merged = section
        else:
            # merged by order: the section's rows and their counts gathered in that order
            merged = section[order]
            c = out_c[off : off + m][order]
        del order
        if bool((merged[1:] == merged[:-1]).any()):
            starts = _starts(merged)
            rows = starts.size
            out_s[at : at + rows] = merged[starts]
            zero = zeros[i]
            if zero is not None:
                # equal scores of different sign: the first run's zero, as pairwise merges keep
                out_s[at : at + rows][out_s[at : at + rows] == 0] = zero
            if out_c is None:
                # the rows before this key hold one sample each
                out_c = np.empty((total, width), dtype=dtype)
                out_c[:at] = 1
            if c is None:
                out_c[at : at + rows, 0] = np.diff(np.append(starts, m))
            else:
                out_c[at : at + rows] = _added_in_order(c, starts)
            m = rows
        else:
            if c is not None:
                out_s[at : at + m] = merged
            elif at < off:
                _move_down(out_s, off, at, m)
            if out_c is not None:
                # merged by order the counts follow; by value a row is one sample
                out_c[at : at + m] = 1 if c is None else c
        del merged, section, c
        out_k[at : at + m] = key
        at += m
    # the arrays are this function's own: shrink them in place rather than copy
    for array in (out_k, out_s, out_c):
        if array is not None and array.shape[0] > at:
            array.resize((at, *array.shape[1:]), refcheck=False)
    return out_k, out_s, unit_counts(at, width) if out_c is None else out_c


_NO_ROWS: Rows = (np.empty(0, dtype=np.int64), np.empty(0), np.empty((0, 1), dtype=np.int64))
"""What takes the place of a row set let go during a merge."""


def _samples(counts: NDArray[Any]) -> int:
    """The samples integer counts hold (their rows, for counts that are a view of ones)."""
    if _all_ones(counts):
        return int(counts.shape[0])
    return int(counts.sum())


def _all_ones(counts: NDArray[Any]) -> bool:
    """Whether every row of integer counts is one sample (a view of ones answers at once)."""
    if counts.ndim == 2 and counts.shape[0] and counts.strides[0] == 0:
        return bool((counts[0] == 1).all())
    return bool((counts == 1).all())


def _sort_section(values: Scores, runs: int, by_value: bool) -> NDArray[np.intp] | None:
    """Sort one key's section of merged scores: in place (None) by value, else its order.

    By value the scores are plain values: timsort merges two or three runs in a
    pass or two, numpy's default sort is faster on more. By order, the stable
    order that gathers the counts.
    """
    if by_value:
        values.sort(kind="stable" if runs <= 3 else "quicksort")
        return None
    order: NDArray[np.intp] = np.argsort(values, kind="stable")
    return order


def _move_down(array: NDArray[Any], src: int, dst: int, size: int) -> None:
    """Copy ``array[src : src + size]`` to ``array[dst : dst + size]`` (``dst < src``), by block."""
    for a in range(0, size, _GATHER):
        b = min(a + _GATHER, size)
        array[dst + a : dst + b] = array[src + a : src + b]


def _added_in_order(counts: NDArray[Any], starts: NDArray[np.intp]) -> NDArray[Any]:
    """The counts of each run of equal rows added up, first row first.

    The rows of a run come one from each merged set, in the sets' order, so
    the sums are those of merging the sets pairwise in order. Integer counts
    add up the same in any order; float sums of weights are added one row at
    a time (``np.add.reduceat`` adds runs of three or more rows in another
    order, pairwise).
    """
    if counts.dtype.kind in "biu":
        added: NDArray[Any] = np.add.reduceat(counts, starts, axis=0)
        return added
    lengths = np.diff(np.append(starts, counts.shape[0]))
    total = counts[starts]
    for j in range(1, int(lengths.max()) if lengths.size else 0):
        longer = np.flatnonzero(lengths > j)
        total[longer] += counts[starts[longer] + j]
    return total


def _zero_of(run: Scores) -> float | None:
    """The zero score of a sorted run (``0.0`` or ``-0.0``), if it holds one.

    ``-0.0`` and ``0.0`` are equal scores; merged in order, the first run that
    holds one gives the merged row its bits (states hold ``0.0``; a file may not).
    """
    j = int(np.searchsorted(run, 0.0))
    if j < run.size and run[j] == 0:
        return float(run[j])
    return None


def _run_keys(key: NDArray[np.int64]) -> NDArray[np.int64]:
    """The distinct values of a sorted key array."""
    change = np.flatnonzero(key[1:] != key[:-1]) + 1
    distinct: NDArray[np.int64] = key[np.concatenate([np.zeros(1, dtype=np.intp), change])]
    return distinct


def _hist(s: Scores, w: Float | None, owned: bool = False) -> tuple[Scores, NDArray[Any]]:
    """Distinct values of ``s`` (ascending, in its type) and their counts or summed weights.

    ``owned`` says ``s`` is a copy that may be sorted in place.
    """
    if w is None:
        if owned:
            s.sort()
            ss = s
        else:
            ss = np.sort(s)
        if ss.size < 2 or bool((ss[1:] != ss[:-1]).all()):
            # distinct scores: one row each; adding 0.0 turns -0.0 into 0.0
            ss += 0.0
            return ss, np.ones(ss.size, dtype=np.int64)
        starts = _starts(ss)
        counts: NDArray[Any] = np.diff(np.append(starts, ss.size)).astype(np.int64)
    else:
        order = np.argsort(s, kind="stable")
        ss = s[order]
        starts = _starts(ss)
        counts = np.add.reduceat(w[order], starts) if starts.size else np.empty(0, dtype=np.float64)
    # adding 0.0 turns -0.0 into 0.0, so equal scores have one representation
    return ss[starts] + 0.0, counts


def _split_labels(y: NDArray[Any]) -> tuple[NDArray[Any], list[NDArray[np.bool_]] | None]:
    """Sorted distinct labels and, for few labels, one mask per label."""
    if y.dtype.kind in "biu" and y.size:
        if y.dtype.kind == "b" or int(y.view(f"u{y.dtype.itemsize}").max()) <= 1:
            # labels 0 and 1 (or False and True): one pass finds them, the mask is the other
            upper = np.ascontiguousarray(y) if y.dtype.kind == "b" else y == 1
            ones = int(np.count_nonzero(upper))
            if 0 < ones < y.size:
                return np.asarray([0, 1], dtype=y.dtype), [~upper, upper]
        lo, hi = y.min(), y.max()
        if lo == hi:
            return np.asarray([lo]), [np.ones(y.size, dtype=bool)]
        if y.dtype.kind == "b" or int(hi) - int(lo) == 1:
            upper = y == hi
            return np.asarray([lo, hi]), [~upper, upper]
    values = np.unique(y)
    if values.size > _MANY_LABELS:
        return values, None
    return values, [y == v for v in values]


def _binary_summary(y: NDArray[Any], s: Scores, w: Float | None) -> ScoreHistogram:
    n = int(y.size)
    values, masks = _split_labels(y)
    if w is not None:
        keep = w != 0
        if not keep.all():
            y, s, w = (np.compress(keep, a) for a in (y, s, w))
            masks = None if masks is None else [np.compress(keep, m) for m in masks]
    width = 1
    if masks is None:
        codes = np.searchsorted(values, y).astype(np.int64)
        cnt = np.ones((y.size, width), dtype=np.int64) if w is None else w[:, None]
        key, score, counts = _reduce_rows(codes, s + 0.0, cnt)
    elif w is None:
        key, score, counts = _label_runs(s, masks)
    else:
        keys, scores, parts = [], [], []
        for j, mask in enumerate(masks):
            u, c = _hist(np.compress(mask, s), np.compress(mask, w), owned=True)
            keys.append(np.full(u.size, j, dtype=label_key_dtype(len(masks))))
            scores.append(u)
            parts.append(c)
        key, score = np.concatenate(keys), np.concatenate(scores)
        counts = np.concatenate(parts)[:, None]
    return _state("binary", values, 0, n, key, score, counts)


def _label_runs(s: Scores, masks: list[NDArray[np.bool_]]) -> Rows:
    """Unweighted binary rows: each label's scores gathered and sorted once, or counted.

    Scores on a decimal grid (rounded, or whole numbers; 65,536 rows or more, of
    a short span of integers) are counted instead (:func:`grid_rows`). Other
    scores (float32 or float64, kept in their type) are gathered straight into
    their place in the state's score array and sorted there. When every
    label's scores are distinct (the usual case for classifier outputs) a row
    is one sample and the counts are a view of ones; otherwise equal scores of
    a label are counted into one row.
    """
    if len(masks) <= 2:
        counted = grid_rows(s, masks[-1] if len(masks) == 2 else None)
        if counted is not None:
            distinct, tallies = counted
            key = _label_keys([v.size for v in distinct])
            return key, np.concatenate(distinct), np.concatenate(tallies)[:, None]
    sizes = [int(np.count_nonzero(mask)) for mask in masks]
    rows = sum(sizes)
    score = np.empty(rows, dtype=s.dtype)
    ends = list(itertools.accumulate(sizes))
    sides = [score[end - size : end] for size, end in zip(sizes, ends, strict=True)]
    _gather(s, masks, sides)
    for side in sides:
        side.sort()
        _positive_zero(side)
    if all(_distinct(side) for side in sides):
        return _label_keys(sizes), score, unit_counts(rows)
    # equal scores of a label: one row each, counted, written straight into the rows
    firsts = [_starts(side) for side in sides]
    sizes = [first.size for first in firsts]
    values = np.empty(sum(sizes), dtype=s.dtype)
    counts = np.empty((values.size, 1), dtype=np.int64)
    at = 0
    for side, first in zip(sides, firsts, strict=True):
        if first.size:
            np.take(side, first, out=values[at : at + first.size])
            tally = counts[at : at + first.size, 0]
            np.subtract(first[1:], first[:-1], out=tally[:-1])
            tally[-1] = side.size - first[-1]
        at += first.size
    return _label_keys(sizes), values, counts


# rows of the scores gathered at a time: the scores of a block stay in cache while
# each label takes its rows from them, and the indices of a block are small
_GATHER = 1 << 16


def _gather(s: Scores, masks: list[NDArray[np.bool_]], outs: list[Scores]) -> None:
    """``s[mask]`` written into the matching ``out`` for every mask, a block of rows at a time.

    ``take`` writes straight into ``out`` (``compress`` with ``out=`` copies
    through a buffer), and the indices of one block are all it makes. Every
    mask takes its rows of a block in turn, so the scores are read from
    memory once.
    """
    at = [0] * len(masks)
    for a in range(0, s.size, _GATHER):
        block = s[a : a + _GATHER]
        for j, (mask, out) in enumerate(zip(masks, outs, strict=True)):
            rows = np.flatnonzero(mask[a : a + _GATHER])
            np.take(block, rows, out=out[at[j] : at[j] + rows.size], mode="clip")
            at[j] += rows.size


def _distinct(sorted_values: NDArray[Any]) -> bool:
    """Whether a sorted array holds no value twice, compared a block at a time (in cache)."""
    last = sorted_values.size - 1
    for a in range(0, last, _GATHER):
        b = min(a + _GATHER, last)
        if (sorted_values[a + 1 : b + 1] == sorted_values[a:b]).any():
            return False
    return True


def _label_keys(sizes: list[int]) -> NDArray[Any]:
    """The keys of rows that are ``sizes[j]`` rows of label ``j`` after another."""
    labels = np.arange(len(sizes), dtype=label_key_dtype(len(sizes)))
    keys: NDArray[Any] = np.repeat(labels, sizes)
    return keys


def _positive_zero(sorted_values: NDArray[np.floating[Any]]) -> None:
    """Turn every -0.0 of a sorted array into 0.0 in place (they sort together as equals)."""
    zero = sorted_values.dtype.type(0)
    lo = int(np.searchsorted(sorted_values, zero, "left"))
    hi = int(np.searchsorted(sorted_values, zero, "right"))
    if lo < hi:
        sorted_values[lo:hi] = zero


def _state(
    task: str,
    labels: NDArray[Any],
    n_columns: int,
    n_samples: int,
    key: NDArray[np.int64],
    score: Scores,
    counts: NDArray[Any],
    per_sample: str = "",
    sample_values: Float | None = None,
    sample_weights: Float | None = None,
) -> ScoreHistogram:
    return ScoreHistogram(
        task=task,
        labels=labels,
        n_columns=n_columns,
        n_samples=n_samples,
        key=key,
        score=score,
        counts=counts,
        per_sample=per_sample,
        sample_values=np.empty(0) if sample_values is None else sample_values,
        sample_weights=np.empty(0) if sample_weights is None else sample_weights,
    )


def _union2(
    un: Scores, cn: NDArray[Any], up: Scores, cp: NDArray[Any], score: Float, counts: NDArray[Any]
) -> int:
    """Align a negative and a positive histogram on the union of their scores.

    Writes the union's scores and ``[negatives, positives]`` counts to the
    start of ``score`` and ``counts`` (room for ``len(un) + len(up)`` rows) and
    returns the number of rows.
    """
    m = un.size + up.size
    if m == 0:
        return 0
    s = np.concatenate([un, up])
    # two ascending runs: the stable sort merges them in one pass
    order = np.argsort(s, kind="stable")
    np.take(s, order, out=score[:m])
    is_pos = order >= un.size
    if cn.dtype.kind in "iu" and bool((cn == 1).all()) and bool((cp == 1).all()):
        # distinct scores on each side: a row is one negative or one positive
        np.copyto(counts[:m, 1], is_pos)
        np.logical_not(is_pos, out=is_pos)
        np.copyto(counts[:m, 0], is_pos)
    else:
        gathered = np.concatenate([cn, cp]).astype(counts.dtype, copy=False)[order]
        zero = np.zeros(1, dtype=counts.dtype)
        np.copyto(counts[:m, 0], np.where(is_pos, zero, gathered))
        np.copyto(counts[:m, 1], np.where(is_pos, gathered, zero))
    merged = score[:m]
    if not bool((merged[1:] == merged[:-1]).any()):
        return m
    starts = _starts(merged)
    rows = starts.size
    # each side is distinct, so a tie is one negative and one positive row
    neg = np.add.reduceat(counts[:m, 0], starts)
    pos = np.add.reduceat(counts[:m, 1], starts)
    score[:rows] = merged[starts]
    counts[:rows, 0] = neg
    counts[:rows, 1] = pos
    return rows


def _column_summary(
    task: str,
    labels: NDArray[Any],
    pos: NDArray[np.bool_],
    s: Float,
    w: Float | None,
    per_sample: str,
) -> ScoreHistogram:
    n, k = s.shape
    if w is not None:
        keep = w != 0
        if not keep.all():
            pos, s, w = pos[keep], s[keep], w[keep]
    rows = s.shape[0]
    score = np.empty(rows * k, dtype=np.float64)
    counts = np.empty((rows * k, 2), dtype=np.int64 if w is None else np.float64)
    key = np.empty(rows * k, dtype=np.int64)
    at = 0
    for c in range(k):
        # one column at a time, copied out of the matrix: compress gathers each side
        # from a contiguous column faster than a mask indexes the strided one
        col, here = np.ascontiguousarray(s[:, c]), np.ascontiguousarray(pos[:, c])
        there = ~here
        un, cn = _hist(np.compress(there, col), _side(w, there), owned=True)
        up, cp = _hist(np.compress(here, col), _side(w, here), owned=True)
        size = _union2(un, cn, up, cp, score[at:], counts[at:])
        key[at : at + size] = c
        at += size
    if at < score.size:
        score, counts, key = score[:at].copy(), counts[:at].copy(), key[:at].copy()
    values = weights = None
    if per_sample:
        values = _row_values(per_sample, pos, s)
        weights = np.ones(values.size) if w is None else w.copy()
    return _state(
        task,
        labels,
        k,
        n,
        key,
        score,
        counts,
        per_sample,
        values,
        weights,
    )


def _side(w: Float | None, mask: NDArray[np.bool_]) -> Float | None:
    return None if w is None else np.compress(mask, w)


def ovo_summary(
    classes: NDArray[Any], codes: NDArray[np.intp], s: Float, w: Float | None
) -> ScoreHistogram:
    """The one-vs-one histogram: per column and distinct score, the weight of each class."""
    n, k = s.shape
    if w is not None:
        keep = w != 0
        if not keep.all():
            codes, s, w = codes[keep], s[keep], w[keep]
    rows = s.shape[0]
    key = np.repeat(np.arange(k, dtype=np.int64), rows)
    score = np.ascontiguousarray(s.T).reshape(-1)
    counts = np.zeros((rows * k, k), dtype=np.int64 if w is None else np.float64)
    counts[np.arange(rows * k), np.tile(codes, k)] = 1 if w is None else np.tile(w, k)
    key, score, counts = _reduce_rows(key, score, counts)
    return _state("ovo", classes, k, n, key, score, counts, "", None, None)


def _row_values(kind: str, pos: NDArray[np.bool_], s: Float) -> Float:
    """Per-row ROC AUC or step-wise AP of each row's scores against its 0/1 labels."""
    n, k = s.shape
    if n == 0:
        return np.empty(0, dtype=np.float64)
    order = np.argsort(s, axis=1, kind="stable")
    ss = np.take_along_axis(s, order, axis=1)
    yy = np.take_along_axis(pos, order, axis=1).astype(np.float64)
    new = np.ones((n, k), dtype=bool)
    new[:, 1:] = ss[:, 1:] != ss[:, :-1]
    flat = new.ravel()
    gid = np.cumsum(flat) - 1
    groups = int(gid[-1]) + 1
    pos_g = np.bincount(gid, weights=yy.ravel(), minlength=groups)
    cnt_g = np.bincount(gid, minlength=groups).astype(np.float64)
    row_g = np.flatnonzero(flat) // k
    first_g = gid[np.arange(n) * k]
    n_pos = yy.sum(axis=1)
    n_neg = k - n_pos
    if kind == "roc_auc":
        neg_g = cnt_g - pos_g
        below = np.cumsum(neg_g) - neg_g
        below = below - below[first_g][row_g]
        area = np.bincount(row_g, weights=pos_g * (below + 0.5 * neg_g), minlength=n)
        with np.errstate(divide="ignore", invalid="ignore"):
            out: Float = np.where((n_pos > 0) & (n_neg > 0), area / (n_pos * n_neg), np.nan)
        return out
    # step-wise AP: each group's new positives times precision at its threshold
    pos_below = np.cumsum(pos_g) - pos_g
    pos_below = pos_below - pos_below[first_g][row_g]
    cnt_below = np.cumsum(cnt_g) - cnt_g
    cnt_below = cnt_below - cnt_below[first_g][row_g]
    precision = (n_pos[row_g] - pos_below) / (k - cnt_below)
    total = np.bincount(row_g, weights=pos_g * precision, minlength=n)
    with np.errstate(divide="ignore", invalid="ignore"):
        ap: Float = np.where(n_pos > 0, total / n_pos, 0.0)
    return ap


# reading the state ---------------------------------------------------------------------


def _require_data(metric: str, state: ScoreHistogram) -> None:
    if not state.task:
        raise InputError(message(metric, "empty input", raw("0 samples"), "at least one sample"))
    if state.score.size == 0:
        raise InputError(
            message(metric, "every sample has zero weight", raw("sample_weight all 0"), "some > 0")
        )


def _find(labels: NDArray[Any], value: Any) -> int:
    """Index of ``value`` among ``labels``, or -1 (also when types cannot match)."""
    if (labels.dtype.kind == "U") != isinstance(value, str | np.str_):
        return -1
    hits = np.flatnonzero(labels == value)
    return int(hits[0]) if hits.size else -1


def _cumulative(score: Scores, pos: NDArray[Any], neg: NDArray[Any]) -> tuple[Float, Float, Float]:
    """Thresholds (descending, as float64) with the true- and false-positive totals at each."""
    thresholds: Float = score[::-1].astype(np.float64, copy=False)
    tps = np.cumsum(pos[::-1], dtype=np.float64)
    fps = np.cumsum(neg[::-1], dtype=np.float64)
    return thresholds, tps, fps


def _binary_arrays(state: ScoreHistogram, pos_idx: int) -> tuple[Float, Float, Float]:
    """Descending thresholds, tps and fps for the positive label ``pos_idx``."""
    c = state.counts[:, 0]
    key, score = state.key, state.score
    lo, hi = (int(i) for i in np.searchsorted(key, [pos_idx, pos_idx + 1]))
    distinct = int(np.count_nonzero(key[1:] != key[:-1])) + 1 if key.size else 0
    n_neg_keys = distinct - int(lo < hi)
    if lo == hi and n_neg_keys <= 1:
        return _cumulative(score, np.zeros_like(c), c)
    if n_neg_keys == 0:
        return _cumulative(score, c, np.zeros_like(c))
    zeros = np.zeros_like(c)
    if n_neg_keys == 1:
        # one positive and one negative run, each of distinct scores: merge the two
        sn = np.concatenate([score[:lo], score[hi:]])
        cn = np.concatenate([c[:lo], c[hi:]])
        s = np.concatenate([score[lo:hi], sn])
        pos = np.concatenate([c[lo:hi], zeros[: sn.size]])
        neg = np.concatenate([zeros[: hi - lo], cn])
        order = np.argsort(s, kind="stable")
        s, pos, neg = s[order], pos[order], neg[order]
        starts = _starts(s)
        pair = np.flatnonzero(np.diff(np.append(starts, s.size)) == 2)
        pos_u, neg_u = pos[starts], neg[starts]
        pos_u[pair] += pos[starts[pair] + 1]
        neg_u[pair] += neg[starts[pair] + 1]
        return _cumulative(s[starts], pos_u, neg_u)
    is_pos = key == pos_idx
    pos = np.where(is_pos, c, zeros)
    neg = np.where(is_pos, zeros, c)
    order = np.argsort(score, kind="stable")
    s = score[order]
    starts = _starts(s)
    return _cumulative(
        s[starts], np.add.reduceat(pos[order], starts), np.add.reduceat(neg[order], starts)
    )


def _column_arrays(state: ScoreHistogram, column: int | None) -> tuple[Float, Float, Float]:
    """Descending thresholds, tps and fps of one column, or of all pooled (``None``)."""
    if column is None:
        order = np.argsort(state.score, kind="stable")
        s = state.score[order]
        starts = _starts(s)
        counts = np.add.reduceat(state.counts[order], starts, axis=0)
        return _cumulative(s[starts], counts[:, 1], counts[:, 0])
    lo, hi = np.searchsorted(state.key, [column, column + 1])
    counts = state.counts[lo:hi]
    return _cumulative(state.score[lo:hi], counts[:, 1], counts[:, 0])


def _pooled_pair(state: ScoreHistogram) -> tuple[Float, NDArray[Any], Float, NDArray[Any]] | None:
    """``(un, cn, up, cp)`` of all columns pooled, when every row is at most one sample a side.

    The scores keep the state's type (the pair kernels only compare them).

    Each side's scores are sorted as plain values (no stable argsort over the
    columns' runs) and equal scores counted. None for weighted counts or rows
    of several samples, where :func:`_column_rows` pools them.
    """
    counts = state.counts
    if counts.dtype.kind not in "iu" or (counts.size and int(counts.max()) > 1):
        return None
    sides = []
    for j in (0, 1):
        values = np.compress(counts[:, j] == 1, state.score)
        values.sort()
        if not bool((values[1:] == values[:-1]).any()):
            sides.append((values, np.ones(values.size, dtype=np.int64)))
        else:
            starts = _starts(values)
            sides.append((values[starts], np.diff(np.append(starts, values.size))))
    (un, cn), (up, cp) = sides
    return cast(Float, un), cn, cast(Float, up), cp


def _column_rows(state: ScoreHistogram, column: int | None) -> tuple[NDArray[Any], NDArray[Any]]:
    """Negative and positive counts by ascending score of one column, or of all pooled."""
    if column is not None:
        lo, hi = np.searchsorted(state.key, [column, column + 1])
        counts = state.counts[lo:hi]
        return counts[:, 0], counts[:, 1]
    # the columns are ascending runs: the stable sort merges them
    order = np.argsort(state.score, kind="stable")
    s = state.score[order]
    neg, pos = state.counts[order, 0], state.counts[order, 1]
    starts = _starts(s)
    if starts.size == s.size:
        return neg, pos
    return np.add.reduceat(neg, starts), np.add.reduceat(pos, starts)
