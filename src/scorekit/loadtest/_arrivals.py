"""Arrival times of an open-loop load test: Poisson, or gamma with a burstiness factor."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

__all__ = ["arrival_gaps", "arrival_times"]


def arrival_gaps(rate: float, burstiness: float = 1.0, seed: int = 0) -> Iterator[float]:
    """The gaps between successive requests, in seconds, without end.

    Gaps are gamma-distributed with shape ``burstiness`` and mean ``1 / rate``, as in
    vLLM's ``benchmark_serving.py``: ``burstiness`` 1 is a Poisson process
    (exponential gaps, drawn with :meth:`random.Random.expovariate`), below 1 the
    arrivals are burstier, above 1 more regular; the coefficient of variation of the
    gaps is ``1 / sqrt(burstiness)``. An infinite ``rate`` sends every request at once
    (gaps of 0). The draws come from ``random.Random(seed)``.

    Examples
    --------
    >>> gaps = arrival_gaps(10.0, seed=1)
    >>> round(next(gaps), 4), round(next(gaps), 4)
    (0.0144, 0.188)
    >>> next(arrival_gaps(float("inf")))
    0.0
    """
    if math.isinf(rate):
        while True:
            yield 0.0
    rng = random.Random(seed)
    if burstiness == 1.0:
        while True:
            yield rng.expovariate(rate)
    scale = 1.0 / (rate * burstiness)
    while True:
        yield rng.gammavariate(burstiness, scale)


def arrival_times(n: int, rate: float, burstiness: float = 1.0, seed: int = 0) -> list[float]:
    """The send times of ``n`` requests, in seconds from the start: 0 first, then the gaps.

    Examples
    --------
    >>> [round(t, 3) for t in arrival_times(3, 2.0, burstiness=4.0, seed=0)]
    [0.0, 0.948, 1.391]
    """
    gaps = arrival_gaps(rate, burstiness, seed)
    times, offset = [], 0.0
    for _ in range(n):
        times.append(offset)
        offset += next(gaps)
    return times
