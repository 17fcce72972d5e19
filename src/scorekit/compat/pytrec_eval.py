"""pytrec_eval's names and signatures, computed by scorekit's ranking metrics.

``from scorekit.compat import pytrec_eval`` replaces ``import pytrec_eval`` for
the measures scorekit has: :class:`RelevanceEvaluator` takes the same
arguments and its :meth:`~RelevanceEvaluator.evaluate` returns the same nested
dict ``{query: {measure: value}}``, keyed by trec_eval's names (``P_5``,
``ndcg_cut_10``, ``recip_rank``, ``map_cut_100``, ``iprec_at_recall_0.10``).
A family name without a parameter (``"P"``, ``"ndcg_cut"``, ``"success"``,
``"iprec_at_recall"``, ``"Rprec_mult"``) expands to trec_eval's default
parameters; ``"ndcg_cut.10"``, ``"ndcg_cut_10"`` or ``"P.5,10"`` select some.
The sets ``official``, ``set`` and ``all_trec`` expand as pytrec_eval expands
them (:data:`supported_nicknames`). ``utility``, ``11pt_avg`` and ``set_F``
take their numbers after a dot (``"utility.2,-1,0,0"``); pytrec_eval sorts
and merges such numbers as text before trec_eval reads them, so it computes
another utility where the order matters, and this module the one named.

The values come from :func:`scorekit.ranking.evaluate`, which reads
trec_eval's measure names itself; the queries are pytrec_eval's: those of the
run (an empty ranking included) that have judgments. A query with an empty
ranking is a query that retrieved nothing: 0 but ``num_q`` (1), ``num_rel``
and ``utility``, as trec_eval computes them (pytrec_eval's ``num_rel`` of
such a query depends on the queries evaluated before it). The labels
``runid`` and ``relstring`` are 0.0, as pytrec_eval gives them. A measure
that scorekit does not compute (the preference measures, gains after a dot
for ``G``, ``ndcg_rel`` or ``Rndcg``) raises
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
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain, compress, repeat
from operator import countOf
from typing import Any

import numpy as np

from scorekit.errors import ConfigError, InputError, choices, message
from scorekit.ranking import TREC_DEFAULTS, TREC_NICKNAMES, Qrels, translate
from scorekit.ranking import evaluate as _ranking_evaluate

_NUMBERS = (int, float, np.integer, np.floating)


class _TypeRefused(InputError, TypeError):
    """An input of a type pytrec_eval refuses: an InputError that is also its TypeError."""


def _check_types(pairs: Mapping[Any, Any], what: str, value: str, *, values: bool = True) -> None:
    """Refuse what pytrec_eval refuses: non-string ids, and relevances or scores of other types.

    ``value`` is ``"relevance"`` (integers) or ``"score"`` (numbers); with
    ``values=False`` the ids alone are looked at (and the inner mappings). The
    types of a query's ids and values are gathered at C speed; the offending
    item is looked for only when one is wrong.
    """
    allowed, usual, expected = (
        ((int, np.integer), int, "an integer")
        if value == "relevance"
        else (_NUMBERS, float, "a number")
    )
    if _all_typed(pairs, allowed if values else None, usual):
        return
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
        if not all(issubclass(kind, str) for kind in set(map(type, docs))):
            doc = next(d for d in docs if not isinstance(d, str))
            where = f"a document id of query {query!r} in the {what} is not a string"
            raise _TypeRefused(message("pytrec_eval", where, doc, "a string"))
        if values and not all(issubclass(k, allowed) for k in set(map(type, docs.values()))):
            doc, number = next((d, v) for d, v in docs.items() if not isinstance(v, allowed))
            where = f"the {value} of document {doc!r} of query {query!r} is not {expected}"
            raise _TypeRefused(message("pytrec_eval", where, number, expected))


def _all_typed(pairs: Mapping[Any, Any], allowed: tuple[type, ...] | None, usual: type) -> bool:
    """Whether every query id and doc id of ``pairs`` is a string, every inner mapping a
    dict and every value of an ``allowed`` type (the values are not looked at when
    ``allowed`` is None): the types of all of them are gathered at once, whatever the
    number of queries (counting the values of the ``usual`` type first, which is all of
    them as a rule)."""
    inners = list(pairs.values())
    if not (set(map(type, pairs)) <= {str} and set(map(type, inners)) <= {dict}):
        return False
    try:
        # ``str.join`` refuses the first id that is not a string; the joined ids are dropped
        deque(map("".join, inners), 0)
    except TypeError:
        return False
    if allowed is None:
        return True
    values = chain.from_iterable(map(dict.values, inners))
    if countOf(map(type, values), usual) == sum(map(len, inners)):
        return True
    kinds = set(map(type, chain.from_iterable(map(dict.values, inners))))
    return all(issubclass(kind, allowed) for kind in kinds)


__all__ = [
    "NAMES",
    "RelevanceEvaluator",
    "compute_aggregated_measure",
    "supported_measures",
    "supported_nicknames",
]

_SCALAR = (
    *("map", "gm_map", "Rprec", "recip_rank", "bpref", "infAP", "ndcg", "num_q", "num_ret"),
    *("num_rel", "num_rel_ret", "num_nonrel_judged_ret", "gm_bpref", "utility", "11pt_avg"),
    *("binG", "G", "ndcg_rel", "Rndcg", "set_P", "set_recall", "set_F", "set_map"),
    "set_relative_P",
)
"""trec_eval measures printed once (some take parameters) that scorekit computes."""

_PARAMETERS = {"utility": "coefficients", "11pt_avg": "recalls", "set_F": "weight"}
"""Measures of ``_SCALAR`` that take numbers after a dot, and the scorekit option they set."""

_LABELS = ("runid", "relstring")
"""trec_eval's labels (the run's tag, a string per query): pytrec_eval gives 0.0 for them."""

_DEFAULT_CUTOFFS: dict[str, tuple[float, ...]] = {
    name: TREC_DEFAULTS[name]
    for name in (
        "P",
        "recall",
        "map_cut",
        "ndcg_cut",
        "success",
        "relative_P",
        "iprec_at_recall",
        "Rprec_mult",
    )
}
"""trec_eval's measures printed once per parameter, and the parameters it uses when none
is given (cutoffs; recall levels for ``iprec_at_recall``, multiples of R for
``Rprec_mult``)."""

_REAL = ("iprec_at_recall", "Rprec_mult")
"""Measures of ``_DEFAULT_CUTOFFS`` whose parameters are real numbers, printed ``%.2f``."""

supported_measures: frozenset[str] = frozenset((*_SCALAR, *_DEFAULT_CUTOFFS, *_LABELS))
"""The trec_eval measure names (without parameters) this module computes."""

supported_nicknames: dict[str, frozenset[str]] = {
    name: frozenset(m for m in TREC_NICKNAMES[name] if m in supported_measures)
    for name in ("official", "set", "all_trec")
}
"""pytrec_eval's measure sets this module expands (those of trec_eval 9: no rbp, no unj)."""

