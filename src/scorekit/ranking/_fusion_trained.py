"""Run fusion trained on judged queries: ranx's BayesFuse, MAPFuse, PosFuse, ProbFuse, SegFuse
and SlideFuse.

Training reads, for each run, the hit list of every query of the training qrels:
position ``i`` of the run's ranking for the query (0-based, scores descending,
ties by doc id descending) holds 1 if the qrels grade its document 1 or more,
else 0. A qrels query the run lacks has an empty hit list; the run's queries the
qrels lack are not read. From the hit lists each method learns one value per
position (or one number per run, MAPFuse), then scores each document of a run
to fuse by its position there; the fused score is the sum over the runs that
have the query (CombSUM). The runs are normalized first, the training runs as
the runs to fuse (as ranx's ``optimize_fusion`` and ``fuse`` do).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.errors import ConfigError, InputError, choices, message, raw
from scorekit.ranking._data import Qrels, Run, as_qrels

__all__ = [
    "TRAINED_METHODS",
    "check_trained",
    "check_training",
    "fuse_trained",
    "load_qrels",
    "train",
]

TRAINED_METHODS = ("bayesfuse", "mapfuse", "posfuse", "probfuse", "segfuse", "slidefuse")
"""The fusion methods that learn from training qrels."""

_BAYES_CUTS = np.array([0, 5, 10, 15, 20, 30, 100, 200, 500, 1000])
"""BayesFuse's segments of positions (ranx's), each with one log-odds of relevance."""
_SEG_CUTS = np.array([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)])
"""SegFuse's segments of positions: 0-5, 5-15, 15-35, ... 2555-5115 (Shokouhi's)."""
_MIN_ODD = math.log(0.001 / 0.999)
"""BayesFuse's log-odds of a document a run did not retrieve (ranx's)."""


def train(qrels: Qrels, runs: list[Run], method: str, n_segments: int | None) -> list[Any]:
    """What ``method`` learns from each (normalized) training run: one array or number per run."""
    names = qrels.queries()
    relevant = qrels.keys().filter(qrels.values >= 1.0)
    out: list[Any] = []
    for i, run in enumerate(runs):
        hits = _Hits(run, names, relevant)
        if not hits.shared:
            raise InputError(
                message(
                    f"fuse ({method})",
                    f"training run {i + 1} shares no query with the qrels",
                    raw(f"run queries {_some(run.queries())}, qrels queries {_some(names)}"),
                    "training runs of the qrels' queries",
                )
            )
        if method == "bayesfuse":
            out.append(hits.log_odds())
        elif method == "mapfuse":
            out.append(hits.mean_ap(qrels))
        elif method == "probfuse":
            out.append(hits.segment_probs(int(n_segments or 1)))
        elif method == "segfuse":
            out.append(hits.seg_probs())
        else:
            out.append(hits.position_probs())
    return out


def _some(names: NDArray[np.str_]) -> str:
    shown = ", ".join(repr(str(n)) for n in names[:3])
    return f"[{shown}{', ...' if len(names) > 3 else ''}]"


class _Hits:
    """One run's hit lists for the training queries, as rows in ranking order."""

    def __init__(self, run: Run, names: NDArray[np.str_], relevant: Any) -> None:
        import pyarrow.compute as pc

        order, starts, qids = run.ranked()
        lengths = np.diff(starts)
        where = np.searchsorted(names, qids)
        known = where < len(names)
        known[known] = names[where[known]] == qids[known]
        self.shared = bool(known.any())
        self.queries = len(names)
        self.lengths = np.zeros(len(names), dtype=np.int64)
        self.lengths[where[known]] = lengths[known]
        keep = np.repeat(known, lengths)
        rank = np.arange(len(order)) - np.repeat(starts[:-1], lengths)
        self.query = np.repeat(where, lengths)[keep]
        self.position = rank[keep]
        keys = run.keys().take(order)
        hit = np.asarray(pc.is_in(keys, value_set=relevant).to_numpy(zero_copy_only=False))
        self.hit = hit[keep].astype(np.float64)

    def position_probs(self) -> NDArray[np.float64]:
        """Relevant fraction per position over the queries whose list reaches it (PosFuse)."""
        longest = int(self.lengths.max())
        relevant = np.bincount(self.position, weights=self.hit, minlength=longest)
        reach = np.bincount(self.lengths, minlength=longest + 1)[::-1].cumsum()[::-1][1:]
        out: NDArray[np.float64] = relevant / reach
        return out

    def _per_segment(self, cuts: NDArray[np.int64]) -> NDArray[np.float64]:
        """Relevant documents per (query, segment), a row per query in sorted order."""
        segments = len(cuts) - 1
        inside = self.position < cuts[-1]
        segment = np.searchsorted(cuts, self.position[inside], side="right") - 1
        cell = self.query[inside] * segments + segment
        counts = np.bincount(cell, weights=self.hit[inside], minlength=self.queries * segments)
        out: NDArray[np.float64] = counts.astype(np.float64).reshape(self.queries, segments)
        return out

    def log_odds(self) -> NDArray[np.float64]:
        """BayesFuse: the log-odds of relevance of each of the first 1000 positions."""
        sizes = np.diff(_BAYES_CUTS).astype(np.float64)
        terms = self._per_segment(_BAYES_CUTS) / sizes / self.queries
        mean = np.cumsum(terms, axis=0)[-1]
        mean[mean == 0.0] = 0.001
        rest = 1.0 - mean
        rest[rest <= 0.0] = 0.001
        out: NDArray[np.float64] = np.repeat(np.log(mean / rest), np.diff(_BAYES_CUTS))
        return out

    def seg_probs(self) -> NDArray[np.float64]:
        """SegFuse: the mean relevant fraction of each of the 10 segments."""
        sizes = np.diff(_SEG_CUTS).astype(np.float64)
        terms = self._per_segment(_SEG_CUTS) / sizes
        out: NDArray[np.float64] = np.cumsum(terms, axis=0)[-1] / self.queries
        return out

    def segment_probs(self, n_segments: int) -> NDArray[np.float64]:
        """ProbFuse: each query's list cut in ``n_segments`` of ceil(length / n) positions;
        the mean over the queries of each segment's relevant fraction."""
        size = -(-self.lengths[self.query] // n_segments)
        segment = self.position // np.maximum(size, 1)
        out = np.zeros(n_segments)
        if len(segment):
            new = np.ones(len(segment), dtype=bool)
            new[1:] = (self.query[1:] != self.query[:-1]) | (segment[1:] != segment[:-1])
            first = np.flatnonzero(new)
            relevant = np.add.reduceat(self.hit, first)
            count = np.diff(np.append(first, len(segment)))
            np.add.at(out, segment[first], relevant / count)
        result: NDArray[np.float64] = out / self.queries
        return result

    def mean_ap(self, qrels: Qrels) -> float:
        """MAPFuse: the run's mean average precision over the training queries."""
        codes = qrels._query_index()[0]
        total = np.bincount(codes[qrels.values >= 1.0], minlength=self.queries)
        seen = np.cumsum(self.hit)
        starts = np.flatnonzero(np.r_[True, self.query[1:] != self.query[:-1]])
        offset = np.repeat(np.r_[0.0, seen][starts], np.diff(np.append(starts, len(seen))))
        precision = np.where(self.hit > 0, (seen - offset) / (self.position + 1.0), 0.0)
        found = np.bincount(self.query, weights=precision, minlength=self.queries)
        ap = np.divide(found, total, out=np.zeros(self.queries), where=total > 0)
        return float(np.mean(ap))


def check_trained(method: str, trained: Any, runs: int, n_segments: int | None) -> list[Any]:
    """Trained values given by the caller, one per run, checked against the method."""
    what = "a finite number per run" if method == "mapfuse" else "an array of finite numbers"
    if method == "segfuse":
        what = "10 finite numbers per run"
    if isinstance(trained, str) or not isinstance(trained, Sequence) or len(trained) != runs:
        raise ConfigError(
            message(
                f"fuse ({method})",
                "invalid trained values",
                raw(f"{type(trained).__name__} of {_length(trained)}"),
                f"{runs} entries, one per run, each {what}",
            )
        )
    out: list[Any] = []
    for i, values in enumerate(trained):
        try:
            array = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            array = np.array([np.nan])
        ok = bool(np.isfinite(array).all())
        if method == "mapfuse":
            ok = ok and array.ndim == 0
        else:
            ok = ok and array.ndim == 1
            ok = ok and (method != "segfuse" or len(array) == len(_SEG_CUTS) - 1)
            ok = ok and (method != "probfuse" or len(array) >= 1)
        if not ok:
            raise ConfigError(
                message(
                    f"fuse ({method})",
                    f"invalid trained values of run {i + 1}",
                    raw(repr(values) if np.size(values) <= 12 else f"shape {np.shape(values)}"),
                    what,
                )
            )
        out.append(float(array) if method == "mapfuse" else array)
    if method == "probfuse" and n_segments is not None and n_segments != len(out[0]):
        raise ConfigError(
            message(
                "fuse (probfuse)",
                "n_segments differs from the trained values",
                n_segments,
                f"{len(out[0])} (the trained values' length) or None",
            )
        )
    return out


def _length(obj: Any) -> str:
    try:
        return f"length {len(obj)}"
    except TypeError:
        return "no length"


def fuse_trained(runs: list[Run], method: str, trained: list[Any], window: int | None) -> Run:
    """The (normalized) runs fused with what training gave: each document scored by its
    position in each run, the scores summed over the runs that have its query."""
    import pyarrow as pa
    import pyarrow.compute as pc

    query = pa.chunked_array([run.query for run in runs], type=pa.string()).combine_chunks()
    doc = pa.chunked_array([run.doc for run in runs], type=pa.string()).combine_chunks()
    keys = pc.binary_join_element_wise(query, doc, "\x00").dictionary_encode()
    code = np.asarray(keys.indices.to_numpy(zero_copy_only=False), dtype=np.intp)
    pairs = len(keys.dictionary)
    first = np.full(pairs, len(code), dtype=np.intp)
    np.minimum.at(first, code, np.arange(len(code)))
    pair_query, pair_doc = query.take(pa.array(first)), doc.take(pa.array(first))
    qcode = np.asarray(
        pc.dictionary_encode(pair_query).indices.to_numpy(zero_copy_only=False), dtype=np.intp
    )
    queries = int(qcode.max()) + 1 if pairs else 0
    fill = _MIN_ODD if method == "bayesfuse" else 0.0
    fused = np.zeros(pairs)
    start = 0
    for run, values in zip(runs, trained, strict=True):
        rows = code[start : start + len(run)]
        start += len(run)
        order, starts, _ = run.ranked()
        lengths = np.diff(starts)
        position = np.arange(len(order)) - np.repeat(starts[:-1], lengths)
        scored = _position_scores(method, values, position, np.repeat(lengths, lengths), window)
        if method == "segfuse":
            scored = scored * (run.values[order] + 1.0)
        column = np.full(pairs, fill)
        column[rows[order]] = scored
        has = np.bincount(qcode[rows], minlength=queries)[qcode] > 0
        with np.errstate(over="ignore", invalid="ignore"):
            fused += np.where(has, column, 0.0)
    bad = np.flatnonzero(~np.isfinite(fused))
    if bad.size:
        raise InputError(
            message(
                f"fuse ({method})",
                "the fused score of a document overflows the floats",
                raw(
                    f"query {pair_query[int(bad[0])].as_py()!r}, document "
                    f"{pair_doc[int(bad[0])].as_py()!r}"
                ),
                "scores whose normalized values are finite (normalize them, or rescale the runs)",
            )
        )
    return Run(pair_query, pair_doc, fused, source="fused")


def _position_scores(
    method: str,
    values: Any,
    position: NDArray[np.int64],
    length: NDArray[np.int64],
    window: int | None,
) -> NDArray[np.float64]:
    """Each ranked row's score from its 0-based position and its query's list length."""
    if method == "mapfuse":
        return np.asarray(float(values) / (position + 1.0), dtype=np.float64)
    probs = np.asarray(values, dtype=np.float64)
    if method == "probfuse":
        size = -(-length // len(probs))
        segment = position // np.maximum(size, 1)
        return probs[segment] / (segment + 1.0)
    if method == "segfuse":
        segment = np.searchsorted(_SEG_CUTS, position, side="right") - 1
        return _at(probs, segment, 0.0)
    if method == "slidefuse":
        return _slide(probs, position, length, int(window or 0))
    return _at(probs, position, _MIN_ODD if method == "bayesfuse" else 0.0)


def _at(probs: NDArray[np.float64], index: NDArray[np.int64], past: float) -> NDArray[np.float64]:
    """``probs[index]``, and ``past`` where the index is past the end."""
    inside = index < len(probs)
    out = np.full(len(index), past)
    out[inside] = probs[index[inside]]
    return out


def _slide(
    probs: NDArray[np.float64], position: NDArray[np.int64], length: NDArray[np.int64], w: int
) -> NDArray[np.float64]:
    """SlideFuse: the mean of the probabilities of positions ``p - w`` to ``p + w`` within the
    list (a position past the trained ones adds 0), summed in position order."""
    low = np.maximum(position - w, 0)
    high = np.minimum(position + w, length - 1)
    windows, back = np.unique(np.stack([low, high]), axis=1, return_inverse=True)
    a, b = windows[0], windows[1]
    end = np.minimum(b + 1, len(probs))
    total = np.zeros(windows.shape[1])
    for step in range(2 * w + 1):
        at = a + step
        inside = at < end
        total[inside] += probs[at[inside]]
    out: NDArray[np.float64] = (total / (b - a + 1.0))[np.ravel(back)]
    return out


def load_qrels(method: str, qrels: Any) -> Any:
    try:
        return as_qrels(qrels)
    except InputError as exc:
        if isinstance(qrels, str | os.PathLike):
            raise
        raise InputError(f"fuse ({method}): qrels: {exc}") from None


def check_training(
    method: str,
    qrels: Any,
    train_runs: Any,
    trained: Any,
    n_segments: Any,
    window: Any,
    runs: int,
    *,
    training: bool = False,
) -> None:
    """The options of the trained methods, refused with any other method."""
    given = {"qrels": qrels, "train_runs": train_runs, "trained": trained}
    given |= {"n_segments": n_segments, "window": window}
    where = f"fuse ({method})"
    if method not in TRAINED_METHODS:
        for name, value in given.items():
            if value is not None:
                raise ConfigError(
                    message(
                        where,
                        f"takes no {name} (it trains nothing)",
                        raw(type(value).__name__),
                        f"{name} with " + choices(TRAINED_METHODS),
                    )
                )
        return
    if not training and (qrels is None) == (trained is None):
        problem = "needs qrels to train on" if qrels is None else "takes qrels or trained, not both"
        raise ConfigError(
            message(
                where,
                problem,
                raw(f"qrels={type(qrels).__name__}, trained={type(trained).__name__}"),
                "qrels of training queries, or trained values (one per run)",
            )
        )
    if train_runs is not None:
        if qrels is None:
            raise ConfigError(
                message(where, "train_runs without qrels", raw("qrels=None"), "qrels to train on")
            )
        if not isinstance(train_runs, Sequence) or isinstance(train_runs, str | os.PathLike | Run):
            got = raw(type(train_runs).__name__)
            raise ConfigError(message(where, "invalid train_runs", got, f"a list of {runs} runs"))
        if len(train_runs) != runs:
            raise ConfigError(
                message(
                    where,
                    "train_runs differ in number from the runs",
                    len(train_runs),
                    f"{runs} (one training run per run)",
                )
            )
    if n_segments is not None and method != "probfuse":
        raise ConfigError(
            message(where, "takes no n_segments", n_segments, "n_segments with probfuse")
        )
    if n_segments is not None and (
        isinstance(n_segments, bool)
        or not isinstance(n_segments, int | np.integer)
        or n_segments < 1
    ):
        raise ConfigError(message(where, "invalid n_segments", n_segments, "an integer >= 1"))
    if method == "probfuse" and n_segments is None and (training or qrels is not None):
        raise ConfigError(
            message(where, "needs n_segments to train", None, "a number of segments >= 1")
        )
    if window is not None and method != "slidefuse":
        raise ConfigError(message(where, "takes no window", window, "window with slidefuse"))
    if window is not None and (
        isinstance(window, bool) or not isinstance(window, int | np.integer) or window < 0
    ):
        raise ConfigError(message(where, "invalid window", window, "an integer >= 0"))
    if method == "slidefuse" and window is None and not training:
        raise ConfigError(message(where, "needs window", None, "a half window size >= 0"))
