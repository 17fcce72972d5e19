"""Input coercion and checks, in one place.

Every public metric converts its inputs here exactly once. Lists, tuples, numpy
arrays, pandas objects and pyarrow arrays are accepted; what is wrong is reported
as an :class:`~scorekit.errors.InputError` naming the metric and the value.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.errors import InputError, message, raw

__all__ = [
    "as_array",
    "as_labels",
    "as_scores",
    "as_weights",
    "check_same_length",
    "check_strings",
    "encode_pair",
    "short_repr",
    "string_item_error",
    "union_labels",
]


def as_array(metric: str, name: str, values: Any) -> NDArray[Any]:
    """Convert any array-like (list, numpy, pandas, pyarrow) to a numpy array."""
    if values is None:
        raise InputError(message(metric, f"{name} is missing", None, "an array"))
    to_numpy = getattr(values, "to_numpy", None)
    if to_numpy is not None and type(values).__module__.startswith("pyarrow"):
        try:
            values = to_numpy(zero_copy_only=False)
        except TypeError:
            values = to_numpy()
    elif to_numpy is not None and type(values).__module__.startswith("pandas"):
        values = to_numpy()
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError) as exc:
        raise InputError(
            message(metric, f"{name} is not a rectangular array", raw(str(exc)), "an array")
        ) from None
    if arr.dtype.kind == "U" and isinstance(values, list | tuple):
        # numpy turns [0, "a"] into strings; look at the items to refuse the mix
        arr = _narrow_object(metric, name, np.asarray(values, dtype=object))
    elif arr.dtype.kind == "O" and arr.ndim >= 1:
        arr = _narrow_object(metric, name, arr)
    return arr


def _narrow_object(metric: str, name: str, arr: NDArray[Any]) -> NDArray[Any]:
    """Give an object array a concrete dtype when all items share a kind."""
    flat = arr.ravel()
    if flat.size == 0:
        return arr.astype(np.float64)
    kinds = {_kind(v) for v in flat}
    if kinds == {"str"}:
        return arr.astype(str)
    if kinds <= {"int", "bool"}:
        try:
            return arr.astype(np.int64)
        except OverflowError:
            big = next(v for v in flat if isinstance(v, int) and not -(2**63) <= v < 2**63)
            raise InputError(
                message(
                    metric, f"{name} has an integer too large for 64 bits", big, "|value| < 2**63"
                )
            ) from None
    if kinds <= {"int", "float", "bool"}:
        return arr.astype(np.float64)
    if "none" in kinds:
        idx = next(i for i, v in enumerate(flat) if v is None)
        raise InputError(
            message(
                metric, f"{name} contains None", raw(f"None at index {idx}"), "no missing values"
            )
        )
    shown = sorted(k for k in kinds)
    raise InputError(
        message(metric, f"{name} mixes value types", raw(", ".join(shown)), "labels of one type")
    )


def _kind(value: Any) -> str:
    if isinstance(value, str):
        return "str"
    if isinstance(value, bool | np.bool_):
        return "bool"
    if isinstance(value, int | np.integer):
        return "int"
    if isinstance(value, float | np.floating):
        return "float"
    if value is None:
        return "none"
    return type(value).__name__


def check_same_length(metric: str, **arrays: NDArray[Any] | None) -> int:
    """Check that all given arrays have the same number of rows; return it."""
    for key, value in arrays.items():
        if value is not None and np.ndim(value) == 0:
            raise InputError(
                message(
                    metric,
                    f"{key} must be an array",
                    np.asarray(value).item(),
                    "a sequence with one item per sample",
                )
            )
    lengths = {k: len(v) for k, v in arrays.items() if v is not None}
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"{k} has {n}" for k, n in lengths.items())
        raise InputError(message(metric, "inputs differ in length", raw(shown), "equal lengths"))
    return next(iter(lengths.values()), 0)


def as_labels(metric: str, name: str, values: Any) -> NDArray[Any]:
    """1-D class labels: integers, booleans, finite floats or strings, never mixed."""
    arr = as_array(metric, name, values)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise InputError(
            message(metric, f"{name} must be 1-D labels", raw(f"shape {arr.shape}"), "shape (n,)")
        )
    kind = arr.dtype.kind
    if kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(
                message(
                    metric,
                    f"{name} contains a non-finite label",
                    raw(f"{arr[i]} at index {i}"),
                    "finite labels",
                )
            )
    elif kind == "S":
        arr = arr.astype(str)
    elif kind not in "biuU":
        raise InputError(
            message(
                metric,
                f"{name} has an unsupported label type",
                raw(str(arr.dtype)),
                "integers, floats, booleans or strings",
            )
        )
    return arr


def as_scores(
    metric: str, name: str, values: Any, ndim: int | tuple[int, ...] = 1
) -> NDArray[np.float64]:
    """Finite float64 scores of the given dimensionality."""
    arr = as_array(metric, name, values)
    dims = (ndim,) if isinstance(ndim, int) else ndim
    if arr.ndim not in dims:
        want = " or ".join(f"{d}-D" for d in dims)
        raise InputError(
            message(
                metric,
                f"{name} must be {want}",
                raw(f"shape {arr.shape}"),
                f"a {want} array of scores",
            )
        )
    if arr.dtype.kind not in "biuf":
        raise InputError(message(metric, f"{name} must be numeric", raw(str(arr.dtype)), "numbers"))
    out = np.asarray(arr, dtype=np.float64)
    check_finite(metric, name, out)
    return out


def check_finite(metric: str, name: str, arr: NDArray[np.float64]) -> None:
    """Raise an InputError naming the first NaN or infinite value."""
    if arr.size and not np.isfinite(arr.sum() if arr.dtype.kind == "f" else 0.0):
        bad = ~np.isfinite(arr)
        if bad.any():
            pos = np.argwhere(bad)[0]
            where = int(pos[0]) if len(pos) == 1 else tuple(int(p) for p in pos)
            raise InputError(
                message(
                    metric,
                    f"{name} contains {arr[tuple(pos)]}",
                    raw(f"{arr[tuple(pos)]} at index {where}"),
                    "finite values",
                )
            )


def as_weights(metric: str, sample_weight: Any, n: int) -> NDArray[np.float64] | None:
    """Finite, non-negative float64 sample weights of length ``n`` (or None)."""
    if sample_weight is None:
        return None
    w = as_scores(metric, "sample_weight", sample_weight)
    if len(w) != n:
        raise InputError(
            message(
                metric,
                "sample_weight differs in length",
                raw(f"{len(w)} weights for {n} samples"),
                "one weight per sample",
            )
        )
    if w.size and w.min() < 0:
        i = int(np.argmin(w))
        raise InputError(
            message(
                metric, "sample_weight is negative", raw(f"{w[i]} at index {i}"), "weights >= 0"
            )
        )
    return w


def union_labels(metric: str, *arrays: NDArray[Any]) -> NDArray[Any]:
    """Sorted union of label arrays, refusing to mix strings and numbers."""
    parts = [a for a in arrays if a is not None and a.size]
    if not parts:
        return np.asarray(arrays[0])[:0] if arrays else np.empty(0)
    kinds = {"str" if a.dtype.kind == "U" else "num" for a in parts}
    if len(kinds) > 1:
        examples = [repr(a[0].item()) for a in parts]
        raise InputError(
            message(
                metric,
                "labels mix strings and numbers",
                raw(", ".join(examples)),
                "labels of one type",
            )
        )
    return np.unique(np.concatenate(parts))


_DIRECT_LIMIT = 1 << 22


def encode_pair(
    metric: str, y_true: NDArray[Any], y_pred: NDArray[Any], labels: NDArray[Any] | None = None
) -> tuple[NDArray[Any], NDArray[np.intp], NDArray[np.intp]]:
    """Map two label arrays to indices into their sorted union (plus ``labels``).

    Returns ``(values, true_idx, pred_idx)``. Small integer ranges take a path
    with no sort (min/max and an offset); other labels use one ``np.unique``.
    """
    if y_true.dtype.kind in "biu" and y_pred.dtype.kind in "biu" and y_true.size:
        lo = min(int(y_true.min()), int(y_pred.min()))
        hi = max(int(y_true.max()), int(y_pred.max()))
        if labels is not None and labels.size and labels.dtype.kind in "biu":
            lo, hi = min(lo, int(labels.min())), max(hi, int(labels.max()))
        if (labels is None or labels.dtype.kind in "biu") and (hi - lo + 1) ** 2 <= _DIRECT_LIMIT:
            span = hi - lo + 1
            t = y_true.astype(np.intp) - lo if lo else y_true.astype(np.intp, copy=False)
            p = y_pred.astype(np.intp) - lo if lo else y_pred.astype(np.intp, copy=False)
            present = np.zeros(span, dtype=bool)
            present[np.bincount(t, minlength=span) > 0] = True
            present[np.bincount(p, minlength=span) > 0] = True
            if labels is not None:
                present[labels.astype(np.intp) - lo] = True
            values = np.flatnonzero(present) + lo
            if values.size == span:
                return values.astype(np.result_type(y_true, y_pred)), t, p
            lookup = np.cumsum(present) - 1
            return values.astype(np.result_type(y_true, y_pred)), lookup[t], lookup[p]
    values = union_labels(metric, y_true, y_pred, *(() if labels is None else (labels,)))
    t_idx = np.searchsorted(values, y_true)
    p_idx = np.searchsorted(values, y_pred)
    return values, t_idx.astype(np.intp), p_idx.astype(np.intp)


# strings ------------------------------------------------------------------------------------


def short_repr(value: Any) -> str:
    """``repr(value)`` cut to 40 characters, for error messages."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def string_item_error(metric: str, name: str, value: Any, where: str) -> InputError:
    """The error for an item of ``name`` at ``where`` that is not a string (or is None)."""
    if value is None:
        return InputError(
            message(metric, f"{name} contains None", raw(f"None at {where}"), "a string")
        )
    return InputError(
        message(
            metric,
            f"{name} has a non-string item",
            raw(f"{type(value).__name__} {short_repr(value)} at {where}"),
            "a string",
        )
    )


def check_strings(
    metric: str, items: Any, index: int, *, inside: str, item: str, expected: str
) -> list[str]:
    """The strings of one entry of ``references`` (the ``inside`` of entry ``index``).

    A list or tuple among them is a nesting error; anything else that is not a
    string names its position as ``index I, <item> J``. String subclasses become
    plain strings.

    Examples
    --------
    >>> check_strings("qa_f1", ("Paris", "paris"), 0, inside="answers", item="answer",
    ...               expected="strings")
    ['Paris', 'paris']
    """
    out: list[str] = []
    for j, value in enumerate(items):
        if type(value) is not str:
            if isinstance(value, list | tuple):
                raise InputError(
                    message(
                        metric,
                        "references has the wrong nesting",
                        raw(f"a {type(value).__name__} inside the {inside} at index {index}"),
                        expected,
                    )
                )
            if not isinstance(value, str):
                raise string_item_error(metric, "references", value, f"index {index}, {item} {j}")
            value = str(value)
        out.append(value)
    return out
