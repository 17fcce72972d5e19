"""BLEU's state (summed sufficient statistics) and its detailed result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.core import State, state_field

__all__ = ["BLEUResult", "BLEUStats"]


@dataclass(frozen=True, eq=False)
class BLEUStats(State):
    """Summed BLEU statistics of a set of segments, and the settings that shaped them.

    Attributes
    ----------
    tokenize, lowercase, max_order, clip
        The tokenization and counting settings (states with different ones do
        not merge).
    segments : int
        The number of (prediction, references) pairs.
    hyp_len, ref_len : int
        Total prediction length and total closest-reference length, in tokens.
    matches, totals : ndarray of int64, shape (max_order,)
        Matched (clipped unless ``clip`` is false) and total prediction n-grams
        per order 1..max_order.
    min_refs, max_refs : int
        The fewest and most references a segment had (0 for no segments).
    """

    tokenize: str = state_field("same")
    lowercase: bool = state_field("same")
    max_order: int = state_field("same")
    clip: bool = state_field("same")
    segments: int = state_field("sum")
    hyp_len: int = state_field("sum")
    ref_len: int = state_field("sum")
    matches: NDArray[np.int64] = state_field("sum")
    totals: NDArray[np.int64] = state_field("sum")
    min_refs: int = state_field("custom")
    max_refs: int = state_field("custom")

    def _merge_custom(self, other: BLEUStats) -> dict[str, Any]:
        if other.segments == 0:
            return {"min_refs": self.min_refs, "max_refs": self.max_refs}
        if self.segments == 0:
            return {"min_refs": other.min_refs, "max_refs": other.max_refs}
        return {
            "min_refs": min(self.min_refs, other.min_refs),
            "max_refs": max(self.max_refs, other.max_refs),
        }


@dataclass(frozen=True)
class BLEUResult:
    """BLEU with the statistics behind it.

    Attributes
    ----------
    score : float
        BLEU as a fraction in [0, 1] (sacrebleu's score / 100).
    precisions : tuple of float
        The (smoothed) n-gram precisions per order, as fractions.
    counts, totals : tuple of int
        Matched and total prediction n-grams per order (unsmoothed; sacrebleu
        reports ``add-k`` counts with ``k`` added for orders above 1).
    bp : float
        The brevity penalty ``exp(1 - ref_len / hyp_len)`` when
        ``hyp_len < ref_len``, else 1 (0 for an empty prediction side).
    ratio : float
        ``hyp_len / ref_len`` (0 when ``ref_len`` is 0).
    hyp_len, ref_len : int
        Prediction length and closest-reference length, in tokens.
    signature : str
        The settings that reproduce the number: references per segment, case,
        effective order, tokenizer, smoothing and version, in sacrebleu's form.
    """

    score: float
    precisions: tuple[float, ...]
    counts: tuple[int, ...]
    totals: tuple[int, ...]
    bp: float
    ratio: float
    hyp_len: int
    ref_len: int
    signature: str

    def __float__(self) -> float:
        return self.score
