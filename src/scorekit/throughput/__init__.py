"""LLM serving throughput and latency from request records.

One record per request (see :class:`Request` and :func:`read_records`):
``prompt_tokens``, ``output_tokens``, ``start``, ``end`` (seconds), and
optionally ``first_token``, ``token_times`` (the arrival of every streamed
chunk), ``success`` and ``error``. The definitions, which differ between tools:

==========================  ============================================================
wall time                   ``max(end) - min(start)`` over every request, failed included
output throughput           output tokens of successful requests / wall time
prompt throughput           prompt tokens of successful requests / wall time
total token throughput      (prompt + output tokens of successful requests) / wall time
request throughput          successful requests / wall time
goodput                     successful requests within every SLO / wall time
TTFT                        ``first_token - start`` per successful request
TPOT                        ``(end - first_token) / (output_tokens - 1)``, output >= 2
ITL                         every gap between consecutive ``token_times``
end-to-end latency          ``end - start`` per successful request
==========================  ============================================================

These are the definitions of vLLM's ``benchmarks/benchmark_serving.py``.
Failed requests are counted (:class:`FailedRequests`, :func:`report` by
reason) and add no tokens and no latencies, but they do extend the wall time.
Latencies are in seconds; their ``mean``, ``median``, ``min``, ``max``, ``std``
(``ddof=0``) and any percentile ``pN`` (``ttft:p99``, ``e2e_latency:p99.9``) use
numpy's linear percentile interpolation, as vLLM does.

States merge across workers: the throughput metrics keep counts, summed tokens,
the earliest start, the latest end (elapsed times are never added) and the
failed requests by reason, and the latency metrics keep every value (8 bytes per
request, or per chunk gap for ITL), so merged percentiles are exact and equal
the in-memory ones. :func:`report` is :func:`report_from_states` of the states
of :func:`report_metrics`, so the report of merged states equals that of all
the records.

Examples
--------
>>> from scorekit import throughput
>>> records = [
...     {"prompt_tokens": 100, "output_tokens": 5, "start": 0.0, "first_token": 0.2,
...      "end": 1.0},
...     {"prompt_tokens": 60, "output_tokens": 3, "start": 0.5, "first_token": 1.0,
...      "end": 2.0},
... ]
>>> throughput.output_throughput(records)    # (5 + 3) tokens / 2 s
4.0
>>> throughput.tpot(records, statistic="max")   # (2.0 - 1.0) / (3 - 1)
0.5
"""

from scorekit.throughput import _inputs  # noqa: F401  (registers the input kind)
from scorekit.throughput._flight import PeakConcurrency, RequestTimes, in_flight, peak_concurrency
from scorekit.throughput._latency import ITL, TPOT, TTFT, E2ELatency, e2e_latency, itl, tpot, ttft
from scorekit.throughput._rates import (
    FailedRequests,
    Goodput,
    OutputThroughput,
    PromptThroughput,
    RequestThroughput,
    TotalTokenThroughput,
    failed_requests,
    goodput,
    output_throughput,
    prompt_throughput,
    request_throughput,
    total_token_throughput,
)
from scorekit.throughput._records import (
    COLUMNS,
    MARKS,
    OPTIONAL,
    REQUIRED,
    Request,
    as_records,
    read_metadata,
    read_records,
)
from scorekit.throughput._report import (
    DEFAULT_PERCENTILES,
    FORMATS,
    REPORT_KEYS,
    LatencySummary,
    ThroughputReport,
    counted_by,
    format_report,
    report,
    report_from_states,
    report_metrics,
)
from scorekit.throughput._slo import SLO_KEYS, SLO_UNITS, parse_slo
from scorekit.throughput._state import LATENCIES, STATISTICS, LatencyValues, RequestTotals

__all__: list[str] = [
    "COLUMNS",
    "DEFAULT_PERCENTILES",
    "FORMATS",
    "ITL",
    "LATENCIES",
    "MARKS",
    "OPTIONAL",
    "REPORT_KEYS",
    "REQUIRED",
    "SLO_KEYS",
    "SLO_UNITS",
    "STATISTICS",
    "TPOT",
    "TTFT",
    "E2ELatency",
    "FailedRequests",
    "Goodput",
    "LatencySummary",
    "LatencyValues",
    "OutputThroughput",
    "PeakConcurrency",
    "PromptThroughput",
    "Request",
    "RequestThroughput",
    "RequestTimes",
    "RequestTotals",
    "ThroughputReport",
    "TotalTokenThroughput",
    "as_records",
    "counted_by",
    "e2e_latency",
    "failed_requests",
    "format_report",
    "goodput",
    "in_flight",
    "itl",
    "output_throughput",
    "parse_slo",
    "peak_concurrency",
    "prompt_throughput",
    "read_metadata",
    "read_records",
    "report",
    "report_from_states",
    "report_metrics",
    "request_throughput",
    "total_token_throughput",
    "tpot",
    "ttft",
]
