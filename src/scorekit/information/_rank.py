"""Feature ranking over a table: every column scored as a split of the target.

Each column becomes one class-major count table (one ``bincount``, after one
sort for non-integer numbers, or hashing for strings of a DataFrame or Table)
and is scored by the same kernel as the split criteria, so a column's score
equals the criterion's value on that column.
Columns of a row-major numpy array are copied out in blocks of rows, which
reads memory in order instead of one strided column at a time.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit._check import as_array, as_labels, as_weights
from scorekit.errors import ConfigError, InputError, choices, message, raw
from scorekit.information._kernels import column_counts, split_score, xlogx_table
from scorekit.information._splits import Split, finish
from scorekit.information._tables import (
    CRITERIA,
    Criterion,
    Feature,
    check_base,
    encode,
    feature_values,
)

__all__ = ["best_split", "rank_features"]

_BLOCK_BYTES = 128 << 20  # columns copied out of a row-major array at a time
_ROW_BLOCK = 4096  # rows per step of that copy


def _array_columns(arr: NDArray[Any]) -> Iterator[tuple[Any, NDArray[Any]]]:
    """The columns of a 2-D array, copied in row blocks when they are strided numbers."""
    n, p = arr.shape
    if arr.dtype.kind not in "biuf" or arr.strides[0] == arr.itemsize or n < _ROW_BLOCK:
        for j in range(p):
            yield j, arr[:, j]
        return
    width = min(p, max(1, _BLOCK_BYTES // (n * arr.itemsize)))
    buffer = np.empty((width, n), dtype=arr.dtype)  # reused: each column is scored before the next
    for start in range(0, p, width):
        stop = min(p, start + width)
        block = buffer[: stop - start]
        for row in range(0, n, _ROW_BLOCK):
            block[:, row : row + _ROW_BLOCK] = arr[row : row + _ROW_BLOCK, start:stop].T
        for j in range(start, stop):
            yield j, block[j - start]


def _columns(metric: str, X: Any) -> tuple[list[Any], Iterator[tuple[Any, Any]]]:
    """Column names and the named columns of an array, DataFrame, Table or mapping."""
    module = type(X).__module__
    if module.startswith("pandas") and hasattr(X, "columns"):
        names = list(X.columns)
        return names, ((name, X.iloc[:, j]) for j, name in enumerate(names))
    if module.startswith("pyarrow") and hasattr(X, "column_names"):
        names = list(X.column_names)
        return names, ((name, X.column(j)) for j, name in enumerate(names))
    if isinstance(X, Mapping):
        return list(X), iter(X.items())
    arr = as_array(metric, "X", X)
    if arr.ndim != 2:
        raise InputError(
            message(
                metric,
                "X must be a table",
                raw(f"shape {arr.shape}"),
                "a 2-D array, DataFrame or Table (samples x features)",
            )
        )
    return list(range(arr.shape[1])), _array_columns(arr)


def _is_categorical(name: Any, values: NDArray[Any], categorical: Any) -> bool:
    if categorical is None:
        return values.dtype.kind not in "iuf"
    if isinstance(categorical, bool):
        return categorical
    return name in categorical


def _check_criterion(metric: str, criterion: Any) -> None:
    if criterion not in CRITERIA:
        raise ConfigError(message(metric, "unknown criterion", criterion, choices(CRITERIA)))


def _check_categorical(metric: str, categorical: Any, names: list[Any]) -> None:
    if categorical is None or isinstance(categorical, bool):
        return
    if isinstance(categorical, str) or not isinstance(categorical, Sequence | set | frozenset):
        raise ConfigError(
            message(
                metric,
                "categorical must list columns",
                categorical,
                "None, True, False or a list of column names",
            )
        )
    unknown = [c for c in categorical if c not in names]
    if unknown:
        raise ConfigError(
            message(metric, "categorical names unknown columns", unknown, choices(names))
        )


def _sorted_codes(codes: NDArray[Any], labels: NDArray[Any]) -> NDArray[np.intp]:
    """Renumber codes into ``labels`` so that they follow the sorted order of the labels."""
    rank = np.empty(len(labels), dtype=np.intp)
    rank[np.argsort(labels, kind="stable")] = np.arange(len(labels))
    out: NDArray[np.intp] = rank[codes]
    return out


def _string_codes(column: Any) -> NDArray[np.intp] | None:
    """Codes of a DataFrame or Table column of strings with no missing value, else None.

    Codes follow the sorted order of the strings, as the values of
    :func:`~scorekit._check.as_labels` would, so scores are the same to the
    last bit; hashing them in pandas or pyarrow avoids converting every string
    to a Python object and sorting the strings.
    """
    module = type(column).__module__
    if module.startswith("pandas") and hasattr(column, "isna"):
        pd = sys.modules["pandas"]
        infer = pd.api.types.infer_dtype
        if len(column) == 0 or bool(column.isna().any()):
            return None
        if isinstance(column.dtype, pd.CategoricalDtype):
            categories = column.cat.categories
            if infer(categories, skipna=False) != "string":
                return None
            labels = np.asarray(categories, dtype=str)
            return _sorted_codes(column.cat.codes.to_numpy(), labels)
        if infer(column, skipna=False) != "string":
            return None
        codes, _ = pd.factorize(column, sort=True)
        return np.asarray(codes, dtype=np.intp)
    if module.startswith("pyarrow") and hasattr(column, "null_count"):
        pa = sys.modules["pyarrow"]
        kind = column.type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
            column = column.cast(kind)
        if column.null_count or not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
            return None
        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks()
        encoded = sys.modules["pyarrow.compute"].dictionary_encode(column)
        labels = np.asarray(encoded.dictionary.to_pylist(), dtype=str)
        return _sorted_codes(encoded.indices.to_numpy(zero_copy_only=False), labels)
    return None


def _feature(metric: str, name: Any, values: NDArray[Any], kind: Feature) -> NDArray[Any]:
    """A checked feature column; numeric integers stay integers (counted with no sort)."""
    label = f"column {name!r}"
    if kind == "categorical":
        return as_labels(metric, label, values)
    if values.ndim == 1 and values.dtype.kind in "biu":
        return values
    return feature_values(metric, values, "numeric", name=label)


def rank_features(
    X: Any,
    y: Any,
    *,
    criterion: Criterion = "information_gain",
    categorical: Any = None,
    sample_weight: Any = None,
    base: float = 2.0,
) -> list[Split]:
    """Score every column of a table as a split of ``y``, best first.

    Each column is cross-tabulated against the target with one ``bincount``:
    small integer ranges are counted directly, other numbers are sorted once,
    strings of a DataFrame or Table are hashed by pandas or pyarrow, and every
    threshold of a numeric column is scored at once from cumulative class
    counts. The cost is at most one sort per column, with no loop over rows.

    Parameters
    ----------
    X : 2-D array, pandas DataFrame, pyarrow Table or mapping of columns
        The features (samples x features). Column names come from the table
        (integer positions for an array).
    y : array-like
        The target: class labels, at least two distinct.
    criterion : {'information_gain', 'split_information', 'gain_ratio', 'gini_gain'}
        The score: ID3's gain, C4.5's split information or gain ratio, CART's
        Gini gain.
    categorical : None, bool or list of column names, default None
        Which columns split multiway. None decides by type: numeric dtypes
        (integers, floats) are split at a threshold, every other type (strings,
        booleans, categories) multiway. True or False applies to every column.
    sample_weight : array-like, optional
    base : float, default 2
        Logarithm base of information gain and split information.

    Returns
    -------
    list of Split
        One per column, by decreasing score (ties keep column order). Each
        score equals the criterion's function on that column, e.g.
        ``information_gain(X[:, j], y, feature=...)``.

    Raises
    ------
    InputError
        ``y`` has one class, lengths differ, a numeric column holds NaN/inf,
        a categorical column holds missing values, or every sample weight is 0.
    ConfigError
        Unknown criterion, invalid ``base`` or ``categorical`` naming unknown columns.

    Notes
    -----
    A numeric split sends ``x <= threshold`` left; the threshold is the
    midpoint between two consecutive distinct values, and of equally good
    thresholds the lowest wins. A constant column scores 0 (gain ratio: 0 with
    an :class:`~scorekit.errors.UndefinedMetricWarning`). Numeric splits agree
    with a ``DecisionTreeClassifier(max_depth=1)`` fitted on the column alone:
    same threshold and impurity decrease (its entropy is in bits, the default
    ``base``) for values that float32 holds exactly, as the trees compute in
    float32. With ``base=math.e`` the information gain of categorical columns
    equals scikit-learn's ``mutual_info_classif(X, y, discrete_features=True)``.

    Examples
    --------
    >>> X = {"windy": [0, 1, 0, 1], "hot": [30.0, 31.0, 20.0, 21.0]}
    >>> [(s.feature, s.score, s.threshold) for s in rank_features(X, ["y", "y", "n", "n"])]
    [('hot', 1.0, 25.5), ('windy', 0.0, 0.5)]
    """
    metric = "rank_features"
    _check_criterion(metric, criterion)
    check_base(metric, base)
    names, columns = _columns(metric, X)
    _check_categorical(metric, categorical, names)
    ys = as_labels(metric, "y", y)
    classes, ycodes = encode(metric, "y", ys)
    n = len(ys)
    if n == 0:
        raise InputError(message(metric, "empty input", raw("0 samples"), "at least one sample"))
    if len(classes) < 2:
        raise InputError(
            message(
                metric,
                "y has a single class",
                raw(f"only {classes[0].item()!r}"),
                "at least two classes to split",
            )
        )
    w = as_weights(metric, sample_weight, n)
    if w is not None and not w.any():
        raise InputError(
            message(metric, "every sample weight is 0", raw(f"{n} zeros"), "a positive weight")
        )
    lut = xlogx_table(n) if w is None and criterion != "gini_gain" else None
    results: list[Split] = []
    for name, column in columns:
        multiway = categorical is None or categorical is True
        if not multiway and categorical is not False:
            multiway = name in categorical
        codes = _string_codes(column) if multiway else None
        values = codes if codes is not None else as_array(metric, f"column {name!r}", column)
        if values.ndim == 0:
            raise InputError(
                message(
                    metric,
                    f"column {name!r} is not a column",
                    values.item(),
                    "one value per sample",
                )
            )
        if len(values) != n:
            raise InputError(
                message(
                    metric,
                    "X and y differ in length",
                    raw(f"column {name!r} has {len(values)} rows, y has {n}"),
                    "equal lengths",
                )
            )
        kind: Feature
        if codes is not None:
            kind, x = "categorical", codes
        else:
            kind = "categorical" if _is_categorical(name, values, categorical) else "numeric"
            x = _feature(metric, name, values, kind)
        uniq, counts = column_counts(x, ycodes, len(classes), w)
        scored = split_score(f"{metric}: column {name!r}", criterion, kind, uniq, counts, lut=lut)
        results.append(finish(name, criterion, kind, scored, base))
    order = sorted(range(len(results)), key=lambda i: -results[i].score)
    return [results[i] for i in order]


def best_split(
    X: Any,
    y: Any,
    *,
    criterion: Criterion = "information_gain",
    categorical: Any = None,
    sample_weight: Any = None,
    base: float = 2.0,
) -> Split:
    """The split ID3 / C4.5 / CART would make at the root: the best column of ``X``.

    Parameters are those of :func:`rank_features`; ties go to the first column.

    Notes
    -----
    With ``criterion="gain_ratio"`` this is the column of highest gain ratio.
    C4.5 itself only considers tests whose information gain is at least the
    average gain, and release 8 lowers the gain of a numeric threshold by
    ``log2(V - 1) / n`` for ``V`` distinct values and ``n`` samples (Quinlan
    1996); neither refinement is applied here.

    Examples
    --------
    >>> X = {"windy": [0, 1, 0, 1], "hot": [30.0, 31.0, 20.0, 21.0]}
    >>> best_split(X, ["y", "y", "n", "n"], criterion="gini_gain")
    Split(feature='hot', criterion='gini_gain', score=0.5, kind='numeric', threshold=25.5)
    """
    ranked = rank_features(
        X, y, criterion=criterion, categorical=categorical, sample_weight=sample_weight, base=base
    )
    if not ranked:
        raise InputError(message("best_split", "X has no columns", raw("0 columns"), "a feature"))
    return ranked[0]
