"""Text shared by the explanations of the information measures (``scorekit explain``)."""

from __future__ import annotations

__all__ = ["COUNTS", "SPLIT", "TABLE"]

COUNTS = (
    "Counts are weighted when sample_weight is given. The state is the count of each class, "
    "so chunked and streamed values equal the in-memory one. Empty input raises an "
    "InputError; all-zero weights give nan with an UndefinedMetricWarning."
)
"""The state and input rules of the measures of one label column."""

SPLIT = (
    "Arguments are (x, y): the feature column, then the target labels. feature='categorical' "
    "(default) splits multiway, one branch per distinct value; feature='numeric' "
    "(name:numeric) splits in two, x <= t against x > t, trying every midpoint t between "
    "consecutive distinct sorted values, and the lowest threshold wins ties. Branch sizes are "
    "weighted when sample_weight is given."
)
"""How the split criteria split the samples on a feature."""

TABLE = (
    "The state is the feature-value x class contingency table, which grows with the number "
    "of distinct feature values; merging adds counts, so chunked values equal the in-memory "
    "one. Empty input raises an InputError; all-zero weights give nan with an "
    "UndefinedMetricWarning. rank_features(X, y, criterion=...) scores every column of a "
    "table by the same criteria (numeric dtypes split at a threshold, other types multiway) "
    "and best_split returns the best column, the test ID3, C4.5 or CART would put at the root."
)
"""The state of the split criteria and the functions that rank features by them."""
