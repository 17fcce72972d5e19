"""Throughput metrics: tokens and requests per second of wall time, over fixed-size states."""

from __future__ import annotations

import abc
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from scorekit.core import Explanation, register, sentences
from scorekit.errors import ConfigError, StateMismatchError, message
from scorekit.throughput._explanations import VLLM, WALL
from scorekit.throughput._records import Records
from scorekit.throughput._slo import SLO_KEYS, parse_slo
from scorekit.throughput._state import RequestTotals, per_second, slo_items, totals, undefined
from scorekit.throughput._units import RequestMetric

__all__ = [
    "FailedRequests",
    "Goodput",
    "OutputThroughput",
    "PromptThroughput",
    "RequestThroughput",
    "TotalTokenThroughput",
    "failed_requests",
    "goodput",
    "output_throughput",
    "prompt_throughput",
    "request_throughput",
    "total_token_throughput",
]


class _Throughput(RequestMetric[RequestTotals]):
    """Shared machinery of the metrics over :class:`RequestTotals`."""

    def _objectives(self) -> dict[str, float]:
        return {}

    def from_records(self, records: Records) -> RequestTotals:
        """Count the requests and sum the tokens of checked records."""
        return totals(records, self._objectives())

    def empty(self) -> RequestTotals:
        """The state of no requests."""
        return RequestTotals(slo=slo_items(self._objectives()))

    @abc.abstractmethod
    def _count(self, state: RequestTotals) -> int:
        """The count this metric divides by the wall time."""

    def compute(self, state: RequestTotals) -> float:
        """The count of :meth:`_count` per second of wall time; nan when undefined."""
        value, why = per_second(self._count(state), state)
        if why is not None:
            undefined(self.name, why)
        return value


@register(
    "output_throughput",
    higher_is_better=True,
    bounds=(0.0, math.inf),
    inputs="requests",
    aliases=("generation_throughput",),
)
@dataclass(frozen=True)
class OutputThroughput(_Throughput):
    """Output (generation) throughput: output tokens of successful requests per second.

    .. math:: \\frac{\\sum_{i \\,\\mathrm{succeeded}} \\mathrm{output\\_tokens}_i}
              {\\max_i \\mathrm{end}_i - \\min_i \\mathrm{start}_i}

    Notes
    -----
    Failed requests add no tokens. The wall time is ``max(end) - min(start)``
    over every request, failed ones included: the span the server was under
    load, as vLLM's benchmark duration covers every request it sent (a run
    whose last request timed out took that long). Merged states keep the
    earliest start and the latest end, never a sum of elapsed times, and the
    state has a fixed size. All requests failed: 0.0. No requests, or a wall
    time of 0: nan with an :class:`~scorekit.errors.UndefinedMetricWarning`.

    References
    ----------
    vLLM, ``benchmarks/benchmark_serving.py`` ("Output token throughput").

    Examples
    --------
    >>> records = [
    ...     {"prompt_tokens": 100, "output_tokens": 20, "start": 0.0, "end": 2.0},
    ...     {"prompt_tokens": 50, "output_tokens": 30, "start": 1.0, "end": 4.0},
    ... ]
    >>> OutputThroughput().score(records)   # (20 + 30) / (4 - 0)
    12.5
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Generation throughput: output tokens of the successful requests per second of "
        "wall time.",
        formula="output_throughput = sum of output_tokens (succeeded) / (max end - min start)",
        convention=WALL,
        reference=f"{VLLM}.",
    )

    def _count(self, state: RequestTotals) -> int:
        return state.output_tokens


@register(
    "prompt_throughput",
    higher_is_better=True,
    bounds=(0.0, math.inf),
    inputs="requests",
    aliases=("input_throughput",),
)
@dataclass(frozen=True)
class PromptThroughput(_Throughput):
    """Prompt throughput: prompt tokens of successful requests per second of wall time.

    .. math:: \\frac{\\sum_{i \\,\\mathrm{succeeded}} \\mathrm{prompt\\_tokens}_i}
              {\\max_i \\mathrm{end}_i - \\min_i \\mathrm{start}_i}

    Notes
    -----
    Wall time, failed requests and undefined values as for
    :class:`OutputThroughput`.

    Examples
    --------
    >>> records = [
    ...     {"prompt_tokens": 100, "output_tokens": 20, "start": 0.0, "end": 2.0},
    ...     {"prompt_tokens": 50, "output_tokens": 30, "start": 1.0, "end": 4.0},
    ... ]
    >>> PromptThroughput().score(records)   # (100 + 50) / 4
    37.5
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Prompt (input) throughput: prompt tokens of the successful requests per second "
        "of wall time.",
        formula="prompt_throughput = sum of prompt_tokens (succeeded) / (max end - min start)",
        convention=WALL,
        reference=f"{VLLM}.",
    )

    def _count(self, state: RequestTotals) -> int:
        return state.prompt_tokens


