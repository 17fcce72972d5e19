"""Figures of regression, ranking, serving, and of systems compared."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit._check import as_scores, check_same_length
from scorekit.core import State
from scorekit.errors import InputError, message, raw
from scorekit.plot._common import axes, interval, value_of

__all__ = [
    "compare",
    "latency_cdf",
    "per_query",
    "predicted_vs_true",
    "residuals",
    "throughput_over_time",
]

Float = NDArray[np.float64]
_MAX_POINTS = 5000


def _pair(where: str, y_true: Any, y_pred: Any) -> tuple[Float, Float]:
    t = as_scores(where, "y_true", y_true, ndim=(1, 2))
    p = as_scores(where, "y_pred", y_pred, ndim=(1, 2))
    check_same_length(where, y_true=t, y_pred=p)
    if t.shape != p.shape:
        raise InputError(message(where, "shapes differ", raw(f"{t.shape} and {p.shape}"), "equal"))
    return t.reshape(len(t), -1), p.reshape(len(p), -1)


def _thin(n: int) -> NDArray[np.intp]:
    """At most ``_MAX_POINTS`` evenly spread indices of ``n`` points."""
    if n <= _MAX_POINTS:
        return np.arange(n)
    return np.linspace(0, n - 1, _MAX_POINTS).astype(np.intp)


def residuals(y_true: Any, y_pred: Any = None, *, bins: int = 30, ax: Any = None) -> Any:
    """Residuals ``y_pred - y_true`` against the prediction, or the absolute errors' histogram.

    Given a state that keeps every absolute error (the median absolute error's
    :class:`~scorekit.regression.AbsErrors`), draws their histogram.

    Examples
    --------
    >>> ax = residuals([3.0, -0.5, 2.0, 7.0], [2.5, 0.0, 2.0, 8.0])
    >>> ax.collections[0].get_offsets()[:, 1].tolist()
    [-0.5, 0.5, 0.0, 1.0]
    """
    where = "scorekit.plot.residuals"
    ax = axes(ax, where)
    if isinstance(y_true, State):
        errors = np.asarray(getattr(y_true, "errors", np.empty((0, 1))), dtype=np.float64)
        if errors.ndim != 2:
            raise InputError(
                message(
                    where, "no absolute errors in the state", type(y_true).__name__, "AbsErrors"
                )
            )
        weights = getattr(y_true, "weights", np.empty(0))
        for j in range(errors.shape[1]):
            w = weights if len(weights) == len(errors) else None
            ax.hist(errors[:, j], bins=bins, weights=w, histtype="step", label=f"output {j}")
        ax.set_xlabel("Absolute error")
        ax.set_ylabel("Samples")
        return ax
    t, p = _pair(where, y_true, y_pred)
    keep = _thin(len(t))
    for j in range(t.shape[1]):
        ax.scatter(p[keep, j], p[keep, j] - t[keep, j], s=6, alpha=0.6, label=f"output {j}")
    ax.axhline(0, color="grey", linestyle=":", linewidth=1)
    ax.set_xlabel("Predicted value")
    ax.set_ylabel("Residual (predicted - true)")
    return ax


def predicted_vs_true(y_true: Any, y_pred: Any, *, ax: Any = None) -> Any:
    """Predicted against true values, with the diagonal of perfect predictions.

    At most 5,000 evenly spread points are drawn.

    Examples
    --------
    >>> ax = predicted_vs_true([3.0, -0.5, 2.0], [2.5, 0.0, 2.0])
    >>> ax.get_ylabel()
    'Predicted value'
    """
    where = "scorekit.plot.predicted_vs_true"
    t, p = _pair(where, y_true, y_pred)
    ax = axes(ax, where)
    keep = _thin(len(t))
    for j in range(t.shape[1]):
        ax.scatter(t[keep, j], p[keep, j], s=6, alpha=0.6, label=f"output {j}")
    if t.size:
        lo, hi = float(min(t.min(), p.min())), float(max(t.max(), p.max()))
        ax.plot([lo, hi], [lo, hi], linestyle=":", color="grey", linewidth=1)
    ax.set_xlabel("True value")
    ax.set_ylabel("Predicted value")
    return ax


def per_query(
    values: Any = None,
    *,
    at_k: Mapping[int, float] | None = None,
    bins: int = 20,
    name: str | None = None,
    ax: Any = None,
) -> Any:
    """The distribution of per-query values, or a metric@k curve (``at_k``: k -> value).

    ``values`` are the per-query values, or a ranking metric's
    :class:`~scorekit.ranking.QueryValues` state.

    Examples
    --------
    >>> ax = per_query([0.0, 0.5, 1.0, 1.0], bins=2)
    >>> len(ax.patches)
    2
    >>> ax = per_query(at_k={1: 0.5, 5: 0.6, 10: 0.7}, name="ndcg")
    >>> ax.lines[0].get_xdata().tolist()
    [1, 5, 10]
    """
    where = "scorekit.plot.per_query"
    ax = axes(ax, where)
    if at_k is not None:
        ks = sorted(at_k)
        ax.plot(ks, [value_of(at_k[k]) for k in ks], marker="o", label=name)
        ax.set_xlabel("k")
        ax.set_ylabel(f"{name or 'metric'}@k")
        return ax
    if isinstance(values, State):
        values = getattr(values, "values", None)
    if values is None:
        raise InputError(message(where, "no values", raw("None"), "per-query values or at_k"))
    v = as_scores(where, "values", values)
    ax.hist(v, bins=bins, color="C0", alpha=0.8)
    ax.set_xlabel(f"{name or 'value'} per query")
    ax.set_ylabel("Queries")
    return ax


def latency_cdf(latencies: Mapping[str, Any], *, ax: Any = None) -> Any:
    """Empirical CDFs of latencies in milliseconds (name -> seconds, or a LatencyValues state).

    Examples
    --------
    >>> ax = latency_cdf({"ttft": [0.1, 0.2, 0.3], "e2e": [0.5, 0.7, 1.0]})
    >>> ax.lines[0].get_ydata().tolist()
    [0.3333333333333333, 0.6666666666666666, 1.0]
    """
    where = "scorekit.plot.latency_cdf"
    ax = axes(ax, where)
    for label, values in latencies.items():
        if isinstance(values, State):
            values = getattr(values, "values", np.empty(0))
        v = np.sort(as_scores(where, label, values))
        if v.size == 0:
            continue
        keep = _thin(v.size)
        ax.plot(v[keep] * 1000, (keep + 1) / v.size, drawstyle="steps-post", label=label.upper())
    ax.set_xlabel("Latency (ms)")
    ax.set_ylabel("Fraction of requests")
    ax.set_ylim(0, 1.01)
    if ax.lines:
        ax.legend(loc="lower right", fontsize="small")
    return ax


def throughput_over_time(
    start: Any,
    end: Any,
    output_tokens: Any = None,
    *,
    bins: int = 50,
    ax: Any = None,
) -> Any:
    """Completed requests (or output tokens) per second, and requests in flight, over time.

    ``start`` and ``end`` are the requests' times in seconds; with
    ``output_tokens``, the tokens of each request count at its end.

    Examples
    --------
    >>> ax = throughput_over_time([0.0, 0.5, 1.0], [1.0, 1.5, 2.0], bins=2)
    >>> ax.get_xlabel()
    'Time since the first request (s)'
    """
    where = "scorekit.plot.throughput_over_time"
    s, e = as_scores(where, "start", start), as_scores(where, "end", end)
    check_same_length(where, start=s, end=e)
    ax = axes(ax, where)
    if s.size == 0:
        return ax
    t0 = float(s.min())
    span = max(float(e.max()) - t0, 1e-9)
    edges = np.linspace(0, span, bins + 1)
    width = edges[1] - edges[0]
    weights = None if output_tokens is None else as_scores(where, "output_tokens", output_tokens)
    done, _ = np.histogram(e - t0, bins=edges, weights=weights)
    ax.step(
        edges[:-1],
        done / width,
        where="post",
        label="output tokens/s" if weights is not None else "requests/s",
    )
    ax.set_xlabel("Time since the first request (s)")
    ax.set_ylabel("tokens/s" if weights is not None else "requests/s")
    flight = ax.twinx()
    times = np.concatenate([s, e]) - t0
    steps = np.concatenate([np.ones(s.size), -np.ones(e.size)])
    order = np.argsort(times, kind="stable")
    keep = _thin(order.size)
    flight.step(
        times[order][keep],
        np.cumsum(steps[order])[keep],
        where="post",
        color="C1",
        label="in flight",
    )
    flight.set_ylabel("Requests in flight")
    ax.legend(loc="upper left", fontsize="small")
    flight.legend(loc="upper right", fontsize="small")
    return ax


def compare(
    systems: Mapping[str, Mapping[str, Any]] | Mapping[str, Any],
    *,
    metrics: Sequence[str] | None = None,
    ax: Any = None,
) -> Any:
    """Systems side by side: one group of bars per metric, error bars where values carry intervals.

    ``systems`` maps a system's name to its values (metric -> value); a value
    with ``low`` and ``high`` (or ``ci``) draws its interval. A flat mapping
    (metric -> value) is one system.

    Examples
    --------
    >>> runs = {"bm25": {"ndcg@10": 0.41, "mrr": 0.52}, "dense": {"ndcg@10": 0.47, "mrr": 0.55}}
    >>> ax = compare(runs)
    >>> len(ax.patches)
    4
    """
    where = "scorekit.plot.compare"
    if systems and not all(isinstance(v, Mapping) for v in systems.values()):
        systems = {"system": systems}
    table: dict[str, Mapping[str, Any]] = dict(systems)
    names = list(metrics) if metrics else list(dict.fromkeys(k for v in table.values() for k in v))
    ax = axes(ax, where)
    width = 0.8 / max(len(table), 1)
    x = np.arange(len(names))
    for i, (system, values) in enumerate(table.items()):
        heights, lows, highs = [], [], []
        for metric in names:
            value = values.get(metric)
            try:
                v = value_of(value) if value is not None else np.nan
            except (TypeError, ValueError):
                v = np.nan
            ci = interval(value) if value is not None else None
            heights.append(v)
            lows.append(v - ci[0] if ci else 0.0)
            highs.append(ci[1] - v if ci else 0.0)
        err = [lows, highs] if any(lows) or any(highs) else None
        ax.bar(x + i * width - 0.4 + width / 2, heights, width, yerr=err, capsize=3, label=system)
    ax.set_xticks(
        x, names, rotation=30 if len(names) > 4 else 0, ha="right" if len(names) > 4 else "center"
    )
    ax.set_ylabel("Value")
    ax.legend(fontsize="small")
    return ax
