"""ranx's ``Qrels``, ``Run`` and ``evaluate``, computed by scorekit's ranking metrics.

``from scorekit.compat import ranx`` replaces ``import ranx`` for evaluation:
:class:`Qrels` and :class:`Run` hold ``{query: {doc: value}}`` (from dicts or
TREC/JSON files) and :func:`evaluate` reads ranx's metric names (``ndcg@10``,
``map@100``, ``mrr``, ``precision@5``, ``recall@100``, ``hit_rate@10``,
``hits@10``, ``r-precision``, ``bpref``, ``f1@5``, ``dcg@10``,
``ndcg_burges@10``, ``dcg_burges@10``, ``rbp.95``, a relevance level as
``ndcg@10-l2``) and returns a float for one metric and a dict for several, as
ranx does. The values come from :func:`scorekit.ranking.evaluate`.

Where ranx departs from trec_eval, and which one this module follows:

- **Ties** (documents of equal score): trec_eval ranks them by document id,
  descending; ranx keeps its own order (the order it sorted them into, which
  is not trec_eval's). scorekit follows **trec_eval** for every metric: on
  tied scores the values can differ from ranx's.
- **bpref of a query without judged non-relevant documents, or without
  relevant ones**: ranx divides by zero (nan, and a nan mean); trec_eval counts
  every relevant document retrieved as fully preferred in the first case and
  gives 0 in the second. scorekit follows **trec_eval**.
- **rbp** (``rbp.95``): ranx weighs each retrieved document by its grade
  (values above 1 for grades above 1); trec_eval's ``rbp`` counts a relevant
  document as 1. scorekit follows **trec_eval** (the two agree on binary qrels).
- **ndcg and dcg with a relevance level** (``ndcg@10-l2``): ranx drops the
  documents graded below the level from both DCG and the ideal DCG; trec_eval
  keeps every positive grade as gain whatever the level. scorekit follows
  **trec_eval**.
- **Queries**: ranx evaluates the qrels' queries, a query absent from the run
  counting 0 (with ``make_comparable=True``; otherwise differing query sets
  are an error); pytrec_eval leaves such queries out. This module follows
  **ranx** (scorekit's ``missing="zero"``, trec_eval ``-c``).
- ``ndcg``/``dcg`` use the grade as gain (Järvelin and Kekäläinen, as
  trec_eval); ``ndcg_burges``/``dcg_burges`` use ``2^grade - 1`` (Burges et
  al.), scorekit's ``gain="exp"``: both as ranx.
- Cutoffs: ``precision@k`` divides by ``k`` (trec_eval's ``P_k``), ``map@k``
  by all relevant documents (trec_eval's ``map_cut_k``): ranx and trec_eval
  agree. ``precision`` and ``f1`` without a cutoff (over each query's whole
  ranking) have no scorekit metric and raise :class:`~scorekit.errors.ConfigError`.

:func:`fuse` and :func:`optimize_fusion` fuse runs with
:func:`scorekit.ranking.fuse`, ranx's methods, norms and ``params`` names
(``k``, ``sigma``, ``gamma``, ``phi``, ``weights``; the trained methods'
``log_odds``, ``map_scores``, ``probs`` and ``w``), with the scores ranx gives
where the rankings have no tied scores (on ties, scorekit ranks as trec_eval,
by doc id descending). Every query of the runs is in the fused run, a query
without documents as an empty ranking, as in ranx. Runs of different queries are
fused query by query over the runs that have each (ranx refuses them); so an
empty ranking adds nothing, where ranx's Borda (fusion or norm) and BayesFuse
give every document of the query points from it. :func:`optimize_fusion`
trains the trained methods (ProbFuse and SlideFuse for one ``n_segments`` or
``w``: ``min_n_segments == max_n_segments``, ``min_w == max_w``) and does not
search the other methods' parameters.

Examples
--------
>>> from scorekit.compat import ranx
>>> qrels = ranx.Qrels({"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d5": 1}})
>>> run = ranx.Run({"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": {"d4": 0.7, "d5": 0.6}})
>>> ranx.evaluate(qrels, run, "ndcg@3")
0.79...
>>> ranx.evaluate(qrels, run, ["map", "mrr", "hits@2"])
{'map': 0.666..., 'mrr': 0.75, 'hits@2': 1.0}
>>> ranx.NAMES["ndcg_burges@k"]
'ndcg@k:gain=exp'
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scorekit.errors import ConfigError, InputError, choices, message, raw
from scorekit.ranking import evaluate as _ranking_evaluate
from scorekit.ranking import fuse as _ranking_fuse
from scorekit.ranking import read_qrels, read_run, train_fusion

__all__ = ["NAMES", "Qrels", "Run", "evaluate", "fuse", "optimize_fusion"]

_METRICS = {
    "hits": "p",
    "hit_rate": "hit_rate",
    "precision": "p",
    "recall": "recall",
    "f1": "f",
    "r-precision": "r_precision",
    "mrr": "mrr",
    "map": "map",
    "dcg": "dcg",
    "dcg_burges": "dcg",
    "ndcg": "ndcg",
    "ndcg_burges": "ndcg",
    "bpref": "bpref",
    "rbp": "rbp",
}
"""ranx's metric names -> scorekit's."""

_EXP_GAIN = ("dcg_burges", "ndcg_burges")
_NO_CUTOFF = ("r-precision", "bpref")
_NEED_CUTOFF = ("precision", "f1")

NAMES: dict[str, str] = {
    "hits@k": "k * p@k",
    "hit_rate@k": "hit_rate@k",
    "precision@k": "p@k",
    "recall@k": "recall@k",
    "f1@k": "f@k",
    "r-precision": "r_precision",
    "mrr": "mrr",
    "mrr@k": "mrr@k",
    "map": "map",
    "map@k": "map@k",
    "dcg@k": "dcg@k",
    "dcg_burges@k": "dcg@k:gain=exp",
    "ndcg": "ndcg",
    "ndcg@k": "ndcg@k",
    "ndcg_burges@k": "ndcg@k:gain=exp",
    "bpref": "bpref",
    "rbp.95": "rbp:p=0.95",
    "<metric>-l2": "<metric>:relevance_level=2",
}
"""ranx's metric names -> scorekit's metric strings (``hits@k`` is ``k`` times ``p@k``)."""

_FORM = re.compile(r"^(?P<name>[a-z0-9_-]+?)(?:(?:@|\.)(?P<k>\d+))?(?:-l(?P<level>\d+))?$")


class _Parsed:
    """One ranx metric name: the scorekit string to compute and how to read its values."""

    def __init__(self, spec: str) -> None:
        match = _FORM.match(spec) if isinstance(spec, str) else None
        if match is None or match["name"] not in _METRICS:
            raise ConfigError(
                message("ranx.evaluate", "unsupported metric", spec, choices(sorted(_METRICS)))
            )
        name, k = match["name"], match["k"]
        self.level = int(match["level"] or 1)
        self.hits = name == "hits"
        self.cutoff = int(k) if k is not None else None
        if name in _NO_CUTOFF and k is not None:
            raise ConfigError(message("ranx.evaluate", f"{name} takes no cutoff", spec, name))
        if name in _NEED_CUTOFF and k is None:
            raise ConfigError(
                message(
                    "ranx.evaluate",
                    f"{name} over the whole ranking is not a scorekit metric",
                    spec,
                    f"a cutoff, e.g. '{name}@10'",
                )
            )
        if name == "rbp":
            if k is None:
                raise ConfigError(
                    message("ranx.evaluate", "rbp needs a persistence", spec, "e.g. 'rbp.95'")
                )
            self.string = f"rbp:p=0.{k}"
            self.cutoff = None
        else:
            base = _METRICS[name]
            self.string = base if k is None or int(k) == 0 else f"{base}@{k}"
            if name in _EXP_GAIN:
                self.string += ":gain=exp"
        if self.cutoff == 0:
            self.cutoff = None

    def with_depth(self, depth: int) -> str:
        """The scorekit string; metrics over the whole ranking use ``depth`` as cutoff."""
        if self.cutoff is None and self.string in ("p", "recall", "hit_rate"):
            return f"{self.string}@{depth}"
        return self.string

    def values(self, table: dict[str, float], key: str, depth: int) -> float:
        value = table[key]
        if self.hits:
            return float(round(value * (self.cutoff or depth)))
        return value


class _Mapping:
    """``{query: {doc: value}}`` with ranx's accessors."""

    _what = "data"

    def __init__(
        self, data: Mapping[str, Mapping[str, Any]] | None = None, name: str | None = None
    ):
        if data is not None and not isinstance(data, Mapping):
            raise InputError(
                message(
                    f"ranx.{type(self).__name__}",
                    f"the {self._what} are not a mapping",
                    type(data).__name__,
                    "{query: {doc: value}}",
                )
            )
        self._data: dict[str, dict[str, Any]] = {
            str(q): dict(docs) for q, docs in (data or {}).items()
        }
        self.name = name

    @classmethod
    def from_dict(cls, data: Mapping[str, Mapping[str, Any]]) -> Any:
        """The object of a ``{query: {doc: value}}`` dict."""
        return cls(data)

    @classmethod
    def _read(cls, path: str | os.PathLike[str], kind: str | None) -> dict[str, dict[str, Any]]:
        kinds = ("trec", "json")
        if kind is None:
            suffix = Path(path).suffix.lstrip(".")
            kind = "json" if suffix == "json" else "trec"
        if kind not in kinds:
            raise ConfigError(
                message(f"ranx.{cls.__name__}", "unknown file kind", kind, choices(kinds))
            )
        if kind == "json":
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            if not isinstance(data, dict):
                raise InputError(
                    message(
                        str(path), "not a JSON object", type(data).__name__, "{query: {doc: value}}"
                    )
                )
            return {str(q): dict(docs) for q, docs in data.items()}
        reader = read_qrels if cls is Qrels else read_run
        return reader(path).to_dict()

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """A copy of the data as ``{query: {doc: value}}``."""
        return {q: dict(docs) for q, docs in self._data.items()}

    def keys(self) -> Any:
        """The query ids."""
        return self._data.keys()

    def get_query_ids(self) -> list[str]:
        """The query ids, as a list."""
        return list(self._data)

    @property
    def size(self) -> int:
        """The number of queries."""
        return len(self._data)

    def add_score(self, q_id: str, doc_id: str, score: Any) -> None:
        """Set the value of one (query, document) pair."""
        self._data.setdefault(q_id, {})[doc_id] = score

    def add(self, q_id: str, doc_ids: Sequence[str], scores: Sequence[Any]) -> None:
        """Set the values of a query's documents."""
        if len(doc_ids) != len(scores):
            got = raw(f"{len(doc_ids)} documents and {len(scores)} values")
            raise InputError(
                message(
                    f"ranx.{type(self).__name__}.add",
                    "lengths differ",
                    got,
                    "one value per document",
                )
            )
        self._data.setdefault(q_id, {}).update(zip(doc_ids, scores, strict=True))

    def __getitem__(self, q_id: str) -> dict[str, Any]:
        return dict(self._data[q_id])

    def __contains__(self, q_id: object) -> bool:
        return q_id in self._data

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return repr(self._data)


