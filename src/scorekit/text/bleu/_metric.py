"""The registered BLEU metric and the functions :func:`bleu` and :func:`sentence_bleu`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

import numpy as np

from scorekit._version import __version__
from scorekit.core import Explanation, Flag, OneOf, Range, register
from scorekit.errors import ConfigError, InputError, message, raw
from scorekit.text._refs import nrefs
from scorekit.text._segments import SegmentSums
from scorekit.text._tokenize import TOKENIZERS, encode_lines
from scorekit.text.bleu._checks import (
    _check_lengths,
    _predictions,
    _references,
    _sentence_references,
    _where,
)
from scorekit.text.bleu._count import _count, _segment_count
from scorekit.text.bleu._stats import BLEUResult, BLEUStats

__all__ = ["BLEU", "bleu", "sentence_bleu"]

Tokenizer = Literal["13a", "intl", "char", "zh", "none"]
Smoothing = Literal["exp", "floor", "add-k", "none"]

SMOOTHING: dict[str, float | None] = {"exp": None, "floor": 0.1, "add-k": 1, "none": None}
"""The smoothing methods and the default value of those that take one (Chen & Cherry 2014)."""

_LOG_ZERO = -9999999999.0  # sacrebleu's log of a zero precision


@register(
    "bleu",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="references_predictions",
    aliases=("sacrebleu",),
    variant="tokenize",
    variants=TOKENIZERS,
)
@dataclass(frozen=True)
class BLEU(SegmentSums[BLEUStats]):
    """Corpus BLEU: the brevity-penalised geometric mean of clipped n-gram precisions.

    .. math:: \\mathrm{BLEU} = \\mathrm{BP} \\cdot \\exp\\Big(\\sum_{n=1}^{N} w_n \\log p_n\\Big),
        \\qquad p_n = \\frac{\\sum_s \\sum_{g} \\min(c_s(g), \\max_r c_{s,r}(g))}
        {\\sum_s \\sum_g c_s(g)},
        \\qquad \\mathrm{BP} = \\begin{cases} 1 & c > r \\\\ e^{1 - r/c} & c \\le r \\end{cases}

    where :math:`c_s(g)` counts n-gram :math:`g` in prediction :math:`s`,
    :math:`c_{s,r}(g)` in its reference :math:`r`, :math:`c` is the total
    prediction length and :math:`r` the total of each segment's closest
    reference length (the shorter one on ties). The statistics are summed over
    the corpus first: corpus BLEU is not the mean of sentence BLEU.

    Parameters
    ----------
    tokenize : {"13a", "intl", "char", "zh", "none"}, default "13a"
        The tokenization (sacrebleu's tokenizers of those names).
    lowercase : bool, default False
        Lowercase predictions and references first.
    smooth : {"exp", "floor", "add-k", "none"}, default "exp"
        Smoothing of zero precisions (Chen & Cherry 2014): ``exp`` gives the
        k-th zero precision ``1 / (2^k total)`` (NIST), ``floor`` uses
        ``smooth_value`` matches instead of 0, ``add-k`` adds ``smooth_value``
        to the matches and totals of orders above 1, ``none`` leaves a zero
        precision (and a score of 0).
    smooth_value : float, optional
        The value of ``floor`` (default 0.1, at most 1) and ``add-k`` (default 1).
    max_order : int, default 4
        The largest n-gram order N.
    weights : sequence of float, optional
        Weights of the log precisions per order (``max_order`` non-negative
        values); uniform by default. They are divided by their sum over the
        orders used.
    effective_order : bool, default False
        Use only the orders up to the longest one the predictions have n-grams
        of (sacrebleu's ``use_effective_order``; on for :func:`sentence_bleu`).
    clip : bool, default True
        Clip each n-gram's matches to its count in the reference. ``False``
        gives the unclipped precision, only to show what clipping prevents.

    Notes
    -----
    Agrees with sacrebleu's ``corpus_bleu`` and ``sentence_bleu`` (score / 100
    and precisions / 100, counts, totals, lengths, brevity penalty), including
    its conventions: when no n-gram of any order matches, every precision and
    the score are 0; the loop over orders stops at the first order without
    prediction n-grams; an empty prediction side has BP 0. Each prediction may
    have any number (at least one) of references.

    ``compute`` returns the score; :meth:`result` and :meth:`details` (and the
    functions :func:`bleu`, :func:`sentence_bleu`) return a :class:`BLEUResult`
    with the statistics and a reproducibility signature. Empty input raises
    :class:`~scorekit.errors.InputError`.

    A bootstrap resamples segments: the statistics of each segment
    (:func:`~scorekit.text.segment_statistics`) are counted once, and a
    replicate's state is their sum weighted by how often it draws each segment.

    References
    ----------
    K. Papineni, S. Roukos, T. Ward, W.-J. Zhu, "BLEU: a method for automatic
    evaluation of machine translation", ACL 2002. M. Post, "A Call for Clarity
    in Reporting BLEU Scores", WMT 2018 (sacrebleu, the implementation matched).
    B. Chen, C. Cherry, "A Systematic Comparison of Smoothing Techniques for
    Sentence-Level BLEU", WMT 2014.

    Examples
    --------
    >>> refs = ["the cat sat on a mat", "the quick brown fox"]
    >>> preds = ["the cat sat on the mat", "a quick brown fox"]
    >>> BLEU().score(refs, preds)
    0.5
    >>> multi = [["the cat sat on a mat", "there is a cat on the mat"], ["the quick brown fox"]]
    >>> round(BLEU().score(multi, preds), 4)
    0.5844
    >>> BLEU(clip=False).details(["the dog"], ["the the the"]).precisions[0]
    1.0
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Corpus BLEU: the geometric mean of clipped n-gram precisions (n = 1..4) of "
        "all predictions against their references, times a brevity penalty.",
        formula="BLEU = BP * exp(sum_n w_n log p_n),  p_n = sum clipped matches_n / sum "
        "n-grams_n,  BP = exp(1 - r/c) if c <= r else 1",
        convention="Statistics are summed over the corpus before the ratio (corpus BLEU is not "
        "the mean of sentence BLEU). r is the sum of the reference lengths closest to each "
        "prediction (the shorter wins a tie). Tokenizer 13a by default (intl, char, zh, none); "
        "smoothing exp by default (floor, add-k, none). The value is a fraction in [0, 1] "
        "(sacrebleu prints 100 times it); the signature string records the settings.",
        reference="sacrebleu corpus_bleu and sentence_bleu (Papineni et al. 2002; Post 2018).",
    )

    tokenize: Annotated[Tokenizer, OneOf(TOKENIZERS)] = "13a"
    lowercase: Annotated[bool, Flag] = False
    smooth: Annotated[Smoothing, OneOf(SMOOTHING)] = "exp"
    smooth_value: float | None = None
    max_order: Annotated[int, Range(1)] = 4
    weights: tuple[float, ...] | None = None
    effective_order: Annotated[bool, Flag] = False
    clip: Annotated[bool, Flag] = True

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.smooth_value is not None:
            if SMOOTHING[self.smooth] is None:
                raise ConfigError(
                    self._error(
                        f"smooth={self.smooth!r} takes no smooth_value",
                        self.smooth_value,
                        "None, or smooth='floor' or 'add-k'",
                    )
                )
            value = self.smooth_value
            if isinstance(value, bool) or not isinstance(value, int | float | np.number):
                raise ConfigError(self._error("invalid smooth_value", value, "a number >= 0"))
            if not math.isfinite(value) or value < 0:
                raise ConfigError(
                    self._error("invalid smooth_value", value, "a finite number >= 0")
                )
            if self.smooth == "floor" and value > 1:
                # a floor above one match would give a precision above 1 for a total of 1
                raise ConfigError(
                    self._error("invalid smooth_value", value, "at most 1 for 'floor'")
                )
        if self.weights is not None:
            try:
                weights = tuple(float(w) for w in self.weights)
            except (TypeError, ValueError):
                raise ConfigError(
                    self._error(
                        "weights must be numbers", self.weights, f"{self.max_order} numbers >= 0"
                    )
                ) from None
            if len(weights) != self.max_order:
                raise ConfigError(
                    self._error(
                        "weights need one value per order",
                        raw(f"{len(weights)} weights"),
                        f"{self.max_order} (max_order)",
                    )
                )
            if not all(math.isfinite(w) and w >= 0 for w in weights) or sum(weights) == 0:
                raise ConfigError(
                    self._error(
                        "invalid weights", weights, "finite numbers >= 0 with a positive sum"
                    )
                )
            object.__setattr__(self, "weights", weights)

    def empty(self) -> BLEUStats:
        """The state of no segments."""
        return BLEUStats(
            tokenize=self.tokenize,
            lowercase=self.lowercase,
            max_order=self.max_order,
            clip=self.clip,
            segments=0,
            hyp_len=0,
            ref_len=0,
            matches=np.zeros(self.max_order, dtype=np.int64),
            totals=np.zeros(self.max_order, dtype=np.int64),
            min_refs=0,
            max_refs=0,
        )

    def summarize(self, references: Any, predictions: Any) -> BLEUStats:
        """Sum the BLEU statistics of one batch of (references, prediction) pairs.

        ``references`` holds per prediction one reference string or a list of
        them (the number may differ between predictions).
        """
        preds = _predictions(self.name, predictions)
        flat, counts = _references(self.name, references)
        _check_lengths(self.name, references, len(counts), len(preds))
        if not preds:
            return self.empty()
        ids, lengths = encode_lines(preds + flat, self.tokenize, self.lowercase)
        n_refs = np.asarray(counts, dtype=np.int64)
        hyp_len, ref_len, matches, totals = _count(ids, lengths, n_refs, self.max_order, self.clip)
        return BLEUStats(
            tokenize=self.tokenize,
            lowercase=self.lowercase,
            max_order=self.max_order,
            clip=self.clip,
            segments=len(preds),
            hyp_len=hyp_len,
            ref_len=ref_len,
            matches=matches,
            totals=totals,
            min_refs=int(n_refs.min()),
            max_refs=int(n_refs.max()),
        )

    def _segment_statistics(
        self, references: Any, predictions: Any
    ) -> tuple[np.ndarray[Any, np.dtype[np.int64]], np.ndarray[Any, np.dtype[np.int64]]]:
        """Per segment sacrebleu's statistics (lengths, matches, totals) and its reference count."""
        preds = _predictions(self.name, predictions)
        flat, counts = _references(self.name, references)
        _check_lengths(self.name, references, len(counts), len(preds))
        n_refs = np.asarray(counts, dtype=np.int64)
        if not preds:
            return np.zeros((0, 2 + 2 * self.max_order), dtype=np.int64), n_refs
        ids, lengths = encode_lines(preds + flat, self.tokenize, self.lowercase)
        return _segment_count(ids, lengths, n_refs, self.max_order, self.clip), n_refs

    def _state_of_sums(
        self, sums: np.ndarray[Any, Any], segments: int, lo: int, hi: int
    ) -> BLEUStats:
        if segments == 0:
            return self.empty()
        order = self.max_order
        row = np.asarray(sums, dtype=np.int64)
        return BLEUStats(
            tokenize=self.tokenize,
            lowercase=self.lowercase,
            max_order=order,
            clip=self.clip,
            segments=segments,
            hyp_len=int(row[0]),
            ref_len=int(row[1]),
            matches=row[2 : 2 + order].copy(),
            totals=row[2 + order :].copy(),
            min_refs=lo,
            max_refs=hi,
        )

    def _values_of_sums(self, sums: np.ndarray[Any, Any]) -> np.ndarray[Any, np.dtype[np.float64]]:
        order = self.max_order
        rows = np.asarray(sums, dtype=np.int64).tolist()
        return np.array(
            [self._score(r[2 : 2 + order], r[2 + order :], r[0], r[1])[0] for r in rows],
            dtype=np.float64,
        )

    def compute(self, state: BLEUStats) -> float:
        """BLEU of the summed statistics, as a fraction."""
        return self.result(state).score

    def details(self, references: Any, predictions: Any) -> BLEUResult:
        """BLEU of one batch with its statistics and signature.

        Examples
        --------
        >>> r = BLEU().details(["the cat sat on a mat"], ["the cat sat on the mat"])
        >>> r.counts, r.totals, r.hyp_len, r.ref_len
        ((5, 3, 2, 1), (6, 5, 4, 3), 6, 6)
        """
        return self.result(self.summarize(references, predictions))

    def result(self, state: BLEUStats) -> BLEUResult:
        """The :class:`BLEUResult` of a state."""
        if state.segments == 0:
            raise InputError(
                self._error("empty input", raw("0 predictions"), "at least one prediction")
            )
        for name in ("tokenize", "lowercase", "max_order", "clip"):
            if getattr(state, name) != getattr(self, name):
                raise InputError(
                    self._error(
                        f"the state was counted with another {name}",
                        getattr(state, name),
                        f"{getattr(self, name)!r} as configured",
                    )
                )
        score, precisions, bp = self._score(
            [int(v) for v in state.matches],
            [int(v) for v in state.totals],
            state.hyp_len,
            state.ref_len,
        )
        return BLEUResult(
            score=score,
            precisions=tuple(precisions),
            counts=tuple(int(v) for v in state.matches),
            totals=tuple(int(v) for v in state.totals),
            bp=bp,
            ratio=state.hyp_len / state.ref_len if state.ref_len else 0.0,
            hyp_len=state.hyp_len,
            ref_len=state.ref_len,
            signature=self.signature(state),
        )

    def _score(
        self, correct: list[int], total: list[int], sys_len: int, ref_len: int
    ) -> tuple[float, list[float], float]:
        """Score, precisions (fractions) and brevity penalty, in sacrebleu's arithmetic."""
        order = self.max_order
        bp = 1.0
        if sys_len < ref_len:
            bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
        percents = [0.0] * order  # sacrebleu's arithmetic, for the score
        fractions = [0.0] * order  # the same precisions, reported as fractions
        if not any(correct):
            return 0.0, fractions, bp
        value = self.smooth_value if self.smooth_value is not None else SMOOTHING[self.smooth]
        k: float = 0 if value is None else value
        halvings = 1.0
        used = order
        for n in range(1, order + 1):
            c: float = correct[n - 1]
            t: float = total[n - 1]
            if self.smooth == "add-k" and n > 1:
                c, t = c + k, t + k
            if t == 0:
                break
            if self.effective_order:
                used = n
            if c == 0:
                if self.smooth == "exp":
                    halvings *= 2
                    percents[n - 1] = 100.0 / (halvings * t)
                    fractions[n - 1] = 1.0 / (halvings * t)
                elif self.smooth == "floor":
                    percents[n - 1] = 100.0 * k / t
                    fractions[n - 1] = k / t
            else:
                percents[n - 1] = 100.0 * c / t
                fractions[n - 1] = c / t
        logs = [math.log(p) if p != 0.0 else _LOG_ZERO for p in percents[:used]]
        if self.weights is None:
            score = bp * math.exp(sum(logs) / used)
        else:
            w = self.weights[:used]
            mass = sum(w)
            if mass == 0:
                score = 0.0
            else:
                score = bp * math.exp(
                    sum(wi * li for wi, li in zip(w, logs, strict=True) if wi > 0) / mass
                )
        # exp(mean log) of precisions all 1 can round to just above 1
        return min(score / 100.0, 1.0), fractions, bp

    def signature(self, state: BLEUStats | None = None) -> str:
        """The reproducibility signature, in sacrebleu's ``key:value|...`` form.

        Examples
        --------
        >>> BLEU(smooth="floor").signature()
        'nrefs:?|case:mixed|eff:no|tok:13a|smooth:floor[0.10]|version:scorekit-...'
        """
        smooth: str = self.smooth
        default = SMOOTHING[smooth]
        if default is not None:
            value = self.smooth_value if self.smooth_value is not None else default
            smooth += f"[{value:.2f}]"
        parts = [
            f"nrefs:{nrefs(state)}",
            f"case:{'lc' if self.lowercase else 'mixed'}",
            f"eff:{'yes' if self.effective_order else 'no'}",
            f"tok:{self.tokenize}",
            f"smooth:{smooth}",
        ]
        if self.max_order != 4:
            parts.append(f"order:{self.max_order}")
        if self.weights is not None:
            parts.append("weights:" + ",".join(f"{w:g}" for w in self.weights))
        if not self.clip:
            parts.append("clip:no")
        parts.append(f"version:scorekit-{__version__}")
        return "|".join(parts)


