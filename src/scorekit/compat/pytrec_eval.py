"""pytrec_eval's names and signatures, computed by scorekit's ranking metrics.

``from scorekit.compat import pytrec_eval`` replaces ``import pytrec_eval`` for
the measures scorekit has: :class:`RelevanceEvaluator` takes the same
arguments and its :meth:`~RelevanceEvaluator.evaluate` returns the same nested
dict ``{query: {measure: value}}``, keyed by trec_eval's names (``P_5``,
``ndcg_cut_10``, ``recip_rank``, ``map_cut_100``). A family name without a
cutoff (``"P"``, ``"ndcg_cut"``, ``"success"``) expands to trec_eval's default
cutoffs; ``"ndcg_cut.10"``, ``"ndcg_cut_10"`` or ``"P.5,10"`` select some.

The values come from :func:`scorekit.ranking.evaluate`, which reads
trec_eval's measure names itself; the queries are pytrec_eval's: those of the
run (an empty ranking included) that have judgments. A measure of trec_eval
that scorekit does not compute (``num_ret``, ``iprec_at_recall``, ``set_F``,
``ndcg_rel``, the nicknames ``official`` and ``all_trec``...) raises
:class:`~scorekit.errors.ConfigError` naming it.

Inputs are typed as pytrec_eval types them: query and document ids are
strings, relevances integers, scores numbers. Anything else raises a
:class:`~scorekit.errors.InputError` that is also a :class:`TypeError`, as
pytrec_eval raises. numpy integers and floats are accepted where pytrec_eval
accepts Python ones (it refuses them): they hold the same values.

Examples
--------
>>> from scorekit.compat import pytrec_eval
>>> qrels = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d5": 1}}
>>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": {"d4": 0.7, "d5": 0.6}}
>>> evaluator = pytrec_eval.RelevanceEvaluator(qrels, ["map", "ndcg_cut.2", "recip_rank"])
>>> evaluator.evaluate(run)["q2"]
{'map': 0.5, 'recip_rank': 0.5, 'ndcg_cut_2': 0.630...}
>>> pytrec_eval.NAMES["ndcg_cut_k"]
'ndcg@k'
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from scorekit.errors import ConfigError, InputError, choices, message
from scorekit.ranking import evaluate as _ranking_evaluate
from scorekit.ranking import translate

_NUMBERS = (int, float, np.integer, np.floating)


class _TypeRefused(InputError, TypeError):
    """An input of a type pytrec_eval refuses: an InputError that is also its TypeError."""


def _check_types(pairs: Mapping[Any, Any], what: str, value: str) -> None:
    """Refuse what pytrec_eval refuses: non-string ids, and relevances or scores of other types.

    ``value`` is ``"relevance"`` (integers) or ``"score"`` (numbers). The types
    of a query's ids and values are gathered at C speed; the offending item is
    looked for only when one is wrong.
    """
    allowed, expected = (
        ((int, np.integer), "an integer") if value == "relevance" else (_NUMBERS, "a number")
    )
    for query, docs in pairs.items():
        if not isinstance(query, str):
            raise _TypeRefused(
                message(
                    "pytrec_eval", f"a query id of the {what} is not a string", query, "a string"
                )
            )
        if not isinstance(docs, Mapping):
            raise _TypeRefused(
                message(
                    "pytrec_eval",
                    f"query {query!r} of the {what} is not a mapping",
                    type(docs).__name__,
                    "{doc: " + value + "}",
                )
            )
        if set(map(type, docs)) - {str}:
            doc = next(d for d in docs if not isinstance(d, str))
            where = f"a document id of query {query!r} in the {what} is not a string"
            raise _TypeRefused(message("pytrec_eval", where, doc, "a string"))
        if not all(issubclass(kind, allowed) for kind in set(map(type, docs.values()))):
            doc, number = next((d, v) for d, v in docs.items() if not isinstance(v, allowed))
            where = f"the {value} of document {doc!r} of query {query!r} is not {expected}"
            raise _TypeRefused(message("pytrec_eval", where, number, expected))


__all__ = [
    "NAMES",
    "RelevanceEvaluator",
    "compute_aggregated_measure",
    "supported_measures",
]

_SCALAR = ("map", "gm_map", "Rprec", "recip_rank", "bpref", "infAP", "ndcg")
"""trec_eval measures without a parameter that scorekit computes."""

_DEFAULT_CUTOFFS = {
    "P": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "recall": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "map_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "ndcg_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "success": (1, 5, 10),
}
"""trec_eval's measures with cutoffs, and the cutoffs it uses when none is given."""

