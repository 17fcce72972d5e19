"""``scorekit qa`` as one call: the SQuAD scores of a dataset, with intervals when asked."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scorekit.api._ci import CI
from scorekit.errors import ConfigError, message

__all__ = ["evaluate_squad"]


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
    questions = _questions(dataset)
    ids = [qid for qid, _ in questions]
    references = [texts if texts else [""] for _, texts in questions]
    answers = [predictions.get(qid, "") for qid in ids]
    if na_probs is not None:
        answers = [
            "" if float(na_probs[qid]) > na_prob_thresh else answer
            for qid, answer in zip(ids, answers, strict=True)
        ]
    chosen = {"exact": qa.ExactMatch(version=version), "f1": qa.QAF1(version=version)}  # type: ignore[arg-type]
    for key, metric in chosen.items():
        boot = ci.wrap(metric, key="id")
        found[key] = ci.interval(boot, boot.summarize(references, answers, unit_key=ids))
    return found
