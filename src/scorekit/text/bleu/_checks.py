"""BLEU's input checks: predictions, references and their lengths, in BLEU's words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scorekit._check import StringErrors, as_list, as_strings
from scorekit.errors import InputError, message, raw

_REFS_RULE = "a string or a non-empty list of strings per prediction"
_SENTENCE_REFS_RULE = "a string or a non-empty list of strings"


def _where(value: Any, index: str) -> str:
    return raw(f"{value!r} ({type(value).__name__}) at index {index}")


class _BLEUErrors(StringErrors):
    """BLEU's wording: ``a prediction is not a string``, positions as ``[i][j]``."""

    def _located(self, value: Any, where: tuple[int, ...]) -> str:
        index = str(where[0]) if len(where) == 1 else "".join(f"[{k}]" for k in where)
        return _where(value, index)

    def _item_rule(self) -> str:
        return "one string each" if self.name == "predictions" else self.expected

    def mapping(self, values: Mapping[Any, Any]) -> InputError:
        return self.not_sequence(values)

    def not_sequence(self, values: Any) -> InputError:
        return self.error(f"{self.name} is not a sequence", values)

    def none(self, where: tuple[int, ...]) -> InputError:
        return self.error(
            f"{self.name} contain None", self._located(None, where), self._item_rule()
        )

    def not_string(self, value: Any, where: tuple[int, ...]) -> InputError:
        return self.error(
            f"a {self.name[:-1]} is not a string", self._located(value, where), self._item_rule()
        )

    def nested(self, value: Any, where: tuple[int, ...]) -> InputError:
        return self.error(f"{self.name} are nested too deeply", self._located(value, where))

    def empty(self, value: Any, index: int) -> InputError:
        return self.error(
            "a prediction has an empty reference list", self._located(value, (index,))
        )


def _predictions(metric: str, predictions: Any) -> list[str]:
    return as_strings(
        metric, "predictions", predictions, expected="a sequence of strings", errors=_BLEUErrors
    )


def _references(metric: str, references: Any) -> tuple[list[str], list[int]]:
    """The references flattened in prediction order, and how many each prediction has."""
    return as_strings(
        metric,
        "references",
        references,
        expected=_REFS_RULE,
        per_item="string_or_list",
        item="reference",
        errors=_BLEUErrors,
    )


def _sentence_references(metric: str, references: Any) -> list[Any]:
    """The list of references of one prediction, not empty (its items are checked later)."""
    refs = as_list(
        metric, "references", references, expected=_SENTENCE_REFS_RULE, errors=_BLEUErrors
    )
    if not refs:
        raise InputError(message(metric, "references is empty", refs, _SENTENCE_REFS_RULE))
    return refs


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
