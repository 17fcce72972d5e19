"""What the ``scorekit`` commands print: metric values as a table, JSON or CSV, and state files.

:func:`write_values` prints a ``{name: value}`` mapping in the ``--format`` asked
for; :func:`save_state` writes ``--save-state`` files for ``scorekit merge``.
"""

from __future__ import annotations

import csv
import json
import math
import warnings
from typing import Any, TextIO

import numpy as np

from scorekit.core import ByGroup, Estimate, plain_value
from scorekit.stats import Interval, parse_test

RESAMPLED_TESTS = ("paired_bootstrap", "randomization", "fisher")
"""The tests of ``--test`` that resample (``--n-resamples`` and ``--seed`` shape them)."""

FEW_RESAMPLES = 100
"""Below this many bootstrap resamples ``--ci`` warns that its bounds are rough."""


plain = plain_value
"""JSON-ready form of a metric value (:func:`scorekit.core.plain_value`)."""


def number(value: Any) -> str:
    """A value as the table shows it: four decimals, whole numbers from 10 up without them.

    Examples
    --------
    >>> number(0.83125), number(12.0), number(3)
    ('0.8313', '12', '3')
    """
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        v = float(value)
        if not math.isfinite(v):
            return str(v)
        return str(int(v)) if v.is_integer() and abs(v) >= 10 else f"{v:.4f}"
    return str(value)


def bound_text(value: Any) -> str:
    """An error bound at four decimals, or in scientific notation when smaller."""
    v = float(value)
    if math.isfinite(v) and 0 < abs(v) < 5e-5:
        return f"{v:.1e}"
    return number(v)


def cell(value: Any) -> list[str]:
    """Lines showing one value in the table: a number, or an indented array.

    An :class:`~scorekit.Estimate` shows as ``0.8312 (± 0.0004)``; per-column
    estimates as the array of values and then the array of bounds.
    """
    if isinstance(value, Estimate):
        if np.ndim(value.value) == 0:
            return [f"{number(value.value)} (± {bound_text(value.error_bound)})"]
        bounds = cell(np.asarray(value.error_bound))
        return [*cell(np.asarray(value.value)), f"± {bounds[0]}", *(f"  {b}" for b in bounds[1:])]
    if isinstance(value, np.generic | int | float):
        return [number(value)]
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        if value.ndim == 0:
            return [number(value.item())]
        with np.printoptions(precision=4, suppress=True, linewidth=80, threshold=60):
            return np.array2string(value).splitlines()
    if isinstance(value, tuple | list):
        lines = []
        names = getattr(value, "_fields", range(len(value)))
        for name, part in zip(names, value, strict=True):
            sub = cell(np.asarray(part) if isinstance(part, list) else part)
            lines += [f"[{name}] {sub[0]}", *(f"    {s}" for s in sub[1:])]
        return lines
    return str(value).splitlines() or [""]


def write_table(values: dict[str, Any], out: TextIO) -> None:
    """``{name: value}`` as a two-column table of metric and value."""
    width = max([len("metric"), *(len(k) for k in values)])
    out.write(f"{'metric':<{width}}  value\n")
    out.write(f"{'-' * width}  {'-' * 10}\n")
    for name, value in values.items():
        lines = cell(value)
        out.write(f"{name:<{width}}  {lines[0]}\n")
        for line in lines[1:]:
            out.write(f"{'':<{width}}  {line}\n")


