"""The benchmark results file (``benchmarks/results.json``) and the speed table made from it.

``make bench`` (``benchmarks/run.py``) writes the rows it measures into the file, each
under the benchmark module that measured it and with the machine it ran on, replacing
that module's earlier rows; a row without a machine of its own ran on the file's
``machine``. A table whose rows come from several machines names each, and marks the
rows of every machine but the one of the most rows. The
README's speed table (between the ``speed-table`` markers) holds the headline rows, those
of the tasks named in :data:`HEADLINE`; the site's speed page holds every row. Both are
rendered from the file, never typed. Usage::

    python benchmarks/results.py            # rewrite the README's table from the file
    python benchmarks/results.py --check    # exit 1 when the README's table differs
    python benchmarks/results.py --full     # print the table of every row
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results.json"
README = HERE.parent / "README.md"
START = "<!-- speed-table:start (rendered from benchmarks/results.json) -->"
END = "<!-- speed-table:end -->"
HEADER = (
    "| task | data | scorekit | reference | speed-up | same result |\n|---|---|---|---|---|---|"
)

HEADLINE: tuple[str, ...] = (
    "f1 macro, 10 classes",
    "roc_auc, binary, distinct float64",
    "roc_auc in chunks of 1,000,000 (exact)",
    "mse",
    "r2",
    "rank_features information_gain, 10-value discrete features, 3 classes",
    "kl_divergence",
    "ndcg@10, map, mrr: parse run + qrels, evaluate",
    "fuse rrf (norm None)",
    "corpus BLEU, 13a",
    "ROUGE-1/2/L",
    "WER",
    "SQuAD exact match + F1, 1-3 gold answers",
    "loadtest, 20 streamed chunks/request",
)
"""The tasks of the README's table, one to three per family.

A name stands for every row of that task (one per reference library), and for a task
that goes on with a remark in parentheses measured by the run (``loadtest, 20 streamed
chunks/request (req/s: ...)``).
"""


MARKS = ("†", "‡", "§", "¶")
"""The marks of the rows of machines other than the main one, in order of their first row."""


def row_markdown(row: dict[str, Any], mark: str = "") -> str:
    """One row of the table, as ``_timing.Row.markdown`` prints it (``mark`` after the task)."""
    return (
        f"| {row['task']}{mark} | {row['size']} | {row['ours']:.3f} s | {row['reference_name']} "
        f"{row['reference']:.3f} s | **{row['ratio']:.1f}x** | {row['agree']} |"
    )


def machines(data: dict[str, Any], rows: list[dict[str, Any]]) -> tuple[str, dict[str, str]]:
    """The machine of the most ``rows``, and a mark for each other machine among them.

    Examples
    --------
    >>> data = {"machine": "A", "rows": []}
    >>> machines(data, [{"task": "x"}, {"task": "y", "machine": "B"}, {"task": "z"}])
    ('A', {'B': '†'})
    """
    found = [row.get("machine", data["machine"]) for row in rows]
    if not found:
        return data["machine"], {}
    main = max(dict.fromkeys(found), key=found.count)
    others = [m for m in dict.fromkeys(found) if m != main]
    if len(others) > len(MARKS):
        raise ValueError(f"benchmarks/results.py: rows from {len(others) + 1} machines")
    return main, dict(zip(others, MARKS, strict=False))


def is_headline(task: str, names: tuple[str, ...] = HEADLINE) -> bool:
    """Whether a row of this task is in the README's table."""
    return any(task == name or task.startswith(name + " (") for name in names)


def headline_rows(data: dict[str, Any], names: tuple[str, ...] = HEADLINE) -> list[dict[str, Any]]:
    """The rows of the tasks ``names``, in the file's order; a name matching none is an error."""
    rows = [row for row in data["rows"] if is_headline(row["task"], names)]
    for name in names:
        if not any(is_headline(row["task"], (name,)) for row in rows):
            raise ValueError(
                f"benchmarks/results.py: the headline task {name!r} has no row in the "
                "results file; name a task of the file in HEADLINE"
            )
    return rows


def row_lines(data: dict[str, Any], rows: list[dict[str, Any]]) -> list[str]:
    """The lines of ``rows`` in a table of them, marked by machine as :func:`render` marks them."""
    _, marks = machines(data, rows)
    return [row_markdown(row, marks.get(row.get("machine", data["machine"]), "")) for row in rows]


def render(data: dict[str, Any], *, full: bool = False) -> str:
    """The README's table: the machine line, the headline rows and a line counting them.

    With ``full``, the site's table: the machine line and every row, in the file's order.
    """
    rows = data["rows"] if full else headline_rows(data)
    main, marks = machines(data, rows)
    lines = [f"Machine: {main}."]
    lines += [f"{mark} measured on: {other}." for other, mark in marks.items()]
    lines += ["", HEADER, *row_lines(data, rows)]
    if not full:
        lines += [
            "",
            f"{len(rows)} of the {len(data['rows'])} rows of `benchmarks/results.json`; "
            "the site's Speed page has them all, with how they were measured.",
        ]
    return "\n".join(lines) + "\n"


def load(path: Path = RESULTS) -> dict[str, Any]:
    """The results file."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def update(
    data: dict[str, Any], module: str, rows: list[dict[str, Any]], machine: str | None = None
) -> dict[str, Any]:
    """The results with ``module``'s rows replaced by ``rows`` (at the place of the old ones).

    ``machine``, when given, is recorded in each new row.
    """
    old = data.get("rows", [])
    at = next((i for i, r in enumerate(old) if r["module"] == module), len(old))
    kept = [r for r in old if r["module"] != module]
    at = min(at, len(kept))
    where = {} if machine is None else {"machine": machine}
    new_rows = [{"module": module, **r, **where} for r in rows]
    return {**data, "rows": kept[:at] + new_rows + kept[at:]}


def readme_table(text: str) -> str:
    """The text between the README's speed-table markers."""
    start, end = text.index(START) + len(START), text.index(END)
    return text[start:end].strip("\n") + "\n"


def with_table(text: str, table: str) -> str:
    """The README text with ``table`` between the markers."""
    start, end = text.index(START) + len(START), text.index(END)
    return text[:start] + "\n" + table + text[end:]


_ROW = re.compile(
    r"^\| (?P<task>.*?) \| (?P<size>.*?) \| (?P<ours>[\d.]+) s \| (?P<reference_name>.*) "
    r"(?P<reference>[\d.]+) s \| \*\*(?P<ratio>[\d.]+)x\*\* \| (?P<agree>.*) \|$"
)


def parse_rows(lines: list[str], module: str) -> list[dict[str, Any]]:
    """Rows of a Markdown speed table back into records (to convert a table once)."""
    rows = []
    for line in lines:
        match = _ROW.match(line)
        if match is None:
            raise ValueError(f"not a speed-table row: {line!r}")
        row: dict[str, Any] = {"module": module, **match.groupdict()}
        for key in ("ours", "reference", "ratio"):
            row[key] = float(row[key])
        rows.append(row)
    return rows


def main() -> int:
    if "--full" in sys.argv:
        print(render(load(), full=True), end="")
        return 0
    text = README.read_text(encoding="utf-8")
    table = render(load())
    if "--check" in sys.argv:
        return 0 if readme_table(text) == table else 1
    README.write_text(with_table(text, table), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
