"""Explanations of the LLM serving throughput and latency metrics for ``scorekit explain``."""

from __future__ import annotations

from scorekit._explain._entry import Explanation

__all__ = ["EXPLANATIONS"]

_VLLM = "vLLM's benchmarks/benchmark_serving.py"
_WALL = (
    "Wall time = latest end - earliest start over every request, failed ones included (the "
    "span the server was under load, as vLLM's benchmark duration). Failed requests add no "
    "tokens. The state holds counts, summed tokens, the earliest start and the latest end: "
    "fixed size, and merging never adds elapsed times, so merged chunks or workers give the "
    "in-memory value. All requests failed: 0. No requests or a wall time of 0: nan with an "
    "UndefinedMetricWarning."
)
_KEPT = (
    "Over successful requests. :mean, :median, :p90, :p99 or :max picks the statistic (mean "
    "by default); percentiles interpolate linearly between closest ranks (numpy's default, as "
    "vLLM). The state keeps every value, 8 bytes each, so percentiles of merged states are "
    "exact. No value: nan with an UndefinedMetricWarning. Seconds; reports show milliseconds."
)


def _rate(what: str, formula: str, extra: str = "") -> Explanation:
    return Explanation(
        definition=what,
        formula=formula,
        convention=(extra + " " + _WALL).strip(),
        reference=_VLLM + ".",
    )


def _latency(what: str, formula: str, extra: str) -> Explanation:
    return Explanation(
        definition=what, formula=formula, convention=f"{extra} {_KEPT}", reference=_VLLM + "."
    )


EXPLANATIONS: dict[str, Explanation] = {
    "output_throughput": _rate(
        "Generation throughput: output tokens of the successful requests per second of wall time.",
        "output_throughput = sum of output_tokens (succeeded) / (max end - min start)",
    ),
    "prompt_throughput": _rate(
        "Prompt (input) throughput: prompt tokens of the successful requests per second of wall "
        "time.",
        "prompt_throughput = sum of prompt_tokens (succeeded) / (max end - min start)",
    ),
    "total_token_throughput": _rate(
        "Prompt plus output tokens of the successful requests per second of wall time.",
        "total_token_throughput = sum of (prompt_tokens + output_tokens) (succeeded) / "
        "(max end - min start)",
    ),
    "request_throughput": _rate(
        "Successful requests per second of wall time.",
        "request_throughput = number of successful requests / (max end - min start)",
        "Failed requests are not counted but still extend the wall time.",
    ),
    "goodput": _rate(
        "Successful requests per second that meet every latency objective (SLO) given, e.g. "
        "goodput:ttft=200ms,tpot=50ms.",
        "goodput = |{succeeded, TTFT <= s_ttft, TPOT <= s_tpot, max ITL <= s_itl, E2E <= s_e2e}|"
        " / (max end - min start)",
        "Objectives ttft, tpot, itl, e2e with units s, ms or us; only those given are checked "
        "(none: goodput = request_throughput). TPOT and ITL of a request with at most one "
        "output token are met (vLLM takes TPOT as 0 there); a latency unknown for lack of times "
        "(no first-token time, fewer than two chunk times) is not met. The ITL objective bounds "
        "a request's largest chunk gap. States counted against other objectives do not merge.",
    ),
    "failed_requests": Explanation(
        definition="The number of requests that failed.",
        formula="failed_requests = |{i : success_i is false}|",
        convention="A request failed when success is false, or when success is not recorded "
        "and error holds a reason. Failed requests add no tokens and no latencies to the other "
        "metrics but extend the wall time; scorekit throughput lists them by reason. The state "
        "is the shared fixed-size count of the throughput metrics.",
        reference=_VLLM + " (successful requests are counted there; failures are the rest).",
    ),
    "ttft": _latency(
        "Time to first token: how long a request waited for its first output token.",
        "TTFT_i = first_token_i - start_i",
        "A missing first_token falls back to the first entry of token_times; requests with "
        "neither are left out.",
    ),
    "tpot": _latency(
        "Time per output token, excluding the first: the mean decoding time per token of a "
        "request once its first token arrived.",
        "TPOT_i = (end_i - first_token_i) / (output_tokens_i - 1),  output_tokens_i >= 2",
        "Requests with fewer than two output tokens or without a first-token time are left "
        "out; one value per request (each request weighs the same). Tools that divide end - "
        "start by all output tokens report larger values.",
    ),
    "itl": _latency(
        "Inter-token latency: the gaps between consecutive streamed chunks of a request.",
        "ITL = { t_(i,j+1) - t_(i,j) : request i succeeded, consecutive token_times j }",
        "Needs token_times; every gap is one value, so long outputs weigh more than in TPOT, "
        "and a chunk carrying several tokens gives one longer gap.",
    ),
    "e2e_latency": _latency(
        "End-to-end latency: from sending a request to receiving its last byte.",
        "E2E_i = end_i - start_i",
        "Failed requests are left out (failed_requests counts them).",
    ),
}
"""Per registered serving metric: definition, formula, convention and reference."""
