"""chrF and chrF++ as sacrebleu computes them, corpus and sentence level.

The state (:class:`CHRFStats`) is the summed per-order counts of prediction,
reference and matched n-grams, so chunks and shards merge exactly. The counts
of a batch come from one sort of integer keys (``_count``); the metrics and
functions are in ``_metric``.
"""

from scorekit.text.chrf._metric import (
    CHRF,
    CHRFPlusPlus,
    CHRFResult,
    CHRFStats,
    chrf,
    f_scores,
    sentence_chrf,
)

__all__ = ["CHRF", "CHRFPlusPlus", "CHRFResult", "CHRFStats", "chrf", "f_scores", "sentence_chrf"]
