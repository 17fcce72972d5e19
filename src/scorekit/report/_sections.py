"""The sections of a report, by what the result's states and records allow."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from scorekit import plot
from scorekit.classification import CalibrationHistogram, ConfusionCounts, ScoreHistogram
from scorekit.core import State
from scorekit.report._text import fmt

__all__ = ["Section", "Table", "sections", "svg"]

_MAX_LINE_POINTS = 2000
_SHOWN_QUERIES = 10
_counter = itertools.count()


@dataclasses.dataclass
class Table:
    """A captioned table of text cells."""

    caption: str
    headers: list[str]
    rows: list[list[str]]


@dataclasses.dataclass
class Section:
    """A titled part of the report: figures (caption, inline SVG), tables and paragraphs."""

    title: str
    figures: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    tables: list[Table] = dataclasses.field(default_factory=list)
    text: list[str] = dataclasses.field(default_factory=list)


def _thin(ax: Any) -> None:
    """Keep at most ``_MAX_LINE_POINTS`` evenly spread points (and the ends) of each line."""
    for line in ax.lines:
        x, y = line.get_xdata(), line.get_ydata()
        if len(x) > _MAX_LINE_POINTS:
            keep = np.unique(np.linspace(0, len(x) - 1, _MAX_LINE_POINTS).astype(int))
            line.set_data(np.asarray(x)[keep], np.asarray(y)[keep])


def svg(draw: Callable[[Any], Any], size: tuple[float, float] = (5.0, 3.8)) -> str:
    """The inline SVG of a figure drawn by ``draw(ax)``: text as text, a generic font, no link.

    Examples
    --------
    >>> text = svg(lambda ax: ax.plot([0, 1], [0, 1]))
    >>> text.startswith("<svg") and "<?xml" not in text
    True
    """
    import io

    import matplotlib
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    style: Any = {
        "svg.fonttype": "none",
        "svg.hashsalt": f"scorekit-{next(_counter)}",
        "font.family": "sans-serif",
        "font.size": 9,
    }
    with matplotlib.rc_context(style):
        fig = Figure(figsize=size)
        fig.subplots_adjust(left=0.15, right=0.86, bottom=0.14, top=0.96)
        FigureCanvasSVG(fig)
        ax = fig.add_subplot()
        draw(ax)
        for each in fig.axes:
            _thin(each)
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.DOTALL)
    # matplotlib names the fonts it knows; the report asks for a generic family only
    return re.sub(r"font-family:[^;\"']*", "font-family: sans-serif", text)


def _figure(section: Section, caption: str, draw: Callable[[Any], Any]) -> None:
    section.figures.append((caption, svg(draw)))


def _binary_tables(key: str, state: ScoreHistogram) -> list[Table]:
    """A threshold table: counts above each of 11 score quantiles, the second label positive."""
    if state.task != "binary" or state.labels.size != 2 or state.score.size == 0:
        return []
    c = state.counts[:, 0].astype(np.float64)
    is_pos = state.key == 1
    p, n = c[is_pos].sum(), c[~is_pos].sum()
    rows = []
    for t in np.unique(np.quantile(state.score, np.linspace(0, 1, 11))):
        above = state.score >= t
        tp, fp = c[above & is_pos].sum(), c[above & ~is_pos].sum()
        precision = tp / (tp + fp) if tp + fp else float("nan")
        recall = tp / p if p else float("nan")
        fpr = fp / n if n else float("nan")
        rows.append([fmt(float(t)), fmt(tp), fmt(fp), fmt(precision), fmt(recall), fmt(fpr)])
    headers = ["threshold (score >=)", "TP", "FP", "precision", "recall", "FPR"]
    return [Table(f"Thresholds ({key})", headers, rows)]


def _scores(key: str, state: ScoreHistogram) -> Section:
    section = Section(f"Classification scores: {key}")
    _figure(section, "ROC curve", lambda ax: plot.roc(state, ax=ax))
    _figure(section, "Precision-recall curve", lambda ax: plot.pr(state, ax=ax))
    if state.score.size and state.score.min() >= 0 and state.score.max() <= 1:
        _figure(
            section, "Calibration (reliability diagram)", lambda ax: plot.calibration(state, ax=ax)
        )
    _figure(section, "Score distributions", lambda ax: plot.score_distribution(state, ax=ax))
    section.tables += _binary_tables(key, state)
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
    n_bins = int(getattr(metric, "n_bins", 10))
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


def _abs_errors(key: str, state: State) -> Section:
    section = Section(f"Regression errors: {key}")
    _figure(section, "Absolute errors", lambda ax: plot.residuals(state, ax=ax))
    return section


def _per_output(c: Any) -> list[Table]:
    """One row per output of the multi-output regression metrics (their raw values)."""
    rows = []
    for key, state in c.states.items():
        metric = c.metrics.get(key)
        if metric is None or getattr(metric, "multioutput", None) in (None, "raw_values"):
            continue
        try:
            values = dataclasses.replace(metric, multioutput="raw_values").compute(state)
        except (ValueError, TypeError):
            continue
        arr = np.atleast_1d(np.asarray(values, dtype=np.float64))
        if arr.size > 1:
            rows += [[key, str(j), fmt(float(v))] for j, v in enumerate(arr)]
    return [Table("Per output", ["metric", "output", "value"], rows)] if rows else []


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
    if records is not None and len(records.start):
        _figure(
            section,
            "Output tokens per second and requests in flight",
            lambda ax: plot.throughput_over_time(
                records.start, records.end, np.where(records.success, records.output, 0), ax=ax
            ),
        )
    r = c.throughput
    if r is not None:
        reasons = [
            [str(k), fmt(v)] for k, v in sorted(r.failure_reasons.items(), key=lambda kv: -kv[1])
        ]
        if reasons:
            section.tables.append(Table("Failures by reason", ["reason", "requests"], reasons[:50]))
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
        rows = []
        for name in ("ttft", "tpot", "itl", "e2e"):
            summary: Any = getattr(r, name, None)
            if summary is not None and summary.count:
                rows.append(
                    [name.upper(), fmt(summary.count)]
                    + [
                        fmt(getattr(summary, s, float("nan")) * 1000)
                        for s in ("mean", "median", "p90", "p99", "max")
                    ]
                )
        if rows:
            headers = ["latency", "count", "mean ms", "median ms", "p90 ms", "p99 ms", "max ms"]
            section.tables.append(Table("Latency summary", headers, rows))
    if section.figures or section.tables:
        out.append(section)
    return out


def _latency_hist(ax: Any, *, values: Any, name: str) -> Any:
    ax.hist(values * 1000, bins=40, color="C0", alpha=0.8)
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
            out.append(_scores(key, state))
        elif isinstance(state, ConfusionCounts) and state.labels.size:
            out.append(_counts(key, state))
        elif isinstance(state, CalibrationHistogram) and state.method:
            out.append(_calibration(key, state, c.metrics.get(key)))
        elif type(state).__name__ == "QueryValues":
            queries[key] = state
        elif type(state).__name__ == "AbsErrors" and len(getattr(state, "errors", ())):
            out.append(_abs_errors(key, state))
    if queries:
        out.append(_queries(queries))
    tables = _per_output(c)
    if tables:
        out.append(Section("Regression: per output", tables=tables))
    out += _serving(c)
    return out
