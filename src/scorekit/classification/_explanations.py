"""Text shared by the explanations of the classification metrics (``scorekit explain``)."""

from __future__ import annotations

from scorekit.core import SK

__all__ = ["PRF_CONVENTION", "PRF_REFERENCE"]

PRF_CONVENTION = (
    "average='binary' (default) reports the class pos_label (default 1); 'micro' pools "
    "TP/FP/FN over classes (equal to accuracy for single-label multiclass data); 'macro' "
    "is the unweighted mean over classes; 'weighted' weights classes by support; "
    "'samples' averages per-sample values of multi-label data. A 0/0 ratio takes the "
    "value of zero_division ('warn' gives 0 and an UndefinedMetricWarning)."
)
"""The averaging and zero-division convention of precision, recall, F1 and F-beta."""

PRF_REFERENCE = (
    f"{SK} precision_recall_fscore_support (precision_score, recall_score, f1_score, "
    "fbeta_score), including zero_division and the labels subset rule."
)
"""The reference implementation of precision, recall, F1 and F-beta."""
