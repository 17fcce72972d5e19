"""Latency metrics: TTFT, TPOT, ITL and end-to-end latency, keeping every value for exact merges."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, TypeVar

from scorekit.core import Check, Explanation, register, sentences
from scorekit.errors import StateMismatchError, message
from scorekit.throughput._explanations import KEPT, VLLM
from scorekit.throughput._records import Records
from scorekit.throughput._state import (
    LATENCIES,
    PERCENTILE_FORM,
    PERCENTILE_PATTERN,
    STATISTICS,
    LatencyValues,
    Statistic,
    latencies,
    percentile_of,
    statistic_of,
    undefined,
)
from scorekit.throughput._units import RequestMetric

__all__ = ["ITL", "TPOT", "TTFT", "E2ELatency", "e2e_latency", "itl", "tpot", "ttft"]


def _statistic_option(metric: Any, statistic: Any) -> Any:
    """A statistic option: one of the statistics or a percentile ``pN``, as given."""
    percentile_of(metric.name, statistic)
    return statistic


class _Latency(RequestMetric[LatencyValues]):
    """Shared machinery of the latency metrics: kept values and one statistic."""

    quantity: ClassVar[str]
    statistic: Annotated[str, Check(_statistic_option)]

    def from_records(self, records: Records) -> LatencyValues:
        """Keep the latency of every successful request (every chunk gap for ITL)."""
        return LatencyValues(quantity=self.quantity, values=latencies(records, self.quantity))

    def empty(self) -> LatencyValues:
        """The state of no requests."""
        return LatencyValues(quantity=self.quantity)

    def compute(self, state: LatencyValues) -> float:
        """The chosen statistic of the kept values, in seconds; nan (with a warning) if none."""
        if state.quantity != self.quantity:
            raise StateMismatchError(
                message(self.name, "state of another latency", state.quantity, self.quantity)
            )
        if state.values.size == 0:
            undefined(self.name, f"no successful request has {_article(LATENCIES[self.quantity])}")
            return math.nan
        q = percentile_of(self.name, self.statistic)
        return statistic_of(state.values, self.statistic, q)


L = TypeVar("L", bound=type[_Latency])


def _register_latency(name: str, alias: str) -> Callable[[L], L]:
    """Register a latency metric: lower is better, seconds, a ``statistic`` variant."""
    return register(
        name,
        higher_is_better=False,
        bounds=(0.0, math.inf),
        inputs="requests",
        aliases=(alias,),
        variant="statistic",
        variants=STATISTICS,
        variant_pattern=PERCENTILE_PATTERN,
        variant_form=PERCENTILE_FORM,
        grows=True,
    )


@_register_latency("ttft", "time_to_first_token")
@dataclass(frozen=True)
class TTFT(_Latency):
    """Time to first token (TTFT), seconds: the first token's arrival minus the request's start.

    .. math:: \\mathrm{TTFT}_i = \\mathrm{first\\_token}_i - \\mathrm{start}_i

    Parameters
    ----------
    statistic : {"mean", "median", "p90", "p99", "min", "max", "std"} or "pN", default "mean"
        What to report of the per-request values (``ttft:p99``, ``ttft:p99.9``, ``ttft:std``).

    Notes
    -----
    Over successful requests with a first-token time; a missing
    ``first_token`` falls back to the first entry of ``token_times``.
    ``pN`` is any percentile N in [0, 100] (``ttft:p99.9``), interpolated
    linearly as :func:`numpy.percentile` does by default (as vLLM's
    benchmark); ``std`` is the population standard deviation (``ddof=0``).
    The state keeps every value (8 bytes per request), so merged percentiles
    are exact. No value (empty input, all failed, no first-token times): nan
    with an :class:`~scorekit.errors.UndefinedMetricWarning`.

    References
    ----------
    vLLM, ``benchmarks/benchmark_serving.py`` (TTFT).

    Examples
    --------
    >>> records = [
    ...     {"prompt_tokens": 10, "output_tokens": 5, "start": 0.0, "first_token": 0.1,
    ...      "end": 0.5},
    ...     {"prompt_tokens": 10, "output_tokens": 5, "start": 0.5, "first_token": 0.9,
    ...      "end": 2.0},
    ... ]
    >>> TTFT().score(records)   # (0.1 + 0.4) / 2
    0.25
    >>> TTFT(statistic="max").score(records)
    0.4
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Time to first token: how long a request waited for its first output token.",
        formula="TTFT_i = first_token_i - start_i",
        convention=sentences(
            "A missing first_token falls back to the first entry of token_times; requests with "
            "neither are left out.",
            KEPT,
        ),
        reference=f"{VLLM}.",
    )

    quantity: ClassVar[str] = "ttft"
    statistic: Statistic | str = "mean"