@register(
    "total_token_throughput",
    higher_is_better=True,
    bounds=(0.0, math.inf),
    inputs="requests",
)
@dataclass(frozen=True)
class TotalTokenThroughput(_Throughput):
    """Total token throughput: prompt plus output tokens of successful requests per second.

    .. math:: \\frac{\\sum_{i \\,\\mathrm{succeeded}} (\\mathrm{prompt\\_tokens}_i
              + \\mathrm{output\\_tokens}_i)}{\\max_i \\mathrm{end}_i - \\min_i \\mathrm{start}_i}

    Notes
    -----
    Wall time, failed requests and undefined values as for
    :class:`OutputThroughput`.

    References
    ----------
    vLLM, ``benchmarks/benchmark_serving.py`` ("Total Token throughput").

    Examples
    --------
    >>> records = [
    ...     {"prompt_tokens": 100, "output_tokens": 20, "start": 0.0, "end": 2.0},
    ...     {"prompt_tokens": 50, "output_tokens": 30, "start": 1.0, "end": 4.0},
    ... ]
    >>> TotalTokenThroughput().score(records)   # 200 / 4
    50.0
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Prompt plus output tokens of the successful requests per second of wall time.",
        formula="total_token_throughput = sum of (prompt_tokens + output_tokens) (succeeded) / "
        "(max end - min start)",
        convention=WALL,
        reference=f"{VLLM}.",
    )

    def _count(self, state: RequestTotals) -> int:
        return state.prompt_tokens + state.output_tokens


@register(
    "request_throughput",
    higher_is_better=True,
    bounds=(0.0, math.inf),
    inputs="requests",
)
@dataclass(frozen=True)
class RequestThroughput(_Throughput):
    """Request throughput: successful requests per second of wall time.

    .. math:: \\frac{|\\{i : \\mathrm{succeeded}\\}|}
              {\\max_i \\mathrm{end}_i - \\min_i \\mathrm{start}_i}

    Notes
    -----
    Only successful requests count, as vLLM's "Request throughput" counts
    completed ones; failed requests still extend the wall time. Undefined
    values as for :class:`OutputThroughput`.

    Examples
    --------
    >>> records = [
    ...     {"prompt_tokens": 100, "output_tokens": 20, "start": 0.0, "end": 2.0},
    ...     {"prompt_tokens": 50, "output_tokens": 30, "start": 1.0, "end": 4.0},
    ...     {"prompt_tokens": 9, "output_tokens": 0, "start": 1.0, "end": 3.0,
    ...      "success": False, "error": "timeout"},
    ... ]
    >>> RequestThroughput().score(records)   # 2 / 4
    0.5
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Successful requests per second of wall time.",
        formula="request_throughput = number of successful requests / (max end - min start)",
        convention=sentences(
            "Failed requests are not counted but still extend the wall time.",
            WALL,
        ),
        reference=f"{VLLM}.",
    )

    def _count(self, state: RequestTotals) -> int:
        return state.successes


