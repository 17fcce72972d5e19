"""Question answering: SQuAD exact match and F1, as the official evaluation scripts compute them.

An answer is normalised as the official SQuAD v1.1 and v2.0 scripts do:
lowercase, remove ASCII punctuation, replace the articles *a*, *an*, *the*
(as whole words) by a space, and collapse whitespace. A question scores the
maximum over its gold answers of exact match (normalised strings equal) and of
token F1 (multiset overlap of the normalised tokens).

The batch is normalised at once: each distinct string once, with one
``str.translate`` and one regular-expression pass over the joined batch, and
the token overlaps of all (prediction, gold answer) pairs are counted with one
sort of hashed token ids, instead of per-pair ``Counter`` objects.

Examples
--------
>>> from scorekit import qa
>>> qa.exact_match([["The Eiffel Tower", "Eiffel tower"]], ["eiffel tower!"])
1.0
>>> qa.f1([["in the year 1889"]], ["1889"])
0.5
"""

from __future__ import annotations

import abc
import itertools
import math
import re
import string
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

import numpy as np
from numpy.typing import NDArray

from scorekit._check import check_strings, short_repr, string_item_error
from scorekit.core import (
    InputKind,
    Metric,
    State,
    register,
    register_input_kind,
    state_field,
)
from scorekit.errors import ConfigError, InputError, UndefinedMetricWarning, choices, message, raw

register_input_kind(
    InputKind(
        name="qa_answers",
        description="references, predictions: per question a list of gold answer strings, and "
        "one predicted answer string",
        roles={"references": "references", "predictions": "texts"},
    )
)

__all__ = [
    "QAF1",
    "AnswerScores",
    "ExactMatch",
    "exact_match",
    "f1",
    "normalize_answer",
    "question_scores",
    "squad",
]

Version = Literal["1.1", "2.0"]
VERSIONS: tuple[str, ...] = ("1.1", "2.0")

_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_SEP = "\x00"  # not whitespace, not punctuation, not a word character


def normalize_answer(text: str) -> str:
    """Normalise one answer as the official SQuAD scripts do.

    Lowercase, remove ASCII punctuation, replace the whole words *a*, *an* and
    *the* by a space, then collapse runs of whitespace to one space.

    Examples
    --------
    >>> normalize_answer("  The  Eiffel-Tower, Paris! ")
    'eiffeltower paris'
    """
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION)).split())


def _normalize_all(texts: list[str]) -> list[str]:
    """Normalise many answers with one pass of each step over the joined batch."""
    if not texts:
        return []
    joined = _SEP.join(texts)
    if joined.count(_SEP) != len(texts) - 1:  # a text contains the separator itself
        return [normalize_answer(t) for t in texts]
    # str.lower is context-free except for the final sigma, whose context ends at
    # the separator just as it ends at the end of a string
    parts = _ARTICLES.sub(" ", joined.lower().translate(_PUNCTUATION)).split(_SEP)
    return list(map(" ".join, map(str.split, parts)))


# input checks ------------------------------------------------------------------


def _check_version(metric: str, version: Any) -> None:
    if version not in VERSIONS:
        raise ConfigError(message(metric, "unknown SQuAD version", version, choices(VERSIONS)))


def _as_sequence(metric: str, name: str, values: Any, expected: str) -> Sequence[Any]:
    if values is None:
        raise InputError(message(metric, f"{name} is missing", None, expected))
    if isinstance(values, str | bytes):
        raise InputError(message(metric, f"{name} is a single string", values, expected))
    if isinstance(values, Mapping):
        raise InputError(
            message(
                metric,
                f"{name} is a mapping",
                raw(type(values).__name__),
                expected + " (use qa.squad for predictions keyed by question id)",
            )
        )
    if isinstance(values, np.ndarray):
        if values.ndim == 0:
            raise InputError(message(metric, f"{name} is a single value", values.item(), expected))
        return list(values.tolist())
    if not isinstance(values, Sequence):
        try:
            return list(values)
        except TypeError:
            raise InputError(
                message(metric, f"{name} is not a sequence", raw(type(values).__name__), expected)
            ) from None
    return values


def _check_predictions(metric: str, predictions: Any) -> list[str]:
    preds = _as_sequence(metric, "predictions", predictions, "one answer string per question")
    out = list(preds)
    if not set(map(type, out)) <= {str}:
        for i, p in enumerate(out):
            if not isinstance(p, str):
                raise string_item_error(metric, "predictions", p, f"index {i}")
        out = [str(p) for p in out]
    return out


