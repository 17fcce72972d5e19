"""Text shared by the explanations of the ROUGE metrics (``scorekit explain``)."""

from __future__ import annotations

from scorekit.core import Explanation

__all__ = ["ROUGE_155", "ROUGE_TOKENS", "rouge_n", "rouge_s"]

ROUGE_TOKENS = (
    "Tokens as rouge-score makes them: lowercase, runs of [a-z0-9], optional Porter stemming "
    "(stemmer=True) of tokens longer than 3 characters. rouge-score drops every other "
    "character, so Chinese or Greek text scores 0; tokenizer='unicode' keeps letters of every "
    "script and tokenizer='none' splits on whitespace only. With several references an item "
    "takes the reference of highest F-measure (rouge-score's score_multi). The value is the "
    "mean F-measure over items; the function rouge() also gives precision and recall. The "
    "state sums the per-item values, so chunks merge exactly."
)
"""Tokens, references and state of the types rouge-score computes."""

ROUGE_155 = (
    "Tokens as for rouge1 (lowercase runs of [a-z0-9] by default, optional Porter stemming); "
    "each text is one token sequence, as ROUGE-1.5.5 scores a one-sentence summary. With "
    "several references an item takes the reference of highest F-measure. The value is the "
    "mean F-measure over items; rouge(types=[...]) also gives precision and recall, and "
    "accepts rougeS<d> / rougeSU<d> for any gap d. The state sums the per-item values, so "
    "chunks merge exactly."
)
"""Tokens, references and state of the types only ROUGE-1.5.5 computes (W, S, SU)."""


def rouge_n(n: int) -> Explanation:
    """The explanation of ROUGE-N for n-grams of order ``n``.

    Examples
    --------
    >>> rouge_n(2).formula.split(" ; ")[0]
    'P = |2-grams in both| / |2-grams of prediction|'
    """
    return Explanation(
        definition=f"ROUGE-{n}: the overlap of {n}-grams between the prediction and the "
        "reference, as precision, recall and their F-measure.",
        formula=f"P = |{n}-grams in both| / |{n}-grams of prediction| ; R = |{n}-grams in both| "
        f"/ |{n}-grams of reference| ; F = 2PR / (P + R)   (counts clipped, multisets)",
        convention=ROUGE_TOKENS,
        reference="Google's rouge-score (RougeScorer with use_stemmer as given); Lin (2004).",
    )


def rouge_s(gap: int | None, *, unigrams: bool) -> Explanation:
    """The explanation of ROUGE-S (``unigrams=False``) or ROUGE-SU, of any gap or at most ``gap``.

    Examples
    --------
    >>> rouge_s(4, unigrams=True).definition.split(":")[0]
    'ROUGE-SU4'
    """
    kind = ("SU" if unigrams else "S") + ("" if gap is None else str(gap))
    return Explanation(
        definition=f"ROUGE-{kind}: the overlap of skip-bigrams (ordered token pairs "
        + ("with any gap" if gap is None else f"at most {gap} tokens apart")
        + (", plus unigrams" if unigrams else "")
        + ") between prediction and reference, as precision, recall and F-measure.",
        formula="P = |skip-bigrams in both| / |skip-bigrams of prediction| ; R = |in both| / "
        "|skip-bigrams of reference| ; F = 2PR / (P + R)   (counts clipped, multisets)"
        + (" ; ROUGE-SU also counts the unigrams of all tokens but the last" if unigrams else ""),
        convention=ROUGE_155,
        reference="ROUGE-1.5.5 (as rouge-metric's PyRouge); Lin (2004).",
    )
