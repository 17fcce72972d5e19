"""Word and character error rates (WER, CER) and MER, WIL, WIP, as jiwer computes them.

The state (:class:`EditCounts`) is the summed hits, substitutions, deletions
and insertions of each reference's alignment into its prediction, so corpus
values are ratios of summed counts and chunks merge exactly. Texts become
units and alignments come from rapidfuzz (``_count``); the metrics and
functions are in ``_metric``.
"""

from scorekit.text.wer._metric import (
    CER,
    MER,
    WER,
    WIL,
    WIP,
    EditCounts,
    ErrorRates,
    cer,
    error_rates,
    mer,
    wer,
    wil,
    wip,
)

__all__ = [
    "CER",
    "MER",
    "WER",
    "WIL",
    "WIP",
    "EditCounts",
    "ErrorRates",
    "cer",
    "error_rates",
    "mer",
    "wer",
    "wil",
    "wip",
]