class Qrels(_Mapping):
    """Relevance judgments ``{query: {doc: grade}}``, as ranx's ``Qrels``.

    Examples
    --------
    >>> qrels = Qrels({"q1": {"d1": 1}})
    >>> qrels.add_score("q2", "d4", 2)
    >>> qrels.size, qrels["q2"], qrels.get_query_ids()
    (2, {'d4': 2}, ['q1', 'q2'])
    """

    _what = "qrels"

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], kind: str | None = None) -> Qrels:
        """Qrels from a TREC file (``query iter doc grade``) or a JSON dict (``.json``)."""
        data = cls._read(path, kind)
        return cls({q: {d: _grade(v) for d, v in docs.items()} for q, docs in data.items()})


class Run(_Mapping):
    """Retrieved documents with scores ``{query: {doc: score}}``, as ranx's ``Run``.

    After :func:`evaluate`, :attr:`mean_scores` holds each metric's mean and
    :attr:`scores` each query's values.

    Examples
    --------
    >>> run = Run({"q1": {"d1": 0.5, "d2": 0.2}}, name="bm25")
    >>> run.name, len(run), sorted(run["q1"])
    ('bm25', 1, ['d1', 'd2'])
    """

    _what = "run"

    def __init__(self, run: Mapping[str, Mapping[str, Any]] | None = None, name: str | None = None):
        super().__init__(run, name)
        self.mean_scores: dict[str, float] = {}
        self.std_scores: dict[str, float] = {}
        self.scores: dict[str, dict[str, float]] = {}

    @classmethod
    def from_file(
        cls, path: str | os.PathLike[str], kind: str | None = None, name: str | None = None
    ) -> Run:
        """A run from a TREC file (``query Q0 doc rank score tag``) or a JSON dict (``.json``)."""
        return cls(cls._read(path, kind), name=name)

    def make_comparable(self, qrels: Qrels) -> Run:
        """Empty rankings for the qrels' queries the run lacks; the run's other queries dropped."""
        self._data = {q: self._data.get(q, {}) for q in qrels}
        return self


