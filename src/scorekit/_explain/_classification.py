"""Explanations of the classification and multi-label metrics for ``scorekit explain``."""

from __future__ import annotations

from scorekit._explain._entry import SK as _SK
from scorekit._explain._entry import Explanation

__all__ = ["EXPLANATIONS"]

_PRF_CONVENTION = (
    "average='binary' (default) reports the class pos_label (default 1); 'micro' pools "
    "TP/FP/FN over classes (equal to accuracy for single-label multiclass data); 'macro' "
    "is the unweighted mean over classes; 'weighted' weights classes by support; "
    "'samples' averages per-sample values of multi-label data. A 0/0 ratio takes the "
    "value of zero_division ('warn' gives 0 and an UndefinedMetricWarning)."
)
_PRF_REFERENCE = (
    f"{_SK} precision_recall_fscore_support (precision_score, recall_score, f1_score, "
    "fbeta_score), including zero_division and the labels subset rule."
)

EXPLANATIONS: dict[str, Explanation] = {
    "accuracy": Explanation(
        definition="The fraction of samples whose predicted label equals the true label. "
        "For multi-label indicator matrices every label of a sample must be right "
        "(subset accuracy).",
        formula="accuracy = sum_i w_i [y_pred_i == y_true_i] / sum_i w_i   (w_i = 1 unweighted)",
        convention="normalize=False returns the (weighted) count of correct samples. When every "
        "sample weight is 0 the value is nan with an UndefinedMetricWarning.",
        reference=f"{_SK} accuracy_score.",
    ),
    "error_rate": Explanation(
        definition="The fraction of samples whose predicted label differs from the true label.",
        formula="error_rate = 1 - accuracy",
        convention="normalize=False returns the (weighted) count of wrong samples. Multi-label "
        "input counts a sample as wrong when any of its labels is wrong.",
        reference=f"{_SK} zero_one_loss.",
    ),
    "confusion_matrix": Explanation(
        definition="A table of counts: entry [i, j] counts the samples of true class i that "
        "were predicted as class j (summing sample weights when given).",
        formula="C[i, j] = sum_n w_n [y_true_n == c_i and y_pred_n == c_j]",
        convention="Rows are the true class and columns the predicted class (scikit-learn's "
        "orientation; many tutorials draw the transpose). Classes are sorted unless labels= "
        "fixes them; a sample of a class outside labels is an error rather than silently "
        "dropped. normalize='true', 'pred' or 'all' divides by row sums, column sums or the "
        "total, with 0/0 giving 0.",
        reference=f"{_SK} confusion_matrix (same orientation and normalisation).",
    ),
    "precision": Explanation(
        definition="Of the samples predicted positive, the fraction that are positive.",
        formula="precision = TP / (TP + FP)",
        convention=_PRF_CONVENTION,
        reference=_PRF_REFERENCE,
    ),
    "recall": Explanation(
        definition="Of the positive samples, the fraction predicted positive (sensitivity, "
        "true positive rate).",
        formula="recall = TP / (TP + FN)",
        convention=_PRF_CONVENTION,
        reference=_PRF_REFERENCE,
    ),
    "f1": Explanation(
        definition="The harmonic mean of precision and recall.",
        formula="F1 = 2 P R / (P + R) = 2 TP / (2 TP + FP + FN)",
        convention=_PRF_CONVENTION
        + " Per-class F1 is computed from counts, so a class with TP = FP = FN = 0 is 0/0.",
        reference=_PRF_REFERENCE,
    ),
    "fbeta": Explanation(
        definition="The weighted harmonic mean of precision and recall, with recall counted "
        "beta times as important as precision.",
        formula="F_beta = (1 + beta^2) P R / (beta^2 P + R) "
        "= (1 + beta^2) TP / ((1 + beta^2) TP + beta^2 FN + FP)",
        convention=_PRF_CONVENTION + " beta = inf gives recall and beta = 0 gives precision.",
        reference=_PRF_REFERENCE + " Van Rijsbergen (1979) for the measure.",
    ),
    "balanced_accuracy": Explanation(
        definition="The mean of per-class recall over the classes present in y_true, so every "
        "class counts equally however rare it is.",
        formula="balanced_accuracy = (1/|C|) sum_{c in C} TP_c / (TP_c + FN_c)",
        convention="Classes that occur only in y_pred are left out, with a warning. "
        "adjusted=True rescales so that chance scores 0 and perfect scores 1.",
        reference=f"{_SK} balanced_accuracy_score.",
    ),
    "mcc": Explanation(
        definition="The correlation between true and predicted classes; 1 is perfect, 0 no "
        "better than chance, -1 total disagreement. Multiclass uses Gorodkin's R_K.",
        formula="MCC = (c s - sum_k t_k p_k) / sqrt((s^2 - sum_k p_k^2) (s^2 - sum_k t_k^2)); "
        "binary: (TP TN - FP FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN))",
        convention="t_k and p_k are the true and predicted totals of class k, c the number "
        "correct and s the number of samples. A zero denominator gives 0.0.",
        reference=f"{_SK} matthews_corrcoef.",
    ),
    "cohen_kappa": Explanation(
        definition="Agreement between two labelings corrected for the agreement expected by "
        "chance from their marginals.",
        formula="kappa = 1 - sum_ij w_ij O_ij / sum_ij w_ij E_ij, E = outer(row sums, column "
        "sums) / total; unweighted this is (p_o - p_e) / (1 - p_e)",
        convention="weights=None uses w_ij = [i != j]; 'linear' |i - j|; 'quadratic' (i - j)^2. "
        "When kappa is undefined (no samples, or no expected disagreement) the value is "
        "replace_undefined_by (nan) with an UndefinedMetricWarning.",
        reference=f"{_SK} cohen_kappa_score.",
    ),
    "roc_curve": Explanation(
        definition="The receiver operating characteristic: false positive rate against true "
        "positive rate as the decision threshold sweeps the scores.",
        formula="at threshold t: FPR(t) = FP(t) / N, TPR(t) = TP(t) / P, counting samples "
        "with score >= t as predicted positive",
        convention="One point per distinct score, thresholds in descending order; tied scores "
        "form a single (diagonal) step.",
        reference=f"{_SK} roc_curve.",
    ),
    "roc_auc": Explanation(
        definition="The area under the ROC curve: the probability that a random positive "
        "scores higher than a random negative, ties counting one half.",
        formula="AUC = P(s+ > s-) + 0.5 P(s+ = s-)",
        convention="Multiclass: one-vs-rest with 'macro' (mean of per-class AUCs), 'micro' "
        "(all n*k label-score pairs pooled) or 'weighted' (by prevalence); multi-label the "
        "same over indicator columns. max_fpr gives the McClish-standardised partial AUC. "
        "With a single class in y_true AUC is undefined: nan with an UndefinedMetricWarning. "
        "The exact state is a histogram of distinct scores, so merged shards give the "
        "in-memory value. Bounded memory: bins=N (equal width over score_range) or edges= "
        "(e.g. quantile_edges of a sample) keep per-bin counts only and return "
        "Estimate(value, error_bound), pairs within a bin counted half and "
        "error_bound = 1/2 sum_b p_b n_b / (P N).",
        reference=f"{_SK} roc_auc_score (scikit-learn >= 1.6 behaviour for one class).",
    ),
    "pr_curve": Explanation(
        definition="Precision against recall as the decision threshold sweeps the scores.",
        formula="at threshold t: P(t) = TP(t) / (TP(t) + FP(t)), R(t) = TP(t) / P",
        convention="One point per distinct score; tied scores enter together.",
        reference=f"{_SK} precision_recall_curve.",
    ),
    "average_precision": Explanation(
        definition="The area under the step-wise precision-recall curve: precision at each "
        "threshold weighted by the gain in recall there.",
        formula="AP = sum_n (R_n - R_{n-1}) P_n over distinct thresholds, descending",
        convention="No interpolation by default (the step-wise sum); the 11-point and all-point "
        "(VOC) interpolations are options. Bounded memory: bins=N or edges= keep per-bin "
        "counts only and return Estimate(value, error_bound), the midpoint and half-width "
        "of the AP over the best and worst orders within bins.",
        reference=f"{_SK} average_precision_score.",
    ),
    "break_even_point": Explanation(
        definition="The value at which precision equals recall on the precision-recall curve.",
        formula="BEP = P(t*) = R(t*) where the curves cross, linearly interpolated between the "
        "two points that straddle the crossing",
        convention="Computed on the same points as pr_curve.",
        reference="scikit-learn has no such function; the points come from "
        "precision_recall_curve and the crossing is interpolated as described.",
    ),
    "log_loss": Explanation(
        definition="The negative log-likelihood of the true labels under the predicted "
        "probabilities, averaged over samples (cross-entropy).",
        formula="log_loss = -(1/n) sum_i sum_k [y_i = k] ln p_ik",
        convention="Natural logarithm. Binary input may give the probability of the positive "
        "class only. Columns of multiclass probabilities follow the sorted classes.",
        reference=f"{_SK} log_loss.",
    ),
    "brier": Explanation(
        definition="The mean squared difference between the predicted probability and the "
        "observed outcome; lower is better, 0 is perfect.",
        formula="brier = (1/n) sum_i (p_i - y_i)^2, with y_i in {0, 1}",
        convention="Binary: p_i is the probability of the positive class.",
        reference=f"{_SK} brier_score_loss.",
    ),
    "hamming_loss": Explanation(
        definition="The fraction of individual label decisions that are wrong, over all "
        "samples and labels.",
        formula="hamming_loss = (1 / (n L)) sum_i sum_j [y_pred_ij != y_true_ij]",
        convention="Multi-label indicator matrices (samples x labels). With sample weights n "
        "becomes the total weight; when every weight is 0 the value is nan with an "
        "UndefinedMetricWarning.",
        reference=f"{_SK} hamming_loss; Wu & Zhou (ICML 2017).",
    ),
    "subset_accuracy": Explanation(
        definition="The fraction of samples whose whole label set is predicted exactly "
        "(exact match ratio).",
        formula="subset_accuracy = (1/n) sum_i [y_pred_i == y_true_i for every label]",
        convention="Multi-label indicator matrices; the strictest multi-label measure.",
        reference=f"{_SK} accuracy_score on indicator matrices; Wu & Zhou (ICML 2017).",
    ),
    "jaccard": Explanation(
        definition="The size of the intersection of the predicted and true label sets over the "
        "size of their union, averaged over samples by default.",
        formula="J_i = |Y_i intersect Yhat_i| / |Y_i union Yhat_i| = TP_i / (TP_i + FP_i + FN_i)",
        convention="average='samples' (default) is the mean of the per-sample index (Wu & "
        "Zhou's instance-based accuracy); 'micro' pools TP/FP/FN over labels; 'macro' is the "
        "unweighted mean of per-label indices; 'weighted' weights labels by support (TP + FN). "
        "A sample or label with no true and no predicted label is 0/0 and takes the value of "
        "zero_division ('warn' gives 0 and an UndefinedMetricWarning; nan leaves the term out "
        "of the average).",
        reference=f"{_SK} jaccard_score on indicator matrices; Wu & Zhou (ICML 2017).",
    ),
    "one_error": Explanation(
        definition="The fraction of samples whose top-scored label is not a true label.",
        formula="one_error = (1/n) sum_i [argmax_j s_ij is not in Y_i]",
        convention="Ties at the top score are read pessimistically by default (an error if "
        "any tied label is irrelevant, like the other ranking measures); ties='average' "
        "counts the irrelevant fraction of the tied labels instead. A sample with no "
        "relevant label counts as an error.",
        reference="Schapire & Singer (2000); Wu & Zhou (ICML 2017). scikit-learn has no "
        "one-error function.",
    ),
    "coverage_error": Explanation(
        definition="How far down the ranking of labels by score one must go, on average, to "
        "cover every true label of a sample.",
        formula="coverage_error = (1/n) sum_i max_{j in Y_i} rank_i(j), ranks counted from 1",
        convention="Ranks count from 1 (scikit-learn); tied labels all take the worst "
        "(largest) rank of their group; a sample with no relevant label contributes 0. "
        "Wu & Zhou's coverage, counted from 0, is 'coverage'.",
        reference=f"{_SK} coverage_error.",
    ),
    "coverage": Explanation(
        definition="Wu & Zhou's coverage: the number of steps down the label ranking needed to "
        "cover every true label, counted from 0.",
        formula="coverage = (1/n) sum_i max(0, max_{j in Y_i} rank_i(j) - 1), "
        "rank_i(j) = |{k : s_ik >= s_ij}|",
        convention="Ranks count from 0, as in the paper (coverage_error counts from 1); ties "
        "take the worst rank of their group. When every sample has a relevant label this is "
        "coverage_error - 1; a sample with no relevant label contributes 0.",
        reference="Wu & Zhou (ICML 2017) and Zhang & Zhou (2014), from the same per-sample "
        "ranks as scikit-learn's coverage_error.",
    ),
    "ranking_loss": Explanation(
        definition="The fraction of (true label, false label) pairs of a sample that the scores "
        "order wrongly, averaged over samples.",
        formula="ranking_loss = (1/n) sum_i |{(j, k) : j in Y_i, k not in Y_i, s_ij <= s_ik}| "
        "/ (|Y_i| |not Y_i|)",
        convention="A tie between a true and a false label counts as a wrongly ordered pair. "
        "Samples whose labels are all true or all false have no pair and contribute 0.",
        reference=f"{_SK} label_ranking_loss; Wu & Zhou (ICML 2017).",
    ),
    "label_ranking_average_precision": Explanation(
        definition="For each true label of a sample, the fraction of labels ranked at or above "
        "it that are true, averaged over its true labels and then over samples.",
        formula="LRAP = (1/n) sum_i (1/|Y_i|) sum_{j in Y_i} |{k in Y_i : s_ik >= s_ij}| "
        "/ |{k : s_ik >= s_ij}|",
        convention="Wu & Zhou's average precision. Tied labels take the worst rank of their "
        "group. A sample whose labels are all true or all false scores 1.",
        reference=f"{_SK} label_ranking_average_precision_score; Wu & Zhou (ICML 2017).",
    ),
}