_GM_FLOOR = 0.00001
"""trec_eval's floor of the per-query value before the log of ``gm_map`` and ``gm_bpref``."""

_ORDER = {name: i for i, name in enumerate(TREC_NICKNAMES["all_trec"])}
"""trec_eval's order of its measures, in which pytrec_eval lists a query's values."""


_V9 = {"iprec_at_recall": ",rounding=trec_eval_9", "11pt_avg": ",rounding=trec_eval_9"}
"""pytrec_eval is trec_eval 9.0: it rounds a recall level times R as trec_eval 9.0.7 did."""
_V9_SCALAR = {"11pt_avg": ":rounding=trec_eval_9"}
"""The same, for ``11pt_avg`` named without its recall levels."""


def _scorekit_name(measure: str) -> str:
    name = translate(measure)
    if name is None:
        raise ConfigError(message("pytrec_eval", "unsupported measure", measure))
    # ``recall_at@k`` is a ranking metric that ranking.evaluate spells ``recall@k``
    return name.replace("recall_at@", "recall@")


def _key(base: str, value: float) -> str:
    """pytrec_eval's key of a measure printed once per parameter (``P_5``, ``Rprec_mult_0.20``)."""
    return f"{base}_{value:.2f}" if base in _REAL else f"{base}_{int(value)}"


