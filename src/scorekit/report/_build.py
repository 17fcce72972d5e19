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
from scorekit.report._text import fmt

__all__ = ["MAX_BYTES", "Contents", "contents", "render", "report"]

MAX_BYTES = 5 * 2**20
"""The largest report written: 5 MiB."""


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


def contents(
    result: Any,
    *,
    title: str | None = None,
    inputs: Sequence[str] = (),
    records: Any = None,
    states: Mapping[str, State] | None = None,
    notes: Sequence[str] = (),
) -> Contents:
    """The values, states and settings of any result scorekit returns.

    Takes an :class:`~scorekit.EvaluationResult`, the results of the
    :mod:`scorekit.api` functions (``evaluate_table``, ``evaluate_run``,
    ``evaluate_text``, merged state files), a
    :class:`~scorekit.throughput.ThroughputReport` (with the request
    ``records`` for figures over time, or the ``states`` it was computed
    from), or a mapping of values.
    """
    found = Contents(title or "scorekit report", {}, {}, {}, inputs=list(inputs), notes=list(notes))
    found.records = records
    found.states = dict(states or {})
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
        found.notes += [str(note) for note in getattr(result, "notes", ()) or ()]
        return found
    if isinstance(result, Mapping) and not hasattr(result, "states"):
        found.values = dict(result)
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
    return found


def _summary(c: Contents) -> list[list[str]]:
    rows = []
    for key, value in c.values.items():
        metric = c.metrics.get(key)
        ci = interval(value)
        shown = fmt(value)
        if ci is not None:
            shown += f"  [{ci[0]:.4g}, {ci[1]:.4g}]"
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
        rows.append([key, shown, settings])
    return rows


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
    summary, notes = _summary(c), list(dict.fromkeys(c.notes))

    def page() -> str:
        return str(
            template.render(
                title=c.title, facts=facts, summary=summary, sections=parts, notes=notes
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
) -> str:
    """Write the self-contained HTML report of ``result`` to ``path`` and return the path.

    Parameters
    ----------
    result
        An evaluation result (:func:`scorekit.evaluate`, the :mod:`scorekit.api`
        functions, merged state files), a throughput report, or a mapping of
        values (``scorekit.qa.squad``).
    path
        The HTML file written (its folder must exist).
    title
        The heading; by default ``scorekit report``.
    inputs
        The input files, listed in the summary.
    records
        For a throughput report: the request records
        (:func:`scorekit.throughput.read_records`), for the figures over time.
    states
        For a throughput report: the states it was computed from (merged
        shards), for the latency figures.
    notes
        Warnings to show.

    Examples
    --------
    >>> import os, tempfile
    >>> path = report({"accuracy": 0.9}, os.path.join(tempfile.mkdtemp(), "r.html"))
    >>> path.endswith("r.html")
    True
    """
    html = render(result, title=title, inputs=inputs, records=records, states=states, notes=notes)
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
