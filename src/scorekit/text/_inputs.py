"""The input kinds of the text metrics."""

from __future__ import annotations

from scorekit.core import InputKind, register_input_kind

register_input_kind(
    InputKind(
        name="references_predictions",
        description="references, predictions: per item one reference string or a list of them, "
        "and one predicted string",
        roles={"references": "references", "predictions": "texts"},
    )
)

register_input_kind(
    InputKind(
        name="log_probs",
        description="log_probs: per-token log-probabilities (a list of 1-D arrays, or a padded "
        "2-D array with a mask)",
        roles={"log_probs": "sequences"},
    )
)
