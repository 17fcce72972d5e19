"""The states of the serving metrics and the definitions they are computed by, in one place.

Throughput metrics share :class:`RequestTotals` (counts, summed tokens, the
earliest start, the latest end and the failed requests by reason), so merging
never adds elapsed times. Latency metrics keep every value (:class:`LatencyValues`), so
their percentiles over merged states are exact. :func:`report` uses the same
functions, so its figures equal the metrics'.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit.core import State, state_field
from scorekit.errors import ConfigError, UndefinedMetricWarning, choices, message, raw
from scorekit.throughput._records import Records
from scorekit.throughput._slo import SLO_KEYS

__all__ = [
    "LATENCIES",
    "PERCENTILE_FORM",
    "PERCENTILE_PATTERN",
    "STATISTICS",
    "LatencyValues",
    "RequestTotals",
    "add_reasons",
    "check_percentiles",
    "failure_reasons",
    "latencies",
    "meets_slo",
    "per_second",
    "percentile_name",
    "percentile_of",
    "slo_items",
    "statistic",
    "statistic_of",
    "totals",
    "undefined",
]

Statistic = Literal["mean", "median", "p90", "p99", "min", "max", "std"]
STATISTICS: tuple[str, ...] = ("mean", "median", "p90", "p99", "min", "max", "std")
"""The named statistics a latency metric reports (``ttft:p99``); any ``pN`` is one too."""

PERCENTILE_FORM = "pN"
"""How a percentile is written: ``p`` and a number in [0, 100] (``p95``, ``p99.9``)."""
PERCENTILE_PATTERN = r"p.*"
"""The statistics read as a percentile (and checked by :func:`percentile_of`)."""
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_EXPECTED = "'p' and a number in [0, 100], e.g. 'p95' or 'p99.9'"

LATENCIES: dict[str, str] = {
    "ttft": "time to first token",
    "tpot": "time per output token",
    "itl": "inter-token latency",
    "e2e": "end-to-end latency",
}
"""The latency quantities and what they are called."""

_INF = math.inf
_NO_REASON = "(no reason given)"

Reasons = tuple[tuple[str, int], ...]


# states -------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class RequestTotals(State):
    """Counts and sums of a set of requests: the state of the throughput metrics.

    ``prompt_tokens``, ``output_tokens`` and ``good`` count successful requests
    only; ``first_start`` and ``last_end`` span every request, failed ones
    included. ``slo`` records the objectives ``good`` was counted against, as
    ``(latency, seconds)`` pairs; states with different objectives do not merge.
    ``reasons`` counts the failed requests by ``error``, as ``(reason, count)``
    pairs sorted by reason (see :func:`failure_reasons`); merging adds the
    counts of equal reasons. The state's size is fixed but for one pair per
    distinct reason.

    Examples
    --------
    >>> a = RequestTotals(requests=3, failed=3, reasons=(("HTTP 503", 2), ("timeout", 1)))
    >>> b = RequestTotals(requests=1, failed=1, reasons=(("HTTP 429", 1), ("timeout", 1)))
    >>> a.merge(b).reasons
    (('HTTP 429', 1), ('HTTP 503', 2), ('timeout', 2))
    """

    slo: tuple[tuple[str, float], ...] = state_field("same", default=())
    requests: int = state_field("sum", check="count", default=0)
    failed: int = state_field("sum", check="count", default=0)
    prompt_tokens: int = state_field("sum", check="count", default=0)
    output_tokens: int = state_field("sum", check="count", default=0)
    good: int = state_field("sum", check="count", default=0)
    first_start: float = state_field("min", check="number", default=_INF)
    last_end: float = state_field("max", check="number", default=-_INF)
    reasons: Reasons = state_field("custom", default=())

    def _merge_custom(self, other: RequestTotals) -> dict[str, Any]:
        return {"reasons": add_reasons(self.reasons, other.reasons)}

    def _check(self) -> None:
        self._check_slo()
        if self.failed > self.requests:
            raise self._invalid(
                "failed",
                "more failed requests than requests",
                raw(f"{self.failed} failed of {self.requests}"),
                "failed <= requests",
            )
        successes = self.requests - self.failed
        if self.good > successes:
            raise self._invalid(
                "good",
                "more good requests than successful ones",
                raw(f"{self.good} good of {successes} successful"),
                "good <= requests - failed",
            )
        if not successes and (self.prompt_tokens or self.output_tokens):
            raise self._invalid(
                "output_tokens" if self.output_tokens else "prompt_tokens",
                "tokens without a successful request",
                raw(f"{self.prompt_tokens} prompt, {self.output_tokens} output tokens"),
                "0 (tokens count successful requests only)",
            )
        if self.requests and not (
            math.isfinite(self.first_start)
            and math.isfinite(self.last_end)
            and self.first_start <= self.last_end
        ):
            raise self._invalid(
                "last_end",
                "not a time span of the requests",
                raw(f"first_start {self.first_start!r}, last_end {self.last_end!r}"),
                "finite times with first_start <= last_end",
            )
        self._check_reasons()

    def _check_slo(self) -> None:
        slo = self.slo
        ok = isinstance(slo, tuple) and all(
            isinstance(item, tuple)
            and len(item) == 2
            and item[0] in SLO_KEYS
            and isinstance(item[1], int | float)
            and not isinstance(item[1], bool)
            and math.isfinite(item[1])
            and item[1] > 0
            for item in slo
        )
        if not ok or len({item[0] for item in slo}) != len(slo):
            raise self._invalid(
                "slo",
                "not a list of objectives",
                slo,
                f"distinct (latency, seconds > 0) pairs, latencies {', '.join(SLO_KEYS)}",
            )

    def _check_reasons(self) -> None:
        reasons = self.reasons
        ok = isinstance(reasons, tuple) and all(
            isinstance(item, tuple)
            and len(item) == 2
            and isinstance(item[0], str)
            and isinstance(item[1], int)
            and not isinstance(item[1], bool)
            and item[1] > 0
            for item in reasons
        )
        if not ok:
            raise self._invalid(
                "reasons",
                "not a tally of failure reasons",
                reasons,
                "(reason, count > 0) pairs",
            )
        names = [name for name, _ in reasons]
        if names != sorted(set(names)):
            raise self._invalid(
                "reasons", "reasons repeat or are out of order", names, "distinct sorted reasons"
            )
        counted = sum(count for _, count in reasons)
        if counted != self.failed:
            raise self._invalid(
                "reasons",
                "failure reasons do not add up to the failed requests",
                raw(f"{counted} requests by reason, {self.failed} failed"),
                "one reason per failed request",
            )

    @property
    def successes(self) -> int:
        """Requests that did not fail."""
        return self.requests - self.failed

    @property
    def wall_time(self) -> float:
        """``last_end - first_start`` in seconds; nan without requests."""
        return self.last_end - self.first_start if self.requests else math.nan


@dataclass(frozen=True, eq=False)
class LatencyValues(State):
    """Every value of one latency (seconds), kept so that merged percentiles are exact.

    Memory: 8 bytes per successful request for ``ttft``, ``tpot`` and ``e2e``,
    8 bytes per gap between streamed chunks for ``itl``.
    """

    quantity: str = state_field("same", check="text", allowed=("", *LATENCIES), default="")
    values: NDArray[np.float64] = state_field(
        "concat", check="nonnegative", ndim=1, default_factory=lambda: np.empty(0)
    )


# the definitions, once ---------------------------------------------------------------


def slo_items(slo: Mapping[str, float]) -> tuple[tuple[str, float], ...]:
    return tuple((k, float(slo[k])) for k in SLO_KEYS if k in slo)


def meets_slo(records: Records, slo: Mapping[str, float]) -> NDArray[np.bool_]:
    """Which requests count for goodput: successful and within every objective.

    A latency a request cannot have because it produced at most one token
    (TPOT, ITL) meets its objective, as vLLM's benchmark takes TPOT as 0
    there; a latency that is unknown because the record lacks the times (no
    first-token time for TTFT or TPOT, fewer than two chunk times for ITL)
    does not. The ITL objective bounds the request's largest chunk gap.

    Examples
    --------
    >>> from scorekit.throughput._records import as_records
    >>> recs = as_records("goodput", [
    ...     {"prompt_tokens": 1, "output_tokens": 3, "start": 0.0, "first_token": 0.1, "end": 0.5},
    ...     {"prompt_tokens": 1, "output_tokens": 3, "start": 0.0, "first_token": 0.3, "end": 0.5}])
    >>> meets_slo(recs, {"ttft": 0.2})
    array([ True, False])
    """
    good: NDArray[np.bool_] = records.success.copy()
    first_known = ~np.isnan(records.first)
    few = records.output <= 1
    with np.errstate(invalid="ignore", divide="ignore"):
        if "ttft" in slo:
            good &= first_known & (records.first - records.start <= slo["ttft"])
        if "tpot" in slo:
            per_token = (records.end - records.first) / np.maximum(records.output - 1, 1)
            good &= few | (first_known & (per_token <= slo["tpot"]))
        if "itl" in slo:
            good &= few | ((records.chunks >= 2) & (records.max_gap <= slo["itl"]))
        if "e2e" in slo:
            good &= records.end - records.start <= slo["e2e"]
    return good


def failure_reasons(records: Records) -> Reasons:
    """The failed requests of checked records by ``error``, as ``(reason, count)`` sorted by reason.

    A failed request without an error text counts under ``"(no reason given)"``.

    Examples
    --------
    >>> from scorekit.throughput._records import as_records
    >>> recs = as_records("t", [
    ...     {"prompt_tokens": 1, "output_tokens": 0, "start": 0.0, "end": 1.0, "error": "timeout"},
    ...     {"prompt_tokens": 1, "output_tokens": 0, "start": 0.0, "end": 1.0, "error": "HTTP 503"},
    ...     {"prompt_tokens": 1, "output_tokens": 0, "start": 0.0, "end": 1.0, "success": False},
    ...     {"prompt_tokens": 1, "output_tokens": 0, "start": 0.0, "end": 1.0, "error": "timeout"}])
    >>> failure_reasons(recs)
    (('(no reason given)', 1), ('HTTP 503', 1), ('timeout', 2))
    """
    failed = ~records.success
    if not failed.any():
        return ()
    text = [
        _NO_REASON if r is None or not str(r).strip() else str(r) for r in records.error[failed]
    ]
    names, counts = np.unique(np.array(text, dtype=str), return_counts=True)
    return tuple((str(name), int(count)) for name, count in zip(names, counts, strict=True))


def add_reasons(a: Reasons, b: Reasons) -> Reasons:
    """The union of two reason tallies, adding the counts of equal reasons (sorted by reason).

    Examples
    --------
    >>> add_reasons((("a", 1), ("c", 2)), (("b", 4), ("c", 1)))
    (('a', 1), ('b', 4), ('c', 3))
    """
    if not b:
        return tuple(a)
    if not a:
        return tuple(b)
    counts: dict[str, int] = {}
    for reason, count in (*a, *b):
        counts[reason] = counts.get(reason, 0) + int(count)
    return tuple((reason, counts[reason]) for reason in sorted(counts))


def totals(records: Records, slo: Mapping[str, float] | None = None) -> RequestTotals:
    """The :class:`RequestTotals` of checked records (``good`` counted against ``slo``).

    Examples
    --------
    >>> from scorekit.throughput._records import as_records
    >>> recs = as_records("t", [
    ...     {"prompt_tokens": 10, "output_tokens": 4, "start": 1.0, "end": 3.0},
    ...     {"prompt_tokens": 6, "output_tokens": 0, "start": 2.0, "end": 5.0, "success": False}])
    >>> s = totals(recs)
    >>> s.requests, s.failed, s.prompt_tokens, s.output_tokens, s.wall_time
    (2, 1, 10, 4, 4.0)
    """
    objectives = dict(slo or {})
    if records.n == 0:
        return RequestTotals(slo=slo_items(objectives))
    ok = records.success
    return RequestTotals(
        slo=slo_items(objectives),
        requests=records.n,
        failed=int(records.n - np.count_nonzero(ok)),
        prompt_tokens=int(records.prompt[ok].sum()),
        output_tokens=int(records.output[ok].sum()),
        good=int(np.count_nonzero(meets_slo(records, objectives))),
        first_start=float(records.start.min()),
        last_end=float(records.end.max()),
        reasons=failure_reasons(records),
    )


def latencies(records: Records, quantity: str) -> NDArray[np.float64]:
    """One latency of the successful requests, in seconds (see the metric classes).

    Examples
    --------
    >>> from scorekit.throughput._records import as_records
    >>> recs = as_records("t", [{"prompt_tokens": 1, "output_tokens": 3, "start": 0.0,
    ...                          "end": 0.5, "token_times": [0.1, 0.2, 0.5]}])
    >>> latencies(recs, "ttft"), latencies(recs, "tpot"), latencies(recs, "itl")
    (array([0.1]), array([0.2]), array([0.1, 0.3]))
    """
    ok = records.success
    if quantity == "ttft":
        mask = ok & ~np.isnan(records.first)
        return np.asarray(records.first[mask] - records.start[mask], dtype=np.float64)
    if quantity == "tpot":
        mask = ok & ~np.isnan(records.first) & (records.output >= 2)
        span = records.end[mask] - records.first[mask]
        return np.asarray(span / (records.output[mask] - 1), dtype=np.float64)
    if quantity == "itl":
        return records.gaps
    if quantity == "e2e":
        return np.asarray(records.end[ok] - records.start[ok], dtype=np.float64)
    raise ConfigError(message("latencies", "unknown latency", quantity, choices(LATENCIES)))


def percentile_of(where: str, which: str) -> float | None:
    """The percentile a statistic names (50 for ``median``), None for another statistic.

    Raises :class:`~scorekit.errors.ConfigError` naming ``where`` for a
    statistic that is neither one of :data:`STATISTICS` nor ``p`` and a
    number in [0, 100].

    Examples
    --------
    >>> percentile_of("ttft", "p99.9"), percentile_of("ttft", "median")
    (99.9, 50.0)
    >>> percentile_of("ttft", "std") is None
    True
    >>> percentile_of("ttft", "p101")
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: ttft: percentile outside [0, 100]; got 'p101', ...
    """
    if which == "median":
        return 50.0
    if which in STATISTICS and not which.startswith("p"):
        return None
    if not isinstance(which, str) or not which.startswith("p"):
        allowed = f"{choices(STATISTICS)} or {PERCENTILE_FORM} ({_EXPECTED})"
        raise ConfigError(message(where, "unknown statistic", which, allowed))
    if _NUMBER.fullmatch(which[1:]) is None:
        raise ConfigError(message(where, "malformed percentile", which, _EXPECTED))
    q = float(which[1:])
    if not 0.0 <= q <= 100.0:
        raise ConfigError(message(where, "percentile outside [0, 100]", which, _EXPECTED))
    return q


def percentile_name(q: float) -> str:
    """The statistic of percentile ``q``: ``p`` and the shortest text that reads back as ``q``.

    Examples
    --------
    >>> percentile_name(50), percentile_name(99.9), percentile_name(0.001)
    ('p50', 'p99.9', 'p0.001')
    """
    value = float(q)
    return f"p{int(value)}" if value.is_integer() else f"p{value!r}"


def check_percentiles(where: str, qs: Any) -> tuple[float, ...]:
    """Check a list of percentiles (numbers in [0, 100]) and return them as floats, in order.

    Repeated percentiles are kept once. ``where`` names the caller in errors.

    Examples
    --------
    >>> check_percentiles("report", [50, 90, 95, 99.9, 90])
    (50.0, 90.0, 95.0, 99.9)
    """
    if isinstance(qs, str | bytes) or not hasattr(qs, "__iter__"):
        raise ConfigError(
            message(where, "percentiles are not a list", qs, "numbers in [0, 100], e.g. [50, 99]")
        )
    out: list[float] = []
    for q in qs:
        if isinstance(q, bool) or not isinstance(q, int | float | np.integer | np.floating):
            raise ConfigError(message(where, "percentile is not a number", q, "a number"))
        value = float(q)
        if not 0.0 <= value <= 100.0:
            raise ConfigError(message(where, "percentile outside [0, 100]", q, "0 <= q <= 100"))
        if value not in out:
            out.append(value)
    if not out:
        raise ConfigError(message(where, "no percentile", raw("[]"), "at least one"))
    return tuple(out)


def statistic(values: NDArray[np.float64], which: str) -> float:
    """A statistic of latency values (one of :data:`STATISTICS` or ``pN``); nan when empty.

    Percentiles interpolate linearly between the closest ranks (numpy's
    default ``method="linear"``, as vLLM's benchmark computes them); ``std``
    is the population standard deviation (``ddof=0``, :func:`numpy.std`, as
    vLLM). The mean and the standard deviation are taken over the sorted
    values, so they do not depend on the order in which states were merged.

    Examples
    --------
    >>> v = np.array([0.4, 0.1, 0.2, 0.3])
    >>> statistic(v, "median"), statistic(v, "p90"), statistic(v, "max")
    (0.25, 0.37, 0.4)
    >>> statistic(v, "p75"), statistic(v, "min"), statistic(v, "std")
    (0.325, 0.1, 0.11180339887498948)
    """
    return statistic_of(values, which, percentile_of("statistic", which))


def statistic_of(values: NDArray[np.float64], which: str, q: float | None) -> float:
    """:func:`statistic` with the percentile ``q`` of ``which`` already read."""
    if values.size == 0:
        return math.nan
    if q is not None:
        return float(np.percentile(values, q))
    if which == "mean":
        return float(np.mean(np.sort(values)))
    if which == "std":
        return float(np.std(np.sort(values)))
    if which == "min":
        return float(values.min())
    return float(values.max())


def per_second(count: int, state: RequestTotals) -> tuple[float, str | None]:
    """``count / wall time`` and, when undefined (no requests, zero wall time), why.

    Examples
    --------
    >>> per_second(30, RequestTotals(requests=3, first_start=1.0, last_end=4.0))
    (10.0, None)
    >>> per_second(0, RequestTotals())
    (nan, 'no requests')
    """
    if state.requests == 0:
        return math.nan, "no requests"
    wall = state.wall_time
    if not wall > 0:
        return math.nan, "the wall time is 0 (every request starts and ends at the same time)"
    return count / wall, None


def undefined(name: str, why: str) -> None:
    """Warn that metric ``name`` is nan for the reason ``why``."""
    warnings.warn(f"{name}: {why}; the value is nan.", UndefinedMetricWarning, stacklevel=3)