@_register_latency("tpot", "time_per_output_token")
@dataclass(frozen=True)
class TPOT(_Latency):
    """Time per output token (TPOT), seconds, excluding the first token.

    .. math:: \\mathrm{TPOT}_i = \\frac{\\mathrm{end}_i - \\mathrm{first\\_token}_i}
              {\\mathrm{output\\_tokens}_i - 1}

    Parameters
    ----------
    statistic : {"mean", "median", "p90", "p99", "min", "max", "std"} or "pN", default "mean"
        What to report of the per-request values (``tpot:median``, ``tpot:p95``).

    Notes
    -----
    Over successful requests with at least two output tokens and a
    first-token time; the first token is left out because its time is TTFT.
    This is vLLM's TPOT; tools that divide the whole latency by all output
    tokens report more. The mean is over requests (each request weighs the
    same), not over tokens. The state keeps one value per request (8 bytes).
    No value: nan with an :class:`~scorekit.errors.UndefinedMetricWarning`.

    References
    ----------
    vLLM, ``benchmarks/benchmark_serving.py`` (TPOT, excl. 1st token).

    Examples
    --------
    >>> records = [
    ...     {"prompt_tokens": 10, "output_tokens": 5, "start": 0.0, "first_token": 0.1,
    ...      "end": 0.5},
    ...     {"prompt_tokens": 10, "output_tokens": 1, "start": 0.5, "first_token": 0.9,
    ...      "end": 0.9},
    ... ]
    >>> TPOT().score(records)   # (0.5 - 0.1) / (5 - 1); one token: no TPOT
    0.1
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Time per output token, excluding the first: the mean decoding time per token "
        "of a request once its first token arrived.",
        formula="TPOT_i = (end_i - first_token_i) / (output_tokens_i - 1),  output_tokens_i >= 2",
        convention=sentences(
            "Requests with fewer than two output tokens or without a first-token time are left "
            "out; one value per request (each request weighs the same). Tools that divide end - "
            "start by all output tokens report larger values.",
            KEPT,
        ),
        reference=f"{VLLM}.",
    )

    quantity: ClassVar[str] = "tpot"
    statistic: Statistic | str = "mean"


@_register_latency("itl", "inter_token_latency")
@dataclass(frozen=True)
class ITL(_Latency):
    """Inter-token latency (ITL), seconds: the gaps between consecutive streamed chunks.

    .. math:: \\mathrm{ITL} = \\{\\, t_{i,j+1} - t_{i,j} \\,\\}_{i \\,\\mathrm{succeeded},\\, j}

    Parameters
    ----------
    statistic : {"mean", "median", "p90", "p99", "min", "max", "std"} or "pN", default "mean"
        What to report of all the gaps (``itl:p99``, ``itl:min``).

    Notes
    -----
    Needs ``token_times``: every gap of every successful request is one
    value, so the mean weighs long outputs more than TPOT does, and a chunk
    carrying several tokens gives one (longer) gap, as in vLLM's benchmark.
    The state keeps every gap (8 bytes per gap). No gap (no ``token_times``,
    one chunk per request): nan with an
    :class:`~scorekit.errors.UndefinedMetricWarning`.

    References
    ----------
    vLLM, ``benchmarks/benchmark_serving.py`` (ITL).

    Examples
    --------
    >>> records = [{"prompt_tokens": 10, "output_tokens": 4, "start": 0.0, "end": 0.7,
    ...             "token_times": [0.2, 0.3, 0.5, 0.7]}]
    >>> ITL(statistic="median").score(records)   # gaps 0.1, 0.2, 0.2
    0.2
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Inter-token latency: the gaps between consecutive streamed chunks of a "
        "request.",
        formula="ITL = { t_(i,j+1) - t_(i,j) : request i succeeded, consecutive token_times j }",
        convention=sentences(
            "Needs token_times; every gap is one value, so long outputs weigh more than in TPOT, "
            "and a chunk carrying several tokens gives one longer gap.",
            KEPT,
        ),
        reference=f"{VLLM}.",
    )

    quantity: ClassVar[str] = "itl"
    statistic: Statistic | str = "mean"


