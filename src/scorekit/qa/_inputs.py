"""The input kind of the question-answering metrics."""

from __future__ import annotations

from scorekit.core import InputKind, register_input_kind

register_input_kind(
    InputKind(
        name="qa_answers",
        description="references, predictions: per question a list of gold answer strings, and "
        "one predicted answer string",
        roles={"references": "references", "predictions": "texts"},
    )
)
