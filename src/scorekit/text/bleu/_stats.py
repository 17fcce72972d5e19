"""BLEU's state (summed sufficient statistics) and its detailed result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.core import State, state_field
from scorekit.errors import raw
from scorekit.text._refs import check_ref_range, merge_ref_range

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

    tokenize: str = state_field("same", check="text")
    lowercase: bool = state_field("same", check="flag")
    max_order: int = state_field("same", check="count")
    clip: bool = state_field("same", check="flag")
    segments: int = state_field("sum", check="count", counts_rows=True)
    hyp_len: int = state_field("sum", check="count")
    ref_len: int = state_field("sum", check="count")
    matches: NDArray[np.int64] = state_field("sum", check="count", ndim=1)
    totals: NDArray[np.int64] = state_field("sum", check="count", ndim=1)
    min_refs: int = state_field("custom", check="count")
    max_refs: int = state_field("custom", check="count")

    def _check(self) -> None:
        if self.max_order < 1:
            raise self._invalid("max_order", "not a positive order", self.max_order, ">= 1")
        for name in ("matches", "totals"):
            if getattr(self, name).shape != (self.max_order,):
                raise self._invalid(
                    name,
                    "not one count per n-gram order",
                    raw(f"{getattr(self, name).size} counts"),
                    f"{self.max_order}, one per order up to max_order",
                )
        over = self.matches > self.totals
        if over.any():
            n = int(np.flatnonzero(over)[0])
            raise self._invalid(
                "matches",
                "more matched n-grams than n-grams",
                raw(f"{int(self.matches[n])} of {int(self.totals[n])} {n + 1}-grams"),
                "matches <= totals",
            )
        if self.totals.size and int(self.totals.max()) > self.hyp_len:
            raise self._invalid(
                "totals",
                "more n-grams than prediction tokens",
                raw(f"{int(self.totals.max())} n-grams, {self.hyp_len} tokens"),
                "totals <= hyp_len",
            )
        if self.segments == 0 and (self.hyp_len or self.ref_len or self.max_refs):
            raise self._invalid(
                "segments", "lengths without segments", 0, "segments for every token"
            )
        check_ref_range(self)

    def _merge_custom(self, other: BLEUStats) -> dict[str, Any]:
        return merge_ref_range(self, other)


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
