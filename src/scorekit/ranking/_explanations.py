"""Text shared by the explanations of the ranking metrics (``scorekit explain``)."""

from __future__ import annotations

__all__ = ["GAIN", "NO_RELEVANT", "ORDER", "TE"]

TE = "trec_eval (through pytrec_eval)"
"""How the explanations name trec_eval as the reference implementation."""

ORDER = (
    "Within a query documents rank by descending score, ties broken by descending doc id "
    "(trec_eval's rule); a rank column in the run is ignored. A document is relevant when "
    "its grade is >= relevance_level (default 1); unjudged documents are non-relevant. "
    "Queries are those of the run that have judgments; missing='zero' also counts the "
    "qrels queries absent from the run as 0 (trec_eval -c). The value is the mean over "
    "queries; the state keeps one value per query, so states of disjoint query sets merge."
)
"""How documents are ranked and judged, and which queries count."""

NO_RELEVANT = (
    "A query without a relevant document is 0 with an UndefinedMetricWarning, as trec_eval "
    "counts it."
)
"""The value of a query without a relevant document."""

GAIN = (
    "gain='linear' (default, trec_eval) uses the grade as the gain; gain='exp' uses "
    "2^grade - 1 (Burges et al. 2005). Unjudged documents and grades <= 0 gain 0, and "
    "relevance_level does not change gains."
)
"""The gain of a graded document in the cumulative-gain metrics."""