@register(
    "goodput",
    higher_is_better=True,
    bounds=(0.0, math.inf),
    inputs="requests",
    variant="slo",
)
@dataclass(frozen=True)
class Goodput(_Throughput):
    """Goodput: successful requests per second that meet every given latency objective (SLO).

    .. math:: \\frac{|\\{i : \\mathrm{succeeded},\\ \\mathrm{TTFT}_i \\le s_{ttft},\\
              \\mathrm{TPOT}_i \\le s_{tpot},\\ \\max \\mathrm{ITL}_i \\le s_{itl},\\
              \\mathrm{E2E}_i \\le s_{e2e}\\}|}{\\max_i \\mathrm{end}_i - \\min_i \\mathrm{start}_i}

    Parameters
    ----------
    ttft, tpot, itl, e2e : float or str, optional
        Objectives in seconds, or as text with a unit (``"200ms"``, ``"2s"``,
        ``"500us"``). Only the objectives given are checked; with none,
        goodput equals :class:`RequestThroughput`.
    slo : str, optional
        The same objectives as one text, ``"ttft=200ms,tpot=50ms"``; this is
        what ``goodput:ttft=200ms,tpot=50ms`` sets. See :func:`parse_slo`.

    Notes
    -----
    A request meets an objective when its latency is at most the objective.
    TPOT and ITL of a request with at most one output token are met (vLLM's
    benchmark takes its TPOT as 0); a latency unknown for lack of times (no
    first-token time for TTFT or TPOT, fewer than two chunk times for ITL) is
    not met. The ITL objective bounds a request's largest gap between chunks
    (no stall longer than it). Wall time and undefined values as for
    :class:`OutputThroughput`; the state records the objectives, and states
    counted against different objectives do not merge.

    References
    ----------
    Zhong et al., "DistServe", OSDI 2024 (goodput under SLOs); vLLM,
    ``benchmarks/benchmark_serving.py`` (``--goodput ttft:200 tpot:50``).

    Examples
    --------
    >>> records = [
    ...     {"prompt_tokens": 10, "output_tokens": 5, "start": 0.0, "first_token": 0.1,
    ...      "end": 0.5},
    ...     {"prompt_tokens": 10, "output_tokens": 5, "start": 0.5, "first_token": 0.9,
    ...      "end": 2.0},
    ... ]
    >>> Goodput(ttft="200ms").score(records)   # only the first meets it: 1 / 2 s
    0.5
    >>> Goodput(slo="ttft=500ms,tpot=200ms").score(records)   # TPOTs 0.1 and 0.275 s
    0.5
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Successful requests per second that meet every latency objective (SLO) given, "
        "e.g. goodput:ttft=200ms,tpot=50ms.",
        formula="goodput = |{succeeded, TTFT <= s_ttft, TPOT <= s_tpot, max ITL <= s_itl, E2E <= "
        "s_e2e}| / (max end - min start)",
        convention=sentences(
            "Objectives ttft, tpot, itl, e2e with units s, ms or us; only those given are checked "
            "(none: goodput = request_throughput). TPOT and ITL of a request with at most one "
            "output token are met (vLLM takes TPOT as 0 there); a latency unknown for lack of "
            "times (no first-token time, fewer than two chunk times) is not met. The ITL objective "
            "bounds a request's largest chunk gap. States counted against other objectives do not "
            "merge.",
            WALL,
        ),
        reference=f"{VLLM}.",
    )

    ttft: float | str | None = None
    tpot: float | str | None = None
    itl: float | str | None = None
    e2e: float | str | None = None
    slo: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        given = {k: getattr(self, k) for k in SLO_KEYS if getattr(self, k) is not None}
        objectives = parse_slo(given, name=self.name)
        if self.slo is not None:
            if not isinstance(self.slo, str):
                raise ConfigError(
                    message(self.name, "slo must be text", self.slo, "e.g. 'ttft=200ms,tpot=50ms'")
                )
            for key, seconds in parse_slo(self.slo, name=self.name).items():
                if key in objectives:
                    raise ConfigError(
                        message(self.name, f"{key} is given twice", self.slo, "each SLO once")
                    )
                objectives[key] = seconds
        ordered = {k: objectives[k] for k in SLO_KEYS if k in objectives}
        object.__setattr__(self, "_slo_seconds", ordered)

    @property
    def objectives(self) -> dict[str, float]:
        """The objectives in seconds, by latency."""
        return dict(self.__dict__["_slo_seconds"])

    def _objectives(self) -> dict[str, float]:
        return self.objectives

    def _count(self, state: RequestTotals) -> int:
        if state.slo != slo_items(self.objectives):
            raise StateMismatchError(
                message(
                    self.name,
                    "state counted against other objectives",
                    dict(state.slo),
                    f"{self.objectives} as this metric has",
                )
            )
        return state.good


@register(
    "failed_requests",
    higher_is_better=False,
    bounds=(0.0, math.inf),
    inputs="requests",
)
@dataclass(frozen=True)
class FailedRequests(_Throughput):
    """Failed requests: the number of requests that failed (left out of every token count).

    Notes
    -----
    A request failed when its ``success`` is false, or when ``success`` is
    not recorded and ``error`` holds a reason. Failed requests extend the wall
    time of the throughput metrics but add no tokens and no latencies;
    :func:`report` lists them by reason. Empty input: 0.

    Examples
    --------
    >>> FailedRequests().score([
    ...     {"prompt_tokens": 10, "output_tokens": 5, "start": 0.0, "end": 0.5},
    ...     {"prompt_tokens": 10, "output_tokens": 0, "start": 0.0, "end": 30.0,
    ...      "error": "timeout"},
    ... ])
    1
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The number of requests that failed.",
        formula="failed_requests = |{i : success_i is false}|",
        convention="A request failed when success is false, or when success is not recorded "
        "and error holds a reason. Failed requests add no tokens and no latencies to the other "
        "metrics but extend the wall time; scorekit throughput lists them by reason. The state "
        "is the shared fixed-size count of the throughput metrics.",
        reference=VLLM + " (successful requests are counted there; failures are the rest).",
    )

    def _count(self, state: RequestTotals) -> int:
        return state.failed

    def compute(self, state: RequestTotals) -> int:
        """The number of failed requests."""
        return state.failed


