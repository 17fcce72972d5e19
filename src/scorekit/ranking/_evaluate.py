"""``ranking.evaluate``: many ranking metrics over one join of a run with its qrels."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Metric, parse_metric
from scorekit.errors import ConfigError, InputError, UndefinedMetricWarning, choices, message, raw
from scorekit.ranking._columns import first_non_number, numbers
from scorekit.ranking._data import Qrels, as_qrels, as_run
from scorekit.ranking._listed import judge_dicts, judge_for
from scorekit.ranking._names import trec_measures
from scorekit.ranking._state import QueryValues, RankingMetric

__all__ = ["RankingResult", "evaluate", "per_query_values", "ranking_metrics"]


class RankingResult(Mapping[str, float]):
    """The mean of each metric, by the metric string given; ``per_query`` on request.

    A mapping ``{metric: mean}`` in the order the metrics were named. With
    ``per_query=True``, :attr:`per_query` maps each query id to
    ``{metric: value}`` (pytrec_eval's shape) and :attr:`states` holds the
    mergeable per-query states.
    """

    def __init__(
        self,
        means: dict[str, float],
        states: dict[str, QueryValues],
        per_query: dict[str, dict[str, float]] | None,
    ) -> None:
        self._means = means
        self.states = states
        self.per_query = per_query

    def __getitem__(self, key: str) -> float:
        return self._means[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._means)

    def __len__(self) -> int:
        return len(self._means)

    def __repr__(self) -> str:
        body = ", ".join(f"{k!r}: {v!r}" for k, v in self._means.items())
        return f"RankingResult({{{body}}})"


_OPTIONS = (
    "relevance_level",
    "missing",
    "judged_only",
    "max_docs",
    "gain",
    "gains",
    "log_base",
    "beta",
    "max_grade",
    "p",
    "num_docs",
)
_LOCAL = {"ap": "map"}
"""Names that mean a ranking metric here and another metric elsewhere."""


def ranking_metrics(
    specs: str | Metric[Any] | Sequence[str | Metric[Any]],
    options: Mapping[str, Any] | None = None,
) -> dict[str, RankingMetric]:
    """The ranking metrics named by ``specs``, keyed as :func:`evaluate` keys its result.

    Parameters
    ----------
    specs : str, Metric or a sequence of them
        Metric strings such as ``"ndcg@10"``, ``"map"`` (or ``"ap"``), ``"p@5"``,
        or configured ranking metrics (keyed by their name and cutoff).
        trec_eval's measure sets (``"official"``, ``"all_trec"``) and
        families (``"iprec_at_recall"``, ``"P.5,10"``) stand for their
        measures, keyed by their scorekit strings in trec_eval's order (see
        :func:`~scorekit.ranking.trec_measures`).
    options : mapping, optional
        Options given to every metric named by a string that has them:
        ``relevance_level``, ``missing``, ``judged_only``, ``max_docs``,
        ``gain``, ``gains``, ``log_base``, ``beta``, ``max_grade``, ``p``,
        ``num_docs`` (see :func:`evaluate`).

    Returns
    -------
    dict
        Key -> metric, in the order given; a key given twice with the same
        settings is kept once.

    Raises
    ------
    ConfigError
        An unknown option, a metric that is not a ranking metric, a key given
        twice with different settings, or no metric at all.

    Examples
    --------
    >>> ranking_metrics(["ndcg@10", "ap"], {"missing": "zero"})
    {'ndcg@10': NDCG(k=10, relevance_level=1.0, missing='zero', judged_only=False,
                     max_docs=None, gain='linear', gains=None, log_base=2.0),
     'ap': MAP(k=None, relevance_level=1.0, missing='zero', judged_only=False, max_docs=None)}
    """
    options = dict(options or {})
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise ConfigError(
            message("ranking.evaluate", "unknown option", unknown[0], choices(_OPTIONS))
        )
    if isinstance(specs, str | Metric):
        specs = [specs]
    out: dict[str, RankingMetric] = {}
    for spec in _expanded(specs):
        if isinstance(spec, Metric):
            metric = spec
            k = getattr(spec, "k", None)
            key = spec.name if k is None else f"{spec.name}@{k}"
        else:
            key = str(spec)
            name, _, rest = key.partition("@")
            head, colon, variant = name.partition(":")
            local = _LOCAL.get(head, head) + colon + variant + (f"@{rest}" if rest else "")
            metric = parse_metric(local)
            if isinstance(metric, RankingMetric):
                fields = set(type(metric).__dataclass_fields__)
                usable = {k: v for k, v in options.items() if k in fields}
                metric = parse_metric(local, **usable) if usable else metric
        if not isinstance(metric, RankingMetric):
            raise ConfigError(
                message(
                    key,
                    "is not a ranking metric",
                    raw(f"input kind {metric.inputs!r}"),
                    "a metric of qrels and a run, e.g. 'ndcg@10'",
                )
            )
        if key in out and out[key] != metric:
            raise ConfigError(
                message(
                    "ranking.evaluate",
                    f"{key!r} is named twice with different settings",
                    raw(f"{out[key]!r} and {metric!r}"),
                    "each metric name once",
                )
            )
        out[key] = metric
    if not out:
        raise ConfigError(message("ranking.evaluate", "no metric named", None, "e.g. ['ndcg@10']"))
    return out


def _expanded(specs: Sequence[str | Metric[Any]]) -> list[str | Metric[Any]]:
    """``specs`` with each trec_eval measure set or family replaced by its measures."""
    out: list[str | Metric[Any]] = []
    for spec in specs:
        members = trec_measures(spec) if isinstance(spec, str) else None
        out.extend(members if members is not None else [spec])
    return out


def evaluate(
    qrels: Any,
    run: Any,
    metrics: str | Metric[Any] | Sequence[str | Metric[Any]] = (
        "map",
        "ndcg@10",
        "mrr",
        "p@10",
        "recall@100",
    ),
    *,
    per_query: bool = False,
    warn: bool = True,
    check_ids: bool = True,
    strict: bool = False,
    **options: Any,
) -> RankingResult:
    """Evaluate a run against qrels with several ranking metrics in one pass.

    Parameters
    ----------
    qrels, run
        :class:`Qrels` / :class:`Run` objects, ``{query: {doc: value}}``
        dicts, tables (``query``, ``doc``, ``relevance`` / ``score`` columns) or
        TREC file paths.
    metrics : str, Metric or a sequence of them
        Metric strings such as ``"ndcg@10"``, ``"map"``, ``"p@5"``, ``"mrr@10"``.
    per_query : bool, default False
        Also return every query's values (:attr:`RankingResult.per_query`).
    warn : bool, default True
        Warn about the queries whose value is undefined and counted as 0 (no
        relevant document), an :class:`~scorekit.errors.UndefinedMetricWarning`
        for each distinct message (``map`` and ``map@5`` share theirs). False
        leaves them to the caller: the pytrec_eval and ranx compatibility
        modules do not warn, as those libraries do not.
    check_ids : bool, default True
        False says the caller has made sure that every query and document id
        of ``{query: {doc: value}}`` dicts is a string (the pytrec_eval
        compatibility module refuses any other id), so they are not looked at
        again; ids of another type must then not be given.
    strict : bool, default False
        True refuses a value of ``{query: {doc: value}}`` dicts that is not a
        Python or numpy integer or float (a bool is an integer), as pytrec_eval
        refuses them, with an :class:`~scorekit.errors.InputError` naming it;
        by default numeric strings, Decimals, Fractions and numpy bools count
        as the numbers they hold.
    **options
        Options applied to every metric named by a string that has them
        (metric objects are used as configured): ``relevance_level``,
        ``missing`` (``"zero"`` counts qrels queries absent from the run as 0,
        trec_eval ``-c``, also when the run shares no query with the qrels),
        ``judged_only`` (drop unjudged documents first, trec_eval ``-J``),
        ``max_docs`` (the first documents of each query only, trec_eval
        ``-M``), ``gain`` (``"exp"`` for 2^rel - 1), ``gains`` (a gain per
        grade), ``log_base``, ``beta``, ``max_grade``, ``p`` (RBP's persistence),
        ``num_docs`` (the collection's size for ``utility``, trec_eval ``-N``).

    Returns
    -------
    RankingResult
        ``{metric: mean}`` in the order given.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d5": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": {"d4": 0.7, "d5": 0.6}}
    >>> result = evaluate(qrels, run, ["map", "mrr", "p@2"], per_query=True)
    >>> dict(result)
    {'map': 0.666..., 'mrr': 0.75, 'p@2': 0.5}
    >>> result.per_query["q2"]
    {'map': 0.5, 'mrr': 0.5, 'p@2': 0.5}
    """
    chosen = ranking_metrics(metrics, options)
    scores = None
    if strict:
        _numbers_of(qrels, "relevance")
        scores = _numbers_of(run, "score")
    if isinstance(qrels, Mapping):
        judgments = Qrels.from_dict(qrels, check_ids=check_ids)
    else:
        judgments = as_qrels(qrels)
    judged = None
    listed = all(metric.reads_listed_rows() for metric in chosen.values())
    if listed and isinstance(run, Mapping):
        judged = judge_dicts(run, judgments, check_ids=check_ids, scores=scores)
    if judged is None:
        judged = judge_for(chosen.values(), judgments, as_run(run))
    states = {
        name: metric.for_qrels(judgments).from_judged(judged) for name, metric in chosen.items()
    }
    means: dict[str, float] = {}
    seen: set[str] = set()
    for name, state in states.items():
        metric = chosen[name]
        # the metric's compute warns about the undefined queries its state counts; the
        # warning is given here instead, once for the metrics that share its text
        means[name] = metric.compute(dataclasses.replace(state, undefined=0))
        if warn and state.undefined:
            text = metric._undefined_text(state.undefined, len(state.queries))
            if text not in seen:
                seen.add(text)
                warnings.warn(text, UndefinedMetricWarning, stacklevel=2)
    table = per_query_values(states) if per_query else None
    return RankingResult(means, states, table)


def _numbers_of(data: Any, name: str) -> NDArray[np.float64] | None:
    """The values of a ``{query: {doc: value}}`` dict as floats, in order, each checked to be
    a number; None for data of another form, which its reader checks.

    Raises
    ------
    InputError
        A value that is not a Python or numpy integer or float, named with its
        query and doc.
    """
    if not isinstance(data, Mapping):
        return None
    inners = list(data.values())
    if not (set(map(type, inners)) <= {dict} or all(isinstance(i, Mapping) for i in inners)):
        return None
    values = numbers(inners, sum(map(len, inners)))
    if values is None:
        found = first_non_number(data)
        if found is not None:
            query, doc, value = found
            where = f"the {name} of document {doc!r} of query {query!r} is not a number"
            shown = value if value is not None else raw("None")
            raise InputError(message("ranking.evaluate", where, shown, "an integer or a float"))
    return values


def per_query_values(states: Mapping[str, QueryValues]) -> dict[str, dict[str, float]]:
    """Every query's value under each metric, from the metrics' states: pytrec_eval's shape.

    Parameters
    ----------
    states : mapping
        Key -> the :class:`QueryValues` state of a ranking metric (merged over
        chunks or not).

    Returns
    -------
    dict
        ``{query: {key: value}}``: the queries that count (with
        ``missing="zero"``, the qrels queries absent from the run too, at 0),
        each with the value of every metric whose state holds it.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d5": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": {"d4": 0.7, "d5": 0.6}}
    >>> metrics = ranking_metrics(["map", "p@2"])
    >>> per_query_values({key: m.summarize(qrels, run) for key, m in metrics.items()})
    {'q1': {'map': 0.833..., 'p@2': 0.5}, 'q2': {'map': 0.5, 'p@2': 0.5}}
    """
    out: dict[str, dict[str, float]] = {}
    for name, state in states.items():
        queries, values = state.table()
        for q, v in zip(queries.tolist(), values.tolist(), strict=True):
            out.setdefault(q, {})[name] = v
    return out


def query_values(state: QueryValues) -> tuple[NDArray[np.str_], NDArray[np.float64]]:
    """The query ids and values of a state, in sorted query order."""
    return state.table()
