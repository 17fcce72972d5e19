"""Input coercion and checks, in one place.

Every public metric converts its inputs here exactly once. Lists, tuples, numpy
arrays, pandas objects and pyarrow arrays are accepted; what is wrong is reported
as an :class:`~scorekit.errors.InputError` naming the metric and the value.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Literal, overload

import numpy as np
from numpy.typing import NDArray

from scorekit.errors import ConfigError, InputError, message, raw

__all__ = [
    "StringErrors",
    "as_array",
    "as_labels",
    "as_list",
    "as_scores",
    "as_strings",
    "as_weights",
    "check_same_length",
    "encode_pair",
    "mix64",
    "overflow_error",
    "short_repr",
    "string_item_error",
    "union_labels",
    "unit_scaled",
]


_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def mix64(z: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """SplitMix64's finaliser, element-wise: a bijection of 64-bit integers that
    scatters every input bit (wrapping uint64 arithmetic).

    Examples
    --------
    >>> int(mix64(np.array([0, 1], dtype=np.uint64))[1]) != 1
    True
    """
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        out: NDArray[np.uint64] = z ^ (z >> np.uint64(31))
        return out


def as_flag(metric: str, name: str, value: Any) -> bool:
    """A True/False option as a Python bool; anything else is a ConfigError naming it.

    Examples
    --------
    >>> as_flag("bleu", "lowercase", np.True_)
    True
    >>> as_flag("bleu", "lowercase", "yes")
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: bleu: lowercase must be a bool; got 'yes', expected True or False.
    """
    if not isinstance(value, bool | np.bool_):
        raise ConfigError(message(metric, f"{name} must be a bool", value, "True or False"))
    return bool(value)


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
    metric: str, name: str, values: Any, ndim: int | tuple[int, ...] = 1, float32: bool = False
) -> NDArray[np.float64]:
    """Finite float64 scores of the given dimensionality.

    With ``float32=True`` float32 input stays float32 (for kernels that widen
    later), typed as float64 for the caller's arithmetic.
    """
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
    keep = float32 and arr.dtype == np.float32
    out: NDArray[np.float64] = arr if keep else np.asarray(arr, dtype=np.float64)
    check_finite(metric, name, out)
    return out


def check_finite(metric: str, name: str, arr: NDArray[np.float64]) -> None:
    """Raise an InputError naming the first NaN or infinite value."""
    if arr.size and arr.dtype.kind == "f":
        with np.errstate(over="ignore", invalid="ignore"):
            total = arr.sum()
    else:
        total = 0.0
    if not np.isfinite(total):
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


def overflow_error(metric: str, what: str) -> InputError:
    """The error of a sum that does not fit in float64 (it overflowed to infinity).

    Examples
    --------
    >>> print(overflow_error("mse", "the weighted sum of squared errors"))
    mse: the weighted sum of squared errors overflows float64; got a sum beyond 1.8e+308, \
