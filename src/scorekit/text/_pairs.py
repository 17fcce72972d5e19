"""Input checks shared by the segment metrics (chrF, TER, the error rates) and their kernels.

:func:`text_pairs` reads references and predictions as the BLEU and ROUGE
checks do (one prediction string per item; per item one reference string or a
non-empty list of them) and :func:`best_per_item` picks, per item, the
reference whose score is highest.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit._check import StringErrors, as_strings
from scorekit.errors import InputError, message, raw

__all__ = ["best_per_item", "text_pairs"]


class _PairErrors(StringErrors):
    """A 0-d array has the wrong shape, as any array but 1-D."""

    def single_value(self, values: NDArray[Any]) -> InputError:
        return self.shape(values)


def text_pairs(
    metric: str, references: Any, predictions: Any, *, multi: bool = True
) -> tuple[list[str], NDArray[np.int64], list[str]]:
    """The flat references, the number each prediction has, and the predictions.

    With ``multi=False`` each prediction has exactly one reference string.

    Examples
    --------
    >>> text_pairs("chrf", ["a b", ["c", "d"]], ["a", "c"])
    (['a b', 'c', 'd'], array([1, 2]), ['a', 'c'])
    """
    preds = as_strings(
        metric,
        "predictions",
        predictions,
        expected="one predicted string per item",
        errors=_PairErrors,
    )
    if multi:
        flat, counts = as_strings(
            metric,
            "references",
            references,
            expected="per item a reference string or a non-empty list of reference strings",
            per_item="string_or_list",
            item="reference",
            rows=False,
            errors=_PairErrors,
        )
    else:
        flat = as_strings(
            metric,
            "references",
            references,
            expected="one reference string per item",
            errors=_PairErrors,
        )
        counts = [1] * len(flat)
    if len(counts) != len(preds):
        raise InputError(
            message(
                metric,
                "references and predictions differ in length",
                raw(f"{len(counts)} references for {len(preds)} predictions"),
                "one entry of references per prediction",
            )
        )
    return flat, np.asarray(counts, dtype=np.int64), preds


def best_per_item(
    values: NDArray[np.float64], counts: NDArray[np.int64], *, lowest: bool = False
) -> NDArray[np.int64]:
    """Per item, the index of its reference of highest value (the first of equals).

    ``values`` has one entry per reference, the references of an item
    consecutive, ``counts`` references per item (each at least 1). With
    ``lowest`` the reference of lowest value is picked instead.

    Examples
    --------
    >>> best_per_item(np.array([0.2, 0.1, 0.5, 0.5]), np.array([1, 3]))
    array([0, 2])
    """
    if len(values) == len(counts):
        return np.arange(len(values), dtype=np.int64)
    starts = np.cumsum(counts) - counts
    v = -values if lowest else values
    best = np.maximum.reduceat(v, starts)
    rows = np.arange(len(v), dtype=np.int64)
    first = np.where(v == np.repeat(best, counts), rows, len(v))
    return np.asarray(np.minimum.reduceat(first, starts), dtype=np.int64)
