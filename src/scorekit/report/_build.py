"""What a report holds, built from any result, and the file it is written to."""

from __future__ import annotations

import dataclasses
import datetime
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from scorekit._version import __version__
from scorekit.core import State
from scorekit.errors import ConfigError, InputError, message, raw
from scorekit.plot import INSTALL, interval, require_matplotlib
from scorekit.report._sections import Section, sections
from scorekit.report._systems import steps_table, sweep_of_records
from scorekit.report._text import fmt

__all__ = [
    "MAX_BYTES",
    "Contents",
    "comparison",
    "contents",
    "is_comparisons",
    "missing_packages",
    "render",
    "report",
]

MAX_BYTES = 5 * 2**20
"""The largest report written: 5 MiB."""


def missing_packages() -> list[str]:
    """The packages a report needs that are not installed (none with ``scorekit[report]``).

    Nothing is imported: the check only looks for the packages.

    Examples
    --------
    >>> missing_packages()
    []
    """
    import importlib.util

    return [name for name in ("matplotlib", "jinja2") if importlib.util.find_spec(name) is None]


@dataclasses.dataclass
class Contents:
    """A result reduced to what a report shows."""

    title: str
    values: dict[str, Any]
    states: dict[str, State]
    metrics: dict[str, Any]
    rows: int | None = None
    throughput: Any = None
    records: Any = None
    inputs: list[str] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    columns: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    texts: Any = None
    squad: Mapping[str, Any] | None = None
    sweep: list[tuple[str, Any]] | None = None
    comparisons: list[Any] = dataclasses.field(default_factory=list)
    percent: tuple[str, ...] = ()


def is_comparisons(result: Any) -> bool:
    """Whether ``result`` is a non-empty list of comparisons (:func:`scorekit.stats.compare`)."""
    return (
        isinstance(result, list | tuple)
        and bool(result)
        and all(hasattr(row, "baseline_value") and hasattr(row, "difference") for row in result)
    )


def _unwrapped(c: Contents) -> None:
    """A bootstrap's metric and state replaced by the metric it wraps and its state of all rows."""
    for key, state in list(c.states.items()):
        inner_state = getattr(state, "whole", None)
        inner_metric = getattr(c.metrics.get(key), "inner", None)
        if isinstance(inner_state, State) and inner_metric is not None:
            c.states[key] = inner_state
            c.metrics[key] = inner_metric


def contents(
    result: Any,
    *,
    title: str | None = None,
    inputs: Sequence[str] = (),
    records: Any = None,
    states: Mapping[str, State] | None = None,
    notes: Sequence[str] = (),
    texts: Any = None,
    squad: Mapping[str, Any] | None = None,
    sweep: Sequence[tuple[str, Any]] | None = None,
    intervals: Mapping[str, Any] | None = None,
    percent: Sequence[str] = (),
) -> Contents:
    """The values, states and settings of any result scorekit returns.

    Takes an :class:`~scorekit.EvaluationResult`, the results of the
    :mod:`scorekit.api` functions (``evaluate_table``, ``evaluate_run``,
    ``evaluate_text``, merged state files), a
    :class:`~scorekit.throughput.ThroughputReport` (with the request
    ``records`` for figures over time, or the ``states`` it was computed
    from), or a mapping of values. A bootstrap's state (``ci=``) is reported
    as the state of the metric it wraps, its value as the interval.
    """
    found = Contents(title or "scorekit report", {}, {}, {}, inputs=list(inputs), notes=list(notes))
    found.records = records
    found.states = dict(states or {})
    found.texts, found.squad = texts, squad
    found.sweep = None if sweep is None else list(sweep)
    found.percent = tuple(percent)
    if found.sweep is None and records is not None:
        found.sweep = sweep_of_records(records, getattr(result, "slo", None))
    inner = getattr(result, "result", None)
    if inner is not None and hasattr(inner, "states"):
        found.metrics = dict(getattr(result, "metrics", {}) or {})
        found.rows = getattr(result, "rows", None)
        found.notes += list(getattr(result, "warnings", []) or [])
        result = inner
    if hasattr(result, "ttft") and hasattr(result, "failure_reasons"):
        found.throughput = result
        found.values = {
            k: v
            for k, v in dataclasses.asdict(result).items()
            if isinstance(v, int | float) and not isinstance(v, bool)
        }
        found.values.update({f"{key} (interval)": v for key, v in (intervals or {}).items()})
        found.notes += [str(note) for note in getattr(result, "notes", ()) or ()]
        token_note = getattr(result, "token_note", None)
        if token_note:
            found.notes.append(str(token_note))
        return found
    if isinstance(result, Mapping) and not hasattr(result, "states"):
        found.values = dict(result)
        return found
    if is_comparisons(result):
        found.comparisons = list(result)
        for row in found.comparisons:
            found.values.setdefault(f"{row.metric}: {row.baseline}", row.baseline_value)
            found.values[f"{row.metric}: {row.system}"] = row.value
        return found
    if not hasattr(result, "states"):
        raise InputError(
            message(
                "scorekit.report",
                "not a result scorekit can report",
                raw(type(result).__name__),
                "an evaluation result, a throughput report or a mapping of values",
            )
        )
    found.states.update({k: v for k, v in dict(result.states).items() if isinstance(v, State)})
    found.values = dict(result) if isinstance(result, Mapping) else dict(result.values)
    found.metrics.update(dict(getattr(result, "metrics", {}) or {}))
    if found.rows is None:
        found.rows = getattr(result, "rows", None)
    found.notes += list(getattr(result, "warnings", []) or [])
    columns = getattr(result, "columns", None)
    if isinstance(columns, Mapping):
        found.columns = {str(k): [str(v) for v in vs] for k, vs in columns.items()}
    _unwrapped(found)
    return found


