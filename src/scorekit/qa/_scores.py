"""Per-question SQuAD scores: the input checks, the token overlaps and :func:`question_scores`.

Each distinct string is normalised once, and the token overlaps of all
(prediction, gold answer) pairs are counted with one sort of hashed token ids,
instead of per-pair ``Counter`` objects.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit._check import StringErrors, as_strings
from scorekit.errors import ConfigError, InputError, choices, message, raw
from scorekit.qa._normalize import _normalize_all

__all__ = ["VERSIONS", "Version", "question_scores"]

Version = Literal["1.1", "2.0"]
VERSIONS: tuple[str, ...] = ("1.1", "2.0")


# input checks ------------------------------------------------------------------


def _check_version(metric: str, version: Any) -> None:
    if version not in VERSIONS:
        raise ConfigError(message(metric, "unknown SQuAD version", version, choices(VERSIONS)))


class _AnswerErrors(StringErrors):
    """The wording of the QA inputs: a mapping points to ``qa.squad``, an empty list to ``['']``."""

    def mapping(self, values: Mapping[Any, Any]) -> InputError:
        return self.error(
            f"{self.name} is a mapping",
            raw(type(values).__name__),
            self.expected + " (use qa.squad for predictions keyed by question id)",
        )

    def empty(self, value: Any, index: int) -> InputError:
        return self.error(
            "a question has no gold answer",
            raw(f"[] at index {index}"),
            "at least one answer ([''] marks an unanswerable question)",
        )


def _check_predictions(metric: str, predictions: Any) -> list[str]:
    return as_strings(
        metric,
        "predictions",
        predictions,
        expected="one answer string per question",
        errors=_AnswerErrors,
    )


def _check_references(metric: str, references: Any) -> tuple[list[str], list[int]]:
    """Flatten the gold answers; return them and the number per question."""
    return as_strings(
        metric,
        "references",
        references,
        expected="a list of gold answer strings per question",
        per_item="list",
        item="answer",
        errors=_AnswerErrors,
    )


# scoring -----------------------------------------------------------------------


def _first_seen_ids(items: Iterable[str], count: int) -> NDArray[np.int64]:
    """An id per item, equal for equal items: the position where the item first appears."""
    first: dict[str, int] = {}
    return np.fromiter(map(first.setdefault, items, itertools.count()), np.int64, count)


def _distinct(items: list[str]) -> tuple[list[str], NDArray[np.int64]]:
    """The distinct items in order of first appearance, and each item's index among them."""
    ids = _first_seen_ids(iter(items), len(items))
    firsts, index = np.unique(ids, return_inverse=True)
    return [items[i] for i in firsts.tolist()], index.astype(np.int64, copy=False)


def _ragged_take(starts: NDArray[np.int64], lens: NDArray[np.int64]) -> NDArray[np.int64]:
    """Concatenate ``arange(s, s + n)`` for each start ``s`` and length ``n``."""
    total = int(lens.sum())
    out_starts = np.cumsum(lens) - lens
    return np.repeat(starts - out_starts, lens) + np.arange(total, dtype=np.int64)