NAMES: dict[str, str] = {
    **{name: _scorekit_name(name) + _V9_SCALAR.get(name, "") for name in _SCALAR},
    **{
        f"{name}_k": _scorekit_name(f"{name}_1").replace("@1", "@k")
        for name in _DEFAULT_CUTOFFS
        if name not in _REAL
    },
    "iprec_at_recall_x": "iprec_at_recall:recall=x,rounding=trec_eval_9",
    "Rprec_mult_x": "rprec_mult:mult=x",
}
"""trec_eval's measure names (``_k`` for a cutoff, ``_x`` for a real parameter) -> scorekit's
metric strings."""

_NUMBERS_TEXT = re.compile(r"^[0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*$|^\.[0-9]+(,\.?[0-9]+)*$")


def _split(measure: str) -> tuple[str, str] | None:
    """``(base, parameters)`` of ``base.p1,p2`` or ``base_p1,p2`` for a known base, else None."""
    for base in sorted({*_DEFAULT_CUTOFFS, *_PARAMETERS}, key=len, reverse=True):
        for sep in "._":
            if measure.startswith(base + sep):
                return base, measure[len(base) + 1 :]
    return None


def _unsupported(measure: Any) -> ConfigError:
    return ConfigError(
        message(
            "pytrec_eval",
            "unsupported measure",
            measure,
            choices(sorted(supported_measures))
            + " (with '.k' cutoffs where they take one), or a set: "
            + ", ".join(sorted(supported_nicknames)),
        )
    )


def _expand(measures: Iterable[str]) -> dict[str, str]:
    """pytrec_eval's output keys -> scorekit metric strings, for the measures named.

    A label (``runid``, ``relstring``) maps to the empty string: pytrec_eval
    gives it 0.0.
    """
    if isinstance(measures, str):
        measures = [measures]
    named: list[str] = []
    for measure in measures:
        if not isinstance(measure, str):
            raise ConfigError(message("pytrec_eval", "a measure is not a string", measure))
        named.extend(supported_nicknames.get(measure, (measure,)))
    out: dict[str, str] = {}
    cutoffs: dict[str, set[float]] = {}
    for measure in named:
        split = _split(measure)
        if measure in _LABELS:
            out[measure] = ""
        elif measure in _SCALAR:
            out[measure] = _scorekit_name(measure) + _V9_SCALAR.get(measure, "")
        elif measure in _DEFAULT_CUTOFFS:
            cutoffs.setdefault(measure, set())
        elif split is not None and split[0] in _PARAMETERS:
            base, params = split
            if not re.fullmatch(r"[-+0-9.,]+", params):
                raise _unsupported(measure)
            name = _scorekit_name(base)
            option = _PARAMETERS[base]
            out[base] = f"{name}:{option}=" + ";".join(params.split(",")) + _V9.get(base, "")
        elif split is not None and _NUMBERS_TEXT.match(split[1]):
            base, params = split
            values = {float(c) for c in params.split(",")}
            if base not in _REAL and (min(values) < 1 or any(v != int(v) for v in values)):
                raise ConfigError(message("pytrec_eval", "invalid cutoff", measure, "cutoffs >= 1"))
            cutoffs.setdefault(base, set()).update(values)
        else:
            raise _unsupported(measure)
    # as pytrec_eval: parameters named for a measure replace its default ones
    for base, cuts in cutoffs.items():
        for value in sorted(cuts or _DEFAULT_CUTOFFS[base]):
            text = repr(float(value)) if base in _REAL else str(int(value))
            out[_key(base, value)] = _scorekit_name(f"{base}.{text}") + _V9.get(base, "")
    return dict(sorted(out.items(), key=lambda item: _ORDER.get(_base(item[0]), len(_ORDER))))


