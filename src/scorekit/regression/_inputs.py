"""The input kinds of the regression metrics."""

from __future__ import annotations

from scorekit.core import InputKind, register_input_kind

register_input_kind(
    InputKind(
        name="regression",
        description="y_true, y_pred: 1-D real targets",
        roles={"y_true": "scores", "y_pred": "scores"},
    )
)

register_input_kind(
    InputKind(
        name="regression_multi",
        description="y_true, y_pred: 2-D real targets (samples x outputs)",
        roles={"y_true": "score_matrix", "y_pred": "score_matrix"},
    )
)

register_input_kind(
    InputKind(
        name="regression_positive",
        description="y_true, y_pred: 1-D positive real targets (log errors, deviances)",
        roles={"y_true": "scores", "y_pred": "scores"},
    )
)