def _overlaps(
    norms: list[str], pred: NDArray[np.int64], gold: NDArray[np.int64]
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Token multiset overlap of each (pred, gold) pair of normalised strings, and lengths.

    Returns the overlap per pair and the token count of each normalised string.
    """
    token_lists = list(map(str.split, norms))
    lengths = np.fromiter(map(len, token_lists), np.int64, len(token_lists))
    total = int(lengths.sum())
    ids = _first_seen_ids(itertools.chain.from_iterable(token_lists), total)
    n_pairs = len(pred)
    v = max(total, 1)  # ids are below the token count
    # distinct (string, token) entries with their counts, grouped by string
    owner = np.repeat(np.arange(len(norms), dtype=np.int64), lengths)
    keys, counts = np.unique(owner * v + ids, return_counts=True)
    entry_owner, entry_token = np.divmod(keys, v)
    starts = np.searchsorted(entry_owner, np.arange(len(norms), dtype=np.int64))
    n_entries = np.diff(np.append(starts, len(keys)))

    sides_keys = []
    sides_counts = []
    for side in (pred, gold):
        lens = n_entries[side]
        idx = _ragged_take(starts[side], lens)
        pair = np.repeat(np.arange(n_pairs, dtype=np.int64), lens)
        sides_keys.append((pair, entry_token[idx]))
        sides_counts.append(counts[idx])
    pair_all = np.concatenate([sides_keys[0][0], sides_keys[1][0]])
    token_all = np.concatenate([sides_keys[0][1], sides_keys[1][1]])
    count_all = np.concatenate(sides_counts)
    if n_pairs * v < 2**62:
        order = np.argsort(pair_all * v + token_all, kind="stable")
    else:
        order = np.lexsort((token_all, pair_all))
    p_sorted, t_sorted, c_sorted = pair_all[order], token_all[order], count_all[order]
    # within one side a (pair, token) key is unique, so equal neighbours are one
    # pred entry and one gold entry of the same pair and token
    same = (p_sorted[1:] == p_sorted[:-1]) & (t_sorted[1:] == t_sorted[:-1])
    common = np.minimum(c_sorted[1:], c_sorted[:-1])[same]
    overlap: NDArray[np.float64] = np.bincount(
        p_sorted[1:][same], weights=common, minlength=n_pairs
    ).astype(np.float64, copy=False)
    return overlap, lengths


def _pair_f1(
    overlap: NDArray[np.float64],
    len_pred: NDArray[np.int64],
    len_gold: NDArray[np.int64],
    version: str,
) -> NDArray[np.float64]:
    """Token F1 of each pair with the official arithmetic of ``version``."""
    f = np.zeros(len(overlap))
    hit = overlap > 0
    same = overlap[hit]
    precision = 1.0 * same / len_pred[hit]
    recall = 1.0 * same / len_gold[hit]
    f[hit] = (2 * precision * recall) / (precision + recall)
    if version == "2.0":
        # an empty side scores 1 when both are empty (no answer) and 0 otherwise
        f[(len_pred == 0) & (len_gold == 0)] = 1.0
    return f


def question_scores(
    references: Any,
    predictions: Any,
    *,
    version: Version = "2.0",
    with_f1: bool = True,
    metric: str = "qa",
) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
    """Per-question exact match and token F1, the maximum over each question's gold answers.

    Parameters
    ----------
    references : sequence of sequences of str
        Per question, its gold answers (at least one; ``[""]`` for a question
        with no answer).
    predictions : sequence of str
        Per question, the predicted answer.
    version : {"2.0", "1.1"}, default "2.0"
        Whose arithmetic to follow. ``"2.0"`` drops gold answers that normalise
        to the empty string (a question left with none has the gold answer
        ``""``) and scores F1 1 when both answers are empty; ``"1.1"`` keeps
        every gold answer and scores F1 0 whenever no token is shared.
    with_f1 : bool, default True
        Also compute F1 (exact match alone skips the token counting).
    metric : str
        The name errors are reported under.

    Returns
    -------
    exact, f1 : ndarray of float
        One value per question (``f1`` is None when not requested).

    Examples
    --------
    >>> em, f = question_scores([["Paris", "the city of Paris"], [""]], ["paris", "Lyon"])
    >>> em.tolist(), f.tolist()
    ([1.0, 0.0], [1.0, 0.0])
    """
    _check_version(metric, version)
    preds = _check_predictions(metric, predictions)
    golds, counts = _check_references(metric, references)
    if len(preds) != len(counts):
        raise InputError(
            message(
                metric,
                "inputs differ in length",
                raw(f"references has {len(counts)}, predictions has {len(preds)}"),
                "one list of gold answers per prediction",
            )
        )
    n = len(preds)
    if n == 0:
        return np.zeros(0), (np.zeros(0) if with_f1 else None)

    # distinct raw strings ("" first), then distinct normalised forms
    raw_strings, raw_index = _distinct(["", *preds, *golds])
    norms, raw_to_norm = _distinct(_normalize_all(raw_strings))
    pred_n = raw_to_norm[raw_index[1 : n + 1]]
    gold_n = raw_to_norm[raw_index[n + 1 :]]
    owner = np.repeat(np.arange(n, dtype=np.int64), np.asarray(counts, dtype=np.int64))

    if version == "2.0":
        empty_norm = raw_to_norm[raw_index[0]]
        keep = gold_n != empty_norm
        if not keep.all():
            kept_per_q = np.bincount(owner[keep], minlength=n)
            unanswerable = np.flatnonzero(kept_per_q == 0)
            owner = np.concatenate([owner[keep], unanswerable])
            gold_n = np.concatenate([gold_n[keep], np.full(len(unanswerable), empty_norm)])
            order = np.argsort(owner, kind="stable")
            owner, gold_n = owner[order], gold_n[order]

    starts = np.searchsorted(owner, np.arange(n, dtype=np.int64))
    pred_pairs = pred_n[owner]
    exact = np.maximum.reduceat((pred_pairs == gold_n).astype(np.float64), starts)
    if not with_f1:
        return exact, None
    overlap, lengths = _overlaps(norms, pred_pairs, gold_n)
    pair_f1 = _pair_f1(overlap, lengths[pred_pairs], lengths[gold_n], version)
    return exact, np.maximum.reduceat(pair_f1, starts)
