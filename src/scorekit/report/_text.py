"""How values read in a report."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["fmt"]


def fmt(value: Any) -> str:
    """A value as the report shows it: numbers to 4 significant digits, arrays summarised.

    Examples
    --------
    >>> fmt(0.123456), fmt(3), fmt(float("nan")), fmt([1, 2, 3])
    ('0.1235', '3', 'nan', '[1, 2, 3]')
    >>> fmt(13220.0), fmt(13220.5), fmt(2.5e20)
    ('13,220', '1.322e+04', '2.5e+20')
    >>> fmt({"rougeL": 0.5})
    'rougeL: 0.5'

    """
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int | np.integer):
        return f"{int(value):,}"
    if isinstance(value, float | np.floating):
        v = float(value)
        if math.isfinite(v) and v.is_integer() and abs(v) < 1e15:
            # a whole number (a count summed in floats) is shown whole, as an integer is
            return f"{int(v):,}" if abs(v) >= 1e4 else f"{v:.4g}"
        return "nan" if math.isnan(v) else f"{v:.4g}"
    for name in ("value", "score"):
        inner = getattr(value, name, None)
        if isinstance(inner, int | float) and not isinstance(inner, bool):
            return fmt(inner)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {fmt(v)}" for k, v in list(value.items())[:20])
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        numbers = [
            f"{name} {fmt(item)}"
            for name, item in zip(value._fields, value, strict=True)
            if isinstance(item, int | float) and not isinstance(item, bool)
        ]
        if numbers:
            return ", ".join(numbers)
        return f"{type(value).__name__} ({', '.join(value._fields)})"
    arr = np.asarray(value) if isinstance(value, list | np.ndarray) else None
    if arr is not None and arr.dtype.kind in "biuf":
        flat = arr.ravel()
        shown = ", ".join(fmt(v.item()) for v in flat[:6])
        more = f", ... ({flat.size} values)" if flat.size > 6 else ""
        return f"[{shown}{more}]"
    text = str(value)
    return text if len(text) <= 200 else text[:197] + "..."
