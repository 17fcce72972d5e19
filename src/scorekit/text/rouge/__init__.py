"""ROUGE-N, ROUGE-L and ROUGE-Lsum as Google's rouge-score computes them; ROUGE-W, ROUGE-S and
ROUGE-SU as ROUGE-1.5.5.

Per (reference, prediction) pair a precision, recall and F-measure per ROUGE
type; a batch's state is the sums of those values and the number of pairs, so
corpus means from merged chunks equal the in-memory ones.

Modules: ``_tokens`` (tokenizers, stemming, sentence splitting), ``_scores``
(input checks and per-item n-gram, LCS and Lsum scores), ``_base`` (the state,
the result and the settings every ROUGE metric shares), ``_metrics``
(:class:`ROUGE` and :func:`rouge`), ``_single`` (the single-type metrics).
"""

from scorekit.text.rouge._base import ROUGE_155_TYPES, ROUGE_TYPES, RougeScore, RougeSums
from scorekit.text.rouge._metrics import ROUGE, rouge
from scorekit.text.rouge._single import (
    ROUGE1,
    ROUGE2,
    ROUGE3,
    ROUGE4,
    ROUGE5,
    ROUGE6,
    ROUGE7,
    ROUGE8,
    ROUGE9,
    ROUGEL,
    ROUGES,
    ROUGES4,
    ROUGESU,
    ROUGESU4,
    ROUGEW,
    ROUGELsum,
)
from scorekit.text.rouge._tokens import TOKENIZERS

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
    "TOKENIZERS",
    "ROUGELsum",
    "RougeScore",
    "RougeSums",
    "rouge",
]