expected smaller values (rescale sample_weight or the data).
    """
    return InputError(
        message(
            metric,
            f"{what} overflows float64",
            raw(f"a sum beyond {np.finfo(np.float64).max:.1e}"),
            "smaller values (rescale sample_weight or the data)",
        )
    )


def unit_scaled(metric: str, what: str, arr: Any) -> tuple[NDArray[np.float64], int]:
    """``arr`` as float64 times ``2**-e``, its largest magnitude brought into [0.5, 1); and ``e``.

    Multiplying by a power of two is exact, so ratios, proportions and
    correlations of the result equal those of ``arr`` bit for bit, while its
    sums, squares and dot products can no longer overflow (nor underflow for
    tiny values). ``arr == ldexp(result, e)``. An infinite entry is a sum that
    already overflowed: an :func:`overflow_error` naming ``what``.

    Examples
    --------
    >>> scaled, e = unit_scaled("gini_impurity", "the class counts", [1e308, 1e308])
    >>> scaled.tolist(), e
    ([0.5562684646268003, 0.5562684646268003], 1024)
    >>> unit_scaled("accuracy", "the weighted counts", [3.0, 0.0])
    (array([0.75, 0.  ]), 2)
    """
    out = np.asarray(arr, dtype=np.float64)
    if out.size == 0:
        return out, 0
    top = max(float(out.max()), -float(out.min()))
    if not np.isfinite(top):
        if np.isnan(out).any():
            return out, 0
        raise overflow_error(metric, what)
    if top == 0:
        return out, 0
    e = math.frexp(top)[1]
    if e == 0:
        return out, 0
    if abs(e) < 1000:
        return out * 2.0**-e, e
    half = 2.0 ** -(e // 2)
    return out * half * 2.0 ** (e // 2 - e), e


def as_weights(
    metric: str, sample_weight: Any, n: int, scaled: bool = False
) -> NDArray[np.float64] | None:
    """Finite, non-negative float64 sample weights of length ``n`` (or None).

    Their sum must be finite too, an :func:`overflow_error` otherwise (not a
    nan or 0 deep inside a metric), unless the metric brings its sums into
    range itself (``scaled``, e.g. by :func:`unit_scaled`).
    """
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
    if not scaled:
        with np.errstate(over="ignore"):
            total = float(w.sum())
        if not math.isfinite(total):
            raise overflow_error(metric, "the sum of sample weights")
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


class StringErrors:
    """The errors :func:`as_list` and :func:`as_strings` raise, worded for one input.

    Each method returns the :class:`~scorekit.errors.InputError` of one problem;
    a metric family words an error its own way by overriding that method in a
    subclass. ``where`` is a position: ``(i,)`` for item ``i`` of the input,
    ``(i, j)`` for string ``j`` of item ``i``.

    Parameters
    ----------
    metric : str
        The name the errors are reported under.
    name : str
        The input's name (``"predictions"``, ``"references"``).
    expected : str
        What the input should be, shown after ``expected``.
    item : str
        The noun of one string of an item's list (``"reference"``, ``"answer"``).
    """

    def __init__(self, metric: str, name: str, expected: str, item: str = "item") -> None:
        self.metric = metric
        self.name = name
        self.expected = expected
        self.item = item

    def error(self, problem: str, got: Any, expected: str | None = None) -> InputError:
        """``<metric>: <problem>; got <got>, expected <expected or the input's rule>.``"""
        return InputError(
            message(self.metric, problem, got, self.expected if expected is None else expected)
        )

    def at(self, where: tuple[int, ...]) -> str:
        """``index i``, or ``index i, <item> j`` for a string inside an item's list."""
        if len(where) == 1:
            return f"index {where[0]}"
        return f"index {where[0]}, {self.item} {where[1]}"

    # the input as a whole

    def missing(self) -> InputError:
        """The input is None."""
        return self.error(f"{self.name} is missing", None)

    def single_string(self, values: str | bytes) -> InputError:
        """The input is one string instead of a sequence of them."""
        return self.error(f"{self.name} is a single string", values)

    def mapping(self, values: Mapping[Any, Any]) -> InputError:
        """The input is a mapping."""
        return self.error(f"{self.name} is a mapping", raw(type(values).__name__))

    def not_sequence(self, values: Any) -> InputError:
        """The input is neither a sequence nor an iterator (a set, a number, ...)."""
        return self.error(f"{self.name} is not a sequence", raw(type(values).__name__))

    def table(self, values: Any) -> InputError:
        """The input is a table (a pandas or polars DataFrame, a pyarrow Table)."""
        kind = f"{type(values).__module__.split('.')[0]}.{type(values).__name__}"
        return self.error(
            f"{self.name} is a table",
            raw(kind),
            f"{self.expected} (one column of the table, e.g. frame['{self.name}'])",
        )

    def single_value(self, values: NDArray[Any]) -> InputError:
        """The input is a 0-d array."""
        return self.error(f"{self.name} is a single value", values.item())

    def shape(self, values: NDArray[Any]) -> InputError:
        """The input is an array of more dimensions than it may have."""
        return self.error(f"{self.name} has the wrong shape", values.shape)

    # one item or one string

    def none(self, where: tuple[int, ...]) -> InputError:
        """A string is None."""
        return string_item_error(self.metric, self.name, None, self.at(where))

    def not_string(self, value: Any, where: tuple[int, ...]) -> InputError:
        """A string is something else."""
        return string_item_error(self.metric, self.name, value, self.at(where))

    def nested(self, value: Any, where: tuple[int, ...]) -> InputError:
        """A string of an item's list is itself a list, tuple or array."""
        return self.error(
            f"{self.name} has the wrong nesting",
            raw(f"a {type(value).__name__} inside the {self.item}s at index {where[0]}"),
        )

    def empty(self, value: Any, index: int) -> InputError:
        """An item's list of strings is empty."""
        return self.error(f"an item has no {self.item}", raw(f"[] at index {index}"))

    def not_list(self, value: Any, index: int) -> InputError:
        """An item that must be a list of strings is something else."""
        if value is None:
            return self.error(f"{self.name} contains None", raw(f"None at index {index}"))
        if isinstance(value, str):
            return self.error(
                f"{self.name} has the wrong nesting",
                raw(f"the string {short_repr(value)} at index {index}"),
                f"{self.expected} (wrap a single {self.item} as [{self.item}])",
            )
        return self.error(
            f"{self.name} has the wrong nesting", raw(f"{type(value).__name__} at index {index}")
        )