def write_intervals(values: dict[str, Any], fmt: str, out: TextIO, note: str = "") -> None:
    """``{name: Interval}`` in the ``--format`` asked for, with ``low`` and ``high`` columns.

    The table ends with ``note`` (how the intervals were made); JSON gives each
    metric as ``{"value", "low", "high", "confidence", "method"}``; CSV has the
    columns ``metric, value, low, high``. A value that is not an interval has
    empty bounds.
    """
    if fmt == "json":
        out.write(json.dumps({k: plain(v) for k, v in values.items()}, indent=2) + "\n")
        return
    rows: list[tuple[str, Any, Any, Any]] = []
    for name, value in values.items():
        if isinstance(value, Interval):
            rows.append((name, value.value, value.low, value.high))
        else:
            rows.append((name, value, None, None))
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["metric", "value", "low", "high"])
        for row in rows:
            shown = [plain(v) for v in row[1:]]
            writer.writerow([row[0], *("" if v is None else repr(v) for v in shown)])
        return
    header = ("metric", "value", "low", "high")
    cells = [[name, *("" if v is None else number(v) for v in rest)] for name, *rest in rows]
    widths = [max([len(h), *(len(c[i]) for c in cells)]) for i, h in enumerate(header)]
    for line in [list(header), ["-" * w for w in widths], *cells]:
        out.write("  ".join(f"{c:<{w}}" for c, w in zip(line, widths, strict=True)).rstrip())
        out.write("\n")
    if note:
        out.write(f"\n{note}\n")


def write_ci_values(
    values: dict[str, Any],
    fmt: str,
    out: TextIO,
    err: TextIO,
    ci: Any,
    metrics: Any = (),
) -> None:
    """Values, with intervals when ``ci`` (a :class:`scorekit.api.CI`) is set.

    The line that says how the intervals were made (confidence, method,
    resamples, seed and unit, the units read from ``metrics``) ends the table;
    with JSON or CSV it goes to stderr, so that stdout stays parseable.
    """
    if ci is None:
        write_values(values, fmt, out)
        return
    units = [str(getattr(m, "unit", "row")) for m in dict(metrics).values()]
    note = ci.describe(units)
    if ci.n_resamples < FEW_RESAMPLES:
        warnings.warn(
            f"--n-resamples {ci.n_resamples}: few resamples, the bounds will vary from seed to "
            f"seed (at least {FEW_RESAMPLES}; 1000 or more for 95% intervals)",
            UserWarning,
            stacklevel=2,
        )
    write_values(values, fmt, out, note if fmt == "table" else "")
    if fmt != "table":
        err.write(f"scorekit: {note}\n")


def write_values(values: dict[str, Any], fmt: str, out: TextIO, note: str = "") -> None:
    """``{name: value}`` in the ``--format`` asked for: ``table``, ``json`` or ``csv``.

    Values that are :class:`~scorekit.stats.Interval` s are written by
    :func:`write_intervals`, values per group by :func:`write_groups`
    (``note`` ends either table).
    """
    if any(isinstance(v, Interval) for v in values.values()):
        write_intervals(values, fmt, out, note)
        return
    if any(isinstance(v, ByGroup) for v in values.values()):
        write_groups(values, fmt, out)
        if note:
            out.write(f"\n{note}\n")
        return
    if fmt == "json":
        out.write(json.dumps({k: plain(v) for k, v in values.items()}, indent=2) + "\n")
    elif fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["metric", "value"])
        for name, value in values.items():
            shown = plain(value)
            text = json.dumps(shown) if isinstance(shown, list | dict) else shown
            writer.writerow([name, "" if text is None else text])
    else:
        write_table(values, out)


