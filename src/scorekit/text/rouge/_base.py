"""ROUGE's state, its result per type, and the settings and scoring all ROUGE metrics share.

Each (reference, prediction) pair gets a precision, recall and F-measure per
ROUGE type, exactly as ``rouge_score.rouge_scorer.RougeScorer.score`` (several
references: the one of highest F-measure per type, as ``score_multi``). A batch
is reduced to the sums of those per-pair values and the number of pairs
(:class:`RougeSums`), so the mean over a corpus is the same from merged chunks
as in memory. The settings become a tokenizer, a stemmer and a sentence
splitter (:mod:`scorekit.text.rouge._tokens`); the per-item scores come from
:mod:`scorekit.text.rouge._scores`.
"""

from __future__ import annotations

import abc
import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, NamedTuple, cast

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Check, Flag, Range, State, state_field
from scorekit.errors import ConfigError, InputError, choices, message, raw
from scorekit.text._segments import SegmentSums
from scorekit.text.rouge._scores import _item_scores
from scorekit.text.rouge._tokens import (
    TOKENIZERS,
    SentenceSplit,
    Tokenizer,
    _default_tokens,
    _describe,
    _newline_sentences,
    _none_tokens,
    _rule_sentences,
    _stem_default,
    _stem_unicode,
    _unicode_tokens,
)

__all__ = ["ROUGE_155_TYPES", "ROUGE_TYPES", "RougeScore", "RougeSums"]

ROUGE_TYPES = (*(f"rouge{n}" for n in range(1, 10)), "rougeL", "rougeLsum")
"""The ROUGE types: n-gram overlap for n = 1..9, LCS, and summary-level union LCS."""

ROUGE_155_TYPES = ("rougeW", "rougeS", "rougeSU", "rougeS4", "rougeSU4")
"""ROUGE-1.5.5's weighted LCS and skip-bigram types with registered metrics.

``rougeS<d>`` and ``rougeSU<d>`` take any maximum gap ``d`` (``rougeS`` and
``rougeSU`` without a number: no limit)."""

_DEFAULT_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")


class RougeScore(NamedTuple):
    """Precision, recall and F-measure of one ROUGE type.

    Attributes
    ----------
    precision, recall, fmeasure : float
        Means over the items (for each item, the values of the reference of
        highest F-measure).
    per_sample : ndarray of shape (n, 3), optional
        Per item: precision, recall, fmeasure. Only when asked for with
        ``rouge(..., per_sample=True)``.
    """

    precision: float
    recall: float
    fmeasure: float
    per_sample: NDArray[np.float64] | None = None


@dataclass(frozen=True, eq=False)
class RougeSums(State):
    """Sums of per-item precision, recall and F-measure per ROUGE type, and the item count.

    ``sums[t]`` holds the sums for ``types[t]``; merging adds sums and counts.
    The tokenizer, stemming, sentence splitting and ROUGE-W weight that produced
    the values are recorded and must agree when merging.
    """

    types: tuple[str, ...] = state_field("same")
    tokenizer: str = state_field("same", check="text")
    stemmer: bool = state_field("same", check="flag")
    sentences: str = state_field("same", check="text")
    weight: float = state_field("same", check="finite")
    count: int = state_field("sum", check="count")
    sums: NDArray[np.float64] = state_field("sum", check="nonnegative", ndim=2)

    def _check(self) -> None:
        types = self.types
        if not isinstance(types, tuple) or not all(isinstance(t, str) for t in types):
            raise self._invalid("types", "not a tuple of ROUGE types", types, "e.g. ('rouge1',)")
        if self.weight < 1:
            raise self._invalid("weight", "a ROUGE-W weight below 1", self.weight, ">= 1")
        if self.sums.shape != (len(types), 3):
            raise self._invalid(
                "sums",
                "shape does not match the ROUGE types",
                raw(f"shape {list(self.sums.shape)}"),
                f"precision, recall and F-measure per type: shape [{len(types)}, 3]",
            )
        limit = self.count * (1 + 1e-9)
        if self.sums.size and float(self.sums.max()) > limit:
            raise self._invalid(
                "sums",
                "a sum of scores above the number of items",
                raw(f"{float(self.sums.max())!r} for {self.count} items"),
                "scores in [0, 1] per item: sums <= count",
            )


# metrics ----------------------------------------------------------------------


def _tokenizer_option(metric: Any, tokenizer: Any) -> Any:
    """A tokenizer option: the name of a built-in tokenizer, or a callable."""
    known = isinstance(tokenizer, str) and tokenizer in TOKENIZERS
    if not known and (isinstance(tokenizer, str) or not callable(tokenizer)):
        raise ConfigError(
            message(
                metric.name, "unknown tokenizer", tokenizer, choices(TOKENIZERS) + " or a callable"
            )
        )
    return tokenizer


def _split_option(metric: Any, split: Any) -> Any:
    """A split_sentences option: a bool or a callable (kept as given)."""
    if not isinstance(split, bool | np.bool_) and not callable(split):
        raise ConfigError(
            message(
                metric.name,
                "split_sentences must be a bool or a callable",
                split,
                "False (newlines), True (newlines and . ! ?) or a function str -> list[str]",
            )
        )
    return split


