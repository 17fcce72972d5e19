"""``scorekit qa`` as one call: the SQuAD scores of a dataset, per group and with intervals."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorekit.api._by import attribute_rows
from scorekit.api._ci import CI
from scorekit.core import EvaluationResult, Grouped, Metric
from scorekit.errors import ConfigError, InputError, message

__all__ = ["evaluate_squad"]


def evaluate_squad(
    dataset: Any,
    predictions: Mapping[str, str],
    *,
    version: str = "2.0",
    na_probs: Mapping[str, float] | None = None,
    na_prob_thresh: float = 1.0,
    ci: CI | None = None,
    by: Sequence[str] | None = None,
    attributes: str | None = None,
) -> EvaluationResult:
    """The scores of :func:`scorekit.qa.squad`, with intervals (``ci``) or per group (``by``).

    Without ``ci`` or ``by`` the values are the official scripts' (``exact``,
    ``f1``, ``total``, the ``HasAns_``/``NoAns_`` and best-threshold figures).
    With ``ci`` (a :class:`CI` without a key) ``exact`` and ``f1`` are
    intervals: Poisson bootstraps over the questions, keyed by their ids.

    With ``by``, the values are ``exact`` and ``f1`` overall and per group of
    questions, each a :class:`~scorekit.core.ByGroup` whose sizes are the
    questions of each group (intervals per group with ``ci``). ``by`` names the
    question attributes: ``title`` is the title of the question's article; any
    other name is a column of the file ``attributes`` (CSV, TSV, Parquet or
    JSON Lines), which has an ``id`` column and one row per question.

    Questions are scored as the official scripts score them for these figures:
    a question predicted unanswerable (its no-answer probability above
    ``na_prob_thresh``) counts as the empty answer, and a question without a
    prediction scores 0.

    Examples
    --------
    >>> data = {"data": [
    ...     {"title": "Paris", "paragraphs": [{"qas": [
    ...         {"id": "a", "answers": [{"text": "France"}]},
    ...         {"id": "b", "answers": [{"text": "Seine"}]}]}]},
    ...     {"title": "Rome", "paragraphs": [{"qas": [
    ...         {"id": "c", "answers": [{"text": "Italy"}]}]}]}]}
    >>> predictions = {"a": "France", "b": "Loire", "c": "Italy"}
    >>> evaluate_squad(data, predictions)["total"]
    3
    >>> found = evaluate_squad(data, predictions, by=["title"])["exact"]
    >>> found.by_group, found.sizes
    ({'Paris': 0.5, 'Rome': 1.0}, {'Paris': 2, 'Rome': 1})
    >>> evaluate_squad(data, predictions, ci=CI(n_resamples=200))["exact"].value
    0.666...
    """
    from scorekit import qa

    if ci is not None and ci.key is not None:
        raise ConfigError(
            message("scorekit qa --ci", "questions are keyed by their ids", ci.key, "no --key")
        )
    official: dict[str, Any] = dict(
        qa.squad(  # also checks the dataset, the predictions and the no-answer probabilities
            dataset,
            predictions,
            version=version,  # type: ignore[arg-type]
            na_probs=na_probs,
            na_prob_thresh=na_prob_thresh,
        )
    )
    if ci is None and not by:
        return EvaluationResult(official, rows=int(official["total"]))
    if ci is not None and not ci.resamples:
        raise ConfigError(
            message(
                "--ci-method",
                "exact match and F1 have no standard analytic interval",
                ci.method,
                "percentile, basic or bca (a bootstrap over the questions)",
            )
        )
    ids, references, answers = qa.squad_questions(dataset, predictions, na_probs, na_prob_thresh)
    keys: dict[str, Any] = {}
    metrics: dict[str, Metric[Any]] = {
        "exact": qa.ExactMatch(version=version),  # type: ignore[arg-type]
        "f1": qa.QAF1(version=version),  # type: ignore[arg-type]
    }
    if ci is not None:
        metrics = {key: ci.wrap(metric, key="id") for key, metric in metrics.items()}
        keys["unit_key"] = ids
    if by:
        keys["group"] = _groups(dataset, list(by), ids, attributes)
        metrics = {key: Grouped(metric, by=list(by)) for key, metric in metrics.items()}
    states = {key: m.summarize(references, answers, **keys) for key, m in metrics.items()}
    values: dict[str, Any] = {}
    for key, metric in metrics.items():
        if ci is None:
            values[key] = metric.compute(states[key])
        elif by:
            values[key] = ci.group_intervals(metric, states[key])  # type: ignore[arg-type]
        else:
            values[key] = ci.interval(metric, states[key])  # type: ignore[arg-type]
    if not by:
        values = {**official, **values}
    return EvaluationResult(values, states, metrics, len(ids), settings=ci)


def _groups(
    dataset: Any, names: list[str], ids: list[str], attributes: str | None
) -> tuple[list[Any], ...]:
    """Per attribute named in ``names``, the value of each question (in the order of ``ids``)."""
    from scorekit import qa

    others = [name for name in names if name != "title"]
    table: dict[str, tuple[Any, ...]] = {}
    if others:
        if attributes is None:
            raise ConfigError(
                message(
                    "scorekit qa --by",
                    "a question attribute other than title needs a file of attributes",
                    others[0],
                    "title, or --question-attributes FILE with an id column",
                )
            )
        table = attribute_rows(attributes, "id", others, "question")
        unknown = [qid for qid in ids if qid not in table]
        if unknown:
            raise InputError(
                message(
                    attributes,
                    "a question of the dataset has no attributes",
                    unknown[0],
                    f"a row for each of the dataset's {len(ids)} questions",
                )
            )
    titles = qa.squad_titles(dataset) if "title" in names else []
    return tuple(
        titles if name == "title" else [table[qid][others.index(name)] for qid in ids]
        for name in names
    )