def _grade(value: float) -> Any:
    return int(value) if float(value).is_integer() else value


def _as_dict(obj: Any, what: str) -> dict[str, dict[str, Any]]:
    if isinstance(obj, _Mapping):
        return obj.to_dict()
    if isinstance(obj, Mapping):
        return {str(q): dict(docs) for q, docs in obj.items()}
    raise InputError(
        message(
            "ranx.evaluate",
            f"the {what} are not Qrels/Run or a dict",
            type(obj).__name__,
            "{query: {doc: value}}",
        )
    )


def evaluate(
    qrels: Qrels | Mapping[str, Mapping[str, Any]],
    run: Run | Mapping[str, Mapping[str, Any]],
    metrics: str | Sequence[str],
    return_mean: bool = True,
    return_std: bool = False,
    threads: int = 0,
    save_results_in_run: bool = True,
    make_comparable: bool = False,
) -> Any:
    """Evaluate a run with ranx's metric names, as ``ranx.evaluate``.

    Parameters
    ----------
    qrels, run : Qrels, Run or dict
        ``{query: {doc: value}}``.
    metrics : str or sequence of str
        ranx metric names (see the module docstring).
    return_mean : bool, default True
        The mean over queries; ``False`` gives each query's values, in sorted
        query order, as a numpy array per metric.
    return_std : bool, default False
        With the mean, ``{"mean": ..., "std": ...}`` per metric.
    threads : int, default 0
        Accepted for ranx's signature; scorekit computes in one pass.
    save_results_in_run : bool, default True
        Store the means and per-query values in ``run`` when it is a :class:`Run`.
    make_comparable : bool, default False
        Count the qrels' queries missing from the run as 0 and drop the run's
        queries without judgments; otherwise differing query sets are an error.
        A qrels query with no judged document is left out.

    Returns
    -------
    float, numpy array or dict
        One metric: its value; several: ``{metric: value}``.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}}
    >>> evaluate(qrels, {"q1": {"d1": 0.9, "d9": 0.5}}, ["recall@2", "hits"], make_comparable=True)
    {'recall@2': 0.25, 'hits': 0.5}
    """
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise ConfigError(message("ranx.evaluate", "no metric named", names, "e.g. 'ndcg@10'"))
    parsed = {name: _Parsed(name) for name in names}
    judgments = _as_dict(qrels, "qrels")
    ranking = _as_dict(run, "run")
    if set(judgments) != set(ranking):
        if not make_comparable:
            missing = sorted(set(judgments) ^ set(ranking))
            raise InputError(
                message(
                    "ranx.evaluate",
                    "the qrels and the run have different queries",
                    raw(f"{len(missing)} queries in one only, e.g. {missing[0]!r}"),
                    "the same queries, or make_comparable=True",
                )
            )
        ranking = {q: docs for q, docs in ranking.items() if q in judgments}
    # a query without judgments has no value to give: left out, as pytrec_eval does
    judgments = {q: docs for q, docs in judgments.items() if docs}
    ranking = {q: docs for q, docs in ranking.items() if q in judgments}
    if not judgments:
        raise InputError(
            message("ranx.evaluate", "no judged query", raw("empty qrels"), "a judged document")
        )
    queries = sorted(judgments)
    depth = max([len(docs) for docs in ranking.values()] + [1])
    per_query: dict[str, np.ndarray[Any, np.dtype[np.float64]]] = {}
    for level in sorted({p.level for p in parsed.values()}):
        chosen = {n: p for n, p in parsed.items() if p.level == level}
        strings = list(dict.fromkeys(p.with_depth(depth) for p in chosen.values()))
        # ranx gives 0 for a query without a relevant document and does not warn
        result = _ranking_evaluate(
            judgments,
            {q: docs for q, docs in ranking.items() if docs},
            strings,
            per_query=True,
            warn=False,
            missing="zero",
            relevance_level=level,
        )
        table = result.per_query or {}
        for name, p in chosen.items():
            key = p.with_depth(depth)
            per_query[name] = np.array(
                [p.values(table[q], key, depth) for q in queries], dtype=np.float64
            )
    if isinstance(run, Run) and save_results_in_run:
        for name, values in per_query.items():
            run.mean_scores[name] = float(np.mean(values))
            if return_std:
                run.std_scores[name] = float(np.std(values))
            run.scores[name] = dict(zip(queries, values.tolist(), strict=True))
    out: dict[str, Any]
    if not return_mean:
        out = dict(per_query)
    elif return_std:
        out = {
            n: {"mean": float(np.mean(v)), "std": float(np.std(v))} for n, v in per_query.items()
        }
    else:
        out = {n: float(np.mean(v)) for n, v in per_query.items()}
    return out[names[0]] if len(names) == 1 else out


