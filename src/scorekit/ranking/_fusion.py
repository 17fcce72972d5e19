"""Run fusion: several runs of the same queries combined into one, as ranx fuses them.

Each run's scores are first normalized query by query (``norm``), then the
scores of each (query, document) pair are combined across the runs that retrieved
it (``method``). Rank-based methods (RRF, ISR, RBC, Borda, Condorcet) read each
run's ranking: scores descending, ties broken by doc id descending, as trec_eval
ranks. ranx's methods that learn from training qrels (BayesFuse, MAPFuse,
PosFuse, ProbFuse, SegFuse, SlideFuse) train on judged queries first
(:func:`train_fusion`, or ``qrels=`` of :func:`fuse`). The fused run is
a :class:`~scorekit.ranking.Run`, ranked the same way; :func:`write_run` writes it
as a TREC run file.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.errors import ConfigError, InputError, choices, message, raw
from scorekit.ranking._data import Run, as_run
from scorekit.ranking._fusion_norms import RERANKING, check_normalized, normalized, renormalized
from scorekit.ranking._fusion_trained import (
    TRAINED_METHODS,
    check_trained,
    check_training,
    fuse_trained,
    load_qrels,
    train,
)
from scorekit.ranking._fusion_votes import borda, condorcet

__all__ = ["FUSION_METHODS", "FUSION_NORMS", "fuse", "train_fusion", "write_run"]

FUSION_METHODS = (
    "rrf",
    "isr",
    "log_isr",
    "logn_isr",
    "combsum",
    "combmnz",
    "combmax",
    "combmin",
    "combmed",
    "combanz",
    "combgmnz",
    "wsum",
    "wmnz",
    "mixed",
    "rbc",
    "bordafuse",
    "weighted_bordafuse",
    "condorcet",
    "weighted_condorcet",
    *TRAINED_METHODS,
)
"""The fusion methods of :func:`fuse`."""

FUSION_NORMS = ("minmax", "minmax_inverted", "max", "sum", "zmuv", "rank", "borda")
"""The score normalizations of :func:`fuse` (or None: the scores as they are)."""

_METHOD_ALIASES = {
    "sum": "combsum",
    "mnz": "combmnz",
    "max": "combmax",
    "min": "combmin",
    "med": "combmed",
    "anz": "combanz",
    "gmnz": "combgmnz",
    "borda": "bordafuse",
    "w_bordafuse": "weighted_bordafuse",
    "w_condorcet": "weighted_condorcet",
}
_NORM_ALIASES = {
    "min-max": "minmax",
    "min_max": "minmax",
    "min-max-inverted": "minmax_inverted",
    "min_max_inverted": "minmax_inverted",
    "none": None,
}
_WEIGHTED = {
    "combsum": "wsum",
    "combmnz": "wmnz",
    "wsum": "wsum",
    "wmnz": "wmnz",
    "mixed": "mixed",
    "bordafuse": "weighted_bordafuse",
    "weighted_bordafuse": "weighted_bordafuse",
    "condorcet": "weighted_condorcet",
    "weighted_condorcet": "weighted_condorcet",
}
_NEED_WEIGHTS = ("wsum", "wmnz", "mixed", "weighted_bordafuse", "weighted_condorcet")
_BY_RANK: tuple[str, ...] = ("rrf", "isr", "log_isr", "logn_isr", "rbc", "bordafuse")
_BY_RANK += ("weighted_bordafuse", "condorcet", "weighted_condorcet")


def fuse(
    runs: Sequence[Any],
    method: str = "rrf",
    *,
    norm: str | None = "minmax",
    weights: Sequence[float] | None = None,
    k: int = 60,
    gamma: float = 1.0,
    sigma: float = 0.01,
    phi: float | None = None,
    qrels: Any = None,
    train_runs: Sequence[Any] | None = None,
    trained: Sequence[Any] | None = None,
    n_segments: int | None = None,
    window: int | None = None,
) -> Run:
    """Fuse several runs into one, with the scores ranx's fusion gives.

    .. math:: \\text{RRF}(d) = \\sum_i \\frac{1}{k + \\text{rank}_i(d)}, \\qquad
        \\text{CombMNZ}(d) = |\\{i : d \\in \\text{run}_i\\}| \\sum_i s_i(d)

    Parameters
    ----------
    runs : sequence of Run, dict, table or TREC run path
        At least two runs. Their queries need not be the same: the fused run
        holds the union of their queries, each fused over the runs that have
        it (ranx refuses runs of different queries).
    method : str, default 'rrf'
        ``rrf`` (sum of 1 / (k + rank)), ``isr`` (count times the sum of
        1 / rank^2), ``log_isr`` (ln(count) times that sum), ``logn_isr``
        (ln(count + sigma) times it), ``combsum``, ``combmnz`` (count times
        the sum), ``combmax``, ``combmin``, ``combmed`` (median), ``combanz``
        (the mean over the runs that retrieved the document), ``combgmnz``
        (count^gamma times the sum), ``wsum`` (weighted sum, a missing
        document adds 0) and ``wmnz`` (the sum times the weights of the runs
        that retrieved it), ``mixed`` (the weighted sum times the square root
        of the count, Wu and Crestani), ``rbc`` (rank-biased centroid: the sum
        of (1 - phi) phi^(rank - 1)), ``bordafuse`` (Borda count: with n
        documents retrieved by some run for the query, a run gives n - rank + 1
        points to its rank-th document and (n - m + 1) / 2 to each of the
        documents it did not retrieve, m being its length; the fused score is
        the sum of the points), ``weighted_bordafuse`` (the weighted sum of
        the points), ``condorcet`` and ``weighted_condorcet`` (Condorcet
        fusion: the documents ordered by their pairwise contests, then scored
        n, n - 1, ..., 1; see Notes). ranx's short names (``sum``, ``mnz``,
        ``max``, ``w_bordafuse``, ``w_condorcet``...) are read too. Trained on
        judged queries (``qrels``, or ``trained``), with ``p`` the 0-based
        position of a document in a run: ``bayesfuse`` (the sum over the runs
        of the log-odds of relevance of the segment of positions 0-5, 5-10,
        10-15, 15-20, 20-30, 30-100, 100-200, 200-500 or 500-1000 holding
        ``p``, ln(0.001/0.999) for a document the run did not retrieve or
        retrieved past 1000), ``mapfuse`` (the sum of MAP / (p + 1), MAP being
        the run's mean average precision on the training queries), ``posfuse``
        (the sum of the fraction of the training queries, among those whose
        list reaches ``p``, with a relevant document there), ``probfuse`` (each
        list cut into ``n_segments`` segments of ceil(length / n_segments)
        positions; the sum of the segment's mean relevant fraction over the
        training queries, divided by its 1-based number), ``segfuse`` (the
        sum of (normalized score + 1) times the mean relevant fraction of the
        segment 0-5, 5-15, 15-35, ..., 2555-5115 holding ``p``, whose size
        doubles; 0 past 5115) and ``slidefuse`` (the sum of the mean of
        posfuse's fractions of positions ``p - window`` to ``p + window``
        within the list).
    norm : {'minmax', 'minmax_inverted', 'max', 'sum', 'zmuv', 'rank', 'borda'} or None
        Each run's scores, query by query, before fusion (default
        'minmax'): ``(s - min) / (max - min)``, ``(max - s) / (max - min)``
        (the ranking turned upside down), ``s / max``, ``(s - min) / (sum - n
        min)``, ``(s - mean) / std``, ``1 - (rank - 1) / n``, or Borda's ``1 -
        (rank - 1) / n`` with ``n`` the documents of the query over all the
        runs, and ``0.5 - (m - 1) / (2 n)`` for each of them the run (of ``m``
        documents) did not retrieve, which it then holds; a denominator below
        1e-9 is 1e-9, as in ranx (whose names ``min-max``,
        ``min-max-inverted`` are read too). Rank-based methods do not read the
        scores; after ``minmax_inverted`` or ``borda`` they read the ranking
        of the normalized scores.
    weights : sequence of float, optional
        One weight per run, for ``wsum``, ``wmnz``, ``mixed``,
        ``weighted_bordafuse`` and ``weighted_condorcet`` (required there);
        ``combsum``, ``combmnz``, ``bordafuse`` and ``condorcet`` with weights
        are their weighted forms.
    k : int, default 60
        RRF's rank offset.
    gamma : float, default 1
        CombGMNZ's exponent of the count.
    sigma : float, default 0.01
        logn_isr's offset of the count, in [0, 1].
    phi : float, optional
        RBC's persistence, 0 < phi < 1 (required with ``rbc``, as in ranx).
    qrels : Qrels, dict, table or TREC qrels path, optional
        The judged training queries of a trained method (a grade of 1 or more
        is relevant): each run learns from its rankings of the qrels' queries
        (see :func:`train_fusion`), then the runs are fused on all their queries.
    train_runs : sequence of runs, optional
        With ``qrels``, one training run per run (same system, same order),
        normalized by ``norm`` as the runs; default: the runs themselves.
    trained : sequence, optional
        Instead of ``qrels``, what :func:`train_fusion` (or ranx's training)
        gave, one entry per run: an array per run (ranx's ``log_odds`` or
        ``probs``), or a number per run for ``mapfuse`` (``map_scores``).
    n_segments : int, optional
        ProbFuse's number of segments (>= 1), required to train it.
    window : int, optional
        SlideFuse's half window ``w`` (>= 0), required with ``slidefuse``.

    Returns
    -------
    Run
        The fused scores of every (query, document) retrieved by some run.

    Raises
    ------
    ConfigError
        An unknown method or norm, fewer than two runs, weights of the wrong
        length or missing where needed, an invalid ``k``, ``gamma``,
        ``sigma`` or ``phi``, a trained method without ``qrels`` or
        ``trained`` (or a method that trains nothing given them), or invalid
        trained values, ``n_segments`` or ``window``.
    InputError
        A run or qrels that cannot be read, a run that lists a document twice
        for one query (naming the file and line, or the query and doc), or a
        training run that shares no query with the qrels.

    Notes
    -----
    Condorcet fusion (Montague and Aslam 2002) lets document x beat y when
    the runs ranking x above y (a run ranks every document it retrieved above
    those it did not) outweigh the runs ranking y above x. ranx sorts the
    documents with that contest as comparison, so its order is defined only
    where the contests form a strict order (no ties, no cycles); there both
    agree. Here the documents are ordered by their Copeland score, the
    contests won plus half the contests tied, then by doc id descending,
    which is that strict order whenever there is one, and a fixed order
    otherwise.

    A query is fused over the runs that have it, so a run without the query
    adds nothing to it (ranx refuses runs of different queries); a query
    without documents in every run has no row in the fused run.

    Examples
    --------
    >>> a = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    >>> b = {"q1": {"d2": 0.9, "d4": 0.5}}
    >>> fused = fuse([a, b], "rrf")
    >>> fused.ranking("q1")
    ['d2', 'd1', 'd4', 'd3']
    >>> fuse([a, b], "combmnz", norm="minmax").to_dict()["q1"]["d2"]
    3.0
    >>> fuse([a, b], "bordafuse").to_dict()["q1"]
    {'d1': 5.5, 'd2': 7.0, 'd3': 3.5, 'd4': 4.0}
    >>> fuse([a, b], "condorcet").ranking("q1")
    ['d2', 'd1', 'd4', 'd3']
    >>> fuse([a, b], "combsum", norm="borda").to_dict()["q1"]
    {'d1': 1.375, 'd2': 1.75, 'd3': 0.875, 'd4': 1.0}
    >>> judged = {"q1": {"d2": 1, "d3": 1}}
    >>> fuse([a, b], "posfuse", qrels=judged).to_dict()["q1"]
    {'d1': 0.0, 'd2': 2.0, 'd3': 1.0, 'd4': 0.0}
    """
    method, norm = _check_options(runs, method, norm, weights, k, gamma, sigma, phi)
    check_training(method, qrels, train_runs, trained, n_segments, window, len(runs))
    loaded = [_load(i, run) for i, run in enumerate(runs)]
    if method in TRAINED_METHODS:
        if trained is None:
            trained = train_fusion(
                qrels,
                loaded if train_runs is None else train_runs,
                method,
                norm=norm,
                n_segments=n_segments,
            )
        values = check_trained(method, trained, len(loaded), n_segments)
        return fuse_trained(renormalized(loaded, norm, method), method, values, window)
    if norm in RERANKING:
        loaded, norm = renormalized(loaded, norm, method), None
    columns = [_scores(run, method, norm, k, phi) for run in loaded]
    return _combine(loaded, columns, method, weights, gamma, sigma)


def train_fusion(
    qrels: Any,
    runs: Sequence[Any],
    method: str,
    *,
    norm: str | None = "minmax",
    n_segments: int | None = None,
) -> list[Any]:
    """What a trained fusion method learns from judged queries, as ranx's training gives it.

    Each run, normalized by ``norm``, is read on the qrels' queries: position
    ``p`` (0-based) of its ranking of a query is a hit when the qrels grade
    that document 1 or more; a qrels query the run lacks has no positions,
    and the run's queries the qrels lack are not read. ``mapfuse`` learns the
    run's mean average precision over the qrels' queries; the others a value
    per position, as :func:`fuse` describes (BayesFuse: 0.001 in place of a
    mean hit fraction, or its complement, of 0).

    Parameters
    ----------
    qrels : Qrels, dict, table or TREC qrels path
        The judgments of the training queries.
    runs : sequence of Run, dict, table or TREC run path
        The training runs, one per run to fuse later.
    method : {'bayesfuse', 'mapfuse', 'posfuse', 'probfuse', 'segfuse', 'slidefuse'}
        The trained fusion method.
    norm : str or None, default 'minmax'
        The normalization of :func:`fuse` (it orders the runs it re-ranks).
    n_segments : int, optional
        ProbFuse's number of segments, required with ``probfuse``.

    Returns
    -------
    list
        One entry per run, for ``fuse(..., trained=...)``: a float
        (``mapfuse``) or a numpy array of floats.

    Raises
    ------
    ConfigError
        A method that does not train, an unknown norm, or an invalid
        ``n_segments``.
    InputError
        Qrels or a run that cannot be read, or a run that shares no query
        with the qrels.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1}, "q2": {"d7": 2}}
    >>> runs = [{"q1": {"d1": 0.9, "d2": 0.5}, "q2": {"d9": 0.4, "d7": 0.3}},
    ...         {"q1": {"d2": 0.8}, "q2": {"d7": 0.6}}]
    >>> [p.tolist() for p in train_fusion(qrels, runs, "posfuse")]
    [[0.5, 0.5], [0.5]]
    >>> train_fusion(qrels, runs, "mapfuse")
    [0.75, 0.5]
    """
    if method not in TRAINED_METHODS:
        raise ConfigError(
            message("train_fusion", "not a trained method", method, choices(TRAINED_METHODS))
        )
    if not isinstance(runs, Sequence) or isinstance(runs, str | os.PathLike | Run) or not runs:
        got = raw(type(runs).__name__ if not isinstance(runs, Sequence) else repr(runs))
        raise ConfigError(message("train_fusion", "runs must be a list of runs", got, "a list"))
    norm = _check_norm("train_fusion", norm)
    check_training(method, qrels, None, None, n_segments, None, len(runs), training=True)
    judged = load_qrels(method, qrels)
    loaded = [_load(i, run) for i, run in enumerate(runs)]
    return train(judged, renormalized(loaded, norm, method), method, n_segments)


def _check_norm(where: str, norm: Any) -> str | None:
    """The norm's canonical name (ranx's spellings read), or None."""
    name: str | None = norm
    if isinstance(norm, str):
        name = _NORM_ALIASES.get(norm.lower(), norm.lower()) if norm.lower() != "none" else None
    if name is not None and name not in FUSION_NORMS:
        raise ConfigError(message(where, "unknown norm", norm, choices(FUSION_NORMS) + " or None"))
    return name


def _check_options(
    runs: Any,
    method: Any,
    norm: Any,
    weights: Any,
    k: Any,
    gamma: Any,
    sigma: Any,
    phi: Any = None,
) -> tuple[str, str | None]:
    if isinstance(runs, str | os.PathLike | Run) or not isinstance(runs, Sequence):
        raise ConfigError(
            message("fuse", "runs must be a sequence of runs", raw(type(runs).__name__), "a list")
        )
    if len(runs) < 2:
        raise ConfigError(message("fuse", "needs two runs or more", len(runs), "at least 2"))
    name = _METHOD_ALIASES.get(method, method) if isinstance(method, str) else method
    if name not in FUSION_METHODS:
        raise ConfigError(message("fuse", "unknown method", method, choices(FUSION_METHODS)))
    norm = _check_norm("fuse", norm)
    if weights is not None:
        if name not in _WEIGHTED:
            raise ConfigError(
                message(
                    f"fuse ({name})",
                    "takes no weights",
                    raw(f"weights={list(weights)!r}"),
                    "weights with " + choices(sorted(_WEIGHTED)),
                )
            )
        name = _WEIGHTED[name]
        values = np.asarray(weights, dtype=object)
        ok = values.ndim == 1 and all(
            isinstance(w, int | float | np.integer | np.floating)
            and not isinstance(w, bool)
            and math.isfinite(w)
            for w in values.tolist()
        )
        if not ok or len(values) != len(runs):
            raise ConfigError(
                message(
                    f"fuse ({name})",
                    "invalid weights",
                    raw(repr(list(weights))),
                    f"{len(runs)} finite numbers, one per run",
                )
            )
    elif name in _NEED_WEIGHTS:
        raise ConfigError(message(f"fuse ({name})", "needs weights", None, "one per run"))
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 0:
        raise ConfigError(message("fuse (rrf)", "invalid k", k, "an integer >= 0"))
    if not _finite(gamma):
        raise ConfigError(message("fuse (combgmnz)", "invalid gamma", gamma, "a finite number"))
    if not _finite(sigma) or not 0 <= sigma <= 1:
        raise ConfigError(message("fuse (logn_isr)", "invalid sigma", sigma, "0 <= sigma <= 1"))
    if phi is not None and (not _finite(phi) or not 0 < phi < 1):
        raise ConfigError(message("fuse (rbc)", "invalid phi", phi, "0 < phi < 1"))
    if name == "rbc" and phi is None:
        raise ConfigError(message("fuse (rbc)", "needs phi", None, "a persistence 0 < phi < 1"))
    if name != "rbc" and phi is not None:
        raise ConfigError(
            message(f"fuse ({name})", "takes no phi (RBC's persistence)", phi, "phi with rbc only")
        )
    return name, norm


def _finite(x: Any) -> bool:
    return (
        isinstance(x, int | float | np.integer | np.floating)
        and not isinstance(x, bool)
        and math.isfinite(x)
    )


def _load(i: int, run: Any) -> Run:
    try:
        return as_run(run)
    except InputError as exc:
        if isinstance(run, str | os.PathLike):
            raise
        raise InputError(f"run {i + 1}: {exc}") from None


def _scores(
    run: Run, method: str, norm: str | None, k: int, phi: float | None = None
) -> NDArray[np.float64]:
    """Each row's score as the method reads it: by rank, or normalized, per query.

    Borda and Condorcet read the 0-based rank itself.
    """
    order, starts, _ = run.ranked()
    n = len(order)
    lengths = np.diff(starts)
    group = np.repeat(np.arange(len(lengths)), lengths)
    rank = np.arange(n, dtype=np.float64) - np.repeat(starts[:-1], lengths)
    ranked = run.values[order]
    if method == "rrf":
        value = 1.0 / (k + rank + 1.0)
    elif method in ("isr", "log_isr", "logn_isr"):
        value = 1.0 / (rank + 1.0) ** 2
    elif method == "rbc":
        p = float(phi if phi is not None else 0.0)
        value = (1.0 - p) * np.power(p, rank)
    elif method in _BY_RANK:
        value = rank
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            value = normalized(ranked, group, rank, lengths, norm)
        check_normalized(run, order, value, method, norm)
    out = np.empty(n)
    out[order] = value
    return out


def _combine(
    runs: list[Run],
    columns: list[NDArray[np.float64]],
    method: str,
    weights: Sequence[float] | None,
    gamma: float,
    sigma: float,
) -> Run:
    import pyarrow as pa
    import pyarrow.compute as pc

    query = pa.chunked_array([run.query for run in runs], type=pa.string()).combine_chunks()
    doc = pa.chunked_array([run.doc for run in runs], type=pa.string()).combine_chunks()
    score = np.concatenate(columns) if columns else np.zeros(0)
    source = np.repeat(np.arange(len(runs)), [len(run) for run in runs])
    keys = pc.binary_join_element_wise(query, doc, "\x00").dictionary_encode()
    code = np.asarray(keys.indices.to_numpy(zero_copy_only=False), dtype=np.intp)
    pairs = len(keys.dictionary)
    count = np.bincount(code, minlength=pairs).astype(np.float64)
    w = np.ones(len(runs)) if weights is None else np.asarray(weights, dtype=np.float64)
    fused: NDArray[np.float64]
    first = np.full(pairs, len(code), dtype=np.intp)
    np.minimum.at(first, code, np.arange(len(code)))
    picked = pa.array(first)
    pair_query, pair_doc = query.take(picked), doc.take(picked)
    if method in ("bordafuse", "weighted_bordafuse", "condorcet", "weighted_condorcet"):
        qcode = np.asarray(
            pc.dictionary_encode(pair_query).indices.to_numpy(zero_copy_only=False), dtype=np.intp
        )
        if method.endswith("bordafuse"):
            fused = borda(code, qcode, source, score, w, len(runs))
        else:
            doc_order = np.empty(pairs, dtype=np.intp)
            doc_order[np.asarray(pc.sort_indices(pair_doc), dtype=np.intp)] = np.arange(pairs)
            fused = condorcet(code, qcode, source, score, w, len(runs), doc_order)
        return Run(pair_query, pair_doc, fused, source="fused")
    if method == "wsum":
        fused = np.bincount(code, weights=w[source] * score, minlength=pairs).astype(np.float64)
    elif method in ("combmax", "combmin"):
        fused = np.full(pairs, -np.inf if method == "combmax" else np.inf)
        (np.maximum if method == "combmax" else np.minimum).at(fused, code, score)
    elif method == "combmed":
        fused = _medians(code, score, pairs)
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            total = np.bincount(code, weights=score, minlength=pairs).astype(np.float64)
        if method in ("rrf", "combsum", "rbc"):
            fused = total
        elif method in ("isr", "combmnz"):
            fused = total * count
        elif method == "log_isr":
            fused = total * np.log(count)
        elif method == "logn_isr":
            fused = total * np.log(count + sigma)
        elif method == "combanz":
            fused = total / count
        elif method == "combgmnz":
            fused = total * count**gamma
        elif method == "mixed":
            weighted = np.bincount(code, weights=w[source] * score, minlength=pairs)
            fused = weighted.astype(np.float64) * np.sqrt(count)
        else:
            fused = total * np.bincount(code, weights=w[source], minlength=pairs)
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
                "scores that add up to finite numbers (normalize them, or rescale the runs)",
            )
        )
    return Run(pair_query, pair_doc, fused, source="fused")


def _medians(code: NDArray[np.intp], score: NDArray[np.float64], pairs: int) -> NDArray[np.float64]:
    """The median of the scores of each pair (the mean of the middle two for an even count)."""
    order = np.lexsort((score, code))
    sorted_scores = score[order]
    count = np.bincount(code, minlength=pairs)
    start = np.cumsum(count) - count
    low = sorted_scores[start + (count - 1) // 2]
    high = sorted_scores[start + count // 2]
    out: NDArray[np.float64] = (low + high) / 2.0
    return out


def write_run(run: Any, path: str | os.PathLike[str], *, tag: str = "scorekit") -> Path:
    """Write a run as a TREC run file: ``qid Q0 docid rank score tag``, best first per query.

    Queries come in sorted order; within a query documents rank by descending
    score, ties by descending doc id (trec_eval's order). Scores are written
    with every digit needed to read them back exactly.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "fused.txt"
    >>> _ = write_run({"q1": {"d1": 0.5, "d2": 0.5, "d3": 0.9}}, path, tag="rrf")
    >>> print(path.read_text(), end="")
    q1 Q0 d3 1 0.9 rrf
    q1 Q0 d2 2 0.5 rrf
    q1 Q0 d1 3 0.5 rrf
    """
    if not tag or any(ch.isspace() for ch in tag):
        raise ConfigError(message("write_run", "invalid tag", tag, "a word without spaces"))
    data = as_run(run)
    order, starts, qids = data.ranked()
    lengths = np.diff(starts)
    rank = np.arange(len(order)) - np.repeat(starts[:-1], lengths) + 1
    query = np.repeat(qids, lengths)
    docs = data.doc.take(order).to_pylist()
    scores = data.values[order].tolist()
    out = Path(path)
    try:
        with out.open("w", encoding="utf-8") as handle:
            for q, d, r, s in zip(query.tolist(), docs, rank.tolist(), scores, strict=True):
                handle.write(f"{q} Q0 {d} {r} {s!r} {tag}\n")
    except OSError as exc:
        raise InputError(
            message(str(path), "cannot write the run", raw(str(exc)), "a writable file path")
        ) from None
    return out
