"""The sections of a report, by what the result's states and records allow."""

from __future__ import annotations

import functools
import math
import re
from typing import Any

import numpy as np

from scorekit import plot
from scorekit.classification import (
    CalibrationCurveMetric,
    CalibrationHistogram,
    ConfusionCounts,
    ScoreHistogram,
)
from scorekit.core import State
from scorekit.report._page import Section, Table, svg
from scorekit.report._page import figure as _figure
from scorekit.report._regression import regression
from scorekit.report._segments import squad_section, text_section
from scorekit.report._systems import comparison_section, step_records, sweep_section
from scorekit.report._text import fmt

__all__ = ["Section", "Table", "sections", "svg"]

_SHOWN_QUERIES = 10


def positive_index(labels: Any, pos_label: Any) -> int | None:
    """The index of the positive class among a binary state's labels, or None when unknown.

    ``pos_label`` when given; otherwise scikit-learn's rule: 1 for labels in
    {0, 1} or {-1, 1}. None when ``pos_label`` is not among the labels or the
    labels need one.

    Examples
    --------
    >>> import numpy as np
    >>> positive_index(np.array([0, 1]), None), positive_index(np.array([0, 1]), 0)
    (1, 0)
    >>> positive_index(np.array(["neg", "pos"]), None) is None
    True
    """
    labels = np.asarray(labels)
    if pos_label is None:
        if labels.dtype.kind not in "biuf" or not set(labels.tolist()) <= {-1, 0, 1}:
            return None
        pos_label = 1
    try:
        found = np.flatnonzero(labels == pos_label)
    except (TypeError, ValueError):
        return None
    return int(found[0]) if found.size else None


def _weighted_quantiles(score: Any, weight: Any, qs: Any) -> Any:
    """The scores below which the shares ``qs`` of the weight lie (the lower quantiles)."""
    cumulative = np.cumsum(weight)
    at = np.searchsorted(cumulative, np.asarray(qs) * cumulative[-1], side="left")
    return score[np.minimum(at, score.size - 1)]


def _binary_tables(key: str, state: ScoreHistogram, pos: int) -> list[Table]:
    """A threshold table: counts at or above 11 score quantiles of the samples, ``pos`` positive."""
    c = state.counts[:, 0].astype(np.float64)
    is_pos = state.key == pos
    p, n = c[is_pos].sum(), c[~is_pos].sum()
    order = np.argsort(state.score, kind="stable")
    thresholds = _weighted_quantiles(state.score[order], c[order], np.linspace(0, 1, 11))
    rows = []
    for t in np.unique(thresholds):
        above = state.score >= t
        tp, fp = c[above & is_pos].sum(), c[above & ~is_pos].sum()
        precision = tp / (tp + fp) if tp + fp else float("nan")
        recall = tp / p if p else float("nan")
        fpr = fp / n if n else float("nan")
        rows.append([fmt(float(t)), fmt(tp), fmt(fp), fmt(precision), fmt(recall), fmt(fpr)])
    headers = ["threshold (score >=)", "TP", "FP", "precision", "recall", "FPR"]
    caption = f"Thresholds ({key}; positive class {state.labels[pos]})"
    return [Table(caption, headers, rows)]


def _scores(key: str, state: ScoreHistogram, metric: Any) -> Section:
    section = Section(f"Classification scores: {key}")
    pos_label = getattr(metric, "pos_label", None)
    pos = None
    if state.task == "binary":
        pos = positive_index(state.labels, pos_label)
        if pos is None or state.labels.size != 2:
            labels = ", ".join(str(v) for v in state.labels.tolist())
            section.text.append(
                f"The labels ({labels}) do not say which class is positive: the curves and the "
                "threshold table need the metric's pos_label."
            )
            _figure(
                section, "Score distributions", lambda ax: plot.score_distribution(state, ax=ax)
            )
            return section
        pos_label = state.labels[pos]
    _figure(section, "ROC curve", lambda ax: plot.roc(state, pos_label=pos_label, ax=ax))
    _figure(
        section, "Precision-recall curve", lambda ax: plot.pr(state, pos_label=pos_label, ax=ax)
    )
    if state.score.size and state.score.min() >= 0 and state.score.max() <= 1:
        _figure(
            section,
            "Calibration (reliability diagram)",
            lambda ax: plot.calibration(state, pos_label=pos_label, ax=ax),
        )
    _figure(section, "Score distributions", lambda ax: plot.score_distribution(state, ax=ax))
    if pos is not None and state.score.size:
        section.tables += _binary_tables(key, state, pos)
    return section