_PARAMS = {
    "k": "k",
    "sigma": "sigma",
    "gamma": "gamma",
    "phi": "phi",
    "weights": "weights",
    "log_odds": "trained",
    "map_scores": "trained",
    "probs": "trained",
    "w": "window",
}
"""ranx's fusion ``params`` -> :func:`scorekit.ranking.fuse`'s keywords."""

_TRAINED = {
    "bayesfuse": "log_odds",
    "mapfuse": "map_scores",
    "posfuse": "probs",
    "probfuse": "probs",
    "segfuse": "probs",
    "slidefuse": "probs",
}
"""ranx's trained methods -> the name of what training gives in their ``params``."""


def fuse(
    runs: Sequence[Run | Mapping[str, Mapping[str, Any]]],
    norm: str | None = "min-max",
    method: str = "wsum",
    params: Mapping[str, Any] | None = None,
) -> Run:
    """Fuse runs with ranx's method names and ``params``, as ``ranx.fuse``.

    Parameters
    ----------
    runs : sequence of Run or dict
        Two runs or more.
    norm : str or None, default 'min-max'
        ranx's normalization: ``min-max``, ``min-max-inverted``, ``max``,
        ``sum``, ``zmuv``, ``rank``, ``borda`` or None.
    method : str, default 'wsum'
        ranx's method: ``rrf``, ``isr``, ``log_isr``, ``logn_isr``, ``sum``,
        ``mnz``, ``max``, ``min``, ``med``, ``anz``, ``gmnz``, ``wsum``,
        ``wmnz``, ``mixed``, ``rbc``, ``bordafuse``, ``w_bordafuse``,
        ``condorcet``, ``w_condorcet``, or a trained one (``bayesfuse``,
        ``mapfuse``, ``posfuse``, ``probfuse``, ``segfuse``, ``slidefuse``)
        with what :func:`optimize_fusion` gave.
    params : dict, optional
        The method's parameters, by ranx's names (``name`` is read as the
        fused run's name).

    Returns
    -------
    Run
        Every query of the runs, with the fused scores of its documents.

    Examples
    --------
    >>> a = {"q1": {"d1": 3.0, "d2": 2.0}, "q2": {}}
    >>> b = {"q1": {"d2": 0.9, "d3": 0.5}, "q2": {}}
    >>> fuse([a, b], method="rrf").to_dict()
    {'q1': {'d1': 0.01639..., 'd2': 0.03252..., 'd3': 0.01612...}, 'q2': {}}
    >>> fuse([a, b], norm="min-max", method="wsum", params={"weights": [0.5, 0.5]})["q1"]
    {'d1': 0.5, 'd2': 0.5, 'd3': 0.0}
    """
    given = dict(params or {})
    name = given.pop("name", method)
    options: dict[str, Any] = {}
    for key, value in given.items():
        if key not in _PARAMS:
            raise ConfigError(
                message(f"ranx.fuse ({method})", "unknown parameter", key, choices(sorted(_PARAMS)))
            )
        options[_PARAMS[key]] = value
    if isinstance(runs, str | os.PathLike | Mapping | _Mapping) or not isinstance(runs, Sequence):
        got = raw(type(runs).__name__)
        raise ConfigError(message("ranx.fuse", "runs must be a list of runs", got, "a list"))
    rankings = [_as_dict(run, f"run {i + 1}") for i, run in enumerate(runs)]
    fused = _ranking_fuse(rankings, method, norm=norm, **options).to_dict()
    queries = sorted({q for ranking in rankings for q in ranking} | set(fused))
    return Run({q: fused.get(q, {}) for q in queries}, name=name)


