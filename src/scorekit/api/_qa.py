"""``scorekit qa`` as one call: the SQuAD scores of a dataset, with intervals when asked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorekit.api._by import attribute_rows
from scorekit.api._ci import CI
from scorekit.core import ByGroup
from scorekit.errors import ConfigError, InputError, message

__all__ = ["evaluate_squad", "squad_by_group"]


def _questions(dataset: Any) -> list[tuple[str, list[str]]]:
    """(question id, gold answer texts) of a dataset :func:`scorekit.qa.squad` accepted."""
    articles: Any = dataset.get("data") if isinstance(dataset, Mapping) else dataset
    return [
        (qa["id"], [answer["text"] for answer in qa["answers"]])
        for article in articles
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
    ]


def evaluate_squad(
    dataset: Any,
    predictions: Mapping[str, str],
    *,
    version: str = "2.0",
    na_probs: Mapping[str, float] | None = None,
    na_prob_thresh: float = 1.0,
    ci: CI | None = None,
) -> dict[str, Any]:
    """The scores of :func:`scorekit.qa.squad`; with ``ci``, ``exact`` and ``f1`` as intervals.

    The intervals are Poisson bootstraps over the questions, keyed by their
    ids: a question predicted unanswerable (its no-answer probability above
    ``na_prob_thresh``) counts as the empty answer, and in v1.1 a question
    without a prediction scores 0, as the official scripts score them.

    Examples
    --------
    >>> data = {"data": [{"paragraphs": [{"qas": [
    ...     {"id": f"q{i}", "answers": [{"text": "Paris"}]} for i in range(10)]}]}]}
    >>> predictions = {f"q{i}": "Paris" if i % 2 else "Lyon" for i in range(10)}
    >>> result = evaluate_squad(data, predictions, ci=CI(n_resamples=200))
    >>> result["exact"].value, result["total"]
    (0.5, 10)
    """
    from scorekit import qa

    if ci is not None and ci.key is not None:
        raise ConfigError(
            message("scorekit qa --ci", "questions are keyed by their ids", ci.key, "no --key")
        )
    found: dict[str, Any] = dict(
        qa.squad(
            dataset,
            predictions,
            version=version,  # type: ignore[arg-type]
            na_probs=na_probs,
            na_prob_thresh=na_prob_thresh,
        )
    )
    if ci is None:
        return found
    ids, references, answers = _inputs(dataset, predictions, na_probs, na_prob_thresh)
    chosen = {"exact": qa.ExactMatch(version=version), "f1": qa.QAF1(version=version)}  # type: ignore[arg-type]
    for key, metric in chosen.items():
        boot = ci.wrap(metric, key="id")
        found[key] = ci.interval(boot, boot.summarize(references, answers, unit_key=ids))
    return found


def _inputs(
    dataset: Any,
    predictions: Mapping[str, str],
    na_probs: Mapping[str, float] | None,
    na_prob_thresh: float,
) -> tuple[list[str], list[list[str]], list[str]]:
    """Per question: its id, its gold answers and the answer scored.

    A question without gold answers has the empty answer as its gold; a
    question predicted unanswerable (its no-answer probability above
    ``na_prob_thresh``) and a question without a prediction are scored as the
    empty answer.
    """
    questions = _questions(dataset)
    ids = [qid for qid, _ in questions]
    references = [texts if texts else [""] for _, texts in questions]
    answers = [predictions.get(qid, "") for qid in ids]
    if na_probs is not None:
        answers = [
            "" if float(na_probs[qid]) > na_prob_thresh else answer
            for qid, answer in zip(ids, answers, strict=True)
        ]
    return ids, references, answers


def _titles(dataset: Any) -> list[str]:
    """The title of each question's article, in the order of :func:`_questions`."""
    articles: Any = dataset.get("data") if isinstance(dataset, Mapping) else dataset
    out: list[str] = []
    for number, article in enumerate(articles):
        title = article.get("title")
        if not isinstance(title, str) or not title:
            raise InputError(
                message(
                    f"article {number}",
                    "no title to group by",
                    title,
                    "a non-empty 'title' in every article",
                )
            )
        out.extend(title for paragraph in article["paragraphs"] for _ in paragraph["qas"])
    return out


def squad_by_group(
    dataset: Any,
    predictions: Mapping[str, str],
    by: Sequence[str],
    *,
    attributes: str | None = None,
    version: str = "2.0",
    na_probs: Mapping[str, float] | None = None,
    na_prob_thresh: float = 1.0,
    ci: CI | None = None,
) -> dict[str, ByGroup]:
    """SQuAD ``exact`` and ``f1`` overall and per group of questions.

    ``by`` names the question attributes that form the groups: ``title`` is
    the title of the question's article; any other name is a column of the
    file ``attributes`` (CSV, TSV, Parquet or JSON Lines), which has an ``id``
    column and one row per question. Questions are scored as
    :func:`evaluate_squad` scores them for its intervals (a question predicted
    unanswerable, or without a prediction, counts as the empty answer), so the
    overall values are the official scripts' when every question has a
    prediction. Each value is a :class:`~scorekit.core.ByGroup` whose sizes
    are the questions of each group. With ``ci`` (a :class:`CI` without a
    key) every value is an :class:`~scorekit.stats.Interval`, from a
    bootstrap over the questions (keyed by their ids) overall and over the
    questions of each group.

    Examples
    --------
    >>> data = {"data": [
    ...     {"title": "Paris", "paragraphs": [{"qas": [
    ...         {"id": "a", "answers": [{"text": "France"}]},
    ...         {"id": "b", "answers": [{"text": "Seine"}]}]}]},
    ...     {"title": "Rome", "paragraphs": [{"qas": [
    ...         {"id": "c", "answers": [{"text": "Italy"}]}]}]}]}
    >>> found = squad_by_group(data, {"a": "France", "b": "Loire", "c": "Italy"}, ["title"])
    >>> found["exact"].by_group, found["exact"].sizes
    ({'Paris': 0.5, 'Rome': 1.0}, {'Paris': 2, 'Rome': 1})
    """
    from scorekit import qa
    from scorekit.core import Grouped

    names = list(by)
    qa.squad(  # checks the dataset, the predictions and the no-answer probabilities
        dataset,
        predictions,
        version=version,  # type: ignore[arg-type]
        na_probs=na_probs,
        na_prob_thresh=na_prob_thresh,
    )
    ids, references, answers = _inputs(dataset, predictions, na_probs, na_prob_thresh)
    columns: list[Any] = []
    table: dict[str, tuple[Any, ...]] = {}
    others = [name for name in names if name != "title"]
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
    titles = _titles(dataset) if "title" in names else []
    for name in names:
        if name == "title":
            columns.append(titles)
        else:
            i = others.index(name)
            columns.append([table[qid][i] for qid in ids])
    chosen = {"exact": qa.ExactMatch(version=version), "f1": qa.QAF1(version=version)}  # type: ignore[arg-type]
    if ci is not None and ci.key is not None:
        raise ConfigError(
            message("scorekit qa --ci", "questions are keyed by their ids", ci.key, "no --key")
        )
    out: dict[str, ByGroup] = {}
    for key, metric in chosen.items():
        if ci is None:
            grouped = Grouped(metric, by=names)
            out[key] = grouped.compute(grouped.summarize(references, answers, group=tuple(columns)))
            continue
        boots = Grouped(ci.wrap(metric, key="id"), by=names)
        state = boots.summarize(references, answers, group=tuple(columns), unit_key=ids)
        out[key] = ci.group_intervals(boots, state)
    return out
