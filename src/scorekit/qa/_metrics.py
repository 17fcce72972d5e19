"""The registered SQuAD metrics: exact match and token F1, and their functions."""

from __future__ import annotations

import abc
import inspect
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Explanation, Metric, OneOf, State, register, state_field
from scorekit.errors import InputError, message, raw
from scorekit.qa._explanations import QA_NORMALISE
from scorekit.qa._scores import VERSIONS, Version, question_scores

__all__ = ["QAF1", "AnswerScores", "ExactMatch", "exact_match", "f1"]


@dataclass(frozen=True, eq=False)
class AnswerScores(State):
    """Sum of per-question scores (the maximum over gold answers) and the question count."""

    measure: str = state_field("same", check="text", allowed=("exact", "f1"))
    version: str = state_field("same", check="text", allowed=VERSIONS)
    count: int = state_field("sum", check="count", default=0)
    total: float = state_field("sum", check="weight", default=0.0)

    def _check(self) -> None:
        if self.total > self.count * (1 + 1e-9):
            raise self._invalid(
                "total",
                "a total above the number of questions",
                raw(f"{self.total!r} for {self.count} questions"),
                "scores in [0, 1] per question: total <= count",
            )


@dataclass(frozen=True)
class _AnswerMetric(Metric[AnswerScores]):
    version: Annotated[Version, OneOf(VERSIONS, problem="unknown SQuAD version")] = "2.0"

    unit: ClassVar[str] = "question"

    @abc.abstractmethod
    def _measure(self) -> str:
        """Which per-question score this metric averages: ``"exact"`` or ``"f1"``."""

    def empty(self) -> AnswerScores:
        """The state of no questions."""
        return AnswerScores(measure=self._measure(), version=self.version)

    def _question_values(self, references: Any, predictions: Any) -> NDArray[np.float64]:
        want_f1 = self._measure() == "f1"
        exact, f = question_scores(
            references, predictions, version=self.version, with_f1=want_f1, metric=self.name
        )
        return f if f is not None else exact

    def summarize(self, references: Any, predictions: Any) -> AnswerScores:
        """Sum the per-question scores of one batch."""
        values = self._question_values(references, predictions)
        return AnswerScores(
            measure=self._measure(),
            version=self.version,
            count=len(values),
            total=float(values.sum()),
        )

    def summarize_replicates(
        self, *batch: Any, weights: NDArray[np.int64], **kwargs: Any
    ) -> list[AnswerScores]:
        """States of replicates of one batch: question ``i`` counts ``weights[b, i]`` times.

        Each question is scored once; a replicate's state sums the scores
        weighted by how often it draws each question.
        """
        values = self._question_values(*_pair(self, batch, kwargs))
        w = np.asarray(weights)
        n = len(values)
        if (
            w.ndim != 2
            or w.shape[1] != n
            or (w.size and (w.dtype.kind not in "iub" or w.min() < 0))
        ):
            raise InputError(
                message(
                    self.name,
                    "unit weights do not match the batch",
                    raw(f"{w.dtype} array of shape {list(w.shape)}"),
                    f"integers >= 0 of shape (replicates, {n}): one per question",
                )
            )
        w = w.astype(np.float64)
        counts = np.rint(w.sum(axis=1)).astype(np.int64)
        totals = w @ values
        return [
            AnswerScores(
                measure=self._measure(), version=self.version, count=int(c), total=float(t)
            )
            for c, t in zip(counts.tolist(), totals.tolist(), strict=True)
        ]

    def count_units(self, *batch: Any, **kwargs: Any) -> int:
        """The number of questions of one batch (one per prediction)."""
        return len(_pair(self, batch, kwargs)[1])

    def compute(self, state: AnswerScores) -> float:
        """The mean per-question score."""
        if state.count == 0:
            raise InputError(
                message(self.name, "empty input", raw("0 questions"), "at least one question")
            )
        return state.total / state.count


