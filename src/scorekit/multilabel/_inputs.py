"""The input kinds of the multi-label metrics."""

from __future__ import annotations

from scorekit.core import InputKind, register_input_kind

register_input_kind(
    InputKind(
        name="multilabel",
        description="y_true, y_pred: 2-D 0/1 indicator matrices (samples x labels)",
        roles={"y_true": "label_matrix", "y_pred": "label_matrix"},
    )
)

register_input_kind(
    InputKind(
        name="multilabel_scores",
        description="y_true: 2-D 0/1 indicators; y_score: 2-D scores (samples x labels)",
        roles={"y_true": "label_matrix", "y_score": "score_matrix"},
    )
)
