"""The benchmark results file (``benchmarks/results.json``) and the speed table made from it.

``make bench`` (``benchmarks/run.py``) writes the rows it measures into the file, each
under the benchmark module that measured it, replacing that module's earlier rows; the
README's speed table (between the ``speed-table`` markers) and the site's speed page
are rendered from the file, never typed. Usage::

    python benchmarks/results.py            # rewrite the README's table from the file
    python benchmarks/results.py --check    # exit 1 when the README's table differs
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


def row_markdown(row: dict[str, Any]) -> str:
    """One row of the table, as ``_timing.Row.markdown`` prints it."""
    return (
        f"| {row['task']} | {row['size']} | {row['ours']:.3f} s | {row['reference_name']} "
        f"{row['reference']:.3f} s | **{row['ratio']:.1f}x** | {row['agree']} |"
    )


def render(data: dict[str, Any]) -> str:
    """The machine line and the table of every row, in the file's order."""
    lines = [f"Machine: {data['machine']}.", "", HEADER]
    lines += [row_markdown(row) for row in data["rows"]]
    return "\n".join(lines) + "\n"


def load(path: Path = RESULTS) -> dict[str, Any]:
    """The results file."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def update(data: dict[str, Any], module: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The results with ``module``'s rows replaced by ``rows`` (at the place of the old ones)."""
    old = data.get("rows", [])
    at = next((i for i, r in enumerate(old) if r["module"] == module), len(old))
    kept = [r for r in old if r["module"] != module]
    at = min(at, len(kept))
    new_rows = [{"module": module, **r} for r in rows]
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
    text = README.read_text(encoding="utf-8")
    table = render(load())
    if "--check" in sys.argv:
        return 0 if readme_table(text) == table else 1
    README.write_text(with_table(text, table), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