def _check_references(metric: str, references: Any) -> tuple[list[str], list[int]]:
    """Flatten the gold answers; return them and the number per question."""
    expected = "a list of gold answer strings per question"
    refs = _as_sequence(metric, "references", references, expected)
    if set(map(type, refs)) <= {list, tuple}:
        # fast path: flatten in C, check types once, look closer only on failure
        counts = list(map(len, refs))
        golds = list(itertools.chain.from_iterable(refs))
        if set(map(type, golds)) <= {str} and (not counts or min(counts) > 0):
            return golds, counts
    golds = []
    counts = []
    for i, answers in enumerate(refs):
        if isinstance(answers, str):
            raise InputError(
                message(
                    metric,
                    "references has the wrong nesting",
                    raw(f"the string {short_repr(answers)} at index {i}"),
                    expected + " (wrap a single answer as [answer])",
                )
            )
        if isinstance(answers, np.ndarray):
            answers = answers.tolist()
        if answers is None or not isinstance(answers, list | tuple):
            if answers is None:
                raise InputError(
                    message(metric, "references contains None", raw(f"None at index {i}"), expected)
                )
            raise InputError(
                message(
                    metric,
                    "references has the wrong nesting",
                    raw(f"{type(answers).__name__} at index {i}"),
                    expected,
                )
            )
        if not answers:
            raise InputError(
                message(
                    metric,
                    "a question has no gold answer",
                    raw(f"[] at index {i}"),
                    "at least one answer ([''] marks an unanswerable question)",
                )
            )
        golds.extend(
            check_strings(metric, answers, i, inside="answers", item="answer", expected=expected)
        )
        counts.append(len(answers))
    return golds, counts


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


# the metrics -------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class AnswerScores(State):
    """Sum of per-question scores (the maximum over gold answers) and the question count."""

    measure: str = state_field("same")
    version: str = state_field("same")
    count: int = state_field("sum", default=0)
    total: float = state_field("sum", default=0.0)


@dataclass(frozen=True)
class _AnswerMetric(Metric[AnswerScores]):
    version: Version = "2.0"

    def __post_init__(self) -> None:
        _check_version(self.name, self.version)

    @abc.abstractmethod
    def _measure(self) -> str:
        """Which per-question score this metric averages: ``"exact"`` or ``"f1"``."""

    def empty(self) -> AnswerScores:
        """The state of no questions."""
        return AnswerScores(measure=self._measure(), version=self.version)

    def summarize(self, references: Any, predictions: Any) -> AnswerScores:
        """Sum the per-question scores of one batch."""
        want_f1 = self._measure() == "f1"
        exact, f = question_scores(
            references, predictions, version=self.version, with_f1=want_f1, metric=self.name
        )
        values = f if f is not None else exact
        return AnswerScores(
            measure=self._measure(),
            version=self.version,
            count=len(values),
            total=float(values.sum()),
        )

    def compute(self, state: AnswerScores) -> float:
        """The mean per-question score."""
        if state.count == 0:
            raise InputError(
                message(self.name, "empty input", raw("0 questions"), "at least one question")
            )
        return state.total / state.count


@register(
    "exact_match",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="qa_answers",
    aliases=("em",),
    variant="version",
    variants=VERSIONS,
)
@dataclass(frozen=True)
class ExactMatch(_AnswerMetric):
    """SQuAD exact match: the share of questions whose normalised prediction equals a gold answer.

    .. math:: \\mathrm{EM} = \\frac{1}{n} \\sum_{q=1}^{n} \\max_{g \\in G_q}
        [\\mathrm{norm}(\\hat a_q) = \\mathrm{norm}(g)]

    Parameters
    ----------
    version : {"2.0", "1.1"}, default "2.0"
        The official script to follow. With ``"2.0"`` gold answers that
        normalise to ``""`` are dropped and a question left without gold answers
        has the single gold answer ``""`` (unanswerable): only an empty
        prediction matches it.

    Notes
    -----
    Normalisation (:func:`normalize_answer`) lowercases, removes ASCII
    punctuation, drops the articles *a*, *an*, *the* and collapses whitespace.
    Every question needs at least one gold answer (``[""]`` for an unanswerable
    one). Empty input raises :class:`~scorekit.errors.InputError`. The value is
    a fraction; the official scripts print it times 100.

    References
    ----------
    Rajpurkar et al., "SQuAD: 100,000+ Questions for Machine Comprehension of
    Text", EMNLP 2016, and "Know What You Don't Know: Unanswerable Questions for
    SQuAD", ACL 2018; matches the official ``evaluate-v1.1.py`` and
    ``evaluate-v2.0.py``.

    Examples
    --------
    >>> references = [["Denver Broncos"], ["a cat", "the dog"]]
    >>> ExactMatch().score(references, ["the Denver Broncos", "dog"])
    1.0
    >>> ExactMatch().score([[""], ["Paris"]], ["", "paris, France"])
    0.5
    """

    def _measure(self) -> str:
        return "exact"


