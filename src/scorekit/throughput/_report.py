"""All serving figures of a set of request records at once, as a report object, a table or JSON."""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Metric, State
from scorekit.errors import (
    ConfigError,
    InputError,
    StateMismatchError,
    UndefinedMetricWarning,
    choices,
    message,
    printable,
    raw,
)
from scorekit.throughput._records import Records, input_records
from scorekit.throughput._slo import format_slo, parse_slo
from scorekit.throughput._state import (
    LATENCIES,
    LatencyValues,
    RequestTotals,
    check_percentiles,
    per_second,
    percentile_name,
    slo_items,
    statistic,
    statistic_of,
)

__all__ = [
    "DEFAULT_PERCENTILES",
    "FORMATS",
    "REPORT_KEYS",
    "LatencySummary",
    "ThroughputReport",
    "format_report",
    "report",
    "report_from_states",
    "report_metrics",
]

FORMATS: tuple[str, ...] = ("table", "json")
"""The output formats of :func:`format_report`."""


DEFAULT_PERCENTILES: tuple[float, ...] = (50.0, 90.0, 99.0)
"""The percentiles a report shows unless asked for others."""


@dataclass(frozen=True)
class LatencySummary:
    """Count, mean, median, p90, p99, min, max, std and chosen percentiles of one latency.

    In seconds, nan when count is 0. ``percentiles`` maps ``pN`` to the
    percentile N of the values for every percentile the report was asked for
    (50, 90 and 99 by default), each equal to ``numpy.percentile(values, N)``
    and to the latency metric ``:pN``; ``std`` is the population standard
    deviation (``ddof=0``).

    Examples
    --------
    >>> s = LatencySummary.of(np.array([0.1, 0.2, 0.3]), (50, 95))
    >>> s.count, s.median, s.max, s.percentiles
    (3, 0.2, 0.3, {'p50': 0.2, 'p95': 0.29})
    """

    count: int
    mean: float
    median: float
    p90: float
    p99: float
    max: float
    min: float = math.nan
    std: float = math.nan
    percentiles: dict[str, float] = field(default_factory=dict)

    @staticmethod
    def of(
        values: NDArray[np.float64], percentiles: Sequence[float] = DEFAULT_PERCENTILES
    ) -> LatencySummary:
        """Summarise latency values with the statistics the latency metrics report."""
        chosen = {percentile_name(q): float(q) for q in percentiles}
        return LatencySummary(
            count=int(values.size),
            mean=statistic(values, "mean"),
            median=statistic(values, "median"),
            p90=statistic(values, "p90"),
            p99=statistic(values, "p99"),
            max=statistic(values, "max"),
            min=statistic(values, "min"),
            std=statistic(values, "std"),
            percentiles={name: statistic_of(values, name, q) for name, q in chosen.items()},
        )

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict, each chosen percentile under its ``pN`` key (nan stays nan)."""
        return {
            "count": self.count,
            "mean": self.mean,
            "median": self.median,
            "p90": self.p90,
            "p99": self.p99,
            "max": self.max,
            "min": self.min,
            "std": self.std,
            **self.percentiles,
        }


@dataclass(frozen=True)
class ThroughputReport:
    """Every serving figure of one set of request records.

    Times are in seconds and throughputs per second of wall time; the
    definitions are those of the metrics in :mod:`scorekit.throughput`, so
    each figure equals the metric of the same name (``output_throughput``,
    ``ttft:p99``, ...).

    Attributes
    ----------
    requests, successes, failures : int
        Requests in the records, and how many succeeded and failed.
    failure_reasons : dict of str to int
        Failed requests by ``error``, most frequent first.
    wall_time : float
        Latest end minus earliest start over every request (nan without any).
    prompt_tokens, output_tokens : int
        Tokens of the successful requests.
    request_throughput, output_throughput, prompt_throughput, total_token_throughput : float
        Successful requests, output tokens, prompt tokens and both, per second.
    slo : dict of str to float or None
        The objectives goodput was counted against (seconds), if any.
    good_requests : int or None
        Successful requests within every objective.
    goodput : float or None
        ``good_requests`` per second.
    ttft, tpot, itl, e2e : LatencySummary
        The latency statistics.
    notes : tuple of str
        Why figures are undefined (nan) or what to know, e.g. "all 3 requests failed".
    token_counts : dict of str to int or None
        The successful requests by how their token counts were found, as records of
        ``scorekit loadtest`` say (``token_counter``): ``"usage"`` (the server's),
        ``"tokenizer"``, ``"estimate"`` (characters / 4 for a prompt, text chunks for an
        output) or ``"unknown"`` (a record that does not say). None when no record says
        (records of other programs, older records files, a report of states).
    tokenizer : str or None
        The name of the tokenizer that counted what the server did not report, when known.
    """

    requests: int
    successes: int
    failures: int
    failure_reasons: dict[str, int]
    wall_time: float
    prompt_tokens: int
    output_tokens: int
    request_throughput: float
    output_throughput: float
    prompt_throughput: float
    total_token_throughput: float
    slo: dict[str, float] | None
    good_requests: int | None
    goodput: float | None
    ttft: LatencySummary
    tpot: LatencySummary
    itl: LatencySummary
    e2e: LatencySummary
    notes: tuple[str, ...] = field(default=())
    token_counts: dict[str, int] | None = None
    tokenizer: str | None = None

    @property
    def estimated_requests(self) -> int | None:
        """How many successful requests have an estimated token count (None when unknown)."""
        return None if self.token_counts is None else self.token_counts.get("estimate", 0)

    @property
    def token_note(self) -> str | None:
        """How the token counts were found, as one note (None when the records do not say).

        The text report's ``(estimated for N of M requests)`` and ``counted by`` row in
        one sentence, for reports that show notes (``--report``).

        Examples
        --------
        >>> r = report([{"prompt_tokens": 4, "output_tokens": 2, "start": 0.0, "end": 1.0,
        ...              "token_times": [0.5, 1.0], "token_counter": "usage"}])
        >>> r.token_note
        "Token counts (prompt and output): estimated for 0 of 1 requests; counted by the server's usage for 1."
        """  # noqa: E501
        if self.token_counts is None:
            return None
        estimated = f"{self.estimated_requests} of {sum(self.token_counts.values())} requests"
        how = counted_by(self.token_counts, self.tokenizer)
        return f"Token counts (prompt and output): estimated for {estimated}; counted by {how}."

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (nan stays nan here; :func:`format_report` writes null).

        ``token_counts`` is there when the records say how their tokens were counted:
        ``{"requests": M, "estimated": N, "counted_by": {...}, "tokenizer": ...}``.
        """
        counted = {}
        if self.token_counts is not None:
            counted["token_counts"] = {
                "requests": sum(self.token_counts.values()),
                "estimated": self.estimated_requests,
                "counted_by": dict(self.token_counts),
                "tokenizer": self.tokenizer,
            }
        return {
            "requests": self.requests,
            "successes": self.successes,
            "failures": self.failures,
            "failure_reasons": dict(self.failure_reasons),
            "wall_time": self.wall_time,
            "prompt_tokens": self.prompt_tokens,
            "output_tokens": self.output_tokens,
            **counted,
            "request_throughput": self.request_throughput,
            "output_throughput": self.output_throughput,
            "prompt_throughput": self.prompt_throughput,
            "total_token_throughput": self.total_token_throughput,
            "slo": None if self.slo is None else dict(self.slo),
            "good_requests": self.good_requests,
            "goodput": self.goodput,
            "ttft": self.ttft.to_dict(),
            "tpot": self.tpot.to_dict(),
            "itl": self.itl.to_dict(),
            "e2e": self.e2e.to_dict(),
            "units": {"time": "s", "throughput": "per second of wall time"},
            "notes": list(self.notes),
        }


REPORT_KEYS: tuple[str, ...] = ("requests", *LATENCIES)
"""The keys of the states a report is made of (see :func:`report_metrics`)."""


def report_metrics(slo: Mapping[str, float] | None = None) -> dict[str, Metric[Any]]:
    """The metrics whose states make up a :class:`ThroughputReport`, by key.

    ``"requests"`` is :class:`~scorekit.throughput.Goodput` with the objectives
    ``slo`` (seconds, as :func:`parse_slo` returns them), or
    :class:`~scorekit.throughput.FailedRequests` without any; both keep a
    :class:`RequestTotals` (counts, tokens, span, failure reasons).
    ``"ttft"``, ``"tpot"``, ``"itl"`` and ``"e2e"`` keep every latency value,
    and ``"flight"`` (:class:`~scorekit.throughput.PeakConcurrency`) every
    request's start, end and output tokens, from which a report draws the
    tokens per second and requests in flight over time.
    Summarize records (or chunks, shards, partitions of them) with these
    metrics, merge the states, and :func:`report_from_states` gives the report
    of all the records.

    Examples
    --------
    >>> sorted(report_metrics())
    ['e2e', 'flight', 'itl', 'requests', 'tpot', 'ttft']
    >>> report_metrics({"ttft": 0.2})["requests"].name
    'goodput'
    """
    from scorekit.throughput._flight import PeakConcurrency
    from scorekit.throughput._latency import ITL, TPOT, TTFT, E2ELatency
    from scorekit.throughput._rates import FailedRequests, Goodput

    objectives: dict[str, Any] = dict(slo or {})
    requests: Metric[Any] = Goodput(**objectives) if objectives else FailedRequests()
    latencies = {"ttft": TTFT(), "tpot": TPOT(), "itl": ITL(), "e2e": E2ELatency()}
    return {"requests": requests, **latencies, "flight": PeakConcurrency()}


def _request_totals(states: Mapping[str, State]) -> RequestTotals:
    missing = [key for key in REPORT_KEYS if key not in states]
    if missing:
        raise InputError(
            message(
                "report_from_states",
                "states are missing",
                raw(", ".join(missing)),
                f"the states of {', '.join(REPORT_KEYS)} (see report_metrics)",
            )
        )
    totals_state = states["requests"]
    if not isinstance(totals_state, RequestTotals):
        raise StateMismatchError(
            message(
                "report_from_states",
                "'requests' is not a request-totals state",
                type(totals_state).__name__,
                "a RequestTotals",
            )
        )
    for quantity in LATENCIES:
        values = states[quantity]
        if not isinstance(values, LatencyValues) or values.quantity != quantity:
            got = getattr(values, "quantity", None) or type(values).__name__
            raise StateMismatchError(
                message(
                    "report_from_states", f"{quantity!r} is not its latency's state", got, quantity
                )
            )
    return totals_state


def report_from_states(
    states: Mapping[str, State],
    slo: str | Sequence[str] | Mapping[str, float | str] | None = None,
    percentiles: Sequence[float] | None = None,
) -> ThroughputReport:
    """The :class:`ThroughputReport` of merged metric states.

    This is :func:`report` after its records are summarized: the states of
    :func:`report_metrics`, from one batch of records or merged from chunks,
    shards or Dask partitions, give the same figures as the records at once.

    Parameters
    ----------
    states : mapping of str to State
        The states of ``"requests"`` (a :class:`RequestTotals`), ``"ttft"``,
        ``"tpot"``, ``"itl"`` and ``"e2e"`` (:class:`LatencyValues`).
    slo : str, sequence of str or mapping, optional
        The objectives of goodput; they must be those the ``"requests"`` state
        was counted against. By default, those of the state: goodput is
        reported when it has any.
    percentiles : sequence of float, optional
        The percentiles of every latency to report (numbers in [0, 100]; by
        default :data:`DEFAULT_PERCENTILES`), as :func:`report` takes them.

    Returns
    -------
    ThroughputReport
        As :func:`report` returns it, notes and warnings included.

    Raises
    ------
    InputError
        A state is missing.
    ConfigError
        A percentile that is not a number in [0, 100].
    StateMismatchError
        A state of another kind or latency, or ``slo`` other than the state's.

    Examples
    --------
    >>> records = [
    ...     {"prompt_tokens": 100, "output_tokens": 5, "start": 0.0, "end": 1.0,
    ...      "token_times": [0.2, 0.6, 1.0]},
    ...     {"prompt_tokens": 40, "output_tokens": 0, "start": 1.0, "end": 2.0,
    ...      "error": "timeout"},
    ... ]
    >>> metrics = report_metrics({"ttft": 0.5})
    >>> first = {k: m.summarize(records[:1]) for k, m in metrics.items()}
    >>> second = {k: m.summarize(records[1:]) for k, m in metrics.items()}
    >>> merged = {k: m.merge(first[k], second[k]) for k, m in metrics.items()}
    >>> r = report_from_states(merged)
    >>> r.requests, r.failure_reasons, r.output_throughput, r.goodput, r.ttft.max
    (2, {'timeout': 1}, 2.5, 0.5, 0.2)
    """
    result = _report_of_states(states, slo, percentiles)
    _warn_notes(result.notes)
    return result


def _warn_notes(notes: Sequence[str]) -> None:
    """Warn each note of a report once, at the line that called the public function."""
    for note in notes:
        warnings.warn(f"throughput: {note}.", UndefinedMetricWarning, stacklevel=3)


def _report_of_states(
    states: Mapping[str, State],
    slo: str | Sequence[str] | Mapping[str, float | str] | None,
    percentiles: Sequence[float] | None,
) -> ThroughputReport:
    """:func:`report_from_states` without its warnings: the reasons are the report's notes."""
    chosen = (
        DEFAULT_PERCENTILES
        if percentiles is None
        else check_percentiles("report: percentiles", percentiles)
    )
    state = _request_totals(states)
    if slo is None:
        objectives = dict(state.slo) if state.slo else None
    else:
        objectives = parse_slo(slo)
        if slo_items(objectives) != state.slo:
            raise StateMismatchError(
                message(
                    "report_from_states",
                    "state counted against other objectives",
                    dict(state.slo),
                    f"{objectives} as slo gives",
                )
            )
    notes: list[str] = []

    def rate(count: int) -> float:
        value, why = per_second(count, state)
        if why is not None and why not in notes:
            notes.append(why)
        return value

    request_rate = rate(state.successes)
    output_rate = rate(state.output_tokens)
    prompt_rate = rate(state.prompt_tokens)
    total_rate = rate(state.prompt_tokens + state.output_tokens)
    good_rate = rate(state.good) if objectives is not None else None
    if state.requests and state.failed == state.requests:
        notes.append(f"all {state.requests} requests failed")
    summaries: dict[str, LatencySummary] = {}
    for quantity, title in LATENCIES.items():
        values: LatencyValues = states[quantity]  # type: ignore[assignment]
        summaries[quantity] = LatencySummary.of(values.values, chosen)
        if summaries[quantity].count == 0 and state.successes:
            notes.append(f"no successful request has a {title}")
    reasons = sorted(state.reasons, key=lambda item: (-item[1], item[0]))
    return ThroughputReport(
        requests=state.requests,
        successes=state.successes,
        failures=state.failed,
        failure_reasons=dict(reasons),
        wall_time=state.wall_time,
        prompt_tokens=state.prompt_tokens,
        output_tokens=state.output_tokens,
        request_throughput=request_rate,
        output_throughput=output_rate,
        prompt_throughput=prompt_rate,
        total_token_throughput=total_rate,
        slo=objectives,
        good_requests=state.good if objectives is not None else None,
        goodput=good_rate,
        ttft=summaries["ttft"],
        tpot=summaries["tpot"],
        itl=summaries["itl"],
        e2e=summaries["e2e"],
        notes=tuple(notes),
    )


def report(
    records: Any,
    *,
    slo: str | Sequence[str] | Mapping[str, float | str] | None = None,
    percentiles: Sequence[float] | None = None,
) -> ThroughputReport:
    """Compute every serving figure of request records at once.

    The records are summarized into the states of :func:`report_metrics`, and
    :func:`report_from_states` makes the report of them, as it does of states
    merged from chunks, shards or Dask partitions.

    Parameters
    ----------
    records
        Request records: a list of dicts or :class:`Request` objects, a dict
        of columns, a pandas DataFrame, a pyarrow Table or RecordBatch, or the
        table :func:`read_records` returns.
    slo : str, sequence of str or mapping, optional
        Objectives for goodput (``["ttft=200ms", "tpot=50ms"]`` or
        ``{"ttft": 0.2}``; see :func:`parse_slo`). Without them, goodput is
        not reported.
    percentiles : sequence of float, optional
        The percentiles of every latency to report, numbers in [0, 100]
        (``[50, 90, 95, 99]``; by default 50, 90 and 99), each equal to
        :func:`numpy.percentile` of the values (linear interpolation) and to
        the latency metric ``:pN`` (``ttft:p95``).

    Returns
    -------
    ThroughputReport
        Figures undefined for the data (no requests, a wall time of 0, no
        latency values) are nan, with the reason in ``notes``; each reason is
        also emitted once as an :class:`~scorekit.errors.UndefinedMetricWarning`.

    Examples
    --------
    >>> records = [
    ...     {"prompt_tokens": 100, "output_tokens": 5, "start": 0.0, "first_token": 0.2,
    ...      "end": 1.0, "token_times": [0.2, 0.4, 0.6, 0.8, 1.0]},
    ...     {"prompt_tokens": 60, "output_tokens": 3, "start": 0.5, "first_token": 1.0,
    ...      "end": 2.0, "token_times": [1.0, 1.5, 2.0]},
    ...     {"prompt_tokens": 40, "output_tokens": 0, "start": 1.0, "end": 1.5,
    ...      "success": False, "error": "HTTP 503"},
    ... ]
    >>> r = report(records, slo=["ttft=300ms"])
    >>> r.requests, r.failures, r.failure_reasons, r.wall_time
    (3, 1, {'HTTP 503': 1}, 2.0)
    >>> r.output_throughput, r.prompt_throughput, r.goodput   # 8 / 2, 160 / 2, 1 / 2
    (4.0, 80.0, 0.5)
    >>> r.ttft.mean, r.tpot.max, r.itl.count                    # TPOT 0.2 and 0.5
    (0.35, 0.5, 6)
    >>> report(records, percentiles=[50, 95]).e2e.percentiles   # e2e 1.0 and 1.5
    {'p50': 1.25, 'p95': 1.475}
    """
    chosen = None if percentiles is None else check_percentiles("report: percentiles", percentiles)
    objectives = parse_slo(slo) if slo is not None else None
    recs, rows, _ = input_records("throughput", records)
    metrics = report_metrics(objectives)
    states = {key: metric.summarize(recs) for key, metric in metrics.items()}
    result = _report_of_states(states, objectives, chosen)
    counts = _token_counts(records, rows, recs.success)
    if counts is not None:
        result = replace(result, token_counts=counts)
    _warn_notes(result.notes)
    return result


TOKEN_COUNTERS: tuple[str, ...] = ("usage", "tokenizer", "estimate")
"""How a record of ``scorekit loadtest`` says its token counts were found (``token_counter``)."""


def _raw_column(records: Any, name: str) -> NDArray[np.object_] | None:
    """The values of the column ``name`` of the input rows, as given; None without one."""
    import pyarrow as pa

    if isinstance(records, pa.RecordBatch | pa.Table):
        if name not in records.column_names:
            return None
        values = records.column(name).to_numpy(zero_copy_only=False)
    elif type(records).__module__.startswith("pandas") and hasattr(records, "columns"):
        if name not in records.columns:
            return None
        values = records[name].to_numpy(dtype=object)
    elif isinstance(records, Mapping):
        column = records.get(name)
        if column is None or isinstance(column, str | bytes) or not hasattr(column, "__len__"):
            return None
        values = list(column)
    elif isinstance(records, Sequence) and not isinstance(records, str | bytes):
        values = [r.get(name) if isinstance(r, Mapping) else None for r in records]
    else:
        return None
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


def _token_counts(
    records: Any, rows: NDArray[np.intp], success: NDArray[np.bool_]
) -> dict[str, int] | None:
    """The successful requests by how their token counts were found, or None when no
    record says (see :attr:`ThroughputReport.token_counts`)."""
    if isinstance(records, Records):
        return None
    counter = _raw_column(records, "token_counter")
    picked = rows[success]
    if counter is not None and counter.size and counter.astype(bool).all():
        estimated = None  # every record says how it was counted
    else:
        estimated = _raw_column(records, "tokens_estimated")
        if counter is None and estimated is None:
            return None
    how = np.full(picked.size, None, dtype=object) if counter is None else counter[picked]
    counts: dict[str, int] = {}
    unknown = np.ones(picked.size, dtype=bool)
    for key in TOKEN_COUNTERS:
        found = how == key
        unknown &= ~found
        counts[key] = int(np.count_nonzero(found))
    if unknown.any() and estimated is not None:
        flags = estimated[picked[unknown]]
        guessed = sum(1 for flag in flags if isinstance(flag, bool | np.bool_) and flag)
        counts["estimate"] += guessed
        counts["unknown"] = int(np.count_nonzero(unknown)) - guessed
    else:
        counts["unknown"] = int(np.count_nonzero(unknown))
    counts = {key: count for key, count in counts.items() if count}
    if not counts or set(counts) == {"unknown"}:
        return None
    return counts


# formatting ---------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _fixed(value: float, digits: int = 2) -> str:
    return "nan" if not math.isfinite(value) else f"{value:.{digits}f}"


def _estimated(r: ThroughputReport) -> str:
    """`` (estimated for N of M requests)`` when the records say how tokens were counted."""
    if r.token_counts is None:
        return ""
    return f" (estimated for {r.estimated_requests} of {sum(r.token_counts.values())} requests)"


def counted_by(token_counts: Mapping[str, int], tokenizer: str | None = None) -> str:
    """What counted the tokens of how many requests, as the report says it.

    Examples
    --------
    >>> counted_by({"usage": 7, "estimate": 3})
    "the server's usage for 7; an estimate (prompt characters / 4, output text chunks) for 3"
    >>> counted_by({"tokenizer": 2}, "cl100k_base")
    'the tokenizer cl100k_base for 2'
    """
    names = {
        "usage": "the server's usage",
        "tokenizer": f"the tokenizer {tokenizer}" if tokenizer else "the tokenizer (--tokenizer)",
        "estimate": "an estimate (prompt characters / 4, output text chunks)",
        "unknown": "not recorded",
    }
    return "; ".join(f"{names.get(key, key)} for {count}" for key, count in token_counts.items())


def _counted_by(r: ThroughputReport) -> list[tuple[str, str]]:
    """The row that says what counted the tokens: the server's usage, the tokenizer, an
    estimate."""
    if r.token_counts is None:
        return []
    return [("  counted by", counted_by(r.token_counts, r.tokenizer))]


def _table(r: ThroughputReport) -> str:
    rows: list[tuple[str, str]] = [
        ("requests", f"{r.requests} ({r.successes} succeeded, {r.failures} failed)"),
    ]
    for reason, count in r.failure_reasons.items():
        rows.append(("  failed", f"{count} x {printable(reason)}"))
    rows += [
        ("wall time (s)", _fixed(r.wall_time, 3)),
        ("prompt tokens", f"{r.prompt_tokens}{_estimated(r)}"),
        ("output tokens", f"{r.output_tokens}{_estimated(r)}"),
        *_counted_by(r),
        ("request throughput (req/s)", _fixed(r.request_throughput)),
        ("output throughput (tok/s)", _fixed(r.output_throughput)),
        ("prompt throughput (tok/s)", _fixed(r.prompt_throughput)),
        ("total token throughput (tok/s)", _fixed(r.total_token_throughput)),
    ]
    if r.slo is not None and r.goodput is not None:
        rows.append(("goodput (req/s)", _fixed(r.goodput)))
        rows.append(("  within SLO", f"{r.good_requests} of {r.successes} ({format_slo(r.slo)})"))
    width = max(len(name) for name, _ in rows)
    lines = [f"{name:<{width}}  {value}" for name, value in rows]
    chosen = list(r.ttft.percentiles)
    header = ["latency (ms)", "count", "mean", "std", "min", *chosen, "max"]
    table = [header]
    for quantity in LATENCIES:
        s: LatencySummary = getattr(r, quantity)
        stats = (s.mean, s.std, s.min, *(s.percentiles[name] for name in chosen), s.max)
        table.append([quantity, str(s.count), *(_fixed(v * 1e3) for v in stats)])
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines.append("")
    for row in table:
        cells = [row[0].ljust(widths[0])]
        cells += [c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)]
        lines.append("  ".join(cells))
    return "\n".join(lines) + "\n"