def as_list(
    metric: str,
    name: str,
    values: Any,
    *,
    expected: str,
    rows: bool = False,
    errors: type[StringErrors] = StringErrors,
) -> list[Any]:
    """The items of a sequence-like input as a list.

    Lists, tuples and other sequences, iterators, numpy arrays, pandas and
    pyarrow objects are accepted. None, a single string, a mapping, a set, a
    0-d array, a table (a DataFrame, whose iteration gives its column names)
    and anything not iterable are errors (``errors`` words them).

    Parameters
    ----------
    metric, name, expected
        As for :class:`StringErrors`.
    rows : bool, default False
        Accept a 2-D array, one list per row (otherwise an array must be 1-D).
    errors : type of StringErrors
        The wording of the errors.

    Examples
    --------
    >>> import numpy as np
    >>> as_list("bleu", "predictions", np.array(["a b", "c"]), expected="strings")
    ['a b', 'c']
    """
    err = errors(metric, name, expected)
    if values is None:
        raise err.missing()
    if isinstance(values, str | bytes):
        raise err.single_string(values)
    if isinstance(values, Mapping):
        raise err.mapping(values)
    if isinstance(values, np.ndarray):
        if values.ndim == 0:
            raise err.single_value(values)
        if values.ndim > (2 if rows else 1):
            raise err.shape(values)
        return list(values.tolist())
    if _is_table(values):
        raise err.table(values)
    to_pylist = getattr(values, "to_pylist", None)  # pyarrow
    if to_pylist is not None:
        return list(to_pylist())
    if type(values).__module__.startswith("pandas") and hasattr(values, "tolist"):
        return list(values.tolist())
    if isinstance(values, Sequence):
        return list(values)
    if isinstance(values, AbstractSet) or not isinstance(values, Iterable):
        raise err.not_sequence(values)
    return list(values)


def _is_table(values: Any) -> bool:
    """Whether ``values`` is a two-dimensional table (DataFrame, pyarrow Table or batch)."""
    shape = getattr(values, "shape", None)
    return isinstance(shape, tuple) and len(shape) == 2


PerItem = Literal["string", "string_or_list", "list"]


@overload
def as_strings(
    metric: str,
    name: str,
    values: Any,
    *,
    expected: str,
    per_item: Literal["string"] = ...,
    item: str = ...,
    rows: bool = ...,
    errors: type[StringErrors] = ...,
) -> list[str]: ...


