"""ROUGE-N, ROUGE-L and ROUGE-Lsum as Google's rouge-score computes them.

Each (reference, prediction) pair gets a precision, recall and F-measure per
ROUGE type, exactly as ``rouge_score.rouge_scorer.RougeScorer.score`` (several
references: the one of highest F-measure per type, as ``score_multi``). A batch
is reduced to the sums of those per-pair values and the number of pairs
(:class:`RougeSums`), so the mean over a corpus is the same from merged chunks
as in memory.

Here: the state, :class:`ROUGE`, the single-type metrics ROUGE1 ... ROUGE9,
ROUGEL and ROUGELsum, and :func:`rouge`. The settings become a tokenizer, a
stemmer and a sentence splitter (:mod:`scorekit.text.rouge._tokens`); the
per-item scores come from :mod:`scorekit.text.rouge._scores`.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple, cast

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Metric, State, register, state_field
from scorekit.errors import ConfigError, InputError, choices, message, raw
from scorekit.text.rouge._scores import _item_scores, _skip_type
from scorekit.text.rouge._tokens import (
    TOKENIZERS,
    SentenceSplit,
    Tokenizer,
    _default_tokens,
    _describe,
    _newline_sentences,
    _none_tokens,
    _rule_sentences,
    _stem_default,
    _stem_unicode,
    _unicode_tokens,
)

__all__ = [
    "ROUGE",
    "ROUGE1",
    "ROUGE2",
    "ROUGE3",
    "ROUGE4",
    "ROUGE5",
    "ROUGE6",
    "ROUGE7",
    "ROUGE8",
    "ROUGE9",
    "ROUGEL",
    "ROUGES",
    "ROUGES4",
    "ROUGESU",
    "ROUGESU4",
    "ROUGEW",
    "ROUGE_155_TYPES",
    "ROUGE_TYPES",
    "ROUGELsum",
    "RougeScore",
    "RougeSums",
    "rouge",
]

ROUGE_TYPES = (*(f"rouge{n}" for n in range(1, 10)), "rougeL", "rougeLsum")
"""The ROUGE types: n-gram overlap for n = 1..9, LCS, and summary-level union LCS."""

ROUGE_155_TYPES = ("rougeW", "rougeS", "rougeSU", "rougeS4", "rougeSU4")
"""ROUGE-1.5.5's weighted LCS and skip-bigram types with registered metrics.

