"""Explanations of the metric families whose classes do not carry them yet."""

from __future__ import annotations

from scorekit._explain import (
    _text,
)
from scorekit.core import Explanation

__all__ = ["EXPLANATIONS"]

EXPLANATIONS: dict[str, Explanation] = {
    **_text.EXPLANATIONS,
}
"""Per registered metric name: definition, formula, convention and reference."""
