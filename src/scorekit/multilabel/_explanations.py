"""Text shared by the explanations of the multi-label metrics (``scorekit explain``)."""

from __future__ import annotations

__all__ = ["SK"]

SK = "scikit-learn's"
"""How the explanations name scikit-learn as the reference implementation."""
