"""Text generation metrics: BLEU, chrF, ROUGE and perplexity.

BLEU and chrF agree with sacrebleu, ROUGE-N/L/Lsum with Google's rouge-score and
ROUGE-W/S/SU with ROUGE-1.5.5; perplexity follows PyTorch's cross-entropy
arithmetic. Every metric keeps summed statistics as its state, so corpus values
from streamed or merged chunks equal the in-memory ones.

Also here: :data:`TOKENIZERS` (the tokenizer names BLEU accepts);
:func:`read_parallel` and :func:`read_line_blocks`, which read line-aligned
hypothesis and reference files (whole, or a block of lines at a time); and
:class:`LineFiles`, those files as a source of :func:`scorekit.evaluate`.
"""

from typing import TYPE_CHECKING

from scorekit.text import _inputs  # noqa: F401  (registers the input kinds)
from scorekit.text._lines import read_line_blocks, read_parallel
from scorekit.text._tokenize import TOKENIZERS

# BLEU
from scorekit.text.bleu import BLEU, BLEUResult, BLEUStats, bleu, sentence_bleu

# chrF
from scorekit.text.chrf import CHRF, CHRFPlusPlus, CHRFResult, CHRFStats, chrf, sentence_chrf

# perplexity
from scorekit.text.perplexity import NLLSums, Perplexity, PerplexityResult, perplexity

# ROUGE
from scorekit.text.rouge import (
    ROUGE,
    ROUGE1,
    ROUGE2,
    ROUGEL,
    ROUGELsum,
    RougeScore,
    RougeSums,
    rouge,
)

if TYPE_CHECKING:
    from scorekit.text._source import LineFiles

__all__: list[str] = [
    "BLEU",
    "CHRF",
    "ROUGE",
    "ROUGE1",
    "ROUGE2",
    "ROUGEL",
    "TOKENIZERS",
    "BLEUResult",
    "BLEUStats",
    "CHRFPlusPlus",
    "CHRFResult",
    "CHRFStats",
    "LineFiles",
    "NLLSums",
    "Perplexity",
    "PerplexityResult",
    "ROUGELsum",
    "RougeScore",
    "RougeSums",
    "bleu",
    "chrf",
    "perplexity",
    "read_line_blocks",
    "read_parallel",
    "rouge",
    "sentence_bleu",
    "sentence_chrf",
]


def __getattr__(name: str) -> object:
    # LineFiles is a scorekit.io source: loaded on first use, so that in-memory BLEU and
    # ROUGE do not import the file readers
    if name == "LineFiles":
        from scorekit.text._source import LineFiles

        return LineFiles
    raise AttributeError(f"module 'scorekit.text' has no attribute {name!r}")