@register(
    "exact_match",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="qa_answers",
    aliases=("em",),
    variant="version",
    variants=VERSIONS,
)
@dataclass(frozen=True)
class ExactMatch(_AnswerMetric):
    """SQuAD exact match: the share of questions whose normalised prediction equals a gold answer.

    .. math:: \\mathrm{EM} = \\frac{1}{n} \\sum_{q=1}^{n} \\max_{g \\in G_q}
        [\\mathrm{norm}(\\hat a_q) = \\mathrm{norm}(g)]

    Parameters
    ----------
    version : {"2.0", "1.1"}, default "2.0"
        The official script to follow. With ``"2.0"`` gold answers that
        normalise to ``""`` are dropped and a question left without gold answers
        has the single gold answer ``""`` (unanswerable): only an empty
        prediction matches it.

    Notes
    -----
    Normalisation (:func:`normalize_answer`) lowercases, removes ASCII
    punctuation, drops the articles *a*, *an*, *the* and collapses whitespace.
    Every question needs at least one gold answer (``[""]`` for an unanswerable
    one). Empty input raises :class:`~scorekit.errors.InputError`. The value is
    a fraction; the official scripts print it times 100. A bootstrap resamples
    questions.

    References
    ----------
    Rajpurkar et al., "SQuAD: 100,000+ Questions for Machine Comprehension of
    Text", EMNLP 2016, and "Know What You Don't Know: Unanswerable Questions for
    SQuAD", ACL 2018; matches the official ``evaluate-v1.1.py`` and
    ``evaluate-v2.0.py``.

    Examples
    --------
    >>> references = [["Denver Broncos"], ["a cat", "the dog"]]
    >>> ExactMatch().score(references, ["the Denver Broncos", "dog"])
    1.0
    >>> ExactMatch().score([[""], ["Paris"]], ["", "paris, France"])
    0.5
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="SQuAD exact match: the fraction of questions whose normalised prediction "
        "equals a normalised gold answer.",
        formula="EM = mean over questions of max_gold [normalise(prediction) == normalise(gold)]",
        convention=QA_NORMALISE,
        reference="The official SQuAD v1.1 and v2.0 evaluation scripts.",
    )

    def _measure(self) -> str:
        return "exact"


@register(
    "qa_f1",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="qa_answers",
    aliases=("squad_f1",),
    variant="version",
    variants=VERSIONS,
)
@dataclass(frozen=True)
class QAF1(_AnswerMetric):
    """SQuAD token F1: per question the best F1 of the prediction's tokens against a gold answer.

    .. math:: F_1(\\hat a, g) = \\frac{2 P R}{P + R},\\quad
        P = \\frac{|T(\\hat a) \\cap T(g)|}{|T(\\hat a)|},\\quad
        R = \\frac{|T(\\hat a) \\cap T(g)|}{|T(g)|}

    where :math:`T` is the multiset of whitespace tokens of the normalised
    answer and :math:`\\cap` the multiset intersection; the value is the mean
    over questions of the maximum over gold answers.

    Parameters
    ----------
    version : {"2.0", "1.1"}, default "2.0"
        The official script to follow. ``"2.0"`` scores 1 when the prediction
        and the gold answer both normalise to no tokens (an unanswerable
        question answered with ``""``), and drops gold answers that normalise to
        ``""`` as :class:`ExactMatch` does; ``"1.1"`` scores 0 whenever no token
        is shared.

    Notes
    -----
    The F1 of each pair uses the official arithmetic step by step, so
    per-question values are bit-identical to the scripts'. Empty input raises
    :class:`~scorekit.errors.InputError`. The value is a fraction; the official
    scripts print it times 100. A bootstrap resamples questions.

    References
    ----------
    Rajpurkar et al., EMNLP 2016 and ACL 2018; matches the official
    ``evaluate-v1.1.py`` and ``evaluate-v2.0.py``.

    Examples
    --------
    >>> QAF1().score([["the Denver Broncos"]], ["Denver"])
    0.666...
    >>> QAF1().score([[""]], [""]), QAF1(version="1.1").score([[""]], [""])
    (1.0, 0.0)
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="SQuAD F1: per question the best token-overlap F1 of the prediction against "
        "a gold answer, averaged over questions.",
        formula="F1 = 2PR / (P + R),  P = |common tokens| / |prediction tokens|,  R = |common "
        "tokens| / |gold tokens|  (multiset overlap)",
        convention=QA_NORMALISE + " In v2.0 an empty prediction or gold answer scores 1 only "
        "against the other being empty.",
        reference="The official SQuAD v1.1 and v2.0 evaluation scripts.",
    )

    def _measure(self) -> str:
        return "f1"


def exact_match(references: Any, predictions: Any, *, version: Version = "2.0") -> float:
    """SQuAD exact match of predictions against lists of gold answers; see :class:`ExactMatch`.

    Examples
    --------
    >>> exact_match([["Normandy", "in Normandy"], ["10th century"]], ["normandy", "the 10th"])
    0.5
    """
    return float(ExactMatch(version=version).score(references, predictions))


def f1(references: Any, predictions: Any, *, version: Version = "2.0") -> float:
    """SQuAD token F1 of predictions against lists of gold answers; see :class:`QAF1`.

    Examples
    --------
    >>> f1([["Normandy", "in Normandy"], ["10th century"]], ["normandy", "the 10th"])
    0.8333...
    """
    return float(QAF1(version=version).score(references, predictions))


def _pair(metric: _AnswerMetric, batch: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """``(references, predictions)`` of a call, or the metric's error for other inputs."""
    try:
        bound = inspect.signature(metric.summarize).bind(*batch, **kwargs)
    except TypeError:
        metric._summarize_checked(batch, kwargs)  # raises the metric's own input error
        raise
    return bound.arguments["references"], bound.arguments["predictions"]
