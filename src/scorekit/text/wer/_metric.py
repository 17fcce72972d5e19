"""Word and character error rates and their relatives, as jiwer computes them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit._check import as_flag
from scorekit.core import Explanation, Flag, State, register, state_field
from scorekit.errors import ConfigError, InputError, message, raw
from scorekit.text._pairs import best_per_item, text_pairs
from scorekit.text._segments import SegmentSums
from scorekit.text.wer._count import edit_counts, units

__all__ = [
    "CER",
    "MER",
    "WER",
    "WIL",
    "WIP",
    "EditCounts",
    "ErrorRates",
    "cer",
    "error_rates",
    "mer",
    "wer",
    "wil",
    "wip",
]

UNITS = ("word", "char")


@dataclass(frozen=True, eq=False)
class EditCounts(State):
    """Summed edit counts of the alignments of references into predictions.

    Attributes
    ----------
    unit : {"word", "char"}
        What was aligned.
    normalize : bool
        Whether the texts were normalized first.
    segments : int
        The number of (reference, prediction) pairs.
    hits, substitutions, deletions, insertions : int
        Summed over the pairs: aligned equal units, substituted units,
        reference units deleted and prediction units inserted. The reference
        has ``hits + substitutions + deletions`` units, the prediction
        ``hits + substitutions + insertions``.
    """

    unit: str = state_field("same", check="text")
    normalize: bool = state_field("same", check="flag")
    segments: int = state_field("sum", check="count", counts_rows=True)
    hits: int = state_field("sum", check="count")
    substitutions: int = state_field("sum", check="count")
    deletions: int = state_field("sum", check="count")
    insertions: int = state_field("sum", check="count")

    def _check(self) -> None:
        if self.unit not in UNITS:
            raise self._invalid("unit", "unknown unit", self.unit, "'word' or 'char'")
        if self.segments == 0 and (
            self.hits or self.substitutions or self.deletions or self.insertions
        ):
            raise self._invalid(
                "segments", "counts without segments", 0, "segments for every count"
            )


def _values(name: str, counts: NDArray[np.int64]) -> NDArray[np.float64]:
    """``name`` of each row of counts (hits, substitutions, deletions, insertions), as jiwer."""
    h, s, d, i = (counts[..., k].astype(np.float64) for k in range(4))
    ref = h + s + d
    hyp = h + s + i
    edits = s + d + i
    with np.errstate(divide="ignore", invalid="ignore"):
        if name in ("wer", "cer"):
            out = np.where(ref == 0, i, edits / ref)
        elif name == "mer":
            out = np.where(ref == 0, np.where(hyp == 0, 0.0, 1.0), edits / (ref + i))
        else:
            wip = np.where(
                ref == 0,
                np.where(hyp == 0, 1.0, 0.0),
                np.where(hyp >= 1, (h / ref) * (h / hyp), 0.0),
            )
            out = wip if name == "wip" else 1 - wip
    return np.asarray(out, dtype=np.float64)


def _one_pair(name: str, references: Any, predictions: Any) -> tuple[Any, Any]:
    """Two single strings as one (reference, prediction) pair, as jiwer takes them.

    A single string on one side only is an :class:`~scorekit.errors.InputError`.
    """
    ref_str, pred_str = isinstance(references, str), isinstance(predictions, str)
    if ref_str and pred_str:
        return [references], [predictions]
    if ref_str or pred_str:
        one, other = ("references", "predictions") if ref_str else ("predictions", "references")
        raise InputError(
            message(
                name,
                f"{one} is a single string but {other} is not",
                references if ref_str else predictions,
                "two single strings (one pair), or one string per item on both sides",
            )
        )
    return references, predictions


def _segment_counts(
    name: str, references: Any, predictions: Any, unit: str, normalize: bool
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Per segment the counts of its reference of fewest edits (the first of equals); references."""
    references, predictions = _one_pair(name, references, predictions)
    refs, per_item, preds = text_pairs(name, references, predictions)
    pair_item = np.repeat(np.arange(len(preds)), per_item)
    texts = units(refs + preds, unit, normalize)
    hyps = [texts[len(refs) + i] for i in pair_item.tolist()]
    counts = edit_counts(texts[: len(refs)], hyps)
    if len(refs) == len(preds):
        return counts, per_item
    edits = counts[:, 1:].sum(axis=1).astype(np.float64)
    return counts[best_per_item(edits, per_item, lowest=True)], per_item


