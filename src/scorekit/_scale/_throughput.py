"""``scorekit throughput`` at scale: the serving report from the merged states of its metrics.

The report's figures come from the states of five registered metrics: the
request totals (``goodput`` with the ``--slo`` objectives, or
``failed_requests``: counts, summed tokens, the earliest start and the latest
end) and the kept values of ``ttft``, ``tpot``, ``itl`` and ``e2e``. Failure
reasons are counted beside them (a state file keeps them as a tally that
merging adds up). Chunks are concatenated in file order, so every figure,
percentiles included, equals the report of the whole file.
"""

from __future__ import annotations

import argparse
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from scorekit._core import Metric, State
from scorekit._scale._engines import dask_run, fold_file
from scorekit._scale._flags import chunk_size, progress
from scorekit.errors import UndefinedMetricWarning

__all__ = ["throughput_metrics", "throughput_report", "throughput_states"]

_LATENCY_KEYS = ("ttft", "tpot", "itl", "e2e")


def throughput_metrics(objectives: Mapping[str, float] | None) -> dict[str, Metric[Any]]:
    """The metrics whose states make up the report, by the keys a state file gives them."""
    from scorekit.throughput import ITL, TPOT, TTFT, E2ELatency, FailedRequests, Goodput

    given: dict[str, Any] = dict(objectives or {})
    requests: Metric[Any] = Goodput(**given) if given else FailedRequests()
    return {"requests": requests, "ttft": TTFT(), "tpot": TPOT(), "itl": ITL(), "e2e": E2ELatency()}


def _objectives(metric: Metric[Any]) -> dict[str, float] | None:
    found = getattr(metric, "objectives", None)
    return dict(found) if found else None


def throughput_states(
    args: argparse.Namespace, metrics: dict[str, Metric[Any]]
) -> tuple[dict[str, State], int, dict[str, int] | None]:
    """The merged states of ``--records`` in chunks (or on Dask), and the failure reasons.

    On Dask the reasons are not counted (``None``): the workers return states only.
    """
    from scorekit.engines import _sources
    from scorekit.throughput import COLUMNS

    present = _sources.open_source(args.records).columns()
    wanted = [c for c in COLUMNS if c in present]
    if args.engine == "dask":
        columns = {c: c for c in wanted}
        states, rows, _ = dask_run(args.records, metrics, columns, args)
        return states, rows, None

    def fold(chunks: Iterable[Any]) -> tuple[dict[str, State], int, dict[str, int]]:
        from scorekit.throughput._records import as_records
        from scorekit.throughput._report import _reasons
        from scorekit.throughput._state import LatencyValues, latencies, totals

        objectives = _objectives(metrics["requests"])
        states = {key: metric.empty() for key, metric in metrics.items()}
        reasons: Counter[str] = Counter()
        rows = 0
        for table in chunks:
            records = as_records("throughput", table)
            parts: dict[str, State] = {"requests": totals(records, objectives)}
            for key in _LATENCY_KEYS:
                parts[key] = LatencyValues(quantity=key, values=latencies(records, key))
            for key, part in parts.items():
                states[key] = metrics[key].merge(states[key], part)
            reasons.update(_reasons(records))
            rows += records.n
        return states, rows, dict(reasons)

    return fold_file(args.records, wanted, chunk_size(args), progress(args), fold)


def throughput_report(
    states: Mapping[str, State],
    metrics: Mapping[str, Metric[Any]],
    reasons: Mapping[str, int] | None,
    objectives: Mapping[str, float] | None = None,
) -> Any:
    """The :class:`~scorekit.throughput.ThroughputReport` of merged states.

    The same arithmetic and notes as :func:`scorekit.throughput.report`, from
    states instead of records. Without ``reasons`` (a Dask run), failures are
    counted but not broken down. ``objectives`` are the ``--slo`` objectives as
    given (by default those of the goodput metric).
    """
    from scorekit.throughput import LATENCIES, LatencySummary, ThroughputReport
    from scorekit.throughput._state import per_second

    if objectives is None:
        objectives = _objectives(metrics["requests"])
    state: Any = states["requests"]
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
    summaries = {}
    for quantity, title in LATENCIES.items():
        values: Any = states[quantity]
        summaries[quantity] = LatencySummary.of(values.values)
        if summaries[quantity].count == 0 and state.successes:
            notes.append(f"no successful request has a {title}")
    for note in notes:
        warnings.warn(f"throughput: {note}.", UndefinedMetricWarning, stacklevel=2)
    order = sorted((reasons or {}).items(), key=lambda item: (-item[1], item[0]))
    return ThroughputReport(
        requests=state.requests,
        successes=state.successes,
        failures=state.failed,
        failure_reasons=dict(order),
        wall_time=state.wall_time,
        prompt_tokens=state.prompt_tokens,
        output_tokens=state.output_tokens,
        request_throughput=request_rate,
        output_throughput=output_rate,
        prompt_throughput=prompt_rate,
        total_token_throughput=total_rate,
        slo=None if objectives is None else dict(objectives),
        good_requests=state.good if objectives is not None else None,
        goodput=good_rate,
        ttft=summaries["ttft"],
        tpot=summaries["tpot"],
        itl=summaries["itl"],
        e2e=summaries["e2e"],
        notes=tuple(notes),
    )
