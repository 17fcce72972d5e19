"""Text shared by the explanations of the regression metrics (``scorekit explain``)."""

from __future__ import annotations

__all__ = ["INPUT", "OUTPUTS", "SUMS", "VARIANCE_OUTPUTS"]

OUTPUTS = (
    "For 2-D targets (samples x outputs) multioutput='uniform_average' (default) averages the "
    "per-output values, 'raw_values' returns them and a sequence of output weights gives "
    "their weighted mean."
)
"""What ``multioutput`` does with several outputs."""

SUMS = (
    "The state is the weighted sum of the error term per output and the total weight; "
    "merging adds them, so chunked and streamed values equal the in-memory one up to "
    "rounding of the sums."
)
"""What the state of a mean error keeps."""

INPUT = (
    "Empty input and all-zero sample weights raise an InputError, as do NaN and infinite values."
)
"""The inputs every regression metric refuses."""

VARIANCE_OUTPUTS = (
    "multioutput also takes 'variance_weighted': outputs weighted by the variance of their "
    "targets (the uniform mean when every output is constant)."
)
"""The extra ``multioutput`` option of R^2 and explained variance."""
