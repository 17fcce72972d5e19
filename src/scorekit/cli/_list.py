"""``scorekit list``: the registered metrics, as a table or JSON, of every family or one.

The rows come from :func:`scorekit.core.catalog`: the metadata of scorekit's
own metrics is read from its index, so listing them imports no family.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import sys
import textwrap
from typing import Any, TextIO

from scorekit.cli._flags import format_flag
from scorekit.core import MetricEntry, catalog
from scorekit.errors import ConfigError, choices, message
from scorekit.explain import bound_text

NAME = "list"

_MIN_SUMMARY = 30
"""The narrowest summary column of the table; a narrower terminal gets one block per metric."""


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``list`` command's parser."""
    ls: argparse.ArgumentParser = sub.add_parser(NAME, help="list the registered metrics")
    format_flag(ls, "table", "json")
    ls.add_argument(
        "--family",
        metavar="FAMILY",
        help="only the metrics of one family (classification, ranking, text, ...)",
    )
    return ls


def family(entry: MetricEntry) -> str:
    """The family of a registered metric: the package that defines it.

    ``classification`` for :class:`scorekit.classification.F1`; for a metric of a
    plug-in, the plug-in's top-level package.

    Examples
    --------
    >>> entries = {entry.name: entry for entry in catalog()}
    >>> family(entries["ndcg"]), family(entries["bleu"])
    ('ranking', 'text')
    """
    parts = entry.module.split(".")
    return parts[1] if parts[0] == "scorekit" and len(parts) > 1 else parts[0]


def families(entries: list[MetricEntry] | None = None) -> list[str]:
    """The families of the registered metrics (or of ``entries``), sorted.

    Examples
    --------
    >>> {"classification", "ranking", "throughput"} <= set(families())
    True
    """
    return sorted({family(entry) for entry in (catalog() if entries is None else entries)})


def _direction(entry: MetricEntry) -> str:
    if entry.higher_is_better is None:
        return "—"
    return "higher" if entry.higher_is_better else "lower"


def _listing(only: str | None = None) -> list[dict[str, Any]]:
    """The rows of the metrics (of family ``only``), from their entries: no family is imported."""
    entries = catalog()
    if only is not None and only not in families(entries):
        raise ConfigError(message("list", "unknown family", only, choices(families(entries))))
    rows = []
    for entry in entries:
        if only is not None and family(entry) != only:
            continue
        rows.append(
            {
                "name": entry.name,
                "family": family(entry),
                "aliases": [*entry.aliases, *(f"{a}@{entry.at}" for a in entry.at_aliases)],
                "direction": _direction(entry),
                "bounds": [entry.bounds[0], entry.bounds[1]],
                "inputs": entry.inputs,
                "grows": entry.grows,
                "bounded": entry.bounded,
                "variants": [f"{entry.name}:{v}" for v in entry.variants],
                "variant_forms": [f"{entry.name}:{entry.variant_form}"]
                if entry.variant_form
                else [],
                "variant_pattern": entry.variant_pattern,
                "at": entry.at,
                "summary": plain_summary(entry.summary),
            }
        )
    return rows


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print every registered metric: name, aliases, direction, bounds, inputs, summary."""
    rows = _listing(args.family)
    if args.format == "json":
        for row in rows:
            row["bounds"] = [_plainbound_text(b) for b in row["bounds"]]
            if row["direction"] == "—":
                row["direction"] = None
        out.write(json.dumps(rows, indent=2) + "\n")
        return 0
    header = ["name", "aliases", "direction", "bounds", "inputs", "grows", "summary"]
    table = [
        [
            r["name"] + (f"@{r['at']}" if r["at"] else ""),
            ", ".join(r["aliases"]) or "—",
            r["direction"],
            f"[{bound_text(r['bounds'][0])}, {bound_text(r['bounds'][1])}]",
            r["inputs"],
            _grows_text(r["grows"], r["bounded"]),
            r["summary"],
        ]
        for r in rows
    ]
    width = _width()
    for line in _table_lines(header, table, width):
        out.write(line + "\n")
    forms = [form for r in rows for form in r["variant_forms"]]
    scope = f" of family {args.family}" if args.family else ""
    notes = [f"{len(rows)} metrics{scope}; `scorekit explain NAME` describes one."]
    if forms:
        notes.append(f"Variant forms: {', '.join(forms)} (for example {_example(forms[0])}).")
    notes.append(
        "A bootstrap (--ci) keeps one state of each metric per resample (--n-resamples, "
        "default 1,000): its memory is that many times the metric's, and more for metrics "
        "whose state grows ('yes' above)."
    )
    out.write("\n")
    for note in notes:
        out.write(
            (textwrap.fill(note, max(width, 40), break_on_hyphens=False) if width else note) + "\n"
        )
    return 0


def _width() -> int | None:
    """The terminal's width (``COLUMNS`` overrides it); None (no limit) when not on a terminal."""
    if _on_terminal():
        return shutil.get_terminal_size((100, 24)).columns
    return None


