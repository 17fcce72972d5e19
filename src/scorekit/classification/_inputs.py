"""The input kinds of the classification metrics."""

from __future__ import annotations

from scorekit.core import InputKind, register_input_kind

register_input_kind(
    InputKind(
        name="binary_labels",
        description="y_true, y_pred: 1-D labels of two classes",
        roles={"y_true": "labels", "y_pred": "labels"},
    )
)

register_input_kind(
    InputKind(
        name="labels",
        description="y_true, y_pred: 1-D class labels",
        roles={"y_true": "labels", "y_pred": "labels", "x": "labels", "y": "labels"},
    )
)

register_input_kind(
    InputKind(
        name="binary_scores",
        description="y_true: 1-D binary labels; y_score: 1-D scores of the positive class",
        roles={"y_true": "labels", "y_score": "float32_scores"},
    )
)

register_input_kind(
    InputKind(
        name="multiclass_scores",
        description="y_true: 1-D labels; y_score: 2-D scores (samples x classes)",
        roles={"y_true": "labels", "y_score": "score_matrix"},
    )
)

register_input_kind(
    InputKind(
        name="binary_proba",
        description="y_true: 1-D binary labels; y_proba: probability of the positive class",
        roles={"y_true": "labels", "y_proba": "scores"},
    )
)

register_input_kind(
    InputKind(
        name="proba",
        description="y_true: 1-D labels; y_proba: 2-D class probabilities (rows sum to 1)",
        roles={"y_true": "labels", "y_proba": "score_matrix"},
    )
)
