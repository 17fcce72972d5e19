"""Evaluation on a dataset in the official SQuAD format, as the official scripts do it."""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from scorekit._check import string_item_error
from scorekit.errors import ConfigError, InputError, UndefinedMetricWarning, message, raw
from scorekit.qa._scores import Version, _check_version, question_scores

__all__ = ["squad", "squad_questions", "squad_titles"]


def _questions(dataset: Any) -> list[tuple[str, list[str]]]:
    """(question id, gold answer texts) of every question of a SQuAD dataset."""
    name = "squad"
    articles = dataset.get("data") if isinstance(dataset, Mapping) else dataset
    if not isinstance(articles, list):
        raise InputError(
            message(
                name,
                "dataset is not in the SQuAD format",
                raw(type(dataset).__name__),
                "the dataset JSON (a dict with 'data') or its list of articles",
            )
        )
    out: list[tuple[str, list[str]]] = []
    seen: set[str] = set()
    try:
        for a, article in enumerate(articles):
            for p, paragraph in enumerate(article["paragraphs"]):
                for q, qa in enumerate(paragraph["qas"]):
                    where = f"data[{a}].paragraphs[{p}].qas[{q}]"
                    qid = qa["id"]
                    if qid in seen:
                        raise InputError(message(name, "duplicate question id", qid, "unique ids"))
                    seen.add(qid)
                    texts = [ans["text"] for ans in qa["answers"]]
                    for t in texts:
                        if not isinstance(t, str):
                            raise string_item_error(name, "an answer text", t, where)
                    out.append((qid, texts))
    except (KeyError, TypeError) as exc:
        raise InputError(
            message(
                name,
                "dataset is not in the SQuAD format",
                raw(f"{type(exc).__name__}: {exc}"),
                "articles with paragraphs, qas, id and answers[].text",
            )
        ) from None
    if not out:
        raise InputError(message(name, "empty input", raw("0 questions"), "at least one question"))
    return out


def squad_questions(
    dataset: Any,
    predictions: Mapping[str, str],
    na_probs: Mapping[str, float] | None = None,
    na_prob_thresh: float = 1.0,
) -> tuple[list[str], list[list[str]], list[str]]:
    """Per question of a SQuAD dataset: its id, its gold answers and the answer scored.

    A question without gold answers has the empty answer as its gold; a
    question predicted unanswerable (its no-answer probability above
    ``na_prob_thresh``) and a question without a prediction are scored as the
    empty answer, as the official scripts score them.

    Examples
    --------
    >>> data = {"data": [{"paragraphs": [{"qas": [
    ...     {"id": "a", "answers": [{"text": "Paris"}]}, {"id": "b", "answers": []}]}]}]}
    >>> squad_questions(data, {"a": "Lyon"})
    (['a', 'b'], [['Paris'], ['']], ['Lyon', ''])
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


def squad_titles(dataset: Any) -> list[str]:
    """The title of each question's article, in the order of :func:`squad_questions`.

    An article without a title (or with an empty one) is an error naming it.

    Examples
    --------
    >>> data = [{"title": "Paris", "paragraphs": [{"qas": [{"id": "a", "answers": []}]}]}]
    >>> squad_titles(data)
    ['Paris']
    """
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


def _na_probs(qids: list[str], na_probs: Any) -> tuple[NDArray[np.float64], list[float]]:
    """The no-answer probability of every question, and all values in the mapping's order."""
    if not isinstance(na_probs, Mapping):
        raise InputError(
            message(
                "squad", "na_probs is not a mapping", raw(type(na_probs).__name__), "{id: prob}"
            )
        )
    values: list[float] = []
    for qid, v in na_probs.items():
        if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating):
            raise InputError(
                message("squad", "a no-answer probability is not a number", v, "a finite number")
            )
        if not math.isfinite(v):
            raise InputError(
                message(
                    "squad",
                    "a no-answer probability is not finite",
                    raw(f"{v} for {qid!r}"),
                    "a finite number",
                )
            )
        values.append(float(v))
    missing = [q for q in qids if q not in na_probs]
    if missing:
        raise InputError(
            message(
                "squad",
                "no-answer probabilities are missing",
                raw(f"{len(missing)} questions, first {missing[0]!r}"),
                "one per question of the dataset",
            )
        )
    return np.array([float(na_probs[q]) for q in qids]), values