``rougeS<d>`` and ``rougeSU<d>`` take any maximum gap ``d`` (``rougeS`` and
``rougeSU`` without a number: no limit)."""

_DEFAULT_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")


class RougeScore(NamedTuple):
    """Precision, recall and F-measure of one ROUGE type.

    Attributes
    ----------
    precision, recall, fmeasure : float
        Means over the items (for each item, the values of the reference of
        highest F-measure).
    per_sample : ndarray of shape (n, 3), optional
        Per item: precision, recall, fmeasure. Only when asked for with
        ``rouge(..., per_sample=True)``.
    """

    precision: float
    recall: float
    fmeasure: float
    per_sample: NDArray[np.float64] | None = None


@dataclass(frozen=True, eq=False)
class RougeSums(State):
    """Sums of per-item precision, recall and F-measure per ROUGE type, and the item count.

    ``sums[t]`` holds the sums for ``types[t]``; merging adds sums and counts.
    The tokenizer, stemming, sentence splitting and ROUGE-W weight that produced
    the values are recorded and must agree when merging.
    """

    types: tuple[str, ...] = state_field("same")
    tokenizer: str = state_field("same")
    stemmer: bool = state_field("same")
    sentences: str = state_field("same")
    weight: float = state_field("same")
    count: int = state_field("sum")
    sums: NDArray[np.float64] = state_field("sum")


# metrics ----------------------------------------------------------------------


@dataclass(frozen=True)
class _RougeBase(Metric[RougeSums]):
    """Settings and per-item scores shared by :class:`ROUGE` and the single-type metrics."""

    stemmer: bool = False
    tokenizer: Tokenizer = "default"
    split_sentences: SentenceSplit = False
    weight: float = 1.2

    def __post_init__(self) -> None:
        w = self.weight
        if (
            isinstance(w, bool | np.bool_)
            or not isinstance(w, int | float | np.integer | np.floating)
            or not np.isfinite(w)
            or w < 1
        ):
            raise ConfigError(
                message(self.name, "weight must be a finite number >= 1", w, "e.g. 1.2")
            )
        object.__setattr__(self, "weight", float(w))
        if not isinstance(self.stemmer, bool | np.bool_):
            raise ConfigError(
                message(self.name, "stemmer must be True or False", self.stemmer, "a bool")
            )
        if isinstance(self.tokenizer, str):
            if self.tokenizer not in TOKENIZERS:
                raise ConfigError(
                    message(
                        self.name,
                        "unknown tokenizer",
                        self.tokenizer,
                        choices(TOKENIZERS) + " or a callable",
                    )
                )
        elif not callable(self.tokenizer):
            raise ConfigError(
                message(
                    self.name,
                    "unknown tokenizer",
                    self.tokenizer,
                    choices(TOKENIZERS) + " or a callable",
                )
            )
        if self.stemmer and self.tokenizer not in ("default", "unicode"):
            raise ConfigError(
                message(
                    self.name,
                    "stemming needs a built-in word tokenizer",
                    self.tokenizer,
                    "tokenizer 'default' or 'unicode' (stem inside your own tokenizer)",
                )
            )
        if not isinstance(self.split_sentences, bool | np.bool_) and not callable(
            self.split_sentences
        ):
            raise ConfigError(
                message(
                    self.name,
                    "split_sentences must be a bool or a callable",
                    self.split_sentences,
                    "False (newlines), True (newlines and . ! ?) or a function str -> list[str]",
                )
            )

    @abc.abstractmethod
    def _types(self) -> tuple[str, ...]:
        """The ROUGE types this configuration scores."""

    # settings ---------------------------------------------------------------

    def _tokenizer_name(self) -> str:
        return self.tokenizer if isinstance(self.tokenizer, str) else _describe(self.tokenizer)

    def _sentences_name(self) -> str:
        if callable(self.split_sentences):
            return _describe(self.split_sentences)
        return "rule" if self.split_sentences else "newline"

    def _tokenize_fn(self) -> Callable[[str], list[str]]:
        if self.tokenizer == "default":
            return _default_tokens
        if self.tokenizer == "unicode":
            return _unicode_tokens
        if self.tokenizer == "none":
            return _none_tokens
        user = cast(Callable[[str], list[str]], self.tokenizer)
        name = self.name

        def tokenize(text: str) -> list[str]:
            tokens = user(text)
            if (
                isinstance(tokens, str)
                or not isinstance(tokens, Sequence)
                or not all(isinstance(t, str) for t in tokens)
            ):
                raise ConfigError(
                    message(name, "the tokenizer did not return strings", tokens, "a list of str")
                )
            return list(tokens)

        return tokenize

    def _stem_fn(self) -> Callable[[str], str] | None:
        if not self.stemmer:
            return None
        return _stem_unicode if self.tokenizer == "unicode" else _stem_default

    def _split_fn(self) -> Callable[[str], Sequence[str]]:
        if callable(self.split_sentences):
            return self.split_sentences
        return _rule_sentences if self.split_sentences else _newline_sentences

    # scoring ----------------------------------------------------------------

    def _item_scores(self, references: Any, predictions: Any) -> NDArray[np.float64]:
        """Per item and type: precision, recall, F-measure, shape ``(n, types, 3)``."""
        return _item_scores(
            self.name,
            self._types(),
            references,
            predictions,
            self._tokenize_fn(),
            self._stem_fn(),
            self._split_fn(),
            self.weight,
        )

    # the Metric interface ----------------------------------------------------

    def empty(self) -> RougeSums:
        """The state of no data."""
        types = self._types()
        return RougeSums(
            types=types,
            tokenizer=self._tokenizer_name(),
            stemmer=bool(self.stemmer),
            sentences=self._sentences_name(),
            weight=self.weight,
            count=0,
            sums=np.zeros((len(types), 3)),
        )

    def _state_of(self, scores: NDArray[np.float64]) -> RougeSums:
        empty = self.empty()
        return RougeSums(
            types=empty.types,
            tokenizer=empty.tokenizer,
            stemmer=empty.stemmer,
            sentences=empty.sentences,
            weight=empty.weight,
            count=len(scores),
            sums=scores.sum(axis=0) if len(scores) else empty.sums,
        )

    def summarize(self, references: Any, predictions: Any) -> RougeSums:
        """Sum the per-item precision, recall and F-measure of one batch."""
        return self._state_of(self._item_scores(references, predictions))

    def _means(self, state: RougeSums) -> NDArray[np.float64]:
        if state.count == 0:
            raise InputError(message(self.name, "empty input", raw("0 items"), "at least one item"))
        return np.asarray(state.sums / state.count, dtype=np.float64)


def _check_types(name: str, types: Any) -> tuple[str, ...]:
    if isinstance(types, str):
        types = (types,)
    try:
        chosen = tuple(types)
    except TypeError:
        raise ConfigError(
            message(name, "types must be a list of ROUGE types", types, choices(ROUGE_TYPES))
        ) from None
    if not chosen:
        raise ConfigError(
            message(
                name,
                "no ROUGE type given",
                chosen,
                "at least one of " + ", ".join(ROUGE_TYPES + ROUGE_155_TYPES),
            )
        )
    known = (*ROUGE_TYPES, "rougeW", "rougeS<d>", "rougeSU<d>")
    for t in chosen:
        if not isinstance(t, str) or (
            t not in ROUGE_TYPES and t != "rougeW" and _skip_type(t) is None
        ):
            raise ConfigError(message(name, "unknown ROUGE type", t, choices(known)))
    if len(set(chosen)) != len(chosen):
        raise ConfigError(message(name, "a ROUGE type is given twice", chosen, "distinct types"))
    return chosen


_DOC_NOTES = """
    Tokens (``tokenizer="default"``) are rouge-score's: the text is lowercased and
    every run of characters other than ``a-z`` and ``0-9`` separates tokens. Text
    in other scripts therefore has no tokens at all and scores 0 (rouge-score
    scores Chinese or Greek text as 0 too); ``tokenizer="unicode"`` keeps letters
    and digits of every script (NFKC-normalised, lowercased; Han and kana
    characters are one token each), ``"none"`` splits on whitespace only and keeps
    case (pre-tokenized text), and a callable ``str -> list[str]`` does its own
    tokenizing. ``stemmer=True`` applies the Porter stemmer (NLTK's default
    variant, as rouge-score) to tokens longer than 3 characters.
