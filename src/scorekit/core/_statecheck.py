"""Strict decoding of state values, and the checks that state fields declare.

A state file is data from outside: every tagged form (``__ndarray__``,
``__tuple__``, ``__state__``) is decoded only when it is exactly what
:func:`~scorekit.core.encode_value` writes, and every field is then checked
against what it declares it holds (see :data:`CHECKS`). A value that breaks a
rule is an :class:`~scorekit.errors.InputError` naming the state kind and the
field, never a numpy error.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.errors import InputError, choices, message, raw

__all__ = ["CHECKS", "check_choice", "check_value", "decode", "invalid", "totals_agree"]

CHECKS: dict[str, str] = {
    "count": "integers >= 0",
    "integer": "integers",
    "weight": "finite numbers >= 0",
    "nonnegative": "numbers >= 0 (not nan)",
    "finite": "finite numbers",
    "number": "numbers (not nan)",
    "increasing": "finite numbers in increasing order",
    "unit": "numbers in [0, 1], or nan where undefined",
    "labels": "distinct labels in increasing order (integers, booleans, finite floats or strings)",
    "classes": "distinct labels (integers, booleans, finite floats or strings)",
    "text": "a string",
    "flag": "true or false",
}
"""What a state field may declare it holds (``state_field(..., check=...)``), and the rule."""

_DTYPES = re.compile(r"^[<>|=]?(b1|i1|i2|i4|i8|u1|u2|u4|u8|f4|f8|U[1-9][0-9]{0,6})$")
_ALLOWED_DTYPES = "a bool, integer, float32/float64 or string dtype such as '<i8', '<f8', '<U5'"
_MAX_DIMS = 32
_MAX_ITEMS = 1 << 40
_STRING_BYTES = 1 << 24
_TOLERANCE = 1e-9

_KINDS = {
    "count": "iu",
    "integer": "iu",
    "weight": "iuf",
    "nonnegative": "iuf",
    "finite": "iuf",
    "number": "iuf",
    "increasing": "iuf",
    "unit": "iuf",
    "labels": "biufU",
    "classes": "biufU",
    "text": "U",
    "flag": "b",
}


def invalid(where: str, problem: str, got: Any = None, expected: str | None = None) -> InputError:
    """The error of a state value that breaks a rule, in the house form.

    Examples
    --------
    >>> invalid("ConfusionCounts, field 'matrix'", "negative count", raw("-3"), "counts >= 0")
    InputError("ConfusionCounts, field 'matrix': negative count; got -3, expected counts >= 0.")
    """
    return InputError(message(where, problem, got, expected))


def totals_agree(value: Any, expected: Any) -> bool:
    """Whether a total equals the one it must: exactly for integers, to rounding for floats.

    Examples
    --------
    >>> totals_agree(3, 3), totals_agree(0.1 + 0.2, 0.3), totals_agree(3, 4)
    (True, True, False)
    """
    a, b = np.asarray(value), np.asarray(expected)
    if a.dtype.kind in "iub" and b.dtype.kind in "iub":
        return bool(np.array_equal(a, b))
    a, b = a.astype(np.float64), b.astype(np.float64)
    scale = np.maximum(1e-300, np.maximum(np.abs(a), np.abs(b)))
    return bool(a.shape == b.shape and np.all(np.abs(a - b) <= _TOLERANCE * scale))


# decoding -------------------------------------------------------------------------------


def decode(
    value: Any,
    where: str,
    *,
    objects: bool = False,
    mappings: bool = True,
    state: Callable[[Mapping[str, Any]], Any] | None = None,
) -> Any:
    """Decode one value written by :func:`~scorekit.core.encode_value`, strictly.

    Parameters
    ----------
    value
        Plain JSON data.
    where
        What the value is (``"BLEUStats, field 'matches'"``), for error messages.
    objects
        Whether arrays of dtype ``object`` are allowed (only fields that declare
        them hold such arrays).
    mappings
        Whether a plain JSON object (without a tag) is a value; state fields
        hold none.
    state
        Rebuilds a nested ``__state__`` (:meth:`State.from_dict`); nested states
        are refused without it.

    Raises
    ------
    InputError
        A tagged form that is not what ``encode_value`` writes: an unknown
        tag, a dtype outside the allowed ones, a shape that does not match the
        data, items of the wrong type for the dtype.

    Examples
    --------
    >>> decode({"__ndarray__": [[1, 2]], "dtype": "<i8", "shape": [1, 2]}, "x")
    array([[1, 2]])
    >>> decode({"__ndarray__": [1.5], "dtype": "<i8", "shape": [1]}, "x")
    Traceback (most recent call last):
    ...
    scorekit.errors.InputError: x: an integer array holds non-integers; got [1.5], ...
    """
    if isinstance(value, dict):
        return _decode_tagged(value, where, objects, mappings, state)
    return value


def _decode_tagged(
    value: dict[str, Any],
    where: str,
    objects: bool,
    mappings: bool,
    state: Callable[[Mapping[str, Any]], Any] | None,
) -> Any:
    keys = set(value)
    if "__ndarray__" in keys:
        _exact_keys(value, {"__ndarray__", "dtype", "shape"}, where)
        return _array(value, where, objects)
    if "__tuple__" in keys:
        _exact_keys(value, {"__tuple__"}, where)
        items = value["__tuple__"]
        if not isinstance(items, list):
            raise invalid(where, "a tuple that is not a list", raw(type(items).__name__), "a list")
        return tuple(
            decode(v, where, objects=objects, mappings=mappings, state=state) for v in items
        )
    if "__state__" in keys:
        _exact_keys(value, {"__state__"}, where)
        if state is None:
            raise invalid(where, "a nested state where none is expected", None, "no state")
        return state(value["__state__"])
    tags = sorted(k for k in keys if isinstance(k, str) and k.startswith("__") and k.endswith("__"))
    if tags:
        raise invalid(
            where,
            "unknown nested form",
            raw(f"the tag {tags[0]!r}"),
            "'__ndarray__', '__tuple__' or '__state__'",
        )
    if not mappings:
        raise invalid(
            where,
            "a JSON object where a value is expected",
            raw(f"an object with keys {sorted(map(str, keys))[:5]}"),
            "a number, string, boolean, array or tuple",
        )
    return value


def _exact_keys(value: dict[str, Any], keys: set[str], where: str) -> None:
    if set(value) != keys:
        tag = next(k for k in keys if k.startswith("__"))
        raise invalid(
            where,
            f"malformed {tag} form",
            raw(f"keys {sorted(value)}"),
            f"exactly the keys {sorted(keys)}",
        )


def _array(value: dict[str, Any], where: str, objects: bool) -> NDArray[Any]:
    dtype = _dtype(value["dtype"], where, objects)
    shape = _shape(value["shape"], where)
    data = value["__ndarray__"]
    if not isinstance(data, list):
        raise invalid(where, "array data is not a list", raw(type(data).__name__), "a nested list")
    size = math.prod(shape)
    if dtype.kind == "O":
        try:
            arr = np.array(data, dtype=object)
        except ValueError:
            arr = np.empty(0, dtype=object)
        if arr.size != size:
            raise invalid(
                where,
                "array data does not match its shape",
                raw(f"{arr.size} items"),
                f"shape {shape}",
            )
        return arr.reshape(shape)
    try:
        found = np.array(data)
    except (ValueError, TypeError, OverflowError):
        raise invalid(
            where, "array data is not a nested list of one shape", None, f"shape {shape}"
        ) from None
    if found.size == 0 and size == 0:
        return np.zeros(shape, dtype=_empty_dtype(dtype))
    if found.shape != tuple(shape):
        raise invalid(
            where,
            "array data does not match its shape",
            raw(f"data of shape {list(found.shape)}"),
            f"shape {shape}",
        )
    return _cast(found, dtype, where)


def _dtype(text: Any, where: str, objects: bool) -> np.dtype[Any]:
    if text == "object" and objects:
        return np.dtype(object)
    if not isinstance(text, str) or not _DTYPES.match(text):
        raise invalid(where, "array dtype not allowed", text, _ALLOWED_DTYPES)
    return np.dtype(text)


def _shape(shape: Any, where: str) -> list[int]:
    ok = (
        isinstance(shape, list)
        and len(shape) <= _MAX_DIMS
        and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape)
    )
    if not ok:
        raise invalid(where, "array shape is not a list of integers >= 0", shape, "e.g. [3, 2]")
    if math.prod(max(d, 1) for d in shape) > _MAX_ITEMS:
        raise invalid(
            where, "array shape too large", shape, f"at most {_MAX_ITEMS} items along its axes"
        )
    return list(shape)


def _empty_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    return np.dtype(str) if dtype.kind == "U" and dtype.itemsize > 4096 else dtype


def _cast(found: NDArray[Any], dtype: np.dtype[Any], where: str) -> NDArray[Any]:
    have, want = found.dtype.kind, dtype.kind
    if want in "iu":
        if have == "f":
            bad = found[found != np.round(found)] if np.isfinite(found).all() else found
            shown = bad.ravel()[:1].tolist() if bad.size else found.ravel()[:1].tolist()
            raise invalid(where, "an integer array holds non-integers", shown, "integers")
        ok = have in "iu"
    elif want == "f":
        ok = have in "iuf"
    elif want == "b":
        ok = have == "b"
    else:
        ok = have == "U"
    if not ok:
        raise invalid(
            where,
            f"array items do not fit dtype {dtype.str!r}",
            raw(_describe_items(have)),
            _items_for(want),
        )
    if want == "U":
        width = max(1, found.dtype.itemsize // 4)
        if dtype.itemsize < found.dtype.itemsize:
            raise invalid(
                where,
                f"strings longer than dtype {dtype.str!r} allows",
                raw(f"strings of up to {width} characters"),
                f"a dtype of at least '<U{width}'",
            )
        if dtype.itemsize * found.size > _STRING_BYTES:
            return found
        return found.astype(dtype)
    if want in "iu":
        lo, hi = np.iinfo(dtype).min, np.iinfo(dtype).max
        if found.size and (found.min() < lo or found.max() > hi):
            raise invalid(
                where,
                f"integers out of the range of dtype {dtype.str!r}",
                raw(f"values from {found.min()} to {found.max()}"),
                f"values from {lo} to {hi}",
            )
    with np.errstate(over="ignore"):
        return found.astype(dtype)


def _describe_items(kind: str) -> str:
    return {
        "b": "booleans",
        "i": "integers",
        "u": "integers",
        "f": "numbers",
        "U": "strings",
    }.get(kind, "items of mixed or unsupported types")


def _items_for(kind: str) -> str:
    return {"b": "true or false", "f": "numbers", "U": "strings"}.get(kind, "integers")


# declared checks ------------------------------------------------------------------------


def check_value(where: str, value: Any, check: str, ndim: int | tuple[int, ...] | None) -> None:
    """Check ``value`` against a declared rule of :data:`CHECKS`.

    ``ndim`` is ``None`` for a scalar, else the allowed number(s) of
    dimensions of an array.

    Raises
    ------
    InputError
        Naming ``where``, the problem, the first offending value and the rule.

    Examples
    --------
    >>> check_value("x", np.array([3, -1]), "count", 1)
    Traceback (most recent call last):
    ...
    scorekit.errors.InputError: x: negative value; got -1 at index 1, expected integers >= 0.
    >>> check_value("x", 2.5, "count", None)
    Traceback (most recent call last):
    ...
    scorekit.errors.InputError: x: not an integer; got 2.5, expected integers >= 0.
    """
    rule = CHECKS[check]
    if check in ("labels", "classes", "increasing"):
        ndim = 1
    if ndim is None:
        _check_scalar(where, value, check, rule)
        return
    dims = (ndim,) if isinstance(ndim, int) else ndim
    if not isinstance(value, np.ndarray):
        shown = raw(type(value).__name__) if not isinstance(value, int | float | str) else value
        want = " or ".join(f"{d}-D" for d in dims)
        raise invalid(where, "not an array", shown, f"a {want} array of {rule}")
    if value.ndim not in dims:
        want = " or ".join(f"{d}-D" for d in dims)
        raise invalid(
            where,
            f"array of {value.ndim} dimensions",
            raw(f"shape {list(value.shape)}"),
            f"a {want} array",
        )
    if value.dtype.kind not in _KINDS[check]:
        raise invalid(
            where,
            f"array of dtype {value.dtype.str!r}",
            raw(str(value.dtype)),
            f"an array of {rule}",
        )
    _check_items(where, value, check, rule)


def _check_scalar(where: str, value: Any, check: str, rule: str) -> None:
    if check == "text":
        if not isinstance(value, str):
            raise invalid(where, "not a string", _shown(value), rule)
        return
    if check == "flag":
        if not isinstance(value, bool | np.bool_):
            raise invalid(where, "not true or false", _shown(value), rule)
        return
    if isinstance(value, bool | np.bool_) or not isinstance(
        value, int | float | np.integer | np.floating
    ):
        raise invalid(where, "not a number", _shown(value), rule)
    if check in ("count", "integer"):
        if not isinstance(value, int | np.integer):
            raise invalid(where, "not an integer", value, rule)
        if check == "count" and value < 0:
            raise invalid(where, "negative value", value, rule)
        return
    x = float(value)
    if math.isnan(x) and check in ("weight", "finite", "nonnegative", "number"):
        raise invalid(where, "not a number (nan)", value, rule)
    if math.isinf(x) and check in ("weight", "finite"):
        raise invalid(where, "not a finite number", value, rule)
    if x < 0 and check in ("weight", "nonnegative"):
        raise invalid(where, "negative value", value, rule)
    if check == "unit" and not 0 <= x <= 1:
        raise invalid(where, "a value outside [0, 1]", value, rule)


def _shown(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return raw(f"an array of shape {list(value.shape)}")
    if isinstance(value, list | tuple | dict) or value is None:
        return raw(type(value).__name__ if value is not None else "null")
    return value


def _check_items(where: str, arr: NDArray[Any], check: str, rule: str) -> None:
    if arr.size == 0:
        return
    kind = arr.dtype.kind
    if check in ("labels", "classes", "increasing"):
        if kind == "f":
            _first(where, ~np.isfinite(arr), arr, "not a finite number", rule)
        _distinct(where, arr, sort=check != "classes", rule=rule)
        return
    signed = check in ("count", "weight", "nonnegative")
    if kind == "i" and signed:
        _first(where, arr < 0, arr, "negative value", rule)
    if kind != "f":
        return
    if check == "unit":
        _first(where, (arr < 0) | (arr > 1), arr, "a value outside [0, 1]", rule)
    if check in ("weight", "finite"):
        _first(where, ~np.isfinite(arr), arr, "not a finite number", rule)
    elif check in ("nonnegative", "number"):
        _first(where, np.isnan(arr), arr, "not a number (nan)", rule)
    if signed:
        # sums of weights may round a zero to a few ulps below it
        floor = -_TOLERANCE * float(np.max(np.abs(arr[np.isfinite(arr)]), initial=0.0))
        _first(where, arr < floor, arr, "negative value", rule)


def _first(where: str, bad: NDArray[np.bool_], arr: NDArray[Any], problem: str, rule: str) -> None:
    if not bad.any():
        return
    pos = np.argwhere(bad)[0]
    value = arr[tuple(pos)].item()
    at = int(pos[0]) if len(pos) == 1 else tuple(int(p) for p in pos)
    raise invalid(where, problem, raw(f"{value!r} at index {at}"), rule)


def _distinct(where: str, arr: NDArray[Any], *, sort: bool, rule: str) -> None:
    if sort:
        bad = ~(arr[1:] > arr[:-1])
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            problem = "values repeat" if arr[i] == arr[i + 1] else "values out of order"
            shown = raw(f"{arr[i].item()!r} then {arr[i + 1].item()!r} at index {i + 1}")
            raise invalid(where, problem, shown, rule)
        return
    values, counts = np.unique(arr, return_counts=True)
    if (counts > 1).any():
        raise invalid(where, "values repeat", values[counts > 1][0].item(), rule)


def check_choice(where: str, value: Any, allowed: tuple[Any, ...]) -> None:
    """Check that a setting is one of ``allowed``."""
    if value not in allowed:
        raise invalid(where, "unknown setting", value, choices(allowed))