def _base(key: str) -> str:
    split = _split(key)
    return split[0] if split is not None else key


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
        trec_eval measure names (:data:`supported_measures`): ``map``,
        ``gm_map``, ``Rprec``, ``recip_rank``, ``bpref``, ``infAP``, ``ndcg``,
        the counts ``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``,
        ``num_nonrel_judged_ret``, the set measures, ``gm_bpref``,
        ``utility``, ``11pt_avg``, ``binG``, ``G``, ``ndcg_rel``, ``Rndcg``,
        and ``P``, ``recall``, ``map_cut``, ``ndcg_cut``, ``success``,
        ``relative_P``, ``iprec_at_recall``, ``Rprec_mult`` with trec_eval's
        default parameters or those after a dot or underscore (``"P.5,10"``,
        ``"ndcg_cut_10"``, ``"iprec_at_recall.0.25"``); or a set
        (``official``, ``set``, ``all_trec``).
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
    always gives ``log(max(AP, 0.00001))``, as trec_eval's code reads; the
    same holds for ``gm_bpref``. For a query with no document retrieved,
    pytrec_eval's ``iprec_at_recall`` at a level of 0 relevant documents, and
    so its ``11pt_avg``, is NaN (0 divided by 0 documents); scorekit gives 0,
    as trec_eval ``-c`` prints for a query the run lacks. Interpolated
    precision rounds as pytrec_eval's trec_eval 9.0 rounds (``rounding=
    'trec_eval_9'``); ``scorekit rank`` rounds as trec_eval 10.

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
        # the ids are strings (checked above): the judgments are built once, without a
        # second look at them
        self._qrels = Qrels.from_dict(query_relevance, check_ids=False)
        self._judged = frozenset(compress(query_relevance, map(len, query_relevance.values())))
        self._options: dict[str, Any] = {
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
        # the ids here; the scores as ranking reads them (``strict``), but those of the
        # queries it is not given
        _check_types(scores, "run", "score", values=False)
        queries = list(filter(self._judged.__contains__, scores))
        metrics = list(dict.fromkeys(m for m in self._keys.values() if m))
        if not queries or not metrics:
            _check_types(scores, "run", "score")
            if not self._keys:
                # no measure asked: every judged query of the run, with no value (as pytrec_eval)
                return {q: {} for q in queries}
            return {q: dict.fromkeys(self._keys, 0.0) for q in queries}
        # the judged queries of the run alone (an empty ranking is a query the run lacks)
        run = scores
        if len(queries) < len(scores):
            run = {q: scores[q] for q in queries}
            judged = self._judged
            _check_types({q: d for q, d in scores.items() if q not in judged}, "run", "score")
        try:
            # pytrec_eval gives 0 for a query without a relevant document and does not warn;
            # the ids are strings (checked above)
            result = _ranking_evaluate(
                self._qrels,
                run,
                metrics,
                warn=False,
                check_ids=False,
                strict=True,
                **self._options,
            )
        except InputError:
            # a score of a type pytrec_eval refuses: its TypeError, naming the score
            _check_types(run, "run", "score")
            raise
        # one column of values per key, in the order of the queries, then one row per query
        columns: list[list[float]] = []
        for key, metric in self._keys.items():
            if not metric:
                columns.append([0.0] * len(queries))
                continue
            ids, values = result.states[metric].table()
            by_query = dict(zip(ids.tolist(), values.tolist(), strict=True))
            column = list(map(by_query.__getitem__, queries))
            if key in ("gm_map", "gm_bpref"):
                column = [math.log(max(v, _GM_FLOOR)) for v in column]
            columns.append(column)
        keys = list(self._keys)
        if len(keys) == 1:
            (key,) = keys
            return {q: {key: v} for q, v in zip(queries, columns[0], strict=True)}
        rows = map(dict, map(zip, repeat(keys), zip(*columns, strict=True)))
        return dict(zip(queries, rows, strict=True))
