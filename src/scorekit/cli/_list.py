"""``scorekit list``: the registered metrics, as a table or JSON."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any, TextIO

from scorekit.cli._flags import format_flag
from scorekit.core import MetricInfo, available
from scorekit.explain import bound_text

NAME = "list"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``list`` command's parser."""
    ls: argparse.ArgumentParser = sub.add_parser(NAME, help="list the registered metrics")
    format_flag(ls, "table", "json")
    return ls


def _direction(info: MetricInfo) -> str:
    if info.higher_is_better is None:
        return "—"
    return "higher" if info.higher_is_better else "lower"


def _listing() -> list[dict[str, Any]]:
    rows = []
    for info in available():
        rows.append(
            {
                "name": info.name,
                "aliases": [*info.aliases, *(f"{a}@{info.at}" for a in info.at_aliases)],
                "direction": _direction(info),
                "bounds": [info.bounds[0], info.bounds[1]],
                "inputs": info.inputs,
                "grows": info.grows,
                "bounded": info.bounded,
                "variants": [f"{info.name}:{v}" for v in info.variants],
                "variant_forms": [f"{info.name}:{info.variant_form}"] if info.variant_form else [],
                "variant_pattern": info.variant_pattern,
                "at": info.at,
                "summary": info.summary,
            }
        )
    return rows


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print every registered metric: name, aliases, direction, bounds, inputs, summary."""
    rows = _listing()
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
    widths = [max([len(h), *(len(line[i]) for line in table)]) for i, h in enumerate(header[:-1])]
    for line in [header, *table]:
        cells = [f"{c:<{w}}" for c, w in zip(line[:-1], widths, strict=True)]
        out.write("  ".join([*cells, line[-1]]).rstrip() + "\n")
    forms = [form for r in rows for form in r["variant_forms"]]
    out.write(f"\n{len(rows)} metrics; `scorekit explain NAME` describes one.\n")
    if forms:
        out.write(f"Variant forms: {', '.join(forms)} (for example {_example(forms[0])}).\n")
    out.write(
        "A bootstrap (--ci) keeps one state of each metric per resample (--n-resamples, "
        "default 1,000): its memory is that many times the metric's, and more for metrics "
        "whose state grows ('yes' above).\n"
    )
    return 0


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