def _scaled(value: Any, scale: float) -> Any:
    """A value shown on another scale (``--percent``): a number, or an interval's point value."""
    if scale == 1.0:
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value * scale
    point = getattr(value, "value", None)
    return point * scale if isinstance(point, int | float) else value


def _summary(c: Contents) -> tuple[list[str], list[list[str]], list[str]]:
    """The summary's headers and rows (low and high columns when a value has an interval)."""
    intervals = {key: interval(value) for key, value in c.values.items()}
    shown = any(ci is not None for ci in intervals.values())
    rows = []
    how: dict[str, None] = {}
    for key, value in c.values.items():
        metric = c.metrics.get(key)
        scale = 100.0 if key in c.percent else 1.0
        row = [f"{key} (%)" if scale != 1.0 else key, fmt(_scaled(value, scale))]
        ci = intervals[key]
        if shown:
            row += ["", ""] if ci is None else [fmt(ci[0] * scale), fmt(ci[1] * scale)]
        if ci is not None and hasattr(value, "confidence") and hasattr(value, "method"):
            how[f"{float(value.confidence):.0%} {value.method}"] = None
        settings = repr(metric) if metric is not None else ""
        signature = getattr(value, "signature", None)
        make = getattr(metric, "signature", None)
        if not isinstance(signature, str) and callable(make) and key in c.states:
            try:
                signature = make(c.states[key])
            except (TypeError, ValueError):
                signature = None
        if isinstance(signature, str):
            settings = f"{settings} signature: {signature}".strip()
        rows.append([*row, settings])
    headers = ["metric", "value", *(["low", "high"] if shown else []), "settings"]
    notes = [f"Intervals: {', '.join(how)}." if how else "Intervals as the values carry them."]
    return headers, rows, notes if shown else []


def _environment() -> Any:
    try:
        import jinja2
    except ImportError as exc:
        raise ConfigError(
            message("scorekit report", "jinja2 is not installed", raw(str(exc)), INSTALL)
        ) from None
    from scorekit.report._template import TEMPLATE

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    return env.from_string(TEMPLATE)


