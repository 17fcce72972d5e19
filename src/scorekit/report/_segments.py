"""Text and QA sections: the distribution of per-segment (per-question) values, the worst ones.

Drawn where the report has the texts: ``texts=(references, predictions)``
for the text metrics (each segment's value is the metric of its own
statistics, :func:`scorekit.text.score_statistics` of a row of
:func:`scorekit.text.segment_statistics`), ``squad=`` for SQuAD (each
question's exact match and F1, :func:`scorekit.qa.question_scores`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from scorekit import plot
from scorekit.errors import ScorekitError
from scorekit.report._page import Section, Table, clip, figure
from scorekit.report._text import fmt

__all__ = ["SHOWN", "question_values", "segment_values", "squad_section", "text_section"]

SHOWN = 10
"""The worst segments or questions listed."""


def segment_values(metric: Any, references: Any, predictions: Any) -> dict[str, Any]:
    """Each segment's value of a text metric, by name (ROUGE: the F-measure of each type).

    Empty when the metric's state is not a sum of per-segment statistics.

    Examples
    --------
    >>> from scorekit.text import WER
    >>> segment_values(WER(), ["the cat sat", "a dog"], ["the cat sat", "the dog"])
    {'wer': array([0. , 0.5])}
    """
    from scorekit.text import score_statistics, segment_statistics

    try:
        values = score_statistics(metric, segment_statistics(metric, references, predictions))
    except ScorekitError:
        return {}
    name = metric.info.name
    if values.ndim == 3:  # ROUGE of several types: (segments, types, precision/recall/F)
        types = list(getattr(metric, "types", ())) or [f"{name}{k}" for k in range(values.shape[1])]
        return {f"{t} F-measure": values[:, k, 2] for k, t in enumerate(types)}
    return {name: np.asarray(values, dtype=np.float64).reshape(len(predictions))}


def _first(reference: Any) -> str:
    if isinstance(reference, str):
        return reference
    if isinstance(reference, Sequence) and reference:
        return str(reference[0])
    return str(reference)


def _distribution(values: Any, name: str, unit: str, ax: Any) -> Any:
    return plot.per_query(values, name=name, unit=unit, ax=ax)


def _worst(values: Any, higher_is_better: bool) -> Any:
    """The indices of the worst values first (NaN last), ties in input order."""
    v = np.asarray(values, dtype=np.float64)
    key = np.where(np.isnan(v), np.inf, -v if not higher_is_better else v)
    return np.argsort(key, kind="stable")


def text_section(c: Any) -> list[Section]:
    """Per-segment distributions and worst segments of the text metrics, given ``c.texts``."""
    if c.texts is None:
        return []
    references, predictions = c.texts
    predictions = list(predictions)
    section = Section("Text: per segment")
    for key, metric in c.metrics.items():
        info = getattr(metric, "info", None)
        if info is None or info.inputs != "references_predictions":
            continue
        for name, values in segment_values(metric, references, predictions).items():
            label = name if name == key or key == "rouge" else f"{key} ({name})"
            figure(
                section,
                f"{label} per segment",
                functools.partial(_distribution, values, label, "segment"),
            )
            rows = [
                [
                    str(i + 1),
                    fmt(float(values[i])),
                    clip(predictions[i]),
                    clip(_first(references[i])),
                ]
                for i in _worst(values, info.higher_is_better)[:SHOWN]
            ]
            section.tables.append(
                Table(
                    f"Worst segments by {label} (of {len(predictions)})",
                    ["line", label, "prediction", "reference"],
                    rows,
                )
            )
    if section.figures:
        section.text.append(
            "Each segment's value is the metric of a corpus of that segment alone, its settings "
            "(BLEU's smoothing, ROUGE's tokenizer) kept."
        )
        return [section]
    return []


def question_values(squad: Mapping[str, Any]) -> dict[str, Any]:
    """Each question's id, question, gold answers, scored answer, exact match and F1.

    ``squad`` holds the arguments of :func:`scorekit.qa.squad`; a question
    whose no-answer probability is above the threshold is scored as answered
    with ``""``, as the official v2.0 script scores it.

    Examples
    --------
    >>> data = {"data": [{"paragraphs": [{"qas": [
    ...     {"id": "q1", "question": "Where?", "answers": [{"text": "Paris"}]},
    ...     {"id": "q2", "question": "Who?", "answers": []}]}]}]}
    >>> found = question_values({"dataset": data, "predictions": {"q1": "paris", "q2": "x"}})
    >>> found["ids"], found["exact"].tolist(), found["f1"].tolist()
    (['q1', 'q2'], [1.0, 0.0], [1.0, 0.0])
    """
    from scorekit.qa import question_scores

    dataset = squad["dataset"]
    predictions = squad["predictions"]
    version = squad.get("version", "2.0")
    na_probs = squad.get("na_probs")
    threshold = float(squad.get("na_prob_thresh", 1.0))
    articles: Any = dataset.get("data", ()) if isinstance(dataset, Mapping) else dataset
    qas = [qa for article in articles for p in article["paragraphs"] for qa in p["qas"]]
    ids = [str(qa["id"]) for qa in qas]
    gold = [[a["text"] for a in qa["answers"]] or [""] for qa in qas]
    answers = [str(predictions.get(qid, "")) for qid in ids]
    if na_probs is not None and version == "2.0":
        answers = [
            "" if float(na_probs.get(qid, 0.0)) > threshold else answer
            for qid, answer in zip(ids, answers, strict=True)
        ]
    exact, f1 = question_scores(gold, answers, version=version)
    return {
        "ids": ids,
        "questions": [str(qa.get("question", "")) for qa in qas],
        "gold": gold,
        "answers": answers,
        "exact": exact,
        "f1": f1,
    }


def squad_section(c: Any) -> list[Section]:
    """Per-question F1 and exact match, and the worst questions, given ``c.squad``."""
    if c.squad is None:
        return []
    found = question_values(c.squad)
    f1, exact = found["f1"], found["exact"]
    section = Section("Question answering: per question")
    figure(section, "F1 per question", functools.partial(_distribution, f1, "F1", "question"))
    n = len(found["ids"])
    shares = [
        ["exact match", fmt(int(exact.sum())), fmt(float(exact.mean()) if n else float("nan"))],
        ["partial (0 < F1 < 1)", fmt(int(((f1 > 0) & (f1 < 1)).sum())), ""],
        ["F1 = 0", fmt(int((f1 == 0).sum())), ""],
    ]
    section.tables.append(Table(f"Questions (of {n})", ["", "questions", "share"], shares))
    order = np.lexsort((exact, f1))  # by F1, then exact match, ties in dataset order
    rows = [
        [
            clip(found["ids"][i]),
            clip(found["questions"][i]),
            clip(found["answers"][i]) or "(no answer)",
            clip(" | ".join(found["gold"][i])),
            fmt(float(exact[i])),
            fmt(float(f1[i])),
        ]
        for i in order[:SHOWN]
    ]
    section.tables.append(
        Table(
            "Worst questions by F1",
            ["id", "question", "answer scored", "gold answers", "exact", "F1"],
            rows,
        )
    )
    return [section]