@dataclass(frozen=True)
class _ErrorRate(SegmentSums[EditCounts]):
    """The alignment counts and the checks shared by the five measures."""

    normalize: Annotated[bool, Flag] = False

    aligned: ClassVar[str] = "word"
    """What is aligned: ``word`` or ``char``."""

    def empty(self) -> EditCounts:
        """The state of no segments."""
        return EditCounts(
            unit=self.aligned,
            normalize=self.normalize,
            segments=0,
            hits=0,
            substitutions=0,
            deletions=0,
            insertions=0,
        )

    def segment_counts(self, references: Any, predictions: Any) -> NDArray[np.int64]:
        """Per segment: hits, substitutions, deletions and insertions, shape ``(n, 4)``."""
        return _segment_counts(self.name, references, predictions, self.aligned, self.normalize)[0]

    def _segment_statistics(
        self, references: Any, predictions: Any
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        return _segment_counts(self.name, references, predictions, self.aligned, self.normalize)

    def _state_of_sums(self, sums: NDArray[Any], segments: int, lo: int, hi: int) -> EditCounts:
        h, s, d, i = (int(v) for v in sums)
        return EditCounts(
            unit=self.aligned,
            normalize=self.normalize,
            segments=segments,
            hits=h,
            substitutions=s,
            deletions=d,
            insertions=i,
        )

    def _values_of_sums(self, sums: NDArray[Any]) -> NDArray[np.float64]:
        return _values(self.name, np.asarray(sums, dtype=np.int64))

    def summarize(self, references: Any, predictions: Any) -> EditCounts:
        """Sum the edit counts of one batch of (reference, prediction) pairs."""
        counts = self.segment_counts(references, predictions)
        return self._state_of_sums(counts.sum(axis=0), len(counts), 0, 0)

    def compute(self, state: EditCounts) -> float:
        """The measure of the summed counts (not the mean of per-segment values)."""
        if state.segments == 0:
            raise InputError(
                message(self.name, "empty input", raw("0 predictions"), "at least one prediction")
            )
        counts = np.array(
            [state.hits, state.substitutions, state.deletions, state.insertions], dtype=np.int64
        )
        return float(_values(self.name, counts))

    def segment_values(self, references: Any, predictions: Any) -> NDArray[np.float64]:
        """The measure of each segment alone (per utterance).

        Examples
        --------
        >>> WER().segment_values(["a b", "c"], ["a x", "c"])
        array([0.5, 0. ])
        """
        return _values(self.name, self.segment_counts(references, predictions))


_CONVENTION = (
    "Texts are split as jiwer's default transformation does (runs of whitespace become one "
    "space, the ends are stripped, words are cut at spaces); normalize=True applies jiwer's "
    "wer_standardize (lowercase, English contractions expanded, [non-words] and <non-words> "
    "removed). Counts come from rapidfuzz's Levenshtein alignment, as in jiwer, and are summed "
    "over the corpus before the ratio (not a mean of per-utterance values). With several "
    "references a prediction is aligned with the one of fewest edits."
)


@register(
    "wer", higher_is_better=False, bounds=(0.0, float("inf")), inputs="references_predictions"
)
@dataclass(frozen=True)
class WER(_ErrorRate):
    """Word error rate: word edits over reference words, as jiwer computes it.

    .. math:: \\mathrm{WER} = \\frac{S + D + I}{H + S + D}

    with :math:`H, S, D, I` the hits, substitutions, deletions and insertions of
    the minimum-edit alignment of each reference into its prediction, summed
    over the corpus.

    Parameters
    ----------
    normalize : bool, default False
        Apply jiwer's ``wer_standardize`` (lowercase, expand English
        contractions, remove ``[...]`` and ``<...>`` non-words) before the
        default transformation.

    Notes
    -----
    Agrees with ``jiwer.wer`` with its default transformation (``wer_default``)
    and, with ``normalize=True``, ``wer_standardize``. When all references are
    empty the value is the number of inserted words, as in jiwer, so WER is not
    bounded by 1. A prediction with several references is aligned with the one
    of fewest edits (the first of equals; jiwer takes one reference). Two
    single strings are one pair, as in jiwer; a single string against a list
    (which jiwer takes when the list holds one string) and empty input raise
    :class:`~scorekit.errors.InputError`.

    References
    ----------
    jiwer (N. Vaessen), the implementation matched; A. C. Morris, V. Maier,
    P. Green, "From WER and RIL to MER and WIL", Interspeech 2004.

    Examples
    --------
    >>> WER().score(["the cat sat", "a dog"], ["the cat sit", "a dog barks"])
    0.4
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Word error rate: the word substitutions, deletions and insertions that turn "
        "the references into the predictions, over the reference words.",
        formula="WER = (S + D + I) / (H + S + D)",
        convention=_CONVENTION + " With empty references WER is the number of insertions.",
        reference="jiwer wer (Morris et al. 2004).",
    )


@register(
    "cer", higher_is_better=False, bounds=(0.0, float("inf")), inputs="references_predictions"
)
@dataclass(frozen=True)
class CER(_ErrorRate):
    """Character error rate: character edits over reference characters, as jiwer computes it.

    .. math:: \\mathrm{CER} = \\frac{S + D + I}{H + S + D}

    over the characters of the texts (spaces count) after stripping their ends.

    Parameters
    ----------
    normalize : bool, default False
        Lowercase and make each run of whitespace one space first.

    Notes
    -----
    Agrees with ``jiwer.cer`` with its default transformation
    (``cer_default``: strip, then characters). When all references are empty
    the value is the number of inserted characters, as in jiwer.

    References
    ----------
    jiwer (N. Vaessen), the implementation matched.

    Examples
    --------
    >>> CER().score(["abcd"], ["abxd"])
    0.25
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Character error rate: the character edits that turn the references into "
        "the predictions, over the reference characters.",
        formula="CER = (S + D + I) / (H + S + D) over characters",
        convention="Texts are stripped at both ends and compared character by character, spaces "
        "included; normalize=True lowercases and collapses whitespace runs. Counts are summed "
        "over the corpus before the ratio. With empty references CER is the number of "
        "insertions.",
        reference="jiwer cer.",
    )

    aligned: ClassVar[str] = "char"