supported_measures: frozenset[str] = frozenset((*_SCALAR, *_DEFAULT_CUTOFFS))
"""The trec_eval measure names (without cutoffs) this module computes."""

_GM_FLOOR = 0.00001
"""trec_eval's floor of the per-query average precision before the log of ``gm_map``."""


def _scorekit_name(measure: str) -> str:
    name = translate(measure)
    if name is None:
        raise ConfigError(message("pytrec_eval", "unsupported measure", measure))
    # ``recall_at@k`` is a ranking metric that ranking.evaluate spells ``recall@k``
    return name.replace("recall_at@", "recall@")


NAMES: dict[str, str] = {
    **{name: _scorekit_name(name) for name in _SCALAR},
    **{f"{name}_k": _scorekit_name(f"{name}_1").replace("@1", "@k") for name in _DEFAULT_CUTOFFS},
}
"""trec_eval's measure names (``_k`` for a cutoff) -> scorekit's metric strings."""

_CUT = re.compile(r"^(?P<base>[A-Za-z_]+?)[._](?P<cuts>\d+(?:,\d+)*)$")


def _expand(measures: Iterable[str]) -> dict[str, str]:
    """pytrec_eval's output keys -> scorekit metric strings, for the measures named."""
    if isinstance(measures, str):
        measures = [measures]
    out: dict[str, str] = {}
    cutoffs: dict[str, set[int]] = {}
    for measure in measures:
        if not isinstance(measure, str):
            raise ConfigError(message("pytrec_eval", "a measure is not a string", measure))
        match = _CUT.match(measure)
        if measure in _SCALAR:
            out[measure] = _scorekit_name(measure)
        elif measure in _DEFAULT_CUTOFFS:
            cutoffs.setdefault(measure, set())
        elif match is not None and match["base"] in _DEFAULT_CUTOFFS:
            cuts = {int(c) for c in match["cuts"].split(",")}
            if min(cuts) < 1:
                raise ConfigError(message("pytrec_eval", "invalid cutoff", measure, "cutoffs >= 1"))
            cutoffs.setdefault(match["base"], set()).update(cuts)
        else:
            raise ConfigError(
                message(
                    "pytrec_eval",
                    "unsupported measure",
                    measure,
                    choices(sorted(supported_measures))
                    + " (with '.k' cutoffs where they take one)",
                )
            )
    # as pytrec_eval: cutoffs named for a measure replace its default ones
    for base, cuts in cutoffs.items():
        for k in sorted(cuts or _DEFAULT_CUTOFFS[base]):
            out[f"{base}_{k}"] = _scorekit_name(f"{base}_{k}")
    return out


def compute_aggregated_measure(measure: str, values: Sequence[float]) -> float:
    """The value over all queries of a measure from its per-query values, as pytrec_eval.

    ``num_*`` measures are summed, ``gm_*`` measures (whose per-query values
    are logs) are the exponential of the mean, every other measure is the mean.

    Examples
    --------
    >>> compute_aggregated_measure("map", [0.5, 1.0])
    0.75
    >>> round(compute_aggregated_measure("gm_map", [math.log(0.25), math.log(1.0)]), 12)
    0.5
    """
    data = [float(v) for v in values]
    if not data:
        raise InputError(message("compute_aggregated_measure", "no values", values, "a value"))
    if measure.startswith("num_"):
        return float(math.fsum(data))
    if measure.startswith("gm_"):
        return math.exp(sum(data) / len(data))
    return sum(data) / len(data)


