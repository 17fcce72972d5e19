"""The request as the unit of the serving metrics: their summaries and bootstrap replicates.

Every serving metric reads checked :class:`Records`; :class:`RequestMetric` turns
its input into them once and, for a bootstrap, builds each replicate's state from
the same records with each request repeated as many times as it counts.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Any, ClassVar, TypeVar

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Metric, State
from scorekit.errors import ConfigError, InputError, raw
from scorekit.throughput._records import Records, as_records, input_records

__all__ = ["RequestMetric", "take_records"]

S = TypeVar("S", bound=State)


def take_records(records: Records, index: NDArray[np.intp]) -> Records:
    """The records at ``index`` (in that order, repeats allowed), chunk gaps included.

    Examples
    --------
    >>> recs = as_records("itl", [
    ...     {"prompt_tokens": 1, "output_tokens": 3, "start": 0.0, "end": 1.0,
    ...      "token_times": [0.1, 0.5, 1.0]},
    ...     {"prompt_tokens": 2, "output_tokens": 2, "start": 1.0, "end": 2.0,
    ...      "token_times": [1.5, 1.75]}])
    >>> take_records(recs, np.array([1, 0, 1])).gaps
    array([0.25, 0.4 , 0.5 , 0.25])
    """
    index = np.asarray(index, dtype=np.intp)
    gaps = records.gaps
    if gaps.size:
        per = np.maximum(records.chunks - 1, 0)
        first = np.cumsum(per) - per
        count = per[index]
        at = np.repeat(first[index] - (np.cumsum(count) - count), count)
        gaps = gaps[at + np.arange(at.size)]
    return Records(
        prompt=records.prompt[index],
        output=records.output[index],
        start=records.start[index],
        end=records.end[index],
        first=records.first[index],
        success=records.success[index],
        error=records.error[index],
        gaps=gaps,
        chunks=records.chunks[index],
        max_gap=records.max_gap[index],
        has_token_times=records.has_token_times,
    )


class RequestMetric(Metric[S]):
    """A metric of request records whose bootstrap unit is the request (one input row).

    A record set aside (a load test's metadata record, a warm-up request) is
    an input row, hence a unit, that adds nothing to any replicate, so units
    keep the positions of the rows of the input; checked :class:`Records`
    remember the input rows they come from, so a chunk converted once for
    several metrics has the units of its rows.
    """

    unit: ClassVar[str] = "request"

    @abc.abstractmethod
    def from_records(self, records: Records) -> S:
        """The state of checked records."""

    def summarize(self, records: Any) -> S:
        """The state of one batch of request records."""
        return self.from_records(as_records(self.name, records))

    def count_units(self, records: Any) -> int:
        """The number of rows of the input (records set aside included)."""
        if isinstance(records, Sequence) and not isinstance(records, str | bytes):
            return len(records)
        return input_records(self.name, records)[2]

    def summarize_replicates(
        self, *batch: Any, weights: NDArray[np.int64], **kwargs: Any
    ) -> list[S]:
        """The states of replicates in which input row ``i`` counts ``weights[b, i]`` times.

        The input is read and checked once; each replicate's state is that of
        the records repeated as they count, so it equals summarizing the
        repeated rows. Repeating a request adds its tokens and latencies again
        but leaves the span of the requests unchanged: a replicate's wall time
        is ``max(end) - min(start)`` over the requests it contains (weight > 0),
        and a replicate of no request has the value of no request (nan).

        Examples
        --------
        >>> from scorekit.throughput import OutputThroughput
        >>> metric = OutputThroughput()
        >>> records = [
        ...     {"prompt_tokens": 100, "output_tokens": 20, "start": 0.0, "end": 2.0},
        ...     {"prompt_tokens": 50, "output_tokens": 30, "start": 1.0, "end": 4.0},
        ... ]
        >>> states = metric.summarize_replicates(records, weights=np.array([[1, 1], [3, 0]]))
        >>> [metric.compute(s) for s in states]   # (20 + 30) / 4, 3 * 20 / 2
        [12.5, 30.0]
        """
        if len(batch) != 1 or kwargs:
            given = f"{len(batch)} positional input{'s' if len(batch) != 1 else ''}"
            if kwargs:
                given += " and keywords " + ", ".join(map(repr, kwargs))
            raise InputError(self._error("wrong inputs", raw(given), "(records)"))
        checked, rows, count = input_records(self.name, batch[0])
        w = np.asarray(weights)
        if w.ndim != 2 or w.shape[1] != count:
            raise ConfigError(
                self._error(
                    "replicate weights are not one column per request",
                    raw(f"shape {w.shape}"),
                    f"(replicates, {count})",
                )
            )
        if w.size and w.min() < 0:
            raise ConfigError(
                self._error("negative replicate weight", w.min().item(), "counts >= 0")
            )
        kept = w[:, rows]
        return [
            self.from_records(take_records(checked, np.repeat(np.arange(checked.n), c)))
            for c in kept
        ]