def _counts(key: str, state: ConfusionCounts) -> Section:
    section = Section(f"Confusion matrix: {key}")
    if state.matrix.ndim == 2 and state.matrix.size:
        _figure(section, "Counts", lambda ax: plot.confusion_matrix(state, ax=ax))
        _figure(
            section,
            "Normalised over the true class",
            lambda ax: plot.confusion_matrix(state, normalize="true", ax=ax),
        )
        m = state.matrix.astype(np.float64)
        tp, support, predicted = np.diag(m), m.sum(axis=1), m.sum(axis=0)
        rows = []
        for i, label in enumerate(state.labels.tolist()):
            p = tp[i] / predicted[i] if predicted[i] else float("nan")
            r = tp[i] / support[i] if support[i] else float("nan")
            f = 2 * p * r / (p + r) if p + r else float("nan")
            rows.append([str(label), fmt(p), fmt(r), fmt(f), fmt(support[i])])
        section.tables.append(
            Table("Per class", ["class", "precision", "recall", "F1", "support"], rows)
        )
    elif state.matrix.ndim == 3:
        rows = []
        for i, label in enumerate(state.labels.tolist()):
            (_, fp), (fn, tp) = state.matrix[i].astype(np.float64)
            p = tp / (tp + fp) if tp + fp else float("nan")
            r = tp / (tp + fn) if tp + fn else float("nan")
            rows.append([str(label), fmt(p), fmt(r), fmt(tp + fn)])
        section.tables.append(Table("Per label", ["label", "precision", "recall", "support"], rows))
    return section


def _calibration(key: str, state: CalibrationHistogram, metric: Any) -> Section:
    section = Section(f"Calibration: {key}")
    n_bins = int(getattr(metric, "n_bins", CalibrationCurveMetric.n_bins))
    strategy = str(getattr(metric, "strategy", "uniform"))
    _figure(
        section,
        f"Reliability diagram ({n_bins} {strategy} bins)",
        lambda ax: plot.calibration(state, n_bins=n_bins, strategy=strategy, ax=ax),
    )
    return section


def _queries(found: dict[str, Any]) -> Section:
    section = Section("Ranking: per-query values")
    for key, state in found.items():
        values = np.asarray(state.values, dtype=np.float64)
        queries = np.asarray(state.queries)
        _figure(section, f"{key} per query", functools.partial(_per_query_values, state, key))
        order = np.argsort(values, kind="stable")
        shown = _SHOWN_QUERIES
        worst = [[str(queries[i]), fmt(float(values[i]))] for i in order[:shown]]
        best = [[str(queries[i]), fmt(float(values[i]))] for i in order[::-1][:shown]]
        section.tables.append(
            Table(f"Worst queries by {key} (of {values.size})", ["query", key], worst)
        )
        section.tables.append(Table(f"Best queries by {key}", ["query", key], best))
    at_k: dict[str, dict[int, float]] = {}
    for key, state in found.items():
        match = re.fullmatch(r"(.+)@(\d+)", key)
        if match and len(state.values):
            at_k.setdefault(match.group(1), {})[int(match.group(2))] = float(np.mean(state.values))
    for base, points in at_k.items():
        if len(points) > 1:
            _figure(
                section,
                f"{base}@k",
                functools.partial(_at_k, points, base),
            )
    return section


def _per_query_values(state: Any, key: str, ax: Any) -> Any:
    return plot.per_query(state, name=key, ax=ax)


def _at_k(points: dict[int, float], base: str, ax: Any) -> Any:
    return plot.per_query(at_k=points, name=base, ax=ax)


def _serving(c: Any) -> list[Section]:
    out = []
    latency = {k: s for k, s in c.states.items() if type(s).__name__ == "LatencyValues"}
    records = c.records
    if records is not None and not hasattr(records, "success"):
        from scorekit.throughput import as_records

        records = as_records("scorekit report", records)
    if records is not None:
        latency = _record_latencies(records)
    section = Section("Serving: latency")
    parts = step_records(c.records) if c.sweep else None
    if parts is not None and len(parts) == len(c.sweep):
        parts = [(label, part) for (label, _), (_, part) in zip(c.sweep, parts, strict=True)]
    if parts is not None:
        # a sweep's loads are not pooled: one figure of latencies per step
        from scorekit.throughput import as_records

        for label, part in parts:
            found = _record_latencies(as_records("scorekit report", part))
            if found:
                _figure(
                    section,
                    f"Latency CDFs, {label}",
                    functools.partial(_latency_cdf, latency=found),
                )
        latency = {}
    if latency:
        _figure(section, "Latency CDFs", lambda ax: plot.latency_cdf(latency, ax=ax))
        for name, values in latency.items():
            v = np.asarray(getattr(values, "values", values), dtype=np.float64)
            if v.size:
                _figure(
                    section,
                    f"{name.upper()} histogram",
                    functools.partial(_latency_hist, values=v, name=name),
                )
    times = c.states.get("flight")
    if records is not None:
        times = (records.start, records.end, np.where(records.success, records.output, 0))
    elif type(times).__name__ == "RequestTimes":
        times = (times.start, times.end, times.output)
    else:
        times = None
    if times is not None and len(times[0]):
        _figure(
            section,
            "Output tokens per second and requests in flight",
            lambda ax: plot.throughput_over_time(*times, ax=ax),
        )
    r = c.throughput
    if r is not None:
        reasons = [
            [str(k), fmt(v)] for k, v in sorted(r.failure_reasons.items(), key=lambda kv: -kv[1])
        ]
        if reasons:
            section.tables.append(Table("Failures by reason", ["reason", "requests"], reasons[:50]))
        if c.sweep:
            # rates and latencies pooled over a sweep's loads describe no workload: the
            # summary's table of steps gives them step by step
            r = None
    if r is not None:
        if r.slo:
            good = r.good_requests or 0
            share = good / r.requests if r.requests else float("nan")
            objectives = ", ".join(f"{k} <= {v * 1000:g} ms" for k, v in r.slo.items())
            section.tables.append(
                Table(
                    "SLO attainment",
                    ["objectives", "good requests", "share", "goodput (req/s)"],
                    [[objectives, fmt(good), fmt(share), fmt(r.goodput)]],
                )
            )
        section.tables += _latency_table(r)
    if section.figures or section.tables:
        out.append(section)
    return out


