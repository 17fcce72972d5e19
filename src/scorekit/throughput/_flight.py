"""Requests in flight over time: every request's start and end, kept for exact merges."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Explanation, State, register, sentences, state_field
from scorekit.throughput._records import Records
from scorekit.throughput._state import undefined
from scorekit.throughput._units import RequestMetric

__all__ = ["PeakConcurrency", "RequestTimes", "in_flight", "peak_concurrency"]


@dataclass(frozen=True, eq=False)
class RequestTimes(State):
    """The start and end of every request and the output tokens it delivered.

    ``output`` is the output tokens of a successful request, 0 for a failed
    one. Memory: 24 bytes per request, so the requests in flight and the
    tokens delivered over time of merged states are those of all the records.
    """

    start: NDArray[np.float64] = state_field(
        "concat", check="finite", ndim=1, default_factory=lambda: np.empty(0)
    )
    end: NDArray[np.float64] = state_field(
        "concat", check="finite", ndim=1, default_factory=lambda: np.empty(0)
    )
    output: NDArray[np.float64] = state_field(
        "concat", check="nonnegative", ndim=1, default_factory=lambda: np.empty(0)
    )


def in_flight(
    start: NDArray[np.float64], end: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """The times at which the requests in flight change, and their number from each on.

    A request is in flight from its start up to, not including, its end: one
    ending when another starts does not overlap it.

    Examples
    --------
    >>> times, counts = in_flight(np.array([0.0, 1.0, 2.0]), np.array([2.0, 3.0, 4.0]))
    >>> times.tolist(), counts.tolist()
    ([0.0, 1.0, 2.0, 2.0, 3.0, 4.0], [1, 2, 1, 2, 1, 0])
    """
    times = np.concatenate([end, start])
    steps = np.concatenate([-np.ones(end.size, np.int64), np.ones(start.size, np.int64)])
    order = np.argsort(times, kind="stable")
    return times[order], np.cumsum(steps[order])


@register(
    "peak_concurrency",
    higher_is_better=None,
    bounds=(0.0, math.inf),
    inputs="requests",
    aliases=("max_concurrency",),
    grows=True,
)
@dataclass(frozen=True)
class PeakConcurrency(RequestMetric[RequestTimes]):
    """Peak concurrency: the most requests in flight at one time, failed ones included.

    .. math:: \\max_t |\\{i : \\mathrm{start}_i \\le t < \\mathrm{end}_i\\}|

    Notes
    -----
    A request is in flight from its start up to its end, so one that ends
    when another starts does not overlap it. Under a closed loop of N users
    the peak is at most N; under an open loop (``--rate``) it shows how many
    requests the server held at once. The state keeps every request's start,
    end and output tokens (24 bytes per request), from which a report draws
    the output tokens per second and requests in flight over time. No
    request: nan with an :class:`~scorekit.errors.UndefinedMetricWarning`.

    Examples
    --------
    >>> records = [
    ...     {"prompt_tokens": 5, "output_tokens": 3, "start": 0.0, "end": 2.0},
    ...     {"prompt_tokens": 5, "output_tokens": 3, "start": 1.0, "end": 3.0},
    ...     {"prompt_tokens": 5, "output_tokens": 3, "start": 3.0, "end": 4.0},
    ... ]
    >>> PeakConcurrency().score(records)
    2
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The most requests in flight at one time.",
        formula="peak_concurrency = max over t of #{requests with start <= t < end}",
        convention=sentences(
            "Failed requests count while they are in flight.",
            "A request that ends when another starts does not overlap it.",
            "The state keeps every request's start, end and output tokens, 24 bytes each.",
        ),
        reference="The requests in flight of the records' own start and end times.",
    )

    def from_records(self, records: Records) -> RequestTimes:
        """Keep the start, end and delivered output tokens of every request."""
        output = np.where(records.success, records.output, 0).astype(np.float64)
        return RequestTimes(
            np.asarray(records.start, np.float64), np.asarray(records.end, np.float64), output
        )

    def empty(self) -> RequestTimes:
        """The state of no requests."""
        return RequestTimes()

    def compute(self, state: RequestTimes) -> float | int:
        """The most requests in flight at once; nan (with a warning) without requests."""
        if state.start.size == 0:
            undefined(self.name, "no request")
            return math.nan
        return int(in_flight(state.start, state.end)[1].max())


def peak_concurrency(records: Any) -> float | int:
    """The most requests in flight at one time (see :class:`PeakConcurrency`).

    Examples
    --------
    >>> peak_concurrency([{"prompt_tokens": 1, "output_tokens": 1, "start": 0, "end": 1}])
    1
    """
    found: float | int = PeakConcurrency().score(records)
    return found
