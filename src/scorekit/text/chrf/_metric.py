"""chrF and chrF++ (Popović 2015, 2017) as sacrebleu computes them: state, metrics, functions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit._version import __version__
from scorekit.core import Explanation, Flag, Range, State, register, state_field
from scorekit.errors import ConfigError, InputError, message, raw
from scorekit.text._pairs import best_per_item, text_pairs
from scorekit.text._refs import check_ref_range, merge_ref_range, nrefs
from scorekit.text._segments import SegmentSums
from scorekit.text.chrf._count import char_symbols, match_counts, word_symbols

__all__ = ["CHRF", "CHRFPlusPlus", "CHRFResult", "CHRFStats", "chrf", "sentence_chrf"]

_EPS = 1e-16  # sacrebleu's smoothing of an undefined precision or recall


@dataclass(frozen=True, eq=False)
class CHRFStats(State):
    """Summed chrF statistics of a set of segments, and the settings that shaped them.

    Attributes
    ----------
    char_order, word_order, beta, lowercase, whitespace, eps_smoothing
        The settings (the best of several references is chosen by the F-score,
        so ``beta`` and ``eps_smoothing`` shape the statistics too).
    segments : int
        The number of (prediction, references) pairs.
    stats : ndarray of int64, shape (char_order + word_order, 3)
        Per order (characters 1..char_order, then words 1..word_order): the
        prediction n-grams, the reference n-grams and the matched n-grams.
    min_refs, max_refs : int
        The fewest and most references a segment had (0 for no segments).
    """

    char_order: int = state_field("same", check="count")
    word_order: int = state_field("same", check="count")
    beta: float = state_field("same", check="weight")
    lowercase: bool = state_field("same", check="flag")
    whitespace: bool = state_field("same", check="flag")
    eps_smoothing: bool = state_field("same", check="flag")
    segments: int = state_field("sum", check="count", counts_rows=True)
    stats: NDArray[np.int64] = state_field("sum", check="count", ndim=2)
    min_refs: int = state_field("custom", check="count")
    max_refs: int = state_field("custom", check="count")

    def _check(self) -> None:
        order = self.char_order + self.word_order
        if order < 1:
            raise self._invalid(
                "char_order", "no n-gram order", order, "char_order + word_order >= 1"
            )
        if self.stats.shape != (order, 3):
            raise self._invalid(
                "stats",
                "not three counts per order",
                raw(f"shape {list(self.stats.shape)}"),
                f"shape [{order}, 3] (prediction, reference, matched n-grams per order)",
            )
        over = self.stats[:, 2] > np.minimum(self.stats[:, 0], self.stats[:, 1])
        if over.any():
            n = int(np.flatnonzero(over)[0])
            raise self._invalid(
                "stats",
                "more matched n-grams than n-grams",
                raw(f"order {n + 1}: {self.stats[n].tolist()}"),
                "matched <= prediction and reference n-grams",
            )
        if self.segments == 0 and (self.stats.any() or self.max_refs):
            raise self._invalid(
                "segments", "counts without segments", 0, "segments for every count"
            )
        check_ref_range(self)

    def _merge_custom(self, other: CHRFStats) -> dict[str, Any]:
        return merge_ref_range(self, other)


@dataclass(frozen=True)
class CHRFResult:
    """chrF with its settings and signature.

    Attributes
    ----------
    score : float
        chrF as a fraction in [0, 1] (sacrebleu prints 100 times it).
    char_order, word_order : int
        The character and word n-gram orders.
    beta : float
        The weight of recall.
    signature : str
        The settings that reproduce the number, in sacrebleu's form.
    """

    score: float
    char_order: int
    word_order: int
    beta: float
    signature: str

    @property
    def name(self) -> str:
        """``chrF2`` or ``chrF2++``, as sacrebleu names the score."""
        return f"chrF{self.beta:g}" + "+" * self.word_order

    def __float__(self) -> float:
        return self.score


def f_scores(stats: NDArray[np.int64], beta: float, eps_smoothing: bool) -> NDArray[np.float64]:
    """chrF of each row of statistics ``(..., orders, 3)`` as a fraction, as sacrebleu computes it.

    Examples
    --------
    >>> f_scores(np.array([[4, 4, 4], [3, 3, 2]]), 2, False).round(4)
    np.float64(0.8333)
    """
    stats = np.asarray(stats)
    factor = float(beta) ** 2
    shape = stats.shape[:-2]
    score = np.zeros(shape)
    avg_prec = np.zeros(shape)
    avg_rec = np.zeros(shape)
    effective = np.zeros(shape, dtype=np.int64)
    for i in range(stats.shape[-2]):
        n_hyp = stats[..., i, 0]
        n_ref = stats[..., i, 1]
        n_match = stats[..., i, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            prec = np.where(n_hyp > 0, n_match / np.maximum(n_hyp, 1), _EPS)
            rec = np.where(n_ref > 0, n_match / np.maximum(n_ref, 1), _EPS)
            denom = factor * prec + rec
            score = score + np.where(
                denom > 0, (1 + factor) * prec * rec / np.where(denom > 0, denom, 1), _EPS
            )
        both = (n_hyp > 0) & (n_ref > 0)
        avg_prec = np.where(both, avg_prec + prec, avg_prec)
        avg_rec = np.where(both, avg_rec + rec, avg_rec)
        effective = effective + both
    if eps_smoothing:
        return np.asarray(score / stats.shape[-2], dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        avg_prec = np.where(effective > 0, avg_prec / np.maximum(effective, 1), 0.0)
        avg_rec = np.where(effective > 0, avg_rec / np.maximum(effective, 1), 0.0)
        total = avg_prec + avg_rec
        value = (1 + factor) * avg_prec * avg_rec
        value = value / np.where(total != 0, factor * avg_prec + avg_rec, 1)
    return np.asarray(np.where(total != 0, value, 0.0), dtype=np.float64)


def _whole(beta: float) -> float:
    """``beta`` as an int when it is a whole number (as the signature shows it), else a float."""
    return int(beta) if float(beta).is_integer() else float(beta)


@register(
    "chrf",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="references_predictions",
)
@dataclass(frozen=True)
class CHRF(SegmentSums[CHRFStats]):
    """chrF: the F-score of character n-gram precision and recall (chrF++ adds word n-grams).

    .. math:: \\mathrm{chrF}_\\beta
        = \\frac{(1 + \\beta^2)\\, \\bar P \\bar R}{\\beta^2 \\bar P + \\bar R},
        \\qquad \\bar P = \\frac{1}{|N|} \\sum_{n \\in N} \\frac{m_n}{h_n},
        \\qquad \\bar R = \\frac{1}{|N|} \\sum_{n \\in N} \\frac{m_n}{r_n}

    where, summed over the corpus, :math:`h_n` and :math:`r_n` count the
    prediction and reference n-grams of order :math:`n` (characters
    1..``char_order``, then words 1..``word_order``), :math:`m_n` the matched
    ones (each n-gram at most as often as on both sides), and :math:`N` the
    orders with n-grams on both sides.

    Parameters
    ----------
    char_order : int, default 6
        The largest character n-gram order.
    word_order : int, default 0
        The largest word n-gram order (2 for chrF++, :class:`CHRFPlusPlus`).
    beta : float, default 2
        The weight of recall against precision.
    lowercase : bool, default False
        Lowercase predictions and references first.
    whitespace : bool, default False
        Keep whitespace in character n-grams (sacrebleu's ``whitespace``).
    eps_smoothing : bool, default False
        Average the per-order F-scores with an epsilon for undefined ones
        (chrF++.py, Moses, NLTK) instead of using the effective orders.

    Notes
    -----
    Agrees with sacrebleu 2.x's ``CHRF`` (score / 100, and the signature with
    scorekit's version), corpus and sentence level, including its conventions:
    whitespace is removed before the character n-grams; words for chrF++ are
    split at whitespace and a final (else an initial) ASCII punctuation mark of
    a word of two or more characters is a word of its own; when a reference has
    no n-gram of an order, the prediction's n-grams of that order are not
    counted; with several references a segment counts the statistics of the
    reference of highest chrF (the first of equals). The state is the summed
    statistics, so chunks and shards merge exactly. Empty input raises
    :class:`~scorekit.errors.InputError`.

    References
    ----------
    M. Popović, "chrF: character n-gram F-score for automatic MT evaluation",
    WMT 2015; "chrF++: words helping character n-grams", WMT 2017. sacrebleu's
    ``CHRF`` (M. Post, WMT 2018) is the implementation matched.

    Examples
    --------
    >>> refs = ["the cat sat on the mat", "a quick brown fox"]
    >>> preds = ["the cat sat on a mat", "the quick brown fox"]
    >>> round(CHRF().score(refs, preds), 4)
    0.7598
    >>> round(CHRF(word_order=2).score(refs, preds), 4)
    0.748
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="chrF: the F-beta score (beta 2: recall weighs more) of the character n-gram "
        "precision and recall (n = 1..6) of the predictions against their references; chrF++ "
        "adds word unigrams and bigrams.",
        formula="chrF = (1 + b^2) P R / (b^2 P + R),  P = mean_n matched_n / predicted_n,  "
        "R = mean_n matched_n / reference_n over the orders with n-grams on both sides",
        convention="Counts are summed over the corpus before the ratios. Whitespace is removed "
        "before character n-grams; with several references a segment keeps the one of highest "
        "chrF. The value is a fraction in [0, 1] (sacrebleu prints 100 times it); the "
        "signature records the settings.",
        reference="sacrebleu CHRF (Popović 2015, 2017).",
    )

    char_order: Annotated[int, Range(0)] = 6
    word_order: Annotated[int, Range(0)] = 0
    beta: Annotated[
        float, Range(0, 1e6, closed="neither", expected="a number > 0", convert=_whole)
    ] = 2
    lowercase: Annotated[bool, Flag] = False
    whitespace: Annotated[bool, Flag] = False
    eps_smoothing: Annotated[bool, Flag] = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.char_order + self.word_order < 1 or self.char_order > 20 or self.word_order > 20:
            raise ConfigError(
                message(
                    self.name,
                    "invalid n-gram orders",
                    raw(f"char_order={self.char_order}, word_order={self.word_order}"),
                    "orders of at most 20, at least one of them >= 1",
                )
            )

    @property
    def _order(self) -> int:
        return self.char_order + self.word_order

    def empty(self) -> CHRFStats:
        """The state of no segments."""
        return self._state(np.zeros((self._order, 3), dtype=np.int64), 0, 0, 0)

    def _state(self, stats: NDArray[np.int64], segments: int, lo: int, hi: int) -> CHRFStats:
        return CHRFStats(
            char_order=self.char_order,
            word_order=self.word_order,
            beta=self.beta,
            lowercase=self.lowercase,
            whitespace=self.whitespace,
            eps_smoothing=self.eps_smoothing,
            segments=segments,
            stats=stats,
            min_refs=lo,
            max_refs=hi,
        )

    def segment_stats(
        self, references: Any, predictions: Any
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Per segment, the statistics ``(orders, 3)`` of its chosen reference; reference counts."""
        refs, counts, preds = text_pairs(self.name, references, predictions)
        n = len(preds)
        if self.lowercase:
            preds = [t.lower() for t in preds]
            refs = [t.lower() for t in refs]
        texts = preds + refs
        pair_item = np.repeat(np.arange(n, dtype=np.int64), counts)
        n_pairs = len(pair_item)
        stats = np.zeros((n_pairs, self._order, 3), dtype=np.int64)
        parts = []
        if self.char_order:
            parts.append((char_symbols(texts, self.whitespace), self.char_order, 0))
        if self.word_order:
            parts.append((word_symbols(texts), self.word_order, self.char_order))
        for (ids, lengths), order, at in parts:
            matches = match_counts(ids, lengths, n, pair_item, order)
            grams = np.arange(1, order + 1, dtype=np.int64)
            ref_n = np.maximum(lengths[n:, None] - grams + 1, 0)
            hyp_n = np.maximum(lengths[pair_item, None] - grams + 1, 0)
            stats[:, at : at + order, 0] = np.where(ref_n > 0, hyp_n, 0)
            stats[:, at : at + order, 1] = ref_n
            stats[:, at : at + order, 2] = matches
        if n_pairs > n:
            chosen = best_per_item(f_scores(stats, self.beta, self.eps_smoothing), counts)
            stats = stats[chosen]
        return stats, counts

    def _segment_statistics(
        self, references: Any, predictions: Any
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Per segment ``(hyp, ref, match)`` of each order in a row (sacrebleu's), references."""
        stats, counts = self.segment_stats(references, predictions)
        return stats.reshape(len(stats), 3 * self._order), counts

    def _state_of_sums(self, sums: NDArray[Any], segments: int, lo: int, hi: int) -> CHRFStats:
        if segments == 0:
            return self.empty()
        stats = np.asarray(sums, dtype=np.int64).reshape(self._order, 3).copy()
        return self._state(stats, segments, lo, hi)

    def _values_of_sums(self, sums: NDArray[Any]) -> NDArray[np.float64]:
        stats = np.asarray(sums).reshape(len(sums), self._order, 3)
        return np.asarray(f_scores(stats, self.beta, self.eps_smoothing), dtype=np.float64)

    def summarize(self, references: Any, predictions: Any) -> CHRFStats:
        """Sum the chrF statistics of one batch of (references, prediction) pairs."""
        stats, counts = self.segment_stats(references, predictions)
        if len(counts) == 0:
            return self.empty()
        return self._state(stats.sum(axis=0), len(counts), int(counts.min()), int(counts.max()))

    def segment_scores(self, references: Any, predictions: Any) -> NDArray[np.float64]:
        """chrF of each segment alone (sacrebleu's ``sentence_score``), as fractions.

        Examples
        --------
        >>> CHRF().segment_scores(["a cat", "a dog"], ["a cat", "one"]).round(4)
        array([1.    , 0.0877])
        """
        stats, _ = self.segment_stats(references, predictions)
        return f_scores(stats, self.beta, self.eps_smoothing)

    def compute(self, state: CHRFStats) -> float:
        """chrF of the summed statistics, as a fraction."""
        return self.result(state).score

    def result(self, state: CHRFStats) -> CHRFResult:
        """The :class:`CHRFResult` of a state."""
        if state.segments == 0:
            raise InputError(
                message(self.name, "empty input", raw("0 predictions"), "at least one prediction")
            )
        score = float(f_scores(state.stats, self.beta, self.eps_smoothing))
        return CHRFResult(score, self.char_order, self.word_order, self.beta, self.signature(state))

    def details(self, references: Any, predictions: Any) -> CHRFResult:
        """chrF of one batch with its signature."""
        return self.result(self.summarize(references, predictions))

    def signature(self, state: CHRFStats | None = None) -> str:
        """The reproducibility signature, in sacrebleu's ``key:value|...`` form.

        As in sacrebleu, beta is not in the signature but in the score's name
        (:attr:`CHRFResult.name`, ``chrF2``).

        Examples
        --------
        >>> CHRF(word_order=2).signature()
        'nrefs:?|case:mixed|eff:yes|nc:6|nw:2|space:no|version:scorekit-...'
        """
        parts = [
            f"nrefs:{nrefs(state)}",
            f"case:{'lc' if self.lowercase else 'mixed'}",
            f"eff:{'no' if self.eps_smoothing else 'yes'}",
            f"nc:{self.char_order}",
            f"nw:{self.word_order}",
            f"space:{'yes' if self.whitespace else 'no'}",
        ]
        parts.append(f"version:scorekit-{__version__}")
        return "|".join(parts)


@register(
    "chrf++",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="references_predictions",
)
@dataclass(frozen=True)
class CHRFPlusPlus(CHRF):
    """chrF++: chrF with word unigrams and bigrams as two more orders (word_order=2).

    Examples
    --------
    >>> round(CHRFPlusPlus().score(["the cat sat on the mat"], ["the cat sat on a mat"]), 4)
    0.6744
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="chrF++: chrF (character n-grams 1..6) with word unigrams and bigrams averaged "
        "in as two more orders.",
        formula="chrF++ = (1 + b^2) P R / (b^2 P + R) over character orders 1..6 and word orders "
        "1..2",
        convention="As chrf; words are split at whitespace, with a final (else an initial) "
        "punctuation mark of a word split off.",
        reference="sacrebleu CHRF(word_order=2) (Popović 2017).",
    )

    word_order: int = 2


def chrf(
    references: Any,
    predictions: Any,
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: float = 2,
    lowercase: bool = False,
    whitespace: bool = False,
    eps_smoothing: bool = False,
) -> CHRFResult:
    """Corpus chrF (``word_order=2``: chrF++) with its signature; see :class:`CHRF`.

    Examples
    --------
    >>> r = chrf(["the cat sat on the mat"], ["the cat sat on a mat"], word_order=2)
    >>> r.name, round(r.score, 4)
    ('chrF2++', 0.6744)
    """
    metric = CHRF(
        char_order=char_order,
        word_order=word_order,
        beta=beta,
        lowercase=lowercase,
        whitespace=whitespace,
        eps_smoothing=eps_smoothing,
    )
    return metric.details(references, predictions)


def sentence_chrf(
    references: Any,
    prediction: str,
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: float = 2,
    lowercase: bool = False,
    whitespace: bool = False,
    eps_smoothing: bool = False,
) -> CHRFResult:
    """chrF of one prediction against one reference string or a list of them.

    Examples
    --------
    >>> round(sentence_chrf(["the cat", "a cat"], "a cat").score, 4)
    1.0
    """
    if not isinstance(prediction, str):
        raise InputError(
            message("sentence_chrf", "prediction is not a string", prediction, "one string")
        )
    if isinstance(references, str):
        references = [references]
    return chrf(
        [references],
        [prediction],
        char_order=char_order,
        word_order=word_order,
        beta=beta,
        lowercase=lowercase,
        whitespace=whitespace,
        eps_smoothing=eps_smoothing,
    )
