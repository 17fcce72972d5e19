"""The registered :class:`ROUGE` metric (several types at once) and :func:`rouge`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from scorekit.core import Check, Explanation, register
from scorekit.errors import ConfigError, choices, message
from scorekit.text.rouge._base import (
    _DEFAULT_TYPES,
    ROUGE_155_TYPES,
    ROUGE_TYPES,
    RougeScore,
    RougeSums,
    _RougeBase,
)
from scorekit.text.rouge._explanations import ROUGE_TOKENS
from scorekit.text.rouge._scores import _skip_type
from scorekit.text.rouge._tokens import SentenceSplit, Tokenizer

__all__ = ["ROUGE", "rouge"]


def _check_types(metric: Any, types: Any) -> tuple[str, ...]:
    """The ROUGE types option as a tuple of known, distinct types."""
    name = metric.name
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

    explanation: ClassVar[Explanation] = Explanation(
        definition="ROUGE-N, ROUGE-L and ROUGE-Lsum together: the value is the mean F-measure "
        "of the first type asked for; rouge() returns precision, recall and F-measure per type.",
        formula="see rouge1 .. rouge9, rougeL and rougeLsum",
        convention=ROUGE_TOKENS,
        reference="Google's rouge-score (score and score_multi).",
    )

    types: Annotated[Sequence[str], Check(_check_types)] = _DEFAULT_TYPES

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
