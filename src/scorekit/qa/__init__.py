"""Question answering: SQuAD exact match and F1, as the official evaluation scripts compute them.

An answer is normalised as the official SQuAD v1.1 and v2.0 scripts do:
lowercase, remove ASCII punctuation, replace the articles *a*, *an*, *the*
(as whole words) by a space, and collapse whitespace. A question scores the
maximum over its gold answers of exact match (normalised strings equal) and of
token F1 (multiset overlap of the normalised tokens).

The batch is normalised at once: each distinct string once, with one
``str.translate`` and one regular-expression pass over the joined batch, and
the token overlaps of all (prediction, gold answer) pairs are counted with one
sort of hashed token ids, instead of per-pair ``Counter`` objects.

Modules: ``_normalize`` (answer normalisation), ``_scores`` (input checks and
per-question scores), ``_metrics`` (the state, the registered metrics and their
functions), ``_squad`` (evaluation on the official dataset format), ``_inputs``
(the ``qa_answers`` input kind).

Examples
--------
>>> from scorekit import qa
>>> qa.exact_match([["The Eiffel Tower", "Eiffel tower"]], ["eiffel tower!"])
1.0
>>> qa.f1([["in the year 1889"]], ["1889"])
0.5
"""

from scorekit.qa import _inputs  # noqa: F401  (registers the input kind)
from scorekit.qa._metrics import QAF1, AnswerScores, ExactMatch, exact_match, f1
from scorekit.qa._normalize import normalize_answer
from scorekit.qa._scores import question_scores
from scorekit.qa._squad import squad, squad_questions, squad_titles

__all__ = [
    "QAF1",
    "AnswerScores",
    "ExactMatch",
    "exact_match",
    "f1",
    "normalize_answer",
    "question_scores",
    "squad",
    "squad_questions",
    "squad_titles",
]