def optimize_fusion(
    qrels: Qrels | Mapping[str, Mapping[str, Any]],
    runs: Sequence[Run | Mapping[str, Mapping[str, Any]]],
    norm: str | None = "min-max",
    method: str = "wsum",
    metric: str = "ndcg",
    return_optimization_report: bool = False,
    **kwargs: Any,
) -> dict[str, Any]:
    """Train a trained fusion method on judged queries, as ``ranx.optimize_fusion`` does.

    The runs, normalized by ``norm``, are read on the qrels' queries (see
    :func:`scorekit.ranking.fuse`); the result is the ``params`` of
    :func:`fuse` for the runs to fuse, one entry per run, in the same order.

    Parameters
    ----------
    qrels : Qrels or dict
        The judgments of the training queries.
    runs : sequence of Run or dict
        The training runs.
    norm : str or None, default 'min-max'
        ranx's normalization, as in :func:`fuse`.
    method : {'bayesfuse', 'mapfuse', 'posfuse', 'probfuse', 'segfuse', 'slidefuse'}
        The trained method. ranx's search of the other methods' parameters
        (and of ProbFuse's ``n_segments`` and SlideFuse's ``w`` over a
        range) is not offered.
    metric : str, default 'ndcg'
        Accepted for ranx's signature; training reads no metric.
    return_optimization_report : bool, default False
        Must be False: there is no search to report.
    **kwargs
        ``min_n_segments`` = ``max_n_segments`` for ``probfuse`` (required),
        ``min_w`` = ``max_w`` for ``slidefuse`` (required); ``show_progress``
        is accepted.

    Returns
    -------
    dict
        ``{"log_odds": ...}``, ``{"map_scores": ...}`` or ``{"probs": ...}``
        (with ``"w"`` for ``slidefuse``).

    Examples
    --------
    >>> qrels = {"q1": {"d2": 1, "d3": 1}}
    >>> runs = [{"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q1": {"d2": 0.9, "d4": 0.5}}]
    >>> params = optimize_fusion(qrels, runs, method="posfuse")
    >>> [p.tolist() for p in params["probs"]]
    [[0.0, 1.0, 1.0], [1.0, 0.0]]
    >>> fuse(runs, method="posfuse", params=params)["q1"]
    {'d1': 0.0, 'd2': 2.0, 'd3': 1.0, 'd4': 0.0}
    """
    where = f"ranx.optimize_fusion ({method})"
    if method not in _TRAINED:
        raise ConfigError(
            message(
                where,
                "searching a method's parameters is not offered",
                method,
                choices(sorted(_TRAINED)) + " (trained on the qrels)",
            )
        )
    if return_optimization_report:
        raise ConfigError(
            message(
                where, "no optimization report", raw("return_optimization_report=True"), "False"
            )
        )
    del metric
    kwargs.pop("show_progress", None)
    ranges = {"probfuse": ("min_n_segments", "max_n_segments"), "slidefuse": ("min_w", "max_w")}
    fixed: int | None = None
    if method in ranges:
        low, high = (kwargs.pop(key, None) for key in ranges[method])
        if low is None or low != high:
            expected = f"{ranges[method][0]} == {ranges[method][1]} (one value, not a search)"
            raise ConfigError(
                message(where, "needs one value to train with", raw(f"{low}..{high}"), expected)
            )
        fixed = low
    if kwargs:
        raise ConfigError(
            message(where, "unknown argument", next(iter(kwargs)), "ranx's optimize_fusion's")
        )
    rankings = [_as_dict(run, f"run {i + 1}") for i, run in enumerate(runs)]
    judgments = _as_dict(qrels, "qrels")
    segments = fixed if method == "probfuse" else None
    trained = train_fusion(judgments, rankings, method, norm=norm, n_segments=segments)
    out: dict[str, Any] = {_TRAINED[method]: trained}
    if method == "slidefuse":
        out["w"] = fixed
    return out