def _on_terminal() -> bool:
    """Whether the command's output goes to a terminal."""
    return sys.stdout.isatty()


def _table_lines(header: list[str], table: list[list[str]], width: int | None) -> list[str]:
    """The table in at most ``width`` columns (None: no limit), the aliases and summary wrapped.

    Where even a summary of :data:`_MIN_SUMMARY` columns does not fit, each
    metric is a block instead: its name and settings on one line, its aliases
    and summary wrapped below.

    Examples
    --------
    >>> rows = [["f1", "—", "higher", "[0, 1]", "labels", "no",
    ...          "F1 score: the harmonic mean of precision and recall."]]
    >>> header = ["name", "aliases", "a", "b", "c", "d", "summary"]
    >>> for line in _table_lines(header, rows, 80):
    ...     print(line)
    name  aliases  a       b       c       d   summary
    f1    —        higher  [0, 1]  labels  no  F1 score: the harmonic mean of
                                               precision and recall.
    >>> for line in _table_lines(header, rows, 30):
    ...     print(line)
    f1  higher  [0, 1]
      inputs: labels; grows: no
      F1 score: the harmonic mean
      of precision and recall.
    """
    natural = [max([len(h), *(len(row[i]) for row in table)]) for i, h in enumerate(header)]
    fixed = sum(natural[i] for i in (0, 2, 3, 4, 5)) + 2 * (len(header) - 1)
    longest = max([len(header[1]), *(len(a) for row in table for a in row[1].split(", "))])
    aliases = min(natural[1], max(longest, 24))
    if width is None:
        width = fixed + natural[1] + natural[6]
        aliases = natural[1]
    summary = width - fixed - aliases
    if summary < _MIN_SUMMARY:
        return _blocks(table, width)
    widths = [*natural[:1], aliases, *natural[2:6], summary]
    lines: list[str] = []
    for row in [header, *table]:
        cells = [
            textwrap.wrap(c, w, break_on_hyphens=False) or [""]
            for c, w in zip(row, widths, strict=True)
        ]
        for k in range(max(len(c) for c in cells)):
            parts = [
                f"{(c[k] if k < len(c) else ''):<{w}}" for c, w in zip(cells, widths, strict=True)
            ]
            lines.append("  ".join(parts).rstrip())
    return lines


def _blocks(table: list[list[str]], width: int) -> list[str]:
    """One block per metric, for a terminal too narrow for the table."""
    lines: list[str] = []
    wrap = max(width - 2, 20)
    for name, aliases, direction, bounds, inputs, grows, summary in table:
        lines.append(f"{name}  {direction}  {bounds}")
        about = f"inputs: {inputs}; grows: {grows}" + (
            f"; aliases: {aliases}" if aliases != "—" else ""
        )
        for text in (about, summary):
            lines += textwrap.wrap(
                text, wrap, initial_indent="  ", subsequent_indent="  ", break_on_hyphens=False
            )
    return lines


def _example(form: str) -> str:
    """A metric string of a variant form, its ``N`` a number (``ttft:pN`` -> ``ttft:p95``).

    Examples
    --------
    >>> _example("ttft:pN")
    'ttft:p95'
    """
    name, _, variant = form.partition(":")
    return f"{name}:{variant.replace('N', '95')}"


def _grows_text(grows: bool, bounded: str | None) -> str:
    """``no``, ``yes``, or ``yes (bins=N)`` naming the option that bounds the memory."""
    if not grows:
        return "no"
    return f"yes ({bounded})" if bounded else "yes"


def _plainbound_text(x: float) -> float | str:
    return bound_text(x) if math.isinf(x) else x


_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")


def plain_summary(text: str) -> str:
    """A docstring's first line as plain text: reST roles and literals shown as their text.

    Examples
    --------
    >>> plain_summary("The square root of :class:`MSE`, with ``y_true`` and :func:`~a.b.f1`.")
    'The square root of MSE, with y_true and f1.'
    """
    text = _ROLE.sub(lambda m: m[1].rsplit(".", 1)[-1], text)
    return text.replace("``", "")
