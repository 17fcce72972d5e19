"""TER (translation edit rate) as sacrebleu computes it, corpus and sentence level.

The state (:class:`TERStats`) sums each segment's edits against its closest
reference and its mean reference length. ``_normalize`` is Tercom's
normalisation, ``_tercom`` the shift search and edit distance of one segment,
``_metric`` the registered metric and the functions.
"""

from scorekit.text.ter._metric import TER, TERResult, TERStats, sentence_ter, ter

__all__ = ["TER", "TERResult", "TERStats", "sentence_ter", "ter"]