@register("mer", higher_is_better=False, bounds=(0.0, 1.0), inputs="references_predictions")
@dataclass(frozen=True)
class MER(_ErrorRate):
    """Match error rate: word edits over edits plus hits, as jiwer computes it.

    .. math:: \\mathrm{MER} = \\frac{S + D + I}{H + S + D + I}

    Parameters
    ----------
    normalize : bool, default False
        Apply jiwer's ``wer_standardize`` first (see :class:`WER`).

    Notes
    -----
    Agrees with ``jiwer.mer``: 0 when references and predictions are all
    empty, 1 when only the references are.

    References
    ----------
    A. C. Morris, V. Maier, P. Green, "From WER and RIL to MER and WIL",
    Interspeech 2004; jiwer, the implementation matched.

    Examples
    --------
    >>> MER().score(["the cat sat", "a dog"], ["the cat sit", "a dog barks"])
    0.3333333333333333
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Match error rate: the share of edits among the aligned word pairs (hits "
        "and edits).",
        formula="MER = (S + D + I) / (H + S + D + I)",
        convention=_CONVENTION,
        reference="jiwer mer (Morris et al. 2004).",
    )


@register("wil", higher_is_better=False, bounds=(0.0, 1.0), inputs="references_predictions")
@dataclass(frozen=True)
class WIL(_ErrorRate):
    """Word information lost: one minus WIP (word information preserved), as jiwer computes it.

    .. math:: \\mathrm{WIL} = 1 - \\frac{H}{H + S + D} \\cdot \\frac{H}{H + S + I}

    Parameters
    ----------
    normalize : bool, default False
        Apply jiwer's ``wer_standardize`` first (see :class:`WER`).

    Notes
    -----
    Agrees with ``jiwer.wil``.

    References
    ----------
    A. C. Morris, V. Maier, P. Green, "From WER and RIL to MER and WIL",
    Interspeech 2004; jiwer, the implementation matched.

    Examples
    --------
    >>> round(WIL().score(["the cat sat"], ["the cat sit"]), 4)
    0.5556
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Word information lost: one minus the product of the hit rates of the "
        "references and of the predictions.",
        formula="WIL = 1 - (H / (H + S + D)) * (H / (H + S + I))",
        convention=_CONVENTION,
        reference="jiwer wil (Morris et al. 2004).",
    )


