"""Per-line values of the text metrics (``scorekit text --sentence-level``)."""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from scorekit.core import Metric
from scorekit.errors import ConfigError, message
from scorekit.text.bleu import sentence_bleu
from scorekit.text.rouge import rouge

__all__ = ["line_values"]


def line_values(
    key: str, metric: Metric[Any], refs: list[list[str]], hyps: list[str]
) -> dict[str, Any]:
    """The per-line values of one text metric (requested as ``key``), by column name.

    BLEU as :func:`scorekit.text.sentence_bleu` (effective order, as ``sacrebleu
    --sentence-level``), ROUGE as precision, recall and F-measure columns
    ``<type>:precision`` ... per type, the other metrics by their own segment
    scores or values.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> refs, hyps = [["the cat sat"], ["a cat"]], ["the cat sat", "a dog"]
    >>> line_values("wer", parse_metric("wer"), refs, hyps)
    {'wer': array([0. , 0.5])}
    """

    if key == "bleu":
        bleu = cast(Any, metric)
        return {
            "bleu": [
                sentence_bleu(r, h, tokenize=bleu.tokenize, lowercase=bleu.lowercase).score
                for r, h in zip(refs, hyps, strict=True)
            ]
        }
    if key == "rouge":
        settings = cast(Any, metric)
        scores = rouge(
            refs,
            hyps,
            types=settings.types,
            stemmer=settings.stemmer,
            tokenizer=settings.tokenizer,
            per_sample=True,
        )
        out: dict[str, Any] = {}
        for name, score in scores.items():
            per = np.asarray(score.per_sample)
            for k, field in enumerate(("precision", "recall", "fmeasure")):
                out[f"{name}:{field}"] = per[:, k]
        return out
    for method in ("segment_scores", "segment_values"):
        each = getattr(metric, method, None)
        if each is not None:
            return {key: each(refs, hyps)}
    raise ConfigError(
        message("scorekit text --sentence-level", "no per-line values", key, "a text metric")
    )
