"""The single-type ROUGE metrics: ROUGE1 ... ROUGE9, ROUGEL, ROUGELsum, ROUGEW, ROUGES, ROUGESU.

Each scores one ROUGE type; its value is the mean F-measure over the items.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Explanation, register
from scorekit.text.rouge._base import RougeSums, _RougeBase
from scorekit.text.rouge._explanations import ROUGE_155, ROUGE_TOKENS, rouge_n, rouge_s

__all__ = [
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
    "ROUGELsum",
]


@dataclass(frozen=True)
class _SingleRouge(_RougeBase):
    """One ROUGE type; its value is the mean F-measure."""

    rouge_type: ClassVar[str] = ""

    def _types(self) -> tuple[str, ...]:
        return (self.rouge_type,)

    def compute(self, state: RougeSums) -> float:
        """The mean F-measure."""
        return float(self._means(state)[0, 2])

    def _mean_values(self, means: NDArray[np.float64]) -> NDArray[np.float64]:
        return means[:, 0, 2]

    def segment_scores(self, references: Any, predictions: Any) -> NDArray[np.float64]:
        """Each item's F-measure (the per-line values of ``scorekit text --sentence-level``).

        Examples
        --------
        >>> from scorekit.text import ROUGE1
        >>> ROUGE1().segment_scores(["the cat sat", "a dog"], ["the cat", "a dog"]).round(4)
        array([0.8, 1. ])
        """
        return np.asarray(self._item_scores(references, predictions)[:, 0, 2], dtype=np.float64)


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
    cls_name: str,
    rouge_type: str,
    title: str,
    what: str,
    value: str,
    doc: str = _SINGLE_DOC,
    *,
    explanation: Explanation,
) -> type[_SingleRouge]:
    namespace = {
        "rouge_type": rouge_type,
        "__doc__": doc.format(title=title, what=what, cls=cls_name, value=value),
        "explanation": explanation,
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

ROUGE1 = _single(
    "ROUGE1",
    "rouge1",
    "ROUGE-1 (unigram overlap)",
    _ngram_doc(1),
    _EXAMPLE[1],
    explanation=rouge_n(1),
)
ROUGE2 = _single(
    "ROUGE2",
    "rouge2",
    "ROUGE-2 (bigram overlap)",
    _ngram_doc(2),
    _EXAMPLE[2],
    explanation=rouge_n(2),
)
ROUGE3 = _single(
    "ROUGE3",
    "rouge3",
    "ROUGE-3 (3-gram overlap)",
    _ngram_doc(3),
    _EXAMPLE[3],
    explanation=rouge_n(3),
)
ROUGE4 = _single(
    "ROUGE4",
    "rouge4",
    "ROUGE-4 (4-gram overlap)",
    _ngram_doc(4),
    _EXAMPLE[4],
    explanation=rouge_n(4),
)
ROUGE5 = _single(
    "ROUGE5",
    "rouge5",
    "ROUGE-5 (5-gram overlap)",
    _ngram_doc(5),
    _EXAMPLE[4],
    explanation=rouge_n(5),
)
ROUGE6 = _single(
    "ROUGE6",
    "rouge6",
    "ROUGE-6 (6-gram overlap)",
    _ngram_doc(6),
    _EXAMPLE[4],
    explanation=rouge_n(6),
)
ROUGE7 = _single(
    "ROUGE7",
    "rouge7",
    "ROUGE-7 (7-gram overlap)",
    _ngram_doc(7),
    _EXAMPLE[4],
    explanation=rouge_n(7),
)
ROUGE8 = _single(
    "ROUGE8",
    "rouge8",
    "ROUGE-8 (8-gram overlap)",
    _ngram_doc(8),
    _EXAMPLE[4],
    explanation=rouge_n(8),
)
ROUGE9 = _single(
    "ROUGE9",
    "rouge9",
    "ROUGE-9 (9-gram overlap)",
    _ngram_doc(9),
    _EXAMPLE[4],
    explanation=rouge_n(9),
)
ROUGEL = _single(
    "ROUGEL",
    "rougeL",
    "ROUGE-L (longest common subsequence)",
    "Hits are the length of the longest common subsequence of the two token "
    "sequences; precision divides by the prediction's tokens, recall by the "
    "reference's.",
    _EXAMPLE[1],
    explanation=Explanation(
        definition="ROUGE-L: the longest common subsequence of prediction and reference tokens, "
        "as precision, recall and F-measure.",
        formula="P = LCS / |prediction| ; R = LCS / |reference| ; F = 2PR / (P + R)",
        convention=ROUGE_TOKENS + " The LCS runs as a bit-parallel kernel, not a Python loop "
        "per token pair.",
        reference="Google's rouge-score rougeL; Lin (2004).",
    ),
)
ROUGELsum = _single(
    "ROUGELsum",
    "rougeLsum",
    "ROUGE-Lsum (summary-level union LCS)",
    "Texts are cut into sentences (at newlines by default); hits are, over the "
    "reference sentences, the union of each one's LCS with every predicted "
    "sentence, a token counted at most as often as it occurs on both sides.",
    _EXAMPLE[1],
    explanation=Explanation(
        definition="ROUGE-Lsum: summary-level LCS. Texts are split into sentences at newlines; "
        "each reference sentence counts the tokens of its union LCS with all prediction "
        "sentences.",
        formula="P = sum_r |union LCS(r, prediction sentences)| / |prediction| ; R = same sum / "
        "|reference| ; F = 2PR / (P + R)",
        convention=ROUGE_TOKENS + " split_sentences=True splits on sentence ends instead of "
        "requiring newlines.",
        reference="Google's rouge-score rougeLsum; Lin (2004).",
    ),
)

_W_DOC = (
    "Hits are the weighted LCS of Lin (2004) with ``f(k) = k^w``: the table of "
    "Lin's algorithm is filled, one LCS read back from its end, and each run of "
    "consecutive reference tokens on it scores ``f(run)``. ``P = (WLCS / "
    "f(|p|))^(1/w)`` and ``R = (WLCS / f(f(|r|)))^(1/w)``: ROUGE-1.5.5 applies "
    "``f`` to the reference length twice, so R of identical texts is below 1 (Lin "
    "2004 divides by ``f(|r|)``). A text of several sentences (lines, or as "
    "``split_sentences`` cuts it) is scored per sentence as ROUGE-1.5.5 does: the "
    "weighted LCS of each reference sentence with each prediction sentence, their "
    "reference tokens joined, and ``R = (WLCS / f(sum_s f(|r_s|)))^(1/w)``."
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
    explanation=Explanation(
        definition="ROUGE-W: the weighted longest common subsequence of prediction and "
        "reference tokens, rewarding consecutive matches, as ROUGE-1.5.5 computes it.",
        formula="f(k) = k^w (w = 1.2) ; WLCS = sum over runs of consecutive reference tokens "
        "on the weighted LCS of f(run) ; P = (WLCS / f(|prediction|))^(1/w) ; R = (WLCS / "
        "f(f(|reference|)))^(1/w) ; F = 2PR / (P + R)",
        convention=ROUGE_155
        + " Texts of several sentences (lines by default; split_sentences=True also cuts "
        "after . ! ?) are scored as ROUGE-1.5.5 scores them: each reference sentence is "
        "matched against each prediction sentence (a run never continues across a sentence "
        "end), the covered reference tokens are joined and counted while the prediction has "
        "them unused, and R divides by f(sum over reference sentences of f(|sentence|)).",
        reference="ROUGE-1.5.5 (as rouge-metric's PyRouge); Lin (2004). Lin's paper divides R "
        "by f(|reference|); ROUGE-1.5.5 applies f twice, so identical texts have R < 1.",
    ),
)
ROUGES = _single(
    "ROUGES",
    "rougeS",
    "ROUGE-S (skip-bigrams, any gap)",
    _skip_doc("any number of tokens", False),
    "0.666...",
    _SINGLE_155_DOC,
    explanation=rouge_s(None, unigrams=False),
)
ROUGES4 = _single(
    "ROUGES4",
    "rougeS4",
    "ROUGE-S4 (skip-bigrams, gap at most 4)",
    _skip_doc("at most 4 tokens", False),
    "0.666...",
    _SINGLE_155_DOC,
    explanation=rouge_s(4, unigrams=False),
)
ROUGESU = _single(
    "ROUGESU",
    "rougeSU",
    "ROUGE-SU (skip-bigrams and unigrams, any gap)",
    _skip_doc("any number of tokens", True),
    "0.7",
    _SINGLE_155_DOC,
    explanation=rouge_s(None, unigrams=True),
)
ROUGESU4 = _single(
    "ROUGESU4",
    "rougeSU4",
    "ROUGE-SU4 (skip-bigrams and unigrams, gap at most 4)",
    _skip_doc("at most 4 tokens", True),
    "0.7",
    _SINGLE_155_DOC,
    explanation=rouge_s(4, unigrams=True),
)