"""


@register("rouge", higher_is_better=True, bounds=(0.0, 1.0), inputs="references_predictions")
@dataclass(frozen=True)
class ROUGE(_RougeBase):
    """ROUGE-N, ROUGE-L and ROUGE-Lsum precision, recall and F-measure, as rouge-score.

        For each item, with reference :math:`r` and prediction :math:`p`,

        .. math::

            P = \\frac{\\mathrm{hits}}{|p|}, \\quad R = \\frac{\\mathrm{hits}}{|r|},
            \\quad F = \\frac{2PR}{P + R}

        where for ``rougeN`` the hits are the clipped n-gram matches and ``|.|`` the
        number of n-grams, for ``rougeL`` the hits are the length of the longest
        common subsequence of the tokens, and for ``rougeLsum`` the union LCS of
        each reference sentence with all predicted sentences (a token counted at
        most as often as it occurs on both sides). The results are the means of
        these per-item values.

        Parameters
        ----------
        stemmer : bool
            Porter-stem tokens longer than 3 characters (rouge-score's ``use_stemmer``).
        tokenizer : {"default", "unicode", "none"} or callable
            How text becomes tokens; see Notes.
        split_sentences : bool or callable
            Sentences for ``rougeLsum``: ``False`` splits at newlines (rouge-score's
            default); ``True`` also after ``.``, ``!`` or ``?`` followed by
            whitespace; a callable ``str -> list[str]`` (e.g. ``nltk.sent_tokenize``,
            as rouge-score's ``split_summaries=True``) splits its own way.
        weight : float
            ROUGE-W's exponent ``w >= 1`` in ``f(k) = k^w`` (default 1.2).
        types : sequence of str
            The ROUGE types: ``rouge1`` ... ``rouge9``, ``rougeL``, ``rougeLsum``
            (rouge-score's), and ROUGE-1.5.5's ``rougeW`` (weighted LCS),
            ``rougeS<d>`` (skip-bigrams at most ``d`` tokens apart, e.g.
            ``rougeS4``; ``rougeS``: any distance) and ``rougeSU<d>`` / ``rougeSU``
            (skip-bigrams and unigrams). See :class:`ROUGEW`, :class:`ROUGES4`,
            :class:`ROUGESU4`.

        Returns
        -------
        dict of str to RougeScore
            ``compute`` maps each type to the mean precision, recall and F-measure.

        Notes
        -----
        With several references for an item, each type takes the reference of
        highest F-measure (the first of equals), as rouge-score's ``score_multi``.
        An item whose reference or prediction has no tokens scores 0. Empty input
        raises :class:`~scorekit.errors.InputError`.
    {notes}
        References
        ----------
        Lin, C.-Y. (2004). ROUGE: A package for automatic evaluation of summaries.
        Text Summarization Branches Out. The values equal Google's rouge-score
        (``rouge_score.rouge_scorer.RougeScorer``) to 1e-12.

        Examples
        --------
        >>> result = ROUGE(types=("rouge1", "rougeL")).score(
        ...     ["the cat sat on the mat"], ["the cat lay on the mat"])
        >>> result["rouge1"].fmeasure
        0.833...
        >>> result["rougeL"]
        RougeScore(precision=0.833..., recall=0.833..., fmeasure=0.833..., per_sample=None)
    """

    types: Sequence[str] = _DEFAULT_TYPES

    def __post_init__(self) -> None:
        object.__setattr__(self, "types", _check_types(self.name, self.types))
        super().__post_init__()

    def _types(self) -> tuple[str, ...]:
        return tuple(self.types)

    def compute(self, state: RougeSums) -> dict[str, RougeScore]:
        """The mean precision, recall and F-measure per type."""
        means = self._means(state)
        return {
            t: RougeScore(float(means[k, 0]), float(means[k, 1]), float(means[k, 2]))
            for k, t in enumerate(state.types)
        }


ROUGE.__doc__ = (ROUGE.__doc__ or "").replace("{notes}", _DOC_NOTES)


@dataclass(frozen=True)
class _SingleRouge(_RougeBase):
    """One ROUGE type; its value is the mean F-measure."""

    rouge_type: ClassVar[str] = ""

    def _types(self) -> tuple[str, ...]:
        return (self.rouge_type,)

    def compute(self, state: RougeSums) -> float:
        """The mean F-measure."""
        return float(self._means(state)[0, 2])


_SINGLE_DOC = """{title}, as rouge-score: the mean F-measure over the items.

    {what}

    Parameters
    ----------
    stemmer : bool
        Porter-stem tokens longer than 3 characters (rouge-score's ``use_stemmer``).
    tokenizer : {{"default", "unicode", "none"}} or callable
        How text becomes tokens; see :class:`ROUGE`.
    split_sentences : bool or callable
        How texts are cut into sentences (``rougeLsum`` only); see :class:`ROUGE`.

    Notes
    -----
    Precision and recall are in :func:`rouge`'s result. Several references per
    item: the one of highest F-measure, as rouge-score's ``score_multi``.

    References
    ----------
    Lin, C.-Y. (2004). ROUGE: A package for automatic evaluation of summaries.
    Values equal Google's rouge-score to 1e-12.

    Examples
    --------
    >>> {cls}().score(["the cat sat on the mat"], ["the cat lay on the mat"])
    {value}
"""


_SINGLE_155_DOC = """{title}, as ROUGE-1.5.5: the mean F-measure over the items.

    {what}

    Parameters
    ----------
    stemmer : bool
        Porter-stem tokens longer than 3 characters.
    tokenizer : {{"default", "unicode", "none"}} or callable
        How text becomes tokens; see :class:`ROUGE`.
    split_sentences : bool or callable
        Not used by this type (each text is one token sequence).
    weight : float
        The exponent ``w >= 1`` of ROUGE-W's ``f(k) = k^w`` (``rougeW`` only).

    Notes
    -----
    Precision and recall are in :func:`rouge`'s result. Each text is one token
    sequence (ROUGE-1.5.5 applied to single-sentence texts). Several references
    per item: the one of highest F-measure, as the other ROUGE types (ROUGE-1.5.5
    averages over references, or in its "best" mode picks the one of highest
    recall).

    References
    ----------
    Lin, C.-Y. (2004). ROUGE: A package for automatic evaluation of summaries.
    Values equal rouge-metric's ``PyRouge`` (a Python ROUGE-1.5.5) to 1e-12 on
    single-sentence texts.

    Examples
    --------
    >>> {cls}().score(["the cat sat on the mat"], ["the cat lay on the mat"])
    {value}
"""


def _single(
    cls_name: str, rouge_type: str, title: str, what: str, value: str, doc: str = _SINGLE_DOC
) -> type[_SingleRouge]:
    namespace = {
        "rouge_type": rouge_type,
        "__doc__": doc.format(title=title, what=what, cls=cls_name, value=value),
        "__module__": __name__,
        "__qualname__": cls_name,
    }
    cls: type[_SingleRouge] = dataclass(frozen=True)(type(cls_name, (_SingleRouge,), namespace))
    registered = register(
        rouge_type, higher_is_better=True, bounds=(0.0, 1.0), inputs="references_predictions"
    )(cls)
    return registered


def _ngram_doc(n: int) -> str:
    return (
        f"Hits are the {n}-grams of the prediction matched in the reference, each "
        f"counted at most as often as it occurs in both; precision divides by the "
        f"prediction's {n}-grams, recall by the reference's."
    )


# "the cat sat on the mat" vs "the cat lay on the mat": matches per n-gram order
_EXAMPLE = {1: "0.833...", 2: "0.6", 3: "0.25", 4: "0.0"}

ROUGE1 = _single("ROUGE1", "rouge1", "ROUGE-1 (unigram overlap)", _ngram_doc(1), _EXAMPLE[1])
ROUGE2 = _single("ROUGE2", "rouge2", "ROUGE-2 (bigram overlap)", _ngram_doc(2), _EXAMPLE[2])
ROUGE3 = _single("ROUGE3", "rouge3", "ROUGE-3 (3-gram overlap)", _ngram_doc(3), _EXAMPLE[3])
ROUGE4 = _single("ROUGE4", "rouge4", "ROUGE-4 (4-gram overlap)", _ngram_doc(4), _EXAMPLE[4])
ROUGE5 = _single("ROUGE5", "rouge5", "ROUGE-5 (5-gram overlap)", _ngram_doc(5), _EXAMPLE[4])
ROUGE6 = _single("ROUGE6", "rouge6", "ROUGE-6 (6-gram overlap)", _ngram_doc(6), _EXAMPLE[4])
ROUGE7 = _single("ROUGE7", "rouge7", "ROUGE-7 (7-gram overlap)", _ngram_doc(7), _EXAMPLE[4])
ROUGE8 = _single("ROUGE8", "rouge8", "ROUGE-8 (8-gram overlap)", _ngram_doc(8), _EXAMPLE[4])
ROUGE9 = _single("ROUGE9", "rouge9", "ROUGE-9 (9-gram overlap)", _ngram_doc(9), _EXAMPLE[4])
ROUGEL = _single(
    "ROUGEL",
    "rougeL",
    "ROUGE-L (longest common subsequence)",
    "Hits are the length of the longest common subsequence of the two token "
    "sequences; precision divides by the prediction's tokens, recall by the "
    "reference's.",
    _EXAMPLE[1],
)
ROUGELsum = _single(
    "ROUGELsum",
    "rougeLsum",
    "ROUGE-Lsum (summary-level union LCS)",
    "Texts are cut into sentences (at newlines by default); hits are, over the "
    "reference sentences, the union of each one's LCS with every predicted "
    "sentence, a token counted at most as often as it occurs on both sides.",
    _EXAMPLE[1],
)

_W_DOC = (
    "Hits are the weighted LCS of Lin (2004) with ``f(k) = k^w``: the table of "
    "Lin's algorithm is filled, one LCS read back from its end, and each run of "
    "consecutive reference tokens on it scores ``f(run)``. ``P = (WLCS / "
    "f(|p|))^(1/w)`` and ``R = (WLCS / f(f(|r|)))^(1/w)``: ROUGE-1.5.5 applies "
    "``f`` to the reference length twice, so R of identical texts is below 1 (Lin "
    "2004 divides by ``f(|r|)``)."
)


def _skip_doc(gap: str, unigrams: bool) -> str:
    what = (
        f"Hits are the skip-bigrams (ordered token pairs with {gap} between "
        "them) in both texts, each counted at most as often as in both"
    )
    if unigrams:
        what += "; the unigrams of all tokens but the last count as well (ROUGE-1.5.5's ROUGE-SU)"
    return what + "; precision divides by the prediction's, recall by the reference's."


ROUGEW = _single(
    "ROUGEW",
    "rougeW",
    "ROUGE-W (weighted longest common subsequence)",
    _W_DOC,
    "0.613...",
    _SINGLE_155_DOC,
)
ROUGES = _single(
    "ROUGES",
    "rougeS",
    "ROUGE-S (skip-bigrams, any gap)",
    _skip_doc("any number of tokens", False),
    "0.666...",
    _SINGLE_155_DOC,
)
ROUGES4 = _single(
    "ROUGES4",
    "rougeS4",
    "ROUGE-S4 (skip-bigrams, gap at most 4)",
    _skip_doc("at most 4 tokens", False),
    "0.666...",
    _SINGLE_155_DOC,
)
ROUGESU = _single(
    "ROUGESU",
    "rougeSU",
    "ROUGE-SU (skip-bigrams and unigrams, any gap)",
    _skip_doc("any number of tokens", True),
    "0.7",
    _SINGLE_155_DOC,
)
ROUGESU4 = _single(
    "ROUGESU4",
    "rougeSU4",
    "ROUGE-SU4 (skip-bigrams and unigrams, gap at most 4)",
    _skip_doc("at most 4 tokens", True),
    "0.7",
    _SINGLE_155_DOC,
)


def rouge(
    references: Any,
    predictions: Any,
    *,
    types: Sequence[str] = _DEFAULT_TYPES,
    stemmer: bool = False,
    tokenizer: Tokenizer = "default",
    split_sentences: SentenceSplit = False,
    weight: float = 1.2,
    per_sample: bool = False,
) -> dict[str, RougeScore]:
    """ROUGE precision, recall and F-measure per type, as Google's rouge-score.

    Parameters
    ----------
    references : sequence
        Per item, a reference string or a list of reference strings.
    predictions : sequence of str
        Per item, the predicted string.
    types, stemmer, tokenizer, split_sentences, weight
        See :class:`ROUGE`.
    per_sample : bool
        Also return each item's precision, recall and F-measure
        (``RougeScore.per_sample``, shape ``(n, 3)``).

    Returns
    -------
    dict of str to RougeScore
        Per type, the means over items of precision, recall and F-measure.

    Examples
    --------
    >>> scores = rouge(["the cat sat on the mat", ["a dog", "the dog ran"]],
    ...                ["the cat lay on the mat", "the dog ran away"],
    ...                types=("rouge1", "rouge2"), per_sample=True)
    >>> scores["rouge1"].fmeasure
    0.845...
    >>> scores["rouge2"].per_sample
    array([[0.6       , 0.6       , 0.6       ],
           [0.66666667, 1.        , 0.8       ]])
    """
    metric = ROUGE(
        types=types,
        stemmer=stemmer,
        tokenizer=tokenizer,
        split_sentences=split_sentences,
        weight=weight,
    )
    scores = metric._item_scores(references, predictions)
    result = metric.compute(metric._state_of(scores))
    if not per_sample:
        return result
    return {
        t: r._replace(per_sample=scores[:, k].copy()) for k, (t, r) in enumerate(result.items())
    }
