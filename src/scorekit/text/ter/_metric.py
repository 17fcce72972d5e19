"""TER (Snover et al., 2006) as sacrebleu computes it: the state, the metric and the functions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit._version import __version__
from scorekit.core import Explanation, Flag, State, register, state_field
from scorekit.errors import InputError, message, raw
from scorekit.text._pairs import text_pairs
from scorekit.text._refs import check_ref_range, merge_ref_range, nrefs
from scorekit.text._segments import SegmentSums
from scorekit.text.ter._normalize import ter_words
from scorekit.text.ter._tercom import edit_count

__all__ = ["TER", "TERResult", "TERStats", "sentence_ter", "ter"]


@dataclass(frozen=True, eq=False)
class TERStats(State):
    """Summed TER statistics of a set of segments, and the settings that shaped them.

    Attributes
    ----------
    normalized, no_punct, asian_support, case_sensitive
        The normalisation settings.
    segments : int
        The number of (prediction, references) pairs.
    edits : int
        The summed edits (shifts, insertions, deletions, substitutions) of each
        segment's closest reference.
    ref_length : float
        The summed mean reference length of each segment, in words.
    min_refs, max_refs : int
        The fewest and most references a segment had (0 for no segments).
    """

    normalized: bool = state_field("same", check="flag")
    no_punct: bool = state_field("same", check="flag")
    asian_support: bool = state_field("same", check="flag")
    case_sensitive: bool = state_field("same", check="flag")
    segments: int = state_field("sum", check="count")
    edits: int = state_field("sum", check="count")
    ref_length: float = state_field("sum", check="weight")
    min_refs: int = state_field("custom", check="count")
    max_refs: int = state_field("custom", check="count")

    def _check(self) -> None:
        if self.segments == 0 and (self.edits or self.ref_length or self.max_refs):
            raise self._invalid(
                "segments", "counts without segments", 0, "segments for every count"
            )
        check_ref_range(self)

    def _merge_custom(self, other: TERStats) -> dict[str, Any]:
        return merge_ref_range(self, other)


@dataclass(frozen=True)
class TERResult:
    """TER with its statistics and signature.

    Attributes
    ----------
    score : float
        TER as a fraction (sacrebleu prints 100 times it); above 1 when the
        edits outnumber the reference words.
    num_edits : int
        The summed edits.
    ref_length : float
        The summed mean reference lengths.
    signature : str
        The settings that reproduce the number, in sacrebleu's form.
    """

    score: float
    num_edits: int
    ref_length: float
    signature: str

    def __float__(self) -> float:
        return self.score


def _ratio(edits: Any, ref_length: Any) -> Any:
    """Edits over reference length; 1 for edits against empty references, 0 for none."""
    edits = np.asarray(edits, dtype=np.float64)
    ref_length = np.asarray(ref_length, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(
            ref_length > 0, edits / np.where(ref_length > 0, ref_length, 1), (edits > 0) * 1.0
        )


# one more than the largest code point: word ids are characters below it
_CODE_LIMIT = 0x110000


def _segment_ids(
    hyp: list[str], refs: list[list[str]], codes: dict[str, str]
) -> tuple[str, list[str]]:
    """The words of one segment's texts as strings of word-id code points.

    ``codes`` maps words to ids and is shared by the segments of a batch, so a
    word already seen costs one lookup; when the ids of this segment's words
    might run past the last code point, it starts again empty. Only equality of
    ids matters, within a segment.

    Examples
    --------
    >>> codes = {}
    >>> _segment_ids(["b", "a"], [["a", "b", "b"], ["c"]], codes)
    ('\\x00\\x01', ['\\x01\\x00\\x00', '\\x02'])
    >>> _segment_ids(["c", "d"], [["d"]], codes)
    ('\\x02\\x03', ['\\x03'])
    """
    if len(codes) + len(hyp) + sum(map(len, refs)) > _CODE_LIMIT:
        codes.clear()
    for words in (hyp, *refs):
        for word in words:
            if word not in codes:
                codes[word] = chr(len(codes))
    code = codes.__getitem__
    return "".join(map(code, hyp)), ["".join(map(code, words)) for words in refs]


@register(
    "ter", higher_is_better=False, bounds=(0.0, float("inf")), inputs="references_predictions"
)
@dataclass(frozen=True)
class TER(SegmentSums[TERStats]):
    """Translation edit rate: edits, block shifts included, per reference word.

    .. math:: \\mathrm{TER} = \\frac{\\sum_s \\min_r \\mathrm{edits}(s, r)}{\\sum_s \\bar\\ell_s}

    where the edits of a prediction against a reference are Tercom's: shifts of
    word blocks, then insertions, deletions and substitutions; :math:`\\bar\\ell_s`
    is the mean length of the segment's references.

    Parameters
    ----------
    normalized : bool, default False
        Tercom's normalisation (punctuation set apart, XML entities decoded).
    no_punct : bool, default False
        Remove punctuation.
    asian_support : bool, default False
        With ``normalized`` or ``no_punct``: set apart (or remove) CJK characters
        and punctuation.
    case_sensitive : bool, default False
        Keep case (TER lowercases by default).

    Notes
    -----
    Agrees with sacrebleu 2.x's ``TER`` (score / 100, signature with
    scorekit's version), corpus and sentence level: the same shift search
    (blocks of up to 10 words moved at most 50 positions, at most 1,000
    candidate shifts per segment) and the same banded edit distance. A segment
    with empty references counts its prediction's words as edits and 0
    reference words; a corpus with no reference words scores 1 if it has
    edits, else 0. The state sums the edits (integers) and the mean reference
    lengths (floats: with several references of different lengths, merged
    chunks may differ from the in-memory value in the last bits).

    References
    ----------
    M. Snover, B. Dorr, R. Schwartz, L. Micciulla, J. Makhoul, "A Study of
    Translation Edit Rate with Targeted Human Annotation", AMTA 2006. sacrebleu's
    ``TER`` (after Tercom) is the implementation matched.

    Examples
    --------
    >>> TER().score(["the cat sat on the mat"], ["on the mat the cat sat"])
    0.16666666666666666
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Translation edit rate: the fewest word edits (insertions, deletions, "
        "substitutions and shifts of word blocks) that turn a prediction into its closest "
        "reference, over the reference words.",
        formula="TER = sum_s min_r edits(s, r) / sum_s mean_r |r|",
        convention="Tercom's greedy shift search as sacrebleu runs it (blocks up to 10 words, "
        "moved up to 50 positions, 1,000 candidates per segment); lowercased unless "
        "case_sensitive. Counts are summed over the corpus before the ratio; the value is a "
        "fraction (sacrebleu prints 100 times it) and can exceed 1.",
        reference="sacrebleu TER (Snover et al. 2006).",
    )

    normalized: Annotated[bool, Flag] = False
    no_punct: Annotated[bool, Flag] = False
    asian_support: Annotated[bool, Flag] = False
    case_sensitive: Annotated[bool, Flag] = False

    def _options(self) -> tuple[bool, bool, bool, bool]:
        return self.normalized, self.no_punct, self.asian_support, self.case_sensitive

    def empty(self) -> TERStats:
        """The state of no segments."""
        return self._state(0, 0, 0.0, 0, 0)

    def _state(self, segments: int, edits: int, ref_length: float, lo: int, hi: int) -> TERStats:
        return TERStats(
            normalized=self.normalized,
            no_punct=self.no_punct,
            asian_support=self.asian_support,
            case_sensitive=self.case_sensitive,
            segments=segments,
            edits=edits,
            ref_length=ref_length,
            min_refs=lo,
            max_refs=hi,
        )

    def segment_stats(
        self, references: Any, predictions: Any
    ) -> tuple[list[int], list[float], NDArray[np.int64]]:
        """Per segment: edits against the closest reference, mean reference length, references."""
        refs, counts, preds = text_pairs(self.name, references, predictions)
        options = self._options()
        edits: list[int] = []
        lengths: list[float] = []
        codes: dict[str, str] = {}
        at = 0
        for pred, k in zip(preds, counts.tolist(), strict=True):
            hyp = ter_words(pred, *options)
            mine = [ter_words(r, *options) for r in refs[at : at + k]]
            at += k
            hyp_ids, ref_ids = _segment_ids(hyp, mine, codes)
            edits.append(min(edit_count(hyp_ids, r) for r in ref_ids))
            lengths.append(sum(len(r) for r in ref_ids) / k)
        return edits, lengths, counts

    def _segment_statistics(
        self, references: Any, predictions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
        """Per segment edits and mean reference length (sacrebleu's), and its references."""
        edits, lengths, counts = self.segment_stats(references, predictions)
        stats = np.empty((len(edits), 2), dtype=np.float64)
        stats[:, 0] = edits
        stats[:, 1] = lengths
        return stats, counts

    def _state_of_sums(self, sums: NDArray[Any], segments: int, lo: int, hi: int) -> TERStats:
        if segments == 0:
            return self.empty()
        return self._state(segments, round(float(sums[0])), float(sums[1]), lo, hi)

    def _values_of_sums(self, sums: NDArray[Any]) -> NDArray[np.float64]:
        rows = np.asarray(sums, dtype=np.float64)
        return np.asarray(_ratio(rows[:, 0], rows[:, 1]), dtype=np.float64).reshape(-1)

    def summarize(self, references: Any, predictions: Any) -> TERStats:
        """Sum the TER statistics of one batch of (references, prediction) pairs."""
        edits, lengths, counts = self.segment_stats(references, predictions)
        if not edits:
            return self.empty()
        total = 0.0
        for length in lengths:
            total += length
        return self._state(len(edits), sum(edits), total, int(counts.min()), int(counts.max()))

    def segment_scores(self, references: Any, predictions: Any) -> NDArray[np.float64]:
        """TER of each segment alone (sacrebleu's ``sentence_score``), as fractions.

        Examples
        --------
        >>> TER().segment_scores(["a b c", "x"], ["a c", ""]).tolist()
        [0.3333333333333333, 1.0]
        """
        edits, lengths, _ = self.segment_stats(references, predictions)
        return np.asarray(_ratio(edits, lengths), dtype=np.float64).reshape(-1)

    def compute(self, state: TERStats) -> float:
        """TER of the summed statistics, as a fraction."""
        return self.result(state).score

    def result(self, state: TERStats) -> TERResult:
        """The :class:`TERResult` of a state."""
        if state.segments == 0:
            raise InputError(
                message(self.name, "empty input", raw("0 predictions"), "at least one prediction")
            )
        score = float(_ratio(state.edits, state.ref_length))
        return TERResult(score, int(state.edits), float(state.ref_length), self.signature(state))

    def details(self, references: Any, predictions: Any) -> TERResult:
        """TER of one batch with its statistics and signature."""
        return self.result(self.summarize(references, predictions))

    def signature(self, state: TERStats | None = None) -> str:
        """The reproducibility signature, in sacrebleu's ``key:value|...`` form.

        Examples
        --------
        >>> TER().signature()
        'nrefs:?|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:scorekit-...'
        """
        yes = {True: "yes", False: "no"}
        parts = [
            f"nrefs:{nrefs(state)}",
            f"case:{'mixed' if self.case_sensitive else 'lc'}",
            "tok:tercom",
            f"norm:{yes[self.normalized]}",
            f"punct:{yes[not self.no_punct]}",
            f"asian:{yes[self.asian_support]}",
            f"version:scorekit-{__version__}",
        ]
        return "|".join(parts)


def ter(
    references: Any,
    predictions: Any,
    *,
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
) -> TERResult:
    """Corpus TER with its statistics and signature; see :class:`TER`.

    Examples
    --------
    >>> r = ter(["the cat sat on the mat"], ["the cat sat on a mat"])
    >>> round(r.score, 4), r.num_edits
    (0.1667, 1)
    """
    metric = TER(
        normalized=normalized,
        no_punct=no_punct,
        asian_support=asian_support,
        case_sensitive=case_sensitive,
    )
    return metric.details(references, predictions)


def sentence_ter(
    references: Any,
    prediction: str,
    *,
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
) -> TERResult:
    """TER of one prediction against one reference string or a list of them.

    Examples
    --------
    >>> sentence_ter(["a b c d"], "c d a b").num_edits
    1
    """
    if not isinstance(prediction, str):
        raise InputError(
            message("sentence_ter", "prediction is not a string", prediction, "one string")
        )
    if isinstance(references, str):
        references = [references]
    return ter(
        [references],
        [prediction],
        normalized=normalized,
        no_punct=no_punct,
        asian_support=asian_support,
        case_sensitive=case_sensitive,
    )