def _latency_table(r: Any) -> list[Table]:
    """The latency statistics of a throughput report, as its text table shows them.

    Count, mean, standard deviation, minimum, the percentiles the report was
    asked for (``throughput --percentiles``; 50, 90 and 99 by default) and
    maximum, in milliseconds.
    """
    summaries = [(name, getattr(r, name, None)) for name in ("ttft", "tpot", "itl", "e2e")]
    shown = [(name, s) for name, s in summaries if s is not None and s.count]
    if not shown:
        return []
    chosen = list(dict.fromkeys(key for _, s in shown for key in s.percentiles))
    if not chosen:
        chosen = ["median", "p90", "p99"]
    rows = []
    for name, s in shown:
        values = [s.mean, s.std, s.min]
        values += [s.percentiles.get(key, getattr(s, key, math.nan)) for key in chosen]
        values.append(s.max)
        rows.append([name.upper(), fmt(s.count), *(fmt(float(v) * 1000) for v in values)])
    headers = ["latency", "count", "mean ms", "std ms", "min ms"]
    headers += [f"{key} ms" for key in chosen] + ["max ms"]
    return [Table("Latency summary", headers, rows)]


def _latency_cdf(ax: Any, *, latency: dict[str, Any]) -> Any:
    return plot.latency_cdf(latency, ax=ax)


def _latency_hist(ax: Any, *, values: Any, name: str) -> Any:
    v = values * 1000
    # values equal to a few ulps leave no room for 40 bins: one bar holds them
    span, scale = float(v.max() - v.min()), float(np.spacing(np.abs(v).max()))
    ax.hist(v, bins=40 if span > 160 * scale else 1, color="C0", alpha=0.8)
    ax.set_xlabel(f"{name.upper()} (ms)")
    ax.set_ylabel("Requests")
    return ax


def _record_latencies(records: Any) -> dict[str, Any]:
    ok = records.success
    e2e = (records.end - records.start)[ok]
    first = records.first[ok]
    ttft = (first - records.start[ok])[~np.isnan(first)]
    out = records.output[ok]
    many = (~np.isnan(first)) & (out > 1)
    tpot = ((records.end[ok] - first)[many]) / (out[many] - 1)
    found = {"ttft": ttft, "tpot": tpot, "itl": np.asarray(records.gaps), "e2e": e2e}
    return {k: v for k, v in found.items() if len(v)}


def sections(c: Any) -> list[Section]:
    """The sections the contents allow, in the order of their metrics."""
    out: list[Section] = []
    seen: list[State] = []
    queries: dict[str, Any] = {}
    for key, state in c.states.items():
        if any(type(old) is type(state) and old.equals(state) for old in seen):
            continue
        seen.append(state)
        if isinstance(state, ScoreHistogram) and state.task:
            out.append(_scores(key, state, c.metrics.get(key)))
        elif isinstance(state, ConfusionCounts) and state.labels.size:
            out.append(_counts(key, state))
        elif isinstance(state, CalibrationHistogram) and state.method:
            out.append(_calibration(key, state, c.metrics.get(key)))
        elif type(state).__name__ == "QueryValues":
            queries[key] = state
    if queries:
        out.append(_queries(queries))
    out += regression(c)
    out += text_section(c)
    out += squad_section(c)
    out += comparison_section(c)
    out += sweep_section(c.sweep or [])
    out += _serving(c)
    return out