@register("wip", higher_is_better=True, bounds=(0.0, 1.0), inputs="references_predictions")
@dataclass(frozen=True)
class WIP(_ErrorRate):
    """Word information preserved: the product of the two hit rates, as jiwer computes it.

    .. math:: \\mathrm{WIP} = \\frac{H}{H + S + D} \\cdot \\frac{H}{H + S + I}

    Parameters
    ----------
    normalize : bool, default False
        Apply jiwer's ``wer_standardize`` first (see :class:`WER`).

    Notes
    -----
    Agrees with ``jiwer.wip``: 1 when references and predictions are all
    empty, 0 when only one side is.

    References
    ----------
    A. C. Morris, V. Maier, P. Green, "From WER and RIL to MER and WIL",
    Interspeech 2004; jiwer, the implementation matched.

    Examples
    --------
    >>> round(WIP().score(["the cat sat"], ["the cat sit"]), 4)
    0.4444
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Word information preserved: the product of the share of reference words "
        "hit and the share of predicted words hit.",
        formula="WIP = (H / (H + S + D)) * (H / (H + S + I))",
        convention=_CONVENTION,
        reference="jiwer wip (Morris et al. 2004).",
    )


# functions ----------------------------------------------------------------------------


def wer(references: Any, predictions: Any, *, normalize: bool = False) -> float:
    """Corpus word error rate; see :class:`WER`.

    Examples
    --------
    >>> wer(["the cat sat"], ["the cat"])
    0.3333333333333333
    >>> wer("the cat sat", "the cat sit")
    0.3333333333333333
    """
    value: float = WER(normalize=normalize).score(references, predictions)
    return value


def cer(references: Any, predictions: Any, *, normalize: bool = False) -> float:
    """Corpus character error rate; see :class:`CER`.

    Examples
    --------
    >>> cer(["abcd"], ["abc"])
    0.25
    >>> cer("abcd", "abxd")
    0.25
    """
    value: float = CER(normalize=normalize).score(references, predictions)
    return value


def mer(references: Any, predictions: Any, *, normalize: bool = False) -> float:
    """Corpus match error rate; see :class:`MER`.

    Examples
    --------
    >>> mer(["the cat sat"], ["the cat"])
    0.3333333333333333
    """
    value: float = MER(normalize=normalize).score(references, predictions)
    return value


def wil(references: Any, predictions: Any, *, normalize: bool = False) -> float:
    """Corpus word information lost; see :class:`WIL`.

    Examples
    --------
    >>> round(wil(["the cat sat"], ["the cat"]), 4)
    0.3333
    """
    value: float = WIL(normalize=normalize).score(references, predictions)
    return value


def wip(references: Any, predictions: Any, *, normalize: bool = False) -> float:
    """Corpus word information preserved; see :class:`WIP`.

    Examples
    --------
    >>> round(wip(["the cat sat"], ["the cat"]), 4)
    0.6667
    """
    value: float = WIP(normalize=normalize).score(references, predictions)
    return value


@dataclass(frozen=True)
class ErrorRates:
    """Every measure of one alignment, corpus and per utterance (as ``jiwer.process_words``).

    Attributes
    ----------
    wer, mer, wil, wip : float
        The corpus measures (``wer`` is the CER for ``unit="char"``).
    hits, substitutions, deletions, insertions : int
        The summed counts.
    per_utterance : dict of str to ndarray
        Each measure of each segment alone.
    """

    wer: float
    mer: float
    wil: float
    wip: float
    hits: int
    substitutions: int
    deletions: int
    insertions: int
    per_utterance: dict[str, NDArray[np.float64]]


def error_rates(
    references: Any, predictions: Any, *, unit: str = "word", normalize: bool = False
) -> ErrorRates:
    """WER (or CER), MER, WIL and WIP with the counts and per-utterance values.

    Examples
    --------
    >>> r = error_rates(["the cat sat", "a dog"], ["the cat sit", "a dog barks"])
    >>> r.wer, r.hits, r.per_utterance["wer"].tolist()
    (0.4, 4, [0.3333333333333333, 0.5])
    """
    if unit not in UNITS:
        raise ConfigError(message("error_rates", "unknown unit", unit, "'word' or 'char'"))
    normalize = as_flag("error_rates", "normalize", normalize)
    name = "cer" if unit == "char" else "wer"
    counts, _ = _segment_counts(name, references, predictions, unit, normalize)
    if len(counts) == 0:
        raise InputError(
            message(name, "empty input", raw("0 predictions"), "at least one prediction")
        )
    total = counts.sum(axis=0)
    per = {m: _values(m, counts) for m in ("wer", "mer", "wil", "wip")}
    corpus = {m: float(_values(m, total)) for m in ("wer", "mer", "wil", "wip")}
    h, s, d, i = (int(v) for v in total)
    return ErrorRates(corpus["wer"], corpus["mer"], corpus["wil"], corpus["wip"], h, s, d, i, per)