def _best_threshold(
    scores: NDArray[np.float64],
    has_answer: NDArray[np.bool_],
    answered: NDArray[np.bool_],
    na_sorted: NDArray[np.float64],
    order: NDArray[np.int64],
) -> tuple[float, float]:
    """The official best-threshold search, vectorised.

    Questions are taken in increasing no-answer probability (``order``, stable);
    each adds its score when it has an answer, and -1 when it has none but a
    non-empty prediction. The running total starts at the number of unanswerable
    questions; the best total and the probability where it is first reached win.
    """
    diff = np.where(has_answer, scores, np.where(answered, -1.0, 0.0))[order]
    start = float(np.count_nonzero(~has_answer))
    running = np.cumsum(np.concatenate([[start], diff]))[1:]
    best, thresh = start, 0.0
    if len(running):
        i = int(np.argmax(running))
        if running[i] > start:
            best, thresh = float(running[i]), float(na_sorted[i])
    return best / len(scores), thresh


def squad(
    dataset: Any,
    predictions: Mapping[str, str],
    *,
    version: Version = "2.0",
    na_probs: Mapping[str, float] | None = None,
    na_prob_thresh: float = 1.0,
) -> dict[str, float]:
    """Evaluate predictions on a SQuAD dataset as the official v1.1 / v2.0 scripts do.

    Parameters
    ----------
    dataset : dict or list
        The official dataset JSON (a dict with ``"data"``) or its list of
        articles: ``article["paragraphs"][i]["qas"][j]`` has ``"id"`` and
        ``"answers"`` (a list of ``{"text": ...}``; empty when unanswerable).
    predictions : mapping of str to str
        Question id -> predicted answer (``""`` predicts no answer).
    version : {"2.0", "1.1"}, default "2.0"
        Which script to follow (see :class:`QAF1` for the differences).
    na_probs : mapping of str to float, optional
        Question id -> probability (or any score) that the question has no
        answer, v2.0 only. When given, the result also has the best thresholds.
    na_prob_thresh : float, default 1.0
        v2.0: a question whose no-answer probability exceeds this is scored as
        predicted unanswerable (1 if it has no answer, else 0).

    Returns
    -------
    dict
        ``exact``, ``f1`` (fractions, the scripts print them times 100) and
        ``total``; for v2.0 also ``HasAns_exact``, ``HasAns_f1``,
        ``HasAns_total`` and ``NoAns_*`` when there are such questions, and with
        ``na_probs`` ``best_exact``, ``best_exact_thresh``, ``best_f1``,
        ``best_f1_thresh``.

    Notes
    -----
    v1.1 scores a question without a prediction 0 (with an
    :class:`~scorekit.errors.UndefinedMetricWarning`, where the script prints a
    message); v2.0 requires a prediction for every question (the official
    script fails on a missing one). Predictions for ids not in the dataset are
    ignored. In v2.0 a question has an answer when its ``answers`` list is not
    empty; gold answers that normalise to ``""`` count as ``""``.

    The threshold search visits questions in increasing no-answer probability,
    ties in the order of ``na_probs``, as the script's stable sort does.

    Examples
    --------
    >>> data = {"data": [{"paragraphs": [{"qas": [
    ...     {"id": "q1", "answers": [{"text": "Paris"}]},
    ...     {"id": "q2", "answers": []}]}]}]}
    >>> result = squad(data, {"q1": "Paris", "q2": "Lyon"}, na_probs={"q1": 0.1, "q2": 0.7})
    >>> result["exact"], result["HasAns_exact"], result["NoAns_exact"]
    (0.5, 1.0, 0.0)
    >>> result["best_exact"], result["best_exact_thresh"]
    (1.0, 0.1)
    """
    _check_version("squad", version)
    if not isinstance(predictions, Mapping):
        raise InputError(
            message(
                "squad",
                "predictions is not a mapping",
                raw(type(predictions).__name__),
                "{question id: answer}",
            )
        )
    if na_probs is not None and version == "1.1":
        raise ConfigError(message("squad", "na_probs needs version '2.0'", version, "'2.0'"))
    if isinstance(na_prob_thresh, bool) or not isinstance(na_prob_thresh, int | float):
        raise ConfigError(message("squad", "na_prob_thresh is not a number", na_prob_thresh))
    questions = _questions(dataset)
    qids = [q for q, _ in questions]
    missing = [q for q in qids if q not in predictions]
    if missing and version == "2.0":
        raise InputError(
            message(
                "squad",
                "predictions are missing",
                raw(f"{len(missing)} questions, first {missing[0]!r}"),
                "a prediction (possibly '') for every question",
            )
        )
    if missing:
        warnings.warn(
            f"squad: {len(missing)} questions have no prediction and score 0, "
            f"first {missing[0]!r}.",
            UndefinedMetricWarning,
            stacklevel=2,
        )
    answered_q = [(q, t) for q, t in questions if q in predictions]
    refs = [t if t else [""] for _, t in answered_q]
    if version == "1.1" and any(not t for _, t in answered_q):
        bad = next(q for q, t in answered_q if not t)
        raise InputError(
            message(
                "squad",
                "a question has no gold answer",
                raw(f"id {bad!r}"),
                "answers for every question in v1.1 (use version='2.0')",
            )
        )
    preds = [predictions[q] for q, _ in answered_q]
    for q, p in zip(answered_q, preds, strict=True):
        if not isinstance(p, str):
            raise string_item_error("squad", "predictions", p, f"id {q[0]!r}")
    exact, scored = question_scores(refs, preds, version=version, metric="squad")
    f = cast(NDArray[np.float64], scored)
    total = len(qids)
    if version == "1.1":
        return {"exact": float(exact.sum()) / total, "f1": float(f.sum()) / total, "total": total}

    has_answer = np.array([bool(t) for _, t in questions])
    raw_exact, raw_f1 = exact, f
    if na_probs is not None:
        probs, listed = _na_probs(qids, na_probs)
    else:
        probs, listed = np.zeros(total), []
    predicted_na = probs > na_prob_thresh
    exact = np.where(predicted_na, (~has_answer).astype(float), raw_exact)
    f = np.where(predicted_na, (~has_answer).astype(float), raw_f1)
    result: dict[str, float] = {
        "exact": float(exact.sum()) / total,
        "f1": float(f.sum()) / total,
        "total": total,
    }
    for prefix, mask in (("HasAns", has_answer), ("NoAns", ~has_answer)):
        count = int(mask.sum())
        if count:
            result[f"{prefix}_exact"] = float(exact[mask].sum()) / count
            result[f"{prefix}_f1"] = float(f[mask].sum()) / count
            result[f"{prefix}_total"] = count
    if na_probs is not None:
        # the script sorts every id of na_probs stably by value and skips those
        # that are not questions of the dataset
        index = {q: i for i, q in enumerate(qids)}
        listed_ids = [index.get(q, -1) for q in na_probs]
        by_value = np.argsort(np.array(listed, dtype=np.float64), kind="stable")
        positions = np.array(listed_ids, dtype=np.int64)[by_value]
        keep = positions >= 0
        order = positions[keep]
        na_sorted = np.array(listed, dtype=np.float64)[by_value][keep]
        answered = np.array([bool(p) for p in preds])
        for key, scores in (("exact", raw_exact), ("f1", raw_f1)):
            best, thresh = _best_threshold(scores, has_answer, answered, na_sorted, order)
            result[f"best_{key}"] = best
            result[f"best_{key}_thresh"] = thresh
    return result