@register(
    "qa_f1",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="qa_answers",
    aliases=("squad_f1",),
    variant="version",
    variants=VERSIONS,
)
@dataclass(frozen=True)
class QAF1(_AnswerMetric):
    """SQuAD token F1: per question the best F1 of the prediction's tokens against a gold answer.

    .. math:: F_1(\\hat a, g) = \\frac{2 P R}{P + R},\\quad
        P = \\frac{|T(\\hat a) \\cap T(g)|}{|T(\\hat a)|},\\quad
        R = \\frac{|T(\\hat a) \\cap T(g)|}{|T(g)|}

    where :math:`T` is the multiset of whitespace tokens of the normalised
    answer and :math:`\\cap` the multiset intersection; the value is the mean
    over questions of the maximum over gold answers.

    Parameters
    ----------
    version : {"2.0", "1.1"}, default "2.0"
        The official script to follow. ``"2.0"`` scores 1 when the prediction
        and the gold answer both normalise to no tokens (an unanswerable
        question answered with ``""``), and drops gold answers that normalise to
        ``""`` as :class:`ExactMatch` does; ``"1.1"`` scores 0 whenever no token
        is shared.

    Notes
    -----
    The F1 of each pair uses the official arithmetic step by step, so
    per-question values are bit-identical to the scripts'. Empty input raises
    :class:`~scorekit.errors.InputError`. The value is a fraction; the official
    scripts print it times 100.

    References
    ----------
    Rajpurkar et al., EMNLP 2016 and ACL 2018; matches the official
    ``evaluate-v1.1.py`` and ``evaluate-v2.0.py``.

    Examples
    --------
    >>> QAF1().score([["the Denver Broncos"]], ["Denver"])
    0.666...
    >>> QAF1().score([[""]], [""]), QAF1(version="1.1").score([[""]], [""])
    (1.0, 0.0)
    """

    def _measure(self) -> str:
        return "f1"


def exact_match(references: Any, predictions: Any, *, version: Version = "2.0") -> float:
    """SQuAD exact match of predictions against lists of gold answers; see :class:`ExactMatch`.

    Examples
    --------
    >>> exact_match([["Normandy", "in Normandy"], ["10th century"]], ["normandy", "the 10th"])
    0.5
    """
    return float(ExactMatch(version=version).score(references, predictions))


def f1(references: Any, predictions: Any, *, version: Version = "2.0") -> float:
    """SQuAD token F1 of predictions against lists of gold answers; see :class:`QAF1`.

    Examples
    --------
    >>> f1([["Normandy", "in Normandy"], ["10th century"]], ["normandy", "the 10th"])
    0.8333...
    """
    return float(QAF1(version=version).score(references, predictions))


# the official dataset format ------------------------------------------------------


def _questions(dataset: Any) -> list[tuple[str, list[str]]]:
    """(question id, gold answer texts) of every question of a SQuAD dataset."""
    name = "squad"
    articles = dataset.get("data") if isinstance(dataset, Mapping) else dataset
    if not isinstance(articles, list):
        raise InputError(
            message(
                name,
                "dataset is not in the SQuAD format",
                raw(type(dataset).__name__),
                "the dataset JSON (a dict with 'data') or its list of articles",
            )
        )
    out: list[tuple[str, list[str]]] = []
    seen: set[str] = set()
    try:
        for a, article in enumerate(articles):
            for p, paragraph in enumerate(article["paragraphs"]):
                for q, qa in enumerate(paragraph["qas"]):
                    where = f"data[{a}].paragraphs[{p}].qas[{q}]"
                    qid = qa["id"]
                    if qid in seen:
                        raise InputError(message(name, "duplicate question id", qid, "unique ids"))
                    seen.add(qid)
                    texts = [ans["text"] for ans in qa["answers"]]
                    for t in texts:
                        if not isinstance(t, str):
                            raise string_item_error(name, "an answer text", t, where)
                    out.append((qid, texts))
    except (KeyError, TypeError) as exc:
        raise InputError(
            message(
                name,
                "dataset is not in the SQuAD format",
                raw(f"{type(exc).__name__}: {exc}"),
                "articles with paragraphs, qas, id and answers[].text",
            )
        ) from None
    if not out:
        raise InputError(message(name, "empty input", raw("0 questions"), "at least one question"))
    return out


