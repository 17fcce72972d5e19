"""The input kinds of the information measures."""

from __future__ import annotations

from scorekit.core import InputKind, register_input_kind

register_input_kind(
    InputKind(
        name="target",
        description="y: 1-D class labels (one column)",
        roles={"y": "labels"},
    )
)

register_input_kind(
    InputKind(
        name="feature_target",
        description="x: 1-D feature values; y: 1-D class labels",
        roles={"x": "labels", "y": "labels"},
    )
)