# functions ----------------------------------------------------------------------------


def bleu(
    references: Any,
    predictions: Any,
    *,
    tokenize: Tokenizer = "13a",
    lowercase: bool = False,
    smooth: Smoothing = "exp",
    smooth_value: float | None = None,
    max_order: int = 4,
    weights: Sequence[float] | None = None,
    effective_order: bool = False,
    clip: bool = True,
) -> BLEUResult:
    """Corpus BLEU with its statistics; see :class:`BLEU`.

    Examples
    --------
    >>> r = bleu(["the cat sat on a mat", "the quick brown fox"],
    ...          ["the cat sat on the mat", "a quick brown fox"])
    >>> r.score, r.precisions
    (0.5, (0.8, 0.625, 0.5, 0.25))
    >>> r.signature
    'nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:scorekit-...'
    """
    metric = BLEU(
        tokenize=tokenize,
        lowercase=lowercase,
        smooth=smooth,
        smooth_value=smooth_value,
        max_order=max_order,
        weights=None if weights is None else tuple(weights),
        effective_order=effective_order,
        clip=clip,
    )
    return metric.details(references, predictions)


def sentence_bleu(
    references: Any,
    prediction: str,
    *,
    tokenize: Tokenizer = "13a",
    lowercase: bool = False,
    smooth: Smoothing = "exp",
    smooth_value: float | None = None,
    max_order: int = 4,
    weights: Sequence[float] | None = None,
    effective_order: bool = True,
    clip: bool = True,
) -> BLEUResult:
    """BLEU of one prediction against one reference string or a list of them.

    Sentence BLEU is corpus BLEU of a one-segment corpus; as in sacrebleu's
    ``sentence_bleu``, ``effective_order`` is on by default.

    Examples
    --------
    >>> round(sentence_bleu("the cat sat on a mat", "the cat sat on the mat").score, 4)
    0.5373
    >>> sentence_bleu(["the dog"], "the the the").precisions[0]
    0.333...
    """
    name = "sentence_bleu"
    if not isinstance(prediction, str):
        problem = "prediction is missing" if prediction is None else "prediction is not a string"
        raise InputError(message(name, problem, _where(prediction, "0"), "one string"))
    if not isinstance(references, str):
        references = _sentence_references(name, references)
    return bleu(
        [references],
        [prediction],
        tokenize=tokenize,
        lowercase=lowercase,
        smooth=smooth,
        smooth_value=smooth_value,
        max_order=max_order,
        weights=weights,
        effective_order=effective_order,
        clip=clip,
    )