def _na_probs(qids: list[str], na_probs: Any) -> tuple[NDArray[np.float64], list[float]]:
    """The no-answer probability of every question, and all values in the mapping's order."""
    if not isinstance(na_probs, Mapping):
        raise InputError(
            message(
                "squad", "na_probs is not a mapping", raw(type(na_probs).__name__), "{id: prob}"
            )
        )
    values: list[float] = []
    for qid, v in na_probs.items():
        if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating):
            raise InputError(
                message("squad", "a no-answer probability is not a number", v, "a finite number")
            )
        if not math.isfinite(v):
            raise InputError(
                message(
                    "squad",
                    "a no-answer probability is not finite",
                    raw(f"{v} for {qid!r}"),
                    "a finite number",
                )
            )
        values.append(float(v))
    missing = [q for q in qids if q not in na_probs]
    if missing:
        raise InputError(
            message(
                "squad",
                "no-answer probabilities are missing",
                raw(f"{len(missing)} questions, first {missing[0]!r}"),
                "one per question of the dataset",
            )
        )
    return np.array([float(na_probs[q]) for q in qids]), values


def _best_threshold(
    scores: NDArray[np.float64],
    has_answer: NDArray[np.bool_],
    answered: NDArray[np.bool_],
    na_sorted: NDArray[np.float64],
    order: NDArray[np.int64],
) -> tuple[float, float]:
    """The official best-threshold search, vectorised.

    Questions are taken in increasing no-answer probability (``order``, stable);
    each adds its score when it has an answer, and -1 when it has none but a
    non-empty prediction. The running total starts at the number of unanswerable
    questions; the best total and the probability where it is first reached win.
    """
    diff = np.where(has_answer, scores, np.where(answered, -1.0, 0.0))[order]
    start = float(np.count_nonzero(~has_answer))
    running = np.cumsum(np.concatenate([[start], diff]))[1:]
    best, thresh = start, 0.0
    if len(running):
        i = int(np.argmax(running))
        if running[i] > start:
            best, thresh = float(running[i]), float(na_sorted[i])
    return best / len(scores), thresh