class RelevanceEvaluator:
    """Evaluate runs against relevance judgments, as ``pytrec_eval.RelevanceEvaluator``.

    Parameters
    ----------
    query_relevance : mapping
        ``{query: {doc: relevance}}``; queries without judgments are ignored.
    measures : iterable of str
        trec_eval measure names: ``map``, ``gm_map``, ``Rprec``, ``recip_rank``,
        ``bpref``, ``infAP``, ``ndcg``, and ``P``, ``recall``, ``map_cut``,
        ``ndcg_cut``, ``success`` with trec_eval's default cutoffs or the
        cutoffs after a dot or underscore (``"P.5,10"``, ``"ndcg_cut_10"``).
    relevance_level : int, default 1
        The smallest grade that counts as relevant (trec_eval ``-l``).
    judged_docs_only_flag : bool, default False
        Drop unjudged documents from the run first (trec_eval ``-J``).

    Raises
    ------
    ConfigError
        A measure scorekit does not compute, named in the message.

    Notes
    -----
    The value of ``gm_map`` for one query is ``log(max(AP, 0.00001))`` as in
    trec_eval; :func:`compute_aggregated_measure` turns the per-query values
    into the figure trec_eval prints. The values equal pytrec_eval's to the
    last bits of float arithmetic (sums over the ranking in another order).
    One exception: for a query with an empty run, or whose grades are all
    negative, pytrec_eval can give ``gm_map`` 0.0 when it is asked without
    ``map``, and gives ``log(0.00001)`` when ``map`` is asked too; scorekit
    always gives ``log(max(AP, 0.00001))``, as trec_eval's code reads.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}}
    >>> evaluator = RelevanceEvaluator(qrels, ["P_1", "success"])
    >>> evaluator.evaluate({"q1": {"d1": 1.0, "d2": 2.0}, "q3": {"d3": 1.0}})
    {'q1': {'P_1': 0.0, 'success_1': 0.0, 'success_5': 1.0, 'success_10': 1.0}}
    """

    def __init__(
        self,
        query_relevance: Mapping[str, Mapping[str, int]],
        measures: Iterable[str],
        relevance_level: int = 1,
        judged_docs_only_flag: bool = False,
    ) -> None:
        if not isinstance(query_relevance, Mapping):
            raise InputError(
                message(
                    "pytrec_eval",
                    "query_relevance is not a mapping",
                    type(query_relevance).__name__,
                    "{query: {doc: relevance}}",
                )
            )
        _check_types(query_relevance, "qrels", "relevance")
        self._keys = _expand(measures)
        self._qrels = {q: dict(docs) for q, docs in query_relevance.items() if len(docs) > 0}
        self._options = {
            "relevance_level": relevance_level,
            "judged_only": bool(judged_docs_only_flag),
            "missing": "zero",
        }

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
        """Every judged query of the run with the value of each measure.

        Parameters
        ----------
        scores : mapping
            The run, ``{query: {doc: score}}``.

        Returns
        -------
        dict
            ``{query: {measure: value}}`` for the run's queries that have
            judgments, with trec_eval's measure names; ``{}`` for an empty run.
        """
        if not isinstance(scores, Mapping):
            raise InputError(
                message(
                    "pytrec_eval",
                    "the run is not a mapping",
                    type(scores).__name__,
                    "{query: {doc: score}}",
                )
            )
        _check_types(scores, "run", "score")
        queries = [q for q in scores if q in self._qrels]
        if not queries or not self._keys:
            # no measure asked: every judged query of the run, with no value (as pytrec_eval)
            return {q: {} for q in queries}
        run = {q: scores[q] for q in queries if len(scores[q]) > 0}
        metrics = list(dict.fromkeys(self._keys.values()))
        # pytrec_eval gives 0 for a query without a relevant document and does not warn
        result = _ranking_evaluate(
            {q: self._qrels[q] for q in queries},
            run,
            metrics,
            per_query=True,
            warn=False,
            **self._options,
        )
        table = result.per_query or {}
        out: dict[str, dict[str, float]] = {}
        for q in queries:
            values = table[q]
            row: dict[str, float] = {}
            for key, metric in self._keys.items():
                value = values[metric]
                row[key] = math.log(max(value, _GM_FLOOR)) if key == "gm_map" else value
            out[q] = row
        return out