@overload
def as_strings(
    metric: str,
    name: str,
    values: Any,
    *,
    expected: str,
    per_item: Literal["string_or_list", "list"],
    item: str = ...,
    rows: bool = ...,
    errors: type[StringErrors] = ...,
) -> tuple[list[str], list[int]]: ...


def as_strings(
    metric: str,
    name: str,
    values: Any,
    *,
    expected: str,
    per_item: PerItem = "string",
    item: str = "item",
    rows: bool = True,
    errors: type[StringErrors] = StringErrors,
) -> list[str] | tuple[list[str], list[int]]:
    """Text inputs as plain strings: one string per item, or a list of strings per item.

    The input is read as :func:`as_list` reads it. String subclasses become
    plain strings; the caller's objects are left unchanged.

    Parameters
    ----------
    metric : str
        The name errors are reported under.
    name : str
        The input's name (``"predictions"``, ``"references"``).
    expected : str
        What the input should be, for the error messages.
    per_item : {"string", "string_or_list", "list"}, default "string"
        What each item is: one string; one string or a non-empty list of them;
        a non-empty list of strings. A list may be a tuple or a 1-D array.
    item : str, default "item"
        The noun of one string of an item's list, in error messages.
    rows : bool, default True
        With a list per item, accept a 2-D array of strings, one item per row.
    errors : type of StringErrors
        The wording of the errors.

    Returns
    -------
    list of str, or (list of str, list of int)
        With ``per_item="string"`` the strings; otherwise every item's strings
        in order, one flat list, and the number of strings of each item.

    Examples
    --------
    >>> as_strings("rouge", "predictions", ("the cat", "a dog"), expected="strings")
    ['the cat', 'a dog']
    >>> as_strings("rouge", "references", ["the cat", ["a dog", "one dog"]],
    ...            expected="strings or lists of strings", per_item="string_or_list")
    (['the cat', 'a dog', 'one dog'], [1, 2])
    """
    err = errors(metric, name, expected, item)
    items = as_list(
        metric, name, values, expected=expected, rows=rows and per_item != "string", errors=errors
    )
    kinds = set(map(type, items))
    if per_item == "string":
        if not kinds <= {str}:
            for i, value in enumerate(items):
                if type(value) is not str:
                    items[i] = _one_string(err, value, (i,))
        return items
    if per_item == "string_or_list" and kinds <= {str}:
        return items, [1] * len(items)
    if kinds <= {list, tuple}:
        # every item a list: flatten in C, look closer only on failure
        counts = list(map(len, items))
        flat = list(itertools.chain.from_iterable(items))
        if set(map(type, flat)) <= {str} and (not counts or min(counts) > 0):
            return flat, counts
    flat = []
    counts = []
    one_or_list = per_item == "string_or_list"
    for i, entry in enumerate(items):
        if isinstance(entry, np.ndarray):
            entry = entry.tolist()
        if one_or_list and isinstance(entry, str):
            flat.append(entry if type(entry) is str else str(entry))
            counts.append(1)
            continue
        if not isinstance(entry, list | tuple):
            if per_item == "list":
                raise err.not_list(entry, i)
            raise _one_string_error(err, entry, (i,))
        if not entry:
            raise err.empty(entry, i)
        for j, value in enumerate(entry):
            if type(value) is not str:
                if isinstance(value, list | tuple | np.ndarray):
                    raise err.nested(value, (i, j))
                value = _one_string(err, value, (i, j))
            flat.append(value)
        counts.append(len(entry))
    return flat, counts


def _one_string(err: StringErrors, value: Any, where: tuple[int, ...]) -> str:
    """A string subclass as a plain string; anything else is an error."""
    if isinstance(value, str):
        return str(value)
    raise _one_string_error(err, value, where)


def _one_string_error(err: StringErrors, value: Any, where: tuple[int, ...]) -> InputError:
    return err.none(where) if value is None else err.not_string(value, where)
