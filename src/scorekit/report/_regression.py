"""The regression section: what the regression states keep, as figures and a per-output table.

The states keep sums (mean errors), moments of the targets and of the
residuals (R^2, explained variance), every absolute error (the exact median
absolute error) or a quantile sketch of them, and ``prediction_sample``'s
bounded sample of (true, predicted) pairs
(:class:`~scorekit.regression.PairSample`), from which the predicted-vs-true
scatter and the signed residuals are drawn, whatever the number of rows or
shards. Without that sample the section says how to get those figures.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np

from scorekit import plot
from scorekit.core import QuantileSketch, State
from scorekit.regression import AbsErrors, ExplainedVarianceSums, PairSample, R2Sums
from scorekit.report._page import Section, Table, figure
from scorekit.report._text import fmt

__all__ = ["NO_PAIRS", "regression"]

NO_PAIRS = (
    "This evaluation kept no sample of the pairs of true and predicted values, so the report has "
    "no predicted-vs-true scatter and no signed-residual figure: add the prediction_sample "
    "metric (a bounded sample that merges across chunks and shards), or draw them from the data "
    "with scorekit.plot.predicted_vs_true and scorekit.plot.residuals."
)
"""What a report drawn from regression states leaves out, and where to get it."""

_REGRESSION_STATES = (AbsErrors, ExplainedVarianceSums, PairSample, R2Sums)


def _is_regression(metric: Any) -> bool:
    return type(metric).__module__.startswith("scorekit.regression")


def _pairs(state: PairSample, names: list[str], draw: Any, ax: Any) -> Any:
    ax = draw(state, ax=ax)
    if len(names) > 1:
        for points, name in zip(ax.collections, names, strict=False):
            points.set_label(name)
        ax.legend(fontsize="small")
    return ax


def _raw_values(metric: Any, state: State) -> Any:
    """The metric's value per output, or None when it has no value per output."""
    if getattr(metric, "multioutput", None) is None:
        return None
    try:
        found = dataclasses.replace(metric, multioutput="raw_values").compute(state)
    except (ValueError, TypeError):
        return None
    found = getattr(found, "value", found)  # an estimate's value, without its error bound
    return np.asarray(found, dtype=np.float64).ravel()


def _per_output(c: Any) -> list[Table]:
    """One row per output: each metric's value, and the moments the states keep."""
    columns: dict[str, Any] = {}
    for key, state in c.states.items():
        metric = c.metrics.get(key)
        if metric is None or not _is_regression(metric):
            continue
        values = _raw_values(metric, state)
        if values is not None:
            columns[key] = values
    moments = next((s for s in c.states.values() if isinstance(s, ExplainedVarianceSums)), None)
    targets = moments or next((s for s in c.states.values() if isinstance(s, R2Sums)), None)
    if targets is not None and targets.weight > 0:
        columns["mean of true"] = targets.mean + targets.mean_lo
        columns["SD of true"] = np.sqrt(targets.m2 / targets.weight)
    if moments is not None and moments.weight > 0:
        columns["mean error (pred - true)"] = -(moments.res_mean + moments.res_mean_lo)
        columns["SD of error"] = np.sqrt(moments.res_m2 / moments.weight)
    if not columns:
        return []
    n = max(v.size for v in columns.values())
    names = list(c.columns.get("y_true", []))
    if len(names) != n:
        names = [f"output {j}" for j in range(n)]
    rows = [
        [names[j], *(fmt(float(v[j])) if v.size == n else "" for v in columns.values())]
        for j in range(n)
    ]
    return [Table("Per output", ["output", *columns], rows)]


def _errors(key: str, state: State, names: list[str], ax: Any) -> Any:
    ax = plot.residuals(state, ax=ax)
    for line, name in zip([*ax.lines, *ax.patches], names, strict=False):
        line.set_label(name)
    if len(names) > 1:
        ax.legend(fontsize="small")
    return ax


def regression(c: Any) -> list[Section]:
    """The regression section of the contents ``c``, if it holds regression states."""
    found = {
        key: state
        for key, state in c.states.items()
        if isinstance(state, _REGRESSION_STATES)
        or (isinstance(state, QuantileSketch) and _is_regression(c.metrics.get(key)))
        or _is_regression(c.metrics.get(key))
    }
    if not found:
        return []
    section = Section("Regression")
    names = list(c.columns.get("y_true", []))
    samples = [s for s in found.values() if isinstance(s, PairSample) and len(s.y_true)]
    for state in samples[:1]:
        outputs = names if len(names) == state.y_true.shape[1] else []
        for caption, draw in (
            ("Predicted against true", plot.predicted_vs_true),
            ("Residuals (predicted - true)", plot.residuals),
        ):
            figure(
                section,
                f"{caption} ({len(state.y_true):,} sampled pairs of {state.rows:,} rows)",
                functools.partial(_pairs, state, outputs, draw),
            )
    for key, state in found.items():
        if isinstance(state, AbsErrors) and len(state.errors):
            outputs = names if len(names) == state.errors.shape[1] else []
            figure(
                section,
                f"Absolute errors ({key}: every error)",
                functools.partial(_errors, key, state, outputs),
            )
        elif isinstance(state, QuantileSketch) and state.n_samples:
            outputs = names if len(names) == state.n_columns else []
            figure(
                section,
                f"Absolute errors ({key}: quantile sketch)",
                functools.partial(_errors, key, state, outputs),
            )
    section.tables += _per_output(c)
    if not samples:
        section.text.append(NO_PAIRS)
    return [section]
