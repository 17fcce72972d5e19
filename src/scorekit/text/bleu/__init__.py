"""BLEU (Papineni et al., 2002) as sacrebleu computes it, corpus and sentence level.

The state (:class:`BLEUStats`) is BLEU's sufficient statistics summed over
segments: hypothesis and closest-reference lengths, and clipped n-gram matches
and n-gram totals per order. Merging adds them, so corpus BLEU from streamed or
merged chunks equals the in-memory value exactly (the statistics are integers).

A batch is counted without a Python loop per segment: the corpus is tokenized
as one text where the tokenizer allows (:mod:`scorekit.text._tokenize`), tokens
become integer ids, and each n-gram of each segment gets an integer code
(the code of its (n-1)-gram prefix paired with its last token, made dense by a
hash table), so per-segment n-gram counts are ``bincount`` calls.

Modules: ``_stats`` (the state and the result), ``_checks`` (input checks),
``_count`` (n-gram counting), ``_metric`` (the registered metric and the
functions).
"""

from scorekit.text.bleu._metric import BLEU, bleu, sentence_bleu
from scorekit.text.bleu._stats import BLEUResult, BLEUStats

__all__ = ["BLEU", "BLEUResult", "BLEUStats", "bleu", "sentence_bleu"]