def write_groups(values: dict[str, Any], fmt: str, out: TextIO) -> None:
    """``{name: ByGroup}`` in the ``--format`` asked for, one row per statistic.

    Table and CSV have the columns ``metric, statistic, <group columns>, value,
    rows``: the statistic is ``overall`` (all the rows), ``group`` (the group
    whose values fill the group columns), ``difference`` or ``ratio`` (across
    the groups, of the point values). Intervals add the columns ``low`` and
    ``high`` after ``value``. JSON gives each metric as :meth:`ByGroup.as_dict`.
    """
    if fmt == "json":
        out.write(json.dumps({k: plain(v) for k, v in values.items()}, indent=2) + "\n")
        return
    by = list(dict.fromkeys(c for v in values.values() if isinstance(v, ByGroup) for c in v.by))
    bounded = any(
        isinstance(x, Interval)
        for v in values.values()
        for x in ([v.overall, *v.by_group.values()] if isinstance(v, ByGroup) else [v])
    )

    def expand(value: Any) -> list[Any]:
        if not bounded:
            return [value]
        if isinstance(value, Interval):
            return [value.value, value.low, value.high]
        return [value, None, None]

    rows: list[list[Any]] = []
    for name, value in values.items():
        if not isinstance(value, ByGroup):
            rows.append([name, "overall", *[None] * len(by), *expand(value), None])
            continue
        found = value.as_dict()
        rows.append([name, "overall", *[None] * len(by), *expand(value.overall), found["rows"]])
        for (_, each, size), group in zip(value.groups(), found["groups"], strict=True):
            cells = [group.get(c) for c in by]
            rows.append([name, "group", *cells, *expand(each), size])
        for statistic, number in value.spread().items():
            rows.append([name, statistic, *[None] * len(by), *expand(number), None])
    header = ["metric", "statistic", *by, "value", *(("low", "high") if bounded else ()), "rows"]
    numeric = {header.index("value"), *((len(header) - 3, len(header) - 2) if bounded else ())}
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
        for row in rows:
            shown = [plain(v) for v in row]
            writer.writerow(
                [
                    "" if v is None else json.dumps(v) if isinstance(v, list | dict) else v
                    for v in shown
                ]
            )
        return
    cells = [
        [("" if v is None else cell(v)[0] if i in numeric else str(v)) for i, v in enumerate(r)]
        for r in rows
    ]
    widths = [max([len(h), *(len(c[i]) for c in cells)]) for i, h in enumerate(header)]
    for line in [header, ["-" * w for w in widths], *cells]:
        out.write("  ".join(f"{c:<{w}}" for c, w in zip(line, widths, strict=True)).rstrip())
        out.write("\n")


def ci_header(ci: Any) -> dict[str, Any]:
    """What a state file keeps of ``--ci`` (confidence and method) for ``scorekit merge``."""
    if ci is None:
        return {}
    return {"ci": {"confidence": ci.confidence, "method": ci.method}}


def save_state(path: str, command: str, kind: str, result: Any, **header: Any) -> None:
    """Write ``--save-state``: the states behind the values a command prints."""
    from scorekit.api import save_states

    entries = {key: (result.metrics[key], result.states[key]) for key in result.states}
    options = dict(getattr(result, "options", {}) or {})
    columns = header.pop("columns", getattr(result, "columns", None))
    save_states(
        path,
        entries,
        command=command,
        input=kind,
        columns=columns,
        options={**options, **header},
        rows=result.rows,
    )


class Saved:
    """The metrics, states and rows a command saves with ``--save-state``."""

    def __init__(self, metrics: dict[str, Any], states: dict[str, Any], rows: int) -> None:
        self.metrics, self.states, self.rows = metrics, states, rows


_TEST_NAMES = {
    "paired_bootstrap": "paired bootstrap",
    "randomization": "approximate randomization",
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "fisher": "Fisher's randomization test",
    "mcnemar": "McNemar's exact test",
    "delong": "DeLong's test",
    "tukey": "Tukey's HSD test",
}


def _signed(value: float) -> str:
    text = number(value)
    return text if text.startswith("-") or not math.isfinite(value) else f"+{text}"