@dataclass(frozen=True)
class _RougeBase(SegmentSums[RougeSums]):
    """Settings and per-item scores shared by :class:`ROUGE` and the single-type metrics."""

    stemmer: Annotated[bool, Flag(problem="stemmer must be True or False", expected="a bool")] = (
        False
    )
    tokenizer: Annotated[Tokenizer, Check(_tokenizer_option)] = "default"
    split_sentences: Annotated[SentenceSplit, Check(_split_option)] = False
    weight: Annotated[
        float,
        Range(1, problem="weight must be a finite number >= 1", expected="e.g. 1.2", convert=float),
    ] = 1.2

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.stemmer and self.tokenizer not in ("default", "unicode"):
            raise ConfigError(
                message(
                    self.name,
                    "stemming needs a built-in word tokenizer",
                    self.tokenizer,
                    "tokenizer 'default' or 'unicode' (stem inside your own tokenizer)",
                )
            )

    @abc.abstractmethod
    def _types(self) -> tuple[str, ...]:
        """The ROUGE types this configuration scores."""

    # settings ---------------------------------------------------------------

    def _tokenizer_name(self) -> str:
        return self.tokenizer if isinstance(self.tokenizer, str) else _describe(self.tokenizer)

    def _sentences_name(self) -> str:
        if callable(self.split_sentences):
            return _describe(self.split_sentences)
        return "rule" if self.split_sentences else "newline"

    def _tokenize_fn(self) -> Callable[[str], list[str]]:
        if self.tokenizer == "default":
            return _default_tokens
        if self.tokenizer == "unicode":
            return _unicode_tokens
        if self.tokenizer == "none":
            return _none_tokens
        user = cast(Callable[[str], list[str]], self.tokenizer)
        name = self.name

        def tokenize(text: str) -> list[str]:
            tokens = user(text)
            if (
                isinstance(tokens, str)
                or not isinstance(tokens, Sequence)
                or not all(isinstance(t, str) for t in tokens)
            ):
                raise ConfigError(
                    message(name, "the tokenizer did not return strings", tokens, "a list of str")
                )
            return list(tokens)

        return tokenize

    def _stem_fn(self) -> Callable[[str], str] | None:
        if not self.stemmer:
            return None
        return _stem_unicode if self.tokenizer == "unicode" else _stem_default

    def _split_fn(self) -> Callable[[str], Sequence[str]]:
        if callable(self.split_sentences):
            return self.split_sentences
        return _rule_sentences if self.split_sentences else _newline_sentences

    # scoring ----------------------------------------------------------------

    def _item_scores(self, references: Any, predictions: Any) -> NDArray[np.float64]:
        """Per item and type: precision, recall, F-measure, shape ``(n, types, 3)``."""
        return _item_scores(
            self.name,
            self._types(),
            references,
            predictions,
            self._tokenize_fn(),
            self._stem_fn(),
            self._split_fn(),
            self.weight,
        )

    # the Metric interface ----------------------------------------------------

    def empty(self) -> RougeSums:
        """The state of no data."""
        types = self._types()
        return RougeSums(
            types=types,
            tokenizer=self._tokenizer_name(),
            stemmer=bool(self.stemmer),
            sentences=self._sentences_name(),
            weight=self.weight,
            count=0,
            sums=np.zeros((len(types), 3)),
        )

    def _state_of(self, scores: NDArray[np.float64]) -> RougeSums:
        empty = self.empty()
        return RougeSums(
            types=empty.types,
            tokenizer=empty.tokenizer,
            stemmer=empty.stemmer,
            sentences=empty.sentences,
            weight=empty.weight,
            count=len(scores),
            sums=scores.sum(axis=0) if len(scores) else empty.sums,
        )

    def summarize(self, references: Any, predictions: Any) -> RougeSums:
        """Sum the per-item precision, recall and F-measure of one batch."""
        return self._state_of(self._item_scores(references, predictions))

    def _segment_statistics(
        self, references: Any, predictions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
        """Per item: 1, then precision, recall and F-measure per type; one reference range."""
        scores = self._item_scores(references, predictions)
        n = len(scores)
        stats = np.ones((n, 1 + 3 * len(self._types())), dtype=np.float64)
        stats[:, 1:] = scores.reshape(n, -1)
        return stats, np.ones(n, dtype=np.int64)

    def _state_of_sums(self, sums: NDArray[Any], segments: int, lo: int, hi: int) -> RougeSums:
        empty = self.empty()
        if segments == 0:
            return empty
        return dataclasses.replace(
            empty, count=segments, sums=np.asarray(sums[1:], dtype=np.float64).reshape(-1, 3)
        )

    def _values_of_sums(self, sums: NDArray[Any]) -> NDArray[np.float64]:
        rows = np.asarray(sums, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            means = (rows[:, 1:] / rows[:, :1]).reshape(len(rows), -1, 3)
        return self._mean_values(means)

    def _mean_values(self, means: NDArray[np.float64]) -> NDArray[np.float64]:
        """The value of ``compute`` from means ``(r, types, 3)``: all of them by default."""
        return means

    def _means(self, state: RougeSums) -> NDArray[np.float64]:
        if state.count == 0:
            raise InputError(message(self.name, "empty input", raw("0 items"), "at least one item"))
        return np.asarray(state.sums / state.count, dtype=np.float64)