def format_report(report: ThroughputReport, fmt: str = "table") -> str:
    """Render a :class:`ThroughputReport` as an aligned text table or as JSON.

    The table shows latencies in milliseconds (count, mean, standard
    deviation, min, the report's percentiles and max) and throughputs per
    second; JSON keeps seconds (``"units"`` says so), adds each chosen
    percentile under its ``pN`` key and writes undefined values as null.

    Parameters
    ----------
    report : ThroughputReport
    fmt : {"table", "json"}, default "table"

    Examples
    --------
    >>> r = report([
    ...     {"prompt_tokens": 100, "output_tokens": 5, "start": 0.0, "first_token": 0.2,
    ...      "end": 1.0, "token_times": [0.2, 0.4, 0.6, 0.8, 1.0]}])
    >>> print(format_report(r))
    requests                        1 (1 succeeded, 0 failed)
    wall time (s)                   1.000
    prompt tokens                   100
    output tokens                   5
    request throughput (req/s)      1.00
    output throughput (tok/s)       5.00
    prompt throughput (tok/s)       100.00
    total token throughput (tok/s)  105.00
    <BLANKLINE>
    latency (ms)  count     mean   std      min      p50      p90      p99      max
    ttft              1   200.00  0.00   200.00   200.00   200.00   200.00   200.00
    tpot              1   200.00  0.00   200.00   200.00   200.00   200.00   200.00
    itl               4   200.00  0.00   200.00   200.00   200.00   200.00   200.00
    e2e               1  1000.00  0.00  1000.00  1000.00  1000.00  1000.00  1000.00
    <BLANKLINE>
    >>> import json
    >>> json.loads(format_report(r, "json"))["output_throughput"]
    5.0
    """
    if fmt not in FORMATS:
        raise ConfigError(message("format_report", "unknown format", fmt, choices(FORMATS)))
    if fmt == "json":
        return json.dumps(_plain(report.to_dict()), indent=2) + "\n"
    return _table(report)