def render(result: Any, **options: Any) -> str:
    """The HTML text of the report of ``result`` (options as :func:`report`).

    Examples
    --------
    >>> html = render({"exact": 81.2, "f1": 88.9}, title="SQuAD <dev>")
    >>> "SQuAD &lt;dev&gt;" in html and "<script" not in html
    True
    """
    require_matplotlib("scorekit report")
    template = _environment()
    c = contents(result, **options)
    parts: list[Section] = sections(c)
    facts = [
        ["scorekit version", __version__],
        ["date", datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")],
    ]
    if c.rows is not None:
        facts.append(["rows", f"{c.rows:,}"])
    facts += [["input", name] for name in c.inputs]
    headers, summary, how = _summary(c)
    if c.sweep:
        # a sweep leads with its steps: no figure or value of the summary pools them
        steps = steps_table(c.sweep)
        headers, summary = steps.headers, steps.rows
        how = ["Each row is one step of the sweep; the figures show the steps apart."]
    notes = list(dict.fromkeys(c.notes))

    def page() -> str:
        return str(
            template.render(
                title=c.title,
                facts=facts,
                headers=headers,
                summary=summary,
                intervals=how,
                sections=parts,
                notes=notes,
            )
        )

    html = page()
    if len(html.encode("utf-8")) > MAX_BYTES:
        for part in reversed(parts):
            part.figures = [
                (caption, "<p>(figure left out: the report would pass 5 MB)</p>")
                for caption, _ in part.figures
            ]
            html = page()
            if len(html.encode("utf-8")) <= MAX_BYTES:
                break
    return html


def report(
    result: Any,
    path: str | os.PathLike[str],
    *,
    title: str | None = None,
    inputs: Sequence[str] = (),
    records: Any = None,
    states: Mapping[str, State] | None = None,
    notes: Sequence[str] = (),
    texts: Any = None,
    squad: Mapping[str, Any] | None = None,
    sweep: Sequence[tuple[str, Any]] | None = None,
    intervals: Mapping[str, Any] | None = None,
    percent: Sequence[str] = (),
) -> str:
    """Write the self-contained HTML report of ``result`` to ``path`` and return the path.

    Parameters
    ----------
    result
        An evaluation result (:func:`scorekit.evaluate`, the :mod:`scorekit.api`
        functions, merged state files; with ``ci=``, its intervals), a
        throughput report, a mapping of values (``scorekit.qa.squad``), or the
        comparisons of :func:`scorekit.stats.compare` (see :func:`comparison`).
    path
        The HTML file written (its folder must exist).
    title
        The heading; by default ``scorekit report``.
    inputs
        The input files, listed in the summary.
    records
        For a throughput report: the request records
        (:func:`scorekit.throughput.read_records`), for the figures over time;
        a sweep's records (a ``step`` column) also give its figure of
        throughput against latency, a point per step.
    states
        For a throughput report: the states it was computed from (merged
        shards), for the latency figures.
    notes
        Warnings to show.
    texts
        For text metrics: ``(references, predictions)`` as the metrics'
        ``summarize`` takes them, for the distribution of the per-segment
        values and the worst segments.
    squad
        For SQuAD scores: the keyword arguments of :func:`scorekit.qa.squad`
        (``dataset``, ``predictions``, and ``version``, ``na_probs``,
        ``na_prob_thresh`` when not the defaults), for the per-question exact
        match and F1 and the worst questions.
    sweep
        For a load-test sweep: ``(label, throughput report)`` per step
        (:func:`scorekit.loadtest.sweep_reports`), for the figure of
        throughput against latency and the table of the steps.
    intervals
        For a throughput report: the intervals of its serving metrics
        (:func:`scorekit.api.throughput_intervals`), shown in the summary with
        their bounds.
    percent
        The metrics whose values the summary shows times 100, labelled ``(%)``
        (``scorekit text --percent``: BLEU, chrF and TER on sacrebleu's scale).

    Examples
    --------
    >>> import os, tempfile
    >>> path = report({"accuracy": 0.9}, os.path.join(tempfile.mkdtemp(), "r.html"))
    >>> path.endswith("r.html")
    True
    """
    html = render(
        result,
        title=title,
        inputs=inputs,
        records=records,
        states=states,
        notes=notes,
        texts=texts,
        squad=squad,
        sweep=sweep,
        intervals=intervals,
        percent=percent,
    )
    return _write(html, path)


def comparison(
    results: Sequence[Any],
    path: str | os.PathLike[str],
    *,
    title: str | None = None,
    inputs: Sequence[str] = (),
    notes: Sequence[str] = (),
) -> str:
    """Write the report of systems compared (:func:`scorekit.stats.compare`) and return the path.

    ``results`` are :class:`~scorekit.stats.Comparison` rows (one per system
    and metric against the baseline). The report shows the values of the
    systems side by side, each difference from the baseline with its interval
    (where the test gives one) and p-value, and the table of the tests.

    Examples
    --------
    >>> import os, tempfile
    >>> from scorekit import stats
    >>> y = [0, 1, 1, 0, 1, 0, 1, 1] * 10
    >>> a, b = [0, 1, 0, 0, 1, 1, 1, 0] * 10, [0, 1, 1, 0, 1, 0, 1, 0] * 10
    >>> rows = stats.compare("accuracy", y, a, b, n_resamples=200, names=["a", "b"])
    >>> path = comparison(rows, os.path.join(tempfile.mkdtemp(), "c.html"))
    >>> "Differences from the baseline" in open(path, encoding="utf-8").read()
    True
    """
    if not is_comparisons(results):
        raise InputError(
            message(
                "scorekit.report.comparison",
                "not comparisons",
                raw(type(results).__name__),
                "a non-empty list of scorekit.stats.Comparison",
            )
        )
    html = render(list(results), title=title or "scorekit comparison", inputs=inputs, notes=notes)
    return _write(html, path)


def _write(html: str, path: str | os.PathLike[str]) -> str:
    target = Path(path)
    try:
        target.write_text(html, encoding="utf-8")
    except OSError as exc:
        raise InputError(
            message(
                "scorekit report",
                "cannot write the report",
                str(target),
                exc.strerror or "a writable path",
            )
        ) from None
    return str(target)
