"""Calibration: the reliability curve, expected and maximum calibration error.

All three keep one exact, mergeable state, :class:`CalibrationHistogram`: for
every distinct predicted probability (per class column for class-wise
calibration), the number of samples at it, their summed weight and the summed
weight of those whose outcome was positive (correct, for top-label
calibration). The bins are drawn at compute time from the histogram, so
equal-width and equal-mass bins of any number come from the same state, and a
state merged from chunks, files or workers bins exactly as the data in memory.
"""

from scorekit.classification._calibration._metrics import (
    CalibrationCurveMetric,
    ExpectedCalibrationError,
    MaxCalibrationError,
    calibration_curve,
    expected_calibration_error,
    max_calibration_error,
)
from scorekit.classification._calibration._state import (
    CalibrationBins,
    CalibrationCurve,
    CalibrationHistogram,
)

__all__ = [
    "CalibrationBins",
    "CalibrationCurve",
    "CalibrationCurveMetric",
    "CalibrationHistogram",
    "ExpectedCalibrationError",
    "MaxCalibrationError",
    "calibration_curve",
    "expected_calibration_error",
    "max_calibration_error",
]