# functions -----------------------------------------------------------------------------


def output_throughput(records: Any) -> float:
    """Output tokens of successful requests per second of wall time; see :class:`OutputThroughput`.

    Examples
    --------
    >>> output_throughput([{"prompt_tokens": 3, "output_tokens": 8, "start": 0, "end": 2}])
    4.0
    """
    metric = OutputThroughput()
    return metric.compute(metric.summarize(records))


def prompt_throughput(records: Any) -> float:
    """Prompt tokens of successful requests per second; see :class:`PromptThroughput`.

    Examples
    --------
    >>> prompt_throughput([{"prompt_tokens": 3, "output_tokens": 8, "start": 0, "end": 2}])
    1.5
    """
    metric = PromptThroughput()
    return metric.compute(metric.summarize(records))


def total_token_throughput(records: Any) -> float:
    """Prompt plus output tokens per second; see :class:`TotalTokenThroughput`.

    Examples
    --------
    >>> total_token_throughput([{"prompt_tokens": 3, "output_tokens": 8, "start": 0, "end": 2}])
    5.5
    """
    metric = TotalTokenThroughput()
    return metric.compute(metric.summarize(records))


def request_throughput(records: Any) -> float:
    """Successful requests per second; see :class:`RequestThroughput`.

    Examples
    --------
    >>> request_throughput([{"prompt_tokens": 3, "output_tokens": 8, "start": 0, "end": 2}])
    0.5
    """
    metric = RequestThroughput()
    return metric.compute(metric.summarize(records))


def goodput(
    records: Any, slo: str | Sequence[str] | Mapping[str, float | str] | None = None
) -> float:
    """Successful requests per second within the objectives ``slo``; see :class:`Goodput`.

    Examples
    --------
    >>> records = [{"prompt_tokens": 3, "output_tokens": 8, "start": 0, "first_token": 0.3,
    ...             "end": 2}]
    >>> goodput(records, ["ttft=200ms"]), goodput(records, {"ttft": 0.5})
    (0.0, 0.5)
    """
    objectives = parse_slo(slo, name="goodput")
    metric = Goodput(
        ttft=objectives.get("ttft"),
        tpot=objectives.get("tpot"),
        itl=objectives.get("itl"),
        e2e=objectives.get("e2e"),
    )
    return metric.compute(metric.summarize(records))


def failed_requests(records: Any) -> int:
    """The number of failed requests; see :class:`FailedRequests`.

    Examples
    --------
    >>> failed_requests([{"prompt_tokens": 3, "output_tokens": 0, "start": 0, "end": 2,
    ...                   "success": False}])
    1
    """
    return FailedRequests().compute(FailedRequests().summarize(records))
