"""The record ``scorekit explain`` keeps per metric, shared by the family modules."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SK", "Explanation"]


@dataclass(frozen=True)
class Explanation:
    """What ``scorekit explain`` says about one metric."""

    definition: str
    formula: str
    convention: str
    reference: str


SK = "scikit-learn's"
"""How the entries name scikit-learn as the reference implementation."""