def write_comparisons(result: Any, fmt: str, out: TextIO) -> None:
    """A comparison (an :class:`~scorekit.EvaluationResult` with ``comparisons``) as text.

    One row per metric and system: the value, the difference from the
    baseline, the difference's interval (where the test gives one), the
    p-value, the adjusted p-value (with a correction) and ``*`` where the
    (adjusted) p-value is below ``1 - confidence``. The table shows the
    baseline's row first for each metric and ends with the test's name.
    """
    paired = result.settings
    alpha = 1.0 - paired.confidence
    corrected = paired.correction is not None
    name = parse_test(paired.test)[0]
    alternative = getattr(paired, "alternative", "two-sided")
    records = []
    for key, c in result.comparisons:
        p = c.adjusted if corrected else c.pvalue
        records.append(
            {
                "metric": key,
                "system": c.system,
                "baseline": c.baseline,
                "value": c.value,
                "baseline_value": c.baseline_value,
                "difference": c.difference,
                "low": c.low,
                "high": c.high,
                "pvalue": c.pvalue,
                "adjusted": c.adjusted,
                "significant": bool(p < alpha),
                "test": c.test,
            }
        )
    if fmt == "json":
        doc = {"test": paired.test, "alternative": alternative, "correction": paired.correction}
        doc["confidence"] = paired.confidence
        if name in RESAMPLED_TESTS:
            # the analytic tests (t, Wilcoxon, McNemar, DeLong) draw nothing
            doc.update(n_resamples=paired.n_resamples, seed=paired.seed)
        doc["comparisons"] = records
        out.write(json.dumps(plain(doc), indent=2) + "\n")
        return
    fields = ["metric", "system", "value", "difference", "low", "high", "pvalue"]
    if corrected:
        fields.append("adjusted")
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow([*fields, "baseline", "significant"])
        for r in records:
            cells = [r[f] for f in fields] + [r["baseline"], r["significant"]]
            writer.writerow(["" if v is None else v for v in (plain(c) for c in cells)])
        return
    spans = any(_interval(r["low"], r["high"]) for r in records)
    header = ["metric", "system", "value", "difference", *(["interval"] if spans else [])]
    header += ["p-value", *(["adjusted"] if corrected else []), "sig"]
    lines: list[list[str]] = []
    shown: set[str] = set()
    for r in records:
        if r["metric"] not in shown:
            shown.add(r["metric"])
            base = [r["metric"], r["baseline"], number(r["baseline_value"]), "(baseline)"]
            lines.append(base + [""] * (len(header) - len(base)))
        row = [r["metric"], r["system"], number(r["value"]), _signed(r["difference"])]
        if spans:
            row.append(_interval(r["low"], r["high"]))
        row.append(_pvalue(r["pvalue"]))
        if corrected:
            row.append(_pvalue(r["adjusted"]))
        row.append("*" if r["significant"] else "")
        lines.append(row)
    widths = [max([len(h), *(len(line[i]) for line in lines)]) for i, h in enumerate(header)]
    for line in [header, ["-" * w for w in widths], *lines]:
        out.write("  ".join(f"{c:<{w}}" for c, w in zip(line, widths, strict=True)).rstrip())
        out.write("\n")
    test = _TEST_NAMES.get(name, paired.test)
    if alternative != "two-sided":
        test += f", one-sided ({alternative})"
    adjusted = f", p-values adjusted by {paired.correction}" if corrected else ""
    level = f"; intervals of the difference at {100 * paired.confidence:g}%" if spans else ""
    out.write(f"\n{test}{adjusted}; * p < {alpha:g}{level}\n")


def _interval(low: float, high: float) -> str:
    """An interval of the difference: ``[a, b]``, one-sided ``[a, inf)`` or ``(-inf, b]``, or
    ``""`` where the test gives none (NaN bounds)."""
    if math.isnan(low) or math.isnan(high) or (math.isinf(low) and math.isinf(high)):
        return ""
    left = "(-inf" if math.isinf(low) else f"[{number(low)}"
    right = "inf)" if math.isinf(high) else f"{number(high)}]"
    return f"{left}, {right}"


def _pvalue(p: float) -> str:
    """A p-value at four decimals, or ``<0.0001``."""
    if not math.isfinite(p):
        return str(p)
    return "<0.0001" if 0 <= p < 1e-4 else f"{p:.4f}"
