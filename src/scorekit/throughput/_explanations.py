"""Text shared by the explanations of the serving metrics (``scorekit explain``)."""

from __future__ import annotations

__all__ = ["KEPT", "VLLM", "WALL"]

VLLM = "vLLM's benchmarks/benchmark_serving.py"
"""The reference implementation of the serving metrics."""

WALL = (
    "Wall time = latest end - earliest start over every request, failed ones included (the "
    "span the server was under load, as vLLM's benchmark duration). Failed requests add no "
    "tokens. The state holds counts, summed tokens, the earliest start and the latest end: "
    "fixed size, and merging never adds elapsed times, so merged chunks or workers give the "
    "in-memory value. All requests failed: 0. No requests or a wall time of 0: nan with an "
    "UndefinedMetricWarning."
)
"""How the rates measure wall time, and what their state keeps."""

KEPT = (
    "Over successful requests. :mean, :median, :min, :max, :std (population, ddof=0) or :pN, "
    "any percentile N in [0, 100] (:p95, :p99.9), picks the statistic (mean by default); "
    "percentiles interpolate linearly between closest ranks (numpy.percentile's default, as "
    "vLLM). The state keeps every value, 8 bytes each, so percentiles of merged states are "
    "exact. No value: nan with an UndefinedMetricWarning. Seconds; reports show milliseconds."
)
"""Which requests the latencies cover, their statistics, and what their state keeps."""
