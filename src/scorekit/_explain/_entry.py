"""The record ``scorekit explain`` keeps per metric, shared by the family modules."""

from __future__ import annotations

from scorekit.core import Explanation

__all__ = ["SK", "Explanation"]

SK = "scikit-learn's"
"""How the entries name scikit-learn as the reference implementation."""
