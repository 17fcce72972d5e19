"""Text shared by the explanations of the question-answering metrics (``scorekit explain``)."""

from __future__ import annotations

__all__ = ["QA_NORMALISE"]

QA_NORMALISE = (
    "Answers are normalised as the official SQuAD scripts do: lowercase, punctuation removed, "
    "the articles a, an, the dropped, whitespace collapsed. Each question takes the best score "
    "over its gold answers; an unanswerable question has the gold answer '' (v2.0)."
)
"""How answers are normalised and compared with several gold answers."""