@_register_latency("e2e_latency", "e2el")
@dataclass(frozen=True)
class E2ELatency(_Latency):
    """End-to-end latency, seconds: the request's end minus its start.

    .. math:: \\mathrm{E2E}_i = \\mathrm{end}_i - \\mathrm{start}_i

    Parameters
    ----------
    statistic : {"mean", "median", "p90", "p99", "min", "max", "std"} or "pN", default "mean"
        What to report of the per-request values (``e2e_latency:p99``, ``e2e_latency:p99.9``).

    Notes
    -----
    Over successful requests (failed ones are counted by
    :class:`FailedRequests`). The state keeps one value per request (8
    bytes). No value: nan with an :class:`~scorekit.errors.UndefinedMetricWarning`.

    References
    ----------
    vLLM, ``benchmarks/benchmark_serving.py`` (E2EL).

    Examples
    --------
    >>> records = [
    ...     {"prompt_tokens": 10, "output_tokens": 5, "start": 0.0, "end": 0.5},
    ...     {"prompt_tokens": 10, "output_tokens": 5, "start": 0.5, "end": 2.0},
    ... ]
    >>> E2ELatency(statistic="p90").score(records)   # 0.5 + 0.9 * (1.5 - 0.5)
    1.4
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="End-to-end latency: from sending a request to receiving its last byte.",
        formula="E2E_i = end_i - start_i",
        convention=sentences(
            "Failed requests are left out (failed_requests counts them).",
            KEPT,
        ),
        reference=f"{VLLM}.",
    )

    quantity: ClassVar[str] = "e2e"
    statistic: Statistic | str = "mean"


# functions -----------------------------------------------------------------------------


def ttft(records: Any, *, statistic: Statistic | str = "mean") -> float:
    """Time to first token in seconds; see :class:`TTFT`.

    Examples
    --------
    >>> ttft([{"prompt_tokens": 3, "output_tokens": 8, "start": 1, "first_token": 1.25,
    ...        "end": 2}])
    0.25
    """
    metric = TTFT(statistic=statistic)
    return metric.compute(metric.summarize(records))


def tpot(records: Any, *, statistic: Statistic | str = "mean") -> float:
    """Time per output token (excluding the first) in seconds; see :class:`TPOT`.

    Examples
    --------
    >>> tpot([{"prompt_tokens": 3, "output_tokens": 5, "start": 1, "first_token": 1.2,
    ...        "end": 2}])
    0.2
    """
    metric = TPOT(statistic=statistic)
    return metric.compute(metric.summarize(records))


def itl(records: Any, *, statistic: Statistic | str = "mean") -> float:
    """Inter-token latency (gaps between streamed chunks) in seconds; see :class:`ITL`.

    Examples
    --------
    >>> itl([{"prompt_tokens": 3, "output_tokens": 3, "start": 0, "end": 1,
    ...       "token_times": [0.25, 0.5, 1.0]}], statistic="max")
    0.5
    """
    metric = ITL(statistic=statistic)
    return metric.compute(metric.summarize(records))


def e2e_latency(records: Any, *, statistic: Statistic | str = "mean") -> float:
    """End-to-end latency in seconds; see :class:`E2ELatency`.

    Examples
    --------
    >>> e2e_latency([{"prompt_tokens": 3, "output_tokens": 5, "start": 1, "end": 2.5}])
    1.5
    """
    metric = E2ELatency(statistic=statistic)
    return metric.compute(metric.summarize(records))


def _article(noun: str) -> str:
    """``noun`` with its indefinite article (``an end-to-end latency``)."""
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"