def squad(
    dataset: Any,
    predictions: Mapping[str, str],
    *,
    version: Version = "2.0",
    na_probs: Mapping[str, float] | None = None,
    na_prob_thresh: float = 1.0,
) -> dict[str, float]:
    """Evaluate predictions on a SQuAD dataset as the official v1.1 / v2.0 scripts do.

    Parameters
    ----------
    dataset : dict or list
        The official dataset JSON (a dict with ``"data"``) or its list of
        articles: ``article["paragraphs"][i]["qas"][j]`` has ``"id"`` and
        ``"answers"`` (a list of ``{"text": ...}``; empty when unanswerable).
    predictions : mapping of str to str
        Question id -> predicted answer (``""`` predicts no answer).
    version : {"2.0", "1.1"}, default "2.0"
        Which script to follow (see :class:`QAF1` for the differences).
    na_probs : mapping of str to float, optional
        Question id -> probability (or any score) that the question has no
        answer, v2.0 only. When given, the result also has the best thresholds.
    na_prob_thresh : float, default 1.0
        v2.0: a question whose no-answer probability exceeds this is scored as
        predicted unanswerable (1 if it has no answer, else 0).

    Returns
    -------
    dict
        ``exact``, ``f1`` (fractions, the scripts print them times 100) and
        ``total``; for v2.0 also ``HasAns_exact``, ``HasAns_f1``,
        ``HasAns_total`` and ``NoAns_*`` when there are such questions, and with
        ``na_probs`` ``best_exact``, ``best_exact_thresh``, ``best_f1``,
        ``best_f1_thresh``.

    Notes
    -----
    v1.1 scores a question without a prediction 0 (with an
    :class:`~scorekit.errors.UndefinedMetricWarning`, where the script prints a
    message); v2.0 requires a prediction for every question (the official
    script fails on a missing one). Predictions for ids not in the dataset are
    ignored. In v2.0 a question has an answer when its ``answers`` list is not
    empty; gold answers that normalise to ``""`` count as ``""``.

    The threshold search visits questions in increasing no-answer probability,
    ties in the order of ``na_probs``, as the script's stable sort does.

    Examples
    --------
    >>> data = {"data": [{"paragraphs": [{"qas": [
    ...     {"id": "q1", "answers": [{"text": "Paris"}]},
    ...     {"id": "q2", "answers": []}]}]}]}
    >>> result = squad(data, {"q1": "Paris", "q2": "Lyon"}, na_probs={"q1": 0.1, "q2": 0.7})
    >>> result["exact"], result["HasAns_exact"], result["NoAns_exact"]
    (0.5, 1.0, 0.0)
    >>> result["best_exact"], result["best_exact_thresh"]
    (1.0, 0.1)
    """
    _check_version("squad", version)
    if not isinstance(predictions, Mapping):
        raise InputError(
            message(
                "squad",
                "predictions is not a mapping",
                raw(type(predictions).__name__),
                "{question id: answer}",
            )
        )
    if na_probs is not None and version == "1.1":
        raise ConfigError(message("squad", "na_probs needs version '2.0'", version, "'2.0'"))
    if isinstance(na_prob_thresh, bool) or not isinstance(na_prob_thresh, int | float):
        raise ConfigError(message("squad", "na_prob_thresh is not a number", na_prob_thresh))
    questions = _questions(dataset)
    qids = [q for q, _ in questions]
    missing = [q for q in qids if q not in predictions]
    if missing and version == "2.0":
        raise InputError(
            message(
                "squad",
                "predictions are missing",
                raw(f"{len(missing)} questions, first {missing[0]!r}"),
                "a prediction (possibly '') for every question",
            )
        )
    if missing:
        warnings.warn(
            f"squad: {len(missing)} questions have no prediction and score 0, "
            f"first {missing[0]!r}.",
            UndefinedMetricWarning,
            stacklevel=2,
        )
    answered_q = [(q, t) for q, t in questions if q in predictions]
    refs = [t if t else [""] for _, t in answered_q]
    if version == "1.1" and any(not t for _, t in answered_q):
        bad = next(q for q, t in answered_q if not t)
        raise InputError(
            message(
                "squad",
                "a question has no gold answer",
                raw(f"id {bad!r}"),
                "answers for every question in v1.1 (use version='2.0')",
            )
        )
    preds = [predictions[q] for q, _ in answered_q]
    for q, p in zip(answered_q, preds, strict=True):
        if not isinstance(p, str):
            raise string_item_error("squad", "predictions", p, f"id {q[0]!r}")
    exact, scored = question_scores(refs, preds, version=version, metric="squad")
    f = cast(NDArray[np.float64], scored)
    total = len(qids)
    if version == "1.1":
        return {"exact": float(exact.sum()) / total, "f1": float(f.sum()) / total, "total": total}

    has_answer = np.array([bool(t) for _, t in questions])
    raw_exact, raw_f1 = exact, f
    if na_probs is not None:
        probs, listed = _na_probs(qids, na_probs)
    else:
        probs, listed = np.zeros(total), []
    predicted_na = probs > na_prob_thresh
    exact = np.where(predicted_na, (~has_answer).astype(float), raw_exact)
    f = np.where(predicted_na, (~has_answer).astype(float), raw_f1)
    result: dict[str, float] = {
        "exact": float(exact.sum()) / total,
        "f1": float(f.sum()) / total,
        "total": total,
    }
    for prefix, mask in (("HasAns", has_answer), ("NoAns", ~has_answer)):
        count = int(mask.sum())
        if count:
            result[f"{prefix}_exact"] = float(exact[mask].sum()) / count
            result[f"{prefix}_f1"] = float(f[mask].sum()) / count
            result[f"{prefix}_total"] = count
    if na_probs is not None:
        # the script sorts every id of na_probs stably by value and skips those
        # that are not questions of the dataset
        index = {q: i for i, q in enumerate(qids)}
        listed_ids = [index.get(q, -1) for q in na_probs]
        by_value = np.argsort(np.array(listed, dtype=np.float64), kind="stable")
        positions = np.array(listed_ids, dtype=np.int64)[by_value]
        keep = positions >= 0
        order = positions[keep]
        na_sorted = np.array(listed, dtype=np.float64)[by_value][keep]
        answered = np.array([bool(p) for p in preds])
        for key, scores in (("exact", raw_exact), ("f1", raw_f1)):
            best, thresh = _best_threshold(scores, has_answer, answered, na_sorted, order)
            result[f"best_{key}"] = best
            result[f"best_{key}_thresh"] = thresh
    return result
