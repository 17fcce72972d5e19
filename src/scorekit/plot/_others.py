"""Figures of regression, ranking, serving, and of systems compared."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from scorekit._check import as_scores, check_same_length
from scorekit.core import QuantileSketch, State
from scorekit.errors import InputError, message, raw
from scorekit.plot._common import as_written, axes, interval, value_of
from scorekit.regression import PairSample, PredictionSample, Sample

__all__ = [
    "compare",
    "latency_cdf",
    "per_query",
    "predicted_vs_true",
    "residuals",
    "sweep",
    "throughput_over_time",
]

Float = NDArray[np.float64]
_MAX_POINTS = 5000


def _pair(where: str, y_true: Any, y_pred: Any) -> tuple[Float, Float]:
    if y_pred is None:
        raise InputError(
            message(
                where,
                "the predictions are missing",
                raw(type(y_true).__name__),
                "y_true and y_pred, or a prediction sample (scorekit.regression.PredictionSample)",
            )
        )
    t = as_scores(where, "y_true", y_true, ndim=(1, 2))
    p = as_scores(where, "y_pred", y_pred, ndim=(1, 2))
    check_same_length(where, y_true=t, y_pred=p)
    if t.shape != p.shape:
        raise InputError(message(where, "shapes differ", raw(f"{t.shape} and {p.shape}"), "equal"))
    return t.reshape(len(t), -1), p.reshape(len(p), -1)


def _sampled(where: str, given: Any) -> tuple[Float, Float, Float, int] | None:
    """The pairs, weights and rows of a prediction sample (its state, value or result), or None."""
    if hasattr(given, "states") and isinstance(getattr(given, "states", None), dict):
        found = [s for s in given.states.values() if isinstance(s, PairSample)]
        if not found:
            return None
        given = found[0]
    if isinstance(given, PairSample):
        given = PredictionSample(size=given.size, seed=given.seed).compute(given)
    if not isinstance(given, Sample):
        return None
    t = np.asarray(given.y_true, dtype=np.float64)
    p = np.asarray(given.y_pred, dtype=np.float64)
    if len(t) == 0:
        raise InputError(
            message(
                where, "the prediction sample holds no pairs", 0, "a sample of at least one row"
            )
        )
    return t.reshape(len(t), -1), p.reshape(len(p), -1), np.asarray(given.weight), given.rows


def _sizes(weight: Float | None, keep: NDArray[np.intp]) -> Any:
    """Marker areas: 6 for equal weights, else growing with the square root of the weight."""
    if weight is None or weight.size == 0 or np.all(weight == weight[0]):
        return 6
    w = weight[keep]
    return np.clip(6 * np.sqrt(w / np.median(w)), 2, 60)


def _caption(ax: Any, count: int, rows: int | None) -> None:
    if rows is not None:
        ax.set_title(f"{count:,} distinct pairs sampled of {rows:,} rows", fontsize="small")


def _thin(n: int) -> NDArray[np.intp]:
    """At most ``_MAX_POINTS`` evenly spread indices of ``n`` points."""
    if n <= _MAX_POINTS:
        return np.arange(n)
    return np.linspace(0, n - 1, _MAX_POINTS).astype(np.intp)


@as_written
def residuals(y_true: Any, y_pred: Any = None, *, bins: int = 30, ax: Any = None) -> Any:
    """Residuals ``y_pred - y_true`` against the prediction, or the absolute errors' distribution.

    Given ``prediction_sample``'s state (:class:`~scorekit.regression.PairSample`),
    its value (:class:`~scorekit.regression.Sample`) or a result holding it,
    draws the sampled pairs' residuals, each point as large as the rows it
    stands for. Given a state that keeps every absolute error (the median
    absolute error's :class:`~scorekit.regression.AbsErrors`), draws their
    histogram; given the median absolute error's
    :class:`~scorekit.core.QuantileSketch` (``relative_accuracy``), the
    cumulative distribution of the absolute errors read from the sketch's
    quantiles (each within its relative accuracy).

    Examples
    --------
    >>> ax = residuals([3.0, -0.5, 2.0, 7.0], [2.5, 0.0, 2.0, 8.0])
    >>> ax.collections[0].get_offsets()[:, 1].tolist()
    [-0.5, 0.5, 0.0, 1.0]
    """
    where = "scorekit.plot.residuals"
    ax = axes(ax, where)
    sample = _sampled(where, y_true)
    if sample is not None:
        t, p, weight, rows = sample
        _residual_points(ax, t, p, weight)
        _caption(ax, len(t), rows)
        return ax
    if isinstance(y_true, QuantileSketch):
        return _sketch_cdf(y_true, ax)
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
    return _residual_points(ax, t, p, None)


def _residual_points(ax: Any, t: Float, p: Float, weight: Float | None) -> Any:
    keep = _thin(len(t))
    size = _sizes(weight, keep)
    for j in range(t.shape[1]):
        ax.scatter(p[keep, j], p[keep, j] - t[keep, j], s=size, alpha=0.6, label=f"output {j}")
    ax.axhline(0, color="grey", linestyle=":", linewidth=1)
    ax.set_xlabel("Predicted value")
    ax.set_ylabel("Residual (predicted - true)")
    return ax


def _sketch_cdf(state: QuantileSketch, ax: Any) -> Any:
    """The absolute errors' CDF at 99 quantiles of each output of a quantile sketch."""
    qs = np.linspace(0.01, 0.99, 99)
    if state.n_samples:
        values = np.stack([np.atleast_1d(state.quantile(float(q))) for q in qs])
        for j in range(values.shape[1]):
            ax.plot(values[:, j], qs, drawstyle="steps-post", label=f"output {j}")
        if values.shape[1] > 1:
            ax.legend(fontsize="small")
    ax.set_xlabel(f"Absolute error (sketch, relative accuracy {state.relative_accuracy:g})")
    ax.set_ylabel("Fraction of samples")
    ax.set_ylim(0, 1.01)
    return ax


@as_written
def predicted_vs_true(y_true: Any, y_pred: Any = None, *, ax: Any = None) -> Any:
    """Predicted against true values, with the diagonal of perfect predictions.

    Takes the data, or ``prediction_sample``'s state
    (:class:`~scorekit.regression.PairSample`), its value
    (:class:`~scorekit.regression.Sample`) or a result holding it: then each
    sampled pair is a point as large as the rows it stands for. At most 5,000
    evenly spread points are drawn.

    Examples
    --------
    >>> ax = predicted_vs_true([3.0, -0.5, 2.0], [2.5, 0.0, 2.0])
    >>> ax.get_ylabel()
    'Predicted value'
    """
    where = "scorekit.plot.predicted_vs_true"
    sample = _sampled(where, y_true)
    weight: Float | None = None
    if sample is not None:
        t, p, weight, rows = sample
    else:
        t, p = _pair(where, y_true, y_pred)
    ax = axes(ax, where)
    keep = _thin(len(t))
    size = _sizes(weight, keep)
    for j in range(t.shape[1]):
        ax.scatter(t[keep, j], p[keep, j], s=size, alpha=0.6, label=f"output {j}")
    if sample is not None:
        _caption(ax, len(t), rows)
    if t.size:
        lo, hi = float(min(t.min(), p.min())), float(max(t.max(), p.max()))
        ax.plot([lo, hi], [lo, hi], linestyle=":", color="grey", linewidth=1)
    ax.set_xlabel("True value")
    ax.set_ylabel("Predicted value")
    return ax


@as_written
def per_query(
    values: Any = None,
    *,
    at_k: Mapping[int, float] | None = None,
    bins: int = 20,
    name: str | None = None,
    unit: str = "query",
    ax: Any = None,
) -> Any:
    """The distribution of per-query values, or a metric@k curve (``at_k``: k -> value).

    ``values`` are the per-query values, or a ranking metric's
    :class:`~scorekit.ranking.QueryValues` state. ``unit`` names what a value
    is of (``"segment"`` for the per-segment values of a text metric,
    ``"question"`` for QA).

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
    ax.set_xlabel(f"{name or 'value'} per {unit}")
    ax.set_ylabel("Queries" if unit == "query" else f"{unit.capitalize()}s")
    return ax


@as_written
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


@as_written
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


def _comparisons(systems: Any) -> bool:
    return (
        isinstance(systems, list | tuple)
        and bool(systems)
        and all(hasattr(row, "difference") and hasattr(row, "baseline") for row in systems)
    )


def _differences(rows: list[Any], ax: Any) -> Any:
    """Each system's difference from its baseline, with its interval and p-value, a row each."""
    y = np.arange(len(rows))[::-1]
    diff = np.array([float(r.difference) for r in rows])
    low = np.array([np.nan if r.low is None else float(r.low) for r in rows])
    high = np.array([np.nan if r.high is None else float(r.high) for r in rows])
    has = np.isfinite(low) & np.isfinite(high)
    if has.any():
        ax.errorbar(
            diff[has],
            y[has],
            xerr=[diff[has] - low[has], high[has] - diff[has]],
            fmt="o",
            capsize=3,
            color="C0",
        )
    if (~has).any():
        ax.plot(diff[~has], y[~has], "o", color="C0")
    ax.axvline(0, color="grey", linestyle=":", linewidth=1)
    for yi, d, r in zip(y, diff, rows, strict=True):
        p = r.pvalue if getattr(r, "adjusted", None) is None else r.adjusted
        if p is not None and math.isfinite(float(p)):
            ax.annotate(
                f"p = {float(p):.3g}",
                (d, yi),
                xytext=(0, 6),
                textcoords="offset points",
                ha="center",
                fontsize="small",
            )
    ax.set_yticks(y, [f"{r.system} - {r.baseline}\n{r.metric}" for r in rows])
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlabel("Difference from the baseline")
    return ax


@as_written
def compare(
    systems: Mapping[str, Mapping[str, Any]] | Mapping[str, Any] | Sequence[Any],
    *,
    metrics: Sequence[str] | None = None,
    ax: Any = None,
) -> Any:
    """Systems side by side: one group of bars per metric, error bars where values carry intervals.

    ``systems`` maps a system's name to its values (metric -> value); a value
    with ``low`` and ``high`` (or ``ci``) draws its interval. A flat mapping
    (metric -> value) is one system. A list of
    :class:`~scorekit.stats.Comparison` (:func:`scorekit.stats.compare`)
    draws each system's difference from the baseline, a row each, with the
    interval of the difference where the test gives one and the p-value
    (adjusted, when a correction was asked for).

    Examples
    --------
    >>> runs = {"bm25": {"ndcg@10": 0.41, "mrr": 0.52}, "dense": {"ndcg@10": 0.47, "mrr": 0.55}}
    >>> ax = compare(runs)
    >>> len(ax.patches)
    4
    >>> from scorekit import stats
    >>> y = [0, 1, 1, 0, 1, 0, 1, 1] * 10
    >>> a, b = [0, 1, 0, 0, 1, 1, 1, 0] * 10, [0, 1, 1, 0, 1, 0, 1, 0] * 10
    >>> rows = stats.compare("accuracy", y, a, b, test="mcnemar", names=["a", "b"])
    >>> ax = compare(rows)
    >>> ax.lines[0].get_xdata().tolist(), ax.get_xlabel()
    ([0.25], 'Difference from the baseline')
    """
    where = "scorekit.plot.compare"
    if _comparisons(systems):
        return _differences(list(cast(Sequence[Any], systems)), axes(ax, where))
    systems = cast(Mapping[str, Any], systems)
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


_SWEEP_LATENCIES = ("ttft", "tpot", "itl", "e2e")


@as_written
def sweep(
    steps: Mapping[str, Any] | Sequence[tuple[str, Any]],
    *,
    latency: str = "e2e",
    statistics: Sequence[str] = ("median", "p99"),
    throughput: str = "output_throughput",
    ax: Any = None,
) -> Any:
    """Throughput against latency over the steps of a load-test sweep, a point per step.

    ``steps`` are ``(label, report)`` pairs in the order of the sweep
    (:func:`scorekit.loadtest.sweep_reports`) or a mapping label -> report of
    :class:`~scorekit.throughput.ThroughputReport`. Each of ``statistics``
    (``mean``, ``median``, ``p90``, ``p99``, ``max``) of the ``latency``
    (``ttft``, ``tpot``, ``itl``, ``e2e``) is a line, in milliseconds, against
    the report's ``throughput`` (``output_throughput``, ``request_throughput``,
    ``total_token_throughput``, ``goodput``); each point is labelled by its step.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> step = lambda tps, p50, p99: NS(output_throughput=tps, e2e=NS(median=p50, p99=p99))
    >>> ax = sweep([("rate 1", step(50.0, 0.4, 0.9)), ("rate 4", step(180.0, 0.7, 2.0))])
    >>> ax.lines[0].get_xdata().tolist(), ax.lines[1].get_ydata().tolist()
    ([50.0, 180.0], [900.0, 2000.0])
    """
    where = "scorekit.plot.sweep"
    if latency not in _SWEEP_LATENCIES:
        raise InputError(message(where, "unknown latency", latency, ", ".join(_SWEEP_LATENCIES)))
    pairs = list(steps.items()) if isinstance(steps, Mapping) else list(steps)
    ax = axes(ax, where)
    xs = []
    for _, found in pairs:
        value = getattr(found, throughput, None)
        if value is None and not hasattr(found, throughput):
            raise InputError(
                message(where, "no such throughput in the report", throughput, "a report field")
            )
        xs.append(np.nan if value is None else float(value))
    x = np.asarray(xs, dtype=np.float64)
    for k, statistic in enumerate(statistics):
        ys = []
        for _, found in pairs:
            value = getattr(getattr(found, latency, None), statistic, None)
            ys.append(np.nan if value is None else float(value) * 1000)
        ax.plot(x, ys, marker="o", color=f"C{k}", label=f"{latency.upper()} {statistic}")
        if k == len(statistics) - 1:
            for (label, _), xi, yi in zip(pairs, x, ys, strict=True):
                if math.isfinite(xi) and math.isfinite(yi):
                    ax.annotate(
                        str(label),
                        (xi, yi),
                        xytext=(4, 4),
                        textcoords="offset points",
                        fontsize="small",
                    )
    ax.set_xlabel(throughput.replace("_", " ").capitalize())
    ax.set_ylabel(f"{latency.upper()} (ms)")
    if ax.lines:
        ax.legend(loc="best", fontsize="small")
    return ax
