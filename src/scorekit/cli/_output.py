"""What the ``scorekit`` commands print: metric values as a table, JSON or CSV, and state files.

:func:`_write_values` prints a ``{name: value}`` mapping in the ``--format`` asked
for; :func:`_save_state` writes ``--save-state`` files for ``scorekit merge``.
"""

from __future__ import annotations

import csv
import json
import math
from typing import Any, TextIO

import numpy as np

from scorekit.core import Estimate


def _plain(value: Any) -> Any:
    """JSON-ready form of a metric value: arrays become lists, NaN and inf become null.

    An :class:`~scorekit.Estimate` becomes ``{"value": ..., "error_bound": ...}``.
    """
    if isinstance(value, Estimate):
        return {"value": _plain(value.value), "error_bound": _plain(value.error_bound)}
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.generic):
        return _plain(value.item())
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _number(value: Any) -> str:
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


def _bound_text(value: Any) -> str:
    """An error bound at four decimals, or in scientific notation when smaller."""
    v = float(value)
    if math.isfinite(v) and 0 < abs(v) < 5e-5:
        return f"{v:.1e}"
    return _number(v)


def _cell(value: Any) -> list[str]:
    """Lines showing one value in the table: a number, or an indented array.

    An :class:`~scorekit.Estimate` shows as ``0.8312 (± 0.0004)``; per-column
    estimates as the array of values and then the array of bounds.
    """
    if isinstance(value, Estimate):
        if np.ndim(value.value) == 0:
            return [f"{_number(value.value)} (± {_bound_text(value.error_bound)})"]
        bounds = _cell(np.asarray(value.error_bound))
        return [*_cell(np.asarray(value.value)), f"± {bounds[0]}", *(f"  {b}" for b in bounds[1:])]
    if isinstance(value, np.generic | int | float):
        return [_number(value)]
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        if value.ndim == 0:
            return [_number(value.item())]
        with np.printoptions(precision=4, suppress=True, linewidth=80, threshold=60):
            return np.array2string(value).splitlines()
    if isinstance(value, tuple | list):
        lines = []
        for i, part in enumerate(value):
            sub = _cell(np.asarray(part) if isinstance(part, list) else part)
            lines += [f"[{i}] {sub[0]}", *(f"    {s}" for s in sub[1:])]
        return lines
    return str(value).splitlines() or [""]


def _write_table(values: dict[str, Any], out: TextIO) -> None:
    width = max([len("metric"), *(len(k) for k in values)])
    out.write(f"{'metric':<{width}}  value\n")
    out.write(f"{'-' * width}  {'-' * 10}\n")
    for name, value in values.items():
        lines = _cell(value)
        out.write(f"{name:<{width}}  {lines[0]}\n")
        for line in lines[1:]:
            out.write(f"{'':<{width}}  {line}\n")


def _write_values(values: dict[str, Any], fmt: str, out: TextIO) -> None:
    if fmt == "json":
        out.write(json.dumps({k: _plain(v) for k, v in values.items()}, indent=2) + "\n")
    elif fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["metric", "value"])
        for name, value in values.items():
            plain = _plain(value)
            cell = json.dumps(plain) if isinstance(plain, list | dict) else plain
            writer.writerow([name, "" if cell is None else cell])
    else:
        _write_table(values, out)


def _save_state(path: str, command: str, kind: str, result: Any, **header: Any) -> None:
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


class _Saved:
    """The metrics, states and rows a command saves with ``--save-state``."""

    def __init__(self, metrics: dict[str, Any], states: dict[str, Any], rows: int) -> None:
        self.metrics, self.states, self.rows = metrics, states, rows
