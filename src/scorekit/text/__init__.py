"""Text generation metrics: BLEU, chrF, TER, error rates, ROUGE and perplexity.

BLEU, chrF and TER agree with sacrebleu; WER, CER, MER, WIL and WIP with jiwer;
ROUGE-N/L/Lsum with Google's rouge-score and ROUGE-W/S/SU with ROUGE-1.5.5;
perplexity follows PyTorch's cross-entropy arithmetic. Every metric keeps
summed statistics as its state, so corpus values from streamed or merged
chunks equal the in-memory ones.

Also here: :func:`segment_statistics` (the statistics each segment adds to a
corpus metric's state) and :func:`score_statistics` (the value of summed
statistics, e.g. of bootstrap replicates); :func:`from_function` (a metric
from a per-item scoring function);
:data:`TOKENIZERS` (the tokenizer names BLEU accepts); :func:`read_parallel`
and :func:`read_line_blocks`, which read line-aligned hypothesis and reference
files (whole, or a block of lines at a time); and :class:`LineFiles`, those
files as a source of :func:`scorekit.evaluate`.
"""

from typing import TYPE_CHECKING

from scorekit.text import _inputs  # noqa: F401  (registers the input kinds)
from scorekit.text._function import FunctionMeans, FunctionMetric, from_function
from scorekit.text._line_values import line_values
from scorekit.text._lines import read_line_blocks, read_parallel
from scorekit.text._segments import score_statistics, segment_statistics
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

# TER
from scorekit.text.ter import TER, TERResult, TERStats, sentence_ter, ter

# word and character error rates
from scorekit.text.wer import (
    CER,
    MER,
    WER,
    WIL,
    WIP,
    EditCounts,
    ErrorRates,
    cer,
    error_rates,
    mer,
    wer,
    wil,
    wip,
)

if TYPE_CHECKING:
    from scorekit.text._source import GroupedLines, LineFiles

__all__: list[str] = [
    "BLEU",
    "CER",
    "CHRF",
    "MER",
    "ROUGE",
    "ROUGE1",
    "ROUGE2",
    "ROUGEL",
    "TER",
    "TOKENIZERS",
    "WER",
    "WIL",
    "WIP",
    "BLEUResult",
    "BLEUStats",
    "CHRFPlusPlus",
    "CHRFResult",
    "CHRFStats",
    "EditCounts",
    "ErrorRates",
    "FunctionMeans",
    "FunctionMetric",
    "GroupedLines",
    "LineFiles",
    "NLLSums",
    "Perplexity",
    "PerplexityResult",
    "ROUGELsum",
    "RougeScore",
    "RougeSums",
    "TERResult",
    "TERStats",
    "bleu",
    "cer",
    "chrf",
    "error_rates",
    "from_function",
    "line_values",
    "mer",
    "perplexity",
    "read_line_blocks",
    "read_parallel",
    "rouge",
    "score_statistics",
    "segment_statistics",
    "sentence_bleu",
    "sentence_chrf",
    "sentence_ter",
    "ter",
    "wer",
    "wil",
    "wip",
]


def __getattr__(name: str) -> object:
    # LineFiles and GroupedLines are scorekit.io sources: loaded on first use, so that
    # in-memory BLEU and ROUGE do not import the file readers
    if name in ("LineFiles", "GroupedLines"):
        from scorekit.text import _source

        return getattr(_source, name)
    raise AttributeError(f"module 'scorekit.text' has no attribute {name!r}")
