"""Explanations of the ranking metrics for ``scorekit explain``."""

from __future__ import annotations

from scorekit._explain._entry import Explanation

__all__ = ["EXPLANATIONS"]

_TE = "trec_eval (through pytrec_eval)"
_ORDER = (
    "Within a query documents rank by descending score, ties broken by descending doc id "
    "(trec_eval's rule); a rank column in the run is ignored. A document is relevant when "
    "its grade is >= relevance_level (default 1); unjudged documents are non-relevant. "
    "Queries are those of the run that have judgments; missing='zero' also counts the "
    "qrels queries absent from the run as 0 (trec_eval -c). The value is the mean over "
    "queries; the state keeps one value per query, so states of disjoint query sets merge."
)
_NO_RELEVANT = (
    "A query without a relevant document is 0 with an UndefinedMetricWarning, as trec_eval "
    "counts it."
)
_GAIN = (
    "gain='linear' (default, trec_eval) uses the grade as the gain; gain='exp' uses "
    "2^grade - 1 (Burges et al. 2005). Unjudged documents and grades <= 0 gain 0, and "
    "relevance_level does not change gains."
)


def _c(*parts: str) -> str:
    return " ".join(parts)


EXPLANATIONS: dict[str, Explanation] = {
    "p": Explanation(
        definition="Precision at k: the fraction of the top k documents that are relevant.",
        formula="P@k = |relevant in top k| / k",
        convention=_c(
            "The denominator is k even when fewer documents were retrieved (trec_eval P_k). "
            "Written p@k or precision@k (precision without @k is the classification metric).",
            _ORDER,
        ),
        reference=f"{_TE} P_k.",
    ),
    "recall_at": Explanation(
        definition="Recall at k: the fraction of the query's relevant documents found in the "
        "top k.",
        formula="R@k = |relevant in top k| / |relevant in the qrels|",
        convention=_c(
            "Written recall@k (recall without @k is the classification metric). The "
            "denominator counts every relevant judgment, retrieved or not.",
            _NO_RELEVANT,
            _ORDER,
        ),
        reference=f"{_TE} recall_k.",
    ),
    "f": Explanation(
        definition="F-beta at k: the weighted harmonic mean of precision at k and recall at k.",
        formula="F_beta@k = (1 + beta^2) P@k R@k / (beta^2 P@k + R@k)",
        convention=_c("beta defaults to 1; 0 when no relevant document is in the top k.", _ORDER),
        reference="The definition from P@k and R@k (trec_eval's set_F uses the whole "
        "retrieved set, not a cutoff).",
    ),
    "hit_rate": Explanation(
        definition="Hit rate at k: 1 if any relevant document is in the top k, else 0; its "
        "mean is the fraction of queries with a hit.",
        formula="hit@k = [ |relevant in top k| > 0 ]",
        convention=_ORDER,
        reference=f"{_TE} success_k.",
    ),
    "r_precision": Explanation(
        definition="Precision at R, where R is the number of relevant documents of the query.",
        formula="RP = |relevant in top R| / R",
        convention=_c(
            "Ranks past the end of a short run count as non-relevant.", _NO_RELEVANT, _ORDER
        ),
        reference=f"{_TE} Rprec.",
    ),
    "map": Explanation(
        definition="Mean average precision: per query, the precision at the rank of each "
        "relevant document, summed and divided by the number of relevant documents; then the "
        "mean over queries.",
        formula="AP = (1/R) sum_{i relevant, i <= k} |relevant in top i| / i ;  MAP = mean AP",
        convention=_c(
            "R counts every relevant judgment, so a relevant document never retrieved adds 0. "
            "map@k only sums ranks i <= k and still divides by R (trec_eval map_cut_k). "
            "ranking.evaluate and scorekit rank also accept ap.",
            _NO_RELEVANT,
            _ORDER,
        ),
        reference=f"{_TE} map and map_cut_k.",
    ),
    "mrr": Explanation(
        definition="Mean reciprocal rank: 1 / the rank of the first relevant document, "
        "averaged over queries.",
        formula="RR = 1 / min{i : document i relevant}  (0 if none, or none within k)",
        convention=_c("mrr has no cutoff (trec_eval recip_rank); mrr@k counts ranks <= k.", _ORDER),
        reference=f"{_TE} recip_rank.",
    ),
    "bpref": Explanation(
        definition="Binary preference: how rarely judged non-relevant documents are ranked "
        "above relevant ones, robust to incomplete judgments.",
        formula="bpref = (1/R) sum_{r relevant retrieved} (1 - min(n_r, R) / min(N, R))",
        convention=_c(
            "n_r counts judged non-relevant documents ranked above r, N all judged "
            "non-relevant documents of the query; unjudged documents are skipped; a relevant "
            "document with none above it counts 1 (also when N = 0).",
            _NO_RELEVANT,
            _ORDER,
        ),
        reference=f"Buckley and Voorhees (SIGIR 2004); {_TE} bpref.",
    ),
    "cg": Explanation(
        definition="Cumulative gain at k: the sum of the gains of the top k documents.",
        formula="CG@k = sum_{i <= k} gain_i",
        convention=_c(_GAIN, "Without k, the whole run.", _ORDER),
        reference="Järvelin and Kekäläinen (2002); checked against the definition.",
    ),
    "dcg": Explanation(
        definition="Discounted cumulative gain at k: gains discounted by the log of the rank.",
        formula="DCG@k = sum_{i <= k} gain_i / log2(i + 1)",
        convention=_c(_GAIN, "Without k, the whole run.", _ORDER),
        reference="Järvelin and Kekäläinen (2002), with trec_eval's log2(i + 1) discount.",
    ),
    "ndcg": Explanation(
        definition="Normalised DCG at k: DCG@k divided by the DCG@k of the ideal ordering of "
        "the query's judged documents.",
        formula="nDCG@k = DCG@k / IDCG@k ;  IDCG from all judged grades > 0, best first",
        convention=_c(
            _GAIN,
            "ndcg@k is trec_eval's ndcg_cut_k; ndcg without k is trec_eval's ndcg (the whole "
            "run against every judgment). A query with no positive grade is 0 with an "
            "UndefinedMetricWarning.",
            _ORDER,
        ),
        reference=f"{_TE} ndcg and ndcg_cut_k.",
    ),
    "err": Explanation(
        definition="Expected reciprocal rank: the expected 1/rank at which a user stops, when "
        "a document of grade g satisfies them with probability (2^g - 1) / 2^g_max.",
        formula="ERR@k = sum_{r <= k} (1/r) R_r prod_{i < r} (1 - R_i),  "
        "R_i = (2^g_i - 1) / 2^g_max",
        convention=_c(
            "g_max (max_grade) defaults to the largest grade in the qrels given; states "
            "computed with different g_max do not merge. Unjudged documents have R = 0.",
            _ORDER,
        ),
        reference="Chapelle, Metzler, Zhang and Grinspan (CIKM 2009); checked by hand.",
    ),
    "kendall_tau": Explanation(
        definition="Kendall's rank correlation of two scorings of the same items: concordant "
        "minus discordant pairs, normalised.",
        formula="tau_b = (C - D) / sqrt((n0 - n1)(n0 - n2)) ;  tau_a = (C - D) / n0 ;  "
        "tau_c = 2 m (C - D) / (n^2 (m - 1)),  n0 = n(n-1)/2, n1 / n2 = pairs tied in x / in y, "
        "m = min(distinct x, distinct y)",
        convention="tau-b (default) corrects for ties; tau-a does not; tau-c (Stuart) suits "
        "rectangular tables. The state keeps the pairs (it grows with the data); fewer than "
        "two items, or a constant x or y for tau-b and tau-c, is nan with an "
        "UndefinedMetricWarning.",
        reference="scipy.stats.kendalltau (variants 'b' and 'c'); tau-a from its definition.",
    ),
}
"""Per ranking metric name: definition, formula, convention and reference."""
