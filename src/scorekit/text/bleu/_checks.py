"""BLEU's input checks: predictions, references and their lengths."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from scorekit.errors import InputError, message, raw


def _as_list(metric: str, name: str, values: Any, expected: str) -> list[Any]:
    """The items of a sequence-like input (list, tuple, numpy, pandas, pyarrow) as a list."""
    if values is None:
        raise InputError(message(metric, f"{name} is missing", None, expected))
    if isinstance(values, str | bytes):
        raise InputError(message(metric, f"{name} is a single string", values, expected))
    if hasattr(values, "to_pylist"):  # pyarrow
        return list(values.to_pylist())
    if isinstance(values, np.ndarray) or type(values).__module__.startswith("pandas"):
        return list(values.tolist())
    if not isinstance(values, Sequence):
        raise InputError(message(metric, f"{name} is not a sequence", values, expected))
    return list(values)


def _where(value: Any, index: str) -> str:
    return raw(f"{value!r} ({type(value).__name__}) at index {index}")


def _predictions(metric: str, predictions: Any) -> list[str]:
    preds = _as_list(metric, "predictions", predictions, "a sequence of strings")
    for i, p in enumerate(preds):
        if not isinstance(p, str):
            problem = "predictions contain None" if p is None else "a prediction is not a string"
            raise InputError(message(metric, problem, _where(p, str(i)), "one string each"))
    return preds


_REFS_RULE = "a string or a non-empty list of strings per prediction"


def _references(metric: str, references: Any) -> tuple[list[str], list[int]]:
    """The references flattened in prediction order, and how many each prediction has."""
    items = _as_list(metric, "references", references, _REFS_RULE)
    flat: list[str] = []
    counts: list[int] = []
    for i, item in enumerate(items):
        if isinstance(item, str):
            flat.append(item)
            counts.append(1)
            continue
        if item is None:
            raise InputError(
                message(metric, "references contain None", _where(item, str(i)), _REFS_RULE)
            )
        if isinstance(item, np.ndarray):
            item = item.tolist()
        if not isinstance(item, list | tuple):
            raise InputError(
                message(metric, "a reference is not a string", _where(item, str(i)), _REFS_RULE)
            )
        if not item:
            raise InputError(
                message(
                    metric,
                    "a prediction has an empty reference list",
                    _where(item, str(i)),
                    _REFS_RULE,
                )
            )
        for j, ref in enumerate(item):
            if not isinstance(ref, str):
                if ref is None:
                    problem = "references contain None"
                elif isinstance(ref, list | tuple | np.ndarray):
                    problem = "references are nested too deeply"
                else:
                    problem = "a reference is not a string"
                raise InputError(message(metric, problem, _where(ref, f"[{i}][{j}]"), _REFS_RULE))
        flat.extend(item)
        counts.append(len(item))
    return flat, counts


def _check_lengths(metric: str, references: Any, n_refs: int, n_preds: int) -> None:
    if n_refs == n_preds:
        return
    expected = "one entry of references per prediction"
    if (
        isinstance(references, list | tuple)
        and references
        and all(isinstance(r, list | tuple) and len(r) == n_preds for r in references)
    ):
        expected += " (sacrebleu-style reference streams are transposed: use list(zip(*streams)))"
    raise InputError(
        message(
            metric,
            "references and predictions differ in length",
            raw(f"{n_refs} references for {n_preds} predictions"),
            expected,
        )
    )
