"""Small immutable results shared by the intervals and the tests of :mod:`scorekit.stats`."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["DeLongResult", "Interval", "TestResult"]


def _set_floats(obj: Any, names: tuple[str, ...]) -> None:
    """Store the named fields of a frozen dataclass as plain Python floats."""
    for name in names:
        object.__setattr__(obj, name, float(getattr(obj, name)))


@dataclass(frozen=True)
class Interval:
    """A value with a confidence interval around it.

    Attributes
    ----------
    value : float
        The point estimate.
    low, high : float
        The interval's bounds.
    confidence : float
        The nominal coverage, in (0, 1).
    method : str
        How the interval was made (``"wilson"``, ``"delong"``, ``"percentile"``, ...).
    replicates : ndarray or None
        The bootstrap replicate values behind the interval, if there are any. They
        are left out of the repr and of equality.

    Examples
    --------
    >>> Interval(0.8, 0.7, 0.9, 0.95, "wilson")
    Interval(value=0.8, low=0.7, high=0.9, confidence=0.95, method='wilson')
    >>> import numpy as np
    >>> Interval(0.5, 0.25, 0.75, 0.9, "percentile", np.zeros(1000))
    Interval(value=0.5, low=0.25, high=0.75, confidence=0.9, method='percentile',
             replicates=<1000 values>)
    """

    value: float
    low: float
    high: float
    confidence: float
    method: str
    replicates: NDArray[np.float64] | None = dataclasses.field(
        default=None, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        _set_floats(self, ("value", "low", "high", "confidence"))

    def as_dict(self) -> dict[str, Any]:
        """``value``, ``low``, ``high``, ``confidence`` and ``method`` (not the replicates).

        Examples
        --------
        >>> Interval(0.8, 0.7, 0.9, 0.95, "wilson").as_dict()["low"]
        0.7
        """
        return {
            "value": self.value,
            "low": self.low,
            "high": self.high,
            "confidence": self.confidence,
            "method": self.method,
        }

    def __repr__(self) -> str:
        text = (
            f"Interval(value={self.value!r}, low={self.low!r}, high={self.high!r}, "
            f"confidence={self.confidence!r}, method={self.method!r}"
        )
        if self.replicates is not None:
            text += f", replicates=<{len(self.replicates)} values>"
        return text + ")"


@dataclass(frozen=True)
class TestResult:
    """The outcome of a significance test.

    Attributes
    ----------
    statistic : float
        The test statistic (its meaning depends on ``method``).
    pvalue : float
        The p-value, in [0, 1].
    method : str
        The test's name (``"paired_t"``, ``"wilcoxon"``, ``"mcnemar"``, ...).

    Examples
    --------
    >>> TestResult(2.5, 0.03, "paired_t")
    TestResult(statistic=2.5, pvalue=0.03, method='paired_t')
    """

    __test__ = False  # a result, not a pytest test class

    statistic: float
    pvalue: float
    method: str

    def __post_init__(self) -> None:
        _set_floats(self, ("statistic", "pvalue"))


@dataclass(frozen=True)
class DeLongResult:
    """DeLong's test of two correlated ROC AUCs.

    Attributes
    ----------
    auc_a, auc_b : float
        The ROC AUC of each score.
    difference : float
        ``auc_a - auc_b``.
    stderr : float
        The standard error of the difference.
    statistic : float
        ``difference / stderr`` (a standard normal under the null hypothesis).
    pvalue : float
        The two-sided p-value.
    method : str
        ``"delong"``.

    Examples
    --------
    >>> DeLongResult(0.9, 0.8, 0.1, 0.05, 2.0, 0.0455, "delong")
    DeLongResult(auc_a=0.9, auc_b=0.8, difference=0.1, stderr=0.05, statistic=2.0,
                 pvalue=0.0455, method='delong')
    """

    auc_a: float
    auc_b: float
    difference: float
    stderr: float
    statistic: float
    pvalue: float
    method: str = "delong"

    def __post_init__(self) -> None:
        _set_floats(self, ("auc_a", "auc_b", "difference", "stderr", "statistic", "pvalue"))
